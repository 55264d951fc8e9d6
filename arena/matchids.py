"""Match ids: opaque and random, the same shape everywhere.

A match id reaches the bots (``StartMatch``, every ``Decide``), so it must tell a
bot nothing: not the deck seed, not the tournament, not the schedule position, not
whether the match is a compliance check or a tournament game.  The store records
the tournament and the schedule index in columns of their own.
"""

from __future__ import annotations

import re
import secrets

#: Every match id matches this: ``m-`` and 20 lower-case hex digits (80 random bits).
MATCH_ID_PATTERN = re.compile(r"m-[0-9a-f]{20}")


def new_match_id() -> str:
    """A fresh random match id, ``m-`` + 20 hex digits from :mod:`secrets`."""
    return f"m-{secrets.token_hex(10)}"
