//! Queue-discipline configurations: one struct per discipline whose
//! `Default` holds the paper's or RFC's constants, each next to its citation
//! (as `tcp/cc/config.rs` does for congestion control). Both engines build
//! their queues from these: the fluid engine's RED and the packet engine's
//! RED read the same [`RedConfig`].
//!
//! [`QdiscConfig::from_params`] turns a scenario's `link.qdisc` name and
//! `link.qdisc_params` table into a config, naming the offending key on
//! error. Durations are strings with a unit (`"5ms"`); queue thresholds are
//! numbers of packets (of `link.packet_size` in byte mode); sizes are
//! strings with a unit (`"1500B"`).

use serde::Serialize;
use serde_json::{Map, Value};

use crate::params::{PErr, Params};
use crate::units::SimTime;

/// Queue disciplines a scenario may name.
pub const QDISCS: &[&str] = &["droptail", "red", "fq", "codel", "fq_codel", "pie"];

fn secs<S: serde::Serializer>(t: &SimTime, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(t.as_secs_f64())
}

/// Whether RED measures the queue (and scales its drop probability) in
/// packets or bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RedMode {
    /// Queue in packets; every packet has the same drop probability.
    Packets,
    /// Queue in bytes / `link.packet_size`; the drop probability of a packet
    /// is scaled by its size / `link.packet_size` (Floyd and Jacobson 1993
    /// section 4, "pb <- pb PacketSize/MaximumPacketSize").
    Bytes,
}

/// RED (Floyd and Jacobson, "Random early detection gateways for
/// congestion avoidance", IEEE/ACM ToN 1993) with the gentle variant and
/// Adaptive RED (Floyd, Gummadi and Shenker 2001).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RedConfig {
    /// Minimum threshold of the average queue, packets.
    pub min_th: f64,
    /// Maximum threshold of the average queue, packets.
    pub max_th: f64,
    /// Drop probability at max_th (initial value under Adaptive RED).
    pub max_p: f64,
    /// EWMA weight of the average queue.
    pub w_q: f64,
    /// Gentle mode: p rises from max_p at max_th to 1 at 2 max_th.
    pub gentle: bool,
    /// Packet or byte mode (default: the buffer's mode).
    pub mode: RedMode,
    /// Adaptive RED: adapt max_p every `interval` to keep the average queue
    /// in the target band.
    pub adaptive: bool,
    /// Adaptive RED update interval.
    #[serde(serialize_with = "secs", rename = "interval_s")]
    pub interval: SimTime,
    /// Mark ECN-capable packets (CE) instead of dropping them early
    /// (RFC 3168 section 5); forced and overflow drops still drop.
    pub ecn: bool,
}

impl Default for RedConfig {
    fn default() -> Self {
        RedConfig {
            //= Floyd, "RED: discussions of setting parameters" (1997): min_th = 5
            //= packets, max_th = 3 min_th.
            min_th: 5.0,
            max_th: 15.0,
            //= Floyd 2000, "Recommendation on using the gentle_ variant of RED":
            //= max_p = 0.1 with gentle on.
            max_p: 0.1,
            //= Floyd and Jacobson 1993 section 11: w_q = 0.002.
            w_q: 0.002,
            gentle: true,
            mode: RedMode::Packets,
            adaptive: false,
            //= Floyd, Gummadi, Shenker 2001 Fig. 2: interval = 0.5 s.
            interval: SimTime::from_millis(500),
            ecn: false,
        }
    }
}

/// Per-flow fair queueing by deficit round robin (Shreedhar and Varghese
/// 1995) with a shared buffer and drop from the longest queue on overflow
/// (paper 000 section V.B; Suter et al. 1998).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct FqConfig {
    /// DRR quantum, bytes (default: `link.packet_size`, one full packet per round).
    pub quantum_bytes: u32,
    /// Background packets are hashed on their sequence number into this
    /// many queues (each Poisson packet stands for a packet of one of many
    /// small flows, paper 000 section II); 1 makes the background one flow.
    pub background_flows: u32,
}

/// CoDel, RFC 8289.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CodelConfig {
    /// Target standing queue delay.
    #[serde(serialize_with = "secs", rename = "target_s")]
    pub target: SimTime,
    /// Interval (about a worst-case RTT).
    #[serde(serialize_with = "secs", rename = "interval_s")]
    pub interval: SimTime,
}

impl Default for CodelConfig {
    fn default() -> Self {
        //= RFC 8289 section 4.3/4.4: TARGET = 5 ms, INTERVAL = 100 ms.
        CodelConfig {
            target: SimTime::from_millis(5),
            interval: SimTime::from_millis(100),
        }
    }
}

/// FQ-CoDel, RFC 8290.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct FqCodelConfig {
    /// The CoDel parameters of every queue.
    #[serde(flatten)]
    pub codel: CodelConfig,
    /// DRR quantum, bytes (RFC 8290 section 5.1: 1514, the MTU plus the
    /// Ethernet header; default here `link.packet_size`).
    pub quantum_bytes: u32,
    /// Number of flow queues (hash buckets).
    pub flows: u32,
}

/// PIE, RFC 8033.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PieConfig {
    /// QDELAY_REF, the target queue delay.
    #[serde(serialize_with = "secs", rename = "target_s")]
    pub target: SimTime,
    /// T_UPDATE, the drop-probability update period.
    #[serde(serialize_with = "secs", rename = "t_update_s")]
    pub t_update: SimTime,
    /// alpha, 1/s.
    pub alpha: f64,
    /// beta, 1/s.
    pub beta: f64,
    /// MAX_BURST, the burst allowance.
    #[serde(serialize_with = "secs", rename = "max_burst_s")]
    pub max_burst: SimTime,
}

impl Default for PieConfig {
    fn default() -> Self {
        //= RFC 8033 section 4.1/5.1: QDELAY_REF = 15 ms, T_UPDATE = 15 ms,
        //= alpha = 0.125 Hz, beta = 1.25 Hz, MAX_BURST = 150 ms.
        PieConfig {
            target: SimTime::from_millis(15),
            t_update: SimTime::from_millis(15),
            alpha: 0.125,
            beta: 1.25,
            max_burst: SimTime::from_millis(150),
        }
    }
}

/// A queue discipline with its parameters.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum QdiscConfig {
    /// FIFO drop-tail.
    DropTail,
    /// RED / Adaptive RED.
    Red(RedConfig),
    /// DRR fair queueing with longest-queue drop.
    Fq(FqConfig),
    /// CoDel.
    Codel(CodelConfig),
    /// FQ-CoDel.
    FqCodel(FqCodelConfig),
    /// PIE.
    Pie(PieConfig),
}

/// What of the link a discipline's defaults depend on.
#[derive(Clone, Copy, Debug)]
pub struct LinkInfo {
    /// Reference (maximum) packet size, bytes.
    pub packet_size: u32,
    /// Whether the buffer is counted in bytes.
    pub bytes_mode: bool,
    /// Capacity, bits/s.
    pub capacity_bps: f64,
}

impl QdiscConfig {
    /// Build the config of discipline `name` from its `qdisc_params`; on
    /// error returns `(key, message)` (the key is empty when the name is unknown).
    pub fn from_params(
        name: &str,
        params: &Map<String, Value>,
        link: LinkInfo,
    ) -> Result<QdiscConfig, PErr> {
        let mut p = Params::new(params);
        let ms = SimTime::from_millis;
        let cfg = match name {
            "droptail" => QdiscConfig::DropTail,
            "red" => {
                let d = RedConfig::default();
                let min_th = p.num("min_th", d.min_th, 0.0, 1e9)?;
                //= Floyd 1997: max_th = 3 min_th when only min_th is given.
                let max_default = if params.contains_key("min_th") {
                    3.0 * min_th.max(5.0 / 3.0)
                } else {
                    d.max_th
                };
                let max_th = p.num("max_th", max_default, 0.0, 1e9)?;
                if max_th <= min_th {
                    return Err((
                        "max_th".into(),
                        format!("must be > min_th ({min_th}), got {max_th}"),
                    ));
                }
                let max_p = p.num("max_p", d.max_p, 1e-9, 1.0)?;
                let adaptive = p.flag("adaptive", d.adaptive)?;
                //= Floyd, Gummadi, Shenker 2001 section 4: under Adaptive RED
                //= w_q = 1 - exp(-1/C), C the link capacity in packets/s.
                let wq_default = if adaptive {
                    1.0 - (-1.0 / (link.capacity_bps / (8.0 * link.packet_size as f64))).exp()
                } else {
                    d.w_q
                };
                let w_q = p.num("w_q", wq_default, 1e-12, 0.999_999)?;
                let gentle = p.flag("gentle", d.gentle)?;
                let mode = match p.word("mode", &["packets", "bytes"])?.as_deref() {
                    Some("bytes") => RedMode::Bytes,
                    Some(_) => RedMode::Packets,
                    None if link.bytes_mode => RedMode::Bytes,
                    None => RedMode::Packets,
                };
                let interval = p.dur("interval", d.interval, ms(1), ms(1_000_000))?;
                let ecn = p.flag("ecn", d.ecn)?;
                QdiscConfig::Red(RedConfig {
                    min_th,
                    max_th,
                    max_p,
                    w_q,
                    gentle,
                    mode,
                    adaptive,
                    interval,
                    ecn,
                })
            }
            "fq" => QdiscConfig::Fq(FqConfig {
                quantum_bytes: p.size("quantum", link.packet_size, 64, 1 << 20)?,
                background_flows: p.num("background_flows", 1024.0, 1.0, 1e6)? as u32,
            }),
            "codel" => QdiscConfig::Codel(codel_params(&mut p)?),
            "fq_codel" => QdiscConfig::FqCodel(FqCodelConfig {
                codel: codel_params(&mut p)?,
                quantum_bytes: p.size("quantum", link.packet_size, 64, 1 << 20)?,
                //= RFC 8290 section 5.1: "flows ... 1024".
                flows: p.num("flows", 1024.0, 1.0, 65_536.0)? as u32,
            }),
            "pie" => {
                let d = PieConfig::default();
                QdiscConfig::Pie(PieConfig {
                    target: p.dur("target", d.target, SimTime(1), ms(100_000))?,
                    t_update: p.dur(
                        "t_update",
                        d.t_update,
                        SimTime::from_micros(10),
                        ms(100_000),
                    )?,
                    alpha: p.num("alpha", d.alpha, 0.0, 1e6)?,
                    beta: p.num("beta", d.beta, 0.0, 1e6)?,
                    max_burst: p.dur("max_burst", d.max_burst, SimTime::ZERO, ms(100_000))?,
                })
            }
            other => {
                return Err((
                    String::new(),
                    format!(
                        "unknown queue discipline {other:?}: allowed are {}",
                        QDISCS.join(", ")
                    ),
                ));
            }
        };
        p.finish(name)?;
        Ok(cfg)
    }

    /// The parameters with every default filled in (the normalized scenario's
    /// `link.qdisc_params`; durations in seconds under `_s` keys).
    pub fn to_params(&self) -> Map<String, Value> {
        match serde_json::to_value(self).expect("config serializes") {
            Value::Object(m) => m,
            _ => Map::new(),
        }
    }
}

fn codel_params(p: &mut Params) -> Result<CodelConfig, PErr> {
    let d = CodelConfig::default();
    let ms = SimTime::from_millis;
    let target = p.dur("target", d.target, SimTime(1), ms(100_000))?;
    let interval = p.dur("interval", d.interval, SimTime(1), ms(1_000_000))?;
    if target > interval {
        return Err((
            "target".into(),
            format!("must not exceed interval ({interval}), got {target}"),
        ));
    }
    Ok(CodelConfig { target, interval })
}
