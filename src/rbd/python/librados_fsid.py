"""A cluster's fsid as its mons report it, through librados (python3-rados): what get_fsid() returns to nova and to
glance_store, and so what their rbd:// URLs carry.

Run by ferry (src/rbd/cluster-fsid.ts) as `python3 -I -c TEXT CONF USER TIMEOUT_S` from `/` (USER empty: librados'
default). Prints the fsid; exits 3 with `unavailable` on stdout without the binding; a librados failure exits with its
errno (110: the mons did not answer, 13: refused) and its message on stderr, as the ceph CLI would.
"""
import sys
try:
    import rados
    MISSING = None
except ImportError as missing:
    rados, MISSING = None, missing


def parse(argv):
    """CONF USER TIMEOUT_S -> (conf, user or None for librados' default, timeout)."""
    conf, user, timeout = argv[1:4]
    return conf, user or None, timeout


def errno_of(error):
    return abs(getattr(error, "errno", None) or 1) or 1


def read_fsid(conf, user, timeout):
    cluster = rados.Rados(conffile=conf, rados_id=user)
    cluster.conf_set("client_mount_timeout", timeout)
    cluster.conf_set("rados_mon_op_timeout", timeout)
    cluster.connect(timeout=int(timeout))
    fsid = cluster.get_fsid()
    cluster.shutdown()
    return fsid


def main(argv):
    if rados is None:
        print("unavailable: %s" % MISSING)
        return 3
    try:
        print(read_fsid(*parse(argv)))
    except rados.Error as error:
        sys.stderr.write("%s\n" % error)
        return errno_of(error)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
