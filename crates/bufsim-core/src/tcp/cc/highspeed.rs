//! HighSpeed TCP, RFC 3649: in congestion avoidance the window grows by
//! a(w) packets per RTT and falls to (1 - b(w)) w on a congestion event,
//! with a(w) and b(w) from the RFC's formulas (section 5), not the rounded
//! table of its appendix B. At or below Low_Window it is standard TCP
//! (a = 1, b = 1/2).
//!
//! Per-ACK convention: cwnd += a(w) * acked / w (RFC 3649 section 5,
//! "w = w + a(w)/w" per ACK, counted per newly acknowledged packet), with
//! a(w) taken at the whole window, w rounded down to an integer number of
//! segments (see [`HighSpeed`]).
//! Decrease: ssthresh = max((1 - b(w)) cwnd, 2) with w = cwnd at the event.

use serde::{Deserialize, Serialize};

use super::aimd::AimdConfig;
use super::{AckInfo, CongestionControl, Epoch, MIN_SSTHRESH, Variant, Window, slow_start};
use crate::fluid::cc::{FluidLaw, Growth};
use crate::params::{PErr, Params};
use crate::units::SimTime;

/// HighSpeed TCP, RFC 3649.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct HighSpeedConfig {
    /// At or below this window (packets) HSTCP behaves as standard TCP.
    pub low_window: f64,
    /// The window (packets) reached at loss rate `high_p`.
    pub high_window: f64,
    /// Loss rate at which the window is `high_window`.
    pub high_p: f64,
    /// Decrease factor b(w) at `high_window`.
    pub high_decrease: f64,
}

impl Default for HighSpeedConfig {
    fn default() -> Self {
        //= RFC 3649 section 5: Low_Window = 38, High_Window = 83000,
        //= High_P = 10^-7, High_Decrease = 0.1.
        HighSpeedConfig {
            low_window: 38.0,
            high_window: 83_000.0,
            high_p: 1e-7,
            high_decrease: 0.1,
        }
    }
}

//= RFC 3649 section 1: the standard TCP response function w = 1.2/sqrt(p);
//= section 5: Low_P is the loss rate at which it gives Low_Window packets.
const STANDARD_RESPONSE: f64 = 1.2;

/// The response function of RFC 3649 section 5, with its derived constants.
#[derive(Clone, Copy, Debug)]
pub struct HsLaw {
    cfg: HighSpeedConfig,
    ln_low_w: f64,
    /// 1 / (log High_Window - log Low_Window).
    inv_ln_range: f64,
    /// w^2 p(w) = k_p * w^(2 + 1/S).
    k_p: f64,
    exp_p: f64,
}

impl HsLaw {
    /// The law of a config.
    pub fn new(cfg: HighSpeedConfig) -> HsLaw {
        //= RFC 3649 section 5: Low_P = (1.2 / Low_Window)^2 (10^-3 for 38).
        let low_p = (STANDARD_RESPONSE / cfg.low_window).powi(2);
        //= RFC 3649 section 5: w = (p/Low_P)^S Low_Window with
        //= S = (log High_Window - log Low_Window)/(log High_P - log Low_P),
        //= so p(w) = Low_P (w/Low_Window)^(1/S).
        let s = (cfg.high_window.ln() - cfg.low_window.ln()) / (cfg.high_p.ln() - low_p.ln());
        let inv_s = 1.0 / s;
        HsLaw {
            cfg,
            ln_low_w: cfg.low_window.ln(),
            inv_ln_range: 1.0 / (cfg.high_window.ln() - cfg.low_window.ln()),
            k_p: low_p / cfg.low_window.powf(inv_s),
            exp_p: 2.0 + inv_s,
        }
    }

    /// b(w), the decrease fraction at window `w`.
    #[inline]
    pub fn b(&self, w: f64) -> f64 {
        if w <= self.cfg.low_window {
            return AimdConfig::default().b;
        }
        self.b_of_ln(w.ln())
    }

    /// b(w) above Low_Window, from `ln_w` = log(w).
    #[inline]
    fn b_of_ln(&self, ln_w: f64) -> f64 {
        let std = AimdConfig::default();
        //= RFC 3649 section 5: b(w) = (High_Decrease - 0.5)
        //=   (log(w) - log(Low_Window)) / (log(High_Window) - log(Low_Window)) + 0.5
        (self.cfg.high_decrease - std.b) * (ln_w - self.ln_low_w) * self.inv_ln_range + std.b
    }

    /// a(w), the increase in packets per RTT at window `w`.
    #[inline]
    pub fn a(&self, w: f64) -> f64 {
        let std = AimdConfig::default();
        if w <= self.cfg.low_window {
            return std.a;
        }
        // One logarithm for both factors: w^(2 + 1/S) = exp((2 + 1/S) log w)
        // (a `powf` call was 3% of a 10 Gbps HighSpeed run's instructions).
        let ln_w = w.ln();
        let b = self.b_of_ln(ln_w);
        //= RFC 3649 section 5: a(w) = w^2 p(w) 2 b(w) / (2 - b(w)).
        let a = self.k_p * (self.exp_p * ln_w).exp() * 2.0 * b / (2.0 - b);
        a.max(std.a)
    }
}

/// HighSpeed TCP controller.
///
/// a(w) is evaluated at the whole window `floor(cwnd)`, and kept until
/// the window crosses the next integer. RFC 3649 section 5 counts w in
/// MSS-sized segments, and a stack's window is a whole number of them
/// (Linux's `snd_cwnd`; its `tcp_highspeed.c` looks up appendix B's table
/// by it). Against the formula at the fractional window, a(w) grows as
/// w^0.80 at most (the exponent 2 + 1/S = 0.8025 of p(w) w^2, times the
/// falling 2b/(2 - b)), so it is low by less than 0.8/w relatively: 2.1%
/// at Low_Window = 38, 0.008% at the 10,000-segment windows of paper
/// 004's 10 Gbps runs. Per ACK the window moves by a(w)/w, about 0.003
/// segment there, so a logarithm and an exponential are computed once
/// every few hundred ACKs instead of on each: they were 13% of a 10 Gbps
/// HighSpeed run's CPU time. The decrease b(w), once per congestion
/// event, is taken at the window as it is.
#[derive(Clone, Copy, Debug)]
pub struct HighSpeed {
    law: HsLaw,
    /// The whole window `a` was computed at (`u64::MAX`: none yet).
    a_at: u64,
    /// a(`a_at`), packets per RTT.
    a: f64,
}

impl Variant for HighSpeed {
    const NAMES: &'static [&'static str] = &["highspeed"];
    type Config = HighSpeedConfig;
    type Fluid = HsFluid;
    fn read(p: &mut Params) -> Result<HighSpeedConfig, PErr> {
        let d = HighSpeedConfig::default();
        let c = HighSpeedConfig {
            low_window: p.num("low_window", d.low_window, 1.0, 1e9)?,
            high_window: p.num("high_window", d.high_window, 2.0, 1e12)?,
            high_p: p.num("high_p", d.high_p, 1e-15, 0.5)?,
            high_decrease: p.num("high_decrease", d.high_decrease, 0.001, 0.5)?,
        };
        if c.high_window <= c.low_window {
            return Err((
                "high_window".into(),
                format!("must exceed low_window {}", c.low_window),
            ));
        }
        Ok(c)
    }
    fn new(cfg: HighSpeedConfig) -> HighSpeed {
        HighSpeed {
            law: HsLaw::new(cfg),
            a_at: u64::MAX,
            a: 1.0,
        }
    }
    fn fluid(cfg: HighSpeedConfig) -> Result<HsFluid, &'static str> {
        Ok(HsFluid {
            law: HsLaw::new(cfg),
            w: f64::NAN,
            a: 1.0,
            b: 0.5,
        })
    }
    fn epoch(cfg: &HighSpeedConfig, window_pkts: f64, rtt_s: f64) -> Epoch {
        // A cut of b(W) W regained at a(W) packets per RTT.
        let law = HsLaw::new(*cfg);
        let w = window_pkts;
        Epoch::of_rtts(
            law.b(w) * w / law.a(w),
            rtt_s,
            "HighSpeed b(W) W / a(W) RTTs (RFC 3649 section 5)",
        )
    }
}

/// HighSpeed TCP in fluid form: the same a(w), b(w) as the packet
/// controller, cached at the window `w` they were computed for (recomputed
/// when the window moves by more than 0.1%: a(w) and b(w) change on the
/// scale of the window's logarithm).
#[derive(Clone, Copy, Debug)]
pub struct HsFluid {
    law: HsLaw,
    w: f64,
    a: f64,
    b: f64,
}

impl HsFluid {
    #[inline]
    fn ab(&mut self, w: f64) -> (f64, f64) {
        // `self.w` starts as NaN: refresh.
        if self.w.is_nan() || (w - self.w).abs() > 1e-3 * self.w {
            self.w = w;
            self.a = self.law.a(w);
            self.b = self.law.b(w);
        }
        (self.a, self.b)
    }
}

impl FluidLaw for HsFluid {
    fn growth(&mut self, _t: f64, _h: f64, w: &mut f64, _rtt: f64) -> Growth {
        //= RFC 3649 section 5: a(w) packets per RTT.
        Growth::additive(self.ab(*w).0)
    }
    fn decrease_fraction(&mut self, w: f64) -> f64 {
        self.ab(w).1
    }
    fn on_loss(&mut self, _t: f64, w: f64, _rtt_min: f64) -> f64 {
        //= RFC 3649 section 5: W <- (1 - b(w)) W.
        w * (1.0 - self.ab(w).1)
    }
}

impl CongestionControl for HighSpeed {
    #[inline]
    fn on_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        if slow_start(w, ack.acked) {
            return;
        }
        // The window is positive: the conversion rounds it down (without
        // SSE4.1, `f64::floor` is a libm call, 0.9% of the run's time).
        let whole = w.cwnd as u64;
        if whole != self.a_at {
            self.a_at = whole;
            self.a = self.law.a(whole as f64);
        }
        //= RFC 3649 section 5: on each ACK in congestion avoidance
        //= "w = w + a(w)/w".
        w.cwnd += self.a * ack.acked as f64 / w.cwnd;
    }

    fn on_congestion_event(&mut self, w: &Window, _flight: f64, _now: SimTime) -> f64 {
        //= RFC 3649 section 5: on a congestion event "w = (1 - b(w)) w".
        ((1.0 - self.law.b(w.cwnd)) * w.cwnd).max(MIN_SSTHRESH)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_points_of_rfc3649_appendix_b() {
        let law = HsLaw::new(HighSpeedConfig::default());
        // RFC 3649 appendix B lists (w, a(w), b(w)) with a rounded to an
        // integer and b to two decimals, at the first w where a reaches it:
        // the formulas must agree within that rounding (a within 0.5, b 0.005).
        for (w, a, b) in [
            (38.0, 1.0, 0.50),
            (118.0, 2.0, 0.44),
            (221.0, 3.0, 0.41),
            (347.0, 4.0, 0.38),
            (495.0, 5.0, 0.37),
            (1058.0, 8.0, 0.33),
        ] {
            assert!((law.a(w) - a).abs() < 0.5, "a({w}) = {} vs {a}", law.a(w));
            assert!(
                (law.b(w) - b).abs() <= 0.005 + 1e-9,
                "b({w}) = {} vs {b}",
                law.b(w)
            );
        }
        // At High_Window p = High_P and b = High_Decrease exactly:
        // a = 83000^2 * 1e-7 * 2 * 0.1 / 1.9 = 72.5158.
        assert!((law.b(83_000.0) - 0.1).abs() < 1e-12);
        assert!(
            (law.a(83_000.0) - 72.5158).abs() < 1e-3,
            "a(83000) = {}",
            law.a(83_000.0)
        );
        // At or below Low_Window: standard TCP.
        assert_eq!(law.a(20.0), 1.0);
        assert_eq!(law.b(38.0), 0.5);
    }

    #[test]
    fn hand_worked_window_update() {
        // w = 1000: b = (0.1 - 0.5) ln(1000/38)/ln(83000/38) + 0.5
        //   = -0.4 * 3.27017/7.68901 + 0.5 = 0.329878;
        // Low_P = (1.2/38)^2 = 9.97230e-4, S = 7.68901 / ln(1e-7/Low_P) = -0.835075,
        // p(1000) = Low_P (1000/38)^(1/S) = 9.97230e-4 * 0.0199203 = 1.98651e-5;
        // a = 1000^2 * 1.98651e-5 * 2 * 0.329878 / 1.670122 = 7.8474.
        let cfg = HighSpeedConfig::default();
        let mut cc = HighSpeed::new(cfg);
        assert!(
            (cc.law.b(1000.0) - 0.32988).abs() < 1e-4,
            "{}",
            cc.law.b(1000.0)
        );
        assert!(
            (cc.law.a(1000.0) - 7.8474).abs() < 1e-3,
            "{}",
            cc.law.a(1000.0)
        );
        let mut w = Window {
            cwnd: 1000.0,
            ssthresh: 10.0,
        };
        cc.on_ack(&mut w, &AckInfo::bare(1, SimTime::ZERO));
        assert!((w.cwnd - (1000.0 + 7.8474e-3)).abs() < 1e-6);
        // a(w) is taken at the whole window: a(1000) = 7.8474 at 1000.5,
        // then a(1001) once the window crosses 1001 (the cached value
        // refreshed). d ln a / d ln w = 0.8025 + d ln(2b/(2 - b)) / d ln w
        // = 0.8025 - (1/b + 1/(2 - b)) x 0.4/7.68901 = 0.8025 - 0.1889
        // = 0.6136 at w = 1000, so a(1001) - a(1000) = 0.6136 x 7.8474/1000
        // = 0.00482.
        let mut w = Window {
            cwnd: 1000.5,
            ssthresh: 10.0,
        };
        cc.on_ack(&mut w, &AckInfo::bare(1, SimTime::ZERO));
        assert!((w.cwnd - (1000.5 + 7.8474 / 1000.5)).abs() < 1e-6);
        let a1001 = cc.law.a(1001.0);
        assert!((a1001 - cc.law.a(1000.0) - 0.00482).abs() < 1e-5, "{a1001}");
        let mut w = Window {
            cwnd: 1001.25,
            ssthresh: 10.0,
        };
        cc.on_ack(&mut w, &AckInfo::bare(1, SimTime::ZERO));
        assert_eq!(w.cwnd, 1001.25 + a1001 / 1001.25);
        let w = Window {
            cwnd: 1000.0,
            ssthresh: 10.0,
        };
        let ss = cc.on_congestion_event(&w, 1000.0, SimTime::ZERO);
        assert!((ss - 670.122).abs() < 1e-3, "{ss}");
    }
}
