"""``arena selfplay``: games between in-process random policies."""

from __future__ import annotations

import argparse
import statistics
from collections import Counter
from pathlib import Path

from arena.cli.console import make_console
from rich.table import Table

from arena.cli.errors import UserError
from arena.cli.game_option import add_game_option, check_variant, seats_help, variants_help


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("selfplay", help="play games between in-process random policies",
                       description="Play games between in-process random policies and summarise them. "
                                   "Game i uses seed S+i; the policies are seeded from it too.")
    add_game_option(p, what="the game to play")
    p.add_argument("--players", type=int, default=4,
                   help=f"table size, within the game's ({seats_help()}); default 4")
    p.add_argument("--games", type=int, default=10, help="number of games (default 10)")
    p.add_argument("--seed", type=int, default=0, help="seed of the first game (default 0)")
    p.add_argument("--variant", default=None,
                   help=variants_help())
    p.add_argument("--replays", type=Path, metavar="DIR", help="write one JSON replay per game into DIR")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from arena.games import get_game  # the engines load here, not for 'arena --help'
    from arena.policies import RandomPolicy, play_in_process
    from arena.replay import build_replay, write_replay

    game = get_game(args.game)
    variant = check_variant(game.name, args.variant)
    if not game.min_players <= args.players <= game.max_players:
        raise UserError(f"--players must be {game.min_players} to {game.max_players}, got {args.players}")
    if args.games < 1:
        raise UserError(f"--games must be at least 1, got {args.games}")
    console = make_console()
    cash_by_place: dict[int, list[int]] = {}
    lengths: list[int] = []
    endings: Counter[str] = Counter()
    reference = game.spec.reference(args.players)  # e.g. the imaginary shareholder
    reference_wins = 0
    for i in range(args.games):
        seed = args.seed + i
        state = game.new_state(args.players, seed, variant)
        play_in_process(state, [RandomPolicy(seed * 7 + s) for s in range(args.players)])
        outcome = state.outcome()
        endings[outcome.termination.value] += 1
        lengths.append(len(state.history))
        ordered = sorted(outcome.cash.items(), key=lambda kv: -kv[1])
        for place, (_, cash) in enumerate(ordered, start=1):
            cash_by_place.setdefault(place, []).append(cash)
        if any(outcome.places.get(name) == 1 for name in reference):
            reference_wins += 1
        if args.replays:
            path = args.replays / f"selfplay-{game.name}-{args.players}p-seed{seed}.json"
            write_replay(path, build_replay(game, state, seed=seed, variant=variant,
                                            seats=[f"random-{s}" for s in range(args.players)]))
    table = Table(title=f"{args.games} random {args.players}-player game(s) of {game.spec.title}, {variant}")
    table.add_column("place", justify="right")
    table.add_column(f"mean {game.spec.score_name} ({game.spec.score_unit})", justify="right")
    table.add_column("min", justify="right")
    table.add_column("max", justify="right")
    for place, values in sorted(cash_by_place.items()):
        table.add_row(str(place), f"{statistics.fmean(values):.1f}", str(min(values)), str(max(values)))
    console.print(table)
    console.print(f"decisions per game: mean {statistics.fmean(lengths):.1f}, min {min(lengths)}, max {max(lengths)}")
    console.print("endings: " + ", ".join(f"{k} {v}" for k, v in sorted(endings.items())))
    if reference:
        titles = " or ".join(game.spec.reference_title(name) for name in reference)
        console.print(f"{titles} finished first in {reference_wins} of {args.games} game(s)")
    if args.replays:
        console.print(f"replays written to {args.replays}/")
    return 0
