"""src/rbd/python/librados_fsid.py, a cluster's fsid through librados, run as ferry runs it (CONF USER TIMEOUT_S)
against a stand-in cluster (fakes/)."""
import contextlib
import io
import subprocess
import unittest

from harness import World, command, load

FSID = "8830a20e-1ce9-4ad6-ad31-c6dc7a269792"


class LibradosFsid(World):
    def run_program(self, *args, with_fakes=True):
        argv, env = command("librados_fsid", with_fakes)
        return subprocess.run(argv + list(args), env=env, cwd=self.dir, capture_output=True, text=True, timeout=20)

    def test_prints_the_fsid_after_connecting_with_the_conf_the_user_and_the_timeouts_given(self):
        conf = self.cluster("site-b", fsid=FSID)
        done = self.run_program(conf, "nova", "7")
        self.assertEqual((done.returncode, done.stdout, done.stderr), (0, FSID + "\n", ""))
        self.assertEqual(self.journal(conf), ["rados conffile=%s rados_id=nova" % conf, "conf client_mount_timeout=7",
                                              "conf rados_mon_op_timeout=7", "connect timeout=7", "shutdown"])

    def test_an_empty_user_is_librados_default(self):
        conf = self.cluster("site-b", fsid=FSID)
        self.assertEqual(self.run_program(conf, "", "7").returncode, 0)
        self.assertEqual(self.journal(conf)[0], "rados conffile=%s rados_id=None" % conf)

    def test_a_librados_failure_exits_with_its_errno_and_its_message_on_stderr(self):
        conf = self.cluster("site-b", fail_connect=110)
        done = self.run_program(conf, "nova", "7")
        self.assertEqual((done.returncode, done.stdout, done.stderr),
                         (110, "", "[errno 110] RADOS timed out (error connecting to the cluster)\n"))

    def test_a_conf_it_cannot_read_exits_2(self):
        done = self.run_program(self.dir + "/missing.conf", "nova", "7")
        self.assertEqual((done.returncode, done.stderr), (2, "[errno 2] RADOS object not found (error calling conf_read_file)\n"))

    def test_without_the_binding_it_says_unavailable_and_exits_3(self):
        done = self.run_program(self.dir + "/site-b.conf", "nova", "7", with_fakes=False)
        self.assertEqual(done.returncode, 3)
        self.assertRegex(done.stdout, "^unavailable: No module named 'rados'")


class LibradosFsidFunctions(World):
    """The program's functions, called in this process (harness.load)."""

    def setUp(self):
        super().setUp()
        self.program = load("librados_fsid")

    def test_parse_reads_conf_user_and_timeout_and_an_empty_user_is_none(self):
        self.assertEqual(self.program.parse(["-c", "/etc/ceph/b.conf", "nova", "7"]), ("/etc/ceph/b.conf", "nova", "7"))
        self.assertEqual(self.program.parse(["-c", "/etc/ceph/b.conf", "", "7"]), ("/etc/ceph/b.conf", None, "7"))

    def test_errno_of_is_the_positive_errno_or_1(self):
        for error, expected in ((OSError(-110, "timed out"), 110), (OSError(13, "refused"), 13), (ValueError("x"), 1)):
            self.assertEqual(self.program.errno_of(error), expected)

    def test_read_fsid_connects_and_shuts_down(self):
        conf = self.cluster("site-b", fsid=FSID)
        self.assertEqual(self.program.read_fsid(conf, None, "5"), FSID)
        self.assertEqual(self.journal(conf)[-1], "shutdown")

    def test_main_without_the_binding_prints_unavailable_and_returns_3(self):
        self.program.rados, self.program.MISSING = None, ImportError("No module named 'rados'")
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(self.program.main(["-c", "conf", "", "5"]), 3)
        self.assertEqual(out.getvalue(), "unavailable: No module named 'rados'\n")

    def test_main_returns_the_errno_of_a_librados_failure(self):
        conf = self.cluster("site-b", fail_connect=110)
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.assertEqual(self.program.main(["-c", conf, "nova", "7"]), 110)
        self.assertIn("RADOS timed out", err.getvalue())


if __name__ == "__main__":
    unittest.main()
