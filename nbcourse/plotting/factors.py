"""What naive Bayes multiplies for one query (lesson 01) and how smoothing moves it (lesson 02)."""
from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

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

    One group of bars per factor - the prior P(class), then P(attribute = value | class)
    for each attribute - so the reader sees which attribute pulls the decision towards
    which class, and a zero (a value never counted with a class) stands out.
    """
    query = _query_dict(model, query)
    joint = model.joint_proba(query).iloc[0]
    priors = model.prior_table(numeric=True)
    labels = ["P(class)"] + [f"{name} =\n{value}" for name, value in query.items()]
    fig, ax = new_figure((7.5, 3.8))
    width = 0.8 / len(model.classes_)
    positions = np.arange(len(labels))
    for k, cls in enumerate(model.classes_):
        heights = [priors[cls]] + _factor_heights(model, query, cls)
        offset = (k - (len(model.classes_) - 1) / 2) * width
        bars = ax.bar(positions + offset, heights, width, color=CLASS_COLORS[k % 4],
                      label=f"{cls}: product = {joint[cls]:.4f}")
        ax.bar_label(bars, fmt="%.2f", fontsize=8, padding=1)
    ax.set_xticks(positions, labels)
    ax.set_ylim(0, 1.1)
    ax.set_ylabel("probability (no unit)")
    ax.set_xlabel("the factors of P(class) \u00d7 \u220f P(attribute = value | class)")
    ax.legend(title="class", loc="upper right", fontsize=9)
    ax.set_title("Which factors pull the query towards which class")
    return fig


class SmoothingEffectPlot(LivePlot):
    """How the smoothing strength alpha moves naive Bayes' answer for one query.

    Left: P(target | query) against alpha (``curve``, a pandas Series indexed by alpha,
    see ``nbcourse.evaluation.alpha_curve``), with the current alpha marked, the 0.5
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

    def update(self, curve, model, query) -> "SmoothingEffectPlot":
        """Show ``model`` (fitted with the new alpha) for ``query``; a new query also
        brings its own ``curve`` and tick labels, and the whole figure is redrawn."""
        query = _query_dict(model, query)
        classes = list(model.classes_)
        probability = float(model.predict_proba(query)[0, classes.index(self.target)])
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
