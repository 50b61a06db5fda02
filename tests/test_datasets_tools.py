"""What surrounds the loaders: pytest's one-message-per-missing-corpus check, the maintainer
tools' new home, and ``python -m nbcourse``."""
from __future__ import annotations

import os
import subprocess
import sys
try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: tomli is the same parser (a test extra there)
    import tomli as tomllib

from course_paths import REPO


def run(*args, env_changes=None, timeout=300):
    env = {**os.environ, **(env_changes or {})}
    return subprocess.run([sys.executable, *args], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=timeout)


def test_pytest_offline_without_a_corpus_stops_with_one_message_per_missing_corpus(tmp_path):
    # A fresh clone offline: no NBCOURSE_DATA, an empty cache, and a mirror that refuses.
    # Lesson 06 and two text tests need 20 Newsgroups; SMS and Spambase are shipped.
    completed = run("-m", "pytest", "-p", "no:cacheprovider", "notebooks/06_gaussian_naive_bayes.ipynb",
                    "tests/test_text.py", "-k", "20newsgroups or ipynb",
                    env_changes={"NBCOURSE_DATA": "", "NBCOURSE_CACHE": str(tmp_path / "cache"),
                                 "NBCOURSE_MIRROR": "http://127.0.0.1:9"})
    output = completed.stdout + completed.stderr

    assert completed.returncode == 1, output
    assert output.count("20 Newsgroups is missing") == 1, output
    assert "selected tests need it" in output
    for way in ("NBCOURSE_DATA", "NBCOURSE_MIRROR", "http://qwone.com/~jason/20Newsgroups/20news-bydate.tar.gz"):
        assert way in output
    assert "SMS Spam Collection" not in output and "Spambase" not in output
    assert "Traceback" not in output and " passed" not in output and " failed" not in output


def test_tests_that_need_no_corpus_run_offline(tmp_path):
    completed = run("-m", "pytest", "-p", "no:cacheprovider", "-q", "tests/test_datasets.py", "-k", "sms",
                    env_changes={"NBCOURSE_DATA": "", "NBCOURSE_CACHE": str(tmp_path / "cache"),
                                 "NBCOURSE_MIRROR": "http://127.0.0.1:9"})
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert " passed" in completed.stdout


def test_python_dash_m_nbcourse_is_the_nbcourse_command():
    completed = run("-m", "nbcourse", "list")
    assert completed.returncode == 0, completed.stderr
    assert "01_weather" in completed.stdout and "05_spam" in completed.stdout
    assert run("-m", "nbcourse", "--help").stdout.startswith("usage: nbcourse")


def test_students_folder_of_lessons_holds_only_lessons():
    assert sorted(p.suffix for p in (REPO / "notebooks").iterdir() if not p.name.startswith(".")) == \
        [".ipynb"] * len(list((REPO / "notebooks").glob("*.ipynb")))
    assert (REPO / "tools" / "refresh.py").is_file() and (REPO / "tools" / "sanitize.cfg").is_file()
    addopts = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["addopts"]
    assert "--nbval-sanitize-with tools/sanitize.cfg" in addopts
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "python tools/refresh.py" in readme and "notebooks/refresh.py" not in readme
    assert "refresh.py" in run("tools/refresh.py", "--help").stdout


def test_nbval_reads_every_rule_of_the_sanitize_file():
    """nbval pairs `regex: ...` with a `replace: ...` line and silently drops a rule it cannot
    pair, e.g. `replace:` with nothing after it (an editor strips the space that an empty
    replacement needs): a rule written to mask noise must really be in force."""
    from nbval.plugin import get_sanitize_patterns

    text = (REPO / "tools" / "sanitize.cfg").read_text(encoding="utf-8")
    written = [line for line in text.splitlines() if line.startswith("regex:")]
    read = get_sanitize_patterns(text)
    assert len(read) == len(written), (written, read)
