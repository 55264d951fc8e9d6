"""Isolation of bot processes: what a bot may see, touch, keep and use.

Two levels (:class:`Isolation`):

- ``sandbox`` (the default of every command): each bot process runs with new user,
  PID, network, IPC, UTS, cgroup and mount namespaces, built by Debian's
  ``bubblewrap`` or, for Python bots, by the zygote (:mod:`arena.host.zygote`), both
  from one plan (:func:`sandbox_layout`); it sees a read-only view of its own folder
  and of the runtime it needs (``/usr``, the Python environment and the Arena SDK, a
  few files of ``/etc``), a read-only ``/proc``, private size-capped tmpfs at ``/tmp``
  and ``/dev/shm``, and a tiny one at ``/run/arena`` for its gRPC socket, which the
  host reaches through ``/proc/<pid>/root`` (no host folder is writable from inside).
  No network, no view of other processes, an environment with only what its manifest
  declares plus Arena's own variables, a session keyring of its own, no capabilities.
  Its process tree is limited by cgroups (memory, processes, CPU) where the host
  can create them (:mod:`arena.host.cgroups`), by rlimits otherwise, and frozen
  between its decisions so it cannot steal CPU from a thinking opponent.
- ``none``: the bot runs as a plain child process of the host, for trusted
  local runs (the host's environment minus Arena's own variables).

This module only builds the plan and bubblewrap's command lines and checks that the
sandbox can work; :mod:`arena.host.process` starts the processes.
"""

from __future__ import annotations

import enum
import functools
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

#: Where the bot's socket directory appears inside the sandbox.
SANDBOX_RUN_DIR = "/run/arena"
SOCKET_NAME = "bot.sock"
#: The size of the tmpfs that holds the socket (a socket takes no room; this caps misuse).
_RUN_DIR_BYTES = 1 << 20

#: Files of /etc a runtime may need (dynamic linker, time zone, user names): no secrets.
_ETC_FILES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "alternatives", "passwd", "group",
              "nsswitch.conf", "os-release", "mime.types")

#: Top-level folders that hold programs and libraries (symlinks on merged-/usr systems).
_SYSTEM_DIRS = ("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32")

#: Environment variables of the host that a bot never inherits (even unsandboxed).
_HOST_ONLY_PREFIXES = ("ARENA_",)


class Isolation(enum.Enum):
    """How bot processes are isolated; see the module docstring."""

    SANDBOX = "sandbox"
    NONE = "none"


class SandboxUnavailable(RuntimeError):
    """The sandbox cannot work on this machine; the message says why and how to fix it."""


@dataclass(frozen=True)
class Limits:
    """Per bot process tree.  Going over memory is an ``out_of_memory`` fault."""

    memory_mb: int = 1024
    pids: int = 128
    cpus: float = 1.0
    file_mb: int = 64  # the largest file it may write (its tmpfs is smaller anyway)
    tmp_mb: int = 64  # its private /tmp
    log_mb: int = 10  # its stdout + stderr kept in the host's log, per process

    def __post_init__(self) -> None:
        for name in ("memory_mb", "pids", "file_mb", "tmp_mb", "log_mb"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"limit {name} must be a positive whole number, got {value!r}")
        if not 0.01 <= self.cpus <= 64:
            raise ValueError(f"limit cpus must be between 0.01 and 64, got {self.cpus!r}")

    def to_json(self) -> dict[str, Any]:
        return {"memory_mb": self.memory_mb, "pids": self.pids, "cpus": self.cpus, "file_mb": self.file_mb,
                "tmp_mb": self.tmp_mb, "log_mb": self.log_mb}

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> "Limits":
        data = dict(data or {})
        known = {k: data[k] for k in cls().to_json() if k in data}
        return cls(**known)


@dataclass(frozen=True)
class IsolationPolicy:
    """An isolation level and its limits.  A sandboxed bot gets a fresh process per seat of every
    match (nothing it learns survives the match); an unsandboxed one is reused across matches."""

    level: Isolation = Isolation.NONE
    limits: Limits = field(default_factory=Limits)

    @property
    def sandboxed(self) -> bool:
        return self.level is Isolation.SANDBOX

    @property
    def fresh_processes(self) -> bool:
        return self.level is Isolation.SANDBOX

    @classmethod
    def sandbox(cls, limits: Limits | None = None) -> "IsolationPolicy":
        return cls(Isolation.SANDBOX, limits or Limits())

    @classmethod
    def none(cls) -> "IsolationPolicy":
        return cls(Isolation.NONE)


def host_environment() -> dict[str, str]:
    """The environment an unsandboxed bot inherits: the host's, minus Arena's own variables
    (``ARENA_DB`` and friends name the store)."""
    return {k: v for k, v in os.environ.items() if not k.startswith(_HOST_ONLY_PREFIXES)}


def sandbox_environment(declared: Sequence[tuple[str, str]], arena: Mapping[str, str]) -> dict[str, str]:
    """A sandboxed bot's whole environment: a neutral base, what its manifest declares, Arena's variables."""
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8",
           "PYTHONDONTWRITEBYTECODE": "1"}
    env.update(dict(declared))
    env.update(arena)
    return env


# For a manifest that only takes ``{port}`` (the protocol's first form): inside the sandbox,
# a relay runs beside the bot, and dies with it.  It waits for the bot to listen: on the
# socket itself (the SDK and the samples follow ARENA_BOT_ADDRESS even when given a port),
# then the relay just exits; or on its TCP port on the sandbox's own loopback, then the
# relay forwards the host's connections on the socket to it.  RELAY_LOOP defines
# ``relay(port, path)``; under bubblewrap it runs in a process forked before the bot's
# command is exec'd (_RELAY), in the zygote's sandboxes in one forked beside the bot.
RELAY_LOOP = """
import os, socket, threading, time
def relay(port, path):
    while True:
        if os.path.exists(path):
            return
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.05).close()
            break
        except OSError:
            time.sleep(0.005)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        server.bind(path)
    except OSError:
        return
    server.listen(64)
    def pump(src, dst):
        try:
            while True:
                data = src.recv(262144)
                if not data:
                    break
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
    while True:
        client, _ = server.accept()
        try:
            upstream = socket.create_connection(("127.0.0.1", port))
        except OSError:
            client.close()
            continue
        upstream.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for a, b in ((client, upstream), (upstream, client)):
            threading.Thread(target=pump, args=(a, b), daemon=True).start()
"""

_RELAY = RELAY_LOOP + """
import ctypes, signal, sys
port, path, command = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
bot = os.getpid()
if os.fork():
    try:
        os.execvp(command[0], command)
    except OSError as exc:
        sys.stderr.write(f"arena: cannot run {command[0]!r}: {exc}\\n")
        os._exit(127)
ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)
if os.getppid() != bot:
    os._exit(0)
os.setsid()
relay(port, path)
os._exit(0)
"""


def relay_command(port: int, command: Sequence[str]) -> list[str]:
    """``command`` behind a relay from the sandbox's socket to ``127.0.0.1:port`` inside it."""
    return [sys.executable, "-I", "-S", "-c", _RELAY, str(port), f"{SANDBOX_RUN_DIR}/{SOCKET_NAME}", *command]


def _python_runtime() -> list[Path]:
    """The folders the host's Python needs inside a sandbox: the environment, its base
    installation, and the folder holding the ``arena`` package (the SDK), wherever it is."""
    import arena

    paths = [Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable).resolve().parent.parent,
             Path(arena.__file__).resolve().parent]
    return paths


def _program_prefix(program: str) -> Path | None:
    """The installation folder of a program outside /usr (e.g. ``~/.nvm/versions/node/v20``)."""
    return _cached_prefix(program, os.environ.get("PATH"))


@functools.lru_cache(maxsize=64)
def _cached_prefix(program: str, path: str | None) -> Path | None:
    """:func:`_program_prefix`, worked out once per program and PATH (every bot start asks; the
    symlinks it resolves cost about half a millisecond)."""
    found = shutil.which(program, path=path) if os.sep not in program else program
    if not found:
        return None
    real = Path(found).resolve()
    if real.parts[1:2] and real.parts[1] in _SYSTEM_DIRS:
        return None
    return real.parent.parent if real.parent.name == "bin" else real.parent


def _dedupe(paths: Sequence[Path]) -> list[Path]:
    """Paths with those inside another dropped, in a stable order."""
    unique: list[Path] = []
    for path in sorted({p for p in paths}, key=lambda p: len(p.parts)):
        if not any(path == u or u in path.parents for u in unique):
            unique.append(path)
    return unique


@dataclass(frozen=True)
class MountOp:
    """One step of building a sandbox's file system, in order (bubblewrap's options of the same name).

    ``kind``: ``symlink`` (``source`` is the link's target), ``ro-bind`` / ``ro-bind-try`` (a
    host path, read-only, recursively; ``-try``: skipped when missing), ``proc``, ``dev``
    (a minimal /dev), ``tmpfs`` (``size`` bytes), ``dir``, ``remount-ro``.
    """

    kind: str
    dest: str
    source: str = ""
    size: int = 0

    def to_json(self) -> list[Any]:
        return [self.kind, self.dest, self.source, self.size]


#: Where the writable tmpfs of a sandbox are (everything else in it is read-only).
WRITABLE_DIRS = ("/tmp", "/dev/shm", SANDBOX_RUN_DIR)


def sandbox_layout(working_dir: Path, limits: Limits, extra_ro: Sequence[Path] = ()) -> tuple[MountOp, ...]:
    """The sandbox's file system, step by step: the one plan that both bubblewrap
    (:func:`bwrap_command`) and the zygote's sandboxes (:mod:`arena.host.namespaces`) build.
    (Worked out once per bot and limits: it looks at the host's system folders and runtime.)"""
    return _layout(working_dir, limits, tuple(extra_ro))


@functools.lru_cache(maxsize=256)
def _layout(working_dir: Path, limits: Limits, extra_ro: tuple[Path, ...]) -> tuple[MountOp, ...]:
    ops: list[MountOp] = []
    for name in _SYSTEM_DIRS:
        host = Path("/") / name
        if host.is_symlink():
            ops.append(MountOp("symlink", str(host), os.readlink(host)))
        elif host.is_dir():
            ops.append(MountOp("ro-bind", str(host), str(host)))
    for name in _ETC_FILES:
        ops.append(MountOp("ro-bind-try", f"/etc/{name}", f"/etc/{name}"))
    # /proc read-only as a whole: the bot runs as the host's user, and when that is root its
    # uid owns /proc/sys, whose global settings (kernel.core_pattern: a program the kernel
    # runs as root) it could otherwise write even without capabilities.
    # Writable: /tmp, /dev/shm (POSIX shared memory) and /run/arena (the socket), each a
    # small tmpfs of its own, charged to the bot's memory; everything else is read-only,
    # the sandbox's own root included.  No host folder is writable.  They are mounted
    # before the runtime and the bot's folder, which may live below /tmp on the host.
    ops += [MountOp("proc", "/proc"), MountOp("remount-ro", "/proc"), MountOp("dev", "/dev"),
            MountOp("tmpfs", "/tmp", size=limits.tmp_mb << 20), MountOp("tmpfs", "/dev/shm", size=limits.tmp_mb << 20),
            MountOp("dir", "/run"), MountOp("tmpfs", SANDBOX_RUN_DIR, size=_RUN_DIR_BYTES)]
    runtime = _dedupe([*_python_runtime(), *extra_ro])
    for path in runtime:
        if path.parts[1:2] and path.parts[1] in _SYSTEM_DIRS:
            continue
        ops.append(MountOp("ro-bind-try", str(path), str(path)))
    ops += [MountOp("ro-bind", str(working_dir), str(working_dir)),
            MountOp("remount-ro", "/dev"), MountOp("remount-ro", "/")]
    return tuple(ops)


#: The namespaces and process settings of every sandbox (bubblewrap's spelling).
BWRAP_FLAGS = ("--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session",
               "--cap-drop", "ALL")
SANDBOX_HOSTNAME = "arena-bot"


def bwrap_command(command: Sequence[str], *, working_dir: Path, env: Mapping[str, str],
                  limits: Limits, extra_ro: Sequence[Path] = ()) -> list[str]:
    """The ``bwrap`` command line that runs ``command`` in a sandbox (see the module docstring)."""
    args = ["bwrap", *BWRAP_FLAGS, "--hostname", SANDBOX_HOSTNAME, "--clearenv"]
    for key, value in env.items():
        args += ["--setenv", key, value]
    for op in sandbox_layout(working_dir, limits, extra_ro):
        if op.kind == "symlink":
            args += ["--symlink", op.source, op.dest]
        elif op.kind in ("ro-bind", "ro-bind-try"):
            args += [f"--{op.kind}", op.source, op.dest]
        elif op.kind == "tmpfs":
            args += ["--size", str(op.size), "--tmpfs", op.dest]
        else:  # proc, dev, dir, remount-ro
            args += [f"--{op.kind}", op.dest]
    args += ["--chdir", str(working_dir), "--", *command]
    return args


def runtime_for(command: Sequence[str]) -> list[Path]:
    """Extra read-only folders for the command's program when it lives outside /usr."""
    prefix = _program_prefix(command[0]) if command else None
    return [prefix] if prefix is not None else []


@functools.lru_cache(maxsize=1)
def _probe() -> str | None:
    """None when a sandbox can be made here, else why not (cached: asked once per process)."""
    if not sys.platform.startswith("linux"):
        return f"the sandbox needs Linux namespaces; this is {sys.platform}"
    if shutil.which("bwrap") is None:
        return ("bubblewrap is not installed (Debian/Ubuntu: 'apt-get install bubblewrap'; scripts/demo and "
                "scripts/test install it when run as root)")
    probe = ["bwrap", "--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--cap-drop", "ALL",
             "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "--", "true"]
    try:
        done = subprocess.run(probe, stdin=subprocess.DEVNULL, capture_output=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap could not run: {exc}"
    if done.returncode != 0:
        text = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return (f"bubblewrap cannot create namespaces here ({text[-1] if text else f'status {done.returncode}'}); "
                "user namespaces may be disabled (sysctl kernel.unprivileged_userns_clone=1, or "
                "user.max_user_namespaces > 0)")
    return None


def require_sandbox() -> None:
    """Raise :class:`SandboxUnavailable` (one line: why, and how to fix it) if bots cannot be sandboxed."""
    reason = _probe()
    if reason is not None:
        raise SandboxUnavailable(f"cannot sandbox bots: {reason}. To run trusted bots without a sandbox, pass "
                                 "--isolation none")


def sandbox_available() -> bool:
    return _probe() is None


def sandbox_unavailable_reason() -> str:
    """Why bots cannot be sandboxed here ("" when they can)."""
    return _probe() or ""
