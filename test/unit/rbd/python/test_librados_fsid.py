"""src/rbd/python/librados_fsid.py, a cluster's fsid through librados, run as ferry runs it (CONF USER TIMEOUT_S)
against a stand-in cluster (fakes/)."""
import subprocess
import unittest

from harness import World, command

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


if __name__ == "__main__":
    unittest.main()
