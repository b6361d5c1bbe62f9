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
//! behaviour for small windows). With `legacy_decrease = false` the cut is
//! (1 - b) at every window, the legacy window governing only the increase,
//! as ns-3.37's `TcpScalable::GetSsThresh` (and Linux's
//! `tcp_scalable_ssthresh`) do. With `mirror = "ns-3.37"` (the ns3 stack
//! profile's) the cut is ns-3.37's own: from the flight the sender passes (the ns3 stack's pipe), in whole
//! segments, at a fast retransmit and at a timeout alike.
//!
//! Response: with per-packet loss rate p, growth a w per RTT balances the
//! expected loss b w * p w per RTT, so `E[w^2]/E[w] = a/(b p) = 0.08/p`
//! (Kelly section 2, "w ~ 0.08/p" approximately).

use serde::{Deserialize, Serialize};

use super::aimd::AimdConfig;
use super::fluid_law::{FluidLaw, Growth};
use super::{AckInfo, CongestionControl, Epoch, MIN_SSTHRESH, Mirror, Variant, Window, slow_start};
use crate::params::{PErr, Params};
use crate::units::SimTime;

/// Scalable TCP (Kelly, "Scalable TCP: improving performance in highspeed
/// wide area networks", CCR 2003).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScalableConfig {
    /// Increase per ACK in congestion avoidance, packets (cwnd += a).
    pub a: f64,
    /// Decrease fraction on loss (cwnd *= 1 - b).
    pub b: f64,
    /// At or below this window (packets) the flow behaves as standard TCP.
    pub low_window: f64,
    /// The legacy window governs the decrease too (Kelly 2003 section 2):
    /// `false` cuts by `b` at every window, as ns-3.37 does.
    pub legacy_decrease: bool,
    /// `"ns-3.37"`: cut as ns-3.37's `TcpScalable::GetSsThresh(tcb, bytesInFlight)`:
    /// from the flight (`cut_from`; not cwnd, as Linux and Kelly), rounded
    /// down to whole segments, and at a timeout too (ns-3's `ReTxTimeout`
    /// calls it where RFC 5681 halves the flight). `"none"`: Kelly's cut.
    pub mirror: Mirror,
}

impl Default for ScalableConfig {
    fn default() -> Self {
        //= Kelly 2003 section 2: a = 0.01, b = 0.125; legacy behaviour below
        //= a low-window threshold (16 packets in the Linux tcp_scalable module).
        ScalableConfig {
            a: 0.01,
            b: 0.125,
            low_window: 16.0,
            legacy_decrease: true,
            mirror: Mirror::Spec,
        }
    }
}

impl ScalableConfig {
    /// The decrease fraction at window `w`: `b` above `low_window`, standard
    /// TCP's at or below it (Kelly 2003 section 2, the legacy window).
    pub fn decrease(&self, w: f64) -> f64 {
        //= ns-3.37 tcp-scalable.h (GetSsThresh, "Equation 2"): "On the first
        //= detection of congestion in a given RTT, cwnd is reduced based on
        //= ... cwnd = cwnd - ceil(0.125 * cwnd)", at any window (AIFactor
        //= bounds only CongestionAvoidance). Measured, one flow at 4 Mbps,
        //= 40 ms, 1 BDP (windows 21 to 42, below AIFactor = 100): ns-3 cuts
        //= 42 -> 37 (0.875); the legacy rule 41 -> 21.
        if w > self.low_window || !self.legacy_decrease {
            self.b
        } else {
            AimdConfig::default().b
        }
    }
}

/// Scalable TCP controller.
#[derive(Clone, Copy, Debug)]
pub struct Scalable {
    cfg: ScalableConfig,
}

impl Variant for Scalable {
    const NAMES: &'static [&'static str] = &["scalable"];
    type Config = ScalableConfig;
    type Fluid = ScalableFluid;
    fn read(p: &mut Params) -> Result<ScalableConfig, PErr> {
        let d = ScalableConfig::default();
        Ok(ScalableConfig {
            a: p.num("a", d.a, 1e-6, 1.0)?,
            b: p.num("b", d.b, 1e-6, 0.999)?,
            low_window: p.num("low_window", d.low_window, 1.0, 1e9)?,
            legacy_decrease: p.flag("legacy_decrease", d.legacy_decrease)?,
            mirror: Mirror::read(p)?,
        })
    }
    fn new(cfg: ScalableConfig) -> Scalable {
        Scalable { cfg }
    }
    fn fluid(cfg: ScalableConfig) -> Result<ScalableFluid, &'static str> {
        Ok(ScalableFluid(cfg))
    }
    fn mirror(cfg: &Self::Config) -> Mirror {
        cfg.mirror
    }
    fn epoch(cfg: &ScalableConfig, _window_pkts: f64, rtt_s: f64) -> Epoch {
        // Kelly 2003 section 2: the window grows by (1 + a) per RTT and loses
        // b at a cut, so it regains the cut in ln(1/(1 - b)) / ln(1 + a) RTTs
        // whatever the window (13.4 RTTs at a = 0.01, b = 0.125).
        Epoch::of_rtts(
            (1.0 / (1.0 - cfg.b)).ln() / (1.0 + cfg.a).ln(),
            rtt_s,
            "Scalable ln(1/(1 - b)) / ln(1 + a) RTTs (Kelly 2003 section 2)",
        )
    }
}

/// Scalable TCP in fluid form.
#[derive(Clone, Copy, Debug)]
pub struct ScalableFluid(pub ScalableConfig);

impl FluidLaw for ScalableFluid {
    fn growth(&mut self, _t: f64, _h: f64, w: &mut f64, _rtt: f64) -> Growth {
        if *w > self.0.low_window {
            //= Kelly 2003 section 2: cwnd += a per ACK, W ACKs per RTT:
            //= dW/dt = a W / R.
            Growth::multiplicative(self.0.a)
        } else {
            Growth::additive(AimdConfig::default().a)
        }
    }
    fn decrease_fraction(&mut self, w: f64) -> f64 {
        self.0.decrease(w)
    }
    fn on_loss(&mut self, _t: f64, w: f64, _rtt_min: f64) -> f64 {
        w * (1.0 - self.0.decrease(w))
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

    fn on_congestion_event(&mut self, w: &Window, flight: f64, _now: SimTime) -> f64 {
        if self.cfg.mirror.ns3() {
            //= ns-3.37 TcpScalable::GetSsThresh: "segCwnd = bytesInFlight /
            //= m_segmentSize", ssThresh = max(2.0, segCwnd * (1 - MDFactor))
            //= cast to whole segments. EnterRecovery and EnterCwr pass
            //= BytesInFlight(), not cwnd.
            let f = flight.max(0.0).floor();
            return ((1.0 - self.cfg.decrease(f)) * f).floor().max(MIN_SSTHRESH);
        }
        //= Kelly 2003 section 2: "on the first detection of congestion in a
        //= given round trip time: cwnd <- cwnd - [0.125 * cwnd]".
        ((1.0 - self.cfg.decrease(w.cwnd)) * w.cwnd).max(MIN_SSTHRESH)
    }

    fn timeout_ssthresh(&mut self, w: &Window, flight: f64, now: SimTime) -> f64 {
        if self.cfg.mirror.ns3() {
            //= ns-3.37 TcpSocketBase::ReTxTimeout: "m_tcb->m_ssThresh =
            //= m_congestionControl->GetSsThresh(m_tcb, inFlightBeforeRto)".
            self.on_congestion_event(w, flight, now)
        } else {
            super::reno_ssthresh(flight)
        }
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

    #[test]
    fn ns3_decrease_ignores_the_legacy_window() {
        // ns-3.37 (the ns3 profile's `Stack::cc_params`): low_window = AIFactor = 100,
        // the cut 1/8 at every window. At w = 40 < 100 the increase stays
        // Reno's (40 ACKs of 1/w from 40 add 0.9881) but the cut is
        // 0.875 * 41 = 35.875, not 41/2 = 20.5.
        let cfg = ScalableConfig {
            low_window: 100.0,
            legacy_decrease: false,
            ..ScalableConfig::default()
        };
        let mut cc = Scalable::new(cfg);
        let mut w = Window {
            cwnd: 40.0,
            ssthresh: 10.0,
        };
        for _ in 0..40 {
            cc.on_ack(&mut w, &AckInfo::bare(1, SimTime::ZERO));
        }
        assert!((w.cwnd - 40.9881).abs() < 1e-4, "{}", w.cwnd);
        let w = Window {
            cwnd: 41.0,
            ssthresh: 10.0,
        };
        assert_eq!(cc.on_congestion_event(&w, 41.0, SimTime::ZERO), 35.875);
        assert_eq!(cfg.decrease(5.0), 0.125);
        // The default keeps Kelly's legacy rule.
        assert_eq!(ScalableConfig::default().decrease(5.0), 0.5);
    }

    #[test]
    fn ns3s_cut_reads_the_flight_in_whole_segments() {
        // ns-3.37 TcpScalable::GetSsThresh(tcb, bytesInFlight): 7/8 of the
        // flight in whole segments, floored: a flight of 38 segments ->
        // floor(33.25) = 33, whatever cwnd (42 here); at least 2.
        let mut cc = Scalable::new(ScalableConfig {
            low_window: 100.0,
            legacy_decrease: false,
            mirror: Mirror::Ns3_37,
            ..ScalableConfig::default()
        });
        let w = Window {
            cwnd: 42.0,
            ssthresh: 10.0,
        };
        assert_eq!(cc.on_congestion_event(&w, 38.0, SimTime::ZERO), 33.0);
        assert_eq!(cc.on_congestion_event(&w, 38.9, SimTime::ZERO), 33.0);
        assert_eq!(cc.on_congestion_event(&w, 1.0, SimTime::ZERO), 2.0);
        // A timeout: ns-3's ReTxTimeout calls the same cut, cwnd one segment.
        let mut t = w;
        cc.on_timeout(&mut t, 38.0, SimTime::ZERO);
        assert_eq!((t.ssthresh, t.cwnd), (33.0, 1.0));
        // Without it: Kelly's cut of cwnd, and RFC 5681's halving at a timeout.
        let mut kelly = Scalable::new(ScalableConfig::default());
        assert_eq!(kelly.on_congestion_event(&w, 38.0, SimTime::ZERO), 36.75);
        let mut t = w;
        kelly.on_timeout(&mut t, 38.0, SimTime::ZERO);
        assert_eq!((t.ssthresh, t.cwnd), (19.0, 1.0));
    }
}
