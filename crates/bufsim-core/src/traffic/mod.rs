//! Traffic: how TCP transfers come and go.
//!
//! A flow group (`[[flows]]`) is one of four kinds ([`Kind`]):
//!
//! * **persistent**: `count` flows without `size`, each sending forever from
//!   its start time (the long-lived flows of papers 001, 003 and 004);
//! * **finite**: `count` flows with a `size`, each one transfer from its start;
//! * **open loop**: `arrival = {rate = "20/s"}` or `{load = 0.95}`: Poisson
//!   flow arrivals independent of the network state (paper 002 section 3.5,
//!   paper 000 section III). `load` is the offered load `lambda E[S] / C`
//!   with `E[S]` the mean of the rounded size in bytes on the wire
//!   (`mss` per packet); retransmissions are not offered load. With
//!   `burst = N` each arrival brings N transfers at once (an incast: N
//!   senders to the receivers behind the bottleneck), and `rate` counts
//!   those arrivals; `{every = "10ms", burst = N}` repeats the incast
//!   periodically instead of at Poisson epochs;
//! * **closed loop**: `users = U` with `think`: each user starts a transfer,
//!   waits for it to complete, thinks, and starts the next (paper 002
//!   section 3.5). Users begin with a think time, so their first starts are
//!   spread out rather than synchronized at time 0.
//!
//! Transfers draw their size ([`size::SizeDist`]) and their RTT ([`RttDraw`])
//! when they start, from the group's own stream
//! `rng::stream(seed, Stream::Traffic(group))`; arrival gaps and think times
//! come from the same stream, in event order, so a run is repeatable.
//!
//! A transfer is *active* from its arrival (including the optional
//! connection setup, `connection_setup = true`: its SYN's round trip, and
//! any SYN timeouts, before its first data packet) until the sender receives the ACK of its last packet; its
//! completion time is that interval.
//!
//! Overload: an open-loop group holds at most `max_active` transfers
//! (default [`DEFAULT_MAX_ACTIVE`]); an arrival that finds the group full is
//! refused and counted (`flows_refused` and `overload` in the summary; the
//! Python front warns). With offered load above capacity the number of
//! active flows grows without bound otherwise (paper 000 section III.C, the
//! "overload" regime).

pub mod size;
pub mod tree;

use rand::RngExt;
use serde::Serialize;
use serde_json::Value;

use crate::engine::rng::{Rng, Stream, stream};
use crate::units::{self, SimTime};
use size::SizeDist;

/// Default cap on the simultaneously active transfers of an open-loop group.
pub const DEFAULT_MAX_ACTIVE: u32 = 100_000;

/// How a group's transfers come and go.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// `count` flows sending forever.
    Persistent,
    /// `count` transfers of a drawn size, one per flow.
    Finite,
    /// Poisson arrivals.
    Open,
    /// `users` users alternating transfers and think times.
    Closed,
}

/// How a new transfer's round-trip propagation delay is chosen.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RttDraw {
    /// Always this RTT.
    Fixed(#[serde(serialize_with = "units::ser_secs")] SimTime),
    /// Uniformly one of these (an RTT list, or the tree's source nodes).
    Choice(#[serde(serialize_with = "units::ser_secs_vec")] Vec<SimTime>),
    /// Uniform in `[a, b]` (`{uniform = [a, b]}` or `{min = a, max = b}`).
    Uniform(
        #[serde(serialize_with = "units::ser_secs")] SimTime,
        #[serde(serialize_with = "units::ser_secs")] SimTime,
    ),
}

impl RttDraw {
    /// Draw one RTT.
    pub fn draw(&self, rng: &mut Rng) -> SimTime {
        match self {
            RttDraw::Fixed(t) => *t,
            RttDraw::Choice(v) => v[rng.random_range(0..v.len())],
            RttDraw::Uniform(a, b) => SimTime(rng.random_range(a.0..=b.0)),
        }
    }
    /// Every RTT the draw can return (for `Uniform`, its ends).
    pub fn support(&self) -> Vec<SimTime> {
        match self {
            RttDraw::Fixed(t) => vec![*t],
            RttDraw::Choice(v) => v.clone(),
            RttDraw::Uniform(a, b) => vec![*a, *b],
        }
    }
    /// Harmonic mean of the drawn RTT, seconds (paper 002's effective RTT).
    pub fn harmonic_mean_s(&self) -> f64 {
        match self {
            RttDraw::Fixed(t) => t.as_secs_f64(),
            RttDraw::Choice(v) => {
                tree::harmonic_mean(&v.iter().map(|t| t.as_secs_f64()).collect::<Vec<_>>())
            }
            //= 1 / E[1/R] for R uniform on [a, b]: (b - a) / ln(b / a).
            RttDraw::Uniform(a, b) => {
                let (a, b) = (a.as_secs_f64(), b.as_secs_f64());
                if b > a { (b - a) / (b / a).ln() } else { a }
            }
        }
    }
}

/// Think time of a closed-loop user.
#[derive(Clone, Copy, Debug, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ThinkDist {
    /// Exponential with this mean (the default law: `think = "5s"`).
    Exponential(#[serde(serialize_with = "units::ser_secs")] SimTime),
    /// Always this long (`think = {fixed = "5s"}`).
    Fixed(#[serde(serialize_with = "units::ser_secs")] SimTime),
}

impl ThinkDist {
    /// Parse `think`: `"5s"` or `{exponential = "5s"}` (exponential) or `{fixed = "5s"}`.
    pub fn parse(v: &Value) -> Result<ThinkDist, String> {
        let shape =
            "a mean think time \"5s\" (exponential), {exponential = \"5s\"} or {fixed = \"5s\"}";
        let d = |x: &Value| match x {
            Value::String(s) => units::parse_duration(s).map_err(|e| e.0),
            o => Err(format!("expected {shape}, got {o}")),
        };
        match v {
            Value::String(_) => d(v).map(ThinkDist::Exponential),
            Value::Object(m) if m.len() == 1 => {
                let (k, x) = m.iter().next().expect("one key");
                match k.as_str() {
                    "exponential" => d(x).map(ThinkDist::Exponential),
                    "fixed" => d(x).map(ThinkDist::Fixed),
                    _ => Err(format!("unknown think law {k:?}: expected {shape}")),
                }
            }
            o => Err(format!("expected {shape}, got {o}")),
        }
    }
    /// Mean think time, seconds.
    pub fn mean_s(&self) -> f64 {
        match self {
            ThinkDist::Exponential(t) | ThinkDist::Fixed(t) => t.as_secs_f64(),
        }
    }
    fn draw(&self, rng: &mut Rng) -> SimTime {
        match self {
            ThinkDist::Fixed(t) => *t,
            ThinkDist::Exponential(t) => {
                SimTime::from_secs_f64(-t.as_secs_f64() * (1.0 - rng.random::<f64>()).ln())
            }
        }
    }
}

/// When an open-loop group's arrivals come.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Epochs {
    /// Poisson, this many arrivals per second.
    Rate(f64),
    /// Poisson, at the rate that offers this load (a fraction of the
    /// bottleneck capacity).
    Load(f64),
    /// One arrival every this long, the first one period after `start`.
    Every(SimTime),
}

/// An open-loop arrival process as written: its epochs and the transfers
/// each one brings (`burst`, 1 unless an incast).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Arrival {
    /// When arrivals come.
    pub epochs: Epochs,
    /// Transfers starting together at each arrival.
    pub burst: u32,
}

/// Largest `burst` of an arrival.
pub const MAX_BURST: u32 = 100_000;

impl Arrival {
    /// Parse `arrival`: one of `rate = "20/s"`, `load = 0.95` or
    /// `every = "10ms"`, and optionally `burst = N`.
    pub fn parse(v: &Value) -> Result<Arrival, String> {
        let shape = "{rate = \"20/s\"} (arrivals per second; also /ms, /min, /h), {load = 0.95} (a fraction of link.capacity) or {every = \"10ms\"} (periodic), each with an optional burst = N (transfers per arrival: an incast)";
        let m = match v {
            Value::Object(m) => m,
            o => return Err(format!("expected {shape}, got {o}")),
        };
        let burst = match m.get("burst") {
            None => 1,
            Some(b) => match b.as_u64() {
                Some(n) if (1..=MAX_BURST as u64).contains(&n) => n as u32,
                _ => {
                    return Err(format!(
                        "burst: must be a whole number of transfers from 1 to {MAX_BURST}, got {b}"
                    ));
                }
            },
        };
        let keys: Vec<(&String, &Value)> = m.iter().filter(|(k, _)| *k != "burst").collect();
        let [(k, x)] = keys[..] else {
            return Err(format!(
                "expected exactly one of rate, load or every: {shape}, got {v}"
            ));
        };
        let epochs = match k.as_str() {
            "rate" => {
                let s = x
                    .as_str()
                    .ok_or_else(|| format!("rate: expected a string such as \"20/s\", got {x}"))?;
                let (num, per) = s
                    .split_once('/')
                    .ok_or_else(|| format!("rate: {s:?} has no \"/s\": expected e.g. \"20/s\""))?;
                let secs = match per.trim() {
                    "s" => 1.0,
                    "ms" => 1e-3,
                    "min" => 60.0,
                    "h" => 3600.0,
                    u => {
                        return Err(format!(
                            "rate: unknown time unit {u:?} in {s:?}: allowed are /s, /ms, /min, /h"
                        ));
                    }
                };
                let n: f64 = num
                    .trim()
                    .parse()
                    .map_err(|_| format!("rate: {s:?}: expected a number before the \"/\""))?;
                if !(n.is_finite() && n > 0.0) {
                    return Err(format!("rate: must be > 0, got {s:?}"));
                }
                Epochs::Rate(n / secs)
            }
            "load" => {
                let l = x.as_f64().ok_or_else(|| {
                    format!("load: expected a number (fraction of capacity), got {x}")
                })?;
                if !(l > 0.0 && l <= 10.0) {
                    return Err(format!(
                        "load: must be in (0, 10] (a fraction of link.capacity), got {l}"
                    ));
                }
                Epochs::Load(l)
            }
            "every" => {
                let t = match x {
                    Value::String(s) => {
                        units::parse_duration(s).map_err(|e| format!("every: {}", e.0))?
                    }
                    o => {
                        return Err(format!(
                            "every: expected a duration such as \"10ms\", got {o}"
                        ));
                    }
                };
                if t == SimTime::ZERO {
                    return Err("every: must be > 0s".into());
                }
                Epochs::Every(t)
            }
            _ => return Err(format!("unknown key {k:?}: expected {shape}")),
        };
        Ok(Arrival { epochs, burst })
    }
}

/// The random draws of one flow group during a run.
pub struct GroupTraffic {
    rng: Rng,
    size: Option<SizeDist>,
    rtt: RttDraw,
    think: Option<ThinkDist>,
    /// Mean gap between arrivals, seconds (open loop).
    gap_s: f64,
    /// The fixed gap of periodic arrivals (`every`), if so.
    every: Option<SimTime>,
}

impl GroupTraffic {
    /// The generator of group `g` of a run with seed `seed`.
    /// `epoch_rate`: arrivals per second (each one `burst` transfers);
    /// `every`: their fixed period instead of Poisson gaps.
    pub fn new(
        seed: u64,
        g: u32,
        size: Option<SizeDist>,
        rtt: RttDraw,
        think: Option<ThinkDist>,
        epoch_rate: Option<f64>,
        every: Option<SimTime>,
    ) -> Self {
        GroupTraffic {
            rng: stream(seed, Stream::Traffic(g)),
            size,
            rtt,
            think,
            gap_s: epoch_rate.map_or(f64::INFINITY, |r| 1.0 / r),
            every,
        }
    }
    /// A transfer size, packets (`u64::MAX` for a group without sizes).
    pub fn size(&mut self) -> u64 {
        match &self.size {
            Some(d) => d.draw(&mut self.rng),
            None => u64::MAX,
        }
    }
    /// A transfer's RTT.
    pub fn rtt(&mut self) -> SimTime {
        self.rtt.draw(&mut self.rng)
    }
    /// Time to the next arrival: the period of periodic arrivals, else an
    /// exponential gap (at least 1 ps, so time moves on).
    pub fn gap(&mut self) -> SimTime {
        if let Some(t) = self.every {
            return t;
        }
        SimTime::from_secs_f64(-self.gap_s * (1.0 - self.rng.random::<f64>()).ln()).max(SimTime(1))
    }
    /// A think time.
    pub fn think(&mut self) -> SimTime {
        match self.think {
            Some(t) => t.draw(&mut self.rng),
            None => SimTime::ZERO,
        }
    }
}
