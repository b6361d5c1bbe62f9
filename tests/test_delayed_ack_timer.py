"""The delayed-ACK timer, and paper 000's dumbbell with delayed ACKs against ns-2.35.

An ACK that leaves stops the receiver's delayed-ACK timer, so the next held
segment waits a whole timeout (RFC 5681 section 4.2 bounds the delay per
segment; Linux ``tcp_event_ack_sent`` clears ``ICSK_TIME_DACK``; ns-2's
``DelAckSink::recv`` cancels ``delay_timer_`` before it ACKs; ns-3's
``TcpSocketBase::SendEmptyPacket`` cancels ``m_delAckEvent``). Before the
packet engine stopped it, a timer armed for an earlier segment fired early
for a later one. That rule moved paper 000's dumbbell (4 NewReno+SACK flows
with delayed ACKs, 50 Mbps, 100 ms, 100 packets, 25 Mbps of Poisson
background): utilization 0.940 -> 0.956, the flows' share of the residual
0.917 -> 0.951, the background's drops 82-100 -> 102-138 per run, the mean
queue 18.6 -> 22.4 packets (seeds 1-3), where ns-2.35 gives 0.958, 0.954,
97-155 and 21.8.
"""

from __future__ import annotations

import copy

import bufsim
import numpy as np
import pytest
from bufsim import ns2

needs_ns = pytest.mark.skipif(
    not ns2.available(), reason=f"ns-2 is not installed: {ns2.why_unavailable()}"
)

#: One transfer of 99 segments, IW 10, delayed ACKs: its last segment is
#: held alone, with no loss and no queue (10 Mbps, 40 ms, 200 packets).
LONE = {
    "name": "lone-transfer",
    "duration": "3s",
    "warmup": "0s",
    "seed": 1,
    "link": {"capacity": "10Mbps", "delay": "18ms", "buffer": "200pkt"},
    "flows": [
        {
            "count": 1,
            "size": "99000B",
            "tcp": "newreno",
            "rtt": "40ms",
            "mss": "1000B",
            "sack": True,
            "delayed_ack": True,
            "stack": "rfc",
            "initial_window": 10,
            "start": "0s",
        }
    ],
}


def _fct(timeout: str) -> float:
    raw = copy.deepcopy(LONE)
    raw["flows"][0]["delack_timeout"] = timeout
    f = bufsim.simulate(raw).flows
    assert f["finished"].iloc[0] == 1
    return float(f["fct_s"].iloc[0])


def test_a_held_segment_waits_the_whole_delayed_ack_timer():
    # The last segment is held alone: it is ACKed one timeout after it
    # arrived, so the transfer takes exactly 100 ms longer with a 200 ms
    # timer than with a 100 ms one (1 ms: the event clock is exact, the
    # rest of the transfer identical). With the timer left running after
    # an ACK, the one armed for an earlier segment fired for it: 0.2408 s
    # at 200 ms, 0.2648 s at 100 ms (a longer timer, a shorter transfer).
    at200, at100 = _fct("200ms"), _fct("100ms")
    assert at200 - at100 == pytest.approx(0.100, abs=1e-3)
    # 5 rounds of slow start (10, 15, 22, 33, 19 segments) at 40 ms, the
    # serialization, and the 200 ms the last segment waits.
    assert at200 == pytest.approx(0.4216, abs=1e-3)


#: Paper 000's dumbbell (section IV.B's setup with 4 flows at the
#: 100-packet buffer), SACK and delayed ACKs, the rfc stack: 100 s, the
#: first 10 s discarded, starts uniform in 0-1 s.
DUMBBELL = {
    "name": "auge-dumbbell-delack",
    "duration": "100s",
    "warmup": "10s",
    "link": {"capacity": "50Mbps", "delay": "48ms", "buffer": "100pkt"},
    "flows": [
        {
            "count": 4,
            "tcp": "newreno",
            "rtt": "100ms",
            "mss": "1000B",
            "sack": True,
            "delayed_ack": True,
            "stack": "rfc",
            "start": {"uniform": ["0s", "1s"]},
        }
    ],
    "background": [{"kind": "poisson", "rate": "25Mbps", "packet_size": "1040B"}],
}

SEEDS = (1, 2, 3)

#: ns-2.35's numbers for :data:`DUMBBELL`, seeds 1-3 (``engine="ns2"``;
#: :func:`test_ns2_dumbbell_numbers` reruns them): utilization, the TCP
#: flows' goodput over the 25 Mbps the background leaves (goodput x
#: 1042/1000, the wire bytes of a 1000-byte segment with its headers as
#: ns-2 counts them), background drops, mean queue (packets).
NS2 = {
    "utilization": (0.9627, 0.9560, 0.9552),
    "residual_share": (0.962, 0.951, 0.948),
    "background_drops": (97, 155, 134),
    "mean_queue_pkts": (22.2, 22.2, 20.9),
}

#: How close the packet engine's three-seed mean must come to ns-2's: half
#: of what the delayed-ACK timer moved each (0.940 -> 0.956 utilization,
#: 0.917 -> 0.951 share, 18.6 -> 22.4 packets of mean queue), so the
#: engine before that change fails each of them; the background's drops
#: within 25% of ns-2's mean (its own seeds span 97-155, +-22%; before
#: the change the engine's mean was 91, 29% below).
TOL = {"utilization": 0.008, "residual_share": 0.017, "mean_queue_pkts": 1.9}


def _numbers(engine: str) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {k: [] for k in NS2}
    for seed in SEEDS:
        raw = copy.deepcopy(DUMBBELL)
        raw["seed"] = seed
        s = bufsim.simulate(raw, engine=engine).summary
        out["utilization"].append(s["utilization"])
        out["residual_share"].append(s["goodput_bps"] * 1042 / 1000 / 25e6)
        out["background_drops"].append(s["background_drops"])
        out["mean_queue_pkts"].append(s["mean_queue_pkts"])
    return out


def test_packet_dumbbell_with_delayed_acks_meets_ns2():
    # The packet engine now: 0.9586, 0.956, 119-153 drops, 22.1 packets.
    got = _numbers("packet")
    for key, tol in TOL.items():
        assert np.mean(got[key]) == pytest.approx(np.mean(NS2[key]), abs=tol), key
    drops = np.mean(got["background_drops"])
    assert drops == pytest.approx(np.mean(NS2["background_drops"]), rel=0.25)


@needs_ns
@pytest.mark.slow
def test_ns2_dumbbell_numbers():
    # ns-2.35 with the same seeds gives the numbers NS2 holds (its runs are
    # deterministic per seed; about 20 s each).
    got = _numbers("ns2")
    for key, want in NS2.items():
        assert got[key] == pytest.approx(list(want), abs=0.06 if key == "mean_queue_pkts" else 6e-4)


@needs_ns
@pytest.mark.parametrize("pkts", [1, 2, 3, 99, 100])
def test_ns2_delack_sink_acks_the_first_packet_at_once(pkts):
    # ns-2.35's DelAck sink ACKs a flow's first data packet at once and
    # pairs the rest from the second on, as the packet engine does with
    # quick_acks = 1 (ns-3's start; the rfc profile has 0): then the lone
    # transfers end within 0.1 ms of each other, and it is the even sizes
    # whose last packet waits the 200 ms timer in both (1 packet: 40.8 ms,
    # 2: 241.6 ms, 99: 220.8 ms, 100: 421.6 ms). With quick_acks = 0 the
    # parity flips and every size is 200 ms off.
    raw = copy.deepcopy(LONE)
    raw["flows"][0]["size"] = f"{pkts * 1000}B"
    ns = float(bufsim.simulate(raw, engine="ns2").flows["fct_s"].iloc[0])
    rfc = float(bufsim.simulate(raw).flows["fct_s"].iloc[0])
    raw["flows"][0]["quick_acks"] = 1
    packet = float(bufsim.simulate(raw).flows["fct_s"].iloc[0])
    assert packet == pytest.approx(ns, abs=1e-4)
    assert abs(rfc - ns) == pytest.approx(0.200, abs=1e-3)


#: ns-2.35's FCTs of :data:`LONE`'s transfer on ``stack = "ns2"`` (its
#: initial window of 2, a SYN first, the DelAck sink's 100 ms interval_),
#: by size in packets, seconds (``engine="ns2"``; measured, and rerun by
#: :func:`test_ns2_profile_lone_transfer_numbers`).
NS2_PROFILE_FCT = {1: 0.18083, 2: 0.08163, 3: 0.22244, 99: 0.52485, 100: 0.42565}


def _lone_ns2_profile(pkts: int) -> dict:
    raw = copy.deepcopy(LONE)
    g = raw["flows"][0]
    g["size"] = f"{pkts * 1000}B"
    g["stack"] = "ns2"
    del g["initial_window"]
    return raw


@pytest.mark.parametrize("pkts", sorted(NS2_PROFILE_FCT))
def test_ns2_profile_lone_transfers_meet_ns2(pkts):
    # stack = "ns2": the SYN is packet 0, which the DelAck sink ACKs at
    # once (SYN_immediate_ack_), so the first data packet is held as any
    # (quick_acks 0), and a lone packet waits interval_, 100 ms: the packet
    # engine ends each transfer within 0.1 ms of ns-2 (measured 0.03-0.05
    # ms: 1 packet 180.88 against 180.83 ms). The rfc profile, with the
    # same sizes, is 200 ms off (no SYN, a 200 ms timer, IW 1).
    f = bufsim.simulate(_lone_ns2_profile(pkts)).flows
    assert f["finished"].iloc[0] == 1
    assert float(f["fct_s"].iloc[0]) == pytest.approx(NS2_PROFILE_FCT[pkts], abs=1e-4)


@needs_ns
@pytest.mark.parametrize("pkts", [1, 100])
def test_ns2_profile_lone_transfer_numbers(pkts):
    # ns-2.35 gives the FCTs NS2_PROFILE_FCT holds (deterministic runs).
    f = bufsim.simulate(_lone_ns2_profile(pkts), engine="ns2").flows
    assert float(f["fct_s"].iloc[0]) == pytest.approx(NS2_PROFILE_FCT[pkts], abs=1e-5)
