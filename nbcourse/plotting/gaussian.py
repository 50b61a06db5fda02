"""Gaussian naive Bayes in pictures: one bell curve per class, and decision boundaries
in two dimensions (lessons 04 and 06)."""
from __future__ import annotations

import numpy as np

from ._base import COLORS, checked_names, new_figure

__all__ = ["plot_gaussian_boundaries", "plot_class_densities"]

# Line styles for several decision boundaries in one picture; no orange-like hue, since
# the second class's points are orange.
_BOUNDARY_STYLES = (
    dict(colors=COLORS["black"], linestyles="solid"),
    dict(colors=COLORS["purple"], linestyles="dashed"),
    dict(colors=COLORS["green"], linestyles="dotted"),
)


def plot_gaussian_boundaries(X, y, models, *, feature_names=("x₁", "x₂"), resolution: int = 300):
    """A two-class 2-D data set and the line where each fitted model's log-odds is zero.

    ``models`` maps a legend label to a fitted two-class model with
    ``predict_joint_log_proba`` (e.g. GaussianNB with and without a shared variance);
    the boundary is where log P(classes_[1], x) - log P(classes_[0], x) changes sign.
    """
    from matplotlib.lines import Line2D

    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(f"X must have two columns (a 2-D data set), got shape {X.shape}")
    if y.shape != (X.shape[0],):
        raise ValueError(f"y must hold one label per row of X ({X.shape[0]}), got shape {y.shape}")
    if not models:
        raise ValueError("models must map at least one label to a fitted model")
    if len(models) > len(_BOUNDARY_STYLES):
        raise ValueError(f"at most {len(_BOUNDARY_STYLES)} models fit in one picture")
    feature_names = checked_names(feature_names, 2, "feature_names")
    classes = next(iter(models.values())).classes_
    if len(classes) != 2:
        raise ValueError(f"the models must have two classes, got {list(classes)}")

    low, high = X.min(axis=0), X.max(axis=0)
    pad = 0.08 * (high - low)
    xs = np.linspace(low[0] - pad[0], high[0] + pad[0], resolution)
    ys = np.linspace(low[1] - pad[1], high[1] + pad[1], resolution)
    xx, yy = np.meshgrid(xs, ys)
    grid = np.column_stack([xx.ravel(), yy.ravel()])

    fig, ax = new_figure((6.6, 5.2), layout="tight")
    for c, color, marker in zip(classes, (COLORS["blue"], COLORS["orange"]), ("o", "s")):
        ax.scatter(X[y == c, 0], X[y == c, 1], s=18, color=color, marker=marker, alpha=0.75,
                   edgecolors="white", linewidths=0.4, label=f"class {c}")
    handles, _ = ax.get_legend_handles_labels()
    for (label, model), style in zip(models.items(), _BOUNDARY_STYLES):
        jll = model.predict_joint_log_proba(grid)
        log_odds = (jll[:, 1] - jll[:, 0]).reshape(xx.shape)
        ax.contour(xx, yy, log_odds, levels=[0.0], linewidths=2.2, **style)
        handles.append(Line2D([], [], color=style["colors"], linestyle=style["linestyles"],
                              linewidth=2.2, label=label))
    ax.set_xlim(xs[0], xs[-1])
    ax.set_ylim(ys[0], ys[-1])
    ax.set_xlabel(feature_names[0])
    ax.set_ylabel(feature_names[1])
    ax.set_title("decision boundaries: where both classes are equally probable")
    # Below the axes: a curved boundary can pass through any corner of the data.
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2,
              fontsize=9, frameon=False)
    return fig


def plot_class_densities(x, y, model, *, feature: int = 0, xlabel: str = "x", bins: int = 30):
    """Histogram of one feature per class, with the normal curve Gaussian naive Bayes fitted.

    ``model`` is a fitted :class:`nbcourse.naive_bayes.GaussianNB`; its ``theta_`` and
    ``var_`` for column ``feature`` give each class's curve, so the picture shows how well
    "one bell curve per class" describes the data.
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y)
    if x.ndim != 1 or x.shape != y.shape:
        raise ValueError(f"x and y must be 1-D of the same length, got shapes {x.shape} and {y.shape}")
    if not hasattr(model, "theta_"):
        raise TypeError("model must be a fitted GaussianNB (it needs theta_ and var_)")
    edges = np.histogram_bin_edges(x, bins=bins)
    grid = np.linspace(edges[0], edges[-1], 400)
    fig, ax = new_figure((6.6, 3.9), layout="tight")
    for i, (c, color) in enumerate(zip(model.classes_, (COLORS["blue"], COLORS["orange"],
                                                        COLORS["green"], COLORS["purple"]))):
        mean, var = model.theta_[i, feature], model.var_[i, feature]
        ax.hist(x[y == c], bins=edges, density=True, color=color, alpha=0.35,
                label=f"{c}: data")
        ax.plot(grid, np.exp(-(grid - mean) ** 2 / (2 * var)) / np.sqrt(2 * np.pi * var),
                color=color, linewidth=2.2, label=f"{c}: normal, μ = {mean:.2f}, σ² = {var:.3f}")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("density (per unit of x)")
    ax.legend(loc="upper right", fontsize=9)
    return fig
