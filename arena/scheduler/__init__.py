"""Tournament scheduling: the pure pairing generator (:mod:`arena.scheduler.pairings`)."""

from arena.scheduler.pairings import (
    Pairing,
    check_table_size,
    check_variant,
    generate_schedule,
    subset_seed,
)

__all__ = [
    "Pairing",
    "check_table_size",
    "check_variant",
    "generate_schedule",
    "subset_seed",
]
