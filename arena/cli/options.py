"""Options shared by the commands that touch the store."""

from __future__ import annotations

import argparse
from contextlib import contextmanager
from typing import Iterator

from arena.cli.errors import UserError

DB_HELP = ("database: any SQLAlchemy URL (sqlite:///path, postgresql://user@host/db) or a file path; "
           "default: $ARENA_DB, else arena-data/arena.sqlite in the current folder")


def add_db_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", metavar="URL", default=None, help=DB_HELP)


@contextmanager
def open_store(args: argparse.Namespace, *, create: bool = False) -> Iterator["Store"]:  # noqa: F821
    """The store named by ``--db`` / ``ARENA_DB``; store errors become one-line user errors.

    Only the commands that write results (``create=True``: bot add, tournament run and create, demo)
    may create a database; for every other one a missing database is an error that names
    the path and the commands that create one (leaderboard/existence.py).
    """
    from leaderboard.errors import StoreError
    from leaderboard.existence import require_existing_database
    from leaderboard.store import Store

    try:
        if not create:
            require_existing_database(getattr(args, "db", None))
        store = Store.open(getattr(args, "db", None))
    except StoreError as exc:
        raise UserError(str(exc)) from None
    try:
        with store:
            yield store
    except StoreError as exc:
        raise UserError(str(exc)) from None


ISOLATION_HELP = ("how bot processes are isolated: 'sandbox' (default: bubblewrap namespaces, no network, a "
                  "read-only view of the bot's folder, cgroup limits, a fresh process per seat of every match) "
                  "or 'none' (plain child processes, reused across matches: trusted bots only)")


def add_isolation_options(parser: argparse.ArgumentParser, *, default: str | None = "sandbox") -> None:
    """``--isolation`` and the sandbox's limits (see docs/hosting.md)."""
    from arena.host.sandbox import Limits

    limits = Limits()
    parser.add_argument("--isolation", choices=("sandbox", "none"), default=default, help=ISOLATION_HELP)
    parser.add_argument("--memory-mb", type=int, default=None, metavar="MB",
                        help=f"sandbox: memory per bot process tree (default {limits.memory_mb})")
    parser.add_argument("--max-procs", type=int, default=None, metavar="N",
                        help=f"sandbox: processes and threads per bot (default {limits.pids})")
    parser.add_argument("--cpus", type=float, default=None, metavar="N",
                        help=f"sandbox: CPUs per bot while it decides (default {limits.cpus:g})")


def isolation_from_args(args: argparse.Namespace, stored: dict | None = None) -> "IsolationPolicy":  # noqa: F821
    """The policy the options ask for (over ``stored``, a policy's JSON); a one-line error when the
    sandbox cannot work here."""
    from arena.host.sandbox import Isolation, IsolationPolicy, Limits, SandboxUnavailable, require_sandbox

    stored = stored or {}
    level = args.isolation or stored.get("level") or "sandbox"
    base = Limits.from_json(stored.get("limits"))
    try:
        limits = Limits(memory_mb=args.memory_mb or base.memory_mb, pids=args.max_procs or base.pids,
                        cpus=args.cpus or base.cpus, file_mb=base.file_mb, tmp_mb=base.tmp_mb, log_mb=base.log_mb)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    policy = IsolationPolicy(Isolation(level), limits)
    if policy.sandboxed:
        try:
            require_sandbox()
        except SandboxUnavailable as exc:
            raise UserError(str(exc)) from None
    return policy


def describe_isolation(policy: "IsolationPolicy") -> str:  # noqa: F821
    """One line for the console: the level and, sandboxed, the limits."""
    if not policy.sandboxed:
        return "isolation none (trusted bots: unsandboxed, processes reused)"
    limits = policy.limits
    return (f"isolation sandbox (memory {limits.memory_mb} MB, {limits.pids} processes, {limits.cpus:g} CPU per bot; "
            "a fresh process per seat)")
