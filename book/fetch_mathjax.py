#!/usr/bin/env python3
"""Put MathJax 3 into book/static/mathjax/, so the site typesets formulas with no network.

    python book/fetch_mathjax.py          # fetch once; does nothing when already there
    python book/fetch_mathjax.py --force  # fetch again

The files come from the npm registry with npm's own client (``npm pack mathjax@VERSION``),
and the tarball must match the integrity hash pinned below. Only the parts the site
loads are kept: the ``tex-chtml.js`` component, the TeX extensions it loads on demand,
the CommonHTML fonts, and the menu and accessibility modules (about 5 MB, not committed;
.gitignore lists the folder). The site build (book/_ext/nbcourse_site.py) runs this script
when the folder is missing, so ``jupyter-book build book/`` is the only command to type.
"""
from __future__ import annotations

import base64
import hashlib
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path, PurePosixPath

VERSION = "3.2.2"
INTEGRITY = "sha512-Bt+SSVU8eBG27zChVewOicYs7Xsdt40qm4+UpHyX7k0/O9NliPc+x77k1/FEsPsjKPZGJvtRZM1vO+geW0OhGw=="
TARGET = Path(__file__).resolve().parent / "static" / "mathjax"
ENTRY = "tex-chtml.js"  # what conf's mathjax_path names, relative to _static/mathjax/

#: Paths inside the package's es5/ folder that the site needs (files, or folders ending in /).
KEEP = ("tex-chtml.js", "input/", "output/chtml/", "ui/", "a11y/")


def is_present() -> bool:
    marker = TARGET / "VERSION"
    return (TARGET / ENTRY).is_file() and marker.is_file() and marker.read_text().strip() == VERSION


def _integrity(path: Path) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(path.read_bytes()).digest()).decode()


def _wanted(member: str) -> str | None:
    """``package/es5/input/tex/x.js`` -> ``input/tex/x.js`` if kept; the licence too."""
    path = PurePosixPath(member)
    if path.parts[:1] != ("package",):
        return None
    if path.parts[1:] == ("LICENSE",):
        return "LICENSE"
    if path.parts[1:2] != ("es5",):
        return None
    inner = "/".join(path.parts[2:])
    keep = any(inner == k or (k.endswith("/") and inner.startswith(k)) for k in KEEP)
    return inner if keep else None


def fetch(force: bool = False) -> Path:
    if is_present() and not force:
        print(f"MathJax {VERSION} is already in {TARGET}")
        return TARGET
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit("the site needs MathJax from the npm registry, and npm is not "
                         "installed (Debian: apt-get install npm)")
    with tempfile.TemporaryDirectory(prefix="nbcourse-mathjax-") as tmp:
        done = subprocess.run([npm, "pack", f"mathjax@{VERSION}", "--silent",
                               "--pack-destination", tmp], capture_output=True, text=True,
                              timeout=300, cwd=tmp)
        tarballs = list(Path(tmp).glob("mathjax-*.tgz"))
        if done.returncode != 0 or len(tarballs) != 1:
            raise SystemExit(f"`npm pack mathjax@{VERSION}` failed:\n{done.stderr[-2000:]}")
        tarball = tarballs[0]
        if _integrity(tarball) != INTEGRITY:
            raise SystemExit(f"{tarball.name} does not match the pinned integrity hash")
        staging = Path(tmp) / "mathjax"
        count = 0
        with tarfile.open(tarball) as archive:
            for member in archive.getmembers():
                relative = _wanted(member.name)
                if relative is None or not member.isfile():
                    continue
                destination = staging / relative
                destination.parent.mkdir(parents=True, exist_ok=True)
                destination.write_bytes(archive.extractfile(member).read())
                count += 1
        if not (staging / ENTRY).is_file():
            raise SystemExit(f"the MathJax package has no es5/{ENTRY}")
        (staging / "VERSION").write_text(VERSION + "\n")
        if TARGET.exists():
            shutil.rmtree(TARGET)
        TARGET.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(staging), TARGET)
    print(f"MathJax {VERSION}: {count} files in {TARGET}")
    return TARGET


if __name__ == "__main__":
    fetch(force="--force" in sys.argv[1:])
