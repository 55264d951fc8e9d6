"""Tournament scheduling: the pure pairing generator (:mod:`arena.scheduler.pairings`)."""

from arena.scheduler.pairings import (
    MAX_TABLE_SIZE,
    MIN_TABLE_SIZE,
    VARIANTS,
    Pairing,
    generate_schedule,
    subset_seed,
)

__all__ = [
    "MAX_TABLE_SIZE",
    "MIN_TABLE_SIZE",
    "VARIANTS",
    "Pairing",
    "generate_schedule",
    "subset_seed",
]
