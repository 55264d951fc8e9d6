"""The ``--game`` option: which registered game a command plays."""

from __future__ import annotations

import argparse

from arena.cli.errors import UserError
from arena.games import DEFAULT_GAME, game_spec, registered_games

#: ``--game all`` (where a command allows it): every registered game, one after the other.
ALL = "all"


def game_names() -> tuple[str, ...]:
    return tuple(spec.name for spec in registered_games())


def add_game_option(parser: argparse.ArgumentParser, *, allow_all: bool = False) -> None:
    names = game_names()
    choices = (*names, ALL) if allow_all else names
    parser.add_argument("--game", choices=choices, default=DEFAULT_GAME,
                        help=f"the game to play (default {DEFAULT_GAME})" + ("; 'all': every game" if allow_all else ""))


def variants_help() -> str:
    """Each game's variants, for ``--variant``'s help."""
    return "the game's variant, default its first (" + "; ".join(
        f"{spec.name}: {', '.join(spec.variants)}" for spec in registered_games()) + ")"


def seats_help() -> str:
    """Each game's table sizes, for help texts."""
    return "; ".join(f"{spec.name} {spec.min_players}-{spec.max_players}" for spec in registered_games())


def chosen_games(args: argparse.Namespace) -> tuple[str, ...]:
    """The games named by ``--game`` (every registered one for ``all``)."""
    return game_names() if args.game == ALL else (args.game,)


def check_variant(game: str, variant: str | None) -> str:
    """``variant`` (None: the game's default) if ``game`` has it; a clear UserError otherwise."""
    spec = game_spec(game)
    if variant is None:
        return spec.default_variant
    if variant not in spec.variants:
        raise UserError(f"{spec.title} has no variant {variant!r}; it has: {', '.join(spec.variants)}")
    return variant


__all__ = ["ALL", "add_game_option", "check_variant", "chosen_games", "game_names", "seats_help", "variants_help"]
