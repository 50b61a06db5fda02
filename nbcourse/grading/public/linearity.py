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


QUESTIONS = {
    "q1": PublicQuestion("linear_weights", "w0 and w", [
        PublicTest("a tiny two-class model", lambda: [W0, W.tolist()],
                   args=(MODEL.class_log_prior_, MODEL.feature_log_prob_),
                   hint="class 1 minus class 0, for the priors and for every word"),
    ]),
    "q2": PublicQuestion("decide", "decisions", [
        PublicTest("the tiny model's training documents",
                   lambda: (MODEL.predict(DOCS) == MODEL.classes_[1]).astype(int).tolist(),
                   args=(W0, W, DOCS), hint="1 where w0 + x . w > 0, else 0",
                   judge=lambda actual, expected: None if isinstance(actual, list) and
                   [int(a) for a in actual] == expected else
                   "the decisions differ from the model's predictions"),
    ]),
    "q3": PublicQuestion("posterior_class1", "the posterior", [
        PublicTest("the tiny model's training documents",
                   lambda: MODEL.predict_proba(DOCS)[:, 1].tolist(), args=(W0, W, DOCS),
                   hint="1 / (1 + exp(-score))"),
    ]),
    "q4": PublicQuestion("agreement", "the agreement", [
        PublicTest("a share between 0 and 1", lambda: 1.0, judge=_share),
    ], kind="value"),
    "q5": PublicQuestion("comparison", "the table", [
        PublicTest("two models, four rows each", lambda: None, judge=_table_shape),
    ], kind="value"),
}
