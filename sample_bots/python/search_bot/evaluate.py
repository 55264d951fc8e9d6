"""Measure the search bot against three greedy bots, in-process (no gRPC, same code paths).

    python evaluate.py --budget 0.2 --games 200 [--first 0] [--players 4]

Game ``m`` is seeded ``10000 + m`` and seats the search bot at ``m % players``; the other
seats play the greedy sample's strategy.  The search bot sees what it would see over the
wire: each observation and the public events it has been shown, from which the SDK's
forward model deals its samples.  Prints one line per game, then the win rate (a shared
first place counts as a fraction) with a 95 % Wilson interval and the mean decision time.

The budget is measured in this process's CPU time (``--clock cpu``, the default), so that
a loaded machine gives the same search as an idle one (slower, not weaker); ``--clock
wall`` measures wall-clock time as the bot does against the host's clocks.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import search  # noqa: E402

from arena.bench.greedy import direct_view, load_greedy_strategy  # noqa: E402
from arena.games.union_pacific.kit.forward import ForwardModel  # noqa: E402
from arena.games.union_pacific import default_game  # noqa: E402


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=search.DEFAULT_BUDGET_S, help="seconds per decision")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--first", type=int, default=0, help="the first game's number")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--horizon", type=int, default=None,
                        help="most decisions per rollout (0: the payout model only; default search.HORIZON)")
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu",
                        help="what the budget measures: this process's CPU time (default) or wall-clock time")
    args = parser.parse_args()
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    game = default_game()
    greedy = load_greedy_strategy()
    wins = 0.0
    times: list[float] = []
    places: list[int] = []
    for m in range(args.first, args.first + args.games):
        mine: list[float] = []
        state = game.new_state(args.players, 10_000 + m)
        me = m % args.players
        log: list[dict] = []
        rng = random.Random(m)
        while not state.is_terminal():
            seat = state.current_seats()[0]
            actions = state.legal_actions(seat)
            observation, legal = direct_view(state, seat, actions)
            if seat == me:
                log += observation["public_events"]
                started = clock()
                model = ForwardModel(game, observation, log, None, seed=rng.getrandbits(32))
                index, _ = search.choose(model, search.budget_for(model, args.budget), rng, clock,
                                         horizon=args.horizon)
                mine.append(clock() - started)
            else:
                index = greedy.choose(observation, legal)
            state.apply_action(seat, actions[index])
        outcome = state.outcome()
        place = outcome.places[str(me)]
        if place == 1:
            wins += 1.0 / sum(1 for p in outcome.places.values() if p == 1)
        places.append(place)
        times += mine
        print(f"game {m} seat {me} place {place} cash {outcome.cash} wins {wins:g}/{len(places)} "
              f"decisions {len(mine)} mean {statistics.fmean(mine) * 1e3:.0f} ms", flush=True)
    low, high = wilson(wins, len(places))
    print(f"budget {args.budget} s ({args.clock}): won {wins:g} of {len(places)} = {wins / len(places):.3f} "
          f"(95 % interval {low:.3f}-{high:.3f}), mean place {statistics.fmean(places):.2f}, "
          f"mean decision {statistics.fmean(times) * 1e3:.0f} ms over {len(times)} decisions "
          f"(max {max(times) * 1e3:.0f} ms)")


if __name__ == "__main__":
    main()
