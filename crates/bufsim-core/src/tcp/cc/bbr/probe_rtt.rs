//! ProbeRTT (section 4.3.5; BBRv3: every 5 s at half the BDP): entry,
//! the hold, the exit to ProbeBW or Startup.

use super::*;

impl Bbr {
    pub(super) fn save_cwnd(&mut self, cwnd: f64) {
        //= section 4.2.3.4 BBRSaveCwnd: "if (not InLossRecovery() and BBR.state
        //= != ProbeRTT) return cwnd else return max(BBR.prior_cwnd, cwnd)".
        self.prior_cwnd = if !self.in_recovery && self.mode != Mode::ProbeRtt {
            cwnd
        } else {
            self.prior_cwnd.max(cwnd)
        };
    }

    //= section 4.3.5 BBRCheckProbeRTT / BBRHandleProbeRTT.
    pub(super) fn check_probe_rtt(&mut self, w: &mut Window, s: &AckSample) {
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
    pub(super) fn exit_probe_rtt(&mut self, w: &mut Window, now: SimTime) {
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

    /// Inflight at which ProbeRTT holds: 4 (v1), half the BDP (v3).
    pub(super) fn probe_rtt_cwnd(&self) -> f64 {
        if self.v3.is_some() {
            (V3_PROBE_RTT_CWND_GAIN * self.bdp()).max(self.cfg.min_pipe_cwnd)
        } else {
            self.cfg.min_pipe_cwnd
        }
    }
}
