"""Beta priors, the Bayesian update of a coin and how the prior washes out (lesson 02)."""
from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from .. import smoothing as _smoothing
from ._base import COLORS, LivePlot, new_figure

__all__ = ["plot_beta_densities", "BetaUpdatePlot", "plot_beta_update", "plot_prior_washout"]

# theta grid for Beta curves; the edges are left out because a Beta(a < 1, b) density is
# infinite there.
_THETA = np.linspace(0.0, 1.0, 301)[1:-1]


def plot_beta_densities(params=((1, 1), (2, 2), (5, 5), (2, 5), (0.5, 0.5))) -> Figure:
    """A few Beta(a, b) priors: a / (a + b) sets where the bump is, a + b how narrow it is."""
    fig, ax = new_figure((7.5, 3.6))
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


class BetaUpdatePlot(LivePlot):
    """Prior Beta(a, b), the likelihood of the tosses and the posterior Beta(N1 + a, N0 + b).

    The likelihood theta^N1 (1 - theta)^N0 is a function of theta, not a density; it is
    drawn rescaled to area one (which makes it the Beta(N1 + 1, N0 + 1) density) so that
    the three curves share one axis. Vertical lines mark the MLE, the MAP and the
    posterior mean; an estimate that does not exist (MLE with no tosses, MAP of a flat
    posterior) is listed as undefined. ``update`` redraws in place for a slider.
    """

    # The MLE is often 0 or 1 (all heads): its line gets a colour and dash of its own and
    # the axis a margin, so that it is not lost against the frame or the likelihood curve.
    _MARKS = (("MLE", "mle", COLORS["purple"], (0, (4, 1.5)), 2.6),
              ("MAP", "map", COLORS["vermillion"], "-", 1.8),
              ("mean", "posterior_mean", COLORS["green"], "-.", 1.8))

    def __init__(self, a, b, heads, tails):
        self.figure, self.ax = new_figure((8.0, 3.8))
        ax = self.ax
        self.prior_line, = ax.plot(_THETA, _THETA, color=COLORS["blue"], linestyle="--",
                                   linewidth=2)
        self.likelihood_line, = ax.plot(_THETA, _THETA, color=COLORS["orange"], linestyle=":",
                                        linewidth=2.5)
        self.posterior_line, = ax.plot(_THETA, _THETA, color=COLORS["black"], linewidth=2)
        self.marks = [ax.axvline(0.5, color=color, linestyle=style, linewidth=width, zorder=3)
                      for _, _, color, style, width in self._MARKS]
        self._fill = None
        ax.set_xlim(-0.04, 1.04)
        ax.set_xlabel(r"$\theta$ = P(heads)")
        ax.set_ylabel("density")
        # Lay the figure out once, with the longest labels the sliders can produce, then
        # freeze that layout: updates are faster and the legend never jumps or gets cut.
        self.update(19.5, 19.5, 88, 88)
        ax.legend(handles=[self.prior_line, self.likelihood_line, self.posterior_line,
                           *self.marks], fontsize=8, loc="upper left",
                  bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
        self.freeze_layout()
        self.update(a, b, heads, tails)

    def update(self, a, b, heads, tails) -> "BetaUpdatePlot":
        """Redraw the three curves, the marks and the title for new a, b, heads, tails."""
        self.redraw_all()  # the y-axis follows the curves, so every part moves
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
    fig, ax = new_figure((8.0, 3.8))
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
