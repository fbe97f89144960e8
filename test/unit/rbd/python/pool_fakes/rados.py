"""A stand-in for python3-rados over a cluster described by one JSON file, for test_rbd_store_copies.py (never
installed anywhere). The ceph.conf's [global] `fake_pools` names the file: {"pools": {POOL: {"images": {NAME:
IMAGE}}}, "mon": {PREFIX: ANSWER}, "denied_pools": [...], "fail_connect": ERRNO}. rbd.py reads and writes the same
file; every open and mon command is appended to `<file>.journal`.
"""
import configparser
import importlib.util
import json
import os

# The binding's errors as the other stand-in (fakes/rados.py) defines them: one definition for both.
_spec = importlib.util.spec_from_file_location("ferry_fake_rados", os.path.join(os.path.dirname(__file__), "..", "fakes", "rados.py"))
_shared = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_shared)
Error, ObjectNotFound, TimedOut = _shared.Error, _shared.ObjectNotFound, _shared.TimedOut


class PermissionDeniedError(Error):
    pass


class Rados:
    def __init__(self, conffile=None, rados_id=None):
        parser = configparser.ConfigParser()
        if conffile is None or not parser.read(conffile):
            raise ObjectNotFound("[errno 2] RADOS object not found (error calling conf_read_file)", 2)
        self.path = parser["global"]["fake_pools"]
        self.rados_id = rados_id
        self.journal("rados rados_id=%s" % rados_id)

    def state(self):
        with open(self.path) as source:
            return json.load(source)

    def save(self, state):
        with open(self.path, "w") as out:
            json.dump(state, out)

    def journal(self, line):
        with open(self.path + ".journal", "a") as out:
            out.write(line + "\n")

    def conf_set(self, key, value):
        pass

    def connect(self, timeout=0):
        errno = self.state().get("fail_connect")
        if errno:
            raise TimedOut("[errno %d] RADOS timed out (error connecting to the cluster)" % errno, errno)

    def open_ioctx(self, pool):
        state = self.state()
        if pool in state.get("denied_pools", []):
            raise PermissionDeniedError("[errno 1] RADOS permission denied (error opening pool '%s')" % pool, 1)
        if pool not in state["pools"]:
            raise ObjectNotFound("[errno 2] RADOS object not found (error opening pool '%s')" % pool, 2)
        self.journal("open_ioctx %s" % pool)
        return Ioctx(self, pool)

    def mon_command(self, command, inbuf):
        prefix = json.loads(command)["prefix"]
        self.journal("mon %s" % prefix)
        answer = self.state().get("mon", {}).get(prefix)
        if answer is None:
            return (-2, b"", "no answer")
        return (0, json.dumps(answer).encode(), "")

    def shutdown(self):
        self.journal("shutdown")


class Ioctx:
    def __init__(self, cluster, pool):
        self.cluster, self.pool, self.namespace = cluster, pool, ""

    def set_namespace(self, namespace):
        self.namespace = namespace

    def close(self):
        pass
