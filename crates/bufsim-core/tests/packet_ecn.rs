//! ECN (RFC 3168) with RED marking: ECN-capable flows through a RED queue
//! with `ecn = true` see marks instead of early drops and slow down just the
//! same, without retransmitting.

mod common;

use bufsim_core::packet;
use serde_json::json;

fn run(ecn: bool) -> bufsim_core::RunOutput {
    let v = json!({
        "duration": "120s",
        "warmup": "20s",
        "link": {"capacity": "20Mbps", "delay": "10ms", "buffer": "300pkt",
                 "qdisc": "red", "qdisc_params": {"min_th": 30, "max_th": 90, "ecn": ecn}},
        "flows": [{"count": 8, "rtt": {"min": "40ms", "max": "120ms"}, "mss": "1000B", "ecn": ecn}],
    });
    let s = common::from_json(&v).expect("valid");
    packet::run(&s, &mut |_| true)
}

#[test]
fn red_marks_instead_of_dropping() {
    let (plain, marked) = (run(false), run(true));
    let m = |o: &bufsim_core::RunOutput, k: &str| o.metric(k).unwrap();
    // Without ECN, RED drops early; with it, the same decisions become marks.
    assert!(
        m(&plain, "drops_early") > 100.0,
        "{}",
        m(&plain, "drops_early")
    );
    assert_eq!(m(&marked, "drops_early"), 0.0);
    // The marks still control the queue: the average stays between the
    // thresholds region (below max_th = 90) and the link stays busy. RED
    // with ECN should do at least as well as with drops; 2% slack for noise.
    assert!(m(&marked, "mean_queue_pkts") < 90.0);
    assert!(m(&marked, "utilization") >= m(&plain, "utilization") - 0.02);
    // No loss, hence (almost) no retransmission: only forced/overflow drops remain.
    let retx = |o: &bufsim_core::RunOutput| o.flows.get("retransmits").unwrap().iter().sum::<f64>();
    // The senders answered the marks (RFC 3168 section 6.1.2), at most once per window.
    let ecn =
        |o: &bufsim_core::RunOutput| o.flows.get("ecn_reductions").unwrap().iter().sum::<f64>();
    assert_eq!(ecn(&plain), 0.0);
    assert!(ecn(&marked) > 50.0, "{}", ecn(&marked));
    // After the warm-up the marked run drops nothing at all; its few drops
    // are slow-start overshoots before RED's average catches up, and every
    // retransmission repairs one of them (none is spurious).
    let dropped_after_warmup =
        m(&marked, "drops_early") + m(&marked, "drops_forced") + m(&marked, "drops_overflow");
    assert_eq!(dropped_after_warmup, 0.0);
    assert!(retx(&marked) <= m(&marked, "packets_dropped"));
    // Measured: 224 vs 1549 retransmissions (1532 packets dropped without
    // ECN, 224 with it, all in the warm-up).
    assert!(
        retx(&marked) < retx(&plain) / 5.0,
        "{} vs {}",
        retx(&marked),
        retx(&plain)
    );
}
