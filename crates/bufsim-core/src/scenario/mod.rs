//! The scenario schema: one typed, validated description of the network
//! (one bottleneck link, two-way over it, a pool of ports or a chain of
//! links), its buffers and queue disciplines, the flows and background
//! traffic crossing it, and the run settings. Every engine (packet, fluid)
//! and the Python models take the same [`Scenario`].
//!
//! Users write a *raw* scenario (TOML or a Python dict, passed here as JSON)
//! with unit strings (`"50Mbps"`, `"100ms"`, `"1500B"`, `"0.2BDP"`).
//! [`Scenario::from_json`] parses it (unknown keys and numbers without units
//! are errors), resolves every unit and per-flow value (RTT lists, ranges,
//! random start times drawn from the seed's `scenario` stream), checks every
//! range and returns the normalized scenario. Errors name the field path, the
//! value and what is allowed ([`ScenarioError`]).
//!
//! The normalized scenario serializes with SI units and `_s`/`_bps`/`_bytes`
//! suffixes; that JSON is what Python sees as `Scenario.normalized`.
//!
//! One file per section of the schema, each holding its resolved types and
//! the resolvers that build them from the raw tables:
//! - `raw`: the serde structs of the schema as users write it (unit-carrying
//!   newtypes, RTT and start specs);
//! - `topology`: links, their buffers, the shared-buffer pool and the
//!   reverse direction;
//! - `flows`: TCP flow groups (RTTs, access links, stack profile, starts);
//! - `traffic`: background sources and a group's transfer sizes, arrivals
//!   and think times;
//! - `output`: what to record, and the early stop;
//! - `fluid`: the fluid engine's settings.
//!
//! This file holds the error type, the [`Scenario`] itself and `resolve`,
//! which takes a raw scenario through the sections in order.

pub mod fabric;
mod flows;
mod fluid;
mod output;
mod raw;
mod topology;
mod traffic;

pub use flows::{DEFAULT_ACCESS_BUFFER_PKTS, Defaulted, FlowGroup, MAX_FLOWS};
pub use fluid::{Decrease, Fluid, FluidModel, SyncPolicy};
pub use output::{Decide, Output, Stop};
pub use topology::{
    BufferMode, Fab, Link, MAX_LINKS, MAX_PORTS, Pool, Reverse, Topology, Unscheduled,
};
pub use traffic::{Background, BackgroundKind};

use flows::*;
use fluid::*;
use output::*;
use raw::*;
use topology::*;
use traffic::*;

use std::fmt;

use rand::RngExt;
use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

mod classes;

use crate::engine::rng::{Rng, Stream, stream};
use crate::queue::shared::{self, Algorithm};
use crate::queue::{Limit, LinkInfo, Occupancy, QdiscConfig, describe_disciplines};
use crate::tcp::cc::CcConfig;
use crate::tcp::stack::{NamedRule, PrrVariant, SlowStart, Stack, StackDefaults};
use crate::traffic::size::SizeDist;
use crate::traffic::tree::{TreeSpec, harmonic_mean};
use crate::traffic::{Arrival, DEFAULT_MAX_ACTIVE, Epochs, Kind, RttDraw, ThinkDist};
use crate::units::{self, BitsPerSec, BufferSize, SimTime};

/// A scenario that failed to parse or validate: where, and what is wrong.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub struct ScenarioError {
    /// Dotted field path, e.g. `flows[0].rtt`.
    pub path: String,
    /// What was wrong, with the offending value and what is allowed.
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() || self.path == "." {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

/// An error at field `path`.
pub(crate) fn err(path: impl Into<String>, message: impl Into<String>) -> ScenarioError {
    ScenarioError {
        path: path.into(),
        message: message.into(),
    }
}

/// Queue disciplines the engines know (the `queue` registry).
pub use crate::queue::QDISCS;

/// A scenario word with a fixed set of values: `given` (or `default` when
/// absent) looked up in `table`; an unknown word is an error at `path` that
/// says `unknown {what}` and lists the allowed words.
fn choose<T: Copy>(
    given: Option<String>,
    default: T,
    table: &[(&str, T)],
    path: &str,
    what: &str,
) -> Result<T, ScenarioError> {
    let Some(word) = given else {
        return Ok(default);
    };
    match table.iter().find(|(name, _)| *name == word) {
        Some((_, v)) => Ok(*v),
        None => {
            let allowed: Vec<&str> = table.iter().map(|(name, _)| *name).collect();
            Err(err(
                path,
                format!(
                    "unknown {what} {word:?}: allowed are {}",
                    allowed.join(", ")
                ),
            ))
        }
    }
}

/// A validated scenario with every unit resolved.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// Label used in reports.
    pub name: String,
    /// Simulated duration.
    pub duration: SimTime,
    /// Initial period excluded from statistics.
    pub warmup: SimTime,
    /// Seed of every random stream.
    pub seed: u64,
    /// The network: one link (two-way or not), a pool of ports, or a chain.
    pub topology: Topology,
    /// TCP flow groups.
    pub flows: Vec<FlowGroup>,
    /// Background traffic.
    pub background: Vec<Background>,
    /// Outputs.
    pub output: Output,
    /// Fluid-engine settings.
    pub fluid: Fluid,
}

/// The normalized scenario as Python reads it (`Scenario.normalized`): the
/// topology written as the user did, `link` (a chain's first) with `pool`,
/// `links` (a chain's, two or more) or `reverse` beside it when present.
#[derive(Serialize)]
struct Normalized<'a> {
    name: &'a str,
    #[serde(serialize_with = "units::ser_secs", rename = "duration_s")]
    duration: SimTime,
    #[serde(serialize_with = "units::ser_secs", rename = "warmup_s")]
    warmup: SimTime,
    seed: u64,
    link: &'a Link,
    flows: &'a [FlowGroup],
    background: &'a [Background],
    output: &'a Output,
    fluid: &'a Fluid,
    #[serde(skip_serializing_if = "Option::is_none")]
    pool: Option<&'a Pool>,
    #[serde(skip_serializing_if = "<[Link]>::is_empty")]
    links: &'a [Link],
    #[serde(skip_serializing_if = "Option::is_none")]
    reverse: Option<&'a Reverse>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fabric: Option<&'a fabric::Fabric>,
}

impl Serialize for Scenario {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        Normalized {
            name: &self.name,
            duration: self.duration,
            warmup: self.warmup,
            seed: self.seed,
            link: self.topology.first(),
            flows: &self.flows,
            background: &self.background,
            output: &self.output,
            fluid: &self.fluid,
            pool: self.topology.pool(),
            links: self.topology.chain().unwrap_or(&[]),
            reverse: self.topology.reverse(),
            fabric: self.topology.fabric(),
        }
        .serialize(ser)
    }
}

impl Scenario {
    /// Parse and validate a raw scenario given as JSON text.
    pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
        let de = &mut serde_json::Deserializer::from_str(text);
        let raw: RawScenario = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let msg = e.inner().to_string();
            // serde_json appends " at line L column C"; the path already
            // says where. (Only that suffix: a message may say "at line rate".)
            let msg = match msg.rsplit_once(" at line ") {
                Some((head, tail)) if tail.split(" column ").all(|n| n.parse::<u64>().is_ok()) => {
                    head.to_string()
                }
                _ => msg,
            };
            err(if path == "." { String::new() } else { path }, msg)
        })?;
        resolve(raw)
    }

    /// The normalized scenario as JSON (SI units).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("scenario serializes")
    }

    /// Total number of TCP flows.
    pub fn total_flows(&self) -> usize {
        self.flows.iter().map(|g| g.count as usize).sum()
    }

    /// The first link (`link`: the one link, a pool's ports' link or a
    /// chain's first; [`Topology::first`]).
    pub fn link(&self) -> &Link {
        self.topology.first()
    }
}

fn check(cond: bool, path: &str, msg: impl FnOnce() -> String) -> Result<(), ScenarioError> {
    if cond { Ok(()) } else { Err(err(path, msg())) }
}

/// A threshold factor of a shared buffer (`pool.alpha`, a class's, ABM's
/// first-RTT one, FAB's): finite, above 0, at most 10^6 (switch chips
/// offer 1/64 to 64; ABM's first-RTT factor is 1024).
fn check_alpha(alpha: f64, path: &str) -> Result<f64, ScenarioError> {
    check(
        alpha.is_finite() && alpha > 0.0 && alpha <= 1e6,
        path,
        || format!("must be > 0 and at most 1000000, got {alpha}"),
    )?;
    Ok(alpha)
}

/// What every topology's resolver shares: the run's settings, taken from
/// the raw scenario first and made into the [`Scenario`] last by
/// [`Run::finish`].
struct Run {
    name: Option<String>,
    seed: u64,
    duration: SimTime,
    warmup: SimTime,
    output: Option<RawOutput>,
    fluid: Option<RawFluid>,
}

impl Run {
    /// Takes the run's settings out of `raw`, checking duration and warm-up.
    fn take(raw: &mut RawScenario) -> Result<Run, ScenarioError> {
        let duration = raw.duration.0;
        check(duration > SimTime::ZERO, "duration", || {
            format!("must be > 0s, got {duration}")
        })?;
        let warmup = raw.warmup.map(|d| d.0).unwrap_or(SimTime::ZERO);
        check(warmup < duration, "warmup", || {
            format!("{warmup} must be shorter than duration {duration}")
        })?;
        Ok(Run {
            name: raw.name.take(),
            seed: raw.seed.unwrap_or(1),
            duration,
            warmup,
            output: raw.output.take(),
            fluid: raw.fluid.take(),
        })
    }

    /// The scenario of a resolved topology and its traffic: the output
    /// (the packet trace records one queue, so only a lone link without a
    /// reverse one has it) and the fluid engine's settings, whose defaults
    /// refer to `rtts`.
    fn finish(
        self,
        topology: Topology,
        flows: Vec<FlowGroup>,
        background: Vec<Background>,
        rtts: &[SimTime],
    ) -> Result<Scenario, ScenarioError> {
        let output = resolve_output(self.output.unwrap_or_default(), self.duration, flows.len())?;
        let one_queue = matches!(topology, Topology::Link { reverse: None, .. });
        check(!output.trace || one_queue, "output.trace", || {
            "the packet trace records one queue: not available with a [pool], a chain (links), \
             a [reverse] link or a [fabric]"
                .into()
        })?;
        Ok(Scenario {
            name: self.name.unwrap_or_else(|| "scenario".into()),
            duration: self.duration,
            warmup: self.warmup,
            seed: self.seed,
            topology,
            flows,
            background,
            output,
            fluid: resolve_fluid(self.fluid.unwrap_or_default(), rtts)?,
        })
    }
}

fn resolve(mut raw: RawScenario) -> Result<Scenario, ScenarioError> {
    let run = Run::take(&mut raw)?;
    if raw.fabric.is_some() {
        return fabric::resolve_scenario(raw, run);
    }
    let (seed, duration) = (run.seed, run.duration);
    for (i, f) in raw.flows.iter().enumerate() {
        for (given, field) in [
            (f.hosts.is_some(), "hosts"),
            (f.src.is_some(), "src"),
            (f.dst.is_some(), "dst"),
            (f.incast.is_some(), "incast"),
        ] {
            check(!given, &group_path(i, field), || {
                "hosts of a transfer are a fabric's: add a [fabric], or remove it".into()
            })?;
        }
    }

    // Links: one (`link`), or a chain (`links`) of which `link` is the
    // first. Capacity, delay and discipline first; buffers after the
    // flows, whose RTTs the BDP refers to.
    let raw_links: Vec<(String, RawLink)> = match (raw.link, raw.links) {
        (Some(l), None) => vec![("link".to_string(), l)],
        (None, Some(ls)) => {
            let n = ls.len();
            check((1..=MAX_LINKS as usize).contains(&n), "links", || {
                format!("must hold 1 to {MAX_LINKS} links, got {n}")
            })?;
            ls.into_iter()
                .enumerate()
                .map(|(i, l)| (format!("links[{i}]"), l))
                .collect()
        }
        (Some(_), Some(_)) => {
            return Err(err(
                "links",
                "give link (one bottleneck) or links (a chain of them), not both",
            ));
        }
        (None, None) => return Err(err("", "missing field `link`")),
    };
    let chain = raw_links.len() > 1;
    let mut heads = Vec::with_capacity(raw_links.len());
    for (path, l) in raw_links {
        heads.push(link_head(path, l)?);
    }
    if raw.pool.is_some() {
        check(!chain, "pool", || {
            "a pool feeds copies of one link; a chain (links) has none".into()
        })?;
    }

    // Flows (RTTs first: the BDP refers to them).
    let mut rng = stream(seed, Stream::Scenario);
    let mut flows = Vec::with_capacity(raw.flows.len());
    let mut total: u64 = 0;
    let group_ports: Vec<Option<i64>> = raw.flows.iter().map(|f| f.port).collect();
    let group_classes: Vec<Option<i64>> = raw.flows.iter().map(|f| f.class).collect();
    for (i, f) in raw.flows.into_iter().enumerate() {
        let path = resolve_links(
            f.links.as_deref(),
            &group_path(i, "links"),
            heads.len(),
            true,
        )?;
        let crossed = &heads[path[0] as usize..=*path.last().expect("a link") as usize];
        let at = GroupContext {
            cap: crossed.iter().map(|h| h.cap).fold(f64::INFINITY, f64::min),
            delay: SimTime(crossed.iter().map(|h| h.delay.0).sum()),
            delay_what: if chain {
                format!("the delays of links {path:?}")
            } else {
                "link.delay".into()
            },
            duration,
        };
        let mut g = resolve_group(i, f, &at, &mut rng, &mut total)?;
        g.path_delay = at.delay;
        g.delay_before_last = at.delay - crossed.last().expect("a link").delay;
        g.links = if chain { path } else { Vec::new() };
        flows.push(g);
    }
    let forward = flows.len();
    // Two-way traffic: the reverse link (its buffer with the others, below)
    // and its flow groups, after the forward ones.
    let mut raw_reverse = raw.reverse;
    if let Some(r) = &raw_reverse {
        check(raw.pool.is_none() && !chain, "reverse", || {
            "two-way traffic runs over one link (link): not with a [pool] or a chain (links)".into()
        })?;
        let cap = r.capacity.map_or(heads[0].cap, |c| c.0.0);
        let at = GroupContext {
            cap,
            delay: heads[0].delay,
            delay_what: "link.delay".into(),
            duration,
        };
        for (j, f) in r.flows.iter().enumerate() {
            check(
                f.port.is_none() && f.links.is_none() && f.class.is_none(),
                &format!("reverse.flows[{j}]"),
                || "a reverse group crosses the reverse link: remove port, links and class".into(),
            )?;
        }
        let groups = raw_reverse.as_mut().map(|r| std::mem::take(&mut r.flows));
        for (j, f) in groups.into_iter().flatten().enumerate() {
            let mut g = resolve_group(j, f, &at, &mut rng, &mut total)
                .map_err(|e| err(format!("reverse.{}", e.path), e.message))?;
            g.path_delay = at.delay;
            g.reverse = true;
            flows.push(g);
        }
    }

    // Buffers and BDPs.
    let support = |g: &FlowGroup| {
        g.rtt_draw
            .iter()
            .flat_map(|d| d.support())
            .collect::<Vec<_>>()
    };
    let all_rtts: Vec<SimTime> = flows
        .iter()
        .flat_map(|g| g.rtts.iter().copied().chain(support(g)))
        .collect();
    // The BDP's RTT: the mean over flows of each one's RTT law (a drawn RTT
    // counts as its law's mean), and the support of the per-transfer draws.
    let bdp_rtts = |groups: &[FlowGroup]| -> Vec<SimTime> {
        groups
            .iter()
            .flat_map(|g| match g.rtt_law_mean {
                Some(m) => vec![m; g.rtts.len()].into_iter().chain(support(g)),
                None => g.rtts.clone().into_iter().chain(support(g)),
            })
            .collect()
    };
    // A link's BDP refers to the RTTs of the flows whose data it carries
    // (the reverse link's to the forward flows' without reverse groups).
    let (fwd_rtts, rev_rtts) = (bdp_rtts(&flows[..forward]), bdp_rtts(&flows[forward..]));
    let first_mss = flows.first().map(|g| u64::from(g.mss_bytes));
    let mut raw_pool = raw.pool;
    let mut pool = None;
    let mut links = Vec::with_capacity(heads.len());
    let reverse_head = match raw_reverse {
        Some(r) => {
            let head = link_head(
                "reverse".into(),
                RawLink {
                    capacity: r.capacity.unwrap_or(heads[0].raw.capacity),
                    delay: heads[0].raw.delay,
                    buffer: Some(r.buffer),
                    bdp_rtt: None,
                    packet_size: heads[0].raw.packet_size,
                    qdisc: r.qdisc,
                    qdisc_params: r.qdisc_params,
                    scheduler: None,
                    queues: None,
                },
            )?;
            let ack = r.ack_size.map_or(40, |s| s.0);
            check((40..=1500).contains(&ack), "reverse.ack_size", || {
                format!("must be between 40B and 1500B (IP and TCP headers, options), got {ack}B")
            })?;
            Some((head, ack as u32))
        }
        None => None,
    };
    for h in heads {
        let (link, p) = resolve_link(h, first_mss, &fwd_rtts, &mut raw_pool)?;
        pool = pool.or(p);
        links.push(link);
    }
    let reverse = match reverse_head {
        Some((h, ack_size_bytes)) => {
            let rtts = if rev_rtts.is_empty() {
                &fwd_rtts
            } else {
                &rev_rtts
            };
            let (link, _) = resolve_link(h, first_mss, rtts, &mut None)?;
            Some(Reverse {
                link,
                ack_size_bytes,
            })
        }
        None => None,
    };
    // The topology. What it cannot hold was refused above with the
    // field's name: a pool with a chain, a reverse link with either.
    let topology = if chain {
        debug_assert!(pool.is_none() && reverse.is_none(), "refused above");
        Topology::Chain { links }
    } else {
        let link = links.pop().expect("one link");
        match (pool, reverse) {
            (Some(pool), None) => Topology::Pool { link, pool },
            (None, reverse) => Topology::Link { link, reverse },
            (Some(_), Some(_)) => unreachable!("[pool] with [reverse] is refused above"),
        }
    };
    if let Topology::Pool { link, pool } = &topology {
        check(
            pool.algorithm != Algorithm::Lqd || link.queue.is_fifo(),
            "pool.algorithm",
            || {
                let fifo: Vec<&str> = describe_disciplines()
                    .into_iter()
                    .filter(|d| d.fifo)
                    .map(|d| d.name)
                    .collect();
                format!(
                    "\"lqd\" pushes a packet out of the longest queue's tail, and link.qdisc {:?} \
                     serves several queues: use one of {} with it",
                    link.queue.name(),
                    fifo.join(", ")
                )
            },
        )?;
    }
    let ports = topology.ports();
    for (i, (g, port)) in flows.iter_mut().zip(group_ports).enumerate() {
        g.port = resolve_port(port, &group_path(i, "port"), ports)?;
    }
    let bg_classes: Vec<Option<i64>> = raw.background.iter().map(|b| b.class).collect();
    let mut background = resolve_background(raw.background, &topology.capacities(), ports)?;
    classes::assign(
        &topology,
        &mut flows[..forward],
        group_classes,
        &mut background,
        bg_classes,
    )?;
    run.finish(topology, flows, background, &all_rtts)
}

/// Whether `n` is 1 (a field left out of the normalized scenario at its default).
fn is_one(n: &u32) -> bool {
    *n == 1
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

fn is_false(b: &bool) -> bool {
    !*b
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> Value {
        serde_json::json!({
            "duration": "10s",
            "link": {"capacity": "50Mbps", "delay": "48ms", "buffer": "20pkt"},
            "flows": [{"count": 2, "rtt": "100ms", "mss": "1000B"}],
        })
    }

    fn parse(v: &Value) -> Result<Scenario, ScenarioError> {
        Scenario::from_json(&v.to_string())
    }

    #[test]
    fn resolves_units_and_bdp() {
        let mut v = base();
        v["link"]["buffer"] = "1BDP".into();
        let s = parse(&v).unwrap();
        assert_eq!(s.link().buffer_pkts, 625); // 50e6 * 0.1 / 8000
        assert_eq!(s.flows[0].rtts, vec![SimTime::from_millis(100); 2]);
    }

    #[test]
    fn a_bdp_buffer_with_drawn_rtts_is_one_value_whatever_the_seed() {
        // RTTs uniform on [100, 240] ms: the BDP takes the law's mean, 170 ms,
        // so 1 BDP at 50 Mbps with 1000 B packets is 50e6 * 0.17 / 8000 =
        // 1062.5 packets for every seed, whatever the draws.
        let mut v = base();
        v["link"]["buffer"] = "1BDP".into();
        v["flows"][0]["count"] = 10.into();
        v["flows"][0]["rtt"] = serde_json::json!({"uniform": ["100ms", "240ms"]});
        let mut draws = Vec::new();
        for seed in 1..=3u64 {
            v["seed"] = seed.into();
            let s = parse(&v).unwrap();
            assert_eq!(s.link().bdp_rtt, SimTime::from_millis(170));
            assert_eq!(s.link().buffer_pkts, 1063);
            draws.push(s.flows[0].rtts.clone());
        }
        assert_ne!(draws[0], draws[1]);
    }

    #[test]
    fn rtt_range_is_evenly_spaced() {
        let mut v = base();
        v["flows"][0]["count"] = 10.into();
        v["flows"][0]["rtt"] = serde_json::json!({"min": "115.5ms", "max": "124.5ms"});
        let s = parse(&v).unwrap();
        assert_eq!(s.flows[0].rtts[0], SimTime::from_micros(115_500));
        assert_eq!(s.flows[0].rtts[1], SimTime::from_micros(116_500));
        assert_eq!(s.flows[0].rtts[9], SimTime::from_micros(124_500));
    }

    #[test]
    fn errors_name_the_field() {
        let mut v = base();
        v["link"]["capacity"] = 50.into();
        let e = parse(&v).unwrap_err();
        assert_eq!(e.path, "link.capacity");
        assert!(e.message.contains("unit"), "{e}");

        let mut v = base();
        v["link"]["capcity"] = "1Mbps".into();
        let e = parse(&v).unwrap_err();
        assert!(e.message.contains("unknown field `capcity`"), "{e}");

        let mut v = base();
        v["flows"][0]["rtt"] = "10ms".into();
        let e = parse(&v).unwrap_err();
        assert_eq!(e.path, "flows[0].rtt");
    }
}
