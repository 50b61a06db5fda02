"""How well a classifier does: scores against alpha, confusion matrices, calibration and
learning curves (lessons 04 to 06)."""
from __future__ import annotations

import pandas as pd

from ._base import COLORS, LivePlot, decade_ticks, new_figure

__all__ = ["AlphaCurvePlot", "plot_confusion_matrices", "plot_reliability", "plot_learning_curves"]


_METRIC_STYLES = {
    "accuracy": dict(color=COLORS["blue"], marker="o", linestyle="-"),
    "precision": dict(color=COLORS["orange"], marker="s", linestyle="--"),
    "recall": dict(color=COLORS["green"], marker="^", linestyle=":"),
}


class AlphaCurvePlot(LivePlot):
    """Accuracy, precision and recall against the smoothing strength alpha (log axis),
    with the current alpha marked by a vertical line and three large markers.

    ``curve`` is a DataFrame with columns alpha, accuracy, precision, recall (one row per
    alpha tried); ``scores`` is a dict with the three metrics at ``alpha``. The axes, curves
    and legend are drawn once and kept as a background; :meth:`update` moves only the
    marker line, the markers and the title, which ``to_png`` draws on top of it (see
    :class:`LivePlot`).
    """

    dpi = 100

    def __init__(self, curve, alpha, scores, *, dataset: str = "validation"):
        if not isinstance(curve, pd.DataFrame) or not {"alpha", *_METRIC_STYLES} <= set(curve.columns):
            raise TypeError("curve must be a DataFrame with columns alpha, accuracy, precision, recall")
        if curve.empty or (curve["alpha"] <= 0).any():
            raise ValueError("curve must hold at least one row, with alpha > 0 (the axis is logarithmic)")
        self.figure, ax = new_figure((6.6, 3.8), layout="tight")
        self.axes = ax
        for metric, style in _METRIC_STYLES.items():
            ax.plot(curve["alpha"], curve[metric], markersize=4, label=metric, **style)
        self._line = ax.axvline(alpha, color=COLORS["black"], linewidth=1.0)
        self._markers = {
            metric: ax.plot([alpha], [scores[metric]], marker=style["marker"], markersize=10,
                            color=style["color"], markeredgecolor=COLORS["black"],
                            linestyle="none")[0]
            for metric, style in _METRIC_STYLES.items()}
        ax.set_xscale("log")
        decade_ticks(ax, curve["alpha"].min(), curve["alpha"].max())
        ax.set_xlabel("smoothing strength alpha (pseudo-count per word, log scale)")
        ax.set_ylabel(f"score on the {dataset} set")
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(loc="lower left", fontsize=9)
        ax.set_title(" ", fontsize=9)
        self.moving = [self._line, *self._markers.values(), ax.title]
        self.update(alpha, scores)
        self.freeze_layout()

    def update(self, alpha, scores) -> "AlphaCurvePlot":
        """Move the line and markers to ``alpha`` and its ``scores``, and retitle."""
        self._line.set_xdata([alpha, alpha])
        for metric, marker in self._markers.items():
            marker.set_data([alpha], [scores[metric]])
        # title.set_text, not set_title: set_title would undo the title's laid-out position
        self.axes.title.set_text(f"alpha = {alpha:g}: accuracy {scores['accuracy']:.4f}, "
                                 f"precision {scores['precision']:.4f}, "
                                 f"recall {scores['recall']:.4f}")
        return self


def plot_confusion_matrices(tables, *, cost=None):
    """One heat map per confusion matrix (rows: true class, columns: predicted class).

    ``tables`` maps a title to a DataFrame from :func:`nbcourse.evaluation.confusion_matrix`.
    With a ``cost`` table (same labels, indexed [true, predicted]) each cell also shows
    what its mistakes cost, and the title gives the total.
    """
    if not isinstance(tables, dict) or not tables:
        raise TypeError("tables must be a non-empty dict: title -> confusion-matrix DataFrame")
    fig, axes = new_figure((3.9 * len(tables), 3.5), 1, len(tables), layout="tight", squeeze=False)
    for ax, (title, table) in zip(axes[0], tables.items()):
        if not isinstance(table, pd.DataFrame) or table.shape[0] != table.shape[1]:
            raise TypeError(f"tables[{title!r}] must be a square confusion-matrix DataFrame")
        counts = table.to_numpy()
        ax.imshow(counts, cmap="Blues", vmin=0, vmax=max(1, counts.max()))
        labels = [str(v) for v in table.columns]
        total = 0.0
        for i, true in enumerate(table.index):
            for j, predicted in enumerate(table.columns):
                text = f"{counts[i, j]:,}"
                if cost is not None:
                    cell = counts[i, j] * float(cost.loc[true, predicted])
                    total += cell
                    text += f"\ncost {cell:,.0f}"
                dark = counts[i, j] > 0.6 * counts.max()
                ax.text(j, i, text, ha="center", va="center", fontsize=10,
                        color="white" if dark else COLORS["black"])
        ax.set_xticks(range(len(labels)), labels)
        ax.set_yticks(range(len(labels)), [str(v) for v in table.index])
        ax.set_xlabel("predicted class")
        ax.set_ylabel("true class")
        ax.set_title(title if cost is None else f"{title}\ntotal cost {total:,.0f}", fontsize=10)
    return fig


def plot_reliability(tables, *, positive: str = "the positive class"):
    """Reliability diagram: observed frequency against predicted probability, per model.

    ``tables`` maps a label to a :func:`nbcourse.evaluation.reliability_table`. Points on
    the diagonal mean "when the model says 80 %, it is right 80 % of the time". The lower
    panel counts how many predictions fell in each bin, which shows over-confidence as a
    pile-up at 0 and 1.
    """
    if not isinstance(tables, dict) or not tables:
        raise TypeError("tables must be a non-empty dict: label -> reliability_table DataFrame")
    fig, (top, bottom) = new_figure((6.2, 6.4), 2, 1, layout="tight", sharex=True,
                                     height_ratios=(3, 1.3))
    top.plot([0, 1], [0, 1], color="0.5", linestyle=":", label="perfectly calibrated")
    colors = iter([COLORS["blue"], COLORS["vermillion"], COLORS["green"], COLORS["purple"]])
    markers = iter(["o", "s", "^", "D"])
    n_models = len(tables)
    for k, (label, table) in enumerate(tables.items()):
        if not isinstance(table, pd.DataFrame) or \
                not {"bin_low", "bin_high", "mean_predicted", "observed", "count"} <= set(table.columns):
            raise TypeError(f"tables[{label!r}] must come from nbcourse.evaluation.reliability_table")
        color, marker = next(colors), next(markers)
        top.plot(table["mean_predicted"], table["observed"], color=color, marker=marker,
                 label=label)
        width = (table["bin_high"] - table["bin_low"]).to_numpy() / n_models
        bottom.bar(table["bin_low"].to_numpy() + k * width, table["count"], width=width,
                   align="edge", color=color, label=label)
    top.set_ylabel(f"observed fraction of {positive}")
    top.set_xlim(0, 1)
    top.set_ylim(-0.02, 1.02)
    top.grid(True, alpha=0.3)
    top.legend(loc="upper left", fontsize=9)
    bottom.set_xlabel(f"predicted probability of {positive}")
    bottom.set_ylabel("predictions per bin")
    return fig


def plot_learning_curves(table, *, xlabel: str = "training examples (log scale)"):
    """Mean test accuracy (line) and its spread over repeats (band, ± one standard
    deviation) against training-set size, one curve per model of
    :func:`nbcourse.evaluation.accuracy_by_training_size`; the majority-class baseline is dashed."""
    if not isinstance(table, pd.DataFrame) or \
            not {"model", "size", "accuracy"} <= set(table.columns):
        raise TypeError("table must be a DataFrame with columns model, size, accuracy, "
                        "as returned by accuracy_by_training_size")
    if table.empty:
        raise ValueError("table is empty: there are no accuracies to draw")
    summary = table.groupby(["model", "size"], sort=False)["accuracy"].agg(["mean", "std"])
    colors = iter([COLORS["blue"], COLORS["vermillion"], COLORS["green"], COLORS["purple"]])
    fig, ax = new_figure((7.2, 4.4), layout="tight")
    for model in dict.fromkeys(table["model"]):
        part = summary.loc[model].sort_index()
        sizes = part.index.to_numpy(dtype=float)
        if model == "majority class":
            ax.plot(sizes, part["mean"], color="0.4", linestyle="--", label=model)
            continue
        color = next(colors)
        # plain float arrays: matplotlib 3.7 cannot fill between pandas Series of objects
        mean = part["mean"].to_numpy(dtype=float)
        spread = part["std"].fillna(0.0).to_numpy(dtype=float)
        ax.plot(sizes, mean, color=color, marker="o", markersize=4, label=model)
        ax.fill_between(sizes, mean - spread, mean + spread, color=color, alpha=0.2)
    ax.set_xscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("accuracy on the held-out test set")
    if "repeat" in table.columns:
        repeats = table.groupby(["model", "size"])["repeat"].nunique().max()
        if repeats == 1:
            ax.set_title("one random training subset per size", fontsize=10)
        else:
            ax.set_title(f"mean over {repeats} random training subsets per size "
                         "(band: ± one standard deviation)", fontsize=10)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(loc="upper left", fontsize=9)
    return fig
