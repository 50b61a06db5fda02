"""``python -m nbcourse ...`` does what the ``nbcourse`` command does.

For machines whose scripts folder is not on PATH, where the ``nbcourse`` command is
installed but cannot be found.
"""
import sys

from nbcourse.cli import main

if __name__ == "__main__":
    sys.exit(main())
