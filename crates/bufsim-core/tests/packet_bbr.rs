//! BBR in the packet engine (v1: draft-cardwell-iccrg-bbr-congestion-control-00;
//! v3: draft-ietf-ccwg-bbr-01): the behaviours issue 15 names, at sizes that run
//! in a few seconds each (100 Mbps, 20-40 ms, 10-20 s simulated). Each test
//! prints its numbers (`cargo test --release --test packet_bbr -- --nocapture`).

mod common;

use bufsim_core::packet;
use serde_json::{Value, json};

/// Run a dumbbell at 100 Mbps with the given flow groups and buffer.
fn run(flows: Value, buffer: &str, duration_s: u64) -> Vec<(String, f64)> {
    run_seed(flows, buffer, duration_s, 1)
}

/// [`run`] with seed `seed`.
fn run_seed(flows: Value, buffer: &str, duration_s: u64, seed: u64) -> Vec<(String, f64)> {
    let s = json!({
        "duration": format!("{duration_s}s"),
        "warmup": format!("{}s", duration_s / 4),
        "seed": seed,
        "link": {"capacity": "100Mbps", "delay": "5ms", "buffer": buffer},
        "flows": flows,
        "output": {"interval": "100ms"},
    });
    let s = common::from_json(&s).expect("valid scenario");
    packet::run(&s, &mut |_| true).summary
}

fn get(sum: &[(String, f64)], k: &str) -> f64 {
    sum.iter().find(|(n, _)| n == k).map(|x| x.1).unwrap()
}

fn bbr(count: u32, version: u32, start: &str) -> Value {
    json!({"count": count, "tcp": "bbr", "tcp_params": {"version": version}, "rtt": "40ms",
           "mss": "1500B", "sack": true, "start": {"uniform": ["0s", start]}})
}

/// BDP of 100 Mbps x 40 ms in 1500 B packets.
const BDP: f64 = 100e6 * 0.040 / (8.0 * 1500.0);

/// One flow in 1 BDP: the link full and the queue Startup built drained.
/// With one-segment quanta (`send_quantum = "segment"`, ns-3's pacing) the
/// queue is nearly empty: under 0.1 RTT. With the draft's quanta (the
/// default) every inflight target carries 3 quanta (section 4.2.3.2; Linux's
/// `bbr_quantization_budget` likewise), and ProbeBW keeps any inflight at or
/// above BDP + 3 quanta of the 1.25 phase: the 1.25 phase ends once inflight
/// reaches 1.25 BDP + 3 quanta (after at least one RTprop, +0.25 BDP) and
/// the 0.75 phase, at most one RTprop long, takes back 0.25 BDP. So at
/// least 3 x 10 segments (125 Mbps x 1 ms) stay queued until ProbeRTT: the
/// mean queue is above that and the mean queueing
/// delay well under one RTT (measured: 68 packets, 8.3 ms at RTT 40 ms).
#[test]
fn one_flow_fills_the_link_with_an_empty_queue() {
    for quantum in ["segment", "draft"] {
        let mut f = bbr(1, 1, "0s");
        f["tcp_params"]["send_quantum"] = quantum.into();
        let s = run(json!([f]), "1BDP", 20);
        let (u, d, q) = (
            get(&s, "utilization"),
            get(&s, "mean_queue_delay_s"),
            get(&s, "mean_queue_pkts"),
        );
        println!(
            "bbr v1, 1 flow, 1 BDP, send_quantum {quantum}: utilization {u:.4}, mean queue {q:.1} pkts, mean queueing delay {:.2} ms",
            d * 1e3
        );
        assert!(u >= 0.98, "utilization {u}");
        if quantum == "segment" {
            // The queue Startup built is drained.
            assert!(d < 0.1 * 0.040, "mean queueing delay {d} s");
        } else {
            let quanta = 3.0 * (1.25 * 100e6 / 8.0 * 1e-3 / 1500.0f64).floor();
            assert!(q > quanta, "mean queue {q} pkts, 3 quanta {quanta}");
            assert!(d < 0.25 * 0.040, "mean queueing delay {d} s");
        }
    }
}

/// Four flows starting together: each keeps cwnd = 2 BtlBw RTprop, so the
/// four hold about one BDP queued (the draft's cwnd_gain 2 at N > 1), and
/// share fairly. Started 0-1 s apart, the later flows measure RTprop with
/// the earlier ones' queue in it and take more (BBRv1's RTprop
/// overestimation, healed only at the ProbeRTT that synchronizes them):
/// that case is printed, not asserted.
///
/// Four identical flows tie at the same picosecond all the time, and which
/// of two tied arrivals the queue takes first steers who wins: the Jain
/// index of one run moves between 0.87 and 0.98 when the RTT moves by a
/// microsecond (either way, with the engine of any stop). Fairness is a
/// property of the ensemble, so it is asserted on the mean over five RTTs
/// within 0.1 ms of 40 ms; the queue and the utilization hold in each run.
#[test]
fn four_flows_standing_queue_and_fairness() {
    let mut jain = Vec::new();
    for rtt in ["39.9ms", "39.999ms", "40ms", "40.001ms", "40.1ms"] {
        let mut g = bbr(4, 1, "0s");
        g["rtt"] = rtt.into();
        let s = run(json!([g]), "2BDP", 20);
        let (u, q, j) = (
            get(&s, "utilization"),
            get(&s, "mean_queue_pkts"),
            get(&s, "jain_index"),
        );
        println!(
            "bbr v1, 4 flows, RTT {rtt}, 2 BDP: utilization {u:.4}, mean queue {q:.0} pkts = {:.2} BDP, Jain {j:.3}",
            q / BDP
        );
        assert!(u >= 0.98, "utilization {u}");
        assert!(
            (0.5..=1.5).contains(&(q / BDP)),
            "standing queue {q} pkts vs BDP {BDP}"
        );
        jain.push(j);
    }
    let mean = jain.iter().sum::<f64>() / jain.len() as f64;
    println!("  mean Jain {mean:.3}");
    assert!(mean >= 0.9, "mean Jain {mean} over {jain:?}");
    let s = run(json!([bbr(4, 1, "1s")]), "2BDP", 20);
    let (q, j) = (get(&s, "mean_queue_pkts"), get(&s, "jain_index"));
    println!(
        "  started 0-1 s apart: mean queue {:.2} BDP, Jain {j:.3}",
        q / BDP
    );
}

/// In 0.1 BDP with 4 flows BBRv1 keeps its rate (it does not back off on
/// loss) and loses heavily while the link stays full; BBRv3's loss response
/// (inflight_hi from the probe that lost, bw_lo / inflight_lo cut by 0.7
/// per lossy round) cuts the loss, the link still full.
#[test]
fn shallow_buffer_loss() {
    let s = run(json!([bbr(4, 1, "0s")]), "0.1BDP", 20);
    let (u1, l1) = (get(&s, "utilization"), get(&s, "drop_rate"));
    println!("bbr v1, 4 flows, 0.1 BDP: utilization {u1:.4}, loss rate {l1:.4}");
    assert!(u1 >= 0.9, "utilization {u1}");
    assert!(l1 >= 0.03, "loss rate {l1}");
    let s = run(json!([bbr(4, 3, "0s")]), "0.1BDP", 20);
    let (u3, l3) = (get(&s, "utilization"), get(&s, "drop_rate"));
    println!("bbr v3, 4 flows, 0.1 BDP: utilization {u3:.4}, loss rate {l3:.4}");
    assert!(u3 >= 0.9, "utilization {u3}");
    assert!(l3 < l1 / 3.0, "v3 loss {l3} vs v1 {l1}");
}

/// Fairness in 0.1 BDP depends on the loss recovery under BBR. With the
/// Linux stack (RACK-TLP, 200 ms minimum RTO; BBR's home) the four v1
/// flows share fairly at a high loss rate. With the RFC stack (DupThresh,
/// 1 s minimum RTO) a flow cut to BBR's 4-packet minimum cwnd rarely
/// collects three duplicate ACKs, sits out 1 s timeouts and, sampling
/// little, keeps a small BtlBw: flows can starve. Measured here: Linux
/// 0.985 utilization, 5.8% loss, Jain 1.000, no timeout; RFC 12.4% loss,
/// Jain 0.896, 35 timeouts (at 100 Mbps / 6 ms, a 5-packet buffer: Linux
/// Jain 0.999 with 4 timeouts, RFC 0.254 with 31). Printed for the RFC
/// stack, asserted for Linux's.
#[test]
fn shallow_buffer_fairness_by_stack() {
    for stack in ["linux", "rfc"] {
        let mut f = bbr(4, 1, "0s");
        f["stack"] = stack.into();
        let s = run(json!([f]), "0.1BDP", 20);
        let (u, l, j, to) = (
            get(&s, "utilization"),
            get(&s, "drop_rate"),
            get(&s, "jain_index"),
            get(&s, "timeouts"),
        );
        println!(
            "bbr v1, 4 flows, 0.1 BDP, stack {stack}: utilization {u:.4}, loss {l:.4}, Jain {j:.3}, timeouts {to}"
        );
        if stack == "linux" {
            assert!(u >= 0.95 && l >= 0.03 && j >= 0.95, "{u} {l} {j}");
        }
    }
}

#[test]
fn v3_one_flow_and_four_flows() {
    let s = run(json!([bbr(1, 3, "0s")]), "1BDP", 20);
    let (u, d) = (get(&s, "utilization"), get(&s, "mean_queue_delay_s"));
    println!(
        "bbr v3, 1 flow, 1 BDP: utilization {u:.4}, mean queueing delay {:.2} ms",
        d * 1e3
    );
    assert!(u >= 0.95, "utilization {u}");
    assert!(d < 0.25 * 0.040, "mean queueing delay {d} s");
    let s = run(json!([bbr(4, 3, "0s")]), "2BDP", 20);
    let (u, q, j) = (
        get(&s, "utilization"),
        get(&s, "mean_queue_pkts"),
        get(&s, "jain_index"),
    );
    println!(
        "bbr v3, 4 flows, 2 BDP: utilization {u:.4}, mean queue {:.2} BDP, Jain {j:.3}",
        q / BDP
    );
    assert!(u >= 0.95 && j >= 0.85, "utilization {u}, Jain {j}");
}

/// Two BBR and two CUBIC flows in one FIFO: the shares at 1 and 8 BDP.
/// The published result: BBR takes most of a shallow buffer, CUBIC most of
/// a deep one. At 8 BDP BBRv1's share swings with the seed (7-29% over
/// seeds 1-5: its RTprop holds CUBIC's standing queue), so v1 is asserted
/// on the mean of five seeds; v3 is printed for seed 1.
#[test]
fn bbr_vs_cubic_shares() {
    for buf in ["1BDP", "8BDP"] {
        let cubic = json!({"count": 2, "tcp": "cubic", "rtt": "40ms", "mss": "1500B", "sack": true,
                           "start": {"uniform": ["0s", "1s"]}});
        for v in [1, 3] {
            let seeds = if v == 1 { 1..=5 } else { 1..=1 };
            let shares: Vec<f64> = seeds
                .map(|seed| {
                    let s = run_seed(json!([bbr(2, v, "1s"), cubic.clone()]), buf, 40, seed);
                    let (b, c) = (get(&s, "goodput_bps_group0"), get(&s, "goodput_bps_group1"));
                    b / (b + c)
                })
                .collect();
            let share = shares.iter().sum::<f64>() / shares.len() as f64;
            println!(
                "bbr v{v} x2 vs cubic x2, {buf}: BBR share {share:.3} (seeds: {shares:.3?}), CUBIC share {:.3}",
                1.0 - share
            );
            if v == 1 && buf == "1BDP" {
                assert!(share > 0.5, "BBR share {share} in a shallow buffer");
            }
            if v == 1 && buf == "8BDP" {
                assert!(share < 0.5, "BBR share {share} in a deep buffer");
            }
        }
    }
}
