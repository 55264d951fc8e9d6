"""Fake bots for the host's tests: one program (fake_bot.py), one manifest per misbehaviour.

The manifests run ``python``, which the host maps to its own interpreter.
"""

from __future__ import annotations

from pathlib import Path

from arena.host.manifest import BotSpec, load_manifest

FAKE_BOTS = Path(__file__).resolve().parent


def manifest_path(mode: str) -> Path:
    return FAKE_BOTS / f"{mode}.toml"


def fake_spec(mode: str) -> BotSpec:
    return BotSpec(manifest=load_manifest(manifest_path(mode)))
