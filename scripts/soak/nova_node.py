"""One soak "compute node": nova's REAL libvirt image backend, imported once, booting what stdin asks.

Usage: /usr/bin/python3 -I nova_node.py NOVA_ROOT NOVA_CONF FERRY_AGENT_DIR
  NOVA_ROOT        a directory holding the patched `nova` package (test/integration/agent/nova-tree.ts patchedNova)
  NOVA_CONF        a nova.conf (novaConf: this node's site, its ferry agent's socket)
  FERRY_AGENT_DIR  where ferry_agent.py is (integrations/nova): -I ignores PYTHONPATH
Each stdin line is one JSON command, answered by one JSON line on stdout, in order:
  {"boot": NAME, "image": ID, "token": TOKEN}  Rbd(path='vms/NAME').clone(context, ID) with the user's token, as
                                               nova-compute's spawn calls it -> {"boot": NAME, "ok", "error",
                                               "message", "seconds", "warnings", "asked_again"}
  {"delete": NAME}                             the instance deleted: nova's own RBDDriver.remove_image(NAME)
                                               -> {"delete": NAME, "ok", "error"}
Before the first command: {"imported": true, "import_seconds": S}. EOF on stdin ends it.
The boot loop of test/integration/evict/nova_boot_loop.py, with the image and the token chosen per boot.
"""
import json
import os
import sys
import time

nova_root, nova_conf, agent_dir = sys.argv[1:4]
sys.path.insert(0, agent_dir)
# nova_backend_log.py, shared with the nova drivers of the integration tests
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'test', 'integration', 'agent'))
sys.path.insert(0, nova_root)
imported = time.monotonic()

from nova import monkey_patch  # noqa: E402,F401  (what nova-compute does first)

if hasattr(monkey_patch, 'patch'):
    monkey_patch.patch(backend='threading')
from nova import config  # noqa: E402
from nova import context as nova_context  # noqa: E402

config.parse_args(['nova-compute', '--config-file', nova_conf])

from nova.virt.libvirt import imagebackend  # noqa: E402
from nova_backend_log import collect_backend_log  # noqa: E402

assert imagebackend.__file__.startswith(nova_root), imagebackend.__file__
assert hasattr(imagebackend.Rbd, '_copy_to_store_by_ferry_agent'), 'nova is not patched'

collected = collect_backend_log()
ASKED_AGAIN = ('went away before Nova cloned it', 'handed out cannot be cloned')
print(json.dumps({'imported': True, 'import_seconds': round(time.monotonic() - imported, 3)}), flush=True)


def boot(command):
    collected.records.clear()
    ctx = nova_context.RequestContext(user_id='ferry-soak', project_id='ferry-soak', auth_token=command['token'],
                                      is_admin=True)
    disk = imagebackend.Rbd(path='vms/%s' % command['boot'])
    started = time.monotonic()
    result = {'boot': command['boot']}
    try:
        disk.clone(ctx, command['image'])
        result['ok'] = True
    except Exception as exc:  # every failure is data for the soak
        result.update(ok=False, error=type(exc).__name__, message=str(exc))
    result['seconds'] = round(time.monotonic() - started, 3)
    warnings = collected.warnings()
    result['warnings'] = warnings
    result['asked_again'] = sum(1 for w in warnings if any(mark in w for mark in ASKED_AGAIN))
    return result


def delete(command):
    disk = imagebackend.Rbd(path='vms/%s' % command['delete'])
    try:
        disk.driver.remove_image(command['delete'])
        return {'delete': command['delete'], 'ok': True}
    except Exception as exc:
        return {'delete': command['delete'], 'ok': False, 'error': '%s: %s' % (type(exc).__name__, exc)}


for line in sys.stdin:
    command = json.loads(line)
    print(json.dumps(boot(command) if 'boot' in command else delete(command)), flush=True)
