//! Congestion-control laws in fluid form. Each variant's law lives in its
//! own file beside its packet controller (`tcp::cc::<variant>`), behind
//! [`FluidLaw`]; this module holds the contract the integrator relies on
//! ([`Growth`]), the slow start every variant shares, and [`FluidCc`], which
//! dispatches to the law.
//!
//! Growth is written for a fixed-step integrator as
//! `dW/dt = (g0 + g1 W) / R(t) + c3 (t - tk)^2`, with the coefficients frozen
//! over one step (they change on the time scale of many RTTs): AIMD-like
//! laws use `g0`, multiplicative ones (slow start, Scalable TCP) `g1`, and
//! CUBIC's concave/convex curve `c3`, which RK4 integrates exactly.

use crate::tcp::cc::{AnyFluidLaw, CcConfig};

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

impl Growth {
    /// `a` packets per RTT (an additive law).
    pub fn additive(a: f64) -> Growth {
        Growth {
            g0: a,
            ..Growth::default()
        }
    }

    /// `a W` packets per RTT (a multiplicative law).
    pub fn multiplicative(a: f64) -> Growth {
        Growth {
            g1: a,
            ..Growth::default()
        }
    }
}

/// The smallest window a fluid flow is allowed to fall to, packets
/// (RFC 5681 section 3.1: cwnd never falls below one segment after a loss).
pub const MIN_WINDOW: f64 = 1.0;

/// A variant's law in congestion avoidance, in fluid form. Times are
/// seconds, windows packets. Slow start is not the law's business: it is
/// the same for every variant ([`FluidCc`]).
pub trait FluidLaw {
    /// The flow starts at time `t` with window `w`.
    fn start(&mut self, t: f64, w: f64) {
        let _ = (t, w);
    }
    /// Growth coefficients for the step starting at `t` with window `*w` and
    /// RTT `rtt`, lasting `h`. May resynchronize `*w` to the law's explicit
    /// value (CUBIC's window is a function of time) and advance per-step state.
    fn growth(&mut self, t: f64, h: f64, w: &mut f64, rtt: f64) -> Growth;
    /// The decrease fraction b(W) at window `w` (the rate form of paper 004
    /// eq. (1): dW/dt = -b W lambda).
    fn decrease_fraction(&mut self, w: f64) -> f64;
    /// A loss event at time `t` with window `w` and propagation RTT
    /// `rtt_min`: the window after the reduction (before the
    /// [`MIN_WINDOW`] floor, which [`FluidCc`] applies).
    fn on_loss(&mut self, t: f64, w: f64, rtt_min: f64) -> f64;
}

/// The fluid law of a variant the fluid engine does not model
/// ([`crate::tcp::cc::Variant::fluid`] returns why): it has no values, so
/// no flow can ever hold one.
#[derive(Clone, Debug)]
pub enum NoFluidLaw {}

impl FluidLaw for NoFluidLaw {
    fn growth(&mut self, _t: f64, _h: f64, _w: &mut f64, _rtt: f64) -> Growth {
        match *self {}
    }
    fn decrease_fraction(&mut self, _w: f64) -> f64 {
        match *self {}
    }
    fn on_loss(&mut self, _t: f64, _w: f64, _rtt_min: f64) -> f64 {
        match *self {}
    }
}

/// One flow's congestion controller in fluid form: the variant's law (enum
/// dispatch, no boxing) and the slow start every variant shares.
#[derive(Clone, Debug)]
pub struct FluidCc {
    law: AnyFluidLaw,
    /// In slow start until the first loss (RFC 5681 section 3.1).
    pub slow_start: bool,
}

//= RFC 5681 section 3.1: ssthresh = FlightSize / 2 on a loss in slow start
//= (every variant leaves slow start as standard TCP does).
const SLOW_START_DECREASE: f64 = 0.5;

impl FluidCc {
    /// A controller for `cfg`, starting in slow start; an error says why
    /// the variant has no fluid law.
    pub fn new(cfg: &CcConfig) -> Result<FluidCc, &'static str> {
        Ok(FluidCc {
            law: cfg.fluid_law()?,
            slow_start: true,
        })
    }

    /// Called when the flow starts at time `t` (seconds) with window `w`.
    pub fn start(&mut self, t: f64, w: f64) {
        self.law.start(t, w);
    }

    /// Growth coefficients for the step starting at `t` (see [`FluidLaw::growth`]).
    #[inline]
    pub fn growth(&mut self, t: f64, h: f64, w: &mut f64, rtt: f64) -> Growth {
        if self.slow_start {
            //= RFC 5681 section 3.1: in slow start cwnd grows by one segment per
            //= ACK, doubling per RTT: dW/dt = ln(2) W / R.
            return Growth::multiplicative(std::f64::consts::LN_2);
        }
        self.law.growth(t, h, w, rtt)
    }

    /// The decrease fraction b(W) at window `w` (see [`FluidLaw::decrease_fraction`]).
    pub fn decrease_fraction(&mut self, w: f64) -> f64 {
        if self.slow_start {
            return SLOW_START_DECREASE;
        }
        self.law.decrease_fraction(w)
    }

    /// A loss event recorded at time `t` with window `w` and propagation RTT
    /// `rtt_min`: returns the window after the reduction.
    pub fn on_loss(&mut self, t: f64, w: f64, rtt_min: f64) -> f64 {
        self.slow_start = false;
        self.law.on_loss(t, w, rtt_min).max(MIN_WINDOW)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::htcp::{Htcp, HtcpConfig};
    use crate::tcp::cc::{AckInfo, AnyCc, CongestionControl, Variant, Window, variant_names};
    use crate::units::SimTime;

    /// One RTT-paced congestion-avoidance run of both forms of a variant's
    /// law from window `w0`, after a congestion event at `w_event`: the
    /// packet controller gets W ACKs of one packet per RTT, spread
    /// evenly; the fluid law is integrated with 1 ms Euler steps.
    /// Returns (packet window, fluid window) after `secs` seconds, and each
    /// form's decrease factor at `w_event`.
    fn both_forms(cfg: &CcConfig, w_event: f64, secs: f64, rtt: f64) -> ((f64, f64), (f64, f64)) {
        let r = SimTime::from_secs_f64(rtt);
        // Packet: a congestion event at w_event, then avoidance from ssthresh.
        let mut pk = AnyCc::new(cfg);
        let mut win = Window {
            cwnd: w_event,
            ssthresh: f64::INFINITY,
        };
        let ss = pk.on_congestion_event(&win, w_event, SimTime::ZERO);
        win = Window {
            cwnd: ss,
            ssthresh: ss,
        };
        // ACKs arrive at the fluid rate W / R: a fractional window's share
        // carries to the next RTT.
        let (mut t, end, mut carry) = (0.0, secs, 0.0);
        while t < end {
            carry += win.cwnd;
            let n = carry.floor().max(1.0) as u64;
            carry -= n as f64;
            for k in 0..n {
                let mut a = AckInfo::bare(1, SimTime::from_secs_f64(t + rtt * k as f64 / n as f64));
                a.srtt = Some(r);
                a.min_rtt = Some(r);
                a.max_rtt = Some(r);
                a.rtt = Some(r);
                pk.on_ack(&mut win, &a);
            }
            t += rtt;
        }
        // Fluid: the same event, then the law's growth.
        let mut fl = FluidCc::new(cfg).expect("a fluid law");
        fl.start(0.0, w_event);
        let fb = 1.0 - fl.on_loss(0.0, w_event, rtt) / w_event;
        let mut w = w_event * (1.0 - fb);
        let h = 1e-3;
        let mut tf = 0.0;
        while tf < t - 1e-9 {
            let g = fl.growth(tf, h, &mut w, rtt);
            let d = tf + h / 2.0 - g.tk;
            w += h * ((g.g0 + g.g1 * w) / rtt + g.c3 * d * d);
            tf += h;
        }
        ((win.cwnd, w), (1.0 - ss / w_event, fb))
    }

    /// Every registered variant's packet controller and fluid law agree: the
    /// same decrease factor at a congestion event (within 1e-9), and the
    /// same window after 20 RTTs of congestion avoidance (within 2%: the
    /// packet form grows per ACK, the fluid form continuously). Run from a
    /// window below and one above the high-speed variants' low windows.
    /// A variant without a fluid law must say why (`fluid::check` shows it).
    #[test]
    fn each_variant_packet_and_fluid_laws_agree() {
        let empty = serde_json::Map::new();
        for name in variant_names() {
            let cfg = CcConfig::from_params(name, &empty).unwrap();
            if let Err(why) = cfg.fluid_law() {
                assert!(why.len() > 20, "{name}: no fluid law and no reason");
                continue;
            }
            for (w_event, rtt) in [(30.0, 0.05), (2000.0, 0.1)] {
                let ((pw, fw), (pb, fb)) = both_forms(&cfg, w_event, 20.0 * rtt, rtt);
                assert!(
                    (pb - fb).abs() < 1e-9,
                    "{name} at {w_event}: decrease {pb} vs {fb}"
                );
                let rel = (pw - fw).abs() / pw;
                assert!(
                    rel < 0.02,
                    "{name} at {w_event}: window {pw} vs {fw} ({rel:.4})"
                );
            }
        }
    }

    /// The fluid H-TCP law and the packet engine's agree: the same increase
    /// per RTT (RTT scaling clamped) and the same backoff, including the 20%
    /// throughput-change rule, for the same epochs.
    #[test]
    fn htcp_law_matches_the_packet_engine() {
        let cfg = HtcpConfig {
            rtt_scaling: true,
            ..HtcpConfig::default()
        };
        let mut pk = Htcp::new(cfg);
        let mut fl = FluidCc::new(&CcConfig::Htcp(cfg)).unwrap();
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
    fn cubic_epoch_restarts_at_beta_w() {
        use crate::tcp::cc::cubic::CubicConfig;
        let mut cc = FluidCc::new(&CcConfig::Cubic(CubicConfig::default())).unwrap();
        cc.start(0.0, 10.0);
        let w = cc.on_loss(1.0, 1000.0, 0.1);
        assert!((w - 700.0).abs() < 1e-9);
        // K = cbrt(300 / 0.4) = 9.0856 s; W_cubic(K) = W_max.
        let mut ww = w;
        let _ = cc.growth(1.0 + 9.085_602_964, 0.001, &mut ww, 0.1);
        assert!((ww - 1000.0).abs() < 1e-3, "{ww}");
    }
}
