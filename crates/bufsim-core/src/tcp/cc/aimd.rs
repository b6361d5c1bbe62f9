//! Generic AIMD(a, b): +a packets per RTT in congestion avoidance, window
//! multiplied by (1 - b) on a congestion event. Reno is AIMD(1, 1/2).
//!
//! Per-ACK convention: cwnd += a * acked / cwnd for an ACK newly
//! acknowledging `acked` packets (byte counting, RFC 3465, with L unbounded
//! in avoidance); without delayed ACKs acked = 1 and this is RFC 5681's
//! per-ACK rule scaled by a. Decrease: ssthresh = max((1 - b) cwnd, 2), from
//! cwnd as Linux does (cwnd equals FlightSize outside recovery when the
//! sender is window-limited).

use super::config::AimdConfig;
use super::{AckInfo, CongestionControl, MIN_SSTHRESH, Window, slow_start};
use crate::units::SimTime;

/// AIMD(a, b) with standard slow start.
#[derive(Clone, Copy, Debug)]
pub struct Aimd {
    cfg: AimdConfig,
}

impl Aimd {
    /// A controller with these constants.
    pub fn new(cfg: AimdConfig) -> Aimd {
        Aimd { cfg }
    }
}

impl CongestionControl for Aimd {
    #[inline]
    fn on_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        if slow_start(w, ack.acked) {
            return;
        }
        //= RFC 5681 section 3.1 eq. (3) generalised: cwnd += a * SMSS*SMSS/cwnd
        //= per acknowledged segment gives +a segments per RTT.
        w.cwnd += self.cfg.a * ack.acked as f64 / w.cwnd;
    }

    fn on_congestion_event(&mut self, w: &Window, _flight: f64, _now: SimTime) -> f64 {
        //= AIMD(a, b): W <- (1 - b) W on a loss event (Floyd, Handley, Padhye
        //= 2000, "A comparison of equation-based and AIMD congestion control").
        ((1.0 - self.cfg.b) * w.cwnd).max(MIN_SSTHRESH)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn increase_and_decrease() {
        let mut cc = Aimd::new(AimdConfig { a: 2.0, b: 0.25 });
        let mut w = Window {
            cwnd: 40.0,
            ssthresh: 10.0,
        };
        cc.on_ack(&mut w, &AckInfo::bare(1, SimTime::ZERO));
        // 40 + 2/40 = 40.05
        assert!((w.cwnd - 40.05).abs() < 1e-12);
        // 40 ACKs of one packet (one RTT): w <- w + 2/w forty times from 40
        // gives 41.95349, about +2 packets per RTT.
        let mut w = Window {
            cwnd: 40.0,
            ssthresh: 10.0,
        };
        for _ in 0..40 {
            cc.on_ack(&mut w, &AckInfo::bare(1, SimTime::ZERO));
        }
        assert!((w.cwnd - 41.953_49).abs() < 1e-5, "{}", w.cwnd);
        // Decrease: 0.75 * 40 = 30.
        let w = Window {
            cwnd: 40.0,
            ssthresh: 10.0,
        };
        assert_eq!(cc.on_congestion_event(&w, 40.0, SimTime::ZERO), 30.0);
        let w = Window {
            cwnd: 2.0,
            ssthresh: 10.0,
        };
        assert_eq!(cc.on_congestion_event(&w, 2.0, SimTime::ZERO), 2.0);
    }
}
