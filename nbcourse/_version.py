"""The version of nbcourse, in one module that imports nothing of the package.

One source of truth: the version in pyproject.toml, as installed. It lives here rather
than in ``nbcourse/__init__.py`` so that a module the package's ``__init__`` imports
(``resources``, through the data loaders) can read it without importing the package
from inside itself.
"""
from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("nbcourse")
except PackageNotFoundError:  # imported from a source tree that was never installed
    __version__ = "0+unknown"
