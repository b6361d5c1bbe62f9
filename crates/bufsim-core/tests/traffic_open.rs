//! Open-loop traffic in the packet engine: Little's law, finite `count`
//! transfers, slot reuse, the overload cap, determinism.

mod common;

use bufsim_core::{RunOutput, packet};
use serde_json::{Value, json};

fn run(v: &Value) -> RunOutput {
    let s = common::from_json(v).unwrap_or_else(|e| panic!("{e}"));
    packet::run(&s, &mut |_| true)
}

fn col<'a>(o: &'a RunOutput, name: &str) -> &'a [f64] {
    o.flows
        .get(name)
        .unwrap_or_else(|| panic!("no column {name}"))
}

fn m(o: &RunOutput, k: &str) -> f64 {
    o.metric(k).unwrap_or_else(|| panic!("no metric {k}"))
}

/// Largest sampled number of active transfers.
fn peak_active(o: &RunOutput) -> f64 {
    o.timeseries
        .get("active_flows")
        .unwrap()
        .iter()
        .cloned()
        .fold(0.0, f64::max)
}

/// 10 Mbps, 20 ms RTT, Poisson arrivals of exponential 60-packet flows at load rho.
fn open(rho: f64, duration: &str) -> Value {
    json!({
        "duration": duration, "warmup": "20s", "seed": 3,
        "link": {"capacity": "10Mbps", "delay": "5ms", "buffer": "100pkt"},
        "flows": [{"rtt": "20ms", "mss": "1500B", "size": {"exponential": "60pkt"}, "arrival": {"load": rho}}],
        "output": {"interval": "1s"},
    })
}

#[test]
fn littles_law_holds_within_2_percent() {
    // Little's law L = lambda W holds on every sample path up to edge
    // effects: transfers in progress at the window's two ends. With ~20000
    // transfers of mean sojourn ~0.1 s over 1000 s, those are of order
    // L * W / T ~ 1e-4 relative; 2% leaves room for the arrival-rate
    // estimate (we use the measured count, so sampling noise cancels).
    let o = run(&open(0.6, "1020s"));
    let fin = col(&o, "finished");
    let fct = col(&o, "fct_s");
    let done: Vec<f64> = fin
        .iter()
        .zip(fct)
        .filter(|(f, _)| **f == 1.0)
        .map(|(_, t)| *t)
        .collect();
    let arrived = m(&o, "flows_arrived");
    let lambda = arrived / 1000.0;
    let w = done.iter().sum::<f64>() / done.len() as f64;
    let l = m(&o, "active_flows_mean");
    eprintln!(
        "arrived {arrived}, completed {}, lambda {lambda:.3}/s, W {w:.4}s, L {l:.4}, lambda W {:.4}",
        done.len(),
        lambda * w
    );
    assert!(arrived > 8_000.0);
    assert!(
        (l / (lambda * w) - 1.0).abs() < 0.02,
        "L {l} vs lambda W {}",
        lambda * w
    );
    // Offered load 0.6 of 10 Mbps: utilization follows (retransmissions add a little).
    let u = m(&o, "utilization");
    assert!((u - 0.6).abs() < 0.03, "utilization {u}");
    assert_eq!(m(&o, "overload"), 0.0);
}

#[test]
fn slots_are_reused_and_runs_repeat() {
    let v = open(0.8, "220s");
    let (a, b) = (run(&v), run(&v));
    assert_eq!(
        format!("{a:?}"),
        format!("{b:?}"),
        "same seed, same result (NaN-aware)"
    );
    // Flow ids are unique; far fewer slots than transfers (slot reuse):
    // the largest number of simultaneously active flows sampled bounds them.
    let ids = col(&a, "flow");
    let mut sorted = ids.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted.dedup();
    assert_eq!(sorted.len(), ids.len());
    let peak = peak_active(&a);
    let slots = m(&a, "flow_slots");
    eprintln!("transfers {} peak active {peak} slots {slots}", ids.len());
    assert!(ids.len() > 2000 && peak < 100.0);
    // Slots: the peak number of active transfers plus a few quiet-pending ones.
    assert!(slots < 1.5 * peak + 10.0, "slots {slots}");
    // Every finished transfer delivered exactly its size.
    for ((s, d), f) in col(&a, "size_pkts")
        .iter()
        .zip(col(&a, "delivered_pkts"))
        .zip(col(&a, "finished"))
    {
        if *f == 1.0 {
            assert_eq!(s, d);
        }
    }
}

#[test]
fn overload_is_capped_and_flagged() {
    // Offered load 1.5: the number of flows would grow without bound; the
    // cap of 200 active transfers holds and the run says it was in overload.
    let mut v = open(1.5, "60s");
    v["warmup"] = "0s".into();
    v["flows"][0]["max_active"] = 200.into();
    let o = run(&v);
    let peak = peak_active(&o);
    assert!(peak <= 200.0, "peak {peak}");
    assert_eq!(m(&o, "overload"), 1.0);
    assert!(m(&o, "flows_refused") > 100.0);
    assert!(m(&o, "utilization") > 0.95);
}

#[test]
fn finite_count_flows_complete_once() {
    // 20 transfers of 100 packets each, staggered: all complete, none restart.
    let v = json!({
        "duration": "30s",
        "link": {"capacity": "10Mbps", "delay": "5ms", "buffer": "50pkt"},
        "flows": [{"count": 20, "rtt": "40ms", "size": "100pkt", "start": {"stagger": "0.5s"}}],
    });
    let o = run(&v);
    assert_eq!(col(&o, "finished").iter().sum::<f64>(), 20.0);
    assert!(col(&o, "delivered_pkts").iter().all(|&d| d == 100.0));
    // A lone 100-packet transfer in slow start: 1+2+4+...: 7 RTTs of 40 ms
    // plus serialization; well under 1 s each.
    assert!(
        col(&o, "fct_s").iter().all(|&t| t > 0.2 && t < 1.0),
        "{:?}",
        col(&o, "fct_s")
    );
    assert!(m(&o, "active_flows_mean") > 0.0);
}
