"""scripts/setup-env (behind scripts/demo and scripts/test) installs into a fresh copy of
the repository, then skips pip and npm ci while pyproject.toml and package-lock.json are
unchanged, and installs again when pyproject.toml changes.

Real runs of the script, with real pip and npm, on a copy of the files git tracks (as
a fresh clone has them, local edits included).  To keep it to seconds, the new virtual
environment sees this one's installed packages through a ``.pth`` file (so pip finds
the dependencies there instead of installing them again); Arena itself is installed
into it from the copy by the script.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def copy_of_the_repository(target: Path) -> Path:
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, capture_output=True,
                            check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def setup_env(repo: Path, venv: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARENA_", "VIRTUAL_ENV"))}
    env["ARENA_VENV"] = str(venv)
    return subprocess.run(["bash", "-c", 'source scripts/setup-env && echo "VENV_PY=$VENV_PY"'], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("git") is None or not (ROOT / ".git").exists(), reason="needs a git checkout")
def test_setup_installs_once_then_skips_until_pyproject_changes(tmp_path: Path) -> None:
    repo = copy_of_the_repository(tmp_path / "repo")
    assert not (repo / ".venv").exists() and not (repo / "sample_bots/node/node_modules").exists()
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    purelib = Path(subprocess.run([venv / "bin/python", "-c", "import sysconfig; print(sysconfig.get_paths()"
                                   "['purelib'])"], capture_output=True, text=True, check=True).stdout.strip())
    (purelib / "arena-test-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    npm = shutil.which("npm") is not None

    first = setup_env(repo, venv)
    assert first.returncode == 0, first.stderr
    assert f"setup: installing Arena into {venv}" in first.stderr
    assert first.stdout.strip() == f"VENV_PY={venv}/bin/python"
    version = subprocess.run([venv / "bin/arena", "--version"], capture_output=True, text=True, timeout=120,
                             cwd=tmp_path)
    assert version.returncode == 0 and version.stdout.startswith("arena ")
    located = subprocess.run([venv / "bin/python", "-c", "import arena; print(arena.__file__)"], cwd=tmp_path,
                             capture_output=True, text=True, check=True)
    assert located.stdout.strip() == str(repo / "arena" / "__init__.py")  # the copy's, installed by the script
    if npm:
        assert "installing the Node sample bot's packages (npm ci)" in first.stderr
        assert (repo / "sample_bots/node/node_modules/@grpc").is_dir()

    again = setup_env(repo, venv)
    assert again.returncode == 0, again.stderr
    assert (f"setup: Arena is installed in {venv} and pyproject.toml is unchanged: not reinstalling"
            in again.stderr)
    assert "setup: installing" not in again.stderr
    if npm:
        assert "the Node sample bot's packages are installed and package-lock.json is unchanged" in again.stderr

    with open(repo / "pyproject.toml", "a") as pyproject:
        pyproject.write("\n# a change\n")
    changed = setup_env(repo, venv)
    assert changed.returncode == 0, changed.stderr
    assert f"setup: installing Arena into {venv}" in changed.stderr
    assert "npm ci" not in changed.stderr
