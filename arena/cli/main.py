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

from arena.cli.console import is_closed_pipe
from arena.cli.errors import UserError
from arena.games.base import BoardError, IllegalActionError, ReplayError

COMMAND_MODULES = (
    "arena.cli.selfplay",
    "arena.cli.replay",
    "arena.cli.bench",
    "arena.cli.play",
    "arena.cli.bots",
    "arena.cli.tournament",
    "arena.cli.workers",
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
    parser.add_argument("--version", action=_VersionAction,
                        help="print the version of Arena, of its bot protocol and of its replay format, and exit")
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


def version_text() -> str:
    """What ``arena --version`` prints: the package version (from its installed metadata),
    the bot protocol version and the replay format version."""
    from importlib.metadata import PackageNotFoundError, version

    from arena.protocol import PROTOCOL_VERSION
    from arena.replay import VERSION as REPLAY_VERSION

    try:
        mine = version("arena")
    except PackageNotFoundError:
        mine = "(not installed: no package metadata)"
    return f"arena {mine} (bot protocol {PROTOCOL_VERSION}, replay format {REPLAY_VERSION})"


class _VersionAction(argparse.Action):
    """``--version``: its text is made only when asked (it loads the replay module and the package
    metadata, which no other command needs at start-up), printed, and the command exits."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS,
                 default: str = argparse.SUPPRESS, help: str | None = None) -> None:
        super().__init__(option_strings=option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        print(version_text())
        parser.exit()


#: The exit status of a command whose output pipe was closed (``arena ... | head``): what a
#: shell reports for a Unix tool killed by SIGPIPE (128 + 13).
EXIT_BROKEN_PIPE = 141


def main(argv: Sequence[str] | None = None) -> int:
    # gRPC's C core logs connection chatter (GOAWAY on bot shutdown) to stderr at INFO.
    os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help()
            return 2
        code = int(args.func(args) or 0)
        sys.stdout.flush()  # here, where a closed pipe is handled, rather than at exit
        return code
    except (UserError, ReplayError, BoardError, IllegalActionError) as exc:
        print(f"arena: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("arena: interrupted", file=sys.stderr)
        return 130
    except (BrokenPipeError, BaseExceptionGroup) as exc:  # trio gathers a callback's error into a group
        if not is_closed_pipe(exc):
            raise
        return _closed_pipe()


def _closed_pipe() -> int:
    """The reader of our output went away (``| head``): stop quietly, as Unix tools do.
    Whatever is still buffered for stdout goes nowhere, so that the interpreter's own
    flush at exit does not fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # stdout is not a real file (e.g. captured by a test)
        pass
    return EXIT_BROKEN_PIPE


if __name__ == "__main__":
    sys.exit(main())
