"""What a program inside a sandbox can see and do: run by ``sandbox.self_test`` (as
``python -c SOURCE PLANTED PORT READONLY MADE``) in a sandbox like a kernel's, before any
submission is graded.  It prints one JSON line, and makes the file MADE in its channel
(whose owner, seen from the host, is the sandbox's user there); the grader checks all."""
import ctypes
import json
import os
import platform
import socket
import sys

CLONE_NEWUSER, SIGCHLD = 0x10000000, 17
MS_REMOUNT, MS_BIND = 32, 4096
#: clone's number where its flags come first (elsewhere only ``unshare`` is tried)
CLONE = {"x86_64": 56, "aarch64": 220, "riscv64": 220}


def user_namespace(libc) -> bool:
    """Can this process make a user namespace?  As a fork would, clone(CLONE_NEWUSER):
    only bwrap's --disable-userns refuses it (unshare, the usual way, is refused by the
    seccomp filter whatever bwrap was told)."""
    number = CLONE.get(platform.machine())
    if number is None:
        return libc.unshare(CLONE_NEWUSER) == 0
    pid = libc.syscall(number, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0)
    if pid == 0:
        os._exit(0)
    if pid > 0:
        os.waitpid(pid, 0)
    return pid > 0


def reaches(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
        return True
    except OSError:
        return False


def probe(planted: str, port: int, readonly: str, made: str) -> dict:
    libc = ctypes.CDLL(None, use_errno=True)
    with open("/proc/self/status") as handle:
        status = dict(line.split(":", 1) for line in handle.read().splitlines() if ":" in line)
    os.close(os.open(made, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    return {"planted_visible": os.path.exists(planted),
            "processes": sorted(int(p) for p in os.listdir("/proc") if p.isdigit()),
            "cap_eff": int(status["CapEff"].strip(), 16), "seccomp": status["Seccomp"].strip(),
            # a read-only bind remounted writable: must fail (no capability, no mount)
            "remount": libc.mount(b"none", readonly.encode(), None, MS_REMOUNT | MS_BIND,
                                  None) == 0,
            "user_namespace": user_namespace(libc),
            "network": reaches(port)}


if __name__ == "__main__":
    print(json.dumps(probe(sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4])))
