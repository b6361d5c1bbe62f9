//! Closed-loop users (paper 002 section 3.5) and access-rate-limited flows
//! (paper 000 section III.A) in the packet engine.

mod common;

use bufsim_core::{RunOutput, packet};
use serde_json::{Value, json};

fn run(v: &Value) -> RunOutput {
    let s = common::from_json(v).unwrap_or_else(|e| panic!("{e}"));
    packet::run(&s, &mut |_| true)
}

fn m(o: &RunOutput, k: &str) -> f64 {
    o.metric(k).unwrap_or_else(|| panic!("no metric {k}"))
}

fn closed(users: u32, think: &str) -> Value {
    json!({
        "duration": "300s", "warmup": "20s", "seed": 5,
        "link": {"capacity": "10Mbps", "delay": "10ms", "buffer": "50pkt"},
        "flows": [{"users": users, "think": think, "rtt": {"uniform": ["40ms", "120ms"]},
                   "size": {"exponential": "50pkt"}}],
    })
}

#[test]
fn closed_loop_never_exceeds_users_and_throughput_rises_as_think_falls() {
    // 30 users, 50-packet (75 KB) transfers on 10 Mbps. With think time Z
    // and transfer time ~R, each user offers 75 KB per (Z + R): at Z = 10 s
    // about 1.8 Mbps in all, at Z = 0.5 s the link saturates.
    let mut last = 0.0;
    for think in ["10s", "3s", "1s", "0.3s"] {
        let o = run(&closed(30, think));
        let (gp, max, mean) = (
            m(&o, "goodput_bps"),
            m(&o, "active_flows_max"),
            m(&o, "active_flows_mean"),
        );
        eprintln!(
            "think {think}: goodput {:.3} Mbps, active mean {mean:.2}, max {max}, completed {}",
            gp / 1e6,
            m(&o, "flows_completed")
        );
        assert!(max <= 30.0, "active {max} > U");
        assert!(gp > last * 1.05, "goodput {gp} did not rise above {last}");
        last = gp;
    }
    // With think 0.3 s the 30 users keep the 10 Mbps link nearly full.
    assert!(last > 8.5e6, "{last}");
}

#[test]
fn closed_loop_throughput_matches_the_interactive_law() {
    // Interactive response-time law (Little on the whole loop):
    // X = U / (Z + R), X in transfers/s, R the mean completion time.
    let o = run(&closed(30, "3s"));
    let fct = o.flows.get("fct_s").unwrap();
    let fin = o.flows.get("finished").unwrap();
    let r: f64 = fct
        .iter()
        .zip(fin)
        .filter(|(_, f)| **f == 1.0)
        .map(|(t, _)| t)
        .sum::<f64>()
        / fin.iter().filter(|f| **f == 1.0).count() as f64;
    let x = m(&o, "flows_completed") / 280.0;
    let want = 30.0 / (3.0 + r);
    eprintln!("X {x:.3}/s vs U/(Z+R) {want:.3}/s (R {r:.3}s)");
    // Random think times: ~2900 transfers, Poisson-like noise ~2%; 5%.
    assert!((x / want - 1.0).abs() < 0.05);
}

#[test]
fn access_limited_flows_never_exceed_their_access_rate() {
    // 1 Mbps DSL-like access links on a 100 Mbps target link: open-loop
    // transfers of 200 packets (300 KB) at 30% load, and one persistent flow.
    // Each access link buffers 50 packets (more than its 7.5-packet BDP, so
    // a Reno flow keeps it busy, paper 003 Theorem 1 with B >= B0).
    let v = json!({
        "duration": "120s", "warmup": "10s", "seed": 2,
        "link": {"capacity": "100Mbps", "delay": "5ms", "buffer": "100pkt"},
        "flows": [
            {"rtt": "60ms", "access_rate": "1Mbps", "access_buffer": "50pkt",
             "size": {"exponential": "200pkt"}, "arrival": {"load": 0.3}},
            {"count": 1, "rtt": "60ms", "access_rate": "1Mbps", "access_buffer": "50pkt"},
        ],
    });
    let o = run(&v);
    let thr = o.flows.get("throughput_bps").unwrap();
    let max = thr
        .iter()
        .cloned()
        .filter(|x| x.is_finite())
        .fold(0.0, f64::max);
    // A transfer's throughput counts from its arrival: at most 1 Mbps minus
    // the slow-start ramp. The persistent flow sits at the 1 Mbps cap (its
    // goodput counts whole packets delivered in the window: within 0.5%).
    eprintln!(
        "transfers {}, max per-flow throughput {max:.0} bps, persistent {:.0} bps, drops {}",
        thr.len(),
        thr[0],
        m(&o, "packets_dropped")
    );
    assert!(thr.len() > 1000);
    assert!(max <= 1e6 * 1.005, "{max}");
    assert!((thr[0] - 1e6).abs() < 5e3, "persistent flow at {}", thr[0]);
    // Non-bottlenecked: ~25 Mbps carried, nothing dropped at the 100 Mbps
    // link (the losses happen at the access links).
    assert_eq!(m(&o, "drop_rate"), 0.0);
    assert!(m(&o, "access_drops") > 0.0);
}
