//! Generic AIMD(a, b): +a packets per RTT in congestion avoidance, window
//! multiplied by (1 - b) on a congestion event. Reno is AIMD(1, 1/2).
//!
//! Per-ACK convention: cwnd += a * acked / cwnd for an ACK newly
//! acknowledging `acked` packets (byte counting, RFC 3465, with L unbounded
//! in avoidance); without delayed ACKs acked = 1 and this is RFC 5681's
//! per-ACK rule scaled by a. Decrease: ssthresh = max((1 - b) cwnd, 2), from
//! cwnd as Linux does (cwnd equals FlightSize outside recovery when the
//! sender is window-limited).

use serde::{Deserialize, Serialize};

use super::fluid_law::{FluidLaw, Growth};
use super::{AckInfo, CongestionControl, Epoch, MIN_SSTHRESH, Variant, Window, slow_start};
use crate::params::{PErr, Params};
use crate::units::SimTime;

/// Generic AIMD(a, b): +a packets per RTT in congestion avoidance, window
/// multiplied by (1 - b) on loss. Reno is a = 1, b = 0.5.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct AimdConfig {
    /// Additive increase, packets per RTT.
    pub a: f64,
    /// Multiplicative decrease fraction (window *= 1 - b).
    pub b: f64,
}

impl Default for AimdConfig {
    fn default() -> Self {
        //= RFC 5681 section 3.1: cwnd += SMSS*SMSS/cwnd per ACK (a = 1 per RTT),
        //= ssthresh = FlightSize/2 on loss (b = 0.5).
        AimdConfig { a: 1.0, b: 0.5 }
    }
}

/// AIMD(a, b) with standard slow start.
#[derive(Clone, Copy, Debug)]
pub struct Aimd {
    cfg: AimdConfig,
}

impl Variant for Aimd {
    const NAMES: &'static [&'static str] = &["aimd"];
    type Config = AimdConfig;
    type Fluid = AimdFluid;
    fn read(p: &mut Params) -> Result<AimdConfig, PErr> {
        let d = AimdConfig::default();
        Ok(AimdConfig {
            a: p.num("a", d.a, 1e-6, 1e6)?,
            b: p.num("b", d.b, 1e-6, 0.999)?,
        })
    }
    fn new(cfg: AimdConfig) -> Aimd {
        Aimd { cfg }
    }
    fn fluid(cfg: AimdConfig) -> Result<AimdFluid, &'static str> {
        Ok(AimdFluid(cfg))
    }
    fn epoch(cfg: &AimdConfig, window_pkts: f64, rtt_s: f64) -> Epoch {
        // A cut of b W regained at a packets per RTT.
        Epoch::of_rtts(
            cfg.b * window_pkts / cfg.a,
            rtt_s,
            "AIMD(a, b) b W / a RTTs (sawtooth, paper 004 eq. (1))",
        )
    }
}

/// AIMD(a, b) in fluid form, paper 004 eq. (1).
#[derive(Clone, Copy, Debug)]
pub struct AimdFluid(pub AimdConfig);

impl FluidLaw for AimdFluid {
    fn growth(&mut self, _t: f64, _h: f64, _w: &mut f64, _rtt: f64) -> Growth {
        //= paper 004 eq. (1): dW/dt = a / R(t); AIMD(a, b) grows a packets per RTT.
        Growth::additive(self.0.a)
    }
    fn decrease_fraction(&mut self, _w: f64) -> f64 {
        self.0.b
    }
    fn on_loss(&mut self, _t: f64, w: f64, _rtt_min: f64) -> f64 {
        //= RFC 5681 section 3.1 / paper 004 eq. (1): W <- (1 - b) W.
        w * (1.0 - self.0.b)
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
