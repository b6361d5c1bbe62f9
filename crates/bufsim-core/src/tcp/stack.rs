//! Stack profiles: named bundles of sender and receiver defaults that make a
//! flow group behave like the RFCs, like Linux, like ns-3 or like ns-2
//! (`flows[].stack`). Each field of a profile can still be set on its own in
//! the scenario; a profile only fills what the scenario leaves unset.
//!
//! The RFCs, Linux, ns-3 and ns-2 differ in details that move buffer-sizing
//! results: the initial window, the minimum RTO, delayed ACKs, how the
//! window is cut during a recovery (PRR) and whether slow start exits
//! before it overshoots (HyStart). The table lives here once; the README
//! prints it.

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::units::SimTime;

/// A named bundle of defaults.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Stack {
    /// The RFCs as bufsim's reproductions of the papers use them (each
    /// reproduction names it, so its numbers stay whatever the default).
    Rfc,
    /// Linux: the default, what an operator's hosts run.
    #[default]
    Linux,
    /// ns-3's TCP models.
    Ns3,
    /// ns-2.35's one-way TCP agents (`Agent/TCP/Newreno`, `Sack1`) and
    /// sinks with their defaults (`tcl/lib/ns-default.tcl`), the simulator
    /// the papers ran.
    Ns2,
}

/// How slow start counts an ACK (`flows[].abc`): RFC 5681's one segment,
/// Linux's every acknowledged segment up to ssthresh, or ns-3.37 CUBIC's
/// every acknowledged segment with no cap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlowStart {
    /// RFC 5681 section 3.1 eq. (2): `cwnd += min(N, SMSS)` per ACK
    /// (`abc = false`).
    PerAck,
    /// Every acknowledged segment, capped at ssthresh, the rest of the ACK
    /// going to congestion avoidance (Linux `tcp_slow_start`; `abc = true`).
    Capped,
    /// Every acknowledged segment, with no cap at ssthresh and nothing to
    /// congestion avoidance on that ACK (ns-3.37 `TcpCubic::IncreaseWindow`,
    /// `abc = "uncapped"`): after a timeout, the ACK that repairs the hole
    /// adds every segment SACKed beyond it at once.
    Uncapped,
}

impl SlowStart {
    /// The rule a scenario's `abc` value names: `false`, `true` or
    /// `"uncapped"`.
    pub fn parse(v: &serde_json::Value) -> Option<SlowStart> {
        match v {
            serde_json::Value::Bool(false) => Some(SlowStart::PerAck),
            serde_json::Value::Bool(true) => Some(SlowStart::Capped),
            serde_json::Value::String(s) if s == "uncapped" => Some(SlowStart::Uncapped),
            _ => None,
        }
    }

    /// Slow start counts every acknowledged segment, not one per ACK.
    pub fn counts_segments(self) -> bool {
        self != SlowStart::PerAck
    }
}

impl Serialize for SlowStart {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            SlowStart::PerAck => s.serialize_bool(false),
            SlowStart::Capped => s.serialize_bool(true),
            SlowStart::Uncapped => s.serialize_str("uncapped"),
        }
    }
}

/// A rule a flow field names from a fixed list (`rto_ssthresh`,
/// `rto_collapse`, `rto_timer`, `recovery_entry`, `sack_pipe`, `recovery_exit`, `cut_from`, `ecn_reduction`, `ce_ack`, `prr_variant`,
/// `rtt_sampling`, `control_ect`).
pub trait NamedRule: Copy + 'static {
    /// Every rule, by its scenario name.
    const ALL: &'static [(Self, &'static str)];

    /// The rule called `name`, if any.
    fn parse(name: &str) -> Option<Self> {
        Self::ALL.iter().find(|(_, n)| *n == name).map(|&(r, _)| r)
    }

    /// The names, comma-separated (for error messages).
    fn names() -> String {
        Self::ALL
            .iter()
            .map(|(_, n)| *n)
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// How a retransmission timeout inside a loss episode (a fast recovery, or
/// an earlier timeout not yet repaired) sets ssthresh; outside one every
/// stack applies the variant's timeout rule (RFC 5681 eq. (4) for Reno),
/// to FlightSize, or to the pipe estimate under `Pipe`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RtoSsthresh {
    /// RFC 5681 section 3.1: "no more than" eq. (4): the episode's ssthresh,
    /// lowered to max(FlightSize / 2, 2) where that is smaller.
    Rfc5681,
    /// Linux (`tcp_enter_loss`): the episode's ssthresh, unchanged.
    Keep,
    /// ns-3.37 (`TcpSocketBase::ReTxTimeout`): recomputed by the variant
    /// from the pipe estimate at every timeout, a repeated one in CA_LOSS
    /// too (its guard against that reads a flag the same function has just
    /// cleared).
    Pipe,
}

impl NamedRule for RtoSsthresh {
    const ALL: &'static [(RtoSsthresh, &'static str)] = &[
        (RtoSsthresh::Rfc5681, "rfc5681"),
        (RtoSsthresh::Keep, "keep"),
        (RtoSsthresh::Pipe, "pipe"),
    ];
}

/// When a retransmission timeout backed off by a timeout comes back down
/// to SRTT + 4 RTTVAR (`flows[].rto_collapse`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RtoCollapse {
    /// RFC 6298 section 5: the backed-off RTO stays until a new RTT
    /// sample, which "can only happen when new data has been sent and
    /// acknowledged", recomputes it ("'collapsing' RTO back down"); an
    /// ACK of retransmitted data restarts the timer with the backed-off
    /// value. Linux: net/ipv4/tcp_input.c tcp_ack_update_rtt, "RFC6298:
    /// only reset backoff on valid RTT measurement".
    Sample,
    /// ns-3.37 (`TcpSocketBase::NewAck`): every ACK of new data that
    /// restarts the timer recomputes "m_rto = Max(m_rtt->GetEstimate() +
    /// Max(m_clockGranularity, m_rtt->GetVariation() * 4), m_minRto)"
    /// from the estimator as it stands, sample or not, so the ACK of a
    /// timeout's retransmission ends the backoff.
    Ack,
}

impl NamedRule for RtoCollapse {
    const ALL: &'static [(RtoCollapse, &'static str)] =
        &[(RtoCollapse::Sample, "sample"), (RtoCollapse::Ack, "ack")];
}

/// When the retransmission timer runs, and what its expiry does to pacing
/// (`flows[].rto_timer`). The two differ only for a paced sender (BBR):
/// a window-limited one always has data outstanding while it has data to
/// send.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RtoTimer {
    /// RFC 6298 section 5.2: "When all outstanding data has been
    /// acknowledged, turn off the retransmission timer" (Linux:
    /// tcp_rearm_rto clears it when no packets are out); the timeout's
    /// retransmission leaves when pacing lets it, as any segment
    /// (draft-cardwell-iccrg-bbr-congestion-control-00 section 4.2.1).
    Rfc,
    /// ns-3.37: `TcpSocketBase::NewAck` restarts the timer at every ACK of
    /// new data and cancels it only when the send buffer is empty
    /// ("m_txBuffer->Size() == 0", sent and unsent bytes), so a sender
    /// with data to send whose pacing holds it longer than the RTO after
    /// its last ACK times out with nothing in flight: a timeout counted,
    /// CA_LOSS, cwnd = 1 segment, one new segment sent. And
    /// `TcpSocketBase::ReTxTimeout` cancels the pacing timer
    /// ("m_pacingTimer.Cancel()") before `SendPendingData`, so a timeout's
    /// first segment leaves at once. Still so in ns-3-dev.
    Ns3,
}

impl NamedRule for RtoTimer {
    const ALL: &'static [(RtoTimer, &'static str)] =
        &[(RtoTimer::Rfc, "rfc"), (RtoTimer::Ns3, "ns3")];
}

/// What starts a fast recovery before DupThresh duplicate ACKs
/// (`flows[].recovery_entry`; with SACK, without RACK): RFC 6675 section
/// 5 step (2), "If DupAcks < DupThresh but IsLost (HighACK + 1) returns
/// true ... go to step (4)".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RecoveryEntry {
    /// RFC 6675 section 5 step (2): the first unacknowledged segment is
    /// lost (DupThresh segments SACKed above it).
    Rfc,
    /// ns-3.37 `TcpSocketBase::DupAck` in CA_DISORDER: "else if
    /// (m_txBuffer->IsLost(m_highRxAckMark + m_tcb->m_segmentSize))", the
    /// test one segment above HighACK + 1. `TcpTxBuffer::IsLost` walks the
    /// sent list from that segment and answers with the first segment
    /// marked lost (true) or SACKed (false), so a recovery starts early
    /// only when the second unacknowledged segment is lost too. (ns-3
    /// applies no recovery-point guard to this step, but ignores
    /// duplicate ACKs in CA_LOSS, and outside it and CA_RECOVERY HighACK
    /// has reached m_recover, so section 5.1's guard, which both rules
    /// keep, never differs.) ns-3-dev tests `IsLost(m_highRxAckMark)`.
    Ns3,
}

impl NamedRule for RecoveryEntry {
    const ALL: &'static [(RecoveryEntry, &'static str)] =
        &[(RecoveryEntry::Rfc, "rfc"), (RecoveryEntry::Ns3, "ns3")];
}

/// Whether a retransmission the receiver SACKs leaves the pipe
/// (`flows[].sack_pipe`; with SACK).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SackPipe {
    /// RFC 6675 section 4, SetPipe: a retransmitted octet counts while it
    /// is neither SACKed nor acknowledged. Linux: tcp_sacktag_one lowers
    /// `retrans_out` for a SACKed retransmission.
    Rfc,
    /// ns-3.37 (`TcpTxBuffer::Update`): a SACKed segment leaves the lost
    /// count but a retransmitted one stays in `m_retrans`, which
    /// `BytesInFlight()` adds, until the cumulative ACK passes it
    /// (`DiscardUpTo`) or a timeout (`SetSentListLost`): each SACKed
    /// retransmission holds a place in the pipe for the rest of the
    /// recovery (ns-3 issue #1190, fixed in 2026).
    Ns3,
}

impl NamedRule for SackPipe {
    const ALL: &'static [(SackPipe, &'static str)] =
        &[(SackPipe::Rfc, "rfc"), (SackPipe::Ns3, "ns3")];
}

/// What the ACK that ends a loss episode adds to the window
/// (`flows[].recovery_exit`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RecoveryExit {
    /// RFC 6675 section 5 (A) ends a fast recovery at cwnd = ssthresh
    /// (RFC 6582 section 3.2 step 3 without SACK), the ACK growing
    /// nothing more; the ACK that completes a timeout's repair grows the
    /// window by the segments it acknowledges, as any other (RFC 5681).
    /// Linux also ends at ssthresh (`tcp_end_cwnd_reduction`).
    Rfc,
    /// ns-3.37 (`TcpSocketBase::ProcessAck`): leaving CA_RECOVERY,
    /// cwnd = ssthresh, then `IncreaseWindow` for every segment between the
    /// old head and the ACK, those SACKed during the recovery too (about a
    /// window); leaving CA_LOSS, for the segments past the recovery point
    /// only (`(ackNumber - m_recover) / m_segmentSize`); leaving CA_CWR
    /// (`ReceivedAck` sets cwnd = ssthresh), for the segments the ACK
    /// covers.
    Ns3,
}

impl NamedRule for RecoveryExit {
    const ALL: &'static [(RecoveryExit, &'static str)] =
        &[(RecoveryExit::Rfc, "rfc"), (RecoveryExit::Ns3, "ns3")];
}

/// Which segments the sender times for RTT samples, and what RTT the
/// congestion controller reads (`flows[].rtt_sampling`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RttSampling {
    /// One segment timed a round trip, as BSD: a new one when the timed
    /// one is acknowledged, none across a retransmission (RFC 6298
    /// section 3, Karn); the handshake's sample is the last SYN's round
    /// trip (its SYN-ACK echoes that SYN, RFC 7323); the controller reads
    /// the latest and least samples.
    Rfc,
    /// ns-3.37 without timestamps (`TcpSocketBase::EstimateRtt`,
    /// `UpdateRttHistory`): every ACK that covers the oldest outstanding
    /// segment sent once is a sample, from that segment's send time; a
    /// timeout forgets every segment sent before it (`m_history.clear()`
    /// in `ReTxTimeout`); a resent SYN is never marked resent (its entry
    /// is zero bytes long), so the handshake is timed from the first SYN;
    /// the controller reads the smoothed RTT as its RTT and the least
    /// smoothed RTT as its minimum (`m_lastRtt = m_rtt->GetEstimate()`,
    /// passed to `PktsAcked`; `m_minRtt`).
    Ns3,
}

impl NamedRule for RttSampling {
    const ALL: &'static [(RttSampling, &'static str)] =
        &[(RttSampling::Rfc, "rfc"), (RttSampling::Ns3, "ns3")];
}

/// How Proportional Rate Reduction paces a SACK fast recovery
/// (`flows[].prr_variant`; with `prr` on).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PrrVariant {
    /// RFC 9937: RecoverFS is the pipe when recovery begins; below
    /// ssthresh, PRR-SSRB on a safe ACK (snd.una advanced, no further loss
    /// indicated), PRR-CRB (`prr_delivered - prr_out`) on any other.
    Rfc9937,
    /// ns-3.37 `TcpPrrRecovery` (its default ReductionBound, SSRB):
    /// RecoverFS is `UnAckDataCount()`, snd.nxt - snd.una, as RFC 6937 had
    /// it (`EnterRecovery`); below ssthresh, SSRB's bound on an ACK of
    /// retransmitted data (`m_isRetransDataAcked`, set by
    /// `TcpSocketBase::ReceivedAck` for an ACK that advances snd.una in
    /// CA_RECOVERY and covers a retransmitted segment: every partial ACK
    /// here, the head it covers having been resent at the recovery's start
    /// or at the previous partial ACK), whatever loss it indicates, else
    /// "limit = deliveredBytes", this ACK's delivery alone, not CRB's
    /// running balance (`DoRecovery`).
    Ns3,
}

impl NamedRule for PrrVariant {
    const ALL: &'static [(PrrVariant, &'static str)] =
        &[(PrrVariant::Rfc9937, "rfc9937"), (PrrVariant::Ns3, "ns3")];
}

/// The window a variant's cut reads at a fast retransmit or an ECE
/// (`flows[].cut_from`; the controllers that cut from cwnd, as Linux's do,
/// ignore it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CutFrom {
    /// RFC 5681 eq. (4), RFC 6675 section 5 step (4.2): FlightSize, the
    /// segments sent and not cumulatively acknowledged.
    FlightSize,
    /// ns-3 (`TcpSocketBase::EnterRecovery`, `EnterCwr`): `BytesInFlight()`,
    /// the RFC 6675 pipe with the head marked lost (FlightSize less the
    /// SACKed and lost segments); without SACK, FlightSize less the
    /// duplicate ACKs counted as SACKs (`AddRenoSack`).
    Pipe,
    /// ns-2.35 (tcp.cc `TcpAgent::slowdown`, `precisionReduce_` true):
    /// `windowd()`, cwnd (at most the receiver's window), not the data
    /// outstanding. Limited Transmit's packets, sent above cwnd
    /// (`send_one`), stay out of the cut, as RFC 5681 section 3.2 step 2
    /// asks of FlightSize ("additional data sent in limited transmit MUST
    /// NOT be included in this calculation").
    Cwnd,
}

impl NamedRule for CutFrom {
    const ALL: &'static [(CutFrom, &'static str)] = &[
        (CutFrom::FlightSize, "flight_size"),
        (CutFrom::Pipe, "pipe"),
        (CutFrom::Cwnd, "cwnd"),
    ];
}

/// How the window comes down after an ECE (`flows[].ecn_reduction`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EcnReduction {
    /// RFC 3168 section 6.1.2 and RFC 8257 section 3.3: cwnd is set to the
    /// new ssthresh at once.
    Immediate,
    /// Linux and ns-3: the sender enters CWR and Proportional Rate
    /// Reduction (RFC 9937) brings the data in flight down to ssthresh over
    /// the next round trip, the window not growing meanwhile; cwnd =
    /// ssthresh when the data outstanding at the ECE is acknowledged.
    Prr,
}

impl NamedRule for EcnReduction {
    const ALL: &'static [(EcnReduction, &'static str)] = &[
        (EcnReduction::Immediate, "immediate"),
        (EcnReduction::Prr, "prr"),
    ];
}

/// How a DCTCP receiver acknowledges the segment whose CE codepoint
/// changes its echoed CE state (`flows[].ce_ack`; RFC 3168 receivers
/// ignore it). Both send the ACK owed for earlier segments at once, with
/// the old state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CeAck {
    /// RFC 8257 section 3.2 steps 1-2 ("send an immediate ACK") and Linux
    /// (net/ipv4/tcp_dctcp.h dctcp_ece_ack_update sets ICSK_ACK_NOW): the
    /// arriving segment is acknowledged at once, with the new state.
    Immediate,
    /// ns-3.37 (TcpDctcp::CeState0to1, CeState1to0): only the owed ACK goes
    /// at once; the arriving segment's ACK follows the delayed-ACK rules
    /// (TcpSocketBase::ReceivedData), so a change with nothing owed is held
    /// like any lone segment. (ns-3 also marks an ACK as owed after its
    /// delayed-ACK timer fires, DelAckTimeout calling CA_EVENT_DELAYED_ACK,
    /// and then resends an old ACK at the next change; not mirrored.)
    Delayed,
}

impl NamedRule for CeAck {
    const ALL: &'static [(CeAck, &'static str)] =
        &[(CeAck::Immediate, "immediate"), (CeAck::Delayed, "delayed")];
}

/// Whether the packets without data (the SYN, the SYN-ACK, the
/// handshake's ACK and, across a queue with two-way traffic, pure ACKs)
/// carry ECT (`flows[].control_ect`). It matters at a marking queue, which
/// drops a packet that is not ECN-capable where it would mark one: above
/// K, a threshold queue drops every such SYN.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ControlEct {
    /// RFC 3168 sections 6.1.1 and 6.1.4: "A host MUST NOT set ECT on SYN
    /// or SYN-ACK packets", nor on pure ACKs. (RFC 8311 section 4.3 lifts
    /// the ban for experiments such as ECN++, which RFC 8257's DCTCP does
    /// not call for.)
    Rfc,
    /// Every packet ECT when the congestion control needs ECN (DCTCP);
    /// otherwise as `Rfc`. Linux: net/ipv4/tcp_output.c tcp_ecn_send_syn
    /// and tcp_input.c tcp_ecn_send_synack call INET_ECN_xmit(sk) "if
    /// (tcp_ca_needs_ecn(sk))", which sets ECT in the socket's TOS, so
    /// every later packet carries it (tcp_ecn_send clears it on ACKs and
    /// retransmissions only "if (!tcp_ca_needs_ecn(sk))"). ns-3.37:
    /// TcpSocketBase::AddSocketTags, called by SendEmptyPacket too, tags
    /// ECT "if ((m_ecnState != ECN_DISABLED && p->GetSize() > 0) ||
    /// m_ecnMode == DctcpEcn)", and TcpDctcp::Init sets DctcpEcn.
    Cc,
}

impl NamedRule for ControlEct {
    const ALL: &'static [(ControlEct, &'static str)] =
        &[(ControlEct::Rfc, "rfc"), (ControlEct::Cc, "cc")];
}

/// How the socket runs a controller that sets cwnd itself from rate
/// samples (BBR: [`crate::tcp::cc::CongestionControl::owns_window`]). A
/// profile rule, not a flow field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CongControl {
    /// Linux (net/ipv4/tcp_input.c tcp_cong_control): a controller with
    /// `cong_control` (BBR, one that owns its window) alone sets cwnd in
    /// a recovery and a CWR, tcp_cong_control returning before PRR
    /// (tcp_cwnd_reduction), and BBR's ssthresh hook leaves ssthresh so
    /// that ending the reduction moves nothing; for any other controller
    /// PRR (where the profile has it) sets cwnd in a recovery and a CWR
    /// before the controller reads it. The initial window is paced,
    /// delivery rates are tcp_rate.c's
    /// (draft-cheng-iccrg-delivery-rate-estimation).
    Rfc,
    /// ns-3.37's TcpSocketBase around a controller with `CongControl`
    /// (TcpBbr, the only one in ns-3.37; bufsim applies it to the
    /// controller that mirrors it, `tcp_params.mirror = "ns-3.37"`): no
    /// recovery operations (PRR) before the controller ("if
    /// (!m_congestionControl->HasCongControl())" in EnterRecovery and
    /// ProcessAck), an ECE answered by the controller alone, the initial
    /// window unpaced (TcpSocketBase::IsPacingEnabled), TcpRateLinux's
    /// rate samples ([`crate::tcp::rate::RateSampler::ns3`]) with the
    /// least smoothed RTT, none on a stale ACK, the pipe read before the
    /// ACK's own retransmissions, and CA_EVENT_TX_START raised by
    /// SendPendingData when nothing is in flight.
    Ns3,
    /// The ns3 profile around a controller ns-3.37 does not have (the
    /// draft's BBR, `tcp_params.mirror` other than `"ns-3.37"`): Linux's
    /// rules ([`Self::Rfc`]) but for the recovery and the CWR, where the
    /// profile's PRR sets cwnd before the controller reads it, as
    /// ns-3.37's TcpSocketBase does for a controller without
    /// `CongControl`.
    Ns3Prr,
}

/// The rules of a TCP stack: the defaults a profile sets
/// ([`Stack::defaults`]) and, resolved, a flow group's (each field the
/// group sets over its profile's), which its senders and receivers carry
/// by value. Serialized as the normalized group's fields.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct StackDefaults {
    /// Initial window, segments.
    #[serde(rename = "initial_window_pkts")]
    pub initial_window: u32,
    /// Minimum retransmission timeout.
    #[serde(serialize_with = "crate::units::ser_secs", rename = "min_rto_s")]
    pub min_rto: SimTime,
    /// The retransmission timeout before the first RTT sample, for data
    /// (floored at `min_rto` as any RTO) and for the first SYN (doubled for
    /// each SYN after it): `None` keeps RFC 6298 (2.1)'s 1 s for data and
    /// the profile's [`Stack::syn_timeout`]. Serialized only when set, so
    /// a scenario without it normalizes as before (`flows[].initial_rto`).
    #[serde(
        serialize_with = "crate::units::ser_opt_secs",
        rename = "initial_rto_s",
        skip_serializing_if = "Option::is_none"
    )]
    pub initial_rto: Option<SimTime>,
    /// Delayed ACKs (ACK every second segment, RFC 5681 section 4.2).
    pub delayed_ack: bool,
    /// Proportional Rate Reduction during SACK fast recovery.
    pub prr: bool,
    /// How PRR bounds its sends.
    pub prr_variant: PrrVariant,
    /// RACK-TLP loss detection (with SACK) instead of DupThresh.
    pub rack: bool,
    /// HyStart++ (RFC 9406) in slow start.
    pub hystart: bool,
    /// How slow start counts an ACK (for a variant that does not set its
    /// own, [`Stack::slow_start`]).
    pub abc: SlowStart,
    /// ssthresh after a timeout inside a loss episode.
    pub rto_ssthresh: RtoSsthresh,
    /// When a backed-off RTO comes back down.
    pub rto_collapse: RtoCollapse,
    /// When the retransmission timer runs, and whether a timeout waits
    /// for pacing.
    pub rto_timer: RtoTimer,
    /// What starts a fast recovery before DupThresh duplicate ACKs.
    pub recovery_entry: RecoveryEntry,
    /// Whether a SACKed retransmission leaves the pipe.
    pub sack_pipe: SackPipe,
    /// What the ACK that ends a loss episode adds to the window.
    pub recovery_exit: RecoveryExit,
    /// Which segments are timed for RTT samples.
    pub rtt_sampling: RttSampling,
    /// The window the cut reads at a fast retransmit or an ECE.
    pub cut_from: CutFrom,
    /// How the window comes down after an ECE.
    pub ecn_reduction: EcnReduction,
    /// How a DCTCP receiver acknowledges a change of its CE state.
    pub ce_ack: CeAck,
    /// Whether packets without data carry ECT.
    pub control_ect: ControlEct,
    /// A SYN/SYN-ACK exchange before the first data segment, whose round
    /// trip is the sender's first RTT sample (RFC 6298 (2.2)), so that the
    /// first RTO is computed from it instead of the 1 s of RFC 6298 (2.1).
    /// The SYN crosses the path as a packet; a lost one is resent on
    /// [`Stack::syn_timeout`], and [`Stack::after_lost_syn`] says how data
    /// then starts (`flows[].connection_setup`).
    #[serde(rename = "connection_setup")]
    pub handshake: bool,
    /// The delayed-ACK timer: how long a receiver holds an ACK owed for a
    /// single in-order segment.
    #[serde(serialize_with = "crate::units::ser_secs", rename = "delack_timeout_s")]
    pub delack_timeout: SimTime,
    /// In-order segments acknowledged at once when a connection starts,
    /// before delayed ACKs begin (Linux's quick-ACK mode).
    pub quick_acks: u32,
    /// The receiver acknowledges the last segment of a transfer at once
    /// instead of holding it for the delayed-ACK timer.
    pub push_ack: bool,
    /// Limited Transmit (RFC 3042): a new segment on each of the first two
    /// duplicate ACKs, so a small window still reaches DupThresh.
    pub limited_transmit: bool,
    /// In SACK recovery, RFC 6582 section 3.2 step 3's partial-ACK rules
    /// apply as without SACK: each partial ACK retransmits the segment at
    /// the new cumulative ACK, and only the first resets the retransmission
    /// timer (the "Impatient" variant of its section 4), where RFC 6298
    /// section 5.3 restarts it on every ACK of new data.
    pub partial_ack_retransmit: bool,
    /// An ACK that advances snd.una and SACKs new data (a duplicate ACK by
    /// RFC 6675 section 2, "regardless of its status as a cumulative
    /// acknowledgment") grows cwnd by the segments it acknowledges, as any
    /// ACK of new data does (RFC 5681 section 3.1).
    pub dupack_growth: bool,
    /// How the socket runs a controller that sets cwnd itself (a profile
    /// rule, not in the normalized scenario).
    #[serde(skip)]
    pub cong_control: CongControl,
}

/// How a connection starts after a SYN timeout ([`Stack::after_lost_syn`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LostSyn {
    /// The SYN-ACK's round trip is an RTT sample (from the SYN that
    /// [`RttSampling`] times: the last, or ns-3's first).
    pub sample: bool,
    /// Without a sample, the RTO data starts with (else the initial 1 s).
    pub rto: Option<SimTime>,
    /// The initial window is one segment.
    pub one_segment: bool,
}

/// ns-3's TCP segment size for a flow whose scenario `mss` is
/// `mss_bytes`, bytes: the scenario's `mss` is the packet on the wire
/// there, so its TCP `SegmentSize` is the MSS less 40 bytes of IPv4 and
/// TCP headers (`HEADERS` in bufsim's ns-3 driver,
/// `python/bufsim/ns3/driver.cc`).
pub fn ns3_segment_bytes(mss_bytes: u32) -> u32 {
    mss_bytes.saturating_sub(40).max(1)
}

impl Stack {
    /// Every profile, in the order the README lists them.
    pub const ALL: [Stack; 4] = [Stack::Rfc, Stack::Linux, Stack::Ns3, Stack::Ns2];

    /// The profile's name in scenarios.
    pub fn name(self) -> &'static str {
        match self {
            Stack::Rfc => "rfc",
            Stack::Linux => "linux",
            Stack::Ns3 => "ns3",
            Stack::Ns2 => "ns2",
        }
    }

    /// The profile called `name`, if any.
    pub fn parse(name: &str) -> Option<Stack> {
        Stack::ALL.into_iter().find(|s| s.name() == name)
    }

    /// How slow start counts an ACK for `variant` under this profile: the
    /// profile's `abc`, except where ns-3.37's variant has its own rule.
    pub fn slow_start(self, variant: &str) -> SlowStart {
        match (self, variant) {
            //= ns-3.37 src/internet/model/tcp-cubic.cc
            //= TcpCubic::IncreaseWindow: in slow start "tcb->m_cWnd +=
            //= segmentsAcked * tcb->m_segmentSize; segmentsAcked = 0;" (its
            //= comment: RFC 3465's byte counting, to approximate Linux's
            //= quick ACKs), with neither RFC 3465's L limit nor a cap at
            //= ssthresh. Unchanged in ns-3-dev (2026).
            (Stack::Ns3, "cubic") => SlowStart::Uncapped,
            //= ns-3.37 TcpDctcp derives TcpLinuxReno, whose SlowStart is
            //= "std::min((sndCwnd + (segmentsAcked * tcb->m_segmentSize)),
            //= (uint32_t)tcb->m_ssThresh)" (tcp-linux-reno.cc).
            (Stack::Ns3, "dctcp") => SlowStart::Capped,
            _ => self.defaults().abc,
        }
    }

    /// The `tcp_params` this profile gives `variant` (a flow group's own
    /// `tcp_params` override each key): what the profile's simulator
    /// implements where it departs from the variant's specification: under
    /// `ns3` ns-3.37's model of each variant (`mirror`) and the parameters
    /// ns-3.37 fixes; under `linux` Linux's BBR v3 (`mirror = "linux"`).
    /// Adding a profile is a column here and in [`Stack::defaults`].
    pub fn cc_params(self, variant: &str) -> Map<String, Value> {
        let params = match (self, variant) {
            //= ns-3.37 src/internet/model/tcp-cubic.cc: no TcpFriendliness
            //= attribute (added in ns-3.41), whole segments (TcpCubic::Update).
            (Stack::Ns3, "cubic") => json!({"reno_friendly": false, "mirror": "ns-3.37"}),
            //= ns-3.37 tcp-highspeed.cc TableLookupA/B: RFC 3649 appendix B.
            (Stack::Ns3, "highspeed") => json!({"mirror": "ns-3.37"}),
            //= ns-3.37 tcp-scalable.cc: Reno's increase below AIFactor segments
            //= (the driver sets AIFactor = 1/a, 100 for bufsim's a = 0.01);
            //= GetSsThresh cuts by MDFactor at every window.
            (Stack::Ns3, "scalable") => json!({
                "low_window": 100, "legacy_decrease": false, "mirror": "ns-3.37"
            }),
            //= ns-3.37 tcp-htcp.cc: the increase in bytes of the segment.
            (Stack::Ns3, "htcp") => json!({"mirror": "ns-3.37"}),
            //= ns-3.37 tcp-bbr.cc TcpBbr::SetSendQuantum: "m_sendQuantum = 1 *
            //= m_segmentSize".
            (Stack::Ns3, "bbr") => json!({"send_quantum": "segment", "mirror": "ns-3.37"}),
            //= google/bbr v3 net/ipv4/tcp_bbr.c: the v3 probing rules the
            //= draft lacks (prev_probe_too_high, stopped_risky_probe); BBR
            //= v1 reads nothing from it.
            (Stack::Linux, "bbr") => json!({"mirror": "linux"}),
            _ => json!({}),
        };
        match params {
            Value::Object(m) => m,
            _ => Map::new(),
        }
    }

    /// A group's `tcp_params` under this profile: [`Stack::cc_params`]
    /// with the group's `given` keys over them.
    pub fn tcp_params(
        self,
        variant: &str,
        given: Option<&Map<String, Value>>,
    ) -> Map<String, Value> {
        let mut m = self.cc_params(variant);
        if let Some(g) = given {
            m.extend(g.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        m
    }

    /// How long a connection waits for the SYN-ACK of its first SYN; each
    /// later SYN waits twice the one before (RFC 6298 section 5.5), at most
    /// the 60 s ceiling of the retransmission timer (section 2 (2.5)).
    pub fn syn_timeout(self) -> SimTime {
        match self {
            //= RFC 6298 section 2 (2.1): "Until a round-trip time (RTT)
            //= measurement has been made ..., the sender SHOULD set RTO <- 1
            //= second". Linux: include/net/tcp.h TCP_TIMEOUT_INIT (1*HZ,
            //= "RFC6298 2.1 initial RTO value"), doubled by
            //= tcp_retransmit_timer (kernels with tcp_syn_linear_timeouts
            //= resend the first SYNs at 1 s intervals instead).
            Stack::Rfc | Stack::Linux => SimTime::from_millis(1000),
            //= ns-3.37 TcpSocket attribute ConnTimeout (3 s);
            //= TcpSocketBase::SendEmptyPacket: "m_rto = m_cnTimeout *
            //= backoffCount", backoffCount doubling with each SYN.
            Stack::Ns3 => SimTime::from_millis(3000),
            //= ns-2.35 tcl/lib/ns-default.tcl: "Agent/TCP set rtxcur_init_
            //= 3.0", the RTO before any sample (TcpAgent::rtt_init, tcp.cc),
            //= doubled by rtt_backoff at each timeout.
            Stack::Ns2 => SimTime::from_millis(3000),
        }
    }

    /// What a connection whose SYN was resent `resent` times (at least
    /// once) does when data begins: whether the SYN-ACK's round trip is an
    /// RTT sample, the RTO data starts with when it is not, and whether the
    /// initial window is one segment.
    pub fn after_lost_syn(self, resent: u32) -> LostSyn {
        match self {
            //= RFC 6298 section 3 (Karn): no sample from a retransmitted
            //= segment; section 5.7: "If the timer expires awaiting the ACK
            //= of a SYN segment and the TCP implementation is using an RTO
            //= less than 3 seconds, the RTO MUST be re-initialized to 3
            //= seconds when data transmission begins". RFC 5681 section
            //= 3.1: "if the SYN or SYN/ACK is lost, the initial window used
            //= by a sender after a correctly transmitted SYN MUST be one
            //= segment".
            Stack::Rfc => LostSyn {
                sample: false,
                rto: Some(SimTime::from_millis(3000)),
                one_segment: true,
            },
            //= Linux: the SYN-ACK echoes the timestamp of the SYN it answers,
            //= a sample (tcp_ack_update_rtt, tcp_rtt_tsopt_us), so the RTO is
            //= computed from it (TCP_TIMEOUT_FALLBACK only without a
            //= sample, tcp_init_metrics); tcp_init_transfer: "if
            //= (tp->total_retrans > 1 && tp->undo_marker) tcp_snd_cwnd_set(tp,
            //= 1)", one segment after two or more SYN retransmissions.
            Stack::Linux => LostSyn {
                sample: true,
                rto: None,
                one_segment: resent >= 2,
            },
            //= ns-3.37 TcpSocketBase::ProcessSynSent: EstimateRtt on the
            //= SYN-ACK; the initial window is set unconditionally
            //= ("m_tcb->m_cWnd = GetInitialCwnd() * GetSegSize()"). Which
            //= SYN the sample runs from is `rtt_sampling`'s (ns-3's: the
            //= first, RttSampling::Ns3).
            Stack::Ns3 => LostSyn {
                sample: true,
                rto: None,
                one_segment: false,
            },
            //= ns-2.35 tcp.cc TcpAgent::output: a resent SYN (seqno 0) sets
            //= rtt_active_ again but keeps rtt_seq_ and rtt_ts_ ("if (seqno >
            //= rtt_seq_)"), so newack samples the SYN-ACK from the first SYN
            //= (bufsim times the one `rtt_sampling` says); TcpAgent::timeout:
            //= "(highest_ack_ == -1) && (wnd_init_option_ == 1) && (wnd_init_
            //= > 1) && bugfix_ss_" sets wnd_init_ = 1 (bugfix_ss_ 1,
            //= ns-default.tcl), the window the SYN's ACK opens.
            Stack::Ns2 => LostSyn {
                sample: true,
                rto: None,
                one_segment: true,
            },
        }
    }

    /// The profile's defaults.
    pub fn defaults(self) -> StackDefaults {
        match self {
            Stack::Rfc => StackDefaults {
                //= RFC 5681 section 3.1: IW may be up to 4 segments (RFC 3390),
                //= 1 being the classic value the papers' ns-2 runs used.
                initial_window: 1,
                //= RFC 6298 section 2 (2.4): "RTO ... should be rounded up to
                //= 1 second".
                min_rto: SimTime::from_millis(1000),
                initial_rto: None,
                // The papers' ns-2 runs ACK every segment.
                delayed_ack: false,
                prr: false,
                prr_variant: PrrVariant::Rfc9937,
                rack: false,
                hystart: false,
                //= RFC 5681 section 3.1 eq. (2): "cwnd += min (N, SMSS)" per ACK.
                abc: SlowStart::PerAck,
                rto_ssthresh: RtoSsthresh::Rfc5681,
                //= RFC 6298 section 5: a new RTT sample collapses the RTO.
                rto_collapse: RtoCollapse::Sample,
                rto_timer: RtoTimer::Rfc,
                recovery_entry: RecoveryEntry::Rfc,
                //= RFC 6675 section 4, SetPipe.
                sack_pipe: SackPipe::Rfc,
                recovery_exit: RecoveryExit::Rfc,
                rtt_sampling: RttSampling::Rfc,
                //= RFC 6675 section 5 step (4.2): "ssthresh = cwnd = (FlightSize / 2)".
                cut_from: CutFrom::FlightSize,
                //= RFC 3168 section 6.1.2: "the TCP source halves the
                //= congestion window"; RFC 8257 section 3.3 step 10 for DCTCP.
                ecn_reduction: EcnReduction::Immediate,
                //= RFC 8257 section 3.2: "send an immediate ACK".
                ce_ack: CeAck::Immediate,
                //= RFC 3168 section 6.1.1: no ECT on a SYN or SYN-ACK;
                //= section 6.1.4: nor on a pure ACK.
                control_ect: ControlEct::Rfc,
                // The papers' ns-2 runs start sending at once (no SYN), so
                // the first RTO is RFC 6298 (2.1)'s 1 s.
                handshake: false,
                //= RFC 5681 section 4.2: the delay "MUST be less than 0.5
                //= seconds"; 200 ms is the common timer (BSD's, ns-2's).
                delack_timeout: SimTime::from_millis(200),
                quick_acks: 0,
                push_ack: false,
                //= RFC 5681 section 3.2: a TCP SHOULD use RFC 3042's Limited
                //= Transmit; off here, the RFCs' floor (as an initial window
                //= of 1). ns-2.35, Linux and ns-3 send the new segments:
                //= the `ns2`, `linux` and `ns3` profiles.
                limited_transmit: false,
                //= RFC 6675 section 5: in a SACK recovery segments are resent
                //= as NextSeg finds them lost, not on partial ACKs.
                partial_ack_retransmit: false,
                //= RFC 5681 section 3.1: cwnd grows on every ACK that
                //= acknowledges new data.
                dupack_growth: true,
                cong_control: CongControl::Rfc,
            },
            Stack::Linux => StackDefaults {
                //= include/net/tcp.h TCP_INIT_CWND = 10 (RFC 6928).
                initial_window: 10,
                //= include/net/tcp.h TCP_RTO_MIN = HZ / 5 (200 ms). (Linux
                //= floors the RTTVAR term with it, RTO >= SRTT + 200 ms;
                //= bufsim floors the whole RTO, as RFC 6298 (2.4).)
                min_rto: SimTime::from_millis(200),
                initial_rto: None,
                //= net/ipv4/tcp_input.c __tcp_ack_snd_check: an ACK for every
                //= second full-sized segment, otherwise delayed (after the
                //= quick-ACK start, `quick_acks` below).
                delayed_ack: true,
                //= net/ipv4/tcp_input.c tcp_cwnd_reduction, called for every
                //= controller in Recovery: PRR is always on, with the
                //= slow-start bound on ACKs that advance snd_una and mark no
                //= new loss (RFC 9937's rule).
                prr: true,
                prr_variant: PrrVariant::Rfc9937,
                //= net/ipv4/tcp_ipv4.c tcp_sk_init: tcp_recovery =
                //= TCP_RACK_LOSS_DETECTION and tcp_early_retrans = 3 (TLP).
                rack: true,
                //= net/ipv4/tcp_cubic.c hystart = 1: CUBIC leaves slow start
                //= when the RTT rises by clamp(min_rtt / 8, 4 ms, 16 ms) (or on
                //= an ACK train), with ssthresh = cwnd. HyStart++ (RFC 9406)
                //= has the same delay test and adds five rounds of
                //= Conservative Slow Start; bufsim models Linux with it.
                hystart: true,
                //= net/ipv4/tcp_cong.c tcp_slow_start: "cwnd = min(cwnd +
                //= acked, ssthresh)", acked counting every delivered segment.
                abc: SlowStart::Capped,
                //= net/ipv4/tcp_input.c tcp_enter_loss: ssthresh is recomputed
                //= only from the Open/Disorder states.
                rto_ssthresh: RtoSsthresh::Keep,
                //= tcp_ack_update_rtt: "only reset backoff on valid RTT
                //= measurement" (icsk_backoff = 0 after tcp_set_rto).
                rto_collapse: RtoCollapse::Sample,
                rto_timer: RtoTimer::Rfc,
                //= Linux detects loss by RACK (this profile's `rack`), which
                //= replaces the rule.
                recovery_entry: RecoveryEntry::Rfc,
                //= tcp_sacktag_one: a SACKed retransmission lowers
                //= retrans_out ("tp->retrans_out -= pcount").
                sack_pipe: SackPipe::Rfc,
                //= Linux tcp_end_cwnd_reduction: cwnd = ssthresh; the ACK then
                //= grows it by the segments it newly delivers (tcp_cong_avoid
                //= with acked_sacked), at most a segment or two: RFC's.
                recovery_exit: RecoveryExit::Rfc,
                // Linux times every ACK too (tcp_clean_rtx_queue ->
                // tcp_ack_update_rtt, with timestamps from their echo) but
                // smooths with its own estimator (tcp_rtt_estimator's
                // mdev_max, RTTVAR decaying once a round trip); not
                // mirrored: RFC 6298's estimator over one segment a round
                // trip.
                rtt_sampling: RttSampling::Rfc,
                // Linux's Reno and CUBIC cut from snd_cwnd
                // (tcp_reno_ssthresh, bictcp_recalc_ssthresh), as bufsim's
                // controllers other than NewReno do; NewReno here keeps
                // RFC 5681's FlightSize, which a window-limited bulk flow
                // makes equal to cwnd.
                cut_from: CutFrom::FlightSize,
                //= net/ipv4/tcp_input.c tcp_enter_cwr -> tcp_init_cwnd_reduction,
                //= then tcp_cong_control -> tcp_cwnd_reduction while
                //= tcp_in_cwnd_reduction (CA_CWR): PRR, no window growth.
                ecn_reduction: EcnReduction::Prr,
                //= net/ipv4/tcp_dctcp.h dctcp_ece_ack_update: "CE state has
                //= changed, force an immediate ACK" (ICSK_ACK_NOW).
                ce_ack: CeAck::Immediate,
                //= net/ipv4/tcp_output.c tcp_ecn_send_syn, tcp_input.c
                //= tcp_ecn_send_synack: "if (tcp_ca_needs_ecn(sk))
                //= INET_ECN_xmit(sk)".
                control_ect: ControlEct::Cc,
                //= net/ipv4/tcp_input.c tcp_rcv_synsent_state_process -> tcp_ack
                //= -> tcp_clean_rtx_queue: the SYN-ACK acknowledges the SYN and
                //= its round trip is the first RTT sample (tcp_ack_update_rtt).
                handshake: true,
                //= include/net/tcp.h TCP_ATO_MIN = TCP_DELACK_MIN = HZ / 25
                //= (40 ms): the ACK timeout a connection starts with, and the
                //= one tcp_event_data_recv keeps while segments arrive less
                //= than TCP_ATO_MIN / 2 apart (any flow that fills a window).
                //= It grows toward TCP_DELACK_MAX (200 ms) only for segments
                //= arriving further apart, which bufsim does not model.
                delack_timeout: SimTime::from_millis(40),
                //= net/ipv4/tcp_input.c tcp_init_transfer ->
                //= tcp_enter_quickack_mode(sk, TCP_MAX_QUICKACKS): the first
                //= 16 segments are acknowledged at once (include/net/tcp.h
                //= TCP_MAX_QUICKACKS = 16; tcp_incr_quickack caps it at half
                //= the receive window in segments, at least 16 with a 64 KB
                //= initial window).
                quick_acks: 16,
                //= net/ipv4/tcp.c tcp_cleanup_rbuf: when the application reads
                //= data that came with PSH (the end of what the peer wrote,
                //= ICSK_ACK_PUSHED) and an ACK is scheduled, it is sent at
                //= once; so the last segment of a transfer is not held for
                //= the timer.
                push_ack: true,
                //= net/ipv4/tcp_input.c tcp_add_reno_sack / tcp_sacktag_write_queue
                //= count a duplicate ACK's segment as sacked_out, and
                //= tcp_packets_in_flight = packets_out - (sacked_out +
                //= lost_out) + retrans_out: the first duplicate ACKs open the
                //= window for new segments with cwnd unchanged (RFC 3042's
                //= effect).
                limited_transmit: true,
                // Linux resends on partial ACKs only without SACK
                // (tcp_input.c tcp_newreno_mark_lost); with SACK its
                // scoreboard and RACK decide.
                partial_ack_retransmit: false,
                //= net/ipv4/tcp_input.c tcp_may_raise_cwnd: "only grow cwnd on
                //= in-order delivery" is FLAG_DATA_ACKED, snd.una advanced,
                //= whatever the ACK SACKs.
                dupack_growth: true,
                cong_control: CongControl::Rfc,
            },
            Stack::Ns3 => StackDefaults {
                //= ns-3 TcpSocket attribute InitialCwnd (default 10).
                initial_window: 10,
                //= ns-3 TcpSocketBase attribute MinRto (default 1 s).
                min_rto: SimTime::from_millis(1000),
                initial_rto: None,
                //= ns-3 TcpSocket attribute DelAckCount (default 2).
                delayed_ack: true,
                //= ns-3 TcpL4Protocol attribute RecoveryType (default
                //= TcpPrrRecovery).
                prr: true,
                //= ns-3.37 TcpPrrRecovery::EnterRecovery/DoRecovery with its
                //= default ReductionBound = SSRB.
                prr_variant: PrrVariant::Ns3,
                // ns-3 has no RACK: DupThresh (TcpSocketBase, ReTxThreshold 3).
                rack: false,
                // ns-3 has no HyStart++; its CUBIC's classic HyStart waits for
                // an RTT rise of a whole minimum RTT.
                hystart: false,
                //= ns-3 TcpNewReno::SlowStart: one segment per ACK (NewReno,
                //= HighSpeed, H-TCP and Scalable derive TcpNewReno; CUBIC and
                //= DCTCP differ, Stack::slow_start).
                abc: SlowStart::PerAck,
                //= ns-3.37 TcpSocketBase::ReTxTimeout: ssthresh = GetSsThresh(tcb,
                //= BytesInFlight()) at every timeout.
                rto_ssthresh: RtoSsthresh::Pipe,
                //= ns-3.37 TcpSocketBase::NewAck(ack, resetRTO = true).
                rto_collapse: RtoCollapse::Ack,
                rto_timer: RtoTimer::Ns3,
                //= ns-3.37 TcpSocketBase::DupAck, CA_DISORDER step (2).
                recovery_entry: RecoveryEntry::Ns3,
                //= ns-3.37 TcpTxBuffer::Update leaves m_retrans as it was.
                sack_pipe: SackPipe::Ns3,
                //= ns-3.37 TcpSocketBase::ProcessAck: leaving CA_RECOVERY,
                //= "segsAcked = (ackNumber - oldHeadSequence) / m_segmentSize",
                //= "m_cWnd = m_ssThresh", then "IncreaseWindow(m_tcb,
                //= segsAcked)"; leaving CA_LOSS, "segsAcked = (ackNumber -
                //= m_recover) / m_segmentSize".
                recovery_exit: RecoveryExit::Ns3,
                //= ns-3.37 TcpSocketBase::EstimateRtt: a sample on every ACK
                //= from "m_history.front()" unless "h.retx"; m_lastRtt =
                //= "m_rtt->GetEstimate()", which PktsAcked receives.
                rtt_sampling: RttSampling::Ns3,
                //= ns-3.37 TcpSocketBase::EnterRecovery: "bytesInFlight =
                //= m_sackEnabled ? BytesInFlight() : BytesInFlight() +
                //= m_tcb->m_segmentSize" after MarkHeadAsLost (and
                //= AddRenoSack without SACK), passed to GetSsThresh;
                //= EnterCwr passes BytesInFlight().
                cut_from: CutFrom::Pipe,
                //= ns-3.37 TcpSocketBase::EnterCwr: CA_CWR and
                //= m_recoveryOps->EnterRecovery (TcpPrrRecovery); ProcessAck
                //= in CA_CWR calls DoRecovery, not IncreaseWindow, and sets
                //= cwnd = ssthresh when the ACK passes m_recover.
                ecn_reduction: EcnReduction::Prr,
                //= ns-3.37 TcpDctcp::CeState0to1/CeState1to0 send only the
                //= ACK owed (m_delayedAckReserved); TcpSocketBase::ReceivedData
                //= then delays the arriving segment's as any other.
                ce_ack: CeAck::Delayed,
                //= ns-3.37 TcpSocketBase::AddSocketTags: ECT on every packet
                //= in DctcpEcn mode, empty ones (SendEmptyPacket) too.
                control_ect: ControlEct::Cc,
                //= ns-3 TcpSocketBase::ProcessSynSent: the SYN-ACK completes the
                //= handshake and DoForwardUp's EstimateRtt takes its round trip.
                handshake: true,
                //= ns-3 TcpSocket attribute DelAckTimeout (default 200 ms).
                delack_timeout: SimTime::from_millis(200),
                //= ns-3 TcpSocketBase::ProcessSynSent/ProcessSynRcvd: "Always
                //= respond to first data packet to speed up the connection"
                //= (m_delAckCount = m_delAckMaxCount).
                quick_acks: 1,
                // ns-3's receiver holds any single segment for DelAckTimeout,
                // the last of a transfer too (TcpSocketBase::ReceivedData).
                push_ack: false,
                //= ns-3 TcpSocketBase attribute LimitedTransmit (default true),
                //= TcpSocketBase::DupAck: "RFC3042 Limited transmit".
                limited_transmit: true,
                //= ns-3 TcpSocketBase::ProcessAck: on a partial ACK in
                //= CA_RECOVERY, "m_txBuffer->MarkHeadAsLost(); DoRetransmit();"
                //= with or without SACK.
                partial_ack_retransmit: true,
                //= ns-3.37 TcpSocketBase::ProcessAck: an ACK whose SACK
                //= updates the scoreboard is a dupack ("isDupack =
                //= m_sackEnabled ? scoreboardUpdated"); DupAck moves CA_OPEN
                //= to CA_DISORDER, which calls PktsAcked only, and
                //= IncreaseWindow runs "if (m_tcb->m_congState == CA_OPEN)".
                //= CA_LOSS skips DupAck: its ACKs grow the window.
                dupack_growth: false,
                cong_control: CongControl::Ns3,
            },
            // ns-2.35, Debian's `ns2` package (the copy at
            // github.com/hbatmit/ns2.35): "ns-default.tcl N" is line N of
            // tcl/lib/ns-default.tcl, the other files are under tcp/.
            // Rules ns-2 has and bufsim does not mirror are listed on the
            // Engines page (its `ns2` profile section).
            Stack::Ns2 => StackDefaults {
                //= ns-default.tcl 935: "Agent/TCP set windowInit_ 2"
                //= (windowInitOption_ 1, line 936: a static initial window).
                initial_window: 2,
                //= ns-default.tcl 971: "Agent/TCP set minrto_ 0.2"; with
                //= rfc2988_ true (line 984) TcpAgent::rtt_timeout floors the
                //= whole RTO with it before the backoff, as bufsim does.
                min_rto: SimTime::from_millis(200),
                initial_rto: None,
                //= Agent/TCPSink ACKs every packet (tcp-sink.cc TcpSink::recv);
                //= delayed ACKs are the Agent/TCPSink/DelAck class a script
                //= picks.
                delayed_ack: false,
                // ns-2.35's Sack1 paces its recovery by pipe_ < cwnd_
                // (tcp-sack1.cc Sack1TcpAgent::send_much): no PRR.
                prr: false,
                prr_variant: PrrVariant::Rfc9937,
                // No RACK, no HyStart in ns-2.35's one-way agents.
                rack: false,
                hystart: false,
                //= tcp.cc TcpAgent::opencwnd: "cwnd_ += 1" per new ACK below
                //= ssthresh_, one segment per ACK whatever it covers.
                abc: SlowStart::PerAck,
                //= tcp.cc TcpAgent::timeout: every timeout calls
                //= slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_RESTART), ssthresh_
                //= = max(window() / 2, 2) from cwnd as it is then, in a fast
                //= recovery (cwnd already halved) and after a timeout
                //= (cwnd = 1 and its slow start) too: bufsim's nearest rule
                //= recomputes it from the pipe at every timeout.
                rto_ssthresh: RtoSsthresh::Pipe,
                //= tcp.cc TcpAgent::newack: "t_backoff_ = 1" only when the
                //= timed segment is acknowledged ("rtt_active_ &&
                //= tcph->seqno() >= rtt_seq_"), a new sample.
                rto_collapse: RtoCollapse::Sample,
                //= tcp.cc TcpAgent::timeout: with nothing outstanding the
                //= timer is not backed off and nothing is cut (restart_bugfix_).
                rto_timer: RtoTimer::Rfc,
                // tcp-sack1.cc Sack1TcpAgent::recv: recovery starts at
                // numdupacks_ (3, ns-default.tcl 924) duplicate ACKs that
                // update the scoreboard ("scb_->CheckUpdate()"), with no
                // early entry on SACKed segments: RFC 6675's count.
                recovery_entry: RecoveryEntry::Rfc,
                //= tcp-sack1.cc Sack1TcpAgent::recv: in fast recovery every
                //= ACK lowers pipe_ by one ("--pipe_"), a retransmission's
                //= too, and each send raises it (send_much "pipe_++").
                sack_pipe: SackPipe::Rfc,
                //= tcp-sack1.cc Sack1TcpAgent::recv: the ACK at or past recover_
                //= ends fast recovery through newack(), which leaves cwnd_ at
                //= the halved window (no opencwnd on that ACK).
                recovery_exit: RecoveryExit::Rfc,
                //= tcp.cc TcpAgent::output and newack: one segment timed at a
                //= time (rtt_active_, rtt_seq_), none across a timeout
                //= (reset_rtx_timer: "rtt_active_ = 0").
                rtt_sampling: RttSampling::Rfc,
                //= tcp.cc TcpAgent::slowdown: "halfwin = windowd() / 2"
                //= (precisionReduce_ true, ns-default.tcl 1004), windowd() =
                //= min(cwnd_, wnd_): ns-2 cuts from cwnd, which leaves out
                //= the packets Limited Transmit sent above it (send_one).
                cut_from: CutFrom::Cwnd,
                //= tcp.cc TcpAgent::ecn: slowdown(CLOSE_SSTHRESH_HALF |
                //= CLOSE_CWND_HALF) once a window, cwnd halved at once.
                ecn_reduction: EcnReduction::Immediate,
                // The ns2 engine runs no DCTCP; RFC 8257's rule.
                ce_ack: CeAck::Immediate,
                //= ns-default.tcl 1083: "Agent/TCPSink set ecn_syn_ false",
                //= no ECT on the SYN-ACK; pure ACKs carry none (tcp-sink.cc).
                control_ect: ControlEct::Rfc,
                //= ns-default.tcl 937 and 1062: "Agent/TCP set syn_ true",
                //= "delay_growth_ true": packet 0 is a 40-byte SYN
                //= (TcpAgent::output), sent alone with cwnd_ 1
                //= (set_initial_window), timed (rtt_seq_ 0), and its ACK
                //= opens the initial window (TcpAgent::recv: "last_ack_ == 0
                //= && delay_growth_"); its RTO before it is rtxcur_init_'s
                //= 3 s (Stack::syn_timeout).
                handshake: true,
                //= ns-default.tcl 1085 and 1090: "Agent/TCPSink/DelAck set
                //= interval_ 100ms", "Agent/TCPSink/Sack1/DelAck set
                //= interval_ 100ms".
                delack_timeout: SimTime::from_millis(100),
                //= tcp-sink.cc DelAckSink::recv: "SYN_immediate_ack_ &&
                //= (th->seqno() == 0)" (ns-default.tcl 1081) ACKs packet 0 at
                //= once, which with syn_ true is the SYN: the first data
                //= packet (seqno 1) is held as any. (With connection_setup =
                //= false packet 0 is data: set quick_acks = 1 to match.)
                quick_acks: 0,
                //= tcp-sink.cc DelAckSink::recv holds an in-order packet for
                //= interval_ unless it fills a gap (RFC2581_immediate_ack_),
                //= the last of a transfer too.
                push_ack: false,
                //= ns-default.tcl 1002: "Agent/TCP set singledup_ 1";
                //= tcp-sack1.cc Sack1TcpAgent::recv and tcp.cc TcpAgent::recv
                //= call send_one() on the first duplicate ACKs, which sends
                //= a new packet while "t_seqno_ <= highest_ack_ + cwnd_ +
                //= dupacks_" (tcp.cc TcpAgent::send_one): RFC 3042. (ns-2
                //= then cuts from cwnd, leaving those packets out of
                //= ssthresh: `cut_from` above.)
                limited_transmit: true,
                //= ns-default.tcl 989: "Agent/TCP set partial_ack_ false", so
                //= tcp-sack1.cc Sack1TcpAgent::recv answers a partial ACK with
                //= "--pipe_" (two packets out of the pipe) and newtimer(), the
                //= timer restarted at every one; the holes go out as pipe_ <
                //= cwnd_ lets send_much find them: RFC 6675's rule.
                partial_ack_retransmit: false,
                //= tcp.cc TcpAgent::recv_newack_helper calls opencwnd for every
                //= ACK that advances last_ack_ outside fast recovery, whatever
                //= it SACKs.
                dupack_growth: true,
                cong_control: CongControl::Rfc,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for s in Stack::ALL {
            assert_eq!(Stack::parse(s.name()), Some(s));
        }
        assert_eq!(Stack::parse("bsd"), None);
    }

    #[test]
    fn abc_values_round_trip() {
        for (v, rule) in [
            (serde_json::json!(false), SlowStart::PerAck),
            (serde_json::json!(true), SlowStart::Capped),
            (serde_json::json!("uncapped"), SlowStart::Uncapped),
        ] {
            assert_eq!(SlowStart::parse(&v), Some(rule));
            assert_eq!(serde_json::to_value(rule).unwrap(), v);
        }
        assert_eq!(SlowStart::parse(&serde_json::json!("capped")), None);
    }

    #[test]
    fn ns3_slow_start_is_per_variant() {
        assert_eq!(Stack::Ns3.slow_start("newreno"), SlowStart::PerAck);
        assert_eq!(Stack::Ns3.slow_start("cubic"), SlowStart::Uncapped);
        assert_eq!(Stack::Ns3.slow_start("dctcp"), SlowStart::Capped);
        assert_eq!(Stack::Linux.slow_start("cubic"), SlowStart::Capped);
        assert_eq!(Stack::Rfc.slow_start("cubic"), SlowStart::PerAck);
    }

    #[test]
    fn ns3_and_linux_give_the_controllers_rules() {
        let ns3 = |v: &str| Value::Object(Stack::Ns3.cc_params(v));
        assert_eq!(
            ns3("cubic"),
            json!({"reno_friendly": false, "mirror": "ns-3.37"})
        );
        assert_eq!(
            ns3("bbr"),
            json!({"send_quantum": "segment", "mirror": "ns-3.37"})
        );
        assert!(Stack::Ns3.cc_params("newreno").is_empty());
        assert_eq!(
            Value::Object(Stack::Linux.cc_params("bbr")),
            json!({"mirror": "linux"})
        );
        for s in [Stack::Rfc, Stack::Linux, Stack::Ns2] {
            for v in ["newreno", "cubic", "highspeed", "scalable", "htcp", "bbr"] {
                if (s, v) != (Stack::Linux, "bbr") {
                    assert!(s.cc_params(v).is_empty(), "{s:?} {v}");
                }
            }
        }
        // A group's own keys win.
        let given = json!({"mirror": "none", "c": 0.2});
        let m = Stack::Ns3.tcp_params("cubic", given.as_object());
        assert_eq!(
            Value::Object(m),
            json!({"reno_friendly": false, "mirror": "none", "c": 0.2})
        );
    }

    #[test]
    fn ns2_profile_is_ns_default_tcl() {
        // ns-2.35's defaults (ns-default.tcl): windowInit_ 2, minrto_ 0.2,
        // syn_ true with rtxcur_init_ 3.0, DelAck interval_ 100ms; Sack1's
        // recovery by pipe_, no PRR, no partial-ACK retransmission
        // (partial_ack_ false); singledup_ 1, RFC 3042.
        let d = Stack::Ns2.defaults();
        assert_eq!(Stack::parse("ns2"), Some(Stack::Ns2));
        assert_eq!(d.initial_window, 2);
        assert_eq!(d.min_rto, SimTime::from_millis(200));
        assert!(d.handshake);
        assert_eq!(Stack::Ns2.syn_timeout(), SimTime::from_millis(3000));
        assert_eq!(d.delack_timeout, SimTime::from_millis(100));
        assert_eq!(d.quick_acks, 0);
        assert!(!d.delayed_ack && !d.prr && !d.rack && !d.hystart && !d.push_ack);
        assert!(d.limited_transmit && !d.partial_ack_retransmit && d.dupack_growth);
        assert_eq!(d.rto_ssthresh, RtoSsthresh::Pipe);
        assert_eq!(Stack::Ns2.slow_start("cubic"), SlowStart::PerAck);
        assert_eq!(d.ecn_reduction, EcnReduction::Immediate);
        assert_eq!(d.cut_from, CutFrom::Cwnd);
        assert_eq!(CutFrom::parse("cwnd"), Some(CutFrom::Cwnd));
    }
}
