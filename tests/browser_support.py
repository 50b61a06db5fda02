"""Run a throw-away JupyterLab and drive it with headless Chromium, for tests/test_browser.py.

Why a separate module: the test should read like what a student does (open the notebook,
Run All, move a slider, look at the numbers and the plot); starting and always stopping a
server, its kernels and a browser is plumbing that would hide that story.

Nothing here touches the user's Jupyter set-up or the course files: settings, workspaces,
runtime files, config and the served folder all live in one temporary directory, and every
process started here (server, kernels) is found again and ended by ``JupyterLabServer.stop``.
"""
from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import psutil

#: Debian's Chromium; Playwright must never download a browser of its own.
DEFAULT_CHROMIUM = "/usr/bin/chromium"

#: Flags for running Chromium as root on a machine with no display and no outside network:
#: without the background-networking flags it keeps trying (and failing) to reach Google.
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage",
]

INSTALL_HINT = ("the browser test drives Debian's Chromium: install it with "
                "`sudo apt-get update && sudo apt-get install -y chromium` "
                "(or point NBCOURSE_CHROMIUM at a Chromium binary)")


def find_chromium() -> str | None:
    """Path of the Chromium binary to drive: $NBCOURSE_CHROMIUM, /usr/bin/chromium, or PATH."""
    override = os.environ.get("NBCOURSE_CHROMIUM")
    if override:
        return override if Path(override).is_file() else None
    if Path(DEFAULT_CHROMIUM).is_file():
        return DEFAULT_CHROMIUM
    return shutil.which("chromium") or shutil.which("chromium-browser")


#: CI sets CI=1: there a browser that cannot start fails the test instead of skipping it.
IN_CI = os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def cannot_run(reason: str, what: str = "the browser test"):
    """Skip on a student's machine without a browser; fail in CI, where ``what`` must run."""
    import pytest

    if IN_CI:
        pytest.fail(f"{reason} (CI is set, and in CI {what} must run)", pytrace=False)
    pytest.skip(reason)


@contextlib.contextmanager
def launched_chromium(what: str = "the browser test"):
    """Debian's headless Chromium driven by Playwright, always closed afterwards."""
    import pytest

    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        cannot_run("Playwright for Python is not installed: pip install -e '.[test]'", what)
    executable = find_chromium()
    if executable is None:
        cannot_run(f"Chromium not found; {INSTALL_HINT}", what)
    playwright = sync_playwright().start()
    try:
        try:
            chromium = playwright.chromium.launch(
                executable_path=executable, args=CHROMIUM_ARGS, headless=True, timeout=60_000)
        except Exception as error:  # in CI and locally alike: a broken browser is a failure
            pytest.fail(f"Chromium at {executable} did not start: {error}", pytrace=False)
        try:
            yield chromium
        finally:
            chromium.close()
    finally:
        playwright.stop()


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# --------------------------------------------------------------------------------------------
# The server
# --------------------------------------------------------------------------------------------

#: Front-end settings a student would otherwise click away: the "get Jupyter news?" and
#: "a newer version is available" toasts (they would also cover the notebook in screenshots).
LAB_USER_SETTINGS = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false", "checkForUpdates": False,
    },
}


class JupyterLabServer:
    """JupyterLab on 127.0.0.1 with every folder it writes to inside ``base_dir``.

    ``root_dir`` (what the file browser shows) is ``base_dir / "root"``; copy the notebooks
    to open there, so that an autosave never writes over a course file.
    """

    def __init__(self, base_dir: Path, env: dict[str, str] | None = None):
        self.base_dir = Path(base_dir)
        self.root_dir = self.base_dir / "root"
        self.log_path = self.base_dir / "jupyterlab.log"
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._extra_env = dict(env or {})
        self._process: subprocess.Popen | None = None
        self._log_file = None

    # -- folders and command line --------------------------------------------------------

    def _prepare_folders(self) -> dict[str, str]:
        folders = {
            "JUPYTERLAB_SETTINGS_DIR": "lab-settings",
            "JUPYTERLAB_WORKSPACES_DIR": "lab-workspaces",
            "JUPYTER_RUNTIME_DIR": "runtime",
            "JUPYTER_CONFIG_DIR": "config",
            "JUPYTER_DATA_DIR": "data",       # hides kernelspecs the developer installed
            "IPYTHONDIR": "ipython",          # ... and their IPython start-up files
        }
        env = {}
        for variable, name in folders.items():
            path = self.base_dir / name
            path.mkdir(parents=True, exist_ok=True)
            env[variable] = str(path)
        self.root_dir.mkdir(parents=True, exist_ok=True)
        settings_dir = Path(env["JUPYTERLAB_SETTINGS_DIR"])
        for relative, values in LAB_USER_SETTINGS.items():
            target = settings_dir / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps(values, indent=2))
        return env

    def command(self) -> list[str]:
        return [
            sys.executable, "-m", "jupyter", "lab",
            "--no-browser", "--allow-root",
            "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={self.port}",
            "--ServerApp.port_retries=0",
            "--IdentityProvider.token=", "--ServerApp.password=",
            f"--ServerApp.root_dir={self.root_dir}",
            "--ServerApp.terminals_enabled=False",
            # No announcements feed, no update check, no extension manager asking PyPI.
            "--LabApp.news_url=None",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            "--LabApp.extension_manager=readonly",
            # Safety net if pytest itself is killed with SIGKILL: the server then ends
            # on its own once it has been idle with no kernel for 15 minutes.
            "--ServerApp.shutdown_no_activity_timeout=900",
            "--MappingKernelManager.cull_idle_timeout=900",
            "--MappingKernelManager.cull_interval=60",
        ]

    # -- life cycle ----------------------------------------------------------------------

    def start(self, timeout: float = 120.0) -> None:
        """Start the server and return once its REST API answers (or raise with its log)."""
        env = dict(os.environ)
        # The kernel must draw with the inline backend, whatever the test process uses.
        env.pop("MPLBACKEND", None)
        env.update(self._prepare_folders())
        env.update(self._extra_env)
        self._log_file = open(self.log_path, "w")
        self._process = subprocess.Popen(
            self.command(), cwd=self.root_dir, env=env, stdin=subprocess.DEVNULL,
            stdout=self._log_file, stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, so stop() can end it whole
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise RuntimeError(
                    f"JupyterLab exited with code {self._process.returncode} before answering;"
                    f" its log:\n{self.log_text()}")
            try:
                with urllib.request.urlopen(f"{self.url}/api/status", timeout=5) as reply:
                    if reply.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            time.sleep(0.25)
        raise TimeoutError(f"JupyterLab did not answer on {self.url} within {timeout:.0f} s;"
                           f" its log:\n{self.log_text()}")

    def log_text(self) -> str:
        if self._log_file is not None:
            self._log_file.flush()
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return "(no log)"

    def _own_processes(self) -> list[psutil.Process]:
        """The server, its children, and any process whose command line names our folders.

        Kernels run in sessions of their own (so that an interrupt reaches only them), so
        killing the server's process group alone would leave them behind; their command
        line names a connection file in our runtime folder, which is how we find them.
        """
        found: dict[int, psutil.Process] = {}
        if self._process is not None:
            try:
                server = psutil.Process(self._process.pid)
                found[server.pid] = server
                for child in server.children(recursive=True):
                    found[child.pid] = child
            except psutil.NoSuchProcess:
                pass
        marker = str(self.base_dir)
        for process in psutil.process_iter(["pid", "cmdline"]):
            try:
                cmdline = process.info["cmdline"] or []
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                continue
            if process.pid != os.getpid() and any(marker in part for part in cmdline):
                found[process.pid] = process
        return list(found.values())

    def stop(self, grace: float = 20.0) -> list[str]:
        """End the server and its kernels; return a description of anything still alive."""
        if self._process is None:
            return []
        processes = self._own_processes()  # snapshot while the kernels are still children
        if self._process.poll() is None:
            try:  # SIGTERM: jupyter_server shuts its kernels down cleanly, then exits
                os.killpg(self._process.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                self._process.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                pass
        _, alive = psutil.wait_procs(processes, timeout=5)
        alive += [p for p in self._own_processes() if p not in alive]
        for process in alive:
            try:
                process.kill()
            except psutil.NoSuchProcess:
                pass
        try:
            os.killpg(self._process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        if self._process.poll() is None:
            self._process.wait(timeout=10)
        psutil.wait_procs(alive, timeout=5)
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None
        leftovers = []
        for process in self._own_processes():
            try:
                if process.status() != psutil.STATUS_ZOMBIE:
                    leftovers.append(f"{process.pid} {' '.join(process.cmdline())}")
            except psutil.NoSuchProcess:
                pass
        return leftovers


# --------------------------------------------------------------------------------------------
# The page: what a student sees and does in JupyterLab
# --------------------------------------------------------------------------------------------

#: The notebook on screen (JupyterLab keeps other tabs in the DOM, hidden).
ACTIVE_NOTEBOOK = ".jp-NotebookPanel:not(.lm-mod-hidden)"


def open_notebook(page, server: JupyterLabServer, relative_path: str, workspace: str,
                  timeout: float = 120.0):
    """Load JupyterLab on ``relative_path`` in a fresh workspace and wait for an idle kernel.

    A workspace of its own (and ``?reset``) so JupyterLab does not reopen the notebooks of an
    earlier test, each with a kernel, next to this one.
    """
    page.goto(f"{server.url}/lab/workspaces/{workspace}/tree/{relative_path}?reset",
              timeout=timeout * 1000)
    page.locator(f"{ACTIVE_NOTEBOOK} .jp-Notebook .jp-Cell").first.wait_for(
        state="visible", timeout=timeout * 1000)
    wait_for_kernel_idle(page, timeout)


def wait_for_kernel_idle(page, timeout: float = 120.0) -> None:
    """The status bar says '<kernel name> | Idle' (not 'Initializing', 'Busy', 'No Kernel')."""
    page.locator(".jp-StatusBar-TextItem", has_text=re.compile(r"\|\s*Idle\s*$")).first \
        .wait_for(state="visible", timeout=timeout * 1000)


def run_all_cells_from_menu(page) -> None:
    """Run -> Run All Cells, as a student would click it."""
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_role("menuitem", name="Run All Cells", exact=True).click()


_RUN_STATE_JS = """([panel, selector]) => {
    const root = document.querySelector(panel);
    if (!root) return null;
    const prompts = [...root.querySelectorAll('.jp-CodeCell .jp-InputPrompt')]
        .map(p => p.textContent.trim());
    // The kernel's item in the status bar reads e.g. 'Python 3 (ipykernel) | Idle'.
    const status = [...document.querySelectorAll('.jp-StatusBar-TextItem')]
        .map(e => e.textContent.trim()).find(t => / \\| \\w+$/.test(t)) || '';
    return {
        widget: root.querySelector(selector) !== null,
        queued: prompts.filter(p => p === '[*]:').length,
        notRun: prompts.filter(p => !/^\\[\\d+\\]:$/.test(p) && p !== '[*]:').length,
        cells: prompts.length,
        errors: root.querySelectorAll(
            '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]').length,
        idle: /\\|\\s*Idle\\s*$/.test(status),
        status: status,
    };
}"""


def wait_until_all_cells_ran(page, rendered_selector: str, timeout: float = 180.0) -> None:
    """Wait until Run All has finished: ``rendered_selector`` (a widget only a live kernel
    draws) is on the page, no code cell is queued or running ('[*]'), every code cell has an
    execution count, and the kernel is idle. Fail early, with the error shown, when a cell
    raised (JupyterLab then stops running the rest).

    The stored outputs already carry execution counts, so counts alone cannot tell a fresh
    run from the saved one; the live widget can (its state is not saved in the notebook).
    """
    deadline = time.monotonic() + timeout
    stalled_since = None
    state = None
    while time.monotonic() < deadline:
        state = page.evaluate(_RUN_STATE_JS, [ACTIVE_NOTEBOOK, rendered_selector])
        if state:
            if state["widget"] and state["cells"] and not state["queued"] \
                    and not state["notRun"] and state["idle"]:
                return
            if state["errors"] and not state["queued"]:
                raise AssertionError(f"Run All stopped on an error: {error_outputs(page)}")
            # Nothing queued, kernel idle, and still not done: Run All did not (or no longer)
            # run. Give JupyterLab a few seconds to start before calling it stuck.
            if not state["queued"] and state["idle"]:
                stalled_since = stalled_since or time.monotonic()
                if time.monotonic() - stalled_since > 20:
                    raise AssertionError(f"Run All is not running and not finished: {state}")
            else:
                stalled_since = None
        time.sleep(0.25)
    raise AssertionError(f"Run All did not finish within {timeout:.0f} s: {state}")


def error_outputs(page) -> list[str]:
    """Text of every traceback, stderr output or widget that failed to display."""
    root = page.locator(ACTIVE_NOTEBOOK)
    texts = root.locator(
        '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]'
    ).all_text_contents()
    texts += [t for t in root.locator(".jp-OutputArea-output").all_text_contents()
              if "Error displaying widget" in t]
    return texts


def shut_down_kernels(page) -> int:
    """Shut down every kernel session of the server, from the page (it holds the XSRF
    cookie a state-changing request needs); returns how many it closed."""
    return page.evaluate("""async () => {
        const cookie = document.cookie.match(/(?:^|; )_xsrf=([^;]*)/);
        const xsrf = cookie ? decodeURIComponent(cookie[1]) : '';
        const reply = await fetch('/api/sessions');
        const sessions = await reply.json();
        let closed = 0;
        for (const s of sessions) {
            const done = await fetch('/api/sessions/' + s.id,
                                     {method: 'DELETE', headers: {'X-XSRFToken': xsrf}});
            if (!done.ok) throw new Error(`DELETE session ${s.id}: HTTP ${done.status}`);
            closed += 1;
        }
        return closed;
    }""")


def code_cell_of(locator):
    """The notebook code cell whose output holds ``locator``."""
    return locator.locator("xpath=ancestor::div[contains(concat(' ', normalize-space(@class), ' '),"
                           " ' jp-CodeCell ')][1]")


class SliderOnPage:
    """An ipywidgets 8 slider (noUiSlider) found by the CSS class the lesson gave it."""

    def __init__(self, page, css_class: str):
        self.page = page
        self.css_class = css_class
        self.root = page.locator(f"{ACTIVE_NOTEBOOK} .widget-slider.{css_class}")

    def wait_visible(self, timeout: float = 60.0) -> None:
        self.root.first.wait_for(state="visible", timeout=timeout * 1000)

    @property
    def handle(self):
        return self.root.locator(".noUi-handle").first

    def readout(self) -> str:
        """The number shown right of the slider, as the student reads it.

        textContent, not innerText: JupyterLab skips laying out cells scrolled out of view
        (CSS content-visibility), and innerText of an element not laid out is empty.
        """
        return self.root.locator(".widget-readout").first.text_content().strip()

    def position(self) -> tuple[float, float, float]:
        """(value, minimum, maximum) as the handle tells assistive technology (aria-value*);
        for a selection slider these are option indices."""
        values = self.handle.evaluate(
            "h => ['aria-valuenow', 'aria-valuemin', 'aria-valuemax'].map(a => h.getAttribute(a))")
        return tuple(float(v) for v in values)

    def press(self, key: str) -> None:
        """Focus the handle (as a Tab or click would) and press ``key``."""
        self.handle.focus()
        self.handle.press(key)

    def drag_to_fraction(self, fraction: float, steps: int = 12) -> None:
        """Mouse down on the handle, move to ``fraction`` of the track, mouse up."""
        self.handle.scroll_into_view_if_needed()
        handle_box = self.handle.bounding_box()
        track_box = self.root.locator(".noUi-base").first.bounding_box()
        if handle_box is None or track_box is None:
            raise AssertionError(f"slider .{self.css_class} is not laid out on the page")
        start_x = handle_box["x"] + handle_box["width"] / 2
        y = handle_box["y"] + handle_box["height"] / 2
        target_x = track_box["x"] + fraction * track_box["width"]
        mouse = self.page.mouse
        mouse.move(start_x, y)
        mouse.down()
        for i in range(1, steps + 1):
            mouse.move(start_x + (target_x - start_x) * i / steps, y)
            time.sleep(0.03)
        mouse.up()


def wait_for(predicate, timeout: float, interval: float = 0.2, describe=lambda: ""):
    """Poll ``predicate()`` until it returns a truthy value; raise AssertionError on timeout.

    The page changes asynchronously (browser -> kernel -> browser), so assertions about
    what it shows are "eventually" assertions with a bounded wait.
    """
    deadline = time.monotonic() + timeout
    while True:
        result = predicate()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up after {timeout:.0f} s: {describe()}")
        time.sleep(interval)


# --------------------------------------------------------------------------------------------
# One slider, moved the way a student moves it
# --------------------------------------------------------------------------------------------

class Screenshots:
    """Numbered PNG files in one folder, so a person can page through what the test saw."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        if self.folder.exists():
            shutil.rmtree(self.folder)
        self.folder.mkdir(parents=True)
        self.count = 0

    def take(self, locator_or_page, name: str) -> Path:
        self.count += 1
        safe = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-")
        path = self.folder / f"{self.count:02d}-{safe}.png"
        locator_or_page.screenshot(path=str(path))
        return path


@dataclass
class SliderMove:
    """One thing a student does to a slider, e.g. press End, or drag it to 30% of its track,
    and where the handle must land for that to count as done (``lands(before, after)`` on
    :meth:`SliderOnPage.position` tuples returns None, or what went wrong)."""
    name: str
    action: object  # callable(SliderOnPage) -> None
    lands: object   # callable(before, after) -> str | None

    _KEY_TARGETS = {
        "ArrowRight": "up", "ArrowUp": "up", "PageUp": "up",
        "ArrowLeft": "down", "ArrowDown": "down", "PageDown": "down",
        "End": "maximum", "Home": "minimum",
    }

    @staticmethod
    def key(key: str) -> "SliderMove":
        target = SliderMove._KEY_TARGETS[key]

        def lands(before, after):
            value, low, high = after
            ok = {"up": value > before[0], "down": value < before[0],
                  "maximum": value == high, "minimum": value == low}[target]
            return None if ok else f"{key} should move the handle {target}: {before} -> {after}"

        return SliderMove(f"keyboard-{key}", lambda slider: slider.press(key), lands)

    @staticmethod
    def drag(fraction: float) -> "SliderMove":
        def lands(before, after):
            value, low, high = after
            where = (value - low) / (high - low)
            # within a tenth of the track: the slider snaps to its step, a pixel or so off
            return None if abs(where - fraction) <= 0.1 else (
                f"dragged to {fraction:.0%} of the track, the handle is at {where:.0%}")

        return SliderMove(f"drag-to-{round(fraction * 100)}pct",
                          lambda slider: slider.drag_to_fraction(fraction), lands)


_IMAGE_DIGESTS_JS = """async (images) => {
    const digests = [];
    for (const img of images) {
        const src = img.tagName === 'IMG' ? img : img.querySelector('img');
        if (!src || !src.complete || src.naturalWidth === 0) return null;  // not shown yet
        let bytes;
        try {
            bytes = await (await fetch(src.src)).arrayBuffer();
        } catch (error) {
            return null;  // a blob: URL revoked because a newer picture arrived
        }
        const digest = await crypto.subtle.digest('SHA-256', bytes);
        digests.push([...new Uint8Array(digest)]
            .map(b => b.toString(16).padStart(2, '0')).join(''));
    }
    return digests.length ? digests.join(',') : null;
}"""


def _plot_digest(cell, plot_selector: str) -> str | None:
    """SHA-256 of the picture(s) the cell shows, or None while one is missing or loading.

    The bytes behind the <img>, not its src: an ipywidgets Image gets a fresh blob: URL on
    every update even when the picture is the same, and a screenshot could differ by a
    sub-pixel scroll; the PNG the kernel sent is what tells whether the plot changed.
    """
    try:
        return cell.locator(plot_selector).evaluate_all(_IMAGE_DIGESTS_JS)
    except Exception:  # the element was replaced while we read it: not settled yet
        return None


def move_slider_and_check(page, css_class: str, expected_line, moves, shots: Screenshots, *,
                          printed_selector: str = "pre", plot_selector: str = "img",
                          timeout: float = 60.0) -> list[dict]:
    """Move the slider ``.css_class`` with each of ``moves`` and check what the page shows.

    After each move, within ``timeout`` seconds: the slider's readout shows a new value, the
    printed text under its cell becomes exactly ``expected_line(readout)`` (what the test
    process computes with nbcourse for that value) and the picture it shows differs from before.
    Screenshots of the cell before and after each move go to ``shots``. Returns one record
    per move (value before/after, line after) for the test's report.
    """
    slider = SliderOnPage(page, css_class)
    slider.wait_visible()
    cell = code_cell_of(slider.root.first)

    def printed() -> str:
        return "\n".join(t.strip() for t in cell.locator(printed_selector).all_text_contents()
                         if t.strip())

    # Before any move, the line must already agree with the library for the start value.
    start = slider.readout()
    wait_for(lambda: printed() == expected_line(start), timeout,
             describe=lambda: f"for the start value {start!r} the page prints {printed()!r}, "
                              f"nbcourse gives {expected_line(start)!r}")
    records = []
    for move in moves:
        before_value, before_text = slider.readout(), printed()
        before_position = slider.position()
        before_plot = wait_for(lambda: _plot_digest(cell, plot_selector), timeout,
                               describe=lambda: f"no plot image ({plot_selector}) under the cell")
        shots.take(cell, f"{css_class}-{move.name}-before-{before_value}")
        move.action(slider)

        state = {}

        def settled() -> bool:
            state.clear()
            value = slider.readout()
            state.update(value=value, text=printed())
            if value == before_value:
                return False
            state["expected"] = expected_line(value)
            if state["text"] != state["expected"]:
                return False
            picture = _plot_digest(cell, plot_selector)
            if picture is None or picture == before_plot:
                state["plot"] = "unchanged" if picture else "missing"
                return False
            time.sleep(0.3)  # and it stays so (no late redraw in flight)
            return _plot_digest(cell, plot_selector) == picture and printed() == state["text"]

        wait_for(settled, timeout, describe=lambda: (
            f"after {move.name} on .{css_class} (readout {before_value!r} -> "
            f"{state.get('value')!r}): page prints {state.get('text')!r}, nbcourse gives "
            f"{state.get('expected')!r}, plot {state.get('plot', 'changed')}"))
        assert state["text"] != before_text, (
            f"{move.name}: the printed line did not change ({before_text!r})")
        misplaced = move.lands(before_position, slider.position())
        assert misplaced is None, f".{css_class}: {misplaced}"
        shots.take(cell, f"{css_class}-{move.name}-after-{state['value']}")
        records.append({"move": move.name, "before": before_value, "after": state["value"],
                        "printed": state["text"]})
    return records
