"""CPU time of the benchmark process and of everything it starts, however they end.

``resource.getrusage(RUSAGE_CHILDREN)`` counts only children that were waited for, with
the children *they* waited for: a sandbox killed as a whole, or one started by the
zygote (whose parent is the zygote, not the host), hands nothing up.  So where it can,
:class:`TreeCpu` moves this process into a ``cpuacct`` cgroup of its own (cgroup v1, as
root): every process it starts from then on is counted there whatever happens to it (the
bots' own cgroups are in other hierarchies), and :meth:`TreeCpu.seconds` reads the total.
Elsewhere it falls back to rusage (``exact`` is then False).
"""

from __future__ import annotations

import os
import resource
import time
from pathlib import Path

_CPUACCT = Path("/sys/fs/cgroup/cpuacct")


def _rusage_seconds() -> float:
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    return total


def _descendants(pid: int) -> list[int]:
    """Every live descendant of ``pid`` (the zygote a host started earlier, its sandboxes...)."""
    found, todo = [], [pid]
    while todo:
        parent = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{parent}/task")
        except OSError:
            continue
        for tid in tasks:
            try:
                children = Path(f"/proc/{parent}/task/{tid}/children").read_text().split()
            except OSError:
                continue
            for child in map(int, children):
                found.append(child)
                todo.append(child)
    return found


def _own_cpuacct() -> Path | None:
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if "cpuacct" in controllers.split(","):
            return _CPUACCT / path.lstrip("/")
    return None


class TreeCpu:
    """A context manager: ``seconds()`` is the CPU time used since entering by this process and
    by every process started inside (exact with a cpuacct cgroup; see the module docstring)."""

    def __init__(self) -> None:
        self.exact = False
        self._home: Path | None = None
        self._group: Path | None = None
        self._start = 0.0

    def __enter__(self) -> "TreeCpu":
        home = _own_cpuacct()
        if home is not None and (home / "cgroup.procs").exists():
            group = home / f"arena-bench-{os.getpid()}"
            try:
                group.mkdir()
                (group / "cgroup.procs").write_text(str(os.getpid()))
                self._home, self._group, self.exact = home, group, True
                for pid in _descendants(os.getpid()):  # a zygote already running forks in here too
                    try:
                        (group / "cgroup.procs").write_text(str(pid))
                    except OSError:
                        pass
            except OSError:
                try:
                    group.rmdir()
                except OSError:
                    pass
        self._start = self._now()
        return self

    def _now(self) -> float:
        if self._group is not None:
            return int((self._group / "cpuacct.usage").read_text()) / 1e9
        return _rusage_seconds()

    def seconds(self) -> float:
        return self._now() - self._start

    def __exit__(self, *exc_info: object) -> None:
        group, home = self._group, self._home
        if group is None or home is None:
            return
        # Everything still in the group (this process, a zygote and its sandboxes) goes home.
        deadline = time.monotonic() + 2.0
        while True:
            try:
                pids = (group / "cgroup.procs").read_text().split()
            except OSError:
                break
            for pid in pids:
                try:
                    (home / "cgroup.procs").write_text(pid)
                except OSError:
                    pass
            try:
                group.rmdir()
                break
            except OSError:
                if time.monotonic() > deadline:
                    break
                time.sleep(0.02)
        self._group = None
