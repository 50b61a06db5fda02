"""Build step that puts the course itself (lessons, exercises, data, licences) in the wheel.

Everything else about the package is declared in pyproject.toml. The checkout's top-level
notebooks/, exercises/ and data/ stay the only copy anyone edits: at build time this step
copies the files that ``nbcourse.resources.collect`` selects for students (never the
exercise sources, solutions or grading specs) into ``nbcourse/_course/`` in the build
folder, where the installed package finds them with importlib.resources.
An editable install skips the copy and reads the checkout directly.
"""
import importlib.util
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent


def _load_resources():
    # By file path: the build environment has setuptools but not numpy, pandas, ...
    spec = importlib.util.spec_from_file_location(
        "_nbcourse_resources_for_build", HERE / "nbcourse" / "resources.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class BuildPyWithCourse(build_py):
    """setuptools' build_py, plus a fresh copy of the course files into the package."""

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return
        resources = _load_resources()
        target = Path(self.build_lib) / "nbcourse" / resources.PACKAGE_FOLDER
        if target.exists():  # an earlier build's copy may hold files deleted since
            shutil.rmtree(target)
        for relative, source in resources.collect(HERE, instructor=False).items():
            destination = target.joinpath(*relative.split("/"))
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, destination)


setup(cmdclass={"build_py": BuildPyWithCourse})
