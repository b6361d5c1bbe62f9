"""Flows that never send data or sit idle through the window are counted
per group in the summary and named by ``bufsim run`` and ``advise``,
with the reason when it is known (a SYN dropped and its retry not due
before the run's end)."""

import tomllib

import bufsim
from conftest import cli


def test_dc_incast_counts_the_flows_whose_syn_was_lost():
    # The dc-incast example (linux stack: a handshake with a 1 s initial
    # SYN timeout, RFC 6298 (2.1)): the incast's SYNs meet a full queue,
    # 6 of its 100 transfers lose theirs and never send data in the
    # 0.5 s run; so do 3 of the 64 long flows.
    s = bufsim.simulate(bufsim.examples.path("dc-incast")).summary
    assert s["never_started_group1"] == 6
    assert s["never_started_syn_lost_group1"] == 6
    assert s["never_started_group0"] == 3
    assert s["never_started_syn_lost_group0"] == 3


def test_a_run_without_silent_flows_has_no_such_keys():
    s = bufsim.simulate(
        {
            "duration": "1s",
            "link": {"capacity": "10Mbps", "delay": "5ms", "buffer": "1BDP"},
            "flows": [{"count": 2, "tcp": "reno", "rtt": "20ms", "stack": "rfc"}],
        }
    ).summary
    assert not [k for k in s if k.startswith(("never_started", "idle_group"))]


def _switch_pool(**flow):
    # The example with the rfc stack named: its minimum RTO of 1 s leaves
    # flows idle behind early losses.
    d = tomllib.loads(bufsim.examples.path("switch-pool").read_text())
    for g in d["flows"]:
        g["stack"] = "rfc"
    d["flows"][0] |= flow
    return d


def test_switch_pool_long_flows_idle_behind_the_rfc_minimum_rto():
    # The switch-pool example as shipped (rfc stack): 13 of its 32 long
    # DCTCP flows deliver nothing in [0.05 s, 0.3 s]. Each lost 1-4
    # segments in its first 5 ms with a window of 2-4 packets: too few
    # duplicate ACKs for a fast retransmit (no Limited Transmit, no RACK in
    # the rfc profile), so only the RTO repairs it, and RFC 6298 (2.4)'s
    # 1 s minimum puts that past the run's end. With a 10 ms minimum RTO
    # none is idle.
    s = bufsim.simulate(_switch_pool()).summary
    assert s["idle_group0"] == 13
    assert "never_started_group0" not in s
    s = bufsim.simulate(_switch_pool(min_rto="10ms")).summary
    assert "idle_group0" not in s


def test_run_names_the_flows_that_never_started():
    r = cli("run", "--example", "dc-incast")
    assert r.returncode == 0, r.stderr
    assert "note: 6 flows of group 1 never sent data (6 waiting for a SYN retry" in r.stdout
    assert "note: 3 flows of group 0 never sent data" in r.stdout


def _syn_burst(buffer: str = "8pkt") -> dict:
    # 30 CUBIC flows opening at 0.1 s into a few packets of buffer: most
    # SYNs are dropped, and Linux's 1 s initial SYN timeout (RFC 6298
    # (2.1)) puts every retry past the 0.6 s run's end.
    return {
        "duration": "0.6s",
        "warmup": "0s",
        "link": {"capacity": "10Mbps", "delay": "5ms", "buffer": buffer},
        "flows": [{"count": 30, "tcp": "cubic", "rtt": "20ms", "stack": "linux", "start": "0.1s"}],
    }


def test_the_syn_burst_leaves_flows_unstarted_and_idle():
    s = bufsim.simulate(_syn_burst("8pkt")).summary
    assert s["never_started_group0"] == 21 and s["never_started_syn_lost_group0"] == 21
    s = bufsim.simulate(_syn_burst("32pkt")).summary
    assert s["idle_group0"] == 19 and "never_started_group0" not in s


def test_advise_notes_the_flows_that_never_started():
    a = bufsim.advise(
        _syn_burst(), ["utilization>=0.5"], engines=("packet",), seeds=2, store=None, workers=0
    )
    never = [n for n in a.notes if "never sent data" in n]
    idle = [n for n in a.notes if "delivered nothing in the window" in n]
    assert len(never) == 1 and len(idle) == 1, a.notes
    # At 16 packets and below most of the 30 SYNs are dropped (28 at 1
    # packet, every one of them a lost SYN); from 16 packets on, flows that
    # did start sit behind a retransmission timeout (19 at 32 packets).
    assert never[0].startswith(
        "flows of group 0 never sent data in 12 of 16 packet runs (buffers 1, 2, 4, 5, 6, 16 "
        "packets), up to 28 in a run (at most 28 waiting for a SYN retry after a lost SYN)"
    )
    assert idle[0].startswith(
        "flows of group 0 delivered nothing in the window (stalled: waiting for a "
        "retransmission timeout) in 6 of 16 packet runs (buffers 16, 32, 76 packets), up to 19"
    )
    assert a.notes.index(never[0]) < a.notes.index(idle[0])


def test_advise_notes_nothing_when_every_flow_sent():
    import pandas as pd
    from bufsim.advise.notes import silent_flow_notes

    runs = pd.DataFrame(
        {"engine": ["packet"] * 2, "buffer_pkts": [10, 20], "utilization": [0.9, 1]}
    )
    assert silent_flow_notes(runs) == []
    runs["never_started_group1"] = [float("nan"), 3.0]
    runs["never_started_syn_lost_group1"] = [float("nan"), 0.0]
    (note,) = silent_flow_notes(runs)
    assert note == (
        "flows of group 1 never sent data in 1 of 2 packet runs (buffer 20 packets), up to 3 "
        "in a run: their goodput is 0, which lowers Jain's index and the group's share"
    )
