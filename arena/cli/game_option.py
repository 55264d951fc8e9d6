"""``--game``: which registered game a command plays or shows (the CLI's one choice of game),
and the help texts and checks that go with it."""

from __future__ import annotations

import argparse
from typing import Any

from arena.cli.errors import UserError
from arena.games import DEFAULT_GAME, game_spec, registered_games

#: ``--game all`` (where a command allows it): every registered game, one after the other.
ALL = "all"


def game_names() -> tuple[str, ...]:
    return tuple(spec.name for spec in registered_games())


def _games_help() -> str:
    return "; ".join(f"{s.name} ({s.title}, {s.min_players}-{s.max_players} players, variants "
                     f"{'/'.join(s.variants)})" for s in registered_games())


def add_game_option(p: argparse.ArgumentParser, *, default: str | None = DEFAULT_GAME, what: str = "the game played",
                    allow_all: bool = False) -> None:
    """``--game NAME`` among the registered games (and ``all`` with ``allow_all``); ``default``
    None: optional (commands that show stored results: a tournament's own game, or the store's
    only one)."""
    choices = (*game_names(), ALL) if allow_all else game_names()
    p.add_argument("--game", choices=choices, default=default, metavar="GAME",
                   help=f"{what}" + (f" (default {default})" if default else "") + f": {_games_help()}"
                   + ("; or 'all': every game, one after the other" if allow_all else ""))


def chosen_games(args: argparse.Namespace) -> tuple[str, ...]:
    """The games named by ``--game`` (every registered one for ``all``)."""
    return game_names() if args.game == ALL else (args.game,)


def variants_help() -> str:
    """Each game's variants, for ``--variant``'s help."""
    return "the game's variant, default its first (" + "; ".join(
        f"{spec.name}: {', '.join(spec.variants)}" for spec in registered_games()) + ")"


def seats_help() -> str:
    """Each game's table sizes, for help texts."""
    return "; ".join(f"{spec.name} {spec.min_players}-{spec.max_players}" for spec in registered_games())


def check_variant(game: str, variant: str | None) -> str:
    """``variant`` (None: the game's default) if ``game`` has it; a clear UserError otherwise."""
    spec = game_spec(game)
    if variant is None:
        return spec.default_variant
    if variant not in spec.variants:
        raise UserError(f"{spec.title} has no variant {variant!r}; it has: {', '.join(spec.variants)}")
    return variant


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


__all__ = ["ALL", "add_game_option", "check_tournament_game", "check_variant", "chosen_games", "game_names",
           "score_name", "seats_help", "variants_help"]
