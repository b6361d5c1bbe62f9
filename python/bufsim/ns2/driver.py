"""The ns-2 driver: check, write, run and parse (:mod:`bufsim.ns2` says what
it runs and how). The ns2 engine (:mod:`bufsim.engines.ns2`) calls
:func:`execute`; :func:`bufsim.ns2.run`, which returns a Result through
:func:`bufsim.simulate`, stands above both in :mod:`bufsim.ns2`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from bufsim import _process, fmt
from bufsim._core import EngineError
from bufsim.ns2 import otcl
from bufsim.scenario import Scenario, group_field, scenario_error

#: The Debian package and the binary.
PACKAGE = "ns2"
BINARY = "ns"
INSTALL_HINT = (
    f"the ns2 engine needs ns-2.35's `{BINARY}` binary: install it with "
    f"`apt-get install {PACKAGE}` (as root; `make ns2` does it)"
)
#: bufsim's TCP variants ns-2.35 runs (see otcl._agent_lines).
VARIANTS = ("newreno", "highspeed", "cubic", "htcp", "scalable")
QDISCS = ("droptail", "red", "fq")
#: The most background queues of ``fq`` the script writes (one Poisson
#: source of its own each, :func:`bufsim.ns2.otcl.fq_background_lines`).
MAX_FQ_BACKGROUND = 4096
#: Wall-clock seconds a run of `ns` may take before it is stopped.
TIMEOUT_S = 3600.0

#: Stack fields ns-2's agents fix their own way, run whatever the scenario
#: says (the script's header lists the scenario's values): what ns-2 does.
IGNORED = {
    "prr": "Sack1 recovers by its pipe rule (tcp-sack1.cc), NewReno by partial ACKs; no PRR",
    "prr_variant": "no PRR",
    "abc": "ns-2 grows cwnd per ACK (TcpAgent::opencwnd, tcp.cc)",
    "limited_transmit": "ns-2's singledup_ 1 sends one new segment per early duplicate ACK",
    "partial_ack_retransmit": "NewReno resends at each partial ACK (tcp-newreno.cc)",
    "dupack_growth": "ns-2's own recovery rules (tcp-newreno.cc, tcp-sack1.cc)",
    "rto_ssthresh": "half the window at a timeout (CLOSE_SSTHRESH_HALF, tcp.cc)",
    "rto_collapse": "ns-2's RFC 2988 timer (rfc2988_ true, tcp.cc)",
    "rto_timer": "ns-2's RFC 2988 timer (rfc2988_ true, tcp.cc)",
    "recovery_entry": "three duplicate ACKs (numdupacks_ 3, ns-default.tcl)",
    "sack_pipe": "Sack1's scoreboard (tcp-sack1.cc)",
    "recovery_exit": "ns-2's own recovery rules (tcp-newreno.cc, tcp-sack1.cc)",
    "rtt_sampling": "one timed segment per RTT at tcpTick_ granularity (tcp.cc)",
    "cut_from": "ns-2 cuts from cwnd (slowdown, tcp.cc)",
    "ecn_reduction": "ns-2 halves cwnd once per window on an ECE (tcp.cc ecn())",
    "ce_ack": "the sink echoes CE on every ACK until CWR (tcp-sink.cc)",
    "quick_acks": "the DelAck sink ACKs packet 0 at once (SYN_immediate_ack_, tcp-sink.cc "
    "DelAckSink::recv), the SYN with connection_setup, else the first data packet",
    "push_ack": "the DelAck sink holds the last segment for interval_",
    "control_ect": "it differs only for DCTCP, which the ns2 engine refuses",
}
#: Stack fields with the one value ns-2 can run: (value, why).
FIXED = {
    "rack": (False, "ns-2.35's TCP agents have no RACK-TLP"),
    "hystart": (False, "ns-2.35's agents (TCP-Linux's CUBIC 2.1 too) have no HyStart"),
    "loss": (0.0, "the ns2 engine has no random path loss"),
    "jitter_s": (0.0, "the ns2 engine has no send jitter"),
}

_local = threading.local()


def available() -> bool:
    """Whether the ns2 engine can run here (``ns`` on the PATH)."""
    return shutil.which(BINARY) is not None


def why_unavailable() -> str:
    """Why the ns2 engine cannot run here, one line ('' when it can)."""
    return "" if available() else INSTALL_HINT


def version() -> str:
    """The installed ns-2's Debian version (e.g. ``2.35+dfsg-5``), or
    ``unknown`` when ``ns`` did not come from the package.

    Raises
    ------
    EngineError
        ``ns`` is not installed (the message names ``make ns2``).
    """
    if not available():
        raise EngineError(INSTALL_HINT)
    p = subprocess.run(
        ["dpkg-query", "-W", "-f=${Version}", PACKAGE], capture_output=True, text=True
    )
    return p.stdout.strip() if p.returncode == 0 and p.stdout.strip() else "unknown"


@cache
def build() -> str:
    """This ns-2 engine's build, ``<ns-2 version>-<hash>``: the hash covers
    this module and the writer (how a scenario maps onto ns-2), what a
    result depends on besides the scenario and the installed ns-2 (the
    package's face, :func:`bufsim.ns2.run`, is not). For keying stored
    runs, as :func:`bufsim.ns3.build` is."""
    here = Path(__file__).parent
    text = (here / "driver.py").read_bytes() + (here / "otcl.py").read_bytes()
    return f"{version()}-{hashlib.sha256(text).hexdigest()[:16]}"


def _one_queue_per_link(norm: dict) -> None:
    """Refuse a port of several queues (``link.queues``): ns-2 writes one per link."""
    if "queues" in norm["link"]:
        raise scenario_error(
            "link.queues",
            f"{len(norm['link']['queues'])} queues of traffic classes: the ns2 engine writes one "
            "queue per link; use engine='packet'",
        )


def check(scenario: Scenario) -> None:
    """Refuse what the ns2 engine cannot express.

    Raises
    ------
    ScenarioError
        Naming the field, its value and what the ns2 engine allows.
    """
    norm = scenario.normalized
    if "pool" in norm:
        raise scenario_error(
            "pool",
            "ns-2's links share no buffer pool: the ns2 engine runs none; use engine='packet'",
        )
    _one_queue_per_link(norm)
    for k, b in enumerate(norm.get("background") or []):
        if b["kind"] != "poisson":
            raise scenario_error(
                f"background[{k}].kind",
                f"{b['kind']!r}: the ns2 engine writes Poisson sources only",
            )
        extra = sorted(set(b) - {"kind", "rate_bps", "packet_size_bytes", "links"})
        if extra:
            raise scenario_error(
                f"background[{k}].{extra[0].removesuffix('_bytes')}",
                "the ns2 engine's background crosses one link; remove it",
            )
    # A chain: a router after each link, each link's queue as the
    # bottleneck's is; two-way traffic: the bottleneck's return direction
    # is the reverse link, with its own queue.
    for k, link in enumerate(norm.get("links") or []):
        _check_link(f"links[{k}]", link)
    if "links" not in norm:
        _check_link("link", norm["link"])
    if "reverse" in norm:
        _check_link("reverse", norm["reverse"]["link"])
    _check_fq(norm)
    linux_params: dict[str, tuple[int, str]] = {}
    for where, g in zip(_group_paths(norm), norm["flows"]):
        _check_group(where, g, norm)
        if g["cc"]["variant"] in otcl.LINUX:
            for name, value in otcl.linux_params(g["cc"]["variant"], g["cc"]).items():
                key = f"{g['cc']['variant']}.{name}"
                if linux_params.setdefault(key, (value, where))[0] != value:
                    raise scenario_error(
                        f"{where}.tcp_params",
                        f"differs from {linux_params[key][1]}'s: TCP-Linux's parameters are global "
                        "per algorithm (set_ca_param); give the groups the same tcp_params",
                    )
    out = norm["output"]
    for key in ("trace", "halves", "cwnd"):
        if out[key]:
            raise scenario_error(
                f"output.{key}", "true: the ns2 engine does not produce it; use engine='packet'"
            )
    if "stop" in out:
        raise scenario_error("output.stop", "the ns2 engine runs to duration; remove it")


def _group_paths(norm: Mapping[str, Any]) -> list[str]:
    """Where each normalized group is written (``flows[i]``, or
    ``reverse.flows[j]`` for the reverse groups): the ns3 engine's rule."""
    from bufsim.ns3 import group_paths

    return group_paths(norm)


def _check_link(path: str, link: Mapping[str, Any]) -> None:
    q = link["qdisc"]
    if q not in QDISCS:
        raise scenario_error(
            f"{path}.qdisc",
            f"{q!r}: Debian's ns-2.35 has no such queue; the ns2 engine takes {', '.join(QDISCS)}",
        )
    if q == "droptail" and link["buffer_pkts"] < 1:
        raise scenario_error(f"{path}.buffer", "0 packets: the ns2 engine needs at least 1")
    if q != "red":
        return
    p = link["qdisc_params"]
    if link["buffer_mode"] != "packets":
        raise scenario_error(
            f"{path}.buffer",
            f"{link['buffer_bytes']} bytes: ns-2's RED limits its queue in multiples of "
            "mean_pktsize_ (red.cc); give the buffer in packets",
        )
    if p["variant"] != "ns3":
        raise scenario_error(
            f"{path}.qdisc_params.variant",
            f'"{p["variant"]}": ns-2\'s RED drops nothing while it holds one packet and spares the '
            "first arrival above min_th (red.cc, REDQueue::enque: qlen > 1, edv_.old), as "
            'variant = "ns3" does (ns-3 took RedQueueDisc from it); set variant = "ns3"',
        )
    if p["ecn"] and not p["hard_drop"]:
        raise scenario_error(
            f"{path}.qdisc_params.hard_drop",
            "false: the ns2 engine writes RED with use_mark_p_ false, so an ECN-capable packet "
            "above the forced threshold is dropped (red.cc); set hard_drop = true",
        )
    if p["max_p"] <= 0:
        raise scenario_error(
            f"{path}.qdisc_params.max_p", f"{p['max_p']}: ns-2 takes 1/max_p (linterm_), above 0"
        )


def _check_fq(norm: Mapping[str, Any]) -> None:
    """Refuse what ns-2's DRR (``Queue/DRR``, drr.cc) cannot run as bufsim's
    ``fq``, naming the field: it is written on a dumbbell's link, for
    long-lived and finite flows (a source node each, the queue DRR hashes
    on), with a buffer it can count in bytes (``blimit_``)."""
    links = norm.get("links") or []
    for k, link in enumerate(links):
        if link["qdisc"] == "fq":
            raise scenario_error(
                f"links[{k}].qdisc",
                "\"fq\" on a chain: the ns2 engine writes ns-2's DRR on a dumbbell's link only; "
                "use engine='packet'",
            )
    if "reverse" in norm and norm["reverse"]["link"]["qdisc"] == "fq":
        raise scenario_error(
            "reverse.qdisc",
            "\"fq\": the ns2 engine writes ns-2's DRR on the forward link only; use engine='packet'",
        )
    if links or norm["link"]["qdisc"] != "fq":
        return
    link = norm["link"]
    if "reverse" in norm:
        raise scenario_error(
            "reverse",
            "two-way traffic over fq: the reverse flows' ACKs would share DRR's queues by their "
            "sink's address, not by flow as the packet engine's; remove reverse or use "
            "engine='packet'",
        )
    for where, g in zip(_group_paths(norm), norm["flows"]):
        if g["kind"] in otcl.DYNAMIC:
            field = "arrival" if g["kind"] == "open" else "users"
            raise scenario_error(
                f"{where}.{field}",
                "transfers that come and go over fq: ns-2's DRR keys its queues on the source "
                "node, which the ns2 engine's pools of agents share; use engine='packet'",
            )
    if link["buffer_mode"] == "packets":
        # DRR limits its bytes (blimit_, drr.cc): the same buffer only when
        # every packet has the link's packet size.
        size = link["packet_size_bytes"]
        sizes = [g["mss_bytes"] for g in norm["flows"]]
        sizes += [b["packet_size_bytes"] for b in norm.get("background") or []]
        if any(x != size for x in sizes):
            raise scenario_error(
                "link.buffer",
                f"{link['buffer_pkts']} packets with packets of {sorted(set(sizes))} bytes: "
                f"ns-2's DRR limits its queue in bytes (blimit_, drr.cc), the same buffer only "
                f"when every packet has the link's {size} bytes; give the buffer in bytes",
            )
    bg = link["qdisc_params"]["background_flows"]
    if norm.get("background") and bg > MAX_FQ_BACKGROUND:
        raise scenario_error(
            "link.qdisc_params.background_flows",
            f"{bg}: the ns2 engine writes a Poisson source per background queue, at most "
            f"{fmt.number(MAX_FQ_BACKGROUND)}",
        )


def _check_group(path: str, g: Mapping[str, Any], norm: Mapping[str, Any]) -> None:
    variant = g["cc"]["variant"]
    if variant not in VARIANTS:
        raise scenario_error(
            f"{path}.tcp",
            f"{variant!r}: ns-2.35 has no such TCP here; the ns2 engine takes {', '.join(VARIANTS)}",
        )
    if g["kind"] in otcl.DYNAMIC:
        _check_dynamic(path, g, norm)
    _check_cc(f"{path}.tcp_params", variant, g["cc"])
    for key, (value, why) in FIXED.items():
        if g[key] != value:
            field, want = group_field(key, value)
            raise scenario_error(
                f"{path}.{field}",
                f"{json.dumps(group_field(key, g[key])[1])}: {why}; set {field} = "
                f'{json.dumps(want)} (or stack = "ns2", the profile of ns-2\'s agents)',
            )
    if variant in otcl.LINUX and g["connection_setup"]:
        raise scenario_error(
            f"{path}.connection_setup",
            "true: ns-2's TCP-Linux agent spends no round trip on its SYN (measured: a 67-packet "
            "transfer ends at the same time with syn_ on as off, one RTT before the packet "
            "engine's with connection setup); set connection_setup = false",
        )
    header = otcl.HEADERS + (otcl.TS_OPTION if variant in otcl.LINUX else 0)
    if g["mss_bytes"] <= header:
        raise scenario_error(
            f"{path}.mss",
            f"{g['mss_bytes']} bytes: the packet on the wire must exceed ns-2's {header} bytes of headers",
        )


#: The most transfers of a loop on TCP-Linux, which gets a new pair of
#: agents each (:func:`bufsim.ns2.otcl.dynamic_lines`).
MAX_LINUX_TRANSFERS = 20_000
#: The most turns the script writes for a closed loop's users together
#: (:func:`bufsim.ns2.otcl.closed_turns`: about 30 bytes each).
MAX_TURNS = 5_000_000


def _check_dynamic(path: str, g: Mapping[str, Any], norm: Mapping[str, Any]) -> None:
    """Refuse what the open and closed loops (a pool of agent pairs per
    group and RTT, :mod:`bufsim.ns2.otcl`) cannot run, naming the field."""
    variant = g["cc"]["variant"]
    turns = g["users"] * otcl.closed_turns(norm, g) if g["kind"] == "closed" else 0
    transfers = turns or g["arrival_rate_per_s"] * (norm["duration_s"] - g["begin_s"])
    if variant in otcl.LINUX and transfers > MAX_LINUX_TRANSFERS:
        raise scenario_error(
            f"{path}.tcp",
            f"{variant!r} with up to {fmt.number(transfers)} transfers: TCP-Linux's agent keeps "
            "no previous-incarnation check (tcp-linux.cc), so each transfer gets a new pair of "
            f"agents that stays in memory; at most {fmt.number(MAX_LINUX_TRANSFERS)} (a shorter "
            "duration), or newreno or highspeed, whose pairs are reused",
        )
    fast = otcl.fast_rate_bps(norm)
    if g["access_rate_bps"] is not None and g["access_rate_bps"] < fast:
        raise scenario_error(
            f"{path}.access_rate",
            f"{fmt.number(g['access_rate_bps'] / 1e6)} Mbps with arrivals: the ns2 engine's "
            "transfers of one RTT share their sender's link, so a per-flow access link slower "
            f"than the script's own links ({fmt.number(fast / 1e6)} Mbps) would be shared; "
            "remove access_rate or raise it to that",
        )
    if g["kind"] == "closed" and g["users"] * otcl.closed_turns(norm, g) > MAX_TURNS:
        raise scenario_error(
            f"{path}.users",
            f"{g['users']} users of {otcl.closed_turns(norm, g)} turns each: the ns2 engine "
            f"writes each user's turns into the script, at most {fmt.number(MAX_TURNS)} "
            "together; fewer users or a shorter duration",
        )


#: Per variant, the ``tcp_params`` ns-2 runs: key -> the values allowed
#: (None: any, mapped by the writer), and why.
_CC: dict[str, dict[str, tuple[Any, str]]] = {
    "newreno": {},
    "highspeed": {
        "low_window": (None, ""),
        "high_window": (None, ""),
        "high_p": (None, ""),
        "high_decrease": (None, ""),
        "mirror": ("none", "ns-2 computes a(w) and b(w) by RFC 3649's formulas (tcp.cc)"),
    },
    "cubic": {
        "c": (None, ""),
        "beta": (None, ""),
        "fast_convergence": (None, ""),
        "reno_friendly": (None, ""),
        "mirror": ("none", "TCP-Linux runs Linux's CUBIC 2.1 (tcp/linux/src/tcp_cubic.c)"),
    },
    "htcp": {
        "rtt_scaling": (None, ""),
        "delta_l_s": (1.0, "Linux's H-TCP fixes Delta_L at 1 s (HZ, tcp_htcp.c)"),
        "beta_min": (0.5, "Linux's H-TCP fixes BETA_MIN at 0.5 (tcp_htcp.c)"),
        "beta_max": (0.8, "Linux's H-TCP fixes BETA_MAX at 102/128 (tcp_htcp.c)"),
        "rtt_ref_s": (0.1, "Linux's H-TCP scales to 100 ms (HZ/10, tcp_htcp.c)"),
        "mirror": ("none", "ns-2 runs Linux's H-TCP, not ns-3's (tcp/linux/src/tcp_htcp.c)"),
    },
    "scalable": {
        "a": (0.02, "Linux's Scalable adds 1/50 per ACK (TCP_SCALABLE_AI_CNT 50, tcp_scalable.c)"),
        "b": (0.125, "Linux's Scalable cuts by 1/8 (TCP_SCALABLE_MD_SCALE 3, tcp_scalable.c)"),
        "low_window": (50.0, "Linux's Scalable is Reno below 50 packets (tcp_scalable.c)"),
        "legacy_decrease": (False, "Linux's Scalable cuts by 1/8 at every window (tcp_scalable.c)"),
        "mirror": ("none", "ns-2 runs Linux's Scalable, not ns-3's (tcp/linux/src/tcp_scalable.c)"),
    },
}


def _check_cc(path: str, variant: str, cc: Mapping[str, Any]) -> None:
    spec = _CC[variant]
    for key, value in cc.items():
        if key == "variant":
            continue
        if key not in spec:
            raise scenario_error(
                f"{path}.{key}", f"{json.dumps(value)}: ns-2's {variant} has no such parameter"
            )
        want, why = spec[key]
        if want is not None and value != want:
            raise scenario_error(
                f"{path}.{key}", f"{json.dumps(value)}: {why}; set it to {json.dumps(want)}"
            )
    if variant == "cubic":
        if not 0 < cc["beta"] < 1 or cc["c"] <= 0:
            raise scenario_error(f"{path}.beta", "ns-2 takes 0 < beta < 1 and c > 0")


def native(g: Mapping[str, Any]) -> dict[str, Any]:
    """What ns-2.35's agents run for the :data:`IGNORED` fields of the
    normalized group ``g``: the ``ns2`` stack profile's values for its TCP
    variant, with ``quick_acks`` as the DelAck sink's packet 0 falls (0
    when packet 0 is the SYN, ``connection_setup``; 1 when it is data)."""
    from bufsim.scenario import _profile

    profile = _profile("ns2", g["cc"]["variant"], bool(g["sack"]))
    assert profile is not None, g["cc"]["variant"]
    out = {key: profile[key] for key in IGNORED}
    out["quick_acks"] = 0 if g["connection_setup"] else 1
    return out


def notes(scenario: Scenario) -> list[str]:
    """The header comments of the script: the stack fields ns-2 ran its own
    way (:data:`IGNORED`) with the values the scenario gave them; for a
    group on ``stack = "ns2"``, only those set to another value than ns-2's
    own (:func:`native`)."""
    out = []
    norm = scenario.normalized
    for where, g in zip(_group_paths(norm), norm["flows"]):
        own = native(g) if g["stack"] == "ns2" else {}
        for key, what in IGNORED.items():
            if key in own and g[key] == own[key]:
                continue
            out.append(f"{where}.{key} = {json.dumps(g[key])} ignored: {what}")
    if "links" not in norm and norm["link"]["qdisc"] == "fq":
        out += FQ_NOTES
    return out


#: How ns-2's DRR, which the script writes for ``fq``, differs from the
#: packet engine's, with no field to ask for either (the header's notes).
FQ_NOTES = [
    'link.qdisc = "fq" run as ns-2\'s DRR (Queue/DRR, drr.cc): on overflow it drops the '
    "head packet of the longest queue (DRR::enque: remq->deque()), the packet engine the tail;",
    "of queues holding equal bytes DRR drops from the one being served, else the first after "
    "it in the round (getMaxflow), the packet engine from the arriving packet's.",
]


def write_script(scenario: Scenario | Mapping[str, Any] | str | Path) -> str:
    """The scenario as one ns-2.35 OTcl script (after :func:`check`).

    Raises
    ------
    ScenarioError
        What ns-2 cannot express, naming the field.
    """
    scn = Scenario.load(scenario)
    check(scn)
    return otcl.script(scn.normalized, notes(scn))


@contextlib.contextmanager
def in_workdir(path: str | Path | None) -> Iterator[None]:
    """Within it, :func:`execute` writes its script and output into ``path``."""
    old = getattr(_local, "workdir", None)
    _local.workdir = path
    try:
        yield
    finally:
        _local.workdir = old


def execute(scenario: Scenario, progress: Callable[[float], Any] | None = None) -> dict[str, Any]:
    """Write, run and parse: the packet engine's raw outputs (``summary``,
    ``timeseries``, ``flows``, ``congestion_events`` and ``trace``, empty) and
    ``provenance`` (the script's path, ns-2's version). Used by
    :func:`bufsim.simulate`; :func:`run` is the public entry.
    """
    check(scenario)
    if not available():
        raise EngineError(INSTALL_HINT)
    text = otcl.script(scenario.normalized, notes(scenario))
    where = getattr(_local, "workdir", None)
    wd = Path(where) if where is not None else Path(tempfile.mkdtemp(prefix="bufsim-ns2-"))
    wd.mkdir(parents=True, exist_ok=True)
    script = wd / "script.tcl"
    script.write_text(text)
    lines: list[str] = []
    with open(wd / "ns.out", "w") as log:

        def take(line: str) -> None:
            log.write(line)
            # TCP-Linux's printf (select_ca, set_ca_param) shares the
            # stream through C's own buffer, which can end mid-line before
            # one of the script's (written whole: `-buffering line`).
            line = line[line.find("BUFSIM ") :] if "BUFSIM " in line else line
            if line.startswith("BUFSIM "):
                lines.append(line)
                if progress is not None and line.startswith("BUFSIM ts "):
                    progress(float(line.split()[2]))

        done = _process.stream([BINARY, script.name], take, cwd=wd, timeout_s=TIMEOUT_S)
    if done.timed_out:
        raise EngineError(
            f"ns-2 ran past its limit of {fmt.number(TIMEOUT_S)} s of wall-clock "
            f"time on {script} and was stopped"
        )
    if done.returncode != 0 or not any(x.startswith("BUFSIM end ") for x in lines):
        raise EngineError(
            f"ns-2 failed (exit {done.returncode}) on {script}: {done.other.strip()[-2000:]}"
        )
    spent = [x.split()[2:4] for x in lines if x.startswith("BUFSIM spent ")]
    if spent:
        raise EngineError(
            f"ns-2 on {script}: user {spent[0][1]} of group {spent[0][0]} used all the turns "
            "the script drew for it (bufsim.ns2.otcl.closed_turns); please report it"
        )
    raw = parse(scenario.normalized, lines)
    raw["provenance"] = {"ns2_script": str(script), "ns2_version": version(), "ns2_build": build()}
    return raw


def _read(lines: list[str]) -> tuple[Any, ...]:
    """The ``BUFSIM`` lines by kind: the queue lines at the warm-up and the
    end, the time series, the agents' (per flow) and the flow monitors'
    (per queue and flow id) lines at both, the transfers' ends."""
    q: dict[str, list[float]] = {}
    ts: list[list[float]] = []
    done: dict[int, float] = {}
    per: dict[str, dict[int, list[float]]] = {"fwarm": {}, "fend": {}}
    mon: dict[str, dict[tuple[int, int], list[float]]] = {"mwarm": {}, "mend": {}}
    # Open and closed loops (otcl.DYNAMIC_PROCS): transfers done, in
    # progress at the warm-up and at the end, active counts, refusals,
    # users out of turns.
    dyn: dict[str, list[list[float]]] = {
        k: [] for k in ("tx", "txwarm", "txend", "n", "refused", "spent")
    }
    for line in lines:
        tag, *rest = line.split()[1:]
        if tag == "ts":
            ts.append([float(x) for x in rest])
        elif tag in ("warm", "end"):
            q[tag] = [float(x) for x in rest]
        elif tag in per:
            per[tag][int(rest[0])] = [float(x) for x in rest[1:]]
        elif tag in mon:
            mon[tag][(int(rest[0]), int(rest[1]))] = [float(x) for x in rest[2:]]
        elif tag == "done":
            done[int(rest[0])] = float(rest[1])
        elif tag in dyn:
            dyn[tag].append([float(x) for x in rest])
    return q, ts, per, mon, done, dyn


def _queue_stats(name: str, d: Any, cap: float, window: float) -> dict[str, float]:
    """One queue's ``<metric>_<name>`` over the window from its counters'
    rise ``d`` (arrivals, departures, drops, bytes sent, queue integral)."""
    return {
        f"utilization_{name}": d[3] * 8 / (cap * window),
        f"mean_queue_pkts_{name}": d[4] / window,
        f"mean_queue_delay_s_{name}": d[4] / d[1] if d[1] > 0 else float("nan"),
        f"arrivals_{name}": d[0],
        f"departures_{name}": d[1],
        f"drops_{name}": d[2],
        f"drop_rate_{name}": d[2] / d[0] if d[0] > 0 else 0.0,
    }


def parse(norm: Mapping[str, Any], lines: list[str]) -> dict[str, Any]:
    """The packet engine's raw outputs from the script's ``BUFSIM`` lines.

    Statistics are over [warmup, duration], as the packet engine's:

    - utilization: the bytes the bottleneck sent over what its capacity
      could send (on a chain, the links' together, weighted by capacity);
    - goodput: each flow's new data through the last link it crosses, as
      the packet engine counts a segment delivered when it leaves the
      bottleneck (docs/scenarios.md): its bytes sent there less one mss for
      each retransmission beyond its drops on the way (a resent packet
      that had not been lost is a duplicate). The rise of the highest
      cumulative ACK would count, within the window, packets that left
      before it and waited behind a hole at the receiver (measured: 1.2 %
      more than the link carried on paper 003's link); it is
      ``delivered_pkts``;
    - drop rate: drops over arrivals at the bottleneck (a chain's links
      together);
    - mean queue: the time average of the packets waiting (a chain's
      queues together); its queueing delay the ratio to the departure
      rate (Little's law), each queue a packet passes one sample.

    A chain adds each link's ``<metric>_link<k>`` and two-way traffic the
    reverse link's ``<metric>_reverse`` (utilization, mean queue and its
    delay, arrivals, departures, drops, drop rate; the time series'
    ``queue_pkts_<name>``), ``goodput_bps_reverse`` (the reverse groups')
    and ``ack_drops`` (ACKs either link dropped), as the packet engine's.
    """
    q, ts, per, mon, done, dyn = _read(lines)
    monitored = otcl.queues(norm)
    names = [m[0] for m in monitored]
    caps = np.array([m[3]["capacity_bps"] for m in monitored])
    fwd = [j for j, name in enumerate(names) if name != "reverse"]
    rev = names.index("reverse") if "reverse" in names else None
    window = norm["duration_s"] - norm["warmup_s"]
    # Queue columns, per queue: arrivals, departures, drops, bytes sent,
    # queue integral (packet-seconds), queue (packets).
    w = np.array(q["warm"][1:]).reshape(len(names), 6)
    e = np.array(q["end"][1:]).reshape(len(names), 6)
    dq = e - w
    groups, mss, rtts, starts, syn, sizes, data_q, ack_q = [], [], [], [], [], [], [], []
    for gi, (g, drawn) in enumerate(zip(norm["flows"], otcl.transfer_sizes(norm))):
        # The queues its data crosses, and the one its ACKs cross.
        if g.get("reverse"):
            crossed, acks = [rev], [0]
        else:
            crossed, acks = [fwd[k] for k in g.get("links") or [0]], [rev] if rev else []
        for rtt, start, size in zip(g["rtts_s"], g["starts_s"], drawn):
            groups.append(gi)
            mss.append(g["mss_bytes"])
            rtts.append(rtt)
            starts.append(start)
            syn.append(g["connection_setup"])
            sizes.append(float("nan") if size is None else float(size))
            data_q.append(crossed)
            ack_q.append(acks)
    n = len(groups)
    reverse_flow = [bool(norm["flows"][groups[i]].get("reverse")) for i in range(n)]
    # Agent columns: time, ack_, ndatapack_, nrexmitpack_, nrexmit_, cwnd_,
    # srtt_, tcpTick_. Flow monitor columns: arrivals, departures, drops,
    # bytes sent (a flow not seen yet has none).
    fw, fe = per["fwarm"], per["fend"]

    def at(tag: str, j: int, fid: int) -> list[float]:
        return mon[tag].get((j, fid), [0.0] * 4)

    def flow_delta(j: int, fid: int, k: int) -> float:
        return at("mend", j, fid)[k] - at("mwarm", j, fid)[k]

    def delivered(row: list[float], i: int) -> float:
        # ack_ is the highest cumulative ACK, in packets; with syn_ the
        # SYN is packet 0 and carries no data (TcpAgent::output, tcp.cc).
        return max(row[1], 0.0) if syn[i] else row[1] + 1.0

    good, drops, loss = [], [], []
    for i in range(n):
        resent = fe[i][3] - fw[i][3]
        dropped = sum(flow_delta(j, i, 2) for j in data_q[i])
        spurious = max(0.0, resent - dropped)
        sent = flow_delta(data_q[i][-1], i, 3)
        good.append(max(0.0, sent - spurious * mss[i]) * 8 / window)
        drops.append(dropped)
        arrived = flow_delta(data_q[i][0], i, 0)
        loss.append(dropped / arrived if arrived > 0 else float("nan"))
    good_a = np.array(good)
    forward_flow = ~np.array(reverse_flow, dtype=bool)
    # Jain's index over the forward persistent flows, as the packet engine's.
    lasting = good_a[np.isnan(np.array(sizes, dtype=float)) & forward_flow] if n else good_a
    # With none (an open loop alone) or none sending, 1: the packet
    # engine's convention (bufsim-core's stats::jain_index).
    jain = (
        float(lasting.sum() ** 2 / (len(lasting) * (lasting**2).sum()))
        if len(lasting) and (lasting**2).sum() > 0
        else 1.0
    )
    f = dq[fwd].sum(axis=0)
    cap = float(caps[fwd].sum())
    summary = {
        "utilization": f[3] * 8 / (cap * window),
        "throughput_bps": f[3] * 8 / window,
        "goodput_bps": float(good_a[forward_flow].sum()) if n else 0.0,
        "drop_rate": f[2] / f[0] if f[0] > 0 else 0.0,
        "mean_queue_pkts": f[4] / window,
        "mean_queue_delay_s": f[4] / f[1] if f[1] > 0 else float("nan"),
        "jain_index": jain,
        "timeouts": float(sum(fe[i][4] - fw[i][4] for i in range(n))),
        "capacity_bps": cap,
        "packets_sent": float(sum(fe[i][2] for i in range(n))),
        "packets_delivered": float(sum(delivered(fe[i], i) for i in range(n))),
        "packets_dropped": float(e[fwd, 2].sum()),
        "queue_arrivals": float(e[fwd, 0].sum()),
        "queue_departures": float(e[fwd, 1].sum()),
        "queue_final_pkts": float(e[fwd, 5].sum()),
    }
    if len(names) > 1:
        for j, name in enumerate(names):
            summary.update(_queue_stats(name, dq[j], caps[j], window))
    if rev is not None:
        summary["goodput_bps_reverse"] = float(good_a[~forward_flow].sum())
        summary["ack_drops"] = float(sum(flow_delta(j, i, 2) for i in range(n) for j in ack_q[i]))
    # Background sources are flow ids n, n + 1, ... at the link they cross.
    summary["background_drops"] = sum(
        flow_delta(fwd[(b.get("links") or [0])[0]], n + k, 2)
        for k, b in enumerate(norm.get("background") or [])
    )
    for gi in range(len(norm["flows"])):
        summary[f"goodput_bps_group{gi}"] = float(good_a[[g == gi for g in groups]].sum())
    arr = np.array(ts) if ts else np.zeros((0, 1 + 6 * len(names)))
    prev = np.vstack([np.zeros((1, arr.shape[1])), arr[:-1]]) if len(arr) else arr
    dt = arr[:, 0] - prev[:, 0]
    step = (arr - prev)[:, 1:].reshape(len(arr), len(names), 6)
    timeseries = {
        "time_s": arr[:, 0].tolist(),
        "utilization": (step[:, fwd, 3].sum(axis=1) * 8 / (cap * dt)).tolist(),
        "queue_pkts": (step[:, fwd, 4].sum(axis=1) / dt).tolist(),
        "drops": step[:, fwd, 2].sum(axis=1).tolist(),
        "arrivals": step[:, fwd, 0].sum(axis=1).tolist(),
    }
    if len(names) > 1:
        for j, name in enumerate(names):
            timeseries[f"queue_pkts_{name}"] = (step[:, j, 4] / dt).tolist()
    end = norm["duration_s"]
    finished = [float(i in done) for i in range(n)]
    ends = [done.get(i, float("nan")) for i in range(n)]
    table = {
        "flow": list(range(n)),
        "group": groups,
        "rtt_s": rtts,
        "goodput_bps": good,
        "throughput_bps": [
            flow_delta(data_q[i][-1], i, 3) * 8 / window
            if math.isnan(sizes[i])
            # A transfer's: its bytes delivered over its life (as the
            # packet engine's flows table).
            else delivered(fe[i], i) * mss[i] * 8 / (done.get(i, end) - starts[i])
            for i in range(n)
        ],
        "delivered_pkts": [delivered(fe[i], i) for i in range(n)],
        "sent_pkts": [fe[i][2] for i in range(n)],
        "retransmits": [fe[i][3] for i in range(n)],
        "timeouts": [fe[i][4] for i in range(n)],
        "drops": drops,
        "loss_rate": loss,
        "final_cwnd_pkts": [fe[i][5] for i in range(n)],
        # t_srtt_ holds the smoothed RTT in tcpTick_ units << T_SRTT_BITS (3).
        "srtt_s": [fe[i][6] * fe[i][7] / 8 for i in range(n)],
        "size_pkts": sizes,
        "start_s": starts,
        "end_s": ends,
        "fct_s": [ends[i] - starts[i] for i in range(n)],
        "finished": finished,
        "large": [
            1.0
            if math.isnan(sizes[i]) or sizes[i] * mss[i] > norm["output"]["large_flow_bytes"]
            else 0.0
            for i in range(n)
        ],
        "bytes": [delivered(fe[i], i) * mss[i] for i in range(n)],
        "left_slow_start": [fe[i][8] for i in range(n)],
    }
    # As the packet engine's table: every persistent flow, the transfers
    # that started at or after the warm-up.
    keep = [math.isnan(sizes[i]) or starts[i] >= norm["warmup_s"] for i in range(n)]
    table = {k: [x for x, ok in zip(v, keep) if ok] for k, v in table.items()}
    for k, v in _dynamic(norm, dyn, n, summary, window).items():
        table[k].extend(v)
    return {
        "summary": summary,
        "timeseries": timeseries,
        "flows": table,
        "congestion_events": {},
        "trace": {},
    }


def _dynamic(
    norm: Mapping[str, Any],
    dyn: Mapping[str, list[list[float]]],
    n: int,
    summary: dict[str, float],
    window: float,
) -> dict[str, list[float]]:
    """The open- and closed-loop transfers' rows of the flows table (those
    that arrived at or after the warm-up, as the packet engine's), with
    their share of ``summary`` added to it in place.

    Each transfer's line (``txline`` in :data:`bufsim.ns2.otcl.DYNAMIC_PROCS`):
    id, group, RTT class, size, user (-1: an open loop's), start, the time
    read, the agent's ``ack_``,
    data packets sent, packets resent, timeouts, cwnd, ``t_srtt_``,
    ``tcpTick_``, whether it left slow start, then per queue its data
    crosses the arrivals, drops and bytes sent of its pair's flow id at its
    start and at the reading (a pair serves one transfer at a time, so
    their rise is the transfer's).

    Summary: its goodput within the window (the bytes it sent through its
    last queue since the warm-up, or since its start, less a packet per
    retransmission beyond its drops, as :func:`parse` counts a flow's) in
    ``goodput_bps`` (a reverse group's: ``goodput_bps_reverse``) and
    ``goodput_bps_group<g>``; ``active_flows_mean`` and
    ``long_flows_mean`` (the forward flows in progress, and those that left
    slow start, sampled every ``output.interval``: the packet engine
    integrates them exactly); ``flows_arrived`` and ``flows_completed`` (the
    forward transfers that arrived in the window, and of them those that
    finished), ``flows_refused`` and ``overload`` (arrivals beyond
    ``max_active``, the whole run); timeouts, packets sent and delivered.
    With two-way traffic, ``ack_drops`` leaves out the loops' ACKs (their
    pairs' counters are read at their data's queues only).
    """
    if not otcl.has_dynamic(norm):
        return {}
    flows = norm["flows"]
    warm, end = norm["warmup_s"], norm["duration_s"]
    at_warm = {int(r[0]): r for r in dyn["txwarm"]}
    cols = (
        "flow group rtt_s goodput_bps throughput_bps delivered_pkts sent_pkts retransmits "
        "timeouts drops loss_rate final_cwnd_pkts srtt_s size_pkts start_s end_s fct_s "
        "finished large bytes left_slow_start"
    ).split()
    rows: dict[str, list[float]] = {c: [] for c in cols}
    arrived = completed = 0
    for finished, r in [(True, r) for r in dyn["tx"]] + [(False, r) for r in dyn["txend"]]:
        tid, gi, k, size, t0, now = int(r[0]), int(r[1]), int(r[2]), r[3], r[5], r[6]
        ack, sent, resent, timeouts, cwnd, srtt, tick, long = r[7:15]
        g = flows[gi]
        nq = len(otcl.data_queues(norm, g))
        base = np.array(r[15 : 15 + 3 * nq]).reshape(nq, 3)
        last = np.array(r[15 + 3 * nq : 15 + 6 * nq]).reshape(nq, 3)
        mss = g["mss_bytes"]
        dropped = float((last - base)[:, 1].sum())
        got = max(ack, 0.0) if g["connection_setup"] else ack + 1.0
        forward = not g.get("reverse")
        # Its goodput within the window (a transfer done before it: none).
        if now > warm:
            ref = base[-1, 2]
            if t0 < warm and tid in at_warm:
                w = at_warm[tid]
                ref = np.array(w[15 + 3 * nq : 15 + 6 * nq]).reshape(nq, 3)[-1, 2]
            spurious = max(0.0, resent - dropped)
            good = max(0.0, last[-1, 2] - ref - spurious * mss) * 8 / window
            summary[f"goodput_bps_group{gi}"] += good
            summary["goodput_bps" if forward else "goodput_bps_reverse"] += good
        summary["packets_sent"] += sent
        summary["packets_delivered"] += got
        if t0 < warm:
            continue
        summary["timeouts"] += timeouts
        if forward:
            arrived += 1
            completed += finished
        stop = now if finished else end
        rows["flow"].append(n + tid)
        rows["group"].append(gi)
        rows["rtt_s"].append(otcl.rtt_classes(g)[k])
        thr = got * mss * 8 / (stop - t0) if stop > t0 else math.nan
        rows["goodput_bps"].append(thr)
        rows["throughput_bps"].append(thr)
        rows["delivered_pkts"].append(got)
        rows["sent_pkts"].append(sent)
        rows["retransmits"].append(resent)
        rows["timeouts"].append(timeouts)
        rows["drops"].append(dropped)
        # As the packet engine's: drops over packets sent.
        rows["loss_rate"].append(dropped / sent if sent > 0 else 0.0)
        rows["final_cwnd_pkts"].append(cwnd)
        rows["srtt_s"].append(srtt * tick / 8)
        rows["size_pkts"].append(size)
        rows["start_s"].append(t0)
        rows["end_s"].append(now if finished else math.nan)
        rows["fct_s"].append(now - t0 if finished else math.nan)
        rows["finished"].append(float(finished))
        rows["large"].append(float(size * mss > norm["output"]["large_flow_bytes"]))
        rows["bytes"].append(got * mss)
        rows["left_slow_start"].append(long)
    counts = np.array([r for r in dyn["n"] if warm < r[0] <= end + 1e-9]).reshape(-1, 3)
    refused = sum(int(r[1]) for r in dyn["refused"])
    summary.update(
        {
            "active_flows_mean": float(counts[:, 1].mean()) if len(counts) else math.nan,
            "long_flows_mean": float(counts[:, 2].mean()) if len(counts) else math.nan,
            "flows_arrived": float(arrived),
            "flows_completed": float(completed),
            "flows_refused": float(refused),
            "overload": float(refused > 0),
        }
    )
    return rows
