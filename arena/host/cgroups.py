"""Control groups for sandboxed bots: limits, freezing between decisions, killing a whole tree.

One cgroup per bot process tree, below one per host process (``arena-<pid>``),
below the host's own cgroup.  Two layouts:

- cgroup v2 (most current systems): a delegated subtree where the host may write
  (as root, or under ``systemd-run --user -p Delegate=yes``).  ``memory.max``,
  ``pids.max``, ``cpu.max``, ``cgroup.freeze``, ``cgroup.kill``,
  ``memory.events`` (``oom_kill``).  If the host's own cgroup holds processes, the
  controllers cannot be handed down ("no internal processes"), so the host first
  moves itself into a leaf ``arena-host-<pid>``.
- cgroup v1 (as root): one folder per controller: ``memory``, ``pids``, ``cpu``,
  ``freezer``; where a v2 hierarchy is mounted beside them (hybrid systems), its
  ``cgroup.freeze`` and ``cgroup.kill`` are used when the v1 freezer is missing.

:func:`open_cgroups` says what this host can enforce; what it cannot is left to
rlimits by :mod:`arena.host.process`, and recorded with every match.
"""

from __future__ import annotations

import atexit
import os
import secrets
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from arena.host.sandbox import Limits

CGROUP_ROOT = Path("/sys/fs/cgroup")
_CFS_PERIOD_US = 100_000


def _write(path: Path, text: str) -> None:
    with open(path, "w") as f:
        f.write(text)


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def _own_paths() -> dict[str, str]:
    """This process's cgroup path per v1 controller, and ``""`` for the v2 hierarchy."""
    paths: dict[str, str] = {}
    for line in _read(Path("/proc/self/cgroup")).splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, path = parts
        if not controllers:
            paths[""] = path
        for name in controllers.split(","):
            paths[name] = path
    return paths


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@dataclass
class BotCgroup:
    """The cgroup folders of one bot's process tree (one per v1 controller, or one v2 folder)."""

    dirs: dict[str, Path]  # "memory" / "pids" / "cpu" / "freezer" (v1) or "v2" / "v2freeze" -> folder
    _frozen: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock)
    #: The freezer's control file, kept open: opening and closing it at every call cost ~0.1 ms
    #: of CPU and ~0.5 ms of latency per freeze and thaw (kernfs), twice per decision.
    _freezer_fd: int | None = None
    _killed: bool = False
    #: kill_all found it empty (then killed and thawed for good).
    _emptied: bool = False

    @classmethod
    def of_folder(cls, folder: Path) -> "BotCgroup":
        """A cgroup folder found on disk (left by another host), keyed so that it can be thawed."""
        key = "freezer" if (folder / "freezer.state").exists() else \
            "v2freeze" if (folder / "cgroup.freeze").exists() else "other"
        return cls({key: folder})

    @property
    def procs_files(self) -> list[str]:
        """The ``cgroup.procs`` files a new process writes its pid to, to join every folder."""
        return [str(d / "cgroup.procs") for d in self.dirs.values()]

    def pids(self) -> list[int]:
        """The processes of the tree.  Every process joins all the folders at once, before it
        starts anything (and a bot cannot move itself: it has no cgroup file system), so one
        folder's list is the tree's (each read costs a kernfs open)."""
        d = self.dirs.get("pids") or self.dirs.get("freezer") or next(iter(self.dirs.values()), None)
        if d is None:
            return []
        return sorted(int(word) for word in _read(d / "cgroup.procs").split())

    # -- freezing ----------------------------------------------------------------

    def can_freeze(self) -> bool:
        return "freezer" in self.dirs or "v2" in self.dirs or "v2freeze" in self.dirs

    def _set_frozen(self, frozen: bool) -> None:
        if self._killed:
            return
        try:
            if self._freezer_fd is None:
                if "freezer" in self.dirs:
                    path = self.dirs["freezer"] / "freezer.state"
                else:
                    d = self.dirs.get("v2") or self.dirs.get("v2freeze")
                    if d is None:
                        return
                    path = d / "cgroup.freeze"
                self._freezer_fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
            if "freezer" in self.dirs:
                os.write(self._freezer_fd, b"FROZEN" if frozen else b"THAWED")
            else:
                os.write(self._freezer_fd, b"1" if frozen else b"0")
        except OSError:
            pass  # the cgroup is gone: the bot is being stopped

    def _close_freezer(self) -> None:
        if self._freezer_fd is not None:
            os.close(self._freezer_fd)
            self._freezer_fd = None

    def freeze(self) -> None:
        with self._lock:
            if not self._frozen:
                self._set_frozen(True)
                self._frozen = True

    def thaw(self) -> None:
        with self._lock:
            if self._frozen:
                self._set_frozen(False)
                self._frozen = False

    # -- accounting ----------------------------------------------------------------

    def oom_kills(self) -> int:
        """How many processes of the tree the kernel killed for going over the memory limit."""
        if "memory" in self.dirs:
            text = _read(self.dirs["memory"] / "memory.oom_control")
        elif "v2" in self.dirs:
            text = _read(self.dirs["v2"] / "memory.events")
        else:
            return 0
        for line in text.splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill" and value.strip().isdigit():
                return int(value)
        return 0

    # -- the end -------------------------------------------------------------------

    def kill_all(self, timeout: float = 3.0) -> bool:
        """SIGKILL every process in the tree, then thaw it (a frozen v1 task cannot die: thawed with
        the signal already pending, it dies before it runs anything); True when empty."""
        with self._lock:
            self._frozen = self._killed = True  # never freeze or thaw it again
            self._close_freezer()
            for pid in self.pids():
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            if "freezer" in self.dirs:
                try:
                    _write(self.dirs["freezer"] / "freezer.state", "THAWED")
                except OSError:
                    pass
            for key in ("v2", "v2freeze"):
                if key in self.dirs and (self.dirs[key] / "cgroup.kill").exists():
                    try:
                        _write(self.dirs[key] / "cgroup.kill", "1")
                    except OSError:
                        pass
        deadline = time.monotonic() + timeout
        while True:
            pids = self.pids()
            if not pids:
                self._emptied = True
                return True
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            if time.monotonic() > deadline:
                return False
            time.sleep(0.01)

    def remove(self, timeout: float = 2.0) -> None:
        """Kill what is left and remove the folders (retrying while the last processes exit)."""
        if not self._emptied or self.pids():  # emptied by kill_all already: one look suffices
            self.kill_all(timeout)
        deadline = time.monotonic() + timeout
        for d in self.dirs.values():
            while True:
                try:
                    d.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        break
                    time.sleep(0.01)


@dataclass
class CgroupHost:
    """The per-host cgroup parents (one per controller) new bot cgroups are made in."""

    parents: dict[str, Path]
    enforced: frozenset[str]  # which limits the cgroups enforce: "memory", "pids", "cpus", "freeze"
    kind: str  # "v1", "v2" or "v1+v2"
    reaper: subprocess.Popen[bytes] | None = None  # cleans up after this host, however it ends

    def create(self, limits: Limits | None) -> BotCgroup:
        """A new bot cgroup with ``limits`` set (None: only to kill its tree; OSError if the kernel refuses)."""
        # A random name, not a count: a sandbox's first processes know their cgroup's path,
        # and a count would tell a bot how many bots this host has started.
        name = f"bot-{secrets.token_hex(8)}"
        dirs: dict[str, Path] = {}
        try:
            for key, parent in self.parents.items():
                d = parent / name
                d.mkdir()
                dirs[key] = d
            cgroup = BotCgroup(dirs)
            if limits is not None:
                _apply_limits(dirs, limits)
        except OSError:
            BotCgroup(dirs).remove(0.5)
            raise
        return cgroup

    def close(self) -> None:
        """Remove the per-host folders (their bots' folders are gone by now)."""
        if self.reaper is not None and self.reaper.stdin is not None:
            self.reaper.stdin.close()  # it kills and removes whatever is left, then exits
            try:
                self.reaper.wait(15)
            except subprocess.TimeoutExpired:
                pass
        for parent in self.parents.values():
            _sweep(parent, only_dead=False)
            try:
                parent.rmdir()
            except OSError:
                pass


def _apply_limits(dirs: dict[str, Path], limits: Limits) -> None:
    memory = limits.memory_mb << 20
    quota = max(1000, int(limits.cpus * _CFS_PERIOD_US))
    if "memory" in dirs:
        _write(dirs["memory"] / "memory.limit_in_bytes", str(memory))
        swap = dirs["memory"] / "memory.memsw.limit_in_bytes"
        if swap.exists():
            _write(swap, str(memory))
    if "pids" in dirs:
        _write(dirs["pids"] / "pids.max", str(limits.pids))
    if "cpu" in dirs:
        _write(dirs["cpu"] / "cpu.cfs_period_us", str(_CFS_PERIOD_US))
        _write(dirs["cpu"] / "cpu.cfs_quota_us", str(quota))
    if "v2" in dirs:
        d = dirs["v2"]
        for file, value in (("memory.max", str(memory)), ("memory.swap.max", "0"), ("pids.max", str(limits.pids)),
                            ("cpu.max", f"{quota} {_CFS_PERIOD_US}")):
            if (d / file).exists():
                _write(d / file, value)


def _start_reaper(parents: list[Path]) -> subprocess.Popen[bytes] | None:
    """Started once per host with the per-host cgroup folders (``python -m arena.host.cgroups``):
    it waits for its stdin to reach EOF (the host closed it, or died, even by SIGKILL), then
    thaws, kills and removes every bot cgroup left.  Needed because a frozen cgroup v1 task
    cannot die, not even of SIGKILL, so a host killed while its bots are frozen would leave
    them frozen for ever."""
    import sys

    try:
        return subprocess.Popen([sys.executable, "-I", "-m", "arena.host.cgroups", *map(str, parents)],
                                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True, close_fds=True)
    except OSError:
        return None


def _reap(parents: list[Path]) -> None:
    """The reaper's work (see :func:`_start_reaper`)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        while os.read(0, 4096):
            pass
    except OSError:
        pass
    for parent in parents:  # the freezer's first: a thawed tree can die
        _sweep(parent, only_dead=False)
        BotCgroup({"x": parent}).remove(2.0)


def _sweep(parent: Path, *, only_dead: bool) -> None:
    """Remove bot cgroups left in ``parent`` (by a host that was SIGKILLed), killing what is left."""
    try:
        children = [c for c in parent.iterdir() if c.is_dir()]
    except OSError:
        return
    for child in children:
        if only_dead:
            pid = child.name.removeprefix("arena-")
            if not (child.name.startswith("arena-") and pid.isdigit()) or _pid_alive(int(pid)):
                continue
            _sweep(child, only_dead=False)
        BotCgroup.of_folder(child).remove(0.5)


def _v1_parents() -> dict[str, Path]:
    own = _own_paths()
    parents: dict[str, Path] = {}
    for controller in ("freezer", "memory", "pids", "cpu"):  # thaw first: a frozen v1 task cannot die
        mount = CGROUP_ROOT / controller
        if not (mount / "cgroup.procs").exists() or controller not in own:
            continue
        base = mount / own[controller].lstrip("/")
        _sweep(base, only_dead=True)
        parent = base / f"arena-{os.getpid()}"
        try:
            parent.mkdir(exist_ok=True)
        except OSError:
            continue
        parents[controller] = parent
    return parents


def _v2_parent(mount: Path, want_controllers: bool) -> tuple[Path | None, frozenset[str]]:
    """A per-host folder in the v2 hierarchy at ``mount`` and the controllers its children get."""
    own = _own_paths().get("")
    if own is None or not (mount / "cgroup.procs").exists():
        return None, frozenset()
    base = mount / own.lstrip("/")
    _sweep(base, only_dead=True)
    available = set(_read(base / "cgroup.controllers").split()) & {"memory", "pids", "cpu"}
    parent = base / f"arena-{os.getpid()}"
    try:
        parent.mkdir(exist_ok=True)
    except OSError:
        return None, frozenset()
    enabled: set[str] = set()
    if want_controllers and available:
        enabled = _delegate(base, parent, available)
    return parent, frozenset(enabled)


def _delegate(base: Path, parent: Path, controllers: set[str]) -> set[str]:
    """Enable ``controllers`` for the bots below ``parent``; the set actually enabled."""
    wanted = " ".join(f"+{c}" for c in sorted(controllers))
    try:
        _write(base / "cgroup.subtree_control", wanted)
    except OSError:
        # "No internal processes": the host sits in ``base``; move it into a leaf first.
        leaf = base / f"arena-host-{os.getpid()}"
        try:
            leaf.mkdir(exist_ok=True)
            _write(leaf / "cgroup.procs", str(os.getpid()))
            _write(base / "cgroup.subtree_control", wanted)
        except OSError:
            return set()
    try:
        _write(parent / "cgroup.subtree_control", wanted)
    except OSError:
        return set()
    return set(_read(parent / "cgroup.subtree_control").split()) & controllers


_host_lock = threading.Lock()
_host: CgroupHost | None | bool = False  # False: not looked at yet


def open_cgroups() -> CgroupHost | None:
    """This host's cgroup parents (made once per process), or None where none can be made."""
    global _host
    with _host_lock:
        if _host is False:
            _host = _detect()
        return _host  # type: ignore[return-value]


def _detect() -> CgroupHost | None:
    host = _detect_layout()
    if host is not None:
        host.reaper = _start_reaper(list(host.parents.values()))
        atexit.register(close_cgroups)
    return host


def _detect_layout() -> CgroupHost | None:
    if os.environ.get("ARENA_NO_CGROUPS"):
        return None
    if (CGROUP_ROOT / "cgroup.controllers").exists():  # pure v2
        parent, enabled = _v2_parent(CGROUP_ROOT, want_controllers=True)
        if parent is None:
            return None
        enforced = {"pids" if c == "pids" else "cpus" if c == "cpu" else c for c in enabled} | {"freeze", "kill"}
        return CgroupHost({"v2": parent}, frozenset(enforced), "v2")
    parents = _v1_parents()
    enforced = {"memory": "memory", "pids": "pids", "cpu": "cpus", "freezer": "freeze"}
    found = {enforced[c] for c in parents}
    kind = "v1"
    if "freezer" not in parents:
        v2, _ = _v2_parent(CGROUP_ROOT / "unified", want_controllers=False)
        if v2 is not None:
            parents["v2freeze"] = v2
            found |= {"freeze", "kill"}
            kind = "v1+v2"
    if not parents:
        return None
    return CgroupHost(parents, frozenset(found), kind)


def close_cgroups() -> None:
    """Remove this host's cgroup parents (at exit; bots' own folders are removed as they stop)."""
    global _host
    with _host_lock:
        if isinstance(_host, CgroupHost):
            _host.close()
        _host = False


if __name__ == "__main__":
    import sys

    _reap([Path(p) for p in sys.argv[1:]])
