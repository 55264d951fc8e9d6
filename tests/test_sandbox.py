"""The sandbox's parts: limits, the bwrap command line, cgroups (v1 and v2), the log cap,
fresh processes per seat with spares, the isolation record, and the one-line refusal
where bubblewrap cannot run.  The attacks themselves are in test_sandbox_attacks.py."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.host import cgroups
from arena.host.manifest import BotSpec, load_manifest
from arena.host.match import run_match
from arena.host.pool import BotPool
from arena.host.process import BotStartError, LogPump
from arena.host.sandbox import (IsolationPolicy, Limits, bwrap_command, host_environment, sandbox_available,
                                sandbox_environment)

ROOT = Path(__file__).resolve().parents[1]
RANDOM_BOT = ROOT / "sample_bots" / "python" / "random_bot"

needs_sandbox = pytest.mark.skipif(not sandbox_available() and os.environ.get("CI") != "true",
                                   reason="bubblewrap cannot create namespaces here")


def test_limits_refuse_nonsense() -> None:
    with pytest.raises(ValueError, match="memory_mb"):
        Limits(memory_mb=0)
    with pytest.raises(ValueError, match="cpus"):
        Limits(cpus=0)
    assert Limits.from_json({"memory_mb": 256, "unknown": 1}) == Limits(memory_mb=256)


def test_the_command_line_binds_the_runtime_and_the_bot_folder_read_only_and_nothing_of_the_host_writable(
        tmp_path: Path) -> None:
    bot, secret = tmp_path / "bot", tmp_path / "arena-data"
    for d in (bot, secret):
        d.mkdir()
    env = sandbox_environment((("LEVEL", "3"),), {"ARENA_BOT_ADDRESS": "unix:/run/arena/bot.sock"})
    args = bwrap_command(["python", "bot.py"], working_dir=bot, env=env, limits=Limits(tmp_mb=8))
    assert args[0] == "bwrap" and args[-2:] == ["python", "bot.py"]
    for flag in ("--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session",
                 "--clearenv"):
        assert flag in args
    assert args[args.index("--cap-drop") + 1] == "ALL"
    tmpfs = {args[i + 3]: int(args[i + 1]) for i, a in enumerate(args) if a == "--size"}
    assert tmpfs["/tmp"] == 8 << 20 and tmpfs["/dev/shm"] == 8 << 20 and tmpfs["/run/arena"] <= 1 << 20
    pairs = {(args[i], args[i + 1], args[i + 2]) for i in range(len(args) - 2)}
    assert ("--ro-bind", str(bot), str(bot)) in pairs
    assert "--bind" not in args and "--dev-bind" not in args, "no host folder is writable from inside"
    remounts = [args[i + 1] for i, a in enumerate(args) if a == "--remount-ro"]
    assert remounts[-1] == "/" and "/dev" in remounts, "the sandbox's own root is read-only"
    binds = {args[i + 1] for i, a in enumerate(args) if a in ("--ro-bind", "--ro-bind-try")}
    assert not binds & {"/", "/root", "/home", "/work", "/tmp", "/etc", "/proc", "/sys", "/run"}
    assert str(secret) not in args and str(tmp_path) not in args
    set_env = {args[i + 1]: args[i + 2] for i, a in enumerate(args) if a == "--setenv"}
    assert set_env["LEVEL"] == "3" and set_env["HOME"] == "/tmp"
    assert not any(k.startswith("ARENA_") and k not in ("ARENA_BOT_ADDRESS",) for k in set_env)


def test_unsandboxed_bots_do_not_inherit_arenas_own_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_DB", "sqlite:////secret.sqlite")
    monkeypatch.setenv("SOME_TOOL_HOME", "/opt/tool")
    env = host_environment()
    assert "ARENA_DB" not in env and env["SOME_TOOL_HOME"] == "/opt/tool"


def test_the_log_keeps_the_cap_and_says_how_much_was_dropped(tmp_path: Path) -> None:
    read, write = os.pipe()
    log = tmp_path / "bot.log"
    pump = LogPump(os.fdopen(read, "rb"), log, cap=1 << 20)
    chunk = b"x" * 65536 + b"\n"
    with os.fdopen(write, "wb") as out:
        for _ in range(48):  # 3 MiB and a bit
            out.write(chunk)
    pump.join(5)
    data = log.read_bytes()
    assert pump.written == 1 << 20 and pump.dropped == 48 * len(chunk) - (1 << 20)
    assert data.startswith(b"x" * 1000) and len(data) < (1 << 20) + 200
    assert f"{pump.dropped} more bytes of output dropped".encode() in data


def _spinner() -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", "while True: pass"])


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _check_freeze_and_kill(cgroup: cgroups.BotCgroup) -> None:
    proc = _spinner()
    try:
        for path in cgroup.procs_files:
            Path(path).write_text(str(proc.pid))
        assert proc.pid in cgroup.pids()
        cgroup.freeze()
        time.sleep(0.2)
        before = _cpu_seconds(proc.pid)
        time.sleep(0.5)
        assert _cpu_seconds(proc.pid) - before < 0.05, "a frozen process used CPU"
        cgroup.thaw()
        before = _cpu_seconds(proc.pid)
        deadline = time.monotonic() + 10  # on a loaded machine a spinner gets a small share of a CPU
        while _cpu_seconds(proc.pid) - before <= 0.1 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _cpu_seconds(proc.pid) - before > 0.1, "a thawed process did not run"
        cgroup.freeze()
        assert cgroup.kill_all(3.0), "kill_all left processes behind (a frozen one must be thawed first)"
        assert proc.wait(3) is not None
    finally:
        proc.kill()
        proc.wait()
        cgroup.remove(1.0)
    assert not any(d.exists() for d in cgroup.dirs.values())


@pytest.mark.serial
def test_a_v1_or_v2_cgroup_freezes_thaws_and_kills_its_whole_tree() -> None:
    host = cgroups.open_cgroups()
    if host is None:
        if os.environ.get("CI") == "true" and os.geteuid() == 0:
            pytest.fail("no cgroup could be created as root")
        pytest.skip("this host cannot create cgroups")
    cgroup = host.create(Limits(memory_mb=300, pids=16))
    if "memory" in cgroup.dirs:
        assert (cgroup.dirs["memory"] / "memory.limit_in_bytes").read_text().strip() == str(300 << 20)
    if "pids" in cgroup.dirs:
        assert (cgroup.dirs["pids"] / "pids.max").read_text().strip() == "16"
    _check_freeze_and_kill(cgroup)


@pytest.mark.serial
def test_the_cgroup_v2_freezer_and_kill_work_where_a_v2_hierarchy_is_mounted() -> None:
    mount = next((m for m in (Path("/sys/fs/cgroup"), Path("/sys/fs/cgroup/unified"))
                  if (m / "cgroup.controllers").exists()), None)
    if mount is None:
        pytest.skip("no cgroup v2 hierarchy mounted")
    parent, _ = cgroups._v2_parent(mount, want_controllers=False)
    if parent is None:
        pytest.skip("the v2 hierarchy is not writable here")
    d = parent / "bot-v2-test"
    d.mkdir()
    _check_freeze_and_kill(cgroups.BotCgroup({"v2freeze": d}))


class _RecordingPool(BotPool):
    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.pids: list[int] = []

    def acquire(self, spec: BotSpec, *, lease: str | None = None):  # type: ignore[override]
        handle = super().acquire(spec, lease=lease)
        assert handle.process is not None
        self.pids.append(handle.process.pid)
        return handle


@pytest.mark.serial
@needs_sandbox
def test_every_seat_of_every_match_gets_a_fresh_process_and_spares_are_ready_ahead(tmp_path: Path) -> None:
    spec = BotSpec(manifest=load_manifest(RANDOM_BOT))
    pool = _RecordingPool(log_dir=tmp_path, policy=IsolationPolicy.sandbox(), game="union_pacific", spares=2)
    with pool:
        pool.prepare([spec])
        deadline = time.monotonic() + 20
        while len(pool._ready.get(spec.key, [])) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(pool._ready[spec.key]) == 2, "the spares were not started ahead"
        spare_pids = {h.process.pid for h in pool._ready[spec.key] if h.process is not None}
        first = run_match(pool, [spec, spec], seed=5)
        assert set(pool.pids) == spare_pids, "the first match did not use the spares"
        second = run_match(pool, [spec, spec], seed=6)
        assert len(pool.pids) == len(set(pool.pids)) == 4, "a process served two seats or two matches"
        for pid in pool.pids:
            deadline = time.monotonic() + 5
            while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
                time.sleep(0.02)
        for record in (first, second):
            assert not [f for s in record.seats for f in s.faults]
            iso = record.replay["match"]["isolation"]
            assert iso["level"] == "sandbox" and iso["fresh_processes"] is True
            assert iso["limits"] == Limits().to_json()
    assert all(not Path(f"/proc/{pid}").exists() for pid in pool.pids[:2]), "a finished match's bot still runs"


@pytest.mark.serial
@needs_sandbox
def test_no_spare_is_started_beyond_the_seats_left_to_play(tmp_path: Path) -> None:
    """Told how many seats are left (a tournament's schedule), the pool keeps no spare that
    nothing will use: the last match starts no process after it."""
    spec = BotSpec(manifest=load_manifest(RANDOM_BOT))
    pool = _RecordingPool(log_dir=tmp_path, policy=IsolationPolicy.sandbox(), game="union_pacific", spares=2)
    with pool:
        pool.prepare([spec], {spec.key: 3})  # two matches of 2 seats, one of them started already
        deadline = time.monotonic() + 20
        while len(pool._ready.get(spec.key, [])) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        run_match(pool, [spec, spec], seed=5)  # 1 seat left: one spare is kept, no more
        time.sleep(0.5)  # a warm-up wrongly begun would be under way by now
        with pool._lock:
            kept = len(pool._ready.get(spec.key, [])) + pool._warming.get(spec.key, 0)
        assert kept == 1
        deadline = time.monotonic() + 20
        while not pool._ready.get(spec.key) and time.monotonic() < deadline:
            time.sleep(0.05)
        spare = pool._ready[spec.key][0]
        last = pool.acquire(spec, lease="last")  # the last seat takes it...
        assert last.process is spare.process
        with pool._lock:  # ... and nothing replaces it
            assert not pool._ready.get(spec.key) and not pool._warming.get(spec.key)
        pool.release([last])


@pytest.mark.serial
@needs_sandbox
def test_a_sandbox_says_when_its_bot_listens_exits_or_stays_silent(tmp_path: Path) -> None:
    """The zygote's sandboxes report readiness on a pipe: a bot that listens only on its TCP
    port is reached through the relay, an early exit is told at once, silence times out."""
    from tests.fake_bots import fake_spec

    with BotPool(log_dir=tmp_path, policy=IsolationPolicy.sandbox(), ready_timeout=1.5,
                 max_start_failures=5) as pool:
        handle = pool.acquire(fake_spec("random"))  # 127.0.0.1:{port} inside: the relay makes the socket
        assert handle.describe.name == "fake-random"
        assert handle.process is not None and type(handle.process.popen).__name__ == "SandboxProcess"
        pool.release([handle])
        started = time.monotonic()
        with pytest.raises(BotStartError, match="exited with status 2 before it was ready"):
            pool.acquire(fake_spec("exit-early"))
        assert time.monotonic() - started < 1.4, "an early exit is told without waiting for the limit"
        started = time.monotonic()
        with pytest.raises(BotStartError, match=r"did not become ready within 1.5 s"):
            pool.acquire(fake_spec("never-ready"))
        assert time.monotonic() - started >= 1.4
    assert "sandbox, zygote" in pool.log_path(fake_spec("never-ready")).read_text()  # type: ignore[union-attr]


def test_an_unsandboxed_pool_records_isolation_none(tmp_path: Path) -> None:
    spec = BotSpec(manifest=load_manifest(RANDOM_BOT))
    with BotPool(log_dir=tmp_path, policy=IsolationPolicy.none()) as pool:
        record = run_match(pool, [spec, spec], seed=5)
    assert record.replay["match"]["isolation"] == {"level": "none", "fresh_processes": False, "limits": {}}


def test_a_command_says_in_one_line_why_the_sandbox_cannot_work(tmp_path: Path) -> None:
    env = {**os.environ, "PATH": str(tmp_path)}  # no bwrap on this PATH
    done = subprocess.run([sys.executable, "-m", "arena.cli.main", "play", "--bot", str(RANDOM_BOT), "--bot",
                           str(RANDOM_BOT), "--replays", str(tmp_path / "r"), "--logs", str(tmp_path / "l")],
                          env=env, capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert done.returncode != 0
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    assert "bubblewrap is not installed" in lines[0] and "--isolation none" in lines[0]
    assert "Traceback" not in done.stderr


@needs_sandbox
def test_a_bot_that_swaps_its_socket_for_a_symlink_cannot_redirect_the_host(tmp_path: Path) -> None:
    """The host reaches the socket by the inode it found at start, never by the path again: a
    symlink put in its place (to another bot's socket, say) is never followed."""
    import socket as sockets

    from arena.host.client import BotConnection
    from arena.host.process import start_bot

    decoy_path = tmp_path / "decoy.sock"
    decoy = sockets.socket(sockets.AF_UNIX)
    decoy.bind(str(decoy_path))
    decoy.listen(8)
    decoy.settimeout(0.5)
    process, connection, _ = start_bot(load_manifest(RANDOM_BOT), log_path=tmp_path / "bot.log",
                                       policy=IsolationPolicy.sandbox(), game="union_pacific")
    try:
        assert process.address.startswith("unix:/proc/self/fd/")
        connection.close()
        # What the bot could do inside its sandbox, done here through its root for the test.
        inside = Path(f"{process.sandbox_root}/run/arena/bot.sock")
        inside.unlink()
        inside.symlink_to(decoy_path)
        again = BotConnection(process.address, gate=process.gate)
        try:
            assert again.describe(timeout=5).name == "random-bot"
        finally:
            again.close()
        with pytest.raises(TimeoutError):
            decoy.accept()
    finally:
        process.stop(1.0)
        decoy.close()
