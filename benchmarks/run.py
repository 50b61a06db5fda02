"""nbcourse next to scikit-learn on real corpora: accuracy, speed and memory, in one run.

Measures, on this machine and in this run (so the ratios compare like with like):

* SMS Spam Collection, 80/20 stratified split (seed 0): accuracy of the nbcourse tokeniser +
  MultinomialNB and of scikit-learn's CountVectorizer + MultinomialNB (alpha = 1), and whether
  both naive Bayes implementations predict the same labels from the same count matrix;
* 20 Newsgroups "bydate" (11,314 training / 7,532 test posts): accuracy at alpha 1.0, 0.1 and
  0.01; wall time of vectorise + fit + predict (medians of --repeats runs, the two libraries
  alternating); peak memory of that pipeline, each library in its own fresh process;
* the time, wall and CPU, to execute every notebook in notebooks/ (lessons 01-08) from a
  fresh kernel (copies in a temporary folder, so the stored outputs are left alone);
* the median time of one slider update (recompute + redraw) for the sliders of notebooks 02
  and 05.

It prints a Markdown report and writes it to --output (default benchmarks/results.md).
The real corpora are read through nbcourse.datasets from --data (default: $NBCOURSE_DATA,
else ../shared/data next to the checkout).
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
from datetime import datetime, timezone
from pathlib import Path

from shared import default_data_dir, load_news

REPO = Path(__file__).resolve().parents[1]
DEFAULT_OUTPUT = REPO / "benchmarks" / "results.md"
NEWS_ALPHAS = (1.0, 0.1, 0.01)
TIMED_ALPHA = 0.01  # the time of fit + predict does not depend on alpha

# Targets of the benchmark issue.
MAX_END_TO_END_RATIO = 1.0
MAX_FIT_PREDICT_RATIO = 1.0
MAX_MEMORY_RATIO = 1.5
MAX_ACCURACY_GAP_POINTS = 0.5
MAX_NOTEBOOKS_SECONDS = 60.0
MAX_LESSON_SECONDS = {"07": 10.0, "08": 10.0}  # the two lessons that read 20 Newsgroups
MAX_SLIDER_MS = 100.0


# ----- the two pipelines -----------------------------------------------------------------

def nbcourse_steps():
    from nbcourse.naive_bayes import MultinomialNB
    from nbcourse.text import BagOfWords
    return BagOfWords, MultinomialNB


def sklearn_steps():
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.naive_bayes import MultinomialNB
    return CountVectorizer, MultinomialNB


LIBRARIES = {"nbcourse": nbcourse_steps, "scikit-learn": sklearn_steps}


def run_pipeline(library: str, train_texts, y_train, test_texts, alpha: float) -> dict:
    """Vectorise, fit and predict once; return the predictions and each step's wall time."""
    Vectorizer, NaiveBayes = LIBRARIES[library]()
    gc.collect()
    start = time.perf_counter()
    vectorizer = Vectorizer()
    X_train = vectorizer.fit_transform(train_texts)
    X_test = vectorizer.transform(test_texts)
    vectorised = time.perf_counter()
    model = NaiveBayes(alpha=alpha).fit(X_train, y_train)
    fitted = time.perf_counter()
    predicted = model.predict(X_test)
    done = time.perf_counter()
    return {"predicted": predicted, "vectorise": vectorised - start, "fit": fitted - vectorised,
            "predict": done - fitted}


# ----- data --------------------------------------------------------------------------------

def load_sms(data_dir: Path):
    from nbcourse.datasets import load_sms_spam
    frame = load_sms_spam(data_dir / "sms_spam")
    return frame["text"].tolist(), frame["label"].to_numpy()


# ----- measurements ------------------------------------------------------------------------

def measure_sms(data_dir: Path) -> dict:
    import numpy as np
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.naive_bayes import MultinomialNB as SkMultinomialNB

    from nbcourse.evaluation import stratified_split
    from nbcourse.naive_bayes import MultinomialNB
    from nbcourse.text import BagOfWords

    texts, labels = load_sms(data_dir)
    train, test = stratified_split(labels, sizes=(0.8, 0.2), seed=0)
    train_texts = [texts[i] for i in train]
    test_texts = [texts[i] for i in test]
    result = {"n_train": len(train), "n_test": len(test)}
    for library in LIBRARIES:
        predicted = run_pipeline(library, train_texts, labels[train], test_texts, 1.0)["predicted"]
        result[f"accuracy {library}"] = float(np.mean(predicted == labels[test]))
    # Same count matrix for both models: scikit-learn's CountVectorizer output.
    vectorizer = CountVectorizer()
    X_train, X_test = vectorizer.fit_transform(train_texts), vectorizer.transform(test_texts)
    ours = MultinomialNB(alpha=1.0).fit(X_train, labels[train])
    theirs = SkMultinomialNB(alpha=1.0).fit(X_train, labels[train])
    result["different predictions on the same matrix"] = int(
        np.sum(ours.predict(X_test) != theirs.predict(X_test)))
    result["max |difference| of predict_proba"] = float(
        np.max(np.abs(ours.predict_proba(X_test) - theirs.predict_proba(X_test))))
    bag = BagOfWords()
    same_matrix = (list(bag.fit(train_texts).get_feature_names_out())
                   == list(vectorizer.get_feature_names_out())
                   and (bag.transform(test_texts) != X_test).nnz == 0)
    result["BagOfWords matrix equals CountVectorizer's"] = bool(same_matrix)
    return result


def measure_news(data_dir: Path, repeats: int) -> dict:
    import numpy as np

    train_texts, y_train, test_texts, y_test = load_news(data_dir)
    result = {"n_train": len(train_texts), "n_test": len(test_texts), "accuracy": {}}
    for alpha in NEWS_ALPHAS:
        for library in LIBRARIES:
            predicted = run_pipeline(library, train_texts, y_train, test_texts, alpha)["predicted"]
            result["accuracy"][(library, alpha)] = float(np.mean(predicted == y_test))
    # The accuracy runs above doubled as warm-up; now the timed runs, alternating order.
    times = {library: {"vectorise": [], "fit": [], "predict": []} for library in LIBRARIES}
    for repeat in range(repeats):
        order = list(LIBRARIES) if repeat % 2 == 0 else list(LIBRARIES)[::-1]
        for library in order:
            run = run_pipeline(library, train_texts, y_train, test_texts, TIMED_ALPHA)
            for step in ("vectorise", "fit", "predict"):
                times[library][step].append(run[step])
    result["times"] = times
    # fit + predict alone, on matrices vectorised beforehand: within the pipeline these two
    # short steps (a fifth of a second) are at the mercy of what the allocator does after
    # vectorising, so they are timed again here on their own, alternating, 3x as often.
    matrices = {}
    for library in LIBRARIES:
        Vectorizer, _ = LIBRARIES[library]()
        vectorizer = Vectorizer()
        matrices[library] = (vectorizer.fit_transform(train_texts), vectorizer.transform(test_texts))
    fit_predict = {library: [] for library in LIBRARIES}
    for repeat in range(3 * repeats):
        order = list(LIBRARIES) if repeat % 2 == 0 else list(LIBRARIES)[::-1]
        for library in order:
            _, NaiveBayes = LIBRARIES[library]()
            X_train, X_test = matrices[library]
            gc.collect()
            start = time.perf_counter()
            NaiveBayes(alpha=TIMED_ALPHA).fit(X_train, y_train).predict(X_test)
            fit_predict[library].append(time.perf_counter() - start)
    result["fit_predict"] = fit_predict
    return result


def median_times(times: dict) -> dict:
    """Medians of vectorise, fit + predict and end-to-end, per library (seconds)."""
    out = {}
    for library, steps in times.items():
        fit_predict = [f + p for f, p in zip(steps["fit"], steps["predict"])]
        total = [v + fp for v, fp in zip(steps["vectorise"], fit_predict)]
        out[library] = {"vectorise": statistics.median(steps["vectorise"]),
                        "fit": statistics.median(steps["fit"]),
                        "predict": statistics.median(steps["predict"]),
                        "fit + predict": statistics.median(fit_predict),
                        "end-to-end": statistics.median(total)}
    return out


def memory_worker(library: str, data_dir: Path, how: str) -> dict:
    """Run in a fresh process: load the corpus, then measure one pipeline's peak memory.

    ``how='tracemalloc'``: the peak of memory allocated through Python's allocators (numpy
    arrays included) while the pipeline runs. ``how='rss'``: the peak resident set size
    while the pipeline runs, sampled every millisecond, minus the size before it started.
    """
    import psutil

    train_texts, y_train, test_texts, _ = load_news(data_dir)
    LIBRARIES[library]()  # imports outside the measurement
    gc.collect()
    if how == "tracemalloc":
        tracemalloc.start()
        run_pipeline(library, train_texts, y_train, test_texts, TIMED_ALPHA)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        return {"peak_bytes": peak}
    process = psutil.Process()
    before = process.memory_info().rss
    peak = [before]
    running = threading.Event()
    running.set()

    def sample():
        while running.is_set():
            peak[0] = max(peak[0], process.memory_info().rss)
            time.sleep(0.001)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    run_pipeline(library, train_texts, y_train, test_texts, TIMED_ALPHA)
    running.clear()
    sampler.join()
    peak[0] = max(peak[0], process.memory_info().rss)
    return {"peak_bytes": peak[0] - before}


def measure_memory(data_dir: Path) -> dict:
    result = {}
    for how in ("tracemalloc", "rss"):
        for library in LIBRARIES:
            completed = subprocess.run(
                [sys.executable, __file__, "--memory-worker", library, "--memory-how", how,
                 "--data", str(data_dir)],
                capture_output=True, text=True, check=True)
            result[(library, how)] = json.loads(completed.stdout.strip().splitlines()[-1])["peak_bytes"]
    return result


def _kernel_cpu_seconds(client) -> float:
    """User + system CPU time of a notebook's kernel so far, with the child processes it
    has waited for (lesson 07's Dask workers, once its cluster is closed)."""
    import psutil
    times = psutil.Process(client.km.provisioner.pid).cpu_times()
    return times.user + times.system + times.children_user + times.children_system


def measure_notebooks(data_dir: Path) -> dict:
    """Per notebook: (wall seconds from kernel start to shutdown, CPU seconds of the kernel).

    On a shared machine the wall time says how busy the machine was as much as how long
    the lesson is; the CPU time says the second far better.
    """
    import nbformat
    from nbclient import NotebookClient

    env_before = os.environ.get("NBCOURSE_DATA")
    os.environ["NBCOURSE_DATA"] = str(data_dir)
    seconds = {}
    try:
        with tempfile.TemporaryDirectory(prefix="nbcourse-bench-") as scratch:
            for original in sorted((REPO / "notebooks").glob("[0-9]*.ipynb")):
                copy = Path(scratch) / original.name
                shutil.copy(original, copy)
                notebook = nbformat.read(copy, as_version=4)
                start = time.perf_counter()
                client = NotebookClient(notebook, timeout=600, kernel_name="python3",
                                        resources={"metadata": {"path": scratch}})
                with client.setup_kernel():
                    for index, cell in enumerate(notebook.cells):
                        client.execute_cell(cell, index)
                    cpu = _kernel_cpu_seconds(client)
                seconds[original.name] = (time.perf_counter() - start, cpu)
    finally:
        if env_before is None:
            os.environ.pop("NBCOURSE_DATA", None)
        else:
            os.environ["NBCOURSE_DATA"] = env_before
    return seconds


def _time_updates(set_value, values, rounds: int = 3) -> float:
    """Median wall time (ms) of one slider update, cycling through ``values``."""
    samples = []
    for _ in range(rounds):
        for value in values:
            start = time.perf_counter()
            set_value(value)
            samples.append(time.perf_counter() - start)
    return 1000 * statistics.median(samples)


def measure_sliders(data_dir: Path) -> dict:
    import matplotlib
    matplotlib.use("Agg")
    from nbcourse import widgets
    from nbcourse.datasets import load_weather
    from nbcourse.evaluation import stratified_split
    from nbcourse.text import BagOfWords

    result = {}
    beta = widgets.beta_explorer()
    result["02 prior a (beta explorer)"] = _time_updates(
        lambda v: setattr(beta.a, "value", v), [1.0, 4.0, 8.5, 12.0, 20.0, 2.0])
    result["02 heads (beta explorer)"] = _time_updates(
        lambda v: setattr(beta.heads, "value", v), [0, 5, 10, 25, 50, 3])
    weather = load_weather()
    query = {"outlook": "sunny", "temperature": "cool", "humidity": "high", "windy": "true"}
    smoothing = widgets.smoothing_explorer(weather.drop(columns="play"), weather["play"], {"x": query})
    result["02 alpha (weather smoothing explorer)"] = _time_updates(
        lambda v: setattr(smoothing.alpha, "value", v), [0.5, 1.0, 2.5, 7.0, 13.5, 20.0, 0.0])
    texts, labels = load_sms(data_dir)
    train, val, _ = stratified_split(labels, sizes=(0.8, 0.1, 0.1), seed=0)
    bag = BagOfWords()
    X_train = bag.fit_transform([texts[i] for i in train])
    X_val = bag.transform([texts[i] for i in val])
    spam = widgets.spam_alpha_slider(X_train, labels[train], X_val, labels[val])
    result["05 alpha (spam filter)"] = _time_updates(
        lambda v: setattr(spam.slider, "value", v), list(widgets.SPAM_ALPHAS))
    return result


# ----- report ------------------------------------------------------------------------------

def _mark(ok: bool) -> str:
    return "met" if ok else "**missed**"


def machine_lines() -> list[str]:
    import numpy
    import scipy
    import sklearn
    lines = [f"- date: {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC",
             f"- machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
             f"Python {platform.python_version()}, numpy {numpy.__version__}, "
             f"scipy {scipy.__version__}, scikit-learn {sklearn.__version__}"]
    try:
        from threadpoolctl import threadpool_info
        blas = [f"{i['internal_api']} {i.get('version')} ({i.get('architecture')}, "
                f"{i['num_threads']} threads)" for i in threadpool_info() if i["user_api"] == "blas"]
        lines.append(f"- BLAS: {'; '.join(dict.fromkeys(blas)) or 'none found'}; "
                     f"OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', 'unset')}")
    except ImportError:
        pass
    try:
        load = os.getloadavg()
        lines.append(f"- load average when the report was written: {load[0]:.2f} (1 min), "
                     f"{load[1]:.2f} (5 min)")
    except OSError:
        pass
    return lines


def report(args, sms, news, memory, notebooks, sliders) -> str:
    out = ["# nbcourse vs scikit-learn: benchmark results", "",
           f"Written by `python benchmarks/run.py {' '.join(args.argv)}`.".replace("  ", " "), ""]
    out += machine_lines() + [""]
    targets = []

    if sms:
        gap = 100 * abs(sms["accuracy nbcourse"] - sms["accuracy scikit-learn"])
        targets.append(("SMS accuracy within 0.5 points of scikit-learn", f"{gap:.2f} points",
                        gap <= MAX_ACCURACY_GAP_POINTS))
        targets.append(("SMS: identical predictions from the same count matrix",
                        f"{sms['different predictions on the same matrix']} of {sms['n_test']} differ",
                        sms["different predictions on the same matrix"] == 0))
    if news:
        for alpha in NEWS_ALPHAS:
            gap = 100 * abs(news["accuracy"][("nbcourse", alpha)] - news["accuracy"][("scikit-learn", alpha)])
            targets.append((f"20 Newsgroups accuracy within 0.5 points (alpha = {alpha:g})",
                            f"{gap:.2f} points", gap <= MAX_ACCURACY_GAP_POINTS))
        med = median_times(news["times"])
        ratio = {step: med["nbcourse"][step] / med["scikit-learn"][step] for step in med["nbcourse"]}
        targets.append(("end-to-end time <= 1.0x scikit-learn", f"{ratio['end-to-end']:.2f}x",
                        ratio["end-to-end"] <= MAX_END_TO_END_RATIO))
        alone = {library: statistics.median(v) for library, v in news["fit_predict"].items()}
        alone_ratio = alone["nbcourse"] / alone["scikit-learn"]
        targets.append(("fit + predict time <= 1.0x scikit-learn (timed on their own)",
                        f"{alone_ratio:.2f}x", alone_ratio <= MAX_FIT_PREDICT_RATIO))
    if memory:
        for how, name in (("tracemalloc", "traced allocations"), ("rss", "resident memory")):
            r = memory[("nbcourse", how)] / memory[("scikit-learn", how)]
            targets.append((f"peak memory ({name}) <= 1.5x scikit-learn", f"{r:.2f}x",
                            r <= MAX_MEMORY_RATIO))
    if notebooks:
        total = sum(wall for wall, _ in notebooks.values())
        targets.append(("all notebooks from fresh kernels < 60 s", f"{total:.1f} s",
                        total < MAX_NOTEBOOKS_SECONDS))
        for name, (wall, cpu) in notebooks.items():
            limit = MAX_LESSON_SECONDS.get(name[:2])
            if limit is not None:
                targets.append((f"lesson {name[:2]} from a fresh kernel <= {limit:g} s",
                                f"{wall:.1f} s ({cpu:.1f} s of CPU)", wall <= limit))
    if sliders:
        worst = max(sliders.values())
        targets.append(("median slider update < 100 ms (every slider)", f"{worst:.0f} ms (slowest)",
                        worst < MAX_SLIDER_MS))

    out += ["## Targets", "", "| target | measured | |", "|---|---|---|"]
    out += [f"| {name} | {value} | {_mark(ok)} |" for name, value, ok in targets]
    out += [""]

    if sms:
        same = "exactly the same" if sms["BagOfWords matrix equals CountVectorizer's"] else "a different"
        out += ["## SMS Spam Collection (80/20 stratified split, seed 0, alpha = 1)", "",
                f"{sms['n_train']:,} training and {sms['n_test']:,} test messages.", "",
                "| | nbcourse | scikit-learn |", "|---|---|---|",
                f"| accuracy | {sms['accuracy nbcourse']:.4f} | {sms['accuracy scikit-learn']:.4f} |", "",
                "Given the same count matrix (scikit-learn's CountVectorizer output), the two "
                f"MultinomialNB models disagree on {sms['different predictions on the same matrix']} "
                f"test messages; the largest difference between their predict_proba values is "
                f"{sms['max |difference| of predict_proba']:.2e}. nbcourse's BagOfWords gives "
                f"{same} vocabulary and count matrix as CountVectorizer.", ""]
    if news:
        med = median_times(news["times"])
        out += ["## 20 Newsgroups (bydate)", "",
                f"{news['n_train']:,} training and {news['n_test']:,} test posts, default "
                "tokenisation (no headers removed).", "",
                "| alpha | nbcourse accuracy | scikit-learn accuracy | difference (points) |",
                "|---|---|---|---|"]
        for alpha in NEWS_ALPHAS:
            a, b = news["accuracy"][("nbcourse", alpha)], news["accuracy"][("scikit-learn", alpha)]
            out.append(f"| {alpha:g} | {a:.4f} | {b:.4f} | {100 * (a - b):+.2f} |")
        n = len(news["times"]["nbcourse"]["fit"])
        out += ["", f"Wall time in seconds, median of {n} runs per library (the libraries alternate; "
                f"alpha = {TIMED_ALPHA:g}):", "",
                "| step | nbcourse | scikit-learn | ratio |", "|---|---|---|---|"]
        for step in ("vectorise", "fit", "predict", "fit + predict", "end-to-end"):
            a, b = med["nbcourse"][step], med["scikit-learn"][step]
            out.append(f"| {step} | {a:.3f} | {b:.3f} | {a / b:.2f}x |")
        alone = {library: statistics.median(v) for library, v in news["fit_predict"].items()}
        n_alone = len(news["fit_predict"]["nbcourse"])
        out += ["", f"fit + predict timed on their own (each library on its own count matrix, "
                f"vectorised beforehand; median of {n_alone} alternating runs): nbcourse "
                f"{alone['nbcourse']:.3f} s, scikit-learn {alone['scikit-learn']:.3f} s, ratio "
                f"{alone['nbcourse'] / alone['scikit-learn']:.2f}x. This is the number the "
                "target uses: inside the pipeline these steps take a fifth of a second and "
                "vary by a factor of 3 between runs with what the memory allocator does after "
                "vectorising.", ""]
        out += ["All runs of the pipeline (seconds, vectorise / fit / predict):", ""]
        for library, steps in news["times"].items():
            runs = ", ".join(f"{v:.2f}/{f:.3f}/{p:.3f}" for v, f, p in
                             zip(steps["vectorise"], steps["fit"], steps["predict"]))
            out.append(f"- {library}: {runs}")
        out.append("")
    if memory:
        out += ["## Peak memory of vectorise + fit + predict on 20 Newsgroups", "",
                "Each number comes from a fresh process that first loads the corpus (not counted).", "",
                "| measure | nbcourse | scikit-learn | ratio |", "|---|---|---|---|"]
        for how, name in (("tracemalloc", "traced allocations (tracemalloc peak)"),
                          ("rss", "resident memory (peak RSS increase)")):
            a, b = memory[("nbcourse", how)], memory[("scikit-learn", how)]
            out.append(f"| {name} | {a / 2**20:.0f} MiB | {b / 2**20:.0f} MiB | {a / b:.2f}x |")
        out.append("")
    if notebooks:
        out += ["## Notebooks, each run top to bottom in a fresh kernel", "",
                "Seconds from starting the kernel to its shutdown, and the CPU seconds (user + "
                "system) of the kernel and of the processes it started and waited for.", "",
                "| notebook | seconds | CPU seconds |", "|---|---|---|"]
        out += [f"| {name} | {wall:.1f} | {cpu:.1f} |" for name, (wall, cpu) in notebooks.items()]
        out += [f"| **total** | **{sum(w for w, _ in notebooks.values()):.1f}** | "
                f"**{sum(c for _, c in notebooks.values()):.1f}** |", ""]
    if sliders:
        out += ["## Sliders: one update (recompute + redraw), median", "",
                "| slider | ms |", "|---|---|"]
        out += [f"| {name} | {ms:.1f} |" for name, ms in sliders.items()]
        out.append("")
    return "\n".join(out)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(
        description="Benchmark nbcourse against scikit-learn on the SMS Spam Collection and "
                    "20 Newsgroups, time the notebooks and sliders, and write a Markdown report.")
    parser.add_argument("--data", type=Path, default=default_data_dir(),
                        help="folder with sms_spam/ and 20newsgroups/ (default: $NBCOURSE_DATA, "
                             "else ../shared/data next to the checkout)")
    parser.add_argument("--repeats", type=int, default=5,
                        help="timed runs per library on 20 Newsgroups (default 5; the median is reported)")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT,
                        help="where to write the Markdown report (default benchmarks/results.md)")
    parser.add_argument("--skip", action="append", default=[],
                        choices=["sms", "news", "memory", "notebooks", "sliders"],
                        help="leave out one part (may be repeated)")
    parser.add_argument("--memory-worker", choices=list(LIBRARIES), help=argparse.SUPPRESS)
    parser.add_argument("--memory-how", choices=["tracemalloc", "rss"], help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.argv = argv

    if args.memory_worker:
        print(json.dumps(memory_worker(args.memory_worker, args.data, args.memory_how)))
        return 0
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    if not (args.data / "sms_spam").is_dir() or not (args.data / "20newsgroups").is_dir():
        parser.error(f"--data {args.data} must contain sms_spam/ and 20newsgroups/")

    def step(name, function, *extra):
        if name in args.skip:
            return None
        print(f"... {name}", file=sys.stderr, flush=True)
        started = time.perf_counter()
        value = function(args.data, *extra)
        print(f"    {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
        return value

    sms = step("sms", measure_sms)
    news = step("news", measure_news, args.repeats)
    memory = step("memory", measure_memory)
    notebooks = step("notebooks", measure_notebooks)
    sliders = step("sliders", measure_sliders)
    text = report(args, sms, news, memory, notebooks, sliders)
    print(text)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text + "\n", encoding="utf-8")
    print(f"written to {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
