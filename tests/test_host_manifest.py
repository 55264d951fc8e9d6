"""Bot manifests and specs: every problem names the file and the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.host.manifest import (MAX_ENV_ENTRIES, MAX_ENV_VALUE_BYTES, BotSpec, ManifestError, is_address,
                                 load_manifest, parse_bot_spec)

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
    assert m.command_for(port=50123, address="127.0.0.1:50123") == ["python", "bot.py", "--port", "50123"]
    assert (m.uses_port, m.uses_address, m.env) == (True, False, ())


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
        (lambda t: t.replace('name = "random-bot"', 'name = ".."'), "field 'name': bot name '..' is a path step"),
        (lambda t: t.replace('name = "random-bot"', 'name = "evil\\u202Etob"'),
         "field 'name': bot name 'evil\\u202etob' contains the invisible or control character U+202E "
         "(RIGHT-TO-LEFT OVERRIDE)"),
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


# ------------------------------------------------------------------ {address} and {port}


def with_command(tmp_path: Path, command: str) -> Path:
    return write(tmp_path, GOOD.replace('command = ["python", "bot.py", "--port", "{port}"]', f"command = {command}"))


def test_address_is_replaced_wherever_it_stands(tmp_path: Path) -> None:
    m = load_manifest(with_command(tmp_path, '["node", "bot.js", "--address", "{address}", "--listen={address}"]'))
    assert (m.uses_address, m.uses_port) == (True, False)
    sandboxed = m.command_for(address="unix:/run/arena/bot.sock")
    assert sandboxed == ["node", "bot.js", "--address", "unix:/run/arena/bot.sock",
                         "--listen=unix:/run/arena/bot.sock"]
    # A port given to an {address}-only command is simply not used.
    assert m.command_for(port=4000, address="127.0.0.1:4000") == [
        "node", "bot.js", "--address", "127.0.0.1:4000", "--listen=127.0.0.1:4000"]


def test_port_and_address_together(tmp_path: Path) -> None:
    m = load_manifest(with_command(tmp_path, '["bot", "--port", "{port}", "--address", "{address}"]'))
    assert (m.uses_address, m.uses_port) == (True, True)
    assert m.command_for(port=7, address="127.0.0.1:7") == ["bot", "--port", "7", "--address", "127.0.0.1:7"]
    with pytest.raises(ValueError, match=r"takes \{port\}, but no port was given") as info:
        m.command_for(address="unix:/run/arena/bot.sock")
    assert str(m.path) in str(info.value)


def test_a_port_command_needs_a_port(tmp_path: Path) -> None:
    m = load_manifest(write(tmp_path, GOOD))
    with pytest.raises(ValueError, match=r"bot 'random-bot' takes \{port\}, but no port was given"):
        m.command_for(address="unix:/run/arena/bot.sock")
    with pytest.raises(ValueError):
        m.command_for(port=None, address="127.0.0.1:1")


def test_a_command_with_neither_placeholder_reads_the_environment(tmp_path: Path) -> None:
    """Such a bot finds ARENA_BOT_ADDRESS in its environment; the command stays as written."""
    m = load_manifest(with_command(tmp_path, '["python", "bot.py"]'))
    assert (m.uses_address, m.uses_port) == (False, False)
    assert m.command_for(address="unix:/run/arena/bot.sock") == ["python", "bot.py"]


def test_command_for_takes_keywords_only(tmp_path: Path) -> None:
    m = load_manifest(write(tmp_path, GOOD))
    with pytest.raises(TypeError):
        m.command_for(50123)  # type: ignore[misc]


# ------------------------------------------------------------------ [env]


def with_env(tmp_path: Path, env_toml: str) -> Path:
    return write(tmp_path, GOOD + env_toml)


def test_env_table_is_kept_in_order(tmp_path: Path) -> None:
    m = load_manifest(with_env(tmp_path, '\n[env]\nZ_LAST = "z"\nMY_LEVEL = "3"\n_private = ""\n'
                                         'GREETING = "héllo wörld"\n'))
    assert m.env == (("Z_LAST", "z"), ("MY_LEVEL", "3"), ("_private", ""), ("GREETING", "héllo wörld"))
    assert dict(m.env)["MY_LEVEL"] == "3"


def test_env_as_an_inline_table(tmp_path: Path) -> None:
    m = load_manifest(with_env(tmp_path, 'env = {OMP_NUM_THREADS = "1", LANG = "C.UTF-8"}\n'))
    assert m.env == (("OMP_NUM_THREADS", "1"), ("LANG", "C.UTF-8"))


def test_env_at_its_limits_loads(tmp_path: Path) -> None:
    lines = "".join(f'V{i} = "x"\n' for i in range(MAX_ENV_ENTRIES - 1))
    big = "é" * (MAX_ENV_VALUE_BYTES // 2)  # two bytes each in UTF-8: exactly the limit
    m = load_manifest(with_env(tmp_path, f'\n[env]\n{lines}BIG = "{big}"\n'))
    assert len(m.env) == MAX_ENV_ENTRIES
    assert dict(m.env)["BIG"] == big


@pytest.mark.parametrize(
    ("env_toml", "message"),
    [
        ('env = "A=1"\n', "field 'env' must be a table of strings ([env] then NAME = \"value\" lines), got a string"),
        ('env = ["A=1"]\n', "field 'env' must be a table of strings ([env] then NAME = \"value\" lines), got a list"),
        ("\n[env]\n" + "".join(f'V{i} = "x"\n' for i in range(MAX_ENV_ENTRIES + 1)),
         f"field 'env' has {MAX_ENV_ENTRIES + 1} entries; at most {MAX_ENV_ENTRIES}"),
        ('\n[env]\n"1ST" = "x"\n', "field 'env' entry '1ST' is not a valid variable name (letters, digits and _, "
                                     "not starting with a digit)"),
        ('\n[env]\nMY-VAR = "x"\n', "field 'env' entry 'MY-VAR' is not a valid variable name"),
        ('\n[env]\n"A B" = "x"\n', "field 'env' entry 'A B' is not a valid variable name"),
        ('\n[env]\n"" = "x"\n', "field 'env' entry '' is not a valid variable name"),
        ('\n[env]\n"A=B" = "x"\n', "field 'env' entry 'A=B' is not a valid variable name"),
        ('\n[env]\n"NÄME" = "x"\n', "field 'env' entry 'NÄME' is not a valid variable name"),
        ('\n[env]\nARENA_BOT_ADDRESS = "127.0.0.1:1"\n',
         "field 'env' entry 'ARENA_BOT_ADDRESS' is not allowed: ARENA_* variables are the host's "
         "(ARENA_BOT_ADDRESS, ARENA_BOT_PORT)"),
        ('\n[env]\nARENA_DB = "sqlite://"\n', "field 'env' entry 'ARENA_DB' is not allowed: ARENA_* variables"),
        ('\n[env]\nPATH = "/opt/bin"\n', "field 'env' entry 'PATH' is not allowed: the host sets it: PATH, HOME, "
                                          "TMPDIR and the like must match the sandbox the bot runs in"),
        ('\n[env]\nHOME = "/home/me"\n', "field 'env' entry 'HOME' is not allowed: the host sets it"),
        ('\n[env]\nTMPDIR = "/var/tmp"\n', "field 'env' entry 'TMPDIR' is not allowed: the host sets it"),
        ('\n[env]\nLD_PRELOAD = "/tmp/x.so"\n',
         "field 'env' entry 'LD_PRELOAD' is not allowed: LD_* variables change which libraries the dynamic "
         "loader puts into every program; the host decides the runtime"),
        ('\n[env]\nLD_LIBRARY_PATH = "/opt/lib"\n', "field 'env' entry 'LD_LIBRARY_PATH' is not allowed: LD_*"),
        ('\n[env]\nLD_AUDIT = "/tmp/x.so"\n', "field 'env' entry 'LD_AUDIT' is not allowed: LD_*"),
        ('\n[env]\nPYTHONPATH = "/opt/py"\n',
         "field 'env' entry 'PYTHONPATH' is not allowed: it changes where Python finds its modules or what it "
         "runs at start; a Python bot runs on the host's interpreter with the Arena SDK: keep your modules in "
         "working_dir"),
        ('\n[env]\nPYTHONHOME = "/opt"\n', "field 'env' entry 'PYTHONHOME' is not allowed: it changes where Python"),
        ('\n[env]\nPYTHONSTARTUP = "x.py"\n', "field 'env' entry 'PYTHONSTARTUP' is not allowed"),
        ('\n[env]\nNODE_OPTIONS = "--require x"\n',
         "field 'env' entry 'NODE_OPTIONS' is not allowed: it changes which code Node.js loads; put interpreter "
         "options in 'command'"),
        ('\n[env]\nNODE_PATH = "/opt/node"\n', "field 'env' entry 'NODE_PATH' is not allowed"),
        ('\n[env]\nLEVEL = 3\n', "field 'env' entry 'LEVEL' must be a string, got a number"),
        ('\n[env]\nFAST = true\n', "field 'env' entry 'FAST' must be a string, got a boolean"),
        ('\n[env]\nLIST = ["a"]\n', "field 'env' entry 'LIST' must be a string, got a list"),
        ('\n[env.NESTED]\nX = "a"\n', "field 'env' entry 'NESTED' must be a string, got a table"),
        ('\n[env]\nZERO = "a\\u0000b"\n', "field 'env' entry 'ZERO' contains a NUL character"),
        ('\n[env]\nHUGE = "' + "x" * (MAX_ENV_VALUE_BYTES + 1) + '"\n',
         f"field 'env' entry 'HUGE' is {MAX_ENV_VALUE_BYTES + 1} bytes long; at most {MAX_ENV_VALUE_BYTES} (4 KiB)"),
        ('\n[env]\nWIDE = "' + "é" * (MAX_ENV_VALUE_BYTES // 2 + 1) + '"\n',
         f"field 'env' entry 'WIDE' is {MAX_ENV_VALUE_BYTES + 2} bytes long"),
    ],
)
def test_every_env_problem_names_the_file_and_the_field(tmp_path: Path, env_toml: str, message: str) -> None:
    path = with_env(tmp_path, env_toml)
    with pytest.raises(ManifestError) as info:
        load_manifest(path)
    assert message in str(info.value)
    assert str(path.resolve()) in str(info.value)


def test_env_names_only_look_like_refused_ones(tmp_path: Path) -> None:
    """The refusals are exact names and two prefixes; neighbours of them are allowed."""
    m = load_manifest(with_env(tmp_path, '\n[env]\nMY_PATH = "a"\nPATHS = "b"\nARENA = "c"\nLDX = "d"\n'
                                         'PYTHONHASHSEED = "0"\nPYTHONUNBUFFERED = "1"\nNODE_ENV = "production"\n'))
    assert [name for name, _ in m.env] == ["MY_PATH", "PATHS", "ARENA", "LDX", "PYTHONHASHSEED",
                                           "PYTHONUNBUFFERED", "NODE_ENV"]


def test_the_sample_manifests_use_both_forms() -> None:
    """Every sample passes {address} except random_bot, kept on {port} to show the old form works."""
    from arena.protocol import REPO_ROOT

    forms = {path.parent.name: (m.uses_address, m.uses_port)
             for path in sorted((REPO_ROOT / "sample_bots").glob("**/bot.toml")) if "node_modules" not in path.parts
             for m in [load_manifest(path)]}
    assert forms == {"greedy_bot": (True, False), "investor_bot": (True, False), "node": (True, False),
                     "random_bot": (False, True), "search_bot": (True, False), "ttr_random_bot": (True, False),
                     "ttr_sensible_bot": (True, False)}
