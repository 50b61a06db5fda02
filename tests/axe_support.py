#!/usr/bin/env python3
"""axe-core, the accessibility checker, for the site's browser test (tests/test_site.py).

    python tests/axe_support.py     # fetch once (CI does this before pytest); prints the path

The script comes from the npm registry with npm's own client (``npm pack axe-core@VERSION``),
as book/fetch_mathjax.py gets MathJax, and the tarball must match the integrity hash pinned
below. Only ``axe.min.js`` and the licence (MPL-2.0) are kept, in the user cache
(``$NBCOURSE_CACHE``, else ``~/.cache/nbcourse``), never in the repository.
"""
from __future__ import annotations

import base64
import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

VERSION = "4.14.1"
INTEGRITY = "sha512-FHfa+lmNjQZfJz1q8wKqIDwC6DExcHt/pkjNQb09a3NPjCKg2rhu5qb2S4r76ASyFNNtuFooJpZe37OgudVGtQ=="
KEEP = {"package/axe.min.js": "axe.min.js", "package/LICENSE": "LICENSE"}


def _cache() -> Path:
    if os.environ.get("NBCOURSE_CACHE"):
        base = Path(os.environ["NBCOURSE_CACHE"]).expanduser()
    else:
        xdg = os.environ.get("XDG_CACHE_HOME")
        base = (Path(xdg) if xdg else Path.home() / ".cache") / "nbcourse"
    return base / f"axe-core-{VERSION}"


def _integrity(path: Path) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(path.read_bytes()).digest()).decode()


def fetch() -> Path:
    """Path of axe.min.js, fetched from the npm registry on first use.

    Raises RuntimeError (with the fix) when npm is missing or the download fails.
    """
    target = _cache()
    script = target / "axe.min.js"
    if script.is_file():
        return script
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("the site's accessibility test needs axe-core from the npm "
                           "registry, and npm is not installed (Debian: apt-get install npm)")
    with tempfile.TemporaryDirectory(prefix="nbcourse-axe-") as tmp:
        done = subprocess.run([npm, "pack", f"axe-core@{VERSION}", "--silent",
                               "--pack-destination", tmp], capture_output=True, text=True,
                              timeout=300, cwd=tmp)
        tarballs = list(Path(tmp).glob("axe-core-*.tgz"))
        if done.returncode != 0 or len(tarballs) != 1:
            raise RuntimeError(f"`npm pack axe-core@{VERSION}` failed:\n{done.stderr[-2000:]}")
        if _integrity(tarballs[0]) != INTEGRITY:
            raise RuntimeError(f"{tarballs[0].name} does not match the pinned integrity hash")
        staging = Path(tmp) / "axe"
        staging.mkdir()
        with tarfile.open(tarballs[0]) as archive:
            for member in archive.getmembers():
                if member.name in KEEP and member.isfile():
                    (staging / KEEP[member.name]).write_bytes(archive.extractfile(member).read())
        if not (staging / "axe.min.js").is_file():
            raise RuntimeError(f"the axe-core {VERSION} package has no axe.min.js")
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.exists():
            shutil.rmtree(target)
        shutil.move(str(staging), target)
    return script


#: What the test runs in the page: axe's default rule set (WCAG 2.x A and AA and its best
#: practices, without the rules it marks experimental); the answer is the violations, each
#: with its impact and the first elements it hit.
RUN_AXE_JS = """async () => {
    const results = await axe.run(document, {resultTypes: ['violations']});
    return results.violations.map(v => ({
        id: v.id, impact: v.impact, help: v.help,
        nodes: v.nodes.slice(0, 5).map(n => n.target.join(' ')),
        count: v.nodes.length,
    }));
}"""


def serious_violations(page) -> list[dict]:
    """axe-core's serious and critical violations on the page now loaded in Playwright."""
    page.add_script_tag(path=str(fetch()))
    violations = page.evaluate(RUN_AXE_JS)
    return [v for v in violations if v["impact"] in ("serious", "critical")]


if __name__ == "__main__":
    try:
        print(f"axe-core {VERSION}: {fetch()}")
    except RuntimeError as error:
        sys.exit(str(error))
