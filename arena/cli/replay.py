"""``arena replay verify FILE``: re-play a replay and compare."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console

from arena.replay import load_replay, verify_replay


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("replay", help="work with replay files", description="Work with replay files.")
    rsub = p.add_subparsers(dest="replay_command", metavar="ACTION", required=True)
    v = rsub.add_parser("verify", help="re-play a replay from its seed and actions and compare",
                        description="Re-play a replay from its seed and actions; exit 0 if it reproduces the "
                                    "same events and result, 1 if it does not, 2 if the file is unusable.")
    v.add_argument("files", type=Path, nargs="+", metavar="FILE")
    v.set_defaults(func=run_verify)


def run_verify(args: argparse.Namespace) -> int:
    console = Console(highlight=False)
    failed = 0
    for path in args.files:
        result = verify_replay(load_replay(path))
        mark = "[green]OK[/green]" if result.ok else "[red]MISMATCH[/red]"
        console.print(f"{mark} {path}: {result.message}")
        failed += not result.ok
    return 1 if failed else 0
