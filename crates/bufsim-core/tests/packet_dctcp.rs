//! DCTCP (RFC 8257) with step marking at K: the packet engine against the
//! steady-state analysis of Alizadeh et al., "Data Center TCP (DCTCP)",
//! SIGCOMM 2010, section 3.3.
//!
//! The analysis: N synchronized flows, each with window W* = (C x RTT + K)/N
//! when the queue reaches K. The marked fraction alpha solves eq. (6),
//! alpha^2 (1 - alpha/4) = (2W* + 1)/(W* + 1)^2 (alpha ~ sqrt(2/W*)); each
//! flow cuts its window by D = (W* + 1) alpha / 2 (eq. (7)), so the queue
//! swings peak to trough by A = N D ~ (1/2) sqrt(2N (C x RTT + K)) (eq. (8):
//! O(sqrt(N)) packets), between Q_max = K + N (eq. (9)) and Q_min = Q_max - A
//! (eq. (10)). The queue stays busy while Q_min > 0, which for every N holds
//! when K > C x RTT / 7 (eq. (13)).
//!
//! Setting: 10 Gbps, 100 us RTT, 1500 B packets (C x RTT = 83.3 packets),
//! 0.2 s measured after a 0.05 s warm-up, the queue sampled every 5 us
//! (means over 5 us, ~4 packet times).

mod common;

use bufsim_core::{RunOutput, packet};
use serde_json::json;

/// C x RTT in packets.
const BDP: f64 = 10e9 * 100e-6 / (8.0 * 1500.0);

fn run(n: u32, k: u32) -> RunOutput {
    run_with(n, k, false)
}

/// N flows over `qdisc` with `params` (no delayed ACKs, as [`run`]).
fn run_qdisc(n: u32, qdisc: &str, params: serde_json::Value) -> RunOutput {
    let v = json!({
        "duration": "0.25s", "warmup": "0.05s", "seed": 1,
        "link": {"capacity": "10Gbps", "delay": "20us", "buffer": "1000pkt",
                 "qdisc": qdisc, "qdisc_params": params},
        "flows": [{"count": n, "tcp": "dctcp", "rtt": "100us", "mss": "1500B",
                   "delayed_ack": false, "start": {"uniform": ["0s", "1ms"]}}],
        "output": {"interval": "5us"},
    });
    packet::run(&common::from_json(&v).expect("valid"), &mut |_| true)
}

/// With `delayed_ack`, 0.25 s of warm-up: the first segment (initial window
/// 1) waits for the 200 ms delayed-ACK timer before anything else moves.
fn run_with(n: u32, k: u32, delayed_ack: bool) -> RunOutput {
    let warmup = if delayed_ack { 0.25 } else { 0.05 };
    let v = json!({
        "duration": format!("{}s", warmup + 0.2),
        "warmup": format!("{warmup}s"),
        "seed": 1,
        "link": {"capacity": "10Gbps", "delay": "20us", "buffer": "1000pkt",
                 "qdisc": "threshold", "qdisc_params": {"k": k}},
        "flows": [{"count": n, "tcp": "dctcp", "rtt": "100us", "mss": "1500B",
                   "delayed_ack": delayed_ack, "start": {"uniform": ["0s", "1ms"]}}],
        "output": {"interval": "5us"},
    });
    let s = common::from_json(&v).expect("valid");
    packet::run(&s, &mut |_| true)
}

/// The amplitude A of eqs. (6)-(8), packets (alpha by bisection of eq. (6)).
fn amplitude(n: u32, k: f64) -> f64 {
    let w = (BDP + k) / n as f64;
    let rhs = (2.0 * w + 1.0) / ((w + 1.0) * (w + 1.0));
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..60 {
        let a = 0.5 * (lo + hi);
        if a * a * (1.0 - a / 4.0) < rhs {
            lo = a
        } else {
            hi = a
        }
    }
    n as f64 * (w + 1.0) * lo / 2.0
}

/// The 1st and 99th percentiles and the mean of the sampled queue after
/// the warm-up.
fn queue_range(o: &RunOutput, warmup: f64) -> (f64, f64, f64) {
    let t = o.timeseries.get("time_s").unwrap();
    let q = o.timeseries.get("queue_pkts").unwrap();
    let mut qs: Vec<f64> = t
        .iter()
        .zip(q)
        .filter(|(t, _)| **t > warmup)
        .map(|(_, q)| *q)
        .collect();
    let mean = qs.iter().sum::<f64>() / qs.len() as f64;
    qs.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let pct = |p: f64| qs[((qs.len() - 1) as f64 * p) as usize];
    (pct(0.01), pct(0.99), mean)
}

#[test]
fn eq_8_check_works() {
    // Hand-worked: N = 1, K = 30: W* = 113.33, (2W*+1)/(W*+1)^2 = 0.017488,
    // alpha = 0.1343 (sqrt(2/W*) = 0.1328), A = 114.33 x 0.1343 / 2 = 7.68;
    // the closed form (1/2) sqrt(2 x 113.33) = 7.53.
    assert!(
        (amplitude(1, 30.0) - 7.68).abs() < 0.01,
        "{}",
        amplitude(1, 30.0)
    );
}

#[test]
fn queue_oscillates_around_k_with_the_predicted_amplitude() {
    // Measured at K = 30 (p99 - p1 of the 5 us queue vs A): N = 1: 6.0 vs
    // 7.7 (0.78); N = 4: 13.0 vs 15.7 (0.83); N = 16: 28.0 vs 33.4 (0.84).
    // A wider sweep (N = 1..32, K = 12..65) gave 0.79-0.93. The sampled
    // queue sits inside the synchronized sawtooth's envelope (5 us means
    // shave its corners; flows are not perfectly in phase), hence the
    // tolerance -30% / +10% on A. Q_max = K + N holds to a packet (p99 31.7,
    // 34.7, 45.7 vs 31, 34, 46): +-3 packets.
    let k = 30;
    let mut amps = Vec::new();
    for n in [1u32, 4, 16] {
        let o = run(n, k);
        let (lo, hi, mean) = queue_range(&o, 0.05);
        let a = amplitude(n, k as f64);
        let measured = hi - lo;
        println!(
            "N={n}: queue p1 {lo:.1} p99 {hi:.1} mean {mean:.1}; amplitude {measured:.1} vs A = {a:.1}"
        );
        assert!(
            measured > 0.7 * a && measured < 1.1 * a,
            "N={n}: amplitude {measured} vs A = {a}"
        );
        let qmax = (k + n) as f64;
        assert!((hi - qmax).abs() <= 3.0, "N={n}: p99 {hi} vs Q_max {qmax}");
        // It oscillates around K: the mean within N/2 + 2 packets of K.
        assert!(
            (mean - k as f64).abs() <= n as f64 / 2.0 + 2.0,
            "N={n}: mean {mean} vs K {k}"
        );
        assert_eq!(
            o.metric("packets_dropped").unwrap(),
            0.0,
            "marks, not drops"
        );
        amps.push(measured);
    }
    // O(sqrt(N)): eq. (8) gives A(16)/A(1) = 4.34 (sqrt(16) = 4 with the
    // (W* + 1) and alpha corrections); measured 28.0 / 6.0 = 4.67: within 25%.
    let want = amplitude(16, k as f64) / amplitude(1, k as f64);
    let got = amps[2] / amps[0];
    assert!(
        (got / want - 1.0).abs() < 0.25,
        "A(16)/A(1) = {got} vs {want}"
    );
}

#[test]
fn full_utilization_needs_k_above_a_seventh_of_the_bdp() {
    // Eq. (13): K > C x RTT / 7 = 11.9 packets keeps the link busy for any N.
    // Measured at K = 12: 1.0000, 1.0000, 0.9998 (N = 1, 4, 16); at K = 1,
    // far below, the queue empties after each cut (Q_min < 0): 0.9865,
    // 0.9775, 0.9710.
    let k_min = (BDP / 7.0).ceil() as u32;
    assert_eq!(k_min, 12);
    for n in [1u32, 4, 16] {
        let at = run(n, k_min).metric("utilization").unwrap();
        let below = run(n, 1).metric("utilization").unwrap();
        println!("N={n}: utilization {at:.4} at K = {k_min}, {below:.4} at K = 1");
        assert!(at >= 0.99, "N={n}: K = {k_min}: {at}");
        assert!(
            below < 0.99 && below < at - 0.01,
            "N={n}: K = 1: {below} vs {at}"
        );
    }
}

#[test]
fn red_as_a_step_marks_as_the_threshold_discipline() {
    // The standard DCTCP deployment (Alizadeh et al. 2010 section 4; ns-3's
    // examples/tcp/dctcp-example.cc): RED with MinTh = MaxTh = K, QW = 1,
    // ECN, UseHardDrop = false, so every ECN-capable arrival at a queue of K
    // or more is marked: the threshold discipline, which marks above K (RFC
    // 8257 section 3.1), one packet later. Measured, N = 10, K = 40:
    // utilization 1.0000 for both, mean queue 38.2 (RED) and 39.1
    // (threshold), no drop: within the one packet between the two rules.
    // With hard_drop, as ns-3's default, each arrival there is dropped
    // instead: mean queue 29.1 (each loss halves a window).
    let (n, k) = (10u32, 40u32);
    let step = |hard_drop: bool| {
        json!({"min_th": k, "max_th": k, "w_q": 1, "gentle": false, "ecn": true,
               "hard_drop": hard_drop})
    };
    let threshold = run_qdisc(n, "threshold", json!({"k": k}));
    let red = run_qdisc(n, "red", step(false));
    let hard = run_qdisc(n, "red", step(true));
    let util = |o: &RunOutput| o.metric("utilization").unwrap();
    let (_, _, q_threshold) = queue_range(&threshold, 0.05);
    let (_, _, q_red) = queue_range(&red, 0.05);
    let (_, _, q_hard) = queue_range(&hard, 0.05);
    println!(
        "threshold: {:.4}, queue {q_threshold:.1}; red: {:.4}, queue {q_red:.1}; \
         hard_drop: {:.4}, queue {q_hard:.1}",
        util(&threshold),
        util(&red),
        util(&hard)
    );
    assert!(util(&red) >= 0.99, "{}", util(&red));
    // The same marking rule but for its one-packet offset.
    assert!(
        (q_red - q_threshold).abs() <= 1.0,
        "{q_red} vs {q_threshold}"
    );
    assert_eq!(red.metric("packets_dropped").unwrap(), 0.0);
    assert!(hard.metric("packets_dropped").unwrap() > 0.0);
    assert!(q_hard < q_red - 5.0, "{q_hard} vs {q_red}");
}

#[test]
fn delayed_acks_keep_the_estimate() {
    // RFC 8257 section 3.2's state machine keeps the echo exact with delayed
    // ACKs (one ACK per 2 segments, an immediate one when CE flips), so the
    // queue behaves as without them. Measured, N = 4, K = 30: p1 22.2, p99
    // 34.1 (11.9 vs A = 15.7, 0.76; 13.0 without delayed ACKs).
    let (n, k) = (4u32, 30u32);
    let o = run_with(n, k, true);
    let (lo, hi, _) = queue_range(&o, 0.25);
    let a = amplitude(n, k as f64);
    println!("delayed ACKs, N={n}: p1 {lo:.1} p99 {hi:.1}; A = {a:.1}");
    assert!(hi - lo > 0.7 * a && hi - lo < 1.1 * a, "{} vs {a}", hi - lo);
    assert!((hi - (k + n) as f64).abs() <= 3.0, "p99 {hi}");
    assert!(o.metric("utilization").unwrap() >= 0.99);
    assert_eq!(o.metric("packets_dropped").unwrap(), 0.0);
}
