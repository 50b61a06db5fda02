"""nbcourse.plotting: every lesson plot renders with labels and legends, checks its input,
and the live plots redraw what a slider moves (and nothing else)."""
import io
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from nbcourse import evaluation, plotting, smoothing_strength
from nbcourse.naive_bayes import GaussianNB
from nbcourse.text import zipf_slope

# rows: the true class, columns: the decision (like a confusion matrix)
COST = pd.DataFrame([[0, 100], [10, 0]], index=["ham", "spam"], columns=["ham", "spam"])


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


def test_zipf_plot_shows_the_fitted_slope_in_its_legend():
    ranks = np.arange(1, 2001)
    table = pd.DataFrame({"word": [f"w{r}" for r in ranks], "count": np.floor(5000 / ranks), "rank": ranks})
    fig = plotting.plot_zipf(table)
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    slope = zipf_slope(table, ranks=(10, 1000))
    assert f"slope {slope:.2f}" in legend[-1] and "10–1,000" in legend[-1]
    fig = plotting.plot_zipf(table, fit_ranks=None)
    assert len(fig.axes[0].get_legend().get_texts()) == 2


def _labelled(fig):
    assert all(ax.get_ylabel() for ax in fig.axes)
    assert fig.axes[-1].get_xlabel()  # panels stacked on a shared x axis label only the bottom one
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
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




# ----- one way to make figures, one base class for the live plots -----------------------------

def test_plots_do_not_touch_pyplot():
    """Every figure is a plain Figure: a notebook shows it once (as the cell's value), and
    nothing piles up in pyplot's registry while a slider moves."""
    code = ("import sys, numpy as np\n"
            "from nbcourse import plotting\n"
            "plotting.plot_beta_densities(); plotting.plot_prior_washout(np.array([0, 1, 1]))\n"
            "print('matplotlib.pyplot' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_live_plots_share_one_base_class_and_keep_their_titles_on_the_figure():
    from nbcourse import CategoricalNB
    from nbcourse.datasets import load_weather

    table = load_weather()
    X, y = table.drop(columns="play"), table["play"]
    query = {"outlook": "overcast", "temperature": "hot", "humidity": "high", "windy": "true"}
    curve = smoothing_strength.alpha_curve(X, y, {"q": query})["q"]
    live = plotting.SmoothingEffectPlot(curve, CategoricalNB(alpha=1).fit(X, y), query)
    assert isinstance(live, plotting.LivePlot)
    assert isinstance(plotting.BetaUpdatePlot(2, 2, 3, 0), plotting.LivePlot)
    assert issubclass(plotting.AlphaCurvePlot, plotting.LivePlot)
    before = live.to_png()
    after = live.update(curve, CategoricalNB(alpha=3.5).fit(X, y), query).to_png()
    assert before != after
    # the title that the slider rewrites stays inside the figure (a hidden title used to
    # measure as empty during the background draw and be pushed off the top)
    box = live.right.title.get_window_extent()
    assert live.right.title.get_text() == "the factors at alpha = 3.5"
    assert 0 < box.y0 < box.y1 <= live.figure.bbox.height


def _png_pixels(png):
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)


def test_beta_mle_line_is_visible_at_theta_one():
    plot = plotting.BetaUpdatePlot(2, 2, 3, 0)
    mle_line = plot.marks[0]
    assert mle_line.get_xdata()[0] == 1.0
    assert plot.ax.get_xlim()[1] > 1.02  # not on the frame
    assert mle_line.get_color() != plot.likelihood_line.get_color()
    assert mle_line.get_linestyle() != plot.likelihood_line.get_linestyle()


# ----- issue 12's plots ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def weather_model():
    from nbcourse import CategoricalNB
    from nbcourse.datasets import load_weather

    table = load_weather()
    return CategoricalNB(alpha=0).fit(table.drop(columns="play"), table["play"])


def test_query_factors_show_the_log_ratio_pull_of_each_factor(weather_model):
    query = {"outlook": "sunny", "temperature": "cool", "humidity": "high", "windy": "true"}
    fig = plotting.plot_query_factors(weather_model, query)
    pull = fig.axes[1]
    widths = [bar.get_width() for bar in pull.patches]
    # log P(x | yes) - log P(x | no): prior 9/14 vs 5/14, sunny 2/9 vs 3/5, cool 3/9 vs 1/5, ...
    expected = [np.log(9 / 5), np.log((2 / 9) / (3 / 5)), np.log((3 / 9) / (1 / 5)),
                np.log((3 / 9) / (4 / 5)), np.log((3 / 9) / (3 / 5))]
    assert widths[:5] == pytest.approx(expected)
    assert widths[5] == pytest.approx(sum(expected))  # the sum: the log-odds
    odds = weather_model.predict_proba(query)[0]
    assert widths[5] == pytest.approx(np.log(odds[1] / odds[0]))
    assert [t.get_text() for t in pull.get_yticklabels()][-1] == "sum: log-odds"
    labels = [t.get_text() for t in pull.get_legend().get_texts()]
    assert labels == ["pulls towards yes", "pulls towards no"]
    assert plotting.figure_to_png(fig)


def test_query_factors_mark_a_zero_count_as_an_infinite_pull(weather_model):
    query = {"outlook": "overcast", "temperature": "hot", "humidity": "high", "windy": "true"}
    pull = plotting.plot_query_factors(weather_model, query).axes[1]
    texts = [t.get_text() for t in pull.texts]
    assert texts[1] == "+\u221e: 0 for no" and texts[-1] == "+\u221e: 0 for no"
    assert pull.patches[1].get_hatch() == "//"
    assert pull.patches[1].get_width() == pytest.approx(pull.get_xlim()[1] / 1.05)


def test_gaussian_boundaries_shade_regions_thin_points_and_show_far_from_the_data():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal([0, 0], 1.0, size=(600, 2)), rng.normal([3, 1], 2.0, size=(600, 2))])
    y = np.repeat(["A", "B"], 600)
    model = GaussianNB().fit(X, y)
    fig = plotting.plot_gaussian_boundaries(X, y, {"per class": model}, max_points=300)
    ax = fig.axes[0]
    # the scatters only: on matplotlib < 3.8 each contour level is a PathCollection too
    drawn = sum(len(c.get_offsets()) for c in ax.collections
                if type(c).__name__ == "PathCollection" and not c.get_label().startswith("_"))
    assert drawn == 300 and "300 of 1,200 points" in ax.get_title()
    regions = ax.get_images()[0].get_array()
    xs = np.linspace(*ax.get_xlim(), regions.shape[1])
    ys = np.linspace(*ax.get_ylim(), regions.shape[0])
    i, j = regions.shape[0] // 3, regions.shape[1] // 4
    predicted = model.predict(np.array([[xs[j], ys[i]]]))[0]
    assert regions[i, j] == list(model.classes_).index(predicted)
    span = X.max(axis=0) - X.min(axis=0)
    assert ax.get_xlim()[1] - X[:, 0].max() == pytest.approx(0.5 * span[0])
    with pytest.raises(ValueError, match="max_points"):
        plotting.plot_gaussian_boundaries(X, y, {"m": model}, max_points=0)


def test_gaussian_boundaries_shade_the_named_model():
    rng = np.random.default_rng(1)
    X = np.vstack([rng.normal([1, 1], 0.3, size=(300, 2)), rng.normal([2, 1.5], 0.8, size=(300, 2))])
    y = np.repeat(["A", "B"], 300)
    quadratic = GaussianNB().fit(X, y)
    linear = GaussianNB(shared_variance=True).fit(X, y)
    models = {"linear": linear, "quadratic": quadratic}
    fig = plotting.plot_gaussian_boundaries(X, y, models, shade="quadratic")
    ax = fig.axes[0]
    assert "the dashed line's model" in ax.get_title()
    regions = ax.get_images()[0].get_array()
    xs = np.linspace(*ax.get_xlim(), regions.shape[1])
    ys = np.linspace(*ax.get_ylim(), regions.shape[0])
    grid = np.column_stack([np.tile(xs, len(ys)), np.repeat(ys, len(xs))])
    shaded = regions.ravel() == 1
    assert np.array_equal(shaded, quadratic.predict(grid) == "B")
    assert not np.array_equal(shaded, linear.predict(grid) == "B")
    with pytest.raises(ValueError, match="shade"):
        plotting.plot_gaussian_boundaries(X, y, models, shade="cubic")


def test_top_weights_annotate_the_counts_and_pale_the_rare_words():
    from matplotlib.colors import to_rgba

    table = pd.DataFrame({"feature": ["prize", "xyz", "lunch"], "weight": [3.0, 2.8, -2.0]})
    counts = pd.DataFrame({"ham": [0, 0, 40], "spam": [93, 2, 1]}, index=["prize", "xyz", "lunch"])
    fig = plotting.plot_top_weights(table, class_names=("ham", "spam"), counts=counts)
    ax = fig.axes[0]
    names = [t.get_text() for t in ax.get_yticklabels()]
    by_word = {names[round(b.get_y() + b.get_height() / 2)]: b for b in ax.patches}
    assert {t.get_text() for t in ax.texts} == {"93 / 0", "2 / 0", "1 / 40"}
    assert by_word["xyz"].get_alpha() < 1 and by_word["prize"].get_alpha() in (None, 1)
    assert to_rgba(by_word["prize"].get_facecolor())[3] == 1
    assert by_word["lunch"].get_width() == -2.0
    with pytest.raises(ValueError, match="no row for the words"):
        plotting.plot_top_weights(table, counts=counts.drop(index="xyz"))
    with pytest.raises(TypeError, match="feature_count_"):
        plotting.plot_top_weights(table, counts={"prize": 3})


def test_a_cell_that_returns_a_plot_shows_it_once_as_a_png(tmp_path):
    """With or without ``%matplotlib inline`` (lessons 03-06 do not switch it on), and
    after someone imported pyplot: one picture per cell, never zero, never two."""
    import nbformat
    from nbclient import NotebookClient

    cells = ["from nbcourse import plotting\nplotting.plot_beta_densities()",
             "display(plotting.plot_beta_densities())",
             "%matplotlib inline\nplotting.plot_beta_densities()",
             "import matplotlib.pyplot as plt\nplotting.plot_beta_densities()"]
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    NotebookClient(notebook, timeout=60, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    for cell in notebook.cells:
        pictures = [o for o in cell.outputs if "image/png" in o.get("data", {})]
        assert len(pictures) == 1, cell.source


def test_a_figure_reads_as_a_figure():
    """The text a notebook stores beside the picture (nbval compares it) is matplotlib's."""
    fig = plotting.plot_beta_densities()
    assert repr(fig) == "<Figure size 750x360 with 1 Axes>"
    assert fig._repr_png_().startswith(b"\x89PNG\r\n\x1a\n")


# ----- parameters as pictures -----------------------------------------------------------------

def test_class_images_show_each_row_as_a_picture_with_one_shared_colour_bar():
    values = np.linspace(0, 1, 3 * 4).reshape(3, 4)          # 3 classes, 2 x 2 pixels each
    fig = plotting.plot_class_images(values, ["a", "b", "c"], (2, 2), ncols=2)
    pictures = [ax for ax in fig.axes if ax.get_images()]
    assert [ax.get_title() for ax in pictures] == ["a", "b", "c"]
    np.testing.assert_array_equal(pictures[1].get_images()[0].get_array(), values[1].reshape(2, 2))
    assert sum(not ax.get_visible() for ax in fig.axes) == 1                 # the empty fourth slot
    assert any(ax.get_ylabel() == "P(pixel on | class)" for ax in fig.axes)  # the colour bar
    assert plotting.figure_to_png(fig)


def test_class_images_check_their_input():
    with pytest.raises(ValueError, match="one row per class"):
        plotting.plot_class_images(np.zeros((2, 4)), ["a", "b", "c"], (2, 2))
    with pytest.raises(ValueError, match="holds 9 pixels"):
        plotting.plot_class_images(np.zeros((2, 4)), ["a", "b"], (3, 3))
    with pytest.raises(ValueError, match="finite"):
        plotting.plot_class_images(np.full((1, 4), np.nan), ["a"], (2, 2))
