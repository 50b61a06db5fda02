"""Issue 34, student 22's two typed counts (on 0008cfb): a count typed in beside computed
ones passed, because the typed-in reading flags only long numbers and nothing varied the
data.  05 q7/q8 and 07 q4 now have a swap that runs the cell again with other messages
(``sms``/``texts``/``labels``, ``may``/``june``): a typed count no longer lands on the
answer there, while a right cell, however it reads the notebook's messages, does.
"""
from __future__ import annotations

from test_grading_marks_probes import grade_probes

SPLIT = ("from nbcourse.evaluation import stratified_split\n"
         "tr, va, te = stratified_split(labels, sizes=(0.8, 0.1, 0.1), seed=6)\n"
         "bag = BagOfWords().fit([texts[i] for i in tr])\n"
         "nb = MultinomialNB(alpha=1.0).fit(bag.transform([texts[i] for i in tr]), labels[tr])\n"
         "pred = nb.predict(bag.transform([texts[i] for i in te]))\n"
         "truth = labels[te]\n"
         "tp = int(np.sum((pred == 'spam') & (truth == 'spam')))\n")


def test_grading_05_a_typed_count_does_not_follow_fewer_messages(tmp_path):
    probes = {
        "solution": "",
        "typed_spam_count": SPLIT + "spam_precision = tp / int(np.sum(pred == 'spam'))\n"
                                    "spam_recall = tp / 75\n",
        "typed_false_positives": SPLIT + "spam_precision = tp / (tp + 1)\n"
                                         "spam_recall = tp / int(np.sum(truth == 'spam'))\n",
        # right, reading the DataFrame itself, with its own names
        "from_the_frame": "from nbcourse.evaluation import stratified_split\n"
                          "y = sms['label'].to_numpy()\n"
                          "parts = stratified_split(y, sizes=(0.8, 0.1, 0.1), seed=6)\n"
                          "docs = sms['text'].tolist()\n"
                          "bag = BagOfWords().fit([docs[i] for i in parts[0]])\n"
                          "fit = MultinomialNB(alpha=1.0).fit(bag.transform([docs[i] for i in "
                          "parts[0]]), y[parts[0]])\n"
                          "flagged = fit.predict(bag.transform([docs[i] for i in parts[2]])) "
                          "== 'spam'\n"
                          "spam = y[parts[2]] == 'spam'\n"
                          "spam_precision = (flagged & spam).sum() / flagged.sum()\n"
                          "spam_recall = (flagged & spam).sum() / spam.sum()\n",
    }
    rows, pages = grade_probes("05_spam", probes, tmp_path)
    for who in ("solution", "from_the_frame"):
        assert rows[who]["q7"]["score"] == 1 and rows[who]["q8"]["score"] == 1, who
    assert rows["typed_spam_count"]["q7"]["score"] == 1
    assert rows["typed_spam_count"]["q8"]["score"] == 0
    assert rows["typed_false_positives"]["q7"]["score"] == 0
    assert rows["typed_false_positives"]["q8"]["score"] == 1
    page = pages["typed_spam_count"].replace("&#x60;", "`")
    assert "does not follow the messages" in page


def test_grading_07_a_typed_total_does_not_follow_other_months(tmp_path):
    probes = {
        "solution": "",
        "typed_total": "merged = merge_vocabularies(month_table(may), month_table(june))\n"
                       "lost_occurrences = 39 - int(np.sum(merged['feature_count']))\n",
    }
    rows, pages = grade_probes("07_merging", probes, tmp_path)
    assert rows["solution"]["q4"]["score"] == 1
    assert rows["typed_total"]["q4"]["score"] == 0
    page = pages["typed_total"].replace("&#x27;", "'").replace("&#x60;", "`")
    assert "does not follow your `merge_vocabularies` and the months" in page
