"""Issue 34, a sixth student's two wrong answers that land on the right value.

- 04 q4: ``agreement`` taken against the true labels ``y`` instead of the model's own
  decisions is 1.0 too, because the model is right on every message of the lesson's
  corpus.  A second swap now runs the cell with a ``model`` that errs on every message
  (``Swap.rebinds``): the model's own share stays 1.0, the labels' share drops to 0.
- 05 q5/q6: a ``spam_experiment`` refitting its final model on train + validation loses
  q4's points, and its ``test_accuracy`` is nevertheless the right number on the SMS corpus.
  A value that is one call of a wrong function earns the follow-through share whether or
  not its number happens to be right (``follow_through.credit``), so its mark no longer
  depends on a coincidence of the corpus.
"""
from __future__ import annotations

import pytest

from nbcourse.grading import specs
from submission_support import lost_marks
from test_grading_marks_probes import SOURCE, grade_probes
from test_grading_marks_student3_b import REFIT_ON_TRAIN_AND_VALIDATION

AGAINST_THE_LABELS = {
    "labels_y": "agreement = float(np.mean(decide(w0, w, X) == (y == model.classes_[1])))",
    "labels_from_the_table": "agreement = float(np.mean(decide(w0, w, X) == "
                             "(sms['label'].to_numpy() == 'spam')))",
}

#: right answers that must keep their mark under both swaps
AGREEMENT_RIGHT = {
    "predict_compared": "agreement = float(np.mean((decide(w0, w, X) == 1) == "
                        "(model.predict(X) == model.classes_[1])))",
    "weights_again_in_the_cell": (
        "v0, v = linear_weights(model.class_log_prior_, model.feature_log_prob_)\n"
        "agreement = float(np.mean(decide(v0, v, X) == (model.predict(X) == 'spam')))"),
}


@pytest.fixture(scope="module")
def exercise_4(tmp_path_factory):
    probes = {"solution": "", **AGAINST_THE_LABELS, **AGREEMENT_RIGHT}
    return grade_probes("04_linearity", probes, tmp_path_factory.mktemp("ex04_labels"))


@pytest.mark.parametrize("probe", list(AGAINST_THE_LABELS))
def test_an_agreement_with_the_true_labels_earns_nothing(exercise_4, probe):
    rows, pages = exercise_4
    assert rows[probe]["q4"]["score"] == 0, rows[probe]["q4"]
    page = pages[probe].replace("&#x27;", "'")
    assert "does not follow the model" in page and "not with the true labels" in page
    others = [q for qid, q in rows[probe].items() if qid != "q4"]
    assert not lost_marks(others), lost_marks(others)


@pytest.mark.parametrize("probe", ["solution", *AGREEMENT_RIGHT])
def test_an_agreement_with_the_models_decisions_keeps_its_mark(exercise_4, probe):
    rows, _ = exercise_4
    assert not lost_marks(rows[probe].values()), lost_marks(rows[probe].values())


def test_the_swapped_model_is_rebound_not_graded():
    """The plan sends the model's name with the functions to put in place; a spec that
    names a value both ways is refused."""
    from nbcourse.grading.swaps import swap_plan
    exercise = specs.load("04_linearity", SOURCE)
    requests = [r for r in swap_plan(exercise) if r["question"] == "q4"]
    assert len(requests) == 3  # decide swapped; the model mirrored; its predict turned
    rebound = [r for r in requests if "model" in r["replace"]]
    assert len(rebound) == 2
    for request in rebound:
        assert set(request["replace"]) == {"model", "linear_weights", "decide"}
        assert "model" not in request["graded"]
    with pytest.raises(ValueError, match="either replaced"):
        specs.Swap("both", ("model",), "model = 1", lambda: 1.0, "text", rebinds=("model",))


#: student 6's recipe (the final model refit on train + validation), then the value cell
REFIT_AND_RUN = REFIT_ON_TRAIN_AND_VALIDATION + \
    "\nbest_alpha, test_accuracy = spam_experiment(texts, labels, alphas, seed=0)\n"


@pytest.fixture(scope="module")
def exercise_5(tmp_path_factory):
    probes = {"solution": "", "refit": REFIT_AND_RUN}
    return grade_probes("05_spam", probes, tmp_path_factory.mktemp("ex05_refit"))


def test_a_right_number_from_a_wrong_recipe_earns_the_follow_through_share(exercise_5):
    rows, pages = exercise_5
    assert not lost_marks(rows["solution"].values())
    refit = rows["refit"]
    assert refit["q4"]["score"] < refit["q4"]["points"]
    exercise = specs.load("05_spam", SOURCE)
    for qid in ("q5", "q6"):
        share = exercise.question(qid).follow_through
        assert refit[qid]["score"] == share * refit[qid]["points"], refit[qid]
        assert refit[qid]["status"] == "right given the functions it calls", refit[qid]
    page = pages["refit"].replace("&#x27;", "'")
    assert "only by a coincidence of this data" in page
    others = [q for qid, q in refit.items() if qid not in ("q4", "q5", "q6")]
    assert not lost_marks(others), lost_marks(others)
