"""Every naive Bayes estimator's docstring has an example, and the example is true.

pytest does not collect doctests here (pyproject has no ``--doctest-modules``, and its
testpaths leave out ``nbcourse/``), so this test runs them, module by module.
"""
import doctest
import importlib

import pytest

import nbcourse.naive_bayes as naive_bayes

MODULES = ["multinomial", "complement", "bernoulli", "gaussian", "categorical",
           "tree_augmented"]
ESTIMATORS = ["MultinomialNB", "ComplementNB", "BernoulliNB", "GaussianNB", "CategoricalNB",
              "TreeAugmentedNB"]


def test_the_lists_above_hold_every_estimator_the_package_exports():
    """A new estimator is held to the same rules: it must be added above (and its module)."""
    exported = {name for name in naive_bayes.__all__
                if isinstance(getattr(naive_bayes, name), type)}
    assert exported == set(ESTIMATORS)
    assert {getattr(naive_bayes, name).__module__.rpartition(".")[2]
            for name in ESTIMATORS} == set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_the_examples_of_each_estimator_module_run_and_print_what_they_say(name):
    module = importlib.import_module(f"nbcourse.naive_bayes.{name}")
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert result.attempted > 0, f"{name} has no example"
    assert result.failed == 0


@pytest.mark.parametrize("name", ESTIMATORS)
def test_every_estimator_docstring_is_numpydoc_with_one_example(name):
    doc = getattr(naive_bayes, name).__doc__
    for section in ("Parameters\n    ----------", "Attributes\n    ----------",
                    "Examples\n    --------"):
        assert doc.count(section) == 1, f"{name}: {section.splitlines()[0]}"
    assert f"{name}(" in doc.split("Examples")[1]


@pytest.mark.parametrize("name", ESTIMATORS)
def test_hyper_parameters_are_keyword_only_as_in_scikit_learn(name):
    estimator = getattr(naive_bayes, name)
    with pytest.raises(TypeError, match="positional"):
        estimator(0.5)
    assert estimator().get_params() == estimator(**estimator().get_params()).get_params()
