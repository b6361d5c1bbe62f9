//! The raw schema: the serde structs of a scenario as users write it (TOML
//! or a Python dict, as JSON), before any unit or default is resolved.
//! Unknown keys are refused (`deny_unknown_fields`); unit-carrying values
//! (`Dur`, `Rate`, `Size`, `Buf`) deserialize from strings only, so a bare
//! number where a unit is meant is an error that names the units that work.

use super::*;

// ---------------------------------------------------------------------------
// Unit-carrying newtypes: deserialize from strings only, so a bare number
// where a unit is meant is refused with a message that says which units work.
// ---------------------------------------------------------------------------

macro_rules! unit_newtype {
    ($name:ident, $inner:ty, $parse:path, $example:expr) => {
        #[derive(Clone, Copy, Debug)]
        pub(super) struct $name(pub(super) $inner);
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
pub(super) enum RttSpec {
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
pub(super) enum StartSpec {
    /// All flows start at this time.
    At(SimTime),
    /// Flow k of the group starts at k * step.
    Stagger(SimTime),
    /// Drawn uniformly at random in [a, b].
    Uniform(SimTime, SimTime),
}

pub(super) fn dur_of(v: &Value) -> Result<SimTime, String> {
    match v {
        Value::String(s) => units::parse_duration(s).map_err(|e| e.0),
        other => Err(format!(
            "expected a string with a unit such as \"100ms\", got {other}"
        )),
    }
}

pub(super) fn pair_of(v: &Value) -> Result<(SimTime, SimTime), String> {
    match v {
        Value::Array(a) if a.len() == 2 => Ok((dur_of(&a[0])?, dur_of(&a[1])?)),
        other => Err(format!(
            "expected a list of two durations such as [\"0s\", \"1s\"], got {other}"
        )),
    }
}

pub(super) fn single_key(m: &Map<String, Value>, allowed: &str) -> Result<(String, Value), String> {
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
pub(super) struct RawScenario {
    #[serde(default)]
    pub(super) name: Option<String>,
    pub(super) duration: Dur,
    #[serde(default)]
    pub(super) warmup: Option<Dur>,
    #[serde(default)]
    pub(super) seed: Option<u64>,
    #[serde(default)]
    pub(super) link: Option<RawLink>,
    #[serde(default)]
    pub(super) links: Option<Vec<RawLink>>,
    #[serde(default)]
    pub(super) flows: Vec<RawFlows>,
    #[serde(default)]
    pub(super) background: Vec<RawBackground>,
    #[serde(default)]
    pub(super) output: Option<RawOutput>,
    #[serde(default)]
    pub(super) fluid: Option<RawFluid>,
    #[serde(default)]
    pub(super) pool: Option<RawPool>,
    #[serde(default)]
    pub(super) reverse: Option<RawReverse>,
    #[serde(default)]
    pub(super) fabric: Option<RawFabric>,
}

/// `[fabric]`: switches sharing a buffer each, hosts, and the links
/// between them, generated from a form (see [`super::fabric`]).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawFabric {
    #[serde(default)]
    pub(super) form: Option<String>,
    pub(super) leaves: i64,
    pub(super) spines: i64,
    pub(super) hosts_per_leaf: i64,
    #[serde(default)]
    pub(super) links_per_pair: Option<i64>,
    pub(super) host_rate: Rate,
    #[serde(default)]
    pub(super) fabric_rate: Option<Rate>,
    pub(super) delay: Dur,
    #[serde(default)]
    pub(super) buffer: Option<Size>,
    #[serde(default)]
    pub(super) buffer_per_port_per_gbps: Option<Size>,
    #[serde(default)]
    pub(super) spine_buffer: Option<Size>,
    #[serde(default)]
    pub(super) nic_buffer: Option<Buf>,
    #[serde(default)]
    pub(super) algorithm: Option<String>,
    #[serde(default)]
    pub(super) alpha: Option<f64>,
    #[serde(default)]
    pub(super) interval: Option<Dur>,
    #[serde(default)]
    pub(super) unscheduled: Option<RawUnscheduled>,
    #[serde(default)]
    pub(super) fab: Option<RawFab>,
    #[serde(default)]
    pub(super) packet_size: Option<Size>,
    #[serde(default)]
    pub(super) qdisc: Option<String>,
    #[serde(default)]
    pub(super) qdisc_params: Option<Map<String, Value>>,
    #[serde(default)]
    pub(super) scheduler: Option<String>,
    #[serde(default)]
    pub(super) queues: Option<Vec<super::classes::RawQueue>>,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub(super) struct RawLink {
    pub(super) capacity: Rate,
    pub(super) delay: Dur,
    #[serde(default)]
    pub(super) buffer: Option<Buf>,
    #[serde(default)]
    pub(super) bdp_rtt: Option<Dur>,
    #[serde(default)]
    pub(super) packet_size: Option<Size>,
    #[serde(default)]
    pub(super) qdisc: Option<String>,
    #[serde(default)]
    pub(super) qdisc_params: Option<Map<String, Value>>,
    #[serde(default)]
    pub(super) scheduler: Option<String>,
    #[serde(default)]
    pub(super) queues: Option<Vec<super::classes::RawQueue>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawFlows {
    #[serde(default)]
    pub(super) count: Option<i64>,
    #[serde(default)]
    pub(super) tcp: Option<String>,
    #[serde(default)]
    pub(super) tcp_params: Option<Map<String, Value>>,
    /// Required but in a fabric, where each transfer's is its path's.
    #[serde(default)]
    pub(super) rtt: Option<RttSpec>,
    #[serde(default)]
    pub(super) mss: Option<Size>,
    #[serde(default)]
    pub(super) access_rate: Option<Rate>,
    #[serde(default)]
    pub(super) access_buffer: Option<Buf>,
    #[serde(default)]
    pub(super) jitter: Option<Dur>,
    #[serde(default)]
    pub(super) rwnd: Option<Buf>,
    #[serde(default)]
    pub(super) initial_window: Option<i64>,
    #[serde(default)]
    pub(super) min_rto: Option<Dur>,
    #[serde(default)]
    pub(super) initial_rto: Option<Dur>,
    #[serde(default)]
    pub(super) start: Option<StartSpec>,
    #[serde(default)]
    pub(super) stack: Option<String>,
    #[serde(default)]
    pub(super) sack: Option<bool>,
    #[serde(default)]
    pub(super) delayed_ack: Option<bool>,
    #[serde(default)]
    pub(super) delack_timeout: Option<Dur>,
    #[serde(default)]
    pub(super) quick_acks: Option<i64>,
    #[serde(default)]
    pub(super) push_ack: Option<bool>,
    #[serde(default)]
    pub(super) prr: Option<bool>,
    #[serde(default)]
    pub(super) prr_variant: Option<String>,
    #[serde(default)]
    pub(super) recovery: Option<String>,
    #[serde(default)]
    pub(super) abc: Option<Value>,
    #[serde(default)]
    pub(super) limited_transmit: Option<bool>,
    #[serde(default)]
    pub(super) partial_ack_retransmit: Option<bool>,
    #[serde(default)]
    pub(super) dupack_growth: Option<bool>,
    #[serde(default)]
    pub(super) rto_ssthresh: Option<String>,
    #[serde(default)]
    pub(super) rto_collapse: Option<String>,
    #[serde(default)]
    pub(super) rto_timer: Option<String>,
    #[serde(default)]
    pub(super) recovery_entry: Option<String>,
    #[serde(default)]
    pub(super) sack_pipe: Option<String>,
    #[serde(default)]
    pub(super) recovery_exit: Option<String>,
    #[serde(default)]
    pub(super) rtt_sampling: Option<String>,
    #[serde(default)]
    pub(super) cut_from: Option<String>,
    #[serde(default)]
    pub(super) ecn_reduction: Option<String>,
    #[serde(default)]
    pub(super) ce_ack: Option<String>,
    #[serde(default)]
    pub(super) control_ect: Option<String>,
    #[serde(default)]
    pub(super) hystart: Option<bool>,
    #[serde(default)]
    pub(super) ecn: Option<bool>,
    #[serde(default)]
    pub(super) loss: Option<f64>,
    // Traffic (see `traffic`).
    #[serde(default)]
    pub(super) size: Option<Value>,
    #[serde(default)]
    pub(super) arrival: Option<Value>,
    #[serde(default)]
    pub(super) users: Option<i64>,
    #[serde(default)]
    pub(super) think: Option<Value>,
    #[serde(default)]
    pub(super) connection_setup: Option<bool>,
    #[serde(default)]
    pub(super) max_active: Option<i64>,
    #[serde(default)]
    pub(super) port: Option<i64>,
    #[serde(default)]
    pub(super) links: Option<Vec<i64>>,
    #[serde(default)]
    pub(super) class: Option<i64>,
    // In a fabric (`[fabric]`): the hosts a transfer runs between.
    #[serde(default)]
    pub(super) hosts: Option<String>,
    #[serde(default)]
    pub(super) src: Option<i64>,
    #[serde(default)]
    pub(super) dst: Option<i64>,
    /// In a fabric: an incast query workload (`fabric::Incast`).
    #[serde(default)]
    pub(super) incast: Option<Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawBackground {
    pub(super) kind: String,
    pub(super) rate: Rate,
    pub(super) packet_size: Size,
    #[serde(default)]
    pub(super) port: Option<i64>,
    #[serde(default)]
    pub(super) links: Option<Vec<i64>>,
    #[serde(default)]
    pub(super) class: Option<i64>,
}

/// `[reverse]`: the bottleneck's return direction (see [`Reverse`]).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawReverse {
    #[serde(default)]
    pub(super) capacity: Option<Rate>,
    pub(super) buffer: Buf,
    #[serde(default)]
    pub(super) qdisc: Option<String>,
    #[serde(default)]
    pub(super) qdisc_params: Option<Map<String, Value>>,
    #[serde(default)]
    pub(super) ack_size: Option<Size>,
    #[serde(default)]
    pub(super) flows: Vec<RawFlows>,
}

/// `[pool]`: a shared buffer feeding several ports (see [`Pool`]).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawPool {
    pub(super) size: Buf,
    pub(super) ports: i64,
    #[serde(default)]
    pub(super) alpha: Option<f64>,
    #[serde(default)]
    pub(super) algorithm: Option<String>,
    #[serde(default)]
    pub(super) interval: Option<Dur>,
    #[serde(default)]
    pub(super) unscheduled: Option<RawUnscheduled>,
    #[serde(default)]
    pub(super) fab: Option<RawFab>,
}

/// `pool.unscheduled`, `fabric.unscheduled`: ABM's priority for a
/// transfer's first-RTT packets (see [`Unscheduled`]).
#[derive(Deserialize, Clone, Copy)]
#[serde(deny_unknown_fields)]
pub(super) struct RawUnscheduled {
    #[serde(default)]
    pub(super) alpha: Option<f64>,
    #[serde(default)]
    pub(super) bytes: Option<Size>,
}

/// `pool.fab`, `fabric.fab`: FAB's flow-aware priority (see [`Fab`]).
#[derive(Deserialize, Clone, Copy, Default)]
#[serde(deny_unknown_fields)]
pub(super) struct RawFab {
    #[serde(default)]
    pub(super) window: Option<Dur>,
    #[serde(default)]
    pub(super) bytes: Option<Size>,
    #[serde(default)]
    pub(super) alpha: Option<f64>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(super) struct RawOutput {
    #[serde(default)]
    pub(super) interval: Option<Dur>,
    #[serde(default)]
    pub(super) cwnd: Option<bool>,
    #[serde(default)]
    pub(super) large_flow: Option<Size>,
    #[serde(default)]
    pub(super) trace: Option<bool>,
    #[serde(default)]
    pub(super) halves: Option<bool>,
    #[serde(default)]
    pub(super) stop: Option<RawStop>,
}

/// `[output.stop]`: end a run once its verdicts are known (see [`Stop`]).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawStop {
    pub(super) decide: Vec<RawDecide>,
    #[serde(default)]
    pub(super) batches: Option<u32>,
    #[serde(default)]
    pub(super) min_batches: Option<u32>,
    #[serde(default)]
    pub(super) confidence: Option<f64>,
}

/// One verdict of `output.stop.decide`: `metric op bound`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawDecide {
    pub(super) metric: String,
    pub(super) op: String,
    pub(super) bound: f64,
}

/// `[fluid]`: settings of the fluid engine (the packet engine ignores them).
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(super) struct RawFluid {
    #[serde(default)]
    pub(super) step: Option<Dur>,
    #[serde(default)]
    pub(super) model: Option<String>,
    #[serde(default)]
    pub(super) sync: Option<f64>,
    #[serde(default)]
    pub(super) sync_policy: Option<String>,
    #[serde(default)]
    pub(super) sync_sd: Option<f64>,
    #[serde(default)]
    pub(super) decrease: Option<String>,
}
