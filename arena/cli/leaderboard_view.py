"""The terminal leaderboard table and cross-table (rich), shared by ``arena leaderboard``,
``arena tournament show`` and ``arena demo``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from rich.table import Table
from rich.text import Text

from arena.cli.console import make_console  # noqa: F401  (it lived here: kept for importers)

if TYPE_CHECKING:  # only for the annotations: importing the standings loads the whole store (SQLAlchemy)
    from leaderboard.standings import Leaderboard, Standing

#: What the two rating columns are, a line each (the web page says the same).
COLUMNS_LINES = ("Elo ± CI: fit of every finishing order at once (Plackett–Luce), 95% interval: rank by this.",
                 "live: Elo updated match by match: shows form, depends on match order. † reference row, not a bot.")
#: The cross-table shows at most this many participants (the best rated); --json has them all.
CROSS_LIMIT = 16


def _elo(row: Standing) -> str:
    half = row.ci_half_width
    return f"{row.elo:.0f}" + (f" ± {half:.0f}" if half is not None else "")


def _name(row: Standing) -> Text:
    mark = " †" if row.reference else "" if row.current else " *"
    return Text(row.name + mark, style="italic dim" if row.reference else "")


def standings_table(rows: Sequence[Standing], title: str, score_name: str = "score") -> Table:
    """The standings; ``score_name`` heads the mean-score column (the game's spec: cash, points)."""
    older = any(not r.reference and not r.current for r in rows)
    lines = (*COLUMNS_LINES, "bot@N: version N of the bot, rated on its own"
             + ("; * not the bot's newest version." if older else "."))
    table = Table(title=title, caption="\n".join(lines), caption_justify="left")
    table.add_column("#", justify="right")
    table.add_column("bot", min_width=12, overflow="fold")
    for name in ("Elo ± CI", "live", "games", "wins", "place", score_name, "forfeits", "faults"):
        table.add_column(name, justify="right", no_wrap=True)
    for row in rows:
        table.add_row(
            "" if row.rank is None else str(row.rank), _name(row), _elo(row), f"{row.live_elo:.0f}", str(row.matches),
            str(row.wins), "" if row.mean_place is None else f"{row.mean_place:.2f}",
            "" if row.mean_score is None else f"{row.mean_score:.1f}", str(row.forfeits), str(row.faults),
        )
    return table


def cross_table_view(board: Leaderboard, title: str) -> Table:
    """Row against column: the row's score (share of the matches where both played that the
    row finished ahead, a shared place counting half) and, in brackets, how many matches."""
    rows = board.standings[:CROSS_LIMIT]
    more = len(board.standings) - len(rows)
    caption = ("The row's score against the column where both played: the share\n"
               "it finished ahead (a shared place ½), (how many matches).")
    if more:
        caption += f"\n{more} more not shown (--json has every pair)."
    table = Table(title=title, caption=caption, caption_justify="left")
    table.add_column("", justify="right")
    table.add_column("bot", min_width=12, overflow="fold")
    for number in range(1, len(rows) + 1):
        table.add_column(str(number), justify="right", no_wrap=True)
    for number, row in enumerate(rows, start=1):
        cells = []
        for other in rows:
            h2h = None if other.name == row.name else board.cross_table.get(row.name, other.name)
            cells.append("·" if other.name == row.name else "" if h2h is None
                         else f"{100 * h2h.score:.0f}% ({h2h.meetings})")
        table.add_row(str(number), _name(row), *cells)
    return table

