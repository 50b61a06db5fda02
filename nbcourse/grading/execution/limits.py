"""Every limit a submission is graded under, in one object.

``GradingLimits`` is built once, from the command line (``GradingLimits.from_options``),
checked once (when it is made), handed to every worker inside its sandbox
configuration, and recorded whole in ``results.json``, next to what this machine could
actually enforce (``gradebook.BatchResult.enforced``): a cgroup for the whole sandbox,
or only per-process resource limits.  Changing a limit, or its default on the command
line, is one edit here.
"""
from __future__ import annotations

import math
import numbers
from dataclasses import asdict, dataclass, fields

MB = 2**20

#: Limits that may be 0, meaning "not limited" (the others must be positive).
MAY_BE_ZERO = ("worker_memory_mb",)


#: The longest any time limit may be: a week.  Far beyond any notebook, and far below
#: ``threading.TIMEOUT_MAX``: a worker's deadline of 1e10 s made its timer fail at once
#: (OverflowError in the timer's thread), so the batch had no deadline at all.
MOST_SECONDS = 7 * 24 * 3600.0
#: The largest size: 1 TiB (2**20 MB).  Far beyond any machine that grades, and far below
#: what the kernel takes as a resource limit: --memory-mb 10000000000000 made every
#: kernel's RLIMIT_AS fail (OverflowError: Python int too large to convert to C long).
MOST_MB = 2**20
#: The largest count (tasks, queued messages): Linux's highest ``pid_max``, which no
#: process count can pass (RLIMIT_NPROC overflowed as the sizes did).
MOST_COUNT = 2**22
#: The command line's name for a limit it sets (``from_options``).
OPTIONS = {"cell_timeout": "--timeout SECONDS", "memory_mb": "--memory-mb MB"}


@dataclass(frozen=True)
class GradingLimits:
    """What one submission may use.  Sizes in MB, times in seconds."""
    cell_timeout: float = 30.0      # one cell, one probe of one question, a Dask run's question
    total_timeout: float = 300.0    # all of the student's cells together (at least)
    interrupt_grace: float = 2.0    # after an interrupt: time to answer again
    worker_grace: float = 120.0     # the batch kills a worker this long after total_timeout
    start_timeout: float = 60.0     # a kernel server, a kernel, or the sandbox's self-test
    memory_mb: int = 2048           # the whole sandbox (cgroup) or each process (RLIMIT_AS)
    tasks: int = 64                 # processes and threads (ipykernel alone uses about 8)
    file_size_mb: int = 64          # one file written by the kernel (RLIMIT_FSIZE)
    tmp_mb: int = 256               # the sandbox's /tmp and /dev/shm (each)
    home_mb: int = 128              # the sandbox's home, which holds the notebook
    channel_mb: int = 8             # the folder of the kernel's sockets (a tmpfs where mountable)
    notebook_mb: int = 20           # the submitted file
    worker_memory_mb: int = 1024    # each grading worker, which reads what a kernel sends
    message_mb: int = 16            # one message part from the kernel (ZeroMQ drops larger)
    queued_messages: int = 32       # messages ZeroMQ queues on one channel for the grader
    reply_mb: int = 4               # one probe's reply, as text, before it is parsed

    def __post_init__(self) -> None:
        for item in fields(self):
            value, seconds = getattr(self, item.name), item.type == "float"
            if isinstance(value, numbers.Real if seconds else numbers.Integral) and \
                    not isinstance(value, bool):
                object.__setattr__(self, item.name, value := (float if seconds else int)(value))
            else:
                raise TypeError(f"GradingLimits.{item.name} must be "
                                f"{'a number of seconds' if seconds else 'a whole number'}, "
                                f"got {value!r}")
            least = 0 if item.name in MAY_BE_ZERO else 1
            if not math.isfinite(value):  # named first, as the library names NaN and inf
                raise ValueError(f"GradingLimits.{item.name} is "
                                 f"{'NaN' if math.isnan(value) else 'infinite'}: it must be "
                                 f"a finite number, got {value!r}")
            if not (value > 0 if seconds else value >= least):
                raise ValueError(f"GradingLimits.{item.name} must be "
                                 f"{'positive' if seconds else f'at least {least}'}, "
                                 f"got {value!r}")
            most, said = _most(item.name, seconds)
            if value > most:
                raise ValueError(f"GradingLimits.{item.name} must be at most {said}, "
                                 f"got {value!r}")

    @property
    def notebook_bytes(self) -> int:
        """``notebook_mb`` in bytes: the most of a submitted file that is read."""
        return self.notebook_mb * MB

    @property
    def kernel_bytes(self) -> int:
        """The most of a notebook (its code cells' sources) handed to a kernel: it passes
        through the kernel's channel, ``channel_mb`` (a tmpfs in the sandbox), half of
        which stays free for the kernel's own files there."""
        return self.channel_mb * MB // 2

    @property
    def worker_deadline(self) -> float:
        """Seconds after which the batch kills a grading worker still busy with one
        submission: the whole notebook's time, then the worker's grace."""
        return self.total_timeout + self.worker_grace

    @classmethod
    def from_options(cls, timeout: float | None = None,
                     memory_mb: int | None = None) -> "GradingLimits":
        """The limits for ``nbcourse grade --timeout SECONDS --memory-mb MB`` (None: the
        default).  A notebook gets ten cells' time, and never less than the default."""
        default = cls()
        timeout = default.cell_timeout if timeout is None else timeout
        memory_mb = default.memory_mb if memory_mb is None else memory_mb
        for name, value in (("cell_timeout", timeout), ("memory_mb", memory_mb)):
            try:
                cls(**{name: value})  # checks it
            except (TypeError, ValueError) as error:
                raise type(error)(f"{error} (the option {OPTIONS[name]})") from None
        cell = cls(cell_timeout=timeout, memory_mb=memory_mb)
        total = max(default.total_timeout, 10.0 * cell.cell_timeout)
        if not total <= MOST_SECONDS:
            raise ValueError(f"--timeout SECONDS is too large, got {timeout!r}: a notebook "
                             f"gets 10 x SECONDS, which must be at most {MOST_SECONDS:g} "
                             "seconds (a week)")
        return cls(cell_timeout=cell.cell_timeout, memory_mb=cell.memory_mb,
                   total_timeout=total)

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> "GradingLimits":
        """The limits ``to_json`` wrote (or ``results.json`` recorded, ``enforced`` aside);
        a limit it does not hold takes its default."""
        if not isinstance(data, dict):
            raise TypeError(f"limits must be a JSON object, got {type(data).__name__}")
        known = {item.name for item in fields(cls)}
        unknown = sorted(set(data) - known - {"enforced"})  # recorded alongside, see gradebook
        if unknown:
            raise ValueError(f"unknown limits: {', '.join(unknown)}")
        return cls(**{k: v for k, v in data.items() if k in known})


def _most(name: str, seconds: bool) -> tuple[float, str]:
    """The largest value of the limit ``name`` (a time if ``seconds``), and how to say it."""
    if seconds:
        return MOST_SECONDS, f"{MOST_SECONDS:g} seconds (a week)"
    if name.endswith("_mb"):
        return MOST_MB, f"{MOST_MB} MB (1 TiB)"
    return MOST_COUNT, str(MOST_COUNT)


def bytes_or_unlimited(megabytes: int) -> int:
    """A resource limit in bytes; -1 (unlimited) for zero or less."""
    return megabytes * MB if megabytes > 0 else -1
