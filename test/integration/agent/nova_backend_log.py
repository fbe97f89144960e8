"""What nova's libvirt image backend logs, collected as nova-compute's log would show it (for the nova drivers)."""
import logging


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


def collect_backend_log():
    """Attach a BackendLog to the image backend's logger and return it."""
    collected = BackendLog()
    backend_logger = logging.getLogger('nova.virt.libvirt.imagebackend')
    backend_logger.addHandler(collected)
    backend_logger.setLevel(logging.DEBUG)
    return collected
