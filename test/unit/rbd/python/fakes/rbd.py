"""A stand-in for python3-rbd over the clusters of fakes/rados.py (never installed anywhere).

An image is a directory in its pool: `data` (its bytes, the image's size), `meta.json` (its id, size, object_size, the
allocated objects, image-meta, snapshots and their ids) and `snap.<name>` (a snapshot's bytes). Reads and writes complete on another
thread, as librbd's do. Opens and closes are written to the cluster's journal, so a test sees every image closed.
"""
import json
import os
import shutil
import threading

# The real binding has its own Error class; the copy only reads an error's errno and message.
from rados import Error, journal

lock = threading.Lock()


class ImageNotFound(Error):
    pass


class ImageExists(Error):
    pass


class ReadOnlyImage(Error):
    pass


class Completion:
    def __init__(self, rc):
        self.rc = rc

    def get_return_value(self):
        return self.rc


def later(work, *args):
    threading.Thread(target=work, args=args).start()


class Image:
    def __init__(self, ioctx, name, snapshot=None, read_only=False):
        self.cluster, self.dir = ioctx.cluster, os.path.join(ioctx.dir, name)
        self.name = "%s/%s%s" % (ioctx.pool, name, "" if snapshot is None else "@" + snapshot)
        if not os.path.isdir(self.dir) or (snapshot is not None and snapshot not in self.meta()["snaps"]):
            raise ImageNotFound("[errno 2] RBD image not found (error opening image %s)" % self.name, 2)
        self.snapshot, self.read_only = snapshot, read_only or snapshot is not None
        journal(self.cluster.dir, "open " + self.name)

    def meta(self):
        with open(os.path.join(self.dir, "meta.json")) as source:
            return json.load(source)

    def save(self, meta):
        with open(os.path.join(self.dir, "meta.json"), "w") as out:
            json.dump(meta, out)

    def bytes_file(self):
        return os.path.join(self.dir, "data" if self.snapshot is None else "snap." + self.snapshot)

    def size(self):
        return self.meta()["size"]

    def diff_iterate(self, offset, length, from_snapshot, iterate_cb, whole_object=False):
        meta = self.meta()
        if meta["size"] == 0:
            # librbd 16.2.15 on a 0-byte image with fast-diff (Glance's and ferry's copies have it): DiffIterate.cc:341
            # FAILED ceph_assert, SIGABRT (the dev cloud, 2026-11-29): nothing a program can catch.
            os.abort()
        objects = meta["objects"] if self.snapshot is None else meta["snaps"][self.snapshot]["objects"]
        unit = meta["object_size"]
        for index in sorted(objects):
            start = index * unit
            if offset <= start < offset + length:
                iterate_cb(start, min(unit, meta["size"] - start), True)

    def aio_read(self, offset, length, oncomplete):
        errno = self.cluster.failure("read")
        if errno is not None:
            later(oncomplete, Completion(-errno), None)
            return Completion(-errno)
        with open(self.bytes_file(), "rb") as source:
            source.seek(offset)
            data = source.read(length)
        later(oncomplete, Completion(len(data)), data)
        return Completion(0)

    def aio_write(self, data, offset, oncomplete):
        if self.read_only:
            raise ReadOnlyImage("[errno 30] RBD read-only image", 30)
        errno = self.cluster.failure("write")
        if errno is None:
            with lock:
                with open(self.bytes_file(), "r+b") as out:
                    out.seek(offset)
                    out.write(data)
                meta = self.meta()
                unit = meta["object_size"]
                touched = range(offset // unit, (offset + len(data) - 1) // unit + 1)
                meta["objects"] = sorted(set(meta["objects"]) | set(touched))
                self.save(meta)
        later(oncomplete, Completion(0 if errno is None else -errno))
        return Completion(0)

    def flush(self):
        pass

    def create_snap(self, name):
        with lock:
            shutil.copyfile(self.bytes_file(), os.path.join(self.dir, "snap." + name))
            meta = self.meta()
            meta["snaps"][name] = {"protected": False, "objects": meta["objects"]}
            # As Ceph's: a pool-wide counter, so a snapshot made again under a name gets a new id.
            ids = meta.setdefault("snap_ids", {})
            ids[name] = max(ids.values(), default=3) + 1
            self.save(meta)

    def is_protected_snap(self, name):
        snaps = self.meta()["snaps"]
        if name not in snaps:
            raise ImageNotFound("[errno 2] RBD snapshot not found (error checking if snapshot %s is protected)" % name, 2)
        return snaps[name]["protected"]

    def id(self):
        return self.meta()["id"]

    def snap_get_id(self, name):
        ids = self.meta().get("snap_ids", {})
        if name not in ids:
            raise ImageNotFound("[errno 2] RBD snapshot not found (error getting snapshot id %s)" % name, 2)
        return ids[name]

    def protect_snap(self, name):
        with lock:
            meta = self.meta()
            meta["snaps"][name]["protected"] = True
            self.save(meta)

    def metadata_set(self, key, value):
        with lock:
            meta = self.meta()
            meta["metadata"][key] = value
            self.save(meta)

    def close(self):
        journal(self.cluster.dir, "close " + self.name)


class RBD:
    def rename(self, ioctx, src, dest):
        if os.path.isdir(os.path.join(ioctx.dir, dest)):
            raise ImageExists("[errno 17] RBD image already exists (error renaming image)", 17)
        if not os.path.isdir(os.path.join(ioctx.dir, src)):
            raise ImageNotFound("[errno 2] RBD image not found (error renaming image)", 2)
        os.rename(os.path.join(ioctx.dir, src), os.path.join(ioctx.dir, dest))
