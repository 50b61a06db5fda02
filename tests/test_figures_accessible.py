"""The lessons' figures for readers who cannot see them, or cannot tell red from green.

* Every figure a lesson stores has alt text in its cell's metadata (what the course site
  gives a screen reader), written in tools/figure_alt_text.py.
* The colours that tell classes apart stay far apart for colour-blind readers: simulated
  protanopia, deuteranopia and tritanopia (Machado, Oliveira & Fernandes 2009, full
  severity), distance measured in CIELAB (Delta E 1976; about 2.3 is just noticeable).
* Where two lines of a plot have colours such a reader can confuse, they also differ in
  line style or marker.
"""
from __future__ import annotations

import importlib.util
import itertools

import numpy as np
import pytest
from matplotlib.colors import to_rgb

from course_paths import REPO
from nbcourse import plotting
from nbcourse.plotting import CLASS_COLORS, COLORS

_spec = importlib.util.spec_from_file_location("figure_alt_text",
                                               REPO / "tools" / "figure_alt_text.py")
figure_alt_text = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(figure_alt_text)

#: linear-RGB matrices of Machado et al. (2009), severity 1.0
SIMULATIONS = {
    "protanopia": [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216],
                   [-0.003882, -0.048116, 1.051998]],
    "deuteranopia": [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413],
                     [-0.011820, 0.042940, 0.968881]],
    "tritanopia": [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602],
                   [0.004733, 0.691367, 0.303900]],
}
#: below this Delta E two colours are a weak cue for some reader: a plot must not rely on it
CONFUSABLE = 20.0


def _lab(color, simulation=None) -> np.ndarray:
    srgb = np.array(to_rgb(color))
    linear = np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4)
    if simulation is not None:
        linear = np.clip(np.array(SIMULATIONS[simulation]) @ linear, 0, 1)
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722],
                    [0.0193, 0.1192, 0.9505]]) @ linear / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def worst_delta_e(a, b) -> float:
    """The smallest distance between two colours for any of the three colour-blind readers."""
    return min(float(np.linalg.norm(_lab(a, s) - _lab(b, s))) for s in SIMULATIONS)


def test_every_lesson_figure_has_alt_text_that_says_what_it_shows():
    problems = figure_alt_text.check()
    assert not problems, "\n".join(problems)
    texts = [text for _, _, text in figure_alt_text.ALT_TEXTS]
    assert len(set(texts)) == len(texts), "two figures share one description"


def test_the_simulation_knows_what_colour_blind_readers_confuse():
    # the classic confusion (red against green) and a safe pair (blue against orange)
    assert worst_delta_e("#FF0000", "#008000") < 45 < worst_delta_e("#0072B2", "#E69F00")
    assert worst_delta_e("#0072B2", "#0072B2") == 0


@pytest.mark.parametrize("a, b", [*itertools.combinations(CLASS_COLORS[:2], 2),
                                  (COLORS["blue"], COLORS["orange"])])
def test_the_colours_of_two_classes_stay_far_apart_for_colour_blind_readers(a, b):
    # the pairs that tell ham from spam, yes from no, A from B in every two-class plot
    assert worst_delta_e(a, b) > 75, (a, b, worst_delta_e(a, b))


def _lines_only_colour_tells_apart(figure) -> list[tuple[str, str]]:
    clashes = []
    for ax in figure.axes:
        lines = [line for line in ax.get_lines() if not line.get_label().startswith("_")]
        for one, other in itertools.combinations(lines, 2):
            # a custom dash pattern reads as "--" here: counted as the same look, to be safe
            same_look = (one.get_linestyle(), one.get_marker()) == \
                (other.get_linestyle(), other.get_marker())
            if same_look and worst_delta_e(one.get_color(), other.get_color()) < CONFUSABLE:
                clashes.append((one.get_label(), other.get_label()))
    return clashes


def test_lines_a_colour_blind_reader_could_confuse_differ_in_style():
    rng = np.random.default_rng(0)
    figures = {
        "beta densities (lesson 02)": plotting.plot_beta_densities(),
        "beta update (lesson 02)": plotting.plot_beta_update(2, 2, 3, 0),
        "prior washout (lesson 02)": plotting.plot_prior_washout(
            (rng.random(200) < 0.3).astype(int), [(1, 1), (10, 10), (40, 4)], true_theta=0.3),
    }
    for name, figure in figures.items():
        assert figure.axes[0].get_lines(), name
        assert not _lines_only_colour_tells_apart(figure), (name, _lines_only_colour_tells_apart(figure))
