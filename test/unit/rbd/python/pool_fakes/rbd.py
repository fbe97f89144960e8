"""A stand-in for python3-rbd over pool_fakes/rados.py's JSON cluster, for test_rbd_store_copies.py.

IMAGE = {"id", "size", "features", "flags", "objects" (allocated object indexes), "object_size", "created",
"accessed", "modified" ("YYYY-MM-DD HH:MM:SS", UTC as the binding answers), "snaps": {NAME: {"protected",
"children": [{"pool", "pool_namespace", "image", "id", "trash"}]}}, "meta": {KEY: VALUE}, "trashed": {"deleted"}
(in the pool's trash), "fail_open": ERRNO, "fail_children": ERRNO, "fail_meta": ERRNO (reading image-meta fails),
"overwritten_by": VALUE (another writer sets the key to VALUE right after each metadata_set)}. diff_iterate on a
0-byte image with fast-diff aborts the process, as librbd 16.2.15 does.
"""
import datetime
import os

from rados import Error

RBD_FEATURE_FAST_DIFF = 16
RBD_FLAG_FAST_DIFF_INVALID = 2


class ImageNotFound(Error):
    pass


class PermissionError(Error):
    pass


def when(text):
    return datetime.datetime.strptime(text, "%Y-%m-%d %H:%M:%S")


def find(ioctx, name, image_id):
    images = ioctx.cluster.state()["pools"][ioctx.pool]["images"]
    for key, image in images.items():
        if (name is not None and key == name and "trashed" not in image) or (image_id is not None and image["id"] == image_id):
            return key, image
    raise ImageNotFound("[errno 2] RBD image not found (error opening image %s)" % (name or image_id), 2)


class Image:
    def __init__(self, ioctx, name=None, snapshot=None, read_only=False, image_id=None):
        self.ioctx = ioctx
        self.name, image = find(ioctx, name, image_id)
        if image.get("fail_open"):
            raise PermissionError("[errno %d] RBD permission error (error opening image)" % image["fail_open"], image["fail_open"])
        self.read_only, self.snapshot = read_only, snapshot
        ioctx.cluster.journal("open %s/%s%s" % (ioctx.pool, self.name, " ro" if read_only else ""))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def image(self):
        return self.ioctx.cluster.state()["pools"][self.ioctx.pool]["images"][self.name]

    def update(self, change):
        state = self.ioctx.cluster.state()
        change(state["pools"][self.ioctx.pool]["images"][self.name])
        self.ioctx.cluster.save(state)

    def id(self):
        return self.image()["id"]

    def get_name(self):
        return self.name

    def size(self):
        return self.image()["size"]

    def features(self):
        return self.image().get("features", 61)

    def flags(self):
        return self.image().get("flags", 0)

    def create_timestamp(self):
        return when(self.image()["created"])

    def access_timestamp(self):
        return when(self.image()["accessed"])

    def modify_timestamp(self):
        return when(self.image()["modified"])

    def diff_iterate(self, offset, length, from_snapshot, iterate_cb, whole_object=False):
        image = self.image()
        self.ioctx.cluster.journal("diff_iterate %s" % self.name)
        if image["size"] == 0 and self.features() & RBD_FEATURE_FAST_DIFF and not self.flags() & RBD_FLAG_FAST_DIFF_INVALID:
            # librbd 16.2.15 on a 0-byte image with fast-diff: DiffIterate.cc:341 FAILED ceph_assert(object_diff_state.size()
            # == end_object_no - start_object_no), SIGABRT (the dev cloud, 2026-11-29): nothing a program can catch.
            os.abort()
        for index in image["objects"]:
            iterate_cb(index * image["object_size"], image["object_size"], True)

    def list_snaps(self):
        return [{"id": i, "name": name, "size": self.size()} for i, name in enumerate(self.image().get("snaps", {}))]

    def is_protected_snap(self, name):
        return self.image()["snaps"][name]["protected"]

    def set_snap(self, name):
        self.snapshot = name

    def list_children2(self):
        snap = self.image()["snaps"][self.snapshot]
        if snap.get("fail_children"):
            raise PermissionError("[errno 1] RBD permission error (error listing children.)", 1)
        return list(snap.get("children", []))

    def metadata_list(self):
        if self.image().get("fail_meta"):
            raise Error("[errno %d] error reading metadata" % self.image()["fail_meta"], self.image()["fail_meta"])
        return sorted(self.image().get("meta", {}).items())

    def metadata_get(self, key):
        if self.image().get("fail_meta"):
            raise Error("[errno %d] error reading metadata" % self.image()["fail_meta"], self.image()["fail_meta"])
        meta = self.image().get("meta", {})
        if key not in meta:
            raise KeyError(key)
        return meta[key]

    def metadata_set(self, key, value):
        if self.read_only:
            raise Error("read-only", 30)
        self.update(lambda image: image.setdefault("meta", {}).__setitem__(key, value))
        # Another writer right after ours (a second run that read no mark in the same milliseconds).
        if self.image().get("overwritten_by"):
            self.update(lambda image: image["meta"].__setitem__(key, image["overwritten_by"]))

    def metadata_remove(self, key):
        self.update(lambda image: image["meta"].pop(key))


class RBD:
    def list2(self, ioctx):
        images = ioctx.cluster.state()["pools"][ioctx.pool]["images"]
        return [{"id": image["id"], "name": name} for name, image in images.items() if "trashed" not in image]

    def trash_list(self, ioctx):
        images = ioctx.cluster.state()["pools"][ioctx.pool]["images"]
        return [{"id": image["id"], "name": name, "source": "USER", "deletion_time": when(image["trashed"]["deleted"]),
                 "deferment_end_time": when(image["trashed"]["deleted"])} for name, image in images.items() if "trashed" in image]
