"""A stand-in for python3-rados, for the tests of ferry's Python programs (never installed anywhere).

A cluster is a directory, named by `fake_cluster` in the [global] section of the ceph.conf a client is given; a pool is
a directory in it. The conf's `fsid` is what get_fsid() answers; `fail_connect`, `fail_read` and `fail_write` make
connect(), reads and writes fail with that errno. Every call a test may want to see is appended to the cluster's
`journal` file, one line each.
"""
import configparser
import os


class Error(Exception):
    def __init__(self, message, errno=None):
        Exception.__init__(self, message)
        self.errno = errno


class ObjectNotFound(Error):
    pass


class TimedOut(Error):
    pass


def journal(cluster_dir, line):
    with open(os.path.join(cluster_dir, "journal"), "a") as out:
        out.write(line + "\n")


class Rados:
    def __init__(self, conffile=None, rados_id=None):
        parser = configparser.ConfigParser()
        if conffile is None or not parser.read(conffile):
            # What Ceph 16's binding says for a conf it cannot read.
            raise ObjectNotFound("[errno 2] RADOS object not found (error calling conf_read_file)", 2)
        self.settings = dict(parser["global"])
        self.dir = self.settings["fake_cluster"]
        self.rados_id = rados_id
        journal(self.dir, "rados conffile=%s rados_id=%s" % (conffile, rados_id))

    def failure(self, step):
        errno = self.settings.get("fail_" + step)
        return int(errno) if errno else None

    def conf_set(self, key, value):
        journal(self.dir, "conf %s=%s" % (key, value))

    def connect(self, timeout=0):
        journal(self.dir, "connect timeout=%s" % timeout)
        errno = self.failure("connect")
        if errno is not None:
            raise TimedOut("[errno %d] RADOS timed out (error connecting to the cluster)" % errno, errno)

    def get_fsid(self):
        return self.settings["fsid"]

    def open_ioctx(self, pool):
        if not os.path.isdir(os.path.join(self.dir, pool)):
            raise ObjectNotFound("[errno 2] RADOS object not found (error opening pool '%s')" % pool, 2)
        return Ioctx(self, pool)

    def shutdown(self):
        journal(self.dir, "shutdown")


class Ioctx:
    def __init__(self, cluster, pool):
        self.cluster, self.pool = cluster, pool
        self.dir = os.path.join(cluster.dir, pool)
