"""src/rbd/python/librbd_copy.py, the direct transfer's librbd copy, driven through its protocol as ferry drives it
(src/rbd/librbd-copy.ts), against stand-in clusters (fakes/): what it reads, hashes, writes and reports, each way it
ends."""
import contextlib
import hashlib
import io
import json
import os
import sys
import unittest
from unittest import mock

from harness import Session, World, load

OBJECT = 64 * 1024
BLOCK = 4096


def source_bytes():
    """Four objects: data in two blocks of object 0, object 1 allocated but zero, object 2 a hole, data at the end."""
    data = bytearray(4 * OBJECT)
    data[4096:4100] = b"abcd"
    data[30000:30001] = b"x"
    data[-10:] = b"0123456789"
    return bytes(data)


class LibrbdCopy(World):
    def setUp(self):
        World.setUp(self)
        self.a = self.cluster("site-a")
        self.b = self.cluster("site-b", fsid="ad73f3d5-74fc-46b2-aca8-9d7352f1f8a2", pools=("images", "images-c"))
        self.data = source_bytes()
        self.image(self.a, "images", "IMG", self.data, OBJECT, allocated=(1,), snapshot="snap")

    def target(self, conf, pool="images", name="IMG.ferry-partial"):
        """The temporary image ferry creates before the copy: empty, the source's size."""
        self.image(conf, pool, name, bytes(len(self.data)), OBJECT)
        return {"conf": conf, "user": None, "pool": pool, "image": name}

    def job(self, targets, **changes):
        job = {"source": {"conf": self.a, "user": "glance", "pool": "images", "image": "IMG", "snapshot": "snap"},
               "targets": targets, "target_snapshot": "ferry-test-snap", "algorithm": "sha512", "object_size": OBJECT,
               "writer_key": "ferry.writer", "writer": "host-a:42", "connect_timeout_s": 7}
        job.update(changes)
        return job

    def start(self, job):
        session = Session("librbd_copy", self.dir)
        session.send(job)
        return session

    def test_copies_the_snapshot_hashed_in_offset_order_writing_only_non_zero_blocks(self):
        session = self.start(self.job([self.target(self.b)]))
        copied = session.next_event()
        meta = self.meta(self.b, "images", "IMG.ferry-partial")
        # The written image's id and its snapshot's, read from the handle that wrote them (checked after the rename).
        self.assertEqual(copied, {
            "event": "copied", "size": 4 * OBJECT, "digest": hashlib.sha512(self.data).hexdigest(),
            "data_bytes": 3 * BLOCK, "objects": [0, 3],
            "targets": [{"ok": True, "snapshot_size": 4 * OBJECT, "extents": [[0, OBJECT], [3 * OBJECT, OBJECT]],
                         "image_id": meta["id"], "snapshot_id": meta["snap_ids"]["ferry-test-snap"]}]})
        self.assertEqual(self.read(self.b, "images", "IMG.ferry-partial"), self.data)
        self.assertEqual(meta["objects"], [0, 3])  # the zero object and the hole were not written
        self.assertEqual(meta["metadata"], {"ferry.writer": "host-a:42"})
        # The snapshot is the job's (ferry passes the clone target's name), made and protected.
        self.assertEqual(meta["snaps"], {"ferry-test-snap": {"protected": True, "objects": [0, 3]}})
        self.assertEqual(self.read(self.b, "images", "IMG.ferry-partial", "snap.ferry-test-snap"), self.data)
        self.assertEqual(session.end(), (0, ""))
        self.assert_every_image_closed(self.a)
        self.assert_every_image_closed(self.b)

    def test_copies_a_0_byte_snapshot_without_asking_librbd_which_objects_it_has(self):
        # An image uploaded empty is a 0-byte copy with a snapshot; librbd 16.2.15 aborts in diff_iterate on a 0-byte
        # image (the stand-in too), before any event: ferry would have seen the copy killed by SIGABRT.
        self.data = b""
        self.image(self.a, "images", "EMPTY", b"", OBJECT, snapshot="snap")
        session = self.start(self.job([self.target(self.b)], source=dict(self.job([])["source"], image="EMPTY")))
        copied = session.next_event()
        self.assertEqual((copied["event"], copied["size"], copied["digest"], copied["data_bytes"], copied["objects"]),
                         ("copied", 0, hashlib.sha512(b"").hexdigest(), 0, []))
        self.assertEqual([(target["ok"], target["snapshot_size"], target["extents"]) for target in copied["targets"]], [(True, 0, [])])
        self.assertEqual(session.end(), (0, ""))

    def test_connects_as_told_with_the_job_timeouts_and_no_write_back_cache(self):
        session = self.start(self.job([self.target(self.b)]))
        self.assertEqual(session.next_event()["event"], "copied")
        self.assertEqual(session.end()[0], 0)
        self.assertEqual(self.journal(self.a)[:6], [
            "rados conffile=%s rados_id=glance" % self.a, "conf client_mount_timeout=7", "conf rados_mon_op_timeout=7",
            "conf rbd_cache=false", "connect timeout=7", "open images/IMG@snap"])
        self.assertIn("rados conffile=%s rados_id=None" % self.b, self.journal(self.b))
        self.assertEqual(self.journal(self.a)[-1], "shutdown")

    def test_marks_and_renames_as_told_then_ends_when_stdin_closes(self):
        session = self.start(self.job([self.target(self.b)]))
        self.assertEqual(session.next_event()["event"], "copied")
        session.send({"op": "mark", "target": 0, "key": "ferry.verified", "value": "sha512:abc"})
        self.assertEqual(session.next_event(), {"event": "marked", "target": 0})
        self.assertEqual(self.meta(self.b, "images", "IMG.ferry-partial")["metadata"]["ferry.verified"], "sha512:abc")
        session.send({"op": "rename", "target": 0, "to": "IMG"})
        self.assertEqual(session.next_event(), {"event": "renamed", "target": 0})
        self.assertEqual(sorted(os.listdir(os.path.join(self.cluster_dir(self.b), "images"))), ["IMG"])
        written = self.meta(self.b, "images", "IMG")
        session.send({"op": "identify", "target": 0, "name": "IMG"})
        self.assertEqual(session.next_event(), {"event": "identified", "target": 0, "image_id": written["id"],
                                                "snapshot_id": written["snap_ids"]["ferry-test-snap"], "protected": True})
        session.send({"op": "identify", "target": 0, "name": "IMG.absent"})
        self.assertEqual(session.next_event(), {"event": "absent", "target": 0})
        self.assertEqual(session.end(), (0, ""))
        self.assert_every_image_closed(self.b)

    def test_identify_names_what_holds_the_name_now_a_neighbours_image_renamed_in_included(self):
        session = self.start(self.job([self.target(self.b)]))
        copied = session.next_event()
        self.assertEqual(copied["event"], "copied")
        images = os.path.join(self.cluster_dir(self.b), "images")
        os.rename(os.path.join(images, "IMG.ferry-partial"), os.path.join(images, "IMG.stolen"))
        self.image(self.b, "images", "IMG.ferry-partial", bytes(len(self.data)), OBJECT, snapshot="ferry-test-snap")
        planted = self.meta(self.b, "images", "IMG.ferry-partial")
        session.send({"op": "rename", "target": 0, "to": "IMG"})
        self.assertEqual(session.next_event(), {"event": "renamed", "target": 0})
        session.send({"op": "identify", "target": 0, "name": "IMG"})
        answer = session.next_event()
        self.assertEqual(answer["image_id"], planted["id"])
        self.assertNotEqual(answer["image_id"], copied["targets"][0]["image_id"])
        self.assertEqual(session.end(), (0, ""))
        self.assert_every_image_closed(self.b)

    def test_a_rename_answers_exists_for_a_taken_name_and_absent_for_a_temporary_image_gone(self):
        session = self.start(self.job([self.target(self.b)]))
        self.assertEqual(session.next_event()["event"], "copied")
        self.image(self.b, "images", "IMG", b"other", OBJECT)
        session.send({"op": "rename", "target": 0, "to": "IMG"})
        self.assertEqual(session.next_event(), {"event": "exists", "target": 0})
        os.rename(os.path.join(self.cluster_dir(self.b), "images", "IMG.ferry-partial"),
                  os.path.join(self.cluster_dir(self.b), "images", "taken-by-another"))
        session.send({"op": "rename", "target": 0, "to": "IMG-2"})
        self.assertEqual(session.next_event(), {"event": "absent", "target": 0})
        self.assertEqual(session.end(), (0, ""))

    def test_two_targets_are_written_from_one_read_and_one_that_fails_ends_alone(self):
        full = self.cluster("site-c", fsid="0b6f53a5-0d4e-4c0e-9d6c-4a3c4e6a7a11", fail_write=28)
        session = self.start(self.job([self.target(self.b), self.target(full)]))
        copied = session.next_event()
        self.assertEqual(copied["digest"], hashlib.sha512(self.data).hexdigest())
        ok, failed = copied["targets"]
        written = self.meta(self.b, "images", "IMG.ferry-partial")
        self.assertEqual(ok, {"ok": True, "snapshot_size": 4 * OBJECT, "extents": [[0, OBJECT], [3 * OBJECT, OBJECT]],
                              "image_id": written["id"], "snapshot_id": written["snap_ids"]["ferry-test-snap"]})
        self.assertEqual(failed, {"ok": False, "step": "write", "errno": 28, "message": "[Errno 28] No space left on device"})
        self.assertEqual(self.read(self.b, "images", "IMG.ferry-partial"), self.data)
        self.assertEqual(self.journal(self.a).count("open images/IMG@snap"), 1)
        self.assertEqual(self.meta(full, "images", "IMG.ferry-partial")["snaps"], {})  # nothing snapshotted there
        session.send({"op": "drop", "target": 1})
        self.assertEqual(session.next_event(), {"event": "dropped", "target": 1})
        self.assertEqual(session.end(), (0, ""))
        self.assert_every_image_closed(full)

    def test_a_source_that_fails_a_read_ends_every_target_exit_1(self):
        reading = self.cluster("site-d", fsid="5f0f8a0e-3c1d-4d55-9e63-0f8f5d2c4b21", fail_read=5)
        self.image(reading, "images", "IMG", self.data, OBJECT, snapshot="snap")
        session = self.start(self.job([self.target(self.b)], source={"conf": reading, "user": None, "pool": "images",
                                                                     "image": "IMG", "snapshot": "snap"}))
        self.assertEqual(session.next_event(), {"event": "error", "side": "source", "step": "read", "errno": 5,
                                                "message": "[Errno 5] Input/output error"})
        self.assertEqual(session.end()[0], 1)
        self.assert_every_image_closed(reading)
        self.assert_every_image_closed(self.b)

    def test_a_source_snapshot_that_does_not_exist_is_a_source_error_naming_the_open(self):
        session = self.start(self.job([self.target(self.b)], source={"conf": self.a, "user": None, "pool": "images",
                                                                     "image": "IMG", "snapshot": "gone"}))
        event = session.next_event()
        self.assertEqual({key: event[key] for key in ("event", "side", "step", "errno")},
                         {"event": "error", "side": "source", "step": "open", "errno": 2})
        self.assertEqual(session.end()[0], 1)

    def test_started_ahead_of_a_job_that_never_comes_exits_0_and_says_nothing(self):
        session = Session("librbd_copy", self.dir)
        self.assertEqual(session.end(), (0, ""))
        self.assertIsNone(session.next_event())

    def test_without_the_bindings_it_says_unavailable_and_exits_3(self):
        session = Session("librbd_copy", self.dir, with_fakes=False)
        event = session.next_event()
        self.assertEqual(event["event"], "unavailable")
        self.assertRegex(event["message"], "No module named '(rados|rbd)'")
        self.assertEqual(session.end()[0], 3)


class LibrbdCopyFunctions(unittest.TestCase):
    """The program's functions, called in this process (harness.load)."""

    def setUp(self):
        self.program = load("librbd_copy")

    def test_pace_pause_is_at_most_a_fifth_of_a_second_and_never_negative(self):
        self.assertEqual([self.program.pace_pause(10.0, now) for now in (9.0, 9.95, 10.0, 10.0001)], [0.2, 10.0 - 9.95, 0.0, 0.0])

    def test_chunk_size_is_an_object_at_most_4_mib(self):
        self.assertEqual([self.program.chunk_size(size) for size in (OBJECT, 4 << 20, 8 << 20)], [OBJECT, 4 << 20, 4 << 20])

    def test_on_names_the_side_and_step_of_a_failure_with_its_errno_and_passes_a_failed_on(self):
        def refuse():
            raise OSError(13, "Permission denied")
        with self.assertRaises(self.program.Failed) as caught:
            self.program.on("target", "open", refuse)
        self.assertEqual((caught.exception.side, caught.exception.step, caught.exception.errno), ("target", "open", 13))
        failed = self.program.Failed("source", "read", OSError(5, "EIO"))
        with self.assertRaises(self.program.Failed) as again:
            self.program.on("target", "write", lambda: (_ for _ in ()).throw(failed))
        self.assertIs(again.exception, failed)

    def test_say_writes_one_json_line_naming_the_event(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.program.say("marked", target=1)
        self.assertEqual([json.loads(line) for line in out.getvalue().splitlines()], [{"event": "marked", "target": 1}])

    def test_a_target_keeps_its_first_failure_and_skips_every_later_step(self):
        target = self.program.Target({"image": "tmp"})
        self.assertIsNone(target.step("open", lambda: (_ for _ in ()).throw(OSError(2, "No such file"))))
        self.assertEqual(target.step("stat", lambda: 1), None)
        target.fail("write", OSError(5, "EIO"))
        self.assertEqual(target.failure, {"step": "open", "errno": 2, "message": "[Errno 2] No such file"})

    def test_main_without_a_job_exits_0_and_claims_nothing(self):
        with mock.patch.object(sys, "stdin", io.StringIO("\n")):
            self.assertEqual(self.program.main(), 0)

    def test_main_without_the_binding_says_unavailable_and_returns_3(self):
        self.program.MISSING = ImportError("No module named 'rbd'")
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(self.program.main(), 3)
        self.assertEqual(json.loads(out.getvalue()), {"event": "unavailable", "message": "No module named 'rbd'"})


if __name__ == "__main__":
    unittest.main()
