"""Hostile test bot: tries to reach another process of the same bot, started for another seat
of the same match (at the same time) or for a later match (one after the other), by every
channel two processes on one machine could share.

Every process has a random token.  At StartMatch it looks for what another process left
(``find``), then leaves its own (``leave``); at EndMatch it looks again (by then a process
started at the same time has left its things too):

- ``file /tmp`` / ``file /dev/shm`` / ``file /run/arena``: a file ``arena-sibling-<token>``;
  found: one with another token;
- ``abstract``: an abstract Unix socket with a fixed name (``$SIBLING_NAME``), connected to
  first, else bound and listened on; found: the connection worked, or the name was taken;
- ``tcp``: the same on ``127.0.0.1:$SIBLING_PORT``;
- ``sysv-msg`` / ``sysv-shm`` / ``sysv-sem``: a System V message queue, shared memory
  segment and semaphore set created with key ``$SIBLING_KEY`` (+0, +1, +2) exclusively;
  found: the key was taken;
- ``posix-mq``: a POSIX message queue ``/$SIBLING_NAME`` created exclusively (POSIX shared
  memory and semaphores are files in /dev/shm, above);
- ``key session`` / ``key user``: a key ``$SIBLING_NAME-<token>`` in its session and user
  keyrings; found: a key with another token;
- ``signal``: with ``SIBLING_SIGNAL=1`` (sandboxed runs only: unsandboxed it would reach
  every process of the user), SIGUSR1 to every process it may signal (``kill(-1)``); found:
  a SIGUSR1 received;
- with ``SIBLING_TARGETS=1``, for every host pid in ``targets.json`` (the other seat's
  processes, written by the test): ``kill <pid>`` (signal 0), ``ptrace <pid>``
  (PTRACE_ATTACH) and ``proc <pid>`` (``/proc/<pid>`` exists); found: any worked.

Before it serves, ``fds -`` lists the file descriptors it was started with.
``$SIBLING_BOT`` names it (two copies under two names are two processes unsandboxed).
``PROBE find <channel> OK`` means the bot reached another process (a hole in the sandbox);
``PROBE leave <channel> OK`` that it could leave something (its own sandbox: expected).
It plays random legal actions.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import glob
import json
import os
import platform
import signal
import socket
import sys
import time
import uuid

from arena.sdk import Bot, serve

TOKEN = uuid.uuid4().hex
NAME = os.environ.get("SIBLING_NAME", "arena-sibling")
PORT = int(os.environ.get("SIBLING_PORT", "47123"))
KEY = int(os.environ.get("SIBLING_KEY", "1095061843"))
FOLDERS = ("/tmp", "/dev/shm", "/run/arena")
IPC_CREAT, IPC_EXCL = 0o1000, 0o2000
_KEYCTL = {"x86_64": (248, 250), "aarch64": (217, 219)}.get(platform.machine())
KEY_SPEC = {"session": -3, "user": -4}
KEYCTL_DESCRIBE, KEYCTL_READ = 6, 11

libc = ctypes.CDLL(None, use_errno=True)
librt = ctypes.CDLL(ctypes.util.find_library("rt") or None, use_errno=True)
libc.syscall.restype = ctypes.c_long
SIGNALS: list[int] = []
KEEP: list[object] = []  # listeners, kept open for the whole life of the process


def probe(kind: str, target: object, ok: bool, detail: object = "") -> None:
    text = " ".join(str(detail).split())
    print(f"PROBE {kind} {target} {'OK' if ok else 'DENIED'} {text}".rstrip(), file=sys.stderr, flush=True)


def error() -> str:
    number = ctypes.get_errno()
    return f"{errno.errorcode.get(number, number)}: {os.strerror(number)}"


# -- files ---------------------------------------------------------------------------------------


def find_files(when: str) -> None:
    for folder in FOLDERS:
        others = [p for p in glob.glob(f"{folder}/arena-sibling-*") if not p.endswith(TOKEN)]
        probe("find", f"file:{folder}", bool(others), f"{when}: {others[:3]}")


def leave_files() -> None:
    for folder in FOLDERS:
        path = f"{folder}/arena-sibling-{TOKEN}"
        try:
            with open(path, "w") as f:
                f.write(TOKEN)
            probe("leave", f"file:{folder}", True, path)
        except OSError as exc:
            probe("leave", f"file:{folder}", False, f"{type(exc).__name__}: {exc}")


# -- sockets -------------------------------------------------------------------------------------


def meet(channel: str, family: int, address: object) -> None:
    """Connect to the fixed address (found: another process listens), else listen on it
    (found: the address is taken)."""
    client = socket.socket(family, socket.SOCK_STREAM)
    client.settimeout(0.5)
    try:
        client.connect(address)
        probe("find", channel, True, "connected")
        return
    except OSError as exc:
        first = f"connect: {type(exc).__name__}: {exc}"
    finally:
        client.close()
    server = socket.socket(family, socket.SOCK_STREAM)
    try:
        server.bind(address)
        server.listen(8)
        KEEP.append(server)
        probe("find", channel, False, first)
        probe("leave", channel, True, "listening")
    except OSError as exc:
        server.close()
        probe("find", channel, exc.errno == errno.EADDRINUSE, f"{first}; bind: {type(exc).__name__}: {exc}")
        probe("leave", channel, False, f"bind: {type(exc).__name__}: {exc}")


# -- System V and POSIX IPC --------------------------------------------------------------------


def meet_ipc() -> None:
    for channel, make in (("sysv-msg", lambda: libc.msgget(KEY, IPC_CREAT | IPC_EXCL | 0o600)),
                          ("sysv-shm", lambda: libc.shmget(KEY + 1, ctypes.c_size_t(4096), IPC_CREAT | IPC_EXCL | 0o600)),
                          ("sysv-sem", lambda: libc.semget(KEY + 2, 1, IPC_CREAT | IPC_EXCL | 0o600))):
        result = make()
        taken = result < 0 and ctypes.get_errno() == errno.EEXIST
        detail = error() if result < 0 else f"created id {result}"
        probe("find", channel, taken, detail)
        probe("leave", channel, result >= 0, detail)
    librt.mq_open.restype = ctypes.c_int
    fd = librt.mq_open(f"/{NAME}".encode(), os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600, None)
    detail = error() if fd < 0 else f"created mqd {fd}"
    probe("find", "posix-mq", fd < 0 and ctypes.get_errno() == errno.EEXIST, detail)
    probe("leave", "posix-mq", fd >= 0, detail)


# -- keyrings ------------------------------------------------------------------------------------


def keyctl(*args: object) -> int:
    assert _KEYCTL is not None
    return libc.syscall(ctypes.c_long(_KEYCTL[1]), *[ctypes.c_long(a) if isinstance(a, int) else a for a in args])


def key_names(ring: str) -> list[str]:
    """The descriptions of the keys in a keyring (read and view are all its owner needs)."""
    serials = (ctypes.c_int32 * 256)()
    size = keyctl(KEYCTL_READ, KEY_SPEC[ring], serials, ctypes.sizeof(serials))
    names = []
    for serial in serials[:max(size, 0) // 4]:
        buffer = ctypes.create_string_buffer(512)
        if keyctl(KEYCTL_DESCRIBE, serial, buffer, 512) > 0:
            names.append(buffer.value.decode(errors="replace").rsplit(";", 1)[-1])
    return names


def find_keys(when: str) -> None:
    if _KEYCTL is None:
        return
    for ring in KEY_SPEC:
        others = [n for n in key_names(ring) if n.startswith(f"{NAME}-") and n != f"{NAME}-{TOKEN}"]
        probe("find", f"key:{ring}", bool(others), f"{when}: {others[:3]}")


def leave_keys() -> None:
    if _KEYCTL is None:
        return
    for ring, spec in KEY_SPEC.items():
        payload = TOKEN.encode()
        serial = libc.syscall(ctypes.c_long(_KEYCTL[0]), b"user", f"{NAME}-{TOKEN}".encode(), payload,
                              ctypes.c_long(len(payload)), ctypes.c_long(spec))
        probe("leave", f"key:{ring}", serial >= 0, error() if serial < 0 else f"key {serial}")


# -- processes -----------------------------------------------------------------------------------


def targets(wait_s: float = 4.0) -> dict:
    path = os.path.join(os.getcwd(), "targets.json")
    deadline = time.monotonic() + wait_s
    while True:
        try:
            with open(path) as f:
                return json.load(f)
        except (OSError, ValueError):
            if time.monotonic() > deadline:
                probe("targets", path, False, "never written")
                return {}
            time.sleep(0.01)


def reach(pids: list[int]) -> None:
    libc.ptrace.restype = ctypes.c_long
    for pid in pids:
        try:
            os.kill(pid, 0)
            probe("find", f"kill:{pid}", True, "signal 0 delivered")
        except OSError as exc:
            probe("find", f"kill:{pid}", False, f"{type(exc).__name__}: {exc}")
        result = libc.ptrace(ctypes.c_long(16), ctypes.c_long(pid), None, None)  # PTRACE_ATTACH
        probe("find", f"ptrace:{pid}", result == 0, error() if result != 0 else "attached")
        if result == 0:
            libc.ptrace(ctypes.c_long(17), ctypes.c_long(pid), None, None)  # PTRACE_DETACH
        probe("find", f"proc:{pid}", os.path.exists(f"/proc/{pid}"), "")


class Sibling(Bot):
    name = os.environ.get("SIBLING_BOT", "hostile-sibling")
    version = "1.0.0"
    author = "tests"

    started = False

    def start_match(self, match) -> None:
        if self.started:  # once per process (a fresh process plays one match)
            return
        self.started = True
        probe("process", TOKEN, True, f"pid={os.getpid()}")
        find_files("start")
        find_keys("start")
        leave_files()
        leave_keys()
        meet("abstract", socket.AF_UNIX, "\0" + NAME)
        meet("tcp", socket.AF_INET, ("127.0.0.1", PORT))
        meet_ipc()
        if os.environ.get("SIBLING_SIGNAL") == "1":
            try:
                os.kill(-1, signal.SIGUSR1)
            except OSError:
                pass
        if os.environ.get("SIBLING_TARGETS") == "1":
            reach([pid for pid in targets().get("pids", []) if pid > 10])

    def end_match(self, result) -> None:
        time.sleep(0.2)  # a process started at the same time has left its things by now
        find_files("end")
        find_keys("end")
        if os.environ.get("SIBLING_SIGNAL") == "1":
            probe("find", "signal", bool(SIGNALS), f"{len(SIGNALS)} SIGUSR1 received")
        probe("done", TOKEN, True)

    def decide(self, observation: dict, legal_actions) -> int:
        return self.match.rng.randrange(len(legal_actions))


if __name__ == "__main__":
    # What it was started with: any file descriptor beyond stdin, stdout and stderr would be a
    # channel it inherited (to whatever started it, or to another process).
    inherited = sorted(int(fd) for fd in os.listdir("/proc/self/fd"))
    probe("fds", "-", True, " ".join(map(str, inherited)))
    signal.signal(signal.SIGUSR1, lambda *_: SIGNALS.append(1))  # in the main thread, before serving
    serve(Sibling())
