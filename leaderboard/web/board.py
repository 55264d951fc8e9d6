"""The board as the replay viewer draws it: the board data (cities, sections with the index
``build`` events name, companies) with each company's colour and train shape and each
track type's line style (``/api/board``; static/replay-board.js draws it)."""

from __future__ import annotations

from typing import Any

from arena.games import get_game

#: Train colours per company.  The rules name EPRG green, BNL red and DM black.
COMPANY_COLOURS: dict[str, str] = {
    "EPRG": "#2e8b3e",
    "BNL": "#d62728",
    "MS": "#f28c1a",
    "DM": "#1b1b1b",
    "SFRB": "#2450c8",
    "UMR": "#8e44ad",
    "ESL": "#e3bd00",
    "KCC": "#e377c2",
    "MRR": "#8c564b",
    "WW": "#17a9b8",
    "UP": "#5b6770",
}

#: The shape of each company's trains on the board, so that a train reads without its
#: colour too (the viewer draws these names: static/replay-board.js).
COMPANY_SHAPES: dict[str, str] = {
    "EPRG": "circle",
    "BNL": "square",
    "MS": "triangle-up",
    "DM": "diamond",
    "SFRB": "triangle-down",
    "UMR": "star",
    "ESL": "plus",
    "KCC": "cross",
    "MRR": "triangle-right",
    "WW": "triangle-left",
}

#: How the board draws each track type: line colour and SVG dash pattern ("" = solid).
TRACK_STYLES: dict[str, dict[str, str]] = {
    "PLAIN": {"colour": "#9aa3ad", "dash": "", "label": "plain"},
    "COAST": {"colour": "#6fa8dc", "dash": "", "label": "coast"},
    "BORDER": {"colour": "#9aa3ad", "dash": "7 4", "label": "border"},
    "MOUNTAIN": {"colour": "#b08d6a", "dash": "2 3", "label": "mountain"},
}


def board_json(game_name: str = "union_pacific") -> dict[str, Any]:
    """The board data (cities, sections with their index, companies) and how to draw it."""
    game = get_game(game_name)
    data = game.board.data  # type: ignore[attr-defined]
    return {
        "game": game_name,
        **game.board_info(),
        "note": data.get("note", ""),
        "cities": data["cities"],
        "sections": [{"index": i, **s} for i, s in enumerate(data["sections"])],
        "companies": [
            {"code": code, **data["companies"][code], "colour": COMPANY_COLOURS[code], "shape": COMPANY_SHAPES[code]}
            for code in COMPANY_COLOURS
            if code in data["companies"]
        ],
        "union_pacific": {"code": "UP", "shares": data["union_pacific_shares"], "colour": COMPANY_COLOURS["UP"]},
        "track_types": data["track_types"],
        "wild_cards": data["wild_cards"],
        "track_styles": TRACK_STYLES,
    }
