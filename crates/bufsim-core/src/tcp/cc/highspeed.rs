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
//!
//! `mirror = "ns-3.37"` is ns-3.37's `TcpHighSpeed` instead (the ns3 stack
//! profile sets it): a(w) and b(w) from appendix B's table, a window
//! between two rows taking the upper row's values, and the cut taken from
//! the flight in whole segments (see [`ns3_lookup`]), at a timeout too.

use serde::{Deserialize, Serialize};

use super::aimd::AimdConfig;
use super::fluid_law::{FluidLaw, Growth};
use super::{AckInfo, CongestionControl, Epoch, MIN_SSTHRESH, Mirror, Variant, Window, slow_start};
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
    /// `"ns-3.37"`: ns-3.37's `TcpHighSpeed`: a(w), b(w) from
    /// [`ns3_lookup`] (defaults only), and the cut (1 - b(f)) f from the
    /// flight f in whole segments, at a fast retransmit and a timeout
    /// alike. `"none"`: RFC 3649's formulas.
    pub mirror: Mirror,
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
            mirror: Mirror::Spec,
        }
    }
}

/// RFC 3649 appendix B's rows as ns-3.37 stores them: the largest window
/// (segments) of row k, whose a(w) is k + 1; windows above the last row
/// take a = 73, b = 0.09.
const NS3_ROWS: [u32; 72] = [
    38, 118, 221, 347, 495, 663, 851, 1058, 1284, 1529, 1793, 2076, 2378, 2699, 3039, 3399, 3778,
    4177, 4596, 5036, 5497, 5979, 6483, 7009, 7558, 8130, 8726, 9346, 9991, 10661, 11358, 12082,
    12834, 13614, 14424, 15265, 16137, 17042, 17981, 18955, 19965, 21013, 22101, 23230, 24402,
    25618, 26881, 28193, 29557, 30975, 32450, 33986, 35586, 37253, 38992, 40808, 42707, 44694,
    46776, 48961, 51258, 53667, 56230, 58932, 61799, 64851, 68113, 71617, 75401, 79517, 84035,
    89053,
];
/// b(w) of each row, and of the windows above the last (73 values).
const NS3_B: [f64; 73] = [
    0.50, 0.44, 0.41, 0.38, 0.37, 0.35, 0.34, 0.33, 0.32, 0.31, 0.30, 0.29, 0.28, 0.28, 0.27, 0.27,
    0.26, 0.26, 0.25, 0.25, 0.24, 0.24, 0.23, 0.23, 0.22, 0.22, 0.22, 0.21, 0.21, 0.21, 0.20, 0.20,
    0.20, 0.19, 0.19, 0.19, 0.19, 0.18, 0.18, 0.18, 0.17, 0.17, 0.17, 0.17, 0.16, 0.16, 0.16, 0.16,
    0.15, 0.15, 0.15, 0.15, 0.14, 0.14, 0.14, 0.14, 0.13, 0.13, 0.13, 0.13, 0.13, 0.12, 0.12, 0.12,
    0.12, 0.11, 0.11, 0.11, 0.10, 0.10, 0.10, 0.10, 0.09,
];

/// a(w) and b(w) as ns-3.37's `TcpHighSpeed::TableLookupA`/`TableLookupB`
/// give them for a window of `w` whole segments: the first row of RFC 3649
/// appendix B whose window is at least `w`, so a window between two rows
/// takes the upper row's values (a(50) = 2 where the formulas give 1.151).
/// Read from the installed ns-3.37 by calling both functions for every w
/// from 1 to 200,000 (the two public static members of tcp-highspeed.h):
/// a = 1, b = 0.50 up to 38; a = 2, b = 0.44 for 39 to 118; a = 3, b = 0.41
/// for 119 to 221; ...; a = 73, b = 0.09 above 89,053.
pub fn ns3_lookup(w: u64) -> (f64, f64) {
    let k = NS3_ROWS.partition_point(|&row| u64::from(row) < w);
    ((k + 1) as f64, NS3_B[k])
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
        // One logarithm for both factors (b(w) needs it anyway):
        // w^(2 + 1/S) = exp((2 + 1/S) log w) instead of a `powf`.
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
/// segment there, so the logarithm and the exponential of a(w) are
/// computed once every few hundred ACKs instead of on each. The decrease
/// b(w), once per congestion event, is taken at the window as it is.
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
            mirror: Mirror::read(p)?,
        };
        let table_is_ns3s = c.low_window == d.low_window
            && c.high_window == d.high_window
            && c.high_p == d.high_p
            && c.high_decrease == d.high_decrease;
        if c.mirror.ns3() && !table_is_ns3s {
            return Err((
                "mirror".into(),
                "\"ns-3.37\": ns-3's table is RFC 3649's for the default low_window, high_window, \
                 high_p and high_decrease: remove those or set mirror = \"none\""
                    .into(),
            ));
        }
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
    fn mirror(cfg: &Self::Config) -> Mirror {
        cfg.mirror
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
        // SSE4.1, `f64::floor` is a libm call on every ACK).
        let whole = w.cwnd as u64;
        if whole != self.a_at {
            self.a_at = whole;
            self.a = if self.law.cfg.mirror.ns3() {
                ns3_lookup(whole).0
            } else {
                self.law.a(whole as f64)
            };
        }
        //= RFC 3649 section 5: on each ACK in congestion avoidance
        //= "w = w + a(w)/w".
        w.cwnd += self.a * ack.acked as f64 / w.cwnd;
    }

    fn on_congestion_event(&mut self, w: &Window, flight: f64, _now: SimTime) -> f64 {
        if self.law.cfg.mirror.ns3() {
            // ns-3.37 TcpHighSpeed::GetSsThresh(tcb, bytesInFlight): b looked
            // up at the flight in whole segments, the cut from the flight,
            // rounded down to whole segments. Measured by calling it: flight
            // 100, cwnd 200 -> 56 segments (b(100) = 0.44); flight 200,
            // cwnd 100 -> 118 (b(200) = 0.41).
            let f = flight.max(0.0).floor();
            let b = ns3_lookup(f as u64).1;
            return ((1.0 - b) * f).floor().max(MIN_SSTHRESH);
        }
        //= RFC 3649 section 5: on a congestion event "w = (1 - b(w)) w".
        ((1.0 - self.law.b(w.cwnd)) * w.cwnd).max(MIN_SSTHRESH)
    }

    // RFC 3649 leaves timeouts to RFC 5681 section 3.1 eq. (4); ns-3.37's
    // TcpHighSpeed cuts as at a fast retransmit.
    fn timeout_ssthresh(&mut self, w: &Window, flight: f64, now: SimTime) -> f64 {
        if self.law.cfg.mirror.ns3() {
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

    #[test]
    fn ns3s_table_as_read_from_ns3() {
        // Values read from ns-3.37's TcpHighSpeed::TableLookupA/B.
        for (w, a, b) in [
            (1, 1.0, 0.50),
            (38, 1.0, 0.50),
            (39, 2.0, 0.44),
            (118, 2.0, 0.44),
            (119, 3.0, 0.41),
            (200, 3.0, 0.41),
            (1058, 8.0, 0.33),
            (1059, 9.0, 0.32),
            (53_667, 62.0, 0.12),
            (89_053, 72.0, 0.10),
            (89_054, 73.0, 0.09),
            (1_000_000, 73.0, 0.09),
        ] {
            assert_eq!(ns3_lookup(w), (a, b), "w = {w}");
        }
        let cfg = HighSpeedConfig {
            mirror: Mirror::Ns3_37,
            ..HighSpeedConfig::default()
        };
        let mut cc = HighSpeed::new(cfg);
        // At w = 50 (a = 2), 25 ACKs add 2/w each: 0.9906 of a segment
        // (ns-3, counting whole segments, goes 50 -> 51 on the 25th ACK);
        // the formula's a(50) = 1.151 would add 0.57.
        let mut w = Window {
            cwnd: 50.0,
            ssthresh: 10.0,
        };
        for _ in 0..25 {
            cc.on_ack(&mut w, &AckInfo::bare(1, SimTime::ZERO));
        }
        assert!((w.cwnd - 50.9906).abs() < 1e-4, "{}", w.cwnd);
        assert!((HsLaw::new(HighSpeedConfig::default()).a(50.0) - 1.1514).abs() < 1e-4);
        // The cut is from the flight: ns-3 gives 56 for flight 100 at cwnd
        // 200, and 118 for flight 200 at cwnd 100.
        let w = Window {
            cwnd: 200.0,
            ssthresh: 10.0,
        };
        assert_eq!(cc.on_congestion_event(&w, 100.0, SimTime::ZERO), 56.0);
        let w = Window {
            cwnd: 100.0,
            ssthresh: 10.0,
        };
        assert_eq!(cc.on_congestion_event(&w, 200.0, SimTime::ZERO), 118.0);
        // A timeout cuts the same way (ns-3's ReTxTimeout calls
        // GetSsThresh), where RFC 5681 halves the flight: 118, not 100.
        let mut t = w;
        cc.on_timeout(&mut t, 200.0, SimTime::ZERO);
        assert_eq!((t.ssthresh, t.cwnd), (118.0, 1.0));
    }
}
