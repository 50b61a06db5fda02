"""Public tests for exercise 5 (a personal spam detector)."""
import numpy as np

from nbcourse.grading.selfcheck import PublicQuestion, PublicTest


def _lecture_split():
    order = np.random.default_rng(0).permutation(500)
    return [order[:400].tolist(), order[400:450].tolist(), order[450:].tolist()]


def _sizes(actual, _):
    if not isinstance(actual, list) or len(actual) != 3:
        return "return three lists: (train, validation, test)"
    sizes = [len(part) if isinstance(part, list) else -1 for part in actual]
    if sizes != [400, 50, 50]:
        return f"500 messages should split 400 / 50 / 50, got {sizes}"
    if sorted(i for part in actual for i in part) != list(range(500)):
        return "every index from 0 to 499 should appear exactly once"
    return None


def _toy():
    """Six training and four validation documents over three words.

    Validation accuracy for alpha = 0.1, 1, 10 is 3/4, 4/4, 4/4 and training accuracy
    5/6, 4/6, 4/6: scoring on the training part, or keeping the last of tied alphas,
    each picks another alpha than the recipe does.
    """
    X_train = np.array([[2, 1, 0], [2, 0, 2], [1, 1, 2], [2, 2, 0], [1, 2, 3], [3, 3, 1]])
    y_train = ["ham", "ham", "ham", "spam", "spam", "spam"]
    X_validation = np.array([[1, 0, 0], [0, 2, 3], [1, 2, 3], [2, 2, 2]])
    y_validation = ["ham", "spam", "ham", "spam"]
    return X_train, y_train, X_validation, y_validation


TOY_ALPHAS = [0.1, 1.0, 10.0]


def _accuracies(part: str) -> list[float]:
    """Accuracy of MultinomialNB(alpha) fitted on the toy's training part, for each alpha."""
    from nbcourse import MultinomialNB
    X_train, y_train, X_validation, y_validation = _toy()
    X, y = (X_train, y_train) if part == "training" else (X_validation, y_validation)
    return [float(np.mean(MultinomialNB(alpha=alpha).fit(X_train, y_train).predict(X) ==
                          np.asarray(y))) for alpha in TOY_ALPHAS]


def _first_best(accuracies):
    return TOY_ALPHAS[accuracies.index(max(accuracies))]


def _recipe_alpha():
    return _first_best(_accuracies("validation"))


def _one_of_the_alphas(actual, _):
    return None if actual in TOY_ALPHAS and not isinstance(actual, bool) else \
        "choose_alpha should return one of the alphas it was given"


def _validation_choice(actual, expected):
    problem = _one_of_the_alphas(actual, expected)
    if problem or actual == expected:
        return problem
    if actual == _first_best(_accuracies("training")):
        return ("this alpha does best on the training part; alpha must be chosen on the "
                "validation part")
    validation = _accuracies("validation")
    if validation[TOY_ALPHAS.index(actual)] == max(validation):
        return "several alphas tie for the best validation accuracy; keep the smallest of them"
    return "another alpha has a better validation accuracy"


def _accuracy_range(actual, _):
    if isinstance(actual, bool) or not isinstance(actual, (int, float)) or not 0 <= actual <= 1:
        return "test_accuracy should be a share between 0 and 1"
    return None if actual > 0.8 else "a naive Bayes spam filter should do far better than that"


# what these questions ask you to write yourself (the grader flags them)
EVALUATION = ("stratified_split", "accuracy", "binary_scores", "confusion_matrix")

QUESTIONS = {
    "q1": PublicQuestion("split_indices", "the split", [
        PublicTest("500 messages split 400 / 50 / 50, each index once", lambda: None,
                   args=(500, 0), judge=_sizes),
        PublicTest("the lecture's split with seed 0", _lecture_split, args=(500, 0),
                   hint="use np.random.default_rng(seed).permutation(n) once, then cut it"),
    ], forbidden=EVALUATION),
    "q2": PublicQuestion("fraction_correct", "accuracy", [
        PublicTest("two of four right", lambda: 0.5,
                   args=(["ham", "spam", "ham", "ham"], ["ham", "ham", "ham", "spam"]),
                   hint="the number of equal positions over the number of positions"),
    ], forbidden=EVALUATION),
    "q3": PublicQuestion("choose_alpha", "choosing alpha", [
        PublicTest("returns one of the alphas", lambda: None, args=(*_toy(), TOY_ALPHAS),
                   judge=_one_of_the_alphas),
        PublicTest("a toy corpus where training and validation accuracy disagree", _recipe_alpha,
                   args=(*_toy(), TOY_ALPHAS), judge=_validation_choice,
                   hint="fit on the training part for each alpha, score it on the validation "
                        "part, and keep the first alpha that reaches the best score"),
    ], forbidden=EVALUATION),
    "q4": PublicQuestion("best_alpha", "the chosen alpha", [
        PublicTest("one of the alphas in the recipe", lambda: None,
                   judge=lambda actual, _: None if actual in (0.01, 0.03, 0.1, 0.3, 1.0, 3.0)
                   and not isinstance(actual, bool) else "best_alpha should be one of alphas"),
    ], kind="value"),
    "q5": PublicQuestion("test_accuracy", "the test accuracy", [
        PublicTest("a plausible accuracy", lambda: None, judge=_accuracy_range),
    ], kind="value"),
}
