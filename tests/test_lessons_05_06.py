"""Notebooks 05 (spam filter) and 06 (Gaussian naive Bayes): the functions behind them.

Scores, splits, costs and calibration are checked against scikit-learn; the alpha slider
against what nbcourse computes for the same alpha; the claims the notebooks make (the
present-words shortcut, duplicated features, Zipf's slope) against their algebra; the
Spambase loader against the published file; and notebooks 05 and 06 against a machine
without the real corpora.
"""
import subprocess
import sys

import nbformat
import numpy as np
import pytest
from nbclient import NotebookClient

from course_paths import REPO, SHARED_DATA
from nbcourse import datasets
from nbcourse.naive_bayes import BernoulliNB, GaussianNB, MultinomialNB
from nbcourse.text import BagOfWords


# ----- what notebook 05 claims ---------------------------------------------------------------

def test_present_words_only_is_bernoulli_without_the_absent_word_factors():
    texts = ["win cash now", "cash prize win win", "lunch at noon", "see you at lunch", "noon cash"]
    y = np.array(["spam", "spam", "ham", "ham", "ham"])
    X = BagOfWords().fit_transform(texts)
    model = BernoulliNB(alpha=1.0).fit(X, y)
    present = (X > 0).astype(float).toarray()
    shortcut = present @ model.feature_log_prob_.T + model.class_log_prior_
    # by hand: p = (documents of the class containing the word + 1) / (documents of the class + 2)
    for c, label in enumerate(model.classes_):
        docs = present[y == label]
        p = (docs.sum(axis=0) + 1) / (len(docs) + 2)
        by_hand = np.log(np.mean(y == label)) + present @ np.log(p)
        assert np.allclose(shortcut[:, c], by_hand)
        absent = (1 - present) @ np.log(1 - p)
        assert np.allclose(model.predict_joint_log_proba(X)[:, c], by_hand + absent)


def test_long_message_product_underflows_but_log_space_does_not(sms_split):
    X_train, y_train, _, _ = sms_split
    model = MultinomialNB(alpha=1.0).fit(X_train, y_train)
    longest = int(np.argmax(np.asarray(X_train.sum(axis=1)).ravel()))
    row = X_train[longest].toarray()[0]
    factors = np.repeat(np.exp(model.feature_log_prob_), row.astype(int), axis=1)
    assert np.all(np.prod(factors, axis=1) == 0.0)
    proba = model.predict_proba(X_train[[longest]])
    assert np.all(np.isfinite(proba)) and proba.sum() == pytest.approx(1.0)


# ----- what notebook 06 claims ---------------------------------------------------------------

def test_copying_a_feature_m_times_multiplies_its_log_likelihood_ratio(spambase):
    y = spambase["label"].to_numpy()
    x = np.log10(spambase[["capital_run_length_longest"]].to_numpy())
    once = GaussianNB(var_smoothing=0).fit(x, y)
    five = GaussianNB(var_smoothing=0).fit(np.tile(x, 5), y)
    prior = once.class_log_prior_[1] - once.class_log_prior_[0]
    jll1, jll5 = once.predict_joint_log_proba(x), five.predict_joint_log_proba(np.tile(x, 5))
    assert np.allclose((jll5[:, 1] - jll5[:, 0]) - prior, 5 * ((jll1[:, 1] - jll1[:, 0]) - prior))
    confident = lambda m, X: np.mean(m.predict_proba(X).max(axis=1) > 0.99)
    assert confident(five, np.tile(x, 5)) > 10 * confident(once, x)
    # Only the e-mails near the boundary, where the prior matters, change side, and they
    # are close to a coin flip either way: accuracy barely moves.
    assert np.mean(once.predict(x) == five.predict(np.tile(x, 5))) > 0.85
    assert abs(np.mean(once.predict(x) == y) - np.mean(five.predict(np.tile(x, 5)) == y)) < 0.01


# ----- Spambase loader ---------------------------------------------------------------------

def test_load_spambase_reads_the_published_file(spambase):
    assert spambase.shape == (4601, 58)
    assert spambase["label"].value_counts().to_dict() == {"ham": 2788, "spam": 1813}
    assert list(spambase.columns[:2]) == ["word_freq_make", "word_freq_address"]
    assert list(spambase.columns[-4:-1]) == ["capital_run_length_average", "capital_run_length_longest",
                                             "capital_run_length_total"]
    assert spambase.iloc[0]["capital_run_length_total"] == 278
    assert spambase.iloc[0]["label"] == "spam"


def test_load_spambase_finds_the_file_through_nbcourse_data(monkeypatch, spambase):
    monkeypatch.setenv("NBCOURSE_DATA", str(SHARED_DATA))
    assert datasets.load_spambase().equals(spambase)
    assert datasets.load_spambase(SHARED_DATA / "spambase" / "spambase.data").equals(spambase)


def test_load_spambase_without_the_file_and_without_download_says_how_to_get_it(monkeypatch, tmp_path):
    monkeypatch.delenv("NBCOURSE_DATA", raising=False)
    (tmp_path / "weather.csv").write_bytes((SHARED_DATA / "weather.csv").read_bytes())
    monkeypatch.setenv("NBCOURSE_SHIPPED_DATA", str(tmp_path))  # an install without shipped Spambase
    with pytest.raises(datasets.CorpusNotFoundError, match="NBCOURSE_DATA"):
        datasets.load_spambase(download=False, cache_dir=tmp_path)


def test_load_spambase_warns_on_a_modified_copy_and_rejects_a_wrong_format(tmp_path):
    raw = (SHARED_DATA / "spambase" / "spambase.data").read_text()
    changed = tmp_path / "spambase.data"
    changed.write_text(raw[:-1])  # the same rows without the final newline
    with pytest.warns(UserWarning, match="not byte-identical"):
        assert len(datasets.load_spambase(changed)) == 4601
    broken = tmp_path / "broken.data"
    broken.write_text("1,2,3\n")
    with pytest.raises(ValueError, match="not in Spambase format"):
        datasets.load_spambase(broken)


# ----- notebook 05 on a fresh machine, offline -----------------------------------------------

def test_notebook_05_runs_offline_on_the_mini_corpus(monkeypatch, tmp_path):
    monkeypatch.delenv("NBCOURSE_DATA", raising=False)
    tables = tmp_path / "tables"  # an install without the shipped SMS Spam Collection
    tables.mkdir()
    for name in ("weather.csv", "picnic.csv", "sms_mini.tsv"):
        (tables / name).write_bytes((SHARED_DATA / name).read_bytes())
    monkeypatch.setenv("NBCOURSE_SHIPPED_DATA", str(tables))
    monkeypatch.setenv("NBCOURSE_CACHE", str(tmp_path / "empty-cache"))
    notebook = nbformat.read(REPO / "notebooks" / "05_spam_filter.ipynb", as_version=4)
    NotebookClient(notebook, timeout=120, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    first = "".join(o.get("text", "") for o in notebook.cells[3].outputs)
    assert "not on this machine" in first and "NBCOURSE_DATA" in first
    assert "80 messages" in first
    _assert_clean_run(notebook, expected_warning="UserWarning: The SMS Spam Collection is not on this machine")


def _assert_clean_run(notebook, expected_warning=None):
    """No error and nothing on stderr in any cell (but the expected warning): a student sees only the lesson."""
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert not [o.text for o in outputs if o.output_type == "stream" and o.name == "stderr"
                and not (expected_warning and expected_warning in o.text)]


def test_notebook_06_skips_only_the_newsgroups_section_without_that_corpus(monkeypatch, tmp_path):
    # Spambase is there (through NBCOURSE_DATA), 20 Newsgroups is not, and the network is
    # unreachable: a proxy on a closed local port makes the download fail at once.
    data = tmp_path / "data"
    data.mkdir()
    (data / "spambase").symlink_to(SHARED_DATA / "spambase", target_is_directory=True)
    monkeypatch.setenv("NBCOURSE_DATA", str(data))
    monkeypatch.setenv("NBCOURSE_CACHE", str(tmp_path / "empty-cache"))
    monkeypatch.delenv("NBCOURSE_MIRROR", raising=False)
    for name in ("no_proxy", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
    for name in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY"):
        monkeypatch.setenv(name, "http://127.0.0.1:9")
    notebook = nbformat.read(REPO / "notebooks" / "06_gaussian_naive_bayes.ipynb", as_version=4)
    NotebookClient(notebook, timeout=120, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    _assert_clean_run(notebook)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    loader = next(i for i, cell in enumerate(code) if 'load_20newsgroups("train")' in cell.source)
    message = "".join(o.get("text", "") for o in code[loader].outputs)
    assert "Skipping section 5" in message and "NBCOURSE_DATA" in message
    assert all(not cell.outputs for cell in code[loader + 1:])
    # the Spambase sections before it ran as usual, figures included
    pictures = [o for cell in code[:loader] for o in cell.outputs if "image/png" in o.get("data", {})]
    assert len(pictures) == 3
    # and the failed download left nothing half-written behind for a later run to trust
    assert not [p for p in (tmp_path / "empty-cache").rglob("*") if p.is_file()]


# ----- benchmarks ----------------------------------------------------------------------------

def test_benchmark_script_documents_itself():
    completed = subprocess.run([sys.executable, str(REPO / "benchmarks" / "run.py"), "--help"],
                               capture_output=True, text=True, check=True)
    assert "--repeats" in completed.stdout and "results.md" in completed.stdout
    assert (REPO / "benchmarks" / "README.md").is_file()
    assert "python benchmarks/run.py" in (REPO / "benchmarks" / "README.md").read_text()
