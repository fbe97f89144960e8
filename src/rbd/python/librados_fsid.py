"""A cluster's fsid as its mons report it, through librados (python3-rados): what get_fsid() returns to nova and to
glance_store, and so what their rbd:// URLs carry.

Run by ferry (src/rbd/cluster-fsid.ts) as `python3 -I -c TEXT CONF USER TIMEOUT_S` from `/` (USER empty: librados'
default). Prints the fsid; exits 3 with `unavailable` on stdout without the binding; a librados failure exits with its
errno (110: the mons did not answer, 13: refused) and its message on stderr, as the ceph CLI would.
"""
import sys
try:
    import rados
except ImportError as error:
    print("unavailable: %s" % error)
    sys.exit(3)
conf, user, timeout = sys.argv[1], sys.argv[2] or None, sys.argv[3]
try:
    cluster = rados.Rados(conffile=conf, rados_id=user)
    cluster.conf_set("client_mount_timeout", timeout)
    cluster.conf_set("rados_mon_op_timeout", timeout)
    cluster.connect(timeout=int(timeout))
    print(cluster.get_fsid())
    cluster.shutdown()
except rados.Error as error:
    sys.stderr.write("%s\n" % error)
    sys.exit(abs(getattr(error, "errno", None) or 1) or 1)
