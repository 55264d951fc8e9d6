"""The bot page's rating chart: inline SVG coordinates, drawn on the server.

The history it is given is bounded (:data:`leaderboard.web.fits.CHART_POINTS` points
at most, evenly spread over the bot's matches), so the page stays small however many
matches the bot played.
"""

from __future__ import annotations

import math
from typing import Any


def rating_chart(history: list[dict[str, Any]], width: int = 640, height: int = 220) -> dict[str, Any] | None:
    """Coordinates for an SVG line chart of live Elo against the bot's match count (``n`` of each
    point when given: a fit keeps an evenly spread sample of a long history)."""
    if not history:
        return None
    left, right, top, bottom = 48, 12, 12, 28
    elos = [p["elo"] for p in history]
    low = math.floor((min(min(elos), 1500.0) - 10) / 50) * 50
    high = math.ceil((max(max(elos), 1500.0) + 10) / 50) * 50
    step = max(50, math.ceil((high - low) / 5 / 50) * 50)
    n = max(len(history), max((p.get("n", 0) for p in history), default=0))

    def x(i: int) -> float:
        return left + (width - left - right) * (i / (n - 1) if n > 1 else 0.5)

    def y(elo: float) -> float:
        return top + (height - top - bottom) * (high - elo) / (high - low)

    points = [
        {"x": round(x(p.get("n", i + 1) - 1), 1), "y": round(y(p["elo"]), 1), "elo": p["elo"],
         "match_id": p["match_id"], "n": p.get("n", i + 1)}
        for i, p in enumerate(history)
    ]
    x_ticks = sorted({0, n - 1} | {round(k * (n - 1) / 4) for k in range(5)}) if n > 1 else [0]
    return {
        "width": width,
        "height": height,
        "left": left,
        "right": width - right,
        "top": top,
        "bottom": height - bottom,
        "polyline": " ".join(f"{p['x']},{p['y']}" for p in points),
        "points": points,
        "y_ticks": [{"y": round(y(v), 1), "label": str(v)} for v in range(int(low), int(high) + 1, step)],
        "x_ticks": [{"x": round(x(i), 1), "label": str(i + 1)} for i in x_ticks],
        "baseline": round(y(1500.0), 1),
    }
