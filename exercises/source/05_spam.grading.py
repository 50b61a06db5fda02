"""Grading spec for exercise 5, the personal spam detector.

Expected values come from the lecture's recipe run in the grader's process: the split
below, nbcourse's BagOfWords and MultinomialNB, alpha chosen on the validation part.
The SMS corpus is the one ``load_sms_spam_or_mini`` finds (the real SMS Spam
Collection, which the course ships in data/; the mini corpus only if that copy is
gone); the grader passes NBCOURSE_DATA to the student's kernel, so both sides see the same data.
"""
import numpy as np

from nbcourse import MultinomialNB
from nbcourse.datasets import load_sms_spam_or_mini
from nbcourse.grading.specs import Case, Exercise, Question
from nbcourse.grading.values import Tolerance
from nbcourse.text import BagOfWords

ALPHAS = [0.01, 0.03, 0.1, 0.3, 1.0, 3.0]


def ref_split(n, seed):
    order = np.random.default_rng(seed).permutation(n)
    n_train, n_validation = int(0.8 * n), int(0.1 * n)
    return [order[:n_train].tolist(), order[n_train:n_train + n_validation].tolist(),
            order[n_train + n_validation:].tolist()]


def ref_fraction_correct(y_true, y_pred):
    return float(np.mean(np.asarray(y_true) == np.asarray(y_pred)))


def ref_choose_alpha(X_train, y_train, X_validation, y_validation, alphas):
    best, best_accuracy = None, -1.0
    for alpha in alphas:  # ties keep the smaller alpha: the list is increasing
        model = MultinomialNB(alpha=alpha).fit(X_train, y_train)
        accuracy = ref_fraction_correct(y_validation, model.predict(X_validation))
        if accuracy > best_accuracy:
            best, best_accuracy = alpha, accuracy
    return best


def _toy(seed, n_train, n_validation, n_words, signal):
    """Two classes whose word rates differ by ``signal``; a validation part to choose on."""
    rng = np.random.default_rng(seed)
    rates = rng.gamma(1.0, 1.0, size=(2, n_words))
    rates[1, : n_words // 3] += signal
    def draw(n):
        y = rng.integers(0, 2, size=n)
        X = rng.poisson(rates[y] * rng.uniform(0.2, 1.0, size=(n, 1)))
        return X, np.where(y == 1, "spam", "ham").tolist()
    X_train, y_train = draw(n_train)
    X_validation, y_validation = draw(n_validation)
    return X_train, y_train, X_validation, y_validation


def _sms_pipeline():
    sms = load_sms_spam_or_mini()
    train, validation, test = ref_split(len(sms), 0)
    vectorizer = BagOfWords()
    X_train = vectorizer.fit_transform(sms["text"].iloc[train])
    X_validation = vectorizer.transform(sms["text"].iloc[validation])
    X_test = vectorizer.transform(sms["text"].iloc[test])
    labels = sms["label"].to_numpy()
    best = ref_choose_alpha(X_train, labels[train], X_validation, labels[validation], ALPHAS)
    model = MultinomialNB(alpha=best).fit(X_train, labels[train])
    return best, ref_fraction_correct(labels[test], model.predict(X_test))


_SMS = {}


def sms_result(key):
    if not _SMS:
        _SMS["best_alpha"], _SMS["test_accuracy"] = _sms_pipeline()
    return _SMS[key]


EVALUATION = ("stratified_split", "accuracy", "binary_scores", "confusion_matrix")

EXERCISE = Exercise(
    title="Exercise 5: a personal spam detector",
    questions=[
        Question("q1", "split_indices", points=2, title="training, validation and test indices",
                 reference=ref_split, forbidden=EVALUATION,
                 hint="one permutation from np.random.default_rng(seed), cut at int(0.8 n) and "
                      "int(0.8 n) + int(0.1 n)",
                 cases=[
                     Case("the lecture's 500 messages, seed 0", (500, 0), hidden=False),
                     Case("ten messages", (10, 3)),
                     Case("a size that does not divide evenly", (97, 42)),
                     Case("the size of the SMS corpus", (5574, 1)),
                 ]),
        Question("q2", "fraction_correct", points=1, title="accuracy",
                 reference=ref_fraction_correct, forbidden=EVALUATION,
                 hint="compare the two sequences position by position",
                 cases=[
                     Case("labels as lists", (["ham", "spam", "ham", "ham"],
                                              ["ham", "ham", "ham", "spam"]), hidden=False),
                     Case("everything right", (["spam"] * 5, ["spam"] * 5)),
                     Case("everything wrong", (["ham", "spam"], ["spam", "ham"])),
                     Case("numpy arrays", (np.array(["a", "b", "b", "a", "b"]),
                                           np.array(["a", "b", "a", "a", "a"]))),
                 ]),
        Question("q3", "choose_alpha", points=2, title="choosing alpha on the validation part",
                 reference=ref_choose_alpha, forbidden=EVALUATION,
                 hint="fit on the training part for each alpha, score on the validation part, "
                      "keep the best (the smallest alpha on a tie)",
                 cases=[
                     Case("a small corpus with a clear signal", (*_toy(5, 40, 20, 12, 2.0), ALPHAS),
                          hidden=False),
                     Case("a weak signal", (*_toy(6, 30, 30, 15, 0.4), ALPHAS)),
                     Case("few training documents", (*_toy(7, 8, 40, 20, 1.0), ALPHAS)),
                     Case("another list of alphas", (*_toy(8, 25, 25, 10, 0.8), [0.5, 2.0, 8.0])),
                 ]),
        Question("q4", "best_alpha", points=1, kind="value",
                 title="the alpha chosen for the SMS corpus",
                 reference=lambda: sms_result("best_alpha"),
                 hint="follow the recipe exactly: split with seed 0, vocabulary from the "
                      "training messages only"),
        Question("q5", "test_accuracy", points=2, kind="value",
                 title="the test accuracy of the chosen model",
                 reference=lambda: sms_result("test_accuracy"),
                 # closer than one message of the test part (1/558 = 0.0018 on the SMS
                 # corpus), so the validation accuracy or another alpha's does not pass
                 tolerance=Tolerance(rel=0.0, abs_=1e-6),
                 hint="fit on the training part with the chosen alpha, then score the test part "
                      "once"),
    ],
)
