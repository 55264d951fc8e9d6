"""``--game``: which registered game a command plays or shows (the CLI's one choice of game)."""

from __future__ import annotations

import argparse
from typing import Any

from arena.cli.errors import UserError
from arena.games import DEFAULT_GAME, game_spec, registered_games


def _games_help() -> str:
    return "; ".join(f"{s.name} ({s.title}, {s.min_players}-{s.max_players} players, variants "
                     f"{'/'.join(s.variants)})" for s in registered_games())


def add_game_option(p: argparse.ArgumentParser, *, default: str | None = DEFAULT_GAME, what: str = "the game played") -> None:
    """``--game NAME`` among the registered games; ``default`` None: optional (commands that show
    stored results: a tournament's own game, or the store's only one)."""
    choices = [s.name for s in registered_games()]
    p.add_argument("--game", choices=choices, default=default, metavar="GAME",
                   help=f"{what}" + (f" (default {default})" if default else "") + f": {_games_help()}")


def check_tournament_game(row: Any, game: str | None) -> None:
    """Refuse ``--game`` that is not the stored tournament's game (a clear error, nothing done)."""
    if game is not None and row.game != game:
        raise UserError(f"tournament {row.id} plays {row.game}, not {game}")


def score_name(game: str | None) -> str:
    """The game's name for its score (its spec's score_name: cash, score), for a column heading."""
    try:
        return "score" if game is None else game_spec(game).score_name
    except ValueError:  # a stored game this Arena does not know
        return "score"
