"""The tests that grade as an ordinary user arrange their own access (issue 39).

A clone in /root, in a home of mode 700 or in ``mktemp -d`` sits in a folder nobody may
traverse; ``nobody_support.exposed`` makes the checkout, the venv and the interpreter
reachable in a mount namespace of the test's own.  Here a private folder of the test's
stands for such a clone: what it holds is readable inside, nothing else of it is, and
the host is left as it was.
"""
from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

from nobody_support import blocked_folders, exposed

NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


def _private_clone(root: Path) -> tuple[Path, Path]:
    """A course folder and a venv inside it behind a second private folder, in ``root``."""
    course = root / "course"
    (course / "tests").mkdir(parents=True)
    (course / "tests" / "a_test.py").write_text("read by anyone\n")
    env = course / "private" / "venv"
    env.mkdir(parents=True)
    (course / "private").chmod(0o700)
    (env / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (root / "secret.txt").write_text("not exposed\n")
    return course, env


def test_a_clone_in_a_private_folder_is_reachable_inside_only(tmp_path):
    root = Path(tempfile.mkdtemp(prefix="nbcourse-private-"))  # mode 700, as mktemp -d
    try:
        course, env = _private_clone(root)
        assert blocked_folders(env / "pyvenv.cfg") == [root, course / "private"]
        look = ["/bin/sh", "-c",
                f"cat {course}/tests/a_test.py {env}/pyvenv.cfg && ls -A {root} && "
                f"if touch {course}/tests/new 2>/dev/null; then echo writable; fi"]
        if os.geteuid() == 0:  # as the tests that grade as nobody do
            command = exposed([*NOBODY, *look], [course, env], tmp_path)
        else:  # an ordinary user: its own user namespace, where it may mount
            command = exposed(look, [course, env], tmp_path,
                              unshare=("--user", "--map-root-user", "--mount"))
        inside = subprocess.run(command, capture_output=True, text=True, timeout=60)
        assert inside.returncode == 0, inside.stderr
        assert inside.stdout.split("\n") == ["read by anyone", "home = /usr/bin", "course", ""]
        # the host is as it was: still private, the secret still there, nothing added
        assert root.stat().st_mode & 0o777 == 0o700
        assert sorted(os.listdir(root)) == ["course", "secret.txt"]
        assert sorted(os.listdir(course)) == ["private", "tests"]
        if os.geteuid() == 0:
            outside = subprocess.run([*NOBODY, "cat", f"{course}/tests/a_test.py"],
                                     capture_output=True, text=True, timeout=60)
            assert outside.returncode != 0  # nobody still cannot read it on the host
    finally:
        subprocess.run(["rm", "-rf", str(root)], check=False)
