"""Words of a corpus: Zipf's law, and what multiplying many word probabilities does to a
float (lesson 05)."""
from __future__ import annotations

import numpy as np

from ..zipf import _checked_zipf_table, zipf_fit
from ._base import COLORS, new_figure

__all__ = ["plot_zipf", "plot_underflow"]


def plot_zipf(table, *, n_labels: int = 5, corpus: str = "the corpus", fit_ranks=(10, 1000)):
    """Word count against rank on log-log axes, with Zipf's law as a dashed reference.

    ``table`` is :func:`nbcourse.text.zipf_table`. Zipf's law says the word of rank r
    occurs about count(rank 1) / r times: a straight line of slope -1 on these axes.
    With ``fit_ranks`` (None to leave it out) a dotted line shows the least-squares fit
    of :func:`nbcourse.text.zipf_fit` over those ranks, its slope in the legend. The ``n_labels``
    most common words are written next to their points.
    """
    table = _checked_zipf_table(table)
    rank = table["rank"].to_numpy(dtype=float)
    count = table["count"].to_numpy(dtype=float)
    fig, ax = new_figure((6.4, 4.4), layout="tight")
    ax.loglog(rank, count, color=COLORS["blue"], marker=".", markersize=3, linestyle="none",
              label=f"words of {corpus} ({len(table):,})")
    ax.loglog(rank, count[0] / rank, color=COLORS["vermillion"], linestyle="--",
              label="Zipf's law through the top word: count(rank 1) / rank")
    if fit_ranks is not None:
        slope, intercept, low, high = zipf_fit(table, fit_ranks)
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
    fig, ax = new_figure((7.0, 4.2), layout="tight")
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
    return fig
