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

mod filter;
mod ns3;
mod probe_bw;
mod probe_rtt;
mod startup;
#[cfg(test)]
mod tests;
mod v3;

pub use filter::{MaxFilter, Ties};
use ns3::AckAggregation;
pub use v3::V3;

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
    /// The recovery under way began with a timeout (Linux's prev_ca_state
    /// == TCP_CA_Loss).
    rto_recovery: bool,
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
            rto_recovery: false,
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
        if self.v3.is_some() && self.linux() {
            self.track_recovery_linux_v3(w, s);
            return;
        }
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

impl Bbr {
    /// Loss recovery under google/bbr v3's tcp_bbr.c (`mirror = "linux"`):
    /// bbr_set_cwnd has no packet conservation and no cut by this ACK's
    /// losses (v1's bbr_set_cwnd_to_recover_or_restore is gone), and
    /// cwnd is restored only when a timeout's recovery ends: bbr_set_state
    /// "else if (bbr->prev_ca_state == TCP_CA_Loss && new_state !=
    /// TCP_CA_Loss) bbr_exit_loss_recovery(sk)", which sets "cwnd =
    /// max(cwnd, bbr->prior_cwnd)". A fast recovery leaves cwnd to
    /// bbr_set_cwnd and bbr_bound_cwnd_for_inflight_model alone (its
    /// saved cwnd, bbr_ssthresh's bbr_save_cwnd, serves undo).
    fn track_recovery_linux_v3(&mut self, w: &mut Window, s: &AckSample) {
        if s.in_recovery && !self.in_recovery {
            self.in_recovery = true;
        } else if !s.in_recovery && self.in_recovery {
            self.in_recovery = false;
            if self.rto_recovery {
                w.cwnd = w.cwnd.max(self.prior_cwnd);
            }
            self.rto_recovery = false;
        }
        self.entering_recovery = false;
        self.packet_conservation = false;
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
        if self.v3.is_some() && self.linux() {
            //= tcp_bbr.c (google/bbr v3) bbr_ssthresh: "bbr_save_cwnd(sk);
            //= ... return tcp_sk(sk)->snd_ssthresh" (unchanged).
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
        self.rto_recovery = true;
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

    /// A timeout inside a loss episode (a fast recovery, or a timeout's
    /// recovery not yet over): cwnd = 1 segment, as
    /// [`Self::on_timeout`], with the cwnd saved at the episode's start
    /// kept. Under google/bbr v3's tcp_bbr.c (`mirror = "linux"`) the
    /// episode becomes a timeout's: tcp_enter_loss from CA_Recovery calls
    /// no ssthresh hook (bbr_save_cwnd ran at the recovery's entry) and
    /// moves the socket to TCP_CA_Loss, whose end restores "cwnd =
    /// max(cwnd, bbr->prior_cwnd)" (bbr_set_state ->
    /// bbr_exit_loss_recovery); without it a flow left such an episode at
    /// the window it had regrown from 1 segment, and a probe then cut its
    /// inflight_hi to that flight (10 v3 flows, seed 2: 997 -> 82
    /// packets at 166 s).
    fn on_repeated_timeout(&mut self, w: &mut Window) {
        if self.v3.is_some() && self.linux() {
            self.in_recovery = true;
            self.rto_recovery = true;
            self.packet_conservation = false;
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
