//! What a run will cost, estimated from the scenario before it starts: the
//! simulation work (packet engine: packets through the bottleneck; fluid
//! engine: flow-steps) and the memory the run holds (its outputs and the
//! per-flow state), each with the scenario field that drives it.
//!
//! The Python front (`bufsim.limits`) refuses a run whose estimate exceeds
//! the user's limits, naming that field, instead of running for hours or
//! being killed for memory halfway. The estimates are upper bounds of the
//! right order, not predictions: a saturated bottleneck carries at most its
//! capacity plus the open-loop background, every sample of the time series
//! holds its columns as 8-byte floats, and so on.

use crate::packet::collect::FLOW_COLUMNS;
use crate::packet::trace::TRACE_COLUMNS;
use crate::scenario::Scenario;
use crate::scenario::fabric::Fabric;
use crate::traffic::{Kind, ThinkDist};

/// Columns of the time series besides the per-flow `cwnd_flow<i>` ones
/// (`time_s`, utilization, queue, drops, active and long flows).
const TIMESERIES_COLUMNS: f64 = 6.0;

/// Copies of the output tables alive at the peak: the engine's vectors, the
/// NumPy arrays made from them, the pandas frames made from those.
const OUTPUT_COPIES: f64 = 3.0;

/// Rows of the packet trace (`output.trace`) per bottleneck packet: its
/// `enqueue` row and its `dequeue` or `drop_` row, with a margin of one for
/// the packets the estimate of `packets` misses (ACK-clocked bursts above
/// the capacity only queue, but each is rows).
const TRACE_ROWS_PER_PACKET: f64 = 3.0;

/// Engine state per flow, bytes (sender, receiver, SACK scoreboard,
/// statistics and its packets in flight). Measured: at 10 Gbps, going from
/// 10 to 10,000 CUBIC flows raises the peak RSS from 128 MB to 190 MB,
/// about 6 KB per flow; 8 KB keeps a margin.
const FLOW_STATE_BYTES: f64 = 8192.0;

/// The estimate for one engine.
#[derive(Clone, Debug, PartialEq)]
pub struct Cost {
    /// Simulation work: bottleneck packets (packet engine) or flow-steps
    /// (fluid engine, integration steps times flows).
    pub work: f64,
    /// What `work` counts: `"packets"` or `"flow-steps"`.
    pub work_unit: &'static str,
    /// The scenario field that drives `work` (what to change to reduce it).
    pub work_field: String,
    /// Memory the run holds at its peak, bytes.
    pub memory_bytes: f64,
    /// The scenario field that drives `memory_bytes`.
    pub memory_field: String,
}

/// Estimate the cost of running `s` on `engine` (`"packet"` or `"fluid"`).
pub fn estimate(s: &Scenario, engine: &str) -> Cost {
    let duration = s.duration.as_secs_f64();
    let cap = s.link().capacity_bps;
    let pkt_bits = 8.0 * s.link().packet_size_bytes as f64;

    // Packets through the bottleneck: at most its capacity, plus background
    // arrivals beyond it (they are dropped, but each is an event). In a
    // fabric, every port a packet leaves counts (fabric_departures).
    let background: f64 = s.background.iter().map(|b| b.rate_bps).sum();
    let packets = match s.topology.fabric() {
        Some(fab) => fabric_departures(s, fab, duration, pkt_bits),
        None => duration * (cap + background) / pkt_bits,
    };
    let busiest_background = s
        .background
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.rate_bps.total_cmp(&b.1.rate_bps))
        .filter(|(_, b)| b.rate_bps > cap)
        .map(|(i, _)| format!("background[{i}].rate"));

    // Rows of the flows table: every persistent or finite flow, and the
    // transfers open- and closed-loop groups start (at most as many as the
    // bottleneck's packets can carry).
    let mut flow_rows = 0.0;
    let mut flows_now = 0.0;
    let mut transfers_field: Option<(f64, String)> = None;
    for (g, grp) in s.flows.iter().enumerate() {
        let mean_size = grp.mean_size_pkts.unwrap_or(1.0).max(1.0);
        let (rows, field) = match grp.kind {
            Kind::Persistent | Kind::Finite => (grp.count as f64, "count"),
            Kind::Open => (grp.arrival_rate_per_s.unwrap_or(0.0) * duration, "arrival"),
            Kind::Closed => {
                let think = match grp.think {
                    Some(ThinkDist::Exponential(t)) | Some(ThinkDist::Fixed(t)) => t.as_secs_f64(),
                    None => 0.0,
                };
                let users = grp.users.unwrap_or(0) as f64;
                let rounds = if think > 0.0 {
                    1.0 + duration / think
                } else {
                    f64::INFINITY
                };
                (users * rounds, "users")
            }
        };
        let rows = rows.min(grp.count as f64 + packets / mean_size);
        flows_now += match grp.kind {
            Kind::Open => grp.max_active.map(f64::from).unwrap_or(rows).min(rows),
            Kind::Closed => grp.users.unwrap_or(0) as f64,
            _ => grp.count as f64,
        };
        flow_rows += rows;
        if transfers_field.as_ref().is_none_or(|(r, _)| rows > *r) {
            transfers_field = Some((rows, format!("flows[{g}].{field}")));
        }
    }

    // Time series: one row per output.interval, cwnd columns per persistent
    // flow with output.cwnd.
    let samples = duration / s.output.interval.as_secs_f64().max(1e-12) + 1.0;
    let cwnd_cols = if s.output.cwnd {
        s.flows
            .iter()
            .filter(|g| g.kind == Kind::Persistent)
            .map(|g| g.count as f64)
            .sum()
    } else {
        0.0
    };
    let series = samples * (TIMESERIES_COLUMNS + cwnd_cols) * 8.0 * OUTPUT_COPIES;
    let table = flow_rows * FLOW_COLUMNS as f64 * 8.0 * OUTPUT_COPIES;
    let state = flows_now * FLOW_STATE_BYTES;
    // Packet trace: 8-byte columns, rows per bottleneck packet (packet engine).
    let trace = if s.output.trace && engine != "fluid" {
        packets * TRACE_ROWS_PER_PACKET * TRACE_COLUMNS.len() as f64 * 8.0 * OUTPUT_COPIES
    } else {
        0.0
    };
    let memory_bytes = series + table + state + trace;
    let memory_field = if trace >= series.max(table).max(state) && trace > 0.0 {
        "output.trace".to_string()
    } else if series >= table.max(state) {
        if cwnd_cols > TIMESERIES_COLUMNS {
            "output.cwnd".to_string()
        } else {
            "output.interval".to_string()
        }
    } else {
        transfers_field
            .map(|(_, f)| f)
            .unwrap_or_else(|| "flows".into())
    };

    match engine {
        "fluid" => {
            let steps = duration / s.fluid.step.as_secs_f64().max(1e-12);
            let n: f64 = s.flows.iter().map(|g| g.count as f64).sum();
            Cost {
                work: steps * (n + 1.0),
                work_unit: "flow-steps",
                work_field: if s.fluid.step_given {
                    "fluid.step".into()
                } else {
                    "duration".into()
                },
                memory_bytes,
                memory_field,
            }
        }
        _ => Cost {
            work: packets,
            work_unit: "packets",
            work_field: busiest_background.unwrap_or_else(|| "duration".into()),
            memory_bytes,
            memory_field,
        },
    }
}

/// Packets leaving the ports of a fabric over the run, every port counted
/// (the NICs' too): each group's data packets times the ports its path
/// crosses, plus the background's (one port each). A group offers its
/// transfers' packets (arrivals x mean size; persistent flows at their
/// host links' rate), at most what its sending hosts' links carry. A
/// transfer between hosts drawn at random stays under one leaf (2 ports)
/// with probability (hosts_per_leaf - 1) / (hosts - 1), else crosses 4.
/// ACKs return without queueing and retransmissions are not counted: the
/// estimate is of the right order, not a bound.
fn fabric_departures(s: &Scenario, fab: &Fabric, duration: f64, pkt_bits: f64) -> f64 {
    let (hosts, hpl) = (
        f64::from(fab.hosts),
        f64::from(fab.leaf_spine.hosts_per_leaf),
    );
    let line = fab.host_rate_bps * duration / pkt_bits;
    let drawn = if fab.leaf_spine.leaves > 1 {
        let same = (hpl - 1.0) / (hosts - 1.0);
        2.0 * same + 4.0 * (1.0 - same)
    } else {
        2.0
    };
    let mut total = 0.0;
    for grp in &s.flows {
        let hops = match (grp.src, grp.dst) {
            (Some(a), Some(b)) => f64::from(fab.route(a, b, 0).len),
            _ => drawn,
        };
        let senders = if grp.src.is_some() { 1.0 } else { hosts };
        let size = grp.mean_size_pkts.unwrap_or(0.0);
        let offered = match grp.kind {
            Kind::Persistent => grp.count as f64 * line,
            Kind::Finite => grp.count as f64 * size,
            Kind::Open => grp.arrival_rate_per_s.unwrap_or(0.0) * duration * size,
            Kind::Closed => {
                let think = match grp.think {
                    Some(ThinkDist::Exponential(t)) | Some(ThinkDist::Fixed(t)) => t.as_secs_f64(),
                    None => 0.0,
                };
                let users = grp.users.unwrap_or(0) as f64;
                if think > 0.0 {
                    users * (1.0 + duration / think) * size
                } else {
                    f64::INFINITY
                }
            }
        };
        total += offered.min(senders * line) * hops;
    }
    let background: f64 = s.background.iter().map(|b| b.rate_bps).sum();
    total + background * duration / pkt_bits
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(extra: &str) -> Scenario {
        let text = format!(
            r#"{{"duration": "10s", "link": {{"capacity": "10Mbps", "delay": "10ms", "buffer": "50pkt"}},
                "flows": [{{"count": 1000, "rtt": "40ms"}}] {extra}}}"#
        );
        Scenario::from_json(&text).unwrap()
    }

    #[test]
    fn packets_are_capacity_times_duration() {
        // 10 Mbps x 10 s / (1500 B x 8) = 8333 packets.
        let c = estimate(&scenario(""), "packet");
        assert!((c.work - 10e6 * 10.0 / 12_000.0).abs() < 1.0, "{c:?}");
        assert_eq!(c.work_field, "duration");
    }

    #[test]
    fn background_above_capacity_is_named() {
        let c = estimate(
            &scenario(
                r#", "background": [{"kind": "poisson", "rate": "50Mbps", "packet_size": "1500B"}]"#,
            ),
            "packet",
        );
        assert!((c.work - 60e6 * 10.0 / 12_000.0).abs() < 1.0, "{c:?}");
        assert_eq!(c.work_field, "background[0].rate");
    }

    #[test]
    fn cwnd_series_at_1us_needs_tens_of_gigabytes() {
        // 1000 flows x 10^7 samples x 8 B x 3 copies = 240 GB.
        let c = estimate(
            &scenario(r#", "output": {"cwnd": true, "interval": "1us"}"#),
            "packet",
        );
        assert!(c.memory_bytes > 2e11 && c.memory_bytes < 3e11, "{c:?}");
        assert_eq!(c.memory_field, "output.cwnd");
    }

    #[test]
    fn trace_counts_rows_per_packet_and_is_named() {
        // 8333 packets x 3 rows x 7 columns x 8 B x 3 copies = 4.2 MB.
        let off = estimate(&scenario(""), "packet");
        let on = estimate(&scenario(r#", "output": {"trace": true}"#), "packet");
        let trace = on.memory_bytes - off.memory_bytes;
        let want = 10e6 * 10.0 / 12_000.0 * 3.0 * 7.0 * 8.0 * 3.0;
        assert!((trace - want).abs() < 1.0, "{trace} vs {want}");
        // A long fast run: the trace is what to turn off.
        let text = r#"{"duration": "300s", "link": {"capacity": "10Gbps", "delay": "10ms", "buffer": "50pkt"},
            "flows": [{"count": 10, "rtt": "40ms"}], "output": {"trace": true}}"#;
        let c = estimate(&Scenario::from_json(text).unwrap(), "packet");
        assert!(c.memory_bytes > 1e11, "{c:?}");
        assert_eq!(c.memory_field, "output.trace");
    }

    #[test]
    fn a_fabric_counts_every_port_its_packets_leave() {
        // 2 leaves of 8 hosts at 10 Gbps, 0.25 s: 16 x 0.4 x 10 Gbps x
        // 0.25 s / 12,000 bits = 1,333,333 packets of web search, each
        // crossing 2 ports with probability 7/15 and 4 otherwise (46/15
        // on average): 4,088,889 departures, 19.6 times what the host
        // link alone carries in the run (208,333 packets).
        let text = r#"{"duration": "0.25s",
            "fabric": {"leaves": 2, "spines": 2, "hosts_per_leaf": 8, "host_rate": "10Gbps",
                       "delay": "10us", "buffer": "1MB"},
            "flows": [{"size": "websearch", "arrival": {"load": 0.4}}]}"#;
        let c = estimate(&Scenario::from_json(text).unwrap(), "packet");
        let want = 16.0 * 0.4 * 10e9 * 0.25 / 12_000.0 * 46.0 / 15.0;
        assert!((c.work / want - 1.0).abs() < 1e-9, "{} vs {want}", c.work);
    }

    #[test]
    fn fluid_work_names_the_step_when_given() {
        let c = estimate(&scenario(r#", "fluid": {"step": "1us"}"#), "fluid");
        assert!((c.work - 1e7 * 1001.0).abs() < 1e3, "{c:?}");
        assert_eq!(c.work_field, "fluid.step");
        assert_eq!(estimate(&scenario(""), "fluid").work_field, "duration");
    }
}
