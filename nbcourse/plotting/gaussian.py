"""Gaussian naive Bayes in pictures: one bell curve per class, and decision boundaries
in two dimensions (lessons 04 and 06)."""
from __future__ import annotations

import numpy as np

from .._checks import check_labels, check_positive_int
from .._numerics import gaussian_log_density
from ._base import COLORS, checked_names, new_figure

__all__ = ["plot_gaussian_boundaries", "plot_class_densities"]

# Line styles for several decision boundaries in one picture; no orange-like hue, since
# the second class's points are orange.
_BOUNDARY_STYLES = (
    dict(colors=COLORS["black"], linestyles="solid"),
    dict(colors=COLORS["purple"], linestyles="dashed"),
    dict(colors=COLORS["green"], linestyles="dotted"),
)


def plot_gaussian_boundaries(X, y, models, *, feature_names=("x₁", "x₂"), resolution: int = 300,
                             margin: float = 0.5, max_points: int = 400, seed: int = 0,
                             shade: str | None = None):
    """A two-class 2-D data set and the line where each fitted model's log-odds is zero.

    ``models`` maps a legend label to a fitted two-class model with
    ``predict_joint_log_proba`` (e.g. GaussianNB with and without a shared variance);
    the boundary is where log P(classes_[1], x) - log P(classes_[0], x) changes sign.
    The background is shaded by the class that the model labelled ``shade`` predicts there
    (the first model by default): a quadratic boundary's regions are hard to read from its
    lines alone, since it can have two branches.

    The frame reaches ``margin`` times the data's range beyond the data on every side,
    so that the reader sees what the models do far from the data, where a quadratic
    boundary can turn back. At most ``max_points`` points are drawn (a random sample,
    ``seed``), small and half transparent, so that the regions and lines stay visible.
    """
    X, y, classes, feature_names = _checked_boundary_inputs(X, y, models, feature_names)
    if not (np.isfinite(margin) and margin >= 0):
        raise ValueError(f"margin must be a number >= 0, got {margin!r}")
    check_positive_int(max_points, "max_points")
    low, high = X.min(axis=0), X.max(axis=0)
    pad = margin * (high - low)
    xs = np.linspace(low[0] - pad[0], high[0] + pad[0], resolution)
    ys = np.linspace(low[1] - pad[1], high[1] + pad[1], resolution)
    xx, yy = np.meshgrid(xs, ys)
    log_odds = {label: _log_odds(model, xx, yy) for label, model in models.items()}
    labels = list(models)
    shade = labels[0] if shade is None else shade
    if shade not in models:
        raise ValueError(f"shade must be one of the labels of models {labels}, got {shade!r}")
    shaded_style = _BOUNDARY_STYLES[labels.index(shade)]["linestyles"]

    fig, ax = new_figure((6.6, 5.2), layout="tight")
    _shade_regions(ax, log_odds[shade], xs, ys)
    shown = _draw_sample(ax, X, y, classes, max_points, seed)
    handles, _ = ax.get_legend_handles_labels()
    handles += _draw_boundaries(ax, xx, yy, log_odds)
    ax.set_xlim(xs[0], xs[-1])
    ax.set_ylim(ys[0], ys[-1])
    ax.set_xlabel(feature_names[0])
    ax.set_ylabel(feature_names[1])
    points = "all points" if shown == len(X) else f"{shown:,} of {len(X):,} points"
    ax.set_title("decision boundaries: where both classes are equally probable\n"
                 f"shaded: the class the {shaded_style} line's model predicts; {points} drawn", fontsize=10)
    # Below the axes: a curved boundary can pass through any corner of the data.
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2,
              fontsize=9, frameon=False)
    return fig


def _checked_boundary_inputs(X, y, models, feature_names):
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(f"X must have two columns (a 2-D data set), got shape {X.shape}")
    y = check_labels(y, X.shape[0])
    if not models:
        raise ValueError("models must map at least one label to a fitted model")
    if len(models) > len(_BOUNDARY_STYLES):
        raise ValueError(f"at most {len(_BOUNDARY_STYLES)} models fit in one picture")
    feature_names = checked_names(feature_names, 2, "feature_names")
    classes = next(iter(models.values())).classes_
    if len(classes) != 2:
        raise ValueError(f"the models must have two classes, got {list(classes)}")
    return X, y, classes, feature_names


def _log_odds(model, xx, yy):
    """log P(classes_[1], x) - log P(classes_[0], x) at every grid point."""
    jll = model.predict_joint_log_proba(np.column_stack([xx.ravel(), yy.ravel()]))
    return (jll[:, 1] - jll[:, 0]).reshape(xx.shape)


def _shade_regions(ax, log_odds, xs, ys):
    """A light wash of each class's colour where the model predicts that class."""
    from matplotlib.colors import ListedColormap

    wash = ListedColormap([COLORS["blue"], COLORS["orange"]])
    ax.imshow((log_odds > 0).astype(float), cmap=wash, vmin=0, vmax=1, alpha=0.16,
              origin="lower", extent=(xs[0], xs[-1], ys[0], ys[-1]), aspect="auto",
              interpolation="nearest", zorder=0)


def _draw_sample(ax, X, y, classes, max_points, seed) -> int:
    """Scatter at most ``max_points`` of the points; returns how many were drawn."""
    rows = np.arange(len(X))
    if len(X) > max_points:
        rows = np.sort(np.random.default_rng(seed).choice(len(X), max_points, replace=False))
    for c, color, marker in zip(classes, (COLORS["blue"], COLORS["orange"]), ("o", "s")):
        mine = rows[y[rows] == c]
        ax.scatter(X[mine, 0], X[mine, 1], s=12, color=color, marker=marker, alpha=0.55,
                   edgecolors="white", linewidths=0.3, label=f"class {c}", zorder=2)
    return len(rows)


def _draw_boundaries(ax, xx, yy, log_odds) -> list:
    """One zero contour per model, in the styles of ``_BOUNDARY_STYLES``; legend handles."""
    from matplotlib.lines import Line2D

    handles = []
    for (label, values), style in zip(log_odds.items(), _BOUNDARY_STYLES):
        ax.contour(xx, yy, values, levels=[0.0], linewidths=2.2, zorder=3, **style)
        handles.append(Line2D([], [], color=style["colors"], linestyle=style["linestyles"],
                              linewidth=2.2, label=label))
    return handles


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
        ax.plot(grid, np.exp(gaussian_log_density(grid, mean, var)),
                color=color, linewidth=2.2, label=f"{c}: normal, μ = {mean:.2f}, σ² = {var:.3f}")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("density (per unit of x)")
    ax.legend(loc="upper right", fontsize=9)
    return fig
