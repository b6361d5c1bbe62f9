"""A stack profile is one value: ``stack = "ns3"`` alone gives every rule
the ns3 engine needs, the controllers' too (``tcp_params.mirror`` and what
ns-3.37 fixes, the core's ``Stack::cc_params``).

The validation suite's packet runs (bufsim.ns3.validate) set no
``tcp_params``. Each is pinned, shortened (1 s, flows starting in the first
0.5 s, seed 1), by the SHA-256 of its summary in
``tests/golden/ns3_suite.json``, written by the build before the profile
filled the controllers' rules, when the suite gave each variant its
``tcp_params`` itself. If a change moves the packet engine on purpose,
regenerate with

    python tests/test_stack_profile.py --update

and say in the commit which scenarios moved and why.
"""

from __future__ import annotations

import copy
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import bufsim
import pytest
from bufsim.ns3 import PROFILE_CC, validate
from bufsim.scenario import STACK_CC_PARAMS, ScenarioError

GOLDEN = Path(__file__).parent / "golden" / "ns3_suite.json"

#: The ``tcp_params`` the suite gave each variant before the profile did
#: (its ``NS3_PARAMS``, H-TCP's MSS in bytes then a parameter of its own),
#: in today's names.
EXPLICIT: dict[str, dict[str, Any]] = {
    "cubic": {"reno_friendly": False, "mirror": "ns-3.37"},
    "highspeed": {"mirror": "ns-3.37"},
    "scalable": {"low_window": 100, "legacy_decrease": False, "mirror": "ns-3.37"},
    "htcp": {"mirror": "ns-3.37"},
    "bbr": {"send_quantum": "segment", "mirror": "ns-3.37"},
}


def _short(raw: dict[str, Any]) -> dict[str, Any]:
    """``raw`` run for 1 s (0.5 s of warm-up), its flows starting by 0.5 s, seed 1."""
    s = copy.deepcopy(raw)
    s["duration"], s["warmup"], s["seed"] = "1s", "0.5s", 1
    for g in s["flows"] + s.get("reverse", {}).get("flows", []):
        if isinstance(g.get("start"), dict):
            g["start"] = {"uniform": ["0s", "0.5s"]}
        elif "start" in g:
            g["start"] = "0s"
    return s


def _digest(raw: dict[str, Any]) -> str:
    summary = bufsim.simulate(raw, engine="packet").summary
    return hashlib.sha256(json.dumps(summary, sort_keys=True).encode()).hexdigest()


def _groups(raw: dict[str, Any]) -> list[dict[str, Any]]:
    return raw["flows"] + raw.get("reverse", {}).get("flows", [])


def test_the_core_table_is_what_the_suite_gave_each_variant():
    # Python reads the profile's controller rules from the core; the ns3
    # engine's checks and the suite restate none of them.
    assert PROFILE_CC == EXPLICIT
    assert STACK_CC_PARAMS["rfc"] == STACK_CC_PARAMS["ns2"] == {}
    # The linux profile: Linux's BBR v3 rules (google/bbr tcp_bbr.c).
    assert STACK_CC_PARAMS["linux"] == {"bbr": {"mirror": "linux"}}


@pytest.mark.parametrize("name", sorted(validate.scenarios()))
def test_the_ns3_profile_alone_reproduces_the_suites_packet_runs(name):
    raw = _short(validate.scenarios()[name])
    assert all(g.get("stack") == "ns3" and "tcp_params" not in g for g in _groups(raw))
    alone = _digest(raw)
    assert alone == json.loads(GOLDEN.read_text())[name]
    # The explicit parameters change nothing: the profile gave them all.
    tcps = {g.get("tcp", "newreno") for g in _groups(raw)}
    if tcps & set(EXPLICIT):
        for g in _groups(raw):
            g["tcp_params"] = dict(EXPLICIT.get(g.get("tcp", "newreno"), {}))
        assert _digest(raw) == alone


def test_a_groups_own_tcp_params_override_the_profiles():
    raw = {
        "duration": "1s",
        "link": {"capacity": "10Mbps", "delay": "5ms", "buffer": "30pkt"},
        "flows": [
            {"tcp": "cubic", "rtt": "40ms", "stack": "ns3"},
            {"tcp": "cubic", "rtt": "40ms", "stack": "ns3", "tcp_params": {"mirror": "none"}},
            {"tcp": "cubic", "rtt": "40ms"},
        ],
    }
    cc = [g["cc"] for g in bufsim.Scenario.load(raw).normalized["flows"]]
    assert [(c["mirror"], c["reno_friendly"]) for c in cc] == [
        ("ns-3.37", False),
        ("none", False),
        ("none", True),
    ]


@pytest.mark.parametrize("tcp", ["newreno", "dctcp", "aimd"])
def test_a_variant_without_a_mirror_refuses_the_key(tcp):
    raw = {
        "duration": "1s",
        "link": {"capacity": "10Mbps", "delay": "5ms", "buffer": "30pkt"},
        "flows": [{"tcp": tcp, "rtt": "40ms", "tcp_params": {"mirror": "ns-3.37"}}],
    }
    with pytest.raises(ScenarioError, match=r"flows\[0\]\.tcp_params\.mirror"):
        bufsim.Scenario.load(raw)


def test_a_refused_profile_value_names_the_profile():
    # ns-3.37's TcpBbr is v1: v3 on the ns3 profile is refused at the key
    # the profile set, naming it.
    raw = {
        "duration": "1s",
        "link": {"capacity": "10Mbps", "delay": "5ms", "buffer": "30pkt"},
        "flows": [{"tcp": "bbr", "rtt": "40ms", "stack": "ns3", "tcp_params": {"version": 3}}],
    }
    with pytest.raises(ScenarioError, match=r"flows\[0\]\.tcp_params\.mirror") as e:
        bufsim.Scenario.load(raw)
    assert "BBR v1" in str(e.value) and '(from stack = "ns3")' in str(e.value)
    raw["flows"][0]["tcp_params"]["mirror"] = "none"
    assert bufsim.Scenario.load(raw).normalized["flows"][0]["cc"]["version"] == 3


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        sys.exit("usage: python tests/test_stack_profile.py --update")
    digests = {n: _digest(_short(raw)) for n, raw in sorted(validate.scenarios().items())}
    GOLDEN.write_text(json.dumps(digests, indent=1, sort_keys=True) + "\n")
    print(f"wrote {GOLDEN} ({len(digests)} scenarios)")
