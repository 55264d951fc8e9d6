"""Entry point of the ``arena`` command: one sub-command module per topic.

Each module in :data:`COMMAND_MODULES` has ``register(subparsers)`` that adds its
commands; a command is a function ``run(args) -> int`` set as ``args.func``.
Errors that a user can fix (bad input, a corrupt file, an unknown bot) are
:class:`UserError` or one of the typed errors below, and print one clear line.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import Sequence

from arena.cli.errors import UserError
from arena.games.base import BoardError, IllegalActionError, ReplayError

COMMAND_MODULES = (
    "arena.cli.selfplay",
    "arena.cli.replay",
    "arena.cli.bench",
    "arena.cli.play",
    "arena.cli.bots",
    "arena.cli.tournament",
    "arena.cli.sprt",
    "arena.cli.demo",
    "arena.cli.serve",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="arena",
        description="Arena: run Union Pacific bot tournaments over gRPC, rate the bots, show the results.",
        epilog="Run 'arena COMMAND --help' for a command's options. Start with 'arena demo'.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:  # a command group not built yet
                continue
            raise
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    # gRPC's C core logs connection chatter (GOAWAY on bot shutdown) to stderr at INFO.
    os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except (UserError, ReplayError, BoardError, IllegalActionError) as exc:
        print(f"arena: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("arena: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
