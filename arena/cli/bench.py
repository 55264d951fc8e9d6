"""``arena bench ...``: benchmarks that print figures."""

from __future__ import annotations

import argparse

from rich.console import Console
from rich.table import Table

from arena.bench.engine import bench_engine
from arena.cli.errors import UserError
from arena.games import get_game


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bench", help="benchmarks that print figures", description="Benchmarks that print figures.")
    bsub = p.add_subparsers(dest="bench_command", metavar="WHAT", required=True)
    e = bsub.add_parser("engine", help="random games per second at each table size",
                        description="Random games with the legal actions enumerated at every decision, "
                                    "for each table size 2-6, on one core (process CPU time).")
    e.add_argument("--games", type=int, default=300, help="games per table size (default 300)")
    e.add_argument("--seed", type=int, default=0)
    e.set_defaults(func=run_engine)


def run_engine(args: argparse.Namespace) -> int:
    if args.games < 1:
        raise UserError("--games must be at least 1")
    game = get_game("union_pacific")
    console = Console()
    table = Table(title=f"engine: {args.games} random games per table size, legal actions at every decision")
    for col in ("players", "median ms/game", "games/s", "decisions/s", "decisions/game"):
        table.add_column(col, justify="right")
    with console.status("playing..."):
        for players in range(2, 7):
            f = bench_engine(game, players, args.games, args.seed)
            table.add_row(str(players), f"{f.median_ms:.2f}", f"{f.games_per_s:.0f}", f"{f.decisions_per_s:,.0f}",
                          f"{f.decisions_per_game:.0f}")
    console.print(table)
    return 0
