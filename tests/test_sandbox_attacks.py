"""Attacks on the sandbox: one hostile bot per attack (``tests/hostile_bots/``), each in a
real sandboxed match (real processes, real gRPC) against a real, honest bot, and what
must hold afterwards: the attack failed, the match completed, the fault is recorded when
there is one, nothing is left running or written outside the sandbox.

The hostile bots report what they saw on stderr, one ``PROBE <kind> <target> OK|DENIED
<detail>`` line per attempt, which the tests read from the pool's log.  Targets that
exist only once the match's processes do (the opponent's pids and socket) reach the bot
through a ``targets.json`` the test writes into the bot's folder (a copy in ``tmp_path``,
bound read-only into its sandbox, so it sees the file appear); fixed ones through the
``[env]`` table of a generated manifest.

Skipped where bubblewrap cannot run, except under ``CI=true``, where it must.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import glob
import json
import os
import platform
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
import tomllib
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import grpc
import pytest

from arena.games import get_game
from arena.host.cgroups import open_cgroups
from arena.host.clock import Clocks
from arena.host.manifest import BotSpec, load_manifest
from arena.host.match import MatchConfig, run_match
from arena.host.pool import BotHandle, BotPool
from arena.host.process import BotProcess, free_port
from arena.host.sandbox import IsolationPolicy, Limits, require_sandbox, sandbox_available
from arena.records import FaultReason, MatchRecord, MatchTermination
from arena.v1 import bot_pb2_grpc
from tests.bot_ready import wait_ready

ROOT = Path(__file__).resolve().parents[1]
HOSTILE = ROOT / "tests" / "hostile_bots"
RANDOM_BOT = ROOT / "sample_bots" / "python" / "random_bot"
GAME = get_game("union_pacific")
FAST = MatchConfig(clocks=Clocks(decision_ms=200, bank_ms=2000))
IN_CI = os.environ.get("CI") == "true"

pytestmark = pytest.mark.skipif(not sandbox_available() and not IN_CI,
                                reason="bubblewrap cannot create a sandbox here (see arena.host.sandbox)")


@pytest.fixture(autouse=True)
def _the_sandbox_works() -> None:
    """Under CI=true these tests run: a sandbox that cannot work is a failure, with the reason."""
    require_sandbox()


def _needs_cgroup(limit: str) -> None:
    """Skip (fail under CI as root) where the host's cgroups do not enforce ``limit``."""
    host = open_cgroups()
    if host is not None and limit in host.enforced:
        return
    if IN_CI and os.geteuid() == 0:
        pytest.fail(f"CI=true as root, but the cgroups do not enforce {limit!r}")
    pytest.skip(f"this host's cgroups do not enforce {limit!r}")


# -- the bots -----------------------------------------------------------------------------


def _toml(data: dict[str, Any]) -> str:
    """A manifest as TOML (strings, lists of strings and one [env] table: JSON quoting is TOML's)."""
    lines = [f"{key} = {json.dumps(value)}" for key, value in data.items() if key != "env"]
    if data.get("env"):
        lines += ["", "[env]", *(f"{key} = {json.dumps(value)}" for key, value in data["env"].items())]
    return "\n".join(lines) + "\n"


def hostile(tmp_path: Path, name: str, **env: object) -> BotSpec:
    """A copy of ``tests/hostile_bots/<name>`` in ``tmp_path``, its manifest's [env] updated."""
    destination = tmp_path / "bots" / name
    shutil.copytree(HOSTILE / name, destination, ignore=shutil.ignore_patterns("__pycache__"))
    data = tomllib.loads((HOSTILE / name / "bot.toml").read_text())
    data["env"] = {**data.get("env", {}), **{key: str(value) for key, value in env.items()}}
    (destination / "bot.toml").write_text(_toml(data))
    return BotSpec(manifest=load_manifest(destination))


def honest(path: Path = RANDOM_BOT) -> BotSpec:
    return BotSpec(manifest=load_manifest(path))


def give_targets(spec: BotSpec, targets: dict[str, Any]) -> None:
    """Write ``targets.json`` into the bot's folder, atomically (the bot polls for it)."""
    assert spec.manifest is not None
    folder = spec.manifest.working_dir
    scratch = folder / ".targets.json.part"
    scratch.write_text(json.dumps(targets))
    scratch.replace(folder / "targets.json")


def sandbox_pool(tmp_path: Path, limits: Limits | None = None, name: str = "logs") -> BotPool:
    return BotPool(policy=IsolationPolicy.sandbox(limits or Limits()), game="union_pacific",
                   log_dir=tmp_path / name)


# -- what the bots said -------------------------------------------------------------------

_PROBE = re.compile(r"^PROBE (\S+) (\S+) (OK|DENIED)(?: (.*))?$", re.MULTILINE)


@dataclass(frozen=True)
class Probe:
    kind: str
    target: str
    ok: bool
    detail: str

    def __str__(self) -> str:
        return f"{self.kind} {self.target} {'OK' if self.ok else 'DENIED'} {self.detail}"


def probes(pool: BotPool, spec: BotSpec, kind: str | None = None) -> list[Probe]:
    log = pool.log_path(spec)
    assert log is not None
    text = log.read_text(errors="replace") if log.exists() else ""
    found = [Probe(m[1], m[2], m[3] == "OK", m[4] or "") for m in _PROBE.finditer(text)]
    return [p for p in found if kind is None or p.kind == kind]


def the_probe(pool: BotPool, spec: BotSpec, kind: str, target: str) -> Probe:
    found = [p for p in probes(pool, spec, kind) if p.target == target]
    assert found, f"the bot never reported '{kind} {target}'; its log:\n{_log_tail(pool, spec)}"
    return found[0]


def _log_tail(pool: BotPool, spec: BotSpec, chars: int = 3000) -> str:
    log = pool.log_path(spec)
    return log.read_text(errors="replace")[-chars:] if log is not None and log.exists() else "(no log)"


# -- a match, watched from the host ------------------------------------------------------------


def _start_time(pid: int) -> str | None:
    """The process's start time (to tell it from a later process with the same pid), None if gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return None if fields[0] in ("Z", "X") else fields[19]  # a zombie is not running


@dataclass
class Played:
    """A match and what the host side saw of its bot processes while it ran."""

    record: MatchRecord | None = None
    handles: dict[int, list[BotHandle]] = field(default_factory=dict)  # seat -> handles (restarts too)
    processes: dict[int, str] = field(default_factory=dict)  # every host pid seen in a bot's cgroup -> start
    socket_dirs: set[Path] = field(default_factory=set)
    cgroup_dirs: set[Path] = field(default_factory=set)
    seat_processes: dict[int, set[int]] = field(default_factory=dict)  # seat -> host pids seen

    def seat_pids(self, seat: int) -> set[int]:
        return self.seat_processes.get(seat, set())

    def note(self, seat: int, handle: BotHandle) -> None:
        process = handle.process
        if process is None:
            return
        socket_dir = getattr(process, "socket_dir", None)  # a host folder bound into the sandbox, if any
        if socket_dir is not None:
            self.socket_dirs.add(socket_dir)
        pids = [process.pid]
        if process.cgroup is not None:
            self.cgroup_dirs.update(process.cgroup.dirs.values())
            pids += process.cgroup.pids()
        self.seat_processes.setdefault(seat, set()).update(pids)
        for pid in pids:
            if pid not in self.processes:
                start = _start_time(pid)
                if start is not None:
                    self.processes[pid] = start


def play(pool: BotPool, seats: list[BotSpec], *, seed: int, config: MatchConfig = FAST,
         on_ready: Callable[[dict[int, BotHandle]], None] | None = None,
         watch: Callable[[Played], None] | None = None) -> Played:
    """``run_match`` in a thread while this one watches the pool: it notes every bot process
    (its pids, its whole cgroup, its socket folder), calls ``on_ready`` once every manifest
    seat has its process (before any StartMatch), and ``watch`` every few milliseconds."""
    match_id = f"attack-{uuid.uuid4().hex[:16]}"
    played = Played()
    outcome: dict[str, Any] = {}

    def match() -> None:
        try:
            outcome["record"] = run_match(pool, seats, seed=seed, match_id=match_id, config=config, game=GAME)
        except BaseException as exc:  # re-raised below, in the test's thread
            outcome["error"] = exc

    thread = threading.Thread(target=match, name="attack-match", daemon=True)
    thread.start()
    manifest_seats = {i for i, spec in enumerate(seats) if spec.manifest is not None}
    ready_called = on_ready is None
    while True:
        alive = thread.is_alive()
        for handle in pool.running():
            if handle.lease is None or not handle.lease.startswith(match_id + "/"):
                continue
            seat = int(handle.lease.rsplit("/", 1)[1])
            known = played.handles.setdefault(seat, [])
            if all(h is not handle for h in known):
                known.append(handle)
            played.note(seat, handle)
        try:
            if not ready_called and manifest_seats <= set(played.handles):
                ready_called = True
                assert on_ready is not None
                on_ready({seat: handles[0] for seat, handles in played.handles.items()})
            if watch is not None:
                watch(played)
        except BaseException as exc:  # let the match end first (the bot waits a few seconds at most)
            outcome.setdefault("watcher_error", exc)
            watch = None
        if not alive:
            break
        time.sleep(0.005)
    thread.join()
    for key in ("watcher_error", "error"):
        if key in outcome:
            raise outcome[key]
    played.record = outcome["record"]
    return played


def assert_completed(record: MatchRecord | None) -> MatchRecord:
    assert record is not None
    assert record.termination in (MatchTermination.NORMAL, MatchTermination.STALEMATE, MatchTermination.FORFEIT)
    assert record.extra["decisions"] > 20, "the match did not get anywhere"
    assert record.replay["match"]["isolation"]["level"] == "sandbox"
    return record


def assert_unharmed(record: MatchRecord, seat: int) -> None:
    result = record.seats[seat]
    assert not result.faults, f"the honest seat {seat} has faults: {result.faults}"
    assert not result.forfeited, f"the honest seat {seat} forfeited"


def assert_nothing_left(*games: Played, timeout: float = 5.0) -> None:
    """After the pool is closed: no process seen in a bot's cgroup runs, no socket folder and
    no bot cgroup folder is left."""
    deadline = time.monotonic() + timeout
    while True:
        running = {pid: start for g in games for pid, start in g.processes.items() if _start_time(pid) == start}
        if not running or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert not running, f"bot processes still running after the pool closed: {_describe_pids(running)}"
    left = [d for g in games for d in g.socket_dirs if d.exists()]
    assert not left, f"socket folders left: {left}"
    cgroups = [d for g in games for d in g.cgroup_dirs if d.exists()]
    assert not cgroups, f"bot cgroup folders left: {cgroups}"


def _describe_pids(pids: dict[int, str]) -> str:
    out = []
    for pid in pids:
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")[:120]
            out.append(f"{pid} {cmdline!r}")
        except OSError:
            out.append(str(pid))
    return "; ".join(out)


# -- 1. reading what it must not ---------------------------------------------------------------


@dataclass
class ReaderRun:
    pool: BotPool
    reader: BotSpec
    played: Played
    targets: dict[str, Any]
    secrets: list[str]  # the store's row, the host's marker variable's value, ARENA_DB's value


@pytest.fixture(scope="module")
def reader_run(tmp_path_factory: pytest.TempPathFactory) -> ReaderRun:
    """One match of the reader against the random bot, the host holding secrets: a SQLite
    store with a secret row, ARENA_DB naming it and a marker variable in its environment."""
    require_sandbox()
    tmp_path = tmp_path_factory.mktemp("reader")
    secret = f"secret-{uuid.uuid4().hex}"
    store = tmp_path / "store" / "arena.sqlite"
    store.parent.mkdir()
    db = sqlite3.connect(store)
    with db:
        db.execute("CREATE TABLE vault (secret TEXT)")
        db.execute("INSERT INTO vault VALUES (?)", (secret,))
    db.close()
    marker = f"marker-{uuid.uuid4().hex}"
    reader = hostile(tmp_path, "reader", READER_LEVEL="3")
    opponent = honest()
    host = os.getpid()
    targets: dict[str, Any] = {}
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setenv("ARENA_DB", f"sqlite:///{store}")
        monkeypatch.setenv("SANDBOX_TEST_HOST_MARKER", marker)
        with sandbox_pool(tmp_path) as pool:

            def aim(handles: dict[int, BotHandle]) -> None:
                other = handles[1].process
                assert other is not None
                other_pids = sorted({other.pid, *other.bot_pids()})
                proc_files = [f"/proc/{pid}/{name}" for pid in (host, os.getppid(), *other_pids)
                              for name in ("cmdline", "environ")]
                targets.update({
                    "secrets": [secret, marker, str(store)],
                    "read": [str(store), str(RANDOM_BOT / "bot.py"), str(RANDOM_BOT / "bot.toml"),
                             str(pool.log_path(opponent)), *proc_files, "/etc/shadow",
                             # its own sandbox's first process (bubblewrap) and itself
                             "/proc/1/environ", "/proc/1/cmdline", "/proc/self/environ"],
                    "open": [f"/proc/{pid}/mem" for pid in (host, *other_pids)],
                    "list": [str(store.parent), str(RANDOM_BOT), str(pool.log_dir),
                             *[f"/proc/{pid}/root/" for pid in other_pids]],
                    "sqlite": [str(store)],
                })
                give_targets(reader, targets)

            played = play(pool, [reader, opponent], seed=11, on_ready=aim)
    return ReaderRun(pool, reader, played, targets, [secret, marker, str(store)])


#: Files of its own sandbox the bot may read (what they must not hold is checked apart).
_OWN_SANDBOX = ("/proc/1/environ", "/proc/1/cmdline", "/proc/self/environ")


def test_a_bot_cannot_read_the_store_other_bots_or_the_host(reader_run: ReaderRun) -> None:
    pool, reader, targets = reader_run.pool, reader_run.reader, reader_run.targets
    record = assert_completed(reader_run.played.record)
    assert_unharmed(record, 1)
    assert not record.seats[0].faults, record.seats[0].faults
    seen = probes(pool, reader)
    assert any(p.kind == "done" for p in seen), _log_tail(pool, reader)
    own = str(reader.manifest.working_dir)  # type: ignore[union-attr]
    got_through = [str(p) for p in seen if p.ok and p.kind in ("read", "open", "list", "sqlite", "write")
                   and not p.target.startswith(own) and p.target not in _OWN_SANDBOX]
    assert not got_through, "the bot read what it must not:\n" + "\n".join(got_through)
    for kind in ("read", "open", "list", "sqlite"):
        assert {p.target for p in seen if p.kind == kind} >= set(targets[kind]), f"not every {kind} was tried"
    assert the_probe(pool, reader, "read", f"{own}/bot.py").ok, "the bot cannot read its own folder"
    assert not the_probe(pool, reader, "write", f"{own}/written-by-the-bot.txt").ok
    assert not (Path(own) / "written-by-the-bot.txt").exists()
    assert_nothing_left(reader_run.played)


def test_a_bot_gets_a_clean_environment(reader_run: ReaderRun) -> None:
    env = json.loads(the_probe(reader_run.pool, reader_run.reader, "env", "-").detail)
    allowed = {"PATH", "HOME", "TMPDIR", "LANG", "PYTHONDONTWRITEBYTECODE", "READER_LEVEL"}
    # PWD: bubblewrap sets it on --chdir, to the bot's own folder.
    assert env.pop("PWD", None) in (None, str(reader_run.reader.manifest.working_dir))  # type: ignore[union-attr]
    extra = {k for k in env if k not in allowed and not k.startswith("ARENA_BOT_")}
    assert not extra, f"the bot's environment holds host variables: {sorted(extra)}"
    assert "ARENA_DB" not in env and "SANDBOX_TEST_HOST_MARKER" not in env
    assert env["READER_LEVEL"] == "3" and env["HOME"] == "/tmp" and env["TMPDIR"] == "/tmp"
    assert env["ARENA_BOT_ADDRESS"].startswith("unix:")
    assert not [k for k, v in env.items() if any(s in v for s in reader_run.secrets)]
    assert not the_probe(reader_run.pool, reader_run.reader, "read", "/proc/self/environ").detail.startswith(
        "0 bytes"), "the bot could not read its own environment (the probe is broken)"


def test_no_host_secret_reaches_the_bot_by_any_file_it_can_read(reader_run: ReaderRun) -> None:
    """Not even through its own sandbox: bubblewrap's first process stays in the sandbox (its
    pid 1), so whatever environment the host starts bubblewrap with, the bot reads in
    /proc/1/environ (it once held ARENA_DB and every host variable)."""
    seen = probes(reader_run.pool, reader_run.reader)
    leaked = [str(p)[:300] for p in seen if p.kind != "env" and "secrets found: []" not in p.detail
              and "secrets found" in p.detail]
    assert not leaked, "a host secret reached the bot:\n" + "\n".join(leaked)


# -- 2. killing a sibling ------------------------------------------------------------------------


def test_a_bot_cannot_kill_its_opponent(tmp_path: Path) -> None:
    killer = hostile(tmp_path, "killer")
    opponent = honest()
    with sandbox_pool(tmp_path) as pool:
        aimed: dict[str, list[int]] = {}

        def aim(handles: dict[int, BotHandle]) -> None:
            other = handles[1].process
            assert other is not None
            aimed["opponent_pids"] = sorted({other.pid, *other.bot_pids()})
            aimed["never_kill"] = [os.getpid(), os.getppid()]
            give_targets(killer, aimed)

        played = play(pool, [killer, opponent], seed=12, on_ready=aim)
    record = assert_completed(played.record)
    assert_unharmed(record, 1)
    assert not record.replay["match"]["restarts"], "a bot process died during the match"
    assert len(played.handles[1]) == 1, "the opponent had to be restarted"
    seen = probes(pool, killer)
    assert any(p.kind == "done" for p in seen), _log_tail(pool, killer)
    visible = the_probe(pool, killer, "visible", "-").detail.split()
    visible_pids = {int(item.split(":", 1)[0]) for item in visible}
    assert not visible_pids & {*aimed["opponent_pids"], *aimed["never_kill"]}, \
        f"the bot sees host or opponent processes in its /proc: {visible}"
    assert not [p for p in seen if p.kind == "procwalk"], "the bot saw the machine's processes"
    assert len(visible) <= 4, f"the bot sees more than its own sandbox (bubblewrap's init and itself): {visible}"
    assert [p for p in seen if p.kind == "kill"], "the bot never tried to kill what it saw"
    for kind in ("kill-host-pid", "killpg"):
        tried = [p for p in seen if p.kind == kind]
        assert len(tried) == len(aimed["opponent_pids"]), f"{kind} was not tried"
        assert not [str(p) for p in tried if p.ok], f"{kind} reached the opponent"
    assert not [str(p) for p in seen if p.kind == "signal0" and p.ok], "the bot can signal the host"
    assert_nothing_left(played)


# -- 3. calling another bot's endpoint -----------------------------------------------------------


def _outward_ip() -> str | None:
    """This machine's address on its default route (no packet is sent), if it has one."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))
            address = s.getsockname()[0]
    except OSError:
        return None
    return None if address.startswith("127.") else address


def _accepted(server: socket.socket) -> bool:
    server.setblocking(False)
    try:
        connection, _ = server.accept()
    except BlockingIOError:
        return False
    connection.close()
    return True


def test_a_bot_cannot_call_another_bots_endpoint_or_reach_the_network(tmp_path: Path) -> None:
    caller = hostile(tmp_path, "caller")
    opponent = honest()
    canaries: list[socket.socket] = []
    tcp = socket.create_server(("127.0.0.1", 0))
    everywhere = socket.create_server(("0.0.0.0", 0))
    abstract = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    abstract_name = f"arena-canary-{uuid.uuid4().hex}"
    abstract.bind("\0" + abstract_name)
    abstract.listen(8)
    canaries += [tcp, everywhere, abstract]
    try:
        with sandbox_pool(tmp_path) as pool:
            aimed: dict[str, Any] = {}

            def aim(handles: dict[int, BotHandle]) -> None:
                other = handles[1].connection.address
                own = handles[0].connection.address
                assert other.startswith("unix:"), other
                ports = sorted({tcp.getsockname()[1], everywhere.getsockname()[1], 50051, *range(50040, 50061)})
                addresses = [["1.1.1.1", 53]]
                outward = _outward_ip()
                if outward is not None:
                    addresses.append([outward, everywhere.getsockname()[1]])
                aimed.update({
                    "tcp_ports": ports, "tcp_addresses": addresses,
                    "unix_paths": [other.removeprefix("unix:"), own.removeprefix("unix:")],
                    "abstract_names": [abstract_name],
                    "grpc_addresses": [other, f"127.0.0.1:{tcp.getsockname()[1]}"],
                })
                give_targets(caller, aimed)

            played = play(pool, [caller, opponent], seed=13, on_ready=aim)
        record = assert_completed(played.record)
        assert_unharmed(record, 1)
        seen = probes(pool, caller)
        assert any(p.kind == "done" for p in seen), _log_tail(pool, caller)
        tried = [p for p in seen if p.kind in ("tcp", "unix", "abstract", "grpc")]
        expected = (len(aimed["tcp_ports"]) + len(aimed["tcp_addresses"]) + len(aimed["unix_paths"])
                    + len(aimed["abstract_names"]) + len(aimed["grpc_addresses"]))
        assert len(tried) == expected, "not every connection was tried"
        assert not [str(p) for p in tried if p.ok], "the bot reached something: " + \
            "; ".join(str(p) for p in tried if p.ok)
        assert not the_probe(pool, caller, "glob", "/tmp/arena-bot-*").ok, "the bot sees the host's socket folders"
        for canary in canaries:
            assert not _accepted(canary), f"a connection reached the host's canary {canary.getsockname()!r}"
        # The canaries do catch a connection (so the checks above mean something).
        with socket.create_connection(tcp.getsockname(), timeout=1):
            pass
        assert _accepted(tcp)
        assert_nothing_left(played)
    finally:
        for canary in canaries:
            canary.close()


# -- 4. spinning CPU during the opponents' turns ----------------------------------------------


_DEBUG = re.compile(r"^cpu=([0-9.]+) wall=([0-9.]+)$")
PATIENT_MS = 40


@dataclass(frozen=True)
class CpuUse:
    """What the spinner's debug texts say about the gaps between its decisions."""

    per_opponent_decision_s: float  # CPU it used per decision of its opponent (least squares)
    own_overhead_s: float  # CPU it used per gap anyway: the thawed moments around its own calls
    naive: float  # CPU over wall time, all gaps together
    gaps: int

    @property
    def share(self) -> float:
        """The share of one CPU it used while its opponent was thinking."""
        return self.per_opponent_decision_s / (PATIENT_MS / 1000.0)

    def __str__(self) -> str:
        return (f"{self.share:.0%} of a CPU during the opponent's turns ({self.per_opponent_decision_s * 1000:.1f} ms "
                f"per {PATIENT_MS} ms decision), {self.own_overhead_s * 1000:.1f} ms around its own calls, "
                f"{self.naive:.0%} of a CPU between its decisions overall, {self.gaps} gaps")


def _cpu_use(record: MatchRecord, seat: int) -> CpuUse:
    """Fit the CPU the seat used between two of its decisions against the number of opponent
    decisions in between (from the decision numbers): the slope is what it used during its
    opponent's turns, the intercept what it used in the thawed moments around its own calls
    (a sandboxed bot is thawed from the host's request to its reply; its busy threads then
    compete with its own handler, so that moment is not short, but it is its own time)."""
    points: list[tuple[int, float, float]] = []
    previous = None
    for entry in record.replay["match"]["debug"]:
        if entry["seat"] != seat:
            continue
        match = _DEBUG.match(entry["text"])
        if match and previous is not None:
            points.append((entry["decision"] - previous - 1, float(match[1]), float(match[2])))
        previous = entry["decision"]
    assert len(points) > 20, f"too few debug texts from seat {seat}: {record.replay['match']['debug'][:5]}"
    fit = [(k, cpu) for k, cpu, _ in points if k >= 1]  # at least one opponent decision in between
    n = len(fit)
    mean_k = sum(k for k, _ in fit) / n
    mean_cpu = sum(cpu for _, cpu in fit) / n
    sxx = sum((k - mean_k) ** 2 for k, _ in fit)
    assert sxx > 0, "every gap held the same number of opponent decisions"
    slope = sum((k - mean_k) * (cpu - mean_cpu) for k, cpu in fit) / sxx
    naive = sum(cpu for _, cpu, _ in points) / sum(wall for _, _, wall in points)
    return CpuUse(slope, mean_cpu - slope * mean_k, naive, len(points))


@pytest.mark.serial
def test_a_bot_cannot_use_cpu_during_its_opponents_turns(tmp_path: Path) -> None:
    _needs_cgroup("freeze")
    spinner = hostile(tmp_path, "spinner")
    patient = hostile(tmp_path, "patient", PATIENT_MS=PATIENT_MS)
    with sandbox_pool(tmp_path) as pool:
        played = play(pool, [spinner, patient], seed=14)
    record = assert_completed(played.record)
    assert_unharmed(record, 1)
    frozen = _cpu_use(record, 0)
    assert_nothing_left(played)
    # The control: the same bot unsandboxed spins while its opponent thinks.
    with BotPool(policy=IsolationPolicy.none(), game="union_pacific", log_dir=tmp_path / "logs-none") as pool:
        control = run_match(pool, [spinner, patient], seed=14, config=FAST, game=GAME)
    free = _cpu_use(control, 0)
    assert frozen.share < 0.25, f"sandboxed, the spinner used {frozen}"
    # The control's share depends on how busy the machine is (a spinner gets about 2/load of
    # a CPU on 2 cores); it only has to show that the measure sees spinning, well above frozen.
    assert free.share > 0.2 and free.share > 5 * max(frozen.share, 0.02), \
        f"the control did not spin: unsandboxed {free}; sandboxed {frozen}"


# -- 5. leaving things behind -------------------------------------------------------------------


def _sleepers(*tags: int) -> dict[int, int]:
    """Host pids of ``sleep <tag>`` processes, by pid -> tag."""
    wanted = {f"sleep\0{tag}\0".encode(): tag for tag in tags}
    found: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if cmdline in wanted and _start_time(int(entry.name)) is not None:
                found[int(entry.name)] = wanted[cmdline]
    return found


def _kill_sleepers(*tags: int) -> None:
    """Clean up after a failed test: the sleepers carry this test's unique tags."""
    for pid in _sleepers(*tags):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def _bot_cgroups(host_pid: int) -> list[str]:
    return glob.glob(f"/sys/fs/cgroup/*/**/arena-{host_pid}/bot-*", recursive=True)


def _unique_tag() -> int:
    return 7_000_000 + uuid.uuid4().int % 2_000_000 * 2  # even: the bot also uses tag + 1


def test_a_bot_leaves_no_daemon_no_process_group_no_cgroup_and_no_socket_behind(tmp_path: Path) -> None:
    tag = _unique_tag()
    leaver = hostile(tmp_path, "leaver", LEAVER_TAG=tag)
    opponent = honest()
    seen_running: dict[int, int] = {}

    def watch(_: Played) -> None:
        if len(set(seen_running.values())) < 2:
            seen_running.update(_sleepers(tag, tag + 1))

    try:
        with sandbox_pool(tmp_path) as pool:
            played = play(pool, [leaver, opponent], seed=15, watch=watch)
        record = assert_completed(played.record)
        assert_unharmed(record, 1)
        assert the_probe(pool, leaver, "daemon", str(tag)).ok, _log_tail(pool, leaver)
        assert the_probe(pool, leaver, "pgroup-child", str(tag + 1)).ok
        assert set(seen_running.values()) == {tag, tag + 1}, "the host never saw the daemon and the child run"
        assert set(seen_running) <= set(played.processes), "the daemon escaped the bot's cgroup"
        deadline = time.monotonic() + 5
        while _sleepers(tag, tag + 1) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _sleepers(tag, tag + 1), "a process the bot started outlived the pool"
        assert_nothing_left(played)
        assert not _bot_cgroups(os.getpid()), "bot cgroup folders left"
    finally:
        _kill_sleepers(tag, tag + 1)


def test_killing_the_cli_host_leaves_no_daemon_behind(tmp_path: Path) -> None:
    tag = _unique_tag()
    leaver = hostile(tmp_path, "leaver", LEAVER_TAG=tag, LEAVER_SLOW_MS=60)
    assert leaver.manifest is not None
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    cli = subprocess.Popen([sys.executable, "-m", "arena.cli.main", "play", "--bot", str(leaver.manifest.path),
                            "--bot", str(RANDOM_BOT), "--isolation", "sandbox", "--seed", "16",
                            "--replays", str(tmp_path / "replays"), "--logs", str(tmp_path / "logs")],
                           cwd=tmp_path, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, start_new_session=True)
    try:
        deadline = time.monotonic() + 30
        while len(set(_sleepers(tag, tag + 1).values())) < 2 and cli.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        if cli.poll() is not None:
            out, err = cli.communicate()
            pytest.fail(f"arena play ended (status {cli.returncode}) before its bot's daemon was seen:\n"
                        f"{err.decode(errors='replace')[-2000:]}\n{out.decode(errors='replace')[-1000:]}")
        assert set(_sleepers(tag, tag + 1).values()) == {tag, tag + 1}, "the daemon never started"
        os.kill(cli.pid, signal.SIGKILL)
        cli.wait(5)
        deadline = time.monotonic() + 5
        while _sleepers(tag, tag + 1) and time.monotonic() < deadline:
            time.sleep(0.05)
        left = _sleepers(tag, tag + 1)
        assert not left, f"5 s after the host was SIGKILLed, its bot's processes still run: {left}"
        deadline = time.monotonic() + 10
        while _bot_cgroups(cli.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _bot_cgroups(cli.pid), "the SIGKILLed host's bot cgroups were never removed"
    finally:
        if cli.poll() is None:
            os.kill(cli.pid, signal.SIGKILL)
        cli.wait(5)
        if cli.stdout:
            cli.stdout.close()
        if cli.stderr:
            cli.stderr.close()
        _kill_sleepers(tag, tag + 1)


# -- 6. flooding stderr ------------------------------------------------------------------------------


def test_a_bot_flooding_stderr_cannot_grow_its_log_past_the_cap(tmp_path: Path) -> None:
    flooder = hostile(tmp_path, "flooder", FLOOD_MB=40)
    opponent = honest()
    with sandbox_pool(tmp_path, Limits(log_mb=1)) as pool:
        played = play(pool, [flooder, opponent], seed=16)
    record = assert_completed(played.record)
    assert_unharmed(record, 1)
    log = pool.log_path(flooder)
    assert log is not None
    data = log.read_bytes()
    assert len(data) < (1 << 20) + 1024, f"the log is {len(data)} bytes for a 1 MB cap"
    assert b"flood ####" in data, "the flood never reached the log"
    last = data.rstrip().rsplit(b"\n", 1)[-1].decode()
    dropped = re.fullmatch(r"--- arena: (\d+) more bytes of output dropped .*---", last)
    assert dropped, f"the log does not end with the dropped-bytes line: {last!r}"
    assert int(dropped[1]) >= (40 << 20) - (1 << 20)
    assert_nothing_left(played)


# -- 7. exhausting memory ------------------------------------------------------------------------


def test_a_bot_over_its_memory_limit_is_an_out_of_memory_fault(tmp_path: Path) -> None:
    _needs_cgroup("memory")
    hog = hostile(tmp_path, "hog", HOG_MB=1024)
    opponent = honest()
    # Room for the freeze race (see the wrapper test below: each round the host loses is one
    # more 'disconnect') without a forfeit, which could meet the deadlock of the test after it.
    config = MatchConfig(clocks=Clocks(decision_ms=200, bank_ms=2000), max_faults=10)
    pool = sandbox_pool(tmp_path, Limits(memory_mb=200))
    try:
        played = play(pool, [hog, opponent], seed=17, config=config)
    finally:
        assert not _close_or_unjam(pool), "pool.close() hung"
    record = assert_completed(played.record)
    assert_unharmed(record, 1)
    faults = record.seats[0].faults
    reasons = [f.reason for f in faults]
    assert FaultReason.OUT_OF_MEMORY in reasons, f"no out_of_memory fault: {faults}"
    # One crash: out_of_memory, after as many plain disconnects as the host lost the race.
    assert reasons[-1] is FaultReason.OUT_OF_MEMORY and set(reasons[:-1]) <= {FaultReason.DISCONNECT}, faults
    assert len(reasons) <= 4, f"the crash took {len(reasons)} decisions to be seen: {faults}"
    assert not record.seats[0].forfeited, "one crash forfeited the seat"
    oom = [f for f in record.replay["match"]["faults"] if f["reason"] == "out_of_memory"]
    assert oom and oom[0]["seat"] == 0 and "200 MB" in oom[0]["detail"]
    assert the_probe(pool, hog, "allocate", "1024MB").detail == "starting", _log_tail(pool, hog)
    assert not [p for p in probes(pool, hog, "allocate") if "resident" in p.detail], "the bot got its 1 GiB"
    assert record.extra["restarts"] == 1 and record.replay["match"]["restarts"][0]["ok"]
    assert_nothing_left(played)


def test_one_out_of_memory_kill_is_one_fault_even_behind_a_wrapper_script(tmp_path: Path) -> None:
    _needs_cgroup("memory")
    # bot.py runs the bot as its child and exits 0.2 s after it: well within crashed()'s 0.5 s.
    hog = hostile(tmp_path, "hog", HOG_MB=1024, HOG_LINGER_MS=200)
    pool = sandbox_pool(tmp_path, Limits(memory_mb=200))
    try:
        played = play(pool, [hog, honest()], seed=17)
    finally:
        _close_or_unjam(pool)
    record = assert_completed(played.record)
    assert_unharmed(record, 1)
    assert the_probe(pool, hog, "wrapper", "child-ended").detail.startswith("status -9"), _log_tail(pool, hog)
    reasons = [f.reason.value for f in record.seats[0].faults]
    assert reasons == ["out_of_memory"], f"one memory kill gave the faults {reasons}"
    assert not record.seats[0].forfeited and record.extra["restarts"] == 1


def _close_or_unjam(pool: BotPool, timeout: float = 8.0) -> bool:
    """Close the pool; if that hangs, free the stop locks it deadlocked on (so that the test
    session can end) and say so: True when it hung."""
    def close() -> None:
        try:
            pool.close()
        except RuntimeError:  # "release unlocked lock": the deadlocked thread, freed below, unlocks twice
            pass

    closing = threading.Thread(target=close, name="attack-close", daemon=True)
    closing.start()
    closing.join(timeout)
    if not closing.is_alive():
        return False
    for process in [o for o in gc.get_objects() if isinstance(o, BotProcess)]:
        if process.stopped_how is None and process._stop_lock.locked():
            process._stop_lock.release()
    closing.join(10)
    return True


def test_a_crash_at_the_last_allowed_fault_does_not_hang_the_host(tmp_path: Path) -> None:
    crasher = hostile(tmp_path, "crasher", CRASHER_AT=3)
    config = MatchConfig(clocks=Clocks(decision_ms=200, bank_ms=2000), max_faults=1)
    for seed in range(40, 56):
        pool = sandbox_pool(tmp_path, name=f"logs-{seed}")
        try:
            played = play(pool, [crasher, honest()], seed=seed, config=config)
        finally:
            hung = _close_or_unjam(pool)
        record = assert_completed(played.record)
        assert_unharmed(record, 1)
        assert record.seats[0].forfeited
        if not record.replay["match"]["restarts"]:
            continue  # the crash was taken for a disconnect (the freeze race above): no restart, try again
        assert not hung, f"pool.close() hung after a restart and a forfeit in one decision (seed {seed})"
        assert_nothing_left(played)
        return
    pytest.skip("the host never restarted the crashed bot in time (see the race above): path not reached")


# -- 8. fork bomb ------------------------------------------------------------------------------------


def test_a_fork_bomb_cannot_exceed_the_process_limit(tmp_path: Path) -> None:
    _needs_cgroup("pids")
    forker = hostile(tmp_path, "forker", FORKER_COUNT=200)
    opponent = honest()
    with sandbox_pool(tmp_path, Limits(pids=32)) as pool:
        played = play(pool, [forker, opponent], seed=18)
    record = assert_completed(played.record)
    assert_unharmed(record, 1)
    threads = the_probe(pool, forker, "spawn", "threads")
    processes = the_probe(pool, forker, "spawn", "processes")
    peak = int(the_probe(pool, forker, "spawn", "peak-tasks").detail)
    got = {p.target: int(re.match(r"got=(\d+)", p.detail)[1]) for p in (threads, processes)}  # type: ignore[index]
    assert not threads.ok and not processes.ok, f"the bot got all it asked for: {threads}; {processes}"
    assert got["threads"] < 32 and got["processes"] < 32, got
    assert peak <= 32, f"the bot held {peak} tasks at once with a limit of 32"
    assert_nothing_left(played)


# -- 9. writing files ---------------------------------------------------------------------------------


@dataclass
class WriterRun:
    pool: BotPool
    writer: BotSpec
    played: Played
    tag: str
    folders: list[str]
    host_folder: Path
    own_before: list[str]
    fill_seen_on_host: int  # the most bytes of the bot's fill files seen at once in its host socket folder


@pytest.fixture(scope="module")
def writer_run(tmp_path_factory: pytest.TempPathFactory) -> WriterRun:
    """One match of the writer (its /tmp capped at 8 MB, files at 8 MB) against the random bot."""
    require_sandbox()
    tmp_path = tmp_path_factory.mktemp("writer")
    tag = uuid.uuid4().hex[:12]
    host_folder = tmp_path / "host-folder"
    host_folder.mkdir()
    folders = ["/work", str(ROOT), str(ROOT / "tests"), "/etc", "/tmp", "/", str(host_folder), "/root", "/var/tmp",
               "/dev/shm", "/run/arena"]
    writer = hostile(tmp_path, "writer", WRITER_TAG=tag, WRITER_DIRS=",".join(folders), WRITER_BIG_MB=16,
                     WRITER_FILL_FILES=4, WRITER_FILL_MB=6)
    assert writer.manifest is not None
    before = sorted(p.name for p in writer.manifest.working_dir.iterdir())
    seen = {"peak": 0}

    def watch(played: Played) -> None:
        for folder in played.socket_dirs:
            try:
                size = sum(f.stat().st_size for f in folder.iterdir() if f.name.startswith("fill-"))
            except OSError:
                continue
            seen["peak"] = max(seen["peak"], size)

    with sandbox_pool(tmp_path, Limits(tmp_mb=8, file_mb=8)) as pool:
        played = play(pool, [writer, honest()], seed=19, watch=watch)
    return WriterRun(pool, writer, played, tag, folders, host_folder, before, seen["peak"])


def test_a_bot_cannot_write_on_the_host_nor_past_its_tmp_size(writer_run: WriterRun) -> None:
    pool, writer, tag = writer_run.pool, writer_run.writer, writer_run.tag
    record = assert_completed(writer_run.played.record)
    assert_unharmed(record, 1)
    assert any(p.kind == "done" for p in probes(pool, writer)), _log_tail(pool, writer)
    own = writer.manifest.working_dir  # type: ignore[union-attr]
    assert not the_probe(pool, writer, "write", f"{own}/hostile-{tag}").ok, "the bot wrote to its own folder"
    assert sorted(p.name for p in own.iterdir()) == writer_run.own_before
    assert the_probe(pool, writer, "write", f"/tmp/hostile-{tag}").ok, "the bot has no private /tmp"
    for folder in writer_run.folders:
        if folder != "/run/arena":
            assert not (Path(folder) / f"hostile-{tag}").exists(), f"the bot's file appeared in {folder} on the host"
    for folder in (str(ROOT / "tests"), str(writer_run.host_folder), "/var/tmp"):  # not in its sandbox at all
        assert not the_probe(pool, writer, "write", f"{folder}/hostile-{tag}").ok, folder
    big = the_probe(pool, writer, "bigfile", f"/tmp/big-{tag}")
    written = int(big.detail.split()[0])
    assert not big.ok and written <= 8 << 20, f"a 16 MB file in an 8 MB /tmp: {big}"
    assert not Path(f"/tmp/big-{tag}").exists()
    assert_nothing_left(writer_run.played)  # its socket folder, /run/arena, is gone with it


def test_a_bot_can_write_only_its_private_size_capped_folders(writer_run: WriterRun) -> None:
    """/tmp, /dev/shm and /run/arena (its socket), each a tmpfs of its own; not the sandbox's
    root, /etc, /work... (bubblewrap's root tmpfs was once writable, without a size)."""
    pool, writer, tag = writer_run.pool, writer_run.writer, writer_run.tag
    private = (f"/tmp/hostile-{tag}", f"/dev/shm/hostile-{tag}", f"/run/arena/hostile-{tag}")  # capped tmpfs
    # A folder below /tmp (a checkout in /tmp, as in CI) is inside its private /tmp tmpfs.
    wrote = [str(p) for p in probes(pool, writer, "write")
             if p.ok and p.target not in private and not p.target.startswith("/tmp/")]
    assert not wrote, "the bot wrote outside /tmp inside its sandbox:\n" + "\n".join(wrote)


def test_a_bot_cannot_store_more_than_its_tmp_allowance_in_its_socket_folder(writer_run: WriterRun) -> None:
    """/run/arena was once a writable bind of a host folder (/tmp/arena-bot-*) with no size:
    a bot could fill the host's disk there while it played."""
    fill = the_probe(writer_run.pool, writer_run.writer, "fill", "/run/arena")
    stored = int(fill.detail.split()[0])
    assert stored <= 8 << 20 and writer_run.fill_seen_on_host <= 8 << 20, (
        f"the bot stored {stored >> 20} MB in /run/arena, {writer_run.fill_seen_on_host >> 20} MB seen at once "
        "in its folder on the host, with an 8 MB /tmp")


# -- 10. lying in Describe ------------------------------------------------------------------------


def test_a_bot_whose_describe_name_differs_from_its_manifest_is_refused(tmp_path: Path) -> None:
    liar = hostile(tmp_path, "liar", LIAR_NAME="random-bot")
    opponent = honest()
    with sandbox_pool(tmp_path) as pool:
        played = play(pool, [liar, opponent], seed=21)
    record = assert_completed(played.record)
    assert_unharmed(record, 1)
    faults = record.seats[0].faults
    assert [f.reason for f in faults] == [FaultReason.NOT_READY], faults
    assert "'random-bot'" in faults[0].detail and "'hostile-liar'" in faults[0].detail, faults[0].detail
    assert record.seats[0].forfeited and record.seats[0].bot == "hostile-liar"
    assert record.termination is MatchTermination.FORFEIT
    assert_nothing_left(played)


def test_a_bot_at_an_address_cannot_take_the_name_of_a_bot_at_the_table(tmp_path: Path) -> None:
    port = free_port()
    err = tmp_path / "liar.err"
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    env["LIAR_NAME"] = "random-bot"
    with open(err, "wb") as stderr:
        liar = subprocess.Popen([sys.executable, str(HOSTILE / "liar" / "bot.py"), "--address", f"127.0.0.1:{port}"],
                                cwd=tmp_path, env=env, stdin=subprocess.PIPE, stdout=stderr, stderr=stderr)
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            wait_ready(bot_pb2_grpc.BotStub(channel), liar, err)
        opponent = honest()
        with sandbox_pool(tmp_path) as pool:
            played = play(pool, [BotSpec(address=f"127.0.0.1:{port}"), opponent], seed=22)
        record = assert_completed(played.record)
        assert_unharmed(record, 1)
        faults = record.seats[0].faults
        assert [f.reason for f in faults] == [FaultReason.NOT_READY], faults
        assert "'random-bot'" in faults[0].detail and "another bot" in faults[0].detail, faults[0].detail
        assert record.seats[0].forfeited
        assert_nothing_left(played)
    finally:
        assert liar.stdin is not None
        liar.stdin.close()
        try:
            liar.wait(5)
        except subprocess.TimeoutExpired:
            liar.kill()
            liar.wait()


# -- 11. memory between matches ---------------------------------------------------------------------


def test_nothing_a_bot_keeps_survives_into_its_next_match(tmp_path: Path) -> None:
    memory_file = f"/tmp/amnesiac-{uuid.uuid4().hex}"
    amnesiac = hostile(tmp_path, "amnesiac", AMNESIAC_FILE=memory_file)
    opponent = honest()
    with sandbox_pool(tmp_path) as pool:
        first = play(pool, [amnesiac, opponent], seed=23)
        second = play(pool, [amnesiac, opponent], seed=24)
    for played in (first, second):
        assert_unharmed(assert_completed(played.record), 1)
    remembered = probes(pool, amnesiac, "remember")
    assert len(remembered) == 4, _log_tail(pool, amnesiac)
    assert not [str(p) for p in remembered if p.ok], "something survived from the first match"
    tokens = [p.target for p in probes(pool, amnesiac, "process")]
    assert len(tokens) == 2 and tokens[0] != tokens[1], "the same process played both matches"
    assert not first.seat_pids(0) & second.seat_pids(0), "a host process served both matches"
    assert not Path(memory_file).exists(), "the bot's /tmp file landed on the host"
    assert_nothing_left(first, second)
    # The control: unsandboxed, the same bot is one process that remembers (so the probes work).
    try:
        with BotPool(policy=IsolationPolicy.none(), game="union_pacific", log_dir=tmp_path / "logs-none") as pool:
            for seed in (23, 24):
                run_match(pool, [amnesiac, opponent], seed=seed, config=FAST, game=GAME)
        control = probes(pool, amnesiac, "remember")
        assert [p.ok for p in control] == [False, False, True, True], [str(p) for p in control]
    finally:
        Path(memory_file).unlink(missing_ok=True)


# -- 12. the host's kernel settings ---------------------------------------------------------------

#: Global settings of the host's kernel that its root user may write (as the bot's user may be).
_SYSCTLS = ("/proc/sys/kernel/core_pattern", "/proc/sys/kernel/printk_ratelimit", "/proc/sys/vm/swappiness")


@pytest.fixture(params=["zygote", "bubblewrap"])
def start_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Both ways a sandbox starts: forked by the zygote (Python bots), or bubblewrap (the rest)."""
    if request.param == "bubblewrap":
        monkeypatch.setenv("ARENA_NO_ZYGOTE", "1")
    return str(request.param)


def assert_started_by(pool: BotPool, spec: BotSpec, start: str) -> None:
    log = pool.log_path(spec)
    assert log is not None
    headers = [line for line in log.read_text(errors="replace").splitlines() if line.startswith("--- arena: starting")]
    assert headers and all(("(sandbox, zygote," in h) == (start == "zygote") for h in headers), headers[:2]


def test_a_bot_cannot_change_the_hosts_kernel_settings(tmp_path: Path, start_path: str) -> None:
    """When the host runs as root, so does the bot (without capabilities); /proc/sys of its own
    /proc, whose files root owns, once let it rewrite kernel.core_pattern: a program the
    kernel then runs as root, on the host, for the next crash."""
    writer = hostile(tmp_path, "writer", WRITER_DIRS="/tmp", WRITER_BIG_MB=1, WRITER_SYSCTLS=",".join(_SYSCTLS))
    with sandbox_pool(tmp_path) as pool:
        played = play(pool, [writer, honest()], seed=20)
    assert_unharmed(assert_completed(played.record), 1)
    assert_started_by(pool, writer, start_path)
    tried = [the_probe(pool, writer, "sysctl", path) for path in _SYSCTLS]
    assert not [str(p) for p in tried if p.ok], "the bot can write the host's kernel settings"
    assert all("Read-only file system" in p.detail for p in tried), [str(p) for p in tried]
    assert_nothing_left(played)


# -- 13. two processes of one bot ------------------------------------------------------------------

_LIBC = ctypes.CDLL(None, use_errno=True)
_IPC_RMID = 0


@pytest.fixture
def host_session_keyring() -> None:
    """The host holds a session keyring, as under systemd or in a login session (this machine's
    processes have none): every sandbox started from it would share it unless it gets its own.
    Keyrings belong to a thread's credentials: the one that starts bots (and the zygote,
    restarted here so that it inherits the keyring) joins it."""
    from arena.host.namespaces import SYS_KEYCTL
    from arena.host.process import _in_spawner_thread
    from arena.host.zygote import close_zygote

    number = SYS_KEYCTL.get(platform.machine())
    if number is None:
        pytest.skip(f"no keyctl system call number known for {platform.machine()}")
    name = f"arena-test-{uuid.uuid4().hex}".encode()

    def join() -> None:
        if _LIBC.syscall(ctypes.c_long(number), ctypes.c_long(1), name) < 0:
            pytest.fail(f"cannot join a session keyring: {os.strerror(ctypes.get_errno())}")

    _in_spawner_thread(join)
    close_zygote()


@dataclass(frozen=True)
class Meeting:
    """Where the sibling bots try to meet: names, port and IPC keys unique to one test."""

    name: str = field(default_factory=lambda: f"arena-sibling-{uuid.uuid4().hex[:12]}")
    port: int = field(default_factory=free_port)
    key: int = field(default_factory=lambda: 0x10000000 + uuid.uuid4().int % 0x40000000)

    def env(self, **more: object) -> dict[str, object]:
        return {"SIBLING_NAME": self.name, "SIBLING_PORT": self.port, "SIBLING_KEY": self.key, **more}

    def clean(self) -> None:
        """Remove what unsandboxed siblings leave on the host (files, IPC objects, keys)."""
        for path in glob.glob("/tmp/arena-sibling-*") + glob.glob("/dev/shm/arena-sibling-*"):
            Path(path).unlink(missing_ok=True)
        for get, control in ((lambda: _LIBC.msgget(self.key, 0), lambda i: _LIBC.msgctl(i, _IPC_RMID, None)),
                             (lambda: _LIBC.shmget(self.key + 1, ctypes.c_size_t(0), 0),
                              lambda i: _LIBC.shmctl(i, _IPC_RMID, None)),
                             (lambda: _LIBC.semget(self.key + 2, 0, 0), lambda i: _LIBC.semctl(i, 0, _IPC_RMID))):
            ident = get()
            if ident >= 0:
                control(ident)
        rt = ctypes.CDLL(ctypes.util.find_library("rt") or None, use_errno=True)
        rt.mq_unlink(f"/{self.name}".encode())
        from arena.host.namespaces import SYS_KEYCTL

        number = SYS_KEYCTL.get(platform.machine())
        if number is None:
            return
        for ring in (-3, -4):  # session, user
            serials = (ctypes.c_int32 * 256)()
            size = _LIBC.syscall(ctypes.c_long(number), ctypes.c_long(11), ctypes.c_long(ring), serials,
                                 ctypes.c_long(ctypes.sizeof(serials)))
            for serial in serials[:max(size, 0) // 4]:
                text = ctypes.create_string_buffer(512)
                _LIBC.syscall(ctypes.c_long(number), ctypes.c_long(6), ctypes.c_long(serial), text, ctypes.c_long(512))
                if text.value.decode(errors="replace").rsplit(";", 1)[-1].startswith(f"{self.name}-"):
                    _LIBC.syscall(ctypes.c_long(number), ctypes.c_long(21), ctypes.c_long(serial))  # invalidate


#: What a sibling can leave in its own sandbox (and so what another one would find, were it shared).
_LEFT = ("file:/tmp", "file:/dev/shm", "file:/run/arena", "abstract", "tcp", "sysv-msg", "sysv-shm", "sysv-sem",
         "posix-mq", "key:session", "key:user")


def test_two_processes_of_one_bot_cannot_reach_each_other(tmp_path: Path, start_path: str,
                                                          host_session_keyring: None) -> None:
    """Two seats of one match (two processes at once), then a later match (one after the other):
    no file, socket, IPC object, key, signal, trace or /proc entry of one reaches another."""
    meeting = Meeting()
    sibling = hostile(tmp_path, "sibling", **meeting.env(SIBLING_SIGNAL=1, SIBLING_TARGETS=1))
    try:
        with sandbox_pool(tmp_path) as pool:
            def aim(handles: dict[int, BotHandle]) -> None:
                pids = set()
                for handle in handles.values():
                    assert handle.process is not None
                    pids.update({handle.process.pid, *handle.process.bot_pids()})
                    if handle.process.sandbox_init is not None:
                        pids.add(handle.process.sandbox_init)
                give_targets(sibling, {"pids": sorted(pids)})

            together = play(pool, [sibling, sibling], seed=25, on_ready=aim)
            after = play(pool, [honest(), sibling], seed=26)
        for played in (together, after):
            assert_completed(played.record)
        assert_unharmed(after.record, 0)  # type: ignore[arg-type]
        assert_started_by(pool, sibling, start_path)
        seen = probes(pool, sibling)
        tokens = {p.target for p in seen if p.kind == "process"}
        assert len(tokens) == 3 and len([p for p in seen if p.kind == "done"]) == 3, _log_tail(pool, sibling)
        left = {p.target for p in seen if p.kind == "leave" and p.ok}
        assert left == set(_LEFT), f"the bot could not leave {set(_LEFT) - left} even in its own sandbox"
        assert len([p for p in seen if p.kind == "leave" and p.ok]) == 3 * len(_LEFT)
        reached = [str(p) for p in seen if p.kind == "find" and p.ok]
        assert not reached, "one process of the bot reached another:\n" + "\n".join(reached)
        for fds in probes(pool, sibling, "fds"):  # 0, 1, 2 and the one listing /proc/self/fd
            assert len(fds.detail.split()) == 4 and fds.detail.startswith("0 1 2 "), \
                f"the bot inherited file descriptors (a channel to the zygote or another process): {fds}"
        kinds = {p.target.split(":")[0] for p in seen if p.kind == "find"}
        assert kinds >= {"file", "key", "abstract", "tcp", "sysv-msg", "posix-mq", "signal", "kill", "ptrace", "proc"}
        assert not (sibling.manifest.working_dir / f"arena-sibling-{next(iter(tokens))}").exists()  # type: ignore[union-attr]
        assert_nothing_left(together, after)
    finally:
        meeting.clean()


def test_unsandboxed_processes_of_two_bots_do_reach_each_other(tmp_path: Path, host_session_keyring: None) -> None:
    """The control: the sibling's probes do find what two plain processes share."""
    meeting = Meeting()
    a = hostile(tmp_path / "a", "sibling", **meeting.env(SIBLING_BOT="hostile-sibling-a"))
    b = hostile(tmp_path / "b", "sibling", **meeting.env(SIBLING_BOT="hostile-sibling-b"))
    for spec, name in ((a, "hostile-sibling-a"), (b, "hostile-sibling-b")):
        assert spec.manifest is not None
        text = spec.manifest.path.read_text().replace('name = "hostile-sibling"', f'name = "{name}"')
        spec.manifest.path.write_text(text)
    a, b = BotSpec(manifest=load_manifest(a.manifest.path)), BotSpec(manifest=load_manifest(b.manifest.path))  # type: ignore[union-attr]
    try:
        with BotPool(policy=IsolationPolicy.none(), game="union_pacific", log_dir=tmp_path / "logs") as pool:
            run_match(pool, [a, b], seed=27, config=FAST, game=GAME)
        found = {p.target for spec in (a, b) for p in probes(pool, spec) if p.kind == "find" and p.ok}
        shared = set(_LEFT) - {"file:/run/arena"}  # no such folder on the host
        assert found >= shared, f"the probes missed what plain processes share: {shared - found}"
    finally:
        meeting.clean()
