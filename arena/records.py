"""What a finished match leaves behind: one :class:`MatchRecord` (result + replay).

The match runner produces it, the store writes it in one transaction, the ratings
read the places from it.  Plain frozen dataclasses, JSON-ready, no I/O.

Results are the same for every game: the participants of a match are its seats (bots)
and the game's reference participants (``GameSpec.reference(players)``: Union Pacific's
imaginary shareholder at a two-player table), each with a score (what the game's spec
calls ``score_name``, in ``score_unit``) and a place (1 is best, equal scores share one).
In ratings and standings a reference participant is named ``(NAME)``
(:func:`reference_participant`): a bot version is always ``NAME@NUMBER``, so the two never meet.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any


class FaultReason(enum.Enum):
    """Why the host had to take a decision out of a bot's hands."""

    TIMEOUT = "timeout"  # no reply within the decision limit + time bank
    DISCONNECT = "disconnect"  # the connection failed or the process died
    ILLEGAL_ACTION = "illegal_action"  # an index out of range of the legal actions
    MALFORMED_REPLY = "malformed_reply"  # a reply that could not be used at all
    PROTOCOL_ERROR = "protocol_error"  # the bot answered with a gRPC error status
    NOT_READY = "not_ready"  # the bot process never became ready
    OUT_OF_MEMORY = "out_of_memory"  # the kernel killed the bot for going over its memory limit


class MatchTermination(enum.Enum):
    """How a match ended, as the tournament sees it."""

    NORMAL = "normal"  # the rules ended the game
    STALEMATE = "stalemate"  # the rules' stalemate ending (§8)
    FORFEIT = "forfeit"  # at least one seat forfeited; the fallback finished the game
    ERROR = "error"  # the host could not finish the match (never stored as a result)


@dataclass(frozen=True)
class Fault:
    seat: int
    decision: int  # the match's decision number at which it happened
    reason: FaultReason
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "decision": self.decision,
            "reason": self.reason.value,
            "detail": self.detail,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Fault":
        return cls(
            seat=int(data["seat"]),
            decision=int(data["decision"]),
            reason=FaultReason(data["reason"]),
            detail=str(data.get("detail", "")),
        )


def reference_participant(name: str) -> str:
    """How ratings, standings and pages name the game's reference participant ``name``:
    ``"(imaginary)"`` for ``"imaginary"``."""
    return f"({name})"


def is_reference_participant(participant: object) -> bool:
    """Whether a rated participant is a game's reference participant (not a bot version); the
    ratings take any hashable key, only a string ``(NAME)`` is a reference participant."""
    return (isinstance(participant, str) and len(participant) > 2 and participant.startswith("(")
            and participant.endswith(")"))


@dataclass(frozen=True)
class SeatResult:
    seat: int
    bot: str  # the bot's registered name (unique key in the store)
    score: int  # the game's score (Union Pacific: cash in $; Ticket to Ride: points)
    place: int  # 1 is best; a forfeited seat is placed last whatever its score
    forfeited: bool = False
    faults: tuple[Fault, ...] = ()


@dataclass(frozen=True)
class ReferenceResult:
    """A reference participant's result: one of the game's ``reference(players)`` names."""

    name: str  # as the game's spec names it, e.g. "imaginary"
    score: int
    place: int

    @property
    def participant(self) -> str:
        """Its name in ratings and standings: ``(NAME)``."""
        return reference_participant(self.name)


@dataclass(frozen=True)
class MatchRecord:
    match_id: str
    game: str
    seed: int
    variant: str
    players: int
    seats: tuple[SeatResult, ...]
    termination: MatchTermination
    replay: dict[str, Any]
    started_at: float  # Unix time, measured by the host
    duration_s: float
    #: The game's reference participants at this table (often none), in the spec's order.
    references: tuple[ReferenceResult, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def places(self) -> dict[str, int]:
        """Bot name -> place (the seats only)."""
        return {s.bot: s.place for s in self.seats}

    @property
    def rated_places(self) -> dict[str, int]:
        """Every participant -> place, the input the ratings use: the seats' bots and the
        reference participants as ``(NAME)``."""
        return {**self.places, **{r.participant: r.place for r in self.references}}
