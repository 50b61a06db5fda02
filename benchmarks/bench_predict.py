"""MultinomialNB.predict against scikit-learn's on 20 Newsgroups, as a ratio in one run.

Both models are fitted on the same count matrix (scikit-learn's CountVectorizer on the
11,314 training posts, alpha = 0.01) and predict the 7,532 test posts. Reported for each
library: the first predict after fit, and the median of --repeats further calls (the two
libraries alternating, so both see the same machine load), and their ratios
nbcourse / scikit-learn. The two must predict the same labels.

    NBCOURSE_DATA=../shared/data python benchmarks/bench_predict.py --repeats 15

Timings on a shared machine are noisy: compare the ratios, and re-run when in doubt.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from shared import default_data_dir, load_news


def _timed(call):
    start = time.perf_counter()
    result = call()
    return time.perf_counter() - start, result


def measure(data_dir: Path, repeats: int) -> dict:
    import numpy as np
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.naive_bayes import MultinomialNB as SkMultinomialNB

    from nbcourse.naive_bayes import MultinomialNB

    train_texts, y_train, test_texts, _ = load_news(data_dir)
    vectorizer = CountVectorizer()
    X_train = vectorizer.fit_transform(train_texts)
    X_test = vectorizer.transform(test_texts)
    models = {"nbcourse": MultinomialNB(alpha=0.01).fit(X_train, y_train),
              "scikit-learn": SkMultinomialNB(alpha=0.01).fit(X_train, y_train)}
    first, labels = {}, {}
    for name, model in models.items():
        first[name], labels[name] = _timed(lambda: model.predict(X_test))
    if not np.array_equal(labels["nbcourse"], labels["scikit-learn"]):
        raise SystemExit("the two models predict different labels: timing them means nothing")
    again = {name: [] for name in models}
    for _ in range(repeats):
        for name, model in models.items():
            again[name].append(_timed(lambda: model.predict(X_test))[0])
    median = {name: statistics.median(times) for name, times in again.items()}
    return {"shape": X_test.shape, "first": first, "median": median,
            "first ratio": first["nbcourse"] / first["scikit-learn"],
            "median ratio": median["nbcourse"] / median["scikit-learn"]}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=default_data_dir(),
                        help="folder holding 20newsgroups/ (default: $NBCOURSE_DATA)")
    parser.add_argument("--repeats", type=int, default=15, help="timed calls after the first")
    args = parser.parse_args(argv)
    result = measure(args.data, args.repeats)
    rows, words = result["shape"]
    print(f"predict on {rows} test posts x {words} words, alpha = 0.01 "
          f"(median of {args.repeats} calls after the first)")
    print("| library | first call (ms) | median (ms) |")
    print("| --- | ---: | ---: |")
    for name in ("nbcourse", "scikit-learn"):
        print(f"| {name} | {1000 * result['first'][name]:.1f} | "
              f"{1000 * result['median'][name]:.1f} |")
    print(f"| ratio nbcourse / scikit-learn | {result['first ratio']:.2f} | "
          f"{result['median ratio']:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
