"""Grading spec for exercise 4, naive Bayes as a linear classifier.

The hidden inputs are fitted nbcourse MultinomialNB models (their log-parameters and
new documents); expected values come from the same models' ``to_linear`` and
``predict_proba``, computed in the grader's process.
"""
import functools

import numpy as np
import scipy.sparse as sp

from nbcourse import BernoulliNB, MultinomialNB
from nbcourse.datasets import load_sms_mini
from nbcourse.grading.judges import SameKeys, Within, ZerosAndOnes
from nbcourse.grading.specs import Case, Exercise, Mistake, Question, Swap
from nbcourse.linear import decision_function
from nbcourse.text import BagOfWords


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
    scores = np.asarray(decision_function(w0, w, X), dtype=float)
    return [float(1 / (1 + np.exp(-s))) if s >= 0 else float(np.exp(s) / (1 + np.exp(s)))
            for s in scores]


# Public cases of questions 2 and 3 beyond the lesson's model: a score of exactly 0 (a
# tie, which is not "class 1 wins"), the sparse matrix a BagOfWords gives, and scores
# far beyond what exp can hold.
TIES = (0.0, np.array([1.0, -1.0, 0.5]), np.array([[0, 0, 0], [1, 1, 0], [2, 1, 0], [0, 2, 1]]))
SPARSE_MODEL, SPARSE_DOCS = list(MODELS.values())[0]
SPARSE = (*(lambda w0, w: (float(w0), np.asarray(w, dtype=float)))(*SPARSE_MODEL.to_linear()),
          sp.csr_matrix(SPARSE_DOCS))
HIDDEN_SPARSE_MODEL, HIDDEN_SPARSE_DOCS = list(MODELS.values())[2]
HIDDEN_SPARSE = (*(lambda w0, w: (float(w0), np.asarray(w, dtype=float)))(
    *HIDDEN_SPARSE_MODEL.to_linear()), sp.csr_matrix(HIDDEN_SPARSE_DOCS))
LARGE = (0.0, np.array([400.0, -300.0]), np.array([[2, 0], [0, 3], [1, 1], [0, 0]]))
MORE_TIES = (0.5, np.array([2.0, -2.0, -0.5]),
             np.array([[1, 1, 1], [0, 0, 1], [1, 0, 0], [3, 3, 1], [0, 1, 2], [2, 2, 0]]))
MORE_LARGE = (-5.0, np.array([300.0, -250.0, 10.0]),
              np.array([[3, 0, 1], [0, 4, 0], [1, 1, 2], [0, 0, 0], [2, 3, 40]]))


def _bernoulli_case(seed: int, n_docs: int, n_words: int, n_classes: int, alpha: float, doc):
    """A Bernoulli model fitted on random 0/1 documents, and one new document ``doc``."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(n_docs, n_words))
    y = np.array([f"class {i % n_classes}" for i in range(n_docs)])
    y[: n_docs // 2] = "class 0"          # unbalanced classes: the prior matters
    model = BernoulliNB(alpha=alpha, binarize=None).fit(X, y)
    b = np.asarray(doc(rng, n_words), dtype=int)
    return model, b


BERNOULLI = [
    ("the lesson's style: two classes, four words, two of them absent",
     (5, 8, 4, 2, 1.0, lambda rng, n: [1, 0, 1, 0])),
    ("a document without any of the words", (6, 10, 5, 2, 1.0, lambda rng, n: [0] * n)),
    ("a larger vocabulary, most words absent",
     (7, 30, 20, 2, 1.0, lambda rng, n: (rng.random(n) < 0.2).astype(int))),
    ("three classes", (8, 15, 6, 3, 1.0, lambda rng, n: rng.integers(0, 2, size=n))),
    ("weak smoothing", (9, 12, 7, 2, 0.1, lambda rng, n: rng.integers(0, 2, size=n))),
    ("every word present", (10, 9, 5, 2, 2.0, lambda rng, n: [1] * n)),
    ("a vocabulary of 1,200 words, a few present: the product of the probabilities underflows",
     (11, 40, 1200, 2, 1.0, lambda rng, n: (rng.random(n) < 0.01).astype(int))),
    # student 9: with as many classes as words, a sum over the wrong axis has the right shape
    ("as many classes as words", (12, 18, 3, 3, 1.0, lambda rng, n: [1, 0, 1])),
]
BERNOULLI_MODELS = [_bernoulli_case(*settings) for _, settings in BERNOULLI]


#: public besides the first two: three classes (the first two classes alone passed
#: every public case, student 13)
PUBLIC_BERNOULLI = {"as many classes as words"}


def bernoulli_cases():
    return [Case(name, (np.exp(model.class_log_prior_), np.exp(model.feature_log_prob_), b),
                 hidden=i > 1 and name not in PUBLIC_BERNOULLI)
            for i, ((name, _), (model, b)) in enumerate(zip(BERNOULLI, BERNOULLI_MODELS))] + [
        # the question's own example, as plain lists: code that needs arrays crashed on it
        # and had full marks (student 27)
        Case("the question's example, as plain lists",
             ([0.5, 0.5], [[0.5, 0.5], [0.5, 0.5]], [1, 0]), hidden=False,
             hint="the inputs may be plain lists: np.asarray them first")]


def ref_bernoulli_log_scores(class_prior, p, b):
    for model, doc in BERNOULLI_MODELS:
        if doc is b:
            return model.predict_joint_log_proba(doc.reshape(1, -1))[0].tolist()
    prior, p, b = (np.asarray(v, dtype=float) for v in (class_prior, p, b))
    return (np.log(prior) + np.log(p) @ b + np.log(1 - p) @ (1 - b)).tolist()


# Question 5: two yes/no switches A and B and a class y, 800 evenings. Per cell the class
# follows "A equals B" (XNOR), which no linear rule can draw; the best linear rule still
# beats the majority class, and the best rule of all beats both.
SWITCH_CELLS = {(0, 0): (80, 120), (0, 1): (170, 30), (1, 0): (160, 40), (1, 1): (50, 150)}
# (x_A, x_B): (evenings with y = 0, evenings with y = 1)
CELLS = sorted(SWITCH_CELLS)
EVENINGS = sum(sum(counts) for counts in SWITCH_CELLS.values())  # 800


def _accuracy(says_one):
    right = sum(SWITCH_CELLS[cell][1] if says_one[cell] else SWITCH_CELLS[cell][0]
                for cell in CELLS)
    return right / EVENINGS


def _linear_labelings():
    """Every answer per cell that some w0 + wA xA + wB xB > 0 gives (a grid of weights
    finds all 14: every labelling of the square's corners but XOR and XNOR)."""
    grid = [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5]
    return {tuple(w0 + wa * a + wb * b > 0 for a, b in CELLS)
            for w0 in grid for wa in grid for wb in grid}


def ref_switches(best_linear="linear"):
    majority = max(_accuracy(dict.fromkeys(CELLS, False)), _accuracy(dict.fromkeys(CELLS, True)))
    every = {tuple(bool(i >> k & 1) for k in range(4)) for i in range(16)}
    best = {"linear": max(_accuracy(dict(zip(CELLS, labels))) for labels in _linear_labelings()),
            "any": max(_accuracy(dict(zip(CELLS, labels))) for labels in every),
            "majority": majority}[best_linear]
    return {"majority": majority, "best_linear": best,
            "best_any": max(_accuracy(dict(zip(CELLS, labels))) for labels in every)}


def free_shift(transform=lambda w: w, dropped=0):
    """How much the score w0 + x . w of the notebook's model rises with one more "free"
    (``dropped``: of the model FEWER_MESSAGES fits, without the first messages)."""
    return transform(_free_log_theta(dropped).copy())


@functools.lru_cache(maxsize=None)
def _free_log_theta(dropped: int) -> np.ndarray:
    """log theta of "free" in each class (fitted once: scoring reads it for every run)."""
    sms = load_sms_mini().iloc[dropped:].reset_index(drop=True)
    vectorizer = BagOfWords()
    X = vectorizer.fit_transform(sms["text"])
    model = MultinomialNB(alpha=1.0).fit(X, sms["label"].to_numpy())
    column = list(vectorizer.get_feature_names_out()).index("free")
    return np.asarray(model.feature_log_prob_, dtype=float)[:, column]


# The swap of q7: the notebook's model and vocabulary fitted without the first 10 messages
# ("free" is column 129 of 393, not 140 of 431; its shift 1.2731, not 1.3846), so a number
# typed in, a column typed in or counts read off a printout no longer land on the answer
# (student 23).
FEWER_MESSAGES = """
from nbcourse import MultinomialNB
from nbcourse.datasets import load_sms_mini
from nbcourse.text import BagOfWords

sms = load_sms_mini().iloc[10:].reset_index(drop=True)
vectorizer = BagOfWords()
X = vectorizer.fit_transform(sms["text"])
y = sms["label"].to_numpy()
model = MultinomialNB(alpha=1.0).fit(X, y)
"""


# ----------------------------------------------------------------- known mistakes
def weights_reversed(class_log_prior, feature_log_prob):
    prior, words = np.asarray(class_log_prior), np.asarray(feature_log_prob)
    return [float(prior[0] - prior[1]), (words[0] - words[1]).tolist()]


def weights_without_w0(class_log_prior, feature_log_prob):
    words = np.asarray(feature_log_prob)
    return [0.0, (words[1] - words[0]).tolist()]


def weights_from_probabilities(class_log_prior, feature_log_prob):
    prior, words = np.exp(class_log_prior), np.exp(feature_log_prob)
    return [float(prior[1] - prior[0]), (words[1] - words[0]).tolist()]


def _scores(w0, w, X):
    X = X if sp.issparse(X) else np.asarray(X, dtype=float)
    return w0 + np.asarray(X @ np.asarray(w, dtype=float)).ravel()


def decide_without_w0(w0, w, X):
    return (_scores(0.0, w, X) > 0).astype(int).tolist()


def decide_ties_as_class_1(w0, w, X):
    return (_scores(w0, w, X) >= 0).astype(int).tolist()


def decide_reversed(w0, w, X):
    return (_scores(w0, w, X) < 0).astype(int).tolist()


def decide_w0_in_every_weight(w0, w, X):
    X = X.toarray() if hasattr(X, "toarray") else np.asarray(X)
    return (X @ (np.asarray(w, dtype=float) + w0) > 0).astype(int).tolist()


def posterior_without_w0(w0, w, X):
    with np.errstate(over="ignore"):
        return (1 / (1 + np.exp(-_scores(0.0, w, X)))).tolist()


def posterior_overflowing(w0, w, X):
    """exp(s) / (1 + exp(s)): inf / inf = nan once exp(s) overflows."""
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(_scores(w0, w, X))
        return (e / (1 + e)).tolist()


def posterior_sign_flipped(w0, w, X):
    with np.errstate(over="ignore"):
        return (1 / (1 + np.exp(_scores(w0, w, X)))).tolist()


def _bernoulli_parts(class_prior, p, b):
    p, b = np.asarray(p, dtype=float), np.asarray(b, dtype=float)
    return np.log(np.asarray(class_prior, dtype=float)), p, b


def bernoulli_absent_ignored(class_prior, p, b):
    log_prior, p, b = _bernoulli_parts(class_prior, p, b)
    return (log_prior + np.log(p) @ b).tolist()


def bernoulli_without_prior(class_prior, p, b):
    _, p, b = _bernoulli_parts(class_prior, p, b)
    return (np.log(p) @ b + np.log(1 - p) @ (1 - b)).tolist()


def bernoulli_absent_for_every_word(class_prior, p, b):
    log_prior, p, b = _bernoulli_parts(class_prior, p, b)
    return (log_prior + np.log(p) @ b + np.log(1 - p).sum(axis=1)).tolist()


def bernoulli_log_of_product(class_prior, p, b):
    _, p, b = _bernoulli_parts(class_prior, p, b)
    with np.errstate(divide="ignore", under="ignore"):
        product = np.asarray(class_prior, dtype=float) * np.prod(np.where(b == 1, p, 1 - p), axis=1)
        return np.log(product).tolist()


# Question 4's value is 1.0 for every right answer, so it is also judged on a swap: its cell
# runs again with a decide that disagrees with the model on every message of an even
# number of words; the share must then be that of the messages of an odd number of words.
ODD_DECIDE = """
def decide(w0, w, X):
    scores = w0 + np.asarray(X @ np.asarray(w, dtype=float)).ravel()
    rows = X if hasattr(X, "toarray") else np.asarray(X)
    words = np.asarray(rows.sum(axis=-1)).ravel()   # one message at a time works too
    return ((scores > 0) != (words % 2 == 0)).astype(int)
"""


# a model fitted to the corpus with every label swapped: it decides against the true
# label on every message, so a share taken against the labels is 0 where the model's is 1
MIRRORED_MODEL = """
_sms = load_sms_mini()
_labels = _sms["label"].to_numpy()
model = MultinomialNB(alpha=1.0).fit(BagOfWords().fit_transform(_sms["text"]),
                                     np.where(_labels == "spam", "ham", "spam"))
"""


def share_of_ham_decisions():
    sms = load_sms_mini()
    X = BagOfWords().fit_transform(sms["text"])
    model = MultinomialNB(alpha=1.0).fit(X, sms["label"].to_numpy())
    return float(np.mean(model.predict(X) != model.classes_[1]))


# The third swap of q4: the notebook's model with the same parameters, whose predict (and
# predict_proba) turns its decision round on every message whose word count is a multiple
# of 3, so a cell that compares decide with the linear score again, not with the model's
# predict, no longer lands on the share (student 27). Read off each message, it works
# one message at a time too.
OTHER_PREDICT = """
import numpy as np
from nbcourse import MultinomialNB
from nbcourse.datasets import load_sms_mini
from nbcourse.text import BagOfWords


class _TurnedRound(MultinomialNB):
    def _turned(self, X):
        rows = X if hasattr(X, "toarray") else np.asarray(X)
        return np.asarray(rows.sum(axis=-1)).ravel() % 3 == 0

    def predict(self, X):
        labels = np.asarray(super().predict(X)).copy()
        turned = self._turned(X)
        labels[turned] = np.where(labels[turned] == self.classes_[1], self.classes_[0],
                                  self.classes_[1])
        return labels

    def predict_proba(self, X):
        proba = np.array(super().predict_proba(X), dtype=float)
        proba[self._turned(X)] = proba[self._turned(X)][:, ::-1]
        return proba


_sms = load_sms_mini()
model = _TurnedRound(alpha=1.0).fit(BagOfWords().fit_transform(_sms["text"]),
                                    _sms["label"].to_numpy())
"""


@functools.lru_cache(maxsize=None)
def share_not_turned_round():
    X = BagOfWords().fit_transform(load_sms_mini()["text"])
    return float(np.mean(np.asarray(X.sum(axis=1)).ravel() % 3 != 0))


@functools.lru_cache(maxsize=None)
def share_of_odd_messages():
    X = BagOfWords().fit_transform(load_sms_mini()["text"])
    return float(np.mean(np.asarray(X.sum(axis=1)).ravel() % 2 == 1))


NO_W0 = ("Your score leaves out w0, the difference of the log-priors. An empty document "
         "shows it: its score is w0 alone, so the class prior decides it. See lesson 04, §1.")

LINEAR_HELPERS = ("to_linear", "decision_function", "predict", "predict_proba",
                  "predict_log_proba", "predict_joint_log_proba", "LogisticRegression",
                  # the models' private scoring methods (student 19)
                  "_joint_log_likelihood", "_checked_joint_log_proba",
                  "nbcourse.linear.*", "nbcourse._numerics.*",
                  # calibration wraps predict_proba (``_raw_scores``, student 27)
                  "nbcourse.calibration.*",
                  # the attacks read the linear score (good_word_attack's log_odds_before,
                  # student 23)
                  "nbcourse.adversary.*",
                  # "use numpy only": scikit-learn, and scipy's sigmoid (special.expit)
                  # and densities; scipy.sparse stays, inputs may be sparse
                  "sklearn.*", "scipy.special.*", "scipy.stats.*")
#: the functions' questions take numbers, not a model: no model of the library inside them
#: (a subclass of ``_PosteriorFromJoint`` scored q3, red team 5); q4, q5 and q7's cells use
#: the notebook's ``model`` as asked
IN_FUNCTIONS = LINEAR_HELPERS + ("nbcourse.naive_bayes.*",)

EXERCISE = Exercise(
    title="Exercise 4: naive Bayes is a linear classifier",
    questions=[
        Question("q1", "linear_weights", points=2, title="w0 and w from a fitted model",
                 reference=ref_linear_weights, cases=weight_cases(), forbidden=IN_FUNCTIONS,
                 hint="class 1 minus class 0, for the log-priors (w0) and for every word (w)",
                 mistakes=[
                     Mistake("class 0 minus class 1", weights_reversed,
                             "Your weights have the wrong sign: subtract class 0 from class 1, "
                             "so that a positive score means class 1. See lesson 04, §1."),
                     Mistake("w0 left out", weights_without_w0, NO_W0),
                     Mistake("probabilities instead of logs", weights_from_probabilities,
                             "You subtracted the probabilities themselves. The weights are "
                             "differences of *log*-probabilities, which is what makes the rule "
                             "linear: see lesson 04, §1."),
                 ]),
        Question("q2", "decide", points=2, title="decisions from the linear score",
                 reference=ref_decide, judge=ZerosAndOnes(), cases=score_cases() + [
                     Case("scores of exactly 0 are ties: class 1 does not win", TIES,
                          hidden=False, hint="a score of exactly 0 is a tie: decide 1 only "
                                             "where w0 + x . w > 0"),
                     Case("more ties, with w0 not zero", MORE_TIES, hidden=False,
                          hint="w0 is added once to each document's score, not to every weight"),
                     Case("ties where w0 is negative",
                          (-1.0, np.array([1.0, 0.5]), np.array([[1, 0], [0, 2], [2, 0], [0, 0]]))),
                     Case("a sparse matrix, as BagOfWords gives", SPARSE, hidden=False,
                          hint="X may be a scipy.sparse matrix: X @ w works for both, "
                               "np.dot(X, w) and (X * w).sum(axis=1) do not"),
                 ],
                 forbidden=IN_FUNCTIONS,
                 hint="1 where w0 + x . w > 0, else 0",
                 mistakes=[
                     Mistake("w0 left out", decide_without_w0, NO_W0),
                     Mistake("a tie counted as class 1", decide_ties_as_class_1,
                             "A score of exactly 0 means both classes are equally likely, and "
                             "the rule is 'class 1 when the score is > 0': use >, not >=. An "
                             "empty document of balanced classes scores exactly 0."),
                     Mistake("the sign reversed", decide_reversed,
                             "Your decisions are the opposite of the model's: class 1 wins "
                             "where the score w0 + x . w is positive. See lesson 04, §1."),
                     Mistake("w0 added to every weight", decide_w0_in_every_weight,
                             "You added w0 to every weight (X @ (w + w0)), so it counts once per "
                             "word. w0 is added once to each document's score: w0 + X @ w. See "
                             "lesson 04, §1."),
                 ]),
        Question("q3", "posterior_class1", points=2, title="the posterior from the linear score",
                 reference=ref_posterior, forbidden=IN_FUNCTIONS,
                 cases=score_cases() + [
                     Case("scores in the hundreds, far beyond what exp can hold", LARGE,
                          hidden=False,
                          hint="exp(800) overflows to inf and inf / inf is nan: compute "
                               "1 / (1 + exp(-s)) where s >= 0 and exp(s) / (1 + exp(s)) "
                               "where s < 0"),
                     Case("a sparse matrix", HIDDEN_SPARSE),
                     Case("large scores of both signs", MORE_LARGE),
                 ],
                 hint="with two classes the posterior of class 1 is the sigmoid of the score, "
                      "1 / (1 + exp(-(w0 + x . w)))",
                 mistakes=[
                     Mistake("w0 left out", posterior_without_w0, NO_W0),
                     Mistake("exp(s) / (1 + exp(s)) overflowing", posterior_overflowing,
                             "exp(s) / (1 + exp(s)) is the sigmoid on paper, but for a score in "
                             "the hundreds exp(s) is inf and inf / inf is nan. Use "
                             "1 / (1 + exp(-s)) for s >= 0 (and the other form for s < 0), as "
                             "lesson 05, §4 does for log-sum-exp."),
                     Mistake("the sign in the sigmoid flipped", posterior_sign_flipped,
                             "Your values are the posterior of class 0: the sigmoid of the score "
                             "is 1 / (1 + exp(-score)), with a minus sign. See lesson 04, §1."),
                 ]),
        Question("q4", "agreement", points=1, kind="value",
                 title="the share of messages where both rules agree",
                 # the model's own predict is how the cell compares: allowed here; the
                 # library's linear helpers are not, in the cell or in what it calls
                 reference=lambda: 1.0, computed=True,
                 forbidden=("to_linear", "decision_function", "nbcourse.linear.*",
                            "nbcourse._numerics.*", "nbcourse.adversary.*",
                            "nbcourse.calibration.*"),
                 calls=("linear_weights", "decide"),
                 swaps=[Swap("the share computed from decide's answers", ("decide",),
                             ODD_DECIDE, share_of_odd_messages,
                             "Your `agreement` does not follow your `decide`: run with a "
                             "`decide` that disagrees with the model on some messages, your "
                             "cell still gives the same share. Compare decide(w0, w, X) with "
                             "model.predict(X) == model.classes_[1], message by message, and "
                             "take the mean."),
                        Swap("the share compared with the model's own decisions", (),
                             MIRRORED_MODEL, lambda: 1.0,
                             "Your `agreement` does not follow the model: run with a model "
                             "that decides otherwise on the corpus, your cell gives another "
                             "share. Compare decide(w0, w, X) with the model's decisions, "
                             "model.predict(X) == model.classes_[1], not with the true labels "
                             "y (on the lesson's corpus the model happens to be right on every "
                             "message, so the two look the same there).",
                             rebinds=("model",)),
                        Swap("the share compared with the model's predict", (),
                             OTHER_PREDICT, share_not_turned_round,
                             "Your `agreement` does not follow the model's predict: run with "
                             "a model whose predict decides otherwise on some messages (its "
                             "weights unchanged), your cell gives another share. Compare "
                             "decide(w0, w, X) with model.predict(X) == model.classes_[1], "
                             "not with the linear score again.",
                             rebinds=("model",))],
                 hint="decide answers 0/1 and predict answers labels: compare decide's result "
                      "with model.predict(X) == model.classes_[1], and keep w0 in the score",
                 mistakes=[
                     Mistake("0/1 compared with the labels", lambda: 0.0,
                             "decide answers 0 or 1 and model.predict answers labels such as "
                             "'spam', so they never compare equal. Compare decide's result with "
                             "model.predict(X) == model.classes_[1]."),
                     Mistake("the share where the rules disagree", lambda: 0.0,
                             "Your value is the share of messages where the two rules "
                             "*disagree* (1 - agreement). The question asks for the share "
                             "where they agree."),
                     # a decide that returns a list: decide(...) == 1 is one False, so the
                     # share is that of the messages the model calls ham (student 11)
                     Mistake("a list compared with 1 as a whole", share_of_ham_decisions,
                             "Your value is the share of messages the model calls ham: "
                             "decide(w0, w, X) == 1 on a list is a single False, not one "
                             "answer per message. Make it an array first: "
                             "np.asarray(decide(w0, w, X)) == 1."),
                     Mistake("a count instead of a share", lambda: float(len(load_sms_mini())),
                             "Your value counts the messages on which both rules agree. The "
                             "question asks for the share: divide by the number of messages."),
                 ],
                 cases=[Case("a share between 0 and 1", hidden=False,
                             judge=Within(0, 1, "agreement should be a share between 0 and 1")),
                        Case("the share on the lesson's messages")]),
        Question("q5", "switch_accuracies", points=2, kind="value",
                 title="what a linear rule can and cannot reach",
                 reference=ref_switches,
                 # a fitted LogisticRegression's predict found the best line (student 21)
                 forbidden=IN_FUNCTIONS,
                 hint="try every answer per cell that a straight line can give: with two yes/no "
                      "features that is every answer except 'A equals B' and 'A differs from B'",
                 mistakes=[
                     Mistake("a linear rule said to reach no more than the prior",
                             lambda: ref_switches("majority"),
                             "Linear means the answer cannot be 'A equals B', not that it "
                             "cannot beat the majority class: a line that cuts off one corner "
                             "of the square of (x_A, x_B) already does better here (lesson 04, "
                             "§1; lesson 08, §1)."),
                     Mistake("a linear rule said to reach every cell's majority",
                             lambda: ref_switches("any"),
                             "The best rule per cell answers 1 exactly when A equals B, and no "
                             "w0 + w_A x_A + w_B x_B > 0 draws that: it needs both (0, 0) and "
                             "(1, 1) on one side of a line and (0, 1), (1, 0) on the other "
                             "(lesson 08, §1)."),
                 ],
                 cases=[Case("a dict with the three accuracies", hidden=False,
                             judge=SameKeys('switch_accuracies should be a dict with the keys '
                                            '"majority", "best_linear" and "best_any"',
                                            keys=["majority", "best_linear", "best_any"],
                                            shares=["majority", "best_linear", "best_any"],
                                            exact_over=EVENINGS)),
                        Case("the three accuracies of the switch table")]),
        Question("q6", "bernoulli_log_scores", points=2,
                 title="Bernoulli naive Bayes: the joint log score, absent words included",
                 reference=ref_bernoulli_log_scores, cases=bernoulli_cases(),
                 forbidden=IN_FUNCTIONS + ("BernoulliNB",),
                 hint="for every class c: log pi_c, plus log p_ck for every word present in the "
                      "document, plus log(1 - p_ck) for every word absent from it",
                 mistakes=[
                     Mistake("absent words ignored", bernoulli_absent_ignored,
                             "Your score counts only the words that are present, as the "
                             "multinomial model does. Bernoulli naive Bayes also multiplies in "
                             "1 - p_ck for every word that is absent: see lesson 04, §5."),
                     Mistake("the class prior left out", bernoulli_without_prior,
                             "The class prior is missing: the joint score starts with log pi_c. "
                             "A document without any word shows it. See lesson 04, §5, and "
                             "lesson 01, §5."),
                     Mistake("log(1 - p) added for every word", bernoulli_absent_for_every_word,
                             "You added log(1 - p_ck) for every word of the vocabulary, present "
                             "or not. A present word contributes log p_ck only; log(1 - p_ck) "
                             "belongs to the absent words (the split in lesson 04, §5 uses the "
                             "odds p / (1 - p) for the present words to make up for it)."),
                     Mistake("the log of a product", bernoulli_log_of_product,
                             "You multiplied the probabilities and took the log at the end. "
                             "With a vocabulary of a thousand words the product underflows to "
                             "0 and its log is -inf: add the logs instead of multiplying "
                             "(lesson 05, §4, underflow)."),
                 ]),
        Question("q7", "free_shift", points=2, kind="value",
                 title="what one more word does to the score",
                 reference=lambda: free_shift(lambda t: float(t[1] - t[0])),
                 forbidden=LINEAR_HELPERS,
                 computed=True, calls=("linear_weights",),
                 swaps=[Swap("the shift computed from the notebook's model", (),
                             FEWER_MESSAGES,
                             lambda: free_shift(lambda t: float(t[1] - t[0]), dropped=10),
                             "Your `free_shift` does not follow the notebook's model: run "
                             "with a `model` and `vectorizer` fitted on fewer messages, your "
                             "cell gives a number that is not theirs. Compute it from "
                             "`model`'s fitted parameters and `vectorizer`'s words (or your "
                             "functions called on them): no number or column typed in.",
                             rebinds=("sms", "vectorizer", "X", "y", "model"))],
                 mistakes=[
                     Mistake("class 0 minus class 1",
                             lambda: free_shift(lambda t: float(t[0] - t[1])),
                             "Your value has the wrong sign: class 1 (spam) minus class 0 "
                             "(lesson 04, §1)."),
                     Mistake("the odds ratio instead of the score's change",
                             lambda: free_shift(lambda t: float(np.exp(t[1] - t[0]))),
                             "Your value is exp(w_k), the factor by which the *odds* are "
                             "multiplied. The score is a log-odds: it rises by w_k itself "
                             "(lesson 04, §1)."),
                     Mistake("probabilities instead of logs",
                             lambda: free_shift(lambda t: float(np.exp(t[1]) - np.exp(t[0]))),
                             "You subtracted the probabilities. The score adds z_k * w_k with "
                             "w_k a difference of *log*-probabilities (lesson 04, §1)."),
                 ],
                 cases=[Case("a number", hidden=False,
                             judge=Within(-1e9, 1e9, "free_shift should be a number")),
                        Case("the change of the score with one more 'free'")]),
    ],
)
