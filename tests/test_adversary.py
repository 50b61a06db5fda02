"""nbcourse.adversary: the good-word attack flips exactly when it says it does, and needs
no more words than any other choice would (checked by brute force on a small vocabulary)."""
import itertools
import math

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.naive_bayes import MultinomialNB as SkMultinomialNB

from nbcourse import MultinomialNB
from nbcourse.adversary import cap_counts, good_word_attack


def _toy():
    # words: 0 "win" (spam), 1 "cash" (spam), 2 "lunch" (ham), 3 "mum" (ham), 4 "ok" (both)
    X = np.array([[3, 2, 0, 0, 1], [2, 3, 0, 0, 1], [4, 1, 0, 1, 0],
                  [0, 0, 2, 1, 1], [0, 0, 1, 3, 1], [0, 1, 2, 2, 2]])
    y = np.array(["spam", "spam", "spam", "ham", "ham", "ham"])
    return X, y


def _with(x, added):
    x = np.array(x, dtype=float)
    for column, copies in added.items():
        x[column] += copies
    return x


@pytest.mark.parametrize("alpha", [0.1, 1.0, 5.0])
def test_the_attack_flips_the_message_and_one_word_less_does_not(alpha):
    X, y = _toy()
    model = MultinomialNB(alpha=alpha).fit(X, y)
    reference = SkMultinomialNB(alpha=alpha).fit(X, y)
    message = np.array([6, 4, 0, 0, 0])
    attack = good_word_attack(model, message, "ham")
    assert attack.flipped and attack.n_words == sum(attack.added.values()) > 0
    attacked = _with(message, attack.added)
    assert model.predict(attacked[None])[0] == reference.predict(attacked[None])[0] == "ham"
    last = max(attack.added, key=lambda c: -attack.added[c])
    one_less = {**attack.added, last: attack.added[last] - 1}
    assert reference.predict(_with(message, one_less)[None])[0] == "spam"
    jll = reference.predict_joint_log_proba(message[None])[0]
    assert attack.log_odds_before == pytest.approx(jll[1] - jll[0])
    after = reference.predict_joint_log_proba(attacked[None])[0]
    assert attack.log_odds_after == pytest.approx(after[1] - after[0]) and attack.log_odds_after < 0


@pytest.mark.parametrize("max_count", [1, 2])
def test_no_other_choice_of_fewer_words_flips_the_message(max_count):
    X, y = _toy()
    model = MultinomialNB(alpha=1.0).fit(cap_counts(X, max_count), y)
    message = np.array([1, 0, 0, 0, 0])
    attack = good_word_attack(model, message, "ham", max_count=max_count)
    assert attack.flipped
    assert all(message[c] + k <= max_count for c, k in attack.added.items())
    # every way to add fewer occurrences within the cap leaves the message spam
    for copies in itertools.product(range(max_count + 1), repeat=5):
        if sum(copies) < attack.n_words:
            padded = cap_counts(message + np.array(copies), max_count)
            assert model.predict(padded[None])[0] == "spam", copies


def test_the_cap_stops_the_repeated_word_and_can_make_the_attack_impossible():
    X, y = _toy()
    capped = MultinomialNB(alpha=1.0).fit(cap_counts(X, 1), y)
    message = np.array([30, 30, 0, 0, 0])           # far beyond the cap: counted as 1 and 1
    free = good_word_attack(MultinomialNB(alpha=1.0).fit(X, y), message, "ham")
    assert len(free.added) == 1                     # without a cap: one word, repeated
    blocked = good_word_attack(capped, [1, 1, 1, 0, 1], "ham", max_count=1)
    assert not blocked.flipped and blocked.n_words == math.inf
    assert set(blocked.added) == {3}                # it tried the one good word it had left


def test_a_message_already_classified_as_the_target_needs_no_word_and_sparse_rows_work():
    X, y = _toy()
    model = MultinomialNB().fit(X, y)
    attack = good_word_attack(model, sp.csr_matrix([[0, 0, 3, 1, 0]]), "ham")
    assert attack.n_words == 0 and attack.added == {} and attack.flipped


def test_cap_counts_caps_dense_and_sparse_alike_without_touching_the_input():
    X = np.array([[0, 5, 1], [2, 0, 9]])
    S = sp.csr_matrix(X)
    assert np.array_equal(cap_counts(X, 2), [[0, 2, 1], [2, 0, 2]])
    assert np.array_equal(cap_counts(S, 2).toarray(), [[0, 2, 1], [2, 0, 2]])
    assert S.toarray().max() == 9 and cap_counts(X, None) is X


@pytest.mark.parametrize("call, error, message", [
    (lambda m: good_word_attack(m, [1, 1, 0, 0, 0], "eggs"), ValueError, "target must be one of"),
    (lambda m: good_word_attack(m, [1, 1, 0], "ham"), ValueError, "5 word counts"),
    (lambda m: good_word_attack(m, [1, -1, 0, 0, 0], "ham"), ValueError, ">= 0"),
    (lambda m: good_word_attack(m, [1, 1, 0, 0, 0], "ham", max_count=0), ValueError, "max_count"),
    (lambda m: good_word_attack(object(), [1, 1, 0, 0, 0], "ham"), ValueError, "two classes"),
])
def test_bad_input_gets_a_clear_error(call, error, message):
    X, y = _toy()
    with pytest.raises(error, match=message):
        call(MultinomialNB().fit(X, y))


def test_the_attack_picture_draws_one_step_curve_per_filter_told_apart_without_colour():
    from test_figures_accessible import _lines_only_colour_tells_apart

    from nbcourse.plotting import figure_to_png, plot_words_to_flip

    figure = plot_words_to_flip({"a": [1, 2, 8, math.inf], "b": [3, 3, 4], "c": [0, 20, 5]}, max_words=10)
    lines = figure.axes[0].get_lines()
    assert [line.get_label() for line in lines] == ["a (4 caught)", "b (3 caught)", "c (3 caught)"]
    assert list(lines[0].get_ydata()[[0, 1, 2, 8, 10]]) == [0.0, 0.25, 0.5, 0.75, 0.75]  # inf never flips
    assert not _lines_only_colour_tells_apart(figure)
    assert figure_to_png(figure).startswith(b"\x89PNG")
    with pytest.raises(TypeError, match="non-empty dict"):
        plot_words_to_flip({})


def test_the_attack_reads_the_models_linear_form():
    # the log-odds weights have one home, the model's to_linear: shift them and the attack
    # sees the shift
    X, y = _toy()
    model = MultinomialNB().fit(X, y)
    bias, weights = model.to_linear()
    model.to_linear = lambda: (bias + 1.5, weights)
    message = np.array([6, 4, 0, 0, 0])
    attack = good_word_attack(model, message, "ham")
    assert attack.log_odds_before == pytest.approx(bias + 1.5 + message @ weights)


@pytest.mark.parametrize("n_words", [10, 300, 5000])
def test_the_good_words_come_in_the_order_of_a_stable_sort(n_words):
    # sorted in two steps (the best ones first); ties and NaN weights as np.argsort has them
    from nbcourse.adversary import _good_words
    rng = np.random.default_rng(n_words)
    for trial in range(50):
        weights = rng.integers(-30, 10, n_words) / 7.0   # many equal weights
        if trial % 3 == 0:
            weights[rng.integers(0, n_words, 5)] = np.nan
        order = np.argsort(weights, kind="stable")
        assert list(_good_words(weights)) == order[weights[order] < 0].tolist()
