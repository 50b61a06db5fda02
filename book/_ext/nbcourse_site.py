"""Sphinx extension of the course site (book/_config.yml loads it as a local extension).

It makes three things true of every build, without touching the notebooks:

* MathJax is served by the site itself: on ``config-inited`` it runs
  ``book/fetch_mathjax.py`` (a no-op once the files are there) and refuses a
  ``mathjax_path`` that points to another host.
* Each lesson page opens with a "Run it live" note: how to open the same notebook in
  JupyterLab after the two-command install, and a Binder link.
* A slider cell shows a useful static face: its output (an ipywidgets view, whose state is
  not stored, so a browser would draw an empty box) becomes a note saying that the slider
  is live in JupyterLab and that the fixed-value cell beneath shows the same result.
"""
from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from urllib.parse import quote

from docutils import nodes

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
LESSONS = "lessons/"
EXERCISES = "exercises/"


def _fetch_mathjax(app, config) -> None:
    path = str(config.mathjax_path or "")
    if re.match(r"^[a-z]+://|^//", path):
        raise RuntimeError(f"mathjax_path {path!r} loads MathJax from another host; the site "
                           "must serve it itself (book/fetch_mathjax.py)")
    script = Path(app.srcdir) / "fetch_mathjax.py"
    spec = importlib.util.spec_from_file_location("nbcourse_fetch_mathjax", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if not module.is_present():
        module.fetch()


def _version() -> str:
    try:
        from importlib.metadata import version
        return version("nbcourse")
    except Exception:
        return "X.Y.Z"


def _paragraph(*parts) -> nodes.paragraph:
    """A paragraph from strings (plain text), ``("code", text)`` and ``("link", text, url)``."""
    paragraph = nodes.paragraph()
    for part in parts:
        if isinstance(part, str):
            paragraph += nodes.Text(part)
        elif part[0] == "code":
            paragraph += nodes.literal(text=part[1])
        else:
            paragraph += nodes.reference(text=part[1], refuri=part[2])
    return paragraph


def _note(title: str, classes: list[str], *paragraphs) -> nodes.admonition:
    note = nodes.admonition(classes=["admonition", *classes])
    note += nodes.title(text=title)
    for paragraph in paragraphs:
        note += paragraph
    return note


def _run_live_note(app, docname: str) -> nodes.admonition:
    notebook = f"{docname.split('/', 1)[1]}.ipynb"
    wheel = f"nbcourse-{_version()}-py3-none-any.whl"
    binder = (f"{app.config.nbcourse_binder_url}?labpath="
              f"{quote('notebooks/' + notebook, safe='')}")
    return _note(
        "Run it live", ["tip", "nbcourse-run-live"],
        _paragraph("This page shows the notebook with its stored outputs. To run it, change "
                   "the code and move the sliders, open it in JupyterLab: install the course "
                   "with ", ("code", f"pip install {wheel}"), " and ",
                   ("code", "nbcourse init my-course"), ", then run ",
                   ("code", "jupyter lab my-course"), " and open ",
                   ("code", f"notebooks/{notebook}"), "."),
        _paragraph("No installation at hand? ",
                   ("link", "Open this notebook on Binder", binder),
                   " (it runs in your browser on a Binder server; the first start takes a "
                   "few minutes)."))


def _exercise_note(docname: str) -> nodes.admonition:
    notebook = f"{docname.split('/', 1)[1]}.ipynb"
    return _note(
        "Student version", ["note", "nbcourse-exercise"],
        _paragraph("This is the exercise as students receive it. To work on it, open ",
                   ("code", f"exercises/{notebook}"), " in JupyterLab (in a folder made by ",
                   ("code", "nbcourse init"), "), fill in each function and run the check "
                   "cell under it."))


def _slider_note() -> nodes.admonition:
    return _note(
        "Slider: live in JupyterLab", ["note", "nbcourse-slider"],
        _paragraph("Here JupyterLab shows a slider and a plot that follow it. A slider needs a "
                   "running Python, so this page cannot move it: run the notebook (see "
                   "\u201cRun it live\u201d at the top of the page) to try it. The cell "
                   "beneath calls the same function with fixed values, and its output "
                   "is what the slider shows at those values."))


def _is_widget_output(node) -> bool:
    if isinstance(node, nodes.raw):
        return WIDGET_MIME in node.astext()
    return False


def _first_section(doctree):
    for section in doctree.findall(nodes.section):
        return section
    return None


def _decorate(app, doctree, docname: str) -> None:
    # Slider outputs: replace the output area that would hold an empty widget view.
    for raw in list(doctree.findall(_is_widget_output)):
        output = raw
        while output.parent is not None and "cell_output" not in output.get("classes", []):
            output = output.parent
        target = output if output.parent is not None else raw
        target.replace_self(_slider_note())
    if docname.startswith((LESSONS, EXERCISES)):
        section = _first_section(doctree)
        if section is None:
            return
        title_index = next((i for i, child in enumerate(section.children)
                            if isinstance(child, nodes.title)), -1)
        note = _run_live_note(app, docname) if docname.startswith(LESSONS) \
            else _exercise_note(docname)
        section.insert(title_index + 1, note)


def setup(app):
    app.add_config_value("nbcourse_binder_url", "", "html")
    app.add_config_value("nbcourse_repository", "", "html")
    app.connect("config-inited", _fetch_mathjax)
    app.connect("doctree-resolved", _decorate)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
