"""Goodput is the payload delivered in order (what a receiver hands to its
application), never data held above an unrepaired hole,
and a summary says what it left out (``undelivered_pkts``)."""

import bufsim
import pytest

#: 16 BBR v1 flows into an idle 100 Gbps port, RTTs 10-100 us, 1 BDP of
#: buffer, 0.2 s with no warm-up, the rfc stack named: RFC 6675 recovery
#: has no way to see a lost retransmission and RFC 6298's RTO is at least
#: 1 s, so Startup's losses leave holes for the whole run.
BBR_RFC = {
    "duration": "0.2s",
    "warmup": "0s",
    "seed": 1,
    "link": {"capacity": "100Gbps", "delay": "2us", "buffer": "1BDP", "packet_size": "1500B"},
    "flows": [
        {
            "count": 16,
            "tcp": "bbr",
            "rtt": {"uniform": ["10us", "100us"]},
            "mss": "1500B",
            "sack": True,
            "stack": "rfc",
        }
    ],
}


def _in_order_bps(flows, seconds):
    # delivered_pkts is the receiver's rcv_nxt: segments delivered in order.
    return flows["delivered_pkts"] * 1500 * 8 / seconds


def test_goodput_never_exceeds_the_in_order_delivery():
    r = bufsim.simulate(BBR_RFC)
    f = r.flows
    in_order = _in_order_bps(f, 0.2)
    # Without a warm-up every segment delivered in order crossed the
    # bottleneck inside the window: goodput is exactly the in-order data.
    assert (f["goodput_bps"] <= in_order * (1 + 1e-12)).all()
    assert f["goodput_bps"].to_numpy() == pytest.approx(in_order.to_numpy(), rel=1e-9)
    # One flow sends 1,315,603 segments but delivers 173 in order: its
    # goodput is 10.4 Mbps, not the link's 79 Gbps it carried. The
    # summary's goodput is 363 Mbps while the link stays 99.97% busy with
    # data held above holes, which the summary counts. (1,620,957, 592
    # and 174 Mbps while the rfc stack set RFC 6675's window at a fast
    # recovery's end under BBR.)
    top = f.loc[f["sent_pkts"].idxmax()]
    assert top["sent_pkts"] > 1.2e6 and top["delivered_pkts"] < 1000
    assert top["goodput_bps"] == pytest.approx(173 * 1500 * 8 / 0.2, rel=0.01)
    s = r.summary
    assert s["goodput_bps"] == pytest.approx(f["goodput_bps"].sum(), rel=1e-9)
    assert s["goodput_bps"] < 0.01 * s["capacity_bps"] < s["utilization"] * s["capacity_bps"]
    assert s["undelivered_pkts"] > 1.5e6


def test_rack_repairs_the_holes_on_the_rfc_stack():
    # The one rfc rule that keeps BBR from filling the port: with RACK-TLP (RFC 8985), the linux profile's recovery, lost
    # retransmissions are seen and resent, and goodput is 99.9 Gbps.
    scn = {**BBR_RFC, "flows": [{**BBR_RFC["flows"][0], "recovery": "rack"}]}
    s = bufsim.simulate(scn).summary
    assert s["goodput_bps"] >= 0.99 * s["capacity_bps"]


def test_goodput_with_a_warm_up_stays_below_the_in_order_delivery():
    # The golden fq scenario (4 CUBIC flows, 20 Mbps, 40 packets, fq; the
    # rfc stack named, its 1 s minimum RTO backing off): one
    # flow is backing off its RTO behind a lost retransmission from about
    # 1 s on, 518 segments delivered in order over the whole run; its
    # goodput over [1 s, 5 s] is 0.192 Mbps (counting the segments it sent
    # above the hole would give 3.375 Mbps).
    scn = {
        "duration": "5s",
        "warmup": "1s",
        "seed": 7,
        "link": {"capacity": "20Mbps", "delay": "5ms", "buffer": "40pkt", "qdisc": "fq"},
        "flows": [
            {
                "count": 4,
                "tcp": "cubic",
                "rtt": {"min": "20ms", "max": "80ms"},
                "sack": True,
                "stack": "rfc",
            }
        ],
    }
    f = bufsim.simulate(scn).flows
    assert (f["goodput_bps"] <= _in_order_bps(f, 4.0)).all()
    stuck = f.loc[f["goodput_bps"].idxmin()]
    assert stuck["delivered_pkts"] == 518
    assert stuck["goodput_bps"] == pytest.approx(0.192e6, rel=0.01)


def test_each_groups_share_of_the_goodput_sums_to_one():
    # 4 CUBIC flows and 1 BBR v1 flow, 10 Mbps, RTT 40 ms, 1 BDP: each
    # group's share is its goodput over both groups'; one group has none.
    s = {
        "duration": "6s",
        "warmup": "2s",
        "seed": 1,
        "link": {"capacity": "10Mbps", "delay": "5ms", "buffer": "1BDP"},
        "flows": [
            {"count": 4, "tcp": "cubic", "rtt": "40ms"},
            {"count": 1, "tcp": "bbr", "rtt": "40ms"},
        ],
    }
    r = bufsim.simulate(s).summary
    g0, g1 = r["goodput_bps_group0"], r["goodput_bps_group1"]
    assert r["share_group0"] == pytest.approx(g0 / (g0 + g1), rel=1e-12)
    assert abs(r["share_group0"] + r["share_group1"] - 1) < 1e-9
    assert 0 < r["share_group1"] < 1
    s["flows"] = s["flows"][:1]
    assert not any(k.startswith("share_group") for k in bufsim.simulate(s).summary)
