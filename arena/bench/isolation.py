"""What the sandbox costs and what it buys: bot start time, and a CPU hog's effect on a thinking bot.

- Start: the Python random bot started until it answers ``Describe``, sandboxed and
  not, alternating, so both see the same machine.
- Fairness: the thinker bot (a fixed amount of CPU work per decision) plays 2-player
  matches against the random bot (baseline) and against a hog that spins two
  processes from ``StartMatch`` on; its mean decision time is compared, sandboxed
  (the hog's cgroup is frozen between its decisions) and unsandboxed.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from arena.host.clock import Clocks
from arena.host.manifest import BotSpec, load_manifest
from arena.host.match import MatchConfig, run_match
from arena.host.process import BotPool, start_bot
from arena.host.sandbox import IsolationPolicy

_ROOT = Path(__file__).resolve().parents[2]
RANDOM_BOT = _ROOT / "sample_bots" / "python" / "random_bot"
THINKER = Path(__file__).resolve().parent / "bots" / "thinker"
HOG = Path(__file__).resolve().parent / "bots" / "hog"


@dataclass(frozen=True)
class StartFigures:
    starts: int
    sandbox_ms: float  # median
    none_ms: float


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
    times: dict[str, list[float]] = {"sandbox": [], "none": []}
    policies = {"sandbox": IsolationPolicy.sandbox(), "none": IsolationPolicy.none()}
    with tempfile.TemporaryDirectory(prefix="arena-bench-start-") as tmp:
        for _ in range(starts):
            for level, policy in policies.items():
                began = time.perf_counter()
                process, connection, _ = start_bot(manifest, log_path=Path(tmp) / "bot.log", policy=policy)
                times[level].append(time.perf_counter() - began)
                connection.close()
                process.stop(1.0)
    return StartFigures(starts, statistics.median(times["sandbox"]) * 1000, statistics.median(times["none"]) * 1000)


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
