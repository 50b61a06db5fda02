"""The public API is visible: every public module says what it exports, ``import nbcourse``
gives the estimators and loaders of the lessons, and docs/api.md is what the code says."""
import importlib
import subprocess
import sys

import pytest

PUBLIC_MODULES = ["nbcourse", "nbcourse.naive_bayes", "nbcourse.smoothing", "nbcourse.mle",
                  "nbcourse.linear", "nbcourse.text", "nbcourse.evaluation", "nbcourse.smoothing_strength",
                  "nbcourse.datasets",
                  "nbcourse.plotting", "nbcourse.widgets", "nbcourse.grading", "nbcourse.cli"]


@pytest.mark.parametrize("name", PUBLIC_MODULES)
def test_every_public_module_declares_what_it_exports(name):
    module = importlib.import_module(name)
    assert module.__all__, f"{name} has an empty __all__"
    missing = [item for item in module.__all__ if not hasattr(module, item)]
    assert not missing, f"{name}.__all__ names what it does not have: {missing}"
    assert len(set(module.__all__)) == len(module.__all__)


def test_import_nbcourse_gives_the_estimators_and_loaders_without_plotting():
    code = ("import sys, nbcourse\n"
            "from nbcourse import (BernoulliNB, CategoricalNB, GaussianNB, MultinomialNB,\n"
            "    LogisticRegression, load_weather, load_picnic, load_sms_spam_or_mini,\n"
            "    load_spambase, load_20newsgroups)\n"
            "assert load_weather().shape == (14, 5)\n"
            "print(sorted(m for m in ('matplotlib', 'ipywidgets', 'sklearn') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"  # a grading kernel does not pay for the plots


def test_api_page_is_current(repo_root):
    done = subprocess.run([sys.executable, str(repo_root / "docs" / "make_api.py"), "--check"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    page = (repo_root / "docs" / "api.md").read_text(encoding="utf-8")
    for name in ("## `nbcourse.plotting`", "### `plot_zipf(", "### `alpha_curve(",
                 "### class `CategoricalNB("):
        assert name in page
