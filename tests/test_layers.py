"""The architecture's import rules, read from each module's imports (as trio's
test_exports does): the engine is pure, only the host layer knows gRPC, only
leaderboard/ knows SQL."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted(p for pkg in ("arena", "leaderboard") for p in (ROOT / pkg).rglob("*.py")
                 if "/v1/" not in p.as_posix())  # arena/v1 is generated code

GRPC = ("grpc", "grpc_tools", "google.protobuf", "arena.v1")
SQL = ("sqlmodel", "sqlalchemy", "psycopg", "sqlite3")
IO_AND_CLOCK = ("os", "io", "time", "datetime", "socket", "subprocess", "threading", "asyncio", "trio", "pathlib",
                "shutil", "tempfile", "urllib", "http", "logging")


def imports_of(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def within(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


#: What the web app may import of arena.games: the registry (and the game-agnostic interface).
WEB_GAME_IMPORTS = ("arena.games", "arena.games.registry", "arena.games.base")


def game_internals(name: str) -> bool:
    """A game's own modules (``arena.games.GAME...``: its engine, its kit), not the registry."""
    return name.startswith("arena.games.") and not within(name, WEB_GAME_IMPORTS[1:])


def is_kit(r: str) -> bool:
    """A game's kit (arena/games/GAME/kit/): its wire adapter and view, beside the pure engine."""
    parts = r.split("/")
    return len(parts) > 4 and parts[:2] == ["arena", "games"] and parts[3] == "kit"


#: The only files of ``arena`` that may import ``leaderboard`` (the store, its SQL): the CLI, which
#: opens the store and hands it to the tournament runner through :mod:`arena.sinks`, and the
#: benchmarks that measure the store itself: ``bench store`` (fills and reads a database),
#: ``bench workers`` (workers racing on one queue) and ``bench tournament`` (a tournament stored
#: end to end).  Everything else (engine, host, scheduler, tournaments, worker, sprt, registry)
#: writes through the result sink.
MAY_IMPORT_LEADERBOARD = ("arena/bench/store.py", "arena/bench/workers.py", "arena/bench/tournament.py")


def may_import_leaderboard(r: str) -> bool:
    return r.startswith("arena/cli/") or r in MAY_IMPORT_LEADERBOARD


RULES = [
    # (which files, what they must not import, why)
    (lambda r: r.startswith("arena/games/") and not is_kit(r),
     GRPC + SQL + IO_AND_CLOCK + ("arena.host", "arena.cli", "arena.scheduler", "leaderboard", "random.SystemRandom"),
     "the engine is pure: no gRPC, no SQL, no I/O, no clock"),
    (is_kit, ("grpc", "grpc_tools") + SQL + IO_AND_CLOCK + ("arena.host", "arena.cli", "arena.scheduler", "leaderboard"),
     "a game's kit converts data (it may use the protocol's messages), it does no I/O and calls nothing"),
    (lambda r: r.startswith("leaderboard/"), GRPC + ("arena.host", "arena.sdk"), "leaderboard/ never knows gRPC"),
    (lambda r: not r.startswith("leaderboard/"), SQL, "only leaderboard/ knows SQL"),
    (lambda r: r.startswith("arena/scheduler/"), GRPC + ("arena.host",), "the scheduler never knows gRPC"),
    (lambda r: r.startswith("arena/host/"), ("leaderboard",), "the host never knows the store"),
    (lambda r: r.startswith("arena/") and not may_import_leaderboard(r), ("leaderboard",),
     "arena writes results through arena.sinks; only the CLI (and the store's benchmarks) open the store"),
    (lambda r: not (r.startswith("arena/host/") or r.startswith("arena/protocol/") or is_kit(r)
                    or r in ("arena/sdk.py", "arena/sdk_server.py", "arena/sdk_request.py", "arena/bench/host.py",
                              "arena/bench/empty_server.py")), GRPC,
     "only the host layer (and the bot-side SDK) knows gRPC"),
]


@pytest.mark.parametrize("path", SOURCES, ids=rel)
def test_module_respects_the_layers(path: Path) -> None:
    r = rel(path)
    found = imports_of(path)
    broken = [f"{name} ({why})" for applies, banned, why in RULES if applies(r)
              for name in sorted(found) if within(name, banned)]
    assert not broken, f"{r} imports " + "; ".join(broken)


@pytest.mark.parametrize("path", [p for p in SOURCES if rel(p).startswith("leaderboard/web/")], ids=rel)
def test_the_web_app_imports_no_game(path: Path) -> None:
    """The web app looks a game up by name (its kit's view, through the registry): it never
    imports a game's engine or kit modules itself."""
    found = sorted(name for name in imports_of(path) if game_internals(name))
    assert not found, f"{rel(path)} imports a game's own modules: {', '.join(found)} (use arena.games.game_kit)"


def test_the_web_rule_can_catch_a_violation() -> None:
    assert game_internals("arena.games.union_pacific.state") and game_internals("arena.games.ticket_to_ride_pennsylvania")
    assert not game_internals("arena.games.registry") and not game_internals("arena.games")


def test_the_rules_can_catch_a_violation(tmp_path: Path) -> None:
    fake = tmp_path / "mod.py"
    fake.write_text("import grpc\nfrom sqlalchemy import text\nimport time\n")
    assert imports_of(fake) == {"grpc", "sqlalchemy", "time"}
    assert within("google.protobuf.message", GRPC) and not within("grpcx", GRPC)


def test_every_package_is_covered() -> None:
    covered = {rel(p).split("/")[1] for p in SOURCES if rel(p).startswith("arena/")}
    assert {"games", "host", "scheduler", "cli"} <= covered


def test_arena_does_not_import_leaderboard_outside_the_cli() -> None:
    """The rule above, checked to bite: the modules that once imported the store no longer do."""
    for r in ("arena/tournaments.py", "arena/worker.py", "arena/sprt.py", "arena/registry.py"):
        assert not any(within(name, ("leaderboard",)) for name in imports_of(ROOT / r)), r
    assert all((ROOT / r).is_file() for r in MAY_IMPORT_LEADERBOARD)
