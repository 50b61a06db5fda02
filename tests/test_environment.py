"""environment.yml (conda, Binder) and pyproject.toml (pip) must install the same things."""
import re
try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: tomli is the same parser (a test extra there)
    import tomli as tomllib

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


def _lower_bounds() -> dict[str, str]:
    """Package -> its ">=" bound in pyproject.toml (an environment marker after ";" dropped)."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    requirements = [r.split(";")[0] for r in
                    project["dependencies"] + project["optional-dependencies"]["test"]]
    return {_name(r): r.split(">=")[1].split(",")[0].strip() for r in requirements if ">=" in r}


def test_environment_yml_lower_bounds_match_pyproject():
    bounds = _lower_bounds()
    env = yaml.safe_load((REPO / "environment.yml").read_text())
    for entry in env["dependencies"]:
        if isinstance(entry, str) and ">=" in entry and _name(entry) in bounds:
            assert entry.split(">=")[1].split(",")[0].strip() == bounds[_name(entry)], entry


def _release(version: str) -> tuple[int, ...]:
    parts = tuple(int(p) for p in version.split("."))
    return parts + (0,) * (3 - len(parts))


def test_the_minimum_versions_ci_installs_are_the_lower_bounds():
    """.ci/run tests the oldest Python with .ci/minimum-versions.txt: those pins must be
    the lower bounds pyproject.toml declares, or that run tests versions nobody is promised."""
    pins = {}
    for line in (REPO / ".ci" / "minimum-versions.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, version = line.split("==")
            pins[_name(name)] = version.strip()
    bounds = _lower_bounds()
    assert pins.keys() == bounds.keys(), (
        f"pinned, no bound: {sorted(pins.keys() - bounds.keys())}; "
        f"bound, not pinned: {sorted(bounds.keys() - pins.keys())}")
    for name, bound in bounds.items():
        assert _release(pins[name]) == _release(bound), (name, pins[name], bound)


def test_readme_pyproject_and_environment_yml_name_the_same_pythons():
    """The oldest Python is named in three places; the classifiers list each one tested."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    oldest = project["requires-python"].removeprefix(">=")
    env = yaml.safe_load((REPO / "environment.yml").read_text())
    assert f"python>={oldest}" in env["dependencies"]
    assert f"You need Python {oldest} or newer" in (REPO / "README.md").read_text()
    classified = sorted((c.rsplit(" :: ", 1)[1] for c in project["classifiers"]
                         if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)),
                        key=_release)
    assert classified[0] == oldest, classified
    newest = classified[-1]
    run = (REPO / ".ci" / "other_pythons").read_text()
    assert f"NBCOURSE_PYTHON_OLDEST:-{oldest}" in run and f"NBCOURSE_PYTHON_NEWEST:-{newest}" in run
