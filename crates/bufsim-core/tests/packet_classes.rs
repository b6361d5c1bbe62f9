//! `link.queues`: several queues per port, one per traffic class, served
//! by strict priority or DWRR (`link.scheduler`), alone or on a shared
//! pool whose dynamic threshold takes a factor per class; checked against
//! what each rule implies under overload.

mod common;

use bufsim_core::output::RunOutput;
use bufsim_core::queue::shared::dt;
use common::{from_json, m, run};
use serde_json::{Value, json};

/// Poisson packets of 1000 bytes at `rate` (Mbps) in class `class`, on
/// port `port`.
fn poisson(rate: u32, class: u32, port: u32) -> Value {
    json!({"kind": "poisson", "rate": format!("{rate}Mbps"), "packet_size": "1000B",
           "class": class, "port": port})
}

/// A 100 Mbps link with two queues (classes 0 and 1) of 100 packets under
/// `scheduler`, `weights` under DWRR, and `background`.
fn two_classes(scheduler: &str, weights: [u32; 2], background: Vec<Value>) -> Value {
    let queue = |class: u32, w: u32| match scheduler {
        "dwrr" => json!({"class": class, "weight": w}),
        _ => json!({"class": class}),
    };
    json!({
        "duration": "20s", "warmup": "2s", "seed": 5,
        "link": {"capacity": "100Mbps", "delay": "1ms", "buffer": "100pkt",
                 "packet_size": "1000B", "scheduler": scheduler,
                 "queues": [queue(0, weights[0]), queue(1, weights[1])]},
        "background": background,
    })
}

#[test]
fn strict_priority_starves_the_low_class_under_overload() {
    // Class 0 arrives at 1.05 times the line rate: its queue is never
    // empty (a random walk with a drift away from 0), so class 1, served
    // only when class 0 is empty, sends nothing once class 0's queue has
    // filled. Below 0.2% of the link for class 1 (its share from the
    // warm-up's first packets, none after); class 0 takes the rest.
    let o = run(&two_classes(
        "strict",
        [1, 1],
        vec![poisson(105, 0, 0), poisson(50, 1, 0)],
    ));
    let (hi, lo) = (m(&o, "utilization_class0"), m(&o, "utilization_class1"));
    assert!(lo < 0.002, "class 1 used {lo} of the link");
    assert!(hi > 0.995, "class 0 used {hi}");
    assert!((m(&o, "throughput_bps_class0") - hi * 100e6).abs() < 1.0);
    // Class 1's queue is full and drops what arrives (50 Mbps, 6,250
    // packets/s over the 18 s window).
    assert!(m(&o, "mean_queue_pkts_class1") > 99.0);
    let arrivals = m(&o, "arrivals_class1");
    assert!(
        (arrivals / (18.0 * 6250.0) - 1.0).abs() < 0.02,
        "{arrivals}"
    );
    assert!(m(&o, "drop_rate_class1") > 0.99);
    assert_eq!(
        m(&o, "max_queue_pkts"),
        200.0,
        "the port holds both queues, 100 packets each"
    );
    assert_eq!(m(&o, "max_queue_pkts_class0"), 100.0);
}

#[test]
fn dwrr_splits_the_link_by_weight() {
    // Both classes saturated (150 Mbps each on 100 Mbps), weights 1:3:
    // 25 and 75 Mbps within 2% (measured within 0.1%), whatever the
    // order of the queues; and 1:1 halves the link.
    for (weights, want) in [
        ([1, 3], [0.25, 0.75]),
        ([3, 1], [0.75, 0.25]),
        ([1, 1], [0.5, 0.5]),
    ] {
        let o = run(&two_classes(
            "dwrr",
            weights,
            vec![poisson(150, 0, 0), poisson(150, 1, 0)],
        ));
        for (c, want) in want.iter().enumerate() {
            let u = m(&o, &format!("utilization_class{c}"));
            assert!(
                (u / want - 1.0).abs() < 0.02,
                "weights {weights:?}: class {c} used {u}, {want} expected"
            );
        }
        assert!(m(&o, "utilization") > 0.999);
    }
}

#[test]
fn dwrr_gives_an_idle_class_share_to_the_busy_one() {
    // Class 1 (weight 3) offers 20 Mbps, below its 75: it gets all of it,
    // class 0 the rest (work conserving).
    let o = run(&two_classes(
        "dwrr",
        [1, 3],
        vec![poisson(150, 0, 0), poisson(20, 1, 0)],
    ));
    let lo = m(&o, "utilization_class1");
    assert!((lo / 0.2 - 1.0).abs() < 0.03, "class 1 used {lo}");
    assert!(m(&o, "drops_class1") == 0.0);
    assert!(m(&o, "utilization_class0") > 0.79);
}

/// Two 100 Mbps ports sharing a 500-packet pool under the dynamic
/// threshold, two classes per port with factors `alpha`, Poisson overload
/// (150 Mbps) on each class of the ports in `busy`.
fn pooled(alpha: [f64; 2], busy: &[u32]) -> RunOutput {
    let bg: Vec<Value> = busy
        .iter()
        .flat_map(|&k| [poisson(150, 0, k), poisson(150, 1, k)])
        .collect();
    run(&json!({
        "duration": "10s", "warmup": "1s", "seed": 3,
        "link": {"capacity": "100Mbps", "delay": "1ms", "packet_size": "1000B",
                 "scheduler": "dwrr",
                 "queues": [{"class": 0, "alpha": alpha[0]}, {"class": 1, "alpha": alpha[1]}]},
        "pool": {"size": "500pkt", "ports": 2, "algorithm": "dt"},
        "background": bg,
    }))
}

#[test]
fn dt_with_a_factor_per_class_settles_at_hahne_choudhury_fixed_point() {
    // Every overloaded queue sits between its threshold alpha_c (B - Q) and
    // one packet under it, at q_c = alpha_c B / (1 + sum n_c alpha_c)
    // (dt::fixed_point_classes): one busy port with alpha 1 and 0.5 gives
    // 200 and 100 packets; two busy ports 125 and 62.5 each; alpha 2 and
    // 0.25 on one port 307.7 and 38.5. Within 2 packets or 2% under it.
    for (alpha, busy) in [
        ([1.0, 0.5], vec![0]),
        ([1.0, 0.5], vec![0, 1]),
        ([2.0, 0.25], vec![1]),
    ] {
        let o = pooled(alpha, &busy);
        let n = busy.len() as f64;
        let fixed = dt::fixed_point_classes(&alpha, &[n, n], 500.0);
        for &k in &busy {
            for (c, fixed) in fixed.iter().enumerate() {
                let q = m(&o, &format!("mean_queue_pkts_port{k}_class{c}"));
                let tol = 2.0_f64.max(0.02 * fixed);
                assert!(
                    q <= fixed + 0.5 && q >= fixed - tol,
                    "alpha {alpha:?}, busy {busy:?}: port {k} class {c} holds {q}, fixed point {fixed}"
                );
            }
        }
    }
}

#[test]
fn one_class_is_the_single_queue_packet_for_packet() {
    // link.queues with one queue of the link's discipline and buffer is
    // the port as it was: the same summary, bit for bit.
    let base = json!({
        "duration": "8s", "warmup": "1s", "seed": 2,
        "link": {"capacity": "50Mbps", "delay": "5ms", "buffer": "60pkt"},
        "flows": [{"count": 8, "rtt": {"uniform": ["20ms", "40ms"]}, "mss": "1000B"}],
        "background": [{"kind": "poisson", "rate": "5Mbps", "packet_size": "500B"}],
    });
    let mut one = base.clone();
    one["link"]["queues"] = json!([{"class": 0}]);
    let (a, b) = (run(&base), run(&one));
    for k in [
        "utilization",
        "drop_rate",
        "mean_queue_pkts",
        "max_queue_pkts",
        "goodput_bps",
    ] {
        assert_eq!(m(&a, k).to_bits(), m(&b, k).to_bits(), "{k}");
    }
    assert!(m(&b, "utilization_class0") > 0.0);
}

#[test]
fn bad_queues_are_refused_naming_the_field() {
    let bad = |link: Value, extra: Value| {
        let mut v = json!({
            "duration": "1s",
            "link": {"capacity": "10Mbps", "delay": "1ms", "buffer": "50pkt"},
            "flows": [{"count": 1, "rtt": "10ms"}],
        });
        for (k, x) in link.as_object().unwrap() {
            v["link"][k] = x.clone();
        }
        for (k, x) in extra.as_object().unwrap() {
            v[k] = x.clone();
        }
        let e = from_json(&v).expect_err("refused");
        (e.path, e.message)
    };
    let none = json!({});
    let cases: Vec<(Value, Value, &str, &str)> = vec![
        (json!({"queues": []}), none.clone(), "link.queues", "1 to 8"),
        (
            json!({"queues": [{"class": 8}]}),
            none.clone(),
            "link.queues[0].class",
            "between 0 and 7",
        ),
        (
            json!({"queues": [{"class": 1}, {"class": 1}]}),
            none.clone(),
            "link.queues[1].class",
            "queue already",
        ),
        (
            json!({"queues": [{"class": 0, "weight": 2}]}),
            none.clone(),
            "link.queues[0].weight",
            "dwrr",
        ),
        (
            json!({"scheduler": "dwrr", "queues": [{"class": 0, "weight": 0}]}),
            none.clone(),
            "link.queues[0].weight",
            "between 1 and 1000",
        ),
        (
            json!({"scheduler": "wfq", "queues": [{"class": 0}]}),
            none.clone(),
            "link.scheduler",
            "strict, dwrr",
        ),
        (
            json!({"scheduler": "dwrr"}),
            none.clone(),
            "link.scheduler",
            "link.queues",
        ),
        (
            json!({"queues": [{"class": 0, "qdisc": "blue"}]}),
            none.clone(),
            "link.queues[0].qdisc",
            "allowed are",
        ),
        (
            json!({"queues": [{"class": 0, "buffer": "0pkt"}]}),
            none.clone(),
            "link.queues[0].buffer",
            "at least one packet",
        ),
        (
            json!({"queues": [{"class": 0, "alpha": 1.0}]}),
            none.clone(),
            "link.queues[0].alpha",
            "[pool]",
        ),
        (
            json!({"queues": [{"class": 0}]}),
            json!({"flows": [{"count": 1, "rtt": "10ms", "class": 2}]}),
            "flows[0].class",
            "allowed are 0",
        ),
        (
            json!({}),
            json!({"background": [{"kind": "poisson", "rate": "1Mbps", "packet_size": "1000B", "class": 1}]}),
            "background[0].class",
            "one queue",
        ),
        (
            json!({"queues": [{"class": 0, "alpha": 1e300}]}),
            json!({"pool": {"size": "100pkt", "ports": 2}}),
            "link.queues[0].alpha",
            "at most 1000000",
        ),
        (
            json!({"queues": [{"class": 0}, {"class": 1}]}),
            json!({"pool": {"size": "100pkt", "ports": 2, "algorithm": "abm"}}),
            "pool.algorithm",
            "abm",
        ),
        (
            json!({"queues": [{"class": 0, "qdisc": "fq"}]}),
            json!({"pool": {"size": "100pkt", "ports": 2, "algorithm": "lqd"}}),
            "link.queues[0].qdisc",
            "lqd",
        ),
    ];
    for (link, extra, path, says) in cases {
        let (p, msg) = bad(link.clone(), extra.clone());
        assert_eq!(p, path, "{link} {extra}: {msg}");
        assert!(msg.contains(says), "{link} {extra}: {msg:?} lacks {says:?}");
    }
}
