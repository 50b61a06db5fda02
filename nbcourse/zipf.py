"""Zipf's law: a few words are very common and most are rare.

Ranking the words of a corpus by their count and fitting a line on log-log axes shows
why a vocabulary keeps growing and why most words are seen once or twice: the reason
naive Bayes needs smoothing for words it has barely seen (lessons 05 and 07).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ._checks import check_finite

__all__ = ["zipf_table", "zipf_fit", "zipf_slope"]


def zipf_table(X, feature_names) -> pd.DataFrame:
    """Words ranked by their total count in the corpus: columns ``word``, ``count``, ``rank``.

    Zipf's law says the n-th most common word occurs about 1/n as often as the most
    common one; plotting ``count`` against ``rank`` on log-log axes shows it as a
    roughly straight line. Ties keep alphabetical order so the table is reproducible.
    """
    names = np.asarray(feature_names, dtype=object)
    if names.ndim != 1:
        raise ValueError(f"feature_names must be 1-D (one word per column), got shape {names.shape}")
    if sp.issparse(X):
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D (documents x words), got shape {X.shape}")
        totals = np.asarray(X.sum(axis=0)).ravel()
        has_negative = X.nnz > 0 and X.min() < 0
    else:
        X = np.asarray(X)
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D (documents x words), got shape {X.shape}")
        if not np.issubdtype(X.dtype, np.number):
            raise TypeError(f"X must hold counts (numbers), got dtype {X.dtype}")
        totals = X.sum(axis=0)
        has_negative = bool((X < 0).any())
    if X.shape[1] != names.shape[0]:
        raise ValueError(
            f"X has {X.shape[1]} columns but feature_names has {names.shape[0]} words; "
            "they must describe the same vocabulary")
    if has_negative:
        raise ValueError("X must hold non-negative counts")
    if np.issubdtype(np.asarray(totals).dtype, np.floating):  # a column's total: NaN or inf
        check_finite(totals, "X", fix="counts must be finite numbers")
    alphabetical = np.argsort(names.astype(str), kind="stable")
    order = alphabetical[np.argsort(-totals[alphabetical], kind="stable")]
    return pd.DataFrame({
        "word": names[order].astype(str),
        "count": totals[order],
        "rank": np.arange(1, len(order) + 1),
    })


def _checked_zipf_table(table) -> pd.DataFrame:
    if not isinstance(table, pd.DataFrame) or not {"word", "count", "rank"} <= set(table.columns):
        raise TypeError("table must be a DataFrame with columns word, count, rank, "
                        "as returned by zipf_table")
    table = table[table["count"] > 0]
    if table.empty:
        raise ValueError("table has no word with a positive count to draw")
    return table


def zipf_fit(table, ranks=(10, 1000)) -> tuple[float, float, int, int]:
    """The least-squares line log10(count) = slope * log10(rank) + intercept over the words
    of rank ``ranks[0]`` to ``ranks[1]`` of :func:`zipf_table` (words with count 0 left out):
    (slope, intercept, first rank used, last rank used)."""
    table = _checked_zipf_table(table)
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
    ``table`` is :func:`zipf_table`; ranks past the end of it are ignored.
    """
    return zipf_fit(table, ranks)[0]
