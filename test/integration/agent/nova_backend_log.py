"""nova's libvirt image backend as nova-compute imports it, and what it logs (for the nova drivers: nova_boot_loop.py,
scripts/soak/nova_node.py)."""
import logging

# What the patched backend logs when it asks the agent again after a failed clone.
ASKED_AGAIN = ('went away before Nova cloned it', 'handed out cannot be cloned')


class BackendLog(logging.Handler):
    """Every record of nova.virt.libvirt.imagebackend, DEBUG and up."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.records = []

    def emit(self, record):
        self.records.append(record)

    def warnings(self):
        """The messages at WARNING and above."""
        return [r.getMessage() for r in self.records if r.levelno >= logging.WARNING]

    def asked_again(self):
        """How often the patch asked the agent again after a failed clone."""
        return sum(1 for w in self.warnings() if any(mark in w for mark in ASKED_AGAIN))


def collect_backend_log():
    """Attach a BackendLog to the image backend's logger and return it."""
    collected = BackendLog()
    backend_logger = logging.getLogger('nova.virt.libvirt.imagebackend')
    backend_logger.addHandler(collected)
    backend_logger.setLevel(logging.DEBUG)
    return collected


def patched_image_backend(nova_root, nova_conf):
    """nova's image backend imported as nova-compute does (monkey patch, config), from nova_root, which must hold
    ferry's patch: (imagebackend, nova.context, the BackendLog collecting its records)."""
    from nova import monkey_patch  # what nova-compute does first
    if hasattr(monkey_patch, 'patch'):
        monkey_patch.patch(backend='threading')
    from nova import config
    from nova import context as nova_context
    config.parse_args(['nova-compute', '--config-file', nova_conf])
    from nova.virt.libvirt import imagebackend
    assert imagebackend.__file__.startswith(nova_root), imagebackend.__file__
    assert hasattr(imagebackend.Rbd, '_copy_to_store_by_ferry_agent'), 'nova is not patched'
    return imagebackend, nova_context, collect_backend_log()
