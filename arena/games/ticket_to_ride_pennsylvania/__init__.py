"""Ticket to Ride: Pennsylvania, Arena's second game (rules: docs/rules-ticket-to-ride-pennsylvania.md).

The rules engine only: pure, deterministic, on the board file shipped in
``boards/`` (a reconstruction from public sources; see the rules doc).
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Any

from arena.games.ticket_to_ride_pennsylvania.actions import ActionTable
from arena.games.ticket_to_ride_pennsylvania.board import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    Board,
    board_from_json,
    load_default_board,
)
from arena.games.ticket_to_ride_pennsylvania.state import GAME_NAME, NEUTRAL_PARTICIPANT, VARIANTS, TicketToRideState
from arena.games.registry import GameSpec, register_game

__all__ = ["SPEC", "TicketToRidePennsylvania", "TicketToRideState", "Board", "board_from_json", "load_default_board",
           "default_game", "NEUTRAL_PARTICIPANT"]


#: No reference participants: the two-player game's neutral shareholder takes places in the
#: share majorities (§11.4) but is no participant of the result (§10.5).
SPEC = GameSpec(
    name=GAME_NAME,
    title="Ticket to Ride: Pennsylvania",
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    variants=VARIANTS,
    score_name="score",  # what an outcome's numbers are: the final score in points (rules §10)
    score_unit="points",
)


class TicketToRidePennsylvania:
    """The game object: static facts and a factory for states (see arena.games.base.Game)."""

    spec = SPEC
    name = SPEC.name
    min_players = SPEC.min_players
    max_players = SPEC.max_players
    variants = SPEC.variants

    def __init__(self, board: Board | None = None) -> None:
        self.board = board if board is not None else load_default_board()
        self.actions = ActionTable(self.board)

    def new_state(self, players: int, seed: int, variant: str = "standard") -> TicketToRideState:
        return TicketToRideState(self.board, self.actions, players, seed, variant)

    def board_info(self) -> dict[str, Any]:
        return {"name": self.board.name, "sha256": self.board.sha256}

    def participants(self, players: int) -> tuple[str, ...]:
        """The seats alone (see :data:`SPEC`)."""
        return SPEC.participants(players)

    def hidden_twin(self, state: TicketToRideState, seat: int, rng: random.Random) -> TicketToRideState | None:
        """For the conformance suite: see :func:`arena.games.ticket_to_ride_pennsylvania.conformance.hidden_twin`."""
        from arena.games.ticket_to_ride_pennsylvania.conformance import hidden_twin

        return hidden_twin(state, seat, rng)


@lru_cache(maxsize=1)
def default_game() -> TicketToRidePennsylvania:
    """The game on the default board, built once per process."""
    return TicketToRidePennsylvania()


register_game(SPEC, default_game, kit="arena.games.ticket_to_ride_pennsylvania.kit")
