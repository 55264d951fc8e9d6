"""The Union Pacific board as data: loading, validation and precomputed indexes.

The published rules describe the map only in words, so the board ships as a JSON
file.  :func:`load_board` checks every structural rule of §1–§2 and raises
:class:`~arena.games.base.BoardError` naming the first problem it finds.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from arena.games.base import BoardError
from arena.games.common import board_from_text, packaged_board

#: Companies in payout order (§7.3); index 10 is Union Pacific.
COMPANIES: tuple[str, ...] = ("EPRG", "BNL", "MS", "DM", "SFRB", "UMR", "ESL", "KCC", "MRR", "WW")
UP = 10
SHARE_CODES: tuple[str, ...] = COMPANIES + ("UP",)
NUM_COMPANIES = len(COMPANIES)
NUM_SHARE_KINDS = len(SHARE_CODES)

#: Track card kinds: the four types (in board order) and the wild card, index 4.
WILD = 4
NUM_CARD_KINDS = 5

#: Published component counts (§1) that a board file must match.
PUBLISHED_SHARES = {"EPRG": 18, "BNL": 15, "MS": 12, "DM": 10, "SFRB": 9, "UMR": 8, "ESL": 7, "KCC": 7, "MRR": 6, "WW": 6}
PUBLISHED_TRAINS = {"EPRG": 23, "BNL": 19, "MS": 17, "DM": 14, "SFRB": 13, "UMR": 11, "ESL": 10, "KCC": 9, "MRR": 8, "WW": 7}
PUBLISHED_TYPED_CARDS = [6, 7, 9, 14]
PUBLISHED_WILD_CARDS = 4
PUBLISHED_UP_SHARES = 20

DEFAULT_BOARD = "reconstruction-1.json"


@dataclass(frozen=True)
class Board:
    """An immutable, validated board with the indexes the engine needs."""

    name: str
    note: str
    sha256: str
    data: dict[str, Any]  # the file's data, as loaded
    card_kinds: tuple[str, ...]  # 4 track types in file order, then "WILD"
    card_counts: tuple[int, ...]  # cards of each kind (index WILD: the wild cards)
    cities: tuple[str, ...]
    city_lonlat: tuple[tuple[float, float], ...]
    section_a: tuple[int, ...]  # city index of each section's ends
    section_b: tuple[int, ...]
    section_type: tuple[int, ...]  # card kind index 0-3
    section_spaces: tuple[int, ...]
    section_names: tuple[str, ...]  # "A-B"
    neutral_spaces: tuple[int, ...]  # spaces minus the coloured starting spaces
    city_sections: tuple[tuple[int, ...], ...]  # sections touching each city
    company_names: tuple[str, ...]
    company_shares: tuple[int, ...]
    company_trains: tuple[int, ...]
    company_home: tuple[int, ...]  # city index
    company_types: tuple[frozenset[int], ...]  # allowed card kinds 0-3
    company_start: tuple[tuple[int, ...], ...]  # section indexes of starting spaces
    up_shares: int

    @property
    def num_sections(self) -> int:
        return len(self.section_a)


def _require(cond: bool, message: str) -> None:
    if not cond:
        raise BoardError(message)


def _field(obj: Any, key: str, kind: type | tuple[type, ...], where: str) -> Any:
    _require(isinstance(obj, dict), f"{where}: expected an object, got {type(obj).__name__}")
    _require(key in obj, f"{where}: missing field {key!r}")
    value = obj[key]
    ok = isinstance(value, kind) and not (kind in (int, (int, float)) and isinstance(value, bool))
    expected = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
    _require(ok, f"{where}: field {key!r} must be {expected}, got {type(value).__name__}")
    return value


def board_from_data(data: Any) -> Board:
    """Validate board data (already parsed JSON) and build its indexes.

    The board's hash is the SHA-256 of its canonical JSON (sorted keys, no spaces),
    so reformatting the file does not change it.
    """
    _require(isinstance(data, dict), "board: the file must hold a JSON object")
    name = _field(data, "name", str, "board")
    note = data.get("note", "")
    types = _field(data, "track_types", dict, "board")
    _require(len(types) == 4, f"board: track_types must name exactly 4 types, got {len(types)}")
    for t, n in types.items():
        _require(isinstance(n, int) and not isinstance(n, bool) and n > 0,
                 f"board: track type {t!r} needs a positive whole number of cards, got {n!r}")
        _require(t != "WILD", "board: 'WILD' is the wild card, not a track type")
    _require(sorted(types.values()) == PUBLISHED_TYPED_CARDS,
             f"board: typed card counts must be 6, 7, 9 and 14 in some order, got {sorted(types.values())}")
    wild = _field(data, "wild_cards", int, "board")
    _require(wild == PUBLISHED_WILD_CARDS, f"board: wild_cards must be {PUBLISHED_WILD_CARDS}, got {wild}")
    kinds = tuple(types) + ("WILD",)
    kind_index = {k: i for i, k in enumerate(kinds)}

    cities_raw = _field(data, "cities", list, "board")
    _require(len(cities_raw) >= 2, "board: needs at least 2 cities")
    cities: list[str] = []
    lonlat: list[tuple[float, float]] = []
    for i, c in enumerate(cities_raw):
        where = f"board: city #{i}"
        cname = _field(c, "name", str, where)
        _require(cname and " ".join(cname.split()) == cname,
                 f"{where}: bad name {cname!r} (no leading, trailing or repeated spaces)")
        _require(cname not in cities, f"board: city {cname!r} appears twice")
        cities.append(cname)
        lonlat.append((float(_field(c, "lon", (int, float), where)), float(_field(c, "lat", (int, float), where))))
    city_index = {c: i for i, c in enumerate(cities)}

    sections_raw = _field(data, "sections", list, "board")
    _require(sections_raw, "board: needs at least one section")
    sec_a: list[int] = []
    sec_b: list[int] = []
    sec_type: list[int] = []
    sec_spaces: list[int] = []
    seen_pairs: dict[frozenset[int], int] = {}
    for i, s in enumerate(sections_raw):
        where = f"board: section #{i}"
        a = _field(s, "a", str, where)
        b = _field(s, "b", str, where)
        _require(a in city_index, f"{where}: unknown city {a!r}")
        _require(b in city_index, f"{where}: unknown city {b!r}")
        _require(a != b, f"{where}: joins {a!r} to itself")
        pair = frozenset((city_index[a], city_index[b]))
        _require(pair not in seen_pairs, f"{where}: {a}-{b} duplicates section #{seen_pairs.get(pair)}")
        seen_pairs[pair] = i
        spaces = _field(s, "spaces", int, where)
        _require(1 <= spaces <= 4, f"{where} ({a}-{b}): spaces must be 1 to 4, got {spaces}")
        t = _field(s, "type", str, where)
        _require(t in types, f"{where} ({a}-{b}): unknown track type {t!r}")
        sec_a.append(city_index[a])
        sec_b.append(city_index[b])
        sec_type.append(kind_index[t])
        sec_spaces.append(spaces)
    section_of_pair = {pair: i for pair, i in seen_pairs.items()}

    companies_raw = _field(data, "companies", dict, "board")
    missing = [c for c in COMPANIES if c not in companies_raw]
    extra = [c for c in companies_raw if c not in COMPANIES]
    _require(not missing, f"board: missing companies {missing}")
    _require(not extra, f"board: unknown companies {extra}")
    neutral = list(sec_spaces)
    names, shares, trains, homes, ctypes, starts = [], [], [], [], [], []
    for code in COMPANIES:
        c = companies_raw[code]
        where = f"board: company {code}"
        names.append(_field(c, "name", str, where))
        n_sh = _field(c, "shares", int, where)
        _require(n_sh == PUBLISHED_SHARES[code], f"{where}: shares must be {PUBLISHED_SHARES[code]}, got {n_sh}")
        n_tr = _field(c, "trains", int, where)
        _require(n_tr == PUBLISHED_TRAINS[code], f"{where}: trains must be {PUBLISHED_TRAINS[code]}, got {n_tr}")
        home = _field(c, "home", str, where)
        _require(home in city_index, f"{where}: unknown home city {home!r}")
        tlist = _field(c, "types", list, where)
        _require(tlist and all(isinstance(t, str) and t in types for t in tlist),
                 f"{where}: types must be a non-empty list of {list(types)}")
        _require(len(set(tlist)) == len(tlist), f"{where}: a track type is listed twice")
        _require(len(tlist) <= 3 or code == "EPRG", f"{where}: only EPRG may use all four track types")
        _require(len(tlist) == 4 or code != "EPRG", f"{where}: EPRG must use all four track types, got {tlist}")
        start_raw = _field(c, "start", list, where)
        want = 2 if code == "EPRG" else 1
        _require(len(start_raw) == want, f"{where}: needs {want} starting space(s), got {len(start_raw)}")
        start_secs: list[int] = []
        for pair_raw in start_raw:
            _require(isinstance(pair_raw, list) and len(pair_raw) == 2 and all(isinstance(x, str) for x in pair_raw),
                     f"{where}: a starting space is named by two cities, got {pair_raw!r}")
            _require(all(x in city_index for x in pair_raw), f"{where}: starting space {pair_raw} names an unknown city")
            pair = frozenset(city_index[x] for x in pair_raw)
            _require(pair in section_of_pair, f"{where}: no section {pair_raw[0]}-{pair_raw[1]} for its starting space")
            sidx = section_of_pair[pair]
            _require(city_index[home] in pair, f"{where}: starting space {pair_raw[0]}-{pair_raw[1]} does not touch home {home}")
            _require(kinds[sec_type[sidx]] in tlist,
                     f"{where}: starting space {pair_raw[0]}-{pair_raw[1]} is {kinds[sec_type[sidx]]}, a type it may not use")
            _require(sidx not in start_secs, f"{where}: two starting spaces on one section")
            neutral[sidx] -= 1
            _require(neutral[sidx] >= 0, f"board: section {pair_raw[0]}-{pair_raw[1]} has more starting spaces than spaces")
            start_secs.append(sidx)
        homes.append(city_index[home])
        ctypes.append(frozenset(kind_index[t] for t in tlist))
        shares.append(n_sh)
        trains.append(n_tr)
        starts.append(tuple(start_secs))
    up = _field(data, "union_pacific_shares", int, "board")
    _require(up == PUBLISHED_UP_SHARES, f"board: union_pacific_shares must be {PUBLISHED_UP_SHARES}, got {up}")

    city_secs: list[list[int]] = [[] for _ in cities]
    for i, (a, b) in enumerate(zip(sec_a, sec_b)):
        city_secs[a].append(i)
        city_secs[b].append(i)
    sec_names = [f"{cities[a]}-{cities[b]}" for a, b in zip(sec_a, sec_b)]
    clash = next((n for i, n in enumerate(sec_names) if n in sec_names[:i]), None)
    _require(clash is None, f"board: two sections are both named {clash!r} (a hyphen in a city name?); "
                            "action texts must name each section unambiguously")
    sha256 = hashlib.sha256(json.dumps(data, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    return Board(
        name=name,
        note=note if isinstance(note, str) else "",
        sha256=sha256,
        data=data,
        card_kinds=kinds,
        card_counts=tuple(types.values()) + (wild,),
        cities=tuple(cities),
        city_lonlat=tuple(lonlat),
        section_a=tuple(sec_a),
        section_b=tuple(sec_b),
        section_type=tuple(sec_type),
        section_spaces=tuple(sec_spaces),
        section_names=tuple(sec_names),
        neutral_spaces=tuple(neutral),
        city_sections=tuple(tuple(x) for x in city_secs),
        company_names=tuple(names),
        company_shares=tuple(shares),
        company_trains=tuple(trains),
        company_home=tuple(homes),
        company_types=tuple(ctypes),
        company_start=tuple(starts),
        up_shares=up,
    )


def board_from_json(text: str | bytes, *, source: str = "board") -> Board:
    """Parse and validate a board file's text."""
    return board_from_text(text, board_from_data, source=source)


def load_default_board() -> Board:
    """The board shipped inside the package (a reconstruction, see docs/rules.md)."""
    return packaged_board(__package__, DEFAULT_BOARD, board_from_data)
