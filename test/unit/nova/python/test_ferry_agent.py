"""Tests of integrations/nova/ferry_agent.py (nova's client of the ferry agent) against a stand-in agent.

The stand-in is an HTTP server on a Unix socket in a thread; it records each request (method, path, headers, body)
and answers what the test gives it. Run by test/unit/nova/ferry-agent-client.test.ts (npm test), or:
    /usr/bin/python3 -I -B -m unittest discover -s test/unit/nova/python -t test/unit/nova/python
"""
import http.server
import json
import logging
import os
import socketserver
import sys
import tempfile
import threading
import unittest

# The client as it ships: integrations/nova/ of this checkout, ahead of any installed copy.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', '..', 'integrations', 'nova'))
import ferry_agent  # noqa: E402

TOKEN = 'gAAAAABtenant-token-0123456789abcdef'
DOCUMENT = {'image': 'img-1', 'store': 'site-b', 'needed': False, 'copied': False, 'joined': False, 'seconds': 0.01,
            'target': {'fsid': 'f', 'pool': 'images', 'image': 'img-1', 'snapshot': 'snap',
                       'url': 'rbd://f/images/img-1/snap'}, 'why': 'present'}


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


class StandInAgent:
    """An agent that answers each request with (status, body) and records what it was sent."""

    def __init__(self, status=200, body=DOCUMENT, hold=None):
        self.requests = []
        self.dir = tempfile.mkdtemp(prefix='ferry-agent-client-')
        self.socket = os.path.join(self.dir, 'agent.sock')
        agent = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def address_string(self):
                return 'stand-in'

            def log_message(self, *args):
                pass

            def do_POST(self):
                length = int(self.headers.get('Content-Length') or 0)
                agent.requests.append({'method': 'POST', 'path': self.path, 'headers': dict(self.headers.items()),
                                       'body': json.loads(self.rfile.read(length) or b'null')})
                if hold is not None:
                    hold.wait(10)
                text = (body if isinstance(body, bytes) else json.dumps(body).encode('utf-8'))
                self.send_response(status)
                self.send_header('Content-Type', 'application/json')
                self.send_header('Content-Length', str(len(text)))
                self.end_headers()
                self.wfile.write(text)

        self.server = _Server(self.socket, Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()
        if os.path.exists(self.socket):
            os.unlink(self.socket)
        os.rmdir(self.dir)


def header(request, name):
    """A header's value, whatever its case; None when absent."""
    return next((value for key, value in request['headers'].items() if key.lower() == name.lower()), None)


class TokenTestCase(unittest.TestCase):
    def agent(self, **kwargs):
        agent = StandInAgent(**kwargs)
        self.addCleanup(agent.close)
        return agent

    def assertTokenNowhere(self, exc):
        """The token is in no text of the error: message, str, repr, args, hint, details."""
        for text in (str(exc), repr(exc), exc.message, str(exc.hint), repr(exc.args), json.dumps(exc.details)):
            self.assertNotIn(TOKEN, text)
            self.assertNotIn(TOKEN[:16], text)


class EnsureSendsTheUserTokenTest(TokenTestCase):
    def test_the_token_goes_as_x_auth_token_and_the_body_is_unchanged(self):
        agent = self.agent()
        answer = ferry_agent.ensure('img-1', store='site-b', socket=agent.socket, timeout=60, auth_token=TOKEN)
        self.assertEqual(DOCUMENT, answer)
        [request] = agent.requests
        self.assertEqual(('POST', '/v1/ensure'), (request['method'], request['path']))
        self.assertEqual(TOKEN, header(request, 'X-Auth-Token'))
        self.assertEqual({'image': 'img-1', 'store': 'site-b', 'timeout': 60.0}, request['body'])

    def test_the_token_is_sent_with_a_retry_after_a_failed_clone(self):
        agent = self.agent()
        ferry_agent.ensure('img-1', store='site-b', socket=agent.socket, auth_token=TOKEN,
                           retry_after_failed_clone={'pool': 'images', 'image': 'img-1', 'snapshot': 'snap'})
        [request] = agent.requests
        self.assertEqual(TOKEN, header(request, 'X-Auth-Token'))
        self.assertEqual({'pool': 'images', 'image': 'img-1', 'snapshot': 'snap'},
                         request['body']['retry_after_failed_clone'])

    def test_without_a_token_no_header_is_sent(self):
        agent = self.agent()
        ferry_agent.ensure('img-1', socket=agent.socket)
        ferry_agent.ensure('img-1', socket=agent.socket, auth_token=None)
        ferry_agent.ensure('img-1', socket=agent.socket, auth_token='')
        self.assertEqual(3, len(agent.requests))
        for request in agent.requests:
            self.assertIsNone(header(request, 'X-Auth-Token'))
            self.assertEqual({'image': 'img-1'}, request['body'])

    def test_the_client_says_it_takes_the_token(self):
        self.assertIs(True, ferry_agent.SENDS_AUTH_TOKEN)


class TheTokenNeverShowsTest(TokenTestCase):
    def test_an_agents_error_carries_its_code_details_and_not_the_token(self):
        agent = self.agent(status=502, body={'error': {
            'code': 'FERRY_HTTP', 'message': 'Glance answered 503 to POST http://glance/v2/images/img-1/import',
            'hint': 'Glance failed internally', 'details': {'status': 503, 'fault': 'service'}}})
        with self.assertRaises(ferry_agent.FerryAgentError) as caught:
            ferry_agent.ensure('img-1', socket=agent.socket, auth_token=TOKEN)
        exc = caught.exception
        self.assertEqual(('FERRY_HTTP', 502, None), (exc.code, exc.status, exc.cause))
        self.assertEqual({'status': 503, 'fault': 'service'}, exc.details)
        self.assertTokenNowhere(exc)

    def test_an_error_without_details_has_empty_details(self):
        agent = self.agent(status=404, body={'error': {'code': 'FERRY_IMAGE_NOT_FOUND', 'message': 'no image img-1'}})
        with self.assertRaises(ferry_agent.FerryAgentError) as caught:
            ferry_agent.ensure('img-1', socket=agent.socket, auth_token=TOKEN)
        self.assertEqual(('FERRY_IMAGE_NOT_FOUND', {}), (caught.exception.code, caught.exception.details))
        self.assertTokenNowhere(caught.exception)

    def test_no_agent_the_error_names_the_socket_not_the_token(self):
        where = os.path.join(tempfile.gettempdir(), 'ferry-agent-client-nobody.sock')
        with self.assertRaises(ferry_agent.FerryAgentError) as caught:
            ferry_agent.ensure('img-1', socket=where, auth_token=TOKEN)
        self.assertEqual(('FERRY_AGENT_UNAVAILABLE', 'connection'), (caught.exception.code, caught.exception.cause))
        self.assertIn(where, caught.exception.message)
        self.assertTokenNowhere(caught.exception)

    def test_an_answer_that_is_not_json_does_not_show_the_token(self):
        agent = self.agent(status=500, body=b'<html>oops</html>')
        with self.assertRaises(ferry_agent.FerryAgentError) as caught:
            ferry_agent.ensure('img-1', socket=agent.socket, auth_token=TOKEN)
        self.assertEqual('FERRY_BAD_RESPONSE', caught.exception.code)
        self.assertTokenNowhere(caught.exception)

    def test_no_answer_in_time_does_not_show_the_token(self):
        hold = threading.Event()
        self.addCleanup(hold.set)
        agent = self.agent(hold=hold)
        margin, ferry_agent.ANSWER_MARGIN = ferry_agent.ANSWER_MARGIN, 0.2
        self.addCleanup(setattr, ferry_agent, 'ANSWER_MARGIN', margin)
        with self.assertRaises(ferry_agent.FerryAgentError) as caught:
            ferry_agent.ensure('img-1', socket=agent.socket, timeout=0.1, auth_token=TOKEN)
        self.assertEqual(('FERRY_AGENT_UNAVAILABLE', 'timeout'), (caught.exception.code, caught.exception.cause))
        self.assertTokenNowhere(caught.exception)

    def test_a_token_that_cannot_be_a_header_is_refused_unsent_and_unshown(self):
        # http.client would raise ValueError('Invalid header value ...') quoting the value: refused before that.
        agent = self.agent()
        for bad in (TOKEN + '\r\nX-Injected: 1', TOKEN + ' x', TOKEN + '\x00', TOKEN + '\u00e9', TOKEN.encode('ascii')):
            with self.assertRaises(ferry_agent.FerryAgentError) as caught:
                ferry_agent.ensure('img-1', socket=agent.socket, auth_token=bad)
            self.assertEqual(('FERRY_AGENT_BAD_REQUEST', 'request'), (caught.exception.code, caught.exception.cause))
            self.assertIn('not shown', caught.exception.message)
            self.assertTokenNowhere(caught.exception)
        self.assertEqual([], agent.requests)

    def test_nothing_is_logged(self):
        answers = self.agent()
        refuses = self.agent(status=403, body={'error': {'code': 'FERRY_FORBIDDEN', 'message': 'Glance answered 403'}})
        with self.assertNoLogs(level=logging.DEBUG):
            ferry_agent.ensure('img-1', socket=answers.socket, auth_token=TOKEN)
            with self.assertRaises(ferry_agent.FerryAgentError):
                ferry_agent.ensure('img-1', socket=refuses.socket, auth_token=TOKEN)

    def test_the_token_is_not_kept_by_the_module(self):
        agent = self.agent()
        ferry_agent.ensure('img-1', socket=agent.socket, auth_token=TOKEN)
        for name, value in vars(ferry_agent).items():
            self.assertNotIn(TOKEN, repr(value), name)


class TheWaitTest(unittest.TestCase):
    """How long the client waits for the agent's answer."""

    def test_without_a_timeout_it_waits_as_long_as_the_agent_may_hold_a_request(self):
        # nova's images_rbd_glance_copy_timeout = 0: no deadline sent, the agent's own applies (up to its 86400 s cap).
        seen = {}

        def call(method, path, body, socket, wait, auth_token=None):
            seen.update(body=body, wait=wait)
            return {}
        original = ferry_agent._call
        ferry_agent._call = call
        self.addCleanup(setattr, ferry_agent, '_call', original)
        ferry_agent.ensure('img-1')
        self.assertNotIn('timeout', seen['body'])
        self.assertEqual(86400.0 + ferry_agent.ANSWER_MARGIN, seen['wait'])
        ferry_agent.ensure('img-1', timeout=120)
        self.assertEqual(120.0, seen['body']['timeout'])
        self.assertEqual(120.0 + ferry_agent.ANSWER_MARGIN, seen['wait'])


if __name__ == '__main__':
    unittest.main()
