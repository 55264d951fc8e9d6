"""The zygote: a fork server that starts sandboxed Python bots without paying Python's start-up.

Run by the host (:mod:`arena.host.zygote`) as ``python -I -c "...main()" CONTROL_FD HOST_PID
[--monitor]`` with an environment of four neutral variables.  It imports, once, only trusted code: the
standard library, grpc, protobuf and the Arena SDK (``arena.sdk``), never a bot's.  Then,
for each request of the host, it forks; the child builds a sandbox of its own around
itself and runs the bot's script in it, so every bot process starts as a copy of this
clean image, and nothing one of them computes reaches another.

What the zygote reads: from its control socket, only the host's one-byte request ``F``
with exactly four file descriptors (a sealed copy of the bot's configuration, the
bot's stdin, the bot's output, the write end of the sandbox's *ready* pipe); anything
else is dropped.  It never reads a
configuration itself (its child does, after the fork: the zygote holds nothing of any
bot), and no child has any channel to it: a child closes the control socket first
thing.  What it writes: ``R`` when ready; ``P`` + pid with a pidfd of each child;
``X`` + pid + wait status when a child is reaped.  On the ready pipe, the sandbox tells
the host, so that it need not poll: ``I`` + the host pid of the init (from the monitor,
or the zygote when there is none), the init ``S`` once the bot's socket exists (the bot
never holds that pipe).

Each request becomes three processes, like bubblewrap's (:mod:`arena.host.sandbox`), or
two when the zygote runs as root in the initial user namespace (and ``--monitor`` is not
given): there it makes the new PID namespace itself (``unshare(CLONE_NEWPID)`` before the
fork, ``setns`` back after), so its child is the init, which does the monitor's part too
(see :func:`_root_init`), and one fork of this big process per bot is saved (~5 ms of CPU):

- the *monitor* (in the host's PID namespace, the pid the host sees): dies with the
  zygote (``PR_SET_PDEATHSIG``), leads a session of its own, joins the bot's cgroups,
  joins a new empty session keyring, makes new user (its uid mapped to itself), mount,
  PID, network, IPC, UTS and cgroup namespaces, forks the init, says its pid on the
  ready pipe, drops every capability and waits for it, exiting with its status;
- the *init*, pid 1 of the new PID namespace: dies with the monitor (or the zygote), builds the file
  system from the same plan as bubblewrap (:func:`arena.host.namespaces.build_root`),
  sets the host name and brings up its own loopback, disables further user namespaces,
  sets the rlimits, drops every capability (``no_new_privs``, bounding set empty),
  becomes non-dumpable, forks the bot (and, for a ``{port}`` manifest, the relay), says
  ``S`` on the ready pipe when the bot's socket appears (inotify: no polling) and reaps
  orphans, from the start (while it waits for the socket too), until the bot exits, with
  whose status it exits; when it exits the kernel
  kills whatever is left in the namespace;
- the *bot*, pid 2: a session of its own, Python's default signal handlers, only
  stdin/stdout/stderr open, the manifest's environment, the script run as ``__main__``
  (:mod:`arena.host.zygote_bot`).
"""

from __future__ import annotations

import array
import gc
import json
import os
import select
import signal
import socket
import struct
import sys
import time
from typing import Any, NoReturn

# The trusted modules every Python bot needs, imported once, here; nothing else is.
import argparse
import concurrent.futures.thread  # noqa: F401  (imported lazily by a gRPC server's first call)
import logging
import queue  # noqa: F401

import grpc
import grpc._server  # noqa: F401  (imported lazily by grpc.server(): done once here instead)

import arena.sdk  # noqa: F401  (the SDK: arena.host.codec, arena.v1, grpc, protobuf)
from arena.host.codec import wire_of
from arena.games import registered_games

for _spec in registered_games():  # every game's wire kit, which the SDK loads on a bot's first call
    wire_of(_spec.name)
from arena.host import namespaces
from arena.host.sandbox import RELAY_LOOP
from arena.host.zygote_bot import bot_process, python_signals, run_script
from arena.v1 import bot_pb2

_REQUEST = b"F"
_FDS_PER_REQUEST = 4
#: The ready pipe's write end in the monitor and the init (closed in the bot).
_READY_FD = 3
_SETUP_FAILED = 71
#: How long a ``{port}`` bot has to create its socket before the relay to its port is started.
_RELAY_GRACE_S = 1.0
_PARENT_GONE = 70


def main() -> None:
    """The zygote's entry point; returns only in a bot process, after which the bot runs."""
    _warm()
    job = _serve(int(sys.argv[1]), int(sys.argv[2]), monitor="--monitor" in sys.argv[3:])
    run_script(job)


def _warm() -> None:
    """Run, once and here, the first-time work of what every Python bot does as it starts, so
    that each bot process inherits it done (the first ArgumentParser of a process alone costs
    ~4 ms).  Trusted code on made-up input; nothing is configured (no logging handler, no
    gRPC core: its threads would not survive a fork)."""
    parser = argparse.ArgumentParser(prog="bot", description="warm-up")
    parser.add_argument("--address")
    parser.add_argument("--port")
    parser.add_argument("--ignore-stdin", action="store_true")
    parser.parse_known_args(["--port", "1", "--other"])
    record = logging.LogRecord("warm-up", logging.INFO, __file__, 0, "%s", ("warm-up",), None)
    logging.Formatter("%(asctime)s warm-up %(levelname)s %(message)s").format(record)
    for name in ("DescribeRequest", "DescribeReply", "StartMatchRequest", "StartMatchReply", "DecisionRequest",
                 "DecisionReply", "EndMatchRequest", "EndMatchReply"):
        message = getattr(bot_pb2, name)
        message.FromString(message().SerializeToString())


# -- the fork server ---------------------------------------------------------------------------


def _serve(control_fd: int, host_pid: int, monitor: bool = False) -> dict[str, Any]:
    namespaces.die_with_parent(signal.SIGKILL)
    if os.getppid() != host_pid:
        os._exit(_PARENT_GONE)
    control = socket.socket(fileno=control_fd)
    namespaces.set_name("arena-zygote")
    identity = (os.getpid(), os.getuid(), os.getgid(), namespaces.last_capability())
    # As root (in the initial user namespace), the zygote makes each sandbox's PID namespace
    # itself, and its child is the sandbox's init: no monitor process (see the module docstring).
    own_pid_ns = (os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
                  if namespaces.privileged() and not monitor else None)
    alive = os.pidfd_open(os.getpid())  # readable once the zygote has gone (its children look)
    wake_read, wake_write = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.set_wakeup_fd(wake_write)
    # What is imported now is shared by every child; the garbage collector leaves it alone
    # there, so that a child's collections do not copy every page of it.
    gc.freeze()
    control.sendall(b"R")
    poller = select.poll()
    poller.register(control.fileno(), select.POLLIN)
    poller.register(wake_read, select.POLLIN)
    poller.register(0, select.POLLIN)  # stdin: EOF when the host is gone
    while True:
        for fd, _ in poller.poll():
            if fd == 0:
                if not os.read(0, 4096):
                    os._exit(0)
            elif fd == wake_read:
                while True:
                    try:
                        if not os.read(wake_read, 4096):
                            break
                    except BlockingIOError:
                        break
                _reap(control)
            else:
                fds = _receive(control)
                if fds is None:
                    continue
                own = (control, (wake_read, wake_write, alive, own_pid_ns))
                if own_pid_ns is not None and _new_pid_namespace():
                    try:
                        pid = os.fork()
                    finally:
                        if os.getpid() == identity[0]:  # back to the zygote's own PID namespace for its children
                            namespaces.setns(own_pid_ns, namespaces.CLONE_NEWPID)
                    if pid == 0:
                        return _root_init(own, fds, identity, alive)
                    try:
                        os.write(fds[3], b"I" + struct.pack("=i", pid))  # the sandbox's init: this child
                    except OSError:
                        pass
                else:
                    pid = os.fork()
                    if pid == 0:
                        return _monitor(own, fds, identity)
                for received in fds:
                    os.close(received)
                pidfd = os.pidfd_open(pid)
                try:
                    control.sendmsg([b"P" + struct.pack("=i", pid)],
                                    [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [pidfd]))])
                finally:
                    os.close(pidfd)


def _new_pid_namespace() -> bool:
    """Make the zygote's next child pid 1 of a new PID namespace (False if the kernel refuses:
    that request gets a monitor instead)."""
    try:
        namespaces.unshare(namespaces.CLONE_NEWPID)
    except OSError as exc:
        sys.stderr.write(f"arena zygote: no PID namespace without a monitor: {exc}\n")
        return False
    return True


def _receive(control: socket.socket) -> list[int] | None:
    """A request's file descriptors, or None (and they are closed) when it is not a request."""
    try:
        data, ancillary, flags, _ = control.recvmsg(16, socket.CMSG_SPACE(_FDS_PER_REQUEST * 4),
                                                    socket.MSG_CMSG_CLOEXEC)
    except InterruptedError:
        return None
    if not data and not ancillary:
        os._exit(0)  # the host closed the channel
    fds: list[int] = []
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.extend(array.array("i", payload[:len(payload) - len(payload) % 4]))
    if data == _REQUEST and len(fds) == _FDS_PER_REQUEST and not flags & (socket.MSG_TRUNC | socket.MSG_CTRUNC):
        return fds
    for fd in fds:
        os.close(fd)
    sys.stderr.write("arena zygote: dropped a malformed request\n")
    return None


def _reap(control: socket.socket) -> None:
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        control.send(b"X" + struct.pack("=ii", pid, status))


# -- a sandbox: monitor, init, bot -----------------------------------------------------------------


def _fail(exc: BaseException) -> NoReturn:
    try:
        os.write(2, f"arena: the sandbox could not be set up: {type(exc).__name__}: {exc}\n".encode())
    finally:
        os._exit(_SETUP_FAILED)


def _exit_code(status: int) -> int:
    """A wait status as a shell reports it (128 + the signal for a killed process), as bubblewrap does."""
    if os.WIFEXITED(status):
        return os.WEXITSTATUS(status)
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return 255


def _leave_zygote(own: tuple[socket.socket, tuple[int | None, ...]], name: str) -> None:
    """First thing in a zygote's child: nothing of the zygote's (its channel, wake-up pipe and
    file descriptors closed, default signal handling); it dies with the zygote."""
    control, fds = own
    signal.set_wakeup_fd(-1)
    for sig in (signal.SIGCHLD, signal.SIGINT):
        signal.signal(sig, signal.SIG_DFL)
    os.close(control.detach())
    for fd in fds:
        if fd is not None and fd != fds[2]:  # the zygote's pidfd is closed by the caller once looked at
            os.close(fd)
    namespaces.die_with_parent(signal.SIGKILL)
    namespaces.set_name(name)


def _take_fds(fds: list[int]) -> dict[str, Any]:
    """The request's descriptors in place (stdin, stdout and stderr; the ready pipe as fd 3,
    nothing else open) and the configuration read."""
    config_fd, stdin_fd, output_fd, ready_fd = fds
    os.dup2(stdin_fd, 0)
    os.dup2(output_fd, 1)
    os.dup2(output_fd, 2)
    with os.fdopen(config_fd, "rb") as f:
        config = json.loads(f.read())
    if ready_fd != _READY_FD:
        os.dup2(ready_fd, _READY_FD, inheritable=False)
    os.closerange(_READY_FD + 1, os.sysconf("SC_OPEN_MAX"))
    return config


def _join_cgroups(config: dict[str, Any]) -> None:
    for path in config["cgroups"]:
        with open(path, "w") as f:
            f.write("0")  # this process (its pid as seen from the host is not its own pid here)


def _monitor(own: tuple[socket.socket, tuple[int | None, ...]], fds: list[int],
             identity: tuple[int, int, int, int]) -> dict[str, Any]:
    """The first process of a sandbox (see the module docstring); returns only in the bot."""
    zygote_pid, uid, gid, last_cap = identity
    try:
        _leave_zygote(own, "arena-monitor")
        os.close(own[1][2])  # type: ignore[arg-type]
        if os.getppid() != zygote_pid:
            os._exit(_PARENT_GONE)
        config = _take_fds(fds)
        os.setsid()
        _join_cgroups(config)
        namespaces.new_session_keyring()
        namespaces.unshare(namespaces.SANDBOX_NAMESPACES)
        namespaces.map_ids(uid, gid)
        alive_read, alive_write = os.pipe()  # the init's way to see that this process is gone
        pid = os.fork()
        if pid == 0:
            os.close(alive_write)
            return _init(config, alive_read, uid, gid, last_cap)
        os.close(alive_read)
        try:
            os.write(_READY_FD, b"I" + struct.pack("=i", pid))
        except OSError:
            pass  # the host is gone: PR_SET_PDEATHSIG ends this soon
        os.close(_READY_FD)
        namespaces.drop_privileges(last_cap)
    except BaseException as exc:
        _fail(exc)
    _, status = os.waitpid(pid, 0)
    os._exit(_exit_code(status))


def _init(config: dict[str, Any], alive: int, uid: int, gid: int, last_cap: int) -> dict[str, Any]:
    """Pid 1 of the sandbox (see the module docstring); returns only in the bot."""
    namespaces.die_with_parent(signal.SIGKILL)
    namespaces.set_name("arena-init")
    if select.select([alive], [], [], 0)[0]:  # EOF: the monitor died before the line above
        os._exit(_PARENT_GONE)
    os.close(alive)
    # The host's /proc, kept open to write this process's id maps once the sandbox's own
    # /proc is read-only (as bubblewrap does); closed before any bot code runs.
    host_proc = os.open("/proc", os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
    namespaces.build_root(config["layout"])
    socket.sethostname(config["hostname"])
    namespaces.loopback_up()
    return _run_init(config, uid, gid, last_cap, host_proc)


def _root_init(own: tuple[socket.socket, tuple[int | None, ...]], fds: list[int],
               identity: tuple[int, int, int, int], alive: int) -> dict[str, Any]:
    """Pid 1 of a sandbox the zygote made as root, its own child (no monitor): the same steps
    as the monitor's and the init's, in an order that root allows.  It joins the cgroups, a
    new session and session keyring, makes new mount, network, IPC, UTS and cgroup
    namespaces (owned by the initial user namespace: the bot, in a user namespace below,
    holds no capability over them), builds the file system, the host name and the
    loopback, then enters a new user namespace (its uid and gid mapped to themselves) and
    goes on as the monitor's init does.  Returns only in the bot."""
    _, uid, gid, last_cap = identity
    try:
        _leave_zygote(own, "arena-init")
        if select.select([alive], [], [], 0)[0]:  # the zygote died before the line above
            os._exit(_PARENT_GONE)
        os.close(alive)
        config = _take_fds(fds)
        os.setsid()
        _join_cgroups(config)
        namespaces.new_session_keyring()
        namespaces.unshare(namespaces.SANDBOX_NAMESPACES & ~(namespaces.CLONE_NEWUSER | namespaces.CLONE_NEWPID))
        host_proc = os.open("/proc", os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
        namespaces.build_root(config["layout"])
        socket.sethostname(config["hostname"])
        namespaces.loopback_up()
        namespaces.unshare(namespaces.CLONE_NEWUSER)
        namespaces.map_ids(uid, gid, host_proc)
        return _run_init(config, uid, gid, last_cap, host_proc)
    except BaseException as exc:
        _fail(exc)


def _run_init(config: dict[str, Any], uid: int, gid: int, last_cap: int, host_proc: int) -> dict[str, Any]:
    """The init's steps once it is in the sandbox's user namespace, its file system built."""
    namespaces.disable_user_namespaces(uid, gid, host_proc)
    os.close(host_proc)
    import resource

    for name, value in config["rlimits"]:
        resource.setrlimit(getattr(resource, name), (value, value))
    namespaces.drop_privileges(last_cap)
    namespaces.check_unprivileged()
    namespaces.set_dumpable(False)  # the bot cannot trace it nor read its memory
    os.chdir(config["working_dir"])
    for sig in (signal.SIGHUP, signal.SIGINT, signal.SIGQUIT, signal.SIGTERM, signal.SIGUSR1, signal.SIGUSR2,
                signal.SIGPIPE, signal.SIGALRM):
        signal.signal(sig, signal.SIG_IGN)
    relay = config.get("relay")
    path = config["socket"]
    watch = namespaces.watch_folder(os.path.dirname(path))
    bot = os.fork()
    if bot == 0:
        return bot_process(config)
    _await_socket(bot, path, watch, relay, _reaping_orphans())
    os.close(_READY_FD)
    while True:
        pid, status = os.wait()
        if pid == bot:
            os._exit(_exit_code(status))


def _reaping_orphans() -> int:
    """The init's SIGCHLD, while it waits for the bot's socket: a pipe (the signal's wake-up
    fd) that becomes readable when a child of the init ends, so that it reaps orphans then
    too (see :func:`_reap_orphans`).  Undone by :func:`_await_socket` on its way out."""
    wake_read, wake_write = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.set_wakeup_fd(wake_write, warn_on_full_buffer=False)
    return wake_read


def _stop_reaping_orphans(wake_read: int) -> None:
    wake_write = signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    for fd in (wake_read, wake_write):
        if fd >= 0:
            os.close(fd)


def _reap_orphans(bot: int) -> None:
    """Reap every child of the init that has ended, except the bot: the bot's orphans (and a
    relay) that the kernel gave to pid 1.  The bot's own status is left for the init's last
    loop, which exits with it; while the bot is a zombie this stops (that loop reaps the rest)."""
    while True:
        try:
            info = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return
        if info is None or info.si_pid == bot:
            return
        os.waitpid(info.si_pid, 0)


def _await_socket(bot: int, path: str, watch: int, relay: list[Any] | None, wake: int) -> None:
    """Wait (inotify, no polling) for the bot's socket to appear, then say ``S`` on the ready pipe.

    A ``{port}`` bot (``relay``) that has not made the socket itself within a grace period
    (the SDK makes it within milliseconds) gets the relay, which makes it once the bot
    listens on its port.  Returns at once, saying nothing, if the bot exits first; a bot
    that never listens is stopped by the host when its ready timeout runs out.  Meanwhile
    the orphans the bot leaves are reaped as they end (``wake``: from :func:`_reaping_orphans`),
    not left as zombies until the bot listens."""
    pidfd = os.pidfd_open(bot)
    try:
        deadline = time.monotonic() + _RELAY_GRACE_S if relay else None
        _reap_orphans(bot)  # any that ended before SIGCHLD was caught
        while not os.path.lexists(path):
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready = select.select([watch, pidfd, wake], [], [], left)[0]
            if pidfd in ready:
                return
            if wake in ready:
                _drain(wake)
                _reap_orphans(bot)
            if not ready:  # the grace period is over: the relay makes the socket when the port listens
                if relay is not None and os.fork() == 0:
                    _relay(*relay)
                deadline = None
                continue
            if watch in ready:
                _drain(watch)
        try:
            os.write(_READY_FD, b"S")
        except OSError:
            pass
    finally:
        os.close(pidfd)
        os.close(watch)
        _stop_reaping_orphans(wake)


def _drain(fd: int) -> None:
    try:
        while os.read(fd, 65536):
            pass
    except BlockingIOError:
        pass


def _relay(port: int, path: str) -> NoReturn:
    namespaces.die_with_parent(signal.SIGKILL)
    signal.set_wakeup_fd(-1)  # the init's (its pipe is closed just below)
    os.closerange(3, os.sysconf("SC_OPEN_MAX"))  # the ready pipe, the init's watch
    python_signals()
    scope: dict[str, Any] = {"__name__": "arena-relay"}
    try:
        exec(RELAY_LOOP, scope)
        scope["relay"](port, path)
    finally:
        os._exit(0)
