"""The grader's end of a kernel's connection: bounded, quick to say "ready", and short.

ZeroMQ sockets that refuse oversized messages and queue few of them (a kernel cannot
drive the worker's memory through them), a readiness wait without jupyter_client's
fifth of a second of listening for silence after every start, and a folder for the
sockets whose path fits in a Unix socket address whatever ``TMPDIR`` is; a wait for a
cell's output to be settled (``settle_output``); at the end, no tenth of a second's sleep
either (``gone``).
"""
from __future__ import annotations

import hashlib
import os
import tempfile
import time
from pathlib import Path
from queue import Empty

from .limits import MB

#: How long to watch for a killed kernel to be gone before jupyter_client's own shutdown
#: takes over (a killed process is gone in milliseconds; the grader's own wait).
GONE_SECONDS = 2.0
#: The pause between two looks at a killed kernel: a few milliseconds, so the wait ends
#: soon after it is gone (not a limit: how often, not how long).
GONE_STEP_SECONDS = 0.002
#: The longest one look for a reply or a status waits before the grader looks again (is
#: the kernel alive, was a connection dropped?): how often, not how long; the wait
#: itself is the caller's, a limit's.
REPLY_POLL_SECONDS = 0.2
#: nbclient counts its waits in whole seconds: the least it is handed (0 would not wait).
WHOLE_SECOND = 1


def bounded_context(limits):
    """A ZeroMQ context whose sockets refuse oversized messages and queue few of them.

    No message part from the kernel over ``limits.message_mb`` reaches the grader's
    memory: ZeroMQ drops it (and the connection it came on) before it is read.  A
    probe's reply is a few MB; a cell that prints 10 MB at once is still counted (and its
    output ignored).  At most ``limits.queued_messages`` wait on one channel before the
    kernel's are dropped (the grader reads them as they come: a burst stays bounded).
    """
    import zmq
    import zmq.asyncio

    context = zmq.asyncio.Context()
    context.setsockopt(zmq.MAXMSGSIZE, limits.message_mb * MB)
    context.setsockopt(zmq.RCVHWM, limits.queued_messages)
    context.setsockopt(zmq.RECONNECT_IVL, 5)
    return context


def quick_ready(kc):
    """``kc`` whose ``wait_for_ready`` skips jupyter_client's last step, which listens for
    0.2 s of silence on IOPub after every start (a fifth of a second per submission, most
    of a kernel's start-up): the grader matches every message to its own request, so a
    leftover status message of the start-up changes nothing."""
    async def wait_for_ready(timeout: float) -> None:  # nbclient's startup_timeout
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            kc.kernel_info()
            try:
                reply = await kc.shell_channel.get_msg(timeout=1)
            except Empty:
                reply = {}
            if reply.get("msg_type") == "kernel_info_reply":
                try:  # a message on IOPub too: it is connected
                    await kc.iopub_channel.get_msg(timeout=0.2)
                    return
                except Empty:
                    pass
            if not await kc._async_is_alive():
                raise RuntimeError("Kernel died before replying to kernel_info")
        raise RuntimeError(f"Kernel didn't respond in {timeout:.0f} seconds")

    kc.wait_for_ready = wait_for_ready
    return kc


#: A Unix socket's path holds at most 107 bytes; a kernel's sockets are
#: ``<folder>/channel-XXXXXXXX/kernel-<n>`` (``launcher.KernelServer``).
SOCKET_PATH_BYTES = 107
_BELOW_FOLDER = len("/channel-XXXXXXXX/kernel-99999")
#: Where the sockets go when the worker's own folder is too deep: short, on every Linux.
SHORT_PLACES = ("/tmp", "/var/tmp", "/dev/shm")


def _short_prefix(token: str) -> str:
    # named after the batch (a hash of its token), so the batch can remove what a killed
    # worker left (``remove_socket_folders``)
    return f"nbcourse-sockets-{hashlib.sha256(token.encode()).hexdigest()[:12]}-"


def socket_folder(base: Path, token: str) -> Path:
    """The folder a worker makes its kernels' channels in: ``base`` itself when the
    sockets' paths fit, else a private folder of its own in a short place (a ``TMPDIR``
    longer than about 40 characters made every socket path too long)."""
    if len(os.fsencode(str(base))) + _BELOW_FOLDER <= SOCKET_PATH_BYTES:
        return base
    for place in SHORT_PLACES:
        if len(place) + 1 + len(_short_prefix(token)) + 8 + _BELOW_FOLDER > SOCKET_PATH_BYTES:
            continue
        try:
            return Path(tempfile.mkdtemp(prefix=_short_prefix(token), dir=place))
        except OSError:
            continue
    return base  # nowhere shorter: each row says the socket's name is too long


def remove_socket_folders(token: str) -> None:
    """Remove what ``socket_folder`` made for the batch of ``token`` (a worker removes its
    own when it ends; one that was killed cannot)."""
    from .sandbox import remove_tree

    for place in SHORT_PLACES:
        try:
            names = os.listdir(place)
        except OSError:
            continue
        for name in names:
            if name.startswith(_short_prefix(token)):
                remove_tree(Path(place, name))


async def gone(kernel, patience: float = GONE_SECONDS) -> None:
    """Wait, in steps of a few milliseconds, for a killed kernel to be gone: jupyter_client's
    shutdown then finds it dead at once instead of sleeping a tenth of a second."""
    import asyncio

    deadline = time.monotonic() + patience
    while kernel.poll() is None and time.monotonic() < deadline:
        await asyncio.sleep(GONE_STEP_SECONDS)



async def dropped(monitors) -> bool:
    """Has any of the connection ``monitors`` (ZeroMQ's, for disconnection) seen its
    connection dropped since the last look?  Their events are read."""
    seen = False
    for monitor in monitors:
        while await monitor.poll(0):
            seen = True
            await monitor.recv_multipart()
    return seen


async def settle_output(kc, monitors, timeout: float) -> bool:
    """Wait until whatever the kernel published so far has arrived or been refused; True
    if a connection was dropped meanwhile (``dropped``).

    A kernel's status for a ``kernel_info`` request comes after everything it sent before
    on the same channel; ZeroMQ either delivers what came first or drops the connection.
    Used after a cell whose output nbclient stopped waiting for: a flood still arriving
    then is refused after *that* cell on every run, never after the next one.  What
    arrives meanwhile is not read."""
    msg_id = kc.kernel_info()
    deadline = time.monotonic() + timeout
    while (left := deadline - time.monotonic()) > 0:
        if await dropped(monitors):
            return True
        try:
            msg = await kc.iopub_channel.get_msg(timeout=min(left, REPLY_POLL_SECONDS))
        except Empty:
            continue
        parent, content = msg.get("parent_header") or {}, msg.get("content") or {}
        if parent.get("msg_id") == msg_id and content.get("execution_state") == "idle":
            return await dropped(monitors)
    return await dropped(monitors)
