"""Lesson 08 (where naive Bayes breaks): its sentences held to the outputs they quote, its
offline fallback, and its place in the course (site, `nbcourse init`).

nbval checks that a fresh run reproduces the stored outputs; these tests check that the
prose says what those outputs say. Cells are found by a piece of their source.
"""
from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from lesson_outputs import lesson, markdown, markdown_with, number_after, output_of

REPO = Path(__file__).resolve().parents[1]
LESSON = REPO / "notebooks" / "08_where_naive_bayes_breaks.ipynb"


@pytest.fixture(scope="module")
def nb():
    return lesson("08_")


def _all_in(text: str, *quoted: str) -> None:
    """Each quoted number appears in ``text`` as a whole number (not inside a longer one)."""
    for number in quoted:
        pattern = r"(?<![\d.])" + re.escape(number) + r"(?![\d])"
        assert re.search(pattern, text), f"{number!r} is quoted but not printed:\n{text}"


def _flat(text: str) -> str:
    """``text`` with every run of white space (line breaks included) as one space."""
    return " ".join(text.split())


def _row(text: str, label: str) -> list[float]:
    """The decimal numbers of the first line that starts with ``label`` and holds any."""
    for line in text.splitlines():
        if line.startswith(label):
            numbers = re.findall(r"-?\d+\.\d+", line[len(label):])
            if numbers:
                return [float(v) for v in numbers]
    raise AssertionError(f"no line starting with {label!r} holds a number:\n{text}")


# ----- section 1: the switches ------------------------------------------------------------

def test_naive_bayes_scores_exactly_the_majority_class_and_the_pair_is_always_right(nb):
    table = output_of(nb, "naive = CategoricalNB(alpha=1.0)")
    majority = _row(table, "majority class (always 'off')")[0]
    naive_accuracy, naive_loss = _row(table, "naive Bayes on A and B")
    pair_accuracy, pair_loss = _row(table, "naive Bayes on the pair A/B")
    assert naive_accuracy == majority == 0.697
    assert pair_accuracy == 1.0 and _row(table, "logistic regression on A, B and A x B")[0] == 1.0
    assert _row(table, "logistic regression on A and B")[0] == majority
    prose = markdown_with(nb, "Naive Bayes scores exactly what")
    _all_in(prose, "0.697", f"{naive_loss:.3f}", f"{pair_loss:.3f}")


def test_the_counts_of_one_switch_per_class_are_those_of_the_table(nb):
    table = output_of(nb, "def evenings(n, seed):")
    numbers = [int(n) for n in re.findall(r"\b\d+\b", table)]
    down_down, down_up, up_down, up_up = numbers[0], numbers[3], numbers[5], numbers[6]
    assert numbers[1] == numbers[2] == numbers[4] == numbers[7] == 0   # not one exception
    prose = markdown_with(nb, "which is all naive Bayes ever does")
    assert f"on {up_down} of {down_up + up_down}" in prose
    assert f"on {up_up} of {down_down + up_up}" in prose


def test_naive_posteriors_lie_in_the_quoted_range(nb):
    table = output_of(nb, 'patterns = pd.DataFrame({"A"')
    naive = [float(line.split()[-2]) for line in table.splitlines()[1:]]
    assert min(naive) == 0.23 and max(naive) == 0.30
    assert "between 0.23 and 0.30" in markdown_with(nb, "Naive Bayes gives all four patterns")


def test_the_best_linear_rule_beats_the_prior_and_the_lesson_says_so(nb):
    printed = output_of(nb, "print(f\"-0.5 - x_A + x_B > 0: test accuracy")
    best = number_after(printed, "test accuracy")
    majority = _row(output_of(nb, "naive = CategoricalNB(alpha=1.0)"), "majority class (always 'off')")[0]
    assert best == 0.856 and majority == 0.697
    prose = markdown_with(nb, "That rule is right on")
    _all_in(prose, f"{best:.3f}", f"{majority:.3f}")
    assert 'Linearity rules out 100 %, not "better than the prior"' in _flat(prose)
    # the claim that no line does better: each "off" corner outweighs both "on" corners, and the
    # rule takes the larger "on" corner (down/up) of the training table
    counts = [int(n) for n in re.findall(r"\b\d+\b", output_of(nb, "def evenings(n, seed):"))]
    down_down, down_up, up_down, up_up = counts[0], counts[3], counts[5], counts[6]
    assert min(down_down, up_up) > down_up + up_down and down_up > up_down
    assert "takes *down/up*" in prose
    everything = markdown(nb)
    assert "No choice of its parameters could do better" not in everything
    assert "so it cannot represent" not in markdown_with(nb, "## Recap")
    for cell in (markdown_with(nb, "## Recap"), markdown_with(nb, "## 6. When to use naive Bayes")):
        _all_in(cell, f"{best:.3f}")
    _all_in(markdown_with(nb, "## Recap"), f"{majority:.3f}")


# ----- section 2: tree-augmented naive Bayes ----------------------------------------------

def test_tan_on_the_switches_quotes_its_edge_weight(nb):
    printed = output_of(nb, "tan_switches = TreeAugmentedNB(")
    assert "B <- class, A" in printed and "test accuracy 1.000" in printed
    _all_in(markdown_with(nb, "The weight of the edge"), number_after(printed, "I =").__str__(),
            number_after(printed, "ln 2 =").__str__())


def test_tan_on_spambase_numbers_and_edges_are_the_printed_ones(nb):
    edges = output_of(nb, "presence = load_spambase_presence()")
    scores = output_of(nb, "print(tan_mail.parameter_counts().to_string())")
    prose = markdown_with(nb, "TAN needs about twice the parameters")
    naive, tan = _row(scores, "naive Bayes   "), _row(scores, "tree-augmented naive Bayes   ")
    assert tan[0] > naive[0] and tan[1] < naive[1]
    _all_in(scores, "109", "215", "36028797018963967")
    _all_in(prose, "215", "109", "36,028,797,018,963,967", f"{naive[0]:.4f}", f"{tan[0]:.4f}",
            f"{naive[1]:.4f}", f"{tan[1]:.4f}", f"{_row(scores, 'majority class')[0]:.4f}")
    strongest = [line.split() for line in edges.splitlines()[2:8]]     # feature, parent, cmi
    named = {word for row in strongest for word in row[:2]}
    assert {"hp", "hpl", "650", "415", "857", "85", "telnet", "direct"} <= named
    assert [float(row[2]) for row in strongest] == sorted((float(row[2]) for row in strongest), reverse=True)
    answer = markdown_with(nb, "many does TAN need")
    assert "= 215" in answer and "= 109" in answer


def test_tan_beats_naive_bayes_in_every_fold_and_the_edges_are_read_as_a_hypothesis(nb):
    printed = output_of(nb, "mail_cv = {name: cross_validate(")
    rows = [[float(v) for v in line.split()[1:]] for line in printed.splitlines() if re.match(r"^\d ", line)]
    gains = [row[2] for row in rows]                 # naive Bayes, TAN, TAN - naive Bayes, majority
    assert len(gains) == 5 and all(g > 0 for g in gains)
    assert all(row[3] < row[0] < row[1] for row in rows)
    assert "TAN ahead in 5 of 5 folds" in printed
    means = re.findall(r"(\d\.\d{3} ± \d\.\d{3})", printed)
    prose = markdown_with(nb, "TAN is ahead in all five folds")
    _all_in(prose, f"{min(gains):.4f}", f"{max(gains):.4f}")
    for mean in means:
        assert mean in prose, mean
    reading = markdown_with(nb, "TAN needs about twice the parameters")
    assert "plausible reading of the edges, not a measurement" in _flat(reading)
    assert "The strongest edges say why" not in reading


# ----- section 3: complement naive Bayes and tf-idf ---------------------------------------

def test_balanced_comparison_quotes_the_table(nb):
    table = output_of(nb, "balanced = compare(everything)")
    assert "20 Newsgroups: 11,314 documents" in output_of(nb, "news_train = load_20newsgroups_if_available(")
    mn_counts, mn_tfidf = _row(table, "multinomial, counts"), _row(table, "multinomial, tf-idf")
    cn_counts, cn_tfidf = _row(table, "complement, counts"), _row(table, "complement, tf-idf")
    assert cn_counts[0] > mn_counts[0] + 0.05 and cn_tfidf[0] > cn_counts[0]     # alpha = 1
    assert mn_counts[2] > mn_counts[0] and cn_counts[2] < cn_counts[0]           # alpha = 0.01
    _all_in(markdown_with(nb, "Every model is far above the majority class"),
            "0.0530", "0.8267", "0.7728", "0.8364", "0.8039", "0.8352", "0.8291", "0.8246")
    _all_in(table, "0.0530", "0.8267", "0.7728", "0.8364", "0.8039", "0.8352", "0.8291", "0.8246")
    sizes = output_of(nb, "news_train = load_20newsgroups_if_available(")
    assert "documents to fit per class: from 377 to 600" in sizes
    assert "between 377 and 600 training posts" in markdown_with(nb, "### When some classes are rare")


def _means(table: str, label: str) -> list[float]:
    """The means of a row of "mean ± spread" cells (accuracy, macro-F1 at alpha = 1, then at 0.01)."""
    return _row(table, label + "  ")[0::2]


def test_imbalanced_comparison_and_its_controls_quote_the_outputs(nb):
    table = output_of(nb, "imbalanced = draws.groupby(")
    assert "3,737 of 11,314" in table and "five draws (seeds 0 to 4)" in table
    assert "from 499 (comp.graphics) down to 19 (talk.religion.misc)" in table
    spreads = [float(v) for v in re.findall(r"± (\d\.\d+)", table)]
    mn, mn_tfidf = _means(table, "multinomial, counts"), _means(table, "multinomial, tf-idf")
    uniform, uniform_tfidf = (_means(table, "multinomial, uniform prior, counts"),
                              _means(table, "multinomial, uniform prior, tf-idf"))
    cn, cn_tfidf = _means(table, "complement, counts"), _means(table, "complement, tf-idf")
    assert cn[0] > 1.5 * mn[0]                                        # alpha = 1: multinomial collapses
    assert mn[2] > cn[2]                                              # alpha = 0.01: the order turns
    assert uniform_tfidf[2] > cn_tfidf[2] > mn_tfidf[2]               # the prior was complement's lead
    prose = markdown_with(nb, "Every score falls")
    _all_in(prose, "3,737", f"{max(spreads):.3f}", f"{mn[0]:.3f}", f"{mn_tfidf[0]:.3f}", f"{cn[0]:.3f}",
            f"{mn[2]:.3f}", f"{cn[2]:.3f}", f"{cn_tfidf[2]:.3f}", f"{mn_tfidf[2]:.3f}",
            f"{uniform_tfidf[2]:.3f}", f"{uniform[0]:.3f}", "19", "499")
    assert "fit_prior=False" in prose

    why = output_of(nb, "rarest = kept_per_class.idxmin()")
    assert "MultinomialNB, alpha = 1: predicts talk.religion.misc for 0 test documents (the true class of 251)" in why
    assert "ComplementNB, alpha = 1: predicts talk.religion.misc for 8 test" in why
    assert "draw 0: V = 70,134 words in the kept posts (all 11,314 training posts: 130,107)" in why
    assert "share of pseudo-counts at alpha = 1: 92% of the rarest class's estimate, 6% of its" in why
    assert "(V = 130,107): pseudo-counts 96% of the rarest class's estimate" in why
    assert "accuracy: 0.2533 with that vocabulary, 0.3335 with the kept posts' own" in why
    _all_in(why, "6,085", "70,134", "701", "1,045,194")
    explained = markdown_with(nb, "The pseudo-counts explain it")
    _all_in(explained, "6,085", "70,134", "92", "251", "1,045,194", "6", "8", "701", "130,107", "96",
            "0.3335", "0.2533", "11,314", f"{cn[0]:.3f}", f"{cn_tfidf[0]:.3f}", f"{cn[2]:.3f}",
            f"{cn_tfidf[2]:.3f}", f"{mn[2]:.3f}", f"{uniform_tfidf[2]:.3f}")


def test_what_tfidf_and_alpha_do_to_complement_naive_bayes_is_quoted_from_the_table(nb):
    table = output_of(nb, "imbalanced = draws.groupby(")
    complement_counts, complement_tfidf = _means(table, "complement, counts"), _means(table, "complement, tf-idf")
    # accuracy at alpha = 1 and at alpha = 0.01: tf-idf hurts at alpha = 1, counts barely move
    assert complement_tfidf[0] < complement_counts[0] and complement_tfidf[0] < complement_tfidf[2]
    assert abs(complement_counts[0] - complement_counts[2]) < abs(complement_tfidf[0] - complement_tfidf[2])
    assert "forgives a badly chosen `alpha`" in _flat(markdown_with(nb, "The pseudo-counts explain it"))
    assert "five-fold" in markdown_with(nb, "**A spread, not a point.**")
    assert "n_splits=5" in "".join(c.source for c in nb.cells if "cross_validate(" in c.source)


def test_vocabulary_and_idf_are_fitted_inside_the_folds(nb):
    cv = next(c.source for c in nb.cells if c.cell_type == "code" and "cross_validate_many(candidates, counts_fit" in c.source)
    assert "make_pipeline(KeepSeenWords(), TfidfTransformer(), Model(alpha=alpha))" in cv
    assert "make_pipeline(KeepSeenWords(), Model(alpha=alpha))" in cv
    assert "tfidf.transform(counts_fit)" not in cv
    compare = next(c.source for c in nb.cells if c.cell_type == "code" and "def compare(" in c.source)
    assert "KeepSeenWords().fit(counts_fit[rows_fit])" in compare
    assert "a strict protocol would rebuild them" not in markdown(nb)


# ----- section 4: baselines and spread ----------------------------------------------------

def test_cross_validation_names_its_winner_and_pairs_it_with_the_next_best(nb):
    summary = output_of(nb, "cross_validate_many(candidates, counts_fit")
    spreads = [float(s) for s in re.findall(r"± (\d\.\d+)", summary)]
    assert len(spreads) == 24                      # 8 models x (accuracy, macro-F1, majority)
    model_spreads = [s for i, s in enumerate(spreads) if i % 3 != 2]
    # every model on both inputs at both values of alpha: the same choices for all
    labels = [f"{model}, {features}, alpha = {alpha}" for model in ("multinomial", "complement")
              for features in ("counts", "tf-idf") for alpha in ("1", "0.01")]
    means = {label: _row(summary, label + " ")[0] for label in labels}
    ranking = sorted(means, key=means.get, reverse=True)
    assert f"highest mean accuracy: {ranking[0]}; next: {ranking[1]}" in summary
    assert ranking[:2] == ["multinomial, tf-idf, alpha = 0.01", "complement, tf-idf, alpha = 1"]
    prose = markdown_with(nb, "The spreads are small")
    assert f"{min(model_spreads):.3f} to {max(model_spreads):.3f}" in _flat(prose)
    # each model's lowest and highest fold, printed: "within two points", the widest range quoted
    ranges = {label: [float(v) for v in re.findall(r"(\d\.\d+) to (\d\.\d+)\s*$",
                                                   next(line for line in summary.splitlines()
                                                        if line.startswith(label + " ")))[0]]
              for label in labels}
    widest = max(ranges, key=lambda label: ranges[label][1] - ranges[label][0])
    assert max(hi - lo for lo, hi in ranges.values()) < 0.02
    assert "agree to within two points" in _flat(prose)
    assert f"the widest range, {ranges[widest][0]:.3f} to {ranges[widest][1]:.3f}" in _flat(prose)
    assert "within a point" not in _flat(prose)
    assert "Every model gets the same two values of `alpha`" in _flat(prose)
    assert "multinomial naive Bayes on tf-idf at `alpha = 0.01`, 0.911" in _flat(prose)
    _all_in(prose, *(f"{v:.3f}" for v in means.values()), "0.053", "0.7728")
    assert "this lesson tests neither" in _flat(prose) and "may have moved on" in _flat(prose)

    paired = output_of(nb, "def gain(better, worse):")
    assert f"(a) the best model over the next best: {ranking[0]} over {ranking[1]}" in paired
    gains = [[float(v) for v in line.split()[1:]] for line in paired.splitlines() if re.match(r"^\d ", line)]
    assert len(gains) == 5 and all(g > 0 for row in gains for g in row)
    a, b = [row[0] for row in gains], [row[1] for row in gains]
    paragraph = markdown_with(nb, "Both gains are positive in every fold")
    _all_in(paragraph, f"{min(a):.4f}", f"{max(a):.4f}", f"{min(b):.4f}", f"{max(b):.4f}")
    assert "the five differences are correlated" in _flat(paragraph)
    assert "selection bias" in _flat(paragraph) and "highest of eight means" in _flat(paragraph)
    assert "strongest competitor" not in markdown(nb)
    balanced = output_of(nb, "balanced = compare(everything)")
    on_test = (_row(balanced, "multinomial, tf-idf")[2], _row(balanced, "complement, tf-idf")[0])
    _all_in(paragraph, *(f"{v:.4f}" for v in on_test))
    assert on_test[1] > on_test[0]                 # "complement naive Bayes a hair ahead"


# ----- section 5: the good-word attack ----------------------------------------------------

def test_the_attack_paragraphs_quote_the_printed_attack(nb):
    words = output_of(nb, "spam_filter = MultinomialNB(alpha=1.0)")
    assert "messages holding '&lt;': 240 ham, 0 spam" in words
    assert "test spam: 75, caught by the filter: 71" in words
    assert "log-odds of spam 3.66; add 1 x 'gt' -> -0.88" in words
    best = [line.split() for line in words.splitlines()[1:7]]
    assert [row[0] for row in best] == ["gt", "lt", "he", "she", "lor", "da"]  # equal weights by word
    assert all(row[-1] == "0" for row in best)                       # absent from training spam
    _all_in(markdown_with(nb, "The best good words are odd"), "240", "3.66", "-0.88")

    table = output_of(nb, "def attack_all(alpha, cap):")
    rows = {label: line for line in table.splitlines()
            for label in ("alpha = 1 (notebook 05)", "alpha = 1, words capped at 1", "alpha = 10", "alpha = 0.001")
            if line.startswith(label + " ")}
    assert len(rows) == 4

    def fields(label):
        return rows[label][len(label):].split()

    # accuracy, caught "x of 75", median, share <= 5, most
    assert fields("alpha = 1 (notebook 05)")[1:] == ["71", "of", "75", "8.0", "0.34", "16"]
    assert fields("alpha = 1, words capped at 1")[4:] == ["7.0", "0.31", "16"]
    assert fields("alpha = 10")[1:] == ["56", "of", "75", "3.0", "0.82", "8"]
    assert fields("alpha = 0.001")[4] == "8.0" and fields("alpha = 0.001")[6] == "14"
    prose = markdown_with(nb, "The median caught spam message needs 8 good words")
    _all_in(prose, "8", "0.34", "16", "7", "3", "0.82", "56", "75", "71", "14", "-4.54", "-3.78")
    assert "-4.54" in words and "-3.78" in words
    answer = markdown_with(nb, "Answer to the prediction")
    _all_in(answer, "8", "7", "3")
    assert "the six best of the filter without the cap, in the table above, lie between -4.54 and -3.78" \
        in _flat(prose)
    weights = [float(row[1]) for row in best]
    assert (min(weights), max(weights)) == (-4.54, -3.78)
    for line in (markdown_with(nb, "## Recap"), markdown_with(nb, "## 6. When to use naive Bayes")):
        _all_in(line, "8", "16")


def test_the_attack_is_repeated_on_five_splits_and_the_cap_bounds_the_push(nb):
    printed = output_of(nb, "def words_to_flip(split_seed):")
    lines = [line.split() for line in printed.splitlines() if re.match(r"^\d ", line)]
    assert [int(line[0]) for line in lines] == [0, 1, 2, 3, 4]
    caught = [int(line[1]) for line in lines]
    plain, capped, strong, weak = ([float(line[k]) for line in lines] for k in (2, 3, 4, 5))
    assert lines[0][1:] == ["56", "8.0", "9.0", "3.0", "8.0"]          # split 0: the lesson's split
    assert all(s < p for s, p in zip(strong, plain))                  # alpha = 10 easier in every split
    assert all(abs(c - p) <= 1 for c, p in zip(capped, plain))
    prose = _flat(markdown_with(nb, "The median caught spam message needs 8 good words"))
    assert f"({min(caught)} to {max(caught)} messages)" in prose
    assert f"{min(strong):.0f} or {max(strong):.0f} good words" in prose
    assert f"against {min(plain):.0f} or {max(plain):.0f} at `alpha = 1`" in prose
    assert f"({min(capped):.0f} or {max(capped):.0f} with it), and never lowers it" in prose
    assert all(c >= p for c, p in zip(capped, plain))
    # the folded answer reads the same messages: the cap moves the median by at most one word,
    # alpha = 10 cuts it to half or less
    assert all(s <= p / 2 for s, p in zip(strong, plain))
    answer = _flat(markdown_with(nb, "Answer to the prediction"))
    assert "counting each word at most once changes the median by at most one word" in answer
    assert "`alpha = 10` cuts it to half or less" in answer
    assert "the medians are 7 with the cap and 3 with `alpha = 10`" in answer
    assert "with each word counted at most once the median is 7" not in answer
    bound, start = number_after(printed, "by at most"), number_after(printed, "at log-odds")
    assert bound > start
    _all_in(prose, f"{bound:,.0f}", f"{start:.0f}")
    assert "A linear score can always be pushed" not in markdown(nb)


def test_the_placeholders_the_lesson_names_are_in_the_sms_corpus(nb):
    from nbcourse.datasets import load_sms_spam_or_mini
    prose = markdown_with(nb, "The best good words are odd")
    named = re.findall(r"`(&lt;[^`]*&gt;)`", prose)
    assert len(named) == 4
    text = " ".join(load_sms_spam_or_mini()["text"])
    for placeholder in named:
        assert placeholder in text, placeholder
    answer = markdown_with(nb, "The good words are not secret")
    words = output_of(nb, "spam_filter = MultinomialNB(alpha=1.0)")
    best = [line.split()[0] for line in words.splitlines()[1:7]]
    quoted = re.findall(r'"(\w+)"', answer.split("in this corpus")[0].split("ordinary messages")[1])
    assert len(quoted) == 4 and set(quoted) <= set(best), quoted      # words the filter's table prints


# ----- the lesson as a whole --------------------------------------------------------------

def test_every_quoted_reference_is_in_the_reference_list(nb):
    references = markdown_with(nb, "## References")
    for needle in ("CPSC 340", "CSE 446", "Friedman", "Geiger", "Goldszmidt", "1997",
                   "Rennie", "2003", "Lowd", "Meek", "2005"):
        assert needle in references, needle


def test_when_to_use_agrees_with_the_tables_and_with_lesson_06(nb):
    advice = markdown_with(nb, "## 6. When to use naive Bayes")
    table = output_of(nb, "imbalanced = draws.groupby(")
    mn, cn = _means(table, "multinomial, counts"), _means(table, "complement, counts")
    cn_tfidf = _means(table, "complement, tf-idf")
    _all_in(advice, f"{mn[0]:.3f}", f"{cn[0]:.3f}", f"{mn[2]:.3f}", f"{cn[2]:.3f}", f"{cn_tfidf[0]:.3f}")
    assert "**tune `alpha`; on counts complement naive Bayes forgives a badly chosen `alpha`**" in advice
    assert "use complement naive Bayes**" not in advice
    assert "on text, complement naive Bayes on tf-idf" not in advice
    assert "multinomial naive Bayes on tf-idf at `alpha = 0.01` scored highest" in _flat(advice)
    # lesson 06's controlled finding on its 57 raw features: near-certainty with and without dependence
    six = output_of(lesson("06_"), "model_57 = GaussianNB()")
    block = six.split("posterior > 0.99")[1].splitlines()[1:3]
    shuffled, raw = (float(line.split()[-1]) for line in block)
    assert f"{raw:.1%}".replace("%", " %") in advice and f"{shuffled:.1%}".replace("%", " %") in advice
    assert "not dependence, make nearly every posterior extreme" in _flat(advice)
    assert "dependent features make the posteriors far too sure" not in advice
    tan = output_of(nb, "print(tan_mail.parameter_counts().to_string())")
    naive_loss, tan_loss = _row(tan, "naive Bayes   ")[1], _row(tan, "tree-augmented naive Bayes   ")[1]
    assert 0.45 < tan_loss / naive_loss < 0.55                       # "roughly halves the log-loss"
    # the log-loss comes from one split: the cross-validation of the e-mails prints accuracy only
    assert "log-loss" not in output_of(nb, "mail_cv = {name: cross_validate(")
    assert "roughly halves the log-loss on one split" in _flat(advice)
    assert "and, on one split, the log-loss a lot" in _flat(markdown_with(nb, "## Recap"))


def test_what_alpha_the_lesson_compares_at_is_said_plainly(nb):
    """Section 3 tries two values of alpha and reads the better one on the test part."""
    table = output_of(nb, "imbalanced = draws.groupby(")
    assert sorted(set(re.findall(r"alpha = [\d.]+", table))) == ["alpha = 0.01", "alpha = 1"]
    explained = _flat(markdown_with(nb, "The pseudo-counts explain it"))
    assert "at the better of the two values of `alpha`, read on the test part, it is no better" in explained
    recap = _flat(markdown_with(nb, "## Recap"))
    assert "At the better of the two values of `alpha` we tried (read on the test part) it has no edge" in recap
    assert "the better of the two values tried (read on the test part)" in _flat(
        markdown_with(nb, "## 6. When to use naive Bayes"))
    assert "once `alpha` is tuned" not in markdown(nb).lower()


def test_the_xor_failure_is_set_against_lesson_06_as_lesson_06_now_puts_it(nb):
    prose = _flat(markdown_with(nb, "Whenever the class"))
    assert ('There it mainly inflated confidence; here it costs every "on" decision: the model '
            "never predicts on.") in prose
    assert "mostly survived" not in markdown(nb)
    assert "dependence *can* cost accuracy" in _flat(markdown(lesson("06_")))
    table = output_of(nb, "naive = CategoricalNB(alpha=1.0)")
    assert _row(table, "naive Bayes on A and B")[0] == _row(table, "majority class (always 'off')")[0]


def test_init_ships_the_lesson_and_the_site_shows_it():
    from nbcourse import resources

    assert "notebooks/08_where_naive_bayes_breaks.ipynb" in resources.course_files()
    assert "notebooks/08_where_naive_bayes_breaks.ipynb" in resources.collect(REPO)
    site_lessons = REPO / "book" / "lessons"
    assert (site_lessons / LESSON.name).resolve() == LESSON.resolve()  # book/_toc.yml globs lessons/[0-9]*


def test_the_new_letters_are_in_the_table_of_symbols():
    symbols = (REPO / "docs" / "symbols.md").read_text(encoding="utf-8")
    for symbol in (r"\mathrm{pa}(k)", r"I(x_k; x_l \mid y)", r"\mathrm{idf}_k", r"\mathrm{df}_k",
                   r"\tilde\theta_{ck}"):
        assert symbol in symbols, symbol
    assert all(symbol in markdown(lesson("08_")) for symbol in (r"\mathrm{pa}(k)", r"\mathrm{idf}_k"))


@pytest.mark.timeout(600)
def test_without_20_newsgroups_sections_3_and_4_run_on_the_sms_messages(tmp_path, monkeypatch):
    """Offline and without a copy of 20 Newsgroups, the lesson says so and runs to the end."""
    (tmp_path / "empty-mirror").mkdir()
    monkeypatch.delenv("NBCOURSE_DATA", raising=False)
    monkeypatch.setenv("NBCOURSE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("NBCOURSE_MIRROR", (tmp_path / "empty-mirror").as_uri())
    notebook = nbformat.read(LESSON, as_version=4)
    NotebookClient(notebook, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(LESSON.parent)}}).execute()
    printed = "\n".join(output.get("text", "") + str(output.get("data", {}).get("text/plain", ""))
                        for cell in notebook.cells if cell.cell_type == "code"
                        for output in cell.get("outputs", []))
    assert "20 Newsgroups is not available, so sections 3 and 4 use the SMS messages" in printed
    assert "NBCOURSE_MIRROR" in printed                                   # how to get it
    assert re.search(r"SMS messages: [\d,]+ documents to fit, [\d,]+ to score, 2 classes", printed)
    assert "complement, tf-idf" in printed and "majority class" in printed
    assert "test spam: 75, caught by the filter: 71" in printed         # section 5 unchanged
    assert not list(tmp_path.glob("cache/**/*.tar.gz")), "nothing may be cached from a failed download"


# ----- the lesson's 20 Newsgroups numbers, recomputed with scikit-learn ----------------------

@pytest.mark.timeout(600)
def test_scikit_learn_gives_the_lessons_20_newsgroups_scores(nb, newsgroups_folder):
    """The same count matrix through scikit-learn's tf-idf, naive Bayes, F1 and cross-validation."""
    import numpy as np
    from sklearn.feature_extraction.text import TfidfTransformer
    from sklearn.metrics import accuracy_score, f1_score
    from sklearn.model_selection import cross_validate as sk_cross_validate
    from sklearn.naive_bayes import ComplementNB, MultinomialNB

    from nbcourse.datasets import load_20newsgroups
    from nbcourse.evaluation import kfold_indices
    from nbcourse.text import BagOfWords

    train, test = load_20newsgroups("train"), load_20newsgroups("test")
    bag = BagOfWords()
    X_fit, X_score = bag.fit_transform(train.data), bag.transform(test.data)
    tfidf = TfidfTransformer().fit(X_fit)
    inputs = {"counts": (X_fit, X_score), "tf-idf": (tfidf.transform(X_fit), tfidf.transform(X_score))}
    table = output_of(nb, "balanced = compare(everything)")
    for name, Model in (("multinomial", MultinomialNB), ("complement", ComplementNB)):
        for features, (A, B) in inputs.items():
            printed = _row(table, f"{name}, {features}")
            for i, alpha in enumerate((1.0, 0.01)):
                predicted = Model(alpha=alpha).fit(A, train.target).predict(B)
                assert round(accuracy_score(test.target, predicted), 4) == printed[2 * i], (name, features, alpha)
                assert round(f1_score(test.target, predicted, average="macro"), 4) == printed[2 * i + 1]

    # Cross-validation with the vocabulary and the idf learnt inside each fold: scikit-learn's
    # CountVectorizer re-reads the raw posts of every fold, the lesson selects columns of one count
    # matrix (KeepSeenWords); both must give the same scores.
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.pipeline import make_pipeline

    summary = output_of(nb, "cross_validate_many(candidates, counts_fit")
    folds = kfold_indices(np.asarray(train.target_names)[train.target], 5, seed=0)
    for label, steps in (("multinomial, counts, alpha = 1", [MultinomialNB(alpha=1.0)]),
                         ("multinomial, tf-idf, alpha = 0.01", [TfidfTransformer(), MultinomialNB(alpha=0.01)])):
        scores = sk_cross_validate(make_pipeline(CountVectorizer(), *steps), train.data, train.target,
                                   cv=folds, scoring=("accuracy", "f1_macro"))
        expected = (f"{scores['test_accuracy'].mean():.3f} ± {scores['test_accuracy'].std():.3f}  "
                    f"{scores['test_f1_macro'].mean():.3f} ± {scores['test_f1_macro'].std():.3f}")
        [line] = [line for line in summary.splitlines() if line.startswith(label + " ")]
        assert expected in line, (expected, line)


def test_complement_on_tfidf_is_not_given_an_untested_cause(nb):
    """Cold read: "the same shrinking hits complement naive Bayes" named a mechanism no
    cell tests, which the balanced table argues against."""
    prose = _flat(markdown(nb))
    assert "The same shrinking hits complement" not in prose
    assert "falls from 0.607 on counts to 0.512 (why is not tested here" in prose
