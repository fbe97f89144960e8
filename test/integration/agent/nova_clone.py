"""Drive nova's REAL libvirt image backend: Rbd(path=...).clone(context, image_id), no nova service.

Usage: /usr/bin/python3 nova_clone.py NOVA_ROOT NOVA_CONF IMAGE_ID RBD_NAME
  NOVA_ROOT  a directory holding the `nova` package to use (a patched copy, or the system's dist-packages)
  NOVA_CONF  a nova.conf for nova's own config parsing ([libvirt] images_type = rbd, [glance] api_servers, ...)
Environment: OS_TOKEN (a Keystone token for the RequestContext), FERRY_AGENT_SOCKET, PYTHONPATH (ferry_agent, and
  for a newer nova the newer libraries it needs); OS_NOVA_DISABLE_EVENTLET_PATCHING as nova-compute reads it.
Concurrency as nova-compute sets it up: nova 26 monkey patches with eventlet when nova.monkey_patch is imported; newer
nova (with monkey_patch.patch()) runs nova-compute in native threading unless configured or told otherwise.
Prints one JSON line: {"ok": true|false, "error": TYPE, "message": TEXT, "seconds": S, "version": V, "concurrency": C,
"patched": P, "module": FILE, "warnings": [what the image backend logged at WARNING+], "retries": N (the patch's
"asking it again" debug lines), "client": ferry_agent importable}.
"""
import json
import os
import sys
import time

nova_root, nova_conf, image_id, rbd_name = sys.argv[1:5]
sys.path.insert(0, nova_root)

from nova import monkey_patch  # noqa: E402  (what nova-compute does first)

if hasattr(monkey_patch, 'patch'):
    # newer nova: nova/cmd/compute.py calls this (native threading unless configured otherwise)
    monkey_patch.patch(backend='threading')
from nova import config  # noqa: E402
from nova import context as nova_context  # noqa: E402

config.parse_args(['nova-compute', '--config-file', nova_conf])

from nova.virt.libvirt import imagebackend  # noqa: E402
from nova_backend_log import collect_backend_log  # noqa: E402  (beside this file)


collected = collect_backend_log()

assert imagebackend.__file__.startswith(os.path.realpath(nova_root)) or imagebackend.__file__.startswith(nova_root), \
    imagebackend.__file__

ctx = nova_context.RequestContext(user_id='ferry-it', project_id='ferry-it', auth_token=os.environ['OS_TOKEN'],
                                  is_admin=True)
from nova import version as nova_version  # noqa: E402

started = time.monotonic()
result = {'module': imagebackend.__file__,
          'patched': hasattr(imagebackend.Rbd, '_copy_to_store_by_ferry_agent'),
          'version': nova_version.version_string(),
          'concurrency': 'eventlet' if 'eventlet' in sys.modules
          and sys.modules['eventlet'].patcher.is_monkey_patched('socket') else 'threading'}
try:
    imagebackend.Rbd(path='vms/%s' % rbd_name).clone(ctx, image_id)
    result['ok'] = True
except Exception as exc:  # report every failure to the test as data
    result.update(ok=False, error=type(exc).__name__, message=str(exc))
result['seconds'] = round(time.monotonic() - started, 3)
result['warnings'] = collected.warnings()
result['retries'] = sum(1 for r in collected.records if 'asking it again' in r.getMessage())
result['client'] = getattr(imagebackend, 'FERRY_AGENT_IMPORT_ERROR', 'n/a') is None
print(json.dumps(result))
