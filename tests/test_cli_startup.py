"""The ``arena`` command's start-up loads only what the command uses.

Many tests (and every user) run ``arena`` as a process: the store (SQLAlchemy, SQLModel, the
models), the migrations (Alembic), the host (gRPC) and numpy cost more than a second of CPU
before a command does anything.  Each is loaded by the commands that use it, inside the
command, never by building the parser.  These tests read which modules a real ``arena``
process had loaded when it finished (not how long it took).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from leaderboard.store import Store

#: Run ``arena ARGS...`` in this interpreter, then write the names of the loaded modules to
#: the file named by the first argument (at exit, also after ``--help``'s SystemExit).
PROBE = """
import atexit, json, sys
out, args = sys.argv[1], sys.argv[2:]
atexit.register(lambda: open(out, "w").write(json.dumps(sorted(sys.modules))))
from arena.cli.main import main
sys.exit(main(args))
"""

#: Packages that no parser needs: the store and its SQL, the migrations, the host's gRPC,
#: the numerics of the rating fit, the web server.
HEAVY = ("sqlalchemy", "sqlmodel", "alembic", "psycopg", "grpc", "numpy", "scipy", "starlette", "uvicorn",
         "leaderboard.store", "leaderboard.models", "arena.host.match", "arena.host.process")


def loaded_by(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    out = tmp_path / "modules.json"
    proc = subprocess.run([sys.executable, "-c", PROBE, str(out), *args], capture_output=True, text=True,
                          timeout=120, cwd=tmp_path)
    return proc, set(json.loads(out.read_text()))


def within(modules: set[str], packages: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == p or m.startswith(p + ".") for p in packages))


@pytest.mark.parametrize("args", [["--help"], ["--version"], ["play", "--help"], ["bot", "check", "--help"],
                                  ["tournament", "run", "--help"], ["leaderboard", "--help"], ["sprt", "--help"],
                                  ["serve", "--help"], ["worker", "--help"]],
                         ids=" ".join)
def test_help_loads_no_store_no_host_no_numerics(tmp_path: Path, args: list[str]) -> None:
    proc, modules = loaded_by(tmp_path, *args)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("usage: arena") or proc.stdout.startswith("arena "), proc.stdout
    assert "arena.cli.main" in modules  # the probe ran the real command
    assert within(modules, HEAVY) == []


def test_version_still_names_the_replay_format(tmp_path: Path) -> None:
    """``--version`` makes its text only when asked, and still says all three versions."""
    from arena.protocol import PROTOCOL_VERSION
    from arena.replay import VERSION

    proc, _ = loaded_by(tmp_path, "--version")
    assert proc.returncode == 0, proc.stderr
    assert f"bot protocol {PROTOCOL_VERSION}, replay format {VERSION}" in proc.stdout


def test_a_store_command_on_an_up_to_date_database_loads_no_alembic_nor_grpc(tmp_path: Path) -> None:
    """At the newest revision (every open but a database's first) the store is opened without
    Alembic; a listing needs neither the host nor numpy."""
    db = tmp_path / "arena.sqlite"
    Store.open(f"sqlite:///{db}").close()  # made, and migrated, here
    proc, modules = loaded_by(tmp_path, "tournament", "list", "--db", str(db))
    assert proc.returncode == 0, proc.stderr
    assert "no tournaments yet" in proc.stdout
    assert "leaderboard.store" in modules and "sqlalchemy" in modules  # it did open the store
    assert within(modules, ("alembic", "grpc", "numpy", "scipy", "arena.host.match")) == []

