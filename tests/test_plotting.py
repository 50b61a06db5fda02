"""nbcourse.plotting: every lesson plot renders with labels and legends, checks its input,
and the live plots redraw what a slider moves (and nothing else)."""
import io

import numpy as np
import pandas as pd
import pytest

from nbcourse import evaluation, plotting
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


