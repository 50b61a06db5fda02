"""The grader's end of a kernel's connection: bounded, and quick to say "ready".

ZeroMQ sockets that refuse oversized messages and queue few of them (a kernel cannot
drive the worker's memory through them), and a readiness wait without jupyter_client's
fifth of a second of listening for silence after every start.
"""
from __future__ import annotations

import time
from queue import Empty

#: No message from the kernel larger than this reaches the grader's memory: ZeroMQ drops
#: it (and the connection it came on) before it is read.  A probe's reply is a few MB; a
#: cell that prints 10 MB at once is still counted (and its output ignored).
MAX_MESSAGE_BYTES = 16 * 2**20
#: Messages ZeroMQ keeps for the grader on one channel before the kernel's are dropped
#: (the grader reads them as they come; this bounds a burst to a few hundred MB).
MAX_QUEUED_MESSAGES = 32


def bounded_context():
    """A ZeroMQ context whose sockets refuse oversized messages and queue few of them."""
    import zmq
    import zmq.asyncio

    context = zmq.asyncio.Context()
    context.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE_BYTES)
    context.setsockopt(zmq.RCVHWM, MAX_QUEUED_MESSAGES)
    return context


def quick_ready(kc):
    """``kc`` whose ``wait_for_ready`` skips jupyter_client's last step, which listens for
    0.2 s of silence on IOPub after every start (a fifth of a second per submission, most
    of a kernel's start-up): the grader matches every message to its own request, so a
    leftover status message of the start-up changes nothing."""
    async def wait_for_ready(timeout: float = 60.0) -> None:
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
