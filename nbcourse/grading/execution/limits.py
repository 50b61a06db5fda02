"""Every limit a submission is graded under, in one object.

``GradingLimits`` is built once, from the command line (``GradingLimits.from_options``),
handed to every worker as it is, and recorded whole in ``results.json`` together with
what this machine could actually enforce (``enforced``, filled in by ``sandbox``):
a cgroup for the whole sandbox, or only per-process resource limits.  Changing a limit
is one edit here.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

MB = 2**20


@dataclass
class GradingLimits:
    """What one submission may use.  Sizes in MB, times in seconds."""
    cell_timeout: float = 30.0      # one cell, and one probe of one question
    total_timeout: float = 300.0    # all of the student's cells together
    interrupt_grace: float = 2.0    # after an interrupt: time to answer again
    worker_grace: float = 120.0     # the batch kills a worker this long after total_timeout
    memory_mb: int = 2048           # the whole sandbox (cgroup) or each process (RLIMIT_AS)
    tasks: int = 64                 # processes and threads (ipykernel alone uses about 8)
    file_size_mb: int = 64          # one file written by the kernel (RLIMIT_FSIZE)
    tmp_mb: int = 256               # the sandbox's /tmp and /dev/shm (each)
    home_mb: int = 128              # the sandbox's home, which holds the notebook
    channel_mb: int = 8             # the folder of the kernel's sockets (a tmpfs as root)
    notebook_mb: int = 20           # the submitted file
    worker_memory_mb: int = 1024    # each grading worker, which reads what a kernel sends
    enforced: dict = field(default_factory=dict)  # what this machine enforces; see sandbox

    @classmethod
    def from_options(cls, timeout: float = 30.0, memory_mb: int = 2048) -> "GradingLimits":
        """The limits for ``nbcourse grade --timeout SECONDS --memory-mb MB``."""
        if timeout <= 0:
            raise ValueError(f"timeout must be positive (seconds per cell), got {timeout}")
        if memory_mb <= 0:
            raise ValueError(f"memory_mb must be positive, got {memory_mb}")
        return cls(cell_timeout=float(timeout), total_timeout=max(300.0, 10.0 * timeout),
                   memory_mb=int(memory_mb))

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> "GradingLimits":
        return cls(**data)


def bytes_or_unlimited(megabytes: int) -> int:
    """A resource limit in bytes; -1 (unlimited) for zero or less."""
    return megabytes * MB if megabytes > 0 else -1
