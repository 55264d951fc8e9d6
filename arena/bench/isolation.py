"""What the sandbox costs and what it buys: bot start time, and a CPU hog's effect on a thinking bot.

- Start: the Python random bot started until it answers ``Describe``, then stopped (as
  a tournament does once a match is over), alternating between the three ways: sandboxed
  by the zygote (the default for Python bots), sandboxed by bubblewrap (every other bot;
  ``ARENA_NO_ZYGOTE=1``) and unsandboxed, so that all see the same machine; the median
  time to ready, and the CPU time of the whole start and stop (:class:`arena.bench.cpu.TreeCpu`).
- Fairness: the thinker bot (a fixed amount of CPU work per decision) plays 2-player
  matches against the random bot (baseline) and against a hog that spins two
  processes from ``StartMatch`` on; its mean decision time is compared, sandboxed
  (the hog's cgroup is frozen between its decisions) and unsandboxed.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from arena.bench.cpu import TreeCpu
from arena.host.clock import Clocks
from arena.host.manifest import BotSpec, load_manifest
from arena.host.match import MatchConfig, run_match
from arena.host.process import BotPool, start_bot
from arena.host.sandbox import IsolationPolicy

_ROOT = Path(__file__).resolve().parents[2]
RANDOM_BOT = _ROOT / "sample_bots" / "python" / "random_bot"
THINKER = Path(__file__).resolve().parent / "bots" / "thinker"
HOG = Path(__file__).resolve().parent / "bots" / "hog"


#: The ways a bot starts, as bench_start names them: sandboxed by the zygote, by bubblewrap, not at all.
START_WAYS = ("zygote", "bubblewrap", "none")


@dataclass(frozen=True)
class StartFigures:
    starts: int
    ready_ms: dict[str, float]  # way -> median time until it answers Describe
    cpu_ms: dict[str, float]  # way -> CPU time per start and stop, every process included
    exact: bool  # whether the CPU time counts every process (a cpuacct cgroup), else a lower bound


@dataclass(frozen=True)
class FairnessFigures:
    matches: int
    level: str
    baseline_ms: float  # the thinker's mean decision time against the random bot
    hogged_ms: float  # ... against the hog

    @property
    def slowdown(self) -> float:
        return self.hogged_ms / self.baseline_ms - 1.0


def bench_start(starts: int = 10) -> StartFigures:
    manifest = load_manifest(RANDOM_BOT)
    ready: dict[str, list[float]] = {way: [] for way in START_WAYS}
    cpu: dict[str, float] = dict.fromkeys(START_WAYS, 0.0)
    before = os.environ.get("ARENA_NO_ZYGOTE")
    with tempfile.TemporaryDirectory(prefix="arena-bench-start-") as tmp, TreeCpu() as tree:
        try:
            for i in range(starts + 1):  # the first round starts the zygote: not counted
                for way in START_WAYS:
                    if way == "bubblewrap":
                        os.environ["ARENA_NO_ZYGOTE"] = "1"
                    else:
                        os.environ.pop("ARENA_NO_ZYGOTE", None)
                    policy = IsolationPolicy.none() if way == "none" else IsolationPolicy.sandbox()
                    cpu_before = tree.seconds()
                    began = time.perf_counter()
                    process, connection, _ = start_bot(manifest, log_path=Path(tmp) / "bot.log", policy=policy)
                    took = time.perf_counter() - began
                    connection.close()
                    process.stop(0.0)
                    if i:
                        ready[way].append(took)
                        cpu[way] += tree.seconds() - cpu_before
        finally:
            if before is None:
                os.environ.pop("ARENA_NO_ZYGOTE", None)
            else:
                os.environ["ARENA_NO_ZYGOTE"] = before
    return StartFigures(starts, {way: statistics.median(times) * 1000 for way, times in ready.items()},
                        {way: total / starts * 1000 for way, total in cpu.items()}, tree.exact)


def _thinker_mean_ms(policy: IsolationPolicy, opponent: Path, matches: int, seed: int, logs: Path) -> float:
    thinker = BotSpec(manifest=load_manifest(THINKER))
    other = BotSpec(manifest=load_manifest(opponent))
    config = MatchConfig(clocks=Clocks(decision_ms=2000, bank_ms=20_000))
    total_ms, decisions = 0.0, 0
    with BotPool(log_dir=logs, policy=policy, game="union_pacific") as pool:
        for i in range(matches):
            seats = [thinker, other] if i % 2 == 0 else [other, thinker]
            record = run_match(pool, seats, seed=seed + i, config=config)
            seat = seats.index(thinker)
            clock = next(s for s in record.replay["match"]["seats"] if s["seat"] == seat)["clock"]
            total_ms += clock["mean_decision_ms"] * clock["decisions"]
            decisions += clock["decisions"]
    return total_ms / max(decisions, 1)


def bench_fairness(matches: int = 4, seed: int = 0, levels: tuple[str, ...] = ("sandbox", "none")) -> list[FairnessFigures]:
    figures = []
    with tempfile.TemporaryDirectory(prefix="arena-bench-fair-") as tmp:
        for level in levels:
            policy = IsolationPolicy.sandbox() if level == "sandbox" else IsolationPolicy.none()
            baseline = _thinker_mean_ms(policy, RANDOM_BOT, matches, seed, Path(tmp) / "logs")
            hogged = _thinker_mean_ms(policy, HOG, matches, seed, Path(tmp) / "logs")
            figures.append(FairnessFigures(matches, level, baseline, hogged))
    return figures
