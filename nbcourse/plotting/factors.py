"""What naive Bayes multiplies for one query (lesson 01) and how smoothing moves it (lesson 02)."""
from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from ..smoothing_strength import posterior_of
from ._base import CLASS_COLORS, COLORS, LivePlot, new_figure

__all__ = ["plot_query_factors", "SmoothingEffectPlot", "plot_smoothing_effect"]


def _query_dict(model, query) -> dict:
    """The query as {feature: value}; raises the model's own clear errors on bad input."""
    model.joint_proba(dict(query))  # checks fitted, missing columns and unseen values
    return {name: dict(query)[name] for name in model.feature_names_in_}


def _factor_heights(model, query: dict, cls) -> list:
    return [model.likelihood_table(name, numeric=True).loc[query[name], cls]
            for name in model.feature_names_in_]


def plot_query_factors(model, query) -> Figure:
    """The numbers naive Bayes multiplies for one query, side by side for each class.

    Left: one group of bars per factor - the prior P(class), then P(attribute = value |
    class) for each attribute - so a zero (a value never counted with a class) stands
    out. Right, for a two-class model: the pull of each factor, log P(value | c1) -
    log P(value | c0) with c0, c1 = ``model.classes_``, as one bar to the left or right,
    and their sum, the log-odds that decides the prediction. A factor that is zero for
    one class pulls infinitely hard; its bar runs to the edge and says so.
    """
    query = _query_dict(model, query)
    classes = list(model.classes_)
    two_classes = len(classes) == 2
    figsize, ratios = ((12.0, 3.8), (7.5, 4.5)) if two_classes else ((7.5, 3.8), (1,))
    fig, axes = new_figure(figsize, 1, len(ratios), squeeze=False, width_ratios=ratios)
    factors = _factor_table(model, query)
    _draw_factor_bars(axes[0, 0], model, query, factors)
    if two_classes:
        _draw_log_ratio_bars(axes[0, 1], factors, classes)
    return fig


def _factor_table(model, query: dict):
    """Rows: the prior, then one row per attribute of the query; columns: the classes."""
    import pandas as pd

    priors = model.prior_table(numeric=True)
    rows = [[priors[cls] for cls in model.classes_]]
    rows += [list(heights) for heights in zip(*(_factor_heights(model, query, cls)
                                                 for cls in model.classes_))]
    names = ["P(class)"] + [f"{name} = {value}" for name, value in query.items()]
    return pd.DataFrame(rows, index=names, columns=list(model.classes_), dtype=float)


def _draw_factor_bars(ax, model, query, factors):
    joint = model.joint_proba(query).iloc[0]
    labels = [name.replace(" = ", " =\n") for name in factors.index]
    width = 0.8 / len(model.classes_)
    positions = np.arange(len(labels))
    for k, cls in enumerate(model.classes_):
        offset = (k - (len(model.classes_) - 1) / 2) * width
        bars = ax.bar(positions + offset, factors[cls].to_numpy(), width,
                      color=CLASS_COLORS[k % 4], label=f"{cls}: product = {joint[cls]:.4f}")
        ax.bar_label(bars, fmt="%.2f", fontsize=8, padding=1)
    ax.set_xticks(positions, labels)
    ax.set_ylim(0, 1.1)
    ax.set_ylabel("probability (no unit)")
    ax.set_xlabel("the factors of P(class) \u00d7 \u220f P(attribute = value | class)")
    ax.legend(title="class", loc="upper right", fontsize=9)
    ax.set_title("Which factors pull the query towards which class")


def _label_pull(ax, bar, value, row, edge, c0, c1):
    """Write a pull's value beside its bar, or on a white patch inside a bar that runs to
    the edge (an infinite pull, or one nearly as long as the axis)."""
    if np.isinf(value):
        bar.set_hatch("//")
        sign, zero_class = ("+", c0) if value > 0 else ("\u2212", c1)
        text = f"{sign}\u221e: 0 for {zero_class}"
    elif np.isnan(value):
        text = f"undefined: 0 for {c0} and for {c1}"
    else:
        text = f"{value:+.2f}"
    width = bar.get_width()
    if abs(width) > 0.6 * edge:
        ax.text(width - np.sign(width) * 0.03 * edge, row, text, va="center", fontsize=8,
                ha="right" if width > 0 else "left",
                bbox=dict(boxstyle="round,pad=0.2", facecolor="white", edgecolor="none",
                          alpha=0.85))
    else:
        right = width >= 0
        ax.text(width + (0.02 if right else -0.02) * edge, row, text, va="center", fontsize=8,
                ha="left" if right else "right")


def _draw_log_ratio_bars(ax, factors, classes):
    """Horizontal bars of log P(. | c1) - log P(. | c0) per factor, then their sum."""
    c0, c1 = classes
    with np.errstate(divide="ignore", invalid="ignore"):
        pulls = np.log(factors[c1].to_numpy()) - np.log(factors[c0].to_numpy())
        total = pulls.sum()
    values = np.append(pulls, total)
    names = list(factors.index) + ["sum: log-odds"]
    finite = values[np.isfinite(values)]
    edge = 1.25 * max(1.0, np.abs(finite).max()) if finite.size else 1.0
    shown = np.clip(np.nan_to_num(values, nan=0.0), -edge, edge)
    rows = np.arange(len(values))[::-1]  # the prior at the top, the sum at the bottom
    colors = [CLASS_COLORS[1] if v > 0 else CLASS_COLORS[0] for v in shown]
    bars = ax.barh(rows, shown, color=colors, height=0.65)
    bars[-1].set_edgecolor(COLORS["black"])
    bars[-1].set_linewidth(1.5)
    for bar, value, row in zip(bars, values, rows):
        _label_pull(ax, bar, value, row, edge, c0, c1)
    ax.axvline(0.0, color=COLORS["black"], linewidth=0.8)
    ax.axhline(0.5, color="0.6", linewidth=0.8)  # between the factors and their sum
    ax.set_xlim(-1.05 * edge, 1.05 * edge)
    ax.set_yticks(rows, names)
    ax.set_xlabel(f"log P(\u00b7 | {c1}) \u2212 log P(\u00b7 | {c0})  (natural log)")
    ax.set_ylabel("factor")
    from matplotlib.patches import Patch

    ax.legend(handles=[Patch(color=CLASS_COLORS[1], label=f"pulls towards {c1}"),
                       Patch(color=CLASS_COLORS[0], label=f"pulls towards {c0}")],
              loc="best", fontsize=8)
    ax.set_title(f"The pull of each factor (sum > 0: {c1})")


class SmoothingEffectPlot(LivePlot):
    """How the smoothing strength alpha moves naive Bayes' answer for one query.

    Left: P(target | query) against alpha (``curve``, a pandas Series indexed by alpha,
    see ``nbcourse.smoothing_strength.alpha_curve``), with the current alpha marked, the 0.5
    decision threshold, and the class prior that the posterior tends to as alpha grows.
    Right: the smoothed factors P(attribute = value | class) at the current alpha.
    ``model`` is a CategoricalNB fitted with the current alpha.

    For a slider, ``update`` moves only the marker, its value and the bars, which
    ``to_png`` draws on a saved picture of everything else (see :class:`LivePlot`).
    """

    def __init__(self, curve, model, query, target="no"):
        classes = list(model.classes_)
        if target not in classes:
            raise ValueError(f"target must be one of the classes {classes}, got {target!r}")
        self.target = target
        self.figure, (self.left, self.right) = new_figure((10.0, 3.8), ncols=2,
                                                           width_ratios=(1.1, 1.0))
        left, right = self.left, self.right
        self.curve_line, = left.plot([], [], color=COLORS["blue"], linewidth=2,
                                     label=f"P({target} | x)")
        left.axhline(0.5, color=COLORS["black"], linestyle="--", linewidth=1,
                     label=f"0.5: above it the prediction is {target!r}")
        prior = float(model.prior_table(numeric=True)[target])
        left.axhline(prior, color=COLORS["green"], linestyle=":", linewidth=1.5,
                     label=f"P({target}) = {prior:.3f}, the limit as alpha grows")
        self.marker, = left.plot([0], [0], "o", color=COLORS["vermillion"], markersize=9,
                                 clip_on=False, label=f"P({target} | x) at the current alpha")
        self.value_text = left.text(0.97, 0.05, "", transform=left.transAxes, ha="right",
                                    va="bottom", fontsize=10, color=COLORS["vermillion"])
        left.set_ylim(0, 1)
        left.set_xlabel("alpha (pseudo-count added to every attribute value)")
        left.set_ylabel(f"P({target} | x)")
        left.legend(fontsize=8, loc="upper right")
        n_features, width = len(model.feature_names_in_), 0.8 / len(classes)
        self.bars, self.bar_texts = [], []
        for k, cls in enumerate(classes):
            bars = right.bar(np.arange(n_features) + (k - (len(classes) - 1) / 2) * width,
                             np.zeros(n_features), width, color=CLASS_COLORS[k % 4],
                             label=f"P(value | {cls})")
            self.bars.append(bars)
            self.bar_texts.append(right.bar_label(bars, fmt="%.2f", fontsize=8, padding=1))
        right.set_ylim(0, 1)
        right.set_ylabel("smoothed probability")
        right.set_xlabel("attribute = value in the query x")
        right.legend(fontsize=8, loc="upper right")
        self.moving = [self.marker, self.value_text, right.title,
                       *(bar for bars in self.bars for bar in bars),
                       *(text for texts in self.bar_texts for text in texts)]
        self.query = None
        self.update(curve, model, query)
        self.freeze_layout()

    def update(self, curve, model, query, *, probability=None) -> "SmoothingEffectPlot":
        """Show ``model`` (fitted with the new alpha) for ``query``; a new query also
        brings its own ``curve`` and tick labels, and the whole figure is redrawn.

        ``probability`` is P(target | query) when the caller (a slider, which prints it
        too) has computed it already."""
        query = _query_dict(model, query)
        classes = list(model.classes_)
        if probability is None:
            probability = posterior_of(model, query, self.target)
        alpha = float(model.alpha)
        if query != self.query:  # new query: new curve and tick labels, so redraw everything
            self.query = query
            self.redraw_all()
            self.curve_line.set_data(curve.index.to_numpy(dtype=float), curve.to_numpy())
            self.left.set_xlim(float(curve.index.min()), float(curve.index.max()))
            self.left.set_title("x = (" + ", ".join(map(str, query.values())) + ")")
            self.right.set_xticks(np.arange(len(query)),
                                  [f"{name} =\n{value}" for name, value in query.items()])
        self.marker.set_data([alpha], [probability])
        self.value_text.set_text(f"alpha = {alpha:g}\nP({self.target} | x) = {probability:.4f}")
        for bars, texts, cls in zip(self.bars, self.bar_texts, classes):
            for bar, text, height in zip(bars, texts, _factor_heights(model, query, cls)):
                bar.set_height(height)
                text.xy = (bar.get_x() + bar.get_width() / 2, height)
                text.set_text(f"{height:.2f}")
        self.right.title.set_text(f"the factors at alpha = {alpha:g}")  # keeps its position
        return self


def plot_smoothing_effect(curve, model, query, target="no") -> Figure:
    """The picture of ``SmoothingEffectPlot`` for one fitted model (one alpha)."""
    return SmoothingEffectPlot(curve, model, query, target).figure
