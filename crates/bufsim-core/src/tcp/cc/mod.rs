//! Congestion control: one file per variant behind one small trait
//! ([`CongestionControl`]), dispatched through the [`AnyCc`] enum on the hot
//! path (no `Box<dyn>` per flow, as smoltcp's `AnyController`).
//!
//! The sender owns loss detection and recovery (RFC 5681/6582/6675/6298);
//! a controller only decides how the window grows on ACKs and how far it
//! falls on a congestion event or a timeout. Windows are in packets (f64).

pub mod config;
pub mod newreno;

use crate::units::SimTime;
use config::CcConfig;

/// The window state a controller reads and writes (packets).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Window {
    /// Congestion window, packets.
    pub cwnd: f64,
    /// Slow-start threshold, packets.
    pub ssthresh: f64,
}

/// What the sender tells a controller about an ACK that advanced the window.
#[derive(Clone, Copy, Debug)]
pub struct AckInfo {
    /// Newly acknowledged packets (cumulative), >= 1.
    pub acked: u64,
    /// Current simulated time.
    pub now: SimTime,
    /// Smoothed RTT estimate, if one exists.
    pub srtt: Option<SimTime>,
    /// Smallest RTT seen so far, if any.
    pub min_rtt: Option<SimTime>,
    /// Largest RTT seen so far, if any.
    pub max_rtt: Option<SimTime>,
}

/// A congestion-control algorithm. Hooks have default bodies where Reno's
/// behaviour is the natural default.
pub trait CongestionControl {
    /// An ACK advanced snd_una outside loss recovery: grow the window.
    fn on_ack(&mut self, w: &mut Window, ack: &AckInfo);

    /// A congestion event detected by duplicate ACKs or SACK (fast retransmit).
    /// Return the new ssthresh in packets given the flight size in packets;
    /// the sender then sets cwnd as its recovery algorithm prescribes.
    fn on_congestion_event(&mut self, w: &Window, flight: f64, now: SimTime) -> f64;

    /// A retransmission timeout. Default: RFC 5681 section 3.1 eq. (4),
    /// ssthresh = max(FlightSize / 2, 2 * SMSS), and cwnd = LW = 1 packet.
    fn on_timeout(&mut self, w: &mut Window, flight: f64, now: SimTime) {
        let _ = now;
        w.ssthresh = (flight / 2.0).max(2.0);
        w.cwnd = 1.0;
    }
}

/// Every variant, for enum dispatch.
pub enum AnyCc {
    /// Reno / NewReno window rules.
    NewReno(newreno::NewReno),
}

impl AnyCc {
    /// The controller for a config.
    pub fn new(cfg: &CcConfig) -> AnyCc {
        match cfg {
            CcConfig::NewReno => AnyCc::NewReno(newreno::NewReno),
            other => unreachable!("packet engine check() refuses {other:?}"),
        }
    }

    #[inline]
    fn inner_mut(&mut self) -> &mut dyn CongestionControl {
        match self {
            AnyCc::NewReno(c) => c,
        }
    }

    /// See [`CongestionControl::on_ack`].
    #[inline]
    pub fn on_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        self.inner_mut().on_ack(w, ack)
    }
    /// See [`CongestionControl::on_congestion_event`].
    #[inline]
    pub fn on_congestion_event(&mut self, w: &Window, flight: f64, now: SimTime) -> f64 {
        self.inner_mut().on_congestion_event(w, flight, now)
    }
    /// See [`CongestionControl::on_timeout`].
    #[inline]
    pub fn on_timeout(&mut self, w: &mut Window, flight: f64, now: SimTime) {
        self.inner_mut().on_timeout(w, flight, now)
    }
}

/// Which variants the packet engine implements.
pub fn packet_engine_supports(cfg: &CcConfig) -> bool {
    matches!(cfg, CcConfig::NewReno)
}
