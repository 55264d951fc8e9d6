"""What the web app shows of each game comes from the game's kit (``arena.games.game_kit(name).view``),
looked up by the game's name; the web app imports no game's modules itself (tests/test_layers.py).

A kit's ``view`` module gives:

- ``board()``: the board data and how to draw it (``/api/board?game=NAME``);
- ``replay_view(replay)``: the game after each event of a replay, computed with the game's
  engine (``/api/replay-view/MATCH``), so that the viewer's scripts draw states and never
  re-implement a rule;
- ``SCRIPT`` and ``FRAGMENT``: the viewer's entry script and its part of the match page, files
  in the ``viewer/`` folder beside the module, served under ``/static/games/NAME/``;
- ``KEYS`` and ``MARKS`` (optional): what the caption under the viewer adds about its keys
  and its marks on the slider.

docs/games.md says how a game provides them.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from functools import lru_cache
from importlib import resources
from pathlib import Path
from types import ModuleType
from typing import Any

import jinja2
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles

from arena.games import game_kit, registered_games

VIEW_CACHE = 64  # replay views kept (a stored match's replay never changes)


def view_of(game: str) -> ModuleType | None:
    """The ``view`` part of ``game``'s kit, or None when the game has none (or is unknown).
    Only registered names reach the cache: a name comes from a request (``/api/board?game=``)."""
    return _view_of(game) if game in {spec.name for spec in registered_games()} else None


@lru_cache(maxsize=None)
def _view_of(game: str) -> ModuleType | None:
    try:
        return game_kit(game).view
    except (LookupError, ValueError):
        return None


@lru_cache(maxsize=None)
def viewer_folder(game: str) -> Path | None:
    """The folder of ``game``'s viewer files (``viewer/`` in its kit), or None."""
    view = view_of(game)
    if view is None or not getattr(view, "__package__", None):
        return None
    folder = Path(str(resources.files(view.__package__).joinpath("viewer")))
    return folder if folder.is_dir() else None


def viewer_games() -> list[str]:
    """The registered games whose kit brings a viewer."""
    return [spec.name for spec in registered_games() if viewer_folder(spec.name) is not None]


def static_mounts() -> list[Mount]:
    """``/static/games/NAME/``: each game's viewer files, from its kit."""
    return [Mount(f"/static/games/{name}", StaticFiles(directory=viewer_folder(name)), name=f"game-{name}")
            for name in viewer_games()]


def fragment_loader() -> jinja2.BaseLoader:
    """Templates ``games/NAME/FILE``: the viewer fragments in each game's kit."""
    return jinja2.PrefixLoader({"games": jinja2.PrefixLoader(
        {name: jinja2.FileSystemLoader(str(viewer_folder(name))) for name in viewer_games()})})


def viewer_context(game: str) -> dict[str, Any]:
    """What the match page needs to show ``game``'s viewer (or to say there is none)."""
    view = view_of(game)
    if view is None or viewer_folder(game) is None:
        return {"viewer_script": None, "viewer_fragment": None, "viewer_keys": "", "viewer_marks": "",
                "viewer_missing": f"This Arena has no replay viewer for the game {game!r}; "
                                  "the replay is in the JSON above."}
    return {"viewer_script": f"games/{game}/{view.SCRIPT}", "viewer_fragment": f"games/{game}/{view.FRAGMENT}",
            "viewer_keys": getattr(view, "KEYS", ""), "viewer_marks": getattr(view, "MARKS", ""),
            "viewer_missing": ""}


def board_json(game: str) -> dict[str, Any]:
    """The board of ``game`` as its viewer draws it; ValueError for a game without one."""
    view = view_of(game)
    if view is None:
        known = ", ".join(viewer_games())
        raise ValueError(f"no board to draw for the game {game!r}; the games with a viewer: {known}")
    data: dict[str, Any] = view.board()
    return data


class ViewCache:
    """The replay views of the last :data:`VIEW_CACHE` matches asked for (by match id and what
    identifies its replay), kept as the JSON text the endpoint answers (a view of a long game is
    a few hundred frames: as text it is ten times smaller than as Python objects), so that
    stepping between pages does not re-play a match."""

    def __init__(self, size: int = VIEW_CACHE) -> None:
        self.size = size
        self._views: OrderedDict[tuple[Any, ...], bytes] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, match_id: str, replay: dict[str, Any]) -> bytes:
        """The view of ``replay`` as JSON text; :class:`arena.games.base.ReplayError` when it cannot be made."""
        game = str(replay.get("game"))
        key = (match_id, game, replay.get("seed"), len(replay.get("actions") or ()), len(replay.get("events") or ()))
        with self._lock:
            found = self._views.get(key)
            if found is not None:
                self._views.move_to_end(key)
                return found
        view = view_of(game)
        if view is None:
            raise LookupError(f"this Arena has no replay viewer for the game {game!r}")
        made = json.dumps({"game": game, **view.replay_view(replay)}, separators=(",", ":")).encode()
        with self._lock:
            self._views[key] = made
            while len(self._views) > self.size:
                self._views.popitem(last=False)
        return made
