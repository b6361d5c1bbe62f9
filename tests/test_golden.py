"""Golden results: a fixed set of scenarios over every TCP variant, queue
discipline and traffic kind, both engines, whose summaries must not move.

Each scenario's summary is hashed (SHA-256 of its JSON, floats as Python
writes them: bit-exact) and compared with ``tests/golden/summaries.json``.
A change that moves a result fails here on purpose: if the move is intended
(a fix, a model change), regenerate the file with

    python tests/test_golden.py --update

and say in the commit which scenarios moved and why.
"""

from __future__ import annotations

import copy
import hashlib
import json
import sys
from pathlib import Path

import bufsim
from bufsim.scenario import FLUID_VARIANTS, QDISCS, TCP_VARIANTS
from conftest import ABM_BURST

GOLDEN = Path(__file__).parent / "golden" / "summaries.json"

# Every registered variant and discipline (the core's registries).
VARIANTS = list(TCP_VARIANTS)
#: Parameters a discipline cannot run without (no default).
REQUIRED_QDISC_PARAMS = {"threshold": {"k": 10}}


def scenarios() -> dict[str, tuple[dict, str]]:
    """name -> (scenario, engine)."""
    base = {
        "duration": "5s",
        "warmup": "1s",
        "seed": 7,
        "link": {"capacity": "20Mbps", "delay": "5ms", "buffer": "40pkt"},
    }
    out: dict[str, tuple[dict, str]] = {}
    for v in VARIANTS:
        s = {**base, "flows": [{"count": 4, "tcp": v, "rtt": {"min": "20ms", "max": "80ms"}}]}
        out[f"{v}-packet"] = (s, "packet")
        if v in FLUID_VARIANTS:
            out[f"{v}-fluid"] = (s, "fluid")
    for q in QDISCS:
        s = {
            **base,
            "link": {
                **base["link"],
                "qdisc": q,
                "qdisc_params": REQUIRED_QDISC_PARAMS.get(q, {}),
            },
            "flows": [
                {"count": 4, "tcp": "cubic", "rtt": {"min": "20ms", "max": "80ms"}, "sack": True}
            ],
        }
        out[f"{q}-packet"] = (s, "packet")
    kinds = {
        "finite": {"count": 10, "size": {"pareto": {"shape": 1.3, "min": "5pkt"}}, "rtt": "40ms"},
        "open": {"arrival": {"load": 0.6}, "size": "dhamdhere2006", "rtt": "40ms"},
        "closed": {"users": 8, "think": "0.5s", "size": "30pkt", "rtt": "40ms"},
    }
    for k, g in kinds.items():
        out[f"{k}-packet"] = ({**base, "flows": [{"count": 2, "rtt": "40ms"}, g]}, "packet")
    out["background-packet"] = (
        {
            **base,
            "flows": [{"count": 2, "rtt": "60ms", "delayed_ack": True}],
            "background": [{"kind": "poisson", "rate": "8Mbps", "packet_size": "1000B"}],
        },
        "packet",
    )
    for stack in ("linux", "ns3"):
        out[f"{stack}-stack-packet"] = (
            {**base, "flows": [{"count": 3, "rtt": "50ms", "stack": stack}]},
            "packet",
        )
    out["red-ecn-packet"] = (
        {
            **base,
            "link": {**base["link"], "qdisc": "red", "qdisc_params": {"ecn": True}},
            "flows": [{"count": 4, "rtt": "40ms", "ecn": True}],
        },
        "packet",
    )
    out["threshold-dctcp-packet"] = (
        {
            **base,
            "link": {**base["link"], "qdisc": "threshold", "qdisc_params": {"k": 10}},
            "flows": [{"count": 4, "tcp": "dctcp", "rtt": {"min": "20ms", "max": "80ms"}}],
        },
        "packet",
    )
    # ABM in a shared pool and in a fabric, both dropping (a fan-in burst
    # into 100 packets; an incast of 80% of a switch's buffer): without
    # `unscheduled` nothing is tagged, so these hold whatever the
    # first-RTT priority does.
    out["abm-pool-packet"] = (copy.deepcopy(ABM_BURST), "packet")
    out["abm-fabric-packet"] = (
        {
            "duration": "0.05s",
            "warmup": "0.005s",
            "seed": 3,
            "fabric": {
                "leaves": 2,
                "spines": 1,
                "hosts_per_leaf": 4,
                "host_rate": "10Gbps",
                "delay": "10us",
                "buffer": "150KB",
                "algorithm": "abm",
                "packet_size": "1500B",
                "qdisc": "threshold",
                "qdisc_params": {"k": 20},
            },
            "flows": [
                {
                    "hosts": "random",
                    "tcp": "dctcp",
                    "size": "websearch",
                    "mss": "1500B",
                    "arrival": {"load": 0.3},
                },
                {
                    "tcp": "dctcp",
                    "mss": "1500B",
                    "incast": {"servers": 7, "response": "0.8 buffer", "rate": "400/s"},
                },
            ],
        },
        "packet",
    )
    out["red-fluid"] = (
        {**base, "link": {**base["link"], "qdisc": "red"}, "flows": [{"count": 4, "rtt": "40ms"}]},
        "fluid",
    )
    out["sync-fluid"] = (
        {
            **base,
            "fluid": {"sync": 0.3},
            "flows": [{"count": 10, "tcp": "highspeed", "rtt": "80ms"}],
        },
        "fluid",
    )
    return out


def digest(summary: dict) -> str:
    """SHA-256 of a summary's JSON (keys sorted; floats exact)."""
    return hashlib.sha256(json.dumps(summary, sort_keys=True).encode()).hexdigest()


def compute() -> dict[str, str]:
    return {
        name: digest(bufsim.simulate(s, engine=e).summary) for name, (s, e) in scenarios().items()
    }


def test_golden_summaries_do_not_move():
    expected = json.loads(GOLDEN.read_text())
    assert set(expected) == set(scenarios()), "regenerate: python tests/test_golden.py --update"
    got = compute()
    moved = sorted(name for name in expected if got[name] != expected[name])
    assert not moved, (
        f"{len(moved)} golden result(s) moved: {', '.join(moved)}. If intended, run "
        "`python tests/test_golden.py --update` and say in the commit which moved and why."
    )


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        sys.exit("usage: python tests/test_golden.py --update")
    GOLDEN.write_text(json.dumps(compute(), indent=1, sort_keys=True) + "\n")
    print(f"wrote {GOLDEN} ({len(scenarios())} scenarios)")
