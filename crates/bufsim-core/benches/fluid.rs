//! Fluid-engine speed (`make bench`): one 3000 s run of 10 flows at 10 Gbps
//! (target: under 1 s on one core), one run of 2000 flows (the fluid scan of
//! `bufsim advise --quick` on the 10 Gbps example runs it 19 times; target:
//! under 0.3 s), and paper 004's Figure 6 sweep (4 variants x 3 X x 10
//! buffers x 10 runs of 3000 s; target: under 2 minutes on 2 cores), timed
//! on all cores with std threads.

use std::time::Instant;

use bufsim_core::fluid;
use bufsim_core::scenario::Scenario;
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;

/// The Python extension's allocator (`crates/bufsim-py/src/lib.rs` says
/// why), so that the benchmark measures the engine as users run it.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn scenario(tcp: &str, frac: f64, x: f64, seed: u64) -> Scenario {
    let v = json!({
        "duration": "3000s", "warmup": "100s", "seed": seed,
        "link": {"capacity": "10Gbps", "delay": "10ms",
                 "buffer": format!("{}pkt", (frac * 141_667.0f64).round()), "packet_size": "1500B"},
        "flows": [{"count": 10, "tcp": tcp, "rtt": {"min": "80ms", "max": "260ms"}, "mss": "1500B"}],
        "fluid": {"sync": x},
    });
    Scenario::from_json(&v.to_string()).unwrap()
}

/// The advise-10g example's fluid form at one buffer of its scan: 1000
/// CUBIC and 1000 NewReno flows, RTTs 20-200 ms, 10 Gbps, a 1 Gbps Poisson
/// background, 10 s of which 5 s warm-up (1 ms steps: 20M flow-steps).
fn many_flows(buffer_pkts: u64) -> Scenario {
    let flows = |tcp: &str| {
        json!({"count": 1000, "tcp": tcp, "rtt": {"uniform": ["20ms", "200ms"]}, "mss": "1500B",
               "stack": "linux", "start": {"uniform": ["0s", "1s"]},
               "hystart": false, "delayed_ack": false})
    };
    let v = json!({
        "duration": "10s", "warmup": "5s", "seed": 1,
        "link": {"capacity": "10Gbps", "delay": "5ms",
                 "buffer": format!("{buffer_pkts}pkt"), "packet_size": "1500B"},
        "flows": [flows("cubic"), flows("newreno")],
        "background": [{"kind": "poisson", "rate": "1e+09bps", "packet_size": "1500B"}],
    });
    Scenario::from_json(&v.to_string()).unwrap()
}

fn single_run(c: &mut Criterion) {
    let mut g = c.benchmark_group("fluid");
    g.sample_size(10);
    for tcp in ["highspeed", "cubic"] {
        let s = scenario(tcp, 0.05, 0.3, 1);
        g.bench_function(format!("10Gbps_10flows_3000s_{tcp}"), |b| {
            b.iter(|| fluid::run(&s, &mut |_| true))
        });
    }
    let s = many_flows(11_585);
    g.bench_function("10Gbps_2000flows_10s_advise", |b| {
        b.iter(|| fluid::run(&s, &mut |_| true))
    });
    g.finish();
}

fn figure6_sweep(_: &mut Criterion) {
    let mut jobs = Vec::new();
    for tcp in ["highspeed", "aimd", "cubic", "htcp"] {
        for x in [0.3, 0.6, 1.0] {
            for k in 1..=10 {
                for seed in 1..=10 {
                    jobs.push((tcp, k as f64 * 0.05, x, seed));
                }
            }
        }
    }
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let t0 = Instant::now();
    std::thread::scope(|sc| {
        for _ in 0..threads {
            sc.spawn(|| {
                loop {
                    let j = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(&(tcp, f, x, seed)) = jobs.get(j) else {
                        break;
                    };
                    std::hint::black_box(fluid::run(&scenario(tcp, f, x, seed), &mut |_| true));
                }
            });
        }
    });
    eprintln!(
        "fluid/figure6_sweep: {} runs of 3000 s on {threads} threads in {:.1} s",
        jobs.len(),
        t0.elapsed().as_secs_f64()
    );
}

criterion_group!(benches, single_run, figure6_sweep);
criterion_main!(benches);
