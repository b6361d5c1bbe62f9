//! BBR (Cardwell et al., "BBR Congestion Control",
//! draft-cardwell-iccrg-bbr-congestion-control-00, 2017): a model-based
//! controller that paces at its estimate of the bottleneck bandwidth
//! (BtlBw, a windowed max of delivery-rate samples) and bounds inflight by
//! cwnd = cwnd_gain x BtlBw x RTprop (RTprop: a windowed min of RTT
//! samples), cycling through Startup, Drain, ProbeBW and ProbeRTT.
//!
//! `version = 3` follows draft-ietf-ccwg-bbr-01 (BBRv3) where it differs
//! from v1: Startup at 4 ln 2 with cwnd gain 2, Drain at 0.35, ProbeBW as
//! DOWN / CRUISE / REFILL / UP with a max-bandwidth filter over two probe
//! cycles, and the loss and ECN response: when a round's loss rate exceeds
//! BBRLossThresh (2%) or its CE-marked fraction BBRECNThresh (50%), the
//! upper bound inflight_hi (set from the probe that caused it, lowered by
//! BBRBeta = 0.7) and the lower bounds bw_lo / inflight_lo (cut by BBRBeta
//! per lossy round outside probing) limit pacing and cwnd; cwnd keeps
//! BBRHeadroom (15%) below inflight_hi except while probing up. ProbeBW_UP
//! ends on a delivery-rate plateau that inflight_hi did not cause
//! (BBRIsTimeToGoDown) or on loss; the lower bounds adapt at the end of
//! each loss round, a round trip from its first loss (BBRNoteLoss). Each
//! segment the sender marks lost is checked as the draft's
//! BBRHandleLostPacket does (Linux's bbr_skb_marked_lost): the losses since
//! it was sent against its tx_in_flight, and past 2% inflight_hi is set to
//! the flight at which the rate crossed it; this needs a scoreboard that
//! marks segments one by one (RACK: the linux stack). On ACKs bufsim
//! measures loss per round (segments retransmitted over segments delivered
//! plus retransmitted in the round) where the draft compares the ACKed
//! packet's lost count with its tx_in_flight; one RTprop filter (the v1 one) with
//! ProbeRTT every 5 s (BBRProbeRTTInterval) at half the BDP; Startup ends
//! on v1's full-pipe rule (max_bw at round starts) or loss.
//!
//! Units: bandwidth in segments per second, windows in segments.
//!
//! bufsim specifics (each stated where it is coded):
//! - the send quantum (section 4.2.2) is counted in whole segments: at
//!   each pacing event the sender (`tcp::sender`) releases up to
//!   `send_quantum` segments back to back and paces the next event
//!   quantum / pacing_rate later; `tcp_params.send_quantum = "segment"`
//!   makes it one segment at every rate (ns-3's TcpBbr; see [`Quantum`]);
//! - the ProbeBW phase randomization draws from a generator seeded with
//!   the time of the flow's first ACK (the controller has no RNG stream;
//!   runs stay deterministic, and flows that start apart draw apart). The
//!   time is the packet engine's, which a sender runs one access delay
//!   behind (`packet`'s module doc): the one thing in a sender that reads
//!   the clock's absolute value rather than differences of it;
//! - rs.losses (section 4.2.3.4) is the number of segments the sender
//!   retransmitted since the previous ACK (under `mirror = "ns-3.37"`
//!   ns-3.37's rs.m_bytesLoss, [`AckSample::lost_change`]).
//!
//! `mirror = "ns-3.37"` is ns-3.37's `TcpBbr` instead of the draft where
//! they differ (the ns3 stack profile sets it; see [`BbrConfig::mirror`]);
//! what ns-3's socket does around it is the stack's
//! ([`crate::tcp::stack::CongControl`]). `mirror = "linux"` (the linux
//! profile's) is Linux's BBR v3, google/bbr's `tcp_bbr.c`, where it
//! departs from draft-ietf-ccwg-bbr; each such rule is cited where it is
//! coded and applies to v3 only.

use serde::{Deserialize, Serialize};

use super::fluid_law::NoFluidLaw;
use super::{AckInfo, AckSample, CongestionControl, Epoch, Mirror, Variant, Window};
use crate::params::{PErr, Params};
use crate::tcp::rate::LostSample;
use crate::tcp::stack::ns3_segment_bytes;
use crate::units::SimTime;

/// BBR's parameters; `Default` holds the draft's constants.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct BbrConfig {
    /// 1: draft-cardwell-iccrg-bbr-congestion-control-00; 3: draft-ietf-ccwg-bbr.
    pub version: u8,
    /// Startup's pacing and cwnd gain.
    pub high_gain: f64,
    /// ProbeBW's cwnd gain.
    pub cwnd_gain: f64,
    /// BtlBw max filter window, round trips.
    pub btlbw_filter_rounds: u64,
    /// RTprop min filter window, seconds.
    pub rtprop_filter_s: f64,
    /// Time ProbeRTT holds inflight at the minimum, seconds.
    pub probe_rtt_duration_s: f64,
    /// Smallest cwnd, segments.
    pub min_pipe_cwnd: f64,
    /// How many segments leave at one pacing event.
    pub send_quantum: Quantum,
    /// `"ns-3.37"`: ns-3.37's TcpBbr (`tcp_params.mirror`), each rule
    /// cited where it is coded: ssthresh is
    /// InitialSlowStartThreshold (UINT32_MAX bytes) until Drain sets it to
    /// BBRInflight(1), a congestion event or timeout leaves it so
    /// (TcpBbr::GetSsThresh), and the end of a fast recovery sets cwnd to
    /// it (TcpSocketBase::ProcessAck), the window then added to in 32-bit
    /// bytes (TcpBbr::SetCwnd); packet conservation lasts until the next
    /// round start (TcpBbr::UpdateRound) and nothing is restored after a
    /// recovery; RTprop is the least
    /// smoothed RTT (`m_lastRtt`), the first pacing rate and BtlBw the
    /// initial window over the handshake's RTT; the target window is
    /// InFlight in whole bytes (2 segments more in ProbeBW's 5/4 phase)
    /// plus the ACK-aggregation allowance (TcpBbr::AckAggregationCwnd),
    /// the BtlBw filter ns-3's WindowedFilter ([`MaxFilter::update`]),
    /// rounds counted on samples with a rate only, and once a ProbeRTT has
    /// run a send with nothing in flight is CA_EVENT_TX_START
    /// ([`CongestionControl::on_tx_start`]); ProbeBW starts in one of six
    /// phases (TcpBbr::EnterProbeBW). ns-3's socket around it (no PRR,
    /// the initial window unpaced, TcpRateLinux's rate samples) is the
    /// stack's rule ([`crate::tcp::stack::CongControl::Ns3`]). `"linux"`
    /// (the linux profile's): google/bbr v3's tcp_bbr.c where it departs
    /// from draft-ietf-ccwg-bbr, for version 3 (version 1 reads nothing
    /// from it). `"none"` (the default): the draft's rules.
    pub mirror: Mirror,
}

/// The send quantum's rule (`tcp_params.send_quantum`).
///
/// `Draft` (the default) is the draft's BBRSetSendQuantum: the quantum
/// grows with the pacing rate to 1 ms of data (at most 64 KB), as Linux
/// sizes its TSO bursts for BBR (`bbr_tso_segs_goal`); BBRInflight adds
/// three quanta to cwnd. `Segment` sends one segment per 1/pacing_rate at
/// every rate with three segments of allowance, as ns-3's TcpBbr paces
/// (it has no segmentation offload): smoother arrivals at the bottleneck,
/// one pacing event per segment. The draft is the default because it is
/// the specification the variant cites and the behaviour of the stack
/// BBR was designed on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Quantum {
    /// draft-cardwell-iccrg-bbr-congestion-control-00 section 4.2.2.
    Draft,
    /// One segment.
    Segment,
}

impl Default for BbrConfig {
    fn default() -> Self {
        BbrConfig {
            version: 1,
            //= draft-cardwell-iccrg-bbr-congestion-control-00 section 4.3.2.1:
            //= "BBR uses a special and minimal gain value of 2/ln(2)" (BBRHighGain),
            //= "the smallest gain that will allow a sending rate to double each round".
            high_gain: 2.0 / std::f64::consts::LN_2,
            //= section 4.3.4: in ProbeBW "cwnd_gain = 2" (BBR.cwnd_gain), to
            //= tolerate delayed, stretched or aggregated ACKs.
            cwnd_gain: 2.0,
            //= section 4.1.1.2: BtlBwFilterLen, "a time window of ... 10 packet-
            //= timed round trips".
            btlbw_filter_rounds: 10,
            //= section 4.1.2.2: RTpropFilterLen, "a time window of ... 10 seconds".
            rtprop_filter_s: 10.0,
            //= section 4.3.5: ProbeRTTDuration, "at least 200 ms".
            probe_rtt_duration_s: 0.2,
            //= section 4.2.3.3: BBRMinPipeCwnd, "4 packets".
            min_pipe_cwnd: 4.0,
            send_quantum: Quantum::Draft,
            mirror: Mirror::Spec,
        }
    }
}

//= section 4.3.4.3: "BBR.pacing_gain ... cycles through [5/4, 3/4, 1, 1, 1,
//= 1, 1, 1]" (BBRGainCycleLen = 8).
const PACING_GAIN_CYCLE: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
//= section 4.3.2.2: "if BBR.BtlBw has not grown by at least 25% over 3 round
//= trips, the pipe is full".
const FULL_BW_THRESH: f64 = 1.25;
const FULL_BW_COUNT: u32 = 3;
//= section 4.2.3.2: BBRInflight adds "3 * BBR.send_quantum" for quanta in
//= offload and pacing.
const QUANTA: f64 = 3.0;
/// ns-3.37 TcpBbr::InFlight's extra segments in ProbeBW's 5/4 phase.
const NS3_PROBE_EXTRA: f64 = 2.0;
/// ns-3.37 TcpBbr's ACK aggregation: "ExtraAckedRttWindowLength" (5 round
/// trips per window), "AckEpochAckedResetThresh" (1 << 12, which ns-3
/// compares with bytes; Linux's bbr_ack_epoch_acked_reset_thresh counts
/// packets, 1 << 20), and m_extraAckedGain (1).
const NS3_EXTRA_ACKED_WIN_RTTS: u32 = 5;
const NS3_ACK_EPOCH_RESET_BYTES: u32 = 1 << 12;
const NS3_EXTRA_ACKED_GAIN: u32 = 1;
//= section 4.2.2 BBRSetSendQuantum: "if (BBR.pacing_rate < 1.2 Mbps)
//= BBR.send_quantum = 1 * MSS; else if (BBR.pacing_rate < 24 Mbps)
//= BBR.send_quantum = 2 * MSS; else BBR.send_quantum =
//= min(BBR.pacing_rate * 1ms, 64KBytes)".
const QUANTUM_ONE_BELOW_BPS: f64 = 1.2e6;
const QUANTUM_TWO_BELOW_BPS: f64 = 24e6;
const QUANTUM_TIME_S: f64 = 1e-3;
const QUANTUM_MAX_BYTES: f64 = 65536.0;
//= section 4.1.2.3: before any RTT sample, RTprop is taken as 1 ms for the
//= initial pacing rate ("nominal_bandwidth = InitialCwnd / (SRTT ? SRTT : 1ms)").
const DEFAULT_RTT: SimTime = SimTime::from_millis(1);

//= draft-ietf-ccwg-bbr-01, BBRStartupPacingGain = 4 ln 2 = 2.77 ("the
//= minimum gain value that will allow the sending rate to double each round").
const V3_STARTUP_PACING_GAIN: f64 = 4.0 * std::f64::consts::LN_2;
//= draft-ietf-ccwg-bbr-01, BBRStartupCwndGain = 2, BBRDefaultCwndGain = 2.
const V3_CWND_GAIN: f64 = 2.0;
//= draft-ietf-ccwg-bbr-01, BBRDrainPacingGain = 0.35.
const V3_DRAIN_PACING_GAIN: f64 = 0.35;
//= draft-ietf-ccwg-bbr-01, ProbeBW pacing gains: DOWN 0.90, CRUISE 1.0,
//= REFILL 1.0, UP 1.25; cwnd_gain 2.25 in UP.
const V3_DOWN_GAIN: f64 = 0.90;
const V3_UP_GAIN: f64 = 1.25;
const V3_UP_CWND_GAIN: f64 = 2.25;
//= draft-ietf-ccwg-bbr-01, BBRLossThresh = 2%: "the maximum tolerated
//= per-round-trip packet loss rate when probing for bandwidth".
const V3_LOSS_THRESH: f64 = 0.02;
//= draft-ietf-ccwg-bbr-01, BBRBeta = 0.7: "the default multiplicative
//= decrease to make upon each round trip during which the connection
//= detects packet loss".
const V3_BETA: f64 = 0.7;
//= draft-ietf-ccwg-bbr-01, BBRHeadroom = 0.15: the fraction of inflight_hi
//= left unused outside bandwidth probing, room for other flows.
const V3_HEADROOM: f64 = 0.15;
//= draft-ietf-ccwg-bbr-01, BBRStartupFullLossCnt = 6: loss events in a
//= Startup round that end Startup (with the loss rate above BBRLossThresh).
const V3_STARTUP_FULL_LOSS_CNT: u64 = 6;
//= draft-ietf-ccwg-bbr-01, BBRPacingMarginPercent = 1: pace 1% below the
//= estimated bandwidth.
const V3_PACING_MARGIN: f64 = 0.01;
//= draft-ietf-ccwg-bbr-01, ECN: BBR treats a round whose CE-marked fraction
//= exceeds BBRECNThresh = 0.5 as congested, as a loss rate above the threshold.
const V3_ECN_THRESH: f64 = 0.5;
//= draft-ietf-ccwg-bbr-01, BBRProbeRTTInterval = 5 s; BBRProbeRTTCwndGain = 0.5.
const V3_PROBE_RTT_INTERVAL_S: f64 = 5.0;
const V3_PROBE_RTT_CWND_GAIN: f64 = 0.5;
//= draft-ietf-ccwg-bbr-01, BBRPickProbeWait: "BBR.bw_probe_wait = 2 +
//= random_float_between(0.0, 1.0)" seconds; Reno coexistence: at most
//= min(BDP, 63) rounds between probes.
const V3_PROBE_WAIT_BASE_S: f64 = 2.0;
const V3_RENO_ROUNDS_MAX: f64 = 63.0;

/// `x.ceil()` (BBRInflight's rounding, on every ACK) without the call
/// into libm that the baseline x86-64 target makes for `ceil`: on
/// [0, 2^52) the truncation `x as u64` is exact.
fn ceil(x: f64) -> f64 {
    if (0.0..(1u64 << 52) as f64).contains(&x) {
        let t = x as u64 as f64;
        if t < x { t + 1.0 } else { t }
    } else {
        x.ceil()
    }
}

/// The send quantum, whole segments, at pacing rate `rate` (segments/s)
/// with segments of `mss_bytes` bytes (section 4.2.2 BBRSetSendQuantum).
/// The draft counts bytes; a quantum of whole segments rounds
/// rate x 1 ms down (Linux: `bbr_tso_segs_goal`), never below the
/// draft's 2 segments at 1.2 Mbps and above. Both versions use this rule:
/// draft-cardwell-iccrg-bbr-congestion-control-02 (section 4.6.3, BBRv2,
/// v3's predecessor) writes it as min(pacing_rate x 1 ms, 64 KB) with a
/// floor of 1 segment below 1.2 Mbps and 2 above, which differs only for
/// segments under 1500 B between 1.2 and 24 Mbps.
pub fn send_quantum(rate: f64, mss_bytes: u32) -> u32 {
    let mss = mss_bytes as f64;
    let bps = rate * mss * 8.0;
    if bps < QUANTUM_ONE_BELOW_BPS {
        1
    } else if bps < QUANTUM_TWO_BELOW_BPS {
        2
    } else {
        // `as` truncates: whole segments, rounded down.
        (((rate * mss * QUANTUM_TIME_S).min(QUANTUM_MAX_BYTES) / mss) as u32).max(2)
    }
}

/// BBRv3's ProbeBW phases (draft-ietf-ccwg-bbr-01).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Pace at 0.90 until the queue is drained.
    Down,
    /// Pace at 1.0, cwnd below inflight_hi by the headroom.
    Cruise,
    /// Pace at 1.0 for one round with the lower bounds reset.
    Refill,
    /// Pace at 1.25 and raise inflight_hi.
    Up,
}

/// BBR's state machine (section 4.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Exponential search for the bandwidth.
    Startup,
    /// Drain the queue Startup built.
    Drain,
    /// Gain cycling around the bandwidth estimate.
    ProbeBw,
    /// Inflight at the minimum to re-measure RTprop.
    ProbeRtt,
}

/// Kathleen Nichols' windowed max filter (three samples; section 4.1.1.2:
/// BtlBw is "the windowed maximum" of the delivery rate), keyed by round count.
///
/// Two forms of the filter differ where two samples tie. Linux's
/// (lib/win_minmax.c, which the draft follows) takes a new second or
/// third best after a quarter or half window when the kept samples are one
/// (equal times) and counts the window from the best's time. ns-3.37's
/// (`WindowedFilter`, from Chromium's QUIC) asks whether their values are
/// equal and counts from the second's and third's own times.
#[derive(Clone, Copy, Debug, Default)]
pub struct MaxFilter {
    s: [(u64, f64); 3],
    ties: Ties,
}

/// When a [`MaxFilter`] takes a new second or third best: the two forms
/// of the filter its doc names.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Ties {
    /// Linux's lib/win_minmax.c: the kept samples are one when their
    /// times are equal, the window counted from the best's time.
    #[default]
    Time,
    /// Chromium's QUIC `WindowedFilter` (ns-3.37's): when their values are
    /// equal, counted from the second's and third's own times.
    Value,
}

impl MaxFilter {
    /// An empty filter judging ties by `ties`.
    pub fn new(ties: Ties) -> MaxFilter {
        MaxFilter {
            s: [(0, 0.0); 3],
            ties,
        }
    }

    /// The windowed maximum.
    pub fn get(&self) -> f64 {
        self.s[0].1
    }

    /// A sample `v` at time (round) `t`; the window is `win` rounds.
    pub fn update(&mut self, t: u64, v: f64, win: u64) {
        if v >= self.s[0].1 || t.saturating_sub(self.s[2].0) > win {
            self.s = [(t, v); 3];
            return;
        }
        if v >= self.s[1].1 {
            self.s[1] = (t, v);
            self.s[2] = (t, v);
        } else if v >= self.s[2].1 {
            self.s[2] = (t, v);
        }
        // Age the best samples out of the window.
        let dt = t - self.s[0].0;
        if dt > win {
            self.s[0] = self.s[1];
            self.s[1] = self.s[2];
            self.s[2] = (t, v);
            if t - self.s[0].0 > win {
                self.s[0] = self.s[1];
                self.s[1] = self.s[2];
                self.s[2] = (t, v);
            }
        } else if self.ties == Ties::Value {
            //= ns-3.37 windowed-filter.h Update: "if (estimates_[1].sample ==
            //= estimates_[0].sample && new_time - estimates_[1].time >
            //= window_length_ >> 2)" take a second best; "if
            //= (estimates_[2].sample == estimates_[1].sample && new_time -
            //= estimates_[2].time > window_length_ >> 1)" a third.
            if self.s[1].1 == self.s[0].1 && t - self.s[1].0 > win / 4 {
                self.s[1] = (t, v);
                self.s[2] = (t, v);
            } else if self.s[2].1 == self.s[1].1 && t - self.s[2].0 > win / 2 {
                self.s[2] = (t, v);
            }
        } else if self.s[1].0 == self.s[0].0 && dt > win / 4 {
            //= lib/win_minmax.c minmax_subwin_update: "if (unlikely(m->s[1].t
            //= == m->s[0].t) && dt > win / 4)", then "m->s[2].t ==
            //= m->s[1].t && dt > win / 2".
            self.s[1] = (t, v);
            self.s[2] = (t, v);
        } else if self.s[2].0 == self.s[1].0 && dt > win / 2 {
            self.s[2] = (t, v);
        }
    }
}

/// The BBR controller.
#[derive(Clone, Debug)]
pub struct Bbr {
    cfg: BbrConfig,
    rtprop_window: SimTime,
    probe_rtt_duration: SimTime,
    /// Current state.
    pub mode: Mode,
    /// BtlBw max filter, segments/s, keyed by round count.
    pub btlbw: MaxFilter,
    /// RTprop (`SimTime::MAX`: no sample yet) and when it was measured.
    pub rtprop: SimTime,
    /// RTprop in seconds, set with `rtprop` (read on every ACK).
    rtprop_s: f64,
    rtprop_stamp: SimTime,
    rtprop_expired: bool,
    /// Pacing rate, segments/s.
    pub pacing_rate: f64,
    pacing_gain: f64,
    cwnd_gain: f64,
    // Round counting (section 4.1.1.3).
    next_round_delivered: u64,
    /// Packet-timed round trips so far.
    pub round_count: u64,
    round_start: bool,
    // Startup's full-pipe detection (section 4.3.2.2).
    /// Startup found the pipe full.
    pub filled_pipe: bool,
    full_bw: f64,
    full_bw_count: u32,
    /// Send quantum, segments (1 until the first ACK sets it).
    pub quantum: u32,
    // ProbeBW gain cycling (section 4.3.4).
    cycle_index: usize,
    cycle_stamp: SimTime,
    // ProbeRTT (section 4.3.5).
    probe_rtt_done_stamp: Option<SimTime>,
    probe_rtt_round_done: bool,
    /// Samples whose packets were sent before this delivered count are
    /// app-limited (ProbeRTT's "C.app_limited" marking, kept here).
    app_limited_until: u64,
    // Loss recovery (section 4.2.3.4).
    prior_cwnd: f64,
    in_recovery: bool,
    packet_conservation: bool,
    conservation_end: u64,
    retransmits: u64,
    /// Set on a congestion event until the next rate sample.
    entering_recovery: bool,
    rng: u64,
    initial_cwnd: f64,
    /// ns-3's segment size, bytes (`mirror`; set at the first sample).
    seg_bytes: u32,
    /// ns-3.37 TcpBbr's m_appLimited (`mirror`): set in any ProbeRTT,
    /// never cleared.
    probe_rtt_mark: bool,
    /// ns-3.37 TcpBbr's m_idleRestart (`mirror`): a send with nothing
    /// in flight since the last ACK.
    idle_restart: bool,
    /// ns-3.37's ACK-aggregation estimate (`mirror`; boxed, as
    /// `v3`, to keep the controller's size near the other variants').
    aggr: Box<AckAggregation>,
    /// BBRv3 state (`version = 3`).
    v3: Option<Box<V3>>,
}

/// ns-3.37's estimate of the data ACKs deliver beyond the bandwidth
/// estimate (TcpBbr::UpdateAckAggregation, after Linux's
/// bbr_update_ack_aggregation), in ns-3's units: bytes and whole seconds.
#[derive(Clone, Copy, Debug, Default)]
struct AckAggregation {
    /// m_ackEpochTime: the start of the sampling epoch.
    epoch_time: SimTime,
    /// m_ackEpochAcked: bytes delivered in the epoch.
    epoch_acked: u32,
    /// m_extraAcked: the largest excess of each of two windows, bytes.
    extra_acked: [u32; 2],
    /// m_extraAckedWinRtt: round starts in the current window.
    win_rtt: u32,
    /// m_extraAckedIdx: the current window.
    idx: usize,
}

/// BBRv3's model and ProbeBW state (draft-ietf-ccwg-bbr-01).
#[derive(Clone, Debug)]
pub struct V3 {
    /// ProbeBW phase.
    pub phase: Phase,
    /// Max bandwidth of this probe cycle and the previous one (MaxBwFilterLen = 2).
    max_bw: [f64; 2],
    /// Upper bound on inflight (segments; infinite until a probe finds loss).
    pub inflight_hi: f64,
    /// Lower bounds from the latest lossy rounds.
    pub bw_lo: f64,
    /// Lower bound on inflight, segments.
    pub inflight_lo: f64,
    bw_latest: f64,
    inflight_latest: f64,
    /// The loss round (BBR.loss_round_delivered, BBR.loss_in_round,
    /// BBR.loss_round_start): the round trip over which bw_latest and
    /// inflight_latest are measured and after which a loss lowers bw_lo
    /// and inflight_lo.
    loss_round_delivered: u64,
    loss_in_round: bool,
    loss_round_start: bool,
    round_lost: u64,
    round_delivered: u64,
    round_acks: u64,
    round_ece: u64,
    probe_samples: bool,
    bw_probe_wait: SimTime,
    rounds_since_probe: u64,
    probe_up_cnt: f64,
    probe_up_acks: f64,
    probe_up_rounds: u32,
    /// The full-pipe estimator of ProbeBW_UP (BBR.full_bw, BBR.full_bw_count,
    /// BBR.full_bw_now; Startup keeps v1's, `check_full_pipe`).
    full_bw: f64,
    full_bw_count: u32,
    /// The delivery-rate plateau: three rounds without 25% growth.
    pub full_bw_now: bool,
    /// C.delivered at the latest ACK (BBRStartRound reads it).
    delivered: u64,
    /// ProbeBW_DOWN started and its first round has not ended
    /// (BBR.ack_phase == ACKS_PROBE_STOPPING).
    probe_stopping: bool,
    /// `mirror = "linux"`: the latest probe met loss or ECN above the
    /// threshold (tcp_bbr.c's prev_probe_too_high).
    prev_probe_too_high: bool,
    /// `mirror = "linux"`: the latest ProbeBW_UP stopped on reaching
    /// inflight_hi after a lossy probe (tcp_bbr.c's stopped_risky_probe).
    stopped_risky_probe: bool,
}

impl Default for V3 {
    fn default() -> V3 {
        V3 {
            phase: Phase::Down,
            max_bw: [0.0; 2],
            inflight_hi: f64::INFINITY,
            bw_lo: f64::INFINITY,
            inflight_lo: f64::INFINITY,
            bw_latest: 0.0,
            inflight_latest: 0.0,
            loss_round_delivered: 0,
            loss_in_round: false,
            loss_round_start: false,
            round_lost: 0,
            round_delivered: 0,
            round_acks: 0,
            round_ece: 0,
            probe_samples: false,
            bw_probe_wait: SimTime::MAX,
            rounds_since_probe: 0,
            probe_up_cnt: f64::INFINITY,
            probe_up_acks: 0.0,
            probe_up_rounds: 0,
            full_bw: 0.0,
            full_bw_count: 0,
            full_bw_now: false,
            delivered: 0,
            probe_stopping: false,
            prev_probe_too_high: false,
            stopped_risky_probe: false,
        }
    }
}

impl Variant for Bbr {
    const NAMES: &'static [&'static str] = &["bbr"];
    const RATE_FORM: bool = false;
    const NEEDS_SACK: bool = true;
    type Config = BbrConfig;
    type Fluid = NoFluidLaw;
    fn read(p: &mut Params) -> Result<BbrConfig, PErr> {
        let d = BbrConfig::default();
        let v = p.num("version", d.version as f64, f64::MIN, f64::MAX)?;
        if v != 1.0 && v != 3.0 {
            return Err((
                "version".into(),
                format!(
                    "must be 1 (draft-cardwell-iccrg-bbr-congestion-control-00) or 3 \
                     (draft-ietf-ccwg-bbr), got {v}"
                ),
            ));
        }
        let send_quantum = match p.word("send_quantum", &["draft", "segment"])?.as_deref() {
            Some("segment") => Quantum::Segment,
            _ => d.send_quantum,
        };
        let mirror = Mirror::read_among(p, &[Mirror::Spec, Mirror::Ns3_37, Mirror::Linux])?;
        if mirror.ns3() && v != 1.0 {
            return Err((
                "mirror".into(),
                "\"ns-3.37\": ns-3.37's TcpBbr is BBR v1: set version = 1, or mirror = \"none\" \
                 for version 3"
                    .into(),
            ));
        }
        Ok(BbrConfig {
            version: v as u8,
            send_quantum,
            mirror,
            ..d
        })
    }
    fn new(cfg: BbrConfig) -> Bbr {
        Bbr::with_initial_cwnd(cfg, 10.0)
    }
    fn fluid(_cfg: BbrConfig) -> Result<NoFluidLaw, &'static str> {
        Err(
            "BBR sets its rate from a model of the path (a windowed max of \
             delivery-rate samples and a windowed min RTT, with gain cycling), \
             not from a window law dW/dt of paper 004's form",
        )
    }
    fn mirror(cfg: &Self::Config) -> Mirror {
        cfg.mirror
    }
    fn epoch(cfg: &BbrConfig, _window_pkts: f64, _rtt_s: f64) -> Epoch {
        // No loss sawtooth: the longest cycle is ProbeRTT's, once per RTprop
        // filter window (draft-cardwell-iccrg-bbr-congestion-control-00
        // section 4.1.2.2); BBRv3 probes every 5 s (its ProbeRTT interval).
        if cfg.version == 3 {
            Epoch {
                seconds: V3_PROBE_RTT_INTERVAL_S,
                rtts: f64::NAN,
                law: "BBRv3's ProbeRTT interval (no sawtooth)",
            }
        } else {
            Epoch {
                seconds: cfg.rtprop_filter_s,
                rtts: f64::NAN,
                law: "BBR's ProbeRTT cycle, the RTprop filter window (no sawtooth)",
            }
        }
    }
}

impl Bbr {
    /// A controller whose first window is `initial_cwnd` segments.
    pub fn with_initial_cwnd(cfg: BbrConfig, initial_cwnd: f64) -> Bbr {
        //= section 4.3.1 BBROnConnectionInit: init the filters, round
        //= counting, full-pipe detection, then BBREnterStartup() and
        //= BBRInitPacingRate().
        let mut b = Bbr {
            cfg,
            rtprop_window: SimTime::from_secs_f64(cfg.rtprop_filter_s),
            probe_rtt_duration: SimTime::from_secs_f64(cfg.probe_rtt_duration_s),
            mode: Mode::Startup,
            btlbw: MaxFilter::new(if cfg.mirror.ns3() {
                Ties::Value
            } else {
                Ties::Time
            }),
            rtprop: SimTime::MAX,
            rtprop_s: f64::INFINITY,
            rtprop_stamp: SimTime::ZERO,
            rtprop_expired: false,
            pacing_rate: 0.0,
            pacing_gain: cfg.high_gain,
            cwnd_gain: cfg.high_gain,
            next_round_delivered: 0,
            round_count: 0,
            round_start: false,
            filled_pipe: false,
            full_bw: 0.0,
            full_bw_count: 0,
            quantum: 1,
            cycle_index: 0,
            cycle_stamp: SimTime::ZERO,
            probe_rtt_done_stamp: None,
            probe_rtt_round_done: false,
            app_limited_until: 0,
            prior_cwnd: 0.0,
            in_recovery: false,
            packet_conservation: false,
            conservation_end: 0,
            retransmits: 0,
            entering_recovery: false,
            rng: 0,
            initial_cwnd,
            seg_bytes: 1,
            probe_rtt_mark: false,
            idle_restart: false,
            aggr: Box::default(),
            v3: (cfg.version == 3).then(Box::default),
        };
        if b.v3.is_some() {
            b.pacing_gain = V3_STARTUP_PACING_GAIN;
            b.cwnd_gain = V3_CWND_GAIN;
            b.rtprop_window = SimTime::from_secs_f64(V3_PROBE_RTT_INTERVAL_S);
        }
        //= section 4.2.1 BBRInitPacingRate: "nominal_bandwidth = InitialCwnd /
        //= (SRTT ? SRTT : 1ms); BBR.pacing_rate = BBR.pacing_gain * nominal_bandwidth".
        b.pacing_rate = b.pacing_gain * initial_cwnd / DEFAULT_RTT.as_secs_f64();
        b
    }

    /// BtlBw, segments/s.
    pub fn bw(&self) -> f64 {
        match &self.v3 {
            //= draft-ietf-ccwg-bbr-01 BBRBoundBWForModel: "BBR.bw =
            //= min(BBR.max_bw, BBR.bw_lo)".
            Some(v) => self.max_bw().min(v.bw_lo),
            None => self.btlbw.get(),
        }
    }

    /// The max bandwidth filter's value (v1: BtlBw; v3: BBR.max_bw).
    pub fn max_bw(&self) -> f64 {
        match &self.v3 {
            Some(v) => v.max_bw[0].max(v.max_bw[1]),
            None => self.btlbw.get(),
        }
    }

    /// The estimated BDP times `gain` plus the quanta allowance, segments
    /// (section 4.2.3.2 BBRInflight).
    pub fn inflight(&self, gain: f64) -> f64 {
        //= "if (BBR.RTprop == Inf) return InitialCwnd /* no valid RTT samples yet */".
        if self.rtprop == SimTime::MAX {
            return self.initial_cwnd;
        }
        let bdp = self.bw() * self.rtprop_s;
        if self.cfg.mirror.ns3() {
            //= ns-3.37 TcpBbr::InFlight: "(gain * estimatedBdp) + quanta",
            //= plus "2 * tcb->m_segmentSize" in ProbeBW's first phase
            //= ("m_cycleIndex == 0"; Linux's bbr_quantization_budget),
            //= returned as a uint32_t of bytes: truncated, not rounded up.
            let probe = if self.mode == Mode::ProbeBw && self.cycle_index == 0 {
                NS3_PROBE_EXTRA
            } else {
                0.0
            };
            let seg = f64::from(self.seg_bytes);
            return ((gain * bdp + QUANTA * self.quantum as f64 + probe) * seg).floor() / seg;
        }
        ceil(gain * bdp + QUANTA * self.quantum as f64)
    }

    /// The current pacing gain.
    pub fn pacing_gain(&self) -> f64 {
        self.pacing_gain
    }

    fn random(&mut self) -> u64 {
        // splitmix64 (the ProbeBW phase draw only).
        self.rng = self.rng.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    //= section 4.1.1.3: "BBR.round_count ... packet-timed round trips":
    //= a round ends when a packet sent after the previous round's end is delivered.
    fn update_round(&mut self, s: &AckSample) {
        //= ns-3.37 TcpBbr::UpdateBtlBw: "if (rs.m_deliveryRate == 0)
        //= return" before UpdateRound, so round_start keeps its value.
        if self.cfg.mirror.ns3() && s.rs.delivery_rate.is_none_or(|r| r <= 0.0) {
            return;
        }
        self.round_start = false;
        if s.rs.prior_delivered >= self.next_round_delivered {
            self.next_round_delivered = s.rs.total_delivered;
            self.round_count += 1;
            self.round_start = true;
            if self.cfg.mirror.ns3() {
                //= ns-3.37 TcpBbr::UpdateRound: "m_packetConservation =
                //= false" at every round start.
                self.packet_conservation = false;
            }
        }
    }

    //= section 4.1.1.5 BBRUpdateBtlBw: "if (rs.delivery_rate >= BBR.BtlBw ||
    //= ! rs.is_app_limited) BBR.BtlBw = update_windowed_max_filter(...)".
    fn update_btlbw(&mut self, s: &AckSample) {
        let Some(rate) = s.rs.delivery_rate else {
            return;
        };
        let app_limited = s.rs.is_app_limited || s.rs.prior_delivered < self.app_limited_until;
        if rate >= self.max_bw() || !app_limited {
            match self.v3.as_mut() {
                //= draft-ietf-ccwg-bbr-01 BBRUpdateMaxBw: the max over the
                //= current and the previous ProbeBW cycle.
                Some(v) => v.max_bw[1] = v.max_bw[1].max(rate),
                None => self
                    .btlbw
                    .update(self.round_count, rate, self.cfg.btlbw_filter_rounds),
            }
        }
    }

    /// The max filter's bandwidth as ns-3's DataRate holds it, bits/s.
    fn ns3_bits_per_s(&self) -> u64 {
        (self.max_bw() * f64::from(self.seg_bytes) * 8.0) as u64
    }

    //= ns-3.37 TcpBbr::UpdateAckAggregation (mirror): per sampling
    //= epoch, the bytes ACKed beyond "expectedAcked = maxBw * epochProp /
    //= 8", the epoch's largest excess kept per window of 5 round trips.
    //= ns-3 holds epochProp, the epoch's age, in a uint32_t of seconds (0
    //= for the first second), and resets the epoch once it reaches 4096
    //= bytes, so the excess is about an ACK's bytes: the largest ACK of
    //= the window, up to cwnd.
    fn update_ack_aggregation(&mut self, cwnd: f64, s: &AckSample) {
        let seg = self.seg_bytes;
        let acked = u32::try_from(s.rs.newly_delivered)
            .unwrap_or(u32::MAX)
            .saturating_mul(seg);
        //= "if (!m_extraAckedGain || rs.m_ackedSacked <= 0 ||
        //= rs.m_delivered < 0) return".
        if acked == 0 || s.rs.untimed {
            return;
        }
        let bits = self.ns3_bits_per_s();
        let a = &mut self.aggr;
        if self.round_start {
            a.win_rtt = (a.win_rtt + 1).min(31);
            if a.win_rtt >= NS3_EXTRA_ACKED_WIN_RTTS {
                a.win_rtt = 0;
                a.idx ^= 1;
                a.extra_acked[a.idx] = 0;
            }
        }
        let epoch_prop = (s.now.as_secs_f64() - a.epoch_time.as_secs_f64()) as u32;
        let mut expected = (bits * u64::from(epoch_prop) / 8) as u32;
        if a.epoch_acked <= expected
            || a.epoch_acked.wrapping_add(acked) >= NS3_ACK_EPOCH_RESET_BYTES
        {
            a.epoch_acked = 0;
            a.epoch_time = s.now;
            expected = 0;
        }
        a.epoch_acked = a.epoch_acked.wrapping_add(acked);
        // ns-3's cwnd, a uint32_t of bytes.
        let cwnd_bytes = (cwnd * f64::from(seg)) as u32;
        let extra = a.epoch_acked.wrapping_sub(expected).min(cwnd_bytes);
        let best = &mut a.extra_acked[a.idx];
        *best = (*best).max(extra);
    }

    //= ns-3.37 TcpBbr::AckAggregationCwnd: once the pipe is filled, the
    //= target window grows by "m_extraAckedGain * std::max(m_extraAcked[0],
    //= m_extraAcked[1])", at most "maxAggrBytes = maxBw / (10 * 8)" (0.1 s
    //= of the bandwidth estimate). Segments.
    fn ns3_aggregation_cwnd(&self) -> f64 {
        if !self.cfg.mirror.ns3() || !self.filled_pipe {
            return 0.0;
        }
        let max_aggr = (self.ns3_bits_per_s() / 80) as u32;
        let [a, b] = self.aggr.extra_acked;
        let aggr = NS3_EXTRA_ACKED_GAIN.saturating_mul(a.max(b)).min(max_aggr);
        f64::from(aggr) / f64::from(self.seg_bytes)
    }

    //= section 4.1.2.3 BBRUpdateRTprop: "BBR.rtprop_expired = Now() >
    //= BBR.rtprop_stamp + RTpropFilterLen; if (packet.rtt >= 0 and
    //= (packet.rtt <= BBR.RTprop or BBR.rtprop_expired))" take it.
    fn update_rtprop(&mut self, s: &AckSample) {
        self.rtprop_expired =
            self.rtprop != SimTime::MAX && s.now > self.rtprop_stamp + self.rtprop_window;
        //= ns-3.37 TcpBbr::UpdateRTprop reads tcb->m_lastRtt on every ACK,
        //= which TcpSocketBase::EstimateRtt sets to "m_rtt->GetEstimate()",
        //= the smoothed RTT (mirror).
        let rtt = if self.cfg.mirror.ns3() {
            s.srtt
        } else {
            s.rs.rtt
        };
        if let Some(rtt) = rtt
            && (rtt <= self.rtprop || self.rtprop_expired)
        {
            self.set_rtprop(rtt);
            self.rtprop_stamp = s.now;
        }
    }

    /// RTprop becomes `rtt`.
    fn set_rtprop(&mut self, rtt: SimTime) {
        self.rtprop = rtt;
        self.rtprop_s = rtt.as_secs_f64();
    }

    //= section 4.3.2.2 BBRCheckFullPipe: "if BBR.filled_pipe or not
    //= BBR.round_start or rs.is_app_limited: return"; growth of 25% resets
    //= the count; "if (BBR.full_bw_count >= 3) BBR.filled_pipe = true".
    fn check_full_pipe(&mut self, s: &AckSample) {
        if self.filled_pipe || !self.round_start || s.rs.is_app_limited {
            return;
        }
        if self.max_bw() >= self.full_bw * FULL_BW_THRESH {
            self.full_bw = self.max_bw();
            self.full_bw_count = 0;
            return;
        }
        self.full_bw_count += 1;
        if self.full_bw_count >= FULL_BW_COUNT {
            self.filled_pipe = true;
        }
    }

    fn enter_drain(&mut self) {
        //= section 4.3.3: "BBR.pacing_gain = 1/BBRHighGain; BBR.cwnd_gain =
        //= BBRHighGain".
        self.mode = Mode::Drain;
        self.pacing_gain = 1.0 / self.cfg.high_gain;
        self.cwnd_gain = self.cfg.high_gain;
    }

    fn enter_probe_bw(&mut self, now: SimTime) {
        //= section 4.3.4.2: "BBR.cycle_index = BBRGainCycleLen - 1 -
        //= random_int_between(0, BBRGainCycleRand)" with BBRGainCycleRand = 7:
        //= a random phase other than the 3/4 one. ns-3.37
        //= TcpBbr::EnterProbeBW draws "(int)m_uv->GetValue(0, 6)", an
        //= integer in 0..=5, so it never starts in the 1x phase after the
        //= 3/4 one either (the 5/4 one is 1 in 6, not 1 in 7).
        self.mode = Mode::ProbeBw;
        self.pacing_gain = 1.0;
        self.cwnd_gain = self.cfg.cwnd_gain;
        let draws = if self.cfg.mirror.ns3() { 6 } else { 7 };
        let r = (self.random() % draws) as usize;
        self.cycle_index = PACING_GAIN_CYCLE.len() - 1 - r;
        self.advance_cycle_phase(now);
    }

    fn advance_cycle_phase(&mut self, now: SimTime) {
        self.cycle_stamp = now;
        self.cycle_index = (self.cycle_index + 1) % PACING_GAIN_CYCLE.len();
        self.pacing_gain = PACING_GAIN_CYCLE[self.cycle_index];
    }

    //= section 4.3.4.3 BBRIsNextCyclePhase: "is_full_length = (Now() -
    //= BBR.cycle_stamp) > BBR.RTprop"; gain > 1: full length and (losses or
    //= prior_inflight >= BBRInflight(pacing_gain)); gain < 1: full length or
    //= prior_inflight <= BBRInflight(1).
    fn is_next_cycle_phase(&self, now: SimTime, prior_inflight: f64, losses: u64) -> bool {
        let full = now.saturating_sub(self.cycle_stamp) > self.rtprop;
        if self.pacing_gain > 1.0 {
            full && (losses > 0 || prior_inflight >= self.inflight(self.pacing_gain))
        } else if self.pacing_gain < 1.0 {
            full || prior_inflight <= self.inflight(1.0)
        } else {
            full
        }
    }

    fn save_cwnd(&mut self, cwnd: f64) {
        //= section 4.2.3.4 BBRSaveCwnd: "if (not InLossRecovery() and BBR.state
        //= != ProbeRTT) return cwnd else return max(BBR.prior_cwnd, cwnd)".
        self.prior_cwnd = if !self.in_recovery && self.mode != Mode::ProbeRtt {
            cwnd
        } else {
            self.prior_cwnd.max(cwnd)
        };
    }

    //= section 4.3.5 BBRCheckProbeRTT / BBRHandleProbeRTT.
    fn check_probe_rtt(&mut self, w: &mut Window, s: &AckSample) {
        //= ns-3.37 TcpBbr::CheckProbeRTT: "m_rtPropExpired && !m_idleRestart".
        if self.mode != Mode::ProbeRtt && self.rtprop_expired && !self.idle_restart {
            //= "BBREnterProbeRTT(); BBRSaveCwnd(); BBR.probe_rtt_done_stamp = 0".
            self.save_cwnd(w.cwnd);
            //= tcp_bbr.c (google/bbr v3) bbr_update_min_rtt, entering
            //= PROBE_RTT: "bbr->ack_phase = BBR_ACKS_PROBE_STOPPING": a probe
            //= cut short stops counting as one after a round
            //= (`mirror = "linux"`; the draft leaves BBR.bw_probe_samples).
            if self.linux()
                && let Some(v) = self.v3.as_mut()
            {
                v.probe_stopping = true;
            }
            self.mode = Mode::ProbeRtt;
            self.pacing_gain = 1.0;
            self.cwnd_gain = 1.0;
            self.probe_rtt_done_stamp = None;
        }
        if self.mode == Mode::ProbeRtt {
            //= "Ignore low rate samples during this mode": C.app_limited =
            //= (BW.delivered + packets_in_flight) ? : 1.
            //= ns-3.37 TcpBbr::HandleProbeRTT sets TcpBbr's own m_appLimited,
            //= which only CwndEvent(CA_EVENT_TX_START) reads: its rate
            //= samples are never app-limited, ProbeRTT's low ones enter the
            //= BtlBw filter (ns-3 issue #1013, fixed in ns-3.45).
            if self.cfg.mirror.ns3() {
                self.probe_rtt_mark = true;
            } else {
                self.app_limited_until = s.rs.total_delivered + s.inflight.max(1);
            }
            match self.probe_rtt_done_stamp {
                None if (s.inflight as f64) <= self.probe_rtt_cwnd() => {
                    self.probe_rtt_done_stamp = Some(s.now + self.probe_rtt_duration);
                    self.probe_rtt_round_done = false;
                    self.next_round_delivered = s.rs.total_delivered;
                }
                Some(done) => {
                    if self.round_start {
                        self.probe_rtt_round_done = true;
                    }
                    if self.probe_rtt_round_done && s.now > done {
                        self.exit_probe_rtt(w, s.now);
                    }
                }
                None => {}
            }
        }
        //= ns-3.37 TcpBbr::CheckProbeRTT: "if (rs.m_delivered) m_idleRestart
        //= = false" (-1 for a sample without timing).
        if s.rs.untimed || s.rs.delivered != 0 {
            self.idle_restart = false;
        }
    }

    /// ProbeRTT is done at `now`: restore cwnd and leave it.
    fn exit_probe_rtt(&mut self, w: &mut Window, now: SimTime) {
        self.rtprop_stamp = now;
        //= BBRRestoreCwnd: "cwnd = max(cwnd, BBR.prior_cwnd)".
        w.cwnd = w.cwnd.max(self.prior_cwnd);
        //= BBRExitProbeRTT: ProbeBW if the pipe was filled, else Startup.
        if self.v3.is_some() {
            //= draft-ietf-ccwg-bbr-01 BBRExitProbeRTT:
            //= "BBRResetLowerBounds()"; to ProbeBW_CRUISE (through DOWN) once
            //= the pipe was filled.
            if let Some(v) = self.v3.as_mut() {
                v.bw_lo = f64::INFINITY;
                v.inflight_lo = f64::INFINITY;
            }
            if self.filled_pipe {
                self.v3_start_down(now);
                self.v3_set_phase(Phase::Cruise);
            } else {
                self.mode = Mode::Startup;
                self.pacing_gain = V3_STARTUP_PACING_GAIN;
                self.cwnd_gain = V3_CWND_GAIN;
            }
        } else if self.filled_pipe {
            self.enter_probe_bw(now);
        } else {
            self.mode = Mode::Startup;
            self.pacing_gain = self.cfg.high_gain;
            self.cwnd_gain = self.cfg.high_gain;
        }
    }

    //= section 4.2.1 BBRSetPacingRateWithGain: "rate = pacing_gain * BBR.BtlBw;
    //= if (BBR.filled_pipe || rate > BBR.pacing_rate) BBR.pacing_rate = rate".
    fn set_pacing_rate(&mut self) {
        self.set_pacing_rate_with_gain(self.pacing_gain);
    }

    /// BBRSetPacingRateWithGain at `gain` (ns-3.37's TcpBbr::SetPacingRate).
    fn set_pacing_rate_with_gain(&mut self, gain: f64) {
        let margin = if self.v3.is_some() {
            1.0 - V3_PACING_MARGIN
        } else {
            1.0
        };
        let rate = gain * self.bw() * margin;
        if rate > 0.0 && (self.filled_pipe || rate > self.pacing_rate) {
            self.pacing_rate = rate;
        }
    }

    //= section 4.2: on every ACK, "BBRSetPacingRate(); BBRSetSendQuantum();
    //= BBRSetCwnd()" (draft-ietf-ccwg-bbr-01: the same order).
    fn set_send_quantum(&mut self, mss_bytes: u32) {
        if self.cfg.send_quantum == Quantum::Draft {
            self.quantum = send_quantum(self.pacing_rate, mss_bytes);
        }
    }

    //= section 4.2.3.6 BBRSetCwnd, with 4.2.3.4 (loss recovery) and 4.2.3.5
    //= (ProbeRTT).
    fn set_cwnd(&mut self, w: &mut Window, s: &AckSample, losses: u64) {
        let delivered = s.rs.newly_delivered as f64;
        let inflight = s.inflight as f64;
        let ns3 = self.cfg.mirror.ns3();
        //= ns-3.37 TcpBbr::UpdateTargetCwnd: "m_targetCWnd = InFlight(tcb,
        //= m_cWndGain) + AckAggregationCwnd()".
        let target = self.inflight(self.cwnd_gain) + self.ns3_aggregation_cwnd();
        let mut cwnd = w.cwnd;
        // ns-3's cwnd in bytes (a uint32_t).
        let seg = f64::from(self.seg_bytes);
        //= ns-3.37 TcpBbr::SetCwnd: "if (!rs.m_ackedSacked) goto done"
        //= (only ProbeRTT's bound, below).
        let skip = ns3 && delivered == 0.0;
        let mut conserved = false;
        if ns3 && !skip && s.fast_recovery {
            //= ns-3.37 TcpBbr::SetCwnd calls ModulateCwndForRecovery in
            //= CA_RECOVERY: "std::max((int)tcb->m_cWnd.Get() -
            //= (int)rs.m_bytesLoss, (int)tcb->m_segmentSize)" (a window
            //= above INT32_MAX bytes, the UINT32_MAX a recovery's end leaves
            //= in Startup, reads negative and becomes one segment); then,
            //= under packet conservation, "std::max(cwnd, bytesInFlight +
            //= ackedSacked)" and no more; else the rules below, from the
            //= reduced window.
            if losses > 0 {
                cwnd = if cwnd * seg > f64::from(i32::MAX) {
                    1.0
                } else {
                    (cwnd - losses as f64).max(1.0)
                };
            }
            if self.packet_conservation {
                cwnd = cwnd.max(inflight + delivered);
                conserved = true;
            }
        }
        if skip || conserved {
            // cwnd as it is.
        } else if ns3 && self.filled_pipe {
            //= ns-3.37 TcpBbr::SetCwnd: "std::min(tcb->m_cWnd.Get() +
            //= (uint32_t)rs.m_ackedSacked, m_targetCWnd)", a sum in uint32_t
            //= bytes that wraps.
            let sum = (cwnd * seg + delivered * seg).round();
            let wrapped = if sum > f64::from(u32::MAX) {
                sum - 4_294_967_296.0
            } else {
                sum
            };
            cwnd = (wrapped / seg).min(target);
        } else {
            // Under the mirror the draft's rule with no loss reduction:
            // ns-3 applies it in CA_RECOVERY only (above).
            let losses = if ns3 { 0 } else { losses };
            cwnd = self.draft_cwnd(cwnd, s, losses, target);
        }
        if !self.packet_conservation && !skip {
            cwnd = cwnd.max(self.cfg.min_pipe_cwnd);
        }
        cwnd = self.bound_cwnd(cwnd);
        w.cwnd = cwnd;
    }

    /// BBRSetCwnd's window before its bounds (section 4.2.3.6), from
    /// `cwnd` with this ACK's sample.
    fn draft_cwnd(&self, mut cwnd: f64, s: &AckSample, losses: u64, target: f64) -> f64 {
        let delivered = s.rs.newly_delivered as f64;
        let inflight = s.inflight as f64;
        //= 4.2.3.4 BBRModulateCwndForRecovery: "if (rs.losses > 0) cwnd =
        //= max(cwnd - rs.losses, 1); if (BBR.packet_conservation) cwnd =
        //= max(cwnd, packets_in_flight + packets_delivered)".
        if losses > 0 {
            cwnd = (cwnd - losses as f64).max(1.0);
        }
        if self.packet_conservation {
            cwnd = cwnd.max(inflight + delivered);
        } else if self.filled_pipe {
            //= "cwnd = min(cwnd + packets_delivered, BBR.target_cwnd)".
            cwnd = (cwnd + delivered).min(target);
        } else if cwnd < target || (s.rs.total_delivered as f64) < self.initial_cwnd {
            //= "else if (cwnd < BBR.target_cwnd || BBR.delivered < InitialCwnd)
            //= cwnd = cwnd + packets_delivered".
            cwnd += delivered;
        }
        cwnd
    }

    /// The model's and ProbeRTT's bounds on `cwnd` (sections 4.2.3.5;
    /// draft-ietf-ccwg-bbr-01 BBRBoundCwndForModel).
    fn bound_cwnd(&self, mut cwnd: f64) -> f64 {
        //= 4.2.3.5 BBRModulateCwndForProbeRTT: "if (BBR.state == ProbeRTT)
        //= cwnd = min(cwnd, BBRMinPipeCwnd)".
        if let Some(v) = &self.v3 {
            //= draft-ietf-ccwg-bbr-01 BBRBoundCwndForModel: in ProbeBW
            //= "cap = BBR.inflight_hi" while probing up (and REFILL),
            //= "BBRInflightWithHeadroom()" otherwise; "cap = min(cap,
            //= BBR.inflight_lo)"; "cap = max(cap, BBRMinPipeCwnd)".
            //= tcp_bbr.c (google/bbr v3) bbr_bound_cwnd_for_inflight_model
            //= caps ProbeBW_DOWN at inflight_hi too: "if (bbr->mode ==
            //= BBR_PROBE_BW && bbr->cycle_idx != BBR_BW_PROBE_CRUISE) cap =
            //= bbr->inflight_hi" (`mirror = "linux"`).
            let mut cap = f64::INFINITY;
            if self.mode == Mode::ProbeBw {
                cap = if matches!(v.phase, Phase::Up | Phase::Refill)
                    || (self.linux() && v.phase == Phase::Down)
                {
                    v.inflight_hi
                } else {
                    self.inflight_with_headroom()
                };
            } else if self.mode == Mode::ProbeRtt {
                cap = self.inflight_with_headroom();
            }
            cap = cap.min(v.inflight_lo).max(self.cfg.min_pipe_cwnd);
            cwnd = cwnd.min(cap);
            if self.mode == Mode::ProbeRtt {
                //= BBRProbeRTTCwnd: "probe_rtt_cwnd = BBRBDPMultiple(BBR.bw,
                //= BBRProbeRTTCwndGain); max(probe_rtt_cwnd, BBRMinPipeCwnd)".
                let probe = (V3_PROBE_RTT_CWND_GAIN * self.bdp()).max(self.cfg.min_pipe_cwnd);
                cwnd = cwnd.min(probe);
            }
        } else if self.mode == Mode::ProbeRtt {
            cwnd = cwnd.min(self.cfg.min_pipe_cwnd);
        }
        cwnd
    }

    /// Loss recovery transitions (section 4.2.3.4): on entry save cwnd and
    /// start packet conservation for one round; on exit restore cwnd.
    fn track_recovery(&mut self, w: &mut Window, s: &AckSample) {
        if s.in_recovery && !self.in_recovery {
            self.in_recovery = true;
            if self.entering_recovery {
                //= ns-3.37 TcpBbr::CongestionStateSet(CA_RECOVERY) alike:
                //= "m_bytesInFlight + std::max(m_lastAckedSackedBytes,
                //= m_segmentSize)", m_packetConservation = true.
                //= "Upon entering Fast Recovery, set cwnd to the number of
                //= packets still in flight (allowing at least one for a fast
                //= retransmit)": cwnd = packets_in_flight + max(packets_delivered, 1);
                //= "BBR.packet_conservation = true" for one round trip.
                w.cwnd = s.inflight as f64 + (s.rs.newly_delivered.max(1)) as f64;
                self.packet_conservation = true;
                self.conservation_end = s.rs.total_delivered + s.inflight;
            }
        } else if !s.in_recovery && self.in_recovery {
            //= "Upon exiting loss recovery (RTO recovery or Fast Recovery),
            //= either by repairing all losses or undoing recovery, BBR restores
            //= the best-known cwnd value we had upon entering loss recovery":
            //= BBRRestoreCwnd, cwnd = max(cwnd, BBR.prior_cwnd).
            self.in_recovery = false;
            self.packet_conservation = false;
            if !self.cfg.mirror.ns3() {
                w.cwnd = w.cwnd.max(self.prior_cwnd);
            }
            //= ns-3.37: leaving CA_RECOVERY, TcpBbr::CwndEvent
            //= (CA_EVENT_COMPLETE_CWR) restores the window, then
            //= TcpSocketBase::ProcessAck sets "m_tcb->m_cWnd =
            //= m_tcb->m_ssThresh.Get()" (the sender's RecoveryExit::Ns3,
            //= before this sample); leaving CA_LOSS restores nothing.
        }
        self.entering_recovery = false;
        //= "After one round trip in Fast Recovery: BBR.packet_conservation =
        //= false". ns-3.37 ends it at the next round start instead
        //= (update_round), or when the recovery ends.
        if self.packet_conservation
            && !self.cfg.mirror.ns3()
            && s.rs.prior_delivered >= self.conservation_end
        {
            self.packet_conservation = false;
        }
    }
}

/// BBRv3 (draft-ietf-ccwg-bbr-01).
impl Bbr {
    /// The BDP estimate bw x RTprop, segments (0 before an RTT sample).
    fn bdp(&self) -> f64 {
        if self.rtprop == SimTime::MAX {
            return 0.0;
        }
        self.bw() * self.rtprop_s
    }

    /// Inflight at which ProbeRTT holds: 4 (v1), half the BDP (v3).
    fn probe_rtt_cwnd(&self) -> f64 {
        if self.v3.is_some() {
            (V3_PROBE_RTT_CWND_GAIN * self.bdp()).max(self.cfg.min_pipe_cwnd)
        } else {
            self.cfg.min_pipe_cwnd
        }
    }

    //= BBRInflightWithHeadroom: "if (BBR.inflight_hi == Infinity) return
    //= Infinity; headroom = max(1*SMSS, BBRHeadroom * BBR.inflight_hi);
    //= return max(BBR.inflight_hi - headroom, BBRMinPipeCwnd)".
    fn inflight_with_headroom(&self) -> f64 {
        let hi = self.v3.as_ref().map_or(f64::INFINITY, |v| v.inflight_hi);
        if hi.is_infinite() {
            return f64::INFINITY;
        }
        let headroom = (V3_HEADROOM * hi).max(1.0);
        (hi - headroom).max(self.cfg.min_pipe_cwnd)
    }

    fn v3_set_phase(&mut self, phase: Phase) {
        let (pacing, cwnd) = match phase {
            Phase::Down => (V3_DOWN_GAIN, V3_CWND_GAIN),
            Phase::Cruise | Phase::Refill => (1.0, V3_CWND_GAIN),
            Phase::Up => (V3_UP_GAIN, V3_UP_CWND_GAIN),
        };
        self.mode = Mode::ProbeBw;
        self.pacing_gain = pacing;
        self.cwnd_gain = cwnd;
        if let Some(v) = self.v3.as_mut() {
            v.phase = phase;
        }
    }

    //= BBRStartProbeBW_DOWN: reset the congestion signals, "BBR.probe_up_cnt
    //= = Infinity; BBRPickProbeWait(); BBR.cycle_stamp = Now()"; a new probe
    //= cycle advances the max-bandwidth filter (BBRAdvanceMaxBwFilter).
    fn v3_start_down(&mut self, now: SimTime) {
        let r = (self.random() >> 11) as f64 / (1u64 << 53) as f64;
        let extra_round = self.random() & 1;
        if let Some(v) = self.v3.as_mut() {
            Self::reset_congestion_signals(v);
            v.probe_stopping = true;
            v.probe_up_cnt = f64::INFINITY;
            v.bw_probe_wait = SimTime::from_secs_f64(V3_PROBE_WAIT_BASE_S + r);
            //= BBRPickProbeWait: "BBR.rounds_since_bw_probe =
            //= random_int_between(0, 1)".
            v.rounds_since_probe = extra_round;
            // Slot 1 collects this cycle's samples, slot 0 keeps the last
            // one's (`mirror = "linux"`: a round later, below).
            if self.cfg.mirror != Mirror::Linux {
                v.max_bw = [v.max_bw[1], 0.0];
            }
        }
        self.cycle_stamp = now;
        self.v3_start_round();
        self.v3_set_phase(Phase::Down);
    }

    //= draft-ietf-ccwg-bbr-01 section 4.5.1 BBRStartRound: "BBR.next_round_delivered
    //= = C.delivered", called as ProbeBW_DOWN, REFILL and UP start (section
    //= 4.3.3.6), so that each phase's rounds count from its start: REFILL
    //= lasts one whole round.
    fn v3_start_round(&mut self) {
        if let Some(v) = self.v3.as_ref() {
            self.next_round_delivered = v.delivered;
        }
    }

    //= BBRCheckTimeToProbeBW: "if (BBRHasElapsedInPhase(BBR.bw_probe_wait) ||
    //= BBRIsRenoCoexistenceProbeTime()) BBRStartProbeBW_REFILL()".
    fn v3_time_to_probe(&mut self, now: SimTime, cwnd: f64) -> bool {
        let reno_rounds = self.v3_target_inflight(cwnd).min(V3_RENO_ROUNDS_MAX);
        let Some(v) = self.v3.as_ref() else {
            return false;
        };
        let due = now.saturating_sub(self.cycle_stamp) > v.bw_probe_wait
            || v.rounds_since_probe as f64 >= reno_rounds;
        if due {
            self.v3_start_refill();
        }
        due
    }

    //= BBRStartProbeBW_REFILL: "BBRResetLowerBounds();
    //= BBR.bw_probe_up_rounds = 0; BBR.bw_probe_up_acks = 0" (Linux's
    //= bbr_start_bw_probe_refill also "bbr->stopped_risky_probe = 0").
    fn v3_start_refill(&mut self) {
        if let Some(v) = self.v3.as_mut() {
            v.bw_lo = f64::INFINITY;
            v.inflight_lo = f64::INFINITY;
            v.probe_up_rounds = 0;
            v.probe_up_acks = 0.0;
            v.stopped_risky_probe = false;
        }
        self.v3_start_round();
        self.v3_set_phase(Phase::Refill);
    }

    /// `mirror = "linux"`: google/bbr v3's tcp_bbr.c where it departs
    /// from draft-ietf-ccwg-bbr (each rule cited where it is coded).
    fn linux(&self) -> bool {
        self.cfg.mirror == Mirror::Linux
    }

    //= BBRStartProbeBW_UP: "BBR.bw_probe_samples = 1; BBRStartRound();
    //= BBRResetFullBW(); BBR.full_bw = rs.delivery_rate; BBR.state =
    //= ProbeBW_UP; BBRRaiseInflightHiSlope()" (and the cycle stamp, as
    //= Linux's bbr_start_bw_probe_up). `rate`: this ACK's delivery rate.
    fn v3_start_up(&mut self, now: SimTime, cwnd: f64, rate: f64) {
        self.cycle_stamp = now;
        self.v3_start_round();
        self.v3_set_phase(Phase::Up);
        if let Some(v) = self.v3.as_mut() {
            v.probe_samples = true;
            Self::reset_full_bw(v, rate);
            Self::raise_inflight_hi_slope(v, cwnd);
        }
    }

    //= section 4.3.1.2 BBRResetFullBW: "BBR.full_bw = 0; BBR.full_bw_count
    //= = 0; BBR.full_bw_now = 0", then the callers' "BBR.full_bw =
    //= rs.delivery_rate".
    fn reset_full_bw(v: &mut V3, rate: f64) {
        v.full_bw = rate;
        v.full_bw_count = 0;
        v.full_bw_now = false;
    }

    //= section 4.3.1.2 BBRCheckFullBWReached, on every ACK once the pipe
    //= was filled: "if (BBR.full_bw_now or rs.is_app_limited) return; if
    //= (rs.delivery_rate >= BBR.full_bw * 1.25) { BBRResetFullBW();
    //= BBR.full_bw = rs.delivery_rate; return }; if (!BBR.round_start)
    //= return; BBR.full_bw_count++; BBR.full_bw_now = (BBR.full_bw_count
    //= >= 3)". (Startup keeps v1's estimator, `check_full_pipe`.)
    fn v3_check_full_bw(&mut self, s: &AckSample) {
        let round_start = self.round_start;
        let Some(v) = self.v3.as_mut() else {
            return;
        };
        let Some(rate) = s.rs.delivery_rate else {
            return;
        };
        if v.full_bw_now || s.rs.is_app_limited {
            return;
        }
        if rate >= v.full_bw * FULL_BW_THRESH {
            Self::reset_full_bw(v, rate);
            return;
        }
        if round_start {
            v.full_bw_count += 1;
            v.full_bw_now = v.full_bw_count >= FULL_BW_COUNT;
        }
    }

    //= BBRRaiseInflightHiSlope: "growth_this_round = 1 << BBR.bw_probe_up_rounds;
    //= BBR.bw_probe_up_rounds = min(BBR.bw_probe_up_rounds + 1, 30);
    //= BBR.probe_up_cnt = max(cwnd / growth_this_round, 1)".
    fn raise_inflight_hi_slope(v: &mut V3, cwnd: f64) {
        let growth = (1u64 << v.probe_up_rounds) as f64;
        v.probe_up_rounds = (v.probe_up_rounds + 1).min(30);
        v.probe_up_cnt = (cwnd / growth).max(1.0);
    }

    /// One ACK under BBRv3: the model (max_bw, RTprop, the congestion
    /// signals of the round, the upper and lower bounds), the state machine,
    /// then pacing rate and cwnd.
    fn on_rate_sample_v3(&mut self, w: &mut Window, s: &AckSample) {
        let losses = s.retransmits.saturating_sub(self.retransmits);
        self.retransmits = s.retransmits;
        self.track_recovery(w, s);
        let prior_inflight = (s.inflight + s.rs.newly_delivered) as f64;
        self.update_round(s);
        {
            let v = self.v3.as_mut().expect("v3");
            v.round_lost += losses;
            v.round_delivered += s.rs.newly_delivered;
            v.round_acks += 1;
            v.round_ece += s.ece as u64;
            if self.round_start && self.mode == Mode::ProbeBw {
                v.rounds_since_probe += 1;
            }
            if losses > 0 {
                //= draft-ietf-ccwg-bbr-01 section 4.5.10.2 BBRNoteLoss: "if
                //= (!BBR.loss_in_round) BBR.loss_round_delivered =
                //= C.delivered; BBR.loss_in_round = 1": the first loss
                //= starts a round trip of its own (Linux's bbr_note_loss:
                //= "Capture 'current' data over the full round trip of
                //= loss, to have a better chance of observing the full
                //= capacity of the path"). Linux marks the loss before
                //= cong_control runs, so this ACK does not end that round.
                if !v.loss_in_round {
                    v.loss_round_delivered = s.rs.total_delivered;
                }
                v.loss_in_round = true;
            }
            //= section 4.5.10.3 BBRUpdateLatestDeliverySignals: "BBR.bw_latest
            //= = max(BBR.bw_latest, rs.delivery_rate); BBR.inflight_latest =
            //= max(BBR.inflight_latest, rs.delivered); if (rs.prior_delivered
            //= >= BBR.loss_round_delivered) { BBR.loss_round_delivered =
            //= C.delivered; BBR.loss_round_start = 1 }" (Linux: on valid
            //= samples only).
            v.loss_round_start = false;
            if let Some(r) = s.rs.delivery_rate {
                v.bw_latest = v.bw_latest.max(r);
                v.inflight_latest = v.inflight_latest.max(s.rs.delivered as f64);
                if s.rs.prior_delivered >= v.loss_round_delivered {
                    v.loss_round_delivered = s.rs.total_delivered;
                    v.loss_round_start = true;
                }
            }
        }
        self.update_btlbw(s);
        if let Some(v) = self.v3.as_mut() {
            v.delivered = s.rs.total_delivered;
        }
        if self.filled_pipe {
            self.v3_check_full_bw(s);
        }
        //= BBRUpdateCongestionSignals: "if (!BBR.loss_round_start) return;
        //= BBRAdaptLowerBoundsFromCongestion(); BBR.loss_in_round = 0",
        //= before the state machine.
        if self.v3.as_ref().is_some_and(|v| v.loss_round_start) {
            self.v3_adapt_lower_bounds(w);
        }
        self.update_rtprop(s);
        //= draft-ietf-ccwg-bbr (since -02) AdaptLongTermModel: "if
        //= (BBR.ack_phase == ACKS_PROBE_STOPPING && BBR.round_start) /* end
        //= of samples from bw probing phase */ BBR.is_bw_probe_sample =
        //= false" (Linux's bbr_adapt_upper_bounds alike; -01 omits it): a
        //= probe that ended without loss leaves no stale mark by which a
        //= lossy round in CRUISE would cut inflight_hi.
        let mut refilled = false;
        if self.round_start
            && let Some(v) = self.v3.as_mut()
            && v.probe_stopping
        {
            v.probe_stopping = false;
            v.probe_samples = false;
            //= tcp_bbr.c (google/bbr v3) bbr_adapt_upper_bounds, at the end
            //= of the probe's samples: "At this point in the cycle, our
            //= current bw sample is also our best recent chance at finding
            //= the highest available bw for this flow. So now is the best
            //= time to forget the bw samples from the previous cycle, by
            //= advancing the window": "if (bbr->mode == BBR_PROBE_BW &&
            //= !rs->is_app_limited) bbr_advance_max_bw_filter(sk)", which
            //= keeps the old window when the new one has no sample ("if
            //= (!bbr->bw_hi[1]) return"). The draft advances it as
            //= ProbeBW_DOWN starts (`mirror = "linux"`).
            if self.cfg.mirror == Mirror::Linux
                && self.mode == Mode::ProbeBw
                && !s.rs.is_app_limited
                && v.max_bw[1] > 0.0
            {
                v.max_bw = [v.max_bw[1], 0.0];
            }
            //= tcp_bbr.c (google/bbr v3) bbr_adapt_upper_bounds, at the end
            //= of the probe's samples: "If we had an inflight_hi, then probed
            //= and pushed inflight all the way up to hit that inflight_hi
            //= without seeing any high loss/ECN in all the resulting ACKs
            //= from that probing, then probe up again, this time letting
            //= inflight persist at inflight_hi for a round trip, then
            //= accelerating beyond": "if (bbr->mode == BBR_PROBE_BW &&
            //= bbr->stopped_risky_probe && !bbr->prev_probe_too_high) {
            //= bbr_start_bw_probe_refill(sk, 0); return true; }", the
            //= ACK's state transition (the rest of the bounds' and the
            //= phase's update skipped). Not in the draft.
            refilled = self.cfg.mirror == Mirror::Linux
                && self.mode == Mode::ProbeBw
                && v.stopped_risky_probe
                && !v.prev_probe_too_high;
            if refilled {
                self.v3_start_refill();
            }
        }
        let too_high = self.v3_too_high();
        let (round_lost, bw_probe) = {
            let v = self.v3.as_ref().expect("v3");
            (v.round_lost, v.probe_samples)
        };
        // Startup: full bandwidth as v1, or high loss / ECN.
        self.check_full_pipe(s);
        if self.mode == Mode::Startup
            && !self.filled_pipe
            && too_high
            && (round_lost >= V3_STARTUP_FULL_LOSS_CNT || round_lost == 0)
        {
            //= BBRCheckStartupHighLoss: "BBR.filled_pipe = true;
            //= BBR.inflight_hi = max(BBRBDPMultiple(BBR.bw, 1.0),
            //= BBR.inflight_latest)".
            self.filled_pipe = true;
            let bdp = self.bdp();
            if let Some(v) = self.v3.as_mut() {
                v.inflight_hi = bdp.max(v.inflight_latest);
            }
        }
        if self.mode == Mode::Startup && self.filled_pipe {
            //= BBREnterDrain: pacing_gain = BBRDrainPacingGain, cwnd_gain =
            //= BBRDefaultCwndGain (Linux's bbr_check_drain also
            //= bbr_reset_congestion_signals).
            Self::reset_congestion_signals(self.v3.as_mut().expect("v3"));
            self.mode = Mode::Drain;
            self.pacing_gain = V3_DRAIN_PACING_GAIN;
            self.cwnd_gain = V3_CWND_GAIN;
        }
        if self.mode == Mode::Drain && (s.inflight as f64) <= self.inflight(1.0) {
            self.v3_start_down(s.now);
        }
        if self.mode == Mode::ProbeBw && !refilled {
            //= BBRAdaptUpperBounds: "if (BBR.bw_probe_samples &&
            //= IsInflightTooHigh(rs)) BBRHandleInflightTooHigh(rs)":
            //= "BBR.inflight_hi = max(rs.tx_in_flight, BBRTargetInflight() *
            //= BBRBeta)"; in UP, "BBRStartProbeBW_DOWN()".
            //= tcp_bbr.c (google/bbr v3) bbr_adapt_upper_bounds reads
            //= rs->tx_in_flight, the flight when the ACKed segment was
            //= sent (`mirror = "linux"`); the draft's ACK-time flight
            //= otherwise.
            let tx_in_flight = if self.linux() {
                s.rs.tx_in_flight as f64
            } else {
                prior_inflight
            };
            if bw_probe && too_high {
                self.v3_inflight_too_high(s.now, prior_inflight, s.rs.is_app_limited, w.cwnd);
            } else if let Some(v) = self.v3.as_mut()
                && v.inflight_hi.is_finite()
                && tx_in_flight > v.inflight_hi
                && !too_high
            {
                //= "if (rs.tx_in_flight > BBR.inflight_hi) BBR.inflight_hi =
                //= rs.tx_in_flight" (no loss above the bound: raise it).
                v.inflight_hi = tx_in_flight;
            }
            self.v3_update_phase(w, s, prior_inflight);
        }
        if self.round_start {
            self.v3_end_round(w);
        }
        self.check_probe_rtt(w, s);
        //= BBRAdvanceLatestDeliverySignals: "if (BBR.loss_round_start) {
        //= BBR.bw_latest = rs.delivery_rate; BBR.inflight_latest =
        //= rs.delivered }".
        if let Some(v) = self.v3.as_mut()
            && v.loss_round_start
            && let Some(r) = s.rs.delivery_rate
        {
            v.bw_latest = r;
            v.inflight_latest = s.rs.delivered as f64;
        }
        self.set_pacing_rate();
        self.set_send_quantum(s.mss_bytes);
        self.set_cwnd(w, s, losses);
    }

    //= BBRTargetInflight, the draft's BBRInflight(BBR.bw, 1.0) (its
    //= BBRIsRenoCoexistenceProbeTime: "reno_rounds =
    //= BBRTargetInflight()"); tcp_bbr.c (google/bbr v3)
    //= bbr_target_inflight: "How much do we want in flight? Our BDP,
    //= unless congestion cut cwnd": "return min(bdp, tcp_sk(sk)->snd_cwnd)"
    //= (`mirror = "linux"`), with `cwnd` the window before this ACK's.
    fn v3_target_inflight(&self, cwnd: f64) -> f64 {
        let bdp = self.inflight(1.0);
        if self.linux() { bdp.min(cwnd) } else { bdp }
    }

    //= BBRHandleInflightTooHigh: "BBR.bw_probe_samples = 0; if
    //= (!rs.is_app_limited) BBR.inflight_hi = max(rs.tx_in_flight,
    //= BBRTargetInflight() * BBRBeta); if (BBR.state == ProbeBW_UP)
    //= BBRStartProbeBW_DOWN()". `tx_in_flight`: the flight the signal
    //= points at (a lost segment's, or the ACK's prior inflight).
    fn v3_inflight_too_high(
        &mut self,
        now: SimTime,
        tx_in_flight: f64,
        app_limited: bool,
        cwnd: f64,
    ) {
        let target = self.v3_target_inflight(cwnd);
        let phase = self.v3.as_ref().map(|v| v.phase);
        let linux = self.linux();
        if let Some(v) = self.v3.as_mut() {
            //= tcp_bbr.c (google/bbr v3) bbr_handle_inflight_too_high:
            //= "bbr->prev_probe_too_high = 1" (`mirror = "linux"`).
            v.prev_probe_too_high |= linux;
            v.probe_samples = false;
            if !app_limited {
                v.inflight_hi = tx_in_flight.max(target * V3_BETA);
            }
        }
        if self.mode == Mode::ProbeBw && phase == Some(Phase::Up) {
            self.v3_start_down(now);
        }
    }

    //= draft-ietf-ccwg-bbr BBRHandleLostPacket, Linux's bbr_skb_marked_lost
    //= (tcp_bbr.c, google/bbr v3), for each segment the sender marks lost:
    //= "if (!bbr->bw_probe_samples) return; /* not an skb sent while
    //= probing for bandwidth */"; the lost segment's own rate sample,
    //= "rs.tx_in_flight = scb->tx.in_flight; rs.lost = tp->lost -
    //= scb->tx.lost; rs.is_app_limited = scb->tx.is_app_limited; if
    //= (bbr_is_inflight_too_high(sk, &rs)) { rs.tx_in_flight =
    //= bbr_inflight_hi_from_lost_skb(sk, &rs, skb);
    //= bbr_handle_inflight_too_high(sk, &rs); }", too high meaning "rs->lost
    //= > loss_thresh" of tx_in_flight (BBRLossThresh, 2%). The loss rate is
    //= that of the lost segment's own flight, and the bound is the flight
    //= at which it crossed 2% (the draft's BBRInflightAtLoss), not the
    //= flight when the ACK that found the loss arrived.
    fn v3_on_lost_segment(&mut self, now: SimTime, l: &LostSample, cwnd: f64) {
        if !self.v3.as_ref().is_some_and(|v| v.probe_samples) {
            return;
        }
        let (tx, lost) = (l.tx_in_flight as f64, l.lost as f64);
        if l.lost == 0 || lost <= tx * V3_LOSS_THRESH {
            return;
        }
        //= bbr_inflight_hi_from_lost_skb solves "(lost_prev + lost_prefix) /
        //= (inflight_prev + lost_prefix) >= loss_thresh" for lost_prefix,
        //= with "inflight_prev = rs->tx_in_flight - pcount", "lost_prev =
        //= rs->lost - pcount" (pcount: one segment here) and a prefix of 0
        //= when "previous losses crossed loss_thresh"; "inflight_hi =
        //= inflight_prev + lost_prefix". In segments, not rounded (Linux
        //= rounds its fixed point up to a packet).
        let (inflight_prev, lost_prev) = (tx - 1.0, lost - 1.0);
        let prefix =
            ((V3_LOSS_THRESH * inflight_prev - lost_prev) / (1.0 - V3_LOSS_THRESH)).max(0.0);
        self.v3_inflight_too_high(now, inflight_prev + prefix, l.is_app_limited, cwnd);
    }

    /// The round's loss rate above BBRLossThresh or its CE fraction above
    /// BBRECNThresh (IsInflightTooHigh, measured per round here). In
    /// Startup, loss alone ends it only with BBRStartupFullLossCnt losses in
    /// the round (`round_lost == 0` there means the ECN signal).
    fn v3_too_high(&self) -> bool {
        let v = self.v3.as_ref().expect("v3");
        let lossy = v.round_lost > 0
            && (v.round_lost as f64) > V3_LOSS_THRESH * (v.round_lost + v.round_delivered) as f64;
        let marked = v.round_ece > 0 && (v.round_ece as f64) > V3_ECN_THRESH * v.round_acks as f64;
        lossy || marked
    }

    //= BBRUpdateProbeBWCyclePhase.
    fn v3_update_phase(&mut self, w: &Window, s: &AckSample, prior_inflight: f64) {
        let Some(phase) = self.v3.as_ref().map(|v| v.phase) else {
            return;
        };
        match phase {
            Phase::Down => {
                if self.v3_time_to_probe(s.now, w.cwnd) {
                    return;
                }
                //= BBRCheckTimeToCruise: "if (inflight > BBRInflightWithHeadroom())
                //= return false; if (inflight <= BBRInflight(BBR.max_bw, 1.0))
                //= return true".
                let inflight = s.inflight as f64;
                if inflight <= self.inflight_with_headroom() && inflight <= self.inflight(1.0) {
                    self.v3_set_phase(Phase::Cruise);
                }
            }
            Phase::Cruise => {
                self.v3_time_to_probe(s.now, w.cwnd);
            }
            Phase::Refill => {
                //= "if (BBR.round_start) BBRStartProbeBW_UP()": REFILL lasts one round.
                if self.round_start {
                    self.v3_start_up(s.now, w.cwnd, s.rs.delivery_rate.unwrap_or(0.0));
                }
            }
            Phase::Up => {
                // The flow is cwnd-limited when its flight before this ACK
                // reached cwnd (C.is_cwnd_limited).
                let cwnd_limited = prior_inflight + 1.0 >= w.cwnd;
                let round_start = self.round_start;
                let rate = s.rs.delivery_rate.unwrap_or(0.0);
                let linux = self.linux();
                let Some(v) = self.v3.as_mut() else {
                    return;
                };
                let at_hi = cwnd_limited && w.cwnd >= v.inflight_hi;
                //= section 4.3.3.6 BBRProbeInflightHiUpward: "if
                //= (!is_cwnd_limited or cwnd < BBR.inflight_hi) return;
                //= BBR.bw_probe_up_acks += rs.newly_acked; if
                //= (BBR.bw_probe_up_acks >= BBR.probe_up_cnt) { delta =
                //= BBR.bw_probe_up_acks / BBR.probe_up_cnt; ...
                //= BBR.inflight_hi += delta }; if (BBR.round_start)
                //= BBRRaiseInflightHiSlope()".
                if v.inflight_hi.is_finite() && at_hi {
                    v.probe_up_acks += s.rs.newly_delivered as f64;
                    if v.probe_up_acks >= v.probe_up_cnt {
                        let delta = (v.probe_up_acks / v.probe_up_cnt).floor();
                        v.probe_up_acks -= delta * v.probe_up_cnt;
                        v.inflight_hi += delta;
                    }
                    if round_start {
                        Self::raise_inflight_hi_slope(v, w.cwnd);
                    }
                }
                //= tcp_bbr.c (google/bbr v3) bbr_update_cycle_phase,
                //= BBR_BW_PROBE_UP: "(1) We've pushed inflight up to hit the
                //= inflight_hi target set in the most recent previous bw
                //= probe phase. Thus we want to start draining the queue
                //= immediately because it's very likely the most recently
                //= sent packets will fill the queue and cause drops": "if
                //= (bbr->prev_probe_too_high && inflight >= bbr->inflight_hi)
                //= { bbr->stopped_risky_probe = 1; is_bw_probe_done = true;
                //= }", and on either end of the probe "bbr->prev_probe_too_high
                //= = 0; bbr_start_bw_probe_down(sk)". `inflight` is
                //= bbr_packets_in_net_at_edt(rs->prior_in_flight): the
                //= flight before this ACK here (bufsim sends at the pacing
                //= event, with nothing held for a later departure time).
                //= Not in the draft (`mirror = "linux"`); after inflight_hi's growth
                //= above, as Linux's bbr_adapt_upper_bounds runs first.
                if linux && v.prev_probe_too_high && prior_inflight >= v.inflight_hi {
                    v.stopped_risky_probe = true;
                    v.prev_probe_too_high = false;
                    self.v3_start_down(s.now);
                    return;
                }
                //= section 4.3.3.6 BBRIsTimeToGoDown: "if (is_cwnd_limited and
                //= cwnd >= BBR.inflight_hi) { BBRResetFullBW(); BBR.full_bw =
                //= rs.delivery_rate } /* bw is limited by inflight_hi */ else
                //= if (BBR.full_bw_now) return true". ProbeBW_UP ends on a
                //= delivery-rate plateau that inflight_hi did not cause (or
                //= on loss, above), not after a fixed min_rtt: a queue that
                //= makes inflight exceed 1.25 BDP (the rule of
                //= draft-cardwell-iccrg-bbr-congestion-control-02, BBRv2)
                //= would end the probe before inflight_hi could grow.
                if at_hi {
                    Self::reset_full_bw(v, rate);
                } else if v.full_bw_now {
                    v.prev_probe_too_high = false;
                    self.v3_start_down(s.now);
                }
            }
        }
    }

    /// BBRIsProbingBW: Startup, ProbeBW_REFILL and ProbeBW_UP.
    fn v3_probing(&self) -> bool {
        self.mode == Mode::Startup
            || (self.mode == Mode::ProbeBw
                && matches!(
                    self.v3.as_ref().map(|v| v.phase),
                    Some(Phase::Refill | Phase::Up)
                ))
    }

    //= BBRResetCongestionSignals: "BBR.loss_in_round = 0; BBR.bw_latest =
    //= 0; BBR.inflight_latest = 0" (at ProbeBW_DOWN's start and Drain's).
    fn reset_congestion_signals(v: &mut V3) {
        v.loss_in_round = false;
        v.bw_latest = 0.0;
        v.inflight_latest = 0.0;
    }

    //= BBRInitLowerBounds: "if (BBR.bw_lo == Infinity) BBR.bw_lo =
    //= BBR.max_bw; if (BBR.inflight_lo == Infinity) BBR.inflight_lo =
    //= cwnd"; BBRLossLowerBounds: "BBR.bw_lo = max(BBR.bw_latest, BBRBeta
    //= * BBR.bw_lo); BBR.inflight_lo = max(BBR.inflight_latest, BBRBeta *
    //= BBR.inflight_lo)".
    fn v3_cut_lower_bounds(&mut self, w: &Window) {
        let max_bw = self.max_bw();
        let v = self.v3.as_mut().expect("v3");
        if v.bw_lo.is_infinite() {
            v.bw_lo = max_bw;
        }
        if v.inflight_lo.is_infinite() {
            v.inflight_lo = w.cwnd;
        }
        v.bw_lo = v.bw_latest.max(V3_BETA * v.bw_lo);
        v.inflight_lo = v.inflight_latest.max(V3_BETA * v.inflight_lo);
    }

    //= draft-ietf-ccwg-bbr-01 section 4.5.10.3
    //= BBRAdaptLowerBoundsFromCongestion, at the end of each loss round:
    //= "if (BBRIsProbingBW()) return; if (BBR.loss_in_round) {
    //= BBRInitLowerBounds(); BBRLossLowerBounds() }"; then
    //= "BBR.loss_in_round = 0".
    fn v3_adapt_lower_bounds(&mut self, w: &Window) {
        let lossy = self.v3.as_ref().is_some_and(|v| v.loss_in_round);
        if lossy && !self.v3_probing() {
            self.v3_cut_lower_bounds(w);
        }
        if let Some(v) = self.v3.as_mut() {
            v.loss_in_round = false;
        }
    }

    /// The end of a round trip: a round whose CE-marked fraction exceeds
    /// BBRECNThresh lowers the lower bounds as a lossy round does (outside
    /// probing; losses do so at the end of their loss round, above); the
    /// round's loss and ECN counts restart.
    fn v3_end_round(&mut self, w: &Window) {
        let marked = {
            let v = self.v3.as_ref().expect("v3");
            v.round_ece > 0 && (v.round_ece as f64) > V3_ECN_THRESH * v.round_acks as f64
        };
        if marked && !self.v3_probing() {
            self.v3_cut_lower_bounds(w);
        }
        let v = self.v3.as_mut().expect("v3");
        v.round_lost = 0;
        v.round_delivered = 0;
        v.round_acks = 0;
        v.round_ece = 0;
    }
}

impl CongestionControl for Bbr {
    fn on_ack(&mut self, _w: &mut Window, _ack: &AckInfo) {
        // BBR sets cwnd in on_rate_sample, on every ACK.
    }

    fn on_congestion_event(&mut self, w: &Window, flight: f64, _now: SimTime) -> f64 {
        //= section 4.2.3.4: "Upon entering Fast Recovery ... BBRSaveCwnd()".
        self.save_cwnd(w.cwnd);
        self.entering_recovery = true;
        if self.cfg.mirror.ns3() {
            //= ns-3.37 TcpBbr::GetSsThresh: "SaveCwnd(tcb); return
            //= tcb->m_ssThresh" (unchanged; this ACK's rate sample sets
            //= cwnd, track_recovery).
            return w.ssthresh;
        }
        // The sender sets cwnd to the returned value until the next rate
        // sample (the conservation window of the section); BBR does not
        // use ssthresh otherwise.
        flight.max(self.cfg.min_pipe_cwnd)
    }

    /// ECN-Echo: BBR answers marks through its model (v3: the fraction of
    /// CE-marked ACKs per round, above; v1 not at all), not with RFC 3168's
    /// per-window cut or a recovery's saved window: cwnd stays as it is.
    fn on_ece(&mut self, w: &Window, _flight: f64, _now: SimTime) -> f64 {
        w.cwnd
    }

    fn on_timeout(&mut self, w: &mut Window, flight: f64, _now: SimTime) {
        //= section 4.2.3.4: "Upon retransmission timeout, meaning the sender
        //= thinks all in-flight packets are lost, BBR conservatively reduces
        //= cwnd to one packet and sends a single packet" (after BBRSaveCwnd).
        self.save_cwnd(w.cwnd);
        self.in_recovery = true;
        self.packet_conservation = false;
        if self.cfg.mirror.ns3() {
            //= ns-3.37 TcpBbr::CongestionStateSet(CA_LOSS): "m_roundStart =
            //= true"; ReTxTimeout's GetSsThresh leaves TcpBbr's ssthresh
            //= unchanged (on_congestion_event).
            self.round_start = true;
        } else {
            w.ssthresh = flight.max(self.cfg.min_pipe_cwnd);
        }
        w.cwnd = 1.0;
    }

    fn uses_rate_samples(&self) -> bool {
        true
    }

    fn reads_lost_segments(&self) -> bool {
        self.v3.is_some()
    }

    fn on_lost_segment(&mut self, w: &mut Window, now: SimTime, l: &LostSample) {
        self.v3_on_lost_segment(now, l, w.cwnd);
    }

    //= ns-3.37 TcpBbr::CwndEvent: "event == CA_EVENT_TX_START &&
    //= m_appLimited" (set by any ProbeRTT before, never cleared):
    //= "m_idleRestart = true", a new ACK epoch, and in ProbeBW
    //= "SetPacingRate(tcb, 1)"; in ProbeRTT, "if (m_probeRttRoundDone &&
    //= Simulator::Now() > m_probeRttDoneStamp)" (a stamp not yet set reads
    //= 0) the RTprop stamp, cwnd restored and ProbeRTT left.
    fn on_tx_start(&mut self, w: &mut Window, now: SimTime) {
        if !self.cfg.mirror.ns3() || !self.probe_rtt_mark {
            return;
        }
        self.idle_restart = true;
        self.aggr.epoch_time = now;
        self.aggr.epoch_acked = 0;
        if self.mode == Mode::ProbeBw {
            self.set_pacing_rate_with_gain(1.0);
        } else if self.mode == Mode::ProbeRtt
            && self.probe_rtt_round_done
            && self.probe_rtt_done_stamp.is_none_or(|d| now > d)
        {
            self.exit_probe_rtt(w, now);
        }
    }

    fn on_connected(&mut self, w: &Window, srtt: SimTime) {
        if !self.cfg.mirror.ns3() || self.v3.is_some() {
            return;
        }
        //= ns-3.37 TcpBbr::InitPacingRate at the first CA_OPEN, the
        //= connection set up: "rtt = MilliSeconds(std::max<long
        //= int>(tcb->m_minRtt.GetMilliSeconds(), 1))" (m_minRtt the least
        //= smoothed RTT so far: the handshake's), "nominalBandwidth =
        //= tcb->m_cWnd * 8 / rtt", the pacing rate at the gain times it,
        //= and the max-bandwidth filter started at it.
        let rtt_s = (srtt.as_secs_f64() * 1e3).floor().max(1.0) / 1e3;
        let nominal = w.cwnd / rtt_s;
        self.pacing_rate = self.pacing_gain * nominal;
        self.btlbw = MaxFilter::new(Ties::Value);
        self.btlbw.update(0, nominal, self.cfg.btlbw_filter_rounds);
    }

    //= section 4.3.1 BBRUpdateOnACK: BBRUpdateModelAndState (UpdateBtlBw,
    //= CheckCyclePhase, CheckFullPipe, CheckDrain, UpdateRTprop,
    //= CheckProbeRTT), then BBRUpdateControlParameters (SetPacingRate,
    //= SetSendQuantum, SetCwnd).
    fn on_rate_sample(&mut self, w: &mut Window, s: &AckSample) {
        if self.rng == 0 {
            self.rng = s.now.0 | 1;
            if self.cfg.mirror.ns3() {
                //= ns-3.37 TcpBbr::CongestionStateSet, initializing at the
                //= first CA_OPEN: "tcb->m_ssThresh = tcb->m_initialSsThresh"
                //= (TcpSocket attribute InitialSlowStartThreshold, UINT32_MAX
                //= bytes).
                self.seg_bytes = ns3_segment_bytes(s.mss_bytes);
                w.ssthresh = f64::from(u32::MAX) / f64::from(self.seg_bytes);
            }
        }
        if self.v3.is_some() {
            self.on_rate_sample_v3(w, s);
            return;
        }
        let retransmitted = s.retransmits.saturating_sub(self.retransmits);
        self.retransmits = s.retransmits;
        //= ns-3.37 reads rs.m_bytesLoss, the change of the lost count over
        //= the ACK either way (`AckSample::lost_change`), in
        //= ModulateCwndForRecovery and IsNextCyclePhase.
        let losses = match s.lost_change {
            Some(lost) if self.cfg.mirror.ns3() => lost,
            _ => retransmitted,
        };
        self.track_recovery(w, s);
        // Inflight before this ACK ("prior_inflight").
        let prior_inflight = (s.inflight + s.rs.newly_delivered) as f64;
        self.update_round(s);
        self.update_btlbw(s);
        if self.cfg.mirror.ns3() {
            self.update_ack_aggregation(w.cwnd, s);
        }
        //= section 4.3.4.3 BBRCheckCyclePhase.
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(s.now, prior_inflight, losses) {
            self.advance_cycle_phase(s.now);
        }
        self.check_full_pipe(s);
        //= section 4.3.3 BBRCheckDrain: "if (BBR.state == Startup and
        //= BBR.filled_pipe) BBREnterDrain(); if (BBR.state == Drain and
        //= packets_in_flight <= BBRInflight(1.0)) BBREnterProbeBW()".
        if self.mode == Mode::Startup && self.filled_pipe {
            self.enter_drain();
            if self.cfg.mirror.ns3() {
                //= ns-3.37 TcpBbr::CheckDrain: "tcb->m_ssThresh =
                //= InFlight(tcb, 1)".
                w.ssthresh = self.inflight(1.0);
            }
        }
        if self.mode == Mode::Drain && (s.inflight as f64) <= self.inflight(1.0) {
            self.enter_probe_bw(s.now);
        }
        self.update_rtprop(s);
        self.check_probe_rtt(w, s);
        self.set_pacing_rate();
        self.set_send_quantum(s.mss_bytes);
        self.set_cwnd(w, s, losses);
    }

    fn pacing_rate(&self) -> Option<f64> {
        Some(self.pacing_rate)
    }

    fn send_quantum(&self) -> u32 {
        self.quantum
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::rate::{LostSample, RateSample};

    fn sample(
        now_ms: u64,
        rate: f64,
        rtt_ms: u64,
        prior: u64,
        total: u64,
        inflight: u64,
    ) -> AckSample {
        AckSample {
            now: SimTime::from_millis(now_ms),
            rs: RateSample {
                total_delivered: total,
                newly_delivered: 1,
                prior_delivered: prior,
                delivered: total - prior,
                interval: SimTime::from_millis(rtt_ms),
                delivery_rate: Some(rate),
                is_app_limited: false,
                rtt: Some(SimTime::from_millis(rtt_ms)),
                untimed: false,
                tx_in_flight: inflight,
                lost: 0,
            },
            inflight,
            in_recovery: false,
            fast_recovery: false,
            retransmits: 0,
            lost_change: None,
            ece: false,
            // The draft reads rs.rtt; the mirror reads SRTT, here the same.
            srtt: Some(SimTime::from_millis(rtt_ms)),
            mss_bytes: 1500,
        }
    }

    /// The max filter keeps the best sample for `win` rounds, then the
    /// second best of the later ones (hand-worked: window 10).
    #[test]
    fn windowed_max_filter() {
        let mut f = MaxFilter::default();
        f.update(1, 100.0, 10);
        f.update(2, 80.0, 10);
        f.update(5, 90.0, 10);
        assert_eq!(f.get(), 100.0);
        // Round 12: 100 (round 1) is 11 rounds old; 90 (round 5) is the max
        // of the window (2, 12].
        f.update(12, 50.0, 10);
        assert_eq!(f.get(), 90.0);
        // A larger sample replaces everything at once.
        f.update(13, 120.0, 10);
        assert_eq!(f.get(), 120.0);
        // Nothing within the window for a long time: the newest sample.
        f.update(40, 10.0, 10);
        assert_eq!(f.get(), 10.0);
    }

    /// Linux's and ns-3's filters part where two kept samples tie in
    /// value (hand-worked: window 10). After 100 at round 0 and 80 at
    /// rounds 3 and 4, a 70 at round 9 becomes Linux's third best (the
    /// second and third are one sample, 9 > 10 / 2 rounds after the
    /// best); ns-3 sees equal values and counts from round 4 (5 rounds,
    /// not more than 5). At round 15 Linux's best is that 70, ns-3's the
    /// 60 of round 11.
    #[test]
    fn ns3_max_filter_compares_values() {
        let rounds = [
            (0, 100.0),
            (3, 80.0),
            (4, 80.0),
            (9, 70.0),
            (11, 60.0),
            (15, 50.0),
        ];
        let best = |ties| {
            let mut f = MaxFilter::new(ties);
            for (t, v) in rounds {
                f.update(t, v, 10);
            }
            f.get()
        };
        assert_eq!(best(Ties::Time), 70.0);
        assert_eq!(best(Ties::Value), 60.0);
    }

    /// ns-3's target window (the mirror), hand-worked with 960-byte
    /// segments, BtlBw 1000 segments/s and RTprop 100 ms (BDP 100): one
    /// segment per ACK fills the 4096-byte epoch to 3840 bytes, 4
    /// segments of aggregation once the pipe is filled; InFlight(2) is 2 x
    /// 100 + 3 quanta, 2 segments more in ProbeBW's 5/4 phase.
    #[test]
    fn ns3_target_window() {
        let mut b = Bbr::new(BbrConfig {
            mirror: Mirror::Ns3_37,
            ..BbrConfig::default()
        });
        b.seg_bytes = 960;
        b.btlbw.update(1, 1000.0, 10);
        b.set_rtprop(SimTime::from_millis(100));
        for ms in 0..6 {
            b.update_ack_aggregation(100.0, &sample(100 + ms, 1000.0, 100, 0, ms + 1, 90));
        }
        assert_eq!(b.aggr.extra_acked[b.aggr.idx], 3840);
        assert_eq!(b.ns3_aggregation_cwnd(), 0.0);
        b.filled_pipe = true;
        assert_eq!(b.ns3_aggregation_cwnd(), 4.0);
        b.mode = Mode::ProbeBw;
        b.cycle_index = 2;
        assert_eq!(b.inflight(2.0), 203.0);
        b.cycle_index = 0;
        assert_eq!(b.inflight(2.0), 205.0);
        // The draft's rule rounds up: ceil(2 x 100.3 + 3) = 204, where
        // ns-3 keeps 203.6 (203 segments may be sent).
        b.btlbw.update(2, 1003.0, 10);
        b.cycle_index = 2;
        assert!((b.inflight(2.0) - 203.6).abs() < 1.0 / 960.0);
    }

    /// Startup: gain 2/ln 2 = 2.885; pacing rate = gain * BtlBw; three
    /// rounds without 25% growth fill the pipe, Drain paces at ln 2 / 2 =
    /// 0.347 until inflight <= BDP + 3, then ProbeBW. One-segment quanta
    /// (3 segments of allowance); the draft's quanta are checked in
    /// `send_quantum_param_and_inflight_allowance`.
    #[test]
    fn startup_drain_probe_bw() {
        let cfg = BbrConfig {
            send_quantum: Quantum::Segment,
            ..BbrConfig::default()
        };
        assert!((cfg.high_gain - 2.885_390_081_777_927).abs() < 1e-12);
        let mut b = Bbr::new(cfg);
        let mut w = Window {
            cwnd: 10.0,
            ssthresh: f64::INFINITY,
        };
        // Initial pacing: 2.885 * 10 segments / 1 ms.
        assert!((b.pacing_rate - 28_853.9).abs() < 0.1);
        // Rounds: each sample's prior_delivered reaches the previous total.
        let mut total = 0;
        let mut rate = 1000.0;
        for r in 0..3 {
            let prior = total;
            total += 10;
            b.on_rate_sample(&mut w, &sample(100 * (r + 1), rate, 100, prior, total, 10));
            rate *= 2.0;
        }
        // Round 3 measured 4000/s: BtlBw 4000, RTprop 100 ms, BDP 400.
        assert_eq!(b.mode, Mode::Startup);
        assert_eq!(b.bw(), 4000.0);
        // gain * BtlBw = 11 541/s is below the initial 28 854/s: before the
        // pipe is filled the pacing rate never decreases.
        assert!((b.pacing_rate - 28_853.9).abs() < 0.1);
        // Three rounds at 4000/s: full_bw_count reaches 3 -> Drain.
        for r in 3..6 {
            let prior = total;
            total += 10;
            b.on_rate_sample(
                &mut w,
                &sample(100 * (r + 1), 4000.0, 100, prior, total, 900),
            );
        }
        assert!(b.filled_pipe);
        assert_eq!(b.mode, Mode::Drain);
        assert!((b.pacing_rate - 4000.0 * std::f64::consts::LN_2 / 2.0).abs() < 1e-6);
        // Target cwnd in Drain: 2.885 * 400 + 3 = 1158 (ceil).
        assert_eq!(b.inflight(cfg.high_gain), 1158.0);
        // Inflight drops to BDP + 3 = 403: ProbeBW, gain from the cycle
        // (never starting in the 3/4 phase), cwnd_gain 2.
        let prior = total;
        total += 10;
        b.on_rate_sample(&mut w, &sample(700, 4000.0, 100, prior, total, 403));
        assert_eq!(b.mode, Mode::ProbeBw);
        assert!(b.cycle_index != 1);
        assert_eq!(b.inflight(b.cwnd_gain), 803.0);
    }

    /// The draft starts ProbeBW in any phase but the 3/4 one (index 1),
    /// uniformly; ns-3.37 in none of the 3/4 one and the 1x one after it
    /// (index 2).
    #[test]
    fn probe_bw_start_phases() {
        for (mirror, never) in [(Mirror::Spec, vec![1]), (Mirror::Ns3_37, vec![1, 2])] {
            let mut b = Bbr::new(BbrConfig {
                mirror,
                ..BbrConfig::default()
            });
            b.rng = 7;
            let mut seen = [0u32; 8];
            for k in 0..7000 {
                b.enter_probe_bw(SimTime::from_millis(k));
                seen[b.cycle_index] += 1;
            }
            let allowed = 8 - never.len() as u32;
            for (i, &n) in seen.iter().enumerate() {
                if never.contains(&i) {
                    assert_eq!(n, 0, "phase {i}");
                } else {
                    // Uniform: 7000 / allowed each, within 10%.
                    let want = 7000 / allowed;
                    assert!(n.abs_diff(want) < want / 10, "phase {i}: {n} of {want}");
                }
            }
        }
    }

    /// ProbeBW's 5/4 phase lasts at least one RTprop and until inflight
    /// reaches 5/4 BDP; the 3/4 phase ends after one RTprop or as soon as
    /// inflight <= BDP.
    #[test]
    fn gain_cycle_phases() {
        let mut b = Bbr::new(BbrConfig::default());
        b.btlbw.update(1, 1000.0, 10);
        b.set_rtprop(SimTime::from_millis(100));
        b.mode = Mode::ProbeBw;
        b.cycle_index = 0;
        b.pacing_gain = 1.25;
        b.cycle_stamp = SimTime::ZERO;
        // BDP = 100; Inflight(1.25) = 128.
        assert!(!b.is_next_cycle_phase(SimTime::from_millis(50), 200.0, 0));
        assert!(!b.is_next_cycle_phase(SimTime::from_millis(150), 127.0, 0));
        assert!(b.is_next_cycle_phase(SimTime::from_millis(150), 128.0, 0));
        assert!(b.is_next_cycle_phase(SimTime::from_millis(150), 50.0, 1));
        b.advance_cycle_phase(SimTime::from_millis(150));
        assert_eq!(b.pacing_gain(), 0.75);
        assert!(b.is_next_cycle_phase(SimTime::from_millis(160), 103.0, 0));
        assert!(!b.is_next_cycle_phase(SimTime::from_millis(160), 104.0, 0));
        assert!(b.is_next_cycle_phase(SimTime::from_millis(251), 500.0, 0));
    }

    /// A flow in ProbeBW at 1000 segments/s and 100 ms whose RTprop
    /// expires at 10.001 s (a larger RTT then), with cwnd `cwnd` before it:
    /// in ProbeRTT.
    fn into_probe_rtt(cfg: BbrConfig, cwnd: f64) -> (Bbr, Window) {
        let mut b = Bbr::new(cfg);
        let mut w = Window {
            cwnd: 100.0,
            ssthresh: f64::INFINITY,
        };
        b.filled_pipe = true;
        b.btlbw.update(1, 1000.0, 10);
        b.on_rate_sample(&mut w, &sample(0, 1000.0, 100, 0, 10, 90));
        b.mode = Mode::ProbeBw;
        w.cwnd = cwnd;
        b.on_rate_sample(&mut w, &sample(10_001, 1000.0, 120, 10, 20, 90));
        assert_eq!(b.mode, Mode::ProbeRtt);
        (b, w)
    }

    /// ns-3's CA_EVENT_TX_START (the mirror): once a ProbeRTT has set
    /// TcpBbr's m_appLimited, a send with nothing in flight ends a
    /// ProbeRTT whose round is done and whose 200 ms are over, paces
    /// ProbeBW at 1 x BtlBw, and keeps the next ACK, whose RTprop has
    /// expired, from entering ProbeRTT (that ACK takes a new RTprop, so
    /// the ProbeRTT is skipped).
    #[test]
    fn ns3_tx_start() {
        let cfg = BbrConfig {
            mirror: Mirror::Ns3_37,
            ..BbrConfig::default()
        };
        let (mut b, mut w) = into_probe_rtt(cfg, 50.0);
        assert!(b.probe_rtt_mark);
        b.probe_rtt_round_done = true;
        b.probe_rtt_done_stamp = Some(SimTime::from_millis(10_300));
        b.on_tx_start(&mut w, SimTime::from_millis(10_200));
        assert_eq!(b.mode, Mode::ProbeRtt);
        b.on_tx_start(&mut w, SimTime::from_millis(10_301));
        assert_eq!(b.mode, Mode::ProbeBw);
        assert_eq!(w.cwnd, 50.0);
        b.pacing_rate = 5000.0;
        b.on_tx_start(&mut w, SimTime::from_millis(10_400));
        assert_eq!(b.pacing_rate, b.bw());
        assert!(b.idle_restart);
        b.on_rate_sample(&mut w, &sample(20_302, 1000.0, 120, 20, 30, 90));
        assert_eq!(b.mode, Mode::ProbeBw);
        assert!(!b.idle_restart);
        b.on_rate_sample(&mut w, &sample(20_303, 1000.0, 120, 21, 31, 90));
        assert_eq!(b.mode, Mode::ProbeBw);
        // The draft's controller has no such event.
        let (mut d, mut w) = into_probe_rtt(BbrConfig::default(), 50.0);
        d.probe_rtt_round_done = true;
        d.on_tx_start(&mut w, SimTime::from_millis(10_301));
        assert_eq!(d.mode, Mode::ProbeRtt);
    }

    /// RTprop expires after 10 s: ProbeRTT caps cwnd at 4, waits for
    /// inflight <= 4, holds 200 ms and one round, then restores cwnd.
    #[test]
    fn probe_rtt() {
        let (mut b, mut w) = into_probe_rtt(BbrConfig::default(), 200.0);
        assert_eq!(w.cwnd, 4.0);
        assert_eq!(b.rtprop, SimTime::from_millis(120));
        // Inflight reaches 4 at 10.1 s: done at 10.3 s after a round.
        b.on_rate_sample(&mut w, &sample(10_100, 900.0, 100, 20, 30, 4));
        assert_eq!(b.probe_rtt_done_stamp, Some(SimTime::from_millis(10_300)));
        b.on_rate_sample(&mut w, &sample(10_200, 900.0, 100, 30, 34, 4));
        assert_eq!(b.mode, Mode::ProbeRtt);
        b.on_rate_sample(&mut w, &sample(10_301, 900.0, 100, 34, 38, 4));
        assert_eq!(b.mode, Mode::ProbeBw);
        assert!(w.cwnd >= 200.0 - 1e-9 || w.cwnd == b.inflight(2.0));
        assert_eq!(b.rtprop, SimTime::from_millis(100));
    }

    /// ProbeRTT marks the connection app-limited, so that its low rate
    /// samples leave BtlBw alone (section 4.3.5); under the mirror the
    /// mark never reaches the samples (ns-3.37's TcpBbr keeps its own
    /// m_appLimited) and a low one enters the filter: with the 1000/s
    /// sample 20 rounds old, a 500/s sample from ProbeRTT is the estimate.
    #[test]
    fn probe_rtt_app_limited_mark() {
        for ns3 in [false, true] {
            let cfg = BbrConfig {
                mirror: if ns3 { Mirror::Ns3_37 } else { Mirror::Spec },
                ..BbrConfig::default()
            };
            let (mut b, mut w) = into_probe_rtt(cfg, 100.0);
            assert_eq!(b.app_limited_until > 0, !ns3);
            b.round_count += 20;
            b.on_rate_sample(&mut w, &sample(10_050, 500.0, 100, 20, 24, 4));
            assert_eq!(b.bw(), if ns3 { 500.0 } else { 1000.0 }, "mirror {ns3}");
        }
    }

    /// Fast recovery: cwnd = inflight + max(delivered, 1) on entry; packet
    /// conservation for one round; on exit cwnd is restored to the window
    /// saved on entry.
    #[test]
    fn recovery_conservation_and_restore() {
        let mut b = Bbr::new(BbrConfig::default());
        let mut w = Window {
            cwnd: 50.0,
            ssthresh: f64::INFINITY,
        };
        b.filled_pipe = true;
        b.mode = Mode::ProbeBw;
        b.pacing_gain = 1.0;
        b.cwnd_gain = 2.0;
        b.on_congestion_event(&w, 50.0, SimTime::ZERO);
        let mut s = sample(100, 1000.0, 100, 0, 100, 30);
        s.in_recovery = true;
        s.retransmits = 1;
        b.on_rate_sample(&mut w, &s);
        // Entry: 30 + 1 = 31, minus the one loss (then conservation keeps
        // at least inflight + delivered = 31).
        assert_eq!(w.cwnd, 31.0);
        s.now = SimTime::from_millis(300);
        s.in_recovery = false;
        s.rs.prior_delivered = 200;
        s.rs.total_delivered = 210;
        b.on_rate_sample(&mut w, &s);
        // Restored to 50, then + 1 delivered (target 2 * 100 + 3 = 203).
        assert_eq!(w.cwnd, 51.0);
    }

    /// `mirror = "ns-3.37"`, as ns-3.37's TcpBbr: ssthresh is UINT32_MAX
    /// bytes in Startup and a congestion event keeps it; packet
    /// conservation lasts until the next round starts, and in the recovery
    /// each ACK takes off the segments whose lost mark changed; the
    /// recovery's end leaves cwnd = ssthresh (the sender's
    /// RecoveryExit::Ns3), which Startup keeps; once the
    /// pipe is full the 32-bit sum wraps (UINT32_MAX + 1460 bytes = 1459
    /// bytes) and the minimum pipe cwnd (4) is what is left; Drain sets
    /// ssthresh to BBRInflight(1). 1500 B packets: 1460 B segments.
    #[test]
    fn ns3_mirror_rules() {
        let cfg = BbrConfig {
            send_quantum: Quantum::Segment,
            mirror: Mirror::Ns3_37,
            ..BbrConfig::default()
        };
        let mut b = Bbr::new(cfg);
        let mut w = Window {
            cwnd: 10.0,
            ssthresh: f64::INFINITY,
        };
        let u32max = f64::from(u32::MAX) / 1460.0;
        b.on_rate_sample(&mut w, &sample(100, 1000.0, 100, 0, 10, 10));
        assert_eq!(w.ssthresh, u32max);
        assert_eq!(w.cwnd, 11.0);
        // A fast recovery in Startup: ssthresh unchanged; packet
        // conservation (cwnd = inflight 20 + 1) until the next round start
        // (TcpBbr::UpdateRound), where the draft's would hold until
        // delivered 30 + 20. (Rates doubling each round: Startup goes on.)
        assert_eq!(b.on_congestion_event(&w, 20.0, SimTime::ZERO), u32max);
        let mut s = sample(200, 2000.0, 100, 5, 30, 20);
        s.in_recovery = true;
        s.fast_recovery = true;
        b.on_rate_sample(&mut w, &s);
        assert!(b.packet_conservation);
        assert_eq!(w.cwnd, 21.0);
        // A segment sent after the round's end (delivered 10) is delivered:
        // a round starts, conservation ends and cwnd grows by the ACK's
        // delivery (conservation would keep max(21, 5 + 1)), after
        // ModulateCwndForRecovery took off the two segments whose lost mark
        // changed (rs.m_bytesLoss): 21 - 2 + 1.
        s.rs.prior_delivered = 30;
        s.rs.total_delivered = 40;
        s.rs.delivery_rate = Some(4000.0);
        s.inflight = 5;
        s.lost_change = Some(2);
        b.on_rate_sample(&mut w, &s);
        assert!(!b.packet_conservation);
        assert_eq!(w.cwnd, 20.0);
        // The recovery ends: the sender sets cwnd = ssthresh; nothing is
        // restored and Startup (cwnd above target) keeps it.
        w.cwnd = w.ssthresh;
        s.in_recovery = false;
        s.fast_recovery = false;
        s.lost_change = Some(0);
        s.rs.prior_delivered = 110;
        s.rs.total_delivered = 111;
        s.rs.delivery_rate = Some(8000.0);
        b.on_rate_sample(&mut w, &s);
        assert!(!b.filled_pipe);
        assert_eq!(w.cwnd, u32max);
        // Three rounds without growth fill the pipe: Drain, ssthresh =
        // BBRInflight(1) = 8000/s x 0.1 s + 3 = 803, and the wrapped sum.
        let mut total = 111;
        for r in 0..3 {
            let prior = total;
            total += 10;
            b.on_rate_sample(
                &mut w,
                &sample(400 + 100 * r, 8000.0, 100, prior, total, 20),
            );
        }
        assert!(b.filled_pipe);
        assert_eq!(w.ssthresh, 803.0);
        assert_eq!(w.cwnd, 4.0);
    }

    /// BBRv3's loss response, hand-worked: max_bw 1000/s, RTprop 100 ms (BDP
    /// 100, BBRInflight(1) = 103). In ProbeBW_UP an ACK reports 5 segments
    /// lost against 1 delivered in the round (rate 5/6 > 2%): inflight_hi =
    /// max(prior inflight 121, 0.7 x 103) = 121 and the phase goes DOWN,
    /// where cwnd stays under inflight_hi less the 15% headroom (102.85);
    /// DOWN's start clears the loss round (BBRResetCongestionSignals). A
    /// loss in DOWN (delivered 2) starts a loss round of its own: the ACK
    /// that ends it (prior delivered 2) lowers bw_lo to max(bw_latest, 0.7
    /// x 1000), bw_latest the best rate of that round (900, not the 800 the
    /// lossy ACK measured), and pacing = 0.9 x 900 x 0.99.
    #[test]
    fn v3_loss_response() {
        let cfg = BbrConfig {
            version: 3,
            ..BbrConfig::default()
        };
        let mut b = Bbr::new(cfg);
        let mut w = Window {
            cwnd: 200.0,
            ssthresh: f64::INFINITY,
        };
        b.filled_pipe = true;
        b.set_rtprop(SimTime::from_millis(100));
        b.rtprop_stamp = SimTime::from_millis(1000);
        b.v3.as_mut().unwrap().max_bw = [0.0, 1000.0];
        b.v3_start_up(SimTime::from_millis(1000), w.cwnd, 1000.0);
        assert_eq!(b.pacing_gain(), 1.25);
        let mut s = sample(1050, 900.0, 100, 0, 1, 120);
        s.retransmits = 5;
        b.on_rate_sample(&mut w, &s);
        let v = b.v3.as_ref().unwrap();
        assert_eq!(v.inflight_hi, 121.0);
        assert_eq!(v.phase, Phase::Down);
        assert!(v.bw_lo.is_infinite() && !v.loss_in_round);
        assert!((b.inflight_with_headroom() - 102.85).abs() < 1e-9);
        assert!(w.cwnd <= 102.85);
        let mut s = sample(1060, 800.0, 100, 1, 2, 120);
        s.retransmits = 6;
        b.on_rate_sample(&mut w, &s);
        let v = b.v3.as_ref().unwrap();
        assert!(v.loss_in_round && v.bw_lo.is_infinite());
        let mut s = sample(1160, 900.0, 100, 2, 3, 120);
        s.retransmits = 6;
        b.on_rate_sample(&mut w, &s);
        let v = b.v3.as_ref().unwrap();
        assert_eq!(v.phase, Phase::Down);
        assert_eq!(v.bw_lo, 900.0);
        assert!((b.pacing_rate - 0.9 * 900.0 * 0.99).abs() < 1e-6);
    }

    /// The per-lost-segment bound (BBRHandleLostPacket), hand-worked: max_bw
    /// 1000/s, RTprop 100 ms (BBRInflight(1) = 103), in ProbeBW_UP. A
    /// segment sent into a flight of 150 with 2 losses since its send
    /// (2/150 below 2%) changes nothing. One sent into 150 with 4 losses
    /// (itself included; 4 > 3) is too high: before it 149 in flight and 3
    /// lost, and the loss rate reaches 2% after a prefix of (0.02 x 149 - 3)
    /// / 0.98 < 0, so 0: inflight_hi = 149 and the phase goes DOWN. One
    /// sent into 300 with 7 losses: prefix (5.98 - 6) / 0.98 < 0 too,
    /// inflight_hi 299; into 510 with 11 losses (above 10.2), 10 before it
    /// against 0.02 x 509 = 10.18: prefix 0.18 / 0.98, inflight_hi 509.18.
    /// Outside a probe (bw_probe_samples clear) a loss leaves the bound.
    #[test]
    fn v3_lost_segment_bound() {
        let cfg = BbrConfig {
            version: 3,
            ..BbrConfig::default()
        };
        let up = || {
            let mut b = Bbr::new(cfg);
            b.rng = 1;
            b.filled_pipe = true;
            b.set_rtprop(SimTime::from_millis(100));
            b.rtprop_stamp = SimTime::from_millis(1000);
            b.v3.as_mut().unwrap().max_bw = [0.0, 1000.0];
            b.v3_start_up(SimTime::from_millis(1000), 200.0, 1000.0);
            b
        };
        let mut w = Window {
            cwnd: 200.0,
            ssthresh: f64::INFINITY,
        };
        let now = SimTime::from_millis(1050);
        let lost = |tx_in_flight, lost| LostSample {
            tx_in_flight,
            lost,
            is_app_limited: false,
        };
        assert!(up().reads_lost_segments());
        let mut b = up();
        b.on_lost_segment(&mut w, now, &lost(150, 2));
        let v = b.v3.as_ref().unwrap();
        assert!(v.inflight_hi.is_infinite() && v.phase == Phase::Up && v.probe_samples);
        b.on_lost_segment(&mut w, now, &lost(150, 4));
        let v = b.v3.as_ref().unwrap();
        assert_eq!(
            (v.inflight_hi, v.phase, v.probe_samples),
            (149.0, Phase::Down, false)
        );
        // Once per probe: a later loss leaves the bound.
        b.on_lost_segment(&mut w, now, &lost(100, 50));
        assert_eq!(b.v3.as_ref().unwrap().inflight_hi, 149.0);
        let mut b = up();
        b.on_lost_segment(&mut w, now, &lost(300, 7));
        assert_eq!(b.v3.as_ref().unwrap().inflight_hi, 299.0);
        let mut b = up();
        b.on_lost_segment(&mut w, now, &lost(510, 11));
        let hi = b.v3.as_ref().unwrap().inflight_hi;
        assert!(
            (hi - (509.0 + (0.02 * 509.0 - 10.0) / 0.98)).abs() < 1e-9,
            "{hi}"
        );
        // A bound below BBRTargetInflight x BBRBeta (0.7 x 103) is raised to it.
        let mut b = up();
        b.on_lost_segment(&mut w, now, &lost(40, 2));
        assert!((b.v3.as_ref().unwrap().inflight_hi - 0.7 * 103.0).abs() < 1e-9);
        // v1 reads no lost segments.
        assert!(!Bbr::new(BbrConfig::default()).reads_lost_segments());
    }

    /// Linux's risky-probe rules (`mirror = "linux"`, tcp_bbr.c of
    /// google/bbr v3), hand-worked from the bound above: a lost segment
    /// (150 in flight, 4 lost) sets inflight_hi = 149 and marks the probe
    /// too high; the max-bandwidth window is not yet advanced (a round
    /// into DOWN, the draft's as DOWN starts). In the next probe, an ACK
    /// whose flight before it was 151 (at or above inflight_hi, raised to
    /// its segment's tx_in_flight of 150 as no loss came) ends UP at once
    /// (stopped_risky_probe) with cwnd capped at inflight_hi in DOWN, above
    /// the headroom; the first round of DOWN ending loss-free refills at
    /// once, where the draft waits 2-3 s. Under the draft's rules the flag
    /// stays clear and UP goes on.
    #[test]
    fn v3_linux_risky_probe() {
        for linux in [true, false] {
            let cfg = BbrConfig {
                version: 3,
                mirror: if linux { Mirror::Linux } else { Mirror::Spec },
                ..BbrConfig::default()
            };
            let mut b = Bbr::new(cfg);
            b.rng = 1;
            b.filled_pipe = true;
            b.set_rtprop(SimTime::from_millis(100));
            b.rtprop_stamp = SimTime::from_millis(1000);
            b.v3.as_mut().unwrap().max_bw = [0.0, 1000.0];
            b.v3_start_up(SimTime::from_millis(1000), 200.0, 1000.0);
            let mut w = Window {
                cwnd: 200.0,
                ssthresh: f64::INFINITY,
            };
            let lost = LostSample {
                tx_in_flight: 150,
                lost: 4,
                is_app_limited: false,
            };
            b.on_lost_segment(&mut w, SimTime::from_millis(1050), &lost);
            let v = b.v3.as_ref().unwrap();
            assert_eq!(
                (v.inflight_hi, v.phase, v.prev_probe_too_high),
                (149.0, Phase::Down, linux)
            );
            let window = if linux { [0.0, 1000.0] } else { [1000.0, 0.0] };
            assert_eq!(v.max_bw, window, "linux {linux}");
            // The next probe: REFILL, UP at its round's end.
            b.v3_start_refill();
            b.on_rate_sample(&mut w, &sample(1100, 1000.0, 100, 0, 1, 100));
            assert_eq!(b.v3.as_ref().unwrap().phase, Phase::Up);
            b.on_rate_sample(&mut w, &sample(1150, 1000.0, 100, 1, 2, 150));
            let v = b.v3.as_ref().unwrap();
            if !linux {
                assert_eq!((v.phase, v.stopped_risky_probe), (Phase::Up, false));
                continue;
            }
            assert_eq!(v.inflight_hi, 150.0);
            assert!(v.phase == Phase::Down && v.stopped_risky_probe && !v.prev_probe_too_high);
            assert!(
                w.cwnd == 150.0 && w.cwnd > b.inflight_with_headroom(),
                "{}",
                w.cwnd
            );
            b.on_rate_sample(&mut w, &sample(1250, 1000.0, 100, 2, 3, 100));
            let v = b.v3.as_ref().unwrap();
            assert_eq!((v.phase, v.stopped_risky_probe), (Phase::Refill, false));
            assert_eq!(v.max_bw, [1000.0, 0.0]);
        }
    }

    /// ProbeBW_UP's exit (draft-ietf-ccwg-bbr-01 section 4.3.3.6
    /// BBRIsTimeToGoDown), hand-worked: max_bw 500/s, RTprop 100 ms (BDP
    /// 50; 1.25 BDP + 3 quanta = 69), inflight_hi 100. Cwnd-limited at
    /// inflight_hi with a flight of 100 or more (twice the BDP: a queue) for five
    /// rounds of 100 ms, the flow stays in UP and inflight_hi grows past
    /// cwnd's target (the
    /// BBRv2 rule, one min_rtt and inflight above 69, would have ended UP
    /// after the first round). Not cwnd-limited (flight 20) with the rate
    /// flat at 500, three round starts without 25% growth set full_bw_now
    /// and UP ends: DOWN at 0.9.
    #[test]
    fn v3_probe_up_ends_on_a_bandwidth_plateau() {
        let cfg = BbrConfig {
            version: 3,
            ..BbrConfig::default()
        };
        let mut b = Bbr::new(cfg);
        let mut w = Window {
            cwnd: 100.0,
            ssthresh: f64::INFINITY,
        };
        b.filled_pipe = true;
        b.set_rtprop(SimTime::from_millis(100));
        b.rtprop_stamp = SimTime::from_millis(1000);
        b.v3.as_mut().unwrap().max_bw = [0.0, 500.0];
        b.v3.as_mut().unwrap().inflight_hi = 100.0;
        b.v3_start_up(SimTime::from_millis(1000), w.cwnd, 500.0);
        let mut total = 0;
        for r in 0..5 {
            let prior = total;
            total += 100;
            // 100 delivered from a flight of cwnd (cwnd-limited).
            let left = w.cwnd as u64 - 100;
            let mut s = sample(1100 + 100 * r, 500.0, 100, prior, total, left);
            s.rs.newly_delivered = 100;
            b.on_rate_sample(&mut w, &s);
            assert_eq!(b.v3.as_ref().unwrap().phase, Phase::Up, "round {r}");
        }
        let hi = b.v3.as_ref().unwrap().inflight_hi;
        // Past BBRInflight(2.25) = ceil(2.25 x 50 + 3 x 2) = 119, which now bounds cwnd.
        assert!(
            hi > 119.0 && w.cwnd == 119.0,
            "inflight_hi {hi}, cwnd {}",
            w.cwnd
        );
        for r in 0..3 {
            let prior = total;
            total += 20;
            b.on_rate_sample(
                &mut w,
                &sample(1700 + 100 * r, 500.0, 100, prior, total, 20),
            );
            let phase = b.v3.as_ref().unwrap().phase;
            assert_eq!(
                phase,
                if r < 2 { Phase::Up } else { Phase::Down },
                "round {r}"
            );
        }
        assert_eq!(b.pacing_gain(), 0.9);
    }

    #[test]
    fn version_and_fluid_refusal() {
        let m: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(r#"{"version": 2}"#).unwrap();
        // Versions 1 and 3 are read; 2 (the BBRv2 drafts) is not offered.
        let err = Bbr::read(&mut Params::new(&m)).unwrap_err();
        assert_eq!(err.0, "version");
        assert!(
            Bbr::fluid(BbrConfig::default())
                .unwrap_err()
                .contains("delivery-rate")
        );
    }

    /// BBRSetSendQuantum's three bands (section 4.2.2), hand-computed for
    /// 1500 B segments: 100 segments/s = 1.2 Mbps is the first edge, 2000
    /// segments/s = 24 Mbps the second; 100 Mbps (8333 segments/s) gives
    /// 12.5 KB per ms = 8 whole segments; 1 Gbps is capped at 64 KB = 43.
    #[test]
    fn send_quantum_bands() {
        assert_eq!(send_quantum(99.0, 1500), 1);
        assert_eq!(send_quantum(100.0, 1500), 2);
        assert_eq!(send_quantum(1999.0, 1500), 2);
        assert_eq!(send_quantum(2000.0, 1500), 2);
        assert_eq!(send_quantum(100e6 / 12000.0, 1500), 8);
        assert_eq!(send_quantum(1e9 / 12000.0, 1500), 43);
        // 500 B segments at 100 Mbps: 12.5 KB = 25 segments.
        assert_eq!(send_quantum(100e6 / 4000.0, 500), 25);
    }

    /// `send_quantum` reads "draft" (the default) or "segment" and names
    /// itself on anything else; the quantum enters BBRInflight as 3 quanta.
    #[test]
    fn send_quantum_param_and_inflight_allowance() {
        let read = |t: &str| {
            let m: serde_json::Map<String, serde_json::Value> = serde_json::from_str(t).unwrap();
            Bbr::read(&mut Params::new(&m))
        };
        assert_eq!(read("{}").unwrap().send_quantum, Quantum::Draft);
        let seg = read(r#"{"send_quantum": "segment"}"#).unwrap();
        assert_eq!(seg.send_quantum, Quantum::Segment);
        let err = read(r#"{"send_quantum": "tso"}"#).unwrap_err();
        assert_eq!(err.0, "send_quantum");
        assert!(err.1.contains("draft, segment"), "{}", err.1);
        // 100 Mbps in 1500 B segments, RTprop 40 ms: BDP 333.3 segments.
        let rate = 100e6 / 12000.0;
        for (cfg, quanta) in [(BbrConfig::default(), 24.0), (seg, 3.0)] {
            let mut b = Bbr::new(cfg);
            let mut w = Window {
                cwnd: 10.0,
                ssthresh: f64::INFINITY,
            };
            b.on_rate_sample(&mut w, &sample(40, rate, 40, 0, 10, 10));
            b.pacing_rate = rate;
            b.set_send_quantum(1500);
            assert_eq!(b.inflight(1.0), (rate * 0.040 + quanta).ceil());
        }
    }
}
