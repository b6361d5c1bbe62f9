//! Property tests of the packet engine under random scenarios (every stack
//! profile): packet conservation, the buffer bound, utilization <= 1, and
//! determinism. Failing seeds found by proptest are kept in
//! `packet_props.proptest-regressions` and replayed first.

mod common;

use bufsim_core::{Scenario, packet};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use serde_json::json;

#[allow(clippy::too_many_arguments)] // one per random dimension of the property test
fn scenario(
    cap_mbps: u32,
    buffer: u32,
    bytes_mode: bool,
    flows: u32,
    sack: bool,
    delack: bool,
    loss: f64,
    bg_frac: f64,
    seed: u64,
) -> Scenario {
    let buffer = if bytes_mode {
        format!("{}B", buffer * 1000)
    } else {
        format!("{buffer}pkt")
    };
    let mut v = json!({
        "duration": "8s",
        "warmup": if seed.is_multiple_of(4) { "7.9s" } else { "1s" },
        "seed": seed,
        "link": {"capacity": format!("{cap_mbps}Mbps"), "delay": "5ms", "buffer": buffer},
        "flows": [{"count": flows, "rtt": {"uniform": ["12ms", "150ms"]}, "mss": "1000B",
                   "sack": sack, "delayed_ack": delack, "loss": loss,
                   // Every stack profile (PRR, HyStart++, RACK-TLP with SACK).
                   "stack": (["rfc", "linux", "ns3"][(seed % 3) as usize]),
                   "start": {"uniform": ["0s", "1s"]}}],
        "output": {"interval": "250ms"},
    });
    if bg_frac > 0.0 {
        v["background"] = json!([{"kind": "poisson", "rate": format!("{}Mbps", bg_frac * cap_mbps as f64), "packet_size": "600B"}]);
    }
    common::from_json(&v).expect("valid scenario")
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 256,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct("tests/packet_props.proptest-regressions"))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn conservation_and_bounds(
        cap in 1u32..40,
        buffer in 1u32..200,
        bytes_mode in any::<bool>(),
        flows in 1u32..12,
        sack in any::<bool>(),
        delack in any::<bool>(),
        loss in prop_oneof![Just(0.0), 0.0..0.05],
        bg in prop_oneof![Just(0.0), 0.0..1.2],
        seed in 0u64..1000,
    ) {
        let s = scenario(cap, buffer, bytes_mode, flows, sack, delack, loss, bg, seed);
        let out = packet::run(&s, &mut |_| true);
        let m = |k: &str| out.metric(k).unwrap();
        // Every packet sent is delivered, dropped, or still in the network.
        prop_assert_eq!(m("packets_sent"), m("packets_delivered") + m("packets_dropped") + m("packets_in_flight"));
        // The queue never holds more than the buffer (in byte mode: no more
        // packets than the smallest data packets, 600 B, can fill, and a
        // 60 B SYN per flow at most).
        let bound = if bytes_mode { (s.link().buffer_bytes / 600 + flows as u64) as f64 } else { s.link().buffer_pkts as f64 };
        prop_assert!(m("max_queue_pkts") <= bound);
        let u = m("utilization");
        prop_assert!((0.0..=1.0 + 1e-12).contains(&u), "utilization {}", u);
        // Goodput counts what crossed the bottleneck in the window: never
        // above the capacity, even in a short window after a long warm-up.
        prop_assert!(m("goodput_bps") <= s.link().capacity_bps * (1.0 + 1e-9), "goodput {}", m("goodput_bps"));
        for &x in out.timeseries.get("utilization").unwrap() {
            prop_assert!((0.0..=1.0 + 1e-12).contains(&x));
        }
        // Receivers cannot have more in-order data than was delivered to them.
        let in_order: f64 = out.flows.get("delivered_pkts").unwrap().iter().sum();
        prop_assert!(in_order <= m("packets_delivered"));
        // Same scenario, same numbers, bit for bit (Debug prints NaN alike and
        // every f64 exactly).
        let again = packet::run(&s, &mut |_| true);
        prop_assert_eq!(format!("{out:?}"), format!("{again:?}"));
    }
}

#[test]
fn progress_hook_can_stop_a_run() {
    // 8 s at 30 Mbps with background: well over the 65536 events between calls.
    let s = scenario(30, 50, false, 2, true, false, 0.0, 0.5, 1);
    let mut calls = 0;
    let out = packet::run(&s, &mut |_| {
        calls += 1;
        false
    });
    assert!(!out.completed);
    assert_eq!(calls, 1);
}

/// A sender whose access link is as fast as the bottleneck queues at its
/// access link; that buffer is finite (drop-tail), so slow start ends in
/// access drops instead of an ever-growing backlog, and conservation holds.
#[test]
fn access_buffer_bounds_the_backlog() {
    let run = |count: u32| {
        let v = json!({
            "duration": "20s",
            "link": {"capacity": "100Mbps", "delay": "1ms", "buffer": "10pkt"},
            "flows": [{"count": count, "rtt": "6ms", "mss": "500B", "sack": false,
                       "access_rate": "100Mbps", "access_buffer": "50pkt"}],
        });
        let s = common::from_json(&v).expect("valid scenario");
        packet::run(&s, &mut |_| true)
    };
    // One flow: its access link feeds the bottleneck at the bottleneck's
    // own rate, so only the access buffer fills, and every loss is there.
    let one = run(1);
    let m = |k: &str| one.metric(k).unwrap();
    assert!(m("access_drops") > 0.0);
    assert_eq!(m("access_drops"), m("packets_dropped"));
    assert!(m("mean_queue_pkts") < 1.0, "{}", m("mean_queue_pkts"));
    // Five: the shared 10-packet buffer overflows first (a window of 32
    // each at the loss, (150 + 10) / 5, under the access buffer's 50).
    let five = run(5);
    for out in [&one, &five] {
        let m = |k: &str| out.metric(k).unwrap();
        // In flight at most: 5 access buffers (+1 in service each), the
        // bottleneck buffer (+1), and the 6 ms pipes at 100 Mbps (150 packets).
        assert!(
            m("packets_in_flight") <= 5.0 * 51.0 + 11.0 + 150.0,
            "{}",
            m("packets_in_flight")
        );
        assert_eq!(
            m("packets_sent"),
            m("packets_delivered") + m("packets_dropped") + m("packets_in_flight")
        );
    }
    // Five synchronized Reno flows over a 10-packet buffer (BDP 150): paper
    // 003 Theorem 1 gives 0.800 of the link; 5% for the packet-level detail.
    let u = five.metric("utilization").unwrap();
    assert!((u / 0.800 - 1.0).abs() < 0.05, "{u}");
}

/// Identical deterministic flows fall into phase effects (Floyd & Jacobson,
/// "On traffic phase effects in packet-switched gateways", 1992): with one
/// RTT and a 1-packet buffer, some flows are locked out. A send-time jitter
/// of one packet time (ns-2's `overhead_`) breaks the lock and shares the
/// link fairly, repeatably per seed. (With such a tiny buffer the jittered
/// flows then lose often and sit in 1 s timeouts: fair, not efficient.)
#[test]
fn jitter_breaks_phase_effects() {
    let run = |jitter: &str| {
        let v = json!({
            "duration": "60s", "warmup": "10s",
            "link": {"capacity": "100Mbps", "delay": "1ms", "buffer": "1pkt"},
            "flows": [{"count": 5, "rtt": "6ms", "mss": "500B", "sack": false, "jitter": jitter}],
        });
        packet::run(&common::from_json(&v).expect("valid"), &mut |_| true)
    };
    let locked = run("0s");
    assert!(
        locked.metric("jain_index").unwrap() < 0.5,
        "{:?}",
        locked.metric("jain_index")
    );
    // Measured 0.989 over 50 s (0.396 locked); the flows spend most of
    // the run in timeouts, so their goodputs are noisy: 0.95.
    let jittered = run("40us");
    assert!(
        jittered.metric("jain_index").unwrap() > 0.95,
        "{:?}",
        jittered.metric("jain_index")
    );
    assert_eq!(format!("{jittered:?}"), format!("{:?}", run("40us")));
}
