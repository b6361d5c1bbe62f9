//! Paper 000 section III.B: "If we assume all flows are elastic and
//! bottlenecked and that congestion control realizes perfect fair sharing,
//! the processor sharing model is a reasonable statistical bandwidth sharing
//! model. This model predicts a geometric distribution for the number of
//! flows in progress: Pr[n flows] = (1 - rho) rho^n."
//!
//! Setup: Poisson arrivals of exponential flows of mean 1000 packets
//! (1500 B) on a 10 Mbps link with FQ (DRR, longest-queue drop) and a
//! 50-packet buffer; RTT 10 ms, so the BDP is 8.3 packets and a flow is
//! 120 times its BDP: slow start and its overshoot are a few percent of a
//! flow's life. No access limit. Mean service time s = 1.2 s.
//!
//! Statistical error: the time average of N in M/M/1 has asymptotic
//! variance 2 rho (1 + rho) / (1 - rho)^4 per unit time in units of s
//! (Whitt 1989), i.e. a relative standard error of
//! sqrt(2 rho (1 + rho)) / (rho (1 - rho)) / sqrt(T/s): 4.9 / sqrt(T/s) at
//! rho = 0.5 and 10.6 / sqrt(T/s) at rho = 0.8. The full test runs
//! T = 60000 s at 0.5 (T/s = 5e4: 2.2%) and 240000 s at 0.8 (T/s = 2e5:
//! 2.4%), well below the 10% tolerance; each run also estimates its own
//! standard error by batch means (50 batches, each hundreds of relaxation
//! times long) and the test prints it. The quick test runs rho = 0.5 for
//! 30000 s (3.1%).
//!
//! Measured (seed 1): rho = 0.5: 1.019 (SE 2.2%) vs 1, +1.9%; rho = 0.8:
//! 4.276 (SE 2.6%) vs 4, +6.9%, total variation from the geometric law
//! 0.014 and 0.020. Why TCP is above PS at 0.8: retransmissions raise the
//! carried load to 0.806 (PS then predicts 4.15, +3.7%), and slow start and
//! timeouts leave the link idle now and then while flows are present (TCP
//! is not perfectly work-conserving).

mod common;

use bufsim_core::packet;
use serde_json::json;

struct Ps {
    mean: f64,
    se: f64,
    dist: Vec<f64>,
    util: f64,
}

fn ps(rho: f64, duration_s: u64, seed: u64) -> Ps {
    let v = json!({
        "duration": format!("{duration_s}s"), "warmup": "100s", "seed": seed,
        "link": {"capacity": "10Mbps", "delay": "1ms", "buffer": "50pkt", "qdisc": "fq"},
        "flows": [{"rtt": "10ms", "mss": "1500B", "size": {"exponential": "1000pkt"},
                   "arrival": {"load": rho}, "min_rto": "200ms"}],
        "output": {"interval": "1s"},
    });
    let s = common::from_json(&v).unwrap();
    let o = packet::run(&s, &mut |_| true);
    let n: Vec<f64> = o.timeseries.get("active_flows").unwrap()[100..].to_vec();
    let batches = 50;
    let len = n.len() / batches;
    let means: Vec<f64> = (0..batches)
        .map(|b| n[b * len..(b + 1) * len].iter().sum::<f64>() / len as f64)
        .collect();
    let mb = means.iter().sum::<f64>() / batches as f64;
    let var = means.iter().map(|x| (x - mb).powi(2)).sum::<f64>() / (batches - 1) as f64;
    let mut dist = vec![0.0; 64];
    for &k in &n {
        dist[(k as usize).min(63)] += 1.0 / n.len() as f64;
    }
    Ps {
        mean: o.metric("active_flows_mean").unwrap(),
        se: (var / batches as f64).sqrt(),
        dist,
        util: o.metric("utilization").unwrap(),
    }
}

/// Total-variation distance between the sampled distribution and the geometric one.
fn tv_geometric(dist: &[f64], rho: f64) -> f64 {
    0.5 * dist
        .iter()
        .enumerate()
        .map(|(n, p)| (p - (1.0 - rho) * rho.powi(n as i32)).abs())
        .sum::<f64>()
}

fn check(rho: f64, duration_s: u64, k_se: f64) {
    let r = ps(rho, duration_s, 1);
    let want = rho / (1.0 - rho);
    let tv = tv_geometric(&r.dist, rho);
    eprintln!(
        "rho {rho}: mean active {:.3} (batch-means SE {:.3}, {:.1}%) vs PS {want:.3} ({:+.1}%); utilization {:.4}; \
         P(n) for n = 0..6 {:.3?} vs geometric {:.3?}; total variation {tv:.4}",
        r.mean,
        r.se,
        100.0 * r.se / r.mean,
        100.0 * (r.mean / want - 1.0),
        r.util,
        &r.dist[..7],
        (0..7)
            .map(|n| (1.0 - rho) * rho.powi(n))
            .collect::<Vec<_>>()
    );
    assert!(
        (r.mean / want - 1.0).abs() < 0.10,
        "mean {} vs {want}",
        r.mean
    );
    // The tolerance must dominate the noise: at least k_se standard errors
    // (3 in the full test, 2 in the quick one).
    assert!(k_se * r.se / r.mean < 0.10, "run too short: SE {}", r.se);
    // Close to geometric: total variation distance below 0.05.
    assert!(tv < 0.05, "total variation {tv}");
}

#[test]
fn processor_sharing_quick_rho_0_5() {
    check(0.5, 30_000, 2.0);
}

#[test]
#[ignore = "long (about 40 s release): cargo test --release -- --ignored"]
fn processor_sharing_rho_0_5_and_0_8() {
    check(0.5, 60_000, 3.0);
    check(0.8, 240_000, 3.0);
}
