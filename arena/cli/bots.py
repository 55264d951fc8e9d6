"""``arena bot ...``: commands about one bot (``bot check`` here; the store adds its own)."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from arena.cli.errors import UserError
from arena.host.check import CheckStep, check_bot
from arena.host.clock import Clocks


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bot", help="check and manage bots", description="Check and manage bots.")
    bot_sub = p.add_subparsers(dest="bot_command", metavar="ACTION", required=True)
    register_check(bot_sub)


def register_check(bot_sub: argparse._SubParsersAction) -> None:
    c = bot_sub.add_parser(
        "check", help="the compliance test to run before submitting a bot",
        description="Start the bot, check Describe, play a few matches (2, 4 and 6 players) against in-process "
                    "random players within the clocks with zero faults, and check that it exits on stdin EOF "
                    "and on SIGTERM. Exit status 0 on PASS, 1 on FAIL.")
    c.add_argument("bot", metavar="MANIFEST|HOST:PORT", help="bot.toml (or its folder), or a running bot's address")
    c.add_argument("--ready-s", type=float, default=10.0, metavar="S", help="start-up limit (default 10)")
    c.add_argument("--decision-ms", type=int, default=1000, metavar="N", help="time per decision (default 1000)")
    c.add_argument("--bank-ms", type=int, default=10_000, metavar="N", help="time bank per match (default 10000)")
    c.add_argument("--seed", type=int, default=0, help="seed of the first match (default 0)")
    c.add_argument("--logs", type=Path, default=Path("logs/check"), metavar="DIR",
                   help="where the bot's stderr log goes (default: logs/check/)")
    c.set_defaults(func=run_check)


def run_check(args: argparse.Namespace) -> int:
    console = Console(highlight=False)
    marks = {True: "[green]PASS[/green]", False: "[bold red]FAIL[/bold red]", None: "[dim]SKIP[/dim]"}

    def show(step: CheckStep) -> None:
        console.print(f"{marks[step.ok]} {escape(step.name)}: {escape(step.detail)}")

    try:
        clocks = Clocks(args.decision_ms, args.bank_ms)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    report = check_bot(args.bot, log_dir=args.logs, ready_timeout=args.ready_s, clocks=clocks, seed=args.seed,
                       progress=show)
    if report.log_path is not None:
        console.print(f"bot log: {report.log_path}")
    failed = report.failed
    if failed is None:
        console.print(f"[bold green]PASS[/bold green]: {escape(report.bot)} is ready to submit")
        return 0
    console.print(f"[bold red]FAIL[/bold red]: {escape(report.bot)} failed step '{escape(failed.name)}'")
    return 1
