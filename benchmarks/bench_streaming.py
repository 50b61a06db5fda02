"""Naive Bayes on shards (lesson 07): streaming memory, Dask against one process, lesson time.

Measures, in one run on this machine (so the ratios compare like with like):

* **memory**: the peak traced allocations (tracemalloc) of fitting MultinomialNB on
  20 Newsgroups (a) with every post in memory at once (read, BagOfWords.fit_transform, fit)
  and (b) streamed: a first pass that keeps only the vocabulary, then ``partial_fit`` on 20
  shards read one after the other. Each is measured in its own fresh process. Both models
  must predict the same labels on the 7,532 test posts. Run on the training posts and,
  to see how each grows with the data, on all 18,846 posts;
* **time**: the two-pass map-reduce of lesson 07 (word sets, then count tables, 20 shards)
  on a Dask LocalCluster of 2 worker processes against the same functions called one after
  the other in this process: median of --repeats runs, their ratio, and the overhead per
  shard; the cluster's start-up is reported on its own;
* **lesson 07**: the wall time of running notebooks/07_counts_add_up.ipynb top to bottom in a
  fresh kernel (a copy, so the stored outputs are left alone).

The report replaces the section between the streaming markers in benchmarks/results.md
(or is appended to it). The corpora are read through nbcourse.datasets from --data
(default: $NBCOURSE_DATA, else ../shared/data beside the checkout).

    python benchmarks/bench_streaming.py                  # everything, ~2 min on a quiet machine
    python benchmarks/bench_streaming.py --repeats 5 --skip lesson
"""
from __future__ import annotations

import argparse
import gc
import json
import logging
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from shared import default_data_dir, replace_section

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results.md"
LESSON = REPO / "notebooks" / "07_counts_add_up.ipynb"
START, END = "<!-- bench_streaming: start -->", "<!-- bench_streaming: end -->"
N_SHARDS = 20
ALPHA = 0.01


# ----------------------------------------------------------------------- memory (child process)
def _corpus(subset):
    from nbcourse.datasets import load_20newsgroups
    corpus = load_20newsgroups(subset)
    return [str(p) for p in corpus.filenames], corpus.target


def _fit_all_in_memory(paths, y):
    from nbcourse import MultinomialNB
    from nbcourse.scale import read_posts
    from nbcourse.text import BagOfWords
    texts = read_posts(paths)
    bag = BagOfWords()
    X = bag.fit_transform(texts)
    model = MultinomialNB(alpha=ALPHA).fit(X, y)
    return model, bag.vocabulary_


def _fit_all_in_memory_compact(paths, y):
    """All posts in memory, but with the streaming fits' compact Vocabulary: like for like."""
    from nbcourse import MultinomialNB
    from nbcourse.scale import Vocabulary, count_matrix, read_posts, shard_vocabulary
    texts = read_posts(paths)
    vocabulary = Vocabulary(shard_vocabulary(paths))
    X = count_matrix(texts, vocabulary)
    model = MultinomialNB(alpha=ALPHA).fit(X, y)
    return model, vocabulary


def _fit_streaming(paths, y):
    from nbcourse import MultinomialNB
    from nbcourse.scale import (Vocabulary, count_matrix, iter_posts, shard_vocabulary,
                                split_evenly, union_words)
    shards = split_evenly(len(paths), N_SHARDS)
    vocabulary = Vocabulary(union_words(shard_vocabulary([paths[i] for i in shard])
                                        for shard in shards))
    model = MultinomialNB(alpha=ALPHA)
    classes = np.unique(y)
    for shard in shards:
        X = count_matrix(iter_posts([paths[i] for i in shard]), vocabulary)  # one post at a time
        model.partial_fit(X, y[shard], classes=classes)
        del X  # drop this shard before reading the next
    return model, vocabulary


def _fit_streaming_counts(paths, y):
    from nbcourse.scale import (Vocabulary, multinomial_from_counts, shard_counts,
                                shard_vocabulary, split_evenly, union_words)
    shards = split_evenly(len(paths), N_SHARDS)
    vocabulary = Vocabulary(union_words(shard_vocabulary([paths[i] for i in shard])
                                        for shard in shards))
    classes = np.unique(y)
    total = None
    for shard in shards:
        table = shard_counts([paths[i] for i in shard], np.searchsorted(classes, y[shard]),
                             vocabulary, len(classes))
        total = table if total is None else total + table
    return multinomial_from_counts(total, classes, alpha=ALPHA), vocabulary


MODES = {"all-in-memory": _fit_all_in_memory, "all-in-memory-compact": _fit_all_in_memory_compact,
         "streaming": _fit_streaming,
         "streaming-counts": _fit_streaming_counts}


def _vocabulary_bytes(vocabulary) -> int:
    """What a vocabulary holds in memory: the container, its arrays, and every word and number."""
    if isinstance(vocabulary, dict):
        return sys.getsizeof(vocabulary) + sum(sys.getsizeof(word) + sys.getsizeof(column)
                                               for word, column in vocabulary.items())
    parts = vars(vocabulary).values()
    return sum(part.nbytes if isinstance(part, np.ndarray) else
               _vocabulary_bytes(part) if isinstance(part, dict) else sys.getsizeof(part)
               for part in parts)


def child(mode: str, subset: str, predictions_file: str) -> dict:
    """Run one fit in this (fresh) process; return its peak memory and time."""
    from nbcourse.scale import count_matrix, read_posts
    paths, y = _corpus(subset)
    gc.collect()
    tracemalloc.start()
    started = time.perf_counter()
    fit = MODES[mode]
    model, vocabulary = fit(paths, y)
    seconds = time.perf_counter() - started
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    test_paths, _ = _corpus("test")
    predictions = model.predict(count_matrix(read_posts(test_paths), vocabulary))
    np.save(predictions_file, predictions)
    return {"peak_bytes": peak, "seconds": seconds, "posts": len(paths),
            "words": len(vocabulary), "model_bytes": model.feature_log_prob_.nbytes,
            "vocabulary_bytes": _vocabulary_bytes(vocabulary)}


def measure_memory(subset: str) -> dict:
    results = {}
    with tempfile.TemporaryDirectory() as folder:
        for mode in MODES:
            predictions = os.path.join(folder, f"{mode}.npy")
            output = subprocess.run(
                [sys.executable, __file__, "--child", mode, subset, predictions],
                check=True, capture_output=True, text=True, env=os.environ).stdout
            results[mode] = json.loads(output.strip().splitlines()[-1])
            results[mode]["predictions"] = np.load(predictions)
    differ = max(int(np.sum(results["all-in-memory"]["predictions"] != results[mode]["predictions"]))
                 for mode in MODES)
    return {"subset": subset, "differ": differ, "test_posts": len(results["streaming"]["predictions"]),
            **{mode: {k: v for k, v in r.items() if k != "predictions"} for mode, r in results.items()}}


# ----------------------------------------------------------------------- Dask against one process
def _one_process(path_shards, label_shards, n_classes):
    from nbcourse.scale import (Vocabulary, shard_counts, shard_vocabulary, union_words)
    vocabulary = Vocabulary(union_words(shard_vocabulary(p) for p in path_shards))
    total = None
    for paths, labels in zip(path_shards, label_shards):
        table = shard_counts(paths, labels, vocabulary, n_classes)
        total = table if total is None else total + table
    return total


def _on_dask(client, path_shards, label_shards, n_classes):
    from nbcourse.scale import (Vocabulary, shard_counts, shard_vocabulary, tree_reduce,
                                union_words)
    words = tree_reduce(client, client.map(shard_vocabulary, path_shards, pure=False), union_words)
    vocabulary = client.submit(Vocabulary, words, pure=False)
    tables = client.map(shard_counts, path_shards, label_shards, pure=False,
                        vocabulary=vocabulary, n_classes=n_classes)
    return tree_reduce(client, tables).result()


def measure_dask(repeats: int) -> dict:
    from dask.distributed import Client, LocalCluster
    from nbcourse.scale import split_evenly
    paths, y = _corpus("train")
    shards = split_evenly(len(paths), N_SHARDS)
    path_shards = [[paths[i] for i in shard] for shard in shards]
    label_shards = [y[shard] for shard in shards]
    n_classes = int(y.max()) + 1
    started = time.perf_counter()
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           dashboard_address=":0", silence_logs=logging.CRITICAL)
    client = Client(cluster)
    start_up = time.perf_counter() - started
    one, two = [], []
    try:
        for _ in range(repeats):  # alternate, so both see the same load on average
            started = time.perf_counter()
            local = _one_process(path_shards, label_shards, n_classes)
            one.append(time.perf_counter() - started)
            started = time.perf_counter()
            distributed = _on_dask(client, path_shards, label_shards, n_classes)
            two.append(time.perf_counter() - started)
            if (local.feature_count != distributed.feature_count).nnz or \
                    not np.array_equal(local.class_count, distributed.class_count):
                raise AssertionError("Dask and one process counted differently")
    finally:
        client.close()
        cluster.close()
    one_s, two_s = statistics.median(one), statistics.median(two)
    tasks = 2 * N_SHARDS + 2 * (N_SHARDS - 1) + 1  # maps, pairwise reductions, the vocabulary
    return {"start_up": start_up, "one_process": one_s, "two_workers": two_s,
            "ratio": two_s / one_s, "overhead_per_shard": (two_s - one_s / 2) / N_SHARDS,
            "overhead_per_task": (two_s - one_s / 2) / tasks, "tasks": tasks,
            "runs": repeats}


# ----------------------------------------------------------------------- lesson 07
def measure_lesson() -> float:
    import nbformat
    from nbclient import NotebookClient
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / LESSON.name
        shutil.copy(LESSON, copy)
        notebook = nbformat.read(copy, as_version=4)
        started = time.perf_counter()
        NotebookClient(notebook, timeout=600, kernel_name="python3",
                       resources={"metadata": {"path": str(LESSON.parent)}}).execute()
        return time.perf_counter() - started


# ----------------------------------------------------------------------- report
def _load_average() -> str:
    try:
        one, five, _ = os.getloadavg()
        return f"{one:.2f} (1 min), {five:.2f} (5 min)"
    except OSError:
        return "unknown"


def report(memory: list[dict], dask: dict | None, lesson: float | None, load_before: str) -> str:
    import dask as dask_module
    lines = [START, "## Naive Bayes on shards (lesson 07): streaming, Dask, lesson time", "",
             "Written by `python benchmarks/bench_streaming.py`.", "",
             f"- date: {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC",
             f"- machine: {platform.machine()}, {os.cpu_count()} cores, Python "
             f"{platform.python_version()}, numpy {np.__version__}, dask {dask_module.__version__}",
             f"- load average: {load_before} before, {_load_average()} after", "",
             "| target | measured | |", "|---|---|---|"]
    for m in memory:
        for mode, what in (("streaming", "partial_fit"), ("streaming-counts", "count tables")):
            ratio = m[mode]["peak_bytes"] / m["all-in-memory"]["peak_bytes"]
            lines.append(f"| streaming ({what}) peak memory <= 0.5x all-in-memory ({m['subset']}, "
                         f"{m[mode]['posts']:,} posts) | {ratio:.2f}x | "
                         f"{'met' if ratio <= 0.5 else 'missed'} |")
        like_for_like = m["streaming"]["peak_bytes"] / m["all-in-memory-compact"]["peak_bytes"]
        lines.append(f"| (streaming, partial_fit, against all in memory with the same compact Vocabulary, "
                     f"{m['subset']}) | {like_for_like:.2f}x | for comparison |")
        lines.append(f"| identical predictions ({m['subset']}, every fit) | "
                     f"{m['differ']} of {m['test_posts']:,} test posts differ | "
                     f"{'met' if m['differ'] == 0 else 'missed'} |")
    if dask is not None:
        lines.append(f"| Dask, 2 workers vs 1 process (measured and explained) | {dask['ratio']:.2f}x "
                     f"the time | measured |")
    if lesson is not None:
        lines.append(f"| lesson 07 top to bottom <= 30 s | {lesson:.1f} s | "
                     f"{'met' if lesson <= 30 else 'missed'} |")
    lines += ["", "### Peak memory: all posts in memory vs streaming 20 shards", "",
              "Traced allocations (tracemalloc), each fit in its own fresh process; MultinomialNB "
              f"with alpha = {ALPHA}.", "",
              "| posts | words | model table | vocabulary: dict / Vocabulary | all in memory | "
              "all in memory, Vocabulary | streaming, partial_fit | ratio | streaming, count tables | "
              "ratio |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for m in memory:
        a, s, c = m["all-in-memory"], m["streaming"], m["streaming-counts"]
        lines.append(f"| {s['posts']:,} ({m['subset']}) | {s['words']:,} | {s['model_bytes'] / 1e6:.1f} MB | "
                     f"{a['vocabulary_bytes'] / 1e6:.1f} MB / {s['vocabulary_bytes'] / 1e6:.1f} MB | "
                     f"{a['peak_bytes'] / 1e6:.1f} MB | "
                     f"{m['all-in-memory-compact']['peak_bytes'] / 1e6:.1f} MB | "
                     f"{s['peak_bytes'] / 1e6:.1f} MB | "
                     f"{s['peak_bytes'] / a['peak_bytes']:.2f}x | {c['peak_bytes'] / 1e6:.1f} MB | "
                     f"{c['peak_bytes'] / a['peak_bytes']:.2f}x |")
    if memory:
        lines += ["", "*all in memory*: every post read, `BagOfWords.fit_transform`, `fit`. *partial_fit*: "
                  "a first pass keeps the vocabulary, then each of "
                  f"{N_SHARDS} shards is counted a post at a time (`iter_posts`, `count_matrix`) and "
                  "passed to `partial_fit` (every call recomputes the log-probabilities). *count "
                  "tables*: the same two passes, but each shard becomes a sparse count table, the "
                  "tables are added and the model is computed once (`nbcourse.scale`, as lesson 07 "
                  "does). The floor of both streaming fits is what they keep from start to end: "
                  "the model (two dense tables of classes x words, counts and log-probabilities, "
                  "twice the \"model table\" column) and the vocabulary. The all-in-memory fit "
                  "keeps its vocabulary in `BagOfWords.vocabulary_`, a dict of str as in "
                  "scikit-learn; the streaming fits in `nbcourse.scale.Vocabulary`, which packs the "
                  "words in numpy arrays. That difference is part of the saving (the vocabulary "
                  "column, measured with `sys.getsizeof` of every word and number)."]
    if dask is not None:
        lines += ["", "### Dask LocalCluster (2 worker processes) vs one process", "",
                  f"Both passes of lesson 07's map-reduce on the 11,314 training posts in {N_SHARDS} "
                  f"shards (word sets, then count tables; {dask['tasks']} tasks), median of "
                  f"{dask['runs']} alternating runs, same count table both ways.", "",
                  "| | seconds |", "|---|---|",
                  f"| one process, shards one after the other | {dask['one_process']:.2f} |",
                  f"| Dask, 2 worker processes | {dask['two_workers']:.2f} |",
                  f"| ratio Dask / one process | {dask['ratio']:.2f}x |",
                  f"| overhead per shard: (Dask - one process / 2) / {N_SHARDS} | "
                  f"{dask['overhead_per_shard'] * 1000:.0f} ms |",
                  f"| the same per task | {dask['overhead_per_task'] * 1000:.0f} ms |",
                  f"| starting the cluster (not in the times above) | {dask['start_up']:.2f} |"]
    if lesson is not None:
        lines += ["", f"Lesson 07 ran top to bottom in a fresh kernel in {lesson:.1f} s (cluster start-up "
                  "and both 20 Newsgroups fits under tracemalloc included)."]
    lines += [END, ""]
    return "\n".join(lines)


def write_section(section: str, path: Path) -> None:
    replace_section(section, START, END, path)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", help="folder with 20newsgroups/ (default: $NBCOURSE_DATA, "
                                       "else ../shared/data beside the checkout)")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs of each Dask comparison")
    parser.add_argument("--skip", action="append", default=[], choices=["memory", "dask", "lesson"])
    parser.add_argument("--output", type=Path, default=RESULTS)
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(*args.child)))
        return 0
    data = args.data or default_data_dir()
    os.environ["NBCOURSE_DATA"] = str(Path(data).resolve())
    load_before = _load_average()
    memory = [] if "memory" in args.skip else [measure_memory("train"), measure_memory("all")]
    dask = None if "dask" in args.skip else measure_dask(args.repeats)
    lesson = None if "lesson" in args.skip else measure_lesson()
    section = report(memory, dask, lesson, load_before)
    print(section)
    write_section(section, args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
