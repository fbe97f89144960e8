"""The direct transfer's data path through librbd (python3-rbd, the binding nova's and Glance's rbd code use).

One process, connected to both clusters, reads the source snapshot's allocated objects with reads in flight, hashes
the image's bytes in offset order (zero fill for what is not allocated), writes the non-zero 4 KiB blocks into each
temporary image, makes and protects the job's snapshot there, and reports what each target's object map then holds.
Then it waits for ferry's verdict: mark the copy verified, rename it (the commit). Against `rbd export-diff | rbd
import-diff` through ferry it saves two rbd processes, the diff encoding, four copies of every byte through pipes, and
four short rbd processes (bench/RESULTS.md "## transfer").

Several targets (one image's stores, prewarm/sync): the source is read once and hashed once, and every block goes to
each target; a target that fails (its cluster, its pool) ends alone, the others go on.

ferry runs this file's text as `python3 -I -c TEXT` from `/` with an environment that holds no secret
(src/rbd/librbd-copy.ts): nothing in the operator's working directory or PYTHON* variables is imported. Its tests run
it against stand-in rados/rbd modules (test/unit/rbd/python/).

Protocol. The job is the first line of stdin (one JSON object: source {conf, user, pool, image, snapshot}, targets
[{conf, user, pool, image}], target_snapshot (made and protected on each target), algorithm, object_size, writer_key,
writer, connect_timeout_s); the process starts before it (ferry claims the stores meanwhile) and exits 0 if none
comes. stdout carries one JSON object per line: {"event": "copied", "size", "digest", "data_bytes", "objects",
"targets": [{"ok": true, "snapshot_size", "extents", "image_id", "snapshot_id"} | {"ok": false, "step", "errno",
"message"}]} (image_id, snapshot_id: the written image's and its snapshot's ids, which ferry checks under the final
name after the rename), then one answer per command read from stdin, each naming a target by its index: {"op":
"mark", "target", "key", "value"} -> "marked"; {"op": "drop", "target"} -> "dropped" (the image closed, so it can be
removed); {"op": "rename", "target", "to"} -> "renamed", "exists" (the name is taken) or "absent" (the temporary image
is gone: another writer took it); {"op": "identify", "target", "name"} -> {"event": "identified", "image_id",
"snapshot_id", "protected"} (of target_snapshot; null and false without it) or "absent" (no image of that name). {"event": "error", "side": "source"|"target", "step", "errno", "message"} ends it
with exit 1 (a source failure ends every target); {"event": "unavailable"} (no python3-rbd) with exit 3. stdin closing
ends it at once: ferry is gone, so is its writer.
"""
import json, os, sys, threading, queue, hashlib, time

def say(event, **fields):
    fields["event"] = event
    sys.stdout.write(json.dumps(fields) + "\n")
    sys.stdout.flush()

try:
    import rados, rbd
    MISSING = None
except ImportError as missing:
    rados, rbd, MISSING = None, None, missing

# The process's state: ferry's commands as they come, the stop (stdin closed), every image open, every cluster handle.
commands = queue.Queue()
stop = threading.Event()
opened = []
clusters = {}

def read_commands():
    for line in sys.stdin:
        commands.put(json.loads(line))
    # ferry is gone or gives up: stop writing, close the images (their watch and lock go at once, not after the
    # ~30 s a killed client's watch lingers), and exit; within 3 s in any case.
    stop.set()
    commands.put({"op": "exit"})
    deadline = threading.Timer(3, os._exit, (70,))
    deadline.daemon = True
    deadline.start()

class Stopped(Exception):
    pass

class Failed(Exception):
    def __init__(self, side, step, error):
        Exception.__init__(self, str(error))
        self.side, self.step, self.errno = side, step, getattr(error, "errno", None)

def on(side, step, work):
    try:
        return work()
    except Failed:
        raise
    except Exception as error:
        raise Failed(side, step, error)

def connect(cluster, timeout_s):
    key = (cluster["conf"], cluster.get("user"))
    if key not in clusters:
        handle = rados.Rados(conffile=cluster["conf"], rados_id=cluster.get("user") or None)
        timeout = str(timeout_s)
        handle.conf_set("client_mount_timeout", timeout)
        handle.conf_set("rados_mon_op_timeout", timeout)
        # One sequential pass with its own bound on what is in flight: librbd's write-back cache would only copy the
        # bytes once more (measured: as fast or faster without it, and less memory).
        handle.conf_set("rbd_cache", "false")
        handle.connect(timeout=timeout_s)
        clusters[key] = handle
    return clusters[key]

BLOCK = 4096
ZERO_BLOCK = bytes(BLOCK)
# Bytes in flight stay bounded (the agent's unit caps its cgroup, its copies included, at 512 MiB): 4 reads of
# 4 MiB, and per target 4 writes of at most 4 MiB (a block run shared by every target is one buffer); librados holds
# a second copy of each. Peak RSS measured for 1 GiB: 112–129 MiB into one or two targets, 2.68–2.92 s into one;
# with 8 and 8: 186–198 MiB, 2.61–2.64 s.
def pace_pause(due, now):
    """How long a paced read waits before it looks again: at most 0.2 s, never below 0 (the clock moves on between
    the loop's look and this one, and time.sleep raises ValueError on a negative time)."""
    return max(0.0, min(0.2, due - now))


def chunk_size(object_size):
    """The largest read: an object, at most 4 MiB."""
    return min(object_size, 4 << 20)

READS_IN_FLIGHT = 4
WRITES_IN_FLIGHT = 4

class Target:
    """One temporary image written: a failure here ends this target only; the others go on."""
    def __init__(self, spec):
        self.spec, self.io, self.image, self.failure, self.facts = spec, None, None, None, None
        self.slots, self.errors = threading.Semaphore(WRITES_IN_FLIGHT), []
    def fail(self, step, error):
        if self.failure is None:
            self.failure = {"step": step, "errno": getattr(error, "errno", None), "message": str(error)}
        self.drop()
    def drop(self):
        if self.image is not None:
            opened.remove(self.image)
            try:
                self.image.close()
            except Exception:
                pass
            self.image = None
    def step(self, name, work):
        if self.failure is not None:
            return None
        try:
            return work()
        except Exception as error:
            self.fail(name, error)
            return None
    def write(self, offset, data):
        if self.failure is not None:
            return
        self.slots.acquire()
        if self.errors:
            self.slots.release()
            self.fail("write", OSError(-self.errors[0], os.strerror(-self.errors[0])))
            return
        def written(completion):
            rc = completion.get_return_value()
            if rc < 0:
                self.errors.append(rc)
            self.slots.release()
        if self.step("write", lambda: self.image.aio_write(data, offset, written)) is None and self.failure is not None:
            self.slots.release()
    def settle(self):
        for _ in range(WRITES_IN_FLIGHT):
            self.slots.acquire()
        if self.errors:
            self.fail("write", OSError(-self.errors[0], os.strerror(-self.errors[0])))

def opened_image(io, name, **options):
    image = rbd.Image(io, name, **options)
    opened.append(image)
    return image

def copy(job):
    source, targets, object_size, timeout_s = job["source"], job["targets"], job["object_size"], job["connect_timeout_s"]
    # --rate-limit: the source's bytes are read no faster than this (0: as fast as they come); the reads are issued on a
    # schedule, so every target is written at that rate too.
    bytes_per_second = job.get("bytes_per_second") or 0
    CHUNK = chunk_size(object_size)
    ZERO_CHUNK = bytes(CHUNK)
    src_io = on("source", "connect", lambda: connect(source, timeout_s).open_ioctx(source["pool"]))
    outs = [Target(spec) for spec in targets]
    for out in outs:
        out.io = out.step("connect", lambda: connect(out.spec, timeout_s).open_ioctx(out.spec["pool"]))
    src = on("source", "open", lambda: opened_image(src_io, source["image"], snapshot=source["snapshot"], read_only=True))
    size = on("source", "stat", src.size)
    for out in outs:
        out.image = out.step("open", lambda: opened_image(out.io, out.spec["image"]))
        out.step("image-meta set", lambda: out.image.metadata_set(job["writer_key"], job["writer"]))
        if out.step("stat", lambda: out.image.size()) not in (None, size):
            out.fail("stat", Exception("the temporary image's size differs from the source's"))
    if all(out.failure is not None for out in outs):
        say("copied", size=size, digest="", data_bytes=0, objects=[], targets=[dict(out.failure, ok=False) for out in outs])
        return outs
    extents = []
    # A 0-byte source has no object, and librbd 16.2.15 aborts the process in diff_iterate on one (DiffIterate.cc:341).
    if size:
        on("source", "diff", lambda: src.diff_iterate(0, size, None, lambda offset, length, exists: extents.append((offset, length)) if exists else None, whole_object=True))
    chunks = []
    for offset, length in extents:
        end = offset + length
        while offset < end:
            chunks.append((offset, min(CHUNK, end - offset)))
            offset += CHUNK
    digest = hashlib.new(job["algorithm"])
    def hash_zeros(length):
        while length > 0:
            n = min(length, CHUNK)
            digest.update(ZERO_CHUNK[:n])
            length -= n
    reads = []
    paced = {"start": time.monotonic(), "issued": 0}
    def read(index):
        offset, length = chunks[index]
        if bytes_per_second > 0:
            due = paced["start"] + paced["issued"] / bytes_per_second
            while time.monotonic() < due and not stop.is_set():
                time.sleep(pace_pause(due, time.monotonic()))
            paced["issued"] += length
        done, box = threading.Event(), {}
        def complete(completion, data):
            box["rc"], box["data"] = completion.get_return_value(), data
            done.set()
        on("source", "read", lambda: src.aio_read(offset, length, complete))
        reads.append((offset, length, done, box))
    position, next_read, data_bytes = 0, 0, 0
    objects = set()  # written to, each with a non-zero byte (zero blocks are not written)
    while next_read < len(chunks) and next_read < READS_IN_FLIGHT:
        read(next_read)
        next_read += 1
    while reads:
        offset, length, done, box = reads.pop(0)
        if stop.is_set():
            raise Stopped()
        if next_read < len(chunks):
            read(next_read)
            next_read += 1
        done.wait()
        if box["rc"] < 0:
            raise Failed("source", "read", OSError(-box["rc"], os.strerror(-box["rc"])))
        data = box["data"]
        if len(data) != length:
            raise Failed("source", "read", Exception("short read at %d: %d of %d bytes" % (offset, len(data), length)))
        gap = offset - position
        position = offset + length
        if data == ZERO_CHUNK[:length]:
            hash_zeros(gap + length)
            continue
        run = None  # the non-zero blocks, written as runs: a fresh image reads zeros where nothing is written
        for at in range(0, length + BLOCK, BLOCK):
            zero = at >= length or data[at:at + BLOCK] == ZERO_BLOCK[:min(BLOCK, length - at)]
            if not zero and run is None:
                run = at
            elif zero and run is not None:
                piece = data if run == 0 and at >= length else data[run:at]
                for out in outs:  # read once, hashed once, written to every target
                    out.write(offset + run, piece)
                data_bytes += at - run
                for index in range((offset + run) // object_size, (offset + at - 1) // object_size + 1):
                    objects.add(index)
                run = None
        # Hashed after its writes were sent: they travel while the hash works (hashlib lets go of the interpreter
        # lock, and the reads in flight go on too). Sparse images are hash-bound: every byte of the size is hashed.
        hash_zeros(gap)
        digest.update(data)
    hash_zeros(size - position)
    opened.remove(src)
    src.close()
    for out in outs:
        out.settle()
        out.step("flush", lambda: out.image.flush())
        out.step("snap create", lambda: out.image.create_snap(job["target_snapshot"]))
        out.step("snap protect", lambda: out.image.protect_snap(job["target_snapshot"]))
        # The image stays open (its watch shows a live writer) until the rename: another ferry that saw the verified
        # mark and no watcher would take the copy for a dead run's and commit it itself.
        snap = out.step("open snap", lambda: opened_image(out.io, out.spec["image"], snapshot=job["target_snapshot"], read_only=True))
        if snap is not None:
            present, snapshot_size = [], snap.size()
            if snapshot_size:
                out.step("diff", lambda: snap.diff_iterate(0, snapshot_size, None, lambda offset, length, exists: present.append([offset, length]) if exists else None, whole_object=True))
            # Which image and snapshot were written, from the handle that wrote them: ferry checks after the rename
            # that the final name holds these (a neighbour with write on the pool can rename images under any name).
            out.facts = {"snapshot_size": snapshot_size, "extents": present, "image_id": out.step("id", lambda: out.image.id()),
                         "snapshot_id": out.step("snap id", lambda: out.image.snap_get_id(job["target_snapshot"]))}
            opened.remove(snap)
            snap.close()
    say("copied", size=size, digest=digest.hexdigest(), data_bytes=data_bytes, objects=sorted(objects),
        targets=[dict(out.facts, ok=True) if out.failure is None else dict(out.failure, ok=False) for out in outs])
    return outs

def close_all():
    for image in list(opened):
        try:
            image.close()
        except Exception:
            pass
    for handle in clusters.values():
        try:
            handle.shutdown()
        except Exception:
            pass

def identify(out, command, target_snapshot):
    """What the target's pool holds under a name now (after the rename: is it the image this process wrote?)."""
    try:
        image = on("target", "identify", lambda: rbd.Image(out.io, command["name"], read_only=True))
    except Failed as failed:
        if failed.errno != 2:
            raise
        say("absent", target=command["target"])
        return
    try:
        image_id = on("target", "identify", image.id)
        try:
            snapshot_id = image.snap_get_id(target_snapshot)
            protected = image.is_protected_snap(target_snapshot)
        except rbd.ImageNotFound:
            snapshot_id, protected = None, False
    finally:
        image.close()
    say("identified", target=command["target"], image_id=image_id, snapshot_id=snapshot_id, protected=protected)

def main():
    if MISSING is not None:
        say("unavailable", message=str(MISSING))
        return 3
    # Started ahead of its job (the binding is imported while ferry claims the stores); no job: nothing was claimed.
    line = sys.stdin.readline()
    if not line.strip():
        return 0
    job = json.loads(line)
    threading.Thread(target=read_commands, daemon=True).start()
    try:
        outs = copy(job)
        while True:
            command = commands.get()
            if command["op"] == "exit":
                break
            out = outs[command["target"]]
            if command["op"] == "mark":
                on("target", "image-meta set", lambda: out.image.metadata_set(command["key"], command["value"]))
                say("marked", target=command["target"])
            elif command["op"] == "drop":
                out.drop()
                say("dropped", target=command["target"])
            elif command["op"] == "identify":
                identify(out, command, job["target_snapshot"])
            elif command["op"] == "rename":
                out.drop()
                try:
                    on("target", "rename", lambda: rbd.RBD().rename(out.io, out.spec["image"], command["to"]))
                    say("renamed", target=command["target"])
                except Failed as failed:
                    if failed.errno not in (2, 17):
                        raise
                    say("exists" if failed.errno == 17 else "absent", target=command["target"])
    except Stopped:
        close_all()
        os._exit(70)
    except Failed as failed:
        say("error", side=failed.side, step=failed.step, errno=failed.errno, message=str(failed))
        close_all()
        os._exit(1)
    except Exception as error:
        say("error", side="target", step="unexpected", errno=None, message="%s: %s" % (type(error).__name__, error))
        close_all()
        os._exit(1)
    close_all()
    return 0


if __name__ == "__main__":
    sys.exit(main())
