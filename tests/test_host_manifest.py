"""Bot manifests and specs: every problem names the file and the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.host.manifest import BotSpec, ManifestError, is_address, load_manifest, parse_bot_spec

GOOD = """
name = "random-bot"
version = "1.0.0"
author = "Arena"
language = "python"
command = ["python", "bot.py", "--port", "{port}"]
working_dir = "src"
"""


def write(tmp_path: Path, text: str, name: str = "bot.toml") -> Path:
    (tmp_path / "src").mkdir(exist_ok=True)
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_good_manifest_loads_with_paths_made_absolute(tmp_path: Path) -> None:
    m = load_manifest(write(tmp_path, GOOD))
    assert (m.name, m.version, m.author, m.language) == ("random-bot", "1.0.0", "Arena", "python")
    assert m.command == ("python", "bot.py", "--port", "{port}")
    assert m.working_dir == (tmp_path / "src").resolve()
    assert m.path == (tmp_path / "bot.toml").resolve()
    assert m.command_for(50123) == ["python", "bot.py", "--port", "50123"]


def test_a_folder_means_its_bot_toml_and_working_dir_defaults_to_the_manifest_folder(tmp_path: Path) -> None:
    write(tmp_path, GOOD.replace('working_dir = "src"\n', "").replace('author = "Arena"\n', ""))
    m = load_manifest(tmp_path)
    assert m.working_dir == tmp_path.resolve()
    assert m.author == ""


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda t: t.replace('name = "random-bot"\n', ""), "missing field 'name'"),
        (lambda t: t.replace('version = "1.0.0"', "version = 1"), "field 'version' must be a string, got a number"),
        (lambda t: t.replace('language = "python"', 'language = ""'), "field 'language' must not be empty"),
        (lambda t: t.replace('command = ["python", "bot.py", "--port", "{port}"]\n', ""), "missing field 'command'"),
        (lambda t: t.replace('command = ["python", "bot.py", "--port", "{port}"]', 'command = "python bot.py"'),
         "field 'command' must be a list of strings, got a string"),
        (lambda t: t.replace('command = ["python", "bot.py", "--port", "{port}"]', "command = []"),
         "field 'command' must not be empty"),
        (lambda t: t.replace('command = ["python", "bot.py", "--port", "{port}"]', 'command = ["python", 3]'),
         "field 'command' item 1 must be a string, got a number"),
        (lambda t: t.replace('working_dir = "src"', 'working_dir = "nowhere"'), "field 'working_dir'"),
        (lambda t: t.replace('working_dir = "src"', "working_dir = ['src']"),
         "field 'working_dir' must be a string, got a list"),
        (lambda t: t + "\nname = [\n", "not valid TOML"),
    ],
)
def test_every_problem_names_the_file_and_the_field(tmp_path: Path, change, message: str) -> None:
    path = write(tmp_path, change(GOOD))
    with pytest.raises(ManifestError) as info:
        load_manifest(path)
    assert message in str(info.value)
    assert str(path.resolve()) in str(info.value)


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ManifestError, match="no such manifest file"):
        load_manifest(tmp_path / "absent.toml")


def test_specs_tell_addresses_from_manifests(tmp_path: Path) -> None:
    assert is_address("127.0.0.1:50051") and is_address("bots.example.org:7000") and is_address("[::1]:50051")
    assert not is_address("bot.toml") and not is_address("host:0") and not is_address("host:70000")
    spec = parse_bot_spec("localhost:50051")
    assert spec.address == "localhost:50051" and spec.manifest is None
    assert spec.key == "address:localhost:50051" and spec.label == "localhost:50051"
    path = write(tmp_path, GOOD)
    from_file = parse_bot_spec(str(path))
    assert from_file.manifest is not None and from_file.label == "random-bot"
    assert from_file.key == str(path.resolve())
    with pytest.raises(ManifestError, match="no such manifest file"):
        parse_bot_spec(str(tmp_path / "missing.toml"))
    with pytest.raises(ValueError):
        BotSpec()
