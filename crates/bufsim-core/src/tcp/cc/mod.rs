//! Congestion control: one file per variant behind one small trait
//! ([`CongestionControl`]), dispatched through the [`AnyCc`] enum on the hot
//! path (no `Box<dyn>` per flow, as smoltcp's `AnyController`).
//!
//! Each variant is self-contained in its file: the packet engine's
//! controller ([`CongestionControl`]), its parameters with the RFC's or
//! paper's constants as `Default` beside their citations, the reader of its
//! `tcp_params`, and its fluid law ([`FluidLaw`], whose contract
//! [`fluid_law`] holds and the fluid engine integrates), tied together by
//! [`Variant`]. The `variants!` list below is the one registry: it
//! generates [`CcConfig`], [`AnyCc`], [`AnyFluidLaw`] and the name lookup,
//! so adding a variant is one file and one line there.
//!
//! The sender owns loss detection and recovery (RFC 5681/6582/6675/6298);
//! a controller only decides how the window grows on ACKs and how far it
//! falls on a congestion event or a timeout. Windows are in packets (f64).

pub mod aimd;
pub mod bbr;
pub mod cubic;
pub mod dctcp;
pub mod fluid_law;
pub mod highspeed;
pub mod htcp;
pub mod newreno;
pub mod scalable;

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::params::{PErr, Params};
use crate::tcp::rate::{LostSample, RateSample};
use crate::units::SimTime;
use fluid_law::{FluidLaw, Growth};

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
    /// Smallest RTT sample so far, if any (with `rtt_sampling = "ns3"`
    /// the smallest smoothed RTT, ns-3's `m_minRtt`).
    pub min_rtt: Option<SimTime>,
    /// The most recent RTT sample, if any (H-TCP's per-epoch RTTmax; with
    /// `rtt_sampling = "ns3"` the smoothed RTT, ns-3's `m_lastRtt`).
    pub rtt: Option<SimTime>,
    /// The flow counts every acknowledged segment (RFC 3465, `flows[].abc`
    /// true or "uncapped") rather than one per ACK: Reno's congestion
    /// avoidance then grows by `acked / cwnd` per ACK.
    pub abc: bool,
    /// Segment size, bytes (a controller whose mirror counts bytes).
    pub mss_bytes: u32,
}

impl AckInfo {
    /// An ACK of `acked` packets at `now` without RTT information (tests).
    pub fn bare(acked: u64, now: SimTime) -> AckInfo {
        AckInfo {
            acked,
            now,
            srtt: None,
            min_rtt: None,
            rtt: None,
            abc: false,
            mss_bytes: 1500,
        }
    }
}

/// What the sender tells a model-based controller (BBR) on every ACK that
/// delivered data, in or out of loss recovery
/// ([`CongestionControl::on_rate_sample`]).
#[derive(Clone, Copy, Debug)]
pub struct AckSample {
    /// Current simulated time.
    pub now: SimTime,
    /// The delivery-rate sample of this ACK (`tcp::rate`).
    pub rs: RateSample,
    /// Segments in the network after this ACK (RFC 6675 pipe with SACK,
    /// else FlightSize).
    pub inflight: u64,
    /// The sender is in fast recovery or in the loss episode after a timeout.
    pub in_recovery: bool,
    /// The sender is in fast recovery (ns-3's CA_RECOVERY; not after a
    /// timeout).
    pub fast_recovery: bool,
    /// Segments retransmitted so far (each marks a segment the sender
    /// judged lost).
    pub retransmits: u64,
    /// How much the count of segments marked lost changed while this ACK
    /// was processed, either way (ns-3.37's `rs.m_bytesLoss`, in segments:
    /// TcpSocketBase::ReceivedAck passes |GetLost() after ProcessAck -
    /// GetLost() before|, so a repaired loss counts as one); `None`
    /// without a SACK scoreboard.
    pub lost_change: Option<u64>,
    /// The ACK carried ECN-Echo.
    pub ece: bool,
    /// Smoothed RTT, if measured.
    pub srtt: Option<SimTime>,
    /// Segment size, bytes.
    pub mss_bytes: u32,
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

/// Which implementation a controller follows where implementations depart
/// from its specification (`tcp_params.mirror`): one named mode per
/// controller, each departure cited where the controller codes it. A stack
/// profile fills it ([`crate::tcp::stack::Stack::cc_params`]: `stack =
/// "ns3"` gives `"ns-3.37"`); the variants with no such mode do not take
/// the key.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Mirror {
    /// The specification the variant cites (its RFC, draft or paper).
    #[default]
    #[serde(rename = "none")]
    Spec,
    /// ns-3.37's model of the variant (`src/internet/model/tcp-*.cc`).
    #[serde(rename = "ns-3.37")]
    Ns3_37,
    /// Linux's implementation of the variant where it departs from the
    /// specification (BBR v3: google/bbr's `net/ipv4/tcp_bbr.c`, branch
    /// v3); only the variants that code such departures take it
    /// ([`Mirror::read_among`]).
    #[serde(rename = "linux")]
    Linux,
}

impl Mirror {
    /// Every mode, by its scenario name.
    pub const ALL: [(Mirror, &'static str); 3] = [
        (Mirror::Spec, "none"),
        (Mirror::Ns3_37, "ns-3.37"),
        (Mirror::Linux, "linux"),
    ];

    /// The scenario name.
    pub fn name(self) -> &'static str {
        Mirror::ALL
            .iter()
            .find(|(m, _)| *m == self)
            .map_or("none", |&(_, n)| n)
    }

    /// Read `tcp_params.mirror` (default [`Mirror::Spec`]) among `none`
    /// and `ns-3.37`; an unknown name is an error naming the value and the
    /// allowed ones.
    pub fn read(p: &mut Params) -> Result<Mirror, PErr> {
        Mirror::read_among(p, &[Mirror::Spec, Mirror::Ns3_37])
    }

    /// Read `tcp_params.mirror` (default [`Mirror::Spec`]) among the modes
    /// `allowed`; any other name is an error naming the value and the
    /// allowed ones.
    pub fn read_among(p: &mut Params, allowed: &[Mirror]) -> Result<Mirror, PErr> {
        let names = || {
            allowed
                .iter()
                .map(|m| format!("{:?}", m.name()))
                .collect::<Vec<_>>()
                .join(", ")
        };
        match p.value("mirror") {
            None => Ok(Mirror::Spec),
            Some(Value::String(s)) => match allowed.iter().find(|m| m.name() == s) {
                Some(&m) => Ok(m),
                None => Err(("mirror".into(), format!("{:?}: allowed are {}", s, names()))),
            },
            Some(other) => Err(("mirror".into(), format!("{other}: allowed are {}", names()))),
        }
    }

    /// ns-3.37's model.
    #[inline]
    pub fn ns3(self) -> bool {
        self == Mirror::Ns3_37
    }
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

    /// The connection is set up: the SYN-ACK arrived and gave the RTT
    /// estimator its first sample, SRTT `srtt` (not called without a
    /// handshake). Default: nothing.
    fn on_connected(&mut self, w: &Window, srtt: SimTime) {
        let _ = (w, srtt);
    }

    /// ssthresh after a retransmission timeout, given the flight the sender
    /// passes: RFC 5681 section 3.1 eq. (4), max(FlightSize / 2, 2 * SMSS).
    /// A mirror whose model recomputes it by the variant's own cut
    /// overrides this (ns-3.37's TcpSocketBase::ReTxTimeout calls the
    /// variant's GetSsThresh).
    fn timeout_ssthresh(&mut self, w: &Window, flight: f64, now: SimTime) -> f64 {
        let _ = (w, now);
        reno_ssthresh(flight)
    }

    /// A retransmission timeout. Default: ssthresh as
    /// [`Self::timeout_ssthresh`] and cwnd = LW = 1 packet.
    fn on_timeout(&mut self, w: &mut Window, flight: f64, now: SimTime) {
        w.ssthresh = self.timeout_ssthresh(w, flight, now);
        w.cwnd = 1.0;
    }

    /// A timeout inside a loss episode (a fast recovery's or an earlier
    /// timeout's), whose ssthresh the sender keeps: cwnd = LW = 1 packet
    /// (RFC 5681 section 3.1). A controller with per-timeout state resets
    /// it here too.
    fn on_repeated_timeout(&mut self, w: &mut Window) {
        w.cwnd = 1.0;
    }

    /// Every ACK, before the sender acts on it: `acked` segments newly
    /// acknowledged cumulatively (0 for a duplicate), whether it carries
    /// ECE, and snd_una (after the ACK) and snd_nxt. Default: nothing (RFC
    /// 3168 senders react to ECE only through [`Self::on_ece`]).
    #[inline]
    fn on_ecn_ack(&mut self, acked: u64, ece: bool, una: u64, nxt: u64) {
        let _ = (acked, ece, una, nxt);
    }

    /// An ECN-Echo congestion event (at most once per window). Return the
    /// new ssthresh (cwnd follows it). Default: RFC 3168 section 6.1.2,
    /// the same response as to a loss, [`Self::on_congestion_event`].
    #[inline]
    fn on_ece(&mut self, w: &Window, flight: f64, now: SimTime) -> f64 {
        self.on_congestion_event(w, flight, now)
    }

    /// Whether the sender keeps per-segment delivery-rate state for this
    /// controller and calls [`Self::on_rate_sample`] on every delivering
    /// ACK. Default: no (window-based variants).
    fn uses_rate_samples(&self) -> bool {
        false
    }

    /// Whether the controller owns cwnd outright (Linux's `cong_control`
    /// hook, which BBR v1 and v3 implement): the sender's own growth rules,
    /// slow start with its byte counting (RFC 3465, the stack's `abc`),
    /// HyStart++ and [`Self::on_ack`], never reach it. Default: the
    /// controllers that set cwnd in [`Self::on_rate_sample`].
    fn owns_window(&self) -> bool {
        self.uses_rate_samples()
    }

    /// Every ACK that delivered data, in or out of recovery, after the
    /// sender's own window updates and before it sends: a model-based
    /// controller sets cwnd here (it owns cwnd in every state). Called only
    /// when [`Self::uses_rate_samples`]. Default: nothing.
    fn on_rate_sample(&mut self, w: &mut Window, s: &AckSample) {
        let _ = (w, s);
    }

    /// Whether the controller reads each segment the sender marks lost
    /// ([`Self::on_lost_segment`]). Default: no.
    fn reads_lost_segments(&self) -> bool {
        false
    }

    /// The sender marked a segment lost at `now` (a loss event, Linux's
    /// `skb_marked_lost` hook), before it acts on the ACK or timer that
    /// found it: `l` is that segment's send state. Called only when
    /// [`Self::reads_lost_segments`], by a sender whose scoreboard marks
    /// segments one by one (RACK, RFC 8985). Default: nothing.
    fn on_lost_segment(&mut self, w: &mut Window, now: SimTime, l: &LostSample) {
        let _ = (w, now, l);
    }

    /// A segment is about to leave at `now` with nothing in flight: the
    /// transmission-start event of Linux and ns-3 (`CA_EVENT_TX_START`,
    /// raised as the stack's [`crate::tcp::stack::CongControl`] says).
    /// Default: nothing.
    fn on_tx_start(&mut self, w: &mut Window, now: SimTime) {
        let _ = (w, now);
    }

    /// The pacing rate, segments per second: the sender releases
    /// [`Self::send_quantum`] segments per quantum/rate. Default: `None`, not
    /// paced (window-limited bursts).
    fn pacing_rate(&self) -> Option<f64> {
        None
    }

    /// Segments a paced sender releases back to back at one pacing event;
    /// the next event comes quantum / [`Self::pacing_rate`] later. Default 1.
    fn send_quantum(&self) -> u32 {
        1
    }
}

/// A long-lived flow's congestion epoch: the steady-state time from one
/// window cut to the next (one sawtooth), which sets how long a packet run
/// must warm up and measure (`bufsim.timescales`, advise's run lengths).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Epoch {
    /// Its length, seconds.
    pub seconds: f64,
    /// Its length in round trips (NaN for a law not counted in RTTs).
    pub rtts: f64,
    /// The law that gives it, in words, with its citation.
    pub law: &'static str,
}

impl Epoch {
    /// An epoch of `rtts` round trips of `rtt_s` seconds.
    pub fn of_rtts(rtts: f64, rtt_s: f64, law: &'static str) -> Epoch {
        Epoch {
            seconds: rtts * rtt_s,
            rtts,
            law,
        }
    }

    /// An upper bound for a variant that halves at its first cut and then
    /// regains at least one packet per RTT: Reno's W/2 RTTs (RFC 5681
    /// section 3.1).
    pub fn at_most_halving(window_pkts: f64, rtt_s: f64) -> Epoch {
        Epoch::of_rtts(
            window_pkts / 2.0,
            rtt_s,
            "at most Reno's W/2 RTTs (a first cut halves, RFC 5681 section 3.1)",
        )
    }
}

/// One congestion-control variant, self-contained in its file.
pub trait Variant: CongestionControl + Sized {
    /// The names a scenario's `tcp` may give; the first is the canonical one
    /// (the normalized scenario's `tcp`).
    const NAMES: &'static [&'static str];
    /// Whether the fluid law has the rate form of paper 004 eq. (1)
    /// (`fluid.decrease = "rate"`: dW/dt = -b(W) W lambda); a law whose
    /// decrease is a state change at an event (CUBIC's epoch, H-TCP's
    /// adaptive backoff) has none.
    const RATE_FORM: bool = true;
    /// Whether the variant needs ECN with a per-packet echo (RFC 8257
    /// section 3.2: ECE on exactly the ACKs of CE packets) instead of RFC
    /// 3168's sticky ECE: its flows default to `ecn = true` and refuse
    /// `ecn = false`, and their receivers echo each mark.
    const ECN_PER_PACKET: bool = false;
    /// Whether the variant's model counts the segments each ACK delivers by
    /// SACK (delivery-rate samples, draft-cheng-iccrg-delivery-rate-estimation
    /// section 3.3): its flows refuse `sack = false`. (Linux without SACK
    /// counts each duplicate ACK as one delivered segment, `tcp_add_reno_sack`;
    /// bufsim does not emulate that, and such a sender's samples would
    /// stop in every recovery.)
    const NEEDS_SACK: bool = false;
    /// Parameters; `Default` holds the cited constants.
    type Config: Copy + fmt::Debug + PartialEq + Default + Serialize + serde::de::DeserializeOwned;
    /// The fluid form of the law.
    type Fluid: FluidLaw;
    /// Read `tcp_params` through `p` (which names a bad key and refuses
    /// unknown ones).
    fn read(p: &mut Params) -> Result<Self::Config, PErr>;
    /// The packet engine's controller.
    fn new(cfg: Self::Config) -> Self;
    /// The fluid engine's law, or why the fluid engine has none (a rate-
    /// or marking-driven sender whose law is not a window ODE of paper 004's
    /// form: `Fluid` is then [`fluid_law::NoFluidLaw`]); `fluid::check` refuses such a
    /// variant with that reason, naming the group's `tcp`.
    fn fluid(cfg: Self::Config) -> Result<Self::Fluid, &'static str>;
    /// The congestion epoch of a long-lived flow at window `window_pkts`
    /// (packets, at least 2) and round trip `rtt_s` (seconds).
    fn epoch(cfg: &Self::Config, window_pkts: f64, rtt_s: f64) -> Epoch;
    /// The implementation the config mirrors (`tcp_params.mirror`).
    /// Default: the specification (a variant with no such mode).
    fn mirror(cfg: &Self::Config) -> Mirror {
        let _ = cfg;
        Mirror::Spec
    }
}

/// Whether the fluid engine models a variant ([`Variant::fluid`]).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "fluid", rename_all = "lowercase")]
pub enum FluidSupport {
    /// It has a fluid law; `rate_form` as [`Variant::RATE_FORM`].
    Law {
        /// Whether the law has paper 004 eq. (1)'s rate form.
        rate_form: bool,
    },
    /// It has none, and why.
    None {
        /// The reason `fluid::check` gives.
        why: &'static str,
    },
}

/// What the registry says of one variant ([`describe_variants`]).
#[derive(Clone, Debug, Serialize)]
pub struct VariantInfo {
    /// The canonical name (the normalized scenario's `tcp`).
    pub name: &'static str,
    /// The other names a scenario's `tcp` may give.
    pub aliases: Vec<&'static str>,
    /// Whether the fluid engine models it.
    #[serde(flatten)]
    pub fluid: FluidSupport,
    /// [`Variant::ECN_PER_PACKET`].
    pub ecn_per_packet: bool,
    /// [`Variant::NEEDS_SACK`].
    pub needs_sack: bool,
    /// Its `tcp_params` with their defaults (the normalized `cc`'s fields).
    pub defaults: Map<String, Value>,
}

/// The registry: one line per variant, `Arm(file::Type)`. The arm's name in
/// lowercase is the `variant` tag of the normalized `cc`.
macro_rules! variants {
    ($($arm:ident($ty:ty)),* $(,)?) => {
        /// A congestion-control variant with its parameters, defaults filled in
        /// (serialized as the normalized scenario's `cc`, and read back from it).
        #[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
        #[serde(tag = "variant", rename_all = "lowercase")]
        pub enum CcConfig {
            $(
                #[doc = concat!("`", stringify!($ty), "`'s parameters.")]
                $arm(<$ty as Variant>::Config),
            )*
        }

        /// Every variant's packet controller, for enum dispatch on the hot path.
        pub enum AnyCc {
            $(
                #[doc = concat!("`", stringify!($ty), "`.")]
                $arm($ty),
            )*
        }

        /// Every variant's fluid law, for enum dispatch.
        #[derive(Clone, Debug)]
        pub enum AnyFluidLaw {
            $(
                #[doc = concat!("`", stringify!($ty), "`'s fluid law.")]
                $arm(<$ty as Variant>::Fluid),
            )*
        }

        impl AnyCc {
            /// The packet engine's controller for a config.
            pub fn new(cfg: &CcConfig) -> AnyCc {
                match *cfg { $(CcConfig::$arm(c) => AnyCc::$arm(<$ty as Variant>::new(c)),)* }
            }
            /// See [`CongestionControl::on_ack`].
            #[inline]
            pub fn on_ack(&mut self, w: &mut Window, ack: &AckInfo) {
                match self { $(AnyCc::$arm(c) => c.on_ack(w, ack),)* }
            }
            /// See [`CongestionControl::on_congestion_event`].
            #[inline]
            pub fn on_congestion_event(&mut self, w: &Window, flight: f64, now: SimTime) -> f64 {
                match self { $(AnyCc::$arm(c) => c.on_congestion_event(w, flight, now),)* }
            }
            /// See [`CongestionControl::on_ecn_ack`].
            #[inline]
            pub fn on_ecn_ack(&mut self, acked: u64, ece: bool, una: u64, nxt: u64) {
                match self { $(AnyCc::$arm(c) => c.on_ecn_ack(acked, ece, una, nxt),)* }
            }
            /// See [`CongestionControl::on_ece`].
            #[inline]
            pub fn on_ece(&mut self, w: &Window, flight: f64, now: SimTime) -> f64 {
                match self { $(AnyCc::$arm(c) => c.on_ece(w, flight, now),)* }
            }
            /// See [`CongestionControl::on_timeout`].
            #[inline]
            pub fn on_timeout(&mut self, w: &mut Window, flight: f64, now: SimTime) {
                match self { $(AnyCc::$arm(c) => c.on_timeout(w, flight, now),)* }
            }
            /// See [`CongestionControl::on_repeated_timeout`].
            #[inline]
            pub fn on_repeated_timeout(&mut self, w: &mut Window) {
                match self { $(AnyCc::$arm(c) => c.on_repeated_timeout(w),)* }
            }
            /// See [`CongestionControl::on_connected`].
            #[inline]
            pub fn on_connected(&mut self, w: &Window, srtt: SimTime) {
                match self { $(AnyCc::$arm(c) => c.on_connected(w, srtt),)* }
            }
            /// See [`CongestionControl::uses_rate_samples`].
            #[inline]
            pub fn uses_rate_samples(&self) -> bool {
                match self { $(AnyCc::$arm(c) => c.uses_rate_samples(),)* }
            }
            /// See [`CongestionControl::owns_window`].
            #[inline]
            pub fn owns_window(&self) -> bool {
                match self { $(AnyCc::$arm(c) => c.owns_window(),)* }
            }
            /// See [`CongestionControl::on_rate_sample`].
            #[inline]
            pub fn on_rate_sample(&mut self, w: &mut Window, s: &AckSample) {
                match self { $(AnyCc::$arm(c) => c.on_rate_sample(w, s),)* }
            }
            /// See [`CongestionControl::reads_lost_segments`].
            pub fn reads_lost_segments(&self) -> bool {
                match self { $(AnyCc::$arm(c) => c.reads_lost_segments(),)* }
            }
            /// See [`CongestionControl::on_lost_segment`].
            pub fn on_lost_segment(&mut self, w: &mut Window, now: SimTime, l: &LostSample) {
                match self { $(AnyCc::$arm(c) => c.on_lost_segment(w, now, l),)* }
            }
            /// See [`CongestionControl::on_tx_start`].
            pub fn on_tx_start(&mut self, w: &mut Window, now: SimTime) {
                match self { $(AnyCc::$arm(c) => c.on_tx_start(w, now),)* }
            }
            /// See [`CongestionControl::pacing_rate`].
            #[inline]
            pub fn pacing_rate(&self) -> Option<f64> {
                match self { $(AnyCc::$arm(c) => c.pacing_rate(),)* }
            }
            /// See [`CongestionControl::send_quantum`].
            #[inline]
            pub fn send_quantum(&self) -> u32 {
                match self { $(AnyCc::$arm(c) => c.send_quantum(),)* }
            }
        }

        impl FluidLaw for AnyFluidLaw {
            #[inline]
            fn start(&mut self, t: f64, w: f64) {
                match self { $(AnyFluidLaw::$arm(c) => c.start(t, w),)* }
            }
            #[inline]
            fn growth(&mut self, t: f64, h: f64, w: &mut f64, rtt: f64) -> Growth {
                match self { $(AnyFluidLaw::$arm(c) => c.growth(t, h, w, rtt),)* }
            }
            #[inline]
            fn decrease_fraction(&mut self, w: f64) -> f64 {
                match self { $(AnyFluidLaw::$arm(c) => c.decrease_fraction(w),)* }
            }
            #[inline]
            fn on_loss(&mut self, t: f64, w: f64, rtt_min: f64) -> f64 {
                match self { $(AnyFluidLaw::$arm(c) => c.on_loss(t, w, rtt_min),)* }
            }
        }

        /// What the registry says of every variant, in registry order
        /// (`bufsim._core.variants()`): what Python, the docs and the error
        /// messages know of a variant, they read from here.
        pub fn describe_variants() -> Vec<VariantInfo> {
            vec![$(VariantInfo {
                name: <$ty as Variant>::NAMES[0],
                aliases: <$ty as Variant>::NAMES[1..].to_vec(),
                fluid: <$ty as Variant>::fluid(Default::default()).err().map_or(
                    FluidSupport::Law { rate_form: <$ty as Variant>::RATE_FORM },
                    |why| FluidSupport::None { why },
                ),
                ecn_per_packet: <$ty as Variant>::ECN_PER_PACKET,
                needs_sack: <$ty as Variant>::NEEDS_SACK,
                defaults: match serde_json::to_value(<$ty as Variant>::Config::default()) {
                    Ok(Value::Object(m)) => m,
                    _ => Map::new(),
                },
            }),*]
        }

        /// Every name a scenario's `tcp` may give, canonical names first in
        /// registry order.
        pub fn variant_names() -> Vec<&'static str> {
            let mut v = Vec::new();
            $(v.extend_from_slice(<$ty as Variant>::NAMES);)*
            v
        }

        /// Every name of the variants the fluid engine models (with their
        /// default parameters), in registry order.
        pub fn fluid_variants() -> Vec<&'static str> {
            names_where(|fluid, _| fluid)
        }

        /// The fluid variants whose law has the rate form of paper 004 eq.
        /// (1) ([`Variant::RATE_FORM`]), every name, in registry order.
        pub fn rate_form_variants() -> Vec<&'static str> {
            names_where(|fluid, rate_form| fluid && rate_form)
        }

        /// Every name of the variants for which `keep(has a fluid law,
        /// RATE_FORM)` holds, in registry order.
        fn names_where(keep: impl Fn(bool, bool) -> bool) -> Vec<&'static str> {
            let mut v = Vec::new();
            $(if keep(
                <$ty as Variant>::fluid(Default::default()).is_ok(),
                <$ty as Variant>::RATE_FORM,
            ) {
                v.extend_from_slice(<$ty as Variant>::NAMES);
            })*
            v
        }

        impl CcConfig {
            /// Build the config of variant `name` from its `tcp_params`; on
            /// error, returns `(key, message)` (the key is empty when the name
            /// is unknown).
            pub fn from_params(name: &str, params: &Map<String, Value>) -> Result<CcConfig, PErr> {
                let mut p = Params::new(params);
                let cfg = $(
                    if <$ty as Variant>::NAMES.contains(&name) {
                        CcConfig::$arm(<$ty as Variant>::read(&mut p)?)
                    } else
                )* {
                    return Err((
                        String::new(),
                        format!(
                            "unknown TCP variant {name:?}: allowed are {}",
                            variant_names().join(", ")
                        ),
                    ));
                };
                p.finish(name)?;
                Ok(cfg)
            }

            /// The canonical name (the normalized scenario's `tcp`).
            pub fn name(&self) -> &'static str {
                match self { $(CcConfig::$arm(_) => <$ty as Variant>::NAMES[0],)* }
            }

            /// Whether the fluid law has a rate form ([`Variant::RATE_FORM`]).
            pub fn has_rate_form(&self) -> bool {
                match self { $(CcConfig::$arm(_) => <$ty as Variant>::RATE_FORM,)* }
            }


            /// Whether the variant needs ECN with a per-packet echo
            /// ([`Variant::ECN_PER_PACKET`]).
            pub fn ecn_per_packet(&self) -> bool {
                match self { $(CcConfig::$arm(_) => <$ty as Variant>::ECN_PER_PACKET,)* }
            }

            /// Whether the variant needs SACK ([`Variant::NEEDS_SACK`]).
            pub fn needs_sack(&self) -> bool {
                match self { $(CcConfig::$arm(_) => <$ty as Variant>::NEEDS_SACK,)* }
            }

            /// The implementation the config mirrors ([`Variant::mirror`]).
            pub fn mirror(&self) -> Mirror {
                match self { $(CcConfig::$arm(c) => <$ty as Variant>::mirror(c),)* }
            }

            /// The congestion epoch at a window and round trip ([`Variant::epoch`]).
            pub fn epoch(&self, window_pkts: f64, rtt_s: f64) -> Epoch {
                let w = window_pkts.max(2.0);
                match self { $(CcConfig::$arm(c) => <$ty as Variant>::epoch(c, w, rtt_s),)* }
            }

            /// The fluid engine's law, or why it has none ([`Variant::fluid`]).
            pub fn fluid_law(&self) -> Result<AnyFluidLaw, &'static str> {
                match *self {
                    $(CcConfig::$arm(c) => <$ty as Variant>::fluid(c).map(AnyFluidLaw::$arm),)*
                }
            }
        }
    };
}

variants! {
    NewReno(newreno::NewReno),
    Aimd(aimd::Aimd),
    HighSpeed(highspeed::HighSpeed),
    Scalable(scalable::Scalable),
    Cubic(cubic::Cubic),
    Htcp(htcp::Htcp),
    Dctcp(dctcp::Dctcp),
    Bbr(bbr::Bbr),
}

/// Serialize a group's variant as the normalized scenario's `tcp` (the
/// canonical name) and `cc` (the variant and its parameters).
pub fn ser_tcp_and_cc<S: serde::Serializer>(cc: &CcConfig, s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut m = s.serialize_map(Some(2))?;
    m.serialize_entry("tcp", cc.name())?;
    m.serialize_entry("cc", cc)?;
    m.end()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_reads_back_its_normalized_cc() {
        // advise's time scales read a group's normalized `cc` back into the
        // variant's config (`congestion_epoch`): every registered variant
        // must survive the round trip unchanged.
        for name in variant_names() {
            let cfg = CcConfig::from_params(name, &Map::new()).unwrap();
            let text = serde_json::to_string(&cfg).unwrap();
            let back: CcConfig = serde_json::from_str(&text).unwrap();
            assert_eq!(back, cfg, "{name}: {text}");
        }
    }

    #[test]
    fn a_mirror_is_one_named_mode() {
        let read = |v: Value| {
            let mut m = Map::new();
            m.insert("mirror".into(), v);
            Mirror::read(&mut Params::new(&m))
        };
        assert_eq!(read(Value::from("ns-3.37")), Ok(Mirror::Ns3_37));
        assert_eq!(read(Value::from("none")), Ok(Mirror::Spec));
        assert_eq!(
            read(Value::from("ns-3.36")),
            Err((
                "mirror".to_string(),
                r#""ns-3.36": allowed are "none", "ns-3.37""#.to_string()
            ))
        );
        assert_eq!(Mirror::Ns3_37.name(), "ns-3.37");
        // The variants without a mode refuse the key.
        let mut m = Map::new();
        m.insert("mirror".into(), Value::from("ns-3.37"));
        for name in ["newreno", "aimd", "dctcp"] {
            assert_eq!(CcConfig::from_params(name, &m).unwrap_err().0, "mirror");
        }
        for name in ["cubic", "highspeed", "scalable", "htcp", "bbr"] {
            let cfg = CcConfig::from_params(name, &m).unwrap();
            assert_eq!(cfg.mirror(), Mirror::Ns3_37, "{name}");
        }
    }

    #[test]
    fn epochs_follow_each_law() {
        let epoch = |name: &str, w: f64| {
            CcConfig::from_params(name, &Map::new())
                .unwrap()
                .epoch(w, 0.1)
        };
        // Reno: W/2 RTTs; W = 125 -> 62.5 RTTs = 6.25 s at 100 ms.
        let e = epoch("newreno", 125.0);
        assert_eq!((e.rtts, e.seconds), (62.5, 6.25));
        // CUBIC: K = cbrt(2500 x 0.3 / 0.4) = cbrt(1875) = 12.3311 s.
        assert!((epoch("cubic", 2500.0).seconds - 12.3311).abs() < 1e-4);
        // Scalable: ln(1/0.875) / ln(1.01) = 0.133531 / 0.00995033 = 13.4198
        // RTTs at any window.
        let e = epoch("scalable", 1e4);
        assert!((e.rtts - 13.4198).abs() < 1e-4 && (e.seconds - 1.34198).abs() < 1e-5);
        // HighSpeed at W = 38 (Low_Window) is Reno: b = 0.5, a = 1, W/2 RTTs.
        assert!((epoch("highspeed", 38.0).rtts - 19.0).abs() < 1e-9);
        // BBR: the 10 s RTprop window; AIMD(1, 0.5) as Reno; windows below 2
        // count as 2.
        assert_eq!(epoch("bbr", 50.0).seconds, 10.0);
        assert_eq!(epoch("aimd", 125.0).rtts, 62.5);
        assert_eq!(epoch("newreno", 0.5).rtts, 1.0);
    }
}

/// A variant that exists only in this test, registered through the same
/// `variants!` line as the real ones: everything Python, the docs and the
/// error messages know of a variant comes from the functions the registry
/// generates, so this checks that a new variant's file and registry line
/// are all it takes.
// The registry's generated items this test does not call are still built.
#[cfg(test)]
#[allow(dead_code)]
mod throwaway {
    use super::fluid_law::NoFluidLaw;
    use super::*;

    /// The throwaway's one parameter.
    #[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
    pub struct GainConfig {
        /// Packets added per RTT.
        pub gain: f64,
    }

    impl Default for GainConfig {
        fn default() -> Self {
            GainConfig { gain: 2.0 }
        }
    }

    /// AIMD(gain, 1/2), with no fluid law.
    #[derive(Clone, Copy, Debug)]
    pub struct Throwaway(GainConfig);

    impl Variant for Throwaway {
        const NAMES: &'static [&'static str] = &["throwaway", "tw"];
        type Config = GainConfig;
        type Fluid = NoFluidLaw;
        fn read(p: &mut Params) -> Result<GainConfig, PErr> {
            Ok(GainConfig {
                gain: p.num("gain", GainConfig::default().gain, 0.1, 100.0)?,
            })
        }
        fn new(cfg: GainConfig) -> Throwaway {
            Throwaway(cfg)
        }
        fn fluid(_cfg: GainConfig) -> Result<NoFluidLaw, &'static str> {
            Err("a throwaway has no fluid law")
        }
        fn epoch(cfg: &GainConfig, window_pkts: f64, rtt_s: f64) -> Epoch {
            Epoch::of_rtts(window_pkts / 2.0 / cfg.gain, rtt_s, "W/(2 gain) RTTs")
        }
    }

    impl CongestionControl for Throwaway {
        fn on_ack(&mut self, w: &mut Window, ack: &AckInfo) {
            if !slow_start(w, ack.acked) {
                w.cwnd += self.0.gain / w.cwnd;
            }
        }
        fn on_congestion_event(&mut self, _w: &Window, flight: f64, _now: SimTime) -> f64 {
            reno_ssthresh(flight)
        }
    }

    variants! {
        NewReno(newreno::NewReno),
        Throwaway(Throwaway),
    }

    #[test]
    fn a_new_variant_is_known_everywhere_from_its_registry_line() {
        // The names a scenario may give (Python's TCP_VARIANTS, the docs'
        // list) and the description Python reads (`_core.variants()`).
        assert_eq!(variant_names(), ["newreno", "reno", "throwaway", "tw"]);
        let info = describe_variants();
        let tw = info.iter().find(|v| v.name == "throwaway").unwrap();
        assert_eq!(tw.aliases, ["tw"]);
        assert_eq!(tw.defaults.get("gain"), Some(&Value::from(2.0)));
        assert_eq!(
            tw.fluid,
            FluidSupport::None {
                why: "a throwaway has no fluid law"
            }
        );
        // The fluid engine's lists leave it out.
        assert_eq!(fluid_variants(), ["newreno", "reno"]);
        // An unknown name's error lists it.
        let (_, msg) = CcConfig::from_params("bogus", &Map::new()).unwrap_err();
        assert!(
            msg.ends_with("allowed are newreno, reno, throwaway, tw"),
            "{msg}"
        );
        // Its parameters are read, refused out of range, and normalized.
        let mut p = Map::new();
        p.insert("gain".into(), Value::from(4.0));
        let cfg = CcConfig::from_params("tw", &p).unwrap();
        assert_eq!(cfg.name(), "throwaway");
        p.insert("gain".into(), Value::from(1000.0));
        assert!(CcConfig::from_params("throwaway", &p).is_err());
        // The run length advise picks (`_core.congestion_epoch`, Python's
        // time scales) follows its law: W = 100 at 4 packets per RTT.
        let e = cfg.epoch(100.0, 0.05);
        assert_eq!((e.rtts, e.seconds, e.law), (12.5, 0.625, "W/(2 gain) RTTs"));
        // And the packet engine's controller is its own.
        let mut cc = AnyCc::new(&cfg);
        let mut w = Window {
            cwnd: 10.0,
            ssthresh: 5.0,
        };
        cc.on_ack(&mut w, &AckInfo::bare(1, SimTime::ZERO));
        assert_eq!(w.cwnd, 10.4);
    }
}
