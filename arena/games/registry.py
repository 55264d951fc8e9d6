"""The games Arena knows, by name: each game declares its facts as a :class:`GameSpec` and
registers itself with :func:`register_game` (in the spirit of OpenSpiel's ``register_game``).

A game's package calls ``register_game(SPEC, default_game, kit=...)`` when it is imported.  The
packages are imported lazily, on the first look-up, from :data:`GAME_PACKAGES`: the one
place outside the games' own folders that names them.  Nothing here builds a game until
:func:`get_game` asks for it (a game's factory loads its board).
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from arena.games.base import Game

#: The packages of the games Arena ships; importing one registers its game.
GAME_PACKAGES = (
    "arena.games.union_pacific",
    "arena.games.ticket_to_ride_pennsylvania",
)

#: The game a command plays when none is named (``--game``'s default; a pool without a game).
DEFAULT_GAME = "union_pacific"

#: The event every game's public record begins with: the set-up, before any decision.  A
#: seat's first decision shows it (its ``public_events`` reach back to the start), no later
#: one does; so a seat's joined ``public_events`` that do not begin with it lack the start of
#: the match (a bot process restarted mid-match).  tests/test_forward_model.py checks every
#: registered game keeps to it.
SETUP_EVENT = "setup"

_NAME = re.compile(r"[a-z][a-z0-9_]*\Z")


@dataclass(frozen=True)
class GameSpec:
    """A game's static facts, as data.

    ``reference_participants`` lists, per seat count, the participants an outcome ranks
    besides the seats (``"0"``, ``"1"``, …): Union Pacific's imaginary shareholder in the
    two-player game.  ``score_name``/``score_unit`` say what an outcome's numbers are.
    ``rules_changes`` says, oldest first, what each revision of the engine's rules changed
    since the first: a replay records the revision it was played under
    (:attr:`rules_revision`), so that one from before a change says why it no longer
    re-plays instead of looking tampered with.
    """

    name: str
    title: str
    min_players: int
    max_players: int
    variants: tuple[str, ...]
    score_name: str
    score_unit: str
    reference_participants: tuple[tuple[int, tuple[str, ...]], ...] = ()
    rules_changes: tuple[str, ...] = ()
    #: Reference participant -> what a person calls it, e.g. ``("imaginary", "the imaginary shareholder")``.
    reference_titles: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        if not _NAME.match(self.name):
            raise ValueError(f"game name {self.name!r}: use lower-case letters, digits and '_', starting with a letter")
        if not 1 <= self.min_players <= self.max_players:
            raise ValueError(f"game {self.name!r}: seat counts {self.min_players}..{self.max_players} are not a range")
        if not self.variants or len(set(self.variants)) != len(self.variants):
            raise ValueError(f"game {self.name!r}: variants must be non-empty and distinct, got {self.variants!r}")
        counts = [players for players, _ in self.reference_participants]
        if len(set(counts)) != len(counts):
            raise ValueError(f"game {self.name!r}: reference participants given twice for one seat count")
        for players, names in self.reference_participants:
            if players not in self.seat_counts:
                raise ValueError(f"game {self.name!r}: reference participants for {players} players, "
                                 f"a seat count the game does not have ({self.min_players}..{self.max_players})")
            if any(not n or n.isdigit() for n in names) or len(set(names)) != len(names):
                raise ValueError(f"game {self.name!r}: reference participants {names!r} must be distinct, "
                                 "non-empty and not seat numbers")
        known = {n for _, names in self.reference_participants for n in names}
        untitled = [n for n, _ in self.reference_titles if n not in known]
        if untitled:
            raise ValueError(f"game {self.name!r}: titles given for {untitled!r}, which are no reference participants")

    @property
    def seat_counts(self) -> tuple[int, ...]:
        return tuple(range(self.min_players, self.max_players + 1))

    @property
    def rules_revision(self) -> int:
        """1 for the rules as first implemented, plus one per entry of ``rules_changes``."""
        return 1 + len(self.rules_changes)

    @property
    def default_variant(self) -> str:
        return self.variants[0]

    def reference_title(self, name: str) -> str:
        """What a person calls the reference participant ``name`` (its name if the game gives no title)."""
        return dict(self.reference_titles).get(name, name)

    def reference(self, players: int) -> tuple[str, ...]:
        """The reference participants of a game of ``players`` seats (often none)."""
        return dict(self.reference_participants).get(players, ())

    def participants(self, players: int) -> tuple[str, ...]:
        """Everyone an outcome for ``players`` seats ranks: the seats, then the reference participants."""
        if players not in self.seat_counts:
            raise ValueError(f"{self.title} is played by {self.min_players} to {self.max_players} players, "
                             f"not {players}")
        return tuple(str(s) for s in range(players)) + self.reference(players)


@dataclass(frozen=True)
class GameKit:
    """What a game brings beside its rules, found by name (:func:`game_kit`).

    ``package`` is the kit's package, e.g. ``"arena.games.union_pacific.kit"``; each part
    is a module in it, imported only when asked, so that the web app can read a game's
    view without loading the protocol, and the engine never loads either:

    - ``wire``: engine data <-> the game's ``oneof`` members of the protocol
      (``protos/arena/v1/bot.proto``); used by the host and the bot SDK.
    - ``view``: the board/view data and the replay viewer script the web app serves.
    """

    game: str
    package: str

    def part(self, name: str) -> ModuleType:
        try:
            return importlib.import_module(f"{self.package}.{name}")
        except ModuleNotFoundError as error:
            if error.name != f"{self.package}.{name}":
                raise
            raise LookupError(f"the game {self.game!r} has no {name!r} in its kit ({self.package})") from None

    @property
    def wire(self) -> ModuleType:
        return self.part("wire")

    @property
    def view(self) -> ModuleType:
        return self.part("view")


@dataclass(frozen=True)
class _Entry:
    spec: GameSpec
    factory: Callable[[], "Game"]
    kit: GameKit | None


_registry: dict[str, _Entry] = {}
_instances: dict[str, "Game"] = {}
_loaded = False


def register_game(spec: GameSpec, factory: Callable[[], "Game"], *, kit: str | None = None) -> None:
    """Register a game: its spec, a factory (no arguments) for its default game object and
    the package of its kit (:class:`GameKit`; a game without one runs in-process only).

    A second registration under a name already taken is refused.
    """
    if not isinstance(spec, GameSpec):
        raise TypeError(f"register_game wants a GameSpec, got {type(spec).__name__}")
    if spec.name in _registry:
        raise ValueError(f"a game called {spec.name!r} is already registered")
    _registry[spec.name] = _Entry(spec, factory, None if kit is None else GameKit(spec.name, kit))


def _load() -> None:
    global _loaded
    if not _loaded:
        for package in GAME_PACKAGES:  # each registers its game (Python's import lock serialises this)
            importlib.import_module(package)
        _loaded = True


def _entry(name: str) -> _Entry:
    _load()
    try:
        return _registry[name]
    except KeyError:
        raise ValueError(f"unknown game {name!r}; Arena knows: {', '.join(sorted(_registry))}") from None


def registered_games() -> tuple[GameSpec, ...]:
    """The specs of every registered game, by name (registration order depends on imports)."""
    _load()
    return tuple(_registry[name].spec for name in sorted(_registry))


def game_spec(name: str) -> GameSpec:
    """The spec of the game called ``name``; a clear error naming the known games otherwise."""
    return _entry(name).spec


def game_kit(name: str) -> GameKit:
    """The kit of the game called ``name`` (its wire adapter, its view); a clear error if none."""
    entry = _entry(name)
    if entry.kit is None:
        raise LookupError(f"the game {name!r} registered no kit: it cannot be played over the protocol or viewed")
    return entry.kit


def get_game(name: str) -> "Game":
    """The game called ``name`` on its default data, built once per process."""
    entry = _entry(name)
    game = _instances.get(name)
    if game is None:
        game = entry.factory()
        if getattr(game, "spec", None) != entry.spec:
            raise TypeError(f"the factory of {name!r} made a game whose spec is not the registered one")
        game = _instances.setdefault(name, game)
    return game


def starts_at_setup(events: Sequence[Mapping[str, Any]]) -> bool:
    """Whether a seat's public events reach back to the start of the match (their first is the
    set-up event, :data:`SETUP_EVENT`)."""
    return bool(events) and events[0].get("type") == SETUP_EVENT
