"""One store's RBD images in one process (python3-rbd): what eviction and `status --usage` read of a Ceph pool.

Run by ferry (src/rbd/store-copies.ts) as `python3 -I -c TEXT CONF USER TIMEOUT_S POOL SNAPSHOT COMMAND ARGS...`
from `/` (USER empty: librados' default). One process per store and command, whatever the number of images: the
cost is librados round trips, never a process per image.

Commands, each printing one JSON object on stdout:
- `list`: every image of POOL, and every image of its trash:
  {"pool", "snapshot", "quota_bytes", "replicas", "capacity", "images": [IMAGE], "trash": [IMAGE + "deleted"]}
  IMAGE = {"name", "id", "size", "used" (allocated bytes by the object map, null without fast-diff,
  0 for a 0-byte image: diff_iterate is never asked there, librbd aborts on it), "created",
  "accessed", "modified" (Unix seconds), "protected" (SNAPSHOT exists and is protected: true/false; null when the
  image has no SNAPSHOT), "children" (of SNAPSHOT, trash included: [{"pool", "namespace", "image", "id", "trash",
  "created"}]), "meta" (ferry's own image-meta marks, MARKS: a value longer than MARK_MAX characters is given as a
  note of its length)}, or {"name", "id", "error", "errno"} for an image
  that could not be read (removed while listed: "absent": true).
  "quota_bytes": the pool's quota (0: none) and "replicas" its size, from the OSD map; "capacity": {"cluster_bytes", "pool_stored_bytes",
  "pool_max_avail_bytes"} from `ceph df`, null when the cluster does not report it (0 without a ceph-mgr).
- `check NAME...`: {"images": [IMAGE]} for these images only; one that is not there is {"name", "absent": true}, with
  "trashed": {"id", "deleted"} when the pool's trash holds an image of that name.
- `look NAME...`: {"images": [{"name", "protected", "meta"}]} (or "absent"/"error" as above): what whoever hands a
  copy out needs (the agent): the snapshot and the fence, read with the image opened read-only and no children
  listed, so a user with read-only caps on the images pool alone can ask.
- `fence KEY VALUE EXPECTED NAME...`: image-meta KEY=VALUE on each image where KEY holds EXPECTED now (EXPECTED
  empty: where there is no KEY), then KEY read again: {"results": [{"name", "ok" | "held" | "absent" | "error"}]}
  ("held" bounded as a mark is).
  "held": the value KEY holds (another's mark, found before writing or written over ours between the write and the
  read again): not ours. librbd has no compare-and-set for image-meta: this is read, compare, write, read again;
  two writers that both read no mark within the same milliseconds both write; the one that reads again after the
  other's write sees "held", but both may answer "ok" (each read back before the other wrote): the eviction's last
  look reads the fence once more before a removal and keeps the copy unless the fence is its own (docs/evict.md).
- `unfence KEY VALUE NAME...`: removes KEY where it still holds VALUE (another run's fence is left alone):
  {"results": [{"name", "removed" | "other" | "none" | "absent" | "error"}]}: a mark that could not be read or
  removed is an "error", never "none".
Exit 0; 3 with {"unavailable"} without the binding; a failure to reach the cluster or open the pool exits with its
errno (110: the mons did not answer, 2: no such pool or conf, 13/1: refused) and the message on stderr.
"""
import datetime
import json
import sys
try:
    import rados
    import rbd
    MISSING = None
except ImportError as missing:
    rados, rbd, MISSING = None, None, missing

EPOCH = datetime.datetime(1970, 1, 1)
# The image-meta keys ferry writes, and the longest value of one it reads: anyone who may write the pool's image-meta
# could write megabytes under any key, and a listing is read whole (its output is bounded: store-copies.ts).
MARKS = frozenset(("ferry.evicting", "ferry.verified", "ferry.transfer", "ferry.writer"))
MARK_MAX = 1024


def seconds(stamp):
    # python3-rbd answers naive datetimes in UTC; a Unix time travels without a zone to get wrong.
    return None if stamp is None else (stamp - EPOCH).total_seconds()


def errno_of(error):
    return abs(getattr(error, "errno", None) or 1) or 1


def quietly(work, default=None):
    try:
        return work()
    except Exception:
        return default


def parse(argv):
    """CONF USER TIMEOUT_S POOL SNAPSHOT COMMAND ARGS... -> (Cluster's settings, command, args); USER empty: None."""
    conf, user, timeout, pool, snapshot, command = argv[1:7]
    return {"conf": conf, "user": user or None, "timeout": timeout, "pool": pool, "snapshot": snapshot}, command, argv[7:]


class Cluster:
    def __init__(self, conf, user, timeout, pool, snapshot):
        self.pool, self.snapshot = pool, snapshot
        self.rados = rados.Rados(conffile=conf, rados_id=user)
        self.rados.conf_set("client_mount_timeout", timeout)
        self.rados.conf_set("rados_mon_op_timeout", timeout)
        self.rados.conf_set("rados_osd_op_timeout", timeout)
        self.rados.connect(timeout=int(timeout))
        self.ioctx = self.rados.open_ioctx(pool)
        self.others = {}

    def pool_ioctx(self, name, namespace):
        key = (name, namespace)
        if key not in self.others:
            ioctx = self.ioctx if name == self.pool and not namespace else self.rados.open_ioctx(name)
            if namespace:
                ioctx.set_namespace(namespace)
            self.others[key] = ioctx
        return self.others[key]

    def mon(self, prefix, **fields):
        fields.update(prefix=prefix, format="json")
        code, out, _ = self.rados.mon_command(json.dumps(fields), b"")
        return json.loads(out) if code == 0 and out else None


def bounded(value):
    """A mark's value as read, or a note of its length when it is longer than MARK_MAX (ferry reads it as not its format)."""
    return value if value is None or len(value) <= MARK_MAX else "(a value of %d characters, not read)" % len(value)


def marks_of(image):
    return dict((key, bounded(value)) for key, value in image.metadata_list() if key in MARKS)


def used_bytes(image):
    # Allocated objects by the object map: cheap with fast-diff, one stat per object without it (then: unknown).
    size = image.size()
    if size == 0:
        # Nothing can be allocated, and librbd 16.2.15 aborts the process in diff_iterate on a 0-byte image with fast-diff
        # (DiffIterate.cc:341 FAILED ceph_assert(object_diff_state.size() == end_object_no - start_object_no)): what
        # Glance leaves of a copy it created at 0 bytes, not knowing the size, and was killed before its first write.
        return 0
    if not image.features() & rbd.RBD_FEATURE_FAST_DIFF or image.flags() & rbd.RBD_FLAG_FAST_DIFF_INVALID:
        return None
    total = [0]

    def count(offset, length, exists):
        if exists:
            total[0] += length
    image.diff_iterate(0, size, None, count, whole_object=True)
    return total[0]


def child_facts(cluster, child):
    def created():
        with rbd.Image(cluster.pool_ioctx(child["pool"], child.get("pool_namespace", "")), image_id=child["id"], read_only=True) as opened:
            return seconds(opened.create_timestamp())
    return {"pool": child["pool"], "namespace": child.get("pool_namespace", ""), "image": child["image"], "id": child["id"],
            "trash": bool(child.get("trash", False)), "created": quietly(created)}


def image_facts(cluster, name=None, image_id=None):
    with rbd.Image(cluster.ioctx, name, image_id=image_id, read_only=True) as image:
        facts = {"name": name if name is not None else image.get_name(), "id": image.id(), "size": image.size(),
                 "used": used_bytes(image), "created": seconds(image.create_timestamp()),
                 "accessed": seconds(image.access_timestamp()), "modified": seconds(image.modify_timestamp()),
                 "protected": None, "children": [],
                 "meta": marks_of(image)}
        if any(snap["name"] == cluster.snapshot for snap in image.list_snaps()):
            facts["protected"] = bool(image.is_protected_snap(cluster.snapshot))
            image.set_snap(cluster.snapshot)
            facts["children"] = [child_facts(cluster, child) for child in image.list_children2()]
        return facts


def read_image(cluster, name=None, image_id=None):
    try:
        return image_facts(cluster, name, image_id)
    except rbd.ImageNotFound:
        return {"name": name, "id": image_id, "absent": True}
    except Exception as error:
        return {"name": name, "id": image_id, "error": str(error), "errno": errno_of(error)}


def capacity(cluster):
    df = quietly(lambda: cluster.mon("df"))
    if not df or not df.get("stats", {}).get("total_bytes"):
        return None
    ours = [entry for entry in df.get("pools", []) if entry.get("name") == cluster.pool]
    stats = ours[0].get("stats", {}) if ours else {}
    return {"cluster_bytes": df["stats"]["total_bytes"], "pool_stored_bytes": stats.get("stored"),
            "pool_max_avail_bytes": stats.get("max_avail")}


def pool_details(cluster):
    pools = quietly(lambda: cluster.mon("osd pool ls", detail="detail")) or []
    ours = [entry for entry in pools if entry.get("pool_name") == cluster.pool]
    return ours[0] if ours else {}


def listing(cluster):
    images = [read_image(cluster, entry["name"]) for entry in rbd.RBD().list2(cluster.ioctx)]
    trash = []
    for entry in rbd.RBD().trash_list(cluster.ioctx):
        facts = read_image(cluster, None, entry["id"])
        facts.update(name=entry["name"], deleted=seconds(entry.get("deletion_time")))
        trash.append(facts)
    details = pool_details(cluster)
    return {"pool": cluster.pool, "snapshot": cluster.snapshot, "quota_bytes": details.get("quota_max_bytes"), "replicas": details.get("size"),
            "capacity": capacity(cluster), "images": images, "trash": trash}


def look(cluster, names):
    images = []
    for name in names:
        try:
            with rbd.Image(cluster.ioctx, name, read_only=True) as image:
                facts = {"name": name, "protected": None,
                         "meta": marks_of(image)}
                if any(snap["name"] == cluster.snapshot for snap in image.list_snaps()):
                    facts["protected"] = bool(image.is_protected_snap(cluster.snapshot))
                images.append(facts)
        except rbd.ImageNotFound:
            images.append({"name": name, "absent": True})
        except Exception as error:
            images.append({"name": name, "error": str(error), "errno": errno_of(error)})
    return {"images": images}


def on_each(cluster, names, work):
    """work(image) -> the result's key (or fields) for each named image, opened for writing; absent and errors per image."""
    results = []
    for name in names:
        try:
            with rbd.Image(cluster.ioctx, name) as image:
                outcome = work(image)
                results.append(dict({"name": name}, **(outcome if isinstance(outcome, dict) else {outcome: True})))
        except rbd.ImageNotFound:
            results.append({"name": name, "absent": True})
        except Exception as error:
            results.append({"name": name, "error": str(error), "errno": errno_of(error)})
    return {"results": results}


def mark_of(image, key):
    # From the listing of the image's keys: a key that is not there is None, and a failure to read raises (never
    # "no mark": metadata_get's missing key and its read errors look alike to a caller that swallows both).
    return dict(image.metadata_list()).get(key)


def fence(cluster, key, value, expected, names):
    def mark(image):
        held = mark_of(image, key)
        if held != (expected or None):
            return {"held": bounded(held)}
        image.metadata_set(key, value)
        held = mark_of(image, key)
        return "ok" if held == value else {"held": bounded(held)}
    return on_each(cluster, names, mark)


def unfence(cluster, key, value, names):
    def lift(image):
        held = mark_of(image, key)
        if held is None:
            return "none"
        if held != value:
            return "other"
        image.metadata_remove(key)
        return "removed"
    return on_each(cluster, names, lift)


def check(cluster, names):
    trashed = None
    images = []
    for name in names:
        facts = read_image(cluster, name)
        if facts.get("absent"):
            # Gone by name: it may be in the pool's trash (a Glance that trashes a copy with clones).
            if trashed is None:
                trashed = dict((entry["name"], entry) for entry in rbd.RBD().trash_list(cluster.ioctx))
            if name in trashed:
                facts["trashed"] = {"id": trashed[name]["id"], "deleted": seconds(trashed[name].get("deletion_time"))}
        images.append(facts)
    return {"images": images}


COMMANDS = {
    "list": lambda cluster, args: listing(cluster),
    "check": check,
    "look": look,
    "fence": lambda cluster, args: fence(cluster, args[0], args[1], args[2], args[3:]),
    "unfence": lambda cluster, args: unfence(cluster, args[0], args[1], args[2:]),
}


def main(argv):
    if MISSING is not None:
        print(json.dumps({"unavailable": str(MISSING)}))
        return 3
    settings, command, args = parse(argv)
    try:
        cluster = Cluster(**settings)
    except Exception as error:
        sys.stderr.write("%s\n" % error)
        return errno_of(error)
    if command not in COMMANDS:
        sys.stderr.write("unknown command %s\n" % command)
        return 64
    print(json.dumps(COMMANDS[command](cluster, args)))
    cluster.ioctx.close()
    cluster.rados.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
