"""The weights of naive Bayes written as a linear model (lessons 04 and 05)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ._base import COLORS, checked_names, new_figure

__all__ = ["plot_top_weights", "plot_weight_comparison"]


def plot_top_weights(table, *, class_names=("class 0", "class 1"),
                     xlabel: str = "weight w_k (change in log-odds per occurrence)"):
    """Horizontal bars for a ``nbcourse.linear.top_weights`` table.

    Positive weights push a document towards ``class_names[1]``, negative ones towards
    ``class_names[0]``; the largest sit at the top and bottom.
    """
    if not isinstance(table, pd.DataFrame) or not {"feature", "weight"} <= set(table.columns):
        raise TypeError("table must be a DataFrame with 'feature' and 'weight' columns, "
                        "as returned by nbcourse.linear.top_weights")
    if table.empty:
        raise ValueError("table is empty: there are no weights to draw")
    class_names = checked_names(class_names, 2, "class_names")
    ordered = table.sort_values("weight", kind="stable")
    weights = ordered["weight"].to_numpy(dtype=float)
    positive = weights > 0
    rows = np.arange(len(ordered))

    fig, ax = new_figure((6.4, 0.28 * len(ordered) + 1.4), layout="tight")
    ax.barh(rows[positive], weights[positive], color=COLORS["orange"],
            label=f"pushes towards {class_names[1]}")
    ax.barh(rows[~positive], weights[~positive], color=COLORS["blue"],
            label=f"pushes towards {class_names[0]}")
    ax.set_yticks(rows, ordered["feature"].astype(str))
    ax.axvline(0.0, color=COLORS["black"], linewidth=0.8)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("word")
    ax.legend(loc="lower right", fontsize=9)
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
