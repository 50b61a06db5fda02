"""Plots and helpers behind notebooks 03 (Lagrangian MLE) and 04 (naive Bayes is linear).

Each picture must render to PNG and carry the labels a reader relies on; where a
picture makes a claim (the peak is at the formula, the line is w0 + w.x = 0) the test
reads the drawn data back and checks the claim.
"""
import io

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from matplotlib.colors import to_hex

from nbcourse import mle
from nbcourse.evaluation import accuracy_by_training_size
from nbcourse.linear import LogisticRegression, top_weights
from nbcourse.naive_bayes import GaussianNB, MultinomialNB
from nbcourse.plotting import (
    COLORS,
    plot_gaussian_boundaries,
    plot_gaussian_log_likelihood,
    plot_learning_curves,
    plot_simplex_log_likelihood,
    plot_top_weights,
    plot_weight_comparison,
)

WORDS = ["cash", "lunch", "win"]
COUNTS = np.array([[1, 6, 1], [3, 1, 5]])


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def png_bytes(fig) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=50)
    data = buffer.getvalue()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 2000
    return data


def legend_texts(fig) -> list[str]:
    legends = [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None] + fig.legends
    return [t.get_text() for legend in legends for t in legend.get_texts()]


@pytest.fixture
def two_gaussians():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal([0, 0], [1.0, 1.0], size=(80, 2)),
                   rng.normal([2.5, 1.0], [0.5, 2.2], size=(80, 2))])
    return X, np.repeat(["A", "B"], 80)


# ----- notebook 03 ------------------------------------------------------------------------
def test_simplex_plot_has_one_panel_per_class_with_labels_and_marks():
    closed = np.array(mle.multinomial_mle(COUNTS))
    numeric = np.array([mle.numeric_simplex_mle(n, start=[0.8, 0.1, 0.1]).theta for n in COUNTS])
    fig = plot_simplex_log_likelihood(COUNTS, WORDS, titles=["ham", "spam"],
                                      marks={"closed form": closed, "numeric optimiser": numeric})
    png_bytes(fig)
    panels = [ax for ax in fig.axes if ax.get_title()]
    assert [ax.get_title().splitlines()[0] for ax in panels] == ["ham", "spam"]
    assert "cash: 3, lunch: 1, win: 5" in panels[1].get_title()
    assert legend_texts(fig) == ["closed form", "numeric optimiser"]
    colorbars = [ax for ax in fig.axes if ax not in panels]
    assert len(colorbars) == 2
    assert all("nats" in ax.get_ylabel() for ax in colorbars)
    corner_labels = {t.get_text() for t in panels[0].texts}
    assert corner_labels == {"θ(cash) = 1", "θ(lunch) = 1", "θ(win) = 1"}
    # the marks are drawn where the closed form maps on the triangle
    spam_xy = mle.barycentric_to_cartesian(closed[1])
    drawn = [line.get_xydata()[0] for line in panels[1].lines if line.get_marker() == "o"]
    np.testing.assert_allclose(drawn[0], spam_xy)


def test_simplex_plot_single_class_and_bad_input():
    fig = plot_simplex_log_likelihood([3, 1, 5], WORDS)
    png_bytes(fig)
    assert len(fig.axes) == 2  # one triangle, one colour bar
    with pytest.raises(ValueError, match="counts must have shape"):
        plot_simplex_log_likelihood([[1, 2, 3, 4]], WORDS + ["eggs"])
    with pytest.raises(ValueError, match="words must hold 3 names"):
        plot_simplex_log_likelihood([3, 1, 5], ["cash", "win"])
    with pytest.raises(ValueError, match=r"marks\['bad'\] must have shape"):
        plot_simplex_log_likelihood(COUNTS, WORDS, marks={"bad": np.ones((3, 3)) / 3})
    with pytest.raises(TypeError, match="words must be a sequence"):
        plot_simplex_log_likelihood([3, 1, 5], "cash lunch win")


def test_gaussian_log_likelihood_plot_peaks_at_the_mle():
    x = np.array([21, 23, 23, 23, 24, 24, 26, 28])
    fig = plot_gaussian_log_likelihood(x, unit="°C", quantity="temperature")
    png_bytes(fig)
    left, right = fig.axes
    assert left.get_xlabel() == "mean μ of temperature (°C)"
    assert right.get_xlabel() == "variance σ² of temperature (°C²)"
    assert left.get_ylabel() == right.get_ylabel() == "log-likelihood (nats)"
    labels = legend_texts(fig)
    assert "maximum: sample mean = 24.00" in labels
    assert "maximum: divide by N, σ² = 4.00" in labels
    assert "divide by N − 1, σ² = 4.57" in labels
    for ax, peak in ((left, 24.0), (right, 4.0)):
        curve = ax.lines[0].get_xydata()
        step = curve[1, 0] - curve[0, 0]
        assert abs(curve[np.argmax(curve[:, 1]), 0] - peak) <= step
    with pytest.raises(ValueError, match="two different values"):
        plot_gaussian_log_likelihood([5.0, 5.0])


# ----- notebook 04 ------------------------------------------------------------------------
def test_gaussian_boundaries_draw_the_linear_rule_of_to_linear(two_gaussians):
    X, y = two_gaussians
    shared = GaussianNB(shared_variance=True).fit(X, y)
    separate = GaussianNB().fit(X, y)
    fig = plot_gaussian_boundaries(X, y, {"shared": shared, "per class": separate},
                                   feature_names=("x1 (cm)", "x2 (cm)"))
    png_bytes(fig)
    ax = fig.axes[0]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("x1 (cm)", "x2 (cm)")
    assert legend_texts(fig) == ["class A", "class B", "shared", "per class"]
    w0, w = shared.to_linear()
    contours = [c for c in ax.collections if hasattr(c, "get_paths") and
                type(c).__name__ in ("QuadContourSet", "ContourSet")]
    if not contours:  # matplotlib < 3.8 draws each contour as an unlabelled PathCollection
        contours = [c for c in ax.collections if c.get_label().startswith("_")]
    linear, quadratic = contours
    vertices = np.vstack([p.vertices for p in linear.get_paths()])
    assert len(vertices) > 10
    # every drawn point of the shared-variance boundary satisfies w0 + w.x = 0
    scale = np.abs(w) @ np.abs(vertices).max(axis=0) + abs(w0)
    assert np.max(np.abs(w0 + vertices @ w)) < 0.02 * scale
    # the per-class boundary is curved: its points are not on any one straight line
    curved = np.vstack([p.vertices for p in quadratic.get_paths()])
    centred = curved - curved.mean(axis=0)
    assert np.linalg.svd(centred, compute_uv=False)[1] > 0.1


def test_gaussian_boundaries_reject_bad_input(two_gaussians):
    X, y = two_gaussians
    model = GaussianNB().fit(X, y)
    with pytest.raises(ValueError, match="two columns"):
        plot_gaussian_boundaries(np.hstack([X, X]), y, {"m": model})
    with pytest.raises(ValueError, match="one label per row"):
        plot_gaussian_boundaries(X, y[:-1], {"m": model})
    with pytest.raises(ValueError, match="at least one label"):
        plot_gaussian_boundaries(X, y, {})
    three = GaussianNB().fit(X, np.array(["A", "B", "C"] * 53 + ["A"]))
    with pytest.raises(ValueError, match="two classes"):
        plot_gaussian_boundaries(X, y, {"m": three})


def test_top_weights_bars_are_sorted_and_coloured_by_side():
    names = np.array(["free", "prize", "lunch", "mum", "ok", "the"])
    w = np.array([2.5, 3.0, -1.5, -2.0, -0.5, 0.0])
    table = top_weights(w, names, k=2)
    fig = plot_top_weights(table, class_names=("ham", "spam"))
    png_bytes(fig)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["mum", "lunch", "free", "prize"]
    bars = ax.patches
    assert [round(b.get_width(), 6) for b in bars] == [2.5, 3.0, -2.0, -1.5]
    assert {to_hex(b.get_facecolor()) for b in bars[:2]} == {COLORS["orange"].lower()}
    assert {to_hex(b.get_facecolor()) for b in bars[2:]} == {COLORS["blue"].lower()}
    assert legend_texts(fig) == ["pushes towards spam", "pushes towards ham"]
    assert "log-odds" in ax.get_xlabel() and ax.get_ylabel() == "word"
    with pytest.raises(TypeError, match="'feature' and 'weight'"):
        plot_top_weights(pd.DataFrame({"x": [1]}))
    with pytest.raises(ValueError, match="empty"):
        plot_top_weights(table.iloc[:0])


def test_weight_comparison_names_the_extreme_words():
    rng = np.random.default_rng(1)
    names = np.array([f"w{i}" for i in range(50)], dtype=object)
    w_x, w_y = rng.normal(size=50), rng.normal(size=50)
    w_x[7], w_y[11] = 10.0, -10.0
    w_x[[3, 4]] = w_y[[3, 4]] = -9.0  # two words on one spot share a label
    fig = plot_weight_comparison(w_x, w_y, names, n_annotate=2)
    png_bytes(fig)
    ax = fig.axes[0]
    annotated = {t.get_text() for t in ax.texts}
    assert {"w7", "w11", "w3, w4"} <= annotated and len(annotated) <= 7
    assert "log-odds" in ax.get_xlabel() and "log-odds" in ax.get_ylabel()
    assert legend_texts(fig)[0] == "one word (50 in all)"
    with pytest.raises(ValueError, match="same length"):
        plot_weight_comparison(w_x, w_y[:-1], names)


# ----- learning curves --------------------------------------------------------------------
class Recorder:
    """A stand-in estimator that remembers what it was fitted on and predicts one class."""

    seen = []

    def fit(self, X, y):
        Recorder.seen.append((X.copy(), np.asarray(y).copy()))
        self.label = np.asarray(y)[0]
        return self

    def predict(self, X):
        return np.full(X.shape[0], self.label)


@pytest.fixture
def counts_split():
    rng = np.random.default_rng(3)
    y = np.array(["ham"] * 240 + ["spam"] * 60)
    X = rng.poisson(np.where(y[:, None] == "spam", [2.0, 0.2, 1.0], [0.2, 2.0, 1.0]))
    return sp.csr_matrix(X[::2]), y[::2], X[1::2], y[1::2]


def test_learning_curve_subsets_are_stratified_shared_and_reproducible(counts_split):
    X_train, y_train, X_test, y_test = counts_split
    Recorder.seen = []
    table = accuracy_by_training_size({"a": Recorder, "b": Recorder}, X_train, y_train,
                                      X_test, y_test, sizes=[10, 50], n_repeats=3, seed=4)
    assert list(table.columns) == ["model", "size", "repeat", "accuracy"]
    assert len(table) == 2 * 3 * 3  # sizes x repeats x (two models + majority class)
    assert len(Recorder.seen) == 12
    for (X_a, y_a), (X_b, y_b) in zip(Recorder.seen[::2], Recorder.seen[1::2]):
        assert (X_a != X_b).nnz == 0 and np.array_equal(y_a, y_b)  # both models, same subset
    sizes = [len(y) for _, y in Recorder.seen[::2]]
    spam = [int(np.sum(y == "spam")) for _, y in Recorder.seen[::2]]
    assert sizes == [10, 10, 10, 50, 50, 50] and spam == [2, 2, 2, 10, 10, 10]
    repeat_0, repeat_1 = Recorder.seen[0][0], Recorder.seen[2][0]
    assert (repeat_0 != repeat_1).nnz > 0  # each repeat draws a new subset
    majority = table[table.model == "majority class"].accuracy
    assert np.allclose(majority, np.mean(y_test == "ham"))
    again = accuracy_by_training_size({"a": Recorder, "b": Recorder}, X_train, y_train,
                                      X_test, y_test, sizes=[10, 50], n_repeats=3, seed=4)
    pd.testing.assert_frame_equal(table, again)


def test_learning_curve_accuracies_are_those_of_the_fitted_models(counts_split):
    X_train, y_train, X_test, y_test = counts_split
    full = len(y_train)
    table = accuracy_by_training_size({"nb": MultinomialNB, "lr": LogisticRegression},
                                      X_train, y_train, X_test, y_test, sizes=[full],
                                      n_repeats=2)
    nb = MultinomialNB().fit(X_train, y_train)
    lr = LogisticRegression().fit(X_train, y_train)
    got = table.groupby("model").accuracy.agg(["min", "max"])
    assert got.loc["nb", "min"] == got.loc["nb", "max"] == np.mean(nb.predict(X_test) == y_test)
    assert got.loc["lr", "min"] == got.loc["lr", "max"] == np.mean(lr.predict(X_test) == y_test)
    assert got.loc["nb", "min"] > np.mean(y_test == "ham")  # better than always "ham"


def test_learning_curve_rejects_bad_input(counts_split):
    X_train, y_train, X_test, y_test = counts_split
    good = dict(X_train=X_train, y_train=y_train, X_test=X_test, y_test=y_test)
    with pytest.raises(ValueError, match="between 2"):
        accuracy_by_training_size({"nb": MultinomialNB}, sizes=[1], **good)
    with pytest.raises(ValueError, match="between 2"):
        accuracy_by_training_size({"nb": MultinomialNB}, sizes=[len(y_train) + 1], **good)
    with pytest.raises(ValueError, match="non-empty dict"):
        accuracy_by_training_size({}, sizes=[10], **good)
    with pytest.raises(TypeError, match="callable"):
        accuracy_by_training_size({"nb": MultinomialNB()}, sizes=[10], **good)
    with pytest.raises(ValueError, match="two classes"):
        accuracy_by_training_size({"nb": MultinomialNB}, X_train, np.full(len(y_train), "ham"),
                                  X_test, y_test, sizes=[10])
    with pytest.raises(ValueError, match="n_repeats"):
        accuracy_by_training_size({"nb": MultinomialNB}, sizes=[10], n_repeats=0, **good)
    with pytest.raises(ValueError, match="y_test must hold one label per row"):
        accuracy_by_training_size({"nb": MultinomialNB}, X_train, y_train, X_test,
                                  y_test[:-1], sizes=[10])


def test_learning_curve_plot(counts_split):
    X_train, y_train, X_test, y_test = counts_split
    table = accuracy_by_training_size({"naive Bayes": MultinomialNB}, X_train, y_train,
                                      X_test, y_test, sizes=[4, 20, 100], n_repeats=2)
    fig = plot_learning_curves(table, xlabel="training messages (log scale)")
    png_bytes(fig)
    ax = fig.axes[0]
    assert ax.get_xscale() == "log"
    assert ax.get_title().startswith("mean over 2 random training subsets per size")
    assert ax.get_xlabel() == "training messages (log scale)"
    assert "accuracy" in ax.get_ylabel()
    assert legend_texts(fig) == ["naive Bayes", "majority class"]
    nb_line, baseline = ax.lines
    assert baseline.get_linestyle() == "--"
    means = table[table.model == "naive Bayes"].groupby("size").accuracy.mean()
    np.testing.assert_allclose(nb_line.get_ydata(), means.to_numpy())
    with pytest.raises(TypeError, match="model, size, accuracy"):
        plot_learning_curves(pd.DataFrame({"size": [1]}))


def test_gaussian_boundaries_shade_the_regions_of_the_model_asked_for(two_gaussians):
    X, y = two_gaussians
    shared = GaussianNB(shared_variance=True).fit(X, y)
    separate = GaussianNB().fit(X, y)
    models = {"shared": shared, "per class": separate}
    for label, model, style in (("shared", shared, "solid"), ("per class", separate, "dashed")):
        fig = plot_gaussian_boundaries(X, y, models, shade=label, resolution=80)
        ax = fig.axes[0]
        assert f"shaded: the class the {style} line's model predicts" in ax.get_title()
        image = ax.images[0]
        left, right, bottom, top = image.get_extent()
        xx, yy = np.meshgrid(np.linspace(left, right, 80), np.linspace(bottom, top, 80))
        predicted_b = model.predict(np.column_stack([xx.ravel(), yy.ravel()])) == "B"
        assert np.array_equal(np.asarray(image.get_array()).ravel() == 1.0, predicted_b), label
    with pytest.raises(ValueError, match="shade must be one of"):
        plot_gaussian_boundaries(X, y, models, shade="quadratic")


# ----- the prose of lessons 03 and 04, held to the outputs it quotes -----------------------

def test_lesson_03_grid_contains_the_closed_form_as_the_text_says():
    from fractions import Fraction

    from lesson_outputs import lesson, markdown_with, output_of

    notebook = lesson("03_")
    text = markdown_with(notebook, "multiples of $1/72$")
    assert "(9, 54, 9)/72" in text and "(24, 8, 40)/72" in text
    exact = mle.multinomial_mle(np.array([[1, 6, 1], [3, 1, 5]]), exact=True)
    assert [[72 * Fraction(t) for t in row] for row in exact] == [[9, 54, 9], [24, 8, 40]]
    printed = output_of(notebook, "grid = mle.simplex_grid(72, include_boundary=False)")
    assert printed.count("equals the closed form: True") == 2


def test_lesson_03_defines_the_95_percent_region_the_plot_draws():
    from scipy.stats import chi2

    from lesson_outputs import lesson, markdown_with
    from nbcourse.plotting import likelihood

    text = markdown_with(lesson("03_"), "The white line encloses")
    assert "3 nats" in text and "5.99" in text and "95 % confidence region" in text
    assert likelihood._REGION_NATS == 3.0
    assert round(chi2.ppf(0.95, df=2), 2) == 5.99 and abs(chi2.ppf(0.95, df=2) / 2 - 3) < 0.01


def test_lesson_03_zero_count_argument_is_the_kkt_one():
    from lesson_outputs import lesson, markdown, markdown_with

    notebook = lesson("03_")
    text = markdown_with(notebook, "**If a word never occurs in the class.**")
    assert "Karush–Kuhn–Tucker" in text and "$\\nu_k = \\lambda > 0$" in text
    assert "multinomial coefficient" in markdown(notebook)
    assert "$C$ the number of classes" not in markdown(notebook)


def test_lesson_04_amp_is_a_discount_not_a_free_pass():
    from lesson_outputs import lesson, markdown_with, number_after, output_of

    notebook = lesson("04_")
    weights = output_of(notebook, "telling = top_weights(w, vocabulary, k=10)")
    amp, claim = number_after(weights, "amp"), number_after(weights, "claim")
    assert (amp, claim) == (-3.38, 5.55) and claim > -amp
    text = markdown_with(notebook, "free pass")
    assert "$-3.38$" in text and "$+5.55$" in text and "not a free pass" in text


def test_lesson_04_splits_the_absent_word_part_into_data_and_smoothing():
    from lesson_outputs import lesson, markdown_with, number_after, output_of

    notebook = lesson("04_")
    printed = output_of(notebook, "absent_counted = np.sum(")
    total = number_after(printed, "absent-word part, alpha = 1")
    counted = number_after(printed, "absent-word part from the counts only:")
    smoothing_part = number_after(printed, "added by Laplace smoothing")
    never_in_spam = number_after(printed, "words never seen in spam:")
    penalty, together = number_after(printed, "so log(1 - p_spam) ="), number_after(printed, "instead of 0; together")
    assert (total, counted, smoothing_part) == (-21.7, -10.8, -10.9)
    assert abs(total - counted - smoothing_part) <= 0.1
    assert (never_in_spam, penalty, together) == (5197, -0.0017, -8.7) and "p_spam = 1/600" in printed
    assert "never seen in spam: 5,197 of 7,761;" in printed
    answer = markdown_with(notebook, "But only about half of it is what the messages say")
    for quoted in ("$-21.7$", "$-10.8$", "$-10.9$", "1/600", "-0.0017", "$-8.7$", "5,197 of 7,761 words"):
        assert quoted in answer, quoted
    assert number_after(output_of(notebook, "bernoulli = BernoulliNB().fit"), "absent-word part") == -21.6673


def test_lesson_04_quadratic_boundary_has_the_second_branch_it_describes():
    from lesson_outputs import lesson, markdown_with, output_of

    notebook = lesson("04_")
    printed = output_of(notebook, "far_right = np.array(")
    assert "variance per class : ['A', 'B', 'B', 'A', 'A']" in printed
    assert "shared variance    : ['A', 'B', 'B', 'B', 'B']" in printed
    assert "between $x_1 = 4.5$ and $5.5$" in markdown_with(notebook, "switches back to A")


def test_lesson_04_names_newton_cg_and_the_unpenalised_bias():
    from lesson_outputs import lesson, markdown_with

    notebook = lesson("04_")
    section = markdown_with(notebook, "## 7. Logistic regression, from the start")
    assert "\\ell \\le 0" in section and "no finite $w$ maximises it" in section
    assert "\\frac1C D" in section and "\\frac1C I" not in section
    assert "**Newton-CG**" in markdown_with(notebook, "does the same\nthing with")


def test_lesson_04_says_the_sms_corpus_ships_and_uses_it():
    from course_paths import SHARED_DATA
    from lesson_outputs import lesson, markdown_with, output_of

    notebook = lesson("04_")
    assert "nothing is downloaded" in markdown_with(notebook, "## 2. A real corpus: the SMS Spam Collection")
    assert (SHARED_DATA / "sms_spam" / "SMSSpamCollection").is_file()
    assert output_of(notebook, "sms = datasets.load_sms_spam_or_mini()").startswith(
        "SMS Spam Collection v.1 - 5574 messages")


def test_lesson_04_puts_the_smaller_weights_on_the_penalty_not_on_dependence():
    from lesson_outputs import lesson, markdown_with, number_after, output_of

    notebook = lesson("04_")
    printed = output_of(notebook, "for C in (1, 100, 10_000):")
    weights = [number_after(printed, f"C = {c:>6,}: w_win =") for c in (1, 100, 10_000)]
    assert weights == [1.04, 4.48, 8.66]              # weaker penalty, larger weight, past NB's 1.49
    assert weights[1] > 1.4917
    answer = markdown_with(notebook, "Their size is set\nby the penalty alone")
    assert "a line separates these seven messages perfectly" in answer
    assert "does not count \"win\" and \"cash\" as\nindependent evidence" not in answer
    question = markdown_with(notebook, "You duplicate every training message (each now appears twice)")
    assert "copy every training message twice" not in question and "every count doubles" in question


def test_lesson_04_draws_bernoulli_parameters_of_the_digits_as_pictures():
    from lesson_outputs import lesson, markdown_with, number_after, output_of

    from nbcourse.datasets import load_digits
    from nbcourse.evaluation import accuracy, stratified_split
    from nbcourse.naive_bayes import BernoulliNB

    notebook = lesson("04_")
    printed = output_of(notebook, "digit_model = BernoulliNB()")
    assert number_after(printed, "test accuracy") == 0.913 and "on 450 images" in printed
    assert number_after(printed, "always the most common training digit:") == 0.102
    assert "majority_accuracy(digit[fit_rows], digit[test_rows])" in next(
        c.source for c in notebook.cells if c.cell_type == "code" and "digit_model = BernoulliNB()" in c.source)
    # the picture is the model's P(pixel on | digit): recompute it and look at two digits
    digits = load_digits()
    on = (digits.drop(columns="label").to_numpy() >= 8).astype(int)
    digit = digits["label"].to_numpy()
    fit_rows, test_rows = stratified_split(digit, sizes=(0.75, 0.25), seed=0)
    model = BernoulliNB().fit(on[fit_rows], digit[fit_rows])
    assert round(accuracy(digit[test_rows], model.predict(on[test_rows])), 3) == 0.913
    p = np.exp(model.feature_log_prob_).reshape(10, 8, 8)
    assert p[0, 3:5, 3:5].max() < 0.2 < 0.8 < p[0, 1:7, 1:7].max()    # "a ring with an empty middle"
    assert p[1][:, 3:5].mean() > 2 * p[1][:, [0, 1, 6, 7]].mean()       # "a vertical bar"
    text = markdown_with(notebook, "*is* the model's knowledge")
    assert "names 0.913 of the 450 test images correctly" in text
    assert "most common among the training images would\nget 0.102 on the test images" in text
    # the answer to the Predict question is folded away
    answer = text.split("<details><summary>Answer</summary>")[1].split("</details>")[0]
    assert "The 1 is a vertical bar, the 0 a ring with an empty middle." in answer
    assert "digits" in markdown_with(notebook, "**What you will learn**")
    assert "handwritten digits" in markdown_with(notebook, "## Recap")
    cell = next(c for c in notebook.cells if c.cell_type == "code" and "plot_class_images(" in c.source)
    assert "handwritten digit" in cell.metadata["mystnb"]["image"]["alt"]
