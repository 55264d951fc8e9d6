"""Engine cost in instructions, under callgrind: a figure that load on the machine does not move.

    python -m arena.bench.instructions [--games 10] [--players 4] [--parts]

Plays the random games of ``arena bench engine`` (game i: seed i, legal actions
enumerated at every decision) under ``valgrind --tool=callgrind``, counting only
what runs inside ``operator.call`` (``--toggle-collect``).  Two figures for whole games:
full states (what a match plays: event log and history kept), then the same games on
rollout states (``clone(rollout=True)`` right after the set-up, counted: no event log,
no history, as a search's playouts use them).  With ``--parts`` the set-up, the legal
actions, the actions applied and a ``clone()`` after every decision of a full state are
counted each in a run of their own.  One game (seed 10000) is played first, uncounted,
so the imports and the first calls are left out, and the garbage collector's generations
are then collected and frozen (``gc.freeze``), so a collection owed by the imports does not
fall into the counted games by chance (figures from before this, up to 6.56 M for a random
4-player game, read about 0.07 M lower than the same engine does now).  Prints
instructions per game (and per decision).  Needs valgrind.
"""

from __future__ import annotations

import argparse
import gc
import operator
import os
import random
import re
import subprocess
import sys
import tempfile
from typing import Any

PARTS = ("all", "rollout", "setup", "legal", "apply", "clone")
GOAL = 6e6  # issue 13: a whole game in at most 6 M instructions


def play(players: int, games: int, part: str) -> int:
    """Play the games; only the work of ``part`` runs inside ``operator.call``."""
    from arena.games.union_pacific import default_game

    game = default_game()
    count = operator.call
    cls = type(game.new_state(players, 0))
    # What one decision runs: the state's own methods, or for a part, the same calls with the
    # part's one inside ``count``.  Chosen once here, so the loop of "all" carries no test of
    # which part is measured.
    new_state = game.new_state
    legal_actions, apply_action = cls.legal_actions, cls.apply_action
    keeps_history = True
    if part == "rollout":
        keeps_history = False

        def new_state(n: int, seed: int) -> Any:
            state = game.new_state(n, seed)
            return state.clone(rng=state.rng, rollout=True)  # its own generator, handed on: no copy of it
    elif part == "setup":
        def new_state(n: int, seed: int) -> Any:
            return count(game.new_state, n, seed)
    elif part == "legal":
        def legal_actions(state: Any, seat: int) -> list[int]:
            return count(state.legal_actions, seat)
    elif part == "apply":
        def apply_action(state: Any, seat: int, action: int) -> None:
            count(state.apply_action, seat, action)
    elif part == "clone":
        def apply_action(state: Any, seat: int, action: int) -> None:
            state.apply_action(seat, action)
            count(state.clone)

    def one(seed: int) -> int:
        rng = random.Random(seed)
        state = new_state(players, seed)
        while not state.is_terminal():
            for seat in state.current_seats():
                legal = legal_actions(state, seat)
                apply_action(state, seat, legal[int(rng.random() * len(legal))])
        return len(state.history) if keeps_history else 0

    one(10_000)
    # The objects made so far (the imports, the tables, the memos) are moved out of the
    # collector's generations: otherwise whether a collection of the older generations, which
    # walks them all, falls inside the counted games depends on the count of allocations
    # (chance), and moves the figure by up to 1 %.
    gc.collect()
    gc.freeze()
    if part == "all":
        return count(lambda: sum(one(seed) for seed in range(games)))
    if part == "rollout":
        count(lambda: sum(one(seed) for seed in range(games)))
        # the same games again on full states, uncounted, for their number of decisions
        new_state, keeps_history = game.new_state, True
    return sum(one(seed) for seed in range(games))


def measure(players: int, games: int, part: str) -> tuple[int, int]:
    """(instructions, decisions) of ``part`` over the games, under callgrind."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        env = dict(os.environ, PYTHONHASHSEED="0")
        proc = subprocess.run(
            ["valgrind", "--tool=callgrind", "--toggle-collect=_operator_call*", f"--callgrind-out-file={out}",
             sys.executable, "-m", "arena.bench.instructions", "--worker", part,
             "--players", str(players), "--games", str(games)],
            capture_output=True, text=True, env=env, check=True)
        decisions = int(re.search(r"decisions (\d+)", proc.stdout).group(1))
        with open(out) as f:
            total = int(re.search(r"^(?:summary|totals): (\d+)", f.read(), re.M).group(1))
    return total, decisions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--parts", action="store_true", help="also count set-up, legal actions, apply, clone apart")
    parser.add_argument("--worker", choices=PARTS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(f"decisions {play(args.players, args.games, args.worker)}")
        return
    for part in PARTS if args.parts else PARTS[:2]:
        total, decisions = measure(args.players, args.games, part)
        what = {"all": "whole games", "rollout": "whole games on rollout states",
                "clone": "clone (one after every decision)"}.get(part, part)
        per_game = total / args.games
        goal = ""
        if part in ("all", "rollout"):
            goal = f"; {'meets' if per_game <= GOAL else 'above'} issue 13's goal of {GOAL / 1e6:.0f} M"
        print(f"{what}: {per_game / 1e6:.2f} M instructions per game, "
              f"{total / decisions / 1e3:.1f} k per decision ({args.games} games of {args.players} players, "
              f"{decisions} decisions){goal}")


if __name__ == "__main__":
    main()
