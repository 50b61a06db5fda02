"""Public tests for exercise 4 (naive Bayes is a linear classifier)."""
import numpy as np

from nbcourse.grading.selfcheck import PublicQuestion, PublicTest

ROWS = ("decision boundary", "what is modelled", "how the weights are found",
        "assumes the features independent given the class")


def _tiny_model():
    from nbcourse import MultinomialNB
    X = np.array([[3, 0, 1], [2, 1, 0], [0, 2, 2], [1, 0, 3], [0, 3, 1]])
    y = np.array(["ham", "ham", "spam", "spam", "spam"])
    return MultinomialNB(alpha=1.0).fit(X, y), X


MODEL, DOCS = _tiny_model()
W0, W = (float(MODEL.to_linear()[0]), np.asarray(MODEL.to_linear()[1]))
EMPTY = np.zeros((1, DOCS.shape[1]), dtype=int)  # a message with none of the words


def _table_shape(actual, _):
    if not isinstance(actual, dict) or set(actual) != {"naive Bayes", "logistic regression"}:
        return "comparison should have the keys 'naive Bayes' and 'logistic regression'"
    for model, rows in actual.items():
        if not isinstance(rows, dict) or set(rows) != set(ROWS):
            return f"comparison[{model!r}] should have exactly the four rows of the table"
    return None


def _share(actual, _):
    if isinstance(actual, bool) or not isinstance(actual, (int, float)) or not 0 <= actual <= 1:
        return "agreement should be a share between 0 and 1"
    return None


def _every_message(actual, expected):
    """The lesson's point: the linear rule *is* predict, so they never disagree."""
    problem = _share(actual, expected)
    if problem:
        return problem
    if actual != expected:
        return f"the two rules disagree on {1 - actual:.1%} of the messages"
    return None


def _same_decisions(actual, expected):
    if not isinstance(actual, list) or len(actual) != len(expected):
        return f"expected one decision per document ({len(expected)})"
    if any(a not in (0, 1) for a in actual):  # True/False count as 1/0
        return "every decision should be 0 or 1"
    return None if [int(a) for a in actual] == expected else \
        "the decisions differ from the model's predictions"


# what these questions ask you to write yourself (the grader flags them)
LINEAR_HELPERS = ("to_linear", "decision_function", "predict", "predict_proba",
                  "predict_log_proba", "predict_joint_log_proba", "LogisticRegression")

QUESTIONS = {
    "q1": PublicQuestion("linear_weights", "w0 and w", [
        PublicTest("a tiny two-class model", lambda: [W0, W.tolist()],
                   args=(MODEL.class_log_prior_, MODEL.feature_log_prob_),
                   hint="class 1 minus class 0, for the priors and for every word"),
    ], forbidden=LINEAR_HELPERS),
    "q2": PublicQuestion("decide", "decisions", [
        PublicTest("the tiny model's training documents",
                   lambda: (MODEL.predict(DOCS) == MODEL.classes_[1]).astype(int).tolist(),
                   args=(W0, W, DOCS), hint="1 where w0 + x . w > 0, else 0",
                   judge=_same_decisions),
        PublicTest("an empty message, decided by the class prior alone",
                   lambda: (MODEL.predict(EMPTY) == MODEL.classes_[1]).astype(int).tolist(),
                   args=(W0, W, EMPTY), judge=_same_decisions,
                   hint="with no words, x . w is 0 and only w0 is left: is w0 part of your score?"),
    ], forbidden=LINEAR_HELPERS),
    "q3": PublicQuestion("posterior_class1", "the posterior", [
        PublicTest("the tiny model's training documents",
                   lambda: MODEL.predict_proba(DOCS)[:, 1].tolist(), args=(W0, W, DOCS),
                   hint="1 / (1 + exp(-score))"),
        PublicTest("an empty message gets the class prior of class 1",
                   lambda: MODEL.predict_proba(EMPTY)[:, 1].tolist(), args=(W0, W, EMPTY),
                   hint="with no words the score is w0 alone, and the sigmoid of w0 is the share "
                        "of class-1 documents: is w0 part of your score?"),
    ], forbidden=LINEAR_HELPERS),
    "q4": PublicQuestion("agreement", "the agreement", [
        PublicTest("a share between 0 and 1", lambda: 1.0, judge=_share),
        PublicTest("the linear rule decides like predict on every message", lambda: 1.0,
                   judge=_every_message,
                   hint="decide answers 0/1 and predict answers labels: compare decide's result "
                        "with model.predict(X) == model.classes_[1], and keep w0 in the score"),
    ], kind="value", forbidden=("to_linear",)),
    "q5": PublicQuestion("comparison", "the table", [
        PublicTest("two models, four rows each", lambda: None, judge=_table_shape),
    ], kind="value"),
}
