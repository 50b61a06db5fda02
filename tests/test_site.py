"""The course website (book/, Jupyter Book 1.x), read the way a student reads it: offline.

The site is built once for the module with the README's command (``jupyter-book build``,
into a temporary folder; or taken from ``NBCOURSE_SITE_HTML`` when CI has just built it),
from the notebooks' stored outputs. Then:

* without a browser: every lesson and every student exercise has a page, no instructor
  source does, no file of the site holds solution text or hidden tests, and each slider's
  empty widget box became a note with the fixed-value cell beneath;
* in Debian's Chromium (Playwright), with the site served on 127.0.0.1 and every request
  to another host aborted: each page loads with zero aborted requests, typeset maths and
  every image drawn; the search page finds "Laplace". Screenshots of lessons 01 and 02
  go to ``test-artifacts/site/``;
* for readers of every kind: each figure's alt text is the description written for it in
  the notebook (tools/figure_alt_text.py), never a file name, and axe-core finds no serious
  or critical accessibility violation on any page of the site.

Without Chromium the browser tests skip on a developer machine and fail in CI (``CI`` set).
"""
from __future__ import annotations

import functools
import html
import html.parser
import http.server
import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from axe_support import serious_violations
from browser_support import cannot_run, launched_chromium
from course_paths import REPO

BOOK = REPO / "book"
ARTIFACTS = Path(os.environ.get("NBCOURSE_SITE_SCREENSHOTS", REPO / "test-artifacts" / "site"))
FORBIDDEN = ("BEGIN SOLUTION", "END SOLUTION", "HIDDEN")
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"

pytestmark = pytest.mark.timeout(900)

LESSONS = sorted(p.stem for p in (REPO / "notebooks").glob("[0-9][0-9]_*.ipynb"))
EXERCISES = sorted(p.stem for p in (REPO / "exercises").glob("[0-9][0-9]_*.ipynb"))
#: every page of the site (test_the_site_has_no_other_page holds this list to the build)
PAGES = ["index.html", "intro.html", "instructors.html", "symbols.html", "search.html",
         "genindex.html",
         *[f"lessons/{s}.html" for s in LESSONS], *[f"exercises/{s}.html" for s in EXERCISES]]


def _cannot_run(reason: str):
    cannot_run(reason, "the site's browser test")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The built site's html folder."""
    given = os.environ.get("NBCOURSE_SITE_HTML")
    if given:
        folder = Path(given)
        assert (folder / "index.html").is_file(), f"NBCOURSE_SITE_HTML={given} has no index.html"
        return folder
    out = tmp_path_factory.mktemp("site")
    command = [str(Path(sys.executable).with_name("jupyter-book")), "build", str(BOOK),
               "--path-output", str(out)]
    started = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    seconds = time.monotonic() - started
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    print(f"site built in {seconds:.1f} s")
    return out / "_build" / "html"


def _page(site: Path, kind: str, stem: str) -> Path:
    return site / kind / f"{stem}.html"


def _words(page: str) -> str:
    """The text of an HTML page as a reader sees it (tags dropped, entities decoded)."""
    return html.unescape(re.sub(r"<[^>]+>", "", page))


# -- the pages, read as files -----------------------------------------------------------------

def test_every_lesson_and_student_exercise_has_a_page_and_no_source_does(site):
    assert LESSONS and EXERCISES
    for stem in LESSONS:
        assert _page(site, "lessons", stem).is_file(), stem
    for stem in EXERCISES:
        assert _page(site, "exercises", stem).is_file(), stem
    assert (site / "intro.html").is_file() and (site / "instructors.html").is_file()
    assert not (site / "exercises" / "source").exists()
    assert not list(site.rglob("*.grading.*"))


def test_no_file_of_the_site_holds_a_solution_or_a_hidden_test(site):
    files = [p for p in site.rglob("*") if p.is_file()
             and p.suffix in (".html", ".js", ".ipynb", ".txt", ".md", ".json")
             and "_static" not in p.relative_to(site).parts]
    assert len(files) > len(LESSONS) + len(EXERCISES)
    leaks = [(p.relative_to(site).as_posix(), marker) for p in files
             for marker in FORBIDDEN if marker in p.read_text(encoding="utf-8", errors="replace")]
    assert not leaks, leaks
    # and the checker sees the markers where they are: the instructor sources
    source = (REPO / "exercises" / "source" / f"{EXERCISES[0]}.ipynb").read_text(encoding="utf-8")
    assert "BEGIN SOLUTION" in source and "HIDDEN" in source


def test_the_exercise_pages_are_the_student_versions(site):
    for stem in EXERCISES:
        page = _page(site, "exercises", stem).read_text(encoding="utf-8")
        words = _words(page)
        student = json.loads((REPO / "exercises" / f"{stem}.ipynb").read_text(encoding="utf-8"))
        stubs = sum("".join(c["source"]).count("YOUR CODE HERE") for c in student["cells"])
        assert stubs and words.count("YOUR CODE HERE") == stubs, stem
        assert "Student version" in words


def test_each_slider_shows_a_note_and_no_empty_widget_box(site):
    for stem in LESSONS:
        notebook = json.loads((REPO / "notebooks" / f"{stem}.ipynb").read_text(encoding="utf-8"))
        sliders = sum(WIDGET_MIME in output.get("data", {})
                      for cell in notebook["cells"] if cell["cell_type"] == "code"
                      for output in cell.get("outputs", []))
        page = _page(site, "lessons", stem).read_text(encoding="utf-8")
        assert page.count("nbcourse-slider") == sliders, stem
        assert WIDGET_MIME not in page, stem
        if sliders:
            assert "Slider: live in JupyterLab" in page


def test_each_lesson_page_says_how_to_run_it_live(site):
    for stem in LESSONS:
        page = _page(site, "lessons", stem).read_text(encoding="utf-8")
        assert "nbcourse-run-live" in page, stem
        assert "jupyter lab my-course" in _words(page) and f"notebooks/{stem}.ipynb" in _words(page)
        assert re.search(rf'href="https://mybinder\.org/v2/[^"]*labpath=notebooks%2F{stem}\.ipynb"',
                         page), stem


def test_mathjax_and_every_other_asset_are_local(site):
    for page in [site / "intro.html", *[_page(site, "lessons", s) for s in LESSONS]]:
        text = page.read_text(encoding="utf-8")
        remote = re.findall(r'<(?:script|link|img|iframe)\b[^>]*(?:src|href)="((?:https?:)?//[^"]+)"',
                            text)
        assert not remote, (page.name, remote)
        assert re.search(r'<script[^>]*src="(\.\./)?_static/mathjax/tex-chtml\.js', text), page.name
    assert (site / "_static" / "mathjax" / "output" / "chtml" / "fonts" / "woff-v2").is_dir()


class _Images(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.images: list[dict] = []

    def handle_starttag(self, tag, attrs):
        if tag == "img":
            self.images.append(dict(attrs))


def _figure_alt_texts(stem: str) -> list[str]:
    """The alt text of each figure of a lesson, in order, from its cells' metadata."""
    notebook = json.loads((REPO / "notebooks" / f"{stem}.ipynb").read_text(encoding="utf-8"))
    texts = []
    for cell in notebook["cells"]:
        for output in cell.get("outputs", []):
            if any(mime.startswith("image/") for mime in output.get("data", {})):
                texts.append(cell["metadata"].get("mystnb", {}).get("image", {}).get("alt", ""))
    return texts


def test_every_figure_has_alt_text_that_says_what_it_shows(site):
    described = 0
    for stem in LESSONS:
        parser = _Images()
        parser.feed(_page(site, "lessons", stem).read_text(encoding="utf-8"))
        figures = [i for i in parser.images if "_images/" in i.get("src", "")]
        written = _figure_alt_texts(stem)
        assert [i.get("alt", "") for i in figures] == written, stem
        for image in figures:
            alt = image.get("alt", "")
            name = image["src"].rsplit("/", 1)[-1]
            assert len(alt.split()) >= 15 and alt != name and name.split(".")[0] not in alt, \
                (stem, image["src"], alt)
        described += len(figures)
    assert described >= 19  # the lessons' figures when alt text was first written


def test_the_site_has_no_other_page(site):
    built = sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html")
                   if not p.relative_to(site).parts[0].startswith("_"))
    assert built == sorted(PAGES)


# -- the pages, in a browser that cannot reach any other host -----------------------------------

class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def server(site):
    handler = functools.partial(_QuietHandler, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser():
    with launched_chromium("the site's browser test") as chromium:
        yield chromium


class OfflinePage:
    """A browser page that may fetch from the site's server only; anything else is aborted
    and recorded, as it would fail for a reader with no network."""

    def __init__(self, browser, base: str):
        self.base = base
        self.allowed = urlsplit(base).netloc
        self.aborted: list[str] = []
        self.failed: list[str] = []
        self.context = browser.new_context(viewport={"width": 1280, "height": 900})
        self.context.set_default_timeout(60_000)
        self.context.route("**/*", self._route)
        self.page = self.context.new_page()
        self.page.on("requestfailed", lambda r: self.failed.append(f"{r.url} {r.failure}"))

    def _route(self, route):
        url = route.request.url
        scheme, netloc = urlsplit(url)[:2]
        if scheme in ("data", "blob") or netloc == self.allowed:
            route.continue_()
        else:
            self.aborted.append(url)
            route.abort()

    def open(self, path: str):
        # "load": the page, its scripts, styles and images; MathJax then typesets
        # asynchronously, which the tests wait for (MathJax.startup.promise).
        self.page.goto(f"{self.base}/{path}", wait_until="load", timeout=180_000)
        return self.page

    def close(self):
        self.context.close()


@pytest.fixture
def offline(browser, server):
    page = OfflinePage(browser, server)
    try:
        yield page
    finally:
        page.close()


_MATH_STATE_JS = """async () => {
    if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
        await MathJax.startup.promise;
    }
    const maths = [...document.querySelectorAll('.math')];
    return {
        mathjax: Boolean(window.MathJax && MathJax.version),
        version: window.MathJax ? MathJax.version : null,
        formulas: maths.length,
        typeset: document.querySelectorAll('mjx-container').length,
        untypeset: maths.filter(m => !m.querySelector('mjx-container')).map(m => m.textContent.slice(0, 60)),
        errors: document.querySelectorAll('mjx-merror').length,
    };
}"""

_IMAGES_JS = """async () => {
    const images = [...document.images];
    for (const img of images) {
        img.scrollIntoView();
        if (!img.complete) {
            await new Promise(done => { img.onload = done; img.onerror = done; setTimeout(done, 10000); });
        }
    }
    return images.map(img => ({src: img.getAttribute('src'), width: img.naturalWidth}));
}"""


def _text(page) -> str:
    return page.evaluate("() => document.body.innerText")


@pytest.mark.parametrize("stem", LESSONS)
def test_a_lesson_page_reads_offline_with_maths_and_images(stem, offline):
    page = offline.open(f"lessons/{stem}.html")
    maths = page.evaluate(_MATH_STATE_JS)
    assert maths["mathjax"] and maths["version"].startswith("3."), maths
    assert maths["formulas"] > 0 and maths["typeset"] >= maths["formulas"], maths
    assert not maths["untypeset"] and not maths["errors"], maths
    images = page.evaluate(_IMAGES_JS)
    broken = [i["src"] for i in images if not i["width"]]
    assert not broken, f"images not drawn: {broken}"
    text = _text(page)
    assert "Run it live" in text
    for marker in FORBIDDEN:
        assert marker not in text, marker
    page.evaluate("() => window.scrollTo(0, 0)")
    if stem[:2] in ("01", "02"):
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"{stem}.png"))
        slider = page.locator(".nbcourse-slider").first
        if slider.count():
            slider.scroll_into_view_if_needed()
            page.evaluate("() => window.scrollBy(0, -120)")
            page.screenshot(path=str(ARTIFACTS / f"{stem}-slider.png"))
    assert not offline.aborted, f"requests to other hosts: {offline.aborted}"
    assert not offline.failed, f"failed requests: {offline.failed}"


@pytest.mark.parametrize("path", ["intro.html", "instructors.html",
                                  *[f"exercises/{s}.html" for s in EXERCISES]])
def test_the_other_pages_load_offline_without_solutions(path, offline):
    page = offline.open(path)
    page.evaluate(_MATH_STATE_JS)
    text = _text(page)
    assert len(text) > 500
    for marker in FORBIDDEN:
        assert marker not in text, marker
    broken = [i["src"] for i in page.evaluate(_IMAGES_JS) if not i["width"]]
    assert not broken
    assert not offline.aborted, f"requests to other hosts: {offline.aborted}"
    assert not offline.failed, f"failed requests: {offline.failed}"


def test_search_finds_laplace(offline):
    page = offline.open("search.html?q=Laplace")
    results = page.locator("#search-results ul.search li")
    results.first.wait_for(state="visible", timeout=60_000)
    titles = results.all_inner_texts()
    assert any("02" in t or "Beta" in t for t in titles), titles
    if ARTIFACTS.is_dir():
        page.screenshot(path=str(ARTIFACTS / "search-laplace.png"))
    assert not offline.aborted, f"requests to other hosts: {offline.aborted}"


#: index.html only redirects to intro.html (checked there): axe would race the redirect
@pytest.mark.parametrize("path", [p for p in PAGES if p != "index.html"])
def test_axe_finds_no_serious_accessibility_problem(path, offline):
    """axe-core on each page once it is typeset (MathJax adds its own markup)."""
    page = offline.open(path)
    page.evaluate(_MATH_STATE_JS)
    try:
        violations = serious_violations(page)
    except RuntimeError as error:  # no npm, or no registry: skip on a laptop, fail in CI
        _cannot_run(str(error))
    assert not violations, json.dumps(violations, indent=1)
    assert not offline.aborted, f"requests to other hosts: {offline.aborted}"
