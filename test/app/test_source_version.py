#!/usr/bin/env python3
"""cmake/SourceVersion.cmake, which gpubench's build runs each time: in a git checkout, the version is the commit
now (a commit made after the first build is the next build's version, where a version read at configure time stayed
the first), and a dirty tree's changes and new files hashed into it; an unchanged version leaves the header untouched (nothing recompiles); -DFIXED and .source-version win."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "cmake", "SourceVersion.cmake")
CMAKE = sys.argv.pop(1) if len(sys.argv) > 1 else "cmake"


def git(tree, *args):
    return subprocess.run(["git", "-C", tree, "-c", "user.name=t", "-c", "user.email=t@t", *args], check=True,
                          capture_output=True, text=True).stdout.strip()


class SourceVersion(unittest.TestCase):
    def setUp(self):
        if shutil.which("git") is None:
            self.skipTest("git is not installed")
        self.tmp = tempfile.mkdtemp()
        self.tree, self.header = os.path.join(self.tmp, "tree"), os.path.join(self.tmp, "source_version.h")
        os.makedirs(self.tree)
        git(self.tree, "init", "-q")
        self.commit("first")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def commit(self, text):
        with open(os.path.join(self.tree, "file"), "w") as f:
            f.write(text)
        git(self.tree, "add", "file")
        git(self.tree, "commit", "-q", "-m", text)
        return git(self.tree, "rev-parse", "--short=12", "HEAD")

    def build(self, *defines):
        subprocess.run([CMAKE, f"-DSOURCE_DIR={self.tree}", f"-DOUT={self.header}", *defines, "-P", SCRIPT],
                       check=True, capture_output=True, text=True)
        with open(self.header) as f:
            return f.read()

    def test_each_build_records_the_commit_now(self):
        first = git(self.tree, "rev-parse", "--short=12", "HEAD")
        self.assertIn(f'#define GPUBENCH_SOURCE_VERSION "{first}"', self.build())
        second = self.commit("second")
        self.assertIn(f'"{second}"', self.build())
        with open(os.path.join(self.tree, "file"), "w") as f:
            f.write("edited")
        self.assertRegex(self.build(), f'"{second}-dirty-[0-9a-f]{{12}}"')

    def test_trees_dirty_from_one_commit_differ_by_their_changes(self):
        def dirty(text, new_file=None):
            with open(os.path.join(self.tree, "file"), "w") as f:
                f.write(text)
            if new_file:
                with open(os.path.join(self.tree, "new.cu"), "w") as f:
                    f.write(new_file)
            return self.build()
        one = dirty("edited")
        self.assertEqual(dirty("edited"), one)  # the same code, the same version
        self.assertNotEqual(dirty("edited otherwise"), one)
        with_new = dirty("edited", "a kernel")
        self.assertNotEqual(with_new, one)  # a file the commit lacks is code too
        self.assertNotEqual(dirty("edited", "another kernel"), with_new)

    def test_an_unchanged_version_leaves_the_header_as_it_was(self):
        self.build()
        os.utime(self.header, (1, 1))
        self.build()
        self.assertEqual(os.stat(self.header).st_mtime, 1)

    def test_a_fixed_version_and_the_source_version_file_win(self):
        self.assertIn('"v1.2"', self.build("-DFIXED=v1.2"))
        with open(os.path.join(self.tree, ".source-version"), "w") as f:
            f.write("tarball-3\n")
        self.assertIn('"tarball-3"', self.build())


if __name__ == "__main__":
    unittest.main()
