//! Congestion-control laws in fluid form: the window growth rate between
//! losses and the window after a loss, for every variant of
//! [`CcConfig`]. The constants come from the configs (one place, with their
//! citations); only constants that are part of a law and not configurable
//! live here, each next to its source.
//!
//! Growth is written for a fixed-step integrator as
//! `dW/dt = (g0 + g1 W) / R(t) + c3 (t - tk)^2`, with the coefficients frozen
//! over one step (they change on the time scale of many RTTs): AIMD-like
//! laws use `g0`, multiplicative ones (slow start, Scalable TCP) `g1`, and
//! CUBIC's concave/convex curve `c3`, which RK4 integrates exactly.

use crate::tcp::cc::config::{
    AimdConfig, CcConfig, CubicConfig, HighSpeedConfig, HtcpConfig, ScalableConfig,
};
use crate::tcp::cc::htcp;

/// Growth coefficients of one flow over one step (see the module doc).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Growth {
    /// Packets per RTT, independent of the window.
    pub g0: f64,
    /// Per-RTT growth proportional to the window.
    pub g1: f64,
    /// Coefficient of the time-driven CUBIC term, packets / s^3.
    pub c3: f64,
    /// Time origin of the CUBIC term (epoch start + K), seconds.
    pub tk: f64,
}

/// The smallest window a fluid flow is allowed to fall to, packets
/// (RFC 5681 section 3.1: cwnd never falls below one segment after a loss).
pub const MIN_WINDOW: f64 = 1.0;

/// HighSpeed TCP response function, RFC 3649 section 5.
#[derive(Clone, Copy, Debug)]
struct HsLaw {
    cfg: HighSpeedConfig,
    /// log(Low_P): the loss rate of standard TCP at Low_Window.
    log_low_p: f64,
    /// S = (log High_W - log Low_W) / (log High_P - log Low_P).
    s: f64,
}

impl HsLaw {
    fn new(cfg: HighSpeedConfig) -> HsLaw {
        //= RFC 3649 section 5: "Low_P ... the packet drop rate corresponding to
        //= Low_Window" on the standard TCP response function w = 1.2/sqrt(p)
        //= (section 1), i.e. Low_P = (1.2 / Low_Window)^2 (10^-3 for 38 packets).
        const STANDARD_RESPONSE: f64 = 1.2;
        let low_p = (STANDARD_RESPONSE / cfg.low_window).powi(2);
        let s = (cfg.high_window.ln() - cfg.low_window.ln()) / (cfg.high_p.ln() - low_p.ln());
        HsLaw {
            cfg,
            log_low_p: low_p.ln(),
            s,
        }
    }

    /// `(a(w), b(w))`: increase per RTT and decrease fraction at window `w`.
    fn ab(&self, w: f64) -> (f64, f64) {
        let std = AimdConfig::default();
        if w <= self.cfg.low_window {
            return (std.a, std.b);
        }
        let c = &self.cfg;
        //= RFC 3649 section 5: b(w) = (High_Decrease - 0.5)
        //=   (log(w) - log(Low_Window)) / (log(High_Window) - log(Low_Window)) + 0.5
        let frac = (w.ln() - c.low_window.ln()) / (c.high_window.ln() - c.low_window.ln());
        let b = (c.high_decrease - std.b) * frac + std.b;
        //= RFC 3649 section 5: w = (p/Low_P)^S Low_Window, so
        //= p(w) = Low_P (w / Low_Window)^(1/S).
        let p = (self.log_low_p + (w / c.low_window).ln() / self.s).exp();
        //= RFC 3649 section 5: a(w) = w^2 p(w) 2 b(w) / (2 - b(w)).
        let a = w * w * p * 2.0 * b / (2.0 - b);
        (a.max(std.a), b)
    }
}

#[derive(Clone, Copy, Debug)]
enum Law {
    Aimd(AimdConfig),
    HighSpeed(HsLaw),
    Scalable(ScalableConfig),
    Cubic(CubicConfig),
    Htcp(HtcpConfig),
}

/// One flow's congestion controller in fluid form (enum dispatch, no boxing).
#[derive(Clone, Debug)]
pub struct FluidCc {
    law: Law,
    /// In slow start until the first loss (RFC 5681 section 3.1).
    pub slow_start: bool,
    // HighSpeed: a(w), b(w) cached at window `hs_w` (recomputed when w moves 0.1%).
    hs_w: f64,
    hs_a: f64,
    hs_b: f64,
    // CUBIC: W_max, K, epoch start, Reno-friendly estimate W_est (RFC 9438 section 4).
    w_max: f64,
    k: f64,
    t_epoch: f64,
    w_est: f64,
    // H-TCP: time of the last congestion event, largest RTT seen since,
    // packets sent since and the previous epoch's rate (tcp::cc::htcp).
    t_last: f64,
    rtt_max: f64,
    htcp_beta: f64,
    htcp_sent: f64,
    htcp_prev_rate: f64,
    /// The flow's smallest RTT (its propagation delay), seconds, as the
    /// packet engine's RTTmin for H-TCP's RTT scaling (0: not known yet).
    rtt_min: f64,
}

impl FluidCc {
    /// A controller for `cfg`, starting in slow start.
    pub fn new(cfg: &CcConfig) -> FluidCc {
        let law = match *cfg {
            CcConfig::NewReno => Law::Aimd(AimdConfig::default()),
            CcConfig::Aimd(c) => Law::Aimd(c),
            CcConfig::HighSpeed(c) => Law::HighSpeed(HsLaw::new(c)),
            CcConfig::Scalable(c) => Law::Scalable(c),
            CcConfig::Cubic(c) => Law::Cubic(c),
            CcConfig::Htcp(c) => Law::Htcp(c),
        };
        FluidCc {
            law,
            slow_start: true,
            hs_w: f64::NAN,
            hs_a: 1.0,
            hs_b: 0.5,
            w_max: 0.0,
            k: 0.0,
            t_epoch: 0.0,
            w_est: 0.0,
            t_last: 0.0,
            rtt_max: 0.0,
            htcp_sent: 0.0,
            htcp_prev_rate: 0.0,
            rtt_min: 0.0,
            //= draft-leith-tcp-htcp-06 section 3: beta starts at 0.5 (the clamp's floor).
            htcp_beta: match *cfg {
                CcConfig::Htcp(c) => c.beta_min,
                _ => 0.5,
            },
        }
    }

    /// Whether the law has a rate (continuous-decrease) form, paper 004 eq. (1).
    pub fn has_rate_form(cfg: &CcConfig) -> bool {
        !matches!(cfg, CcConfig::Cubic(_) | CcConfig::Htcp(_))
    }

    /// Called when the flow starts at time `t` (seconds) with window `w`.
    pub fn start(&mut self, t: f64, w: f64) {
        self.t_last = t;
        self.t_epoch = t;
        self.w_est = w;
        self.w_max = w;
    }

    #[inline]
    fn hs(&mut self, w: f64) -> (f64, f64) {
        // Refresh when w moved by more than 0.1% (hs_w starts as NaN: refresh).
        if self.hs_w.is_nan() || (w - self.hs_w).abs() > 1e-3 * self.hs_w {
            self.hs_refresh(w);
        }
        (self.hs_a, self.hs_b)
    }

    #[cold]
    #[inline(never)]
    fn hs_refresh(&mut self, w: f64) {
        if let Law::HighSpeed(law) = self.law {
            let (a, b) = law.ab(w);
            self.hs_w = w;
            self.hs_a = a;
            self.hs_b = b;
        }
    }

    /// Growth coefficients for the step starting at `t` (seconds) with window
    /// `*w` and RTT `rtt`. May resynchronize `*w` to the law's explicit value
    /// (CUBIC's window is a function of time), and advances per-step state
    /// over `h` seconds.
    #[inline]
    pub fn growth(&mut self, t: f64, h: f64, w: &mut f64, rtt: f64) -> Growth {
        if self.slow_start {
            //= RFC 5681 section 3.1: in slow start cwnd grows by one segment per
            //= ACK, doubling per RTT: dW/dt = ln(2) W / R.
            return Growth {
                g1: std::f64::consts::LN_2,
                ..Growth::default()
            };
        }
        match self.law {
            //= paper 004 eq. (1): dW/dt = a / R(t); AIMD(a, b) grows a packets per RTT.
            Law::Aimd(c) => Growth {
                g0: c.a,
                ..Growth::default()
            },
            Law::HighSpeed(_) => Growth {
                g0: self.hs(*w).0,
                ..Growth::default()
            },
            Law::Scalable(c) => {
                if *w <= c.low_window {
                    Growth {
                        g0: AimdConfig::default().a,
                        ..Growth::default()
                    }
                } else {
                    //= Kelly 2003 section 2: cwnd += a per ACK, W ACKs per RTT:
                    //= dW/dt = a W / R.
                    Growth {
                        g1: c.a,
                        ..Growth::default()
                    }
                }
            }
            Law::Cubic(c) => {
                //= RFC 9438 section 4.3: W_est grows by alpha_cubic per RTT with
                //= alpha_cubic = 3 (1 - beta_cubic) / (1 + beta_cubic).
                let alpha = 3.0 * (1.0 - c.beta) / (1.0 + c.beta);
                //= RFC 9438 section 4.2 eq. (1): W_cubic(t) = C (t - K)^3 + W_max,
                //= t measured from the start of the congestion-avoidance epoch.
                let te = t - self.t_epoch - self.k;
                let wc = c.c * te * te * te + self.w_max;
                if c.reno_friendly && self.w_est > wc {
                    //= RFC 9438 section 4.3: in the Reno-friendly region
                    //= (W_cubic < W_est) cwnd follows W_est.
                    *w = self.w_est;
                    self.w_est += alpha * h / rtt;
                    Growth {
                        g0: alpha,
                        ..Growth::default()
                    }
                } else {
                    *w = wc.max(MIN_WINDOW);
                    self.w_est += alpha * h / rtt;
                    //= d/dt W_cubic = 3 C (t - K)^2 (RK4 integrates it exactly).
                    Growth {
                        c3: 3.0 * c.c,
                        tk: self.t_epoch + self.k,
                        ..Growth::default()
                    }
                }
            }
            Law::Htcp(c) => {
                self.rtt_max = self.rtt_max.max(rtt);
                // The epoch's throughput for the backoff's 20% rule: W / R
                // packets per second over this step.
                self.htcp_sent += *w / rtt * h;
                //= The packet engine's law (tcp::cc::htcp::increase): alpha(D)
                //= times 2 (1 - beta), RTT-scaled (clamped) when asked.
                Growth {
                    g0: htcp::increase(
                        &c,
                        self.htcp_beta,
                        t - self.t_last,
                        (self.rtt_min > 0.0).then_some(self.rtt_min),
                    ),
                    ..Growth::default()
                }
            }
        }
    }

    /// The decrease fraction b(W) of the law at window `w` (the rate form of
    /// paper 004 eq. (1): dW/dt = -b W lambda).
    pub fn decrease_fraction(&mut self, w: f64) -> f64 {
        if self.slow_start {
            return AimdConfig::default().b;
        }
        match self.law {
            Law::Aimd(c) => c.b,
            Law::HighSpeed(_) => self.hs(w).1,
            Law::Scalable(c) => {
                if w <= c.low_window {
                    AimdConfig::default().b
                } else {
                    c.b
                }
            }
            Law::Cubic(c) => 1.0 - c.beta,
            Law::Htcp(_) => 1.0 - self.htcp_beta,
        }
    }

    /// A loss event recorded at time `t` with window `w` and propagation RTT
    /// `rtt_min`: returns the window after the reduction.
    pub fn on_loss(&mut self, t: f64, w: f64, rtt_min: f64) -> f64 {
        self.slow_start = false;
        self.rtt_min = rtt_min;
        let out = match self.law {
            //= RFC 5681 section 3.1 / paper 004 eq. (1): W <- (1 - b) W.
            Law::Aimd(c) => w * (1.0 - c.b),
            //= RFC 3649 section 5: W <- (1 - b(w)) W.
            Law::HighSpeed(_) => w * (1.0 - self.hs(w).1),
            Law::Scalable(c) => {
                let b = if w <= c.low_window {
                    AimdConfig::default().b
                } else {
                    c.b
                };
                w * (1.0 - b)
            }
            Law::Cubic(c) => {
                //= RFC 9438 section 4.7 (fast convergence): if cwnd < W_max,
                //= W_max = cwnd (1 + beta_cubic) / 2, else W_max = cwnd.
                self.w_max = if c.fast_convergence && w < self.w_max {
                    w * (1.0 + c.beta) / 2.0
                } else {
                    w
                };
                //= RFC 9438 section 4.6: cwnd = cwnd * beta_cubic.
                let new = (w * c.beta).max(MIN_WINDOW);
                //= RFC 9438 section 4.2 eq. (2): K = cbrt((W_max - cwnd_epoch) / C),
                //= cwnd_epoch being the window at the start of the epoch.
                self.k = ((self.w_max - new).max(0.0) / c.c).cbrt();
                self.t_epoch = t;
                //= RFC 9438 section 4.3: W_est = cwnd_epoch at a congestion event.
                self.w_est = new;
                new
            }
            Law::Htcp(c) => {
                //= The packet engine's backoff (tcp::cc::htcp::backoff): RTTmin /
                //= RTTmax in [beta_min, beta_max], beta_min if the epoch's
                //= throughput moved by more than 20%.
                let rate = if t > self.t_last {
                    self.htcp_sent / (t - self.t_last)
                } else {
                    0.0
                };
                let beta = htcp::backoff(&c, rate, self.htcp_prev_rate, rtt_min, self.rtt_max);
                self.htcp_beta = beta;
                self.htcp_prev_rate = rate;
                self.htcp_sent = 0.0;
                self.t_last = t;
                self.rtt_max = 0.0;
                w * beta
            }
        };
        out.max(MIN_WINDOW)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fluid H-TCP law and the packet engine's agree: the same increase
    /// per RTT (RTT scaling clamped) and the same backoff, including the 20%
    /// throughput-change rule, for the same epochs.
    #[test]
    fn htcp_law_matches_the_packet_engine() {
        use crate::tcp::cc::htcp::Htcp;
        use crate::tcp::cc::{AckInfo, CongestionControl, Window};
        use crate::units::SimTime;
        let cfg = HtcpConfig {
            rtt_scaling: true,
            ..HtcpConfig::default()
        };
        let mut pk = Htcp::new(cfg);
        let mut fl = FluidCc::new(&CcConfig::Htcp(cfg));
        fl.slow_start = false;
        let mut win = Window {
            cwnd: 80.0,
            ssthresh: 40.0,
        };
        let ack = |t: f64, acked: u64| {
            let mut a = AckInfo::bare(acked, SimTime::from_secs_f64(t));
            a.rtt = Some(SimTime::from_millis(80));
            a.min_rtt = Some(SimTime::from_millis(50));
            a
        };
        // Two epochs of 5 s: 1000 then 1500 packets/s (RTT 80 ms, RTTmin 50 ms).
        let mut betas = vec![];
        for (epoch, rate) in [(0.0, 1000.0), (5.0, 1500.0)] {
            for k in 0..500 {
                let t = epoch + k as f64 * 0.01;
                pk.on_ack(&mut win, &ack(t, (rate * 0.01) as u64));
                let mut w = rate * 0.08;
                let _ = fl.growth(t, 0.01, &mut w, 0.08);
            }
            let t_end = epoch + 5.0;
            let pk_w = pk.on_congestion_event(&win, win.cwnd, SimTime::from_secs_f64(t_end));
            let fl_w = fl.on_loss(t_end, win.cwnd, 0.05);
            assert!((pk_w - fl_w).abs() < 1e-9, "{pk_w} vs {fl_w}");
            betas.push(pk.beta());
        }
        // RTTmin / RTTmax = 0.625 after the first epoch; the second's
        // throughput moved by 50% > 20%: beta_min.
        assert_eq!(betas, vec![0.625, 0.5]);
        // The increase 3 s after the last event: RTT scaling 50 ms / 100 ms.
        let mut w = 80.0;
        let g = fl.growth(13.0, 0.01, &mut w, 0.08);
        assert_eq!(g.g0, pk.alpha(3.0, Some(0.05)));
        assert!((g.g0 - 2.0 * 0.5 * (1.0 + 10.0 * 2.0 + 1.0) * 0.5).abs() < 1e-12);
    }

    #[test]
    fn highspeed_matches_rfc3649_table() {
        //= RFC 3649 appendix B table: w = 38 -> a = 1, b = 0.50;
        //= w = 1058 -> a = 8 (7.9 exact), b = 0.33; w = 84035 -> a = 72, b = 0.10.
        let law = HsLaw::new(HighSpeedConfig::default());
        let (a, b) = law.ab(1058.0);
        assert!((a - 8.0).abs() < 0.5, "a(1058) = {a}");
        assert!((b - 0.33).abs() < 0.01, "b(1058) = {b}");
        let (a, b) = law.ab(84035.0);
        assert!((a - 72.0).abs() < 1.5, "a(84035) = {a}");
        assert!((b - 0.10).abs() < 0.002, "b(84035) = {b}");
        assert_eq!(law.ab(30.0), (1.0, 0.5));
    }

    #[test]
    fn cubic_epoch_restarts_at_beta_w() {
        let mut cc = FluidCc::new(&CcConfig::Cubic(CubicConfig::default()));
        cc.start(0.0, 10.0);
        let w = cc.on_loss(1.0, 1000.0, 0.1);
        assert!((w - 700.0).abs() < 1e-9);
        // K = cbrt(300 / 0.4) = 9.0856 s; W_cubic(K) = W_max.
        let mut ww = w;
        let _ = cc.growth(1.0 + 9.085_602_964, 0.001, &mut ww, 0.1);
        assert!((ww - 1000.0).abs() < 1e-3, "{ww}");
    }
}
