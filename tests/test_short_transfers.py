"""Short transfers start as real stacks start them: the handshake's RTT
sample sets the first RTO (RFC 6298 (2.2)), Linux's quick-ACK start, 40 ms
delayed-ACK timer and immediate ACK of a transfer's end; checked against
first principles on an incast."""

from __future__ import annotations

import bufsim
import pytest

#: 100 transfers of 64 KB (43 packets of 1500 B) start together at 10 Gbps
#: with a 50 us RTT.
INCAST = {
    "duration": "0.5s",
    "warmup": "0s",
    "link": {"capacity": "10Gbps", "delay": "5us", "buffer": "10000pkt"},
    "flows": [
        {
            "count": 100,
            "tcp": "cubic",
            "rtt": "50us",
            "mss": "1500B",
            "size": "64KB",
            "start": "0.1s",
            "stack": "linux",
        },
    ],
}


def _with(raw: dict, **flow) -> dict:
    return {**raw, "flows": [{**raw["flows"][0], **flow}, *raw["flows"][1:]]}


def test_a_lossless_incast_completes_in_its_serialization_plus_two_round_trips():
    # No loss (the buffer holds every window): the last transfer ends when
    # the link has sent all 100 x 43 packets, plus the handshake's RTT
    # before the data and the last ACK's return: 6.45 MB / 10 Gbps + 2 x
    # 50 us = 5.26 ms. The linux profile's delayed ACKs add nothing: quick
    # ACKs at the start and the last segment of each transfer acknowledged
    # at once (before: a lone last segment waited 200 ms, p99 200.1 ms).
    s = bufsim.simulate(INCAST).summary
    assert s["flows_completed_small"] == 100 and s["drop_rate"] == 0
    serialization = 100 * 43 * 1500 * 8 / 10e9
    assert s["fct_p99_small_s"] == pytest.approx(serialization + 2 * 50e-6, rel=0.05)
    # Every transfer at least its own handshake, serialization and RTT.
    f = bufsim.simulate(INCAST).flows
    assert (f["fct_s"] >= 50e-6 + 43 * 1500 * 8 / 10e9 + 50e-6 - 1e-12).all()


def test_without_the_linux_end_of_transfer_ack_a_lone_last_segment_waits_for_the_timer():
    # 43 segments, 16 quick ACKs, then pairs: the 43rd is alone. Held for
    # the delayed-ACK timer (40 ms in the linux profile), the transfers end
    # 40 ms after their data (at most the incast's 5.26 ms).
    data = 100 * 43 * 1500 * 8 / 10e9 + 2 * 50e-6
    held = bufsim.simulate(_with(INCAST, push_ack=False)).summary
    assert 0.040 < held["fct_p99_small_s"] <= 0.040 + data
    # ns-3 ACKs the first segment at once, then pairs: 43 segments end on a
    # pair, 42 (63 KB) on a lone segment held for DelAckTimeout, 200 ms.
    ns3 = bufsim.simulate(_with(INCAST, stack="ns3")).summary
    assert ns3["fct_p99_small_s"] <= data
    ns3 = bufsim.simulate(_with(INCAST, stack="ns3", size="63KB")).summary
    assert 0.200 < ns3["fct_p99_small_s"] <= 0.200 + data


#: 30 transfers of 15 kB (10 packets: one initial window each) start
#: together into a 100-packet buffer: after their SYNs, each sends the
#: handshake's ACK and its window, 330 packets within 2 us, and 227 are
#: dropped (19 ACKs, 208 segments), so most transfers lose the tail of their
#: only window, which no later segment's SACK reveals.
TAIL = {
    "duration": "3s",
    "warmup": "0s",
    "link": {"capacity": "10Gbps", "delay": "5us", "buffer": "100pkt"},
    "flows": [
        {
            "count": 30,
            "tcp": "cubic",
            "rtt": "50us",
            "mss": "1500B",
            "size": "15kB",
            "start": "0.1s",
            "stack": "linux",
        },
    ],
}


@pytest.mark.parametrize(
    ("flow", "fct_s"),
    [
        # RFC 6675 recovery: the tail comes back after one RTO, the linux
        # profile's 200 ms floor (the handshake's 50 us sample gives 150 us).
        ({"recovery": "rfc6675"}, 0.200),
        # Without the handshake there is no RTT sample: RFC 6298 (2.1)'s 1 s.
        ({"recovery": "rfc6675", "connection_setup": False}, 1.0),
        # ns-3: handshake, but MinRto 1 s (and 200 ms DelAckTimeout on a lone
        # last segment).
        ({"stack": "ns3"}, 1.2),
    ],
)
def test_a_lost_tail_costs_the_profiles_rto_floor_not_one_second(flow, fct_s):
    r = bufsim.simulate(_with(TAIL, **flow))
    assert r.summary["completion_small"] == 1.0 and r.summary["timeouts"] >= 10
    # The median of the transfers that timed out: with ns-3's delayed ACKs a
    # transfer whose first two segments alone got through restarts its timer
    # at their delayed ACK, 200 ms later, and so finishes later still.
    late = r.flows[r.flows.timeouts > 0]
    assert late.fct_s.median() == pytest.approx(fct_s, abs=0.002)


def test_linux_tail_loss_probes_recover_a_lost_tail_within_round_trips():
    # The linux profile's RACK-TLP: a probe 2 SRTT after the last send
    # (RFC 8985 section 7.2) brings the tail back without a timeout, so the
    # same transfers finish in about half a millisecond.
    s = bufsim.simulate(TAIL).summary
    f = bufsim.simulate(TAIL).flows
    assert s["timeouts"] == 0 and f["probes"].sum() >= 10
    assert s["fct_p99_small_s"] < 0.001
