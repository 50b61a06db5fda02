"""Grading spec for exercise 5, the personal spam detector.

Expected values come from the lecture's recipe run in the grader's process: the split
below, nbcourse's BagOfWords and MultinomialNB, alpha chosen on the validation part.
The recipe is also a graded function (q4), tested on small corpora where a leaky
vocabulary, alpha scored on the training part or the validation accuracy reported
instead of the test accuracy each give another answer.  The SMS corpus of q5 and q6
is the one ``load_sms_spam_or_mini`` finds (the real SMS Spam Collection, shipped in
data/ or found through NBCOURSE_DATA, else the course's mini corpus); the grader
passes NBCOURSE_DATA to the student's kernel, so both sides see the same data.  Their
public checks only test the form of the answer, so they never mark a correct answer
wrong on whichever corpus the student's machine has.
"""
import numpy as np

from nbcourse import MultinomialNB
import scipy.sparse as sp

from nbcourse.datasets import load_sms_mini, load_sms_spam_or_mini
from nbcourse.evaluation import stratified_split
from nbcourse.grading.judges import OneOf, Within
from nbcourse.grading.specs import Case, Exercise, Mistake, Question, Swap
from nbcourse.text import BagOfWords

ALPHAS = [0.01, 0.03, 0.1, 0.3, 1.0, 3.0]

# the swap of q5 and q6: a recipe that always picks the first alpha and reports 0.25
# a recipe whose accuracy tells the alphas and the seed it was given from any others: a
# second call with other alphas (``[0.01]``, whose accuracy the corpus happens to share
# with the chosen alpha's, student 16) does not follow it
FIRST_ALPHA_RECIPE = """
def spam_experiment(texts, labels, alphas, seed):
    return alphas[0], 0.25 + len(alphas) / 100 + float(sum(alphas)) / 1000 + seed / 10
"""


def first_alpha_accuracy():
    """What ``FIRST_ALPHA_RECIPE`` returns as the accuracy for the question's call."""
    namespace: dict = {}
    exec(FIRST_ALPHA_RECIPE, namespace)  # noqa: S102 - the spec's own source
    return namespace["spam_experiment"](None, None, ALPHAS, 0)[1]

TYPED_RESULT = ("Your `{}` does not follow your `spam_experiment`: run with a "
                "`spam_experiment` that returns another pair, your cell still gives the same "
                "value. Store what your spam_experiment returns on the SMS messages, called "
                "with the question's alphas and seed (a list of one alpha leaves it nothing "
                "to choose).")


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


def _every_alpha_wrong():
    """A validation part that every model gets wrong, whatever its alpha: word 0 marks ham
    and word 1 spam in training, the other way round in validation (all alphas tie at 0)."""
    X_train = np.array([[3, 0], [2, 0], [0, 3], [0, 2]])
    X_validation = np.array([[0, 4], [5, 0], [0, 3]])
    return X_train, ["ham", "ham", "spam", "spam"], X_validation, ["ham", "spam", "ham"]


def _relabelled(parts, names: dict):
    """A toy corpus's parts with its labels renamed (``choose_alpha`` must not know them)."""
    X_train, y_train, X_validation, y_validation = parts
    return (X_train, [names[y] for y in y_train], X_validation,
            [names[y] for y in y_validation])


def ref_experiment(texts, labels, alphas, seed, *, leaky=False, choose_on="validation",
                   report_on="test", refit_with_validation=False):
    """The recipe of questions 4 to 6: split, vocabulary, alpha, test accuracy.

    The keyword arguments make one step go wrong the way students get it wrong.
    """
    texts, labels = list(texts), np.asarray(labels)
    parts = dict(zip(("train", "validation", "test"), ref_split(len(texts), seed)))
    vectorizer = BagOfWords()
    if leaky:
        vectorizer.fit(texts)  # the vocabulary of every message, test ones included
    else:
        vectorizer.fit([texts[i] for i in parts["train"]])
    X = {part: vectorizer.transform([texts[i] for i in rows]) for part, rows in parts.items()}
    y = {part: labels[rows] for part, rows in parts.items()}
    if choose_on == "validation":
        best = ref_choose_alpha(X["train"], y["train"], X["validation"], y["validation"], alphas)
    elif choose_on == "test":
        best = ref_choose_alpha(X["train"], y["train"], X["test"], y["test"], alphas)
    elif choose_on == "validation, last of ties":
        best = choose_largest_on_ties(X["train"], y["train"], X["validation"], y["validation"],
                                      alphas)
    else:
        best = ref_choose_alpha(X["train"], y["train"], X["train"], y["train"], alphas)
    if refit_with_validation:
        both = list(parts["train"]) + list(parts["validation"])
        model = MultinomialNB(alpha=best).fit(
            vectorizer.transform([texts[i] for i in both]), labels[both])
    else:
        model = MultinomialNB(alpha=best).fit(X["train"], y["train"])
    return best, ref_fraction_correct(y[report_on], model.predict(X[report_on]))


def toy_corpus(seed: int, n: int = 30):
    """Short messages from a spam-ish and a ham-ish word list, shared and rare words mixed in.

    With seed 105 the right recipe, a leaky vocabulary, alpha scored on the training
    part and the validation accuracy reported give four different answers.
    """
    rng = np.random.default_rng(seed)
    spammy = "win free prize cash call now offer".split()
    hammy = "see you at home later dinner love thanks".split()
    shared = "ok the and to".split()
    rare = [f"w{i}" for i in range(40)]
    texts, labels = [], []
    for _ in range(n):
        spam = rng.random() < 0.4
        words = list(rng.choice(spammy if spam else hammy, size=rng.integers(2, 7)))
        words += list(rng.choice(shared, size=rng.integers(0, 3)))
        words += list(rng.choice(hammy if spam else spammy, size=rng.integers(0, 3)))
        words += list(rng.choice(rare, size=rng.integers(0, 4)))
        rng.shuffle(words)
        texts.append(" ".join(str(w) for w in words))
        labels.append("spam" if spam else "ham")
    return texts, labels


TOY_ALPHAS = [0.01, 0.1, 1.0, 10.0]


def _lecture_toy():
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


def _sms_pipeline():
    return ref_experiment(*_sms_texts_and_labels(), ALPHAS, 0)


_SMS = {}


def _sms_texts_and_labels(fewer=False):
    sms = load_sms_spam_or_mini()
    if fewer:  # what FEWER_MESSAGES binds in the kernel
        sms = sms.iloc[len(sms) // 6:].reset_index(drop=True)
    return sms["text"].tolist(), sms["label"].tolist()


def sms_result(key):
    if not _SMS:
        _SMS["best_alpha"], _SMS["test_accuracy"] = _sms_pipeline()
    return _SMS[key]


_SCORES = {}


# Questions 7 and 8 use another seed than lesson 05's split, which lessons 05 and 08 print
# (71 of 75 test spam caught): the answer has to be computed, not read off a lesson.
SCORES_SEED = 6


# The swap of questions 7 and 8: the notebook's messages without their first sixth (4645
# of 5574; 60 spam in the test part, not 75; 2 flagged wrongly, not 1), so a count typed
# in beside computed ones (``spam_recall = tp / 75``, ``tp / (tp + 1)``, student 22) no
# longer lands on the answer: precision and recall are 54/56 and 54/60 there.
FEWER_MESSAGES = """
from nbcourse.datasets import load_sms_spam_or_mini

sms = load_sms_spam_or_mini()
sms = sms.iloc[len(sms) // 6:].reset_index(drop=True)
texts = sms["text"].tolist()
labels = sms["label"].to_numpy()
"""

TYPED_SCORE = ("Your `{}` does not follow the messages: run with fewer messages in `sms`, "
               "`texts` and `labels`, your cell gives a value that is not that split's. "
               "Compute it from the notebook's `texts` and `labels` (or `sms`), with every "
               "count taken from your predictions: no number typed in.")


def spam_scores(part="test", stratified=True, fewer=False):
    """Precision, recall and accuracy of spam with alpha = 1 on a part of a stratified
    80/10/10 split (seed SCORES_SEED) of the SMS messages the grader's machine has
    (``fewer``: of those FEWER_MESSAGES keeps)."""
    key = (part, stratified, fewer)
    if key not in _SCORES:
        texts, labels = _sms_texts_and_labels(fewer)
        labels = np.asarray(labels)
        if stratified:
            parts = dict(zip(("train", "validation", "test"),
                             stratified_split(labels, sizes=(0.8, 0.1, 0.1),
                                                              seed=SCORES_SEED)))
        else:
            parts = dict(zip(("train", "validation", "test"), ref_split(len(texts), SCORES_SEED)))
        vectorizer = BagOfWords().fit([texts[i] for i in parts["train"]])
        model = MultinomialNB(alpha=1.0).fit(
            vectorizer.transform([texts[i] for i in parts["train"]]), labels[parts["train"]])
        predicted = model.predict(vectorizer.transform([texts[i] for i in parts[part]]))
        truth = labels[parts[part]]
        flagged, spam = predicted == "spam", truth == "spam"
        _SCORES[key] = {"precision": float(np.sum(flagged & spam) / max(np.sum(flagged), 1)),
                        "recall": float(np.sum(flagged & spam) / np.sum(spam)),
                        "accuracy": float(np.mean(flagged == spam))}
    return _SCORES[key]


def spam_in_the_test_part() -> int:
    """The spam messages of the stratified test part: a recall is a count over this, so
    check() takes 66 / 75 = 0.88 as exact, not as a rounded number."""
    texts, labels = _sms_texts_and_labels()
    test = stratified_split(np.asarray(labels), sizes=(0.8, 0.1, 0.1), seed=SCORES_SEED)[2]
    return int(np.sum(np.asarray(labels)[test] == "spam"))


def _score_mistakes(measure, other):
    return [
        Mistake(f"the {other} instead", lambda: spam_scores()[other],
                f"Your value is the {other}. Precision is the share of flagged messages that "
                "are spam; recall the share of spam messages that are flagged (lesson 05, §3 "
                "and §5)."),
        Mistake("the accuracy instead", lambda: spam_scores()["accuracy"],
                f"Your value is the accuracy, the share of all messages decided right. The "
                f"{measure} looks only at the spam class (lesson 05, §5)."),
        Mistake("measured on the validation part", lambda: spam_scores("validation")[measure],
                "Your value is measured on the validation part. Report the test part "
                "(lesson 05, §7)."),
        Mistake("a split that is not stratified",
                lambda: spam_scores(stratified=False)[measure],
                "Your split is a plain permutation (question 1's split_indices). The question "
                "asks for the lesson's stratified split, which gives each part the same share "
                "of spam: stratified_split(y, sizes=(0.8, 0.1, 0.1), seed=6) (lesson 05, §2)."),
    ]


# ----------------------------------------------------------------- known mistakes
def split_rounded(n, seed):
    order = np.random.default_rng(seed).permutation(n)
    n_train, n_validation = round(0.8 * n), round(0.1 * n)
    return [order[:n_train].tolist(), order[n_train:n_train + n_validation].tolist(),
            order[n_train + n_validation:].tolist()]


def split_sorted(n, seed):
    return [sorted(part) for part in ref_split(n, seed)]


def split_swapped(n, seed):
    train, validation, test = ref_split(n, seed)
    order = validation + test
    return [train, order[len(order) - len(validation):], order[:len(order) - len(validation)]]


def split_cut_at_ninety(n, seed):
    order = np.random.default_rng(seed).permutation(n)
    return [order[:int(0.8 * n)].tolist(), order[int(0.8 * n):int(0.9 * n)].tolist(),
            order[int(0.9 * n):].tolist()]


def correct_count(y_true, y_pred):
    return int(np.sum(np.asarray(y_true) == np.asarray(y_pred)))


def error_rate(y_true, y_pred):
    return float(np.mean(np.asarray(y_true) != np.asarray(y_pred)))


def integer_division(y_true, y_pred):
    return correct_count(y_true, y_pred) // len(y_true)


def as_a_percentage(y_true, y_pred):
    return 100 * ref_fraction_correct(y_true, y_pred)


def lists_compared_whole(y_true, y_pred):
    return float(list(y_true) == list(y_pred))


def _choose(alphas, accuracy_of, keep_ties_last=False):
    best, best_accuracy = None, -1.0
    for alpha in alphas:
        accuracy = accuracy_of(alpha)
        if accuracy > best_accuracy or (keep_ties_last and accuracy == best_accuracy):
            best, best_accuracy = alpha, accuracy
    return best


def choose_on_training(X_train, y_train, X_validation, y_validation, alphas):
    return _choose(alphas, lambda a: ref_fraction_correct(
        y_train, MultinomialNB(alpha=a).fit(X_train, y_train).predict(X_train)))


def choose_largest_on_ties(X_train, y_train, X_validation, y_validation, alphas):
    return _choose(alphas, lambda a: ref_fraction_correct(
        y_validation, MultinomialNB(alpha=a).fit(X_train, y_train).predict(X_validation)),
        keep_ties_last=True)


def choose_the_first(X_train, y_train, X_validation, y_validation, alphas):
    return alphas[0]


def choose_fitting_on_validation_too(X_train, y_train, X_validation, y_validation, alphas):
    stack = sp.vstack if sp.issparse(X_train) else np.vstack
    X_both = stack([X_train, X_validation])
    y_both = np.concatenate([np.asarray(y_train), np.asarray(y_validation)])
    return _choose(alphas, lambda a: ref_fraction_correct(
        y_validation, MultinomialNB(alpha=a).fit(X_both, y_both).predict(X_validation)))


def experiment_without_choice(texts, labels, alphas, seed, *, pick):
    """The recipe with no alpha chosen at all: ``pick(alphas)`` whatever the data."""
    texts, labels = list(texts), np.asarray(labels)
    train, _, test = ref_split(len(texts), seed)
    vectorizer = BagOfWords().fit([texts[i] for i in train])
    alpha = pick(alphas)
    model = MultinomialNB(alpha=alpha).fit(vectorizer.transform([texts[i] for i in train]),
                                           labels[train])
    return alpha, ref_fraction_correct(labels[test],
                                       model.predict(vectorizer.transform([texts[i] for i in test])))


NO_CHOICE = ("Your alpha is the same whatever the messages: no alpha is chosen. Try every alpha "
             "of the list, score each on the validation part (your choose_alpha does that) and "
             "keep the best: see lesson 05, §5.")
ON_TRAINING = ("You chose alpha by its accuracy on the training part, where the model has seen "
               "every message, so the weakest smoothing always looks best. Score each alpha on "
               "the validation part: see lesson 05, §5.")
TIES = ("Several alphas tie for the best validation accuracy and you kept the last one. Keep "
        "the first (the smallest): the recipe's rule for ties.")
LEAKY = ("Your vocabulary was built from every message, the validation and test messages "
         "included, so words the model should never have seen shape it. Fit the BagOfWords on "
         "the training texts only and transform the other parts with it: see lesson 05, §2 "
         "and §7.")

# the library's evaluation helpers and their scikit-learn counterparts (issue 34)
EVALUATION = ("stratified_split", "accuracy", "binary_scores", "confusion_matrix",
              "accuracy_score", "balanced_accuracy_score", "precision_score", "recall_score",
              # 1 - accuracy, and searches that score with the model's own .score (student 18)
              "zero_one_loss", "hamming_loss", "f1_score", "fbeta_score",
              "multilabel_confusion_matrix", "GridSearchCV", "RandomizedSearchCV",
              "cross_val_score", "cross_validate", "validation_curve",
              "precision_recall_fscore_support", "classification_report",
              "nbcourse.evaluation.*", "nbcourse.smoothing_strength.*", "nbcourse._numerics.*",
              # scikit-learn, under any name: its scores and searches are re-exported by
              # other modules (``sklearn.linear_model._logistic.get_scorer``, red team 5)
              "sklearn.*",
              "score")  # a model's own .score is the accuracy (student 14)

#: q7 and q8 ask to count the test part's spam by hand: everything q1-q6 forbid but the
#: stratified split they ask for (student 24: the library's accuracy over the flagged
#: messages is the precision, and a model's .score too)
COUNTING = tuple(entry for entry in EVALUATION
                 if entry not in ("stratified_split", "nbcourse.evaluation.*")) + tuple(
    f"nbcourse.evaluation.{name}" for name in (
        "accuracy", "macro_f1", "majority_class", "majority_accuracy", "kfold_indices",
        "cross_validate", "cross_validate_many", "mean_and_spread", "binary_scores",
        "confusion_matrix", "expected_cost_decision", "total_cost", "reliability_table",
        "log_loss", "shuffle_within_class", "accuracy_by_training_size"))

#: where the recipe's mistakes are made: a value computed with a right spam_experiment that
#: equals one of them does so by chance (another alpha list, say), and is not told so
RECIPE = ("spam_experiment",)

EXERCISE = Exercise(
    title="Exercise 5: a personal spam detector",
    questions=[
        Question("q1", "split_indices", points=2, title="training, validation and test indices",
                 reference=ref_split, forbidden=EVALUATION,
                 hint="one permutation from np.random.default_rng(seed), cut at int(0.8 n) and "
                      "int(0.8 n) + int(0.1 n); keep the permutation's order, do not sort the "
                      "parts",
                 mistakes=[
                     Mistake("sizes rounded", split_rounded,
                             "You rounded the sizes. The recipe cuts at int(0.8 n), which "
                             "rounds down, and gives the validation part int(0.1 n) messages."),
                     Mistake("each part sorted", split_sorted,
                             "Your parts hold the right indices but sorted. Keep the "
                             "permutation's order; do not sort the parts."),
                     Mistake("validation and test swapped", split_swapped,
                             "Your validation part is the last int(0.1 n) messages. The order "
                             "is training, then validation (the next int(0.1 n)), then the "
                             "rest for the test part."),
                     Mistake("the validation part cut at int(0.9 n)", split_cut_at_ninety,
                             "Your validation part ends where int(0.9 n) would end it "
                             "(round(0.1 n) often does too). It must hold the int(0.1 n) "
                             "messages after the training part, which is not the same cut for "
                             "every n (try n = 19)."),
                 ],
                 cases=[
                     Case("the lecture's 500 messages, seed 0", (500, 0), hidden=False),
                     Case("19 messages, where int(0.9 n) is not int(0.8 n) + int(0.1 n)",
                          (19, 1), hidden=False),
                     Case("ten messages", (10, 3)),
                     Case("a size that does not divide evenly", (97, 42)),
                     Case("the size of the SMS corpus", (5574, 1)),
                 ]),
        Question("q2", "fraction_correct", points=1, title="accuracy",
                 reference=ref_fraction_correct, forbidden=EVALUATION,
                 hint="compare the two sequences element-wise, as numpy arrays: "
                      "np.asarray(y_true) == np.asarray(y_pred); list == list gives one True or "
                      "False for the whole list",
                 mistakes=[
                     Mistake("the number right, not the share", correct_count,
                             "Your value is the number of positions that agree. Accuracy is a "
                             "share: divide by the number of positions."),
                     Mistake("the error rate", error_rate,
                             "Your value is the share of positions that differ (the error "
                             "rate). Accuracy is the share that agree."),
                     Mistake("a percentage, not a share", as_a_percentage,
                             "Your value is a percentage (0 to 100). Accuracy here is a share "
                             "between 0 and 1: do not multiply by 100."),
                     Mistake("integer division", integer_division,
                             "// divides whole numbers and throws the remainder away, so any "
                             "accuracy below 1 becomes 0. Divide with /."),
                     Mistake("the lists compared as a whole", lists_compared_whole,
                             "list == list gives a single True or False for the whole list. "
                             "Compare element-wise: np.asarray(y_true) == np.asarray(y_pred), "
                             "then take the mean."),
                 ],
                 cases=[
                     Case("labels as lists", (["ham", "spam", "ham", "ham"],
                                              ["ham", "ham", "ham", "spam"]), hidden=False),
                     Case("three of four right", (["ham", "spam", "spam", "ham"],
                                                  ["ham", "spam", "ham", "ham"]), hidden=False),
                     Case("one of three right", (["ham", "spam", "spam"], ["ham", "ham", "ham"]),
                          hidden=False),
                     Case("four of seven right", (list("abbabab"), list("abaabba"))),
                     Case("everything right", (["spam"] * 5, ["spam"] * 5)),
                     Case("everything wrong", (["ham", "spam"], ["spam", "ham"])),
                     Case("numpy arrays", (np.array(["a", "b", "b", "a", "b"]),
                                           np.array(["a", "b", "a", "a", "a"]))),
                 ]),
        Question("q3", "choose_alpha", points=2, title="choosing alpha on the validation part",
                 reference=ref_choose_alpha, forbidden=EVALUATION,
                 calls=("fraction_correct",),
                 hint="fit on the training part for each alpha, score on the validation part, "
                      "keep the best (the smallest alpha on a tie)",
                 mistakes=[
                     Mistake("alpha scored on the training part", choose_on_training, ON_TRAINING),
                     Mistake("the largest alpha kept on a tie", choose_largest_on_ties, TIES),
                     Mistake("the first alpha, never compared", choose_the_first,
                             "Your answer is the first alpha of the list whatever the data: "
                             "fit a model for every alpha, score each on the validation part "
                             "and keep the best."),
                     Mistake("fitted on training and validation", choose_fitting_on_validation_too,
                             "You fitted each candidate on the training and validation parts "
                             "together, then scored it on the validation part it had seen. Fit "
                             "on the training part only: see lesson 05, §5."),
                 ],
                 cases=[
                     Case("a small corpus with a clear signal", (*_toy(5, 40, 20, 12, 2.0), ALPHAS),
                          hidden=False),
                     Case("a toy corpus where training and validation accuracy disagree",
                          (*_lecture_toy(), [0.1, 1.0, 10.0]), hidden=False),
                     Case("twelve training documents, a faint signal",
                          (*_toy(19, 12, 20, 8, 0.5), ALPHAS), hidden=False),
                     Case("a weak signal", (*_toy(6, 30, 30, 15, 0.4), ALPHAS)),
                     Case("few training documents", (*_toy(7, 8, 40, 20, 1.0), ALPHAS)),
                     # public: a function that ignores ``alphas`` for the notebook's list
                     # passed every other public case (student 12)
                     Case("another list of alphas", (*_toy(8, 25, 25, 10, 0.8), [0.5, 2.0, 8.0]),
                          hidden=False),
                     # a scoring helper that knows "spam" passed every other case, then
                     # raised in q4's hidden corpora (student 12)
                     Case("classes named other than ham and spam",
                          (*_relabelled(_toy(10, 30, 30, 12, 1.0), {"ham": "ok", "spam": "junk"}),
                           ALPHAS)),
                     # the rule for ties holds at 0 too: starting from the last alpha,
                     # or from None, answered otherwise (student 18)
                     Case("every alpha gets every validation message wrong",
                          (*_every_alpha_wrong(), ALPHAS)),
                     Case("alphas in no particular order",
                          (*_toy(17, 25, 25, 10, 0.8), [4.0, 0.25, 1.5, 0.05])),
                     # accuracies 0.935 and 0.945 apart by one step of 1/400: compared
                     # rounded to 2 decimals, another alpha won (student 20)
                     Case("a validation part of 400 messages",
                          (*_toy(22, 30, 400, 20, 0.6), ALPHAS)),
                 ]),
        Question("q4", "spam_experiment", points=2, title="the recipe as a function",
                 reference=ref_experiment, forbidden=EVALUATION,
                 calls=("split_indices", "choose_alpha", "fraction_correct"),
                 hint="split with your split_indices; fit the BagOfWords on the training texts "
                      "only; choose alpha with your choose_alpha on the validation part; fit on "
                      "the training part and score the test part once",
                 mistakes=[
                     Mistake("the vocabulary built from every message",
                             lambda *args: ref_experiment(*args, leaky=True), LEAKY),
                     Mistake("alpha scored on the training part",
                             lambda *args: ref_experiment(*args, choose_on="train"), ON_TRAINING),
                     Mistake("alpha chosen on the test part",
                             lambda *args: ref_experiment(*args, choose_on="test"),
                             "You chose alpha by its accuracy on the test part, and then "
                             "reported the accuracy on that same part: the test part must play "
                             "no role in any choice. Choose on the validation part: see lesson "
                             "05, §5 and §7."),
                     Mistake("no alpha chosen: the first of the list", lambda *args:
                             experiment_without_choice(*args, pick=lambda alphas: alphas[0]),
                             NO_CHOICE),
                     Mistake("no alpha chosen: alpha = 1", lambda *args:
                             experiment_without_choice(*args, pick=lambda alphas: 1.0),
                             NO_CHOICE),
                     Mistake("(accuracy, alpha) instead of (alpha, accuracy)",
                             lambda *args: ref_experiment(*args)[::-1],
                             "Your pair is in the wrong order: return (best_alpha, "
                             "test_accuracy)."),
                     Mistake("the final model fitted on training + validation",
                             lambda *args: ref_experiment(*args, refit_with_validation=True),
                             "Your final model is fitted on the training and validation parts "
                             "together. Step 4 of the question fits it on the training part "
                             "only, the part the vocabulary was built on, with the alpha the "
                             "validation part chose."),
                     Mistake("the validation accuracy reported",
                             lambda *args: ref_experiment(*args, report_on="validation"),
                             "Your accuracy is measured on the validation part, which chose "
                             "alpha. Report the accuracy on the test part, which played no role "
                             "in any choice: see lesson 05, §7."),
                 ],
                 cases=[
                     Case("30 short messages where the recipe's steps matter",
                          (*toy_corpus(105), TOY_ALPHAS, 0), hidden=False),
                     Case("40 short messages", (*toy_corpus(0, 40), TOY_ALPHAS, 0), hidden=False),
                     Case("the 30 short messages split with seed 2",
                          (*toy_corpus(105), TOY_ALPHAS, 2), hidden=False,
                          hint="split with the seed you are given: split_indices(len(texts), "
                               "seed)"),
                     # the final model fitted on training + validation answers otherwise
                     Case("30 other short messages", (*toy_corpus(221), TOY_ALPHAS, 0),
                          hidden=False,
                          hint="fit the final model on the training part only, and return the "
                               "accuracy unrounded"),
                     Case("60 short messages", (*toy_corpus(78, 60), TOY_ALPHAS, 0)),
                     Case("60 other short messages", (*toy_corpus(252, 60), TOY_ALPHAS, 0)),
                     Case("another small corpus", (*toy_corpus(63), TOY_ALPHAS, 0)),
                     Case("a third small corpus", (*toy_corpus(268), TOY_ALPHAS, 0)),
                     Case("the course's 80-message mini corpus",
                          (load_sms_mini()["text"].tolist(), load_sms_mini()["label"].tolist(),
                           ALPHAS, 0)),
                     Case("the mini corpus with another seed",
                          (load_sms_mini()["text"].tolist(), load_sms_mini()["label"].tolist(),
                           ALPHAS, 3)),
                 ]),
        Question("q5", "best_alpha", points=1, kind="value",
                 title="the alpha chosen for the SMS corpus",
                 reference=lambda: sms_result("best_alpha"),
                 calls=("spam_experiment",),
                 # computed through q1-q4: a helper they use is flagged here as well
                 forbidden=EVALUATION,
                 computed=True,
                 swaps=[Swap("the alpha your recipe returns", ("spam_experiment",),
                             FIRST_ALPHA_RECIPE, lambda: ALPHAS[0],
                             TYPED_RESULT.format("best_alpha"))],
                 # one call of spam_experiment is all the cell does: a right call of a wrong
                 # (even an empty) recipe earns half, not all (red team, issue 34)
                 follow_through=0.5,
                 hint="run your spam_experiment on the SMS messages, with the alphas given "
                      "and seed 0",
                 mistakes=[
                     Mistake("alpha scored on the training part", lambda: ref_experiment(
                         *_sms_texts_and_labels(), ALPHAS, 0, choose_on="train")[0],
                         ON_TRAINING,
                         made_in=RECIPE),
                     # on the SMS corpus the test part chooses the same alpha as the
                     # training part: the feedback says it cannot tell which was used
                     Mistake("alpha chosen on the test part", lambda: ref_experiment(
                         *_sms_texts_and_labels(), ALPHAS, 0, choose_on="test")[0],
                         "You chose alpha by its accuracy on the test part. The test part "
                         "must play no role in any choice: score each alpha on the "
                         "validation part (lesson 05, §5).",
                         made_in=RECIPE),
                     Mistake("the largest alpha kept on a tie", lambda: ref_experiment(
                         *_sms_texts_and_labels(), ALPHAS, 0,
                         choose_on="validation, last of ties")[0], TIES,
                         made_in=RECIPE),
                 ],
                 cases=[Case("one of the alphas in the recipe", hidden=False,
                             judge=OneOf(ALPHAS, "best_alpha should be one of alphas")),
                        Case("the alpha the recipe chooses on this corpus")]),
        Question("q6", "test_accuracy", points=2, kind="value",
                 title="the test accuracy of the chosen model",
                 reference=lambda: sms_result("test_accuracy"),
                 calls=("spam_experiment",),
                 # computed through q1-q4: a helper they use is flagged here as well
                 forbidden=EVALUATION,
                 computed=True,
                 swaps=[Swap("the accuracy your recipe returns", ("spam_experiment",),
                             FIRST_ALPHA_RECIPE, first_alpha_accuracy,
                             TYPED_RESULT.format("test_accuracy"))],
                 # one call of spam_experiment is all the cell does: a right call of a wrong
                 # (even an empty) recipe earns half, not all (red team, issue 34)
                 follow_through=0.5,
                 # the default tolerance: far closer than one message of the test part
                 # (1/558 = 0.0018 on the SMS corpus), and a rounded accuracy fails
                 hint="run your spam_experiment on the SMS messages, with the alphas given "
                      "and seed 0",
                 mistakes=[
                     Mistake("a leaky vocabulary and alpha scored on the training part",
                             lambda: ref_experiment(*_sms_texts_and_labels(), ALPHAS, 0,
                                                    leaky=True, choose_on="train")[1],
                             LEAKY + " " + ON_TRAINING,
                         made_in=RECIPE),
                     Mistake("the largest alpha kept on a tie", lambda: ref_experiment(
                         *_sms_texts_and_labels(), ALPHAS, 0,
                         choose_on="validation, last of ties")[1], TIES,
                         made_in=RECIPE),
                     Mistake("the validation accuracy reported", lambda: ref_experiment(
                         *_sms_texts_and_labels(), ALPHAS, 0, report_on="validation")[1],
                         "Your accuracy is measured on the validation part, which chose "
                         "alpha. Report the accuracy on the test part: see lesson 05, §7.",
                         made_in=RECIPE),
                 ],
                 cases=[Case("a share between 0 and 1", hidden=False,
                             judge=Within(0, 1, "test_accuracy should be a share between 0 "
                                                "and 1")),
                        Case("the test accuracy of the recipe on this corpus")]),
        Question("q7", "spam_precision", points=1, kind="value",
                 title="precision of spam on the test part",
                 reference=lambda: spam_scores()["precision"],
                 forbidden=COUNTING,
                 computed=True,  # "count them yourself": a number typed in is flagged
                 swaps=[Swap("the precision computed from the messages", (), FEWER_MESSAGES,
                             lambda: spam_scores(fewer=True)["precision"],
                             TYPED_SCORE.format("spam_precision"),
                             rebinds=("sms", "texts", "labels"))],
                 mistakes=_score_mistakes("precision", "recall"),
                 cases=[Case("a share between 0 and 1", hidden=False,
                             judge=Within(0, 1, "spam_precision should be a share between 0 "
                                                "and 1")),
                        Case("the precision of spam on the stratified test part")]),
        Question("q8", "spam_recall", points=1, kind="value",
                 title="recall of spam on the test part",
                 reference=lambda: spam_scores()["recall"],
                 forbidden=COUNTING,
                 computed=True,  # "count them yourself": a number typed in is flagged
                 swaps=[Swap("the recall computed from the messages", (), FEWER_MESSAGES,
                             lambda: spam_scores(fewer=True)["recall"],
                             TYPED_SCORE.format("spam_recall"),
                             rebinds=("sms", "texts", "labels"))],
                 mistakes=_score_mistakes("recall", "precision"),
                 cases=[Case("a share between 0 and 1", hidden=False,
                             judge=Within(0, 1, "spam_recall should be a share between 0 "
                                                "and 1", exact_over=spam_in_the_test_part())),
                        Case("the recall of spam on the stratified test part")]),
    ],
)
