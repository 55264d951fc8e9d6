"""Bots shipped with Arena for its own use: the compliance check's opponents.

They are real bot processes, started and sandboxed like any other, so that a bot
under check meets what it meets in a tournament (processes over gRPC, their timing),
not in-process players it could tell apart.
"""

from pathlib import Path

#: The manifest folder of the uniformly random opponent.
RANDOM_OPPONENT = Path(__file__).resolve().parent / "random_bot"
