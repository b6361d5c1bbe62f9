"""Scenarios: load a TOML file, a JSON file or a dict, validated by the core.

The schema and its validation live once, in the Rust core
(``crates/bufsim-core/src/scenario/``); this module reads files, hands the
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
import functools
import hashlib
import json
import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from bufsim import _core, fmt

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
#: What the core's registry says of each variant, by canonical name:
#: ``aliases``, ``fluid`` (``"law"`` with ``rate_form``, or ``"none"`` with
#: ``why``), ``ecn_per_packet``, ``needs_sack`` and ``defaults`` (its
#: ``tcp_params`` with their defaults, in the normalized scenario's units).
VARIANTS: dict[str, dict[str, Any]] = {v["name"]: v for v in json.loads(_core.variants())}
#: What the core's registry says of each discipline, by name: ``fluid``, ``fifo``
#: (one queue served in arrival order),
#: ``drop_reasons`` (``overflow`` first; the summary's ``drops_<reason>``),
#: ``defaults`` (its ``qdisc_params`` on a 1 Gbps link of 1500 B packets,
#: as the normalized scenario writes them; None when one has no default)
#: and ``required`` (that parameter, or None).
DISCIPLINES: dict[str, dict[str, Any]] = {d["name"]: d for d in json.loads(_core.disciplines())}
#: The controllers' rules each stack profile fills, from the core's table
#: (``Stack::cc_params``): profile -> variant -> ``tcp_params`` (a group's
#: own ``tcp_params`` override each). ``STACK_CC_PARAMS["ns3"]["cubic"]``
#: is ns-3.37's CUBIC: ``{"reno_friendly": False, "mirror": "ns-3.37"}``.
STACK_CC_PARAMS: dict[str, dict[str, dict[str, Any]]] = json.loads(_core.stack_cc_params())

#: Deepest nesting of tables and lists a scenario may have (a real one has 4).
MAX_DEPTH = 32
#: Largest scenario file read, bytes (a 10^5-flow scenario with listed RTTs
#: is a few MB).
MAX_FILE_BYTES = 64 << 20


def flow_mix(flows: Sequence[Mapping[str, Any]]) -> str:
    """The flow groups of a normalized scenario in words: each its count
    and TCP (with BBR's version), ``"4 x cubic + 1 x bbr v3"``; an
    open-loop group ``"open-loop dctcp"``, a reverse one ``"(reverse)"``.
    """
    parts = []
    for g in flows:
        tcp = g["tcp"]
        version = (g.get("cc") or {}).get("version")
        if version is not None:
            tcp = f"{tcp} v{version}"
        part = f"open-loop {tcp}" if g.get("kind") == "open" else f"{g['count']} x {tcp}"
        parts.append(part + (" (reverse)" if g.get("reverse") else ""))
    return " + ".join(parts)


def scenario_error(path: str, message: str) -> ScenarioError:
    """A :class:`ScenarioError` for field ``path`` (set as ``.path``), as the core raises them."""
    e = ScenarioError(f"{path}: {message}")
    e.path = path
    return e


def group_field(key: str, value: Any) -> tuple[str, Any]:
    """The field a user sets for a normalized flow group's ``key`` and the
    value that gives ``value`` there: ``rack`` is set as ``recovery``
    (``"rack"`` or ``"rfc6675"``), a ``_s`` key without its suffix (a
    duration)."""
    if key == "rack":
        return "recovery", "rack" if value else "rfc6675"
    return key.removesuffix("_s"), value


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
    resolved : bufsim._core.Scenario
        The core's resolved scenario, from the one validation: the engines
        run it and :mod:`bufsim.limits` prices it without resolving again.
    """

    def __init__(self, raw: Mapping[str, Any]):
        if not isinstance(raw, Mapping):
            raise ScenarioError(
                f"scenario must be a mapping (dict or TOML table), got {type(raw).__name__}"
            )
        _check_plain(raw, "", 0)
        _check_seed(raw.get("seed"))
        self.raw: dict[str, Any] = copy.deepcopy(dict(raw))
        self._text = json.dumps(self.raw, allow_nan=False)
        try:
            self.resolved = _core.Scenario(self._text)
        except ScenarioError as e:
            raise readable_error(e) from None
        self.normalized: dict[str, Any] = json.loads(self.resolved.normalized())

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled (and deep-copied) as its raw form, validated again on load."""
        return (Scenario, (self.raw,))

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
            raw = read_file(path)
            if not isinstance(raw, dict):
                raise ScenarioError(
                    f"{path}: a scenario is a JSON object (a table), got {type(raw).__name__}"
                )
            resolve_paths(raw, path.parent)
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
        """The scenario in words, in full (:func:`describe`)."""
        return describe(self.normalized, buffer)

    def _repr_html_(self) -> str:
        """Notebook view: :meth:`describe` as a list."""
        import html

        items = "".join(f"<li>{html.escape(line)}</li>" for line in self.describe())
        return f"<div><b>bufsim Scenario</b><ul>{items}</ul></div>"

    def __repr__(self) -> str:
        link = self.normalized["link"]
        return (
            f"Scenario({self.name!r}, capacity={fmt.metric('capacity_bps', link['capacity_bps'])}, "
            f"buffer={link['buffer_pkts']}pkt, flows={sum(g['count'] for g in self.normalized['flows'])})"
        )


def describe(normalized: Mapping[str, Any], buffer: bool = True) -> list[str]:
    """The scenario in words, in full: the run, the link and its queue
    discipline, each flow group (its traffic, sizes, starts, RTTs, TCP,
    stack profile with the fields set over it, and its path), each
    background source, the outputs and the fluid engine's settings, with
    units (:mod:`bufsim.fmt`). What ``bufsim validate``, the reports and
    the notebook view show.

    Parameters
    ----------
    normalized : dict
        A normalized scenario (:attr:`Scenario.normalized`, or the
        ``scenario`` of a :class:`~bufsim.Result`).
    buffer : bool
        State the link's buffer (``False`` where it is what ``advise``
        searches for).

    Returns
    -------
    list of str
        One line per part: the run, ``link: ...`` (a chain: one
        ``links[k]: ...`` per link; a pool: ``pool: ...`` too), three per flow group
        (``flows[i]: ...``, ``flows[i] TCP: ...``, ``flows[i] path:
        ...``), ``background[i]: ...``, ``output: ...``, ``fluid engine:
        ...``.
    """
    from bufsim import fmt

    n = normalized
    lines = [
        f"{n['name']}: {fmt.metric('duration_s', n['duration_s'])} simulated "
        f"(warm-up {fmt.metric('warmup_s', n['warmup_s'])}), seed {n['seed']}",
    ]
    links = n.get("links") or [n["link"]]
    for k, link in enumerate(links):
        name = f"links[{k}]" if "links" in n else "link"
        lines.append(f"{name}: {_link_text(link, buffer)}")
    if "queues" in n["link"]:
        lines.append(_queues_text(n["link"]))
    if "pool" in n:
        p = n["pool"]
        lines.append(
            f"pool: {p['ports']} ports, each a copy of the link, sharing {p['size_pkts']} packets "
            f"({fmt.metric('buffer_bytes', p['size_bytes'])}, counted in {p['mode']}); "
            + _pool_rule(p)
        )
    if "reverse" in n:
        r = n["reverse"]
        lines.append(
            f"reverse: {_link_text(r['link'], buffer)}; ACKs of "
            f"{fmt.metric('packet_bytes', r['ack_size_bytes'])} queue there"
        )
    for i, g in enumerate(n["flows"]):
        lines += _group_lines(i, g)
    for i, b in enumerate(n["background"]):
        lines.append(
            f"background[{i}]: {b['kind'].capitalize()} packets at {fmt.metric('rate_bps', b['rate_bps'])}, "
            f"{fmt.metric('packet_bytes', b['packet_size_bytes'])} each" + _place(b)
        )
    out = n["output"]
    lines.append(
        f"output: time series every {fmt.metric('interval_s', out['interval_s'])}, transfers over "
        f"{fmt.metric('large_bytes', out['large_flow_bytes'])} count as large, per-flow cwnd "
        f"{_on(out['cwnd'])}, packet trace {_on(out['trace'])}, halves {_on(out['halves'])}"
        + (_stop_text(out["stop"]) if "stop" in out else "")
    )
    fl = n["fluid"]
    sync = (
        f"loss synchronization at least {fmt.number(fl['sync'], 3)} ({fl['sync_policy']}, sd {fmt.number(fl['sync_sd'], 3)})"
        if fl["sync"] is not None
        else "no loss-synchronization module (overflow shared by rate)"
    )
    lines.append(
        f"fluid engine: {fl['model']} model, step {fmt.metric('step_s', fl['step_s'])}, "
        f"{sync}, window decrease: {fl['decrease']}"
    )
    return lines


def _pool_rule(pool: Mapping[str, Any]) -> str:
    """The admission rule of a normalized ``pool`` (its ``algorithm``), in words."""
    alpha = fmt.number(pool["alpha"])
    algorithm = pool.get("algorithm", "dt")
    if algorithm == "static":
        share = fmt.metric("buffer_bytes", pool["size_bytes"] // pool["ports"])
        return f"static partition: each port {pool['size_pkts'] // pool['ports']} packets ({share})"
    if algorithm == "complete":
        return "complete sharing: any queue grows while the pool has room"
    if algorithm == "lqd":
        return "longest-queue drop: a full pool pushes a packet out of the longest queue's tail"
    if algorithm == "abm":
        rule = (
            f"ABM: a queue grows while it holds less than {alpha} times the free pool over the "
            f"congested ports, counted every {fmt.si(pool['interval_s'], 's')}"
        )
        if "unscheduled" in pool:
            u = pool["unscheduled"]
            rule += (
                f"; a transfer's first {fmt.metric('buffer_bytes', u['bytes'])} sent take "
                f"{fmt.number(u['alpha'])} times it (the first-RTT priority)"
            )
        return rule
    if algorithm == "fab":
        f = pool["fab"]
        return (
            f"FAB: a queue grows while it holds less than {alpha} times the free pool; a flow's "
            f"first {fmt.metric('buffer_bytes', f['bytes'])} at a port, counted anew after "
            f"{fmt.si(f['window_s'], 's')} of silence, take {fmt.number(f['alpha'])} times it"
        )
    return f"a queue grows while it holds less than {alpha} times the free pool"


def _link_text(link: Mapping[str, Any], buffer: bool) -> str:
    """One normalized link in words (its buffer if ``buffer``)."""
    from bufsim import fmt

    pkt = fmt.metric("packet_bytes", link["packet_size_bytes"])
    if link["buffer_mode"] == "bytes":
        size = f"buffer {fmt.metric('buffer_bytes', link['buffer_bytes'])} counted in bytes ({fmt.number(link['buffer_pkts'])} packets of {pkt}), "
    else:
        size = f"buffer {fmt.number(link['buffer_pkts'])} packets ({fmt.metric('buffer_bytes', link['buffer_bytes'])}), "
    return (
        f"{fmt.metric('capacity_bps', link['capacity_bps'])}, one-way delay "
        f"{fmt.metric('delay_s', link['delay_s'])}, {link['qdisc']}{_params(link['qdisc_params'])}, "
        + (size if buffer else "")
        + f"BDP {_count(link['bdp_pkts'])} packets of {pkt} at RTT {fmt.metric('rtt_s', link['bdp_rtt_s'])}"
    )


def _queues_text(link: Mapping[str, Any]) -> str:
    """A normalized link's ``queues`` and ``scheduler`` in words."""
    from bufsim import fmt

    qs = link["queues"]
    if link["scheduler"] == "dwrr":
        rule = "DWRR (deficit round robin), weights " + ":".join(str(q["weight"]) for q in qs)
    else:
        rule = "strict priority, the lowest class first"
    each = "; ".join(
        f"class {q['class']}: {q['qdisc']}{_params(q['qdisc_params'])}, buffer "
        f"{fmt.number(q['buffer_pkts'])} packets ({fmt.metric('buffer_bytes', q['buffer_bytes'])})"
        + (f", alpha {fmt.number(q['alpha'])}" if "alpha" in q else "")
        for q in qs
    )
    return f"link.queues: {len(qs)} queues, {rule}; {each}"


def _place(g: Mapping[str, Any]) -> str:
    """Where a normalized flow group or background source crosses: its
    links of a chain or its port of a pool (nothing on the one link), and
    its traffic class when not 0."""
    cls = f", class {g['class']}" if g.get("class") else ""
    return _where(g) + cls


def _where(g: Mapping[str, Any]) -> str:
    """Where a normalized flow group or background source crosses."""
    if g.get("links"):
        return f", through links {g['links']}"
    if g.get("port"):
        return f", through port {g['port']}"
    if g.get("reverse"):
        return ", over the reverse link (its ACKs over the forward one)"
    return ""


def _stop_text(st: Mapping[str, Any]) -> str:
    """``output.stop`` in words."""
    verdicts = " and ".join(
        f"{d['metric']} {d['op']} {fmt.number(d['bound'])}" for d in st["decide"]
    )
    return (
        f"; stops once {verdicts} is known at {fmt.number(st['confidence'])} "
        f"(a t test on the means of the window's {st['batches']} batches, from batch "
        f"{st['min_batches']} on)"
    )


def _on(flag: Any) -> str:
    return "on" if flag else "off"


#: What ``abc`` (slow start's count of an ACK) reads as, by normalized value.
_ABC = {False: "slow start per ACK", True: "ABC capped at ssthresh", "uncapped": "ABC uncapped"}

#: The fields a stack profile fills where a flow group leaves them unset
#: (``crates/bufsim-core/src/tcp/stack.rs``): the field as written, its
#: normalized key and how its value reads.
STACK_FIELDS: tuple[tuple[str, str, Callable[[Any], str]], ...] = (
    (
        "initial_window",
        "initial_window_pkts",
        lambda v: f"initial window {v} packet{'s' if v != 1 else ''}",
    ),
    ("min_rto", "min_rto_s", lambda v: f"min RTO {_fmt('min_rto_s', v)}"),
    # Unset in every profile and then absent from the normalized group (RFC
    # 6298 (2.1)'s 1 s for data, the profile's SYN timeout): not described.
    (
        "initial_rto",
        "initial_rto_s",
        lambda v: "" if v is None else f"initial RTO {_fmt('initial_rto_s', v)} (data and SYN)",
    ),
    ("connection_setup", "connection_setup", lambda v: f"handshake {_on(v)}"),
    ("sack", "sack", lambda v: f"SACK {_on(v)}"),
    ("recovery", "rack", lambda v: "RACK-TLP" if v else "RFC 6675 loss detection"),
    ("prr", "prr", lambda v: f"PRR {_on(v)}"),
    ("prr_variant", "prr_variant", lambda v: f"PRR bounds {v}"),
    ("hystart", "hystart", lambda v: f"HyStart++ {_on(v)}"),
    ("abc", "abc", lambda v: _ABC.get(v, f"abc {v}")),
    ("limited_transmit", "limited_transmit", lambda v: f"limited transmit {_on(v)}"),
    (
        "partial_ack_retransmit",
        "partial_ack_retransmit",
        lambda v: f"partial-ACK retransmit {_on(v)}",
    ),
    ("dupack_growth", "dupack_growth", lambda v: f"growth on a SACKing cumulative ACK {_on(v)}"),
    ("rto_ssthresh", "rto_ssthresh", lambda v: f"ssthresh after a timeout in recovery: {v}"),
    ("rto_collapse", "rto_collapse", lambda v: f"backed-off RTO collapses on: {v}"),
    ("rto_timer", "rto_timer", lambda v: f"retransmission timer: {v}"),
    ("recovery_entry", "recovery_entry", lambda v: f"recovery entry before DupThresh: {v}"),
    ("sack_pipe", "sack_pipe", lambda v: f"SACKed retransmissions in the pipe: {v}"),
    ("recovery_exit", "recovery_exit", lambda v: f"recovery exit {v}"),
    ("rtt_sampling", "rtt_sampling", lambda v: f"RTT sampling {v}"),
    ("cut_from", "cut_from", lambda v: f"window cut from {v.replace('_', ' ')}"),
    ("ecn_reduction", "ecn_reduction", lambda v: f"ECE reduction {v}"),
    ("ce_ack", "ce_ack", lambda v: f"CE-change ACK {v}"),
    ("control_ect", "control_ect", lambda v: f"ECT on SYNs and pure ACKs: {v}"),
    ("delayed_ack", "delayed_ack", lambda v: f"delayed ACKs {_on(v)}"),
    ("delack_timeout", "delack_timeout_s", lambda v: f"delayed-ACK timer {_fmt('delack_s', v)}"),
    ("quick_acks", "quick_acks", lambda v: f"{v} quick ACK{'s' if v != 1 else ''}"),
    ("push_ack", "push_ack", lambda v: f"push ACK {_on(v)}"),
)


def _fmt(key: str, value: Any) -> str:
    from bufsim import fmt

    return fmt.metric(key, value)


@functools.lru_cache(maxsize=64)
def _profile(stack: str, tcp: str, sack: bool) -> dict[str, Any] | None:
    """The settings stack profile ``stack`` gives a ``tcp`` flow group that
    sets only ``sack`` (None if the core refuses that group). A group's
    settings that differ from these were set over the profile; SACK itself
    is on unless set off, in every profile."""
    probe = {
        "duration": "1s",
        "link": {"capacity": "1Mbps", "delay": "1ms", "buffer": "1pkt"},
        "flows": [{"count": 1, "rtt": "10ms", "tcp": tcp, "stack": stack, "sack": sack}],
    }
    try:
        group = json.loads(_core.Scenario(json.dumps(probe)).normalized())["flows"][0]
    except ScenarioError:
        return None
    group["sack"] = True
    return group


def _params(params: Mapping[str, Any]) -> str:
    """``" (c 0.4, beta 0.7)"``: parameters with units (durations under
    ``_s`` keys), booleans as on/off; empty without any."""
    if not params:
        return ""
    items = []
    for k, v in sorted(params.items()):
        label = k[:-2] if k.endswith("_s") else k
        if isinstance(v, bool):
            items.append(f"{label} {_on(v)}")
        elif isinstance(v, (int, float)):
            items.append(f"{label} {_fmt(k, v)}")
        else:
            items.append(f"{label} {v}")
    return f" ({', '.join(items)})"


def _size(dist: Mapping[str, Any]) -> str:
    """A transfer-size law in words, sizes in packets."""
    ((law, p),) = dist.items()
    if law == "fixed":
        return f"{fmt.number(p['pkts'])} packets"
    if law == "exponential":
        return f"exponential sizes (mean {fmt.number(p['mean_pkts'])} packets)"
    if law == "pareto":
        return f"Pareto sizes (shape {fmt.number(p['shape'], 3)}, at least {fmt.number(p['min_pkts'])} packets)"
    if law == "lognormal":
        return f"lognormal sizes (median {fmt.number(p['median_pkts'])} packets, sigma {fmt.number(p['sigma'], 3)})"
    if law == "uniform":
        return f"sizes uniform on {p['lo_pkts']} to {p['hi_pkts']} packets"
    if law == "mixture":
        return "a mixture of " + ", ".join(
            f"{fmt.number(100 * c['weight'], 3)}% {_size(c['dist'])}" for c in p
        )
    if law == "empirical":
        return f"sizes from the CDF in {Path(p['path']).name} ({len(p['points'])} points)"
    return f"{law} sizes {p}"


def _count(x: float) -> str:
    """A count of packets: whole from 100 up (``129,167``), four digits below."""
    return fmt.number(round(x)) if x >= 100 else fmt.number(x)


def _rtt(g: Mapping[str, Any]) -> str:
    draw = g["rtt_draw"]
    if draw is None:
        rtts = g["rtts_s"]
        if not rtts:
            return "no RTT"
        return "RTT " + " to ".join(
            dict.fromkeys([_fmt("rtt_s", min(rtts)), _fmt("rtt_s", max(rtts))])
        )
    ((law, v),) = draw.items()
    if law == "fixed":
        return f"RTT {_fmt('rtt_s', v)}"
    if law == "uniform":
        return f"RTT uniform on {_fmt('rtt_s', v[0])} to {_fmt('rtt_s', v[1])}"
    return f"RTT one of {', '.join(_fmt('rtt_s', x) for x in v)}"


def _group_lines(i: int, g: Mapping[str, Any]) -> list[str]:
    """The three lines of normalized flow group ``i``, ``g``."""
    kind = g["kind"]
    size = ""
    if g["size"]:
        size = (
            f"transfers of {fmt.number(g['mean_size_pkts'])} packets"
            if "fixed" in g["size"]
            else f"{_size(g['size'])}, mean {fmt.number(g['mean_size_pkts'])} packets"
        )
    starts = ""
    if g["starts_s"]:
        first, last = min(g["starts_s"]), max(g["starts_s"])
        starts = (
            f"starting at {_fmt('start_s', first)}"
            if first == last
            else f"starting between {_fmt('start_s', first)} and {_fmt('start_s', last)}"
        )
    if kind == "persistent":
        what = f"{g['count']} long-lived flows {starts}"
    elif kind == "finite":
        what = f"{g['count']} transfers {starts}, {size}"
    elif kind == "open":
        burst, every = g.get("arrival_burst", 1), g.get("arrival_every_s")
        epochs = f"every {_fmt('begin_s', every)}" if every is not None else "at Poisson epochs"
        arrivals = (
            f"incasts of {burst} transfers {epochs}"
            if burst > 1
            else "open-loop arrivals" + (f" {epochs}" if every is not None else "")
        )
        what = (
            f"{arrivals}, {fmt.number(g['arrival_rate_per_s'])} transfers per second (load "
            f"{fmt.number(g['offered_load'], 3)}, at most {g['max_active']} active) from "
            f"{_fmt('begin_s', g['begin_s'])}, {size}"
        )
    else:
        ((law, t),) = g["think"].items()
        think = f"{'exponential ' if law == 'exponential' else ''}think time {_fmt('think_s', t)}"
        what = (
            f"{g['users']} closed-loop users from {_fmt('begin_s', g['begin_s'])}, {think}, {size}"
        )
    profile = _profile(g["stack"], g["tcp"], g["sack"])
    set_here = [
        text(g.get(key))
        for _, key, text in STACK_FIELDS
        if profile is not None and g.get(key) != profile.get(key)
    ]
    over = f" (set over it: {', '.join(set_here)})" if set_here else ""
    access = (
        f"access link {_fmt('access_bps', g['access_rate_bps'])} with a "
        f"{g['access_buffer_pkts']}-packet buffer"
        if g["access_rate_bps"] is not None
        else "no access link"
    )
    rwnd = f"{g['rwnd_pkts']} packets" if g["rwnd_pkts"] is not None else "unlimited"
    return [
        f"flows[{i}]: {what}, {g['tcp']}, stack {g['stack']}{over}, "
        f"{_fmt('mss_bytes', g['mss_bytes'])} packets, {_rtt(g)}{_place(g)}",
        f"flows[{i}] TCP: {g['tcp']}{_params({k: v for k, v in g['cc'].items() if k != 'variant'})}, "
        + ", ".join(t for _, key, text in STACK_FIELDS if (t := text(g.get(key)))),
        f"flows[{i}] path: {access}, receive window {rwnd}, ECN {_on(g['ecn'])}, "
        f"send jitter up to {_fmt('jitter_s', g['jitter_s'])}, random loss {fmt.number(g['loss'], 3)}",
    ]


def resolve_paths(raw: Any, base: Path) -> None:
    """Make ``size = {empirical = "file.csv"}`` paths relative to the scenario file.

    The core reads the CSV (``traffic::size::read_cdf_csv``) relative to the
    working directory; a scenario file's relative paths mean "next to the
    file", so they are made absolute here, in this one place. Mixture
    components are visited too.

    Parameters
    ----------
    raw : Any
        A scenario as read from its file (:func:`read_file`), changed in
        place: each flow group's relative ``size.empirical`` path becomes an
        absolute one. Anything that is not a table with a ``flows`` list is
        left alone (validation reports it later).
    base : pathlib.Path
        The folder the paths are relative to: the scenario file's.
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


#: Suffixes of YAML files, which bufsim does not read (it reads TOML and JSON).
YAML_SUFFIXES = (".yaml", ".yml")


def read_file(path: Path) -> Any:
    """The raw mapping of a ``.json`` or TOML scenario file, every failure a ScenarioError.

    Parameters
    ----------
    path : pathlib.Path
        A ``.json`` file (read as JSON) or any other (read as TOML), UTF-8
        with or without a byte-order mark, at most :data:`MAX_FILE_BYTES`
        bytes.

    Returns
    -------
    Any
        The parsed document as written: not validated, its relative paths
        not resolved (:func:`resolve_paths`). A TOML file gives a dict; a
        JSON file may give any JSON value.

    Raises
    ------
    ScenarioError
        Naming the file: it does not exist, is YAML, is not a regular file, is too
        large, cannot be read, is not UTF-8, cannot be parsed, or is nested
        too deep for the parser.
    """
    if not path.exists():
        raise ScenarioError(f"scenario file {str(path)!r} does not exist")
    if path.suffix.lower() in YAML_SUFFIXES:
        raise ScenarioError(
            f"scenario file {str(path)!r}: YAML is not read; write the same fields as a .toml "
            "(or .json) file"
        )
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


def _check_seed(value: Any) -> None:
    """Refuse a seed written as a float (``seed = 1e20``), naming the field
    and its range, before the core reads it. A quantity's number is the
    core's to check (past 10^15 packets or bytes, a duration past 213 days,
    a field's own limit), with the field's path."""
    from bufsim import fmt

    if isinstance(value, float):
        raise scenario_error(
            "seed",
            f"must be a whole number from 0 to 18,446,744,073,709,551,615, written without "
            f"a decimal point or exponent, got {fmt.number(value)}",
        )


#: A run of 16 or more digits in a message: a number no reader counts.
_LONG_NUMBER = re.compile(r"(?<![\w.])-?\d{16,}(?:\.\d+)?(?![\w.])")
#: A time as the core prints it, microseconds in seconds (``2.000000s``).
_SECONDS = re.compile(r"(?<![\w.])(\d+\.\d{6})s(?!\w)")
#: serde's message for a float where a whole number belongs.
_FLOAT_FOR_INT = re.compile(r"invalid type: floating point `([^`]*)`, expected [ui]\d+")


def readable_error(e: ScenarioError) -> ScenarioError:
    """The core's ``e`` with its numbers readable (:func:`bufsim.fmt.number`:
    ``1 x 10^300``, not 301 digits) and serde's "floating point, expected
    u64" said in words; ``.path`` kept."""
    from bufsim import fmt

    text = str(e)
    new = _LONG_NUMBER.sub(lambda m: fmt.number(float(m.group(0))), text)
    new = _SECONDS.sub(lambda m: fmt.si(float(m.group(1)), "s"), new)
    new = _FLOAT_FOR_INT.sub(
        lambda m: (
            f"must be a whole number written without a decimal point or exponent, "
            f"got {_readable_literal(m.group(1))}"
        ),
        new,
    )
    if new == text:
        return e
    out = ScenarioError(new)
    if hasattr(e, "path"):
        out.path = e.path
    return out


def _readable_literal(text: str) -> str:
    """A number as serde printed it (``1e+20``, ``1.5``), readable."""
    from bufsim import fmt

    try:
        return fmt.number(float(text))
    except ValueError:
        return text
