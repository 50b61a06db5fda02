"""Plots for the lessons. Each function draws one picture from numbers it is given
(or computes with the pure functions of the library) and returns the matplotlib Figure,
so tests can render it to PNG and the widgets can redraw it.

Colours come from the Okabe-Ito palette, which stays distinguishable for colour-blind
readers; every plot has axis labels, units where there are any, and a legend.
"""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

#: Okabe & Ito (2008) colour-blind safe palette.
COLORS = {
    "blue": "#0072B2", "orange": "#E69F00", "green": "#009E73", "vermillion": "#D55E00",
    "sky": "#56B4E9", "purple": "#CC79A7", "yellow": "#F0E442", "black": "#000000",
}

# ----- notebooks 01-02 (weather, Beta pseudo-counts) --------------------------------------
# These figures are built with matplotlib.figure.Figure rather than pyplot: a notebook then
# shows each one exactly once (as the cell's value), and a slider can redraw the same
# Figure many times without pyplot keeping every old one alive. The two pictures behind
# sliders are small classes whose ``update`` moves the existing lines and bars, which is
# several times faster than drawing the figure again from scratch.
from matplotlib.figure import Figure  # noqa: E402

from . import smoothing as _smoothing  # noqa: E402

#: Colours for the classes of a table, in the order of ``model.classes_``.
CLASS_COLORS = (COLORS["blue"], COLORS["vermillion"], COLORS["green"], COLORS["orange"])

# theta grid for Beta curves; the edges are left out because a Beta(a < 1, b) density is
# infinite there.
_THETA = np.linspace(0.0, 1.0, 301)[1:-1]


def _new_figure(figsize, ncols=1, **subplot_kw):
    fig = Figure(figsize=figsize, layout="constrained")
    return fig, fig.subplots(1, ncols, **subplot_kw)


def figure_to_png(fig, dpi=80) -> bytes:
    """PNG bytes of ``fig`` at ``dpi`` (which becomes the figure's dpi), drawn in a single
    pass (``savefig`` would lay the figure out and draw it twice), with zlib level 1,
    because a slider needs speed more than small files."""
    import io

    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig.set_dpi(dpi)
    canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)
    buffer = io.BytesIO()
    canvas.print_png(buffer, pil_kwargs={"compress_level": 1})
    return buffer.getvalue()


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
    fig, ax = _new_figure((7.5, 3.8))
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


def plot_beta_densities(params=((1, 1), (2, 2), (5, 5), (2, 5), (0.5, 0.5))) -> Figure:
    """A few Beta(a, b) priors: a / (a + b) sets where the bump is, a + b how narrow it is."""
    fig, ax = _new_figure((7.5, 3.6))
    styles = ["-", "--", "-.", ":", (0, (5, 1, 1, 1))]
    colors = [COLORS[c] for c in ("black", "blue", "green", "vermillion", "purple", "orange")]
    for k, (a, b) in enumerate(params):
        ax.plot(_THETA, _smoothing.beta_pdf(_THETA, a, b), color=colors[k % len(colors)],
                linestyle=styles[k % len(styles)], linewidth=2,
                label=f"Beta({a:g}, {b:g}): guess {_smoothing.beta_mean(a, b):.2f}, "
                      f"strength {a + b:g}")
    ax.set_ylim(0, 4)
    ax.set_xlim(0, 1)
    ax.set_xlabel(r"$\theta$ = P(heads)")
    ax.set_ylabel("prior density")
    ax.set_title("Beta priors: a heads and b tails imagined before any real toss")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    return fig


class BetaUpdatePlot:
    """Prior Beta(a, b), the likelihood of the tosses and the posterior Beta(N1 + a, N0 + b).

    The likelihood theta^N1 (1 - theta)^N0 is a function of theta, not a density; it is
    drawn rescaled to area one (which makes it the Beta(N1 + 1, N0 + 1) density) so that
    the three curves share one axis. Vertical lines mark the MLE, the MAP and the
    posterior mean; an estimate that does not exist (MLE with no tosses, MAP of a flat
    posterior) is listed as undefined. ``update`` redraws in place for a slider.
    """

    _MARKS = (("MLE", "mle", COLORS["orange"], (0, (1, 1)), 3.0),
              ("MAP", "map", COLORS["vermillion"], "-", 1.8),
              ("mean", "posterior_mean", COLORS["green"], "-.", 1.8))

    def __init__(self, a, b, heads, tails):
        self.figure, self.ax = _new_figure((8.0, 3.8))
        ax = self.ax
        self.prior_line, = ax.plot(_THETA, _THETA, color=COLORS["blue"], linestyle="--",
                                   linewidth=2)
        self.likelihood_line, = ax.plot(_THETA, _THETA, color=COLORS["orange"], linestyle=":",
                                        linewidth=2.5)
        self.posterior_line, = ax.plot(_THETA, _THETA, color=COLORS["black"], linewidth=2)
        self.marks = [ax.axvline(0.5, color=color, linestyle=style, linewidth=width)
                      for _, _, color, style, width in self._MARKS]
        self._fill = None
        ax.set_xlim(-0.01, 1.01)
        ax.set_xlabel(r"$\theta$ = P(heads)")
        ax.set_ylabel("density")
        # Lay the figure out once, with the longest labels the sliders can produce, then
        # freeze that layout: updates are faster and the legend never jumps or gets cut.
        self.update(19.5, 19.5, 88, 88)
        ax.legend(handles=[self.prior_line, self.likelihood_line, self.posterior_line,
                           *self.marks], fontsize=8, loc="upper left",
                  bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
        self.figure.draw_without_rendering()
        self.figure.set_layout_engine("none")
        self.update(a, b, heads, tails)

    def update(self, a, b, heads, tails) -> "BetaUpdatePlot":
        summary = _smoothing.beta_summary(a, b, heads, tails)
        post_a, post_b = summary.posterior_a, summary.posterior_b
        prior = _smoothing.beta_pdf(_THETA, a, b)
        likelihood = _smoothing.beta_pdf(_THETA, heads + 1, tails + 1)
        posterior = _smoothing.beta_pdf(_THETA, post_a, post_b)
        self.prior_line.set_ydata(prior)
        self.prior_line.set_label(f"prior Beta({a:g}, {b:g})")
        self.likelihood_line.set_ydata(likelihood)
        self.likelihood_line.set_label(f"likelihood of the {heads + tails:g} tosses\n"
                                       "(scaled to area 1)")
        self.posterior_line.set_ydata(posterior)
        self.posterior_line.set_label(f"posterior Beta({post_a:g}, {post_b:g})")
        if self._fill is not None:
            self._fill.remove()
        self._fill = self.ax.fill_between(_THETA, posterior, color=COLORS["black"], alpha=0.08)
        for line, (name, attr, *_style) in zip(self.marks, self._MARKS):
            value = getattr(summary, attr)
            line.set_visible(value is not None)
            if value is None:
                line.set_label(f"{name} undefined")
            else:
                line.set_xdata([value, value])
                line.set_label(f"{name} = {value:.3f}")
        legend = self.ax.get_legend()
        if legend is not None:
            for text, line in zip(legend.get_texts(), [self.prior_line, self.likelihood_line,
                                                       self.posterior_line, *self.marks]):
                text.set_text(line.get_label())
        top = max(posterior.max(), likelihood.max(), min(prior.max(), 2 * posterior.max()))
        self.ax.set_ylim(0, 1.12 * top)
        self.ax.set_title(f"prior guess a/(a+b) = {summary.prior_mean:.2f}, strength a+b = "
                          f"{summary.prior_strength:g}; data: {heads:g} heads, {tails:g} tails",
                          fontsize=10)
        return self


    def to_png(self, dpi=80) -> bytes:
        """The current picture as PNG bytes (the y-axis moves, so everything is redrawn)."""
        return figure_to_png(self.figure, dpi)


def plot_beta_update(a, b, heads, tails) -> Figure:
    """The picture of ``BetaUpdatePlot`` for fixed a, b, heads and tails."""
    return BetaUpdatePlot(a, b, heads, tails).figure


def plot_prior_washout(tosses, priors=((1, 1), (10, 10), (40, 4)), true_theta=None) -> Figure:
    """Posterior mean after the first N tosses, for several priors, against N (log scale).

    However strong a prior is, its a + b pseudo-tosses are outweighed once N is much
    larger: every curve ends near the maximum-likelihood estimate.
    """
    tosses = np.asarray(tosses)
    if tosses.ndim != 1 or tosses.size == 0 or not np.isin(tosses, (0, 1)).all():
        raise ValueError("tosses must be a non-empty 1-D sequence of 0 (tails) and 1 (heads)")
    # every N up to 20, then about 40 points per decade: smooth on the log axis, and fast
    n = np.unique(np.round(np.logspace(0, np.log10(tosses.size), 120)).astype(int))
    heads = np.cumsum(tosses)[n - 1]
    fig, ax = _new_figure((8.0, 3.8))
    colors = [COLORS["blue"], COLORS["vermillion"], COLORS["green"], COLORS["purple"]]
    styles = ["-", "--", "-.", (0, (5, 1, 1, 1))]
    for k, (a, b) in enumerate(priors):
        means = [_smoothing.beta_summary(a, b, h, m - h).posterior_mean
                 for h, m in zip(heads, n)]
        ax.plot(n, means, color=colors[k % 4], linestyle=styles[k % 4], linewidth=2,
                label=f"posterior mean, prior Beta({a:g}, {b:g})")
    ax.plot(n, [_smoothing.mle_bernoulli(h, m - h) for h, m in zip(heads, n)],
            color=COLORS["orange"], linestyle=":", linewidth=2, label="MLE (no prior)")
    if true_theta is not None:
        ax.axhline(true_theta, color=COLORS["black"], linewidth=1,
                   label=f"true P(heads) = {true_theta:g}")
    ax.set_xscale("log")
    ax.set_xlim(1, tosses.size)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("number of tosses N (log scale)")
    ax.set_ylabel(r"estimate of $\theta$ = P(heads)")
    ax.set_title("As N grows, the prior washes out")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    return fig


class SmoothingEffectPlot:
    """How the smoothing strength alpha moves naive Bayes' answer for one query.

    Left: P(target | query) against alpha (``curve``, a pandas Series indexed by alpha,
    see ``nbcourse.widgets.alpha_curve``), with the current alpha marked, the 0.5
    decision threshold, and the class prior that the posterior tends to as alpha grows.
    Right: the smoothed factors P(attribute = value | class) at the current alpha.
    ``model`` is a CategoricalNB fitted with the current alpha.

    For a slider, ``update`` moves only the marker, its value and the bars, and
    ``to_png`` pastes them onto a saved image of everything else (matplotlib's
    "blitting"): a few milliseconds instead of drawing every tick label again.
    """

    def __init__(self, curve, model, query, target="no"):
        classes = list(model.classes_)
        if target not in classes:
            raise ValueError(f"target must be one of the classes {classes}, got {target!r}")
        self.target = target
        self.figure, (self.left, self.right) = _new_figure((10.0, 3.8), ncols=2,
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
        self._moving = [self.marker, self.value_text, right.title,
                        *(bar for bars in self.bars for bar in bars),
                        *(text for texts in self.bar_texts for text in texts)]
        self._background = None
        self.query = None
        self.update(curve, model, query)
        self.figure.draw_without_rendering()  # lay out once, then freeze it
        self.figure.set_layout_engine("none")

    def update(self, curve, model, query) -> "SmoothingEffectPlot":
        query = _query_dict(model, query)
        classes = list(model.classes_)
        probability = float(model.predict_proba(query)[0, classes.index(self.target)])
        alpha = float(model.alpha)
        if query != self.query:  # new query: new curve and tick labels, so redraw everything
            self.query, self._background = query, None
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
        self.right.set_title(f"the factors at alpha = {alpha:g}")
        return self

    def to_png(self, dpi=80) -> bytes:
        """The current picture as PNG bytes, redrawing only what ``update`` moves."""
        import io

        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from PIL import Image

        fig = self.figure
        if not isinstance(fig.canvas, FigureCanvasAgg):
            FigureCanvasAgg(fig)
        if self._background is None or fig.dpi != dpi:
            fig.set_dpi(dpi)
            for artist in self._moving:
                artist.set_visible(False)
            fig.canvas.draw()
            self._background = fig.canvas.copy_from_bbox(fig.bbox)
            for artist in self._moving:
                artist.set_visible(True)
        else:
            fig.canvas.restore_region(self._background)
        for artist in self._moving:
            fig.draw_artist(artist)
        width, height = fig.canvas.get_width_height()
        image = Image.frombuffer("RGBA", (width, height), fig.canvas.buffer_rgba(), "raw",
                                 "RGBA", 0, 1)
        buffer = io.BytesIO()
        image.save(buffer, format="png", compress_level=1)
        return buffer.getvalue()


def plot_smoothing_effect(curve, model, query, target="no") -> Figure:
    """The picture of ``SmoothingEffectPlot`` for one fitted model (one alpha)."""
    return SmoothingEffectPlot(curve, model, query, target).figure


# ----- notebooks 03-04 (Lagrangian MLE, naive Bayes is linear) ----------------------------
# Marker styles for points drawn on top of a contour plot: a wide hollow ring, then a
# cross that shows through it when both land on the same spot, then a plus.
_SIMPLEX_MARK_STYLES = (
    dict(marker="o", markersize=16, markerfacecolor="none", markeredgecolor=COLORS["vermillion"],
         markeredgewidth=2.5),
    dict(marker="x", markersize=9, color=COLORS["black"], markeredgewidth=2.0),
    dict(marker="+", markersize=12, color=COLORS["sky"], markeredgewidth=2.0),
)
# Line styles for several decision boundaries in one picture; no orange-like hue, since
# the second class's points are orange.
_BOUNDARY_STYLES = (
    dict(colors=COLORS["black"], linestyles="solid"),
    dict(colors=COLORS["purple"], linestyles="dashed"),
    dict(colors=COLORS["green"], linestyles="dotted"),
)


def _checked_names(values, length: int, name: str) -> list[str]:
    if isinstance(values, str):
        raise TypeError(f"{name} must be a sequence of {length} names, got the string {values!r}")
    names = [str(v) for v in values]
    if len(names) != length:
        raise ValueError(f"{name} must hold {length} names, got {len(names)}")
    return names


def plot_simplex_log_likelihood(counts, words, marks=None, titles=None, *,
                                resolution: int = 120, depth: float = 10.0):
    """Contours of sum_k n_k log theta_k over every distribution theta of three words.

    Each point of a triangle is one theta = (theta_1, theta_2, theta_3) with sum 1; a
    corner puts all the probability on one word. Colour shows how many nats a point lies
    below the closed-form maximum theta_k = n_k / N, so the top is 0 in every panel and
    anything more than ``depth`` nats down is painted in the darkest colour.

    ``counts`` is (3,) or (classes, 3): one panel per row. ``marks`` maps a legend label
    to points of the same shape (for instance the closed form and the numeric optimiser's
    answer), drawn on every panel so a reader can see whether they land on the peak.
    """
    from matplotlib.lines import Line2D
    from matplotlib.tri import Triangulation

    from . import mle

    counts = np.asarray(counts, dtype=float)
    if counts.ndim == 1:
        counts = counts[None, :]
    if counts.ndim != 2 or counts.shape[1] != 3:
        raise ValueError(f"counts must have shape (3,) or (classes, 3), got {counts.shape}")
    words = _checked_names(words, 3, "words")
    titles = [None] * len(counts) if titles is None else \
        _checked_names(titles, len(counts), "titles")
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

    grid = mle.simplex_grid(resolution, 3, include_boundary=False)
    xy = mle.barycentric_to_cartesian(grid)
    triangulation = Triangulation(xy[:, 0], xy[:, 1])
    corners = mle.barycentric_to_cartesian(np.eye(3))
    levels = np.linspace(-depth, 0.0, 11)

    fig, axes = plt.subplots(1, len(counts), figsize=(5.4 * len(counts), 4.9), squeeze=False)
    for row, (ax, n) in enumerate(zip(axes[0], counts)):
        best = mle.categorical_log_likelihood(n, mle.multinomial_mle(n))
        below_best = mle.categorical_log_likelihood(n, grid) - best
        filled = ax.tricontourf(triangulation, np.maximum(below_best, -depth - 1.0),
                                levels=levels, cmap="viridis", extend="min")
        # light grid: theta_k = 0.2, 0.4, 0.6, 0.8 for each word
        for k in range(3):
            others = [j for j in range(3) if j != k]
            for value in (0.2, 0.4, 0.6, 0.8):
                ends = np.zeros((2, 3))
                ends[:, k] = value
                ends[0, others[0]] = ends[1, others[1]] = 1.0 - value
                line = mle.barycentric_to_cartesian(ends)
                ax.plot(line[:, 0], line[:, 1], color="white", linewidth=0.6, alpha=0.5,
                        linestyle=":", zorder=3)
        outline = np.vstack([corners, corners[:1]])
        ax.plot(outline[:, 0], outline[:, 1], color=COLORS["black"], linewidth=1.0)
        for (x, y), word, dy in zip(corners, words, (-0.06, -0.06, 0.05)):
            ax.text(x, y + dy, f"θ({word}) = 1", ha="center", va="center", fontsize=10)
        for (label, xy_points), style in zip(points.items(), _SIMPLEX_MARK_STYLES):
            ax.plot(*xy_points[row], linestyle="none", zorder=5, **style)
        counts_text = ", ".join(f"{w}: {c:g}" for w, c in zip(words, n))
        heading = f"word counts {counts_text}"
        ax.set_title(heading if titles[row] is None else f"{titles[row]}\n{heading}", fontsize=10)
        ax.set_xlim(-0.1, 1.1)
        ax.set_ylim(-0.12, 0.95)
        ax.set_aspect("equal")
        ax.set_xticks([])
        ax.set_yticks([])
        for spine in ax.spines.values():
            spine.set_visible(False)
        ax.set_xlabel("each point is one distribution (θ₁, θ₂, θ₃), θ₁ + θ₂ + θ₃ = 1;\n"
                      "dotted lines: one of the θ's = 0.2, 0.4, 0.6, 0.8", fontsize=9)
        bar = fig.colorbar(filled, ax=ax, shrink=0.8)
        bar.set_label("log-likelihood minus its maximum (nats)")
    if points:
        handles = [Line2D([], [], linestyle="none", label=label, **style)
                   for label, style in zip(points, _SIMPLEX_MARK_STYLES)]
        fig.legend(handles=handles, loc="lower center", ncol=len(handles), fontsize=10,
                   frameon=False)
        fig.tight_layout(rect=(0, 0.07, 1, 1))
    else:
        fig.tight_layout()
    return fig


def plot_gaussian_log_likelihood(x, *, unit: str = "", quantity: str = "x"):
    """The Gaussian log-likelihood of the sample ``x`` along two slices through its peak.

    Left: as a function of the mean, with the variance held at its maximum-likelihood
    value. Right: as a function of the variance, with the mean held at the sample mean.
    The maximum-likelihood variance (divide by N) sits at the top of the right curve; the
    unbiased one (divide by N - 1) is marked too, a little to its right and lower.
    """
    from . import mle

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

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.8))
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
    fig.tight_layout()
    return fig


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
    feature_names = _checked_names(feature_names, 2, "feature_names")
    classes = next(iter(models.values())).classes_
    if len(classes) != 2:
        raise ValueError(f"the models must have two classes, got {list(classes)}")

    low, high = X.min(axis=0), X.max(axis=0)
    pad = 0.08 * (high - low)
    xs = np.linspace(low[0] - pad[0], high[0] + pad[0], resolution)
    ys = np.linspace(low[1] - pad[1], high[1] + pad[1], resolution)
    xx, yy = np.meshgrid(xs, ys)
    grid = np.column_stack([xx.ravel(), yy.ravel()])

    fig, ax = plt.subplots(figsize=(6.6, 5.2))
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
    fig.tight_layout()
    return fig


def plot_top_weights(table, *, class_names=("class 0", "class 1"),
                     xlabel: str = "weight w_k (change in log-odds per occurrence)"):
    """Horizontal bars for a ``nbcourse.linear.top_weights`` table.

    Positive weights push a document towards ``class_names[1]``, negative ones towards
    ``class_names[0]``; the largest sit at the top and bottom.
    """
    import pandas as pd

    if not isinstance(table, pd.DataFrame) or not {"feature", "weight"} <= set(table.columns):
        raise TypeError("table must be a DataFrame with 'feature' and 'weight' columns, "
                        "as returned by nbcourse.linear.top_weights")
    if table.empty:
        raise ValueError("table is empty: there are no weights to draw")
    class_names = _checked_names(class_names, 2, "class_names")
    ordered = table.sort_values("weight", kind="stable")
    weights = ordered["weight"].to_numpy(dtype=float)
    positive = weights > 0
    rows = np.arange(len(ordered))

    fig, ax = plt.subplots(figsize=(6.4, 0.28 * len(ordered) + 1.4))
    ax.barh(rows[positive], weights[positive], color=COLORS["orange"],
            label=f"pushes towards {class_names[1]}")
    ax.barh(rows[~positive], weights[~positive], color=COLORS["blue"],
            label=f"pushes towards {class_names[0]}")
    ax.set_yticks(rows, ordered["feature"].astype(str))
    ax.axvline(0.0, color=COLORS["black"], linewidth=0.8)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("word")
    ax.legend(loc="lower right", fontsize=9)
    fig.tight_layout()
    return fig


def plot_weight_comparison(w_x, w_y, names, *, labels=("naive Bayes weight", "logistic regression weight"),
                           n_annotate: int = 3):
    """Scatter one word per point: its weight under two linear models.

    Both weights are in log-odds per occurrence. The ``n_annotate`` most positive and
    most negative words of each model are named, so a reader can see which words the
    two models agree on.
    """
    w_x = np.asarray(w_x, dtype=float).ravel()
    w_y = np.asarray(w_y, dtype=float).ravel()
    names = np.asarray(names, dtype=object)
    if not (w_x.shape == w_y.shape == names.shape):
        raise ValueError(f"w_x, w_y and names must have the same length, got "
                         f"{w_x.shape[0]}, {w_y.shape[0]} and {names.shape[0]}")
    if w_x.size == 0:
        raise ValueError("there are no weights to draw")
    labels = _checked_names(labels, 2, "labels")
    fig, ax = plt.subplots(figsize=(6.6, 5.4))
    ax.axhline(0.0, color="0.6", linewidth=0.8)
    ax.axvline(0.0, color="0.6", linewidth=0.8)
    ax.scatter(w_x, w_y, s=9, color=COLORS["blue"], alpha=0.35, edgecolors="none",
               label=f"one word ({w_x.size:,} in all)")
    chosen = []
    for w in (w_x, w_y):
        order = np.argsort(w, kind="stable")
        chosen += list(order[:n_annotate]) + list(order[::-1][:n_annotate])
    chosen = list(dict.fromkeys(chosen))
    ax.scatter(w_x[chosen], w_y[chosen], s=22, color=COLORS["vermillion"],
               label="the most telling words of either model")
    # words that land (almost) on the same spot share one label, so labels do not overprint
    span = np.array([np.ptp(w_x), np.ptp(w_y)]) + 1e-12
    groups = []  # [(x, y), [names]]
    for i in chosen:
        point = np.array([w_x[i], w_y[i]])
        for anchor, words in groups:
            if np.all(np.abs(point - anchor) <= 0.02 * span):
                words.append(str(names[i]))
                break
        else:
            groups.append((point, [str(names[i])]))
    for (x, y), words in groups:
        ax.annotate(", ".join(words), (x, y), xytext=(4, 3), textcoords="offset points",
                    fontsize=8)
    ax.set_xlabel(f"{labels[0]} (log-odds per occurrence)")
    ax.set_ylabel(f"{labels[1]} (log-odds per occurrence)")
    ax.legend(loc="upper left", fontsize=9)
    fig.tight_layout()
    return fig


def plot_learning_curves(table, *, xlabel: str = "training examples (log scale)"):
    """Mean test accuracy (line) and its spread over repeats (band, ± one standard
    deviation) against training-set size, one curve per model of
    :func:`nbcourse.evaluation.accuracy_by_training_size`; the majority-class baseline is dashed."""
    import pandas as pd

    if not isinstance(table, pd.DataFrame) or \
            not {"model", "size", "accuracy"} <= set(table.columns):
        raise TypeError("table must be a DataFrame with columns model, size, accuracy, "
                        "as returned by accuracy_by_training_size")
    if table.empty:
        raise ValueError("table is empty: there are no accuracies to draw")
    summary = table.groupby(["model", "size"], sort=False)["accuracy"].agg(["mean", "std"])
    colors = iter([COLORS["blue"], COLORS["vermillion"], COLORS["green"], COLORS["purple"]])
    fig, ax = plt.subplots(figsize=(7.2, 4.4))
    for model in dict.fromkeys(table["model"]):
        part = summary.loc[model].sort_index()
        sizes = part.index.to_numpy(dtype=float)
        if model == "majority class":
            ax.plot(sizes, part["mean"], color="0.4", linestyle="--", label=model)
            continue
        color = next(colors)
        ax.plot(sizes, part["mean"], color=color, marker="o", markersize=4, label=model)
        spread = part["std"].fillna(0.0).to_numpy()
        ax.fill_between(sizes, part["mean"] - spread, part["mean"] + spread, color=color, alpha=0.2)
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
    fig.tight_layout()
    return fig


# ----- notebooks 05-06 (spam filter, Gaussian naive Bayes) --------------------------------


def _checked_zipf_table(table):
    import pandas as pd

    if not isinstance(table, pd.DataFrame) or not {"word", "count", "rank"} <= set(table.columns):
        raise TypeError("table must be a DataFrame with columns word, count, rank, "
                        "as returned by nbcourse.text.zipf_table")
    table = table[table["count"] > 0]
    if table.empty:
        raise ValueError("table has no word with a positive count to draw")
    return table


def _zipf_line(table, ranks) -> tuple[float, float, int, int]:
    """Least-squares line log10(count) = slope * log10(rank) + intercept over ``ranks``."""
    whole = [r for r in np.atleast_1d(np.asarray(ranks, dtype=object))
             if isinstance(r, (int, np.integer)) and not isinstance(r, bool)]
    if len(whole) != 2 or np.ndim(ranks) != 1 or not 1 <= whole[0] < whole[1]:
        raise ValueError(f"ranks must be two whole numbers 1 <= low < high, got {ranks!r}")
    low, high = whole
    chosen = table[(table["rank"] >= low) & (table["rank"] <= high)]
    if len(chosen) < 2:
        raise ValueError(f"ranks {low}-{high} hold {len(chosen)} word(s) with a positive count; "
                         "a slope needs at least two")
    x = np.log10(chosen["rank"].to_numpy(dtype=float))
    y = np.log10(chosen["count"].to_numpy(dtype=float))
    slope, intercept = np.polyfit(x, y, 1)
    return float(slope), float(intercept), int(chosen["rank"].min()), int(chosen["rank"].max())


def zipf_slope(table, ranks=(10, 1000)) -> float:
    """The slope of log10(count) against log10(rank), fitted by least squares over ``ranks``.

    Zipf's law predicts about -1. The fit skips the first few words on purpose: in short,
    chatty messages the very top words are much closer in frequency than 1/rank says,
    and a line through them would hide how well the law holds over the next thousand.
    ``table`` is :func:`nbcourse.text.zipf_table`; ranks past the end of it are ignored.
    """
    return _zipf_line(_checked_zipf_table(table), ranks)[0]


def plot_zipf(table, *, n_labels: int = 5, corpus: str = "the corpus", fit_ranks=(10, 1000)):
    """Word count against rank on log-log axes, with Zipf's law as a dashed reference.

    ``table`` is :func:`nbcourse.text.zipf_table`. Zipf's law says the word of rank r
    occurs about count(rank 1) / r times: a straight line of slope -1 on these axes.
    With ``fit_ranks`` (None to leave it out) a dotted line shows the least-squares fit
    of :func:`zipf_slope` over those ranks, its slope in the legend. The ``n_labels``
    most common words are written next to their points.
    """
    table = _checked_zipf_table(table)
    rank = table["rank"].to_numpy(dtype=float)
    count = table["count"].to_numpy(dtype=float)
    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    ax.loglog(rank, count, color=COLORS["blue"], marker=".", markersize=3, linestyle="none",
              label=f"words of {corpus} ({len(table):,})")
    ax.loglog(rank, count[0] / rank, color=COLORS["vermillion"], linestyle="--",
              label="Zipf's law through the top word: count(rank 1) / rank")
    if fit_ranks is not None:
        slope, intercept, low, high = _zipf_line(table, fit_ranks)
        span = np.array([low, high], dtype=float)
        ax.loglog(span, 10 ** (intercept + slope * np.log10(span)), color=COLORS["black"],
                  linestyle=":", linewidth=2,
                  label=f"least-squares line over ranks {low:,}–{high:,}: slope {slope:.2f}")
    for word, r, c in zip(table["word"][:n_labels], rank[:n_labels], count[:n_labels]):
        ax.annotate(str(word), (r, c), xytext=(5, 2), textcoords="offset points", fontsize=9)
    ax.set_xlabel("rank of the word (1 = most common, log scale)")
    ax.set_ylabel(f"occurrences in {corpus} (log scale)")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(loc="lower left", fontsize=9)
    fig.tight_layout()
    return fig


def plot_underflow(token_log_probs, *, class_names=None):
    """What multiplying many word probabilities does to a float, and what logs do instead.

    ``token_log_probs`` maps a class name to the log-probabilities log P(word | class)
    of one message's words, in reading order. Solid lines: the exact log10 of the running
    product (a sum of logs, never a problem). Markers: the same product computed as a
    float64, which follows the line until it falls below the smallest positive double
    (about 4.9e-324, dotted) and becomes exactly 0.0.
    """
    if not isinstance(token_log_probs, dict) or not token_log_probs:
        raise TypeError("token_log_probs must be a non-empty dict: class -> log-probabilities")
    smallest = np.log10(np.nextafter(0.0, 1.0))
    colors = iter([COLORS["blue"], COLORS["orange"], COLORS["green"], COLORS["purple"]])
    fig, ax = plt.subplots(figsize=(7.0, 4.2))
    for k, (label, logs) in enumerate(token_log_probs.items()):
        logs = np.asarray(logs, dtype=np.float64)
        if logs.ndim != 1 or logs.size == 0 or not np.all(np.isfinite(logs)):
            raise ValueError(f"token_log_probs[{label!r}] must be a non-empty 1-D array of finite logs")
        color = next(colors)
        words = np.arange(1, logs.size + 1)
        ax.plot(words, np.cumsum(logs) / np.log(10), color=color,
                label=f"{label}: sum of logs (exact)")
        with np.errstate(under="ignore", divide="ignore"):
            product = np.cumprod(np.exp(logs))
            shown = np.where(product > 0, np.log10(product), np.nan)
        ax.plot(words, shown, color=color, marker="o", markersize=4, linestyle="none",
                markevery=max(1, logs.size // 40), label=f"{label}: float64 product")
        zero = np.flatnonzero(product == 0)
        if zero.size:
            ax.axvline(words[zero[0]], color=color, linewidth=0.8, alpha=0.6)
            ax.text(0.98, 0.96 - 0.07 * k, f"{label}: float64 product = 0.0 from word {words[zero[0]]}",
                    transform=ax.transAxes, ha="right", va="top", fontsize=9, color=color)
    ax.axhline(smallest, color=COLORS["black"], linestyle=":",
               label="smallest positive float64 (4.9e-324)")
    ax.set_xlabel("words multiplied so far")
    ax.set_ylabel("log10 of ∏ P(word | class), words so far")
    ax.legend(loc="lower left", fontsize=8)
    fig.tight_layout()
    return fig


_METRIC_STYLES = {
    "accuracy": dict(color=COLORS["blue"], marker="o", linestyle="-"),
    "precision": dict(color=COLORS["orange"], marker="s", linestyle="--"),
    "recall": dict(color=COLORS["green"], marker="^", linestyle=":"),
}


class AlphaCurvePlot:
    """Accuracy, precision and recall against the smoothing strength alpha (log axis),
    with the current alpha marked by a vertical line and three large markers.

    ``curve`` is a DataFrame with columns alpha, accuracy, precision, recall (one row per
    alpha tried); ``scores`` is a dict with the three metrics at ``alpha``. The axes, curves
    and legend are drawn once and kept as a background; :meth:`update` redraws only the
    marker line, the markers and the title on top of it, which keeps a slider step to a few
    milliseconds of drawing. ``figure`` is an ordinary matplotlib Figure (not attached to
    pyplot, so a slider does not pile up inline images).
    """

    def __init__(self, curve, alpha, scores, *, dataset: str = "validation"):
        import pandas as pd
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        from matplotlib.ticker import NullLocator

        if not isinstance(curve, pd.DataFrame) or not {"alpha", *_METRIC_STYLES} <= set(curve.columns):
            raise TypeError("curve must be a DataFrame with columns alpha, accuracy, precision, recall")
        if curve.empty or (curve["alpha"] <= 0).any():
            raise ValueError("curve must hold at least one row, with alpha > 0 (the axis is logarithmic)")
        self.figure = Figure(figsize=(6.6, 3.8), dpi=100)
        canvas = FigureCanvasAgg(self.figure)
        ax = self.axes = self.figure.add_subplot()
        for metric, style in _METRIC_STYLES.items():
            ax.plot(curve["alpha"], curve[metric], markersize=4, label=metric, **style)
        self._line = ax.axvline(alpha, color=COLORS["black"], linewidth=1.0)
        self._markers = {
            metric: ax.plot([alpha], [scores[metric]], marker=style["marker"], markersize=10,
                            color=style["color"], markeredgecolor=COLORS["black"],
                            linestyle="none")[0]
            for metric, style in _METRIC_STYLES.items()}
        ax.set_xscale("log")
        # Decades only, written as plain numbers (0.01, not 10^-2): easier to read.
        decades = 10.0 ** np.arange(np.floor(np.log10(curve["alpha"].min())),
                                    np.ceil(np.log10(curve["alpha"].max())) + 1)
        ax.set_xticks(decades, [f"{d:g}" for d in decades])
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xlabel("smoothing strength alpha (pseudo-count per word, log scale)")
        ax.set_ylabel(f"score on the {dataset} set")
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(loc="lower left", fontsize=9)
        ax.set_title(" ", fontsize=9)
        self.figure.tight_layout()
        # Draw everything except the moving parts once, and keep that picture.
        moving = self._moving()
        for artist in moving:
            artist.set_animated(True)
        canvas.draw()
        self._background = canvas.copy_from_bbox(self.figure.bbox)
        for artist in moving:
            artist.set_animated(False)
        self.update(alpha, scores)

    def _moving(self):
        return [self._line, *self._markers.values(), self.axes.title]

    def update(self, alpha, scores) -> "AlphaCurvePlot":
        """Move the line and markers to ``alpha`` and its ``scores``, and retitle."""
        self._line.set_xdata([alpha, alpha])
        for metric, marker in self._markers.items():
            marker.set_data([alpha], [scores[metric]])
        self.axes.set_title(f"alpha = {alpha:g}: accuracy {scores['accuracy']:.4f}, "
                            f"precision {scores['precision']:.4f}, recall {scores['recall']:.4f}",
                            fontsize=9)
        canvas = self.figure.canvas
        canvas.restore_region(self._background)
        for artist in self._moving():
            self.figure.draw_artist(artist)
        return self

    def to_png(self) -> bytes:
        """The picture as PNG bytes, for an ``ipywidgets.Image``."""
        import io

        from PIL import Image

        buffer = io.BytesIO()
        Image.fromarray(np.asarray(self.figure.canvas.buffer_rgba())).save(
            buffer, format="png", compress_level=1)
        return buffer.getvalue()


def plot_confusion_matrices(tables, *, cost=None):
    """One heat map per confusion matrix (rows: true class, columns: predicted class).

    ``tables`` maps a title to a DataFrame from :func:`nbcourse.evaluation.confusion_matrix`.
    With a ``cost`` table (same labels, indexed [true, predicted]) each cell also shows
    what its mistakes cost, and the title gives the total.
    """
    import pandas as pd

    if not isinstance(tables, dict) or not tables:
        raise TypeError("tables must be a non-empty dict: title -> confusion-matrix DataFrame")
    fig, axes = plt.subplots(1, len(tables), figsize=(3.9 * len(tables), 3.5), squeeze=False)
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
    fig.tight_layout()
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
    fig, ax = plt.subplots(figsize=(6.6, 3.9))
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
    fig.tight_layout()
    return fig


def plot_reliability(tables, *, positive: str = "the positive class"):
    """Reliability diagram: observed frequency against predicted probability, per model.

    ``tables`` maps a label to a :func:`nbcourse.evaluation.reliability_table`. Points on
    the diagonal mean "when the model says 80 %, it is right 80 % of the time". The lower
    panel counts how many predictions fell in each bin, which shows over-confidence as a
    pile-up at 0 and 1.
    """
    import pandas as pd

    if not isinstance(tables, dict) or not tables:
        raise TypeError("tables must be a non-empty dict: label -> reliability_table DataFrame")
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(6.2, 6.4), sharex=True,
                                      gridspec_kw={"height_ratios": [3, 1.3]})
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
    fig.tight_layout()
    return fig
