"""BBR v1's loss under the linux and ns3 stack profiles.

The scenario: a 100 Gbps port, 16 BBR v1 flows with RTTs evenly spaced over
10-100 us, 1500 B packets, 50 ms (0.2 s shows the same; 50 ms costs about
0.1 s of CPU a run). The linux profile drops about 30 times
what the ns3 profile does.

Two socket rules account for the gap. PRR: the ns3 profile runs it before
the draft's BBR in a fast recovery, Linux does not (tcp_cong_control returns
after a `cong_control` controller, before tcp_cwnd_reduction); the linux
profile with RFC 6675 drops 4.4 times what the ns3 profile does. And
`recovery`, RACK-TLP (linux) against
RFC 6675's DupThresh (ns3). Flipping it alone moves each profile onto the
other's drop count; no other field moves drops by more than a quarter
(each field flipped alone, seeds 1-3, 0.2 s).

Neither number is a defect of its profile:

* Under RFC 6675 a lost retransmission is found only by the retransmission
  timer (RFC 8985 section 1: RACK "detects losses more efficiently when
  there are ... lost retransmissions"). In these runs the hole segment of
  most flows is dropped, resent and dropped again in the first 2 ms; the
  flow then waits for an RTO that the 1 s (ns-3) or 200 ms (Linux) minimum
  puts after the run, sending new data beyond the hole clocked by its SACKs.
  Its window stays put and the loss stays low, but 9-14 of 16 flows
  deliver almost nothing in order. ns-3 has no RACK; Linux has
  (net/ipv4/tcp_recovery.c: "RACK ... applies to both original and
  retransmitted packet"). With the hole repaired by a 1 ms minimum RTO
  the ns3 profile drops within a factor 2 of the linux one.
* With every hole repaired, BBR v1's windows do not bound the queue at these
  RTTs: Linux adds three TSO bursts to every cwnd (tcp_bbr.c
  bbr_quantization_budget, "cwnd += 3 * bbr_tso_segs_goal(sk)", a burst
  being min(pacing_rate x 1 ms, 64 KB) = 43 packets here), 129 packets a
  flow against 2 x BDP = 10-20 packets for a flow of 10-30 us. Sixteen
  flows hold 4.5 BDP of quanta; in 1 or 4 BDP of buffer the pacing rates
  decide, and BBR v1 paces above its share (its ProbeBW 1.25 phase and the
  max filter over bandwidth samples), hence 20% loss at 1 BDP (4% with
  one-segment quanta) and a full 4 BDP buffer at 10% (under 1%).
"""

from typing import Any

import bufsim
import pytest

#: Packets of 1500 B in the link's BDP at the flows' mean RTT of 55 us.
BDP_PKTS = 458


def _scn(stack: str, buffer: str = "1BDP", trace: bool = False, **fields: Any) -> dict[str, Any]:
    """The case-5 scenario under `stack`, with stack `fields` set over it.
    Under both profiles the draft's BBR v1: the ns3 profile's own BBR is
    ns-3.37's TcpBbr (`tcp_params.mirror = "ns-3.37"`, one-segment quanta),
    which these tests leave out to compare the profiles' loss recovery."""
    flows = {
        "count": 16,
        "tcp": "bbr",
        "rtt": {"min": "10us", "max": "100us"},
        "mss": "1500B",
        "stack": stack,
        "tcp_params": {"mirror": "none", "send_quantum": "draft"},
        **fields,
    }
    return {
        "name": "bbr-profiles",
        "duration": "50ms",
        "warmup": "0s",
        "seed": 1,
        "link": {"capacity": "100Gbps", "delay": "2us", "buffer": buffer, "packet_size": "1500B"},
        "flows": [flows],
        "output": {"trace": trace},
    }


def _drops(stack: str, **fields: Any) -> float:
    return bufsim.simulate(_scn(stack, **fields)).summary["packets_dropped"]


def test_the_recovery_field_alone_carries_the_linux_ns3_loss_gap():
    linux, ns3 = _drops("linux"), _drops("ns3")
    linux_dupthresh = _drops("linux", recovery="rfc6675")
    ns3_rack = _drops("ns3", recovery="rack")
    # Measured: linux 257,171, ns3 3,465 (74x); linux with RFC 6675
    # 15,273, ns3 with RACK 130,762. (Under PRR, before BBR set its own
    # window in a recovery on the linux profile: linux 116,367, with RFC
    # 6675 2,225, within a factor 2 of ns3.)
    assert linux > 20 * ns3
    assert linux > 10 * linux_dupthresh
    assert ns3_rack > 10 * ns3
    # Flipped, ns3 lands within a factor 2 of linux; linux with RFC 6675
    # keeps the loss its recovery has without PRR (4.4x ns3's).
    assert 0.5 < ns3_rack / linux < 2.0
    assert 3.0 < linux_dupthresh / ns3 < 6.0


@pytest.mark.parametrize(
    ("field", "value"),
    [
        # Byte counting (Linux's tcp_slow_start): BBR's cong_control
        # replaces it, and here it is not what sets the loss.
        ("abc", False),
        ("prr_variant", "ns3"),
        ("dupack_growth", False),
        ("cut_from", "pipe"),
        ("rtt_sampling", "ns3"),
        ("quick_acks", 1),
    ],
)
def test_no_other_stack_field_moves_the_linux_drops_much(field, value):
    linux = _drops("linux")
    # Measured over 0.2 s and seeds 1-3 (RTTs uniform): every other field
    # leaves the drops within 0.93-1.23 of the profile's.
    assert 0.75 < _drops("linux", **{field: value}) / linux < 1.33


def test_rfc6675_low_loss_is_flows_stalled_behind_a_lost_retransmission():
    r = bufsim.simulate(_scn("ns3", trace=True))
    f, t = r.flows, r.trace
    stalled = f[f["delivered_pkts"] < 1000]
    # Measured: 14 of 16 flows delivered 11-594 segments in order of
    # 7,000-143,000 sent; 6.7% of what was sent arrived in order; no timeout.
    assert len(stalled) >= 10
    assert f["delivered_pkts"].sum() < 0.2 * f["sent_pkts"].sum()
    assert f["timeouts"].sum() == 0
    # The hole of each stalled flow (its first segment not delivered in
    # order) was dropped at the bottleneck every time it was sent: the
    # original and its retransmission (two for one flow: ns-3 resends the
    # head on a partial ACK, `partial_ack_retransmit`), none after.
    for _, row in stalled.iterrows():
        hole = t[(t["flow"] == row["flow"]) & (t["seq"] == row["delivered_pkts"])]
        sent = (hole["event"] == "enqueue").sum()
        assert sent >= 2
        assert (hole["event"] == "drop_overflow").sum() == sent
    # Repaired by a 1 ms minimum RTO, the holes stop stalling the flows and
    # the ns3 profile drops as the linux one does (measured 63,023 drops,
    # 275 timeouts, every flow over 12,000 segments delivered).
    fixed = bufsim.simulate(_scn("ns3", min_rto="1ms"))
    assert fixed.summary["packets_dropped"] > 10 * r.summary["packets_dropped"]
    assert fixed.flows["delivered_pkts"].min() > 5000


def test_bbr_v1_cwnd_carries_three_send_quanta_at_microsecond_rtts():
    r = bufsim.simulate(_scn("linux", buffer="8BDP"))
    f, s = r.flows, r.summary
    bdp = f["throughput_bps"] * f["rtt_s"] / (1500 * 8)
    extra = (f["final_cwnd_pkts"] - 2 * bdp).head(8)
    # The eight shortest-RTT flows (10-52 us): cwnd is 2 x BDP plus 3 quanta
    # of 43 packets (64 KB; Linux bbr_quantization_budget), measured
    # 122-135 packets above 2 x BDP.
    assert extra.between(129 - 15, 129 + 15).all()
    # So the standing queue is far above the 1 BDP that a 2 BDP inflight
    # leaves: measured 2,737 packets (6.0 BDP) in 8 BDP of buffer.
    assert s["mean_queue_pkts"] > 4 * BDP_PKTS


def test_linux_profile_keeps_a_4_bdp_buffer_full():
    s = bufsim.simulate(_scn("linux", buffer="4BDP")).summary
    # At 0.2 s, 1,762 of 1,833 packets at about 14% loss: the quanta above
    # hold more than the buffer. Measured: 1,760 packets,
    # 45,648 drops (9.9%).
    assert s["mean_queue_pkts"] > 0.9 * 4 * BDP_PKTS
    assert s["drop_rate"] > 0.05
    # One-segment quanta (ns-3's TcpBbr, `send_quantum = "segment"`) take
    # the quanta out of cwnd: measured 3,513 drops (0.8%), 1,437 packets
    # (0.2 s, RTTs uniform, seeds 1-3: 579-3,404 drops against
    # 184,327-202,670).
    raw = _scn("linux", buffer="4BDP")
    raw["flows"][0]["tcp_params"] = {"send_quantum": "segment"}
    one = bufsim.simulate(raw).summary
    assert one["packets_dropped"] < s["packets_dropped"] / 10


def test_stalled_flows_report_no_goodput_beyond_their_in_order_delivery():
    r = bufsim.simulate(_scn("ns3"))
    # 6.7% of what was sent arrived in order, yet the summary reports
    # 99.9 Gbps of goodput (measured). In-order payload bounds goodput.
    in_order_bps = r.flows["delivered_pkts"].sum() * 1500 * 8 / 0.05
    assert r.summary["goodput_bps"] <= 1.05 * in_order_bps


# BBR v3 flows of one RTT (500 Mbps, 10 flows, RTT 80 ms, 1 BDP, 40 s, about
# 0.3 s of CPU a run).


def _v3(start: Any, seed: int) -> dict[str, Any]:
    flows = {
        "count": 10,
        "tcp": "bbr",
        "tcp_params": {"version": 3},
        "rtt": "80ms",
        "mss": "1500B",
        "stack": "linux",
        "start": start,
    }
    return {
        "name": "bbr3-fairness",
        "duration": "40s",
        "warmup": "0s",
        "seed": seed,
        "link": {"capacity": "500Mbps", "delay": "20ms", "buffer": "1BDP", "packet_size": "1500B"},
        "flows": [flows],
    }


def test_bbr_v3_flows_starting_together_share_equally():
    s = bufsim.simulate(_v3("0s", 1)).summary
    # Measured: Jain 0.966, the same for seeds 1-3 (no random element).
    # 0.915 while the socket ran PRR before BBR in a fast recovery (the
    # parent of the change that gave BBR its own recovery window, built and
    # run on this scenario): that change raised it, it did not lower it.
    # 0.930 with Linux's per-ACK loss check (bbr_adapt_upper_bounds) in
    # place of the round's (docs/engines.md). While ProbeBW_UP ended after
    # one min_rtt once inflight passed 1.25 BDP (BBRv2's rule), 0.998: each
    # probe stayed small. The draft's BBRIsTimeToGoDown probes until the
    # delivery rate stops growing, and a probe's loss cuts the inflight_hi
    # of the flows probing then.
    assert s["jain_index"] > 0.95


def test_bbr_v3_flows_starting_apart_share_better_than_before():
    # Starts uniform over 0-2 s (the run): Jain over the 40 s
    # 0.609, 0.494, 0.585 (seeds 1-3; 0.609, 0.493, 0.558 before a timeout
    # inside a fast recovery restored the saved cwnd at its end, 0.638,
    # 0.521, 0.559 while the socket ran PRR before BBR in a fast recovery). The split is the staggered
    # Startups' and decays over minutes, not a defect of the 40 s: see
    # test_bbr_v3_flows_starting_apart_converge_over_minutes and
    # docs/engines.md for the runs and the mechanism.
    #
    # Earlier measurements of this scenario (seed 1-3 Jain): 0.636, 0.457,
    # 0.527 before Linux's v3 probing rules (google/bbr tcp_bbr.c: after a
    # lossy probe the next ProbeBW_UP stops as its flight reaches
    # inflight_hi and, loss-free, refills a round later; DOWN capped at
    # inflight_hi; the max-bandwidth window advanced a round into DOWN;
    # inflight_hi raised to the ACKed segment's tx_in_flight;
    # BBRTargetInflight min(BDP, cwnd)); 0.40-0.42 while ProbeBW_UP ended
    # after one min_rtt (a standing queue put inflight above 1.25 BDP at
    # once, so inflight_hi rose by a packet or two per probe); 0.695, 0.489,
    # 0.620 before each lost segment was checked as Linux's
    # bbr_skb_marked_lost does. Linux's per-ACK loss check
    # (bbr_adapt_upper_bounds) in place of the round's gives 0.557 on
    # seed 1 (docs/engines.md says why it is not applied).
    jain = [
        bufsim.simulate(_v3({"uniform": ["0s", "2s"]}, k)).summary["jain_index"] for k in (1, 2)
    ]
    # Margins: 0.02 under the lower seed's 0.494, 0.01 under the mean's
    # 0.552 (0.42 and 0.51 before Linux's rules).
    assert min(jain) > 0.47
    assert sum(jain) / 2 > 0.54


@pytest.mark.slow
def test_bbr_v3_flows_starting_apart_converge_over_minutes():
    # The same ten flows (starts over 0-2 s) run 160 s, measured over the
    # last 40 s: Jain 0.894, 0.957, 0.809 (seeds 1-3, mean 0.887),
    # utilization 0.988-0.990, against 0.609, 0.494, 0.585 over the first
    # 40 s (0.878, 0.958, 0.888 before a timeout inside a fast recovery
    # restored the saved cwnd). Per 10 s window (200 s runs): seed 1 0.43
    # at 0-10 s, 0.77 at 30-40 s, 0.83-0.92 from 60 s on (one flow at 4-13
    # Mbps from 110 to 180 s, after a timeout); seed 2 0.90-0.96 from 80 s
    # on; seed 3 0.75-0.86 from 40 to 200 s. Zeynali et al. (PAM 2024) measured the
    # same in Linux's BBRv3: flows converge quickly when they start
    # together, and "if these flows, however, do not start (or arrive at
    # the bottleneck) at the same time, ... its convergence time
    # deteriorates substantially". Each probe's loss lowers the prober's
    # inflight_hi to the flight where loss crossed 2% (tcp_bbr.c
    # bbr_inflight_hi_from_lost_skb), about its own current flight whatever
    # its share: a median 6% cut (docs/engines.md).
    def late_jain(seed: int) -> float:
        s = _v3({"uniform": ["0s", "2s"]}, seed)
        s |= {"duration": "160s", "warmup": "120s"}
        return bufsim.simulate(s).summary["jain_index"]

    jain = [late_jain(k) for k in (1, 2, 3)]
    # Margins: 0.03 under the lowest seed's 0.809 and under the mean's
    # 0.887.
    assert min(jain) > 0.78
    assert sum(jain) / 3 > 0.86
