"""ComplementNB fit + predict against scikit-learn's on 20 Newsgroups, as a ratio in one run.

Both models get the same tf-idf matrix (scikit-learn's CountVectorizer and
TfidfTransformer on the 11,314 training posts; alpha = 1, scikit-learn's defaults), fit on
it and predict the 7,532 test posts. Reported: the median time of fit + predict over
--repeats runs for each library (the two alternating, so both see the same machine
load), their ratio nbcourse / scikit-learn, and the test accuracy of each. The two must
predict the same labels.

    NBCOURSE_DATA=../shared/data python benchmarks/bench_complement.py --repeats 7

Timings on a shared machine are noisy: compare the ratio, and re-run when in doubt.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from shared import default_data_dir, load_news


def measure(data_dir: Path, repeats: int) -> dict:
    import numpy as np
    from sklearn.feature_extraction.text import CountVectorizer, TfidfTransformer
    from sklearn.naive_bayes import ComplementNB as SkComplementNB

    from nbcourse.naive_bayes import ComplementNB

    train_texts, y_train, test_texts, y_test = load_news(data_dir)
    vectorizer, tfidf = CountVectorizer(), TfidfTransformer()
    X_train = tfidf.fit_transform(vectorizer.fit_transform(train_texts))
    X_test = tfidf.transform(vectorizer.transform(test_texts))
    y_train, y_test = np.asarray(y_train), np.asarray(y_test)
    makers = {"nbcourse": ComplementNB, "scikit-learn": SkComplementNB}
    times = {name: [] for name in makers}
    labels = {}
    for _ in range(repeats):
        for name, make in makers.items():
            start = time.perf_counter()
            labels[name] = make().fit(X_train, y_train).predict(X_test)
            times[name].append(time.perf_counter() - start)
    if not np.array_equal(labels["nbcourse"], labels["scikit-learn"]):
        raise SystemExit("the two models predict different labels: timing them means nothing")
    median = {name: statistics.median(t) for name, t in times.items()}
    return {"shape": (X_train.shape, X_test.shape), "median": median,
            "ratio": median["nbcourse"] / median["scikit-learn"],
            "accuracy": {name: float(np.mean(labels[name] == y_test)) for name in makers}}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=default_data_dir(),
                        help="folder holding 20newsgroups/ (default: $NBCOURSE_DATA)")
    parser.add_argument("--repeats", type=int, default=7, help="timed fit + predict runs")
    args = parser.parse_args(argv)
    result = measure(args.data, args.repeats)
    (n_train, words), (n_test, _) = result["shape"]
    print(f"ComplementNB fit on {n_train} posts + predict on {n_test} posts, {words} words "
          f"(tf-idf, alpha = 1; median of {args.repeats} runs)")
    print("| library | fit + predict (ms) | test accuracy |")
    print("| --- | ---: | ---: |")
    for name in ("nbcourse", "scikit-learn"):
        print(f"| {name} | {1000 * result['median'][name]:.0f} | "
              f"{result['accuracy'][name]:.4f} |")
    print(f"| ratio nbcourse / scikit-learn | {result['ratio']:.2f} | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
