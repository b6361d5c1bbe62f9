//! The fluid form of a variant's law: the contract between a variant's file
//! and the fluid engine's integrator (`fluid::mgt`, through
//! `fluid::cc::FluidCc`, which adds the slow start every variant shares).
//! It lives beside [`super::CongestionControl`] so that a variant's file
//! holds both its forms and the fluid engine depends on `tcp::cc`, never
//! the reverse.
//!
//! Growth is written for a fixed-step integrator as
//! `dW/dt = (g0 + g1 W) / R(t) + c3 (t - tk)^2`, with the coefficients frozen
//! over one step (they change on the time scale of many RTTs): AIMD-like
//! laws use `g0`, multiplicative ones (slow start, Scalable TCP) `g1`, and
//! CUBIC's concave/convex curve `c3`, which RK4 integrates exactly.

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
/// the same for every variant (the fluid engine's `fluid::cc::FluidCc`).
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
    /// [`MIN_WINDOW`] floor, which the fluid engine applies).
    fn on_loss(&mut self, t: f64, w: f64, rtt_min: f64) -> f64;
}

/// The fluid law of a variant the fluid engine does not model
/// ([`super::Variant::fluid`] returns why): it has no values, so no flow
/// can ever hold one.
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
