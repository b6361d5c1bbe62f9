"""Scenarios: load a TOML file, a JSON file or a dict, validated by the core.

The schema and its validation live once, in the Rust core
(``crates/bufsim-core/src/scenario.rs``); this module reads files, hands the
raw mapping to the core and keeps both the raw form (what the user wrote,
with unit strings) and the normalized form (every unit resolved to SI:
seconds, bits/s, bytes, packets).

Example
-------
>>> import bufsim
>>> s = bufsim.Scenario.load({
...     "duration": "20s",
...     "link": {"capacity": "50Mbps", "delay": "48ms", "buffer": "1BDP"},
...     "flows": [{"count": 1, "rtt": "100ms", "mss": "1000B"}],
... })
>>> s.normalized["link"]["buffer_pkts"]
625
"""

from __future__ import annotations

import copy
import hashlib
import json
import tomllib
from pathlib import Path
from typing import Any, Mapping

from bufsim import _core

ScenarioError = _core.ScenarioError


class Scenario:
    """A validated scenario.

    Attributes
    ----------
    raw : dict
        The scenario as written (unit strings), a deep copy.
    normalized : dict
        The validated scenario with units resolved (SI units; keys end in
        ``_s``, ``_bps``, ``_bytes``, ``_pkts``), per-flow RTTs and start
        times expanded.
    """

    def __init__(self, raw: Mapping[str, Any]):
        if not isinstance(raw, Mapping):
            raise ScenarioError(f"scenario must be a mapping (dict or TOML table), got {type(raw).__name__}")
        self.raw: dict[str, Any] = copy.deepcopy(dict(raw))
        self._text = _to_json(self.raw)
        self.normalized: dict[str, Any] = json.loads(_core.normalize_scenario(self._text))

    @classmethod
    def load(cls, source: "Scenario | Mapping[str, Any] | str | Path") -> "Scenario":
        """Build a scenario from a dict, a ``.toml``/``.json`` path, or another Scenario.

        Raises
        ------
        ScenarioError
            If the file cannot be read or parsed, or a field is invalid (the
            message names the field, the value and what is allowed).
        """
        if isinstance(source, Scenario):
            return source
        if isinstance(source, Mapping):
            return cls(source)
        if isinstance(source, (str, Path)):
            path = Path(source)
            if not path.is_file():
                raise ScenarioError(f"scenario file {str(path)!r} does not exist")
            text = path.read_text()
            try:
                if path.suffix == ".json":
                    raw = json.loads(text)
                else:
                    raw = tomllib.loads(text)
            except (tomllib.TOMLDecodeError, json.JSONDecodeError) as e:
                raise ScenarioError(f"{path}: cannot parse: {e}") from None
            _resolve_paths(raw, path.parent)
            return cls(raw)
        raise ScenarioError(
            f"scenario must be a dict, a path to a .toml/.json file or a Scenario, got {type(source).__name__}"
        )

    @property
    def json(self) -> str:
        """The raw scenario as JSON text (what the core receives)."""
        return self._text

    @property
    def name(self) -> str:
        """The scenario's name."""
        return str(self.normalized["name"])

    def hash(self) -> str:
        """SHA-256 of the normalized scenario (stable key for caches)."""
        canon = json.dumps(self.normalized, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canon.encode()).hexdigest()

    def __repr__(self) -> str:
        link = self.normalized["link"]
        return (
            f"Scenario({self.name!r}, capacity={link['capacity_bps']:.4g}bps, "
            f"buffer={link['buffer_pkts']}pkt, flows={sum(g['count'] for g in self.normalized['flows'])})"
        )


def _resolve_paths(raw: Any, base: Path) -> None:
    """Make ``size = {empirical = "file.csv"}`` paths relative to the scenario file.

    The core reads the CSV (``traffic::size::read_cdf_csv``) relative to the
    working directory; a scenario file's relative paths mean "next to the
    file", so they are made absolute here, in this one place. Mixture
    components are visited too.
    """
    flows = raw.get("flows") if isinstance(raw, dict) else None
    if not isinstance(flows, list):
        return

    def fix(size: Any) -> None:
        if isinstance(size, dict):
            emp = size.get("empirical")
            if isinstance(emp, str) and not Path(emp).is_absolute():
                size["empirical"] = str((base / emp).resolve())
            for comp in size.get("mixture", []) if isinstance(size.get("mixture"), list) else []:
                fix(comp)

    for group in flows:
        if isinstance(group, dict):
            fix(group.get("size"))


def _to_json(raw: Mapping[str, Any]) -> str:
    try:
        return json.dumps(raw, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise ScenarioError(f"scenario holds a value that is not plain data: {e}") from None
