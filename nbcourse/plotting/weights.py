"""The weights of naive Bayes written as a linear model (lessons 04 and 05)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ._base import COLORS, checked_names, new_figure

__all__ = ["plot_top_weights", "plot_weight_comparison"]


#: Words seen fewer times than this, in both classes together, are drawn pale when
#: ``plot_top_weights`` gets their counts: their weights rest on a handful of messages.
RARE_WORD_COUNT = 10


def plot_top_weights(table, *, class_names=("class 0", "class 1"),
                     xlabel: str = "weight w_k (change in log-odds per occurrence)", counts=None):
    """Horizontal bars for a ``nbcourse.linear.top_weights`` table.

    Positive weights push a document towards ``class_names[1]``, negative ones towards
    ``class_names[0]``; the largest sit at the top and bottom.

    ``counts`` (optional) gives the counts behind each weight: a DataFrame indexed by
    word with one column per class, in the order of ``class_names``, for instance
    ``pd.DataFrame(model.feature_count_.T, index=vocabulary, columns=model.classes_)``.
    Each bar is then labelled with its word's counts, and the bars of words seen fewer
    than ``RARE_WORD_COUNT`` times are pale: a weight that rests on three messages is
    not as solid as one that rests on three hundred.
    """
    if not isinstance(table, pd.DataFrame) or not {"feature", "weight"} <= set(table.columns):
        raise TypeError("table must be a DataFrame with 'feature' and 'weight' columns, "
                        "as returned by nbcourse.linear.top_weights")
    if table.empty:
        raise ValueError("table is empty: there are no weights to draw")
    class_names = checked_names(class_names, 2, "class_names")
    ordered = table.sort_values("weight", kind="stable")
    word_counts = None if counts is None else _counts_of(ordered["feature"], counts)
    weights = ordered["weight"].to_numpy(dtype=float)
    positive = weights > 0
    rows = np.arange(len(ordered))

    fig, ax = new_figure((6.4, 0.28 * len(ordered) + 1.4), layout="tight")
    for side, color, name in ((positive, COLORS["orange"], class_names[1]),
                              (~positive, COLORS["blue"], class_names[0])):
        bars = ax.barh(rows[side], weights[side], color=color, label=f"pushes towards {name}")
        if word_counts is not None:
            _label_counts(ax, bars, word_counts[side], class_names)
    ax.set_yticks(rows, ordered["feature"].astype(str))
    ax.axvline(0.0, color=COLORS["black"], linewidth=0.8)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("word")
    if word_counts is not None:
        from matplotlib.patches import Patch

        reach = np.abs(weights).max()
        ax.set_xlim(min(0.0, weights.min()) - 0.45 * reach, max(0.0, weights.max()) + 0.45 * reach)
        handles, _ = ax.get_legend_handles_labels()
        handles.append(Patch(facecolor="0.85", edgecolor="0.5",
                             label=f"pale: seen < {RARE_WORD_COUNT} times in all"))
        ax.legend(handles=handles, loc="lower right", fontsize=9)
        ax.set_title(f"beside each bar: occurrences in {class_names[1]} / {class_names[0]} "
                     "training messages", fontsize=9)
    else:
        ax.legend(loc="lower right", fontsize=9)
    return fig


def _counts_of(words, counts) -> np.ndarray:
    """The (word, class) counts of ``words`` as an array with two columns."""
    if not isinstance(counts, pd.DataFrame) or counts.shape[1] != 2:
        raise TypeError("counts must be a DataFrame indexed by word with two columns (one "
                        "per class), e.g. pd.DataFrame(model.feature_count_.T, "
                        "index=vocabulary, columns=model.classes_)")
    missing = [str(word) for word in words if word not in counts.index]
    if missing:
        raise ValueError(f"counts has no row for the words {missing[:5]}")
    return counts.loc[list(words)].to_numpy(dtype=float)


def _label_counts(ax, bars, word_counts, class_names) -> None:
    """Write "n1 / n0" at the end of each bar and make the bars of rare words pale."""
    for bar, (n0, n1) in zip(bars, word_counts):
        if n0 + n1 < RARE_WORD_COUNT:
            bar.set_alpha(0.35)
            bar.set_edgecolor("0.4")
        end = bar.get_width()
        ax.annotate(f"{n1:,.0f} / {n0:,.0f}", (end, bar.get_y() + bar.get_height() / 2),
                    xytext=(4 if end > 0 else -4, 0), textcoords="offset points",
                    ha="left" if end > 0 else "right", va="center", fontsize=8)


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
    labels = checked_names(labels, 2, "labels")
    fig, ax = new_figure((6.6, 5.4), layout="tight")
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
    return fig
