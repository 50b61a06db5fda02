"""The pure functions, plots and sliders behind notebooks 01 and 02.

A slider is only useful if what it prints is what the library computes for the value
the student chose, and if the picture changes with it. These tests set slider values
the way the browser does (``slider.value = ...``) and compare the printed line with
``nbcourse.smoothing`` and ``CategoricalNB`` computed independently here.
"""
import re
from fractions import Fraction

import numpy as np
import pytest

from nbcourse import CategoricalNB, plotting, smoothing, smoothing_strength, widgets
from nbcourse.datasets import load_weather

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

OVERCAST_DAY = {"outlook": "overcast", "temperature": "hot", "humidity": "high", "windy": "true"}
LECTURE_DAY = {"outlook": "sunny", "temperature": "cool", "humidity": "high", "windy": "true"}
QUERIES = {"overcast": OVERCAST_DAY, "lecture": LECTURE_DAY}

BETA_LINE = re.compile(
    r"^posterior Beta\((?P<pa>[\d.]+), (?P<pb>[\d.]+)\): MLE = (?P<mle>[\d.]+|undefined), "
    r"MAP = (?P<map>[\d.]+|undefined), mean = (?P<mean>[\d.]+)$")
ALPHA_LINE = re.compile(
    r"^alpha = (?P<alpha>[\d.]+) -> P\(no \| x\) = (?P<p>[\d.]+), prediction: (?P<pred>\w+)$")


@pytest.fixture(scope="module")
def weather():
    table = load_weather()
    return table.drop(columns="play"), table["play"]


@pytest.fixture(scope="module")
def curves(weather):
    return smoothing_strength.alpha_curve(*weather, QUERIES)


def expected_no(X, y, query, alpha):
    """P(no | query) and the prediction, straight from CategoricalNB."""
    model = CategoricalNB(alpha=alpha).fit(X, y)
    return (model.predict_proba(query)[0, list(model.classes_).index("no")],
            model.predict(query)[0])


def as_text(value):
    return "undefined" if value is None else f"{value:.4f}"


# ----- notebook 01: the numbers the lesson derives by hand ------------------------------

def test_weather_query_matches_the_hand_calculation(weather):
    model = CategoricalNB(alpha=0).fit(*weather)
    joint = model.joint_proba(LECTURE_DAY, exact=True).iloc[0]
    assert joint["yes"] == Fraction(1, 189) and joint["no"] == Fraction(18, 875)
    posterior = model.predict_proba(LECTURE_DAY, exact=True).iloc[0]
    assert posterior["yes"] == Fraction(125, 611) and posterior["no"] == Fraction(486, 611)
    assert model.predict(LECTURE_DAY)[0] == "no"


def test_overcast_day_has_probability_zero_for_no_without_smoothing(weather):
    model = CategoricalNB(alpha=0).fit(*weather)
    assert model.joint_proba(OVERCAST_DAY, exact=True).iloc[0]["no"] == 0
    assert model.predict_proba(OVERCAST_DAY)[0, list(model.classes_).index("no")] == 0.0


# ----- the coin-toss slider -----------------------------------------------------------

@pytest.mark.parametrize("a, b, heads, tails", [
    (2, 2, 3, 0), (1, 1, 3, 0), (20, 20, 3, 0), (2.5, 0.5, 7, 11), (0.5, 3, 0, 4), (1, 1, 0, 0)])
def test_beta_line_prints_what_smoothing_computes(a, b, heads, tails):
    line = widgets.beta_estimates_line(a, b, heads, tails)
    match = BETA_LINE.match(line)
    assert match, line
    summary = smoothing.beta_summary(a, b, heads, tails)
    assert float(match["pa"]) == heads + a and float(match["pb"]) == tails + b
    assert match["mle"] == as_text(summary.mle)
    assert match["map"] == as_text(summary.map)
    assert match["mean"] == f"{(heads + a) / (heads + tails + a + b):.4f}"


def test_beta_line_of_the_lecture_example():
    assert widgets.beta_estimates_line(2, 2, 3, 0) == \
        "posterior Beta(5, 2): MLE = 1.0000, MAP = 0.8000, mean = 0.7143"


def test_beta_line_says_undefined_when_an_estimate_does_not_exist():
    line = widgets.beta_estimates_line(0.5, 0.5, 0, 0)
    assert "MLE = undefined" in line and "MAP = undefined" in line and "mean = 0.5000" in line


def test_beta_explorer_sliders_change_the_line_and_the_picture():
    explorer = widgets.beta_explorer(a=2, b=2, heads=3, tails=0)
    assert explorer.line == widgets.beta_estimates_line(2, 2, 3, 0)
    before = bytes(explorer.image.value)
    assert before.startswith(PNG_SIGNATURE)
    for slider, value in [(explorer.tails, 7), (explorer.a, 4.5), (explorer.b, 0.5),
                          (explorer.heads, 12)]:
        previous_image = bytes(explorer.image.value)
        slider.value = value
        assert explorer.line == widgets.beta_estimates_line(*explorer.values)
        assert bytes(explorer.image.value) != previous_image
    assert explorer.values == (4.5, 0.5, 12, 7)
    summary = smoothing.beta_summary(4.5, 0.5, 12, 7)
    match = BETA_LINE.match(explorer.line)
    assert match["map"] == as_text(summary.map) and match["mean"] == as_text(
        summary.posterior_mean)
    # the plot's lines follow the sliders
    assert explorer.plot.marks[1].get_xdata()[0] == pytest.approx(summary.map)
    assert explorer.plot.marks[2].get_xdata()[0] == pytest.approx(summary.posterior_mean)


def test_beta_explorer_sliders_have_descriptions_and_css_classes():
    explorer = widgets.beta_explorer()
    for slider, css in [(explorer.a, "nbcourse-beta-a"), (explorer.b, "nbcourse-beta-b"),
                        (explorer.heads, "nbcourse-heads"), (explorer.tails, "nbcourse-tails")]:
        assert css in slider._dom_classes and slider.description
        assert slider.continuous_update
    assert "nbcourse-beta-readout" in explorer.readout._dom_classes
    assert "nbcourse-beta-plot" in explorer.image._dom_classes


# ----- the smoothing-strength slider ---------------------------------------------------

@pytest.mark.parametrize("alpha", [0.0, 0.5, 1.0, 2.5, 8.0, 8.5, 20.0])
@pytest.mark.parametrize("name", list(QUERIES))
def test_smoothing_line_prints_what_categorical_nb_computes(weather, name, alpha):
    line = widgets.smoothing_line(*weather, QUERIES[name], alpha)
    match = ALPHA_LINE.match(line)
    assert match, line
    probability, prediction = expected_no(*weather, QUERIES[name], alpha)
    assert float(match["alpha"]) == alpha
    assert match["p"] == f"{probability:.4f}"
    assert match["pred"] == prediction


def test_smoothing_line_shows_the_zero_and_the_flip(weather):
    assert widgets.smoothing_line(*weather, OVERCAST_DAY, 0.0) == \
        "alpha = 0.0 -> P(no | x) = 0.0000, prediction: yes"
    assert widgets.smoothing_line(*weather, LECTURE_DAY, 8.0).endswith("prediction: no")
    assert widgets.smoothing_line(*weather, LECTURE_DAY, 8.5).endswith("prediction: yes")


def test_alpha_curve_is_categorical_nb_at_every_alpha(weather, curves):
    assert list(curves.index) == list(widgets.WEATHER_ALPHAS)
    for alpha in (0.0, 0.05, 1.0, 13.5, 20.0):
        for name, query in QUERIES.items():
            assert curves.loc[alpha, name] == expected_no(*weather, query, alpha)[0]
    # as alpha grows the likelihoods flatten and P(no | x) heads for the prior 5/14
    far = smoothing_strength.alpha_curve(*weather, QUERIES, alphas=[1e6])
    assert np.allclose(far.to_numpy(), 5 / 14, atol=1e-4)


def test_smoothing_explorer_slider_changes_the_line_and_the_picture(weather, curves):
    explorer = widgets.smoothing_explorer(*weather, QUERIES, alpha=0.0, curves=curves)
    assert explorer.line == "alpha = 0.0 -> P(no | x) = 0.0000, prediction: yes"
    for alpha in (0.5, 1.0, 3.5, 20.0, 0.25):  # 0.25 is off the slider's grid
        previous_image = bytes(explorer.image.value)
        explorer.alpha.value = alpha
        match = ALPHA_LINE.match(explorer.line)
        probability, prediction = expected_no(*weather, OVERCAST_DAY, alpha)
        assert float(match["alpha"]) == alpha
        assert match["p"] == f"{probability:.4f}" and match["pred"] == prediction
        assert explorer.line == widgets.smoothing_line(*weather, OVERCAST_DAY, alpha)
        assert bytes(explorer.image.value) != previous_image
        assert bytes(explorer.image.value).startswith(PNG_SIGNATURE)
        assert tuple(explorer.plot.marker.get_data()[1]) == (probability,)
    explorer.query.value = "lecture"
    assert explorer.line == widgets.smoothing_line(*weather, LECTURE_DAY, 0.25)


def test_smoothing_explorer_has_css_classes_and_rejects_bad_input(weather, curves):
    explorer = widgets.smoothing_explorer(*weather, QUERIES, curves=curves)
    assert "nbcourse-alpha" in explorer.alpha._dom_classes and explorer.alpha.description
    assert "nbcourse-query" in explorer.query._dom_classes
    assert "nbcourse-alpha-readout" in explorer.readout._dom_classes
    assert "nbcourse-alpha-plot" in explorer.image._dom_classes
    with pytest.raises(ValueError, match="queries"):
        widgets.smoothing_explorer(*weather, {})
    with pytest.raises(ValueError, match="curves"):
        widgets.smoothing_explorer(*weather, {"other": LECTURE_DAY}, curves=curves)
    with pytest.raises(ValueError, match="target"):
        widgets.smoothing_line(*weather, LECTURE_DAY, 1.0, target="maybe")
    with pytest.raises(ValueError, match="never occurred"):
        widgets.smoothing_line(*weather, {**LECTURE_DAY, "outlook": "snowy"}, 1.0)


# ----- the plots ------------------------------------------------------------------------

def check_figure(fig, min_legend_entries):
    png = plotting.figure_to_png(fig)
    assert png.startswith(PNG_SIGNATURE) and len(png) > 5000
    for ax in fig.axes:
        assert ax.get_xlabel() and ax.get_ylabel()
        assert ax.get_legend() is not None
        assert len(ax.get_legend().get_texts()) >= min_legend_entries


def test_notebook_plots_render_with_labels_and_legends(weather, curves):
    model = CategoricalNB(alpha=0).fit(*weather)
    check_figure(plotting.plot_query_factors(model, LECTURE_DAY), 2)
    check_figure(plotting.plot_beta_densities(), 5)
    check_figure(plotting.plot_beta_update(2, 2, 3, 0), 6)
    check_figure(plotting.plot_beta_update(0.5, 0.5, 0, 0), 6)
    tosses = (np.random.default_rng(0).random(300) < 0.3).astype(int)
    check_figure(plotting.plot_prior_washout(tosses, true_theta=0.3), 5)
    smoothed = CategoricalNB(alpha=1).fit(*weather)
    check_figure(plotting.plot_smoothing_effect(curves["overcast"], smoothed, OVERCAST_DAY), 2)


def test_query_factor_plot_shows_the_zero_count(weather):
    model = CategoricalNB(alpha=0).fit(*weather)
    fig = plotting.plot_query_factors(model, OVERCAST_DAY)
    heights = {bar.get_x(): bar.get_height() for bar in fig.axes[0].patches}
    assert min(heights.values()) == 0.0  # P(overcast | no) = 0/5
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert labels == ["no: product = 0.0000", "yes: product = 0.0071"]


def test_plots_reject_bad_input(weather):
    model = CategoricalNB(alpha=0).fit(*weather)
    with pytest.raises(ValueError, match="never occurred"):
        plotting.plot_query_factors(model, {**LECTURE_DAY, "humidity": "damp"})
    with pytest.raises(ValueError, match="tosses"):
        plotting.plot_prior_washout([0, 1, 2])
    with pytest.raises(ValueError, match="a must be positive"):
        plotting.plot_beta_update(0, 1, 3, 0)


# ----- the prose of lessons 01 and 02, held to the outputs it quotes --------------------

def test_lesson_01_answer_on_the_pulls_matches_the_printed_pulls():
    from lesson_outputs import lesson, markdown_with, number_after, output_of

    notebook = lesson("01_")
    printed = output_of(notebook, "pulls = pd.Series(pulls")
    prior, windy = number_after(printed, "prior"), number_after(printed, "windy = true")
    sunny, cool = number_after(printed, "outlook = sunny"), number_after(printed, "temperature = cool")
    humid = number_after(printed, "humidity = high")
    assert prior == 0.59 and windy == -0.59            # they cancel exactly: 9/5 against 5/9
    assert cool == 0.51 and sunny == -0.99 and humid == -0.88
    assert cool < -(sunny + humid)                      # cool falls far short of the other two
    assert number_after(printed, "log P(yes | x) - log P(no | x):") == -1.36
    for marker in ("Three factors against two is not why", "not because three factors outnumber two"):
        answer = markdown_with(notebook, marker)
        for quoted in ("+0.59", "-0.59", "+0.51", "-0.99", "-0.88"):
            assert quoted in answer.replace("$", ""), (marker, quoted)
    assert "Three strong factors beat two weaker" not in "".join(c.source for c in notebook.cells)


def test_lesson_01_says_what_the_bayes_rule_optimises_and_when_naive_bayes_reaches_it():
    from lesson_outputs import lesson, markdown, markdown_with

    notebook = lesson("01_")
    section_1 = markdown_with(notebook, "## 1. Bayes rule gives the best possible classifier")
    assert "**0/1 loss**" in section_1 and "error rate" in section_1 and "*on average*" in section_1
    claim = markdown_with(notebook, "naive Bayes can be the best possible classifier")
    assert "*given the true*" in claim and "estimates" in claim
    recap = markdown_with(notebook, "## Recap")
    assert "only estimates" in recap and "expected 0/1 loss" in recap
    assert "Whatever it gets wrong, no other classifier could get" not in markdown(notebook)


def test_lesson_02_explains_why_the_wrong_prior_lands_closer_at_1000_tosses():
    from lesson_outputs import lesson, markdown_with, output_of

    notebook = lesson("02_")
    table = output_of(notebook, 'table[n]["heads N_1"] = heads')
    row = next(line.split() for line in table.splitlines() if line.startswith("1000"))
    flat, fair, wrong, mle, heads = (float(x) for x in row[1:])
    assert (heads, mle, wrong) == (277, 0.277, 0.304)
    assert abs(wrong - 0.3) < abs(mle - 0.3)            # the oddity the text explains
    text = markdown_with(notebook, "That is luck, not merit")
    assert "277 heads" in text and "0.304" in text and "0.277" in text
    sd = (1000 * 0.3 * 0.7) ** 0.5
    assert f"{sd:.1f}" in text and f"{(300 - heads) / sd:.1f} standard deviations" in text
    # "Had the tosses held anywhere from 287 to 909 heads, the MLE would have been the closer one"
    assert "from 287 to 909 heads" in text
    # "sits above N_1/1000 for every N_1 up to 909": 909 included, 910 not
    assert "for every $N_1$ up to 909" in text and "below 909" not in text
    above = [n1 for n1 in range(0, 1001) if Fraction(n1 + 40, 1044) > Fraction(n1, 1000)]
    assert above == list(range(0, 910))
    for n1 in range(0, 1001):
        prior_estimate = smoothing.beta_summary(40, 4, n1, 1000 - n1).posterior_mean
        mle_closer = abs(n1 / 1000 - 0.3) < abs(prior_estimate - 0.3)
        assert mle_closer == (287 <= n1 <= 909), n1


def test_lesson_02_alpha_belongs_to_the_counting_classifiers_only():
    from nbcourse import BernoulliNB, GaussianNB, MultinomialNB
    from lesson_outputs import lesson, markdown_with

    text = markdown_with(lesson("02_"), "## 8. More than two outcomes")
    assert "`GaussianNB` has no `alpha`" in text and "scikit-learn's naive Bayes classifiers" not in text
    for model in (CategoricalNB(), MultinomialNB(), BernoulliNB()):
        assert "alpha" in model.get_params()
    assert "alpha" not in GaussianNB().get_params()


# ----- one table of symbols for the whole course ------------------------------------------

def test_the_table_of_symbols_is_linked_from_readme_site_and_lessons():
    from course_paths import REPO
    from lesson_outputs import lesson, markdown

    table = (REPO / "docs" / "symbols.md").read_text(encoding="utf-8")
    for row in ("| $K$ | number of classes", "| $V$ | size of the vocabulary",
                "| $m$ | the m-estimate's *equivalent sample size*", "| $J$ | number of values",
                "| $\\alpha$ | pseudo-count"):
        assert row in table, row
    assert (REPO / "book" / "symbols.md").resolve() == (REPO / "docs" / "symbols.md").resolve()
    assert "- file: symbols" in (REPO / "book" / "_toc.yml").read_text(encoding="utf-8")
    assert "](symbols.md)" in (REPO / "book" / "intro.md").read_text(encoding="utf-8")
    assert "](docs/symbols.md)" in (REPO / "README.md").read_text(encoding="utf-8")
    for stem in ("01_", "03_"):
        assert "table of symbols in `docs/symbols.md`" in markdown(lesson(stem)), stem


@pytest.mark.parametrize("stem", ["01_", "02_", "03_", "04_", "07_"])
def test_lessons_use_k_v_and_m_as_the_table_says(stem):
    from lesson_outputs import lesson, markdown

    text = markdown(lesson(stem))
    # the old second meanings: K for a vocabulary or an attribute's values, m for keywords or hash columns
    for old in ("z_1, \\dots, z_K", "$K$ is the size", "An attribute with $K$ values", "$m$ keywords",
                "\\bmod m", "sizes $m$", "$2 + 2m$", "$C$ the number of classes", "Lidstone $\\beta$"):
        assert old not in text, (stem, old)


def test_lesson_01_counts_the_likelihood_table_apart_from_the_prior():
    from lesson_outputs import lesson, markdown, markdown_with, output_of

    notebook = lesson("01_")
    row = next(line.split() for line in output_of(notebook, "def full_joint(d, K):").splitlines()
               if line.split()[:2] == ["0", "6"])
    full, naive = int(row[2]), int(row[3])
    d, K = 6, 2
    assert full == 2 ** d * K - 1 == 127 and naive == 13
    likelihood = (2 ** d - 1) * K                      # P(x | y) alone; the prior adds K - 1
    assert likelihood == 126 and likelihood + (K - 1) == full
    recap = markdown_with(notebook, "## Recap")
    assert "$P(\\mathbf{x} \\mid y)$ needs $(2^d - 1)K$ numbers (126" in recap
    assert "full model needs $2^d K - 1$ (127)" in recap
    assert "table $P(\\mathbf{x} \\mid y)$ needs $2^d K - 1$" not in markdown(notebook)


def test_lesson_01_does_not_promise_that_dependence_spares_the_decisions():
    from lesson_outputs import lesson, markdown

    text = " ".join(markdown(lesson("01_")).split())
    assert "but its decisions are often still good" not in text
    assert "its probabilities become too extreme, and its decisions can get worse too" in text
    # lesson 06 shows the extreme probabilities, finds the misfit weighs more, and claims no cause
    # for its small accuracy drop: lesson 01 must not say that 06 measures what dependence costs
    assert "Notebook 06 measures both" not in text
    assert "Notebook 06 measures the first on real e-mails" in text
    assert "second cause of extreme probabilities that weighs more there" in text
    assert "cannot say how much of the drop is the dependence" in text
    lesson_06 = " ".join(markdown(lesson("06_")).split())
    assert "the misfit of the bell curves dominates" in lesson_06
    assert "we have not shown that dependence is its cause" in lesson_06


def test_lessons_02_and_03_write_a_class_count_as_n_c():
    from lesson_outputs import lesson, markdown_with

    dirichlet = markdown_with(lesson("02_"), "## 8. More than two outcomes")
    assert "$N_c = \\sum_j n_j$" in dirichlet and "{N_c + J\\alpha}" in dirichlet and "$N_c = 5$" in dirichlet
    assert "$(n_j + \\alpha)/(N_c + J\\alpha)$" in markdown_with(lesson("02_"), "## Recap")
    gaussian = markdown_with(lesson("03_"), "## 7. The Gaussian case")
    assert "x_1, \\dots, x_{N_c}" in gaussian and "\\frac{1}{N_c} \\sum_n x_n" in gaussian
    assert "\\frac{1}{N}" not in gaussian and "divides by $N_c$, not $N_c - 1$" in gaussian
