"""One file per schema revision, oldest first by its number (see docs/tournaments.md)."""
