"""One tournament, many workers (issue 10): real `arena worker` processes, real bot processes over
gRPC, a real PostgreSQL server (a dedicated one for the restart) and a real SQLite file.

Workers stand in for machines with their own ``--host`` names.  The bots are deterministic
(greedy, investor and a renamed investor), so a disturbed run must store exactly what an
undisturbed one does."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text

from leaderboard.database import create_db_engine, resolve_db_url
from leaderboard.store import Store
from tests.conftest import _fresh_postgres_database
from tests.test_tournament import _bot_pids, _describe_processes

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_bots" / "python"
TOTAL = 3 * 2 + 1 * 3  # three bots at tables of 2 and 3: C(3,2)*2 + C(3,3)*3 matches per round


@pytest.fixture
def pg_url() -> Iterator[str]:
    yield from _fresh_postgres_database()


@pytest.fixture
def bots(tmp_path: Path) -> list[str]:
    """Three deterministic bots, copied below tmp_path (their processes' command lines name it)."""
    out = []
    for source, name in (("greedy_bot", "greedy-bot"), ("investor_bot", "investor-bot"),
                         ("investor_bot", "investor-two")):
        folder = tmp_path / "src" / name
        shutil.copytree(SAMPLES / source, folder, ignore=shutil.ignore_patterns("__pycache__"))
        for file in (folder / "bot.toml", folder / "bot.py"):
            file.write_text(file.read_text().replace('name = "investor-bot"', f'name = "{name}"'))
        out.append(str(folder))
    return out


def env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "ARENA_BOT_FILES": str(tmp_path / "frozen")}


def arena(tmp_path: Path, *args: str, db: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, "-m", "arena.cli.main", *args, "--db", db], capture_output=True,
                          text=True, timeout=300, stdin=subprocess.DEVNULL, env=env(tmp_path))
    if check and proc.returncode != 0:
        raise AssertionError(f"arena {' '.join(args)} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}")
    return proc


def create(tmp_path: Path, bots: list[str], db: str, rounds: int = 1, seed: int = 11) -> int:
    out = arena(tmp_path, "tournament", "create", *[a for b in bots for a in ("--bot", b)], "--players", "2,3",
                "--rounds", str(rounds), "--seed", str(seed), "--isolation", "none", "--decision-ms", "20000",
                "--bank-ms", "60000", "--logs", str(tmp_path / "logs"), db=db)
    return int(out.stdout.strip())


def worker(tmp_path: Path, db: str, tid: int, host: str, *extra: str) -> subprocess.Popen[str]:
    with open(tmp_path / f"worker-{host}.log", "w") as log:  # the child keeps its own copy of the descriptor
        return subprocess.Popen([sys.executable, "-m", "arena.cli.main", "worker", "--tournament", str(tid),
                                 "--host", host, "--worker-id", "w", "--concurrency", "1", "--isolation", "none",
                                 "--logs", str(tmp_path / "logs"), "--db", db, *extra],
                                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, text=True,
                                env=env(tmp_path))


def output(tmp_path: Path, host: str) -> str:
    return (tmp_path / f"worker-{host}.log").read_text()


def queue_rows(db: str, tid: int) -> list[tuple]:
    engine = create_db_engine(resolve_db_url(db))
    try:
        with engine.connect() as c:
            return list(c.execute(text("SELECT schedule_index, status, worker, match_id, isolation FROM match_queue "
                                       "WHERE tournament_id = :t ORDER BY schedule_index"), {"t": tid}))
    finally:
        engine.dispose()


def wait_for(what: str, condition, timeout: float = 120, procs: tuple = ()) -> None:  # noqa: ANN001
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        for p in procs:
            if p.poll() is not None:
                pytest.fail(f"a worker ended while waiting for {what}: exit {p.returncode}")
        time.sleep(0.05)
    pytest.fail(f"timed out waiting for {what}")


def results(db: str, tid: int) -> dict[int, dict[str, int]]:
    """schedule index -> places, as stored."""
    with Store.open(db) as store:
        matches = store.list_matches(tournament_id=tid)
    indexes = Counter(m.schedule_index for m in matches)
    assert all(n == 1 for n in indexes.values()), indexes
    return {m.schedule_index: {**m.places, "cash": tuple(s.score for s in m.seats)} for m in matches}


def ratings(tmp_path: Path, db: str, tid: int) -> list[tuple[str, float, int]]:
    board = json.loads(arena(tmp_path, "leaderboard", "--tournament", str(tid), "--json", db=db).stdout)
    return [(row["name"], round(row["elo"], 6), row["matches"]) for row in board]


def stop_all(procs: list[subprocess.Popen[str]]) -> None:
    for p in procs:
        if p.poll() is None:
            try:
                os.kill(p.pid, signal.SIGCONT)
            except ProcessLookupError:
                pass
            p.kill()
            p.wait()


@pytest.mark.postgres
def test_three_workers_play_every_scheduled_match_exactly_once(pg_url: str, bots: list[str], tmp_path: Path) -> None:
    tid = create(tmp_path, bots, pg_url, rounds=2)
    assert [r[1] for r in queue_rows(pg_url, tid)] == ["planned"] * 2 * TOTAL
    procs = [worker(tmp_path, pg_url, tid, host) for host in ("m1", "m2", "m3")]
    try:
        for p in procs:
            assert p.wait(timeout=300) == 0, output(tmp_path, "m1") + output(tmp_path, "m2") + output(tmp_path, "m3")
    finally:
        stop_all(procs)
    rows = queue_rows(pg_url, tid)
    assert [r[0] for r in rows] == list(range(2 * TOTAL))
    assert all(r[1] == "done" and r[3] is not None and r[4] == "none" for r in rows)
    assert {r[2] for r in rows} <= {"m1/w", "m2/w", "m3/w"}
    stored = results(pg_url, tid)
    assert sorted(stored) == list(range(2 * TOTAL))
    status = json.loads(arena(tmp_path, "tournament", "status", str(tid), "--json", db=pg_url).stdout)
    assert status["status"] == "finished" and status["done"] == 2 * TOTAL
    shown = json.loads(arena(tmp_path, "tournament", "show", str(tid), "--json", db=pg_url).stdout)
    assert {(m["schedule_index"], m["worker"], m["isolation"]) for m in shown["matches"]} == {
        (r[0], r[2], "none") for r in rows}
    assert sum(w["done"] for w in status["workers"]) == 2 * TOTAL
    assert not _bot_pids(str(tmp_path)), _describe_processes(_bot_pids(str(tmp_path)))

    # a worker excluded: its matches leave the fits (and the standings), stay stored
    busiest = max(status["workers"], key=lambda w: w["done"])
    before = sum(m for name, _, m in ratings(tmp_path, pg_url, tid) if "@" in name)
    out = arena(tmp_path, "tournament", "exclude-worker", str(tid), busiest["worker"], db=pg_url).stdout
    assert f"its {busiest['done']} stored match(es) are left out" in out
    after = sum(m for name, _, m in ratings(tmp_path, pg_url, tid) if "@" in name)
    seats = {i: len([k for k in places if k != "cash" and "@" in k]) for i, places in stored.items()}
    theirs = {r[0] for r in rows if r[2] == busiest["worker"]}
    assert before - after == sum(seats[i] for i in theirs)
    assert "(excluded)" in arena(tmp_path, "tournament", "status", str(tid), db=pg_url).stdout


@pytest.mark.postgres
def test_killed_and_stopped_workers_lose_their_matches_and_nothing_counts_twice(
        pg_url: str, bots: list[str], tmp_path: Path) -> None:
    # the undisturbed run: one local worker, same seed
    calm_db = str(tmp_path / "calm.sqlite")
    calm = create(tmp_path, bots, calm_db)
    arena(tmp_path, "tournament", "resume", str(calm), "--quiet", "--logs", str(tmp_path / "logs"), db=calm_db)

    tid = create(tmp_path, bots, pg_url)
    lease = ("--lease", "2")
    killed = worker(tmp_path, pg_url, tid, "killed", *lease)
    stopped = worker(tmp_path, pg_url, tid, "stopped", *lease)
    procs = [killed, stopped]
    try:
        def holding(host: str) -> bool:
            return any(r[1] == "claimed" and r[2] == f"{host}/w" for r in queue_rows(pg_url, tid))

        wait_for("both workers to hold a match", lambda: holding("killed") and holding("stopped"), procs=procs)
        killed_index = next(r[0] for r in queue_rows(pg_url, tid) if r[2] == "killed/w" and r[1] == "claimed")
        stopped_index = next(r[0] for r in queue_rows(pg_url, tid) if r[2] == "stopped/w" and r[1] == "claimed")
        killed.send_signal(signal.SIGKILL)
        stopped.send_signal(signal.SIGSTOP)
        killed.wait(timeout=30)
        rescuer = worker(tmp_path, pg_url, tid, "rescuer", *lease)
        procs.append(rescuer)
        assert rescuer.wait(timeout=300) == 0, output(tmp_path, "rescuer")
        rows = {r[0]: r for r in queue_rows(pg_url, tid)}
        assert rows[killed_index][1:3] == ("done", "rescuer/w")
        assert rows[stopped_index][1:3] == ("done", "rescuer/w")
        stopped.send_signal(signal.SIGCONT)
        assert stopped.wait(timeout=120) == 0, output(tmp_path, "stopped")
    finally:
        stop_all(procs)
    assert "was refused" in output(tmp_path, "stopped")
    assert "took over the claim of killed/w" in output(tmp_path, "rescuer")
    assert "took over the claim of stopped/w" in output(tmp_path, "rescuer")
    status = json.loads(arena(tmp_path, "tournament", "status", str(tid), "--json", db=pg_url).stdout)
    events = [(e["kind"], e["worker"], e["schedule_index"]) for e in status["events"]]
    assert ("late_result", "stopped/w", stopped_index) in events
    assert ("taken_over", "killed/w", killed_index) in events
    assert {w["worker"]: w["late"] for w in status["workers"]}["stopped/w"] == 1
    assert status["status"] == "finished" and status["done"] == TOTAL

    # every scheduled match once, and exactly what the undisturbed run stored
    assert results(pg_url, tid) == results(calm_db, calm)
    assert ratings(tmp_path, pg_url, tid) == ratings(tmp_path, calm_db, calm)
    deadline = time.monotonic() + 10
    while _bot_pids(str(tmp_path)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _bot_pids(str(tmp_path)), _describe_processes(_bot_pids(str(tmp_path)))


def test_sigterm_releases_the_claims_and_leaves_no_bot_behind(bots: list[str], tmp_path: Path) -> None:
    db = str(tmp_path / "a.sqlite")  # SQLite: several local workers on one file
    tid = create(tmp_path, bots, db)
    first = worker(tmp_path, db, tid, "first")
    try:
        wait_for("a claim", lambda: any(r[1] == "claimed" for r in queue_rows(db, tid)), procs=(first,))
        first.send_signal(signal.SIGTERM)
        assert first.wait(timeout=60) == 128 + signal.SIGTERM
    finally:
        stop_all([first])
    assert "stopped by SIGTERM" in output(tmp_path, "first")
    assert not any(r[1] == "claimed" for r in queue_rows(db, tid))  # given back, not left to expire
    deadline = time.monotonic() + 10
    while _bot_pids(str(tmp_path)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _bot_pids(str(tmp_path)), _describe_processes(_bot_pids(str(tmp_path)))
    status = json.loads(arena(tmp_path, "tournament", "status", str(tid), "--json", db=db).stdout)
    assert status["status"] == "interrupted"
    assert [e["kind"] for e in status["events"]] == ["released"]
    two = [worker(tmp_path, db, tid, host) for host in ("second", "third")]
    try:
        assert [p.wait(timeout=300) for p in two] == [0, 0], output(tmp_path, "second") + output(tmp_path, "third")
    finally:
        stop_all(two)
    assert sorted(results(db, tid)) == list(range(TOTAL))


def test_a_worker_refuses_bot_files_that_differ_from_the_store(bots: list[str], tmp_path: Path) -> None:
    db = str(tmp_path / "a.sqlite")
    tid = create(tmp_path, bots, db)
    elsewhere = tmp_path / "elsewhere"
    missing = arena(tmp_path, "worker", "--tournament", str(tid), "--bot-files", str(elsewhere), db=db, check=False)
    assert missing.returncode == 2 and "its files are not on this machine" in missing.stderr
    assert "Traceback" not in missing.stderr
    shutil.copytree(tmp_path / "frozen", elsewhere, symlinks=True)
    for folder, _dirs, _files in os.walk(elsewhere):
        os.chmod(folder, 0o755)
    strategy = next(elsewhere.glob("greedy-bot/*/strategy.py"))
    strategy.chmod(0o644)
    strategy.write_text(strategy.read_text() + "\n# changed on this machine\n")
    changed = arena(tmp_path, "worker", "--tournament", str(tid), "--bot-files", str(elsewhere), db=db, check=False)
    assert changed.returncode == 2, changed.stderr
    assert "refuses to play greedy-bot@1" in changed.stderr and "changed since it was checked" in changed.stderr
    assert all(r[1] == "planned" for r in queue_rows(db, tid))  # nothing claimed, nothing played


class DedicatedServer:
    """A PostgreSQL server of this test's own (.ci/postgres.sh in a folder of its own), to restart."""

    def __init__(self) -> None:
        import uuid

        self.dir = Path(f"/tmp/arena-pg-restart-{uuid.uuid4().hex[:12]}")
        self.env = {**os.environ, "ARENA_PG_DIR": str(self.dir)}
        found = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"))
        if not found:
            pytest.skip("no PostgreSQL server binaries under /usr/lib/postgresql")
        self.pg_ctl = str(found[-1])

    def start(self) -> str:
        line = subprocess.run(["bash", str(ROOT / ".ci" / "postgres.sh")], env=self.env, capture_output=True,
                              text=True, timeout=180, check=True).stdout.strip()
        return line.split("=", 1)[1]

    def _ctl(self, *args: str) -> None:
        owner = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        subprocess.run([*owner, self.pg_ctl, "-D", str(self.dir / "data"), *args], check=True, timeout=120,
                       capture_output=True, cwd=str(self.dir))

    def stop_server(self) -> None:
        self._ctl("-m", "fast", "-w", "stop")

    def start_server(self) -> None:
        port = (self.dir / "port").read_text().strip()
        self._ctl("-l", str(self.dir / "server.log"), "-w", "-o", f"-p {port}", "start")

    def remove(self) -> None:
        subprocess.run(["bash", str(ROOT / ".ci" / "postgres.sh"), "stop"], env=self.env, capture_output=True,
                       timeout=120)


@pytest.mark.postgres
def test_workers_wait_for_a_restarted_postgresql_and_go_on(bots: list[str], tmp_path: Path) -> None:
    if not os.environ.get("ARENA_TEST_POSTGRES_URL", "").strip():
        pytest.skip("PostgreSQL tests need ARENA_TEST_POSTGRES_URL (a server is there to be used)")
    server = DedicatedServer()
    try:
        url = server.start()
        tid = create(tmp_path, bots, url, rounds=2)
        procs = [worker(tmp_path, url, tid, host, "--lease", "5") for host in ("m1", "m2")]
        try:
            def done() -> int:
                return sum(r[1] == "done" for r in queue_rows(url, tid))

            wait_for("three matches stored", lambda: done() >= 3, procs=procs)
            server.stop_server()
            wait_for("the workers to notice", lambda: all("unreachable" in output(tmp_path, h) for h in ("m1", "m2")),
                     timeout=60, procs=procs)
            time.sleep(1)
            server.start_server()
            for p in procs:
                assert p.wait(timeout=300) == 0, output(tmp_path, "m1") + output(tmp_path, "m2")
        finally:
            stop_all(procs)
        assert sorted(results(url, tid)) == list(range(2 * TOTAL))
        assert all(r[1] == "done" for r in queue_rows(url, tid))
    finally:
        server.remove()
