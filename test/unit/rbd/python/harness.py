"""Runs one of ferry's Python programs (src/rbd/python/) against the stand-in rados/rbd modules of fakes/.

The program is run as a file by Debian's python3 with -S (no site-packages: the real binding, where installed, is out
of reach) and fakes/ as PYTHONPATH: the stand-ins are injected on purpose, the only way they get in. ferry itself runs
the same text isolated (-I), which imports nothing from PYTHONPATH; test/unit/process/child-environment.test.ts and the
integration tests see that side.
"""
import importlib.util
import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", "..", ".."))
FAKES = os.path.join(HERE, "fakes")


def program(name):
    return os.path.join(ROOT, "src", "rbd", "python", name + ".py")


def command(name, with_fakes=True):
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8"}
    if with_fakes:
        env["PYTHONPATH"] = FAKES
    return [sys.executable, "-S", "-B", program(name)], env


def load(name, fakes=FAKES):
    """The program as a module, imported in this process against the stand-ins of `fakes`: its functions, to call
    one by one (importing runs nothing: each program parses its arguments in main()). `rados` and `rbd` are the
    stand-ins' while it loads; sys.modules and sys.path are left as they were."""
    saved = {key: sys.modules.pop(key) for key in ("rados", "rbd") if key in sys.modules}
    sys.path.insert(0, fakes)
    try:
        spec = importlib.util.spec_from_file_location("ferry_" + name, program(name))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(fakes)
        for key in ("rados", "rbd"):
            sys.modules.pop(key, None)
        sys.modules.update(saved)


class World(unittest.TestCase):
    """A test with its own directory of clusters."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="ferry-python-test-")
        self.addCleanup(shutil.rmtree, self.dir, True)

    def cluster(self, name, fsid="8830a20e-1ce9-4ad6-ad31-c6dc7a269792", pools=("images",), **settings):
        """A cluster and the ceph.conf naming it; `settings` go into [global] (fail_read = 5, ...)."""
        cluster_dir = os.path.join(self.dir, name)
        for pool in pools:
            os.makedirs(os.path.join(cluster_dir, pool))
        conf = os.path.join(self.dir, name + ".conf")
        lines = ["[global]", "fake_cluster = " + cluster_dir, "fsid = " + fsid]
        lines += ["%s = %s" % item for item in settings.items()]
        with open(conf, "w") as out:
            out.write("\n".join(lines) + "\n")
        return conf

    def cluster_dir(self, conf):
        return os.path.join(self.dir, os.path.basename(conf)[:-len(".conf")])

    def image(self, conf, pool, name, data, object_size, allocated=(), snapshot=None):
        """An image of `data`'s size holding `data`; objects with a non-zero byte, and `allocated`, are allocated."""
        image_dir = os.path.join(self.cluster_dir(conf), pool, name)
        os.makedirs(image_dir)
        objects = {offset // object_size for offset in range(0, len(data), object_size)
                   if data[offset:offset + object_size].strip(b"\0")} | set(allocated)
        with open(os.path.join(image_dir, "data"), "wb") as out:
            out.write(data)
        # The image's id as rbd info shows it (12 hex digits), kept by a rename.
        meta = {"id": os.urandom(6).hex(), "size": len(data), "object_size": object_size, "objects": sorted(objects),
                "metadata": {}, "snaps": {}}
        if snapshot is not None:
            shutil.copyfile(os.path.join(image_dir, "data"), os.path.join(image_dir, "snap." + snapshot))
            meta["snaps"][snapshot] = {"protected": True, "objects": sorted(objects)}
            meta["snap_ids"] = {snapshot: 4}
        with open(os.path.join(image_dir, "meta.json"), "w") as out:
            json.dump(meta, out)
        return image_dir

    def meta(self, conf, pool, name):
        with open(os.path.join(self.cluster_dir(conf), pool, name, "meta.json")) as source:
            return json.load(source)

    def read(self, conf, pool, name, file="data"):
        with open(os.path.join(self.cluster_dir(conf), pool, name, file), "rb") as source:
            return source.read()

    def journal(self, conf):
        path = os.path.join(self.cluster_dir(conf), "journal")
        if not os.path.exists(path):
            return []
        with open(path) as source:
            return source.read().splitlines()

    def assert_every_image_closed(self, conf):
        opened = [line[len("open "):] for line in self.journal(conf) if line.startswith("open ")]
        closed = [line[len("close "):] for line in self.journal(conf) if line.startswith("close ")]
        self.assertEqual(sorted(opened), sorted(closed))


class Session:
    """The program as ferry drives it: JSON lines in on stdin, events out on stdout."""

    def __init__(self, name, cwd, with_fakes=True):
        args, env = command(name, with_fakes)
        self.process = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        env=env, cwd=cwd, text=True)
        self.events = queue.Queue()
        threading.Thread(target=self.read_events, daemon=True).start()

    def read_events(self):
        for line in self.process.stdout:
            self.events.put(json.loads(line))
        self.events.put(None)

    def send(self, message):
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()

    def next_event(self, timeout=20):
        return self.events.get(timeout=timeout)

    def end(self, timeout=20):
        """Closes stdin (ferry is done or gone); returns the exit code and what was written to stderr."""
        self.process.stdin.close()
        code = self.process.wait(timeout=timeout)
        stderr = self.process.stderr.read()
        self.process.stderr.close()
        self.process.stdout.close()
        return code, stderr
