#!/usr/bin/env python3
"""Alt text for every figure of the lessons, so a screen reader says what a plot shows.

The course site (Jupyter Book, myst-nb) draws each stored image output of a code cell as an
``<img>``; without help its alt text is the image's file name, a SHA-256 hash. myst-nb reads
the alt text from the CELL's metadata (``render_image_options``, cell key ``image``):

    "metadata": {"mystnb": {"image": {"alt": "What the figure shows ..."}}}

Cell metadata survives re-execution (tools/refresh.py, Jupyter), so the text is written once.

    python tools/figure_alt_text.py           # check: every figure cell has its alt text
    python tools/figure_alt_text.py --apply   # write the texts below into the notebooks

``--apply`` is idempotent (a notebook is rewritten only when a text changed). The table
below is the source of the texts: each entry finds its cell by a piece of the cell's code,
so it keeps working when cells move. The check fails, naming the cell, when a figure cell
has no alt text, when a cell draws more than one figure (they would share one text), or
when an entry's code no longer matches exactly one cell. A new figure needs a new entry
here (describe what it shows, not how it was made), then ``--apply``.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat

REPO = Path(__file__).resolve().parent.parent
NOTEBOOKS = REPO / "notebooks"

#: (notebook stem, a piece of the figure cell's code, the alt text)
ALT_TEXTS = [
    ("01_weather_by_counting", "plot_query_factors(model, query)",
     "Two panels for the query sunny, cool, high humidity, windy. Left: bars of the five "
     "factors of each class's product, P(class) and P(attribute = value | class), blue for "
     "no and orange for yes; the products are 0.0206 for no and 0.0053 for yes. Right: the "
     "pull of each factor, the log of its yes-to-no ratio: the prior (+0.59) and cool "
     "temperature (+0.51) pull towards yes; sunny (-0.99), high humidity (-0.88) and windy "
     "(-0.59) pull towards no; their sum, the log-odds, is -1.36, so the answer is no."),
    ("01_weather_by_counting", "plot_query_factors(model, overcast_day)",
     "The same two panels for the query overcast, hot, high humidity, windy. Left: the "
     "factor P(overcast | no) is 0, so the product for no is 0.0000 against 0.0071 for yes. "
     "Right: the overcast factor's pull is plus infinity (a zero count for no), hatched, and "
     "so is the sum: that one zero decides the answer whatever the other factors say (prior "
     "+0.59, hot -0.59, high humidity -0.88, windy -0.59)."),
    ("02_beta_pseudo_counts", "plot_beta_densities()",
     "Five Beta prior densities over theta = P(heads) from 0 to 1, each with its own colour "
     "and line style: Beta(1, 1) is flat at 1; Beta(2, 2) a low hump centred on 0.5; "
     "Beta(5, 5) a taller, narrower hump on 0.5; Beta(2, 5) peaks near 0.2 (its guess is "
     "0.29); Beta(0.5, 0.5) is U-shaped, high at both ends. The legend gives each prior's "
     "guess a/(a+b) and strength a+b."),
    ("02_beta_pseudo_counts", "plot_beta_update(2, 2, 3, 0)",
     "A Beta(2, 2) prior updated by 3 heads and 0 tails, over theta = P(heads): the prior "
     "is a low hump centred on 0.5; the likelihood of the three tosses rises steeply to "
     "theta = 1; the posterior Beta(5, 2), shaded, peaks at 0.8. Vertical lines mark the MLE "
     "at 1.000, the MAP at 0.800 and the posterior mean at 0.714: the prior keeps both "
     "estimates away from the MLE's certainty."),
    ("02_beta_pseudo_counts", "plot_prior_washout(",
     "Estimates of theta = P(heads) as the number of simulated tosses N grows from 1 to "
     "1,000 (log scale), when the true P(heads) is 0.3 (horizontal line): the MLE without a "
     "prior, and the posterior means under the priors Beta(1, 1), Beta(10, 10) and "
     "Beta(40, 4). With few tosses they differ widely (under Beta(40, 4) the estimate stays "
     "near 0.9); by N = 1,000 all of them lie close to 0.3: the data wash the prior out."),
    ("02_beta_pseudo_counts", "plot_smoothing_effect(",
     "Two panels for the weather query overcast, hot, high humidity, windy. Left: P(no | x) "
     "as the pseudo-count alpha goes from 0 to 20: it is 0 at alpha = 0 (overcast was never "
     "seen with no), rises to about 0.46 near alpha = 2, then falls slowly towards "
     "P(no) = 0.357 (dotted line), always below the 0.5 line above which the prediction "
     "would be no; a dot marks alpha = 1, where P(no | x) = 0.4356. Right: the smoothed "
     "factors at alpha = 1, blue for no and orange for yes: overcast 0.12 and 0.42, hot "
     "0.38 and 0.25, high humidity 0.71 and 0.36, windy 0.57 and 0.36."),
    ("03_lagrangian_mle", "plot_simplex_log_likelihood(",
     "Two triangles, one per class: ham (word counts cash 1, lunch 6, win 1) and spam "
     "(cash 3, lunch 1, win 5). Each point of a triangle is a distribution over the three "
     "words, whose probabilities add up to 1; each corner gives one word probability 1. "
     "Colour shows the log-likelihood minus its maximum, from 0 (yellow) down to -10 nats "
     "(dark purple), and a white line encloses the points within 3 nats of the top. In each "
     "triangle a ring (the closed form n_ck / sum of n_ck) and a cross (the numeric "
     "optimiser) mark the same point at the top of the hill: near the lunch corner for "
     "ham, between cash and win, nearer win, for spam."),
    ("03_lagrangian_mle", "plot_gaussian_log_likelihood(",
     "Two panels: the log-likelihood of a normal model of the temperatures (degrees C) of "
     "the days played. Left: against the mean, with the variance fixed at 4.00, a downward "
     "parabola whose top, marked by a vertical line, is the sample mean 24.00. Right: "
     "against the variance, with the mean fixed at 24.00, a curve that rises steeply and "
     "then falls slowly; its top is at 4.00 (dividing by N, solid line), and a dashed line "
     "at 4.57 (dividing by N - 1) lies just to its right, below the top."),
    ("04_naive_bayes_is_linear", "plot_class_images(np.exp(digit_model",
     "Ten small 8 by 8 pixel images in two rows, one per handwritten digit 0 to 9, with a grey "
     "scale from white (probability 0) to black (probability 1) of a pixel being on in that "
     "digit. Each looks like a blurred digit: 0 is a dark ring around a white middle; 1 is a "
     "dark vertical bar near the centre; 2 has an arc at the top, a diagonal and a dark "
     "bottom row; 3 has a top bar and a dark right side with a notch in the middle; 4 has a "
     "left stroke, a crossbar and a stem going down; 5 has a top bar, a left stroke and a "
     "lower bowl; 6 a curved left stroke ending in a loop at the bottom; 7 a dark top bar and "
     "a stroke down the middle; 8 two stacked loops with a dark centre; 9 a loop at the top "
     "and a stem at the right. The outermost columns are nearly white in every digit, and "
     "grey pixels mark where writers differ."),
    ("04_naive_bayes_is_linear", "plot_top_weights(",
     "Horizontal bars of the 20 words with the largest naive Bayes weights, the change in "
     "log-odds per occurrence, on the SMS Spam Collection. Ten push towards spam (orange, "
     "positive): claim, prize, 150p, tone, 500, guaranteed, 1000, cs, awarded and 18, from "
     "about 5.6 down to 4.5. Ten push towards ham (blue, negative): amp, happy, come, later, "
     "da, lor, she, he, lt and gt, from about -3.4 to -4.6. Beside each bar, its "
     "occurrences in spam and in ham training messages: the spam words never occur in ham "
     "(claim: 95 and 0), and the ham words almost never in spam (gt: 0 and 251)."),
    ("04_naive_bayes_is_linear", "X_2d, y_2d,",
     "Synthetic data with two features, all 300 points drawn: class A (blue dots), round, "
     "centred near x1 = 0, x2 = 0; class B (orange squares), narrow in x1 and spread out in "
     "x2, centred near x1 = 2.5. Two decision boundaries, where both classes are equally "
     "probable. The shared-variance model's is a steep straight solid line crossing the gap "
     "between the classes near x1 = 1.2. The per-class-variance model's is a dashed "
     "quadratic curve with two branches: one passes between the classes near x1 = 1.6 and "
     "bends away to the left above and below class A; the other, far to the right of class "
     "B where there are no points, opens to the right from about x1 = 5. Shading shows the "
     "class the quadratic model predicts: A (blue) left of the first branch and again right "
     "of the second, B (orange) between them."),
    ("04_naive_bayes_is_linear", "plot_weight_comparison(",
     "Scatter plot of the 7,761 words of the SMS vocabulary: naive Bayes weight (horizontal, "
     "from about -4.5 to 5.6) against logistic regression weight (vertical, from about -1 to "
     "2.2), both in log-odds per occurrence. The points rise together, most of them in a "
     "band around a rising line, but the logistic regression weights are several times "
     "smaller. Highlighted, the most telling words of either model: txt, call and uk high "
     "for logistic regression; claim, prize and 150p far right for naive Bayes; gt, lt, he "
     "and my low and left for both."),
    ("04_naive_bayes_is_linear", "plot_learning_curves(curves, xlabel=\"training messages",
     "Accuracy on the held-out SMS test set against the number of training messages, from "
     "10 to about 4,500 on a log scale, for naive Bayes and logistic regression (mean over "
     "5 random training subsets, with a band of plus or minus one standard deviation), and "
     "the majority-class baseline (dashed, about 0.866). Naive Bayes is ahead with few "
     "messages, the two are close around 200, and both keep rising, naive Bayes ending "
     "near 0.99 and logistic regression near 0.98."),
    ("05_spam_filter", "plot_zipf(",
     "Log-log plot of how often each word occurs in the training messages against its "
     "rank, for 7,761 words: a falling curve of dots, with to, you and the the three most "
     "common. A dashed line, Zipf's law through the top word (the count of rank 1 divided "
     "by the rank), runs well below the dots after the first ranks, because the next thirty "
     "or so words fall off more slowly than the law. A dotted least-squares line fitted over "
     "ranks 40 to 1,000 has slope -1.08, close to Zipf's -1, and follows the dots over that "
     "range. At the right the rarest words form flat steps at small whole counts; the "
     "longest step, at count 1, covers about half of the ranks."),
    ("05_spam_filter", "plot_underflow(",
     "The log10 of the running product of P(word | class) over one long message, against "
     "the number of words multiplied so far (up to 176), for ham (blue) and spam (orange). "
     "As a sum of logs (lines) it falls steadily, to about -485 for ham and -574 for spam. "
     "As a float64 product (dots) it follows the line only down to the smallest positive "
     "float64, 4.9e-324 (dotted horizontal line near -324): from word 120 for ham and word "
     "101 for spam the product is exactly 0.0, and the dots stop."),
    ("05_spam_filter", "plot_reliability(",
     "Reliability diagram of the multinomial spam filter (alpha = 1) on the 556 validation "
     "messages. Top: the observed fraction of spam against the mean predicted probability "
     "of spam, one point per bin of width 0.1, and a dotted diagonal for perfect "
     "calibration. The two well-filled bins lie close to the diagonal: 0 to 0.1 (predicted 0.002, "
     "observed 0.008) and 0.9 to 1 (predicted 0.998, observed 1.000). The four points in "
     "between zigzag far from it (observed 0.000, 0.500, 1.000 and 0.500 at predicted 0.16, "
     "0.24, 0.65 and 0.86), but they stand for 9 messages in all. Bottom: the number of "
     "predictions per bin: 480 in the first bin, 67 in the last, and 4, 2, 1 and 2 in the "
     "bins between, too few to show as bars."),
    ("05_spam_filter", "plot_confusion_matrices(",
     "Two confusion matrices of the spam filter on the 556 validation messages, true class "
     "in rows and predicted class in columns. Predicting the most probable class: 481 ham kept, 1 "
     "ham sent to spam (cost 100), 5 spam missed (cost 50) and 69 spam caught, total cost "
     "150. Predicting the least expected cost: 482 ham kept, none sent to spam, 7 spam "
     "missed (cost 70) and 67 caught, total cost 70."),
    ("06_gaussian_naive_bayes", "plot_class_densities(",
     "Histograms of one Spambase feature, the log10 of the longest run of capital letters, "
     "for ham (blue) and spam (orange) training emails, each with the normal density "
     "Gaussian naive Bayes fits to it: ham mean 0.94, variance 0.282; spam mean 1.60, "
     "variance 0.323. The two bell curves overlap over much of the range, and ham's "
     "histogram has a tall spike at 0 (a longest run of one capital) that its bell curve "
     "misses."),
    ("06_gaussian_naive_bayes", "pair[test], y[test],",
     "Spambase test emails on two features, both starting at 0: the log10 of the average "
     "run of capitals (horizontal, up to 4.5) and the log10 of the total number of capitals "
     "(vertical, up to about 6); 400 of the 1,150 emails are drawn. Ham (blue dots) lies "
     "mostly at the lower left, spam (orange squares) spreads up and to the right, and the "
     "two overlap in the middle. Two decision boundaries, where both classes are equally "
     "probable. The shared-variance model's is a straight solid line running diagonally "
     "through the overlap, from about 3.3 on the vertical axis to about 1.45 on the "
     "horizontal one. The per-class-variance model's is a dashed quadratic curve with two "
     "branches: one closes round the ham region at the lower left, from about 3.1 on the "
     "vertical axis to about 1.1 on the horizontal one, close to the straight line where "
     "the data are; the other runs across the top left, near a total of 5, above all the "
     "data. Shading shows the class the quadratic model predicts: ham (blue) inside the "
     "lower-left branch and above the top-left one, spam (orange) everywhere else."),
    ("06_gaussian_naive_bayes", "plot_reliability({\"1 feature\"",
     "Reliability diagram of Gaussian naive Bayes on the Spambase test emails, with one "
     "feature and with that same feature used 5 times. Top: the observed fraction of spam "
     "against the predicted probability of spam, bin by bin; the one-feature model's points "
     "stay close to the diagonal of perfect calibration, while the five-copy model's stray "
     "from it: where it says about 0.02 the observed fraction is about 0.18, and where it "
     "says about 0.99 the observed fraction is about 0.71. Bottom: the number of "
     "predictions in each bin: one feature spreads them over all bins; five copies pile "
     "most of them into the first bin (about 560) and the last (about 350)."),
    ("06_gaussian_naive_bayes", "plot_reliability(diagrams",
     "Reliability diagram on the 1,150 Spambase test emails of Gaussian naive Bayes on all 57 "
     "features, as fitted and after Platt scaling and after isotonic regression, both fitted "
     "on 863 validation emails. Top: observed fraction of spam against predicted probability "
     "of spam. As fitted, 533 emails are predicted about 0.00 and are spam 4.5 % of the time, "
     "and 610 are predicted 1.00 but are spam only 70 % of the time, far below the diagonal. "
     "Platt scaling moves those two piles to 0.03 (observed 0.05) and 0.71 (observed 0.70), "
     "on the diagonal. Isotonic regression makes three large groups, at 0.02 (observed "
     "0.04, 520 emails), 0.29 (observed 0.22, 202 emails) and 0.90 (observed 0.92, 414 "
     "emails), all near the diagonal. A few other points, each standing for one to twelve "
     "emails, lie far from it in both directions. Bottom: the number of predictions in each "
     "bin, showing those piles."),
    ("06_gaussian_naive_bayes", "plot_learning_curves(curves, xlabel=\"training posts",
     "Accuracy on the held-out 20 Newsgroups test set against the number of training "
     "posts, from 100 to 7,541 on a log scale, for multinomial naive Bayes with "
     "alpha = 0.01 and with alpha = 1 (mean over 3 random training subsets, with a band of "
     "plus or minus one standard deviation), and the majority class (dashed, about 0.05). "
     "alpha = 0.01 is ahead at every size: about 0.31 against 0.13 at 100 posts; the gap "
     "is widest at 500 (about 0.63 against 0.21) and narrows after that, to about 0.88 "
     "against 0.82 with all the posts."),
    ("08_where_naive_bayes_breaks", "plot_words_to_flip(",
     "Step curves of the share of caught test spam that the filter lets through as ham, "
     "against the number of good words added to each message (0 to 20), one curve per "
     "filter. With alpha = 1 (71 caught) the share rises steadily: about a third at 5 "
     "words, about 0.6 at 8, all of them by 16. Capping every word's count at 1 gives "
     "nearly the same curve. With alpha = 10 (56 caught) the curve rises much earlier: "
     "0.82 at 5 words and all by 8. alpha = 0.001 (69 caught) follows alpha = 1 and "
     "reaches 1 at 14 words."),
]

IMAGE_PREFIX = "image/"


def figure_count(cell) -> int:
    """How many images a code cell's stored outputs hold (what the site draws as <img>)."""
    return sum(any(mime.startswith(IMAGE_PREFIX) for mime in output.get("data", {}))
               for output in cell.get("outputs", []))


def alt_text(cell) -> str:
    return cell.get("metadata", {}).get("mystnb", {}).get("image", {}).get("alt", "")


def _cells(notebook):
    return [c for c in notebook.cells if c.cell_type == "code"]


def apply(notebooks: Path = NOTEBOOKS) -> tuple[list[str], list[str]]:
    """Write ALT_TEXTS into the notebooks; return (notebooks changed, problems)."""
    changed, problems = [], []
    for stem in sorted({stem for stem, _, _ in ALT_TEXTS}):
        path = notebooks / f"{stem}.ipynb"
        if not path.is_file():
            problems.append(f"{path.name}: no such notebook")
            continue
        notebook = nbformat.read(path, as_version=4)
        dirty = False
        for _, code, text in [e for e in ALT_TEXTS if e[0] == stem]:
            matches = [c for c in _cells(notebook) if code in c.source]
            if len(matches) != 1:
                problems.append(f"{path.name}: {len(matches)} code cells contain {code!r} "
                                "(expected exactly 1): update ALT_TEXTS")
                continue
            cell = matches[0]
            if alt_text(cell) != text:
                cell.metadata.setdefault("mystnb", {}).setdefault("image", {})["alt"] = text
                dirty = True
        if dirty:
            nbformat.write(notebook, path)
            changed.append(path.name)
    return changed, problems


def check(notebooks: Path = NOTEBOOKS) -> list[str]:
    """Every problem that leaves a figure without the right alt text (empty: all good)."""
    problems = []
    expected = {(stem, code): text for stem, code, text in ALT_TEXTS}
    for path in sorted(notebooks.glob("[0-9][0-9]_*.ipynb")):
        notebook = nbformat.read(path, as_version=4)
        for index, cell in enumerate(notebook.cells):
            if cell.cell_type != "code":
                continue
            figures = figure_count(cell)
            where = f"{path.name} cell {index} ({cell.source.strip().splitlines()[0][:60]!r})" \
                if cell.source.strip() else f"{path.name} cell {index}"
            if figures > 1:
                problems.append(f"{where}: {figures} figures in one cell would share one alt "
                                "text; draw one figure per cell")
            if figures and not alt_text(cell).strip():
                problems.append(f"{where}: a figure without alt text; add an entry to "
                                "ALT_TEXTS in tools/figure_alt_text.py and run it with --apply")
            entries = [text for (stem, code), text in expected.items()
                       if stem == path.stem and code in cell.source]
            if entries and alt_text(cell).strip() and alt_text(cell) != entries[0]:
                problems.append(f"{where}: its alt text differs from ALT_TEXTS; run "
                                "tools/figure_alt_text.py --apply")
    for stem, code, _ in ALT_TEXTS:
        path = notebooks / f"{stem}.ipynb"
        if path.is_file():
            count = sum(code in c.source for c in _cells(nbformat.read(path, as_version=4)))
            if count != 1:
                problems.append(f"{path.name}: {count} code cells contain {code!r} "
                                "(expected exactly 1): update ALT_TEXTS")
    return problems


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--apply", action="store_true",
                        help="write the alt texts into the notebooks, then check")
    args = parser.parse_args(argv)
    if args.apply:
        changed, problems = apply()
        print(f"alt text written into: {', '.join(changed) or 'nothing (already there)'}")
        for problem in problems:
            print("  " + problem)
    problems = check()
    for problem in problems:
        print(problem, file=sys.stderr)
    figures = sum(figure_count(c) for p in sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
                  for c in _cells(nbformat.read(p, as_version=4)))
    print(f"{figures} figures in the lessons, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
