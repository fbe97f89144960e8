"""src/rbd/python/rbd_store_copies.py, one store's pool in one process, run as ferry runs it (CONF USER TIMEOUT_S POOL
SNAPSHOT COMMAND ARGS) against a stand-in cluster described by a JSON file (pool_fakes/)."""
import contextlib
import datetime
import io
import json
import os
import subprocess
import sys
import unittest

from harness import World, load, program

POOL_FAKES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pool_fakes")
COPY = "3f1c2a9e-5b7d-4c1e-9a8f-0d2e4b6c8a10"
# 2026-11-27 02:29:44 UTC and friends, as Unix seconds.
T0, T1, T2 = 1795746584.0, 1795746594.0, 1795746672.0


def glance_copy(**overrides):
    image = {"id": "102b1d145e1c", "size": 20 << 20, "object_size": 8 << 20, "objects": [0, 1], "features": 61,
             "created": "2026-11-27 02:29:44", "accessed": "2026-11-27 02:31:12", "modified": "2026-11-27 02:29:44",
             "snaps": {"snap": {"protected": True, "children": []}}, "meta": {"ferry.verified": "sha512:ab", "other": "x"}}
    image.update(overrides)
    return image


def clone(name, image_id, trash=False, created="2026-11-27 02:29:54", pool="vms"):
    child = {"pool": pool, "pool_namespace": "", "image": name, "id": image_id, "trash": trash}
    disk = {"id": image_id, "size": 20 << 20, "object_size": 8 << 20, "objects": [], "created": created,
            "accessed": created, "modified": created, "snaps": {}}
    if trash:
        disk["trashed"] = {"deleted": created}
    return child, disk


class RbdStoreCopies(World):
    def world(self, images, vms=None, mon=None, **extra):
        state = {"pools": {"images": {"images": images}, "vms": {"images": vms or {}}},
                 "mon": mon if mon is not None else {"osd pool ls": [{"pool_name": "images", "quota_max_bytes": 0}],
                                                     "df": {"stats": {"total_bytes": 0}, "pools": []}}}
        state.update(extra)
        self.state_path = os.path.join(self.dir, "cluster.json")
        with open(self.state_path, "w") as out:
            json.dump(state, out)
        conf = os.path.join(self.dir, "site-b.conf")
        with open(conf, "w") as out:
            out.write("[global]\nfake_pools = %s\n" % self.state_path)
        return conf

    def run_program(self, conf, command, *args, with_fakes=True, pool="images"):
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8"}
        if with_fakes:
            env["PYTHONPATH"] = POOL_FAKES
        argv = [sys.executable, "-S", "-B", program("rbd_store_copies"), conf, "glance", "7", pool, "snap", command] + list(args)
        return subprocess.run(argv, env=env, cwd=self.dir, capture_output=True, text=True, timeout=20)

    def answer(self, done):
        self.assertEqual((done.returncode, done.stderr), (0, ""))
        return json.loads(done.stdout)

    def saved(self):
        with open(self.state_path) as source:
            return json.load(source)

    def journal(self, conf=None):
        with open(self.state_path + ".journal") as source:
            return source.read().splitlines()

    def test_list_gives_a_copy_with_its_sizes_timestamps_clones_trash_included_and_ferry_marks(self):
        live, live_disk = clone("vm-1_disk", "c1")
        gone, gone_disk = clone("vm-2_disk", "c2", trash=True, created="2026-11-27 02:30:00")
        conf = self.world({COPY: glance_copy(snaps={"snap": {"protected": True, "children": [live, gone]}})},
                          vms={"vm-1_disk": live_disk, "vm-2_disk": gone_disk})
        listing = self.answer(self.run_program(conf, "list"))
        self.assertEqual(listing["images"], [{
            "name": COPY, "id": "102b1d145e1c", "size": 20 << 20, "used": 16 << 20, "created": T0, "accessed": T2, "modified": T0,
            "protected": True, "meta": {"ferry.verified": "sha512:ab"},
            "children": [{"pool": "vms", "namespace": "", "image": "vm-1_disk", "id": "c1", "trash": False, "created": T1},
                         {"pool": "vms", "namespace": "", "image": "vm-2_disk", "id": "c2", "trash": True, "created": T0 + 16}]}])
        self.assertEqual((listing["pool"], listing["snapshot"], listing["quota_bytes"], listing["capacity"], listing["trash"]),
                         ("images", "snap", 0, None, []))

    def test_list_an_image_without_the_snapshot_is_listed_with_protected_null_and_no_clones(self):
        conf = self.world({COPY + ".ferry-partial": glance_copy(snaps={})})
        image = self.answer(self.run_program(conf, "list"))["images"][0]
        self.assertEqual((image["name"], image["protected"], image["children"]), (COPY + ".ferry-partial", None, []))

    def test_list_without_fast_diff_used_is_null_and_no_object_is_scanned(self):
        conf = self.world({COPY: glance_copy(features=1), "b": glance_copy(flags=2)})
        images = self.answer(self.run_program(conf, "list"))["images"]
        self.assertEqual([image["used"] for image in images], [None, None])
        self.assertEqual([line for line in self.journal() if line.startswith("diff_iterate")], [])

    def test_list_a_zero_byte_image_is_listed_with_nothing_used_and_its_allocation_never_asked(self):
        # Glance creates a copy at 0 bytes when it does not know the size and grows it as it writes: one killed before its
        # first write stays so (the soak, 2026-11-29). librbd 16.2.15 aborts the process in diff_iterate on a 0-byte image
        # with fast-diff (the stand-in does as well): the whole listing died, every budget of the store with it.
        conf = self.world({COPY: glance_copy(size=0, objects=[], snaps={}), "other": glance_copy(id="2")})
        images = self.answer(self.run_program(conf, "list"))["images"]
        self.assertEqual([(image["name"], image["size"], image["used"]) for image in images], [(COPY, 0, 0), ("other", 20 << 20, 16 << 20)])
        self.assertEqual([line for line in self.journal() if line.startswith("diff_iterate")], ["diff_iterate other"])
        self.assertEqual(self.answer(self.run_program(conf, "check", COPY))["images"][0]["used"], 0)

    def test_list_an_image_whose_clones_cannot_be_listed_is_an_error_entry_not_a_failed_listing(self):
        conf = self.world({COPY: glance_copy(snaps={"snap": {"protected": True, "fail_children": 1}}), "other": glance_copy(id="2")})
        images = self.answer(self.run_program(conf, "list"))["images"]
        self.assertEqual(images[0], {"name": COPY, "id": None, "error": "[errno 1] RBD permission error (error listing children.)", "errno": 1})
        self.assertEqual(images[1]["name"], "other")

    def test_list_a_clone_in_a_pool_it_may_not_open_has_no_creation_time(self):
        child, _ = clone("vol-1", "v1", pool="volumes")
        conf = self.world({COPY: glance_copy(snaps={"snap": {"protected": True, "children": [child]}})},
                          denied_pools=["volumes"])
        image = self.answer(self.run_program(conf, "list"))["images"][0]
        self.assertEqual(image["children"], [{"pool": "volumes", "namespace": "", "image": "vol-1", "id": "v1", "trash": False, "created": None}])

    def test_list_the_pools_trash_with_when_each_image_went_there(self):
        trashed = glance_copy(id="t1", trashed={"deleted": "2026-11-27 02:31:12"})
        conf = self.world({COPY: glance_copy(), "old": trashed})
        listing = self.answer(self.run_program(conf, "list"))
        self.assertEqual([image["name"] for image in listing["images"]], [COPY])
        self.assertEqual([(image["name"], image["id"], image["deleted"]) for image in listing["trash"]], [("old", "t1", T2)])

    def test_list_the_quota_from_the_osd_map_and_the_capacity_where_ceph_df_reports_it(self):
        mon = {"osd pool ls": [{"pool_name": "vms", "quota_max_bytes": 5, "size": 2},
                               {"pool_name": "images", "quota_max_bytes": 1 << 40, "size": 3}],
               "df": {"stats": {"total_bytes": 10 << 40}, "pools": [{"name": "images", "stats": {"stored": 3 << 30, "max_avail": 2 << 40}}]}}
        listing = self.answer(self.run_program(self.world({}, mon=mon), "list"))
        self.assertEqual((listing["quota_bytes"], listing["replicas"], listing["capacity"]),
                         (1 << 40, 3, {"cluster_bytes": 10 << 40, "pool_stored_bytes": 3 << 30, "pool_max_avail_bytes": 2 << 40}))

    def test_list_mon_commands_that_do_not_answer_leave_quota_replicas_and_capacity_null(self):
        listing = self.answer(self.run_program(self.world({}, mon={}), "list"))
        self.assertEqual((listing["quota_bytes"], listing["replicas"], listing["capacity"]), (None, None, None))

    def test_check_reads_only_the_named_images_and_says_which_are_absent(self):
        conf = self.world({COPY: glance_copy(), "other": glance_copy(id="2")})
        images = self.answer(self.run_program(conf, "check", "nosuch", COPY))["images"]
        self.assertEqual([(image["name"], image.get("absent", False)) for image in images], [("nosuch", True), (COPY, False)])
        self.assertNotIn("open images/other ro", self.journal())

    def test_check_a_name_found_in_the_pools_trash_says_so(self):
        conf = self.world({COPY: glance_copy(trashed={"deleted": "2026-11-27 02:31:12"})})
        images = self.answer(self.run_program(conf, "check", COPY))["images"]
        self.assertEqual(images, [{"name": COPY, "id": None, "absent": True, "trashed": {"id": "102b1d145e1c", "deleted": T2}}])

    def test_look_gives_the_snapshot_and_the_fence_without_listing_children(self):
        # fail_children: a user with read-only caps on the images pool alone (the agent's) cannot list children.
        conf = self.world({COPY: glance_copy(snaps={"snap": {"protected": True, "fail_children": 1}},
                                             meta={"ferry.evicting": "{}", "other": "x"}),
                           "nosnap": glance_copy(id="2", snaps={})})
        images = self.answer(self.run_program(conf, "look", COPY, "nosnap", "nosuch"))["images"]
        self.assertEqual(images, [{"name": COPY, "protected": True, "meta": {"ferry.evicting": "{}"}},
                                  {"name": "nosnap", "protected": None, "meta": {"ferry.verified": "sha512:ab"}}, {"name": "nosuch", "absent": True}])
        self.assertNotIn("open images/%s rw" % COPY, self.journal())

    def test_marks_are_ferrys_own_keys_only_each_bounded_whatever_a_pool_writer_wrote(self):
        # Anyone who may write the pool's image-meta could write megabytes of ferry.* keys: the listing (read whole)
        # carries ferry's own keys only, and a value longer than 1024 characters as a note of its length.
        meta = {"ferry.evicting": "x" * 5000, "ferry.verified": "sha512:ab", "other": "y" * 5000}
        meta.update(("ferry.junk%d" % i, "z" * 1000) for i in range(50))
        conf = self.world({COPY: glance_copy(meta=meta)})
        bounded = {"ferry.evicting": "(a value of 5000 characters, not read)", "ferry.verified": "sha512:ab"}
        self.assertEqual(self.answer(self.run_program(conf, "list"))["images"][0]["meta"], bounded)
        self.assertEqual(self.answer(self.run_program(conf, "check", COPY))["images"][0]["meta"], bounded)
        self.assertEqual(self.answer(self.run_program(conf, "look", COPY))["images"][0]["meta"], bounded)
        self.assertEqual(self.answer(self.run_program(conf, "fence", "ferry.evicting", "run-1", "", COPY)),
                         {"results": [{"name": COPY, "held": "(a value of 5000 characters, not read)"}]})

    def test_fence_then_unfence_removes_only_a_mark_that_still_holds_the_value(self):
        conf = self.world({COPY: glance_copy(), "other": glance_copy(id="2")})
        self.assertEqual(self.answer(self.run_program(conf, "fence", "ferry.evicting", "run-1", "", COPY, "other", "nosuch")),
                         {"results": [{"name": COPY, "ok": True}, {"name": "other", "ok": True}, {"name": "nosuch", "absent": True}]})
        self.assertEqual(self.saved()["pools"]["images"]["images"][COPY]["meta"]["ferry.evicting"], "run-1")
        self.answer(self.run_program(conf, "fence", "ferry.evicting", "run-2", "run-1", "other"))
        self.assertEqual(self.answer(self.run_program(conf, "unfence", "ferry.evicting", "run-1", COPY, "other", "nosuch")),
                         {"results": [{"name": COPY, "removed": True}, {"name": "other", "other": True}, {"name": "nosuch", "absent": True}]})
        images = self.saved()["pools"]["images"]["images"]
        self.assertEqual((images[COPY]["meta"].get("ferry.evicting"), images["other"]["meta"]["ferry.evicting"]), (None, "run-2"))
        self.assertEqual(self.answer(self.run_program(conf, "unfence", "ferry.evicting", "run-1", COPY)),
                         {"results": [{"name": COPY, "none": True}]})

    def test_fence_leaves_another_mark_alone_and_says_whose_it_is(self):
        conf = self.world({COPY: glance_copy(meta={"ferry.evicting": "run-0"}), "free": glance_copy(id="2")})
        self.assertEqual(self.answer(self.run_program(conf, "fence", "ferry.evicting", "run-1", "", COPY, "free")),
                         {"results": [{"name": COPY, "held": "run-0"}, {"name": "free", "ok": True}]})
        self.assertEqual(self.saved()["pools"]["images"]["images"][COPY]["meta"]["ferry.evicting"], "run-0")

    def test_fence_takes_a_mark_over_only_while_it_still_holds_the_value_expected(self):
        conf = self.world({COPY: glance_copy(meta={"ferry.evicting": "run-0"}), "moved": glance_copy(id="2", meta={"ferry.evicting": "run-9"})})
        self.assertEqual(self.answer(self.run_program(conf, "fence", "ferry.evicting", "run-1", "run-0", COPY, "moved")),
                         {"results": [{"name": COPY, "ok": True}, {"name": "moved", "held": "run-9"}]})
        images = self.saved()["pools"]["images"]["images"]
        self.assertEqual((images[COPY]["meta"]["ferry.evicting"], images["moved"]["meta"]["ferry.evicting"]), ("run-1", "run-9"))

    def test_fence_written_over_right_after_ours_is_not_ours(self):
        conf = self.world({COPY: glance_copy(overwritten_by="run-2")})
        self.assertEqual(self.answer(self.run_program(conf, "fence", "ferry.evicting", "run-1", "", COPY)),
                         {"results": [{"name": COPY, "held": "run-2"}]})

    def test_unfence_a_mark_that_cannot_be_read_is_an_error_not_no_mark(self):
        conf = self.world({COPY: glance_copy(meta={"ferry.evicting": "run-1"}, fail_meta=108)})
        self.assertEqual(self.answer(self.run_program(conf, "unfence", "ferry.evicting", "run-1", COPY)),
                         {"results": [{"name": COPY, "error": "[errno 108] error reading metadata", "errno": 108}]})

    def test_a_pool_that_is_not_there_exits_2_with_the_message_on_stderr(self):
        done = self.run_program(self.world({}), "list", pool="nosuch")
        self.assertEqual((done.returncode, done.stdout, done.stderr), (2, "", "[errno 2] RADOS object not found (error opening pool 'nosuch')\n"))

    def test_a_cluster_that_does_not_answer_exits_110(self):
        done = self.run_program(self.world({}, fail_connect=110), "list")
        self.assertEqual((done.returncode, done.stderr), (110, "[errno 110] RADOS timed out (error connecting to the cluster)\n"))

    def test_without_the_binding_it_says_unavailable_and_exits_3(self):
        done = self.run_program(self.world({}), "list", with_fakes=False)
        self.assertEqual(done.returncode, 3)
        self.assertEqual(list(json.loads(done.stdout)), ["unavailable"])


class RbdStoreCopiesFunctions(World):
    """The program's functions, called in this process (harness.load) against the same stand-in pool."""
    world = RbdStoreCopies.world

    def setUp(self):
        super().setUp()
        self.program = load("rbd_store_copies", POOL_FAKES)

    def test_parse_names_the_cluster_settings_the_command_and_its_args(self):
        settings, command, args = self.program.parse(["-c", "b.conf", "", "7", "images", "snap", "fence", "k", "v", "", "a"])
        self.assertEqual(settings, {"conf": "b.conf", "user": None, "timeout": "7", "pool": "images", "snapshot": "snap"})
        self.assertEqual((command, args), ("fence", ["k", "v", "", "a"]))

    def test_seconds_is_unix_time_of_a_naive_utc_datetime_and_none_stays_none(self):
        self.assertEqual(self.program.seconds(datetime.datetime(2026, 11, 27, 2, 29, 44)), T0)
        self.assertIsNone(self.program.seconds(None))

    def test_bounded_keeps_a_mark_up_to_mark_max_and_notes_a_longer_one(self):
        limit = self.program.MARK_MAX
        self.assertEqual(self.program.bounded("x" * limit), "x" * limit)
        self.assertEqual(self.program.bounded("x" * (limit + 1)), "(a value of %d characters, not read)" % (limit + 1))
        self.assertIsNone(self.program.bounded(None))

    def test_check_finds_a_copy_and_names_an_absent_one(self):
        conf = self.world({COPY: glance_copy()})
        cluster = self.program.Cluster(conf, "glance", "7", "images", "snap")
        answer = self.program.check(cluster, [COPY, "missing"])
        self.assertEqual([image["name"] for image in answer["images"]], [COPY, "missing"])
        self.assertEqual(answer["images"][1], {"name": "missing", "id": None, "absent": True})

    def test_main_refuses_an_unknown_command_with_64(self):
        conf = self.world({})
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.assertEqual(self.program.main(["-c", conf, "glance", "7", "images", "snap", "forget"]), 64)
        self.assertEqual(err.getvalue(), "unknown command forget\n")

    def test_main_without_the_binding_prints_unavailable_and_returns_3(self):
        self.program.MISSING = ImportError("No module named 'rados'")
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(self.program.main(["-c", "conf", "", "7", "images", "snap", "list"]), 3)
        self.assertEqual(json.loads(out.getvalue()), {"unavailable": "No module named 'rados'"})


if __name__ == "__main__":
    unittest.main()
