//! Scalable TCP (Kelly, "Scalable TCP: improving performance in highspeed
//! wide area networks", CCR 33(2), 2003): multiplicative increase,
//! multiplicative decrease above a legacy window, standard TCP below it.
//!
//! Per-ACK convention: above `low_window`, cwnd += a * acked for an ACK
//! newly acknowledging `acked` packets (Kelly section 2: "cwnd <- cwnd + 0.01"
//! for each acknowledgement; counting packets, as Linux `tcp_scalable` does
//! through `tcp_cong_avoid_ai`, so delayed ACKs do not halve the growth).
//! Without delayed ACKs both readings coincide. At or below `low_window`:
//! cwnd += acked / cwnd (RFC 5681).
//! Decrease: above `low_window`, ssthresh = max((1 - b) cwnd, 2); at or below,
//! cwnd / 2 (Kelly section 2: the legacy window lwnd keeps standard TCP
//! behaviour for small windows).
//!
//! Response: with per-packet loss rate p, growth a w per RTT balances the
//! expected loss b w * p w per RTT, so E[w^2]/E[w] = a/(b p) = 0.08/p
//! (Kelly section 2, "w ~ 0.08/p" approximately).

use super::config::{AimdConfig, ScalableConfig};
use super::{AckInfo, CongestionControl, MIN_SSTHRESH, Window, slow_start};
use crate::units::SimTime;

/// Scalable TCP controller.
#[derive(Clone, Copy, Debug)]
pub struct Scalable {
    cfg: ScalableConfig,
}

impl Scalable {
    /// A controller with these constants.
    pub fn new(cfg: ScalableConfig) -> Scalable {
        Scalable { cfg }
    }
}

impl CongestionControl for Scalable {
    #[inline]
    fn on_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        if slow_start(w, ack.acked) {
            return;
        }
        if w.cwnd > self.cfg.low_window {
            //= Kelly 2003 section 2: "for each ack received in a round trip time
            //= in which congestion has not been detected: cwnd <- cwnd + 0.01".
            w.cwnd += self.cfg.a * ack.acked as f64;
        } else {
            //= RFC 5681 section 3.1 eq. (3): legacy behaviour below lwnd.
            w.cwnd += AimdConfig::default().a * ack.acked as f64 / w.cwnd;
        }
    }

    fn on_congestion_event(&mut self, w: &Window, _flight: f64, _now: SimTime) -> f64 {
        let b = if w.cwnd > self.cfg.low_window {
            //= Kelly 2003 section 2: "on the first detection of congestion in a
            //= given round trip time: cwnd <- cwnd - [0.125 * cwnd]".
            self.cfg.b
        } else {
            AimdConfig::default().b
        };
        ((1.0 - b) * w.cwnd).max(MIN_SSTHRESH)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mimd_above_low_window_reno_below() {
        let mut cc = Scalable::new(ScalableConfig::default());
        let mut w = Window {
            cwnd: 100.0,
            ssthresh: 10.0,
        };
        // 100 ACKs (one RTT at w = 100): w *= (1.01) per RTT approximately;
        // exactly 100 + 100 * 0.01 = 101.
        for _ in 0..100 {
            cc.on_ack(&mut w, &AckInfo::bare(1, SimTime::ZERO));
        }
        assert!((w.cwnd - 101.0).abs() < 1e-9);
        // Two packets acknowledged by one (delayed) ACK: +0.02.
        cc.on_ack(&mut w, &AckInfo::bare(2, SimTime::ZERO));
        assert!((w.cwnd - 101.02).abs() < 1e-9);
        // Decrease by 1/8 above lwnd = 16: 0.875 * 101.02.
        let ss = cc.on_congestion_event(&w, 101.0, SimTime::ZERO);
        assert!((ss - 88.392_5).abs() < 1e-9);
        // Below lwnd: Reno.
        let mut w = Window {
            cwnd: 10.0,
            ssthresh: 5.0,
        };
        cc.on_ack(&mut w, &AckInfo::bare(1, SimTime::ZERO));
        assert!((w.cwnd - 10.1).abs() < 1e-12);
        assert!((cc.on_congestion_event(&w, 10.0, SimTime::ZERO) - 5.05).abs() < 1e-12);
    }
}
