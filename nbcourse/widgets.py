"""Sliders for the lessons: thin wiring only.

The maths lives in pure functions (``nbcourse.smoothing``, ``nbcourse.naive_bayes`` ...)
that the tests call directly; each builder here connects ipywidgets sliders to one of
those functions and to a plot in ``nbcourse.plotting``, and returns the widget so a
test (or the browser test) can set a value and read what was printed.
"""
from __future__ import annotations

import ipywidgets as widgets

from .smoothing import beta_summary
from .smoothing_strength import (SPAM_ALPHAS, WEATHER_ALPHAS, WEATHER_MAX, WEATHER_STEP,
                                 alpha_curve, fit_each_alpha, posterior_of, spam_alpha_curve,
                                 spam_validation_scores)

__all__ = [
    "BetaExplorer", "beta_explorer", "beta_estimates_line",
    "SmoothingExplorer", "smoothing_explorer", "smoothing_line",
    "SpamAlphaExplorer", "spam_alpha_slider", "format_alpha_line",
]

# ----- notebook 02 (Beta pseudo-counts, smoothing strength on the weather example) -------
# Both explorers print exactly one line into an Output widget and show the plot as a PNG
# in an Image widget, so a test (or a browser) can read the line and see the image change.
# Sliders update while dragged; one update re-uses the figure's lines and bars instead of
# drawing a new figure, which keeps it well under a tenth of a second.


def _estimate_text(value) -> str:
    return "undefined" if value is None else f"{value:.4f}"


def beta_estimates_line(a, b, heads, tails) -> str:
    """The coin-toss slider's printed line, computed by ``nbcourse.smoothing.beta_summary``:
    ``posterior Beta(5, 2): MLE = 1.0000, MAP = 0.8000, mean = 0.7143`` (prior Beta(2, 2),
    3 heads, 0 tails). An estimate that does not exist is printed as ``undefined``."""
    s = beta_summary(a, b, heads, tails)
    return (f"posterior Beta({s.posterior_a:g}, {s.posterior_b:g}): "
            f"MLE = {_estimate_text(s.mle)}, MAP = {_estimate_text(s.map)}, "
            f"mean = {_estimate_text(s.posterior_mean)}")


def _print_line(output, line: str):
    """Replace what ``output`` shows by one printed line (works with or without a kernel)."""
    output.outputs = ()
    output.append_stdout(line + "\n")


def _slider(kind, description, css_class, **kwargs):
    slider = kind(description=description, continuous_update=True,
                  style={"description_width": "initial"},
                  layout=widgets.Layout(width="420px"), **kwargs)
    slider.add_class(css_class)
    return slider


class BetaExplorer(widgets.VBox):
    """Sliders a, b (the prior's pseudo-counts) and heads, tails (the data), a printed
    line from :func:`beta_estimates_line` and the picture of
    :class:`nbcourse.plotting.BetaUpdatePlot`.

    CSS classes: ``nbcourse-beta-a``, ``nbcourse-beta-b``, ``nbcourse-heads``,
    ``nbcourse-tails`` (sliders), ``nbcourse-beta-readout`` (the line) and
    ``nbcourse-beta-plot`` (the image).
    """

    def __init__(self, a=2.0, b=2.0, heads=3, tails=0, max_count=50):
        from .plotting import BetaUpdatePlot

        self.a = _slider(widgets.FloatSlider, "prior a (pseudo-heads)", "nbcourse-beta-a",
                         value=a, min=0.5, max=20.0, step=0.5)
        self.b = _slider(widgets.FloatSlider, "prior b (pseudo-tails)", "nbcourse-beta-b",
                         value=b, min=0.5, max=20.0, step=0.5)
        self.heads = _slider(widgets.IntSlider, "heads N1", "nbcourse-heads",
                             value=heads, min=0, max=max_count)
        self.tails = _slider(widgets.IntSlider, "tails N0", "nbcourse-tails",
                             value=tails, min=0, max=max_count)
        self.readout = widgets.Output()
        self.readout.add_class("nbcourse-beta-readout")
        self.image = widgets.Image(format="png")
        self.image.add_class("nbcourse-beta-plot")
        self.plot = BetaUpdatePlot(*self.values)
        super().__init__([widgets.HBox([widgets.VBox([self.a, self.b]),
                                        widgets.VBox([self.heads, self.tails])]),
                          self.readout, self.image])
        for slider in (self.a, self.b, self.heads, self.tails):
            slider.observe(self._refresh, names="value")
        self._refresh()

    @property
    def values(self) -> tuple:
        """(a, b, heads, tails) as the sliders show them now."""
        return self.a.value, self.b.value, self.heads.value, self.tails.value

    @property
    def line(self) -> str:
        """The line currently printed."""
        return "".join(item.get("text", "") for item in self.readout.outputs).strip()

    def _refresh(self, change=None):
        _print_line(self.readout, beta_estimates_line(*self.values))
        self.image.value = self.plot.update(*self.values).to_png()


def beta_explorer(a=2.0, b=2.0, heads=3, tails=0) -> BetaExplorer:
    """Build the coin-toss explorer of notebook 02 (see :class:`BetaExplorer`)."""
    return BetaExplorer(a, b, heads, tails)


def _smoothing_line(model, query, alpha, target, probability=None) -> str:
    """``alpha = 2.0 -> P(no | x) = 0.4630, prediction: yes``; alpha is printed in full.

    ``probability`` is P(target | query) if the caller has it already."""
    if probability is None:
        probability = posterior_of(model, query, target)
    prediction = str(model.predict(dict(query))[0])
    return f"alpha = {float(alpha)} -> P({target} | x) = {probability:.4f}, prediction: {prediction}"


def smoothing_line(X, y, query, alpha, target="no") -> str:
    """The weather slider's printed line for one alpha: fit ``CategoricalNB(alpha=alpha)``
    on (X, y), then print P(target | query) and the prediction."""
    return _smoothing_line(fit_each_alpha(X, y, [alpha])[float(alpha)], query, alpha, target)


class SmoothingExplorer(widgets.VBox):
    """A slider for the smoothing strength alpha on a small categorical table (the
    weather data), a menu of queries, the printed line of :func:`smoothing_line` and
    the picture of :class:`nbcourse.plotting.SmoothingEffectPlot`.

    CSS classes: ``nbcourse-alpha`` (slider, 0 to 20 in steps of 0.5), ``nbcourse-query``
    (menu, shown when there is more than one query), ``nbcourse-alpha-readout`` (the line)
    and ``nbcourse-alpha-plot`` (the image). ``curves`` may pass the result of
    :func:`nbcourse.smoothing_strength.alpha_curve` for these queries, to avoid computing it twice; each alpha's
    model is fitted the first time the slider reaches it and then kept.
    """

    def __init__(self, X, y, queries, alpha=0.0, target="no", curves=None):
        from .plotting import SmoothingEffectPlot

        if not queries:
            raise ValueError("queries must name at least one query, e.g. {'x': {...}}")
        self.X, self.y, self.queries, self.target = X, y, dict(queries), target
        self._models = {}
        if curves is None:
            self._models = fit_each_alpha(X, y, WEATHER_ALPHAS)
            curves = alpha_curve(X, y, self.queries, WEATHER_ALPHAS, target,
                                 models=self._models)
        missing = [name for name in self.queries if name not in curves.columns]
        if missing:
            raise ValueError(f"curves has no column for the queries {missing}")
        self.curves = curves
        self.alpha = _slider(widgets.FloatSlider, "alpha (smoothing)", "nbcourse-alpha",
                             value=alpha, min=0.0, max=WEATHER_MAX, step=WEATHER_STEP,
                             readout_format=".1f")
        self.query = widgets.Dropdown(options=list(self.queries), description="query x",
                                      layout=widgets.Layout(width="420px"))
        self.query.add_class("nbcourse-query")
        self.readout = widgets.Output()
        self.readout.add_class("nbcourse-alpha-readout")
        self.image = widgets.Image(format="png")
        self.image.add_class("nbcourse-alpha-plot")
        name = self.query.value
        self.plot = SmoothingEffectPlot(self.curves[name], self._model(alpha),
                                        self.queries[name], target)
        controls = [self.alpha] + ([self.query] if len(self.queries) > 1 else [])
        super().__init__([widgets.HBox(controls), self.readout, self.image])
        self.alpha.observe(self._refresh, names="value")
        self.query.observe(self._refresh, names="value")
        self._refresh()

    def _model(self, alpha):
        alpha = float(alpha)
        if alpha not in self._models:
            self._models.update(fit_each_alpha(self.X, self.y, [alpha]))
        return self._models[alpha]

    @property
    def line(self) -> str:
        """The line currently printed."""
        return "".join(item.get("text", "") for item in self.readout.outputs).strip()

    def _refresh(self, change=None):
        name, alpha = self.query.value, self.alpha.value
        model, query = self._model(alpha), self.queries[name]
        probability = posterior_of(model, query, self.target)  # once, for line and picture
        _print_line(self.readout,
                    _smoothing_line(model, query, alpha, self.target, probability))
        self.image.value = self.plot.update(self.curves[name], model, query,
                                            probability=probability).to_png()


def smoothing_explorer(X, y, queries, alpha=0.0, target="no", curves=None) -> SmoothingExplorer:
    """Build the smoothing-strength explorer of notebook 02 (see :class:`SmoothingExplorer`)."""
    return SmoothingExplorer(X, y, queries, alpha, target, curves)


# ----- notebook 05 (alpha on the spam filter's validation set) ----------------------------

def format_alpha_line(alpha, scores) -> str:
    """The slider's printed line, e.g.
    ``alpha = 0.1 -> validation accuracy 0.9928, precision 0.9861, recall 0.9595``."""
    return (f"alpha = {alpha:g} -> validation accuracy {scores['accuracy']:.4f}, "
            f"precision {scores['precision']:.4f}, recall {scores['recall']:.4f}")


class SpamAlphaExplorer(widgets.VBox):
    """A slider for alpha that refits the spam filter and shows its validation scores.

    Children: the slider (CSS class ``nbcourse-spam-alpha``, the values of
    :data:`SPAM_ALPHAS`), an ``Output`` with one printed line from :func:`format_alpha_line`
    (class ``nbcourse-spam-alpha-readout``) and an ``Image`` of
    :class:`nbcourse.plotting.AlphaCurvePlot` with the current alpha marked (class
    ``nbcourse-spam-alpha-plot``). Each move refits ``MultinomialNB(alpha=alpha)`` on the
    training matrix and scores it on the validation matrix.
    """

    def __init__(self, X_train, y_train, X_val, y_val, value=1.0, positive="spam"):
        from .plotting import AlphaCurvePlot

        if value not in SPAM_ALPHAS:
            raise ValueError(f"value must be one of the slider's alphas {SPAM_ALPHAS}, got {value!r}")
        self.data = (X_train, y_train, X_val, y_val)
        self.positive = positive
        self.curve = spam_alpha_curve(*self.data, positive=positive)
        self.slider = _slider(widgets.SelectionSlider, "alpha (smoothing)", "nbcourse-spam-alpha",
                              options=[(f"{a:g}", a) for a in SPAM_ALPHAS], value=value)
        self.readout = widgets.Output()
        self.readout.add_class("nbcourse-spam-alpha-readout")
        self.image = widgets.Image(format="png")
        self.image.add_class("nbcourse-spam-alpha-plot")
        self.plot = AlphaCurvePlot(self.curve, value, self.curve.set_index("alpha").loc[value])
        super().__init__([self.slider, self.readout, self.image])
        self.slider.observe(self._refresh, names="value")
        self._refresh()

    @property
    def line(self) -> str:
        """The line currently printed."""
        return "".join(item.get("text", "") for item in self.readout.outputs).strip()

    def _refresh(self, change=None):
        alpha = self.slider.value
        scores = spam_validation_scores(alpha, *self.data, positive=self.positive)
        _print_line(self.readout, format_alpha_line(alpha, scores))
        self.image.value = self.plot.update(alpha, scores).to_png()


def spam_alpha_slider(X_train, y_train, X_val, y_val, *, value=1.0, positive="spam"):
    """Build the spam filter's alpha explorer of notebook 05 (see :class:`SpamAlphaExplorer`)."""
    return SpamAlphaExplorer(X_train, y_train, X_val, y_val, value, positive)
