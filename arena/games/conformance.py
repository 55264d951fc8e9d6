"""Helpers for a game's ``conformance.py``: the hidden changes the conformance suite
(tests/test_game_conformance.py) makes to a state, through ``Game.hidden_twin``.

A hidden change edits a state in place so that only what the rules hide from seat ``me``
changes; it returns False when it does not apply.  Not used by any engine.
"""

from __future__ import annotations

import random
from typing import Callable, Sequence, TypeVar

S = TypeVar("S")
HiddenChange = Callable[[S, int, random.Random], bool]


def reorder(deck: list, rng: random.Random) -> bool:
    """Shuffle ``deck`` in place into another order; False if it has no other order."""
    if len(set(deck)) < 2:
        return False
    before = list(deck)
    while deck == before:
        rng.shuffle(deck)
    return True


def apply_some(state: S, me: int, rng: random.Random, changes: Sequence[HiddenChange]) -> S:
    """Apply a random selection of ``changes`` (for observer ``me``), in random order, to ``state``."""
    for change in rng.sample(list(changes), len(changes)):
        if rng.random() < 0.5:
            change(state, me, rng)
    return state
