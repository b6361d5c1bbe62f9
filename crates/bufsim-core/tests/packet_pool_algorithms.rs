//! `pool.algorithm`: the buffer-management algorithms of a shared pool
//! (`bufsim_core::queue::shared`), each checked where it has a closed form:
//! with one busy port each is a drop-tail buffer of a known size, packet
//! for packet; overloaded ports settle where each rule puts them.

mod common;

use bufsim_core::output::RunOutput;
use bufsim_core::queue::shared::{abm, dt, fab};
use common::pool::{overloaded as poisson, tcp};
use common::{bits, from_json, m, run};
use serde_json::{Value, json};

#[test]
fn one_busy_port_is_a_buffer_of_the_rules_size() {
    // The other ports idle: static gives the port its share B / ports;
    // complete sharing and LQD (the arrival's own queue is the longest, so
    // it is the one dropped) the whole pool; ABM with one congested queue
    // draining at line rate is the dynamic threshold, alpha B / (1 +
    // alpha) with alpha 1.
    let cases = [
        ("static", 4, "300pkt", 1, "75pkt"),
        ("static", 3, "300000B", 2, "100000B"),
        ("complete", 4, "300pkt", 2, "300pkt"),
        ("complete", 2, "300000B", 0, "300000B"),
        ("lqd", 4, "300pkt", 3, "300pkt"),
        ("lqd", 4, "300000B", 1, "300000B"),
        ("abm", 4, "300pkt", 0, "150pkt"),
        ("abm", 2, "300000B", 1, "150000B"),
    ];
    for (alg, ports, size, port, buffer) in cases {
        let pool = run(&tcp(ports, size, json!({"algorithm": alg}), port, ""));
        let one = run(&tcp(0, "", json!({}), 0, buffer));
        let case = format!("{alg}: {ports} ports, pool {size}");
        assert!(
            bits(&pool.flows) == bits(&one.flows),
            "{case}: the flows differ"
        );
        for k in [
            "drop_rate",
            "mean_queue_pkts",
            "max_queue_pkts",
            "packets_delivered",
        ] {
            assert_eq!(m(&pool, k), m(&one, k), "{case}: {k}");
        }
        assert_eq!(
            m(&pool, &format!("utilization_port{port}")),
            m(&one, "utilization"),
            "{case}"
        );
        assert!(m(&one, "drop_rate") > 0.001, "{case}: congested");
    }
}

/// Poisson packets at `rates` (Mbps, 0: idle) on the 4 ports (100 Mbps,
/// 1000-byte packets) of a 500-packet pool under `algorithm`.
fn overloaded(rates: [u32; 4], algorithm: &str, alpha: f64) -> RunOutput {
    poisson(
        rates,
        json!({"algorithm": algorithm, "alpha": alpha}),
        "20s",
    )
}

#[test]
fn every_admission_keeps_its_rule() {
    // Three ports overloaded unevenly (60, 120 and 240 Mbps on 100 Mbps
    // ports), one idle, 2.5 s, a pool of 500 packets or 500,000 bytes (500
    // packets' worth). A debug build checks each algorithm's rule at every
    // admission (queue::shared::debug_check_admission: the pool within its
    // size; a static share, DT's, FAB's and ABM's thresholds not reached);
    // `make test-rust` runs this test so. Any build: the pool never held
    // more than its size, and the rule refused some arrivals.
    for alg in ["static", "complete", "dt", "lqd", "abm", "fab"] {
        for size in ["500pkt", "500000B"] {
            let o = poisson(
                [60, 120, 240, 0],
                json!({"algorithm": alg, "size": size}),
                "2.5s",
            );
            assert!(m(&o, "max_queue_pkts") <= 500.0, "{alg}, {size}");
            // In the 0.5 s window after the 2 s warm-up.
            assert!(m(&o, "drops_port2") > 1000.0, "{alg}, {size}: overloaded");
        }
    }
}

#[test]
fn abm_congested_ports_settle_at_its_fixed_point() {
    // n overloaded ports, each congested (saturated above 20 packets):
    // each queue settles at alpha B / (n (1 + alpha)), 250, 125, 62.5,
    // 83.3 and 41.7 packets below, and together at alpha B / (1 + alpha)
    // whatever n. As with the dynamic threshold's, an overloaded queue
    // sits between the threshold and one packet under it: a mean more than
    // 2 packets or 2% under the fixed point, or above it, would be a
    // threshold computed wrongly.
    for (rates, alpha) in [
        ([120, 0, 0, 0], 1.0),
        ([0, 120, 0, 120], 1.0),
        ([120; 4], 1.0),
        ([120; 4], 2.0),
        ([120; 4], 0.5),
    ] {
        let o = overloaded(rates, "abm", alpha);
        let n = rates.iter().filter(|&&r| r > 0).count() as f64;
        let fixed = abm::fixed_point(alpha, 500.0, n);
        let tol = 2.0_f64.max(0.02 * fixed);
        for k in (0..4).filter(|&k| rates[k] > 0) {
            let q = m(&o, &format!("mean_queue_pkts_port{k}"));
            assert!(
                q <= fixed && q >= fixed - tol,
                "{rates:?}, alpha {alpha}: port {k} holds {q}, fixed point {fixed}"
            );
            assert!(m(&o, &format!("utilization_port{k}")) > 0.999);
        }
        let pool = m(&o, "mean_queue_pkts");
        let together = alpha * 500.0 / (1.0 + alpha);
        assert!(
            pool <= together && pool >= together - n * tol,
            "{rates:?}: the pool holds {pool}, {together} expected"
        );
        // The dynamic threshold's congested ports hold more together as n
        // grows: n alpha B / (1 + n alpha).
        if n > 1.0 {
            assert!(n * dt::fixed_point(alpha, 500.0, n) > together + 1.0);
        }
    }
}

#[test]
fn static_caps_each_port_at_its_share() {
    // Four overloaded ports of a 500-packet pool: 125 packets each, each
    // an M/D/1/125 queue at load 1.2, whose mean sits a few packets under
    // the cap (measured: 122.3 packets).
    let o = overloaded([120; 4], "static", 1.0);
    for k in 0..4 {
        let q = m(&o, &format!("mean_queue_pkts_port{k}"));
        assert!((120.0..=125.0).contains(&q), "port {k}: {q}");
        assert_eq!(m(&o, &format!("max_queue_pkts_port{k}")), 125.0);
    }
    // One overloaded port alone still gets its share only.
    let o = overloaded([120, 0, 0, 0], "static", 1.0);
    assert_eq!(m(&o, "max_queue_pkts_port0"), 125.0);
    assert!(m(&o, "mean_queue_pkts") <= 125.0);
}

#[test]
fn lqd_evens_out_the_queues_complete_sharing_does_not() {
    // Ports 0 and 1 overloaded, port 1 twice as hard (240 against 120
    // Mbps). Complete sharing lets port 1 take most of the full pool (it
    // wins two thirds of the slots freed); LQD pushes packets out of the
    // longer queue and holds both near half the pool.
    let lqd = overloaded([120, 240, 0, 0], "lqd", 1.0);
    for k in 0..2 {
        let q = m(&lqd, &format!("mean_queue_pkts_port{k}"));
        assert!((q - 250.0).abs() < 3.0, "lqd: port {k} holds {q}");
        assert!(m(&lqd, &format!("utilization_port{k}")) > 0.999);
    }
    assert!(m(&lqd, "mean_queue_pkts") > 499.0);
    assert_eq!(m(&lqd, "max_queue_pkts"), 500.0);
    // Port 1 loses the most: its arrivals beyond its share, pushed out or
    // refused.
    assert!(m(&lqd, "drops_port1") > 2.0 * m(&lqd, "drops_port0"));

    let cs = overloaded([120, 240, 0, 0], "complete", 1.0);
    let (q0, q1) = (
        m(&cs, "mean_queue_pkts_port0"),
        m(&cs, "mean_queue_pkts_port1"),
    );
    assert!(q1 > 400.0 && q0 < 100.0, "complete: {q0} {q1}");
    assert!(q0 + q1 > 499.0);
}

#[test]
fn pool_fields_are_checked_by_name() {
    let base = |pool: Value| {
        json!({
            "duration": "1s",
            "link": {"capacity": "100Mbps", "delay": "1ms"},
            "pool": pool,
            "background": [{"kind": "poisson", "rate": "10Mbps", "packet_size": "1000B", "port": 1}],
        })
    };
    let error = |pool: Value| from_json(&base(pool)).expect_err("refused").to_string();
    let e = error(json!({"size": "100pkt", "ports": 2, "algorithm": "fifo"}));
    assert_eq!(
        e,
        "pool.algorithm: must be one of static, complete, dt, lqd, abm, fab, got \"fifo\""
    );
    let e = error(json!({"size": "100pkt", "ports": 2, "interval": "10us"}));
    assert!(
        e.starts_with("pool.interval: 0.000010s: only the abm algorithm")
            && e.ends_with("not pool.algorithm \"dt\""),
        "{e}"
    );
    let e = error(json!({"size": "100pkt", "ports": 2, "algorithm": "abm", "interval": "0s"}));
    assert!(
        e.starts_with("pool.interval: must be > 0s and at most 1s, got 0"),
        "{e}"
    );
    let e = error(json!({"size": "100pkt", "ports": 2, "algorithm": "abm", "interval": "2s"}));
    assert!(e.starts_with("pool.interval: must be > 0s"), "{e}");
    let mut fq = base(json!({"size": "100pkt", "ports": 2, "algorithm": "lqd"}));
    fq["link"]["qdisc"] = "fq_codel".into();
    let e = from_json(&fq).expect_err("refused").to_string();
    assert!(
        e.starts_with("pool.algorithm: \"lqd\" pushes a packet out")
            && e.contains("\"fq_codel\"")
            && e.contains("droptail"),
        "{e}"
    );
    // Valid: the normalized pool names its algorithm, and ABM's interval.
    let s = from_json(&base(
        json!({"size": "100pkt", "ports": 2, "algorithm": "abm"}),
    ))
    .unwrap();
    let n: Value = serde_json::from_str(&s.to_json()).unwrap();
    assert_eq!(n["pool"]["algorithm"], "abm");
    assert_eq!(n["pool"]["interval_s"], 30e-6);
    let s = from_json(&base(json!({"size": "100pkt", "ports": 2}))).unwrap();
    let n: Value = serde_json::from_str(&s.to_json()).unwrap();
    assert_eq!(n["pool"]["algorithm"], "dt");
    assert!(n["pool"].get("interval_s").is_none());
    assert!(n["pool"].get("unscheduled").is_none());
}

#[test]
fn the_first_rtt_priority_is_checked_by_field() {
    let base = |unscheduled: Value| {
        json!({
            "duration": "1s",
            "link": {"capacity": "100Mbps", "delay": "1ms"},
            "pool": {"size": "100pkt", "ports": 2, "algorithm": "abm", "unscheduled": unscheduled},
            "flows": [{"count": 1, "rtt": "10ms", "mss": "1000B"}],
        })
    };
    let error = |u: Value| from_json(&base(u)).expect_err("refused").to_string();
    assert_eq!(
        error(json!({"alpha": -1})),
        "pool.unscheduled.alpha: must be > 0 and at most 1000000, got -1"
    );
    assert_eq!(
        error(json!({"alpha": 2e6})),
        "pool.unscheduled.alpha: must be > 0 and at most 1000000, got 2000000"
    );
    assert_eq!(
        error(json!({"bytes": "0B"})),
        "pool.unscheduled.bytes: must be > 0B and at most 1GB, got 0B"
    );
    let e = error(json!({"bytes": "1pkt"}));
    assert!(e.starts_with("pool.unscheduled.bytes: "), "{e}");
    assert_eq!(
        error(json!({"size": "1KB"})),
        "pool.unscheduled.size: unknown field `size`, expected `alpha` or `bytes`"
    );
    // The default extent is the link's BDP: 100 Mbps x 10 ms = 125,000
    // bytes; alpha 1024.
    let s = from_json(&base(json!({}))).unwrap();
    let n: Value = serde_json::from_str(&s.to_json()).unwrap();
    assert_eq!(
        n["pool"]["unscheduled"],
        json!({"alpha": 1024.0, "bytes": 125_000})
    );
    assert_eq!(s.topology.first_rtt_bytes(), 125_000);
}

#[test]
fn the_first_rtt_priority_lets_a_burst_fill_the_free_pool() {
    // 16 DCTCP transfers of 15 KB (10 packets, the linux profile's
    // initial window: all sent at once) into port 0 of a 100-packet ABM
    // pool, port 1 carrying 6 Gbps of Poisson packets (as
    // tests/test_pool_algorithms.py runs it). Plain ABM (alpha 1, one congested port) holds port 0 under
    // half the free pool; with alpha 1024 for first-RTT packets the burst
    // fills the pool. A debug build checks every admission against the
    // factor its threshold used (`Pool::priority_alpha`).
    let burst = |unscheduled: Option<Value>| {
        let mut pool = json!({"size": "100pkt", "ports": 2, "algorithm": "abm"});
        if let Some(u) = unscheduled {
            pool["unscheduled"] = u;
        }
        run(&json!({
            "duration": "0.02s", "seed": 2,
            "link": {"capacity": "10Gbps", "delay": "10us"},
            "pool": pool,
            "flows": [{"count": 16, "tcp": "dctcp", "size": "15KB", "mss": "1500B",
                       "rtt": "80us", "start": "1ms", "port": 0, "stack": "linux"}],
            "background": [{"kind": "poisson", "rate": "6Gbps", "packet_size": "1500B",
                            "port": 1}],
        }))
    };
    let (plain, tagged) = (
        burst(None),
        burst(Some(json!({"alpha": 1024, "bytes": "100KB"}))),
    );
    assert_eq!(m(&plain, "max_queue_pkts_port0"), 50.0);
    assert_eq!(m(&tagged, "max_queue_pkts_port0"), 100.0);
    // Measured: 124 drops plain, 74 with the priority.
    let (a, b) = (m(&plain, "drops_port0"), m(&tagged, "drops_port0"));
    assert!(
        (a - 124.0).abs() <= 10.0 && (b - 74.0).abs() <= 10.0,
        "{a} {b}"
    );
    assert!(b <= a - 40.0, "{a} {b}");
}

#[test]
fn fab_fields_are_checked_by_name() {
    let base = |algorithm: &str, f: Value| {
        json!({
            "duration": "1s",
            "link": {"capacity": "100Mbps", "delay": "1ms", "packet_size": "1400B"},
            "pool": {"size": "100pkt", "ports": 2, "algorithm": algorithm, "fab": f},
            "flows": [{"count": 1, "rtt": "10ms", "mss": "1000B"}],
        })
    };
    let error = |f: Value| from_json(&base("fab", f)).expect_err("refused").to_string();
    assert_eq!(
        error(json!({"window": "0s"})),
        "pool.fab.window: must be > 0s and at most 1s, got 0.000000s"
    );
    assert!(error(json!({"window": "2s"})).starts_with("pool.fab.window: must be > 0s"));
    assert_eq!(
        error(json!({"bytes": "0B"})),
        "pool.fab.bytes: must be > 0B and at most 1GB, got 0B"
    );
    assert_eq!(
        error(json!({"alpha": 0})),
        "pool.fab.alpha: must be > 0 and at most 1000000, got 0"
    );
    assert_eq!(
        error(json!({"rtt": "1ms"})),
        "pool.fab.rtt: unknown field `rtt`, expected one of `window`, `bytes`, `alpha`"
    );
    // The defaults: 5 ms, 15 packets of the link's 1400 bytes, 1024.
    let n =
        |s: &Value| -> Value { serde_json::from_str(&from_json(s).unwrap().to_json()).unwrap() };
    let mut plain = base("fab", json!({}));
    plain["pool"].as_object_mut().unwrap().remove("fab");
    assert_eq!(
        n(&plain)["pool"]["fab"],
        json!({"window_s": 0.005, "bytes": 21_000, "alpha": 1024.0})
    );
    // Another algorithm ignores the table (a sweep over the algorithm keeps
    // it), and its normalized scenario does not name it.
    let dt = n(&base("dt", json!({"window": "1ms"})));
    assert!(dt["pool"].get("fab").is_none());
    assert_eq!(fab::DEFAULT_PKTS * 1400, 21_000);
}

/// 16 DCTCP transfers of `size` into port 0 of a 100-packet pool under
/// `pool` (its `algorithm` and fields), port 1 carrying 6 Gbps of Poisson
/// packets (the first-RTT priority's burst above).
fn fan_in(pool: Value, size: &str) -> RunOutput {
    let mut p = json!({"size": "100pkt", "ports": 2});
    for (k, x) in pool.as_object().unwrap() {
        p[k] = x.clone();
    }
    run(&json!({
        "duration": "0.02s", "seed": 2,
        "link": {"capacity": "10Gbps", "delay": "10us", "packet_size": "1500B"},
        "pool": p,
        "flows": [{"count": 16, "tcp": "dctcp", "size": size, "mss": "1500B",
                   "rtt": "80us", "start": "1ms", "port": 0, "stack": "linux"}],
        "background": [{"kind": "poisson", "rate": "6Gbps", "packet_size": "1500B",
                        "port": 1}],
    }))
}

#[test]
fn fab_admits_new_flows_first_packets_that_dt_drops() {
    // 16 new transfers of 15 KB (10 packets each, sent at once) into port
    // 0: every packet is within its flow's first 15 x 1500 bytes, so FAB
    // admits them under alpha 1024 and the burst fills the pool, where
    // DT (alpha 1) holds port 0 at half of it. A debug build checks every
    // admission against the factor its threshold used.
    let dt = fan_in(json!({"algorithm": "dt"}), "15KB");
    let fab = fan_in(json!({"algorithm": "fab"}), "15KB");
    assert_eq!(m(&dt, "max_queue_pkts_port0"), 50.0);
    assert_eq!(m(&fab, "max_queue_pkts_port0"), 100.0);
    // Measured: 124 drops under DT, 74 under FAB.
    let (a, b) = (m(&dt, "drops_port0"), m(&fab, "drops_port0"));
    assert!(
        (a - 124.0).abs() <= 10.0 && (b - 74.0).abs() <= 10.0,
        "{a} {b}"
    );
    assert!(b <= a - 40.0, "{a} {b}");
}

#[test]
fn fab_holds_long_flows_past_their_count_to_dts_share() {
    // 20 long NewReno flows on port 0 of a 300-packet pool of 4 ports
    // (1000-byte packets), after a 4 s warm-up: every flow is far past its
    // first 15 packets. With a window of 1 s, longer than any of their
    // silences (retransmission timeouts included), no count restarts and
    // FAB is the dynamic threshold: measured, the same run as DT's, the
    // queue at most alpha B / (1 + alpha) = 150 packets.
    let long = |pool: Value| run(&tcp(4, "300pkt", pool, 0, ""));
    let dt = long(json!({"algorithm": "dt"}));
    let fab = long(json!({"algorithm": "fab", "fab": {"window": "1s"}}));
    for k in [
        "max_queue_pkts_port0",
        "mean_queue_pkts_port0",
        "drops_port0",
    ] {
        assert_eq!(m(&fab, k), m(&dt, k), "{k}");
    }
    assert_eq!(m(&dt, "max_queue_pkts_port0"), 150.0);
    // With the default 5 ms a flow silent after a timeout starts its count
    // again, and its next 14 packets pass DT's share. Measured: at most 172
    // packets (150 under DT), a mean of 134.5 (124.8), 1463 drops (1255).
    let fab5 = long(json!({"algorithm": "fab"}));
    let (q, mean) = (
        m(&fab5, "max_queue_pkts_port0"),
        m(&fab5, "mean_queue_pkts_port0"),
    );
    assert!(q > 155.0 && q <= 300.0, "{q}");
    assert!(mean > m(&dt, "mean_queue_pkts_port0") + 5.0, "{mean}");
}
