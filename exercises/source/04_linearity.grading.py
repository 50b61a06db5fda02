"""Grading spec for exercise 4, naive Bayes as a linear classifier.

The hidden inputs are fitted nbcourse MultinomialNB models (their log-parameters and
new documents); expected values come from the same models' ``to_linear`` and
``predict_proba``, computed in the grader's process.
"""
import numpy as np

from nbcourse import MultinomialNB
from nbcourse.grading.specs import Case, Exercise, Question
from nbcourse.linear import decision_function


def _model(seed: int, n_docs: int, n_words: int, alpha: float, n_spam: int):
    """A fitted model and seven new documents, the first of them empty.

    The classes are unbalanced, so w0 is not 0; an empty document has the score w0
    alone, so it is decided by the prior, and an answer that leaves w0 out is caught.
    """
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 5, size=(n_docs, n_words))
    y = np.array(["spam"] * n_spam + ["ham"] * (n_docs - n_spam))
    rng.shuffle(y)
    model = MultinomialNB(alpha=alpha).fit(X, y)
    new_docs = rng.integers(0, 4, size=(7, n_words))
    new_docs[0] = 0
    return model, new_docs


MODELS = {name: _model(*settings) for name, settings in {
    "the lesson's style of model, a few words": (1, 10, 5, 1.0, 3),
    "a larger vocabulary, more spam than ham": (2, 16, 12, 1.0, 10),
    "weak smoothing": (3, 9, 6, 0.1, 5),
    "strong smoothing": (4, 12, 4, 5.0, 4),
}.items()}


def _weights(model):
    w0, w = model.to_linear()
    return float(w0), np.asarray(w, dtype=float)


def weight_cases():
    return [Case(name, (model.class_log_prior_, model.feature_log_prob_), hidden=i > 0)
            for i, (name, (model, _)) in enumerate(MODELS.items())]


def score_cases():
    return [Case(name, (*_weights(model), docs), hidden=i > 0)
            for i, (name, (model, docs)) in enumerate(MODELS.items())]


def ref_linear_weights(class_log_prior, feature_log_prob):
    for model, _ in MODELS.values():
        if model.class_log_prior_ is class_log_prior:
            w0, w = model.to_linear()
            return [float(w0), np.asarray(w).tolist()]
    raise LookupError("unknown model")


def ref_decide(w0, w, X):
    return (decision_function(w0, w, X) > 0).astype(int).tolist()


def ref_posterior(w0, w, X):
    for model, docs in MODELS.values():
        if docs is X:
            return model.predict_proba(docs)[:, 1].tolist()
    raise LookupError("unknown documents")


def zeros_and_ones(actual, expected, case):
    """Decisions as 0/1, True/False, or a numpy array of either."""
    if not isinstance(actual, list):
        return "expected one decision (0 or 1) per document"
    if len(actual) != len(expected):
        return f"expected {len(expected)} decisions, got {len(actual)}"
    if any(isinstance(a, (int, float)) is False or a not in (0, 1) for a in actual):
        return "every decision should be 0 or 1 (or False/True)"
    wrong = sum(int(a) != e for a, e in zip(actual, expected))
    return None if wrong == 0 else f"{wrong} of {len(expected)} decisions are wrong"


COMPARISON = {
    "naive Bayes": {
        "decision boundary": "linear",
        "what is modelled": "the joint distribution p(x, y)",
        "how the weights are found": "counting, in closed form",
        "assumes the features independent given the class": "yes",
    },
    "logistic regression": {
        "decision boundary": "linear",
        "what is modelled": "the conditional distribution p(y | x)",
        "how the weights are found": "iterative optimisation",
        "assumes the features independent given the class": "no",
    },
}


def table_judge(actual, expected, case):
    if not isinstance(actual, dict) or set(actual) != set(expected):
        return "expected a dict with the keys 'naive Bayes' and 'logistic regression'"
    wrong = 0
    for model, rows in expected.items():
        if not isinstance(actual[model], dict) or set(actual[model]) != set(rows):
            return f"the rows for {model!r} should be the four rows of the table"
        wrong += sum(actual[model][row] != answer for row, answer in rows.items())
    return None if wrong == 0 else f"{wrong} of 8 cells of the table are not right"


LINEAR_HELPERS = ("to_linear", "decision_function", "predict", "predict_proba",
                  "predict_log_proba", "predict_joint_log_proba", "LogisticRegression")

EXERCISE = Exercise(
    title="Exercise 4: naive Bayes is a linear classifier",
    questions=[
        Question("q1", "linear_weights", points=2, title="w0 and w from a fitted model",
                 reference=ref_linear_weights, cases=weight_cases(), forbidden=LINEAR_HELPERS,
                 hint="subtract the log-parameters of class 0 from those of class 1"),
        Question("q2", "decide", points=2, title="decisions from the linear score",
                 reference=ref_decide, judge=zeros_and_ones, cases=score_cases(),
                 forbidden=LINEAR_HELPERS,
                 hint="the score of a document is w0 plus the dot product of its counts with w"),
        Question("q3", "posterior_class1", points=2, title="the posterior from the linear score",
                 reference=ref_posterior, cases=score_cases(), forbidden=LINEAR_HELPERS,
                 hint="with two classes the posterior of class 1 is the logistic sigmoid of "
                      "the score"),
        Question("q4", "agreement", points=1, kind="value",
                 title="the share of messages where both rules agree",
                 reference=lambda: 1.0, forbidden=("to_linear",),
                 hint="compare decide(...) with model.predict(X) == model.classes_[1]"),
        Question("q5", "comparison", points=2, kind="value",
                 title="naive Bayes and logistic regression side by side",
                 reference=lambda: COMPARISON, judge=table_judge,
                 hint="both draw a straight boundary; they differ in what they model and how "
                      "they fit it"),
    ],
)
