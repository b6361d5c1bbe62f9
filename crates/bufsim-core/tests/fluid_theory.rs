//! The fluid engine against closed forms: paper 003's Theorem 1 for the
//! hybrid model, and the deterministic sawtooth of N identical AIMD flows.

mod common;

use bufsim_core::fluid;
use bufsim_core::output::RunOutput;
use serde_json::json;

fn run(v: serde_json::Value) -> RunOutput {
    let s = common::from_json(&v).unwrap_or_else(|e| panic!("{e}"));
    fluid::check(&s).unwrap_or_else(|e| panic!("{e}"));
    fluid::run(&s, &mut |_| true)
}

/// Paper 003 Theorem 1: (mean rate, mean buffer) for rate slope `alpha`,
/// capacity `mu` (packets/s), jump factor `beta` and buffer `b` (packets).
fn theorem1(mu: f64, alpha: f64, beta: f64, b: f64) -> (f64, f64) {
    //= paper 003 Theorem 1: B0 = mu^2/(2 alpha) (1 - beta)^2/(1 + beta)^2.
    let b0 = mu * mu / (2.0 * alpha) * ((1.0 - beta) / (1.0 + beta)).powi(2);
    if b >= b0 {
        //= eqs. (6)-(7): lambda = mu, x = B - 2 B0 / 3.
        (mu, b - 2.0 * b0 / 3.0)
    } else {
        //= eqs. (8)-(9), theta = sqrt(2B/alpha), tau = (mu - mu beta - alpha beta theta)/alpha.
        let theta = (2.0 * b / alpha).sqrt();
        let tau = (mu - mu * beta - alpha * beta * theta) / alpha;
        let lam = (1.0 + beta) / 2.0 * (alpha * theta + mu);
        let tau0 = tau - (tau * tau - theta * theta).sqrt();
        let x = alpha / (6.0 * (tau + theta))
            * (theta.powi(3) + tau * theta * theta + 2.0 * tau0 * (theta * theta - tau * tau));
        (lam, x)
    }
}

fn hybrid(buffer: u64, sync: Option<f64>) -> (f64, f64) {
    let mut fl = json!({"model": "hybrid", "step": "1ms"});
    if let Some(x) = sync {
        fl["sync"] = x.into();
    }
    let out = run(json!({
        "duration": "400s", "warmup": "20s",
        "link": {"capacity": "100Mbps", "delay": "5ms", "buffer": format!("{buffer}pkt"), "packet_size": "1000B"},
        "flows": [{"count": 5, "tcp": "aimd", "rtt": "20ms", "mss": "1000B"}],
        "fluid": fl,
    }));
    let mu = 12_500.0;
    (
        out.metric("throughput_bps").unwrap() / 8000.0 / mu,
        out.metric("mean_queue_pkts").unwrap(),
    )
}

#[test]
fn hybrid_matches_theorem1_below_and_above_b0() {
    // mu = 100 Mbps / 8000 bit = 12500 pkt/s; alpha = 5 flows * 1/(0.02 s)^2 = 12500 pkt/s^2.
    let (mu, alpha) = (12_500.0, 12_500.0);
    // Synchronized (beta = 0.5): B0 = 694.4 packets; desynchronized, one flow
    // in five signalled (sync = 0.2, beta = 1 - 0.5 * 0.2 = 0.9): B0 = 17.3 packets.
    for (sync, beta, buffers) in [(None, 0.5, [200u64, 1500]), (Some(0.2), 0.9, [5, 50])] {
        for b in buffers {
            let (util, xbar) = hybrid(b, sync);
            let (lam, x) = theorem1(mu, alpha, beta, b as f64);
            eprintln!(
                "hybrid beta={beta} B={b}: util {util:.5} (theory {:.5}), mean queue {xbar:.3} (theory {x:.3})",
                lam / mu
            );
            // 1%: the run averages 380 s = 570 (beta 0.5) to 3600 (beta 0.9)
            // cycles; a partial last cycle biases the means by < 1/500.
            assert!(
                (util - lam / mu).abs() / (lam / mu) < 0.01,
                "B={b}: {util} vs {}",
                lam / mu
            );
            assert!((xbar - x).abs() / x < 0.01, "B={b}: {xbar} vs {x}");
        }
    }
}

/// Deterministic sawtooth of N identical AIMD(a, b) flows with feedback
/// delay, k = N/m cohorts cut in turn (k = 1: all flows together).
/// Returns (per-flow period, mean window).
fn aimd_theory(c: f64, r0: f64, buf: f64, n: f64, a: f64, b: f64, k: f64) -> (f64, f64) {
    let s_fill = c * r0 + buf;
    let r_full = r0 + buf / c;
    // One RTT of feedback delay: every flow gains a more before it learns of the loss.
    let s_peak = s_fill + n * a;
    // The cohorts are b W_top / k apart: S = N W_top (1 - b (k - 1) / (2k)).
    let w_top = s_peak / (n * (1.0 - b * (k - 1.0) / (2.0 * k)));
    let s_after = s_peak - n / k * b * w_top;
    let cr = c * r0;
    // Empty queue: R = R0, dS/dt = N a / R0. Queue busy: R = S / C, S dS = N a C dt.
    let (t_e, area_e, s_lo) = if s_after < cr {
        let t = (cr - s_after) * r0 / (n * a);
        (t, 0.5 * (cr + s_after) * t, cr)
    } else {
        (0.0, 0.0, s_after)
    };
    let t_q = (s_fill * s_fill - s_lo * s_lo) / (2.0 * n * a * c);
    let area_q = (s_fill.powi(3) - s_lo.powi(3)) / (3.0 * n * a * c);
    let t_int = t_e + t_q + r_full;
    let area = area_e + area_q + (s_fill + 0.5 * n * a) * r_full;
    (k * t_int, area / t_int / n)
}

fn aimd_sim(buffer: u64, fluid: serde_json::Value) -> (f64, f64, RunOutput) {
    let out = run(json!({
        "duration": "1000s", "warmup": "100s",
        "link": {"capacity": "100Mbps", "delay": "10ms", "buffer": format!("{buffer}pkt"), "packet_size": "1000B"},
        "flows": [{"count": 10, "tcp": "aimd", "rtt": "100ms", "mss": "1000B"}],
        "fluid": fluid,
    }));
    let times = out.congestion_events.get("time_s").unwrap();
    let ev: Vec<f64> = times.iter().copied().filter(|&t| t >= 100.0).collect();
    let interval = (ev[ev.len() - 1] - ev[0]) / (ev.len() - 1) as f64;
    let w = out.flows.get("mean_window_pkts").unwrap();
    let mean_w = w.iter().sum::<f64>() / w.len() as f64;
    (interval, mean_w, out)
}

#[test]
fn aimd_sawtooth_matches_deterministic_theory() {
    // 100 Mbps of 1000 B packets: C = 12500 pkt/s, R0 = 100 ms, BDP = 1250
    // packets, windows of 125-250 packets: the sawtooth lasts ~125 RTTs, so
    // the fluid model's one-RTT queue transient after each cut (A = W/R with
    // the queue still full; a packet sender would pause instead) costs < 1%.
    let (c, r0, n) = (12_500.0, 0.1, 10.0);
    let cases = [
        // No module (eq. (5), every flow loses) and X = 1: one cohort, B = 1 BDP.
        ("no module", 1250u64, json!({}), 1.0),
        ("X = 1", 1250, json!({"sync": 1.0}), 1.0),
        // X = 0.5 with sd 0: m = X N = 5 flows per event, highest rate
        // first: two cohorts cut in turn.
        ("m = 5", 600, json!({"sync": 0.5, "sync_sd": 0.0}), 2.0),
        // X = 0.1: one flow per event, ten cohorts (fully desynchronized).
        ("m = 1", 300, json!({"sync": 0.1, "sync_sd": 0.0}), 10.0),
    ];
    for (name, b, fl, k) in cases {
        let (interval, mean_w, out) = aimd_sim(b, fl);
        let (period, w_theory) = aimd_theory(c, r0, b as f64, n, 1.0, 0.5, k);
        let period_sim = interval * k;
        eprintln!(
            "AIMD {name} B={b}: period {period_sim:.3}s (theory {period:.3}s), mean window {mean_w:.3} (theory {w_theory:.3}), sync_mean {:.3}, utilization {:.4}",
            out.metric("sync_mean").unwrap(),
            out.metric("utilization").unwrap()
        );
        // 5%: the default step (4 ms) delays each cut
        // by up to two steps, and the fluid model's queue transient after a
        // cut lasts about one RTT: together ~1% of the cycle.
        assert!(
            (period_sim - period).abs() / period < 0.05,
            "{name}: period {period_sim} vs {period}"
        );
        assert!(
            (mean_w - w_theory).abs() / w_theory < 0.05,
            "{name}: window {mean_w} vs {w_theory}"
        );
        assert!((out.metric("sync_mean").unwrap() - 1.0 / k).abs() < 1e-9);
    }
}
