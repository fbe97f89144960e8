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

from nova_backend_log import patched_image_backend  # noqa: E402

imagebackend, nova_context, collected = patched_image_backend(nova_root, nova_conf)

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
    result['asked_again'] = collected.asked_again()
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
