"""Workers on one database: matches per minute with 1, 2, 3 local ``arena worker`` processes,
and the queue's own cost per match (claim, and the lease check of the recording transaction).

Throughput: each measurement is a real tournament (the three Python sample bots, tables of
2 and 3, unsandboxed: the queue is the point, not the sandbox) created in the database,
played by K worker processes of one match at a time; the runs alternate K = 1, 2, 3, 3, 2, 1
so drifting load falls on every K alike.

Claim overhead: a synthetic tournament of ``claims`` planned matches with bots at addresses
(nothing is played); each match is claimed and recorded through the queue, and an
identical record is stored by the plain ``Store.record_match`` in the same loop.  The
overhead per match is the claim plus the difference of the two recordings (medians).
The bench adds tournaments (and, for throughput, the sample bots) to the database: use a
scratch one.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from arena.records import MatchRecord, MatchTermination, SeatResult
from arena.tournaments import TournamentConfig, create_tournament, resolve_bots
from arena.host.sandbox import IsolationPolicy
from leaderboard.queue import MatchQueue, WorkerId
from leaderboard.store import Store

SAMPLES = Path(__file__).resolve().parents[2] / "sample_bots" / "python"


@dataclass(frozen=True)
class ThroughputFigure:
    workers: int
    matches: int
    wall_s: float

    @property
    def per_minute(self) -> float:
        return self.matches / self.wall_s * 60


@dataclass(frozen=True)
class ClaimFigures:
    matches: int
    claim_ms: float  # median claim
    record_queue_ms: float  # median record through the queue (lease check + result + done)
    record_plain_ms: float  # median Store.record_match of the same record

    @property
    def overhead_ms(self) -> float:
        return self.claim_ms + max(0.0, self.record_queue_ms - self.record_plain_ms)


def throughput(url: str, workers: int, rounds: int, log_dir: Path) -> ThroughputFigure:
    with Store.open(url) as store:
        rows = resolve_bots(store, [str(SAMPLES / n) for n in ("random_bot", "investor_bot", "greedy_bot")],
                            log_dir=log_dir, policy=IsolationPolicy.none())
        config = TournamentConfig(bots=tuple(r.name for r in rows), versions={r.name: r.number for r in rows},
                                  table_sizes=(2, 3), rounds=rounds, isolation={"level": "none"})
        tid = create_tournament(store, config)
        total = MatchQueue(store).work_left(tid).planned
    started = time.monotonic()
    procs = [subprocess.Popen([sys.executable, "-m", "arena.cli.main", "worker", "--db", url, "--tournament",
                               str(tid), "--concurrency", "1", "--worker-id", f"bench{k}", "--isolation", "none",
                               "--logs", str(log_dir)], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
             for k in range(workers)]
    for p in procs:
        _, err = p.communicate()
        if p.returncode != 0:
            raise RuntimeError(f"a bench worker exited {p.returncode}: {err[-2000:]}")
    return ThroughputFigure(workers, total, time.monotonic() - started)


def _record(match_id: str, names: list[str]) -> MatchRecord:
    seats = tuple(SeatResult(i, name, 50 - 10 * i, i + 1) for i, name in enumerate(names))
    return MatchRecord(match_id=match_id, game="union_pacific", seed=1, variant="standard", players=len(seats),
                       seats=seats, termination=MatchTermination.NORMAL, replay={"events": list(range(200))},
                       started_at=time.time(), duration_s=1.0)


def claim_overhead(url: str, matches: int) -> ClaimFigures:
    with Store.open(url) as store:
        tag = uuid.uuid4().hex[:8]
        names = [f"bench-{tag}-{c}" for c in "abc"]
        for name in names:
            store.add_bot(name, "1", "bench", "none", address=f"bench.invalid:{len(name)}", files_sha256="b" * 64)
        queued = store.create_tournament("union_pacific", {"bots": names, "bench": "claims"}, 1)
        plain = store.create_tournament("union_pacific", {"bots": names, "bench": "plain"}, 1)
        queue = MatchQueue(store, WorkerId.make(f"bench-{os.getpid()}"), lease_s=60)
        queue.plan(queued, [(i, 1, 3) for i in range(matches)])
        claims, via_queue, direct = [], [], []
        for i in range(matches):
            t0 = time.perf_counter()
            lease = queue.claim(queued)
            t1 = time.perf_counter()
            assert lease is not None
            queue.record(lease, _record(f"m-{tag}-q{i}", names), isolation="none")
            t2 = time.perf_counter()
            store.record_match(plain, i, 1, _record(f"m-{tag}-p{i}", names))
            t3 = time.perf_counter()
            claims.append(t1 - t0)
            via_queue.append(t2 - t1)
            direct.append(t3 - t2)
    ms = lambda xs: statistics.median(xs) * 1000  # noqa: E731
    return ClaimFigures(matches, ms(claims), ms(via_queue), ms(direct))
