"""The board data (§1, §2): the default board loads with the published numbers, and a
malformed board file is refused with a BoardError that names the problem."""

from __future__ import annotations

import copy
import json
from importlib import resources
from typing import Any, Callable

import pytest

from arena.games.base import BoardError
from arena.games.union_pacific import UnionPacific, board_from_json, load_default_board
from arena.games.union_pacific.board import COMPANIES, board_from_data

DEFAULT_TEXT = resources.files("arena.games.union_pacific").joinpath("boards", "reconstruction-1.json").read_text()
DEFAULT_DATA: dict[str, Any] = json.loads(DEFAULT_TEXT)


def _section(data: dict[str, Any], a: str, b: str) -> dict[str, Any]:
    for s in data["sections"]:
        if {s["a"], s["b"]} == {a, b}:
            return s
    raise LookupError(f"no section {a}-{b}")


def _rename_city(data: dict[str, Any], old: str, new: str) -> None:
    for c in data["cities"]:
        if c["name"] == old:
            c["name"] = new
    for s in data["sections"]:
        for end in ("a", "b"):
            if s[end] == old:
                s[end] = new
    for company in data["companies"].values():
        if company["home"] == old:
            company["home"] = new
        company["start"] = [[new if x == old else x for x in pair] for pair in company["start"]]


# -- the default board ---------------------------------------------------------------

def test_default_board_has_the_published_numbers() -> None:
    board = load_default_board()
    assert len(board.cities) == 40
    assert board.num_sections == 71
    assert sum(board.section_spaces) == 174
    assert dict(zip(board.card_kinds, board.card_counts)) == {
        "PLAIN": 14, "COAST": 9, "BORDER": 7, "MOUNTAIN": 6, "WILD": 4}
    assert sum(board.card_counts) == 40
    assert board.company_names[0] == "El Paso & Rio Grande"
    assert sum(board.company_shares) == 98 and board.up_shares == 20
    assert sum(board.company_trains) == 131
    assert all(1 <= n <= 4 for n in board.section_spaces)


@pytest.mark.parametrize("a,b", [("Billings", "Casper"), ("Casper", "Salt Lake City"), ("Salt Lake City", "Denver"),
                                 ("Denver", "Casper"), ("Denver", "El Paso")])
def test_the_sections_of_the_rule_examples_exist(a: str, b: str) -> None:
    board = load_default_board()
    ends = {frozenset((board.cities[x], board.cities[y])) for x, y in zip(board.section_a, board.section_b)}
    assert frozenset((a, b)) in ends


def test_the_eleven_starting_spaces_touch_home_and_are_of_an_allowed_type() -> None:
    board = load_default_board()
    starts = [s for c in range(len(COMPANIES)) for s in board.company_start[c]]
    assert len(starts) == 11
    assert [len(board.company_start[c]) for c in range(len(COMPANIES))] == [2] + [1] * 9
    assert sum(board.section_spaces) - sum(board.neutral_spaces) == 11
    for c in range(len(COMPANIES)):
        for s in board.company_start[c]:
            assert board.company_home[c] in (board.section_a[s], board.section_b[s])
            assert board.section_type[s] in board.company_types[c]


def test_company_track_types() -> None:
    board = load_default_board()
    assert len(board.company_types[0]) == 4  # EPRG: all four
    assert all(1 <= len(board.company_types[c]) <= 3 for c in range(1, len(COMPANIES)))


@pytest.mark.parametrize("code,home", [("EPRG", "El Paso"), ("BNL", "Billings"), ("MS", "Miami"), ("DM", "Denver"),
                                       ("SFRB", "Sioux Falls"), ("KCC", "Kansas City"), ("MRR", "Marquette")])
def test_home_cities_named_by_the_rules(code: str, home: str) -> None:
    board = load_default_board()
    assert board.cities[board.company_home[COMPANIES.index(code)]] == home


def test_the_hash_ignores_formatting_and_changes_with_content() -> None:
    compact = board_from_json(json.dumps(DEFAULT_DATA, separators=(",", ":")))
    pretty = board_from_json(json.dumps(DEFAULT_DATA, indent=4))
    assert compact.sha256 == pretty.sha256 == load_default_board().sha256
    changed = copy.deepcopy(DEFAULT_DATA)
    changed["cities"][0]["lon"] += 0.5
    assert board_from_data(changed).sha256 != compact.sha256


def test_the_game_reports_its_board() -> None:
    info = UnionPacific().board_info()
    assert info == {"name": "union-pacific-reconstruction-1", "sha256": load_default_board().sha256}


# -- malformed boards ----------------------------------------------------------------

Mutation = Callable[[dict[str, Any]], None]


def _set(path: tuple, value: Any) -> Mutation:
    def mutate(data: dict[str, Any]) -> None:
        target = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return mutate


def _delete(path: tuple) -> Mutation:
    def mutate(data: dict[str, Any]) -> None:
        target = data
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]
    return mutate


def _duplicate_section(data: dict[str, Any]) -> None:
    first = data["sections"][0]
    data["sections"].append({"a": first["b"], "b": first["a"], "spaces": 2, "type": first["type"]})


def _self_loop(data: dict[str, Any]) -> None:
    data["sections"][0]["b"] = data["sections"][0]["a"]


def _extra_track_type(data: dict[str, Any]) -> None:
    data["track_types"]["SWAMP"] = 3


def _wild_as_type(data: dict[str, Any]) -> None:
    data["track_types"] = {"WILD" if k == "PLAIN" else k: v for k, v in data["track_types"].items()}


def _unknown_company(data: dict[str, Any]) -> None:
    data["companies"]["XYZ"] = copy.deepcopy(data["companies"]["DM"])


def _start_not_touching_home(data: dict[str, Any]) -> None:
    data["companies"]["DM"]["start"] = [["Casper", "Omaha"]]


def _start_of_forbidden_type(data: dict[str, Any]) -> None:
    data["companies"]["ESL"]["start"] = [["Detroit", "New York"]]  # PLAIN; ESL uses BORDER and COAST


def _more_starts_than_spaces(data: dict[str, Any]) -> None:
    data["companies"]["WW"]["start"] = [["Casper", "Billings"]]  # joins BNL's starting space
    _section(data, "Billings", "Casper")["spaces"] = 1


def _two_eprg_starts_on_one_section(data: dict[str, Any]) -> None:
    data["companies"]["EPRG"]["start"] = [["Albuquerque", "El Paso"], ["El Paso", "Albuquerque"]]


def _duplicate_city(data: dict[str, Any]) -> None:
    data["cities"].append(copy.deepcopy(data["cities"][0]))


MALFORMED: list[tuple[str, Mutation, str]] = [
    ("missing name", _delete(("name",)), r"missing field 'name'"),
    ("missing track_types", _delete(("track_types",)), r"missing field 'track_types'"),
    ("missing sections", _delete(("sections",)), r"missing field 'sections'"),
    ("missing companies", _delete(("companies",)), r"missing field 'companies'"),
    ("missing union_pacific_shares", _delete(("union_pacific_shares",)), r"missing field 'union_pacific_shares'"),
    ("name not a string", _set(("name",), 7), r"field 'name' must be str, got int"),
    ("wild_cards a string", _set(("wild_cards",), "4"), r"field 'wild_cards' must be int, got str"),
    ("wild_cards a bool", _set(("wild_cards",), True), r"field 'wild_cards' must be int, got bool"),
    ("wrong wild card count", _set(("wild_cards",), 5), r"wild_cards must be 4, got 5"),
    ("wrong typed card counts", _set(("track_types", "PLAIN"), 13), r"typed card counts must be 6, 7, 9 and 14"),
    ("zero cards of a type", _set(("track_types", "PLAIN"), 0), r"track type 'PLAIN' needs a positive whole number"),
    ("five track types", _extra_track_type, r"exactly 4 types, got 5"),
    ("WILD as a track type", _wild_as_type, r"'WILD' is the wild card"),
    ("cities not a list", _set(("cities",), {}), r"field 'cities' must be list, got dict"),
    ("city without lon", _delete(("cities", 0, "lon")), r"city #0: missing field 'lon'"),
    ("city lat a string", _set(("cities", 0, "lat"), "north"), r"city #0: field 'lat' must be int or float, got str"),
    ("city name padded", _set(("cities", 0, "name"), " Vancouver"), r"city #0: bad name"),
    ("city twice", _duplicate_city, r"city 'Vancouver' appears twice"),
    ("no sections", _set(("sections",), []), r"needs at least one section"),
    ("section not an object", _set(("sections", 0), ["Vancouver", "Seattle"]), r"section #0: expected an object"),
    ("section without type", _delete(("sections", 0, "type")), r"section #0: missing field 'type'"),
    ("section spaces a string", _set(("sections", 0, "spaces"), "3"), r"section #0: field 'spaces' must be int"),
    ("section spaces a float", _set(("sections", 0, "spaces"), 2.0), r"section #0: field 'spaces' must be int"),
    ("unknown city in a section", _set(("sections", 0, "a"), "Atlantis"), r"section #0: unknown city 'Atlantis'"),
    ("section joins a city to itself", _self_loop, r"section #0: joins 'Vancouver' to itself"),
    ("zero spaces", _set(("sections", 0, "spaces"), 0), r"spaces must be 1 to 4, got 0"),
    ("five spaces", _set(("sections", 0, "spaces"), 5), r"spaces must be 1 to 4, got 5"),
    ("unknown section type", _set(("sections", 0, "type"), "SWAMP"), r"unknown track type 'SWAMP'"),
    ("duplicate section", _duplicate_section, r"Seattle-Vancouver duplicates section #0"),
    ("companies a list", _set(("companies",), []), r"field 'companies' must be dict, got list"),
    ("missing company", _delete(("companies", "DM")), r"missing companies \['DM'\]"),
    ("unknown company", _unknown_company, r"unknown companies \['XYZ'\]"),
    ("company not an object", _set(("companies", "DM"), "Denver Midland"), r"company DM: expected an object"),
    ("company without trains", _delete(("companies", "DM", "trains")), r"company DM: missing field 'trains'"),
    ("wrong share count", _set(("companies", "DM", "shares"), 11), r"company DM: shares must be 10, got 11"),
    ("wrong train count", _set(("companies", "EPRG", "trains"), 22), r"company EPRG: trains must be 23, got 22"),
    ("wrong UP share count", _set(("union_pacific_shares",), 19), r"union_pacific_shares must be 20, got 19"),
    ("home not a city", _set(("companies", "DM", "home"), "Atlantis"), r"company DM: unknown home city 'Atlantis'"),
    ("unknown type for a company", _set(("companies", "DM", "types"), ["PLAIN", "SWAMP"]), r"company DM: types must be"),
    ("no types for a company", _set(("companies", "DM", "types"), []), r"company DM: types must be"),
    ("a type listed twice", _set(("companies", "DM", "types"), ["PLAIN", "PLAIN"]), r"company DM: a track type is listed twice"),
    ("all four types for another company", _set(("companies", "DM", "types"), ["PLAIN", "COAST", "BORDER", "MOUNTAIN"]),
     r"company DM: only EPRG may use all four"),
    ("too few EPRG starts", _set(("companies", "EPRG", "start"), [["Albuquerque", "El Paso"]]),
     r"company EPRG: needs 2 starting space\(s\), got 1"),
    ("two starts for DM", _set(("companies", "DM", "start"), [["Denver", "Omaha"], ["Denver", "Casper"]]),
     r"company DM: needs 1 starting space\(s\), got 2"),
    ("start named by one city", _set(("companies", "DM", "start"), [["Denver"]]), r"company DM: a starting space is named by two cities"),
    ("start names an unknown city", _set(("companies", "DM", "start"), [["Denver", "Atlantis"]]), r"company DM: starting space .* names an unknown city"),
    ("start on no section", _set(("companies", "DM", "start"), [["Denver", "Miami"]]), r"company DM: no section Denver-Miami"),
    ("start not touching home", _start_not_touching_home, r"company DM: starting space Casper-Omaha does not touch home Denver"),
    ("start of a forbidden type", _start_of_forbidden_type, r"company ESL: starting space Detroit-New York is PLAIN, a type it may not use"),
    ("two EPRG starts on one section", _two_eprg_starts_on_one_section, r"company EPRG: two starting spaces on one section"),
    ("more starts than spaces", _more_starts_than_spaces, r"Casper-Billings has more starting spaces than spaces"),
    # §1/§2: EPRG uses all four track types.
    ("EPRG without all four types", _set(("companies", "EPRG", "types"), ["PLAIN", "BORDER", "MOUNTAIN"]),
     r"company EPRG: .*four"),
    # A type list holding something that is not a type name is a malformed file, not a crash.
    ("a type that is a list", _set(("companies", "DM", "types"), [["PLAIN"]]), r"company DM: types must be"),
    ("a type that is an object", _set(("companies", "DM", "types"), [{"PLAIN": 1}]), r"company DM: types must be"),
]


@pytest.mark.parametrize("mutate,message", [pytest.param(m, msg, id=name) for name, m, msg in MALFORMED])
def test_a_malformed_board_is_refused_with_a_message_naming_the_problem(mutate: Mutation, message: str) -> None:
    data = copy.deepcopy(DEFAULT_DATA)
    mutate(data)
    with pytest.raises(BoardError, match=message):
        board_from_json(json.dumps(data), source="test.json")


def test_the_message_names_the_source_file() -> None:
    data = copy.deepcopy(DEFAULT_DATA)
    data["wild_cards"] = 3
    with pytest.raises(BoardError, match=r"^mine\.json: board: wild_cards must be 4, got 3$"):
        board_from_json(json.dumps(data), source="mine.json")


@pytest.mark.parametrize("text,message", [
    ("{", r"not valid JSON"),
    ("", r"not valid JSON"),
    (b"\xff\xfe\x00garbage", r"not valid JSON"),
    ("[1, 2]", r"must hold a JSON object"),
    ("null", r"must hold a JSON object"),
])
def test_text_that_is_not_a_board_object_is_refused(text: str | bytes, message: str) -> None:
    with pytest.raises(BoardError, match=message):
        board_from_json(text, source="bad.json")


def test_the_default_text_loads_as_the_default_board() -> None:
    assert board_from_json(DEFAULT_TEXT).sha256 == load_default_board().sha256


# -- action text forms on other valid boards ---------------------------------------------

def _double_space_city(data: dict[str, Any]) -> None:
    _rename_city(data, "New York", "New  York")


def _ambiguous_section_names(data: dict[str, Any]) -> None:
    # Las Vegas-Los Angeles and Albuquerque-Phoenix both become "P-Q-R".
    _rename_city(data, "Las Vegas", "P-Q")
    _rename_city(data, "Los Angeles", "R")
    _rename_city(data, "Albuquerque", "P")
    _rename_city(data, "Phoenix", "Q-R")


@pytest.mark.parametrize("mutate", [_double_space_city, _ambiguous_section_names], ids=["double-space", "ambiguous"])
def test_a_board_is_refused_or_its_action_texts_parse_back(mutate: Mutation) -> None:
    """The text form is how replays store actions: on any board the engine accepts, every
    action's text must name that action and no other."""
    data = copy.deepcopy(DEFAULT_DATA)
    mutate(data)
    try:
        game = UnionPacific(board_from_data(data))
    except BoardError:
        return
    state = game.new_state(3, 0)
    wrong = []
    for action in range(game.actions.size):
        text = state.action_to_string(action)
        try:
            back = state.string_to_action(text)
        except ValueError as exc:
            back = exc
        if back != action:
            wrong.append((action, text, back))
    assert not wrong, f"{len(wrong)} action texts do not parse back, e.g. {wrong[:2]}"
