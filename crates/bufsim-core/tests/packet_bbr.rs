//! BBR in the packet engine (v1: draft-cardwell-iccrg-bbr-congestion-control-00;
//! v3: draft-ietf-ccwg-bbr-01): the behaviours issue 15 names, at sizes that run
//! in a few seconds each (100 Mbps, 20-40 ms, 10-20 s simulated). Each test
//! prints its numbers (`cargo test --release --test packet_bbr -- --nocapture`).

use bufsim_core::{Scenario, packet};
use serde_json::{Value, json};

/// Run a dumbbell at 100 Mbps with the given flow groups and buffer.
fn run(flows: Value, buffer: &str, duration_s: u64) -> Vec<(String, f64)> {
    let s = json!({
        "duration": format!("{duration_s}s"),
        "warmup": format!("{}s", duration_s / 4),
        "seed": 1,
        "link": {"capacity": "100Mbps", "delay": "5ms", "buffer": buffer},
        "flows": flows,
        "output": {"interval": "100ms"},
    });
    let s = Scenario::from_json(&s.to_string()).expect("valid scenario");
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

#[test]
fn one_flow_fills_the_link_with_an_empty_queue() {
    let s = run(json!([bbr(1, 1, "0s")]), "1BDP", 20);
    let (u, d) = (get(&s, "utilization"), get(&s, "mean_queue_delay_s"));
    println!(
        "bbr v1, 1 flow, 1 BDP: utilization {u:.4}, mean queueing delay {:.2} ms",
        d * 1e3
    );
    assert!(u >= 0.98, "utilization {u}");
    // Well under one RTT (40 ms): the queue Startup built is drained.
    assert!(d < 0.1 * 0.040, "mean queueing delay {d} s");
}

/// Four flows starting together: each keeps cwnd = 2 BtlBw RTprop, so the
/// four hold about one BDP queued (the draft's cwnd_gain 2 at N > 1), and
/// share fairly. Started 0-1 s apart, the later flows measure RTprop with
/// the earlier ones' queue in it and take more (BBRv1's RTprop
/// overestimation, healed only at the ProbeRTT that synchronizes them):
/// that case is printed, not asserted.
#[test]
fn four_flows_standing_queue_and_fairness() {
    let s = run(json!([bbr(4, 1, "0s")]), "2BDP", 20);
    let (u, q, j) = (
        get(&s, "utilization"),
        get(&s, "mean_queue_pkts"),
        get(&s, "jain_index"),
    );
    println!(
        "bbr v1, 4 flows, 2 BDP: utilization {u:.4}, mean queue {q:.0} pkts = {:.2} BDP, Jain {j:.3}",
        q / BDP
    );
    assert!(u >= 0.98);
    assert!(
        (0.5..=1.5).contains(&(q / BDP)),
        "standing queue {q} pkts vs BDP {BDP}"
    );
    assert!(j >= 0.9, "Jain {j}");
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
/// little, keeps a small BtlBw: flows starve. Measured here: Linux 0.998
/// utilization, 5.2% loss, Jain 0.977, no timeout; RFC 10.9% loss, Jain
/// 0.760, 38 timeouts (at 100 Mbps / 6 ms, 0.1 BDP: Jain 0.997 against
/// 0.25). Printed for the RFC stack, asserted for Linux's.
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
#[test]
fn bbr_vs_cubic_shares() {
    for buf in ["1BDP", "8BDP"] {
        let cubic = json!({"count": 2, "tcp": "cubic", "rtt": "40ms", "mss": "1500B", "sack": true,
                           "start": {"uniform": ["0s", "1s"]}});
        for v in [1, 3] {
            let s = run(json!([bbr(2, v, "1s"), cubic.clone()]), buf, 40);
            let (b, c) = (get(&s, "goodput_bps_group0"), get(&s, "goodput_bps_group1"));
            let share = b / (b + c);
            println!(
                "bbr v{v} x2 vs cubic x2, {buf}: BBR share {share:.3}, CUBIC share {:.3}",
                1.0 - share
            );
            if buf == "1BDP" && v == 1 {
                assert!(share > 0.5, "BBR share {share} in a shallow buffer");
            }
        }
    }
}
