"""The tables a lecture slide shows for a fitted `CategoricalNB`.

Counts, likelihoods as unreduced fractions ('2/9'), priors ('9/14') and the joint
scores P(y) * prod_i P(x_i | y), exactly as fractions where asked. They are a mixin so
that the estimator's file holds the estimator; every number comes from the fitted
counts and from the estimator's one smoothing step, ``_smoothed_counts``.
"""
from __future__ import annotations

import numpy as np
import pandas as pd


class _SlideTables:
    """frequency_table, likelihood_table, prior_table, joint_proba and exact predict_proba."""

    def frequency_table(self, feature) -> pd.DataFrame:
        """Counts of each value of ``feature`` within each class (values x classes)."""
        i = self._feature(feature)
        counts = self.category_count_[i].T
        if np.array_equal(counts, np.round(counts)):
            counts = counts.astype(int)
        return pd.DataFrame(counts, index=self._category_index(i),
                            columns=pd.Index(self.classes_, name="class"))

    def likelihood_table(self, feature, numeric: bool = False) -> pd.DataFrame:
        """P(value | class) as the fractions a person writes, e.g. '2/9' and '3/5'.

        The fractions are left unreduced (3/9, not 1/3) so they show the counts they
        come from; they are the numerators and denominators of the smoothing step that
        made ``feature_log_prob_`` in the last fit. ``numeric=True`` returns the same
        table as floats.
        """
        i = self._feature(feature)
        counts, totals = self._smoothed_counts(i)
        if numeric:
            with np.errstate(invalid="ignore"):
                table = counts / totals
        else:
            table = np.vectorize(lambda n, d: f"{_number(n)}/{_number(d)}")(
                counts, np.broadcast_to(totals, counts.shape))
        return pd.DataFrame(table.T, index=self._category_index(i),
                            columns=pd.Index(self.classes_, name="class"))

    def prior_table(self, numeric: bool = False) -> pd.Series:
        """P(class) as counts over the total, e.g. '9/14' and '5/14'.

        With ``class_prior`` or ``fit_prior=False`` the table shows the prior the model
        uses instead.
        """
        self._check_fitted()
        index = pd.Index(self.classes_, name="class")
        if numeric:
            return pd.Series(np.exp(self.class_log_prior_), index=index, name="P(class)")
        total = self.class_count_.sum()
        if self._counted_prior_:
            values = [f"{_number(n)}/{_number(total)}" for n in self.class_count_]
        else:
            values = [str(p) for p in self._prior_exact_]
        return pd.Series(values, index=index, name="P(class)")

    # ----- scores ---------------------------------------------------------------------
    def joint_proba(self, X, exact: bool = False) -> pd.DataFrame:
        """Unnormalised scores P(y) * prod_i P(x_i | y): the numbers compared by hand.

        With ``exact=True`` the scores are ``fractions.Fraction`` objects (1/189 rather
        than 0.0053); alpha is then read as the decimal it was typed as (0.5 is 1/2).
        """
        self._check_fitted()
        data = self._check_X(X, first=False)
        codes = self._encode(data)
        columns = pd.Index(self.classes_, name="class")
        if not exact:
            return pd.DataFrame(np.exp(self._jll_from_codes(codes)), index=data.index,
                                columns=columns)
        likelihoods = []
        for i in range(self.n_features_in_):
            counts, totals = self._smoothed_counts(i, exact=True)
            if np.any(totals == 0):
                raise ValueError(
                    "a class has no count for a feature and alpha = 0: its likelihoods are "
                    "0/0; use alpha > 0")
            likelihoods.append(counts / totals)
        rows = []
        for sample in codes:
            row = []
            for c, prior in enumerate(self._prior_exact_):
                score = prior
                for i, code in enumerate(sample):
                    score *= likelihoods[i][c][code]
                row.append(score)
            rows.append(row)
        return pd.DataFrame(rows, index=data.index, columns=columns)

    def predict_proba(self, X, exact: bool = False):
        """P(y | x); with ``exact=True`` a DataFrame of Fractions (18/875 over the sum)."""
        if not exact:
            return super().predict_proba(X)
        joint = self.joint_proba(X, exact=True)
        totals = joint.sum(axis=1)
        if (totals == 0).any():
            raise ValueError("a sample has probability zero under every class; use alpha > 0")
        return joint.div(totals, axis=0)


def _number(x) -> str:
    """Format a count for a fraction label: 2 rather than 2.0, 0.5 stays 0.5."""
    x = float(x)
    return str(int(x)) if x.is_integer() else f"{x:g}"
