"""What the leaderboard pages show besides the rows: the likelihood of superiority, the
cross-table (JSON-ready, as ``/api/leaderboard`` returns them) and, for the pages, the
interval bars and the two matrices drawn from that JSON.
"""

from __future__ import annotations

import math
from typing import Any

from leaderboard.standings import Leaderboard

#: The cross-table (JSON and page) and the superiority matrix (page) cover the best rated this many.
MATRIX_LIMIT = 16
BAR_WIDTH = 160  # SVG user units of an interval bar


def superiority_json(board: Leaderboard) -> list[dict[str, Any]]:
    """Each row against the next rows: the share of bootstrap resamples that rate it higher."""
    return [s.to_json() for s in board.superiority]


def cross_table_json(board: Leaderboard, limit: int = MATRIX_LIMIT) -> dict[str, Any]:
    """Head-to-head results among the ``limit`` best rated, every pair that met, the better rated as ``a``."""
    names = [row.name for row in board.standings[:limit]]
    pairs = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            h2h = board.cross_table.get(a, b)
            if h2h is not None:
                pairs.append({"a": a, "b": b, "meetings": h2h.meetings, "ahead": h2h.ahead, "behind": h2h.behind,
                              "tied": h2h.tied, "score": h2h.score})
    return {"names": names, "truncated": len(board.standings) > len(names), "pairs": pairs}


def _percent(p: float) -> str:
    if p >= 0.995:
        return ">99%"
    if p <= 0.005:
        return "<1%"
    return f"{100 * p:.0f}%"


def _certainty(p: float) -> str:
    return "sure" if p >= 0.95 else "unsure" if p > 0.05 else "sure-not"


def superiority_matrix(board: dict[str, Any], limit: int = MATRIX_LIMIT) -> dict[str, Any] | None:
    """Rows and columns: the best rated ``limit`` participants in rank order; a cell holds the
    likelihood that the row's participant is better than the column's, for neighbours only."""
    entries = board["superiority"]
    if not entries:
        return None
    names = [row["name"] for row in board["rows"][:limit]]
    known = {(e["above"], e["below"]): e["p"] for e in entries}
    cells = []
    for a in names:
        line: list[dict[str, Any] | None] = []
        for b in names:
            p = known.get((a, b))
            if p is None and (b, a) in known:
                p = 1.0 - known[(b, a)]
            line.append(None if a == b or p is None else {"p": p, "text": _percent(p), "class": _certainty(p)})
        cells.append(line)
    return {"names": names, "cells": cells, "truncated": len(board["rows"]) > len(names)}


def cross_matrix(board: dict[str, Any]) -> dict[str, Any] | None:
    """The cross-table as rows x columns in rank order; a cell is the row's score against the column."""
    table = board["cross_table"]
    names = table["names"]
    if len(names) < 2:
        return None
    found = {(p["a"], p["b"]): p for p in table["pairs"]}
    cells = []
    for a in names:
        line: list[dict[str, Any] | None] = []
        for b in names:
            pair, flip = found.get((a, b)), False
            if pair is None and (b, a) in found:
                pair, flip = found[(b, a)], True
            if a == b or pair is None:
                line.append(None)
                continue
            ahead, behind = (pair["behind"], pair["ahead"]) if flip else (pair["ahead"], pair["behind"])
            score = 1.0 - pair["score"] if flip else pair["score"]
            line.append({"score": score, "meetings": pair["meetings"], "ahead": ahead, "behind": behind,
                         "tied": pair["tied"], "text": f"{100 * score:.0f}%",
                         "class": "ahead" if score > 0.5 else "behind" if score < 0.5 else "even"})
        cells.append(line)
    return {"names": names, "cells": cells, "truncated": table["truncated"]}


def interval_bars(rows: list[dict[str, Any]], width: int = BAR_WIDTH) -> dict[str, Any] | None:
    """Geometry of each row's 95% interval as a bar on one scale shared by every row.

    ``bars[i]`` has ``x``/``width`` of the interval and ``tick`` at the rating (None when
    the row has no interval); ``axis`` the Elo at each end and the x of 1500.
    """
    values = [v for r in rows for v in (r["ci_low"], r["ci_high"], r["elo"]) if v is not None]
    if not values or all(r["ci_low"] is None for r in rows):
        return None
    low, high = min(values), max(values)
    pad = max(10.0, 0.04 * (high - low))
    low, high = math.floor((low - pad) / 10) * 10, math.ceil((high + pad) / 10) * 10

    def x(elo: float) -> float:
        return round(width * (elo - low) / (high - low), 2)

    bars = []
    for r in rows:
        if r["ci_low"] is None or r["ci_high"] is None:
            bars.append(None)
            continue
        bars.append({"x": x(r["ci_low"]), "width": max(round(x(r["ci_high"]) - x(r["ci_low"]), 2), 1.0),
                     "tick": x(r["elo"]), "low": r["ci_low"], "high": r["ci_high"]})
    return {"width": width, "low": low, "high": high, "mean_x": x(1500.0) if low < 1500 < high else None,
            "bars": bars}
