"""Bot processes: start one from its manifest (sandboxed or not), wait until it is ready, stop its whole tree.

No orphans, ever:

- every bot runs in its own session and process group; its stdin is a pipe the
  host keeps open and never writes: when the host dies, the bot reads EOF and
  must exit;
- it is started by a tiny launcher that asks for ``PR_SET_PDEATHSIG = SIGKILL``
  (the signal fires when the *thread* that started it exits, so every bot is
  started by one long-lived spawner thread, never by a match's worker thread),
  joins the bot's cgroups, sets its rlimits and then execs the command;
- sandboxed (:mod:`arena.host.sandbox`), the command is ``bwrap`` with
  ``--die-with-parent`` and a PID namespace: when bwrap dies, the kernel kills
  every process of the sandbox, double forks and new sessions included; its
  cgroup is killed as a whole when it stops (:mod:`arena.host.cgroups`);
- a sandboxed Python bot (``python SCRIPT ...``) is instead forked by the zygote
  (:mod:`arena.host.zygote`), which dies with the host, and each sandbox with it:
  the same namespaces, mounts, limits and cgroup, a few milliseconds instead of a
  new interpreter.

A bot's stdout and stderr go through a pipe to its log file, capped at the
limit's ``log_mb`` per process (the log says how much was dropped).

:class:`arena.host.pool.BotPool` decides which processes serve which matches.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import signal
import stat
import socket
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import IO, Any, Callable

from arena.host.cgroups import BotCgroup, open_cgroups
from arena.host.client import MAX_MESSAGE_BYTES, BotConnection, BotNotReadyError
from arena.host.manifest import BotManifest
from arena.host.namespaces import SYS_KEYCTL
from arena.host.sandbox import (SANDBOX_HOSTNAME, SANDBOX_RUN_DIR, SOCKET_NAME, IsolationPolicy, bwrap_command,
                                host_environment, relay_command, require_sandbox, runtime_for, sandbox_environment,
                                sandbox_layout)
from arena.host.zygote import ReadyPipe, SandboxProcess, ZygoteUnavailable, get_zygote
from arena.host.zygote import config_for as zygote_config
from arena.host.zygote import eligible as zygote_eligible
from arena.host.zygote import enabled as zygote_enabled
from arena.protocol import PROTOCOL_VERSION
from arena.v1 import bot_pb2

_STDERR_TAIL_LINES = 20

#: The port a ``{port}``-only manifest gets inside its sandbox (its own network namespace).
_SANDBOX_PORT = 50051

#: A command starting with one of these runs on the host's own interpreter (the one
#: that has arena and grpcio installed), whatever ``python`` means on PATH.
PYTHON_NAMES = ("python", "python3")

# The bot's command runs under this launcher: it asks for SIGKILL when its parent (the
# host's spawner thread) dies, checks the host is still there, joins the bot's cgroups,
# sets rlimits, then execs the command (the signal request survives exec).  A launcher,
# not a preexec_fn: forking a process that runs gRPC threads is unsafe (gRPC's fork
# handlers), while subprocess's vfork path, used when there is no preexec_fn, runs none.
_LAUNCHER = """
import ctypes, json, os, resource, signal, sys
config = json.loads(sys.argv[1])
if sys.platform.startswith("linux"):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
if os.getppid() != config["ppid"]:
    os._exit(70)
if config.get("keyctl") and libc.syscall(ctypes.c_long(config["keyctl"]), ctypes.c_long(1), None) < 0:
    sys.stderr.write("arena: cannot join a new session keyring\\n")  # KEYCTL_JOIN_SESSION_KEYRING
    os._exit(127)
try:
    for path in config["cgroups"]:
        with open(path, "w") as f:
            f.write(str(os.getpid()))
    for name, value in config["rlimits"]:
        resource.setrlimit(getattr(resource, name), (value, value))
    os.execvp(sys.argv[2], sys.argv[2:])
except OSError as exc:
    sys.stderr.write(f"arena: cannot run {sys.argv[2]!r}: {exc}\\n")
    os._exit(127)
"""


def keyctl_number() -> int | None:
    """The keyctl system call's number here (it has no glibc wrapper), None if unknown."""
    return SYS_KEYCTL.get(platform.machine())


class BotStartError(RuntimeError):
    """A bot could not be started or never became ready; the message quotes its stderr."""


def launcher_command(command: list[str], *, cgroups: list[str] = (),  # type: ignore[assignment]
                     rlimits: list[tuple[str, int]] = (),  # type: ignore[assignment]
                     new_keyring: bool = False) -> list[str]:
    """``command`` wrapped in the launcher (run by this very Python, isolated, no site).

    ``new_keyring``: join a new, empty session keyring first (a sandbox's: one inherited
    from the host would be shared by every sandbox, a channel between them)."""
    config = json.dumps({"ppid": os.getpid(), "cgroups": list(cgroups), "rlimits": [list(r) for r in rlimits],
                         "keyctl": keyctl_number() if new_keyring else None})
    return [sys.executable, "-I", "-S", "-c", _LAUNCHER, config, *command]


def _find_program(program: str, working_dir: Path, env: dict[str, str]) -> str | None:
    """The program's path as exec would find it from ``working_dir``, or None."""
    if os.sep in program:
        path = working_dir / program
        return str(path) if path.is_file() and os.access(path, os.X_OK) else None
    return shutil.which(program, path=env.get("PATH", os.defpath))


_spawner_lock = threading.Lock()
_spawner: ThreadPoolExecutor | None = None


def _in_spawner_thread(fn: Callable[[], Any]) -> Any:
    """Run ``fn`` on the one long-lived thread that forks bots (its workers never exit while idle)."""
    global _spawner
    with _spawner_lock:
        if _spawner is None:
            _spawner = ThreadPoolExecutor(max_workers=1, thread_name_prefix="arena-bot-spawner")
    return _spawner.submit(fn).result()


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LogPump:
    """Copies a bot's output pipe into its log file, up to ``cap`` bytes; counts the rest."""

    def __init__(self, pipe: IO[bytes], log_path: Path, cap: int) -> None:
        self.pipe = pipe
        self.log_path = log_path
        self.cap = cap
        self.written = 0
        self.dropped = 0
        self._thread = threading.Thread(target=self._run, name="arena-bot-log", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        with open(self.log_path, "ab") as log:
            while True:
                try:
                    chunk = self.pipe.read1(65536)  # type: ignore[attr-defined]
                except (OSError, ValueError):
                    break
                if not chunk:
                    break
                room = self.cap - self.written
                if room > 0:
                    log.write(chunk[:room])
                    log.flush()
                    self.written += min(room, len(chunk))
                self.dropped += max(0, len(chunk) - max(room, 0))
            if self.dropped:
                log.write(f"\n--- arena: {self.dropped} more bytes of output dropped (the log keeps "
                          f"{self.cap >> 20} MB per process) ---\n".encode())
        try:
            self.pipe.close()
        except OSError:
            pass

    def join(self, timeout: float) -> None:
        self._thread.join(timeout)


class FreezeGate:
    """Thaws a bot's cgroup while the host waits on it, freezes it otherwise (nested calls counted)."""

    def __init__(self, cgroup: BotCgroup) -> None:
        self.cgroup = cgroup
        self._active = 0
        self._lock = threading.Lock()

    def enter(self) -> None:
        with self._lock:
            self._active += 1
            if self._active == 1:
                self.cgroup.thaw()

    def leave(self) -> None:
        with self._lock:
            self._active -= 1
            if self._active == 0:
                self.cgroup.freeze()


class BotProcess:
    """One running bot program: its OS process (a group leader), address, cgroup and stderr log."""

    def __init__(self, popen: "subprocess.Popen[bytes] | SandboxProcess", manifest: BotManifest, address: str, log_path: Path,
                 log_offset: int, *, policy: IsolationPolicy, pump: LogPump, cgroup: BotCgroup | None = None,
                 port: int | None = None) -> None:
        self.popen = popen
        self.manifest = manifest
        self.address = address
        self.port = port
        self.log_path = log_path
        self.policy = policy
        self.cgroup = cgroup
        #: ``/proc/<pid>/root`` of the sandbox's first process (sandboxed bots only).
        self.sandbox_root: Path | None = None
        #: The host pid of the sandbox's first process (its pid 1: bubblewrap's, or the zygote's init).
        self.sandbox_init: int | None = None
        self.pump = pump
        self.gate = FreezeGate(cgroup) if policy.sandboxed and cgroup is not None and cgroup.can_freeze() else None
        self._log_offset = log_offset
        self._stop_lock = threading.Lock()
        self.stopped_how: str | None = None
        self.oom_kills = 0
        self._socket_fd: int | None = None
        self._ready: ReadyPipe | None = None

    @classmethod
    def spawn(cls, manifest: BotManifest, *, log_path: Path, policy: IsolationPolicy | None = None,
              port: int | None = None) -> "BotProcess":
        """Start the manifest's command (without waiting for readiness); BotStartError if it cannot run."""
        policy = policy if policy is not None else IsolationPolicy.none()
        if policy.sandboxed:
            return cls._spawn_sandboxed(manifest, log_path=log_path, policy=policy)
        port = free_port() if port is None else port
        address = f"127.0.0.1:{port}"
        command = manifest.command_for(port=port, address=address)
        if command[0] in PYTHON_NAMES:
            command[0] = sys.executable
        env = {**host_environment(), "ARENA_BOT_PORT": str(port), "ARENA_BOT_ADDRESS": address,
               **dict(manifest.env)}
        if _find_program(command[0], manifest.working_dir, env) is None:
            raise BotStartError(f"bot {manifest.name!r} ({manifest.path}): cannot start it: program "
                                f"{command[0]!r} not found (working dir {manifest.working_dir}, PATH "
                                f"{env.get('PATH', '')})")
        # No limits and no freezing for trusted bots, but a cgroup where there can be one, so
        # that whatever the bot starts (new sessions, double forks) is stopped with it.
        cgroups = open_cgroups()
        cgroup: BotCgroup | None = None
        if cgroups is not None:
            try:
                cgroup = cgroups.create(None)
            except OSError:
                cgroup = None
        try:
            return cls._launch(manifest, command, env, log_path=log_path, policy=policy, address=address,
                               port=port, describe_where=f"port {port}", cgroup=cgroup)
        except BaseException:
            if cgroup is not None:
                cgroup.remove(0.5)
            raise

    @classmethod
    def _spawn_sandboxed(cls, manifest: BotManifest, *, log_path: Path, policy: IsolationPolicy) -> "BotProcess":
        require_sandbox()
        inside = f"unix:{SANDBOX_RUN_DIR}/{SOCKET_NAME}"
        # A {port}-only manifest (the protocol's first form) gets a port on the sandbox's own
        # loopback, where nothing outside can reach it; ARENA_BOT_ADDRESS still names the
        # socket.  A relay in the sandbox forwards the socket to the port if the bot listens
        # there rather than on the socket (see arena.host.sandbox).
        relay = manifest.uses_port and not manifest.uses_address
        port = _SANDBOX_PORT if relay else None
        command = manifest.command_for(port=port, address=inside)
        if command[0] in PYTHON_NAMES:
            command[0] = sys.executable
        elif os.sep not in command[0]:
            # Found on the host's PATH; inside, its folder is bound read-only at the same place.
            command[0] = shutil.which(command[0]) or command[0]
        arena_env = {"ARENA_BOT_ADDRESS": inside}
        if port is not None:
            arena_env["ARENA_BOT_PORT"] = str(port)
        env = sandbox_environment(manifest.env, arena_env)
        if _find_program(command[0], manifest.working_dir, dict(os.environ)) is None:
            raise BotStartError(f"bot {manifest.name!r} ({manifest.path}): cannot start it: program "
                                f"{command[0]!r} not found (working dir {manifest.working_dir})")
        limits = policy.limits
        cgroups = open_cgroups()
        cgroup: BotCgroup | None = None
        if cgroups is not None:
            try:
                cgroup = cgroups.create(limits)
            except OSError as exc:
                raise BotStartError(f"bot {manifest.name!r}: cannot create its cgroup: {exc}") from None
        enforced = cgroups.enforced if cgroups is not None else frozenset()
        rlimits = [("RLIMIT_FSIZE", limits.file_mb << 20), ("RLIMIT_CORE", 0)]
        if "memory" not in enforced:
            rlimits.append(("RLIMIT_DATA", limits.memory_mb << 20))  # per process; never RLIMIT_AS
        shown = command
        zygote = None
        if zygote_eligible(manifest) and zygote_enabled():
            try:
                zygote = get_zygote(_in_spawner_thread)
            except ZygoteUnavailable:
                zygote = None  # bubblewrap, then: slower to start, as safe
        try:
            if zygote is not None:
                config = zygote_config(
                    manifest, argv=command[1:], env=env, cgroups=cgroup.procs_files if cgroup else [], rlimits=rlimits,
                    layout=sandbox_layout(manifest.working_dir, limits, runtime_for(command)),
                    hostname=SANDBOX_HOSTNAME, socket_path=f"{SANDBOX_RUN_DIR}/{SOCKET_NAME}",
                    relay=(port, f"{SANDBOX_RUN_DIR}/{SOCKET_NAME}") if port is not None else None)
                process = cls._launch_logged(manifest, lambda: zygote.spawn(config), log_path=log_path,
                                             policy=policy, port=port, cgroup=cgroup, describe_where="sandbox, zygote",
                                             shown=shown)
            else:
                inner = relay_command(port, command) if port is not None else command
                wrapped = bwrap_command(inner, working_dir=manifest.working_dir, env=env, limits=limits,
                                        extra_ro=runtime_for(command))
                # bubblewrap itself gets nothing of the host's environment either: its first process
                # stays in the sandbox (pid 1 there), where the bot can read /proc/1/environ.
                bwrap_env = {"PATH": "/usr/bin:/bin"}
                wrapped[0] = shutil.which("bwrap") or wrapped[0]
                process = cls._launch(manifest, wrapped, bwrap_env, log_path=log_path, policy=policy, address="",
                                      port=port, cgroup=cgroup, rlimits=rlimits, describe_where="sandbox",
                                      shown=shown, new_keyring=True)
        except ZygoteUnavailable as exc:
            if cgroup is not None:
                cgroup.remove(0.5)
            raise BotStartError(f"bot {manifest.name!r} ({manifest.path}): cannot start it: {exc}") from None
        except BaseException:
            if cgroup is not None:
                cgroup.remove(0.5)
            raise
        try:
            if isinstance(process.popen, SandboxProcess):
                process._sandbox_from_ready_pipe(process.popen.ready, timeout=10.0)
            else:
                process._find_sandbox_root(timeout=10.0)
        except BaseException:
            process.stop(0.0)
            raise
        return process

    def _sandbox_from_ready_pipe(self, ready: ReadyPipe, timeout: float) -> None:
        """The zygote's sandboxes say their init's pid on their ready pipe (no polling); it is
        taken only if it is the process the host started or that one's child (its monitor's),
        as :meth:`_find_sandbox_root` would find it."""
        self._ready = ready
        pid = self.popen.pid
        if ready.wait(lambda: ready.init_pid is not None, timeout):
            try:
                children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
            except OSError:
                children = []
            # As root the zygote's child is the init itself (no monitor).
            if ready.init_pid == pid or str(ready.init_pid) in children:
                root = Path(f"/proc/{ready.init_pid}/root")
                self.sandbox_root = root
                self.sandbox_init = ready.init_pid
                self.address = f"unix:{root}{SANDBOX_RUN_DIR}/{SOCKET_NAME}"
                return
        ready.close()
        tail = self.stderr_tail()
        raise BotStartError(f"bot {self.manifest.name!r} ({self.manifest.path}): its sandbox did not start"
                            f"{' (status ' + str(self.returncode) + ')' if not self.alive() else ''}"
                            f": {tail or 'no output'}")

    def _find_sandbox_root(self, timeout: float) -> None:
        """Learn the sandbox's first process, so as to reach the socket through its root.

        No host folder is bound into the sandbox: the bot's socket lives on a small tmpfs
        of its own (``/run/arena``), and the host connects to it through
        ``/proc/<pid>/root``, once bubblewrap has switched that process to the sandbox's root.
        """
        pid = self.popen.pid
        host_root = os.stat("/")
        deadline = time.monotonic() + timeout
        while True:
            try:
                children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
                if children:
                    root = Path(f"/proc/{children[0]}/root")
                    seen = os.stat(root)
                    if (seen.st_dev, seen.st_ino) != (host_root.st_dev, host_root.st_ino):
                        self.sandbox_root = root
                        self.sandbox_init = int(children[0])
                        self.address = f"unix:{root}{SANDBOX_RUN_DIR}/{SOCKET_NAME}"
                        return
            except OSError:
                pass
            if not self.alive() or time.monotonic() > deadline:
                tail = self.stderr_tail()
                raise BotStartError(f"bot {self.manifest.name!r} ({self.manifest.path}): its sandbox did not start"
                                    f"{' (bubblewrap exited with status ' + str(self.returncode) + ')' if not self.alive() else ''}"
                                    f": {tail or 'no output'}")
            time.sleep(0.002)

    @classmethod
    def _launch(cls, manifest: BotManifest, command: list[str], env: dict[str, str], *, log_path: Path,
                policy: IsolationPolicy, address: str, port: int | None, describe_where: str,
                cgroup: BotCgroup | None = None, rlimits: list[tuple[str, int]] | None = None,
                shown: list[str] | None = None, new_keyring: bool = False) -> "BotProcess":
        launch = launcher_command(command, cgroups=cgroup.procs_files if cgroup else [], rlimits=rlimits or [],
                                  new_keyring=new_keyring)

        def start() -> subprocess.Popen[bytes]:
            return subprocess.Popen(launch, cwd=manifest.working_dir, env=env, stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)

        return cls._launch_logged(manifest, lambda: _in_spawner_thread(start), log_path=log_path, policy=policy,
                                  port=port, cgroup=cgroup, describe_where=describe_where, shown=shown or command,
                                  address=address)

    @classmethod
    def _launch_logged(cls, manifest: BotManifest, start: Callable[[], Any], *, log_path: Path,
                       policy: IsolationPolicy, port: int | None, cgroup: BotCgroup | None, describe_where: str,
                       shown: list[str], address: str = "") -> "BotProcess":
        """Write the log's header, ``start()`` the process (a Popen or a zygote's SandboxProcess) and
        pump its output into the log."""
        log_path.parent.mkdir(parents=True, exist_ok=True)
        with open(log_path, "ab") as log:
            log.write(f"--- arena: starting {shown} in {manifest.working_dir} ({describe_where}, "
                      f"isolation {policy.level.value}) at {time.strftime('%Y-%m-%d %H:%M:%S')} ---\n".encode())
            offset = log.tell()
        try:
            popen = start()
        except OSError as exc:
            raise BotStartError(f"bot {manifest.name!r} ({manifest.path}): cannot start {shown!r}: "
                                f"{exc}") from None
        assert popen.stdout is not None
        pump = LogPump(popen.stdout, log_path, policy.limits.log_mb << 20)
        return cls(popen, manifest, address, log_path, offset, policy=policy, pump=pump, cgroup=cgroup, port=port)

    def wait_listening(self, limit_s: float) -> None:
        """Wait (polling every few ms) until the bot listens, so that the first Describe does
        not fail and sit out gRPC's reconnect back-off; BotNotReadyError after ``limit_s``.

        Sandboxed, the socket is then pinned: opened by inode (``O_PATH|O_NOFOLLOW``, checked
        to be a socket) and reached as ``/proc/self/fd/N``, so a bot that later swaps it for
        a symlink (to another bot's socket, say) cannot redirect the host's connections.
        """
        deadline = time.monotonic() + limit_s
        path = Path(f"{self.sandbox_root}{SANDBOX_RUN_DIR}/{SOCKET_NAME}") if self.sandbox_root else None
        ready = self._ready
        if ready is not None and path is not None:  # the zygote's sandbox says when (no polling)
            try:
                if not ready.wait(lambda: ready.listening, limit_s):
                    if ready.fd is None or not self.alive():
                        self.wait(2.0)  # the init said nothing more: the sandbox is ending, with the bot's status
                        raise BotNotReadyError("the bot exited before it listened")
                    raise BotNotReadyError(f"it did not listen on {path} within {limit_s:g} s")
                self._pin_socket(path)
                return
            finally:
                ready.close()
        while True:
            if path is not None and os.path.lexists(path):
                self._pin_socket(path)
                return
            if path is None and self._accepts():
                return
            if not self.alive():
                raise BotNotReadyError("the bot exited before it listened")
            if time.monotonic() > deadline:
                raise BotNotReadyError(f"it did not listen on {path or self.address} within {limit_s:g} s")
            time.sleep(0.003)

    def _accepts(self) -> bool:
        if self.port is None:
            return True  # nothing to poll: Describe will tell
        try:
            socket.create_connection(("127.0.0.1", self.port), timeout=0.05).close()
        except OSError:
            return False
        return True

    def _pin_socket(self, path: Path) -> None:
        try:
            fd = os.open(path, os.O_PATH | os.O_NOFOLLOW)
        except OSError as exc:
            raise BotNotReadyError(f"its socket {SANDBOX_RUN_DIR}/{SOCKET_NAME} cannot be opened: {exc}") from None
        if not stat.S_ISSOCK(os.fstat(fd).st_mode):
            os.close(fd)
            raise BotNotReadyError(f"{SANDBOX_RUN_DIR}/{SOCKET_NAME} is not a socket (a symlink or a file)")
        self._socket_fd = fd
        self.address = f"unix:/proc/self/fd/{fd}"

    @property
    def pid(self) -> int:
        return self.popen.pid

    @property
    def returncode(self) -> int | None:
        return self.popen.poll()

    def alive(self) -> bool:
        return self.popen.poll() is None

    def wait(self, timeout: float) -> int | None:
        """The exit status, or None if still running after ``timeout`` seconds."""
        try:
            return self.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def out_of_memory(self) -> bool:
        """Whether the kernel killed a process of this bot for going over its memory limit."""
        if self.cgroup is not None:
            self.oom_kills = max(self.oom_kills, self.cgroup.oom_kills())
        return self.oom_kills > 0

    def freeze(self) -> None:
        """Stop the bot using CPU until the host next calls it (nothing without a freezer)."""
        if self.cgroup is not None and self.gate is not None:
            self.cgroup.freeze()

    def thaw(self) -> None:
        if self.cgroup is not None:
            self.cgroup.thaw()

    def close_stdin(self, thaw: bool = True) -> None:
        """Close the host's end of the bot's stdin: the bot reads EOF and must exit (thawed to see it,
        unless it is about to be killed anyway)."""
        if thaw:
            self.thaw()
        stdin = self.popen.stdin
        if stdin is not None and not stdin.closed:
            try:
                stdin.close()
            except OSError:
                pass

    def bot_pids(self) -> list[int]:
        """The host pids of the bot's own processes (inside a sandbox: all but the sandbox's own,
        bubblewrap's or the zygote's monitor and init)."""
        if self.cgroup is None:
            return [self.popen.pid] if self.alive() else []
        sandbox = {self.popen.pid, self.sandbox_init} if self.sandbox_init is not None else set()
        pids = []
        for pid in self.cgroup.pids():
            if pid in sandbox:
                continue
            try:
                comm = Path(f"/proc/{pid}/comm").read_text().strip()
            except OSError:
                continue
            if comm != "bwrap":
                pids.append(pid)
        return pids

    def signal_bot(self, sig: int) -> None:
        """Send ``sig`` to the bot itself (its group, or its processes inside the sandbox)."""
        if self.cgroup is not None:
            self.cgroup.thaw()
            for pid in self.bot_pids():
                try:
                    os.kill(pid, sig)
                except (ProcessLookupError, PermissionError):
                    pass
        else:
            self.signal_group(sig)

    def signal_group(self, sig: int) -> None:
        """Send ``sig`` to the bot's whole process group (nothing if the group is gone)."""
        try:
            os.killpg(self.popen.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    def stop(self, timeout: float = 3.0) -> str:
        """Stop the bot and everything it started: stdin EOF (+ SIGTERM), ``timeout`` s, then SIGKILL.

        Returns how it went: ``"exited"`` (it had already exited), ``"terminated"``
        (it exited within the grace period) or ``"killed"`` (it had to be killed).
        """
        return stop_processes([self], timeout)[0]

    def _ask_to_stop(self) -> bool:
        """Close stdin and SIGTERM the bot; whether it was still running."""
        was_alive = self.alive()
        self.close_stdin()
        if was_alive:
            self.signal_bot(signal.SIGTERM)
        return was_alive

    def _finish_stop(self, was_alive: bool, deadline: float) -> str:
        how = "exited"
        if was_alive:
            how = "terminated" if self.wait(max(0.0, deadline - time.monotonic())) is not None else "killed"
        # Whatever the leader did, nothing it started may outlive it.
        if self.cgroup is not None:
            self.out_of_memory()
            self.cgroup.kill_all()
        self.signal_group(signal.SIGKILL)
        try:
            self.popen.kill()
        except OSError:
            pass
        self.popen.wait()
        if self.cgroup is not None:
            self.cgroup.remove()
        if self._socket_fd is not None:
            os.close(self._socket_fd)
            self._socket_fd = None
        self.pump.join(1.0)
        return how

    def stderr_tail(self, lines: int = _STDERR_TAIL_LINES, max_chars: int = 4000) -> str:
        """The last lines the bot wrote to its log since this start."""
        self.pump.join(0.2 if not self.alive() else 0.0)
        try:
            with open(self.log_path, "rb") as log:
                log.seek(self._log_offset)
                data = log.read()
        except OSError:
            return ""
        text = data.decode("utf-8", "replace").rstrip()
        tail = "\n".join(text.splitlines()[-lines:])
        return tail[-max_chars:]


def stop_processes(processes: list[BotProcess], timeout: float = 3.0) -> list[str]:
    """Stop several bots at once (one grace period for all); how each stopped, in order.

    The same process listed twice is stopped once (both get its result).
    """
    results: list[str | None] = [None] * len(processes)
    asked: list[tuple[int, BotProcess, bool]] = []
    first: dict[int, int] = {}
    for i, process in enumerate(processes):
        if id(process) in first:
            continue
        first[id(process)] = i
        process._stop_lock.acquire()
        if process.stopped_how is not None:
            results[i] = process.stopped_how
            process._stop_lock.release()
        elif timeout <= 0:  # no grace: killed at once, frozen (not woken to shut down for nothing)
            process.close_stdin(thaw=False)
            asked.append((i, process, process.alive()))
        else:
            asked.append((i, process, process._ask_to_stop()))
    deadline = time.monotonic() + timeout
    for i, process, was_alive in asked:
        try:
            results[i] = process.stopped_how = process._finish_stop(was_alive, deadline)
        finally:
            process._stop_lock.release()
    for i, process in enumerate(processes):
        if results[i] is None:
            results[i] = results[first[id(process)]]
    return [r or "exited" for r in results]


def describe_problems(describe: bot_pb2.DescribeReply, *, name: str | None, game: str | None) -> list[str]:
    """What is wrong with a Describe reply for the bot the host expected (empty when nothing)."""
    problems = []
    if name is not None and describe.name != name:
        problems.append(f"it calls itself {describe.name!r} in Describe, but it was started as {name!r}")
    if describe.protocol_version != PROTOCOL_VERSION:
        problems.append(f"its protocol_version is {describe.protocol_version}; this host speaks {PROTOCOL_VERSION}")
    if game is not None and game not in describe.games:
        problems.append(f"its games {list(describe.games)} do not include {game!r}")
    return problems


def start_bot(manifest: BotManifest, *, log_path: Path, ready_timeout: float = 10.0, stop_timeout: float = 3.0,
              max_message_bytes: int = MAX_MESSAGE_BYTES, policy: IsolationPolicy | None = None,
              game: str | None = None, check_describe: bool = True,
              ) -> tuple[BotProcess, BotConnection, bot_pb2.DescribeReply]:
    """Start a bot and wait until it answers Describe; BotStartError (quoting its stderr) otherwise.

    With ``check_describe``, a Describe reply whose name differs from the manifest's,
    whose protocol version is not this host's, or that does not list ``game`` is refused.
    """
    process = BotProcess.spawn(manifest, log_path=log_path, policy=policy)
    started = time.monotonic()
    connection: BotConnection | None = None
    try:
        process.wait_listening(ready_timeout)
        connection = BotConnection(process.address, max_message_bytes=max_message_bytes)  # not frozen yet
        describe = connection.wait_ready(max(0.1, ready_timeout - (time.monotonic() - started)),
                                         alive=process.alive)
    except BotNotReadyError as exc:
        status = process.returncode
        process.stop(stop_timeout)
        if connection is not None:
            connection.close()
        if process.out_of_memory():
            what = f"ran out of memory (limit {process.policy.limits.memory_mb} MB) before it was ready"
        elif status is not None:
            what = f"exited with status {status} before it was ready"
        else:
            what = f"did not become ready within {ready_timeout:g} s ({exc})"
        tail = process.stderr_tail()
        quoted = ("\n  " + tail.replace("\n", "\n  ")) if tail else " (empty)"
        raise BotStartError(f"bot {manifest.name!r} ({manifest.path}) {what}. Its output, in {log_path}:"
                            f"{quoted}") from None
    problems = describe_problems(describe, name=manifest.name, game=game) if check_describe else []
    if problems:
        process.stop(stop_timeout)
        connection.close()
        raise BotStartError(f"bot {manifest.name!r} ({manifest.path}) is refused: {'; '.join(problems)}")
    connection.gate = process.gate
    process.freeze()
    return process, connection, describe


def __getattr__(name: str) -> Any:
    """``BotPool`` and ``BotHandle`` live in :mod:`arena.host.pool` (which imports this module);
    they are found here too, for the imports that predate the split."""
    if name in ("BotPool", "BotHandle"):
        from arena.host import pool

        return getattr(pool, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["BotHandle", "BotPool", "BotProcess", "BotStartError", "LogPump", "FreezeGate", "describe_problems",
           "free_port", "launcher_command", "start_bot", "stop_processes"]
