"""Log-likelihood landscapes: over the simplex of three word probabilities, and of a
Gaussian's mean and variance (lesson 03)."""
from __future__ import annotations

import numpy as np

from .. import mle
from ._base import COLORS, checked_names, new_figure

__all__ = ["plot_simplex_log_likelihood", "plot_gaussian_log_likelihood"]

# Marker styles for points drawn on top of a contour plot: a wide hollow ring, then a
# cross that shows through it when both land on the same spot, then a plus.
_SIMPLEX_MARK_STYLES = (
    dict(marker="o", markersize=16, markerfacecolor="none", markeredgecolor=COLORS["vermillion"],
         markeredgewidth=2.5),
    dict(marker="x", markersize=9, color=COLORS["black"], markeredgewidth=2.0),
    dict(marker="+", markersize=12, color=COLORS["sky"], markeredgewidth=2.0),
)


def plot_simplex_log_likelihood(counts, words, marks=None, titles=None, *,
                                resolution: int = 120, depth: float = 10.0):
    """Contours of sum_k n_k log theta_k over every distribution theta of three words.

    Each point of a triangle is one theta = (theta_1, theta_2, theta_3) with sum 1; a
    corner puts all the probability on one word. Colour shows how many nats a point lies
    below the closed-form maximum theta_k = n_k / N, so the top is 0 in every panel and
    anything more than ``depth`` nats down is painted in the darkest colour. A white
    line encloses the points less than 3 nats below the top: the distributions that
    these counts cannot rule out (an approximate 95 % likelihood region), which shows
    how much a handful of counts leaves open - something a table of the maximum does not.

    ``counts`` is (3,) or (classes, 3): one panel per row. ``marks`` maps a legend label
    to points of the same shape (for instance the closed form and the numeric optimiser's
    answer), drawn on every panel so a reader can see whether they land on the peak.
    """
    counts, words, titles, points = _checked_simplex_inputs(counts, words, marks, titles)
    grid = mle.simplex_grid(resolution, 3, include_boundary=False)
    fig, axes = new_figure((5.4 * len(counts), 4.9), 1, len(counts), layout="tight",
                           squeeze=False)
    for row, (ax, n) in enumerate(zip(axes[0], counts)):
        filled = _draw_log_likelihood_contours(ax, n, grid, depth)
        _draw_simplex_gridlines(ax)
        _draw_simplex_frame(ax, words)
        for xy_points, style in zip(points.values(), _SIMPLEX_MARK_STYLES):
            ax.plot(*xy_points[row], linestyle="none", zorder=5, **style)
        heading = "word counts " + ", ".join(f"{w}: {c:g}" for w, c in zip(words, n))
        ax.set_title(heading if titles[row] is None else f"{titles[row]}\n{heading}", fontsize=10)
        ax.set_xlabel("each point is one distribution (θ₁, θ₂, θ₃), θ₁ + θ₂ + θ₃ = 1;\n"
                      "dashed lines: one of the θ's = 0.2, 0.4, 0.6, 0.8;\n"
                      f"white line: {_REGION_NATS:g} nats below the top (inside: ~95 % region)",
                      fontsize=9)
        bar = fig.colorbar(filled, ax=ax, shrink=0.8)
        bar.set_label("log-likelihood minus its maximum (nats)")
    _add_marks_legend(fig, points)
    return fig


def _checked_simplex_inputs(counts, words, marks, titles):
    """counts as a (panels, 3) array, the word and title names, and each set of marks as
    triangle coordinates, one row per panel."""
    counts = np.asarray(counts, dtype=float)
    if counts.ndim == 1:
        counts = counts[None, :]
    if counts.ndim != 2 or counts.shape[1] != 3:
        raise ValueError(f"counts must have shape (3,) or (classes, 3), got {counts.shape}")
    words = checked_names(words, 3, "words")
    titles = [None] * len(counts) if titles is None else \
        checked_names(titles, len(counts), "titles")
    marks = {} if marks is None else dict(marks)
    if len(marks) > len(_SIMPLEX_MARK_STYLES):
        raise ValueError(f"marks can hold at most {len(_SIMPLEX_MARK_STYLES)} points sets, got {len(marks)}")
    points = {}
    for label, theta in marks.items():
        theta = np.asarray(theta, dtype=float)
        if theta.ndim == 1:
            theta = np.tile(theta, (len(counts), 1))
        if theta.shape != counts.shape:
            raise ValueError(f"marks[{label!r}] must have shape (3,) or {counts.shape}, "
                             f"got {theta.shape}")
        points[label] = mle.barycentric_to_cartesian(theta)
    return counts, words, titles, points


#: How far below the top the "cannot rule out" line is drawn: half the 95 % point of a
#: chi-squared distribution with 2 degrees of freedom (Wilks), 5.99 / 2.
_REGION_NATS = 3.0


def _draw_log_likelihood_contours(ax, n, grid, depth):
    """Filled contours of the log-likelihood of counts ``n`` minus its maximum, and the
    line ``_REGION_NATS`` below the top."""
    from matplotlib.tri import Triangulation

    xy = mle.barycentric_to_cartesian(grid)
    triangulation = Triangulation(xy[:, 0], xy[:, 1])
    best = mle.categorical_log_likelihood(n, mle.multinomial_mle(n))
    below_best = mle.categorical_log_likelihood(n, grid) - best
    filled = ax.tricontourf(triangulation, np.maximum(below_best, -depth - 1.0),
                            levels=np.linspace(-depth, 0.0, 11), cmap="viridis", extend="min")
    ax.tricontour(triangulation, below_best, levels=[-_REGION_NATS], colors="white",
                  linewidths=2.0, linestyles="solid", zorder=4)
    return filled


def _draw_simplex_gridlines(ax):
    """Dashed lines where one theta_k is 0.2, 0.4, 0.6 or 0.8, black with a light halo so
    that they stay visible on the dark and on the bright colours."""
    from matplotlib import patheffects

    halo = [patheffects.withStroke(linewidth=2.4, foreground="white", alpha=0.45)]
    for k in range(3):
        others = [j for j in range(3) if j != k]
        for value in (0.2, 0.4, 0.6, 0.8):
            ends = np.zeros((2, 3))
            ends[:, k] = value
            ends[0, others[0]] = ends[1, others[1]] = 1.0 - value
            line = mle.barycentric_to_cartesian(ends)
            ax.plot(line[:, 0], line[:, 1], color=COLORS["black"], linewidth=0.8, alpha=0.75,
                    linestyle=(0, (3, 2)), zorder=3, path_effects=halo)


def _draw_simplex_frame(ax, words):
    """The triangle's outline with its corners named, on bare axes of equal scale."""
    corners = mle.barycentric_to_cartesian(np.eye(3))
    outline = np.vstack([corners, corners[:1]])
    ax.plot(outline[:, 0], outline[:, 1], color=COLORS["black"], linewidth=1.0)
    for (x, y), word, dy in zip(corners, words, (-0.06, -0.06, 0.05)):
        ax.text(x, y + dy, f"θ({word}) = 1", ha="center", va="center", fontsize=10)
    ax.set_xlim(-0.1, 1.1)
    ax.set_ylim(-0.12, 0.95)
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    for spine in ax.spines.values():
        spine.set_visible(False)


def _add_marks_legend(fig, points):
    """One legend below the panels for the marked points, if there are any."""
    if not points:
        return
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], linestyle="none", label=label, **style)
               for label, style in zip(points, _SIMPLEX_MARK_STYLES)]
    fig.legend(handles=handles, loc="lower center", ncol=len(handles), fontsize=10,
               frameon=False)
    fig.get_layout_engine().set(rect=(0, 0.07, 1, 1))


def plot_gaussian_log_likelihood(x, *, unit: str = "", quantity: str = "x"):
    """The Gaussian log-likelihood of the sample ``x`` along two slices through its peak.

    Left: as a function of the mean, with the variance held at its maximum-likelihood
    value. Right: as a function of the variance, with the mean held at the sample mean.
    The maximum-likelihood variance (divide by N) sits at the top of the right curve; the
    unbiased one (divide by N - 1) is marked too, a little to its right and lower.
    """
    mean, var = mle.gaussian_mle(x)
    n = np.asarray(x).shape[0]
    if np.ndim(x) != 1:
        raise ValueError("x must be 1-D (one value per sample)")
    if n < 2 or var == 0:
        raise ValueError("x needs at least two different values for a curve with a peak")
    suffix = f" ({unit})" if unit else ""
    square = f" ({unit}²)" if unit else ""
    sd = np.sqrt(var)
    means = np.linspace(mean - 3 * sd, mean + 3 * sd, 301)
    variances = np.linspace(0.25 * var, 3.0 * var, 301)
    by_mean = [mle.gaussian_log_likelihood(x, m, var) for m in means]
    by_var = [mle.gaussian_log_likelihood(x, mean, v) for v in variances]
    unbiased = var * n / (n - 1)

    fig, (left, right) = new_figure((10, 3.8), 1, 2, layout="tight")
    left.plot(means, by_mean, color=COLORS["blue"], label=f"log-likelihood, σ² = {var:.2f}")
    left.axvline(mean, color=COLORS["vermillion"], linewidth=2,
                 label=f"maximum: sample mean = {mean:.2f}")
    left.set_xlabel(f"mean μ of {quantity}{suffix}")
    left.set_ylabel("log-likelihood (nats)")
    left.set_title("varying the mean")
    left.legend(loc="lower center", fontsize=9)

    right.plot(variances, by_var, color=COLORS["blue"], label=f"log-likelihood, μ = {mean:.2f}")
    right.axvline(var, color=COLORS["vermillion"], linewidth=2,
                  label=f"maximum: divide by N, σ² = {var:.2f}")
    right.axvline(unbiased, color=COLORS["orange"], linewidth=2, linestyle="--",
                  label=f"divide by N − 1, σ² = {unbiased:.2f}")
    right.set_xlabel(f"variance σ² of {quantity}{square}")
    right.set_ylabel("log-likelihood (nats)")
    right.set_title("varying the variance")
    right.legend(loc="lower center", fontsize=9)
    return fig
