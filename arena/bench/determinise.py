"""Determinisation speed: a sample of the full game (clone + deal) next to a plain clone.

    python -m arena.bench.determinise [--players 4] [--positions 6] [--reps 3000]

Positions are taken from random games (after 40, 80, ... decisions); at each one, a
:class:`~arena.games.union_pacific.determinise.Determiniser` for the seat to move deals
``reps`` samples, interleaved in blocks with as many ``clone(rng=...)`` (the copy inside a
sample) and ``clone()`` (a copy with the generator copied too), timed in process CPU time.
Prints the median over positions of each, in microseconds, and the ratios measured in the
same run (a loaded machine moves the figures, less the ratios).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any, Callable

from arena.games.union_pacific import default_game
from arena.games.union_pacific.determinise import Determiniser, knowledge_of


def _per_call(call: Callable[[], Any], reps: int) -> float:
    clock = time.process_time
    start = clock()
    for _ in range(reps):
        call()
    return (clock() - start) / reps * 1e6


def bench_determinise(players: int = 4, positions: int = 6, reps: int = 3000, seed: int = 1) -> dict[str, float]:
    """Median microseconds per ``sample``, ``clone(rng)`` and ``clone()`` over positions."""
    game = default_game()
    figures: dict[str, list[float]] = {"sample": [], "clone_rng": [], "clone": []}
    for p in range(positions):
        state = game.new_state(players, seed + p)
        rng = random.Random(seed + p)
        for _ in range(40 * (1 + p % 4)):
            if state.is_terminal():
                break
            seat = state.current_seats()[0]
            state.apply_action(seat, rng.choice(state.legal_actions(seat)))
        if state.is_terminal():
            continue
        seat = state.current_seats()[0]
        determiniser = Determiniser(state, knowledge_of(state, seat), seed=p)
        block = max(1, reps // 10)
        parts = {"sample": 0.0, "clone_rng": 0.0, "clone": 0.0}
        for _ in range(10):  # interleaved blocks: drift in the machine's speed hits all three alike
            parts["sample"] += _per_call(determiniser.sample, block)
            parts["clone_rng"] += _per_call(lambda: state.clone(rng=determiniser.rng), block)
            parts["clone"] += _per_call(state.clone, block)
        for name, total in parts.items():
            figures[name].append(total / 10)
    return {name: statistics.median(values) for name, values in figures.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--positions", type=int, default=6)
    parser.add_argument("--reps", type=int, default=3000)
    args = parser.parse_args()
    f = bench_determinise(args.players, args.positions, args.reps)
    print(f"{args.players} players, median over positions, process CPU time per call: "
          f"sample {f['sample']:.1f} us, clone(rng) {f['clone_rng']:.1f} us, clone() {f['clone']:.1f} us; "
          f"sample / clone() = {f['sample'] / f['clone']:.2f}, dealing alone = sample - clone(rng) = "
          f"{f['sample'] - f['clone_rng']:.1f} us")


if __name__ == "__main__":
    main()
