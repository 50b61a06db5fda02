"""load_20newsgroups_if_available: the lessons' one way of running on without 20 Newsgroups."""
import pytest

from nbcourse import datasets
from nbcourse.datasets import _twenty_newsgroups


def test_without_the_corpus_it_says_why_and_what_the_lesson_does_instead(monkeypatch, capsys):
    def missing(subset, **settings):
        raise datasets.CorpusNotFoundError("20 Newsgroups is not in the cache; set NBCOURSE_MIRROR")

    monkeypatch.setattr(_twenty_newsgroups, "load_20newsgroups", missing)
    assert datasets.load_20newsgroups_if_available("test", otherwise="section 3 uses the SMS messages") is None
    printed = capsys.readouterr().out
    assert printed.startswith("20 Newsgroups is not available, so section 3 uses the SMS messages; "
                              "the numbers will differ from the text.\n")
    assert "NBCOURSE_MIRROR" in printed


def test_with_the_corpus_it_returns_the_loaders_result_and_prints_nothing(monkeypatch, capsys):
    def loader(subset, load_content=True):
        return f"corpus {subset}" + ("" if load_content else ", listed")

    monkeypatch.setattr(_twenty_newsgroups, "load_20newsgroups", loader)
    assert datasets.load_20newsgroups_if_available("test", otherwise="x") == "corpus test"
    assert datasets.load_20newsgroups_if_available("test", otherwise="x", load_content=False) == \
        "corpus test, listed"
    assert capsys.readouterr().out == ""


def test_a_wrong_subset_is_an_error_not_a_fallback():
    with pytest.raises(ValueError, match="subset"):
        datasets.load_20newsgroups_if_available("dev", otherwise="x")
    with pytest.raises(TypeError, match="otherwise"):
        datasets.load_20newsgroups_if_available("train", otherwise="")
