//! Congestion control: one file per variant behind one small trait
//! ([`CongestionControl`]), dispatched through the [`AnyCc`] enum on the hot
//! path (no `Box<dyn>` per flow, as smoltcp's `AnyController`).
//!
//! The sender owns loss detection and recovery (RFC 5681/6582/6675/6298);
//! a controller only decides how the window grows on ACKs and how far it
//! falls on a congestion event or a timeout. Windows are in packets (f64).

pub mod aimd;
pub mod config;
pub mod cubic;
pub mod highspeed;
pub mod htcp;
pub mod newreno;
pub mod scalable;

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
    /// The most recent RTT sample, if any (H-TCP's per-epoch RTTmax).
    pub rtt: Option<SimTime>,
}

impl AckInfo {
    /// An ACK of `acked` packets at `now` without RTT information (tests).
    pub fn bare(acked: u64, now: SimTime) -> AckInfo {
        AckInfo {
            acked,
            now,
            srtt: None,
            min_rtt: None,
            max_rtt: None,
            rtt: None,
        }
    }
}

/// Standard slow start, shared by every variant: RFC 5681 section 3.1,
/// "cwnd += min (N, SMSS)" for each ACK acknowledging N new bytes (no ABC,
/// RFC 3465 L = 1). Returns true when the window was below ssthresh (the
/// ACK was consumed by slow start).
#[inline]
pub fn slow_start(w: &mut Window, acked: u64) -> bool {
    if w.cwnd < w.ssthresh {
        w.cwnd += (acked as f64).min(1.0);
        true
    } else {
        false
    }
}

/// The smallest ssthresh a congestion event may set, packets:
/// RFC 5681 section 3.1 eq. (4), "max (FlightSize / 2, 2*SMSS)".
pub const MIN_SSTHRESH: f64 = 2.0;

//= RFC 5681 section 3.1 eq. (4): ssthresh = max (FlightSize / 2, 2*SMSS).
/// Standard TCP's ssthresh after a loss, packets, for a flight of `flight` packets.
#[inline]
pub fn reno_ssthresh(flight: f64) -> f64 {
    (flight / 2.0).max(MIN_SSTHRESH)
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
        w.ssthresh = reno_ssthresh(flight);
        w.cwnd = 1.0;
    }
}

/// Static dispatch over [`AnyCc`] (a match, no virtual call).
macro_rules! dispatch {
    ($self:expr, $c:ident => $call:expr) => {
        match $self {
            AnyCc::NewReno($c) => $call,
            AnyCc::Aimd($c) => $call,
            AnyCc::HighSpeed($c) => $call,
            AnyCc::Scalable($c) => $call,
            AnyCc::Cubic($c) => $call,
            AnyCc::Htcp($c) => $call,
        }
    };
}

/// Every variant, for enum dispatch.
pub enum AnyCc {
    /// Reno / NewReno window rules.
    NewReno(newreno::NewReno),
    /// Generic AIMD(a, b).
    Aimd(aimd::Aimd),
    /// HighSpeed TCP (RFC 3649).
    HighSpeed(highspeed::HighSpeed),
    /// Scalable TCP (Kelly 2003).
    Scalable(scalable::Scalable),
    /// CUBIC (RFC 9438).
    Cubic(cubic::Cubic),
    /// H-TCP (draft-leith-tcp-htcp-06).
    Htcp(htcp::Htcp),
}

impl AnyCc {
    /// The controller for a config.
    pub fn new(cfg: &CcConfig) -> AnyCc {
        match cfg {
            CcConfig::NewReno => AnyCc::NewReno(newreno::NewReno),
            CcConfig::Aimd(c) => AnyCc::Aimd(aimd::Aimd::new(*c)),
            CcConfig::HighSpeed(c) => AnyCc::HighSpeed(highspeed::HighSpeed::new(*c)),
            CcConfig::Scalable(c) => AnyCc::Scalable(scalable::Scalable::new(*c)),
            CcConfig::Cubic(c) => AnyCc::Cubic(cubic::Cubic::new(*c)),
            CcConfig::Htcp(c) => AnyCc::Htcp(htcp::Htcp::new(*c)),
        }
    }

    /// See [`CongestionControl::on_ack`].
    #[inline]
    pub fn on_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        dispatch!(self, c => c.on_ack(w, ack))
    }
    /// See [`CongestionControl::on_congestion_event`].
    #[inline]
    pub fn on_congestion_event(&mut self, w: &Window, flight: f64, now: SimTime) -> f64 {
        dispatch!(self, c => c.on_congestion_event(w, flight, now))
    }
    /// See [`CongestionControl::on_timeout`].
    #[inline]
    pub fn on_timeout(&mut self, w: &mut Window, flight: f64, now: SimTime) {
        dispatch!(self, c => c.on_timeout(w, flight, now))
    }
}
