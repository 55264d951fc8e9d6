"""Bot processes: start one from its manifest, wait until it is ready, stop its whole process group.

No orphans, ever:

- every bot runs in its own session and process group, and is stopped as a group
  (stdin closed + SIGTERM, a grace period, then SIGKILL to the group);
- its stdin is a pipe the host keeps open and never writes: when the host dies,
  the bot reads EOF and must exit;
- it also gets ``PR_SET_PDEATHSIG = SIGKILL`` (Linux, set by a tiny launcher that
  then execs the bot's command).  That signal fires when the *thread* that started
  the bot exits, so every bot is started by one long-lived spawner thread, never by
  a match's worker thread.

:class:`BotPool` keeps one process per bot for all the matches it plays (the same
manifest twice is the same process) and restarts a bot that crashed.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from arena.host.client import MAX_MESSAGE_BYTES, BotConnection, BotNotReadyError
from arena.host.manifest import BotManifest, BotSpec
from arena.v1 import bot_pb2

_STDERR_TAIL_LINES = 20

#: A command starting with one of these runs on the host's own interpreter (the one
#: that has arena and grpcio installed), whatever ``python`` means on PATH.
PYTHON_NAMES = ("python", "python3")

# The bot's command runs under this launcher: it asks for SIGKILL when its parent (the
# host's spawner thread) dies, checks the host is still there, then execs the command
# (the signal request survives exec).  A launcher, not a preexec_fn: forking a process
# that runs gRPC threads is unsafe (gRPC's fork handlers), while subprocess's vfork
# path, used when there is no preexec_fn, runs no fork handlers at all.
_LAUNCHER = """
import ctypes, os, signal, sys
if sys.platform.startswith("linux"):
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
if os.getppid() != int(sys.argv[1]):
    os._exit(70)
try:
    os.execvp(sys.argv[2], sys.argv[2:])
except OSError as exc:
    sys.stderr.write(f"arena: cannot run {sys.argv[2]!r}: {exc}\\n")
    os._exit(127)
"""


class BotStartError(RuntimeError):
    """A bot could not be started or never became ready; the message quotes its stderr."""


def launcher_command(command: list[str]) -> list[str]:
    """``command`` wrapped in the parent-death launcher (run by this very Python, isolated, no site)."""
    return [sys.executable, "-I", "-S", "-c", _LAUNCHER, str(os.getpid()), *command]


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


class BotProcess:
    """One running bot program: its OS process (a group leader), port and stderr log."""

    def __init__(self, popen: subprocess.Popen[bytes], manifest: BotManifest, port: int, log_path: Path,
                 log_offset: int) -> None:
        self.popen = popen
        self.manifest = manifest
        self.port = port
        self.log_path = log_path
        self._log_offset = log_offset
        self._stop_lock = threading.Lock()
        self.stopped_how: str | None = None

    @classmethod
    def spawn(cls, manifest: BotManifest, *, log_path: Path, port: int | None = None) -> "BotProcess":
        """Start the manifest's command (without waiting for readiness); BotStartError if it cannot run."""
        port = free_port() if port is None else port
        command = manifest.command_for(port)
        if command[0] in PYTHON_NAMES:
            command[0] = sys.executable
        log_path.parent.mkdir(parents=True, exist_ok=True)
        with open(log_path, "ab") as log:
            log.write(f"--- arena: starting {command} in {manifest.working_dir} (port {port}) at "
                      f"{time.strftime('%Y-%m-%d %H:%M:%S')} ---\n".encode())
            log.flush()
            offset = log.tell()
            env = {**os.environ, "ARENA_BOT_PORT": str(port)}
            if _find_program(command[0], manifest.working_dir, env) is None:
                raise BotStartError(f"bot {manifest.name!r} ({manifest.path}): cannot start it: program "
                                    f"{command[0]!r} not found (working dir {manifest.working_dir}, PATH "
                                    f"{env.get('PATH', '')})")

            def start() -> subprocess.Popen[bytes]:
                return subprocess.Popen(launcher_command(command), cwd=manifest.working_dir, env=env,
                                        stdin=subprocess.PIPE, stdout=log, stderr=log, start_new_session=True)

            try:
                popen = _in_spawner_thread(start)
            except OSError as exc:
                raise BotStartError(f"bot {manifest.name!r} ({manifest.path}): cannot start {command!r}: "
                                    f"{exc}") from None
        return cls(popen, manifest, port, log_path, offset)

    @property
    def pid(self) -> int:
        return self.popen.pid

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

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

    def close_stdin(self) -> None:
        """Close the host's end of the bot's stdin: the bot reads EOF and must exit."""
        stdin = self.popen.stdin
        if stdin is not None and not stdin.closed:
            try:
                stdin.close()
            except OSError:
                pass

    def signal_group(self, sig: int) -> None:
        """Send ``sig`` to the bot's whole process group (nothing if the group is gone)."""
        try:
            os.killpg(self.popen.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    def stop(self, timeout: float = 3.0) -> str:
        """Stop the bot and its group: stdin EOF + SIGTERM, ``timeout`` s, then SIGKILL.

        Returns how it went: ``"exited"`` (it had already exited), ``"terminated"``
        (it exited within the grace period) or ``"killed"`` (it had to be killed).
        """
        return stop_processes([self], timeout)[0]

    def _ask_to_stop(self) -> bool:
        """Close stdin and SIGTERM the group; whether the bot was still running."""
        was_alive = self.alive()
        self.close_stdin()
        if was_alive:
            self.signal_group(signal.SIGTERM)
        return was_alive

    def _finish_stop(self, was_alive: bool, deadline: float) -> str:
        how = "exited"
        if was_alive:
            how = "terminated" if self.wait(max(0.0, deadline - time.monotonic())) is not None else "killed"
        # Whatever the leader did, nothing of its group may outlive it.
        self.signal_group(signal.SIGKILL)
        self.popen.wait()
        return how

    def stderr_tail(self, lines: int = _STDERR_TAIL_LINES, max_chars: int = 4000) -> str:
        """The last lines the bot wrote to its log since this start."""
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
    """Stop several bots at once (one grace period for all); how each stopped, in order."""
    results: list[str | None] = [None] * len(processes)
    asked: list[tuple[int, BotProcess, bool]] = []
    for i, process in enumerate(processes):
        process._stop_lock.acquire()
        if process.stopped_how is not None:
            results[i] = process.stopped_how
            process._stop_lock.release()
        else:
            asked.append((i, process, process._ask_to_stop()))
    deadline = time.monotonic() + timeout
    for i, process, was_alive in asked:
        try:
            results[i] = process.stopped_how = process._finish_stop(was_alive, deadline)
        finally:
            process._stop_lock.release()
    return [r or "exited" for r in results]


def start_bot(manifest: BotManifest, *, log_path: Path, ready_timeout: float = 10.0,
              stop_timeout: float = 3.0,
              max_message_bytes: int = MAX_MESSAGE_BYTES) -> tuple[BotProcess, BotConnection, bot_pb2.DescribeReply]:
    """Start a bot and wait until it answers Describe; BotStartError (quoting its stderr) otherwise."""
    process = BotProcess.spawn(manifest, log_path=log_path)
    connection = BotConnection(process.address, max_message_bytes=max_message_bytes)
    try:
        describe = connection.wait_ready(ready_timeout, alive=process.alive)
    except BotNotReadyError as exc:
        status = process.returncode
        process.stop(stop_timeout)
        connection.close()
        if status is not None:
            what = f"exited with status {status} before it was ready"
        else:
            what = f"did not become ready within {ready_timeout:g} s ({exc})"
        tail = process.stderr_tail()
        quoted = ("\n  " + tail.replace("\n", "\n  ")) if tail else " (empty)"
        raise BotStartError(f"bot {manifest.name!r} ({manifest.path}) {what}. Its output, in {log_path}:"
                            f"{quoted}") from None
    return process, connection, describe


@dataclass(frozen=True)
class BotHandle:
    """A bot ready to play: its connection and, for a manifest bot, its process.

    ``generation`` grows by one at every restart; ``name`` is the manifest's name,
    or the name a bot at an address gives in Describe.
    """

    spec: BotSpec
    name: str
    connection: BotConnection
    describe: bot_pb2.DescribeReply
    process: BotProcess | None
    generation: int

    @property
    def key(self) -> str:
        return self.spec.key

    def alive(self) -> bool:
        """False once the bot's process has exited (a bot at an address is assumed alive)."""
        return self.process is None or self.process.alive()


class BotPool:
    """Bot processes shared by all matches: one per manifest (or address), started on first use.

    Thread-safe: matches running in several threads acquire bots concurrently.  A bot
    that failed to start ``max_start_failures`` times in a row is not tried again.
    Use as a context manager (or call :meth:`close`): every process is stopped.
    """

    def __init__(self, *, log_dir: str | Path = "arena-data/logs", ready_timeout: float = 10.0, stop_timeout: float = 3.0,
                 max_message_bytes: int = MAX_MESSAGE_BYTES, max_start_failures: int = 2) -> None:
        self.log_dir = Path(log_dir)
        self.ready_timeout = ready_timeout
        self.stop_timeout = stop_timeout
        self.max_message_bytes = max_message_bytes
        self.max_start_failures = max_start_failures
        self._lock = threading.Lock()
        self._key_locks: dict[str, threading.Lock] = {}
        self._handles: dict[str, BotHandle] = {}
        self._failures: dict[str, tuple[int, str]] = {}
        self._log_paths: dict[str, Path] = {}
        self._retired: list[BotConnection] = []
        self._closed = False

    def __enter__(self) -> "BotPool":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _key_lock(self, key: str) -> threading.Lock:
        with self._lock:
            if self._closed:
                raise RuntimeError("the bot pool is closed")
            return self._key_locks.setdefault(key, threading.Lock())

    def log_path(self, spec: BotSpec) -> Path | None:
        """Where a manifest bot's stderr goes (None for a bot at an address)."""
        return None if spec.manifest is None else self._manifest_log_path(spec.key, spec.manifest.name)

    def _manifest_log_path(self, key: str, name: str) -> Path:
        with self._lock:
            path = self._log_paths.get(key)
            if path is None:
                slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-.") or "bot"
                taken = set(self._log_paths.values())
                path = self.log_dir / f"{slug}.log"
                n = 2
                while path in taken:
                    path, n = self.log_dir / f"{slug}-{n}.log", n + 1
                self._log_paths[key] = path
            return path

    def acquire(self, spec: BotSpec) -> BotHandle:
        """A ready bot for ``spec``: the running one, or a fresh start (also after a crash)."""
        with self._key_lock(spec.key):
            handle = self._handles.get(spec.key)
            if handle is not None and handle.alive():
                return handle
            return self._start(spec, 0 if handle is None else handle.generation + 1, handle)

    def current(self, handle: BotHandle) -> BotHandle:
        """The newest handle of ``handle``'s bot (another match may have restarted it)."""
        return self._handles.get(handle.key, handle)

    def restart(self, handle: BotHandle) -> BotHandle:
        """Restart a crashed bot, unless another match already did (then return the new handle).

        A bot at an address cannot be restarted by the host: it is polled until it
        answers again (its owner may restart it).  BotStartError if it does not come back.
        """
        with self._key_lock(handle.key):
            current = self._handles.get(handle.key)
            if current is not None and current.generation != handle.generation:
                return current
            return self._start(handle.spec, handle.generation + 1, current)

    def _start(self, spec: BotSpec, generation: int, previous: BotHandle | None) -> BotHandle:
        failures, message = self._failures.get(spec.key, (0, ""))
        if failures >= self.max_start_failures:
            raise BotStartError(f"{message} (not tried again: it failed to start {failures} times)")
        if previous is not None and previous.process is not None:
            previous.process.stop(self.stop_timeout)
            with self._lock:
                self._retired.append(previous.connection)
        try:
            if spec.manifest is not None:
                process, connection, describe = start_bot(
                    spec.manifest, log_path=self._manifest_log_path(spec.key, spec.manifest.name), ready_timeout=self.ready_timeout,
                    stop_timeout=self.stop_timeout, max_message_bytes=self.max_message_bytes)
                handle = BotHandle(spec, spec.manifest.name, connection, describe, process, generation)
            else:
                connection = previous.connection if previous is not None else BotConnection(
                    str(spec.address), max_message_bytes=self.max_message_bytes)
                try:
                    describe = connection.wait_ready(self.ready_timeout)
                except BotNotReadyError as exc:
                    with self._lock:
                        self._retired.append(connection)
                    raise BotStartError(f"bot at {spec.address} is not answering: {exc}") from None
                handle = BotHandle(spec, describe.name or str(spec.address), connection, describe, None,
                                   generation)
        except BotStartError as exc:
            with self._lock:
                self._failures[spec.key] = (failures + 1, str(exc))
                self._handles.pop(spec.key, None)
            raise
        with self._lock:
            closed = self._closed
            if not closed:
                self._failures.pop(spec.key, None)
                self._handles[spec.key] = handle
        if closed:  # closed while this bot was starting: it must not outlive the pool
            if handle.process is not None:
                handle.process.stop(self.stop_timeout)
            handle.connection.close()
            raise RuntimeError("the bot pool is closed")
        return handle

    def running(self) -> list[BotHandle]:
        """The handles of the bots started so far (alive or not)."""
        with self._lock:
            return list(self._handles.values())

    def close(self) -> dict[str, str]:
        """Stop every bot process (their whole groups) and close every channel.

        Returns how each manifest bot stopped, by name (see :meth:`BotProcess.stop`).
        """
        with self._lock:
            if self._closed:
                return {}
            self._closed = True
            handles = list(self._handles.values())
            retired = list(self._retired)
        # Channels first: a bot stopping gracefully then finds no connection to say goodbye to.
        for connection in retired + [h.connection for h in handles]:
            connection.close()
        with_process = [h for h in handles if h.process is not None]
        hows = stop_processes([h.process for h in with_process if h.process is not None], self.stop_timeout)
        return {h.name: how for h, how in zip(with_process, hows)}
