"""What a Union Pacific state's parts share: the phases, the dividend card, participant names.

Kept apart from :mod:`~arena.games.union_pacific.state` so that its mixins
(:mod:`~arena.games.union_pacific.network`, :mod:`~arena.games.union_pacific.dividends`,
:mod:`~arena.games.union_pacific.views`) can use them without importing the state.
"""

from __future__ import annotations

DIVIDEND = -1  # a dividend card in the share deck

# Phases (what the seat(s) to move must decide).
FIRST_INVEST, MAIN, DRAW_SHARE, EXCHANGE, OVER = range(5)
PHASE_NAMES = ("first_invest", "main", "draw_share", "exchange", "none")

#: PARTICIPANTS[n]: the participant names of seats 0..n-1 ("0", "1", ...).
PARTICIPANTS = tuple(tuple(str(s) for s in range(n)) for n in range(8))


class RolloutStateError(RuntimeError):
    """A rollout state (``clone(rollout=True)``) was asked for what it does not keep: its event log,
    its history (and the decision count), each company's list of sections, or an observation."""

    def __init__(self, what: str) -> None:
        super().__init__(f"this Union Pacific state is a rollout state (made by clone(rollout=True)): it keeps no "
                         f"{what}, so it has none to give; use clone() without rollout=True for a state that does")


def counts(values: list[int], names: tuple[str, ...]) -> dict[str, int]:
    """``{names[i]: values[i]}`` for the values that are not 0 (a hand, holdings)."""
    return {names[i]: n for i, n in enumerate(values) if n}


__all__ = ["DIVIDEND", "DRAW_SHARE", "EXCHANGE", "FIRST_INVEST", "MAIN", "OVER", "PARTICIPANTS", "PHASE_NAMES",
           "RolloutStateError", "counts"]
