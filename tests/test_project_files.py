"""The project's own files: the licence text matches what the packages
declare; the changelog has a section for the version being built."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_license_file_is_the_licence_the_packages_declare():
    text = (ROOT / "LICENSE").read_text()
    python = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["license"]
    rust = tomllib.loads((ROOT / "Cargo.toml").read_text())["workspace"]["package"]["license"]
    assert python == {"text": "MIT"} and rust == "MIT"
    assert text.startswith("MIT License\n")
    # The MIT licence's operative sentences, word for word.
    assert "Permission is hereby granted, free of charge, to any person obtaining a copy" in text
    assert 'THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND' in text


def test_the_changelog_has_the_version_being_built():
    version = tomllib.loads((ROOT / "Cargo.toml").read_text())["workspace"]["package"]["version"]
    heads = [
        line for line in (ROOT / "CHANGELOG.md").read_text().splitlines() if line.startswith("## ")
    ]
    assert heads[0] == "## [Unreleased]"
    assert any(h.startswith(f"## [{version}]") for h in heads), heads


def test_every_shipped_example_describes_itself_in_a_whole_sentence():
    import bufsim

    for name in bufsim.examples.names():
        text = bufsim.examples.describe(name)
        # A sentence, not a first comment line cut mid-phrase ("... and").
        assert text.endswith(".") and len(text.split()) >= 8, (name, text)
        assert not text.rstrip(".").endswith((" and", " the", " with", ",")), (name, text)
