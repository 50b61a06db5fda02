"""The estimators outside naive_bayes (logistic regression, the text transformers, the
pipeline and the calibrated classifier) are documented like the naive Bayes ones:
numpydoc sections and one example that runs and prints what it says.

pytest does not collect doctests (see tests/test_naive_bayes_doctests.py), so this test
runs them, module by module.
"""
import doctest
import importlib

import pytest

ESTIMATORS = {"linear": ["LogisticRegression"],
              "text": ["BagOfWords", "TfidfTransformer", "KeepSeenWords"],
              "pipeline": ["Pipeline"],
              "calibration": ["CalibratedClassifier"]}
CLASSES = [(module, name) for module, names in ESTIMATORS.items() for name in names]


@pytest.mark.parametrize("module", sorted(ESTIMATORS))
def test_the_examples_of_each_module_run_and_print_what_they_say(module):
    result = doctest.testmod(importlib.import_module(f"nbcourse.{module}"),
                             optionflags=doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert result.attempted > 0, f"{module} has no example"
    assert result.failed == 0


@pytest.mark.parametrize("module, name", CLASSES)
def test_every_docstring_is_numpydoc_with_one_example(module, name):
    doc = getattr(importlib.import_module(f"nbcourse.{module}"), name).__doc__
    for section in ("Parameters\n    ----------", "Attributes\n    ----------",
                    "Examples\n    --------"):
        assert doc.count(section) == 1, f"{name}: {section.splitlines()[0]}"
    assert f"{name}(" in doc.split("Examples")[1]
    parameters = doc.split("Parameters\n    ----------")[1].split("\n\n")[0]
    for line in parameters.splitlines():  # "name : type": every parameter has its type
        if line.startswith("    ") and not line.startswith("        ") and line.strip() \
                and not line.strip().startswith("None"):
            assert " : " in line, f"{name}: {line.strip()!r} has no type"
