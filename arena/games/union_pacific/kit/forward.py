"""Union Pacific's forward model (a part of its kit): full game states a bot may search,
rebuilt from what its seat knows.

At a decision, :meth:`arena.sdk.Match.forward_model` gives a :class:`ForwardModel`
(found through :mod:`arena.forward_model`, by the match's game):

* ``model.sample()``: a new full engine state (a ``UnionPacificState``) consistent
  with everything the seat has seen: the board, the cash, the investments, the
  display, its own hand, the cards known to be in the other hands; the cards it
  cannot see (the other hands' other cards, the order of both decks, the cards
  boxed by the others' exchanges) dealt uniformly at random from the ones it has
  not seen.  Each call deals again (redeterminisation): play each sample on with
  the engine (``legal_actions``, ``apply_action``, ``clone``, ``is_terminal``,
  ``outcome``), as many as the clock allows.
* ``model.actions``: the engine action ids of the decision's legal actions, in
  the order of ``legal_actions`` (``model.actions[i]`` is ``legal_actions[i]``).

It is built from the observation and the public events the seat has been shown
since the start of the match, which the SDK keeps in ``Match.public_events``.
Pure computation: nothing here talks to the host.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any, Mapping, Sequence

from arena.games.union_pacific import UnionPacific, board_from_json, default_game
from arena.games.union_pacific.determinise import Determiniser, SeatKnowledge, from_observation
from arena.games.union_pacific.state import UnionPacificState

__all__ = ["ForwardModel", "game_for_board", "forward_model"]


def game_for_board(board: Mapping[str, Any] | None) -> UnionPacific:
    """The game on ``board`` (the board JSON of ``StartMatch``; None: the default board), built
    once per process and board."""
    if board is None:
        return default_game()
    return _game_for_text(json.dumps(board))  # key order kept: the board file's order is meaningful (card kinds)


@lru_cache(maxsize=8)
def _game_for_text(text: str) -> UnionPacific:
    return UnionPacific(board_from_json(text, source="StartMatch board"))


def forward_model(board: Mapping[str, Any] | None, observation: Mapping[str, Any],
                  events: Sequence[Mapping[str, Any]], legal_actions: Sequence[Any] | None,
                  seed: int | None) -> "ForwardModel":
    """The kit's entry point (:func:`arena.forward_model.forward_model` calls it)."""
    return ForwardModel(game_for_board(board), observation, events, legal_actions, seed)


def prepare(board: Mapping[str, Any] | None) -> None:
    """Build the game for ``board`` ahead of the first decision (a bot's ``start_match``)."""
    game_for_board(board)


class ForwardModel:
    """Samples of the full game at one decision of one seat (see the module's docstring)."""

    def __init__(self, game: UnionPacific, observation: Mapping[str, Any], events: Sequence[Mapping[str, Any]],
                 legal_actions: Sequence[Any] | None = None, seed: int | None = None) -> None:
        self.game = game
        self.seat: int = observation["seat"]
        #: the decision's kind: ``first_invest``, ``main``, ``draw_share`` or ``exchange``
        self.decision: str = observation["decision"]
        base, know = from_observation(game, observation, events)
        self.knowledge: SeatKnowledge = know
        self._determiniser = Determiniser(base, know, seed)
        ids = base.legal_actions(self.seat)
        if legal_actions is not None:
            table = game.actions
            texts = [a.text for a in legal_actions]
            if len(texts) != len(ids) or any(table.to_string(a) != t for a, t in zip(ids, texts)):
                ids = [table.from_string(t) for t in texts]
        #: the engine ids of the legal actions, in the order the host sent them
        self.actions: list[int] = ids

    def sample(self) -> UnionPacificState:
        """A new full state consistent with what the seat knows (the hidden cards dealt again)."""
        return self._determiniser.sample()
