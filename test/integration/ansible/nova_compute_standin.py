"""A stand-in for nova-compute.service in the clean private systemd (test/integration/ansible).

nova-compute itself cannot run there (no libvirt, no message queue, no database). This does what of its start matters
to ferry: nova's own config parsing of the files nova-compute reads (its --config-file options), and the import of
nova's libvirt image backend from the installed python3-nova (which ferry's package patches). It prints what it read,
once, then waits until systemd stops it; a restart is a new process that reads both again.

Usage: /usr/bin/python3 -I nova_compute_standin.py --config-file /etc/nova/nova.conf [--config-file ...]
"""
import signal
import sys

from nova import config

config.parse_args(['nova-compute'] + sys.argv[1:])

from nova.conf import CONF  # noqa: E402  (after parse_args, as nova-compute imports it)
from nova.virt.libvirt import imagebackend  # noqa: E402

# The option exists only in a patched nova (its nova/conf/libvirt.py registers it).
socket = getattr(CONF.libvirt, 'images_rbd_ferry_agent_socket', '<not an option: nova is not patched>')
patched = hasattr(imagebackend.Rbd, '_copy_to_store_by_ferry_agent')
print('nova-compute stand-in started: images_rbd_ferry_agent_socket=%s patched=%s' % (socket, patched), flush=True)
signal.pause()  # SIGTERM (systemctl stop or restart) ends it with its default action
