//! Packet-engine benchmark (`make bench`): bottleneck packets per wall-clock
//! second, events per second and peak memory on the reference scenarios below.
//!
//! (a) 1 Gbps, 10 NewReno flows, RTTs 115.5-124.5 ms, 1000 B packets,
//!     buffer 1250 packets, 60 s simulated (target: >= 5e6 packets/s, one core);
//! (b) 10 Gbps, 10 flows, RTTs 80-260 ms, 1500 B packets, buffer 0.1 BDP,
//!     30 s simulated (target: peak memory < 500 MB).
//!
//! Each case runs in a child process so that its peak resident memory
//! (`VmHWM`) is its own. Packets per CPU second (from `/proc/self/schedstat`)
//! measure one core whatever else runs; packets per wall second need an
//! idle machine. `cargo bench -p bufsim-core --bench packet -- a`
//! runs only the cases whose name contains `a`.

use std::process::Command;
use std::time::Instant;

use bufsim_core::{Scenario, packet};
use serde_json::{Value, json};

/// The benchmark cases: (name, scenario).
fn cases() -> Vec<(&'static str, Value)> {
    let a = json!({
        "duration": "60s",
        "link": {"capacity": "1Gbps", "delay": "50ms", "buffer": "1250pkt"},
        "flows": [{"count": 10, "tcp": "newreno", "rtt": {"min": "115.5ms", "max": "124.5ms"}, "mss": "1000B"}],
    });
    let b = json!({
        "duration": "30s",
        "link": {"capacity": "10Gbps", "delay": "10ms", "buffer": "0.1BDP"},
        "flows": [{"count": 10, "tcp": "newreno", "rtt": {"min": "80ms", "max": "260ms"}, "mss": "1500B"}],
    });
    let mut v = vec![
        ("a-1Gbps-10flows-newreno-droptail", a.clone()),
        ("b-10Gbps-10flows-0.1BDP", b),
    ];
    // Case (a) with each TCP variant (drop-tail) and each queue
    // discipline (NewReno); none may cost more than 25% of (a)'s packets per
    // CPU second (the table's last column). BBR (paced: one pacing-timer
    // event per segment sent, and per-segment delivery-rate state) may cost
    // up to 30%.
    for tcp in ["aimd", "highspeed", "scalable", "cubic", "htcp", "bbr"] {
        let mut c = a.clone();
        c["flows"][0]["tcp"] = tcp.into();
        v.push((
            Box::leak(format!("v-1Gbps-10flows-{tcp}-droptail").into_boxed_str()) as &str,
            c,
        ));
    }
    for q in ["red", "fq", "codel", "fq_codel", "pie"] {
        let mut c = a.clone();
        c["link"]["qdisc"] = q.into();
        if q == "red" {
            // Thresholds scaled to the 1250-packet buffer (the 5/15-packet
            // defaults are for 10 Mbps links and starve a 1 Gbps one).
            c["link"]["qdisc_params"] = json!({"min_th": 250, "max_th": 750, "adaptive": true});
        }
        v.push((
            Box::leak(format!("q-1Gbps-10flows-newreno-{q}").into_boxed_str()) as &str,
            c,
        ));
    }
    // Case (a) with the linux and ns3 stack profiles (initial window 10,
    // delayed ACKs, PRR; linux adds RACK-TLP and HyStart++): the cost of
    // real-stack fidelity, in the same last column.
    for stack in ["linux", "ns3"] {
        let mut c = a.clone();
        c["flows"][0]["stack"] = stack.into();
        v.push((
            Box::leak(format!("p-1Gbps-10flows-newreno-{stack}").into_boxed_str()) as &str,
            c,
        ));
    }
    // Open loop at load 0.95: Poisson arrivals of paper 002's size
    // mixture (mean 35 packets of 1500 B) on 100 Mbps, RTTs 20-200 ms, a
    // 100-packet buffer: ~225 transfers/s, ~45000 transfers in 200 s. The
    // flows/s column (transfers completed per wall second) is this case's.
    let o = json!({
        "duration": "210s", "warmup": "10s",
        "link": {"capacity": "100Mbps", "delay": "5ms", "buffer": "100pkt"},
        "flows": [{"rtt": {"uniform": ["20ms", "200ms"]}, "mss": "1500B", "size": "dhamdhere2006", "arrival": {"load": 0.95}}],
    });
    v.push(("o-100Mbps-open-loop-load0.95", o));
    // Scaling: CUBIC flows with RTTs 20-200 ms through 0.1 BDP of buffer,
    // flows x capacity, each case long enough for a few million packets.
    for (cap, dur) in [(1, "20s"), (10, "4s"), (40, "2s")] {
        for n in [10, 100, 1000, 10000] {
            let c = json!({
                "duration": dur,
                "link": {"capacity": format!("{cap}Gbps"), "delay": "5ms", "buffer": "0.1BDP", "packet_size": "1500B"},
                "flows": [{"count": n, "tcp": "cubic", "rtt": {"uniform": ["20ms", "200ms"]}, "mss": "1500B",
                           "start": {"uniform": ["0s", "0.5s"]}}],
            });
            v.push((
                Box::leak(format!("s-{cap}Gbps-{n}flows-cubic").into_boxed_str()) as &str,
                c,
            ));
        }
    }
    v
}

/// Peak resident set size of this process, bytes (Linux `VmHWM`).
fn peak_rss_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| {
                l.split_whitespace()
                    .nth(1)
                    .and_then(|kb| kb.parse::<u64>().ok())
            })
        })
        .map(|kb| kb * 1024)
        .unwrap_or(0)
}

/// CPU time this process has run, seconds (Linux `schedstat`; NaN elsewhere).
/// Rates per CPU second do not depend on what else the machine is doing.
fn cpu_seconds() -> f64 {
    std::fs::read_to_string("/proc/self/schedstat")
        .ok()
        .and_then(|s| {
            s.split_whitespace()
                .next()
                .and_then(|ns| ns.parse::<f64>().ok())
        })
        .map(|ns| ns * 1e-9)
        .unwrap_or(f64::NAN)
}

/// Run one case in this process and print one JSON line of measurements.
fn run_case(name: &str, v: &Value) {
    let s = Scenario::from_json(&v.to_string()).expect("benchmark scenario is valid");
    let (t0, c0) = (Instant::now(), cpu_seconds());
    let out = packet::run(&s, &mut |_| true);
    let (wall, cpu) = (t0.elapsed().as_secs_f64(), cpu_seconds() - c0);
    let m = |k: &str| out.metric(k).unwrap_or(f64::NAN);
    let pkts = m("packets_delivered") + m("packets_dropped");
    println!(
        "{}",
        json!({
            "case": name,
            "wall_s": wall,
            "bottleneck_pkts": pkts,
            "pkts_per_s": pkts / wall,
            "pkts_per_cpu_s": pkts / cpu,
            "events_per_s": m("events") / wall,
            "peak_rss_mb": peak_rss_bytes() as f64 / 1e6,
            "utilization": m("utilization"),
            "flows_per_s": m("flows_completed") / wall,
            "flow_slots": m("flow_slots"),
        })
    );
}

fn main() {
    if let Ok(name) = std::env::var("BUFSIM_BENCH_CASE") {
        let (_, v) = cases()
            .into_iter()
            .find(|(n, _)| *n == name)
            .expect("known case");
        run_case(&name, &v);
        return;
    }
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let exe = std::env::current_exe().expect("own path");
    println!(
        "{:<36} {:>8} {:>12} {:>12} {:>12} {:>10} {:>6} {:>7} {:>10}",
        "case", "wall s", "pkts/s", "pkts/cpu-s", "events/s", "peak MB", "util", "vs a", "flows/s"
    );
    let mut base = f64::NAN;
    for (name, _) in cases() {
        if filter.as_deref().is_some_and(|f| !name.contains(f)) {
            continue;
        }
        let out = Command::new(&exe)
            .env("BUFSIM_BENCH_CASE", name)
            .output()
            .expect("child runs");
        let line = String::from_utf8_lossy(&out.stdout);
        let r: Value = serde_json::from_str(line.trim()).expect("child prints JSON");
        let rate = r["pkts_per_cpu_s"].as_f64().unwrap();
        if name.starts_with("a-") {
            base = rate;
        }
        println!(
            "{:<36} {:>8.2} {:>12.3e} {:>12.3e} {:>12.3e} {:>10.1} {:>6.3} {:>7.3} {:>10.3e}",
            name,
            r["wall_s"].as_f64().unwrap(),
            r["pkts_per_s"].as_f64().unwrap(),
            r["pkts_per_cpu_s"].as_f64().unwrap(),
            r["events_per_s"].as_f64().unwrap(),
            r["peak_rss_mb"].as_f64().unwrap(),
            r["utilization"].as_f64().unwrap(),
            rate / base,
            r["flows_per_s"].as_f64().unwrap_or(0.0),
        );
    }
}
