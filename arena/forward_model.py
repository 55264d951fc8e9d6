"""The SDK's forward model, for any game that has one: full game states a bot may search,
rebuilt from what its seat knows (redeterminisation).

A game provides it as the ``forward`` part of its kit (``arena/games/GAME/kit/forward.py``,
found by :func:`arena.games.game_kit`), offering ``forward_model(board, observation,
events, legal_actions, seed)`` and ``prepare(board)``.  Union Pacific has one
(:mod:`arena.games.union_pacific.kit.forward` documents what a sample holds); a game
without one gives :class:`NoForwardModel`, which says so.  Bots use it through
:meth:`arena.sdk.Match.forward_model`.  Pure computation: nothing here talks to the host.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, Mapping, Sequence

from arena.games import game_kit, registered_games
from arena.games.registry import starts_at_setup

__all__ = ["NoForwardModel", "PartialHistory", "forward_model", "prepare", "require_forward_model"]


class NoForwardModel(ValueError):
    """The match's game has no forward model."""


class PartialHistory(ValueError):
    """The public events given do not reach back to the start of the match (a bot process
    restarted mid-match has only those shown since): a sample built from them could contradict
    what happened before, so none is built."""


def _games_with_one() -> list[str]:
    names = []
    for spec in registered_games():
        try:
            game_kit(spec.name).part("forward")
        except LookupError:
            continue
        names.append(spec.name)
    return names


def _part(game: str) -> ModuleType:
    try:
        return game_kit(game).part("forward")
    except (LookupError, ValueError):
        raise NoForwardModel(f"the SDK has no forward model for {game!r} (it has one for "
                             f"{', '.join(_games_with_one()) or 'no game'}): search with your own model "
                             "of the game, or play from the observation alone") from None


def require_forward_model(game: str) -> None:
    """Raise :class:`NoForwardModel`, with a clear message, unless ``game`` has a forward model."""
    _part(game)


def forward_model(game: str, board: Mapping[str, Any] | None, observation: Mapping[str, Any],
                  events: Sequence[Mapping[str, Any]], legal_actions: Sequence[Any] | None = None,
                  seed: int | None = None) -> Any:
    """The forward model of ``game`` at one decision (``board``: StartMatch's board JSON;
    ``events``: every public event the seat has been shown since the start of the match, in
    order: :class:`PartialHistory` if they do not begin at the set-up)."""
    part = _part(game)
    if not starts_at_setup(events):
        first = repr(events[0].get("type")) if events else "none"
        raise PartialHistory(
            f"the public events start mid-match (the first is {first}, not the set-up): this bot process "
            "did not see the match from its start (it was restarted), so the forward model cannot know "
            "what happened before; play this match from the observation alone (Match.history_complete "
            "says so before you ask)")
    return part.forward_model(board, observation, events, legal_actions, seed)


def prepare(game: str, board: Mapping[str, Any] | None) -> None:
    """Build what the forward model needs before the first decision's clock runs (no-op if none)."""
    try:
        part = _part(game)
    except NoForwardModel:
        return
    part.prepare(board)
