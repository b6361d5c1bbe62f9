//! `pool`: egress ports sharing one buffer with a dynamic threshold
//! (Choudhury & Hahne 1998, section III: port `i` accepts while
//! `Q_i < alpha (B - Q)`). Checked against the threshold's two fixed
//! points: one busy port behaves as a buffer of `alpha B / (1 + alpha)`, and
//! `n` equally busy ports settle near `alpha B / (1 + n alpha)` each.

mod common;

use bufsim_core::output::RunOutput;
use common::pool::{overloaded as poisson, tcp};
use common::{bits, m, run};
use serde_json::json;

#[test]
fn one_busy_port_is_a_buffer_of_alpha_over_one_plus_alpha_of_the_pool() {
    // Q < alpha (B - Q) is Q < alpha B / (1 + alpha): with that a whole
    // number of packets (or bytes, a whole number of packets' worth), the
    // busy port is a drop-tail buffer of that size, packet for packet. The
    // pool's other ports are idle; the summary's utilization is the ports'
    // mean, the busy one's own is the dumbbell's.
    let cases = [
        (4, "300pkt", 1.0, 2, "150pkt"),
        (2, "300pkt", 2.0, 1, "200pkt"),
        (3, "300pkt", 0.5, 0, "100pkt"),
        (4, "300000B", 1.0, 3, "150000B"),
    ];
    for (ports, size, alpha, port, buffer) in cases {
        let pool = run(&tcp(ports, size, json!({"alpha": alpha}), port, ""));
        let one = run(&tcp(0, "", json!({}), 0, buffer));
        let case = format!("{ports} ports, pool {size}, alpha {alpha}");
        assert!(
            bits(&pool.flows) == bits(&one.flows),
            "{case}: the flows differ"
        );
        for k in [
            "drop_rate",
            "mean_queue_pkts",
            "max_queue_pkts",
            "mean_queue_delay_s",
            "packets_delivered",
            "timeouts",
        ] {
            assert_eq!(m(&pool, k), m(&one, k), "{case}: {k}");
        }
        let p = |k: &str| m(&pool, &format!("{k}_port{port}"));
        assert_eq!(p("utilization"), m(&one, "utilization"), "{case}");
        assert_eq!(p("mean_queue_pkts"), m(&one, "mean_queue_pkts"), "{case}");
        assert_eq!(p("drop_rate"), m(&one, "drop_rate"), "{case}");
        // The ports' busy times are averaged in whole picoseconds.
        let mean = m(&one, "utilization") / f64::from(ports);
        assert!((m(&pool, "utilization") - mean).abs() < 1e-9, "{case}");
        assert!(
            m(&one, "drop_rate") > 0.001,
            "{case}: the port is congested"
        );
    }
}

/// Poisson packets at 1.2 times the line rate on each port of `busy` (of 4,
/// 100 Mbps, 1000-byte packets): their queues stay at the threshold.
fn overloaded(busy: &[u32], alpha: f64) -> RunOutput {
    let rates = [0, 1, 2, 3].map(|k| if busy.contains(&k) { 120 } else { 0 });
    poisson(rates, json!({"alpha": alpha}), "20s")
}

#[test]
fn busy_ports_settle_at_the_thresholds_fixed_point() {
    // With n ports overloaded, each queue settles at alpha B / (1 + n
    // alpha): 250, 166.7, 100, 111.1 and 83.3 packets of the 500-packet
    // pool below. An overloaded queue refills at once after each departure,
    // so it sits between the threshold and one packet under it (measured:
    // 0.6-1.3 packets under); a mean more than 2 packets or 2% under the
    // fixed point, or above it, would be a threshold computed wrongly.
    for (busy, alpha) in [
        (&[0][..], 1.0),
        (&[1, 3][..], 1.0),
        (&[0, 1, 2, 3][..], 1.0),
        (&[0, 1, 2, 3][..], 2.0),
        (&[0, 1, 2, 3][..], 0.5),
    ] {
        let o = overloaded(busy, alpha);
        let n = busy.len() as f64;
        let fixed = alpha * 500.0 / (1.0 + n * alpha);
        for k in busy {
            let q = m(&o, &format!("mean_queue_pkts_port{k}"));
            assert!(
                q <= fixed && q >= fixed - 2.0_f64.max(0.02 * fixed),
                "{busy:?}, alpha {alpha}: port {k} holds {q}, fixed point {fixed}"
            );
            assert!(m(&o, &format!("utilization_port{k}")) > 0.999);
            // Little's law: a busy port sends one 1000-byte packet every
            // 80 us, so its mean wait is its mean queue times 80 us.
            let wait = m(&o, &format!("mean_queue_delay_s_port{k}"));
            assert!(
                (wait / (q * 80e-6) - 1.0).abs() < 0.01,
                "port {k}: {wait} s"
            );
        }
        // The idle ports hold nothing and the pool keeps B / (1 + n alpha)
        // free for them.
        for k in (0..4).filter(|k| !busy.contains(k)) {
            assert_eq!(m(&o, &format!("mean_queue_pkts_port{k}")), 0.0);
            assert_eq!(m(&o, &format!("utilization_port{k}")), 0.0);
        }
        let pool = m(&o, "mean_queue_pkts");
        assert!(
            pool <= n * fixed && pool >= n * (fixed - 2.0_f64.max(0.02 * fixed)),
            "{busy:?}: the pool holds {pool}"
        );
        assert!(m(&o, "max_queue_pkts") <= 500.0);
        let util = m(&o, "utilization");
        assert!(
            (util - n / 4.0).abs() < 0.001,
            "{busy:?}: utilization {util}"
        );
    }
}

#[test]
fn each_port_draws_its_own_random_drops() {
    // RED on every port: port k's drops come from stream Queue(k), so two
    // ports with the same traffic do not drop the same packets.
    let o = run(&json!({
        "duration": "10s", "warmup": "2s", "seed": 3,
        "link": {"capacity": "100Mbps", "delay": "1ms", "qdisc": "red", "buffer": "300pkt",
                 "qdisc_params": {"min_th": 20, "max_th": 60}},
        "pool": {"size": "1000pkt", "ports": 2},
        "background": [
            {"kind": "poisson", "rate": "110Mbps", "packet_size": "1000B", "port": 0},
            {"kind": "poisson", "rate": "110Mbps", "packet_size": "1000B", "port": 1},
        ],
    }));
    let (a, b) = (m(&o, "drops_port0"), m(&o, "drops_port1"));
    assert!(a > 1000.0 && b > 1000.0, "{a} {b}");
    assert_ne!(a, b);
    // link.buffer is each port's own limit beside the threshold.
    assert!(m(&o, "max_queue_pkts_port0") <= 300.0);
}
