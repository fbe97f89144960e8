// The direct transfer's data path through librbd (python3-rbd, the binding nova's and Glance's rbd code use): one
// Python process, connected to both clusters, reads the source snapshot's allocated objects with reads in flight,
// hashes the image's bytes in offset order (zero fill for what is not allocated), writes the non-zero 4 KiB blocks
// into the temporary image, makes and protects `snap`, and reports what the target's object map then holds. Then it
// waits for ferry's verdict: mark the copy verified, rename it (the commit). Against `rbd export-diff | rbd
// import-diff` through ferry it saves two rbd processes, the diff encoding, four copies of every byte through pipes,
// and four short rbd processes (bench/RESULTS.md "## transfer").
//
// Evaluated with `python3 -c`, like hash-sink.ts's worker: no file to find inside the bundled CLI or the package.
// Protocol (stdout, one JSON object per line): {"event": "ready"} once connected, {"event": "copied", ...} with the
// facts, then one answer per command read from stdin ({"op": "mark", "key", "value"} → "marked"; {"op": "rename",
// "to"} → "renamed", "exists" (the name is taken) or "absent" (the temporary image is gone: another writer took it)). {"event": "error", "side": "source"|"target", ...} ends it with exit 1;
// {"event": "unavailable"} (no python3-rbd) with exit 3. stdin closing ends it at once: ferry is gone, so is its writer.
export const LIBRBD_COPY_PY = String.raw`
import json, os, sys, threading, queue, hashlib

def say(event, **fields):
    fields["event"] = event
    sys.stdout.write(json.dumps(fields) + "\n")
    sys.stdout.flush()

try:
    import rados, rbd
except ImportError as error:
    say("unavailable", message=str(error))
    sys.exit(3)

job = json.loads(sys.stdin.readline())
commands = queue.Queue()
stop = threading.Event()
opened = []

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

threading.Thread(target=read_commands, daemon=True).start()

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

clusters = {}
def connect(cluster):
    key = (cluster["conf"], cluster.get("user"))
    if key not in clusters:
        handle = rados.Rados(conffile=cluster["conf"], rados_id=cluster.get("user") or None)
        timeout = str(job["connect_timeout_s"])
        handle.conf_set("client_mount_timeout", timeout)
        handle.conf_set("rados_mon_op_timeout", timeout)
        handle.connect(timeout=job["connect_timeout_s"])
        clusters[key] = handle
    return clusters[key]

source, target = job["source"], job["target"]
object_size = job["object_size"]
BLOCK = 4096
ZERO_BLOCK = bytes(BLOCK)
CHUNK = min(object_size, 8 << 20)
ZERO_CHUNK = bytes(CHUNK)
READS_IN_FLIGHT = 8
WRITES_IN_FLIGHT = 32

def copy():
    src_io = on("source", "connect", lambda: connect(source).open_ioctx(source["pool"]))
    dst_io = on("target", "connect", lambda: connect(target).open_ioctx(target["pool"]))
    say("ready")
    src = on("source", "open", lambda: rbd.Image(src_io, source["image"], snapshot=source["snapshot"], read_only=True))
    opened.append(src)
    dst = on("target", "open", lambda: rbd.Image(dst_io, target["image"]))
    opened.append(dst)
    on("target", "image-meta set", lambda: dst.metadata_set(job["writer_key"], job["writer"]))
    size = on("source", "stat", src.size)
    if on("target", "stat", dst.size) != size:
        raise Failed("target", "stat", Exception("the temporary image's size differs from the source's"))
    extents = []
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
    write_slots = threading.Semaphore(WRITES_IN_FLIGHT)
    write_errors = []
    def read(index):
        offset, length = chunks[index]
        done, box = threading.Event(), {}
        def complete(completion, data):
            box["rc"], box["data"] = completion.get_return_value(), data
            done.set()
        on("source", "read", lambda: src.aio_read(offset, length, complete))
        reads.append((offset, length, done, box))
    def written(completion):
        rc = completion.get_return_value()
        if rc < 0:
            write_errors.append(rc)
        write_slots.release()
    def write(offset, data):
        write_slots.acquire()
        if write_errors:
            raise Failed("target", "write", OSError(-write_errors[0], os.strerror(-write_errors[0])))
        on("target", "write", lambda: dst.aio_write(data, offset, written))
    position, next_read, data_bytes = 0, 0, 0
    data_objects, written_objects = set(), set()
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
                write(offset + run, data if run == 0 and at >= length else data[run:at])
                data_bytes += at - run
                for index in range((offset + run) // object_size, (offset + at - 1) // object_size + 1):
                    data_objects.add(index)
                    written_objects.add(index)
                run = None
        # Hashed after its writes were sent: they travel while the hash works (hashlib lets go of the interpreter
        # lock, and the reads in flight go on too). Sparse images are hash-bound: every byte of the size is hashed.
        hash_zeros(gap)
        digest.update(data)
    hash_zeros(size - position)
    for _ in range(WRITES_IN_FLIGHT):
        write_slots.acquire()
    if write_errors:
        raise Failed("target", "write", OSError(-write_errors[0], os.strerror(-write_errors[0])))
    on("target", "flush", dst.flush)
    on("target", "snap create", lambda: dst.create_snap("snap"))
    on("target", "snap protect", lambda: dst.protect_snap("snap"))
    opened.remove(src)
    src.close()
    # dst stays open (its watch shows a live writer) until the rename: another ferry that saw the verified mark and
    # no watcher would take the copy for a dead run's and commit it itself.
    snap = on("target", "open snap", lambda: rbd.Image(dst_io, target["image"], snapshot="snap", read_only=True))
    present = []
    on("target", "diff", lambda: snap.diff_iterate(0, snap.size(), None, lambda offset, length, exists: present.append([offset, length]) if exists else None, whole_object=True))
    snapshot_size = snap.size()
    snap.close()
    say("copied", size=size, digest=digest.hexdigest(), data_bytes=data_bytes, data_objects=sorted(data_objects),
        written_objects=sorted(written_objects), snapshot_size=snapshot_size, extents=present)
    return dst_io, dst

def close_all():
    for image in opened:
        try:
            image.close()
        except Exception:
            pass
    for handle in clusters.values():
        try:
            handle.shutdown()
        except Exception:
            pass

try:
    dst_io, dst = copy()
    while True:
        command = commands.get()
        if command["op"] == "mark":
            on("target", "image-meta set", lambda: dst.metadata_set(command["key"], command["value"]))
            say("marked")
        elif command["op"] == "rename":
            if dst in opened:
                opened.remove(dst)
                dst.close()
            try:
                on("target", "rename", lambda: rbd.RBD().rename(dst_io, target["image"], command["to"]))
                say("renamed")
            except Failed as failed:
                if failed.errno not in (2, 17):
                    raise
                say("exists" if failed.errno == 17 else "absent")
        elif command["op"] == "exit":
            break
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
`;
