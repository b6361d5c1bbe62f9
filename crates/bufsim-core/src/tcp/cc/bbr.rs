//! BBR (Cardwell et al., "BBR Congestion Control",
//! draft-cardwell-iccrg-bbr-congestion-control-00, 2017): a model-based
//! controller that paces at its estimate of the bottleneck bandwidth
//! (BtlBw, a windowed max of delivery-rate samples) and bounds inflight by
//! cwnd = cwnd_gain x BtlBw x RTprop (RTprop: a windowed min of RTT
//! samples), cycling through Startup, Drain, ProbeBW and ProbeRTT.
//!
//! Units: bandwidth in segments per second, windows in segments.
//!
//! bufsim specifics (each stated where it is coded):
//! - the send quantum is one segment: the sender releases one segment per
//!   1/pacing_rate (`tcp::sender`), so BBRInflight's allowance for
//!   quanta is 3 segments;
//! - the ProbeBW phase randomization draws from a generator seeded with
//!   the time of the flow's first ACK (the controller has no RNG stream;
//!   runs stay deterministic, and flows that start apart draw apart);
//! - rs.losses (section 4.2.3.4) is the number of segments the sender
//!   retransmitted since the previous ACK.

use serde::Serialize;

use super::{AckInfo, AckSample, CongestionControl, NoFluidLaw, Variant, Window};
use crate::params::{PErr, Params};
use crate::units::SimTime;

/// BBR's parameters; `Default` holds the draft's constants.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
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
//= offload and pacing; bufsim's send quantum is one segment.
const QUANTA: f64 = 3.0;
//= section 4.1.2.3: before any RTT sample, RTprop is taken as 1 ms for the
//= initial pacing rate ("nominal_bandwidth = InitialCwnd / (SRTT ? SRTT : 1ms)").
const DEFAULT_RTT: SimTime = SimTime::from_millis(1);

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
#[derive(Clone, Copy, Debug, Default)]
pub struct MaxFilter {
    s: [(u64, f64); 3],
}

impl MaxFilter {
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
        } else if self.s[1].0 == self.s[0].0 && dt > win / 4 {
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
}

impl Variant for Bbr {
    const NAMES: &'static [&'static str] = &["bbr"];
    const RATE_FORM: bool = false;
    type Config = BbrConfig;
    type Fluid = NoFluidLaw;
    fn read(p: &mut Params) -> Result<BbrConfig, PErr> {
        let d = BbrConfig::default();
        let v = p.num("version", d.version as f64, f64::MIN, f64::MAX)?;
        if v != 1.0 {
            return Err((
                "version".into(),
                format!("must be 1 (draft-cardwell-iccrg-bbr-congestion-control-00), got {v}"),
            ));
        }
        Ok(BbrConfig {
            version: v as u8,
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
            btlbw: MaxFilter::default(),
            rtprop: SimTime::MAX,
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
        };
        //= section 4.2.1 BBRInitPacingRate: "nominal_bandwidth = InitialCwnd /
        //= (SRTT ? SRTT : 1ms); BBR.pacing_rate = BBR.pacing_gain * nominal_bandwidth".
        b.pacing_rate = cfg.high_gain * initial_cwnd / DEFAULT_RTT.as_secs_f64();
        b
    }

    /// BtlBw, segments/s.
    pub fn bw(&self) -> f64 {
        self.btlbw.get()
    }

    /// The estimated BDP times `gain` plus the quanta allowance, segments
    /// (section 4.2.3.2 BBRInflight).
    pub fn inflight(&self, gain: f64) -> f64 {
        //= "if (BBR.RTprop == Inf) return InitialCwnd /* no valid RTT samples yet */".
        if self.rtprop == SimTime::MAX {
            return self.initial_cwnd;
        }
        let bdp = self.bw() * self.rtprop.as_secs_f64();
        (gain * bdp + QUANTA).ceil()
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
        self.round_start = false;
        if s.rs.prior_delivered >= self.next_round_delivered {
            self.next_round_delivered = s.rs.total_delivered;
            self.round_count += 1;
            self.round_start = true;
        }
    }

    //= section 4.1.1.5 BBRUpdateBtlBw: "if (rs.delivery_rate >= BBR.BtlBw ||
    //= ! rs.is_app_limited) BBR.BtlBw = update_windowed_max_filter(...)".
    fn update_btlbw(&mut self, s: &AckSample) {
        let Some(rate) = s.rs.delivery_rate else {
            return;
        };
        let app_limited = s.rs.is_app_limited || s.rs.prior_delivered < self.app_limited_until;
        if rate >= self.bw() || !app_limited {
            self.btlbw
                .update(self.round_count, rate, self.cfg.btlbw_filter_rounds);
        }
    }

    //= section 4.1.2.3 BBRUpdateRTprop: "BBR.rtprop_expired = Now() >
    //= BBR.rtprop_stamp + RTpropFilterLen; if (packet.rtt >= 0 and
    //= (packet.rtt <= BBR.RTprop or BBR.rtprop_expired))" take it.
    fn update_rtprop(&mut self, s: &AckSample) {
        self.rtprop_expired =
            self.rtprop != SimTime::MAX && s.now > self.rtprop_stamp + self.rtprop_window;
        if let Some(rtt) = s.rs.rtt
            && (rtt <= self.rtprop || self.rtprop_expired)
        {
            self.rtprop = rtt;
            self.rtprop_stamp = s.now;
        }
    }

    //= section 4.3.2.2 BBRCheckFullPipe: "if BBR.filled_pipe or not
    //= BBR.round_start or rs.is_app_limited: return"; growth of 25% resets
    //= the count; "if (BBR.full_bw_count >= 3) BBR.filled_pipe = true".
    fn check_full_pipe(&mut self, s: &AckSample) {
        if self.filled_pipe || !self.round_start || s.rs.is_app_limited {
            return;
        }
        if self.bw() >= self.full_bw * FULL_BW_THRESH {
            self.full_bw = self.bw();
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
        //= a random phase other than the 3/4 one.
        self.mode = Mode::ProbeBw;
        self.pacing_gain = 1.0;
        self.cwnd_gain = self.cfg.cwnd_gain;
        let r = (self.random() % 7) as usize;
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
        if self.mode != Mode::ProbeRtt && self.rtprop_expired {
            //= "BBREnterProbeRTT(); BBRSaveCwnd(); BBR.probe_rtt_done_stamp = 0".
            self.save_cwnd(w.cwnd);
            self.mode = Mode::ProbeRtt;
            self.pacing_gain = 1.0;
            self.cwnd_gain = 1.0;
            self.probe_rtt_done_stamp = None;
        }
        if self.mode == Mode::ProbeRtt {
            //= "Ignore low rate samples during this mode": C.app_limited =
            //= (BW.delivered + packets_in_flight) ? : 1.
            self.app_limited_until = s.rs.total_delivered + s.inflight.max(1);
            match self.probe_rtt_done_stamp {
                None if (s.inflight as f64) <= self.cfg.min_pipe_cwnd => {
                    self.probe_rtt_done_stamp = Some(s.now + self.probe_rtt_duration);
                    self.probe_rtt_round_done = false;
                    self.next_round_delivered = s.rs.total_delivered;
                }
                Some(done) => {
                    if self.round_start {
                        self.probe_rtt_round_done = true;
                    }
                    if self.probe_rtt_round_done && s.now > done {
                        self.rtprop_stamp = s.now;
                        //= BBRRestoreCwnd: "cwnd = max(cwnd, BBR.prior_cwnd)".
                        w.cwnd = w.cwnd.max(self.prior_cwnd);
                        //= BBRExitProbeRTT: ProbeBW if the pipe was filled, else Startup.
                        if self.filled_pipe {
                            self.enter_probe_bw(s.now);
                        } else {
                            self.mode = Mode::Startup;
                            self.pacing_gain = self.cfg.high_gain;
                            self.cwnd_gain = self.cfg.high_gain;
                        }
                    }
                }
                None => {}
            }
        }
    }

    //= section 4.2.1 BBRSetPacingRateWithGain: "rate = pacing_gain * BBR.BtlBw;
    //= if (BBR.filled_pipe || rate > BBR.pacing_rate) BBR.pacing_rate = rate".
    fn set_pacing_rate(&mut self) {
        let rate = self.pacing_gain * self.bw();
        if rate > 0.0 && (self.filled_pipe || rate > self.pacing_rate) {
            self.pacing_rate = rate;
        }
    }

    //= section 4.2.3.6 BBRSetCwnd, with 4.2.3.4 (loss recovery) and 4.2.3.5
    //= (ProbeRTT).
    fn set_cwnd(&mut self, w: &mut Window, s: &AckSample, losses: u64) {
        let delivered = s.rs.newly_delivered as f64;
        let inflight = s.inflight as f64;
        let target = self.inflight(self.cwnd_gain);
        let mut cwnd = w.cwnd;
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
        if !self.packet_conservation {
            cwnd = cwnd.max(self.cfg.min_pipe_cwnd);
        }
        //= 4.2.3.5 BBRModulateCwndForProbeRTT: "if (BBR.state == ProbeRTT)
        //= cwnd = min(cwnd, BBRMinPipeCwnd)".
        if self.mode == Mode::ProbeRtt {
            cwnd = cwnd.min(self.cfg.min_pipe_cwnd);
        }
        w.cwnd = cwnd;
    }

    /// Loss recovery transitions (section 4.2.3.4): on entry save cwnd and
    /// start packet conservation for one round; on exit restore cwnd.
    fn track_recovery(&mut self, w: &mut Window, s: &AckSample) {
        if s.in_recovery && !self.in_recovery {
            self.in_recovery = true;
            if self.entering_recovery {
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
            w.cwnd = w.cwnd.max(self.prior_cwnd);
        }
        self.entering_recovery = false;
        //= "After one round trip in Fast Recovery: BBR.packet_conservation = false".
        if self.packet_conservation && s.rs.prior_delivered >= self.conservation_end {
            self.packet_conservation = false;
        }
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
        // The sender sets cwnd to the returned value until the next rate
        // sample (the conservation window of the section); BBR does not
        // use ssthresh otherwise.
        flight.max(self.cfg.min_pipe_cwnd)
    }

    fn on_timeout(&mut self, w: &mut Window, flight: f64, _now: SimTime) {
        //= section 4.2.3.4: "Upon retransmission timeout, meaning the sender
        //= thinks all in-flight packets are lost, BBR conservatively reduces
        //= cwnd to one packet and sends a single packet" (after BBRSaveCwnd).
        self.save_cwnd(w.cwnd);
        self.in_recovery = true;
        self.packet_conservation = false;
        w.ssthresh = flight.max(self.cfg.min_pipe_cwnd);
        w.cwnd = 1.0;
    }

    fn uses_rate_samples(&self) -> bool {
        true
    }

    //= section 4.3.1 BBRUpdateOnACK: BBRUpdateModelAndState (UpdateBtlBw,
    //= CheckCyclePhase, CheckFullPipe, CheckDrain, UpdateRTprop,
    //= CheckProbeRTT), then BBRUpdateControlParameters (SetPacingRate,
    //= SetSendQuantum, SetCwnd).
    fn on_rate_sample(&mut self, w: &mut Window, s: &AckSample) {
        if self.rng == 0 {
            self.rng = s.now.0 | 1;
        }
        let losses = s.retransmits.saturating_sub(self.retransmits);
        self.retransmits = s.retransmits;
        self.track_recovery(w, s);
        // Inflight before this ACK ("prior_inflight").
        let prior_inflight = (s.inflight + s.rs.newly_delivered) as f64;
        self.update_round(s);
        self.update_btlbw(s);
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
        }
        if self.mode == Mode::Drain && (s.inflight as f64) <= self.inflight(1.0) {
            self.enter_probe_bw(s.now);
        }
        self.update_rtprop(s);
        self.check_probe_rtt(w, s);
        self.set_pacing_rate();
        self.set_cwnd(w, s, losses);
    }

    fn pacing_rate(&self) -> Option<f64> {
        Some(self.pacing_rate)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::rate::RateSample;

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
            },
            inflight,
            in_recovery: false,
            retransmits: 0,
            ece: false,
            srtt: None,
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

    /// Startup: gain 2/ln 2 = 2.885; pacing rate = gain * BtlBw; three
    /// rounds without 25% growth fill the pipe, Drain paces at ln 2 / 2 =
    /// 0.347 until inflight <= BDP + 3, then ProbeBW.
    #[test]
    fn startup_drain_probe_bw() {
        let cfg = BbrConfig::default();
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

    /// ProbeBW's 5/4 phase lasts at least one RTprop and until inflight
    /// reaches 5/4 BDP; the 3/4 phase ends after one RTprop or as soon as
    /// inflight <= BDP.
    #[test]
    fn gain_cycle_phases() {
        let mut b = Bbr::new(BbrConfig::default());
        b.btlbw.update(1, 1000.0, 10);
        b.rtprop = SimTime::from_millis(100);
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

    /// RTprop expires after 10 s: ProbeRTT caps cwnd at 4, waits for
    /// inflight <= 4, holds 200 ms and one round, then restores cwnd.
    #[test]
    fn probe_rtt() {
        let mut b = Bbr::new(BbrConfig::default());
        let mut w = Window {
            cwnd: 100.0,
            ssthresh: f64::INFINITY,
        };
        b.filled_pipe = true;
        b.btlbw.update(1, 1000.0, 10);
        b.on_rate_sample(&mut w, &sample(0, 1000.0, 100, 0, 10, 90));
        b.mode = Mode::ProbeBw;
        w.cwnd = 200.0;
        // 10.001 s later, a larger RTT: the estimate has expired.
        b.on_rate_sample(&mut w, &sample(10_001, 1000.0, 120, 10, 20, 90));
        assert_eq!(b.mode, Mode::ProbeRtt);
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

    #[test]
    fn version_and_fluid_refusal() {
        let m: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(r#"{"version": 2}"#).unwrap();
        let err = Bbr::read(&mut Params::new(&m)).unwrap_err();
        assert_eq!(err.0, "version");
        assert!(
            Bbr::fluid(BbrConfig::default())
                .unwrap_err()
                .contains("delivery-rate")
        );
    }
}
