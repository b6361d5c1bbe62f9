"""ns-3 as an engine (``engine="ns3"``): the scenario's dumbbell built and run
in the installed ns-3, for checking the packet engine against a simulator
researchers trust.

:func:`run` hands the normalized scenario (SI units) to one C++ driver,
``driver.cc`` beside this module, compiled on first use against the
installed ns-3 (found by ``pkg-config``) into a cache directory keyed by the
ns-3 version and the driver source's hash. The driver's header comment
states how the scenario maps onto ns-3 (topology, buffer accounting, what
is measured). Its outputs have the packet engine's shape, so
:func:`bufsim.simulate` returns the same :class:`~bufsim.Result`.

What ns-3 cannot express is refused by :func:`check` with the field's name,
never approximated: fair queueing that drops from the longest queue,
incasts and periodic arrivals,
AIMD, variant parameters ns-3.37 fixes otherwise (:data:`CC`: CUBIC's
Reno-friendly region, say), bufsim-only
stack options (RACK, HyStart++, appropriate byte counting, Linux's timeout
and ACK rules, send jitter, random path loss), packet traces.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

from bufsim import _process, fmt
from bufsim._core import EngineError
from bufsim.scenario import STACK_CC_PARAMS, Scenario, group_field, scenario_error

#: The driver's source, compiled on first use.
SOURCE = Path(__file__).with_name("driver.cc")
#: pkg-config modules the driver links.
MODULES = (
    "ns3-core",
    "ns3-network",
    "ns3-internet",
    "ns3-point-to-point",
    "ns3-traffic-control",
    "ns3-applications",
)
#: The Debian packages that provide them (and the JSON reader the driver uses).
PACKAGES = "libns3-dev libgsl-dev libsqlite3-dev nlohmann-json3-dev g++ pkg-config"
INSTALL_HINT = (
    f"the ns3 engine needs ns-3's development files: install them with "
    f"`apt-get install {PACKAGES}` (as root; `make ns3` does it)"
)
#: bufsim's TCP variants that ns-3 has (its class for each, see driver.cc).
VARIANTS = ("newreno", "cubic", "highspeed", "htcp", "scalable", "bbr", "dctcp")
#: Disciplines ns-3 has (``threshold`` is RED as ns-3's DCTCP example sets it).
QDISCS = ("droptail", "red", "threshold", "codel", "fq_codel", "pie")
#: Stack fields with the one value ns-3 implements, and what ns-3 does.
FIXED = {
    "rack": (
        False,
        "ns-3 detects losses by DupThresh (TcpSocketBase ReTxThreshold 3), it has no RACK-TLP",
    ),
    "hystart": (False, "ns-3 has no HyStart++ (its CUBIC's classic HyStart is set off to match)"),
    "limited_transmit": (
        True,
        "ns-3 sends new data on the first duplicate ACKs (LimitedTransmit, RFC 3042)",
    ),
    "partial_ack_retransmit": (
        True,
        "ns-3 resends the head on each partial ACK of a recovery unless resent already, and "
        "restarts the retransmission timer at the first only (TcpSocketBase::ProcessAck)",
    ),
    "dupack_growth": (
        False,
        "ns-3 grows cwnd only in CA_OPEN: an ACK that advances snd.una and SACKs new data moves "
        "to CA_DISORDER first (TcpSocketBase::DupAck, ProcessAck)",
    ),
    "prr_variant": (
        "ns3",
        "ns-3's PRR takes RecoverFS = snd.nxt - snd.una and bounds an ACK that acknowledges no "
        "retransmitted data by its own delivery (TcpPrrRecovery, ReductionBound SSRB)",
    ),
    "rto_ssthresh": (
        "pipe",
        "ns-3 recomputes ssthresh from the pipe at every timeout, in recovery and in CA_LOSS "
        "(TcpSocketBase::ReTxTimeout)",
    ),
    "rto_collapse": (
        "ack",
        "ns-3 recomputes the RTO from SRTT and RTTVAR on every ACK of new data that restarts the "
        "timer, ending a backoff without a new sample (TcpSocketBase::NewAck)",
    ),
    "rto_timer": (
        "ns3",
        "ns-3 keeps the retransmission timer running while the send buffer holds data, nothing "
        "outstanding or not (TcpSocketBase::NewAck), and a timeout's first segment leaves "
        "unpaced (ReTxTimeout cancels the pacing timer)",
    ),
    "recovery_entry": (
        "ns3",
        "ns-3.37 starts a recovery before three duplicate ACKs when the second unacknowledged "
        "segment, not the first, is lost (TcpSocketBase::DupAck: "
        "IsLost(m_highRxAckMark + m_segmentSize))",
    ),
    "sack_pipe": (
        "ns3",
        "ns-3.37 keeps a SACKed retransmission in BytesInFlight until the cumulative ACK passes "
        "it (TcpTxBuffer::Update leaves m_retrans; ns-3 issue #1190)",
    ),
    "recovery_exit": (
        "ns3",
        "ns-3 grows the window from ssthresh on the ACK that ends a recovery, for every segment "
        "it covers (TcpSocketBase::ProcessAck)",
    ),
    "rtt_sampling": (
        "ns3",
        "ns-3 samples the RTT on every ACK, from the oldest segment it covers if sent once, and "
        "times the handshake from the first SYN (TcpSocketBase::EstimateRtt, UpdateRttHistory)",
    ),
    "cut_from": (
        "pipe",
        "ns-3 cuts from BytesInFlight(), the pipe, at a fast retransmit and an ECE "
        "(TcpSocketBase::EnterRecovery, EnterCwr)",
    ),
    "ecn_reduction": (
        "prr",
        "ns-3 answers an ECE by CWR with PRR (TcpSocketBase::EnterCwr, TcpPrrRecovery)",
    ),
    "ce_ack": (
        "delayed",
        "ns-3's DCTCP receiver acknowledges a change of its CE state by the delayed-ACK rules "
        "(TcpDctcp::CeState0to1, CeState1to0)",
    ),
    "control_ect": (
        "cc",
        "ns-3.37 marks every packet of a DCTCP socket ECT, its SYN, SYN-ACK and pure ACKs too "
        "(TcpSocketBase::AddSocketTags in DctcpEcn mode)",
    ),
    "connection_setup": (True, "ns-3's TCP always opens with a SYN/SYN-ACK handshake"),
    "push_ack": (False, "ns-3's receiver holds a transfer's last segment for DelAckTimeout"),
    "loss": (0.0, "the ns3 engine has no random path loss"),
    "jitter_s": (0.0, "the ns3 engine has no send jitter"),
}


#: How ns-3.37's variants count an ACK in slow start (``abc``; the packet
#: engine's ``ns3`` profile sets the same, ``Stack::slow_start`` in the core).
SLOW_START = {
    "cubic": (
        "uncapped",
        "ns-3.37's CUBIC adds every acknowledged segment in slow start, with no cap at ssthresh "
        "(TcpCubic::IncreaseWindow)",
    ),
    "dctcp": (
        True,
        "ns-3.37's DCTCP adds every acknowledged segment up to ssthresh (TcpLinuxReno::SlowStart)",
    ),
}
_PER_ACK = (False, "ns-3's slow start grows one segment per ACK (TcpNewReno::SlowStart)")


def version() -> str:
    """The installed ns-3's version (``pkg-config --modversion ns3-core``).

    Raises
    ------
    EngineError
        ns-3's development files are not installed (the message says how to
        install them).
    """
    if shutil.which("pkg-config") is None:
        raise EngineError(INSTALL_HINT)
    p = subprocess.run(["pkg-config", "--modversion", "ns3-core"], capture_output=True, text=True)
    if p.returncode != 0 or not p.stdout.strip():
        raise EngineError(INSTALL_HINT)
    return p.stdout.strip()


def available() -> bool:
    """Whether the ns3 engine can run here (ns-3, its JSON reader and a C++ compiler)."""
    try:
        version()
    except EngineError:
        return False
    return shutil.which("g++") is not None and Path("/usr/include/nlohmann/json.hpp").exists()


def cache_dir() -> Path:
    """Where compiled drivers live: ``$BUFSIM_CACHE/ns3`` or ``~/.cache/bufsim/ns3``."""
    root = os.environ.get("BUFSIM_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "bufsim"
    )
    return Path(root) / "ns3"


_build_lock = threading.Lock()


def driver() -> Path:
    """The compiled driver for the installed ns-3, built on first use (about
    10 s) into :func:`cache_dir` under ``<ns-3 version>-<source hash>``.

    Raises
    ------
    EngineError
        ns-3 or a compiler is missing, or the build failed (with the
        compiler's message).
    """
    ver = version()
    digest = hashlib.sha256(SOURCE.read_bytes()).hexdigest()[:16]
    exe = cache_dir() / f"{ver}-{digest}" / "bufsim-ns3"
    if exe.exists():
        return exe
    if not available():
        raise EngineError(INSTALL_HINT)
    with _build_lock:
        if exe.exists():
            return exe
        exe.parent.mkdir(parents=True, exist_ok=True)
        libs = subprocess.run(
            ["pkg-config", "--libs", *MODULES], capture_output=True, text=True, check=True
        )
        # A private name, then a rename: concurrent builds (sweep workers)
        # never see a half-written binary.
        tmp = exe.with_name(f".bufsim-ns3.{os.getpid()}.{threading.get_ident()}")
        cmd = [
            "g++",
            "-O2",
            "-std=c++17",
            str(SOURCE),
            "-o",
            str(tmp),
            # The modules register their types when loaded: link them all.
            "-Wl,--no-as-needed",
            *libs.stdout.split(),
        ]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            raise EngineError(f"building the ns-3 driver failed:\n{p.stderr[-4000:]}")
        os.replace(tmp, exe)
    return exe


@cache
def build() -> str:
    """This ns-3 engine's build, ``<ns-3 version>-<hash>``: the hash covers
    the driver's source and this module (how a scenario maps onto ns-3), the
    two things besides the scenario an ns-3 result depends on. Stored ns-3
    runs are keyed on it (:func:`bufsim.store.build_id`)."""
    digest = hashlib.sha256(SOURCE.read_bytes() + Path(__file__).read_bytes()).hexdigest()[:16]
    return f"{version()}-{digest}"


@cache
def defaults() -> dict[str, Any]:
    """ns-3's attribute defaults for the classes the driver configures, as
    the installed ns-3 reports them (``bufsim-ns3 --defaults``): e.g.
    ``defaults()["ns3::TcpSocket"]["InitialCwnd"] == "10"``."""
    p = subprocess.run([str(driver()), "--defaults"], capture_output=True, text=True, check=True)
    return json.loads(p.stdout)


@cache
def _default_cc(variant: str) -> dict[str, Any]:
    """The normalized ``cc`` table of ``variant`` with its defaults."""
    raw = {
        "duration": "1s",
        "link": {"capacity": "1Mbps", "buffer": "1pkt", "delay": "1ms"},
        "flows": [{"tcp": variant, "rtt": "10ms"}],
    }
    return Scenario(raw).normalized["flows"][0]["cc"]


def check(scenario: Scenario) -> None:
    """Refuse what ns-3 cannot express.

    Raises
    ------
    ScenarioError
        Naming the field, its value and what the ns3 engine allows.
    """
    norm = scenario.normalized
    if "pool" in norm:
        raise scenario_error(
            "pool",
            "the ns3 engine builds one bottleneck with its own buffer; ns-3.37's point-to-point "
            "devices share no buffer pool: use engine='packet'",
        )
    if "queues" in norm["link"]:
        raise scenario_error(
            "link.queues",
            f"{len(norm['link']['queues'])} queues of traffic classes: the ns3 engine builds one "
            "queue per device; use engine='packet'",
        )
    # A chain: one router after each link, each link as the bottleneck is.
    for k, link in enumerate(norm.get("links") or []):
        _check_link(f"links[{k}]", link)
    if "links" not in norm:
        _check_link("link", norm["link"])
    if "reverse" in norm:
        # Two-way traffic: the bottleneck's return direction gets the
        # reverse link's rate, buffer and discipline; ACKs are ns-3's own.
        r = norm["reverse"]
        _check_link("reverse", r["link"])
        if r["ack_size_bytes"] != 40:
            raise scenario_error(
                "reverse.ack_size",
                f"{r['ack_size_bytes']}B: ns-3's ACKs are its TCP's own (40 B of IPv4 and TCP "
                "headers, and SACK options when blocks are sent); leave ack_size at 40B",
            )
    for where, g in zip(group_paths(norm), norm["flows"]):
        _check_group(where, g)
    links = norm.get("links") or [norm["link"]]
    for k, b in enumerate(norm.get("background") or []):
        if any(links[j]["qdisc"] == "fq_codel" for j in b.get("links", [0])):
            raise scenario_error(
                f"background[{k}]",
                "crosses fq_codel: the packet engine spreads its packets over the flow queues as "
                "many small flows, ns-3 hashes them all to the one queue of their UDP socket's "
                "5-tuple; use another qdisc or engine='packet'",
            )
    out = norm["output"]
    for key in ("trace", "halves"):
        if out[key]:
            raise scenario_error(
                f"output.{key}", "true: the ns3 engine does not produce it; use engine='packet'"
            )
    if "stop" in out:
        raise scenario_error(
            "output.stop", "the ns3 engine runs to duration; remove it or use engine='packet'"
        )


def group_paths(norm: Mapping[str, Any]) -> list[str]:
    """Where each normalized flow group is written: ``flows[i]``, or for
    the reverse groups that follow the forward ones ``reverse.flows[j]``."""
    forward = sum(1 for g in norm["flows"] if not g.get("reverse"))
    return [
        f"reverse.flows[{i - forward}]" if g.get("reverse") else f"flows[{i}]"
        for i, g in enumerate(norm["flows"])
    ]


def _check_link(path: str, link: Mapping[str, Any]) -> None:
    """Refuse a normalized link (``path``: ``link`` or ``reverse``) whose
    discipline or buffer ns-3 cannot build, naming the field."""
    q = link["qdisc"]
    if q not in QDISCS:
        raise scenario_error(
            f"{path}.qdisc",
            f"{q!r}: ns-3 has no such discipline (fq drops from the longest queue, which no ns-3 queue "
            f"disc does); the ns3 engine takes {', '.join(QDISCS)}",
        )
    least = 1 if q == "droptail" else 2
    if link["buffer_pkts"] < least:
        raise scenario_error(
            f"{path}.buffer",
            f"{link['buffer_pkts']} packets: the ns3 engine needs at least {least} (a point-to-point "
            "device drops every packet with a zero-size queue, and a queue disc needs one more "
            "packet in the device queue)",
        )
    if q != "droptail" and link["buffer_mode"] != "packets":
        raise scenario_error(
            f"{path}.buffer",
            f"{link['buffer_bytes']} bytes: the ns3 engine sizes a queue disc in packets; give the buffer in packets",
        )
    params = link["qdisc_params"]
    if q == "red" and params["mode"] != "packets":
        raise scenario_error(
            f"{path}.qdisc_params.mode", '"bytes": the ns3 engine runs RED in packet mode'
        )
    if q == "red" and params["adaptive"]:
        raise scenario_error(
            f"{path}.qdisc_params.adaptive",
            "true: the ns3 engine runs ns-3's RED without its Adaptive RED; set adaptive = false",
        )
    if q == "red" and params["variant"] != "ns3":
        raise scenario_error(
            f"{path}.qdisc_params.variant",
            f'"{params["variant"]}": ns-3\'s RedQueueDisc drops nothing while it holds one packet '
            "and spares the first arrival above min_th, which the paper's RED does not; set "
            'variant = "ns3" (the packet engine mirrors it) or use engine="packet"',
        )
    if q == "threshold" and params["k_unit"] != "packets":
        raise scenario_error(
            f"{path}.qdisc_params.k", "a threshold in bytes: the ns3 engine takes K in packets"
        )


#: The ``tcp_params`` the ``ns3`` stack profile gives each variant, from the
#: core's table (:data:`bufsim.scenario.STACK_CC_PARAMS`): what ns-3.37
#: implements where it departs from the variant's specification.
PROFILE_CC: dict[str, dict[str, Any]] = STACK_CC_PARAMS["ns3"]


#: Per variant: bufsim's ``tcp_params`` ns-3 has as an attribute of its
#: class (key -> (attribute, conversion)), and those ns-3 fixes (key ->
#: (the value ns-3 implements, what ns-3 does)); the values the ``ns3``
#: profile fills are read from :data:`PROFILE_CC`. A key in neither must
#: keep its default.
CC: dict[str, dict[str, dict[str, Any]]] = {
    "cubic": {
        "attributes": {
            "c": ("ns3::TcpCubic::C", str),
            "beta": ("ns3::TcpCubic::Beta", str),
            "fast_convergence": ("ns3::TcpCubic::FastConvergence", lambda v: str(v).lower()),
        },
        "fixed": {
            "reno_friendly": (
                PROFILE_CC["cubic"]["reno_friendly"],
                "ns-3.37's TcpCubic has no Reno-friendly region (RFC 9438 section 4.3; no "
                "TcpFriendliness attribute)",
            ),
            "mirror": (
                PROFILE_CC["cubic"]["mirror"],
                "ns-3.37's TcpCubic counts whole segments: a uint32_t target offset, an integer "
                "cnt clamped to CntClamp = 20 until a loss, W_max forgotten at a timeout "
                "(TcpCubic::Update, CubicReset)",
            ),
        },
    },
    "highspeed": {
        "attributes": {},
        "fixed": {
            "mirror": (
                PROFILE_CC["highspeed"]["mirror"],
                "ns-3.37's TcpHighSpeed looks a(w) and b(w) up in RFC 3649 appendix B's table, a "
                "window between two rows taking the upper row's (TcpHighSpeed::TableLookupA/B), "
                "and cuts from the flight, at a timeout too (TcpSocketBase::ReTxTimeout)",
            ),
        },
    },
    "htcp": {
        "attributes": {
            "delta_l_s": ("ns3::TcpHtcp::DeltaL", lambda v: f"{round(v * 1e9)}ns"),
            "beta_min": ("ns3::TcpHtcp::DefaultBackoff", str),
        },
        "fixed": {
            "beta_max": (0.8, "ns-3's TcpHtcp has no upper clamp attribute"),
            "rtt_scaling": (False, "ns-3's TcpHtcp has no RTT scaling"),
            "mirror": (
                PROFILE_CC["htcp"]["mirror"],
                "ns-3.37's TcpHtcp counts its increase in bytes (alpha bytes per ACK) and adapts "
                "its backoff unclamped (TcpHtcp::UpdateAlpha, UpdateBeta)",
            ),
        },
    },
    "scalable": {
        "attributes": {
            "a": ("ns3::TcpScalable::AIFactor", lambda v: str(round(1 / v))),
            "b": ("ns3::TcpScalable::MDFactor", str),
        },
        "fixed": {
            "legacy_decrease": (
                PROFILE_CC["scalable"]["legacy_decrease"],
                "ns-3.37's TcpScalable cuts by MDFactor at every window (tcp-scalable.h, "
                "equation 2), AIFactor bounding only the increase",
            ),
            "mirror": (
                PROFILE_CC["scalable"]["mirror"],
                "ns-3.37's TcpScalable::GetSsThresh cuts from the BytesInFlight() it is passed, in "
                "whole segments, at a timeout too (TcpSocketBase::ReTxTimeout)",
            ),
        },
    },
    "dctcp": {
        "attributes": {
            "g": ("ns3::TcpDctcp::DctcpShiftG", str),
            "alpha_init": ("ns3::TcpDctcp::DctcpAlphaOnInit", str),
        },
        "fixed": {},
    },
    "bbr": {
        "attributes": {
            "high_gain": ("ns3::TcpBbr::HighGain", str),
            "btlbw_filter_rounds": ("ns3::TcpBbr::BwWindowLength", lambda v: str(int(v))),
            "rtprop_filter_s": ("ns3::TcpBbr::RttWindowLength", lambda v: f"{round(v * 1e9)}ns"),
            "probe_rtt_duration_s": (
                "ns3::TcpBbr::ProbeRttDuration",
                lambda v: f"{round(v * 1e9)}ns",
            ),
        },
        "fixed": {
            "send_quantum": (
                PROFILE_CC["bbr"]["send_quantum"],
                "ns-3.37's TcpBbr sends one segment per pacing interval (TcpBbr::SetSendQuantum: "
                "m_sendQuantum = 1 * m_segmentSize)",
            ),
            "mirror": (
                PROFILE_CC["bbr"]["mirror"],
                "ns-3.37's TcpBbr keeps ssthresh at InitialSlowStartThreshold (UINT32_MAX bytes) "
                "until Drain, and TcpSocketBase::ProcessAck sets cwnd = ssthresh when a fast "
                "recovery ends; TcpBbr::SetCwnd adds to it in 32-bit bytes, RTprop is the least "
                "smoothed RTT, and its socket runs no PRR, sends the initial window unpaced and "
                "measures delivery rates with TcpRateLinux (ns-3 issue #1026)",
            ),
        },
    },
}


def cc_attributes(where: str, cc: dict[str, Any]) -> dict[str, str]:
    """ns-3 attribute settings (name -> value text) for the ``cc`` table of
    the flow group written at ``where`` (``flows[i]``, ``reverse.flows[j]``:
    :func:`group_paths`), after checking that ns-3 implements it.

    Raises
    ------
    ScenarioError
        A parameter ns-3 fixes set otherwise, or one it does not have set
        away from its default (naming ``<where>.tcp_params.<key>``).
    """
    variant = cc["variant"]
    spec = CC.get(variant, {"attributes": {}, "fixed": {}})
    default = _default_cc(variant)
    path = f"{where}.tcp_params"
    out = {}
    for key, value in cc.items():
        if key == "variant" or (variant, key) == ("scalable", "low_window"):
            continue
        if key in spec["attributes"]:
            name, conv = spec["attributes"][key]
            out[name] = conv(value)
        elif key in spec["fixed"]:
            want, why = spec["fixed"][key]
            if value != want:
                raise scenario_error(
                    f"{path}.{key}",
                    f"{json.dumps(value)}: {why}; set tcp_params.{key} = {json.dumps(want)} "
                    '(stack = "ns3" sets it) to run it in ns-3',
                )
        elif value != default[key]:
            raise scenario_error(
                f"{path}.{key}",
                f"{json.dumps(value)}: ns-3's {variant} has no such parameter; remove it "
                f"(default {json.dumps(default[key])})",
            )
    if variant == "scalable":
        # ns-3's TcpScalable adds a segment every min(cwnd, AIFactor) ACKs:
        # Reno below AIFactor = 1/a packets, a per ACK above.
        if abs(1 / cc["a"] - round(1 / cc["a"])) > 1e-9:
            raise scenario_error(
                f"{path}.a", f"{cc['a']}: ns-3 takes 1/a as a whole number (AIFactor)"
            )
        if cc["low_window"] != round(1 / cc["a"]):
            raise scenario_error(
                f"{path}.low_window",
                f"{fmt.number(cc['low_window'])}: ns-3's Scalable is Reno below AIFactor = 1/a = "
                f"{round(1 / cc['a'])} packets; set tcp_params.low_window = {round(1 / cc['a'])}",
            )
    return out


def _check_group(path: str, g: dict[str, Any]) -> None:
    variant = g["cc"]["variant"]
    if variant not in VARIANTS:
        raise scenario_error(
            f"{path}.tcp",
            f"{variant!r}: ns-3 has no such TCP; the ns3 engine takes {', '.join(VARIANTS)}",
        )
    cc_attributes(path, g["cc"])
    fixed = dict(FIXED, abc=SLOW_START.get(variant, _PER_ACK))
    for key, (value, why) in fixed.items():
        if g[key] != value:
            field, want = group_field(key, value)
            hint = f"set {field} = {json.dumps(want)}" + (
                ' or stack = "ns3"' if key in _PROFILE and g.get("stack") != "ns3" else ""
            )
            raise scenario_error(
                f"{path}.{field}",
                f"{json.dumps(group_field(key, g[key])[1])}{_from(g, key)}: {why}; {hint}",
            )
    if g.get("arrival_burst", 1) != 1 or g.get("arrival_every_s") is not None:
        raise scenario_error(
            f"{path}.arrival",
            "the ns3 engine's open-loop arrivals are single transfers at Poisson epochs: "
            'an incast (burst) or periodic arrivals (every) need engine = "packet"',
        )
    if g["delayed_ack"] and g["quick_acks"] != 1:
        raise scenario_error(
            f"{path}.quick_acks",
            f"{g['quick_acks']}{_from(g, 'quick_acks')}: ns-3's receiver acknowledges exactly the first "
            'data segment at once (TcpSocketBase::ProcessSynRcvd); set quick_acks = 1 or stack = "ns3"',
        )


#: Fields a stack profile sets (the hint names the profile).
_PROFILE = {
    "rack",
    "hystart",
    "abc",
    "limited_transmit",
    "partial_ack_retransmit",
    "dupack_growth",
    "prr_variant",
    "rto_ssthresh",
    "rto_collapse",
    "rto_timer",
    "recovery_entry",
    "sack_pipe",
    "recovery_exit",
    "rtt_sampling",
    "cut_from",
    "ecn_reduction",
    "ce_ack",
    "control_ect",
    "connection_setup",
    "push_ack",
}


def _from(g: dict[str, Any], key: str) -> str:
    return f' (from stack = "{g["stack"]}")' if key in _PROFILE or key == "quick_acks" else ""


def fast_rate_bps(norm: Mapping[str, Any]) -> float:
    """The rate of every link the driver adds to the scenario's, bit/s: 100
    times the fastest of the scenario's links, at least 10 Gbps.

    A host's access link runs at it unless its group sets ``access_rate``
    (with a queue that never fills), as do the receivers' links and every
    return direction; :func:`access_links` gives the packet engine the
    same access links.

    ``norm`` is a normalized scenario (:attr:`bufsim.Scenario.normalized`).
    """
    caps = [norm["link"]["capacity_bps"]]
    caps += [k["capacity_bps"] for k in norm.get("links", [])]
    if "reverse" in norm:
        caps.append(norm["reverse"]["link"]["capacity_bps"])
    return max(100.0 * max(caps), 10e9)


def access_links(raw: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of the raw scenario ``raw`` whose flow groups without
    ``access_rate`` get the access link ns-3's driver builds for them: at
    :func:`fast_rate_bps`, with a queue that never fills (1,000,000
    packets, the driver's). Run on the packet engine, it has the topology
    the ns3 engine runs.

    Without it the packet engine's segments reach the bottleneck with no
    serialization on the way, ns-3's one packet time at that rate later
    (0.8 us for 1000 B at 10 Gbps). A flow whose RTT is a whole number of
    the bottleneck's packet times meets its departures in phase (20 and
    60 ms at 100 Mbps and 1000 B: 250 and 750 of 80 us): the packet
    engine's segment arrives at a departure's instant, which frees its
    place first (`engine::queue`), ns-3's just after it; both take the
    freed place. Measured on the validation suite's
    newreno-droptail-0.25bdp (20 flows, RTTs 20-60 ms evenly spaced),
    seeds 1-10: the 20 ms flow's goodput 11.2 Mb/s without the access link,
    10.7 with it; ns-3 10.8.
    """
    out = copy.deepcopy(dict(raw))
    fast = fast_rate_bps(Scenario.load(out).normalized)
    for g in out["flows"] + out.get("reverse", {}).get("flows", []):
        g.setdefault("access_rate", f"{fast:.0f}bps")
        g.setdefault("access_buffer", "1000000pkt")
    return out


def run(scenario: Scenario, progress: Callable[[float], Any] | None = None) -> dict[str, Any]:
    """Run ``scenario`` in ns-3 (after :func:`check`).

    Returns the packet engine's raw outputs: ``summary``, ``timeseries``,
    ``flows`` and ``congestion_events`` (columns of floats) and ``trace``
    (empty).

    Raises
    ------
    ScenarioError
        What ns-3 cannot express (:func:`check`).
    EngineError
        ns-3 missing, or the driver failed (with its message).
    KeyboardInterrupt
        Ctrl-C: the ns-3 process is killed (an exception raised by
        ``progress`` stops it the same way and propagates).
    """
    check(scenario)
    exe = driver()
    with tempfile.TemporaryDirectory(prefix="bufsim-ns3-") as tmp:
        src, out = Path(tmp) / "scenario.json", Path(tmp) / "out.json"
        norm = dict(scenario.normalized)
        norm["ns3"] = {
            "attributes": [
                cc_attributes(where, g["cc"]) for where, g in zip(group_paths(norm), norm["flows"])
            ],
            "fast_bps": fast_rate_bps(norm),
        }
        src.write_text(json.dumps(norm))
        errors: list[str] = []

        def take(line: str) -> None:
            if not line.startswith("progress "):
                errors.append(line)
            elif progress is not None:
                progress(float(line.split()[1]))

        # No wall-clock limit: the validation suite's ns-3 seeds take hours.
        done = _process.stream([str(exe), str(src), str(out)], take, lines_on="stderr")
        if done.returncode != 0:
            raise EngineError(
                f"the ns-3 driver failed (exit {done.returncode}): "
                f"{(''.join(errors) + done.other)[-4000:]}"
            )
        raw = json.loads(out.read_text())
    for table in ("flows", "timeseries", "congestion_events"):
        raw[table] = {
            k: [float("nan") if x is None else x for x in v] for k, v in raw[table].items()
        }
    raw["trace"] = {}
    raw["ns3_version"] = version()
    return raw
