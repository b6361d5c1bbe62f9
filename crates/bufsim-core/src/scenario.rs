//! The scenario schema: one typed, validated description of a bottleneck, its
//! buffer and queue discipline, the flows and background traffic crossing it,
//! and the run settings. Every engine (packet, fluid) and the Python models
//! take the same [`Scenario`].
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
use crate::tcp::stack::{
    CeAck, ControlEct, CutFrom, EcnReduction, NamedRule, PrrVariant, RecoveryEntry, RecoveryExit,
    RtoCollapse, RtoSsthresh, RtoTimer, RttSampling, SackPipe, SlowStart, Stack,
};
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

// ---------------------------------------------------------------------------
// Unit-carrying newtypes: deserialize from strings only, so a bare number
// where a unit is meant is refused with a message that says which units work.
// ---------------------------------------------------------------------------

macro_rules! unit_newtype {
    ($name:ident, $inner:ty, $parse:path, $example:expr) => {
        #[derive(Clone, Copy, Debug)]
        struct $name($inner);
        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                match Value::deserialize(d)? {
                    Value::String(s) => $parse(&s).map($name).map_err(de::Error::custom),
                    other => Err(de::Error::custom(format!(
                        "expected a string with a unit such as {:?}, got {}",
                        $example, other
                    ))),
                }
            }
        }
    };
}

unit_newtype!(Dur, SimTime, units::parse_duration, "100ms");
unit_newtype!(Rate, BitsPerSec, units::parse_rate, "50Mbps");
unit_newtype!(Size, u64, units::parse_bytes, "1500B");
unit_newtype!(Buf, BufferSize, units::parse_buffer, "20pkt");

/// Round-trip propagation delay of a flow group, as written.
#[derive(Clone, Debug)]
enum RttSpec {
    /// Every flow has this RTT.
    Fixed(SimTime),
    /// One value per flow (the list length must equal `count`).
    List(Vec<SimTime>),
    /// Evenly spaced from min to max inclusive (`{min = "80ms", max = "260ms"}`).
    Range(SimTime, SimTime),
    /// Drawn uniformly at random in [a, b] from the seed (`{uniform = ["80ms", "260ms"]}`).
    Uniform(SimTime, SimTime),
    /// A random source node of paper 002's binary tree (`traffic::tree`).
    Tree(TreeSpec),
}

/// Start times of a flow group, as written.
#[derive(Clone, Debug)]
enum StartSpec {
    /// All flows start at this time.
    At(SimTime),
    /// Flow k of the group starts at k * step.
    Stagger(SimTime),
    /// Drawn uniformly at random in [a, b].
    Uniform(SimTime, SimTime),
}

fn dur_of(v: &Value) -> Result<SimTime, String> {
    match v {
        Value::String(s) => units::parse_duration(s).map_err(|e| e.0),
        other => Err(format!(
            "expected a string with a unit such as \"100ms\", got {other}"
        )),
    }
}

fn pair_of(v: &Value) -> Result<(SimTime, SimTime), String> {
    match v {
        Value::Array(a) if a.len() == 2 => Ok((dur_of(&a[0])?, dur_of(&a[1])?)),
        other => Err(format!(
            "expected a list of two durations such as [\"0s\", \"1s\"], got {other}"
        )),
    }
}

fn single_key(m: &Map<String, Value>, allowed: &str) -> Result<(String, Value), String> {
    if m.len() != 1 {
        return Err(format!(
            "expected a table with exactly one key ({allowed}), got {}",
            Value::Object(m.clone())
        ));
    }
    let (k, v) = m.iter().next().expect("one key");
    Ok((k.clone(), v.clone()))
}

impl<'de> Deserialize<'de> for RttSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        let shape = "a duration (\"100ms\"), a list of durations, {min = \"80ms\", max = \"260ms\"}, {uniform = [\"80ms\", \"260ms\"]} or {tree = {nodes = 18, min = \"30ms\", max = \"530ms\"}}";
        let out = match &v {
            Value::String(_) => dur_of(&v).map(RttSpec::Fixed),
            Value::Array(a) => a
                .iter()
                .map(dur_of)
                .collect::<Result<Vec<_>, _>>()
                .map(RttSpec::List),
            Value::Object(m) if m.len() == 2 && m.contains_key("min") && m.contains_key("max") => {
                dur_of(&m["min"]).and_then(|a| dur_of(&m["max"]).map(|b| RttSpec::Range(a, b)))
            }
            Value::Object(m) => {
                match single_key(m, "uniform or tree").map_err(de::Error::custom)? {
                    (k, p) if k == "uniform" => pair_of(&p).map(|(a, b)| RttSpec::Uniform(a, b)),
                    (k, p) if k == "tree" => TreeSpec::parse(&p).map(RttSpec::Tree),
                    (k, _) => Err(format!("unknown key {k:?}: expected {shape}")),
                }
            }
            other => Err(format!("expected {shape}, got {other}")),
        };
        out.map_err(de::Error::custom)
    }
}

impl<'de> Deserialize<'de> for StartSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        let shape = "a time (\"0s\"), {stagger = \"1s\"} or {uniform = [\"0s\", \"1s\"]}";
        let out = match &v {
            Value::String(_) => dur_of(&v).map(StartSpec::At),
            Value::Object(m) => {
                match single_key(m, "stagger or uniform").map_err(de::Error::custom)? {
                    (k, p) if k == "stagger" => dur_of(&p).map(StartSpec::Stagger),
                    (k, p) if k == "uniform" => pair_of(&p).map(|(a, b)| StartSpec::Uniform(a, b)),
                    (k, _) => Err(format!("unknown key {k:?}: expected {shape}")),
                }
            }
            other => Err(format!("expected {shape}, got {other}")),
        };
        out.map_err(de::Error::custom)
    }
}

// ---------------------------------------------------------------------------
// The raw schema, as users write it.
// ---------------------------------------------------------------------------

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScenario {
    #[serde(default)]
    name: Option<String>,
    duration: Dur,
    #[serde(default)]
    warmup: Option<Dur>,
    #[serde(default)]
    seed: Option<u64>,
    #[serde(default)]
    link: Option<RawLink>,
    #[serde(default)]
    links: Option<Vec<RawLink>>,
    #[serde(default)]
    flows: Vec<RawFlows>,
    #[serde(default)]
    background: Vec<RawBackground>,
    #[serde(default)]
    output: Option<RawOutput>,
    #[serde(default)]
    fluid: Option<RawFluid>,
    #[serde(default)]
    pool: Option<RawPool>,
    #[serde(default)]
    reverse: Option<RawReverse>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLink {
    capacity: Rate,
    delay: Dur,
    #[serde(default)]
    buffer: Option<Buf>,
    #[serde(default)]
    bdp_rtt: Option<Dur>,
    #[serde(default)]
    packet_size: Option<Size>,
    #[serde(default)]
    qdisc: Option<String>,
    #[serde(default)]
    qdisc_params: Option<Map<String, Value>>,
    #[serde(default)]
    scheduler: Option<String>,
    #[serde(default)]
    queues: Option<Vec<classes::RawQueue>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFlows {
    #[serde(default)]
    count: Option<i64>,
    #[serde(default)]
    tcp: Option<String>,
    #[serde(default)]
    tcp_params: Option<Map<String, Value>>,
    rtt: RttSpec,
    #[serde(default)]
    mss: Option<Size>,
    #[serde(default)]
    access_rate: Option<Rate>,
    #[serde(default)]
    access_buffer: Option<Buf>,
    #[serde(default)]
    jitter: Option<Dur>,
    #[serde(default)]
    rwnd: Option<Buf>,
    #[serde(default)]
    initial_window: Option<i64>,
    #[serde(default)]
    min_rto: Option<Dur>,
    #[serde(default)]
    start: Option<StartSpec>,
    #[serde(default)]
    stack: Option<String>,
    #[serde(default)]
    sack: Option<bool>,
    #[serde(default)]
    delayed_ack: Option<bool>,
    #[serde(default)]
    delack_timeout: Option<Dur>,
    #[serde(default)]
    quick_acks: Option<i64>,
    #[serde(default)]
    push_ack: Option<bool>,
    #[serde(default)]
    prr: Option<bool>,
    #[serde(default)]
    prr_variant: Option<String>,
    #[serde(default)]
    recovery: Option<String>,
    #[serde(default)]
    abc: Option<Value>,
    #[serde(default)]
    limited_transmit: Option<bool>,
    #[serde(default)]
    partial_ack_retransmit: Option<bool>,
    #[serde(default)]
    dupack_growth: Option<bool>,
    #[serde(default)]
    rto_ssthresh: Option<String>,
    #[serde(default)]
    rto_collapse: Option<String>,
    #[serde(default)]
    rto_timer: Option<String>,
    #[serde(default)]
    recovery_entry: Option<String>,
    #[serde(default)]
    sack_pipe: Option<String>,
    #[serde(default)]
    recovery_exit: Option<String>,
    #[serde(default)]
    rtt_sampling: Option<String>,
    #[serde(default)]
    cut_from: Option<String>,
    #[serde(default)]
    ecn_reduction: Option<String>,
    #[serde(default)]
    ce_ack: Option<String>,
    #[serde(default)]
    control_ect: Option<String>,
    #[serde(default)]
    hystart: Option<bool>,
    #[serde(default)]
    ecn: Option<bool>,
    #[serde(default)]
    loss: Option<f64>,
    // Traffic (see `traffic`).
    #[serde(default)]
    size: Option<Value>,
    #[serde(default)]
    arrival: Option<Value>,
    #[serde(default)]
    users: Option<i64>,
    #[serde(default)]
    think: Option<Value>,
    #[serde(default)]
    connection_setup: Option<bool>,
    #[serde(default)]
    max_active: Option<i64>,
    #[serde(default)]
    port: Option<i64>,
    #[serde(default)]
    links: Option<Vec<i64>>,
    #[serde(default)]
    class: Option<i64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBackground {
    kind: String,
    rate: Rate,
    packet_size: Size,
    #[serde(default)]
    port: Option<i64>,
    #[serde(default)]
    links: Option<Vec<i64>>,
    #[serde(default)]
    class: Option<i64>,
}

/// `[reverse]`: the bottleneck's return direction (see [`Reverse`]).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawReverse {
    #[serde(default)]
    capacity: Option<Rate>,
    buffer: Buf,
    #[serde(default)]
    qdisc: Option<String>,
    #[serde(default)]
    qdisc_params: Option<Map<String, Value>>,
    #[serde(default)]
    ack_size: Option<Size>,
    #[serde(default)]
    flows: Vec<RawFlows>,
}

/// `[pool]`: a shared buffer feeding several ports (see [`Pool`]).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPool {
    size: Buf,
    ports: i64,
    #[serde(default)]
    alpha: Option<f64>,
    #[serde(default)]
    algorithm: Option<String>,
    #[serde(default)]
    interval: Option<Dur>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawOutput {
    #[serde(default)]
    interval: Option<Dur>,
    #[serde(default)]
    cwnd: Option<bool>,
    #[serde(default)]
    large_flow: Option<Size>,
    #[serde(default)]
    trace: Option<bool>,
    #[serde(default)]
    halves: Option<bool>,
    #[serde(default)]
    stop: Option<RawStop>,
}

/// `[output.stop]`: end a run once its verdicts are known (see [`Stop`]).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStop {
    decide: Vec<RawDecide>,
    #[serde(default)]
    batches: Option<u32>,
    #[serde(default)]
    min_batches: Option<u32>,
    #[serde(default)]
    confidence: Option<f64>,
}

/// One verdict of `output.stop.decide`: `metric op bound`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDecide {
    metric: String,
    op: String,
    bound: f64,
}

/// `[fluid]`: settings of the fluid engine (the packet engine ignores them).
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawFluid {
    #[serde(default)]
    step: Option<Dur>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    sync: Option<f64>,
    #[serde(default)]
    sync_policy: Option<String>,
    #[serde(default)]
    sync_sd: Option<f64>,
    #[serde(default)]
    decrease: Option<String>,
}

// ---------------------------------------------------------------------------
// The normalized scenario.
// ---------------------------------------------------------------------------

/// Whether the drop-tail limit counts packets or bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BufferMode {
    /// The buffer holds at most `buffer_pkts` packets.
    Packets,
    /// The buffer holds at most `buffer_bytes` bytes.
    Bytes,
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

/// Background traffic kinds (`background[].kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BackgroundKind {
    /// Poisson packet arrivals of a fixed size (paper 000 section IV.B).
    Poisson,
}

impl BackgroundKind {
    /// The names a scenario may give.
    pub const NAMES: &[(&str, BackgroundKind)] = &[("poisson", BackgroundKind::Poisson)];
}

/// The bottleneck link, its buffer and its queue discipline.
#[derive(Clone, Debug, Serialize)]
pub struct Link {
    /// Capacity, bits/s.
    pub capacity_bps: f64,
    /// One-way propagation delay of the bottleneck link.
    #[serde(serialize_with = "units::ser_secs", rename = "delay_s")]
    pub delay: SimTime,
    /// Buffer in packets (in byte mode: bytes / packet_size).
    pub buffer_pkts: u64,
    /// Buffer in bytes (in packet mode: packets * packet_size).
    pub buffer_bytes: u64,
    /// Whether the limit is enforced in packets or bytes.
    pub buffer_mode: BufferMode,
    /// Reference packet size for BDP and packet counts, bytes.
    pub packet_size_bytes: u32,
    /// The RTT that `"xBDP"` buffers refer to.
    #[serde(serialize_with = "units::ser_secs", rename = "bdp_rtt_s")]
    pub bdp_rtt: SimTime,
    /// Bandwidth-delay product, packets of `packet_size_bytes`.
    pub bdp_pkts: f64,
    /// The queue discipline and its parameters, defaults filled in
    /// (normalized as `qdisc`, its name, and `qdisc_params`, durations in
    /// seconds under `_s` keys).
    #[serde(flatten, serialize_with = "crate::queue::ser_qdisc")]
    pub queue: QdiscConfig,
    /// Several queues, one per traffic class, and their scheduler
    /// (`link.queues`, `link.scheduler`; absent: the one queue above).
    #[serde(flatten)]
    pub classes: Option<crate::queue::classes::ClassSet>,
}

impl Link {
    /// What a queue discipline knows of this link.
    pub fn info(&self) -> LinkInfo {
        link_info(self.packet_size_bytes, self.buffer_mode, self.capacity_bps)
    }

    /// The buffer limit, in the buffer's unit.
    pub fn limit(&self) -> Limit {
        match self.buffer_mode {
            BufferMode::Packets => Limit::Packets(self.buffer_pkts),
            BufferMode::Bytes => Limit::Bytes(self.buffer_bytes),
        }
    }
}

/// What a queue discipline knows of a link of capacity `cap` (bits/s) whose
/// buffer counts in `mode`, with reference packets of `packet_size` bytes.
fn link_info(packet_size: u32, mode: BufferMode, cap: f64) -> LinkInfo {
    LinkInfo {
        packet_size,
        bytes_mode: mode == BufferMode::Bytes,
        capacity_bps: cap,
    }
}

/// A group of TCP flows with the same settings (per-flow RTTs and starts resolved).
#[derive(Clone, Debug, Serialize)]
pub struct FlowGroup {
    /// Number of flows.
    pub count: u32,
    /// Congestion-control variant and its parameters, defaults filled in
    /// (normalized as `tcp`, the variant's canonical name, and `cc`).
    #[serde(flatten, serialize_with = "crate::tcp::cc::ser_tcp_and_cc")]
    pub cc: CcConfig,
    /// Round-trip propagation delay of each flow.
    #[serde(serialize_with = "units::ser_secs_vec", rename = "rtts_s")]
    pub rtts: Vec<SimTime>,
    /// The mean of the law `rtts` are drawn from (`uniform`: (a + b) / 2; a
    /// tree: its nodes' mean), None where they are not drawn. The link's BDP
    /// uses it, so that a BDP-relative buffer is one value per scenario
    /// whatever the seed.
    #[serde(skip)]
    pub rtt_law_mean: Option<SimTime>,
    /// Full data packet size on the wire, bytes (headers are not modeled separately).
    pub mss_bytes: u32,
    /// Access link rate of each flow, bits/s (None: not limited).
    pub access_rate_bps: Option<f64>,
    /// Drop-tail buffer of each flow's access link, packets waiting (with
    /// an access rate only; default 1000, Linux's `txqueuelen`).
    pub access_buffer_pkts: u32,
    /// Each packet leaves the sender after a random delay uniform in
    /// [0, jitter] (order kept), breaking the phase effects of identical
    /// deterministic flows (ns-2's `overhead_`); 0 by default.
    #[serde(serialize_with = "units::ser_secs", rename = "jitter_s")]
    pub jitter: SimTime,
    /// Receiver window cap, packets (None: unlimited).
    pub rwnd_pkts: Option<u32>,
    /// Initial congestion window, packets.
    pub initial_window_pkts: u32,
    /// Minimum retransmission timeout.
    #[serde(serialize_with = "units::ser_secs", rename = "min_rto_s")]
    pub min_rto: SimTime,
    /// Start time of each flow.
    #[serde(serialize_with = "units::ser_secs_vec", rename = "starts_s")]
    pub starts: Vec<SimTime>,
    /// The stack profile whose defaults filled the fields left unset
    /// (`tcp::stack`).
    pub stack: Stack,
    /// Selective acknowledgments (RFC 2018 / RFC 6675 recovery).
    pub sack: bool,
    /// Delayed ACKs (RFC 1122 / RFC 5681 section 4.2: ACK every second
    /// segment, an owed ACK sent at the latest after `delack_timeout`).
    pub delayed_ack: bool,
    /// The delayed-ACK timer (the profile's: 200 ms `rfc` and `ns3`, 40 ms `linux`).
    #[serde(serialize_with = "units::ser_secs", rename = "delack_timeout_s")]
    pub delack_timeout: SimTime,
    /// In-order segments acknowledged at once when a flow starts, before
    /// delayed ACKs begin (the profile's: 16 `linux`, 1 `ns3`, 0 `rfc`).
    pub quick_acks: u32,
    /// With delayed ACKs, a transfer's last segment is acknowledged at once
    /// (the profile's: on in `linux`, off in `rfc` and `ns3`).
    pub push_ack: bool,
    /// Proportional Rate Reduction (RFC 9937) in SACK fast recovery.
    pub prr: bool,
    /// Loss detection: `false` RFC 6675's DupThresh (`recovery =
    /// "rfc6675"`), `true` RACK-TLP (RFC 8985, `recovery = "rack"`).
    pub rack: bool,
    /// HyStart++ (RFC 9406): leave slow start when the RTT rises.
    pub hystart: bool,
    /// `hystart` and `delayed_ack` came from the default profile: the group
    /// names neither the field nor a stack. The fluid engine, which models
    /// neither, leaves such a value out where it refuses one named
    /// (`fluid::check`). Not part of the normalized scenario.
    #[serde(skip)]
    pub defaulted: Defaulted,
    /// How slow start counts an ACK: one segment (RFC 5681 eq. (2)), every
    /// acknowledged segment capped at ssthresh (Linux), or uncapped
    /// (ns-3.37's CUBIC).
    pub abc: SlowStart,
    /// Limited Transmit (RFC 3042): a new segment on each of the first two
    /// duplicate ACKs.
    pub limited_transmit: bool,
    /// How PRR bounds its sends: RFC 9937 or ns-3.37's TcpPrrRecovery.
    pub prr_variant: PrrVariant,
    /// In SACK recovery, RFC 6582's partial-ACK rules (ns-3's
    /// TcpSocketBase): each partial ACK retransmits the segment at its
    /// cumulative ACK, and only the first resets the retransmission timer.
    pub partial_ack_retransmit: bool,
    /// An ACK that advances snd.una and SACKs new data grows cwnd (RFC
    /// 5681, Linux) or not (ns-3's CA_DISORDER).
    pub dupack_growth: bool,
    /// ssthresh after a timeout inside a loss episode.
    pub rto_ssthresh: RtoSsthresh,
    /// When a backed-off RTO comes back down: at a new RTT sample (RFC
    /// 6298, Linux) or at any ACK of new data (ns-3).
    pub rto_collapse: RtoCollapse,
    /// When the retransmission timer runs and whether a timeout waits for
    /// pacing: off with nothing outstanding, paced (RFC 6298, Linux), or
    /// on while data waits to be sent, a timeout sending at once (ns-3).
    pub rto_timer: RtoTimer,
    /// What starts a fast recovery before DupThresh duplicate ACKs: the
    /// first unacknowledged segment lost (RFC 6675) or the second
    /// (ns-3.37).
    pub recovery_entry: RecoveryEntry,
    /// Whether a SACKed retransmission leaves the pipe (RFC 6675, Linux)
    /// or stays in it until acknowledged (ns-3).
    pub sack_pipe: SackPipe,
    /// What the ACK that ends a loss episode adds to the window: nothing
    /// past ssthresh (RFC 6675) or the controller's increase for every
    /// segment it acknowledges (ns-3).
    pub recovery_exit: RecoveryExit,
    /// Which segments the sender times for RTT samples and what RTT its
    /// controller reads: one a round trip (RFC 6298) or every ACK's, the
    /// controller reading the smoothed RTT (ns-3).
    pub rtt_sampling: RttSampling,
    /// The window a variant's cut reads at a fast retransmit or an ECE:
    /// FlightSize (RFC 5681) or the pipe (ns-3).
    pub cut_from: CutFrom,
    /// How the window comes down after an ECE: at once (RFC 3168) or by
    /// PRR over a round trip (Linux, ns-3).
    pub ecn_reduction: EcnReduction,
    /// How a DCTCP receiver acknowledges the segment that changes its CE
    /// state: at once (RFC 8257, Linux) or by the delayed-ACK rules (ns-3).
    pub ce_ack: CeAck,
    /// Whether the packets without data (SYN, SYN-ACK, pure ACKs) carry
    /// ECT: never (RFC 3168) or when the congestion control needs ECN,
    /// DCTCP (Linux, ns-3).
    pub control_ect: ControlEct,
    /// Bernoulli loss probability of data packets on this group's path (after the bottleneck).
    pub loss: f64,
    /// ECN-capable (RFC 3168): an AQM with `ecn` marks these flows' packets
    /// instead of dropping them early, and the sender answers ECE.
    pub ecn: bool,
    /// How transfers come and go: `persistent` (`count` flows, no `size`),
    /// `finite` (`count` flows with a `size`), `open` (`arrival`), `closed`
    /// (`users`). Open and closed groups have `count = 0` and empty
    /// `rtts`/`starts`: their transfers are created during the run.
    pub kind: Kind,
    /// Transfer sizes (finite, open, closed), packets of `mss_bytes`.
    pub size: Option<SizeDist>,
    /// Mean transfer size, packets (rounded draws; see `traffic::size`).
    pub mean_size_pkts: Option<f64>,
    /// Open loop: transfers arriving per second (with a burst, the
    /// arrivals' rate times the burst).
    pub arrival_rate_per_s: Option<f64>,
    /// Open loop: transfers starting together at each arrival (an incast
    /// when above 1; absent from the normalized scenario when 1).
    #[serde(skip_serializing_if = "is_one")]
    pub arrival_burst: u32,
    /// Open loop: the period of periodic arrivals (`every`); absent for
    /// Poisson arrivals.
    #[serde(
        serialize_with = "units::ser_opt_secs",
        rename = "arrival_every_s",
        skip_serializing_if = "Option::is_none"
    )]
    pub arrival_every: Option<SimTime>,
    /// Open loop: offered load `rate * mean size * mss * 8 / capacity`.
    pub offered_load: Option<f64>,
    /// Closed loop: number of users.
    pub users: Option<u32>,
    /// Closed loop: think time between a completion and the user's next transfer.
    pub think: Option<ThinkDist>,
    /// A SYN/SYN-ACK exchange before the first data packet (the profile's:
    /// on in `linux` and `ns3`, off in `rfc`). On the packet engine the SYN
    /// is a packet that queues and can be dropped, resent on the profile's
    /// SYN timer; its round trip is the sender's first RTT sample. The
    /// handshake's ACK, a 40-byte packet, leads the first data.
    pub connection_setup: bool,
    /// Open loop: cap on simultaneously active transfers (arrivals beyond it are refused).
    pub max_active: Option<u32>,
    /// Open and closed loop: how each transfer's RTT is drawn.
    pub rtt_draw: Option<RttDraw>,
    /// Open and closed loop: when arrivals (or users) begin.
    #[serde(serialize_with = "units::ser_secs", rename = "begin_s")]
    pub begin: SimTime,
    /// Harmonic mean of the group's RTTs, seconds (paper 002's effective RTT).
    pub rtt_harmonic_mean_s: f64,
    /// The port of the `pool` its data leaves by (0 without a pool; absent
    /// from the normalized scenario when 0).
    #[serde(skip_serializing_if = "is_zero")]
    pub port: u32,
    /// The links of a chain (`links`) it crosses, consecutive indices, in
    /// order (empty without a chain, and then absent).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<u32>,
    /// One-way propagation over the links it crosses (`link.delay`
    /// without a chain).
    #[serde(skip)]
    pub path_delay: SimTime,
    /// One-way propagation over the links it crosses before its last.
    #[serde(skip)]
    pub delay_before_last: SimTime,
    /// A group of `reverse.flows`: its data crosses the reverse link and
    /// its ACKs the forward one (absent from the normalized scenario when
    /// false). Reverse groups follow the forward ones in `flows`.
    #[serde(skip_serializing_if = "is_false")]
    pub reverse: bool,
    /// Its traffic class: the queue of the link's `queues` its data joins
    /// (0, absent from the normalized scenario, by default).
    #[serde(skip_serializing_if = "classes::is_class0")]
    pub class: u8,
}

/// Open-loop background traffic crossing the bottleneck.
#[derive(Clone, Debug, Serialize)]
pub struct Background {
    /// Kind.
    pub kind: BackgroundKind,
    /// Mean rate, bits/s.
    pub rate_bps: f64,
    /// Packet size, bytes.
    pub packet_size_bytes: u32,
    /// The port of the `pool` it crosses (0 without a pool; absent from the
    /// normalized scenario when 0).
    #[serde(skip_serializing_if = "is_zero")]
    pub port: u32,
    /// The link of a chain it crosses, as a one-element list (empty
    /// without a chain, and then absent).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<u32>,
    /// Its traffic class (as a flow group's).
    #[serde(skip_serializing_if = "classes::is_class0")]
    pub class: u8,
}

/// A buffer shared by several egress ports, each a copy of the scenario's
/// `link` with its own flows, and admission by a buffer-management
/// algorithm ([`crate::queue::shared`], one file each): by default the
/// dynamic threshold (Choudhury & Hahne, "Dynamic queue length thresholds
/// for shared-memory packet switches", IEEE/ACM ToN 6(2), 1998, section
/// III): a packet joins port `i`'s queue `Q_i` only while `Q_i < alpha (B -
/// Q)`, `Q` the pool's occupancy and `B` its size, and if it fits in what
/// is left of the pool. At the threshold's fixed point one busy port holds
/// `alpha B / (1 + alpha)` and `n` equally busy ports `alpha B / (1 + n
/// alpha)` each; the rest is kept free for ports that become busy. The
/// queues count in the pool's unit (`mode`).
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Pool {
    /// Number of egress ports (`link` is each one's copy).
    pub ports: u32,
    /// The buffer-management algorithm (`pool.algorithm`, default `dt`).
    pub algorithm: Algorithm,
    /// The threshold's factor `alpha` (> 0; `dt` and `abm` use it, the
    /// others ignore it, so that a sweep over `pool.algorithm` may keep it).
    pub alpha: f64,
    /// ABM's update interval of the congested queues' count (`abm` only).
    #[serde(
        serialize_with = "units::ser_opt_secs",
        rename = "interval_s",
        skip_serializing_if = "Option::is_none"
    )]
    pub interval: Option<SimTime>,
    /// ABM's saturation length of a queue, the pool's unit (`abm` only).
    #[serde(skip)]
    pub sat: u64,
    /// Pool size, packets (in byte mode: bytes / `link.packet_size`).
    pub size_pkts: u64,
    /// Pool size, bytes (in packet mode: packets * `link.packet_size`).
    pub size_bytes: u64,
    /// Whether the pool and its threshold count packets or bytes.
    pub mode: BufferMode,
}

impl Pool {
    /// `(q, total, a, b)` in the pool's unit: the port's queue, the pool's
    /// occupancy, a packet of `size` bytes (1 in packets) and the pool.
    #[inline]
    pub fn amounts(&self, port: Occupancy, total: Occupancy, size: u32) -> (u64, u64, u64, u64) {
        match self.mode {
            BufferMode::Packets => (port.pkts, total.pkts, 1, self.size_pkts),
            BufferMode::Bytes => (port.bytes, total.bytes, u64::from(size), self.size_bytes),
        }
    }

    /// A queue's length in the pool's unit.
    #[inline]
    pub fn len(&self, occ: Occupancy) -> u64 {
        match self.mode {
            BufferMode::Packets => occ.pkts,
            BufferMode::Bytes => occ.bytes,
        }
    }

    /// Whether a packet of `size` bytes may join a queue holding `port`
    /// while the pool holds `total` (both before the arrival), `n` being
    /// ABM's congested queues ([`shared::abm::Congestion`]), `alpha` the
    /// queue's class's factor (Hahne & Choudhury, "Dynamic queue length
    /// thresholds for multiple loss priorities", IEEE/ACM ToN 10(3), 2002:
    /// class `c`'s threshold `alpha_c (B - Q)`; `self.alpha` with one class)
    /// and `parts` the queues the static partition splits the pool into.
    /// For `lqd`, whether it fits without pushing a packet out.
    #[inline]
    pub fn admits(
        &self,
        port: Occupancy,
        total: Occupancy,
        size: u32,
        n: f64,
        alpha: f64,
        parts: u32,
    ) -> bool {
        let (q, total, a, b) = self.amounts(port, total, size);
        match self.algorithm {
            Algorithm::Dt => shared::dt::admits(alpha, q, total, a, b),
            Algorithm::Static => {
                let share = shared::static_partition::share(b, parts);
                shared::static_partition::admits(q, a, share)
            }
            Algorithm::Complete | Algorithm::Lqd => shared::complete::admits(total, a, b),
            // One class per port: each queue drains at its port's rate
            // (the module says why).
            Algorithm::Abm => shared::abm::admits(self.alpha, n, q, total, a, b, 1.0),
        }
    }
}

/// The bottleneck's return direction (`[reverse]`, two-way traffic): a
/// link from the receivers' side back to the senders' with its own
/// capacity, buffer and discipline, and the same propagation delay and
/// packet size as `link`. The forward flows' ACKs queue there as packets
/// of `ack_size_bytes`, beside the data of the reverse flow groups, whose
/// ACKs queue on the forward link in turn (Zhang, Shenker & Clark,
/// "Observations on the dynamics of a congestion control algorithm: the
/// effects of two-way traffic", SIGCOMM 1991).
#[derive(Clone, Debug, Serialize)]
pub struct Reverse {
    /// The reverse link.
    pub link: Link,
    /// An ACK's size on the wire, bytes (every ACK the same: IP and TCP
    /// headers; SACK options are not counted).
    pub ack_size_bytes: u32,
}

/// What to record.
#[derive(Clone, Debug, Serialize)]
pub struct Output {
    /// Sampling interval of the time series.
    #[serde(serialize_with = "units::ser_secs", rename = "interval_s")]
    pub interval: SimTime,
    /// Record per-flow congestion windows in the time series.
    pub cwnd: bool,
    /// Transfers of more than this many bytes are "large" in the flows table
    /// (default 100KB, paper 002 section 4.2: "large (>100KB) and small (<100KB)").
    pub large_flow_bytes: u64,
    /// Record a packet trace at the bottleneck: one row per enqueue, drop and
    /// dequeue (packet engine only; default false).
    pub trace: bool,
    /// Measure each half of the statistics window too: the summary gains
    /// `<metric>_half1` and `<metric>_half2` for the window metrics
    /// (packet engine only; default false). Halves that disagree say the
    /// run has not converged.
    pub halves: bool,
    /// End the run at a batch boundary once every verdict it names is
    /// known (packet engine only; `None`: run to `duration`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop: Option<Stop>,
}

/// `output.stop`: a sequential test that ends a run early.
///
/// The statistics window is cut into `batches` equal batches. At the end of
/// batch `k` (`min_batches <= k < batches`) each verdict `metric op bound`
/// is tested on the `k` batch values of its metric (batch means, each
/// batch's value computed as the window's): with mean `m`, sample standard
/// deviation `s` and `h = t(q, k - 1) s / sqrt(k)`, the verdict is known
/// once `bound` lies outside `(m - h, m + h)`. The run stops at the first
/// boundary where every verdict is known; the summary then covers the
/// window up to there (`end_s`, `batches_run`).
///
/// Error: `q = 1 - (1 - confidence) / (batches - min_batches)` splits the
/// error over the boundaries where a run may stop (Bonferroni), so a run
/// stops on the wrong side of a bound with probability at most
/// `1 - confidence`, if its batch values are independent and normal
/// (batches much longer than the metric's correlation time; the batch
/// means method, Law & Kelton, *Simulation Modeling and Analysis*, 5th ed.,
/// section 9.5.3). A metric equal in every batch reads as known.
#[derive(Clone, Debug, Serialize)]
pub struct Stop {
    /// Batches in the statistics window (default 10).
    pub batches: u32,
    /// Batches measured before the first test (default 4).
    pub min_batches: u32,
    /// Probability that a stopped run's verdicts are right (default 0.95).
    pub confidence: f64,
    /// The verdicts to know before stopping.
    pub decide: Vec<Decide>,
}

/// One verdict of [`Stop`]: whether summary metric `metric` is `op` `bound`.
#[derive(Clone, Debug, Serialize)]
pub struct Decide {
    /// A window metric's summary name ([`Stop::METRICS`], or
    /// `goodput_bps_group<g>`).
    pub metric: String,
    /// `">="` or `"<="`.
    pub op: String,
    /// In the metric's unit (a fraction, seconds, packets or bits/s).
    pub bound: f64,
}

impl Stop {
    /// The window metrics a run can stop on (besides `goodput_bps_group<g>`):
    /// each is measured batch by batch as over the whole window. Jain's index
    /// and flow completion times are not: over a batch they measure another
    /// thing than over the window.
    pub const METRICS: &[&str] = &[
        "utilization",
        "goodput_bps",
        "drop_rate",
        "mean_queue_pkts",
        "mean_queue_delay_s",
        "p50_queue_delay_s",
        "p99_queue_delay_s",
    ];

    /// Start of batch boundary `i` (`0..=batches`) of the window `[warmup, duration]`.
    pub fn boundary(&self, i: u32, warmup: SimTime, duration: SimTime) -> SimTime {
        let span = (duration.0 - warmup.0) as u128;
        SimTime(warmup.0 + (span * u128::from(i) / u128::from(self.batches)) as u64)
    }
}

/// Fluid models the fluid engine offers (`fluid.model`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FluidModel {
    /// Per-flow window ODEs of Misra-Gong-Towsley as in paper 004 eqs. (1)-(5).
    Mgt,
    /// Paper 003's aggregate AIMD hybrid model, for Theorem 1.
    Hybrid,
}

impl FluidModel {
    /// The names a scenario may give.
    pub const NAMES: &[(&str, FluidModel)] =
        &[("mgt", FluidModel::Mgt), ("hybrid", FluidModel::Hybrid)];
}

/// Window-decrease forms of the fluid engine (`fluid.decrease`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Decrease {
    /// A flow reduces its window once per congestion event it records, as
    /// TCP's fast recovery does (RFC 6582).
    Event,
    /// Paper 004 eq. (1) literally: dW/dt = -b W lambda(t - R).
    Rate,
}

impl Decrease {
    /// The names a scenario may give.
    pub const NAMES: &[(&str, Decrease)] = &[("event", Decrease::Event), ("rate", Decrease::Rate)];
}

/// Which flows record the loss at a congestion event (`fluid.sync_policy`;
/// the fluid engine's loss-synchronization module, `fluid::sync`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SyncPolicy {
    /// The m_k flows with the highest arrival rate (paper 004 section II.D.1:
    /// "P l_k is the set of m_k flows with highest sending rates").
    HighestRate,
    /// m_k flows chosen uniformly at random.
    Random,
    /// Every flow (m_k ignored; the same as X = 1).
    All,
}

impl SyncPolicy {
    /// The names a scenario may give, with their policies.
    pub const NAMES: &[(&str, SyncPolicy)] = &[
        ("highest_rate", SyncPolicy::HighestRate),
        ("random", SyncPolicy::Random),
        ("all", SyncPolicy::All),
    ];
}

/// Settings of the fluid engine (`[fluid]`), defaults filled in. The packet
/// engine ignores them.
#[derive(Clone, Debug, Serialize)]
pub struct Fluid {
    /// `step`: fixed integration step. Default: the shortest RTT / 20, rounded
    /// down to a whole microsecond and capped at 4 ms (4 ms for paper 004's
    /// 80-260 ms RTTs): utilizations of paper 004's 10 Gbps scenarios then
    /// agree with 1 ms steps within 0.4%.
    #[serde(serialize_with = "units::ser_secs", rename = "step_s")]
    pub step: SimTime,
    /// `model`: `"mgt"` (default) or `"hybrid"`.
    pub model: FluidModel,
    /// `sync`: the minimum synchronized fraction X of paper 004 eq. (8), in
    /// (0, 1]. Absent (None): no loss-synchronization module; the overflow is
    /// split among all flows in proportion to their rates (eq. (5)). In the
    /// hybrid model, the fraction n~/n of flows signalled at each congestion.
    pub sync: Option<f64>,
    /// `sync_policy`: which flows record the loss at a congestion event:
    /// `"highest_rate"` (default, as paper 004 section II.D), `"random"`, `"all"`.
    pub sync_policy: SyncPolicy,
    /// `sync_sd`: standard deviation of the normal draw of m_k, as a fraction
    /// of N. The draw is centred on X N and clipped to [X N, N] (paper 004
    /// gives neither mean nor sd; X is its "minimum level of
    /// synchronization"). The default (1 - X)/4 puts the middle of [X N, N]
    /// at +2 sd: the mean synchronized fraction is about X + 0.1 (1 - X), and
    /// an event that hits all N flows is rare unless X = 1.
    pub sync_sd: f64,
    /// `decrease`: `"event"` (default: a flow reduces its window once per
    /// congestion event it records, as TCP's fast recovery does, RFC 6582) or
    /// `"rate"` (paper 004 eq. (1) literally: dW/dt = -b W lambda(t - R)).
    pub decrease: Decrease,
    /// Whether `step` was written in the scenario (else it is the default).
    #[serde(skip)]
    pub step_given: bool,
}

/// A validated scenario with every unit resolved.
#[derive(Clone, Debug, Serialize)]
pub struct Scenario {
    /// Label used in reports.
    pub name: String,
    /// Simulated duration.
    #[serde(serialize_with = "units::ser_secs", rename = "duration_s")]
    pub duration: SimTime,
    /// Initial period excluded from statistics.
    #[serde(serialize_with = "units::ser_secs", rename = "warmup_s")]
    pub warmup: SimTime,
    /// Seed of every random stream.
    pub seed: u64,
    /// The bottleneck.
    pub link: Link,
    /// TCP flow groups.
    pub flows: Vec<FlowGroup>,
    /// Background traffic.
    pub background: Vec<Background>,
    /// Outputs.
    pub output: Output,
    /// Fluid-engine settings.
    pub fluid: Fluid,
    /// A buffer shared by several copies of `link` (absent: one link with
    /// its own buffer).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pool: Option<Pool>,
    /// A chain of links in order (`links`, two or more; `link` is the
    /// first). Empty, and absent, for one link: `links = [L]` is `link = L`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<Link>,
    /// The bottleneck's return direction (absent: ACKs return over an
    /// uncongested path).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reverse: Option<Reverse>,
}

/// Default access-link buffer, packets (Linux's default `txqueuelen`).
pub const DEFAULT_ACCESS_BUFFER_PKTS: u64 = 1000;

/// Upper bound on the total number of flows (keeps memory and run time sane).
pub const MAX_FLOWS: u64 = 1_000_000;

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

    /// The queues of the packet engine: a chain's links, a pool's ports
    /// (copies of `link`), or the one link.
    pub fn queue_links(&self) -> Vec<&Link> {
        match (&self.pool, self.links.is_empty()) {
            (Some(p), _) => vec![&self.link; p.ports as usize],
            (None, false) => self.links.iter().collect(),
            (None, true) => vec![&self.link],
        }
    }
}

fn check(cond: bool, path: &str, msg: impl FnOnce() -> String) -> Result<(), ScenarioError> {
    if cond { Ok(()) } else { Err(err(path, msg())) }
}

fn resolve(raw: RawScenario) -> Result<Scenario, ScenarioError> {
    let seed = raw.seed.unwrap_or(1);
    let duration = raw.duration.0;
    check(duration > SimTime::ZERO, "duration", || {
        format!("must be > 0s, got {duration}")
    })?;
    let warmup = raw.warmup.map(|d| d.0).unwrap_or(SimTime::ZERO);
    check(warmup < duration, "warmup", || {
        format!("{warmup} must be shorter than duration {duration}")
    })?;

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
    let mut links = links.into_iter();
    let link = links.next().expect("a link");
    let links: Vec<Link> = if chain {
        std::iter::once(link.clone()).chain(links).collect()
    } else {
        Vec::new()
    };
    if let Some(p) = &pool {
        check(
            p.algorithm != Algorithm::Lqd || link.queue.is_fifo(),
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
    let ports = pool.as_ref().map_or(1, |p| p.ports);
    for (i, (g, port)) in flows.iter_mut().zip(group_ports).enumerate() {
        g.port = resolve_port(port, &group_path(i, "port"), ports)?;
    }
    let caps: Vec<f64> = if chain {
        links.iter().map(|l| l.capacity_bps).collect()
    } else {
        vec![link.capacity_bps]
    };
    let bg_classes: Vec<Option<i64>> = raw.background.iter().map(|b| b.class).collect();
    let mut background = resolve_background(raw.background, &caps, ports)?;
    classes::assign(
        &link,
        &links,
        pool.as_ref(),
        &mut flows[..forward],
        group_classes,
        &mut background,
        bg_classes,
    )?;
    let output = resolve_output(raw.output.unwrap_or_default(), duration, flows.len())?;
    check(
        !(output.trace && (pool.is_some() || chain || reverse.is_some())),
        "output.trace",
        || {
            "the packet trace records one queue: not available with a [pool], a chain (links) \
             or a [reverse] link"
                .into()
        },
    )?;
    let fluid = resolve_fluid(raw.fluid.unwrap_or_default(), &all_rtts)?;

    Ok(Scenario {
        name: raw.name.unwrap_or_else(|| "scenario".into()),
        duration,
        warmup,
        seed,
        link,
        flows,
        background,
        output,
        fluid,
        pool,
        links,
        reverse,
    })
}

/// Most links a chain may hold.
pub const MAX_LINKS: u32 = 64;

/// What a link's table says before the flows are known: its path in the
/// scenario (`link` or `links[i]`), capacity, delay and discipline's name,
/// and the rest as written.
struct LinkHead {
    path: String,
    cap: f64,
    delay: SimTime,
    qdisc: String,
    raw: RawLink,
}

fn link_head(path: String, raw: RawLink) -> Result<LinkHead, ScenarioError> {
    let cap = raw.capacity.0.0;
    check(cap > 0.0, &format!("{path}.capacity"), || {
        format!("must be > 0bps, got {cap}bps")
    })?;
    check(cap <= 1e13, &format!("{path}.capacity"), || {
        format!("{cap}bps exceeds the 10Tbps limit")
    })?;
    let qdisc = raw.qdisc.clone().unwrap_or_else(|| "droptail".into());
    check(
        QDISCS.contains(&qdisc.as_str()),
        &format!("{path}.qdisc"),
        || {
            format!(
                "unknown queue discipline {qdisc:?}: allowed are {}",
                QDISCS.join(", ")
            )
        },
    )?;
    Ok(LinkHead {
        cap,
        delay: raw.delay.0,
        qdisc,
        path,
        raw,
    })
}

/// A link with its buffer and discipline resolved: its packet size (default
/// `first_mss`, else 1500 B), its BDP over the flows' RTTs `bdp_rtts` (else
/// twice its delay), and `pool` (taken by the first link: its size in the
/// link's terms, then the resolved pool) whose size is the buffer's default.
fn resolve_link(
    h: LinkHead,
    first_mss: Option<u64>,
    bdp_rtts: &[SimTime],
    pool: &mut Option<RawPool>,
) -> Result<(Link, Option<Pool>), ScenarioError> {
    let (path, cap, delay) = (h.path.as_str(), h.cap, h.delay);
    let packet_size = h.raw.packet_size.map(|s| s.0).or(first_mss).unwrap_or(1500);
    check(
        (64..=65_535).contains(&packet_size),
        &format!("{path}.packet_size"),
        || format!("must be between 64B and 65535B, got {packet_size}B"),
    )?;
    let bdp_rtt = match h.raw.bdp_rtt {
        Some(d) => d.0,
        None if !bdp_rtts.is_empty() => SimTime(
            (bdp_rtts.iter().map(|t| t.0 as u128).sum::<u128>() / bdp_rtts.len() as u128) as u64,
        ),
        None => delay.times(2),
    };
    let bdp_pkts = cap * bdp_rtt.as_secs_f64() / (8.0 * packet_size as f64);
    let size = |b: BufferSize, path: &str| buffer_size(b, path, cap, bdp_pkts, packet_size);
    let pool = match pool.take() {
        Some(raw) => {
            let (mode, size_pkts, size_bytes) = size(raw.size.0, "pool.size")?;
            Some(resolve_pool(
                raw,
                mode,
                size_pkts,
                size_bytes,
                packet_size as u32,
            )?)
        }
        None => None,
    };
    // Without a pool the link's buffer is required; with one it is each
    // port's own limit beside the threshold, by default the pool's size.
    let (mode, buffer_pkts, buffer_bytes) = match (h.raw.buffer, &pool) {
        (Some(b), _) => size(b.0, &format!("{path}.buffer"))?,
        (None, Some(p)) => (p.mode, p.size_pkts, p.size_bytes),
        (None, None) => return Err(err(path, "missing field `buffer`")),
    };
    // Queue discipline (its defaults depend on the packet size and buffer mode).
    let info = link_info(packet_size as u32, mode, cap);
    let params = h.raw.qdisc_params.unwrap_or_default();
    let queue = QdiscConfig::from_params(&h.qdisc, &params, info).map_err(|(key, msg)| {
        if key.is_empty() {
            err(format!("{path}.qdisc"), msg)
        } else {
            err(format!("{path}.qdisc_params.{key}"), msg)
        }
    })?;
    let mut link = Link {
        capacity_bps: cap,
        delay,
        buffer_pkts,
        buffer_bytes,
        buffer_mode: mode,
        packet_size_bytes: packet_size as u32,
        bdp_rtt,
        bdp_pkts,
        queue,
        classes: None,
    };
    link.classes = classes::resolve(path, h.raw.scheduler, h.raw.queues, &link, pool.as_ref())?;
    Ok((link, pool))
}

/// The links of a chain a flow group (`several`) or a background source
/// crosses, given at `path` as consecutive indices in order, among `n`
/// links (default: all of them).
fn resolve_links(
    given: Option<&[i64]>,
    path: &str,
    n: usize,
    several: bool,
) -> Result<Vec<u32>, ScenarioError> {
    let Some(v) = given else {
        return Ok((0..n as u32).collect());
    };
    check(!v.is_empty(), path, || {
        "the list is empty: give the links it crosses, e.g. [0, 1]".into()
    })?;
    check(several || v.len() == 1, path, || {
        format!("{v:?}: background packets cross one link of a chain, e.g. [1]")
    })?;
    for &k in v {
        check((0..n as i64).contains(&k), path, || {
            if n == 1 {
                format!("{v:?}: there is one link (0) without a chain (links = [...])")
            } else {
                format!(
                    "{v:?}: link {k} is not between 0 and {} (links has {n})",
                    n - 1
                )
            }
        })?;
    }
    check(v.windows(2).all(|w| w[1] == w[0] + 1), path, || {
        format!("{v:?}: give consecutive links in order, e.g. [1, 2, 3]")
    })?;
    Ok(v.iter().map(|&k| k as u32).collect())
}

/// A buffer `b` at `path` on a link of `cap` bits/s whose BDP is `bdp_pkts`
/// packets of `packet_size` bytes: its unit, packets and bytes.
fn buffer_size(
    b: BufferSize,
    path: &str,
    cap: f64,
    bdp_pkts: f64,
    packet_size: u64,
) -> Result<(BufferMode, u64, u64), ScenarioError> {
    let (mode, pkts, bytes) = match b {
        BufferSize::Packets(k) => (BufferMode::Packets, k, k.saturating_mul(packet_size)),
        BufferSize::Bytes(b) => (BufferMode::Bytes, b / packet_size, b),
        // What the link sends in that time: a byte-mode buffer, as the
        // memory a vendor's figure describes.
        BufferSize::Time(t) => {
            let b = (cap * t.as_secs_f64() / 8.0).round() as u64;
            (BufferMode::Bytes, b / packet_size, b)
        }
        BufferSize::Bdp(frac) => {
            check(bdp_pkts > 0.0, path, || {
                "a BDP fraction needs a non-zero RTT: set link.bdp_rtt or add flows".into()
            })?;
            let k = (frac * bdp_pkts).round();
            check(k <= 100_000_000.0, path, || {
                format!("{frac} BDP is {k} packets, past the limit of 100,000,000")
            })?;
            let k = k as u64;
            (BufferMode::Packets, k, k * packet_size)
        }
    };
    check(pkts >= 1, path, || {
        format!("must hold at least one packet of {packet_size}B, got {bytes}B ({pkts} packets)")
    })?;
    check(pkts <= 100_000_000, path, || {
        format!("{pkts} packets exceeds the limit of 100,000,000")
    })?;
    Ok((mode, pkts, bytes))
}

/// Most ports one pool feeds (each is a server of the packet engine).
pub const MAX_PORTS: u32 = 64;

/// `[pool]`, its size resolved (`mode`, packets and bytes).
fn resolve_pool(
    raw: RawPool,
    mode: BufferMode,
    size_pkts: u64,
    size_bytes: u64,
    packet_size: u32,
) -> Result<Pool, ScenarioError> {
    let ports = raw.ports;
    check(
        (1..=i64::from(MAX_PORTS)).contains(&ports),
        "pool.ports",
        || format!("must be between 1 and {MAX_PORTS}, got {ports}"),
    )?;
    let algorithm = match raw.algorithm.as_deref() {
        None => Algorithm::default(),
        Some(name) => Algorithm::from_name(name).ok_or_else(|| {
            let names: Vec<&str> = Algorithm::ALL.iter().map(|a| a.name()).collect();
            err(
                "pool.algorithm",
                format!("must be one of {}, got {name:?}", names.join(", ")),
            )
        })?,
    };
    // Choudhury & Hahne's alpha: 1 is their example's and a common switch
    // default; powers of two from 1/64 to 64 are what switch chips offer.
    let alpha = raw.alpha.unwrap_or(1.0);
    check(
        alpha.is_finite() && alpha > 0.0 && alpha <= 1e6,
        "pool.alpha",
        || format!("must be > 0 and at most 1000000, got {alpha}"),
    )?;
    let interval = match (raw.interval, algorithm) {
        (None, Algorithm::Abm) => Some(shared::abm::DEFAULT_INTERVAL),
        (Some(Dur(t)), Algorithm::Abm) => {
            check(
                t > SimTime::ZERO && t <= SimTime::from_secs_f64(1.0),
                "pool.interval",
                || format!("must be > 0s and at most 1s, got {t}"),
            )?;
            Some(t)
        }
        (Some(Dur(t)), a) => {
            return Err(err(
                "pool.interval",
                format!(
                    "{t}: only the abm algorithm has an update interval, not pool.algorithm {:?}",
                    a.name()
                ),
            ));
        }
        (None, _) => None,
    };
    // ABM's saturation: 20 packets, in the pool's unit.
    let sat = match mode {
        BufferMode::Packets => shared::abm::SAT_PKTS,
        BufferMode::Bytes => shared::abm::SAT_PKTS * u64::from(packet_size),
    };
    Ok(Pool {
        ports: ports as u32,
        algorithm,
        alpha,
        interval,
        sat,
        size_pkts,
        size_bytes,
        mode,
    })
}

/// The port a flow group or background source at `path` names, checked
/// against the pool's ports (0 without a pool).
fn resolve_port(port: Option<i64>, path: &str, ports: u32) -> Result<u32, ScenarioError> {
    let Some(k) = port else { return Ok(0) };
    check((0..i64::from(ports)).contains(&k), path, || {
        if ports == 1 {
            format!("{k}: there is one port (0) without a [pool] of several")
        } else {
            format!(
                "must be between 0 and {} (pool.ports - 1), got {k}",
                ports - 1
            )
        }
    })?;
    Ok(k as u32)
}

/// Background traffic, each source's rate checked against the link's
/// capacity `cap` (bits/s).
fn resolve_background(
    raw: Vec<RawBackground>,
    caps: &[f64],
    ports: u32,
) -> Result<Vec<Background>, ScenarioError> {
    let n_links = caps.len();
    let mut background = Vec::new();
    for (i, b) in raw.into_iter().enumerate() {
        let p = |field: &str| format!("background[{i}].{field}");
        let kind = choose(
            Some(b.kind),
            BackgroundKind::Poisson,
            BackgroundKind::NAMES,
            &p("kind"),
            "background kind",
        )?;
        let rate = b.rate.0.0;
        check(rate > 0.0, &p("rate"), || {
            format!("must be > 0bps, got {rate}bps")
        })?;
        // On a chain, the one link it crosses (default the first).
        let links = match b.links {
            Some(v) if n_links > 1 => resolve_links(Some(&v), &p("links"), n_links, false)?,
            None if n_links > 1 => vec![0],
            v => {
                resolve_links(v.as_deref(), &p("links"), n_links, false)?;
                Vec::new()
            }
        };
        let (cap, what) = match links.first() {
            Some(&k) => (caps[k as usize], format!("links[{k}].capacity")),
            None => (caps[0], "link.capacity".to_string()),
        };
        check(rate < 10.0 * cap, &p("rate"), || {
            format!("{rate}bps is more than 10 times {what}: the queue would only overflow")
        })?;
        let ps = b.packet_size.0;
        check((40..=65_535).contains(&ps), &p("packet_size"), || {
            format!("must be between 40B and 65535B, got {ps}B")
        })?;
        background.push(Background {
            kind,
            rate_bps: rate,
            packet_size_bytes: ps as u32,
            port: resolve_port(b.port, &p("port"), ports)?,
            links,
            class: 0,
        });
    }

    Ok(background)
}

/// What to record, the sampling interval checked against the run's
/// `duration`; `groups` flow groups (for `output.stop`).
fn resolve_output(
    out: RawOutput,
    duration: SimTime,
    groups: usize,
) -> Result<Output, ScenarioError> {
    let large_flow = out.large_flow.map(|s| s.0).unwrap_or(100_000);
    check(large_flow > 0, "output.large_flow", || {
        format!("must be > 0B, got {large_flow}B")
    })?;
    let interval = out
        .interval
        .map(|d| d.0)
        .unwrap_or(SimTime::from_millis(100));
    check(interval > SimTime::ZERO, "output.interval", || {
        format!("must be > 0s, got {interval}")
    })?;
    check(
        duration.0 / interval.0.max(1) <= 10_000_000,
        "output.interval",
        || {
            format!(
                "{interval} gives more than 10 million samples over duration {duration}: raise output.interval or shorten duration"
            )
        },
    )?;

    Ok(Output {
        interval,
        cwnd: out.cwnd.unwrap_or(false),
        large_flow_bytes: large_flow,
        trace: out.trace.unwrap_or(false),
        halves: out.halves.unwrap_or(false),
        stop: out.stop.map(|st| resolve_stop(st, groups)).transpose()?,
    })
}

/// `output.stop`, checked; `groups` flow groups.
fn resolve_stop(raw: RawStop, groups: usize) -> Result<Stop, ScenarioError> {
    let batches = raw.batches.unwrap_or(10);
    check((2..=1000).contains(&batches), "output.stop.batches", || {
        format!("must be between 2 and 1000, got {batches}")
    })?;
    let min_batches = raw.min_batches.unwrap_or(4.min(batches));
    check(
        (2..=batches).contains(&min_batches),
        "output.stop.min_batches",
        || format!("must be between 2 and output.stop.batches ({batches}), got {min_batches}"),
    )?;
    let confidence = raw.confidence.unwrap_or(0.95);
    check(
        confidence > 0.0 && confidence < 1.0,
        "output.stop.confidence",
        || format!("must be between 0 and 1 (exclusive), got {confidence}"),
    )?;
    check(!raw.decide.is_empty(), "output.stop.decide", || {
        "must name at least one verdict, e.g. {metric = \"utilization\", op = \">=\", bound = 0.98}"
            .into()
    })?;
    let mut decide = Vec::with_capacity(raw.decide.len());
    for (i, d) in raw.decide.into_iter().enumerate() {
        let path = |f: &str| format!("output.stop.decide[{i}].{f}");
        let group = d
            .metric
            .strip_prefix("goodput_bps_group")
            .and_then(|g| g.parse::<usize>().ok());
        let known = Stop::METRICS.contains(&d.metric.as_str()) || group.is_some_and(|g| g < groups);
        check(known, &path("metric"), || {
            format!(
                "unknown metric {:?}: one of {}, or goodput_bps_group<g> for a flow group g below {groups}",
                d.metric,
                Stop::METRICS.join(", ")
            )
        })?;
        check(d.op == ">=" || d.op == "<=", &path("op"), || {
            format!("must be \">=\" or \"<=\", got {:?}", d.op)
        })?;
        check(d.bound.is_finite(), &path("bound"), || {
            format!("must be a finite number, got {}", d.bound)
        })?;
        decide.push(Decide {
            metric: d.metric,
            op: d.op,
            bound: d.bound,
        });
    }
    Ok(Stop {
        batches,
        min_batches,
        confidence,
        decide,
    })
}

/// The path of field `field` of flow group `i` (for errors).
fn group_path(i: usize, field: &str) -> String {
    format!("flows[{i}].{field}")
}

/// What of the link and the run a flow group's fields are checked against.
struct GroupContext {
    /// Bottleneck capacity (the least of the links it crosses), bits/s.
    cap: f64,
    /// One-way delay of the links it crosses.
    delay: SimTime,
    /// What `delay` is, for errors (`link.delay`).
    delay_what: String,
    /// The run's duration.
    duration: SimTime,
}

/// Resolve flow group `i`: its kind and size, variant, RTTs, access link,
/// stack, starts and traffic, drawing random RTTs and starts from `rng` (in
/// that order) and adding its flows to `total`.
fn resolve_group(
    i: usize,
    f: RawFlows,
    at: &GroupContext,
    rng: &mut Rng,
    total: &mut u64,
) -> Result<FlowGroup, ScenarioError> {
    let p = |field: &str| group_path(i, field);
    let (cap, delay, duration) = (at.cap, at.delay, at.duration);
    // Kind of group (traffic::Kind): count / arrival / users are exclusive.
    let kind = match (&f.arrival, f.users) {
        (Some(_), Some(_)) => {
            return Err(err(
                p("users"),
                "a group is open loop (arrival) or closed loop (users), not both: split it into two [[flows]] groups",
            ));
        }
        (Some(_), None) => Kind::Open,
        (None, Some(_)) => Kind::Closed,
        (None, None) if f.size.is_some() => Kind::Finite,
        (None, None) => Kind::Persistent,
    };
    let dynamic = matches!(kind, Kind::Open | Kind::Closed);
    if dynamic {
        if let Some(c) = f.count {
            return Err(err(
                p("count"),
                format!(
                    "{c}: an open-loop (arrival) or closed-loop (users) group creates its flows during the run; remove count"
                ),
            ));
        }
        check(f.size.is_some(), &p("size"), || {
            format!(
                "missing: an {} group needs a transfer size, e.g. size = {{exponential = \"50pkt\"}}",
                if kind == Kind::Open {
                    "open-loop (arrival)"
                } else {
                    "closed-loop (users)"
                }
            )
        })?;
    }
    let count = if dynamic { 0 } else { f.count.unwrap_or(1) };
    check(dynamic || count >= 1, &p("count"), || {
        format!("must be >= 1, got {count}")
    })?;
    let users = match f.users {
        None => None,
        Some(u) => {
            check((1..=MAX_FLOWS as i64).contains(&u), &p("users"), || {
                format!("must be a whole number of users from 1 to {MAX_FLOWS}, got {u}")
            })?;
            Some(u as u32)
        }
    };
    *total += count as u64 + users.unwrap_or(0) as u64;
    check(*total <= MAX_FLOWS, &p("count"), || {
        format!("total number of flows {total} exceeds the limit of {MAX_FLOWS}")
    })?;
    let n = count as usize;
    let tcp = f.tcp.as_deref().unwrap_or("newreno");
    let cc = CcConfig::from_params(tcp, &f.tcp_params.clone().unwrap_or_default()).map_err(
        |(key, msg)| {
            if key.is_empty() {
                err(p("tcp"), msg)
            } else {
                err(p(&format!("tcp_params.{key}")), msg)
            }
        },
    )?;
    //= RFC 8257 section 3.3: a DCTCP sender's packets are ECN-capable (its
    //= reaction is to the marks): `ecn` defaults to true and false is refused.
    let ecn = match f.ecn {
        Some(false) if cc.ecn_per_packet() => {
            return Err(err(
                p("ecn"),
                format!(
                    "tcp = {:?} needs ECN (it reacts to the fraction of CE-marked packets, \
                     RFC 8257): set ecn = true or leave it out, got false",
                    cc.name()
                ),
            ));
        }
        Some(e) => e,
        None => cc.ecn_per_packet(),
    };
    let (rtts, rtt_draw) = group_rtts(&f, i, n, dynamic, (delay, &at.delay_what), rng)?;
    let mss = f.mss.map(|s| s.0).unwrap_or(1500);
    check((64..=65_535).contains(&mss), &p("mss"), || {
        format!("must be between 64B and 65535B, got {mss}B")
    })?;
    let (access, access_buffer, jitter, rwnd) = group_access(&f, i, mss)?;
    let r = group_stack(&f, i)?;
    check(r.sack || !cc.needs_sack(), &p("sack"), || {
        format!(
            "tcp = {:?} needs sack = true: its delivery-rate samples count the segments \
             each ACK delivers by SACK (without SACK they stop in every recovery), got false",
            cc.name()
        )
    })?;
    let (begin, starts) = group_starts(&f, i, n, dynamic, duration, rng)?;
    let loss = f.loss.unwrap_or(0.0);
    check((0.0..1.0).contains(&loss), &p("loss"), || {
        format!("must be a probability in [0, 1), got {loss}")
    })?;
    let t = group_traffic(&f, i, kind, mss, cap, duration)?;
    let hm = match &rtt_draw {
        Some(d) => d.harmonic_mean_s(),
        None => harmonic_mean(&rtts.iter().map(|t| t.as_secs_f64()).collect::<Vec<_>>()),
    };
    Ok(FlowGroup {
        kind,
        size: t.size,
        mean_size_pkts: t.mean_size,
        arrival_rate_per_s: t.rate,
        arrival_burst: t.burst,
        arrival_every: t.every,
        offered_load: t.load,
        users,
        think: t.think,
        connection_setup: f.connection_setup.unwrap_or(r.handshake),
        max_active: t.max_active,
        rtt_draw,
        begin,
        rtt_harmonic_mean_s: hm,
        port: 0,
        links: Vec::new(),
        reverse: false,
        class: 0,
        path_delay: delay,
        delay_before_last: SimTime::ZERO,
        count: count as u32,
        cc,
        rtt_law_mean: if dynamic { None } else { rtt_law_mean(&f.rtt) },
        rtts,
        mss_bytes: mss as u32,
        access_rate_bps: access,
        access_buffer_pkts: access_buffer as u32,
        jitter,
        rwnd_pkts: rwnd.map(|w| w as u32),
        initial_window_pkts: r.iw as u32,
        min_rto: r.min_rto,
        starts,
        stack: r.stack,
        sack: r.sack,
        delayed_ack: r.delayed_ack,
        delack_timeout: r.delack_timeout,
        quick_acks: r.quick_acks,
        push_ack: r.push_ack,
        prr: r.prr,
        prr_variant: r.prr_variant,
        rack: r.rack,
        hystart: r.hystart,
        defaulted: r.defaulted,
        abc: r.abc,
        limited_transmit: r.limited_transmit,
        partial_ack_retransmit: r.partial_ack_retransmit,
        dupack_growth: r.dupack_growth,
        rto_ssthresh: r.rto_ssthresh,
        rto_collapse: r.rto_collapse,
        rto_timer: r.rto_timer,
        recovery_entry: r.recovery_entry,
        sack_pipe: r.sack_pipe,
        recovery_exit: r.recovery_exit,
        rtt_sampling: r.rtt_sampling,
        cut_from: r.cut_from,
        ecn_reduction: r.ecn_reduction,
        ce_ack: r.ce_ack,
        control_ect: r.control_ect,
        ecn,
        loss,
    })
}

/// The mean of the law a group's RTTs are drawn from: `uniform` on [a, b]
/// and a tree's uniformly chosen node (`traffic::tree`); None where the
/// RTTs are given rather than drawn.
fn rtt_law_mean(spec: &RttSpec) -> Option<SimTime> {
    match spec {
        RttSpec::Uniform(a, b) => Some(SimTime(((a.0 as u128 + b.0 as u128) / 2) as u64)),
        RttSpec::Tree(t) => {
            let nodes = t.node_rtts().ok()?;
            let sum: u128 = nodes.iter().map(|r| r.0 as u128).sum();
            Some(SimTime((sum / nodes.len().max(1) as u128) as u64))
        }
        RttSpec::Fixed(_) | RttSpec::List(_) | RttSpec::Range(..) => None,
    }
}

/// A flow group's RTTs (one per flow; drawn from `rng` for a tree or a
/// uniform range), or for open and closed loop how each transfer draws its
/// RTT; every RTT must cover the bottleneck's delay both ways.
fn group_rtts(
    f: &RawFlows,
    i: usize,
    n: usize,
    dynamic: bool,
    (delay, delay_what): (SimTime, &str),
    rng: &mut Rng,
) -> Result<(Vec<SimTime>, Option<RttDraw>), ScenarioError> {
    let p = |field: &str| group_path(i, field);
    let rtt_spec = f.rtt.clone();
    let rtts: Vec<SimTime> = match f.rtt.clone() {
        _ if dynamic => Vec::new(),
        RttSpec::Tree(t) => {
            let nodes = t.node_rtts().map_err(|m| err(p("rtt"), m))?;
            (0..n)
                .map(|_| nodes[rng.random_range(0..nodes.len())])
                .collect()
        }
        RttSpec::Fixed(t) => vec![t; n],
        RttSpec::List(v) => {
            check(v.len() == n, &p("rtt"), || {
                format!(
                    "list has {} values but count is {n}: give one RTT per flow",
                    v.len()
                )
            })?;
            v
        }
        RttSpec::Range(a, b) => {
            check(a <= b, &p("rtt"), || format!("min {a} must be <= max {b}"))?;
            (0..n)
                .map(|k| {
                    if n == 1 {
                        a
                    } else {
                        SimTime(a.0 + ((b.0 - a.0) as u128 * k as u128 / (n - 1) as u128) as u64)
                    }
                })
                .collect()
        }
        RttSpec::Uniform(a, b) => {
            check(a <= b, &p("rtt"), || {
                format!("uniform bounds [{a}, {b}]: the first must be <= the second")
            })?;
            (0..n)
                .map(|_| SimTime(rng.random_range(a.0..=b.0)))
                .collect()
        }
    };
    // Open and closed loop: each transfer draws its RTT (a range is uniform here).
    let rtt_draw = if dynamic {
        Some(match rtt_spec {
            RttSpec::Fixed(t) => RttDraw::Fixed(t),
            RttSpec::List(v) => {
                check(!v.is_empty(), &p("rtt"), || {
                    "the list is empty: give at least one RTT".into()
                })?;
                RttDraw::Choice(v)
            }
            RttSpec::Range(a, b) | RttSpec::Uniform(a, b) => {
                check(a <= b, &p("rtt"), || format!("min {a} must be <= max {b}"))?;
                RttDraw::Uniform(a, b)
            }
            RttSpec::Tree(t) => RttDraw::Choice(t.node_rtts().map_err(|m| err(p("rtt"), m))?),
        })
    } else {
        None
    };
    let support: Vec<SimTime> = rtt_draw.as_ref().map(|d| d.support()).unwrap_or_default();
    for (k, &r) in rtts.iter().chain(support.iter()).enumerate() {
        check(r >= delay.times(2) && r > SimTime::ZERO, &p("rtt"), || {
            format!(
                "RTT {r} of flow {k} is shorter than twice {delay_what} ({}): the round trip includes the bottleneck both ways",
                delay.times(2)
            )
        })?;
    }
    Ok((rtts, rtt_draw))
}

/// A flow group's access link (rate, buffer in packets), send jitter and
/// receiver window (packets).
#[allow(clippy::type_complexity)]
fn group_access(
    f: &RawFlows,
    i: usize,
    mss: u64,
) -> Result<(Option<f64>, u64, SimTime, Option<u64>), ScenarioError> {
    let p = |field: &str| group_path(i, field);
    let access = f.access_rate.map(|r| r.0.0);
    if let Some(a) = access {
        check(a > 0.0, &p("access_rate"), || {
            format!("must be > 0bps, got {a}bps")
        })?;
    }
    let access_buffer = match f.access_buffer.map(|b| b.0) {
        Some(_) if access.is_none() => {
            return Err(err(
                p("access_buffer"),
                "needs access_rate: without a rate limit the access link never queues",
            ));
        }
        None => DEFAULT_ACCESS_BUFFER_PKTS,
        Some(BufferSize::Packets(k)) => k,
        Some(BufferSize::Bytes(b)) => b / mss,
        // At the access rate (`access` is set: checked above).
        Some(BufferSize::Time(t)) => {
            let rate = access.unwrap_or(0.0);
            (rate * t.as_secs_f64() / 8.0).round() as u64 / mss
        }
        Some(BufferSize::Bdp(_)) => {
            return Err(err(
                p("access_buffer"),
                "must be in packets (\"100pkt\"), bytes (\"150KB\") or a time at the access rate (\"1ms\"), not a BDP fraction",
            ));
        }
    };
    check(
        (1..=100_000_000).contains(&access_buffer),
        &p("access_buffer"),
        || {
            format!(
                "must hold from one packet ({mss}B) to 100000000 packets, got {access_buffer} packets"
            )
        },
    )?;
    let jitter = f.jitter.map(|d| d.0).unwrap_or(SimTime::ZERO);
    check(jitter <= SimTime::from_millis(1000), &p("jitter"), || {
        format!("must be at most 1s, got {jitter}")
    })?;
    let rwnd = match f.rwnd.map(|b| b.0) {
        None => None,
        Some(BufferSize::Packets(k)) => Some(k),
        Some(BufferSize::Bytes(b)) => Some(b / mss),
        Some(BufferSize::Bdp(_) | BufferSize::Time(_)) => {
            return Err(err(
                p("rwnd"),
                "must be in packets (\"64pkt\") or bytes (\"64KB\"), not a BDP fraction or a time",
            ));
        }
    };
    if let Some(w) = rwnd {
        check((1..=u32::MAX as u64 / 2).contains(&w), &p("rwnd"), || {
            format!(
                "must be from one packet ({mss}B) to {} packets, got {w} packets",
                u32::MAX / 2
            )
        })?;
    }
    Ok((access, access_buffer, jitter, rwnd))
}

/// Which of a group's per-packet stack features came from the default
/// profile, the group naming neither the field nor a stack
/// ([`FlowGroup::defaulted`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Defaulted {
    /// `hystart` is the default profile's.
    pub hystart: bool,
    /// `delayed_ack` is the default profile's.
    pub delayed_ack: bool,
}

/// A flow group's stack profile and the loss-recovery fields it defaults.
struct Recovery {
    stack: Stack,
    sack: bool,
    prr: bool,
    prr_variant: PrrVariant,
    rack: bool,
    rto_ssthresh: RtoSsthresh,
    rto_collapse: RtoCollapse,
    rto_timer: RtoTimer,
    recovery_entry: RecoveryEntry,
    sack_pipe: SackPipe,
    recovery_exit: RecoveryExit,
    rtt_sampling: RttSampling,
    cut_from: CutFrom,
    ecn_reduction: EcnReduction,
    ce_ack: CeAck,
    control_ect: ControlEct,
    iw: i64,
    min_rto: SimTime,
    delayed_ack: bool,
    delack_timeout: SimTime,
    quick_acks: u32,
    push_ack: bool,
    handshake: bool,
    hystart: bool,
    defaulted: Defaulted,
    abc: SlowStart,
    limited_transmit: bool,
    partial_ack_retransmit: bool,
    dupack_growth: bool,
}

/// The rule a flow field names (`name`), or the profile's `default` when
/// the field is unset; an unknown name is an error at `path` listing the
/// allowed ones.
fn named_rule<T: NamedRule>(
    name: Option<&str>,
    default: T,
    path: String,
) -> Result<T, ScenarioError> {
    match name {
        None => Ok(default),
        Some(name) => T::parse(name).ok_or_else(|| {
            err(
                path,
                format!("unknown rule {name:?}; allowed: {}", T::names()),
            )
        }),
    }
}

/// A flow group's stack profile and loss-recovery settings (the profile
/// fills what the group leaves unset, `tcp::stack`).
fn group_stack(f: &RawFlows, i: usize) -> Result<Recovery, ScenarioError> {
    let p = |field: &str| group_path(i, field);
    let stack = match f.stack.as_deref() {
        None => Stack::default(),
        Some(name) => Stack::parse(name).ok_or_else(|| {
            err(
                p("stack"),
                format!(
                    "unknown stack profile {name:?}; allowed: {}",
                    Stack::ALL.map(Stack::name).join(", ")
                ),
            )
        })?,
    };
    let profile = stack.defaults();
    let sack = f.sack.unwrap_or(true);
    let prr_variant = named_rule(
        f.prr_variant.as_deref(),
        profile.prr_variant,
        p("prr_variant"),
    )?;
    // Without SACK only ns-3's PRR runs: TcpPrrRecovery over the pipe
    // ns-3.37's BytesInFlight() guesses from duplicate ACKs (AddRenoSack).
    let reno_prr = prr_variant == PrrVariant::Ns3;
    let prr = match f.prr {
        Some(true) if !sack && !reno_prr => {
            return Err(err(
                p("prr"),
                "true needs sack = true (PRR paces a recovery by the SACK pipe estimate, RFC 9937) \
                 or prr_variant = \"ns3\" (ns-3's PRR over the pipe it guesses from duplicate ACKs)",
            ));
        }
        Some(v) => v,
        None => profile.prr && (sack || reno_prr),
    };
    let rack = match f.recovery.as_deref() {
        None => profile.rack && sack,
        Some("rfc6675") => false,
        Some("rack") if sack => true,
        Some("rack") => {
            return Err(err(
                p("recovery"),
                "\"rack\" needs sack = true: RACK-TLP detects losses from SACKed segments (RFC 8985)",
            ));
        }
        Some(other) => {
            return Err(err(
                p("recovery"),
                format!(
                    "unknown loss recovery {other:?}; allowed: \"rfc6675\" (DupThresh, RFC 6675) or \"rack\" (RACK-TLP, RFC 8985)"
                ),
            ));
        }
    };
    let rto_ssthresh = named_rule(
        f.rto_ssthresh.as_deref(),
        profile.rto_ssthresh,
        p("rto_ssthresh"),
    )?;
    let rto_collapse = named_rule(
        f.rto_collapse.as_deref(),
        profile.rto_collapse,
        p("rto_collapse"),
    )?;
    let rto_timer = named_rule(f.rto_timer.as_deref(), profile.rto_timer, p("rto_timer"))?;
    let recovery_entry = named_rule(
        f.recovery_entry.as_deref(),
        profile.recovery_entry,
        p("recovery_entry"),
    )?;
    let sack_pipe = named_rule(f.sack_pipe.as_deref(), profile.sack_pipe, p("sack_pipe"))?;
    let recovery_exit = named_rule(
        f.recovery_exit.as_deref(),
        profile.recovery_exit,
        p("recovery_exit"),
    )?;
    let rtt_sampling = named_rule(
        f.rtt_sampling.as_deref(),
        profile.rtt_sampling,
        p("rtt_sampling"),
    )?;
    let cut_from = named_rule(f.cut_from.as_deref(), profile.cut_from, p("cut_from"))?;
    let ecn_reduction = named_rule(
        f.ecn_reduction.as_deref(),
        profile.ecn_reduction,
        p("ecn_reduction"),
    )?;
    let ce_ack = named_rule(f.ce_ack.as_deref(), profile.ce_ack, p("ce_ack"))?;
    let control_ect = named_rule(
        f.control_ect.as_deref(),
        profile.control_ect,
        p("control_ect"),
    )?;
    let abc = match &f.abc {
        None => stack.slow_start(f.tcp.as_deref().unwrap_or("newreno")),
        Some(v) => SlowStart::parse(v).ok_or_else(|| {
            err(
                p("abc"),
                format!(
                    "{v}: allowed are false (one segment per ACK, RFC 5681), true (every acknowledged \
                     segment up to ssthresh, Linux) or \"uncapped\" (every one, no cap: ns-3.37's CUBIC)"
                ),
            )
        })?,
    };
    let iw = f.initial_window.unwrap_or(profile.initial_window as i64);
    check((1..=1000).contains(&iw), &p("initial_window"), || {
        format!("must be a whole number of packets from 1 to 1000, got {iw}")
    })?;
    let min_rto = f.min_rto.map(|d| d.0).unwrap_or(profile.min_rto);
    check(min_rto >= SimTime::from_millis(1), &p("min_rto"), || {
        format!("must be >= 1ms, got {min_rto}")
    })?;
    let delack_timeout = f
        .delack_timeout
        .map(|d| d.0)
        .unwrap_or(profile.delack_timeout);
    //= RFC 5681 section 4.2 (RFC 1122 4.2.3.2): the delay "MUST be less
    //= than 0.5 seconds".
    check(
        delack_timeout >= SimTime::from_millis(1) && delack_timeout < SimTime::from_millis(500),
        &p("delack_timeout"),
        || {
            format!(
                "must be at least 1ms and less than 500ms (RFC 5681 section 4.2), got {delack_timeout}"
            )
        },
    )?;
    let quick_acks = f.quick_acks.unwrap_or(profile.quick_acks as i64);
    check((0..=1000).contains(&quick_acks), &p("quick_acks"), || {
        format!("must be a whole number of segments from 0 to 1000, got {quick_acks}")
    })?;
    Ok(Recovery {
        stack,
        sack,
        prr,
        prr_variant,
        rack,
        rto_ssthresh,
        rto_collapse,
        rto_timer,
        recovery_entry,
        sack_pipe,
        recovery_exit,
        rtt_sampling,
        cut_from,
        ecn_reduction,
        ce_ack,
        control_ect,
        iw,
        min_rto,
        delayed_ack: f.delayed_ack.unwrap_or(profile.delayed_ack),
        delack_timeout,
        quick_acks: quick_acks as u32,
        push_ack: f.push_ack.unwrap_or(profile.push_ack),
        handshake: profile.handshake,
        hystart: f.hystart.unwrap_or(profile.hystart),
        defaulted: Defaulted {
            hystart: f.stack.is_none() && f.hystart.is_none(),
            delayed_ack: f.stack.is_none() && f.delayed_ack.is_none(),
        },
        abc,
        limited_transmit: f.limited_transmit.unwrap_or(profile.limited_transmit),
        partial_ack_retransmit: f
            .partial_ack_retransmit
            .unwrap_or(profile.partial_ack_retransmit),
        dupack_growth: f.dupack_growth.unwrap_or(profile.dupack_growth),
    })
}

/// When a flow group starts: each flow's start (drawn from `rng` for a
/// uniform range), or for open and closed loop when arrivals begin.
fn group_starts(
    f: &RawFlows,
    i: usize,
    n: usize,
    dynamic: bool,
    duration: SimTime,
    rng: &mut Rng,
) -> Result<(SimTime, Vec<SimTime>), ScenarioError> {
    let p = |field: &str| group_path(i, field);
    let mut begin = SimTime::ZERO;
    let starts: Vec<SimTime> = match f.start.clone().unwrap_or(StartSpec::At(SimTime::ZERO)) {
        StartSpec::At(t) if dynamic => {
            begin = t;
            check(t < duration, &p("start"), || {
                format!("arrivals begin at {t}, not before duration {duration}")
            })?;
            Vec::new()
        }
        _ if dynamic => {
            return Err(err(
                p("start"),
                "an open- or closed-loop group takes one start time (when its arrivals or users begin), e.g. start = \"10s\"",
            ));
        }
        StartSpec::At(t) => vec![t; n],
        StartSpec::Stagger(s) => (0..n as u64).map(|k| s.times(k)).collect(),
        StartSpec::Uniform(a, b) => {
            check(a <= b, &p("start"), || {
                format!("uniform bounds [{a}, {b}]: the first must be <= the second")
            })?;
            (0..n)
                .map(|_| SimTime(rng.random_range(a.0..=b.0)))
                .collect()
        }
    };
    if let Some(&late) = starts.iter().max() {
        check(late < duration, &p("start"), || {
            format!("a flow starts at {late}, not before duration {duration}")
        })?;
    }
    Ok((begin, starts))
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

/// A flow group's traffic (the `traffic` module): sizes, arrivals, think
/// times and the cap on active transfers.
struct Traffic {
    size: Option<SizeDist>,
    mean_size: Option<f64>,
    /// Transfers per second (open loop).
    rate: Option<f64>,
    load: Option<f64>,
    /// Transfers per arrival, and the period of periodic arrivals.
    burst: u32,
    every: Option<SimTime>,
    think: Option<ThinkDist>,
    max_active: Option<u32>,
}

/// A flow group's traffic, checked against its kind, the link's capacity
/// (bits/s) and the run's duration.
fn group_traffic(
    f: &RawFlows,
    i: usize,
    kind: Kind,
    mss: u64,
    cap: f64,
    duration: SimTime,
) -> Result<Traffic, ScenarioError> {
    let p = |field: &str| group_path(i, field);
    // Traffic: sizes, arrivals, users (traffic module).
    let size = match &f.size {
        None => None,
        Some(v) => Some(
            SizeDist::parse(v, mss as u32)
                .map_err(|(sub, m)| err(format!("{}{sub}", p("size")), m))?,
        ),
    };
    let mean_size = size.as_ref().map(|d| d.mean_pkts());
    let (rate, load, burst, every) = match &f.arrival {
        None => (None, None, 1, None),
        Some(v) => {
            let a = Arrival::parse(v).map_err(|m| err(p("arrival"), m))?;
            let bits = mean_size.expect("checked: open loop has a size") * mss as f64 * 8.0;
            let n = f64::from(a.burst);
            // Transfers per second: `rate` and `every` count arrivals of
            // `burst` transfers each; `load` is in transfers' bytes.
            let r = match a.epochs {
                Epochs::Rate(r) => r * n,
                Epochs::Load(l) => l * cap / bits,
                Epochs::Every(t) => n / t.as_secs_f64(),
            };
            let every = match a.epochs {
                Epochs::Every(t) => Some(t),
                _ => None,
            };
            (Some(r), Some(r * bits / cap), a.burst, every)
        }
    };
    if let Some(r) = rate {
        check(r * duration.as_secs_f64() <= 1e9, &p("arrival"), || {
            format!("{r:.4} flows/s over {duration} is more than 1e9 flows")
        })?;
    }
    let think = match (&f.think, kind) {
        (None, Kind::Closed) => {
            return Err(err(
                p("think"),
                "missing: closed-loop users need a think time, e.g. think = \"5s\" (exponential mean)",
            ));
        }
        (None, _) => None,
        (Some(_), k) if k != Kind::Closed => {
            return Err(err(
                p("think"),
                "only closed-loop groups (users = U) think between transfers",
            ));
        }
        (Some(v), _) => Some(ThinkDist::parse(v).map_err(|m| err(p("think"), m))?),
    };
    let max_active = match (f.max_active, kind) {
        (None, Kind::Open) => Some(DEFAULT_MAX_ACTIVE),
        (None, _) => None,
        (Some(m), Kind::Open) => {
            check(
                (1..=MAX_FLOWS as i64).contains(&m),
                &p("max_active"),
                || format!("must be a whole number of flows from 1 to {MAX_FLOWS}, got {m}"),
            )?;
            Some(m as u32)
        }
        (Some(m), _) => {
            return Err(err(
                p("max_active"),
                format!("{m}: only open-loop groups (arrival) have a cap on active flows"),
            ));
        }
    };
    Ok(Traffic {
        size,
        mean_size,
        rate,
        load,
        burst,
        every,
        think,
        max_active,
    })
}

fn resolve_fluid(f: RawFluid, rtts: &[SimTime]) -> Result<Fluid, ScenarioError> {
    let model = choose(
        f.model,
        FluidModel::Mgt,
        FluidModel::NAMES,
        "fluid.model",
        "fluid model",
    )?;
    let decrease = choose(
        f.decrease,
        Decrease::Event,
        Decrease::NAMES,
        "fluid.decrease",
        "decrease form",
    )?;
    if let Some(x) = f.sync {
        check(x > 0.0 && x <= 1.0, "fluid.sync", || {
            format!("the minimum synchronized fraction X must be in (0, 1], got {x}")
        })?;
    } else {
        let hint = "is set but fluid.sync is absent: set fluid.sync (X in (0, 1]) to enable the loss-synchronization module";
        check(f.sync_policy.is_none(), "fluid.sync_policy", || hint.into())?;
        check(f.sync_sd.is_none(), "fluid.sync_sd", || hint.into())?;
    }
    let sync_policy = choose(
        f.sync_policy,
        SyncPolicy::HighestRate,
        SyncPolicy::NAMES,
        "fluid.sync_policy",
        "policy",
    )?;
    let sync_sd = f
        .sync_sd
        .unwrap_or_else(|| f.sync.map(|x| (1.0 - x) / 4.0).unwrap_or(0.0));
    check((0.0..=10.0).contains(&sync_sd), "fluid.sync_sd", || {
        format!("must be a fraction of the number of flows between 0 and 10, got {sync_sd}")
    })?;
    let min_rtt = rtts.iter().copied().min();
    let step = match f.step {
        Some(d) => d.0,
        None => {
            let us = min_rtt
                .map(|r| r.0 / 20 / 1_000_000)
                .unwrap_or(4_000)
                .clamp(1, 4_000);
            SimTime::from_micros(us)
        }
    };
    // A step the user wrote is checked here; the default step's limit (set
    // by the RTTs, which the packet engine also reads) is the fluid engine's
    // check (`fluid::check`), so that a scenario the fluid engine cannot
    // integrate still runs on the packet engine. The number of steps is the
    // run's cost (`cost.rs`), limited before a run starts.
    if f.step.is_some() {
        check(step >= SimTime::from_micros(1), "fluid.step", || {
            format!("must be >= 1us, got {step}")
        })?;
        if let Some(r) = min_rtt {
            check(step.0 <= r.0 / 4, "fluid.step", || {
                format!(
                    "{step} is longer than a quarter of the shortest RTT {r}: the delayed loss feedback needs at least 4 steps per RTT"
                )
            })?;
        }
    }
    Ok(Fluid {
        step,
        step_given: f.step.is_some(),
        model,
        sync: f.sync,
        sync_policy,
        sync_sd,
        decrease,
    })
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
        assert_eq!(s.link.buffer_pkts, 625); // 50e6 * 0.1 / 8000
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
            assert_eq!(s.link.bdp_rtt, SimTime::from_millis(170));
            assert_eq!(s.link.buffer_pkts, 1063);
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
