"""The host's side of the zygote (:mod:`arena.host.zygote_main`): start it, ask it for sandboxes.

One zygote per host process, started on first use (about the cost of one Python bot
start) and stopped at exit; it dies with the host (``PR_SET_PDEATHSIG``, stdin EOF), and
every sandbox dies with it.  :func:`spawn` hands it a bot's configuration (in a memfd
that only the forked child reads), the bot's stdin and its output pipe, and returns
a :class:`SandboxProcess`, which the rest of the host uses as it would a
``subprocess.Popen``.

Which bots: a manifest whose command is ``python|python3 SCRIPT [ARGS...]`` and whose
``[env]`` sets no ``PYTHON*`` variable (those change how an interpreter starts, which a
forked one cannot honour); every other bot keeps the bubblewrap path.  Set
``ARENA_NO_ZYGOTE=1`` to use bubblewrap for every bot (benchmarks compare the two), and
``ARENA_ZYGOTE_MONITOR=1`` to give every sandbox a monitor process even when the host
runs as root (as it has when it does not; tests check both ways).
"""

from __future__ import annotations

import array
import atexit
import json
import os
import queue
import select
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from typing import IO, Any, Callable, Sequence

from arena.host.manifest import BotManifest

_READY_TIMEOUT_S = 60.0
_REPLY_TIMEOUT_S = 10.0
#: How long to wait for the zygote's word on how a sandbox it reaped ended.
_STATUS_GRACE_S = 2.0

PYTHON_NAMES = ("python", "python3")


class ZygoteUnavailable(RuntimeError):
    """The zygote cannot be started or has gone; the message says why."""


def eligible(manifest: BotManifest) -> bool:
    """Whether the zygote can start this bot: ``python SCRIPT ...``, no ``PYTHON*`` in ``[env]``."""
    command = manifest.command
    if len(command) < 2 or command[0] not in PYTHON_NAMES or command[1].startswith("-") or not command[1]:
        return False
    return not any(name.startswith("PYTHON") for name, _ in manifest.env)


def enabled() -> bool:
    return not os.environ.get("ARENA_NO_ZYGOTE")


class ReadyPipe:
    """The read end of a sandbox's ready pipe (see :mod:`arena.host.zygote_main`): the host pid
    of its init (``I`` + pid, from the monitor), then that the bot's socket exists (``S``, from
    the init).  Read by the one thread that starts the bot."""

    def __init__(self, fd: int) -> None:
        self.fd: int | None = fd
        self.init_pid: int | None = None
        self.listening = False
        self._buffer = b""

    def wait(self, until: Callable[[], bool], timeout: float) -> bool:
        """Read until ``until()`` holds (True), the pipe ends or ``timeout`` s pass (False)."""
        deadline = time.monotonic() + timeout
        while not until():
            left = deadline - time.monotonic()
            if self.fd is None or left <= 0 or not select.select([self.fd], [], [], left)[0]:
                return False
            data = os.read(self.fd, 64)
            if not data:  # every writer is gone: the sandbox ended, or will say no more
                self.close()
                return until()
            self._buffer += data
            while self._buffer:
                if self._buffer[:1] == b"I" and len(self._buffer) >= 5:
                    self.init_pid = struct.unpack("=i", self._buffer[1:5])[0]
                    self._buffer = self._buffer[5:]
                elif self._buffer[:1] == b"S":
                    self.listening = True
                    self._buffer = self._buffer[1:]
                elif self._buffer[:1] == b"I":
                    break  # the rest of the pid is yet to come
                else:  # nothing else is ever written: stop listening
                    self.close()
                    return until()
        return True

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def __del__(self) -> None:
        self.close()


class SandboxProcess:
    """A sandbox the zygote forked, as the host sees it: the ``subprocess.Popen`` surface the
    host uses (``pid``, ``stdin``, ``stdout``, ``poll``, ``wait``, ``kill``, ``returncode``).

    Liveness comes from a pidfd (no pid reuse can confuse it); the exit status from the
    zygote, which reaps it (-9 if the zygote is gone and cannot say).
    """

    def __init__(self, zygote: "Zygote", pid: int, pidfd: int, stdin: IO[bytes], stdout: IO[bytes],
                 ready: ReadyPipe) -> None:
        self._zygote = zygote
        self.pid = pid
        self.ready = ready
        self._pidfd: int | None = pidfd
        self.stdin = stdin
        self.stdout = stdout
        self.returncode: int | None = None
        self._lock = threading.Lock()
        self._poller = select.poll()
        self._poller.register(pidfd, select.POLLIN)

    def _exited(self, timeout: float | None) -> bool:
        with self._lock:
            if self._pidfd is None:
                return True
        return bool(self._poller.poll(None if timeout is None else max(0, int(timeout * 1000))))

    def _settle(self) -> int:
        if self.returncode is None:
            code = self._zygote.status_of(self.pid, _STATUS_GRACE_S)
            with self._lock:
                if self.returncode is None:
                    self.returncode = -signal.SIGKILL if code is None else code
                if self._pidfd is not None:
                    os.close(self._pidfd)
                    self._pidfd = None
        return self.returncode

    def poll(self) -> int | None:
        if self.returncode is not None:
            return self.returncode
        return self._settle() if self._exited(0) else None

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is not None:
            return self.returncode
        if not self._exited(timeout):
            raise subprocess.TimeoutExpired("sandbox", timeout or 0)
        return self._settle()

    def send_signal(self, sig: int) -> None:
        with self._lock:
            if self._pidfd is not None and self.returncode is None:
                try:
                    signal.pidfd_send_signal(self._pidfd, sig)
                except ProcessLookupError:
                    pass

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def __del__(self) -> None:
        if self._pidfd is not None:
            try:
                os.close(self._pidfd)
            except OSError:
                pass


class Zygote:
    """One zygote process and the host's end of its control socket (thread-safe)."""

    def __init__(self, launch: Callable[[Callable[[], subprocess.Popen[bytes]]], subprocess.Popen[bytes]]) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        command = [sys.executable, "-I", "-c", "from arena.host.zygote_main import main; main()",
                   str(theirs.fileno()), str(os.getpid())]
        if os.environ.get("ARENA_ZYGOTE_MONITOR"):
            command.append("--monitor")  # a monitor process per sandbox even as root (tests compare)
        # Nothing of the host's environment: every bot process starts as a copy of this one.
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8"}
        try:
            self._popen = launch(lambda: subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd="/", env=env,
                pass_fds=[theirs.fileno()], start_new_session=True))
        except OSError as exc:
            raise ZygoteUnavailable(f"the zygote could not be started: {exc}") from None
        finally:
            theirs.close()
        self._control = ours
        self._errors: list[bytes] = []
        self._replies: queue.Queue[tuple[int, int] | None] = queue.Queue()
        self._statuses: dict[int, int] = {}
        self._condition = threading.Condition()
        self._request_lock = threading.Lock()
        self._dead = False
        assert self._popen.stderr is not None
        errors = self._error_reader = threading.Thread(target=self._read_errors, args=(self._popen.stderr,),
                                                       name="arena-zygote-stderr", daemon=True)
        errors.start()
        ready = select.select([ours], [], [], _READY_TIMEOUT_S)[0] and ours.recv(16) == b"R"
        if not ready:
            self.close()
            errors.join(2.0)
            raise ZygoteUnavailable(f"the zygote did not start: {self.error_text() or 'no output'}")
        threading.Thread(target=self._read, name="arena-zygote", daemon=True).start()

    # -- the channel -----------------------------------------------------------------------------

    def _read_errors(self, pipe: IO[bytes]) -> None:
        with pipe:
            for line in iter(pipe.readline, b""):
                self._errors = (self._errors + [line])[-20:]

    def error_text(self) -> str:
        return b"".join(self._errors).decode("utf-8", "replace").strip()

    def _read(self) -> None:
        while True:
            try:
                data, ancillary, _, _ = self._control.recvmsg(64, socket.CMSG_SPACE(4), socket.MSG_CMSG_CLOEXEC)
            except OSError:
                data, ancillary = b"", []
            fds = [fd for level, kind, payload in ancillary if level == socket.SOL_SOCKET
                   and kind == socket.SCM_RIGHTS for fd in array.array("i", payload[:len(payload) - len(payload) % 4])]
            if not data:
                for fd in fds:
                    os.close(fd)
                with self._condition:
                    self._dead = True
                    self._condition.notify_all()
                self._replies.put(None)
                return
            if data[:1] == b"P" and len(data) == 5 and len(fds) == 1:
                self._replies.put((struct.unpack("=i", data[1:])[0], fds[0]))
            elif data[:1] == b"X" and len(data) == 9:
                pid, status = struct.unpack("=ii", data[1:])
                with self._condition:
                    self._statuses[pid] = os.waitstatus_to_exitcode(status)
                    self._condition.notify_all()
            else:
                for fd in fds:
                    os.close(fd)

    def alive(self) -> bool:
        return not self._dead and self._popen.poll() is None

    def status_of(self, pid: int, timeout: float) -> int | None:
        """The exit status of a reaped sandbox (None if the zygote does not say in ``timeout`` s)."""
        deadline = time.monotonic() + timeout
        with self._condition:
            while pid not in self._statuses and not self._dead:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._condition.wait(left)
            return self._statuses.pop(pid, None)

    # -- sandboxes -------------------------------------------------------------------------------

    def spawn(self, config: dict[str, Any]) -> SandboxProcess:
        """A new sandbox running ``config`` (see :mod:`arena.host.zygote_main`); ZygoteUnavailable
        if the zygote has gone."""
        config_fd = os.memfd_create("arena-bot-config", os.MFD_CLOEXEC)
        stdin_read, stdin_write = os.pipe2(os.O_CLOEXEC)
        output_read, output_write = os.pipe2(os.O_CLOEXEC)
        ready_read, ready_write = os.pipe2(os.O_CLOEXEC)
        try:
            data = json.dumps(config).encode()
            while data:
                data = data[os.write(config_fd, data):]
            os.lseek(config_fd, 0, os.SEEK_SET)
            with self._request_lock:
                if self._dead:
                    raise ZygoteUnavailable(f"the zygote has gone: {self.error_text() or 'no output'}")
                try:
                    self._control.sendmsg([b"F"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                                                    array.array("i", [config_fd, stdin_read, output_write,
                                                                      ready_write]))])
                except OSError as exc:
                    raise ZygoteUnavailable(f"the zygote has gone: {exc}") from None
                try:
                    reply = self._replies.get(timeout=_REPLY_TIMEOUT_S)
                except queue.Empty:
                    reply = None
                    # A late answer would be taken for the next request's: this zygote is done.
                    with self._condition:
                        self._dead = True
                    self._popen.kill()
            if reply is None:
                raise ZygoteUnavailable(f"the zygote did not answer: {self.error_text() or 'no output'}")
        except BaseException:
            for fd in (stdin_write, output_read, ready_read):
                os.close(fd)
            raise
        finally:
            for fd in (config_fd, stdin_read, output_write, ready_write):
                os.close(fd)
        pid, pidfd = reply
        return SandboxProcess(self, pid, pidfd, os.fdopen(stdin_write, "wb"), os.fdopen(output_read, "rb"),
                              ReadyPipe(ready_read))

    def close(self, timeout: float = 5.0) -> None:
        """Stop the zygote (every sandbox it started dies with it)."""
        try:
            self._control.close()
        except OSError:
            pass
        if self._popen.stdin is not None:
            try:
                self._popen.stdin.close()
            except OSError:
                pass
        try:
            self._popen.wait(timeout)
        except subprocess.TimeoutExpired:
            self._popen.kill()
            self._popen.wait()
        self._error_reader.join(timeout)


_lock = threading.Lock()
_zygote: Zygote | None = None
_failure: str | None = None
_registered = False


def get_zygote(launch: Callable[[Callable[[], subprocess.Popen[bytes]]], subprocess.Popen[bytes]]) -> Zygote:
    """This host's zygote, started (again, if it died) on first use; ZygoteUnavailable if it cannot run.

    ``launch`` runs the Popen call (the host's bot-spawner thread, so that the zygote's
    parent-death signal is tied to a thread that lives as long as the host)."""
    global _zygote, _failure, _registered
    with _lock:
        if _zygote is not None and _zygote.alive():
            return _zygote
        if _zygote is not None:  # it died (its sandboxes with it): reap it before starting another
            _zygote.close()
        if _failure is not None:
            raise ZygoteUnavailable(_failure)
        from arena.host import namespaces

        reason = namespaces.supported()
        if reason is not None:
            _failure = reason
            raise ZygoteUnavailable(reason)
        if not _registered:
            atexit.register(close_zygote)
            _registered = True
        try:
            _zygote = Zygote(launch)
        except ZygoteUnavailable as exc:
            _failure = str(exc)
            raise
        return _zygote


def close_zygote() -> None:
    """Stop this host's zygote (at exit; every sandbox it started dies with it)."""
    global _zygote
    with _lock:
        zygote, _zygote = _zygote, None
    if zygote is not None:
        zygote.close()


def config_for(manifest: BotManifest, *, argv: Sequence[str], env: dict[str, str], cgroups: Sequence[str],
               rlimits: Sequence[tuple[str, int]], layout: Sequence[Any], hostname: str, socket_path: str,
               relay: tuple[int, str] | None) -> dict[str, Any]:
    """What a sandbox's processes need to know (see :mod:`arena.host.zygote_main`)."""
    return {"argv": list(argv), "working_dir": str(manifest.working_dir), "env": dict(env),
            "cgroups": list(cgroups), "rlimits": [list(r) for r in rlimits],
            "layout": [op.to_json() for op in layout], "hostname": hostname, "socket": socket_path,
            "relay": list(relay) if relay is not None else None}
