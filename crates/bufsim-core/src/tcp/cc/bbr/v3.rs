//! BBRv3 (draft-ietf-ccwg-bbr-01, and Linux's tcp_bbr.c under `mirror =
//! "linux"`): its model and ProbeBW state, and the per-ACK update.

use super::*;

/// BBRv3's model and ProbeBW state (draft-ietf-ccwg-bbr-01).
#[derive(Clone, Debug)]
pub struct V3 {
    /// ProbeBW phase.
    pub phase: Phase,
    /// Max bandwidth of this probe cycle and the previous one (MaxBwFilterLen = 2).
    pub(super) max_bw: [f64; 2],
    /// Upper bound on inflight (segments; infinite until a probe finds loss).
    pub inflight_hi: f64,
    /// Lower bounds from the latest lossy rounds.
    pub bw_lo: f64,
    /// Lower bound on inflight, segments.
    pub inflight_lo: f64,
    pub(super) bw_latest: f64,
    pub(super) inflight_latest: f64,
    /// The loss round (BBR.loss_round_delivered, BBR.loss_in_round,
    /// BBR.loss_round_start): the round trip over which bw_latest and
    /// inflight_latest are measured and after which a loss lowers bw_lo
    /// and inflight_lo.
    pub(super) loss_round_delivered: u64,
    pub(super) loss_in_round: bool,
    pub(super) loss_round_start: bool,
    pub(super) round_lost: u64,
    pub(super) round_delivered: u64,
    pub(super) round_acks: u64,
    pub(super) round_ece: u64,
    pub(super) probe_samples: bool,
    pub(super) bw_probe_wait: SimTime,
    pub(super) rounds_since_probe: u64,
    pub(super) probe_up_cnt: f64,
    pub(super) probe_up_acks: f64,
    pub(super) probe_up_rounds: u32,
    /// The full-pipe estimator of ProbeBW_UP (BBR.full_bw, BBR.full_bw_count,
    /// BBR.full_bw_now; Startup keeps v1's, `check_full_pipe`).
    pub(super) full_bw: f64,
    pub(super) full_bw_count: u32,
    /// The delivery-rate plateau: three rounds without 25% growth.
    pub full_bw_now: bool,
    /// C.delivered at the latest ACK (BBRStartRound reads it).
    pub(super) delivered: u64,
    /// ProbeBW_DOWN started and its first round has not ended
    /// (BBR.ack_phase == ACKS_PROBE_STOPPING).
    pub(super) probe_stopping: bool,
    /// `mirror = "linux"`: the latest probe met loss or ECN above the
    /// threshold (tcp_bbr.c's prev_probe_too_high).
    pub(super) prev_probe_too_high: bool,
    /// `mirror = "linux"`: the latest ProbeBW_UP stopped on reaching
    /// inflight_hi after a lossy probe (tcp_bbr.c's stopped_risky_probe).
    pub(super) stopped_risky_probe: bool,
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

/// BBRv3 (draft-ietf-ccwg-bbr-01).
impl Bbr {
    /// The BDP estimate bw x RTprop, segments (0 before an RTT sample).
    pub(super) fn bdp(&self) -> f64 {
        if self.rtprop == SimTime::MAX {
            return 0.0;
        }
        self.bw() * self.rtprop_s
    }

    //= BBRInflightWithHeadroom: "if (BBR.inflight_hi == Infinity) return
    //= Infinity; headroom = max(1*SMSS, BBRHeadroom * BBR.inflight_hi);
    //= return max(BBR.inflight_hi - headroom, BBRMinPipeCwnd)".
    pub(super) fn inflight_with_headroom(&self) -> f64 {
        let hi = self.v3.as_ref().map_or(f64::INFINITY, |v| v.inflight_hi);
        if hi.is_infinite() {
            return f64::INFINITY;
        }
        let headroom = (V3_HEADROOM * hi).max(1.0);
        (hi - headroom).max(self.cfg.min_pipe_cwnd)
    }

    pub(super) fn v3_set_phase(&mut self, phase: Phase) {
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
    pub(super) fn v3_start_down(&mut self, now: SimTime) {
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
    pub(super) fn v3_start_round(&mut self) {
        if let Some(v) = self.v3.as_ref() {
            self.next_round_delivered = v.delivered;
        }
    }

    //= BBRCheckTimeToProbeBW: "if (BBRHasElapsedInPhase(BBR.bw_probe_wait) ||
    //= BBRIsRenoCoexistenceProbeTime()) BBRStartProbeBW_REFILL()".
    pub(super) fn v3_time_to_probe(&mut self, now: SimTime, cwnd: f64) -> bool {
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
    pub(super) fn v3_start_refill(&mut self) {
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
    pub(super) fn linux(&self) -> bool {
        self.cfg.mirror == Mirror::Linux
    }

    //= BBRStartProbeBW_UP: "BBR.bw_probe_samples = 1; BBRStartRound();
    //= BBRResetFullBW(); BBR.full_bw = rs.delivery_rate; BBR.state =
    //= ProbeBW_UP; BBRRaiseInflightHiSlope()" (and the cycle stamp, as
    //= Linux's bbr_start_bw_probe_up). `rate`: this ACK's delivery rate.
    pub(super) fn v3_start_up(&mut self, now: SimTime, cwnd: f64, rate: f64) {
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
    pub(super) fn reset_full_bw(v: &mut V3, rate: f64) {
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
    pub(super) fn v3_check_full_bw(&mut self, s: &AckSample) {
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
    pub(super) fn raise_inflight_hi_slope(v: &mut V3, cwnd: f64) {
        let growth = (1u64 << v.probe_up_rounds) as f64;
        v.probe_up_rounds = (v.probe_up_rounds + 1).min(30);
        v.probe_up_cnt = (cwnd / growth).max(1.0);
    }

    /// One ACK under BBRv3: the model (max_bw, RTprop, the congestion
    /// signals of the round, the upper and lower bounds), the state machine,
    /// then pacing rate and cwnd.
    pub(super) fn on_rate_sample_v3(&mut self, w: &mut Window, s: &AckSample) {
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
            // Linux's bbr_adapt_upper_bounds tests bbr_is_inflight_too_high
            // on each ACK's rate sample (rs->lost over rs->tx_in_flight,
            // acting while bw_probe_samples); the round's loss rate stands
            // for it here, a recorded departure (tried per ACK: a lone flow
            // at 0.1 / 0.5 BDP 0.962 / 0.989 -> 0.938 / 0.962, at 0.25 BDP
            // over 60 s 0.977 -> 0.987; docs/engines.md), and the flight it
            // sets inflight_hi to is the ACKed segment's tx_in_flight
            // (`mirror = "linux"`).
            if bw_probe && too_high {
                self.v3_inflight_too_high(s.now, tx_in_flight, s.rs.is_app_limited, w.cwnd);
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
        //= tcp_bbr.c (google/bbr v3) bbr_set_cwnd: no "cwnd - rs->losses"
        //= (track_recovery_linux_v3); the draft's
        //= BBRModulateCwndForRecovery otherwise.
        let losses = if self.linux() { 0 } else { losses };
        self.set_cwnd(w, s, losses);
    }

    //= BBRTargetInflight, the draft's BBRInflight(BBR.bw, 1.0) (its
    //= BBRIsRenoCoexistenceProbeTime: "reno_rounds =
    //= BBRTargetInflight()"); tcp_bbr.c (google/bbr v3)
    //= bbr_target_inflight: "How much do we want in flight? Our BDP,
    //= unless congestion cut cwnd": "return min(bdp, tcp_sk(sk)->snd_cwnd)"
    //= (`mirror = "linux"`), with `cwnd` the window before this ACK's.
    pub(super) fn v3_target_inflight(&self, cwnd: f64) -> f64 {
        let bdp = self.inflight(1.0);
        if self.linux() { bdp.min(cwnd) } else { bdp }
    }

    //= BBRHandleInflightTooHigh: "BBR.bw_probe_samples = 0; if
    //= (!rs.is_app_limited) BBR.inflight_hi = max(rs.tx_in_flight,
    //= BBRTargetInflight() * BBRBeta); if (BBR.state == ProbeBW_UP)
    //= BBRStartProbeBW_DOWN()". `tx_in_flight`: the flight the signal
    //= points at (a lost segment's, or the ACK's prior inflight).
    pub(super) fn v3_inflight_too_high(
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
    pub(super) fn v3_on_lost_segment(&mut self, now: SimTime, l: &LostSample, cwnd: f64) {
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
    pub(super) fn v3_too_high(&self) -> bool {
        let v = self.v3.as_ref().expect("v3");
        let lossy = v.round_lost > 0
            && (v.round_lost as f64) > V3_LOSS_THRESH * (v.round_lost + v.round_delivered) as f64;
        let marked = v.round_ece > 0 && (v.round_ece as f64) > V3_ECN_THRESH * v.round_acks as f64;
        lossy || marked
    }

    //= BBRUpdateProbeBWCyclePhase.
    pub(super) fn v3_update_phase(&mut self, w: &Window, s: &AckSample, prior_inflight: f64) {
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
    pub(super) fn v3_probing(&self) -> bool {
        self.mode == Mode::Startup
            || (self.mode == Mode::ProbeBw
                && matches!(
                    self.v3.as_ref().map(|v| v.phase),
                    Some(Phase::Refill | Phase::Up)
                ))
    }

    //= BBRResetCongestionSignals: "BBR.loss_in_round = 0; BBR.bw_latest =
    //= 0; BBR.inflight_latest = 0" (at ProbeBW_DOWN's start and Drain's).
    pub(super) fn reset_congestion_signals(v: &mut V3) {
        v.loss_in_round = false;
        v.bw_latest = 0.0;
        v.inflight_latest = 0.0;
    }

    //= BBRInitLowerBounds: "if (BBR.bw_lo == Infinity) BBR.bw_lo =
    //= BBR.max_bw; if (BBR.inflight_lo == Infinity) BBR.inflight_lo =
    //= cwnd"; BBRLossLowerBounds: "BBR.bw_lo = max(BBR.bw_latest, BBRBeta
    //= * BBR.bw_lo); BBR.inflight_lo = max(BBR.inflight_latest, BBRBeta *
    //= BBR.inflight_lo)".
    pub(super) fn v3_cut_lower_bounds(&mut self, w: &Window) {
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
    pub(super) fn v3_adapt_lower_bounds(&mut self, w: &Window) {
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
    pub(super) fn v3_end_round(&mut self, w: &Window) {
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
