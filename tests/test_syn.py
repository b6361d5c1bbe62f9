"""The connection handshake on the packet engine: the SYN is a packet that
queues and can be dropped, each profile's SYN timer resends it, and what a
lost SYN changes when data begins (RFC 6298 sections 2.1, 5.5 and 5.7, RFC
5681 section 3.1; Linux and ns-3.37 as `tcp::stack::Stack::after_lost_syn`
cites them)."""

import bufsim
import numpy as np
import pytest
from bufsim.pcap import HANDSHAKE_ACK_SEQ, SYN_SEQ

# 1 Mbps, a one-packet buffer, three transfers whose SYNs reach the queue at
# the same instant (4 ms: the access delay of a 10 ms RTT over a 1 ms link):
# the first is served, the second waits, the third (the last group's) is
# dropped. The first two carry 2 segments each, done well before any SYN
# timer, so the third's SYN is resent into an empty queue.
ACCESS_S = 0.004
SYN_TX_S = 60 * 8 / 1e6  # a 60-byte SYN at 1 Mbps


def _three(stack, size="20pkt", **third):
    group = {"rtt": "10ms", "stack": stack, "connection_setup": True, "start": "0s"}
    s = {
        "duration": "8s",
        "warmup": "0s",
        "link": {"capacity": "1Mbps", "delay": "1ms", "buffer": "1pkt"},
        "flows": [
            {"count": 2, "size": "2pkt", **group},
            {"count": 1, "size": size, **group, **third},
        ],
        "output": {"trace": True},
    }
    return bufsim.simulate(s)


def _at(frame, t):
    return frame[np.isclose(frame.time_s, t, rtol=0, atol=1e-9)]


@pytest.mark.parametrize("stack, timer_s", [("linux", 1.0), ("ns3", 3.0), ("rfc", 1.0)])
def test_a_syn_dropped_at_a_full_queue_is_resent_after_the_profiles_timer(stack, timer_s):
    r = _three(stack)
    syn = r.trace[r.trace.seq == SYN_SEQ]
    assert (syn.size_bytes == 60).all()
    first = _at(syn, ACCESS_S)
    assert list(first.event) == ["enqueue", "dequeue", "enqueue", "enqueue", "drop_overflow"]
    lost = int(first[first.event == "drop_overflow"].flow.iloc[0])
    again = syn[(syn.flow == lost) & (syn.time_s > ACCESS_S + 1e-9)]
    # RFC 6298 (2.1) and Linux: 1 s; ns-3.37: ConnTimeout 3 s. Served at once.
    assert list(again.event) == ["enqueue", "dequeue"]
    assert again.time_s.iloc[0] == pytest.approx(ACCESS_S + timer_s, abs=1e-9)
    # Only the lost SYN's flow waited for it: its data begins after the
    # timer, the others' at their SYN-ACK (each first sends the handshake's
    # ACK, which takes the link's place: a 2-segment window then loses a
    # segment to the one-packet buffer, so their transfers may take an RTO).
    own = r.trace[r.trace.event == "enqueue"]
    first_data = own[own.seq >= 0].groupby("flow").time_s.min()
    assert first_data[lost] > timer_s
    assert first_data.drop(lost).max() < 0.1
    acks = own[own.seq == HANDSHAKE_ACK_SEQ]
    assert sorted(acks.flow) == sorted(r.flows.flow) and (acks.size_bytes == 40).all()


def test_a_queued_syn_waits_and_its_round_trip_includes_the_wait():
    # The second SYN waits behind the first for one SYN's serialization:
    # dequeued 0.48 ms after it arrived.
    r = _three("ns3")
    syn = r.trace[(r.trace.seq == SYN_SEQ) & (r.trace.event == "dequeue")]
    assert syn.time_s.iloc[1] - syn.time_s.iloc[0] == pytest.approx(SYN_TX_S, abs=1e-12)


def _first_round(r, flow):
    """Data segments flow ``flow`` sends in its first round trip."""
    t = r.trace
    own = t[(t.flow == flow) & (t.event == "enqueue")]
    data = own[own.seq >= 0]
    start = data.time_s.iloc[0]
    return int((data.time_s < start + 0.009).sum())


def test_after_a_lost_syn_each_profile_starts_as_its_stack_does():
    # One SYN retransmission, an initial window of 10: RFC 5681 section 3.1
    # starts with one segment, Linux keeps its 10 (tcp_init_transfer resets
    # cwnd after two or more), ns-3.37 its initial window always.
    for stack, iw in (("rfc", 1), ("linux", 10), ("ns3", 10)):
        r = _three(stack, initial_window=10)
        lost = int(r.trace[r.trace.event == "drop_overflow"].flow.iloc[0])
        assert _first_round(r, lost) == iw, stack


def test_ns3_times_the_handshake_from_the_first_syn():
    # ns-3.37 never marks a resent SYN's zero-length history entry resent
    # (TcpSocketBase::UpdateRttHistory), so EstimateRtt times the SYN-ACK
    # from the first SYN: the first sample is the 3 s SYN timer longer than
    # the last SYN's round trip. After the one data segment's sample SRTT =
    # 7/8 R0 + 1/8 R1 (RFC 6298 (2.3)), so the two SRTTs differ by 7/8 x 3 s.
    srtt = {
        rule: _three("ns3", size="1pkt", rtt_sampling=rule).flows.srtt_s.iloc[2]
        for rule in ("ns3", "rfc")
    }
    assert srtt["rfc"] < 0.05
    assert srtt["ns3"] - srtt["rfc"] == pytest.approx(0.875 * 3.0, abs=1e-9)


def test_a_syn_is_written_to_pcap_with_the_syn_flag(tmp_path):
    import struct

    r = _three("linux")
    path = tmp_path / "x.pcap"
    r.to_pcap(path)
    raw = path.read_bytes()[24:]
    flags, seqs, sizes = [], [], []
    while raw:
        incl = struct.unpack("<I", raw[8:12])[0]
        pkt, raw = raw[16 : 16 + incl], raw[16 + incl :]
        if pkt[9] == 6:
            seqs.append(struct.unpack(">I", pkt[24:28])[0])
            flags.append(pkt[33])
            sizes.append(struct.unpack(">H", pkt[2:4])[0])
    # The first packets served: two SYNs, then the first flow's handshake
    # ACK (a 40-byte pure ACK whose sequence number is its first data
    # byte's); the resent third SYN is served at 1 s after the first two
    # flows' data began.
    assert flags[:2] == [0x02, 0x02] and seqs[:2] == [0xFFFFFFFF, 0xFFFFFFFF]
    assert (flags[2], seqs[2], sizes[2]) == (0x10, 0, 40)
    assert flags.count(0x02) == 3
    assert all(f & 0x10 for f in flags if f != 0x02)


def test_the_handshakes_ack_leads_the_data_and_is_not_ecn_capable():
    # RFC 9293 section 3.5: the ACK of the SYN-ACK, sent as the SYN-ACK
    # arrives and before the data (Linux, ns-3.37 ProcessSynSent); a pure
    # ACK is not ECN-capable (RFC 3168 section 6.1.4) where data is.
    s = {
        "duration": "1s",
        "warmup": "0s",
        "link": {"capacity": "10Mbps", "delay": "5ms", "buffer": "20pkt"},
        "flows": [{"rtt": "20ms", "stack": "linux", "ecn": True, "size": "3pkt"}],
        "output": {"trace": True},
    }
    t = bufsim.simulate(s).trace
    t = t[t.event == "enqueue"]
    assert list(t.seq[:3]) == [SYN_SEQ, HANDSHAKE_ACK_SEQ, 0]
    ack, data = t.iloc[1], t.iloc[2]
    assert ack.time_s == data.time_s and ack.time_s > t.time_s.iloc[0] + 0.019
    assert (ack.size_bytes, ack.ecn, data.ecn) == (40, 0, 1)
    # Without the handshake, neither the SYN nor its ACK.
    s["flows"][0]["connection_setup"] = False
    t = bufsim.simulate(s).trace
    assert (t.seq >= 0).all()


@pytest.mark.parametrize("control_ect, ecn", [(None, 1), ("rfc", 0)])
def test_dctcp_syn_and_handshake_ack_carry_ect_by_control_ect(control_ect, ecn):
    # Linux sets ECT on every packet of a socket whose congestion control
    # needs ECN (tcp_ecn_send_syn: INET_ECN_xmit), its SYN and pure ACKs
    # too; RFC 3168 section 6.1.1 keeps it off them (control_ect = "rfc").
    rule = {} if control_ect is None else {"control_ect": control_ect}
    s = {
        "duration": "0.1s",
        "warmup": "0s",
        "link": {"capacity": "10Mbps", "delay": "5ms", "buffer": "20pkt"},
        "flows": [{"rtt": "20ms", "stack": "linux", "tcp": "dctcp", "size": "3pkt", **rule}],
        "output": {"trace": True},
    }
    t = bufsim.simulate(s).trace
    t = t[t.event == "enqueue"]
    assert list(t.seq[:3]) == [SYN_SEQ, HANDSHAKE_ACK_SEQ, 0]
    assert list(t.ecn[:3]) == [ecn, ecn, 1]
