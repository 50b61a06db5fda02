"""nbcourse.widgets: the sliders print what the library computes for the value chosen,
and their picture changes with it."""
import io
import re

import pytest
from PIL import Image

from nbcourse import evaluation, smoothing_strength, widgets
from nbcourse.naive_bayes import MultinomialNB

#: The spam slider's printed line; the browser test parses it with this pattern.
ALPHA_LINE = re.compile(
    r"^alpha = (?P<alpha>[0-9.e+-]+) -> validation accuracy (?P<accuracy>[01]\.\d{4}), "
    r"precision (?P<precision>[01]\.\d{4}), recall (?P<recall>[01]\.\d{4})$")


def test_moving_the_slider_prints_what_nbcourse_computes_and_redraws(sms_split):
    explorer = widgets.spam_alpha_slider(*sms_split, value=1.0)
    assert "nbcourse-spam-alpha" in explorer.slider._dom_classes
    assert "nbcourse-spam-alpha-readout" in explorer.readout._dom_classes
    assert explorer.slider.description
    lines, pictures = set(), set()
    for alpha in (0.01, 0.2, 1.0, 5.0, 10.0):
        explorer.slider.value = alpha
        expected = widgets.format_alpha_line(alpha, smoothing_strength.spam_validation_scores(alpha, *sms_split))
        assert explorer.line == expected
        match = ALPHA_LINE.match(explorer.line)
        assert match and float(match["alpha"]) == alpha
        model = MultinomialNB(alpha=float(match["alpha"])).fit(sms_split[0], sms_split[1])
        scores = evaluation.binary_scores(sms_split[3], model.predict(sms_split[2]), "spam")
        assert float(match["recall"]) == round(scores["recall"], 4)
        lines.add(explorer.line)
        pictures.add(explorer.image.value)
        assert Image.open(io.BytesIO(explorer.image.value)).format == "PNG"
    assert len(lines) == 5 and len(pictures) == 5  # numbers and picture both change


def test_alpha_line_format_is_the_documented_one():
    line = widgets.format_alpha_line(0.1, {"accuracy": 0.98123, "precision": 0.97006, "recall": 0.88889})
    assert line == "alpha = 0.1 -> validation accuracy 0.9812, precision 0.9701, recall 0.8889"
    assert ALPHA_LINE.match(line)


def test_slider_refuses_a_value_it_does_not_offer(sms_split):
    with pytest.raises(ValueError, match="one of the slider's alphas"):
        widgets.spam_alpha_slider(*sms_split, value=0.3)



def test_widgets_is_wiring_only():
    """Every formula the sliders print lives elsewhere: widgets exports only builders and
    the printed lines."""
    assert set(widgets.__all__) == {
        "BetaExplorer", "beta_explorer", "beta_estimates_line", "SmoothingExplorer",
        "smoothing_explorer", "smoothing_line", "SpamAlphaExplorer", "spam_alpha_slider",
        "format_alpha_line"}
    assert widgets.alpha_curve is smoothing_strength.alpha_curve
    assert not hasattr(widgets, "smoothed_posterior") and not hasattr(widgets, "format_smoothing_line")


def test_a_weather_slider_move_computes_the_posterior_once(monkeypatch):
    """The printed line and the picture show the same P(no | x): computed once a move."""
    from nbcourse.datasets import load_weather
    from nbcourse.naive_bayes import CategoricalNB

    data = load_weather()
    X, y = data.drop(columns="play"), data["play"]
    query = {"outlook": "sunny", "temperature": "cool", "humidity": "high", "windy": "true"}
    explorer = widgets.smoothing_explorer(X, y, {"lecture": query})
    calls = []
    original = CategoricalNB.predict_proba
    monkeypatch.setattr(CategoricalNB, "predict_proba",
                        lambda self, X: calls.append(1) or original(self, X))
    explorer.alpha.value = 2.0
    assert len(calls) == 1 and "alpha = 2.0" in explorer.line
    assert (explorer.alpha.max, explorer.alpha.step) == (smoothing_strength.WEATHER_MAX,
                                                         smoothing_strength.WEATHER_STEP)


def test_the_sliders_grids_have_one_home():
    """The weather slider offers exactly the curve's slider values, and the spam slider the
    spam alphas: both read them from `smoothing_strength`, where the maths is."""
    from nbcourse import evaluation

    explorer_values = [k * smoothing_strength.WEATHER_STEP for k in
                       range(1, round(smoothing_strength.WEATHER_MAX
                                      / smoothing_strength.WEATHER_STEP) + 1)]
    assert set(explorer_values) <= set(smoothing_strength.WEATHER_ALPHAS)
    assert smoothing_strength.WEATHER_ALPHAS[-1] == smoothing_strength.WEATHER_MAX
    for name in ("alpha_curve", "fit_each_alpha", "posterior_of", "spam_alpha_curve",
                 "spam_validation_scores", "SPAM_ALPHAS", "WEATHER_ALPHAS"):
        assert not hasattr(evaluation, name), f"evaluation (metrics) still holds {name}"
