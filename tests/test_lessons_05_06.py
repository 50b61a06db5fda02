"""Notebooks 05 (spam filter) and 06 (Gaussian naive Bayes): the functions behind them.

Scores, splits, costs and calibration are checked against scikit-learn; the alpha slider
against what nbcourse computes for the same alpha; the claims the notebooks make (the
present-words shortcut, duplicated features, Zipf's slope) against their algebra; the
Spambase loader against the published file; and notebooks 05 and 06 against a machine
without the real corpora.
"""
import io
import re
import subprocess
import sys

import matplotlib.pyplot as plt
import nbformat
import numpy as np
import pandas as pd
import pytest
from nbclient import NotebookClient
from PIL import Image
from scipy import stats
from sklearn import metrics as skm
from sklearn.calibration import calibration_curve
from sklearn.naive_bayes import MultinomialNB as SkMultinomialNB

from conftest import REPO, SHARED_DATA
from nbcourse import datasets, evaluation, plotting, widgets
from nbcourse.naive_bayes import BernoulliNB, GaussianNB, MultinomialNB
from nbcourse.text import BagOfWords

#: The slider's printed line; the browser test parses it with this pattern.
ALPHA_LINE = re.compile(
    r"^alpha = (?P<alpha>[0-9.e+-]+) -> validation accuracy (?P<accuracy>[01]\.\d{4}), "
    r"precision (?P<precision>[01]\.\d{4}), recall (?P<recall>[01]\.\d{4})$")


# ----- shared data -----------------------------------------------------------------------

@pytest.fixture(scope="module")
def sms_split():
    """Notebook 05's split and matrices on the real SMS Spam Collection."""
    sms = datasets.load_sms_spam(SHARED_DATA / "sms_spam")
    texts, y = sms["text"].tolist(), sms["label"].to_numpy()
    train, val, test = evaluation.stratified_split(y, sizes=(0.8, 0.1, 0.1), seed=0)
    bag = BagOfWords()
    X_train = bag.fit_transform([texts[i] for i in train])
    X_val = bag.transform([texts[i] for i in val])
    return X_train, y[train], X_val, y[val]


@pytest.fixture(scope="module")
def spambase():
    return datasets.load_spambase(SHARED_DATA / "spambase")


# ----- stratified_split ------------------------------------------------------------------

def test_stratified_split_keeps_class_shares_and_covers_every_row_once():
    y = np.array(["spam"] * 747 + ["ham"] * 4827)
    parts = evaluation.stratified_split(y, sizes=(0.8, 0.1, 0.1), seed=0)
    joined = np.concatenate(parts)
    assert sorted(joined.tolist()) == list(range(len(y)))
    # spam: 747 cut at rint(597.6), rint(672.3) -> 598/74/75; ham: 4827 -> 3862/482/483
    assert [len(p) for p in parts] == [4460, 556, 558]
    for part in parts:
        assert abs(np.mean(y[part] == "spam") - 747 / 5574) < 0.005
    again = evaluation.stratified_split(y, sizes=(0.8, 0.1, 0.1), seed=0)
    assert all(np.array_equal(a, b) for a, b in zip(parts, again))
    other = evaluation.stratified_split(y, sizes=(0.8, 0.1, 0.1), seed=1)
    assert not np.array_equal(parts[1], other[1])


def test_stratified_split_part_sizes_are_rounded_per_class():
    y = np.array([0] * 10 + [1] * 30)
    train, test = evaluation.stratified_split(y, sizes=(0.75, 0.25), seed=3)
    # training takes rint(7.5) = 8 and rint(22.5) = 22 rows (numpy rounds half to even)
    assert (np.sum(y[test] == 0), np.sum(y[test] == 1)) == (2, 8)
    assert len(train) + len(test) == 40


@pytest.mark.parametrize("sizes, message", [
    ((0.8, 0.3), "adding up to 1"),
    ((1.0,), "at least two"),
    ((0.5, -0.5, 1.0), "positive"),
])
def test_stratified_split_rejects_bad_sizes(sizes, message):
    with pytest.raises(ValueError, match=message):
        evaluation.stratified_split(np.arange(10) % 2, sizes=sizes)


def test_stratified_split_refuses_an_empty_part():
    with pytest.raises(ValueError, match="empty"):
        evaluation.stratified_split(np.array([0, 0, 1, 1]), sizes=(0.9, 0.1))


# ----- scores ------------------------------------------------------------------------------

def test_binary_scores_match_scikit_learn():
    rng = np.random.default_rng(0)
    y_true = rng.choice(["ham", "spam"], size=400, p=[0.8, 0.2])
    y_pred = np.where(rng.random(400) < 0.85, y_true, rng.choice(["ham", "spam"], size=400))
    scores = evaluation.binary_scores(y_true, y_pred, "spam")
    assert scores["accuracy"] == pytest.approx(skm.accuracy_score(y_true, y_pred))
    assert scores["precision"] == pytest.approx(skm.precision_score(y_true, y_pred, pos_label="spam"))
    assert scores["recall"] == pytest.approx(skm.recall_score(y_true, y_pred, pos_label="spam"))


def test_precision_is_zero_not_nan_when_nothing_is_flagged():
    scores = evaluation.binary_scores(["spam", "ham", "ham"], ["ham", "ham", "ham"], "spam")
    assert scores == {"accuracy": 2 / 3, "precision": 0.0, "recall": 0.0}


def test_binary_scores_errors_name_the_problem():
    with pytest.raises(ValueError, match="does not occur"):
        evaluation.binary_scores(["ham", "ham"], ["ham", "spam"], "spam")
    with pytest.raises(ValueError, match="same samples"):
        evaluation.binary_scores(["ham", "spam"], ["ham"], "spam")


def test_confusion_matrix_matches_scikit_learn_rows_true_columns_predicted():
    rng = np.random.default_rng(1)
    y_true, y_pred = rng.integers(0, 3, 200), rng.integers(0, 3, 200)
    table = evaluation.confusion_matrix(y_true, y_pred, labels=[0, 1, 2])
    assert np.array_equal(table.to_numpy(), skm.confusion_matrix(y_true, y_pred, labels=[0, 1, 2]))
    assert table.index.name == "true" and table.columns.name == "predicted"
    with pytest.raises(ValueError, match=r"labels \[2\]"):
        evaluation.confusion_matrix(y_true, y_pred, labels=[0, 1])


# ----- decision theory -----------------------------------------------------------------------

# rows: the true class, columns: the decision (the orientation of a confusion matrix)
COST = pd.DataFrame([[0, 100], [10, 0]], index=["ham", "spam"], columns=["ham", "spam"])


def test_expected_cost_rule_flags_spam_only_above_ten_elevenths():
    p_spam = np.array([0.5, 0.9, 0.909, 0.9091, 0.95, 1.0])
    proba = np.column_stack([1 - p_spam, p_spam])
    decided = evaluation.expected_cost_decision(proba, ["ham", "spam"], COST)
    assert decided.tolist() == ["ham", "ham", "ham", "spam", "spam", "spam"]


def test_zero_one_cost_is_the_most_probable_class():
    rng = np.random.default_rng(2)
    proba = rng.dirichlet([1, 1, 1], size=100)
    classes = np.array(["a", "b", "c"])
    decided = evaluation.expected_cost_decision(proba, classes, 1 - np.eye(3))
    assert np.array_equal(decided, classes[np.argmax(proba, axis=1)])


def test_total_cost_adds_up_the_cells():
    y_true = ["ham", "ham", "spam", "spam", "spam"]
    y_pred = ["spam", "ham", "ham", "ham", "spam"]
    assert evaluation.total_cost(y_true, y_pred, COST, ["ham", "spam"]) == 100 + 2 * 10


def test_cost_table_must_fit_the_classes():
    with pytest.raises(ValueError, match="2 x 2"):
        evaluation.expected_cost_decision(np.array([[0.5, 0.5]]), ["ham", "spam"], np.eye(3))
    with pytest.raises(ValueError, match="missing"):
        evaluation.total_cost(["ham"], ["ham"], COST.drop(index="spam"), ["ham", "spam"])


# ----- calibration -----------------------------------------------------------------------

def test_reliability_table_matches_scikit_learn_calibration_curve():
    rng = np.random.default_rng(3)
    p = rng.random(2000)
    y = np.where(rng.random(2000) < p ** 2, "spam", "ham")
    table = evaluation.reliability_table(y, p, "spam", n_bins=10)
    observed, predicted = calibration_curve(y == "spam", p, n_bins=10)
    assert np.allclose(table["observed"], observed)
    assert np.allclose(table["mean_predicted"], predicted)
    assert table["count"].sum() == 2000


def test_reliability_table_puts_zero_and_one_in_the_end_bins():
    table = evaluation.reliability_table(np.array([0, 1, 1]), np.array([0.0, 1.0, 1.0]), 1, n_bins=4)
    assert table[["bin_low", "bin_high", "count"]].to_numpy().tolist() == [[0.0, 0.25, 1], [0.75, 1.0, 2]]


def test_log_loss_matches_scikit_learn_and_is_infinite_for_a_certain_mistake():
    rng = np.random.default_rng(4)
    proba = rng.dirichlet([2, 2], size=50)
    y = rng.choice(["ham", "spam"], size=50)
    assert evaluation.log_loss(y, proba, ["ham", "spam"]) == pytest.approx(
        skm.log_loss(y, proba, labels=["ham", "spam"]))
    assert evaluation.log_loss(["spam"], np.array([[1.0, 0.0]]), ["ham", "spam"]) == np.inf


# ----- the alpha slider of notebook 05 -------------------------------------------------------

def test_spam_validation_scores_equal_scikit_learn_on_the_same_matrices(sms_split):
    X_train, y_train, X_val, y_val = sms_split
    for alpha in (0.01, 1.0, 10.0):
        ours = widgets.spam_validation_scores(alpha, X_train, y_train, X_val, y_val)
        predicted = SkMultinomialNB(alpha=alpha).fit(X_train, y_train).predict(X_val)
        assert ours["accuracy"] == skm.accuracy_score(y_val, predicted)
        assert ours["precision"] == skm.precision_score(y_val, predicted, pos_label="spam")
        assert ours["recall"] == skm.recall_score(y_val, predicted, pos_label="spam")


def test_moving_the_slider_prints_what_nbcourse_computes_and_redraws(sms_split):
    explorer = widgets.spam_alpha_slider(*sms_split, value=1.0)
    assert "nbcourse-spam-alpha" in explorer.slider._dom_classes
    assert "nbcourse-spam-alpha-readout" in explorer.readout._dom_classes
    assert explorer.slider.description
    lines, pictures = set(), set()
    for alpha in (0.01, 0.2, 1.0, 5.0, 10.0):
        explorer.slider.value = alpha
        expected = widgets.format_alpha_line(alpha, widgets.spam_validation_scores(alpha, *sms_split))
        assert explorer.line == expected
        match = ALPHA_LINE.match(explorer.line)
        assert match and float(match["alpha"]) == alpha
        model = MultinomialNB(alpha=float(match["alpha"])).fit(sms_split[0], sms_split[1])
        scores = evaluation.binary_scores(sms_split[3], model.predict(sms_split[2]), "spam")
        assert float(match["recall"]) == round(scores["recall"], 4)
        lines.add(explorer.line)
        pictures.add(explorer.image.value)
        assert Image.open(io.BytesIO(explorer.image.value)).format == "PNG"
    assert len(lines) == 5 and len(pictures) == 5  # numbers and picture both change


def test_alpha_line_format_is_the_documented_one():
    line = widgets.format_alpha_line(0.1, {"accuracy": 0.98123, "precision": 0.97006, "recall": 0.88889})
    assert line == "alpha = 0.1 -> validation accuracy 0.9812, precision 0.9701, recall 0.8889"
    assert ALPHA_LINE.match(line)


def test_slider_refuses_a_value_it_does_not_offer(sms_split):
    with pytest.raises(ValueError, match="one of the slider's alphas"):
        widgets.spam_alpha_slider(*sms_split, value=0.3)


def test_alpha_curve_plot_redraws_only_what_moves():
    curve = pd.DataFrame({"alpha": [0.1, 1.0, 10.0], "accuracy": [0.9, 0.95, 0.8],
                          "precision": [0.8, 0.9, 1.0], "recall": [0.9, 0.85, 0.5]})
    plot = plotting.AlphaCurvePlot(curve, 1.0, curve.iloc[1])
    first = plot.to_png()
    second = plot.update(10.0, curve.iloc[2]).to_png()
    back = plot.update(1.0, curve.iloc[1]).to_png()
    assert first != second and first == back  # nothing of the old marker is left behind
    with pytest.raises(ValueError, match="alpha > 0"):
        plotting.AlphaCurvePlot(curve.assign(alpha=[0.0, 1.0, 2.0]), 1.0, curve.iloc[1])


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


# ----- Zipf's law ----------------------------------------------------------------------------

def test_zipf_slope_is_the_least_squares_slope_over_the_chosen_ranks(sms_split):
    from nbcourse.text import zipf_table
    X_train = sms_split[0]
    table = zipf_table(X_train, np.array([f"w{i}" for i in range(X_train.shape[1])], dtype=object))
    chosen = table[(table["rank"] >= 10) & (table["rank"] <= 1000)]
    reference = stats.linregress(np.log10(chosen["rank"]), np.log10(chosen["count"])).slope
    assert plotting.zipf_slope(table, ranks=(10, 1000)) == pytest.approx(reference)
    # what notebook 05 says: close to -1 in the middle, much flatter at the top
    assert -1.1 < plotting.zipf_slope(table, ranks=(10, 1000)) < -0.95
    assert plotting.zipf_slope(table, ranks=(1, 10)) > -0.7


def test_zipf_slope_of_an_exact_power_law_and_its_errors():
    ranks = np.arange(1, 51)
    table = pd.DataFrame({"word": [f"w{r}" for r in ranks], "count": 1000.0 / ranks ** 1.5, "rank": ranks})
    assert plotting.zipf_slope(table, ranks=(1, 50)) == pytest.approx(-1.5)
    assert plotting.zipf_slope(table, ranks=(40, 5000)) == pytest.approx(-1.5)  # past the end: ignored
    for bad in [(0, 10), (10, 10), (1.5, 10), (True, 10), (1, 2, 3)]:
        with pytest.raises(ValueError, match="two whole numbers"):
            plotting.zipf_slope(table, ranks=bad)
    with pytest.raises(ValueError, match="at least two"):
        plotting.zipf_slope(table, ranks=(50, 60))


def test_zipf_plot_shows_the_fitted_slope_in_its_legend():
    ranks = np.arange(1, 2001)
    table = pd.DataFrame({"word": [f"w{r}" for r in ranks], "count": np.floor(5000 / ranks), "rank": ranks})
    fig = plotting.plot_zipf(table)
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    slope = plotting.zipf_slope(table, ranks=(10, 1000))
    assert f"slope {slope:.2f}" in legend[-1] and "10–1,000" in legend[-1]
    plt.close(fig)
    fig = plotting.plot_zipf(table, fit_ranks=None)
    assert len(fig.axes[0].get_legend().get_texts()) == 2
    plt.close(fig)


# ----- plots -------------------------------------------------------------------------------

def _labelled(fig):
    assert all(ax.get_ylabel() for ax in fig.axes)
    assert fig.axes[-1].get_xlabel()  # panels stacked on a shared x axis label only the bottom one
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    plt.close(fig)
    return buffer.getvalue()


def test_the_lesson_plots_render_with_labels(sms_split, spambase):
    X_train, y_train, _, _ = sms_split
    from nbcourse.text import zipf_table
    words = np.array([f"w{i}" for i in range(X_train.shape[1])], dtype=object)
    assert _labelled(plotting.plot_zipf(zipf_table(X_train, words)))
    logs = {"ham": np.log(np.full(400, 0.01)), "spam": np.log(np.full(400, 0.02))}
    fig = plotting.plot_underflow(logs)
    assert any("product = 0.0" in t.get_text() for t in fig.axes[0].texts)
    assert _labelled(fig)
    table = evaluation.confusion_matrix(["ham", "spam", "spam"], ["ham", "ham", "spam"])
    fig = plotting.plot_confusion_matrices({"before": table, "after": table}, cost=COST)
    assert "total cost 10" in fig.axes[0].get_title()
    assert _labelled(fig)
    x = np.log10(spambase[["capital_run_length_longest"]].to_numpy())
    model = GaussianNB().fit(x, spambase["label"])
    assert _labelled(plotting.plot_class_densities(x[:, 0], spambase["label"].to_numpy(), model))
    p = model.predict_proba(x)[:, 1]
    rel = evaluation.reliability_table(spambase["label"], p, "spam")
    assert _labelled(plotting.plot_reliability({"one feature": rel}, positive="spam"))


def test_plot_inputs_are_checked():
    with pytest.raises(TypeError, match="zipf_table"):
        plotting.plot_zipf(pd.DataFrame({"x": [1]}))
    with pytest.raises(ValueError, match="finite logs"):
        plotting.plot_underflow({"ham": [np.nan]})
    with pytest.raises(TypeError, match="reliability_table"):
        plotting.plot_reliability({"model": pd.DataFrame({"x": [1]})})
    with pytest.raises(ValueError, match="same length"):
        plotting.plot_class_densities([1.0, 2.0], ["a"], GaussianNB())


# ----- notebook 05 on a fresh machine, offline -----------------------------------------------

def test_notebook_05_runs_offline_on_the_mini_corpus(monkeypatch, tmp_path):
    monkeypatch.delenv("NBCOURSE_DATA", raising=False)
    monkeypatch.setenv("NBCOURSE_CACHE", str(tmp_path / "empty-cache"))
    notebook = nbformat.read(REPO / "notebooks" / "05_spam_filter.ipynb", as_version=4)
    NotebookClient(notebook, timeout=120, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    first = "".join(o.get("text", "") for o in notebook.cells[3].outputs)
    assert "not on this machine" in first and "NBCOURSE_DATA" in first
    assert "80 messages" in first
    _assert_clean_run(notebook)


def _assert_clean_run(notebook):
    """No error and nothing on stderr in any cell: a student sees only the lesson."""
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert not [o.text for o in outputs if o.output_type == "stream" and o.name == "stderr"]


def test_notebook_06_skips_only_the_newsgroups_section_without_that_corpus(monkeypatch, tmp_path):
    # Spambase is there (through NBCOURSE_DATA), 20 Newsgroups is not, and the network is
    # unreachable: a proxy on a closed local port makes the download fail at once.
    data = tmp_path / "data"
    data.mkdir()
    (data / "spambase").symlink_to(SHARED_DATA / "spambase", target_is_directory=True)
    monkeypatch.setenv("NBCOURSE_DATA", str(data))
    monkeypatch.setenv("NBCOURSE_CACHE", str(tmp_path / "empty-cache"))
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
