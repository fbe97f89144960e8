"""Boot one image again and again through nova's REAL libvirt image backend, in one process: the boot race's driver.

Usage: /usr/bin/python3 -I nova_boot_loop.py NOVA_ROOT NOVA_CONF IMAGE_ID NAME_PREFIX BOOTS FERRY_AGENT_DIR GAP
  NOVA_ROOT        a directory holding the (patched) `nova` package
  NOVA_CONF        a nova.conf for nova's own config parsing ([libvirt] images_type = rbd, the ferry agent's socket, ...)
  FERRY_AGENT_DIR  where ferry_agent.py is (integrations/nova): -I ignores PYTHONPATH, so it is put on sys.path here
  GAP              after each boot, a pause drawn between 0 and GAP seconds: the copy idle, an eviction can start
                   (back to back, a clone is there at almost every plan and last look); the next boot races it
Environment: OS_TOKEN (a Keystone token for the RequestContext).
nova is imported once (seconds to minutes on a loaded machine); then each boot is Rbd(path='vms/NAME').clone(context,
image) as nova-compute's spawn calls it, and the instance is deleted after it (its disk removed with nova's own
RBDDriver.remove_image), so the copy is idle again for the next eviction. One JSON line per boot:
{"boot": N, "ok": bool, "error": TYPE, "message": TEXT, "seconds": S, "warnings": [the image backend's WARNING+],
 "asked_again": how often the patch asked the agent again after a failed clone, "removed": bool}
then {"done": BOOTS, "import_seconds": S}.
"""
import json
import os
import random
import sys
import time

nova_root, nova_conf, image_id, prefix, boots, agent_dir, gap = sys.argv[1:8]
sys.path.insert(0, agent_dir)
# nova_backend_log.py, shared with nova_clone.py (-I leaves this script's own folder off sys.path too)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'agent'))
sys.path.insert(0, nova_root)
imported = time.monotonic()

from nova_backend_log import patched_image_backend  # noqa: E402

imagebackend, nova_context, collected = patched_image_backend(nova_root, nova_conf)



ctx = nova_context.RequestContext(user_id='ferry-it', project_id='ferry-it', auth_token=os.environ['OS_TOKEN'],
                                  is_admin=True)
print(json.dumps({'imported': True, 'import_seconds': round(time.monotonic() - imported, 3)}), flush=True)
for boot in range(1, int(boots) + 1):
    collected.records.clear()
    name = '%s-%d' % (prefix, boot)
    disk = imagebackend.Rbd(path='vms/%s' % name)
    started = time.monotonic()
    result = {'boot': boot}
    try:
        disk.clone(ctx, image_id)
        result['ok'] = True
    except Exception as exc:  # every failure is data for the test
        result.update(ok=False, error=type(exc).__name__, message=str(exc))
    result['seconds'] = round(time.monotonic() - started, 3)
    warnings = collected.warnings()
    result['warnings'] = warnings
    result['asked_again'] = collected.asked_again()
    if result['ok']:
        try:
            disk.driver.remove_image(name)
            result['removed'] = True
        except Exception as exc:
            result.update(removed=False, remove_error='%s: %s' % (type(exc).__name__, exc))
    print(json.dumps(result), flush=True)
    time.sleep(random.uniform(0, float(gap)))
print(json.dumps({'done': int(boots)}), flush=True)
