//! One flow's congestion control in fluid form: [`FluidCc`] runs the slow
//! start every variant shares, then dispatches to the variant's law
//! ([`FluidLaw`], defined beside the packet controllers in
//! [`crate::tcp::cc::fluid_law`], each variant's law in its own file there).
//! The growth it returns follows the form that module documents.

use crate::tcp::cc::fluid_law::{FluidLaw, Growth, MIN_WINDOW};
use crate::tcp::cc::{AnyFluidLaw, CcConfig};

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
