"""Client for the ferry agent (``ferry agent``): HTTP/1.1 + JSON over its Unix socket.

Standard library only, so nova-compute (or any Python caller on the host) can import it without new
dependencies. The interface is fixed:

    ensure(image, store=None, socket=None, timeout=None, retry_after_failed_clone=None, auth_token=None) -> dict
        The document ``ferry ensure --json`` prints: {"image", "store", "needed", "copied", "joined", "seconds",
        "target": {"fsid", "pool", "image", "snapshot", "url"} | None, "why", "image_reads", "import_requests"}.
        ``retry_after_failed_clone`` ({"pool", "image", "snapshot"}): the clone source a clone just failed on because
        it went away (ferry evict removed it); the agent then looks at the copy before it answers, and waits out a
        removal until it can hand out a copy that is there. Leave it out on a first ask.
        ``auth_token``: the booting user's Keystone token (nova's ``context.auth_token``), sent as the header
        ``X-Auth-Token``. The agent then asks Glance with it (and its own token as ``X-Service-Token``), so Glance
        judges by that user whether the image may be seen: FERRY_IMAGE_NOT_FOUND then means the user cannot see it.
        Without it the agent looks as itself. The token is used for this one request only and never appears in an
        error's message, repr or hint; a token that cannot be a header value (not text, or holding a line break or
        another control character) is refused before anything is sent: FERRY_AGENT_BAD_REQUEST, cause 'request'.
        ``SENDS_AUTH_TOKEN`` (True) tells a caller that this client takes it.

    FerryAgentError(code, message, hint=None, status=None, cause=None)
        Raised on any failure, with ferry's error code (FERRY_COPY_FAILED, FERRY_IMAGE_NOT_FOUND, ...) or, when the
        agent cannot be reached at all, FERRY_AGENT_UNAVAILABLE. ``cause`` tells those apart: 'connection' (no socket,
        refused, closed before answering: the request did not get through), 'timeout' (the agent took the request
        but did not answer in time), 'request' (refused by this client before sending: a token that is not a header
        value), None (the agent answered, with ``code``). ``details``: the error document's ``details`` (e.g. a
        service's ``status`` behind FERRY_HTTP), a dict, empty when the agent gave none.
        FERRY_STORE_NOT_ALLOWED (status 403, cause None): the agent serves its own store(s) only and
        ``store`` is not one of them. Nothing was asked of Glance; the caller copies by itself or fails, asking the
        agent again cannot help (nova's patch falls back to its own copy at once).
        FERRY_HAND_OUT_TIMEOUT (status 503, cause None): asked with ``retry_after_failed_clone``, the agent could not
        hand out a copy before the request's deadline (``timeout`` or its own, less 5 s: the copy still gone or being
        removed); it answers then, while this client still waits. nova's patch copies by itself at once.

The document is about the image asked for: a caller that asked by ID checks ``doc['image'] == image`` before it
clones ``doc['target']`` (nova's patch does, and falls back to its own copy when it is not).

The socket is ``socket``, else $FERRY_AGENT_SOCKET, else /run/ferry/agent.sock. ``timeout`` (seconds) is sent to the
agent as the copy deadline; the client waits that long plus a margin for the answer.
"""

import http.client
import json
import os
import socket as _socket

DEFAULT_SOCKET = '/run/ferry/agent.sock'
SOCKET_ENV = 'FERRY_AGENT_SOCKET'
# Without a timeout (nova's images_rbd_glance_copy_timeout = 0, "no timeout") the agent's own deadline applies: its
# --timeout, or that option read from its nova.conf, where 0 is ferry's cap of 86400 s. The agent answers by its
# deadline itself, so the client waits as long as any deadline an agent holds (the cap), not a guess of 600 s that
# gave up on a copy the agent was still bringing.
AGENT_MAX_DEADLINE = 86400.0
# The agent answers a timed-out copy itself; the client only guards against an agent that never answers.
ANSWER_MARGIN = 30.0

# This client sends ensure()'s auth_token (nova's patch asks before it passes one: an older client has no such argument).
SENDS_AUTH_TOKEN = True
AUTH_TOKEN_HEADER = 'X-Auth-Token'

__all__ = ['ensure', 'status', 'FerryAgentError', 'DEFAULT_SOCKET', 'SENDS_AUTH_TOKEN']


class FerryAgentError(Exception):
    """A failure reported by the agent (its error code), or the agent not answering (FERRY_AGENT_UNAVAILABLE)."""

    def __init__(self, code, message, hint=None, status=None, cause=None, details=None):
        super().__init__('%s: %s' % (code, message))
        self.code = code
        self.message = message
        self.hint = hint
        self.status = status
        self.cause = cause
        self.details = details if isinstance(details, dict) else {}


class _UnixConnection(http.client.HTTPConnection):
    def __init__(self, path, timeout):
        super().__init__('localhost', timeout=timeout)
        self._path = path

    def connect(self):
        sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        try:
            sock.connect(self._path)
        except BaseException:
            sock.close()
            raise
        self.sock = sock


def _socket_path(socket):
    return socket or os.environ.get(SOCKET_ENV) or DEFAULT_SOCKET


def _token_header(auth_token):
    """{X-Auth-Token: token}, or {} without one; a token that cannot be a header value is refused, never shown."""
    if auth_token is None or auth_token == '':
        return {}
    if (not isinstance(auth_token, str) or not auth_token.isascii() or
            any(ord(char) < 0x21 or ord(char) == 0x7f for char in auth_token)):
        raise FerryAgentError('FERRY_AGENT_BAD_REQUEST',
                              'the auth token (%s, not shown) cannot be sent as a header value' %
                              ('text of %d characters' % len(auth_token) if isinstance(auth_token, str)
                               else type(auth_token).__name__),
                              'Pass the Keystone token as it is (printable ASCII, no spaces or line breaks).',
                              cause='request')
    return {AUTH_TOKEN_HEADER: auth_token}


def _call(method, path, body, socket, wait, auth_token=None):
    where = _socket_path(socket)
    headers = {'Accept': 'application/json'}
    headers.update(_token_header(auth_token))
    connection = _UnixConnection(where, wait)
    try:
        payload = None
        if body is not None:
            payload = json.dumps(body).encode('utf-8')
            headers['Content-Type'] = 'application/json'
        try:
            connection.request(method, path, body=payload, headers=headers)
            response = connection.getresponse()
            raw = response.read()
        except _socket.timeout:
            raise FerryAgentError('FERRY_AGENT_UNAVAILABLE',
                                  'the ferry agent at %s did not answer within %.0f s' % (where, wait),
                                  'See the agent log (journalctl -u ferry-agent).', cause='timeout')
        except (OSError, http.client.HTTPException) as exc:
            raise FerryAgentError('FERRY_AGENT_UNAVAILABLE',
                                  'the ferry agent at %s does not answer: %s' % (where, exc),
                                  'Start it (systemctl start ferry-agent), or check the socket path and that '
                                  'this user is in the socket group.', cause='connection')
    finally:
        connection.close()
    try:
        document = json.loads(raw.decode('utf-8'))
    except ValueError:
        raise FerryAgentError('FERRY_BAD_RESPONSE',
                              'the ferry agent answered HTTP %d with a body that is not JSON' % response.status,
                              status=response.status)
    if 200 <= response.status < 300:
        return document
    error = document.get('error') if isinstance(document, dict) else None
    if not isinstance(error, dict):
        raise FerryAgentError('FERRY_BAD_RESPONSE', 'the ferry agent answered HTTP %d' % response.status,
                              status=response.status)
    raise FerryAgentError(str(error.get('code', 'FERRY_INTERNAL')), str(error.get('message', '')),
                          error.get('hint'), response.status, details=error.get('details'))


def ensure(image, store=None, socket=None, timeout=None, retry_after_failed_clone=None, auth_token=None):
    """Make sure ``image`` (ID or unique name) is clonable in the local Ceph cluster; return ferry's document."""
    body = {'image': image}
    if store:
        body['store'] = store
    if timeout:
        body['timeout'] = float(timeout)
    if retry_after_failed_clone:
        body['retry_after_failed_clone'] = {key: str(retry_after_failed_clone[key])
                                            for key in ('pool', 'image', 'snapshot')}
    wait = (float(timeout) if timeout else AGENT_MAX_DEADLINE) + ANSWER_MARGIN
    return _call('POST', '/v1/ensure', body, socket, wait, auth_token=auth_token)


def status(image, socket=None, timeout=30.0):
    """Where ``image`` lives (``ferry status --json``)."""
    from urllib.parse import quote
    return _call('GET', '/v1/images/%s' % quote(image, safe=''), None, socket, timeout)
