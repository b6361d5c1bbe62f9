//! `reverse`: two-way traffic. ACKs that cross an idle reverse link
//! arrive as they would over the folded return path, one ACK's
//! serialization later; ACKs on a slow reverse link limit the forward
//! rate to what they clock; data in both directions compresses the ACKs
//! and lowers both links' utilization at a given buffer (Zhang, Shenker &
//! Clark, SIGCOMM 1991), the same in each direction of a symmetric setup.

mod common;

use common::{m, run};
use serde_json::json;

fn mean(xs: impl Iterator<Item = f64>) -> f64 {
    let v: Vec<f64> = xs.collect();
    v.iter().sum::<f64>() / v.len() as f64
}

/// Over a 10 Tbps reverse link an ACK takes 32 ps more than over the
/// folded return path, and nothing else changes: each flow's counters are
/// the same, its smoothed RTT and completion time within a nanosecond.
/// (The ACK's delay from the reverse link to the sender, the one new
/// clock, is then exactly right.) SACK with delayed ACKs, CUBIC with
/// random loss, finite transfers.
#[test]
fn acks_over_an_idle_reverse_link_arrive_as_over_the_return_path() {
    for g in [
        json!({"count": 1, "sack": true, "delayed_ack": true, "rtt": "63.7ms"}),
        json!({"count": 1, "tcp": "cubic", "rtt": "91.3ms", "loss": 0.002}),
        json!({"count": 4, "rtt": "37.3ms", "size": "400pkt", "start": {"stagger": "3s"}}),
    ] {
        let one = json!({"duration": "20s", "warmup": "1s", "seed": 5,
            "link": {"capacity": "10Mbps", "delay": "5ms", "buffer": "30pkt"},
            "flows": [g]});
        let mut two = one.clone();
        two["reverse"] = json!({"capacity": "10Tbps", "buffer": "100pkt"});
        let (a, b) = (run(&one), run(&two));
        assert!(a.flows.rows() >= 1, "{g}");
        for c in [
            "delivered_pkts",
            "sent_pkts",
            "retransmits",
            "timeouts",
            "drops",
        ] {
            assert_eq!(a.flows.get(c), b.flows.get(c), "{g}: {c}");
        }
        let retransmits: f64 = a.flows.get("retransmits").unwrap().iter().sum();
        assert!(retransmits >= 40.0, "{g}: {retransmits} retransmissions");
        for c in ["srtt_s", "fct_s"] {
            for (x, y) in a.flows.get(c).unwrap().iter().zip(b.flows.get(c).unwrap()) {
                assert!(
                    x.is_nan() && y.is_nan() || (y - x).abs() < 1e-9,
                    "{g}: {c} {x} {y}"
                );
            }
        }
        assert_eq!(m(&b, "drops_reverse"), 0.0);
        assert_eq!(m(&b, "ack_compression"), 0.0);
    }
}

/// The check: a reverse link as fast as the forward one, without
/// data of its own, leaves the forward results as they were. Means over
/// seeds 1-4 of 8 SACK flows on 10 Mbps with 20 packets (measured:
/// utilization 0.9838 one way and 0.9816 two ways, drop rate 0.0236 and
/// 0.0231, mean queue 11.72 and 11.71 packets). The ACKs never wait
/// behind more than one other, and none arrives compressed. (Jain's index
/// moves more, 0.45-0.81 either way: without send jitter it is set by
/// phase effects, which a 32 us shift of every ACK reshuffles.)
#[test]
fn a_reverse_link_without_data_keeps_the_forward_results() {
    let (mut one, mut two) = (Vec::new(), Vec::new());
    for seed in 1..=4 {
        let v = json!({"duration": "60s", "warmup": "10s", "seed": seed,
            "link": {"capacity": "10Mbps", "delay": "5ms", "buffer": "20pkt"},
            "flows": [{"count": 8, "rtt": {"uniform": ["40ms", "80ms"]}, "sack": true,
                       "start": {"uniform": ["0s", "1s"]}}]});
        let mut r = v.clone();
        r["reverse"] = json!({"buffer": "20pkt"});
        one.push(run(&v));
        let o = run(&r);
        assert!(m(&o, "max_queue_pkts_reverse") <= 1.0);
        assert_eq!(m(&o, "ack_compression"), 0.0);
        assert_eq!(m(&o, "ack_drops"), 0.0);
        two.push(o);
    }
    for (k, tol) in [
        ("utilization", 0.005),
        ("drop_rate", 0.05),
        ("mean_queue_pkts", 0.05),
    ] {
        let a = mean(one.iter().map(|o| m(o, k)));
        let b = mean(two.iter().map(|o| m(o, k)));
        let err = if k == "utilization" {
            b - a
        } else {
            b / a - 1.0
        };
        assert!(err.abs() < tol, "{k}: {a} one way, {b} two ways");
    }
}

/// ACKs are packets of the reverse link: 4 flows whose receive windows
/// (30 packets each) keep every ACK in the 200-packet reverse buffer send
/// one segment per ACK, at the rate the reverse link serializes ACKs:
/// 200 kbit/s / 320 bits = 625 ACKs/s, 625 x 12,000 bits = 7.5 Mbit/s,
/// 0.75 of the forward 10 Mbit/s (measured 0.74999).
#[test]
fn a_slow_reverse_link_clocks_the_forward_rate() {
    let v = json!({"duration": "30s", "warmup": "5s",
        "link": {"capacity": "10Mbps", "delay": "5ms", "buffer": "50pkt"},
        "flows": [{"count": 4, "rtt": {"uniform": ["40ms", "80ms"]}, "sack": true, "rwnd": "30pkt"}],
        "reverse": {"capacity": "200kbps", "buffer": "200pkt"}});
    let o = run(&v);
    let clocked = 200e3 / (40.0 * 8.0) * (1500.0 * 8.0) / 10e6;
    assert!(
        (m(&o, "utilization") - clocked).abs() < 0.002,
        "{}",
        m(&o, "utilization")
    );
    assert!(m(&o, "utilization_reverse") > 0.999);
    assert_eq!(m(&o, "ack_drops"), 0.0);
    assert_eq!(m(&o, "drop_rate"), 0.0);
}

/// Data both ways (6 SACK flows each way, the same RTTs, 40 packets each
/// way): the ACKs of each direction queue behind the other's data and
/// leave in bunches, a fifth of them closer together than the data they
/// answer (ACK compression, 0.23 measured; 0 with the reverse link
/// carrying ACKs alone) and both links lose utilization (0.92-0.93
/// against 0.998 one way). The two directions are alike: their goodputs
/// within 1.5% on average over seeds 1-4 (measured 0.5-1.1% per seed).
/// Every data packet sent is delivered, dropped or still in the network.
#[test]
fn data_both_ways_compresses_acks_and_costs_utilization() {
    let g = json!({"count": 6, "rtt": ["40ms", "50ms", "60ms", "70ms", "80ms", "90ms"],
                   "sack": true, "start": {"uniform": ["0s", "2s"]}});
    let (mut fwd, mut rev) = (Vec::new(), Vec::new());
    for seed in 1..=4 {
        let v = json!({"duration": "60s", "warmup": "10s", "seed": seed,
            "link": {"capacity": "10Mbps", "delay": "5ms", "buffer": "40pkt"},
            "flows": [g.clone()], "reverse": {"buffer": "40pkt"}});
        let alone = run(&v);
        let mut both = v.clone();
        both["reverse"]["flows"] = json!([g.clone()]);
        let o = run(&both);
        assert!(m(&alone, "utilization") > 0.995);
        assert_eq!(m(&alone, "ack_compression"), 0.0);
        assert!(
            m(&o, "ack_compression") > 0.2,
            "{}",
            m(&o, "ack_compression")
        );
        for k in ["utilization", "utilization_reverse"] {
            assert!((0.9..0.95).contains(&m(&o, k)), "{k}: {}", m(&o, k));
        }
        let sent = m(&o, "packets_sent");
        let accounted =
            m(&o, "packets_delivered") + m(&o, "packets_dropped") + m(&o, "packets_in_flight");
        assert_eq!(sent, accounted);
        // The reverse link conserves packets, ACKs and data: over the
        // window, what arrived and did not leave is what its queue gained.
        let gained =
            m(&o, "arrivals_reverse") - m(&o, "departures_reverse") - m(&o, "drops_reverse");
        assert!((-40.0..=40.0).contains(&gained), "{gained}");
        fwd.push(m(&o, "goodput_bps"));
        rev.push(m(&o, "goodput_bps_reverse"));
        assert_eq!(m(&o, "goodput_bps_group1"), m(&o, "goodput_bps_reverse"));
    }
    let (f, r) = (mean(fwd.into_iter()), mean(rev.into_iter()));
    assert!((r / f - 1.0).abs() < 0.015, "forward {f}, reverse {r}");
}

#[test]
fn no_ack_gap_measures_nothing() {
    // The one forward flow starts 10 ms before the end: no ACK gap in the
    // window. Each ACK measure is 0 (nothing to measure, as the queue
    // delays with no packet through the queue), not NaN.
    let o = run(&json!({"duration": "0.3s", "warmup": "0.1s", "seed": 1,
        "link": {"capacity": "1Mbps", "delay": "1ms", "buffer": "5pkt"},
        "flows": [{"count": 1, "rtt": "10ms", "start": "0.29s"}],
        "reverse": {"capacity": "1Mbps", "buffer": "5pkt"}}));
    for k in [
        "ack_gap_mean_s",
        "ack_gap_p50_s",
        "ack_gap_cv",
        "ack_compression",
        "ack_drops",
    ] {
        assert_eq!(m(&o, k), 0.0, "{k}");
    }
}

#[test]
fn bad_reverse_input_is_named() {
    let base = json!({"duration": "10s",
        "link": {"capacity": "10Mbps", "delay": "5ms", "buffer": "20pkt"},
        "flows": [{"count": 1, "rtt": "40ms"}], "reverse": {"buffer": "20pkt"}});
    let cases = [
        (
            "/reverse/ack_size",
            json!("20B"),
            "reverse.ack_size",
            "between 40B and 1500B",
        ),
        (
            "/reverse/capacity",
            json!("0bps"),
            "reverse.capacity",
            "must be > 0bps",
        ),
        (
            "/reverse/qdisc",
            json!("bogus"),
            "reverse.qdisc",
            "unknown queue discipline",
        ),
        (
            "/reverse/flows",
            json!([{"count": 1, "rtt": "5ms"}]),
            "reverse.flows[0].rtt",
            "",
        ),
        (
            "/reverse/flows",
            json!([{"count": 1, "rtt": "40ms", "port": 1}]),
            "reverse.flows[0]",
            "remove port",
        ),
        (
            "/output",
            json!({"trace": true}),
            "output.trace",
            "[reverse]",
        ),
        (
            "/pool",
            json!({"size": "100pkt", "ports": 2}),
            "reverse",
            "not with a [pool]",
        ),
    ];
    for (ptr, value, path, msg) in cases {
        let mut v = base.clone();
        let (parent, key) = ptr.rsplit_once('/').unwrap();
        v.pointer_mut(if parent.is_empty() { "" } else { parent })
            .unwrap()
            .as_object_mut()
            .unwrap()
            .insert(key.to_string(), value);
        let e = common::from_json(&v).expect_err(ptr);
        assert_eq!(e.path, path, "{ptr}: {e}");
        assert!(e.message.contains(msg), "{ptr}: {e}");
    }
}
