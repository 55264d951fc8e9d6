"""``arena bot ...``: commands about one bot (``bot check`` here; the store adds its own)."""

from __future__ import annotations

import argparse
from pathlib import Path

from arena.cli.console import make_console
from rich.markup import escape

from arena.cli.errors import UserError
from arena.host.check import CheckStep, check_bot
from arena.cli.options import add_isolation_options, isolation_from_args
from arena.host.clock import Clocks


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bot", help="check and manage bots", description="Check and manage bots.")
    bot_sub = p.add_subparsers(dest="bot_command", metavar="ACTION", required=True)
    register_check(bot_sub)
    register_store_commands(bot_sub)


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
    c.add_argument("--seed", type=int, default=None,
                   help="deck seed of the first match (default: random, as in a tournament)")
    c.add_argument("--logs", type=Path, default=Path("arena-data/logs/check"), metavar="DIR",
                   help="where the bot's stderr log goes (default: arena-data/logs/check/)")
    add_isolation_options(c)
    c.set_defaults(func=run_check)


def run_check(args: argparse.Namespace) -> int:
    console = make_console(highlight=False)
    marks = {True: "[green]PASS[/green]", False: "[bold red]FAIL[/bold red]", None: "[dim]SKIP[/dim]"}

    def show(step: CheckStep) -> None:
        console.print(f"{marks[step.ok]} {escape(step.name)}: {escape(step.detail)}")

    try:
        clocks = Clocks(args.decision_ms, args.bank_ms)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    report = check_bot(args.bot, log_dir=args.logs, ready_timeout=args.ready_s, clocks=clocks, seed=args.seed,
                       progress=show, policy=isolation_from_args(args))
    if report.log_path is not None:
        console.print(f"bot log: {report.log_path}")
    failed = report.failed
    if failed is None:
        console.print(f"[bold green]PASS[/bold green]: {escape(report.bot)} is ready to submit")
        return 0
    console.print(f"[bold red]FAIL[/bold red]: {escape(report.bot)} failed step '{escape(failed.name)}'")
    return 1


def register_store_commands(bot_sub: argparse._SubParsersAction) -> None:
    from arena.cli.options import add_db_option

    a = bot_sub.add_parser(
        "add", help="submit a bot: the compliance check, then registration",
        description="Run the compliance check (as 'arena bot check') and, if it passes, register the bot under "
                    "the name its manifest (or, for an address, its Describe reply) gives. A bot that fails the "
                    "check is refused, saying why.")
    a.add_argument("bot", nargs="?", metavar="MANIFEST", help="bot.toml, or its folder")
    a.add_argument("--address", metavar="HOST:PORT", help="a bot already running elsewhere, instead of a manifest")
    a.add_argument("--logs", type=Path, default=Path("arena-data/logs/check"), metavar="DIR",
                   help="where the check's bot log goes (default: arena-data/logs/check/)")
    add_db_option(a)
    add_isolation_options(a)
    a.set_defaults(func=run_add)

    ls = bot_sub.add_parser("list", help="the registered bots", description="List the registered bots.")
    ls.add_argument("--all", action="store_true", help="include removed bots")
    ls.add_argument("--json", action="store_true", help="print JSON for scripts")
    add_db_option(ls)
    ls.set_defaults(func=run_list)

    rm = bot_sub.add_parser("remove", help="retire a bot (its matches and ratings stay)",
                            description="Retire a bot: it can enter no new tournament; its matches and ratings "
                                        "stay, and its name stays taken.")
    rm.add_argument("name", metavar="NAME")
    add_db_option(rm)
    rm.set_defaults(func=run_remove)


def run_add(args: argparse.Namespace) -> int:
    from arena.cli.options import open_store
    from arena.registry import register_bot

    if (args.bot is None) == (args.address is None):
        raise UserError("give a manifest or --address HOST:PORT (one of them)")
    console = make_console(highlight=False)
    marks = {True: "[green]PASS[/green]", False: "[bold red]FAIL[/bold red]", None: "[dim]SKIP[/dim]"}
    with open_store(args, create=True) as store:
        row, _ = register_bot(store, args.bot or args.address, log_dir=args.logs, policy=isolation_from_args(args),
                              progress=lambda step: console.print(f"{marks[step.ok]} {escape(step.name)}: "
                                                                  f"{escape(step.detail)}"))
        console.print(f"[bold green]added[/bold green] {escape(row.name)} {escape(row.version)} "
                      f"({escape(row.language)}) to {store.url}")
    return 0


def run_list(args: argparse.Namespace) -> int:
    import json

    from rich.table import Table

    from arena.cli.options import open_store
    from arena.registry import changed_since_registration

    with open_store(args) as store:
        rows = store.list_bots(include_removed=args.all)
    if args.json:
        print(json.dumps([{
            "name": r.name, "version": r.version, "author": r.author, "language": r.language,
            "manifest": None if r.manifest_path is None else str(r.manifest_path), "address": r.address,
            "files_sha256": r.files_sha256, "added_at": r.added_at.isoformat(),
            "removed_at": None if r.removed_at is None else r.removed_at.isoformat(),
        } for r in rows], indent=2))
        return 0
    if not rows:
        make_console().print("no bots registered yet: 'arena bot add path/to/bot.toml' (or run 'arena demo')")
        return 0
    table = Table(title="bots")
    for col in ("name", "version", "language", "author", "manifest or address", "added"):
        table.add_column(col)
    for r in rows:
        where = r.address or str(r.manifest_path)
        if not r.removed and changed_since_registration(r):
            where += " *"
            table.caption = "* the bot's files changed since it was added"
        name = r.name + (" (removed)" if r.removed else "")
        table.add_row(escape(name), escape(r.version), escape(r.language), escape(r.author), escape(where),
                      r.added_at.strftime("%Y-%m-%d %H:%M"))
    make_console().print(table)
    return 0


def run_remove(args: argparse.Namespace) -> int:
    from arena.cli.options import open_store

    with open_store(args) as store:
        row = store.remove_bot(args.name)
    make_console(highlight=False).print(f"removed {escape(row.name)}: its matches and ratings stay")
    return 0
