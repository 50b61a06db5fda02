"""environment.yml (conda, Binder) and pyproject.toml (pip) must install the same things."""
import re
import tomllib

import yaml

from course_paths import REPO

# conda-forge names that differ from the PyPI names used in pyproject.toml
CONDA_TO_PYPI = {}


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~ \[]", requirement.strip(), maxsplit=1)[0].lower()


def test_environment_yml_and_pyproject_list_the_same_packages():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    pip_names = {_name(r) for r in project["dependencies"] + project["optional-dependencies"]["test"]}
    env = yaml.safe_load((REPO / "environment.yml").read_text())
    conda, pip_section = set(), []
    for entry in env["dependencies"]:
        if isinstance(entry, dict):
            pip_section += entry.get("pip", [])
        elif _name(entry) not in ("python", "pip"):
            conda.add(CONDA_TO_PYPI.get(_name(entry), _name(entry)))
    # a package conda-forge does not have is installed by the pip section
    conda |= {_name(entry) for entry in pip_section if entry.strip() != "-e ."}
    assert conda == pip_names, (
        f"only in environment.yml: {sorted(conda - pip_names)}; "
        f"only in pyproject.toml: {sorted(pip_names - conda)}")
    assert "-e ." in pip_section, "environment.yml must install nbcourse itself with pip -e ."
    assert "conda-forge" in env["channels"]


def test_environment_yml_lower_bounds_match_pyproject():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    bounds = {_name(r): r.split(">=")[1] for r in
              project["dependencies"] + project["optional-dependencies"]["test"] if ">=" in r}
    env = yaml.safe_load((REPO / "environment.yml").read_text())
    for entry in env["dependencies"]:
        if isinstance(entry, str) and ">=" in entry and _name(entry) in bounds:
            assert entry.split(">=")[1].strip() == bounds[_name(entry)], entry
