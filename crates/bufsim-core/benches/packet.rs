//! Packet-engine benchmark (`make bench`): bottleneck packets per CPU
//! second, events per packet and peak memory on the reference scenarios below.
//!
//! (a) 1 Gbps, 10 NewReno flows, RTTs 115.5-124.5 ms, 1000 B packets,
//!     buffer 1250 packets, 60 s simulated (target: >= 5e6 packets/s, one core);
//! (b) 10 Gbps, 10 flows, RTTs 80-260 ms, 1500 B packets, buffer 0.1 BDP,
//!     30 s simulated (target: peak memory < 500 MB);
//! (h) paper 004's setup: 10 Gbps, 10 HighSpeed flows, RTTs 80-260 ms, 0.1 BDP
//!     (target: >= 8e6 packets/s), 60 s, and once at full length (3000 s,
//!     `h3000`); the fluid engine runs the same scenario with its
//!     synchronization X set to the packet run's `sync_mean`, and its
//!     utilization is printed beside the packet engine's;
//! (m) 100,000 flows: 1 Gbps, open-loop web traffic at load 0.9 plus 1,000
//!     persistent flows (target: peak memory < 2 GB);
//! (z) 100,000 persistent flows starting together: the cost of setting up;
//! (s) the scaling table: 10 / 100 / 1k / 10k CUBIC flows x 1 / 10 / 40 /
//!     100 Gbps (target at 10 Gbps and 10k flows: >= 4e6 packets/s);
//! (t) that target as a user states it: 10,000 CUBIC flows at 10 Gbps, RTTs
//!     20-200 ms, 0.1 BDP, 10 s with starts over 1 s;
//! (d) a datacenter port: 100 Gbps, 1,000 flows with RTTs 10-100 us, DCTCP
//!     with step marking and CUBIC with drop-tail;
//! (w) a shared-buffer switch: 4 ports of 100 Gbps drawing on one 12 MB
//!     pool (dynamic threshold, alpha 1), 250 DCTCP flows on each;
//! (c) a chain (parking lot): three 10 Gbps links, 400 CUBIC flows crossing
//!     all three and 200 crossing each one alone.
//!
//! Each case runs in a child process so that its peak resident memory
//! (`VmHWM`) is its own. Packets per CPU second (from `/proc/self/schedstat`)
//! measure one core whatever else runs; packets per wall second need an
//! idle machine. `cargo bench -p bufsim-core --bench packet -- a- s-10Gbps`
//! runs only the cases whose name contains `a-` or `s-10Gbps`.
//!
//! Side by side with an older engine: `BUFSIM_BENCH_BASELINE=<path of an
//! older build of this benchmark>` runs every case in that binary too (same
//! `BUFSIM_BENCH_CASE` protocol), `BUFSIM_BENCH_PAIRS` times (default 5)
//! with both binaries running at once, one per core, and prints the median
//! ratio of packets per CPU second (new / old; `nan` where the old
//! benchmark lacks the case). Run one after the other, the ratio would carry
//! the machine's drift: on a shared virtual machine the same binary's speed
//! drifts between runs by more than most changes. All
//! rows (with every pair's ratio) go to `target/criterion/packet-engine.json`,
//! beside criterion's outputs.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Instant;

use bufsim_core::queue::describe_disciplines;
use bufsim_core::tcp::cc::describe_variants;
use bufsim_core::{Scenario, fluid, packet};
use serde_json::{Value, json};

/// The Python extension's allocator (`crates/bufsim-py/src/lib.rs` says
/// why), so that the benchmark measures the engine as users run it.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Side-by-side runs per case with `BUFSIM_BENCH_BASELINE` (the median ratio
/// is reported): `BUFSIM_BENCH_PAIRS`, or this many.
const DEFAULT_PAIRS: usize = 5;

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
    // Case (a) with each registered TCP variant (drop-tail) and each
    // registered queue discipline (NewReno); none may cost more than 25% of
    // (a)'s packets per CPU second (the table's last column). BBR (paced:
    // one pacing-timer event per send quantum, and per-segment
    // delivery-rate state) may cost up to 30%.
    //
    // A variant that needs ECN marks (DCTCP) gets step marking at K = 250
    // packets (a fifth of the 1250-packet buffer). DCTCP's utilization
    // column is low (0.50 measured) and right: marks at K end slow start
    // near a total window of 2K, far below this path's 15000-packet BDP,
    // and Reno growth needs minutes to climb back (and K < C x RTT / 7 =
    // 2143 starves it anyway); the row measures cost.
    let threshold = json!({"k": 250});
    for var in describe_variants() {
        if var.name == "newreno" {
            continue; // case (a)
        }
        let mut c = a.clone();
        c["flows"][0]["tcp"] = var.name.into();
        let q = if var.ecn_per_packet {
            c["link"]["qdisc"] = "threshold".into();
            c["link"]["qdisc_params"] = threshold.clone();
            "threshold"
        } else {
            "droptail"
        };
        v.push((
            Box::leak(format!("v-1Gbps-10flows-{}-{q}", var.name).into_boxed_str()) as &str,
            c,
        ));
    }
    for disc in describe_disciplines() {
        let q = disc.name;
        if q == "droptail" {
            continue; // case (a)
        }
        let mut c = a.clone();
        c["link"]["qdisc"] = q.into();
        match q {
            // Thresholds scaled to the 1250-packet buffer (the 5/15-packet
            // defaults are for 10 Mbps links and starve a 1 Gbps one).
            "red" => {
                c["link"]["qdisc_params"] = json!({"min_th": 250, "max_th": 750, "adaptive": true})
            }
            // K has no default (NewReno is not ECN-capable: dropped above K).
            "threshold" => c["link"]["qdisc_params"] = threshold.clone(),
            _ => {}
        }
        v.push((
            Box::leak(format!("q-1Gbps-10flows-newreno-{q}").into_boxed_str()) as &str,
            c,
        ));
    }
    // Case (a) with each real stack's profile named (initial window 10,
    // delayed ACKs, PRR; linux adds RACK-TLP and HyStart++). Case (a) runs
    // the default profile, linux, so its `-linux` row is the same run,
    // kept so that the table names each profile beside `-ns3`.
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
    // Paper 004's setup at 10 Gbps with HighSpeed TCP: 60 s, and the full
    // 3000 s run once.
    for (name, dur, warm) in [
        ("h-10Gbps-10flows-highspeed-0.1BDP", "60s", "10s"),
        ("h3000-10Gbps-10flows-highspeed-0.1BDP", "3000s", "100s"),
    ] {
        let h = json!({
            "duration": dur, "warmup": warm,
            "link": {"capacity": "10Gbps", "delay": "10ms", "buffer": "0.1BDP", "packet_size": "1500B"},
            "flows": [{"count": 10, "tcp": "highspeed", "rtt": {"min": "80ms", "max": "260ms"}, "mss": "1500B"}],
        });
        v.push((name, h));
    }
    // 100,000 flows: open-loop web transfers (paper 002's size mixture,
    // ~2,100 arrivals/s at load 0.9 of 1 Gbps, ~100k transfers in 48 s)
    // beside 1,000 persistent NewReno flows.
    let m = json!({
        "duration": "50s", "warmup": "2s",
        "link": {"capacity": "1Gbps", "delay": "5ms", "buffer": "0.1BDP", "packet_size": "1500B"},
        "flows": [
            {"rtt": {"uniform": ["20ms", "200ms"]}, "mss": "1500B", "size": "dhamdhere2006", "arrival": {"load": 0.9}},
            {"count": 1000, "tcp": "newreno", "rtt": {"uniform": ["20ms", "200ms"]}, "mss": "1500B",
             "start": {"uniform": ["0s", "1s"]}},
        ],
    });
    v.push(("m-1Gbps-100kflows-web0.9-1000persistent", m));
    // Setup at scale: 100,000 CUBIC flows all starting at time 0 (a
    // scenario's default start), 0.5 s, ~410,000 packets. The run is short,
    // so the setup shows in the CPU time: 100,000 start events in one bucket
    // of the event queue, which must sort them once rather than insert them
    // one by one into its ready batch (quadratic).
    let z = json!({
        "duration": "0.5s",
        "link": {"capacity": "10Gbps", "delay": "5ms", "buffer": "0.1BDP", "packet_size": "1500B"},
        "flows": [{"count": 100000, "tcp": "cubic", "rtt": {"uniform": ["20ms", "200ms"]}, "mss": "1500B"}],
    });
    v.push(("z-10Gbps-100kflows-cubic-start0", z));
    // Scaling: CUBIC flows with RTTs 20-200 ms through 0.1 BDP of buffer,
    // flows x capacity, each case long enough for a few million packets.
    // The utilization column covers the whole run, start-up included: at
    // 40 Gbps x 10 flows (2 s) it reads 0.58 and is right. The link is
    // nearly idle until 0.75 s (starts spread over 0.5 s, then slow start
    // from the initial window to ~37,000 packets a flow), full from 1 s,
    // and slow start's overshoot ends in drops at ~1.9 s (0.43 over the
    // last 0.25 s); the same case measured over [2 s, 10 s] gives 0.98,
    // over [10 s, 20 s] 0.9999.
    for (cap, dur) in [(1, "20s"), (10, "4s"), (40, "2s"), (100, "1s")] {
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
    // The scaling target as stated: a 10 s run, so most of it is past
    // slow start with every flow's state and timer live.
    let t = json!({
        "duration": "10s",
        "link": {"capacity": "10Gbps", "delay": "5ms", "buffer": "0.1BDP", "packet_size": "1500B"},
        "flows": [{"count": 10000, "tcp": "cubic", "rtt": {"uniform": ["20ms", "200ms"]}, "mss": "1500B",
                   "start": {"uniform": ["0s", "1s"]}}],
    });
    v.push(("t-10Gbps-10kflows-cubic-10s", t));
    // A 100 Gbps datacenter port: 1,000 flows with RTTs of 10-100 us
    // starting over 10 ms, 0.5 s (about 4 million packets). A buffer of
    // 2,000 packets (3 MB) holds the flows' minimum windows above the
    // ~460-packet BDP; DCTCP marks at K = 100 packets (above C x RTT / 7
    // = 65 at the mean RTT, RFC 8257 section 3.1's guideline).
    for (tcp, qdisc) in [("dctcp", "threshold"), ("cubic", "droptail")] {
        let mut d = json!({
            "duration": "0.5s", "warmup": "0.1s",
            "link": {"capacity": "100Gbps", "delay": "1us", "buffer": "2000pkt", "packet_size": "1500B",
                     "qdisc": qdisc},
            "flows": [{"count": 1000, "tcp": tcp, "rtt": {"uniform": ["10us", "100us"]}, "mss": "1500B",
                       "start": {"uniform": ["0s", "10ms"]}}],
        });
        if qdisc == "threshold" {
            d["link"]["qdisc_params"] = json!({"k": 100});
        }
        v.push((
            Box::leak(format!("d-100Gbps-1000flows-{tcp}-{qdisc}").into_boxed_str()) as &str,
            d,
        ));
    }
    // A shared-buffer switch: four 100 Gbps ports, one 12 MB pool (a
    // Tomahawk-class chip's buffer per four ports), alpha 1; each port has
    // 250 DCTCP flows (RTTs 10-100 us) marking at K = 100 packets.
    let flows: Vec<Value> = (0..4)
        .map(|k| {
            json!({"count": 250, "tcp": "dctcp", "rtt": {"uniform": ["10us", "100us"]},
                   "mss": "1500B", "start": {"uniform": ["0s", "10ms"]}, "port": k})
        })
        .collect();
    v.push((
        "w-4x100Gbps-pool-1000flows-dctcp",
        json!({
            "duration": "0.25s", "warmup": "0.05s",
            "link": {"capacity": "100Gbps", "delay": "1us", "packet_size": "1500B",
                     "qdisc": "threshold", "qdisc_params": {"k": 100}},
            "pool": {"size": "12MB", "ports": 4, "alpha": 1},
            "flows": flows,
        }),
    ));
    // A parking lot: three 10 Gbps links (2 ms each, 0.2 BDP), 400 CUBIC
    // flows through all three and 200 through each one alone, RTTs 20-100 ms.
    let link =
        json!({"capacity": "10Gbps", "delay": "2ms", "buffer": "0.2BDP", "packet_size": "1500B"});
    let mut flows = vec![
        json!({"count": 400, "tcp": "cubic", "rtt": {"uniform": ["20ms", "100ms"]},
                                "mss": "1500B", "start": {"uniform": ["0s", "0.5s"]}, "links": [0, 1, 2]}),
    ];
    for k in 0..3 {
        flows.push(
            json!({"count": 200, "tcp": "cubic", "rtt": {"uniform": ["20ms", "100ms"]},
                          "mss": "1500B", "start": {"uniform": ["0s", "0.5s"]}, "links": [k]}),
        );
    }
    v.push((
        "c-3x10Gbps-chain-1000flows-cubic",
        json!({"duration": "2s", "warmup": "0.5s", "links": [link.clone(), link.clone(), link],
               "flows": flows}),
    ));
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
    let peak = peak_rss_bytes() as f64 / 1e6;
    // Paper 004's cases: the fluid engine on the same scenario, its X set
    // from the packet run's synchronization ("fluid calibrated by packet").
    let fluid_util = if name.starts_with('h') && m("sync_mean") > 0.0 {
        let mut fv = v.clone();
        fv["fluid"] = json!({"sync": m("sync_mean").min(1.0)});
        let fs = Scenario::from_json(&fv.to_string()).expect("fluid scenario is valid");
        fluid::run(&fs, &mut |_| true)
            .metric("utilization")
            .unwrap_or(f64::NAN)
    } else {
        f64::NAN
    };
    println!(
        "{}",
        json!({
            "case": name,
            "wall_s": wall,
            "cpu_s": cpu,
            "bottleneck_pkts": pkts,
            "pkts_per_s": pkts / wall,
            "pkts_per_cpu_s": pkts / cpu,
            "events_per_s": m("events") / wall,
            "events_per_pkt": m("events") / pkts,
            "peak_rss_mb": peak,
            "utilization": m("utilization"),
            "sync_mean": m("sync_mean"),
            "fluid_utilization": fluid_util,
            "flows_per_s": m("flows_completed") / wall,
            "flows_arrived": m("flows_arrived"),
            "flow_slots": m("flow_slots"),
        })
    );
}

/// Start case `name` in a child process of benchmark binary `exe`.
fn spawn_child(exe: &Path, name: &str) -> Option<Child> {
    Command::new(exe)
        .env("BUFSIM_BENCH_CASE", name)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()
}

/// The JSON line of a child started by [`spawn_child`], or `None` when its
/// binary does not know the case or failed.
fn child_result(child: Option<Child>) -> Option<Value> {
    let out = child?.wait_with_output().ok()?;
    if !out.status.success() {
        return None;
    }
    let line = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(line.trim().lines().last()?).ok()
}

/// Run case `name` in a child process of benchmark binary `exe`, alone.
fn run_child(exe: &Path, name: &str) -> Option<Value> {
    child_result(spawn_child(exe, name))
}

/// Packets per CPU second of case `name` in this build (`exe`) over the
/// baseline build, `pairs` times, each time with the two builds running at
/// once (one per core). On a shared virtual machine the speed of the same
/// binary drifts by a factor of 1.5-2 from one run to the next, more than
/// most changes being measured; both members of a pair see the same
/// drift. Also returns the baseline's first result.
fn paired_ratios(exe: &Path, base: &Path, name: &str, pairs: usize) -> (Vec<f64>, Option<Value>) {
    let mut first = None;
    let mut ratios = Vec::new();
    for _ in 0..pairs {
        let (new, old) = (spawn_child(exe, name), spawn_child(base, name));
        let (new, old) = (child_result(new), child_result(old));
        let (Some(new), Some(old)) = (new, old) else {
            break;
        };
        ratios.push(num(&new, "pkts_per_cpu_s") / num(&old, "pkts_per_cpu_s"));
        first.get_or_insert(old);
    }
    (ratios, first)
}

/// Field `k` of a case's JSON line as a number (NaN when missing).
fn num(r: &Value, k: &str) -> f64 {
    r[k].as_f64().unwrap_or(f64::NAN)
}

/// The median of `v` (NaN when empty).
fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    match s.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => s[n / 2],
        n => (s[n / 2 - 1] + s[n / 2]) / 2.0,
    }
}

/// Where the table goes: `target/criterion/packet-engine.json`.
fn json_path() -> PathBuf {
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    tmp.parent()
        .unwrap_or(tmp)
        .join("criterion")
        .join("packet-engine.json")
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
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let exe = std::env::current_exe().expect("own path");
    let baseline = std::env::var_os("BUFSIM_BENCH_BASELINE").map(PathBuf::from);
    let pairs = match std::env::var("BUFSIM_BENCH_PAIRS") {
        Ok(v) => match v.parse::<usize>() {
            Ok(n) if n >= 1 => n,
            _ => {
                eprintln!("BUFSIM_BENCH_PAIRS = {v:?}: expected a whole number of at least 1");
                std::process::exit(2);
            }
        },
        Err(_) => DEFAULT_PAIRS,
    };
    println!(
        "{:<40} {:>8} {:>11} {:>11} {:>8} {:>9} {:>6} {:>7} {:>8} {:>10} {:>6} {:>6}",
        "case",
        "cpu s",
        "pkts/s",
        "pkts/cpu-s",
        "ev/pkt",
        "peak MB",
        "util",
        "vs a",
        "vs base",
        "flows/s",
        "sync",
        "fluid"
    );
    let mut base = f64::NAN;
    let mut rows = Vec::new();
    for (name, _) in cases() {
        if !filters.is_empty() && !filters.iter().any(|f| name.contains(f.as_str())) {
            continue;
        }
        let Some(mut r) = run_child(&exe, name) else {
            println!("{name:<40} failed");
            continue;
        };
        let rate = num(&r, "pkts_per_cpu_s");
        if name.starts_with("a-") {
            base = rate;
        }
        let (ratios, old) = match baseline.as_deref() {
            Some(b) => paired_ratios(&exe, b, name, pairs),
            None => (Vec::new(), None),
        };
        let vs_base = median(&ratios);
        println!(
            "{:<40} {:>8.2} {:>11.3e} {:>11.3e} {:>8.2} {:>9.1} {:>6.3} {:>7.3} {:>8.3} {:>10.3e} {:>6.3} {:>6.3}",
            name,
            num(&r, "cpu_s"),
            num(&r, "pkts_per_s"),
            rate,
            num(&r, "events_per_pkt"),
            num(&r, "peak_rss_mb"),
            num(&r, "utilization"),
            rate / base,
            vs_base,
            num(&r, "flows_per_s"),
            num(&r, "sync_mean"),
            num(&r, "fluid_utilization"),
        );
        if let Some(o) = old {
            r["baseline"] = o;
            r["vs_baseline"] = json!(vs_base);
            r["vs_baseline_pairs"] = json!(ratios);
        }
        rows.push(r);
    }
    let path = json_path();
    let written = std::fs::create_dir_all(path.parent().expect("a directory"))
        .and_then(|_| std::fs::write(&path, serde_json::to_string_pretty(&rows).expect("JSON")));
    match written {
        Ok(()) => println!("wrote {}", path.display()),
        Err(e) => println!("could not write {}: {e}", path.display()),
    }
}
