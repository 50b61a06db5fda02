"""The child process that removes an oversized notebook's saved outputs and attachments.

``saved_outputs.without_outputs`` runs this file's source as
``python -I -S -c SOURCE FD TARGET MEMORY MOST``: FD is the notebook, opened by the grader
(``notebook_file.open_untrusted``) and handed down, read at most MOST bytes under an
address space of MEMORY bytes (``RLIMIT_AS``, its parsing included); TARGET gets the
notebook without outputs.  Exit status 0: done; 3: not a readable notebook; 4: out of
memory.  It uses the standard library only: nothing else is on its path.
"""
import json
import os
import resource
import sys

NOT_A_NOTEBOOK, OUT_OF_MEMORY = 3, 4


def clear_outputs(data) -> bool:
    """Empty every cell's outputs and drop its attachments, in place; False when ``data``
    is not a notebook."""
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        return False
    for cell in data["cells"]:
        if isinstance(cell, dict):
            if "outputs" in cell:
                cell["outputs"] = []
            cell.pop("attachments", None)
    return True


def main(argv: list) -> int:
    """The exit status of ``python -I -S -c SOURCE FD TARGET MEMORY MOST``."""
    fd, target, memory, most = int(argv[1]), argv[2], int(argv[3]), int(argv[4])
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    try:
        with os.fdopen(fd, "rb") as handle:
            raw = handle.read(most + 1)
        if len(raw) > most:
            return NOT_A_NOTEBOOK
        text = raw.decode("utf-8-sig")
        del raw
        data = json.loads(text)
        del text
        if not clear_outputs(data):
            return NOT_A_NOTEBOOK
        with open(target, "w", encoding="utf-8") as out:
            json.dump(data, out)
    except MemoryError:
        return OUT_OF_MEMORY
    except (OSError, ValueError, RecursionError):
        return NOT_A_NOTEBOOK
    return 0


if __name__ == "__main__":
    os._exit(main(sys.argv))
