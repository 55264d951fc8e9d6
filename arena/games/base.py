"""The small, game-agnostic interface that the host, the scheduler and the store use.

A game is a :class:`Game` object (static facts plus a factory for states); a match
in progress is a :class:`GameState`.  The shape follows OpenSpiel: whose decision it
is, sorted legal actions, apply, terminal, outcome, clone, and an observation for one
seat.  Actions are plain ``int`` ids (cheap to enumerate and compare); every game
also gives each action a compact readable string and a structured description.

Nothing here does I/O, reads a clock or uses a random source other than the seeded
generator a state owns.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping, Protocol, Sequence, runtime_checkable

if TYPE_CHECKING:
    from arena.games.registry import GameSpec

#: The participant id of the two-player game's imaginary third shareholder.
IMAGINARY = "imaginary"


class IllegalActionError(ValueError):
    """An action that the rules do not allow in the current state."""


class NotYourTurnError(IllegalActionError):
    """A seat tried to act while it is not one of the seats to move."""


class GameOverError(IllegalActionError):
    """An action was applied to a terminal state."""


class BoardError(ValueError):
    """A board file that cannot be used; the message names the problem."""


class ReplayError(ValueError):
    """A replay file that is corrupt, tampered with, or does not reproduce."""


class Termination(enum.Enum):
    """How a game ended, as far as the rules are concerned."""

    NORMAL = "normal"
    STALEMATE = "stalemate"


@dataclass(frozen=True)
class Outcome:
    """The result of a finished game.

    ``cash`` and ``places`` map participants (seat numbers as strings, plus
    ``"imaginary"`` in the two-player Union Pacific game) to whole numbers.
    Place 1 is best; equal cash shares a place.
    """

    cash: Mapping[str, int]
    places: Mapping[str, int]
    termination: Termination
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "cash": dict(self.cash),
            "places": dict(self.places),
            "termination": self.termination.value,
            **({"extra": dict(self.extra)} if self.extra else {}),
        }


@runtime_checkable
class GameState(Protocol):
    """One game in progress.  Mutable; :meth:`clone` gives an independent copy."""

    @property
    def num_players(self) -> int: ...

    def current_seats(self) -> tuple[int, ...]:
        """The seats that must decide now (several during a simultaneous decision)."""

    def decision_kind(self, seat: int) -> str:
        """A short name for the decision ``seat`` faces (e.g. ``"main"``)."""

    def legal_actions(self, seat: int) -> list[int]:
        """The legal action ids for ``seat``, sorted ascending."""

    def apply_action(self, seat: int, action: int) -> None:
        """Apply one action; raise :class:`IllegalActionError` if it is not legal."""

    def is_terminal(self) -> bool: ...

    def outcome(self) -> Outcome:
        """The result; only valid when :meth:`is_terminal`."""

    def clone(self) -> "GameState": ...

    def observation(self, seat: int) -> dict[str, Any]:
        """Everything ``seat`` may know, as JSON-ready data, and nothing else."""

    def action_to_string(self, action: int) -> str: ...

    def string_to_action(self, text: str) -> int: ...

    def describe_action(self, action: int) -> dict[str, Any]:
        """The structured form of an action (JSON-ready)."""

    @property
    def events(self) -> Sequence[dict[str, Any]]:
        """The full (omniscient) event log, for replays."""

    @property
    def history(self) -> Sequence[tuple[int, int]]:
        """Every ``(seat, action)`` applied so far, in order."""


class ActionNames:
    """:class:`GameState`'s action names and structured forms, from a state's action table
    (``self.table``: its ``to_string``, ``from_string`` and ``describe``); a mixin."""

    __slots__ = ()

    table: Any

    def action_to_string(self, action: int) -> str:
        return self.table.to_string(action)

    def string_to_action(self, text: str) -> int:
        return self.table.from_string(text)

    def describe_action(self, action: int) -> dict[str, Any]:
        return self.table.describe(action)


@runtime_checkable
class Game(Protocol):
    """Static facts about a game and a factory for its states.

    ``spec`` holds the facts as data; ``name``, ``min_players``, ``max_players`` and
    ``variants`` repeat its fields for existing callers.  For the conformance suite
    (tests/test_game_conformance.py) a game also offers ``hidden_twin(state, seat, rng)``:
    a clone of ``state`` with what the rules hide from ``seat`` randomly re-dealt (see
    arena/games/conformance.py).
    """

    spec: "GameSpec"
    name: str
    min_players: int
    max_players: int
    variants: tuple[str, ...]

    def new_state(self, players: int, seed: int, variant: str = "standard") -> GameState: ...

    def board_info(self) -> dict[str, Any]:
        """``{"name": ..., "sha256": ...}`` of the data the game was built from."""

    def participants(self, players: int) -> tuple[str, ...]:
        """The participants that an outcome for ``players`` seats ranks."""
