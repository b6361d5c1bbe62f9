//! The bottleneck packet trace (`output.trace`): its rows account for every
//! packet the queue saw, its drop rows match the summary's counters by
//! reason, its flow ids are the flows table's, turning it on changes no
//! result, and the per-flow queueing delay and jitter columns agree with the
//! waits the trace shows and with the summary's mean.

mod common;

use std::collections::{BTreeSet, HashMap, VecDeque};

use bufsim_core::packet::trace::{DEQUEUE, DROP_BASE, ENQUEUE, event_names};
use bufsim_core::queue::DropReason;
use bufsim_core::{RunOutput, fluid, packet};
use serde_json::{Value, json};

fn run(v: &Value) -> RunOutput {
    let s = common::from_json(v).expect("valid scenario");
    packet::run(&s, &mut |_| true)
}

fn traced(v: &Value) -> RunOutput {
    let mut v = v.clone();
    v["output"] = json!({"trace": true});
    run(&v)
}

/// 10 Mbps drop-tail with 6 NewReno flows and Poisson background: drops,
/// background rows and a queue that fills and drains.
fn dumbbell(warmup: &str) -> Value {
    json!({
        "duration": "20s", "warmup": warmup,
        "link": {"capacity": "10Mbps", "delay": "10ms", "buffer": "40pkt"},
        "flows": [{"count": 6, "rtt": {"min": "30ms", "max": "90ms"}, "mss": "1000B"}],
        "background": [{"kind": "poisson", "rate": "2Mbps", "packet_size": "500B"}],
    })
}

fn col<'a>(o: &'a RunOutput, name: &str) -> &'a [f64] {
    o.trace
        .get(name)
        .unwrap_or_else(|| panic!("trace column {name}"))
}

fn count(o: &RunOutput, code: u8, after: f64) -> usize {
    col(o, "event")
        .iter()
        .zip(col(o, "time_s"))
        .filter(|&(&e, &t)| e == code as f64 && t >= after)
        .count()
}

fn drops(o: &RunOutput, after: f64) -> usize {
    col(o, "event")
        .iter()
        .zip(col(o, "time_s"))
        .filter(|&(&e, &t)| e >= DROP_BASE as f64 && t >= after)
        .count()
}

#[test]
fn every_packet_is_accounted_for() {
    let o = traced(&dumbbell("0s"));
    let n = o.trace.rows();
    assert!(n > 10_000, "{n} rows");
    let (enq, deq, drp) = (
        count(&o, ENQUEUE, 0.0),
        count(&o, DEQUEUE, 0.0),
        drops(&o, 0.0),
    );
    let q = col(&o, "queue_pkts");
    let last = *q.last().unwrap() as usize;
    assert!(drp > 0, "the scenario should overflow the buffer");
    assert_eq!(
        enq,
        deq + drp + last,
        "enqueue = dequeue + drops + final queue"
    );
    // queue_pkts is a running count: +1 per enqueue, -1 per drop or dequeue,
    // and time never goes back.
    let ev = col(&o, "event");
    let t = col(&o, "time_s");
    let mut waiting = 0.0;
    for i in 0..n {
        waiting += if ev[i] == ENQUEUE as f64 { 1.0 } else { -1.0 };
        assert_eq!(q[i], waiting, "row {i}");
        assert!(i == 0 || t[i] >= t[i - 1], "row {i}: time goes back");
    }
    // With drop-tail, only an arrival the buffer refuses shows 41 packets
    // (its drop row follows at once); otherwise the trace's largest queue is
    // the engine's max_queue_pkts.
    let mut max = 0.0f64;
    for i in 0..n {
        let refused = ev[i] == ENQUEUE as f64
            && ev.get(i + 1) == Some(&(DROP_BASE as f64 + DropReason::OVERFLOW.index() as f64));
        if refused {
            assert_eq!(q[i], 41.0, "row {i}");
        } else {
            max = max.max(q[i]);
        }
    }
    assert_eq!(max, o.metric("max_queue_pkts").unwrap());
    assert_eq!(max, 40.0);
    // Arrivals: the summary's drop_rate is drops / arrivals (statistics from 0s here).
    let rate = o.metric("drop_rate").unwrap();
    assert!((rate - drp as f64 / enq as f64).abs() < 1e-12, "{rate}");
}

#[test]
fn background_rows_and_flow_ids() {
    let o = traced(&dumbbell("0s"));
    let (flow, seq, size) = (col(&o, "flow"), col(&o, "seq"), col(&o, "size_bytes"));
    let mut bg = 0;
    for i in 0..o.trace.rows() {
        if flow[i] < 0.0 {
            bg += 1;
            assert_eq!((flow[i], seq[i], size[i]), (-1.0, 0.0, 500.0), "row {i}");
        } else {
            assert!(flow[i] < 6.0 && size[i] == 1000.0, "row {i}");
        }
    }
    // 2 Mbps of 500 B packets for 20 s: about 10,000 arrivals, 2 rows each.
    assert!(bg > 15_000 && bg < 25_000, "{bg}");
}

#[test]
fn transfer_ids_are_the_flows_tables() {
    // Open-loop transfers reuse slots; the trace names flows by the flows
    // table's ids, not by slot.
    let v = json!({
        "duration": "10s",
        "link": {"capacity": "10Mbps", "delay": "5ms", "buffer": "30pkt"},
        "flows": [{"rtt": "40ms", "mss": "1000B", "size": "10pkt", "arrival": {"load": 0.5}}],
    });
    let o = traced(&v);
    let table: BTreeSet<u64> = o
        .flows
        .get("flow")
        .unwrap()
        .iter()
        .map(|&f| f as u64)
        .collect();
    let traced: BTreeSet<u64> = col(&o, "flow").iter().map(|&f| f as u64).collect();
    assert!(table.len() > 300, "{} transfers", table.len());
    assert!(traced.is_subset(&table));
    // A transfer of 10 packets without loss: segments 0..10 each enqueued once.
    let mut segs: HashMap<u64, BTreeSet<u64>> = HashMap::new();
    for ((&f, &s), &e) in col(&o, "flow")
        .iter()
        .zip(col(&o, "seq"))
        .zip(col(&o, "event"))
    {
        if e == ENQUEUE as f64 {
            segs.entry(f as u64).or_default().insert(s as u64);
        }
    }
    let full = segs.values().filter(|s| s.len() == 10).count();
    assert!(full > table.len() / 2, "{full} of {}", table.len());
}

#[test]
fn drop_rows_match_the_summary_by_reason() {
    let base = |qdisc: &str, params: Value, warmup: &str| {
        json!({
            "duration": "15s", "warmup": warmup,
            "link": {"capacity": "10Mbps", "delay": "10ms", "buffer": "60pkt",
                     "qdisc": qdisc, "qdisc_params": params},
            "flows": [{"count": 8, "rtt": {"min": "20ms", "max": "100ms"}, "mss": "1000B"}],
            "background": [{"kind": "poisson", "rate": "3Mbps", "packet_size": "1000B"}],
        })
    };
    let cases = [
        base("droptail", json!({}), "0s"),
        base("red", json!({"min_th": 5, "max_th": 20}), "0s"),
        base("red", json!({"min_th": 5, "max_th": 20}), "3s"),
        // Background above the capacity, non-gentle: the average passes max_th (forced drops).
        {
            let mut v = base(
                "red",
                json!({"min_th": 5, "max_th": 15, "gentle": false}),
                "0s",
            );
            v["background"][0]["rate"] = "12Mbps".into();
            v
        },
        base("fq", json!({}), "0s"),
        base("codel", json!({}), "0s"),
        base("fq_codel", json!({}), "2s"),
        base("pie", json!({}), "0s"),
    ];
    let mut seen = BTreeSet::new();
    for v in &cases {
        let o = traced(v);
        let warmup = bufsim_core::units::parse_duration(v["warmup"].as_str().unwrap())
            .unwrap()
            .as_secs_f64();
        // The run names its own reasons: overflow and the discipline's.
        let s = common::from_json(v).unwrap();
        let reasons = s.link().queue.drop_reasons();
        assert_eq!(o.trace_events, event_names(&reasons));
        for (i, r) in reasons.iter().enumerate() {
            let code = DROP_BASE + i as u8;
            assert_eq!(o.trace_events[code as usize], format!("drop_{r}"));
            let rows = count(&o, code, warmup);
            let want = o.metric(&format!("drops_{r}")).unwrap();
            assert_eq!(rows as f64, want, "{}: drops_{r}", v["link"]);
            if rows > 0 {
                seen.insert(r.to_string());
            }
        }
        // No counter of another discipline's reasons.
        let counters: Vec<_> = o
            .summary
            .iter()
            .filter(|(k, _)| k.starts_with("drops_"))
            .collect();
        assert_eq!(counters.len(), reasons.len(), "{}: {counters:?}", v["link"]);
    }
    // Every reason of these disciplines occurred at least once.
    for r in [
        "overflow",
        "early",
        "forced",
        "longest_queue",
        "codel",
        "pie",
    ] {
        assert!(seen.contains(r), "no {r} drop in any case: {seen:?}");
    }
}

#[test]
fn ecn_marks_show_on_dequeue_rows() {
    let v = json!({
        "duration": "15s",
        "link": {"capacity": "10Mbps", "delay": "10ms", "buffer": "100pkt",
                 "qdisc": "red", "qdisc_params": {"min_th": 10, "max_th": 30, "ecn": true}},
        "flows": [{"count": 8, "rtt": "60ms", "mss": "1000B", "ecn": true}],
    });
    let o = traced(&v);
    let (ev, ecn) = (col(&o, "event"), col(&o, "ecn"));
    let ce = (0..o.trace.rows())
        .filter(|&i| ev[i] == DEQUEUE as f64 && (ecn[i] as u8) & bufsim_core::net::CE != 0)
        .count();
    assert!(ce > 20, "{ce} marked packets");
    // Arrivals are ECN-capable and not yet marked.
    assert!(
        (0..o.trace.rows())
            .filter(|&i| ev[i] == ENQUEUE as f64)
            .all(|i| (ecn[i] as u8) & bufsim_core::net::ECT != 0
                && (ecn[i] as u8) & bufsim_core::net::CE == 0)
    );
    assert_eq!(o.metric("drops_early").unwrap(), 0.0);
}

/// Bit-for-bit equality of two tables (NaN equals NaN).
fn same(a: &bufsim_core::output::Table, b: &bufsim_core::output::Table) -> bool {
    a.columns.len() == b.columns.len()
        && a.columns
            .iter()
            .zip(&b.columns)
            .all(|((na, va), (nb, vb))| {
                na == nb
                    && va.len() == vb.len()
                    && va.iter().zip(vb).all(|(x, y)| x.to_bits() == y.to_bits())
            })
}

#[test]
fn tracing_changes_no_result() {
    for v in [
        dumbbell("2s"),
        json!({
            "duration": "10s", "warmup": "1s",
            "link": {"capacity": "10Mbps", "delay": "5ms", "buffer": "30pkt", "qdisc": "fq_codel"},
            "flows": [{"rtt": {"uniform": ["20ms", "80ms"]}, "mss": "1500B", "size": "dhamdhere2006",
                       "arrival": {"load": 0.8}},
                      {"count": 2, "rtt": "50ms", "tcp": "cubic", "stack": "linux"}],
        }),
    ] {
        let (off, on) = (run(&v), traced(&v));
        assert!(off.trace.columns.is_empty(), "no trace table when off");
        assert!(on.trace.rows() > 1000);
        assert_eq!(off.summary.len(), on.summary.len());
        for ((ka, va), (kb, vb)) in off.summary.iter().zip(&on.summary) {
            assert_eq!(ka, kb);
            assert_eq!(va.to_bits(), vb.to_bits(), "{ka}: {va} vs {vb}");
        }
        assert!(same(&off.flows, &on.flows));
        assert!(same(&off.timeseries, &on.timeseries));
        assert!(same(&off.congestion_events, &on.congestion_events));
    }
}

#[test]
fn per_flow_delay_and_jitter_match_the_trace() {
    // Drop-tail is FIFO and drops only arrivals, so a flow's k-th accepted
    // arrival is its k-th departure: the trace gives every packet's wait.
    // No background: the packet-weighted mean of the flows' means is the
    // summary's mean.
    let v = json!({
        "duration": "20s", "warmup": "4s",
        "link": {"capacity": "10Mbps", "delay": "10ms", "buffer": "50pkt"},
        "flows": [{"count": 5, "rtt": {"min": "30ms", "max": "150ms"}, "mss": "1000B"}],
    });
    let o = traced(&v);
    let warmup = 4.0;
    let (t, ev, flow) = (col(&o, "time_s"), col(&o, "event"), col(&o, "flow"));
    let overflow = (DROP_BASE as usize + DropReason::OVERFLOW.index()) as f64;
    let mut pending: HashMap<i64, VecDeque<f64>> = HashMap::new();
    let mut waits: HashMap<i64, Vec<f64>> = HashMap::new();
    for i in 0..o.trace.rows() {
        let f = flow[i] as i64;
        if ev[i] == ENQUEUE as f64 {
            pending.entry(f).or_default().push_back(t[i]);
        } else if ev[i] == overflow {
            pending.get_mut(&f).unwrap().pop_back();
        } else if ev[i] == DEQUEUE as f64 {
            let at = pending.get_mut(&f).unwrap().pop_front().unwrap();
            if t[i] >= warmup {
                waits.entry(f).or_default().push(t[i] - at);
            }
        }
    }
    let ids = o.flows.get("flow").unwrap();
    let (n, mean, jitter) = (
        o.flows.get("queued_pkts").unwrap(),
        o.flows.get("mean_queue_delay_s").unwrap(),
        o.flows.get("jitter_s").unwrap(),
    );
    let (mut total, mut weighted) = (0.0, 0.0);
    for (k, &f) in ids.iter().enumerate() {
        let w = &waits[&(f as i64)];
        assert_eq!(n[k], w.len() as f64, "flow {f}");
        let m = w.iter().sum::<f64>() / w.len() as f64;
        let j = w.windows(2).map(|p| (p[1] - p[0]).abs()).sum::<f64>() / (w.len() - 1) as f64;
        // Times in the trace are f64 seconds (1e-14 s at 20 s): 1 ns slack.
        assert!((mean[k] - m).abs() < 1e-9, "flow {f}: {} vs {m}", mean[k]);
        assert!(
            (jitter[k] - j).abs() < 1e-9,
            "flow {f}: {} vs {j}",
            jitter[k]
        );
        assert!(mean[k] > 0.0 && jitter[k] > 0.0);
        total += n[k];
        weighted += n[k] * mean[k];
    }
    let summary = o.metric("mean_queue_delay_s").unwrap();
    assert!(
        (weighted / total - summary).abs() <= 1e-12 * summary,
        "{} vs {summary}",
        weighted / total
    );
}

#[test]
fn fluid_refuses_trace() {
    let v = json!({
        "duration": "10s",
        "link": {"capacity": "10Mbps", "delay": "10ms", "buffer": "50pkt"},
        "flows": [{"count": 2, "rtt": "40ms"}],
        "output": {"trace": true},
    });
    let s = common::from_json(&v).unwrap();
    let e = fluid::check(&s).unwrap_err();
    assert_eq!(e.path, "output.trace");
    assert!(e.to_string().contains("packet"), "{e}");
    let mut bad = v.clone();
    bad["output"]["trace"] = "yes".into();
    let e = common::from_json(&bad).unwrap_err();
    assert!(e.path.starts_with("output.trace"), "{}", e.path);
}
