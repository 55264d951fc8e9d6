"""The terminal leaderboard table (rich), shared by ``arena leaderboard``,
``arena tournament show`` and ``arena demo``."""

from __future__ import annotations

from typing import Sequence

from rich.table import Table
from rich.text import Text

from arena.cli.console import make_console  # noqa: F401  (it lived here: kept for importers)
from leaderboard.standings import Standing


def _elo(row: Standing) -> str:
    half = row.ci_half_width
    return f"{row.elo:.0f}" + (f" ± {half:.0f}" if half is not None else "")


def standings_table(rows: Sequence[Standing], title: str) -> Table:
    table = Table(title=title, caption="Elo ± CI: batch fit with 95% bootstrap interval; live: match-by-match "
                                       "Elo; place, cash: means; † reference row, not a bot (docs/ratings.md)")
    table.add_column("#", justify="right")
    table.add_column("bot", min_width=12, overflow="fold")
    for name in ("Elo ± CI", "live", "games", "wins", "place", "cash", "forfeits", "faults"):
        table.add_column(name, justify="right", no_wrap=True)
    for row in rows:
        name = Text(row.name + (" †" if row.reference else ""), style="italic dim" if row.reference else "")
        table.add_row(
            "" if row.rank is None else str(row.rank), name, _elo(row), f"{row.live_elo:.0f}", str(row.matches),
            str(row.wins), "" if row.mean_place is None else f"{row.mean_place:.2f}",
            "" if row.mean_cash is None else f"{row.mean_cash:.1f}", str(row.forfeits), str(row.faults),
        )
    return table
