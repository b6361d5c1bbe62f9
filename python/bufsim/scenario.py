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
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bufsim import _core

ScenarioError = _core.ScenarioError

#: Every name ``flows[].tcp`` may give, from the core's registry of variants.
TCP_VARIANTS: tuple[str, ...] = tuple(_core.TCP_VARIANTS)
#: Every name ``link.qdisc`` may give, from the core's registry of disciplines.
QDISCS: tuple[str, ...] = tuple(_core.QDISCS)
#: The disciplines the fluid engine models.
FLUID_QDISCS: tuple[str, ...] = tuple(_core.FLUID_QDISCS)
#: Every name of the variants the fluid engine models; it refuses the
#: others naming ``flows[i].tcp``.
FLUID_VARIANTS: tuple[str, ...] = tuple(_core.FLUID_VARIANTS)

#: Deepest nesting of tables and lists a scenario may have (a real one has 4).
MAX_DEPTH = 32
#: Largest scenario file read, bytes (a 10^5-flow scenario with listed RTTs
#: is a few MB).
MAX_FILE_BYTES = 64 << 20


def scenario_error(path: str, message: str) -> ScenarioError:
    """A :class:`ScenarioError` for field ``path`` (set as ``.path``), as the core raises them."""
    e = ScenarioError(f"{path}: {message}")
    e.path = path
    return e


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
            raise ScenarioError(
                f"scenario must be a mapping (dict or TOML table), got {type(raw).__name__}"
            )
        _check_plain(raw, "", 0)
        self.raw: dict[str, Any] = copy.deepcopy(dict(raw))
        self._text = json.dumps(self.raw, allow_nan=False)
        self.normalized: dict[str, Any] = json.loads(_core.normalize_scenario(self._text))

    @classmethod
    def load(cls, source: Scenario | Mapping[str, Any] | str | Path) -> Scenario:
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
            raw = _read_file(path)
            if not isinstance(raw, dict):
                raise ScenarioError(
                    f"{path}: a scenario is a JSON object (a table), got {type(raw).__name__}"
                )
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

    def describe(self, buffer: bool = True) -> list[str]:
        """The scenario in words, one line per part: the run, the link, each
        flow group (its traffic, TCP, stack profile and RTTs) and each
        background source, with units (:mod:`bufsim.fmt`). What ``bufsim
        validate``, the advice report and the notebook view show.

        Parameters
        ----------
        buffer : bool
            State the link's buffer (``False`` where it is what ``advise``
            searches for).
        """
        from bufsim import fmt

        n = self.normalized
        link = n["link"]
        lines = [
            f"{self.name}: {fmt.metric('duration_s', n['duration_s'])} simulated "
            f"(warm-up {fmt.metric('warmup_s', n['warmup_s'])}), seed {n['seed']}",
            f"link: {fmt.metric('capacity_bps', link['capacity_bps'])}, one-way delay "
            f"{fmt.metric('delay_s', link['delay_s'])}, {link['qdisc']}, "
            + (
                f"buffer {link['buffer_pkts']} packets "
                f"({fmt.metric('buffer_bytes', link['buffer_bytes'])}), "
                if buffer
                else ""
            )
            + f"BDP {link['bdp_pkts']:.4g} packets of {fmt.metric('packet_bytes', link['packet_size_bytes'])}",
        ]
        for i, g in enumerate(n["flows"]):
            rtts = g["rtts_s"]
            span = [fmt.metric("rtt_s", min(rtts)), fmt.metric("rtt_s", max(rtts))] if rtts else []
            rtt = f", RTT {' to '.join(dict.fromkeys(span))}" if rtts else ""
            kind = g["kind"]
            if kind == "persistent":
                what = f"{g['count']} long-lived flows"
            elif kind == "finite":
                what = f"{g['count']} transfers"
            elif kind == "open":
                what = f"open-loop arrivals at load {g['offered_load']:.3g}"
            else:
                what = f"{g['users']} closed-loop users"
            size = (
                f" of {g['mean_size_pkts']:.4g} packets on average" if g["mean_size_pkts"] else ""
            )
            lines.append(
                f"flows[{i}]: {what}{size}, {g['tcp']}, stack {g['stack']}, "
                f"{fmt.metric('mss_bytes', g['mss_bytes'])} packets{rtt}"
            )
        for i, b in enumerate(n["background"]):
            lines.append(f"background[{i}]: {b['kind']} {fmt.metric('rate_bps', b['rate_bps'])}")
        return lines

    def _repr_html_(self) -> str:
        """Notebook view: :meth:`describe` as a list."""
        import html

        items = "".join(f"<li>{html.escape(line)}</li>" for line in self.describe())
        return f"<div><b>bufsim Scenario</b><ul>{items}</ul></div>"

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


def _read_file(path: Path) -> Any:
    """The raw mapping of a ``.json`` or TOML scenario file, every failure a ScenarioError."""
    if not path.exists():
        raise ScenarioError(f"scenario file {str(path)!r} does not exist")
    if not path.is_file():
        kind = "a directory" if path.is_dir() else "not a regular file"
        raise ScenarioError(f"scenario file {str(path)!r} is {kind}: give a .toml or .json file")
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise ScenarioError(
                f"scenario file {str(path)!r} is {size} bytes, more than the {MAX_FILE_BYTES} bytes a scenario may have"
            )
        data = path.read_bytes()
    except OSError as e:
        raise ScenarioError(
            f"scenario file {str(path)!r} cannot be read: {e.strerror or e}"
        ) from None
    try:
        # utf-8-sig: an editor's byte-order mark is not part of the scenario.
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise ScenarioError(
            f"{path}: not UTF-8 text (byte {e.start} is 0x{data[e.start]:02x}); save the file as UTF-8"
        ) from None
    try:
        raw = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as e:
        raise ScenarioError(f"{path}: cannot parse: {e}") from None
    except RecursionError:
        raise ScenarioError(f"{path}: nested more than {MAX_DEPTH} levels deep") from None
    return raw


def _check_plain(value: Any, path: str, depth: int) -> None:
    """Refuse what is not plain scenario data, naming the field.

    Plain data: tables (dicts with string keys), lists, strings, booleans,
    integers and finite floats, nested at most :data:`MAX_DEPTH` deep.
    """
    here = path or "scenario"
    if depth > MAX_DEPTH:
        raise scenario_error(
            here if len(here) <= 60 else here[:57] + "...",
            f"nested more than {MAX_DEPTH} levels deep",
        )
    if isinstance(value, Mapping):
        for k, v in value.items():
            if not isinstance(k, str):
                raise scenario_error(here, f"keys must be strings, got {k!r} ({type(k).__name__})")
            _check_plain(v, f"{path}.{k}" if path else k, depth + 1)
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _check_plain(v, f"{here}[{i}]", depth + 1)
    elif isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise scenario_error(here, f"{value} is not allowed: numbers must be finite")
    elif not isinstance(value, (str, int)) and value is not None:
        # bool is an int; numpy scalars are not plain data either.
        raise scenario_error(
            here,
            f"a {type(value).__name__} ({value!r:.60}) is not scenario data: "
            "use a string, a number, a boolean, a list or a table",
        )
