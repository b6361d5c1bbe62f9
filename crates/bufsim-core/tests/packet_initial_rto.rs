//! `flows[].initial_rto`: the retransmission timeout before the first RTT
//! sample, for data and for the first SYN (RFC 6298 (2.1) says 1 s; the
//! ns3 profile's SYN waits ns-3.37's `ConnTimeout`, 3 s).

mod common;

use common::{from_json, m, run};
use serde_json::{Value, json};

/// One flow of the ns3 profile over a 1 ms round trip, every packet lost
/// (random loss 0.999999: no packet passes in these 100 ms at seed 1),
/// with `extra` set on the group.
fn lost(extra: Value) -> Value {
    let mut g = json!({"count": 1, "tcp": "newreno", "rtt": "1ms", "stack": "ns3",
                       "min_rto": "1ms", "loss": 0.999999});
    g.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    json!({"duration": "100ms", "seed": 1,
           "link": {"capacity": "1Gbps", "delay": "0.25ms", "buffer": "100pkt"},
           "flows": [g]})
}

/// A first window that is all lost is resent on `initial_rto`, 10 ms, and
/// then on its doublings: timeouts at 10, 30 and 70 ms (the next at 150 ms
/// is past the 100 ms run), three in all; without the field the first RTO
/// is RFC 6298 (2.1)'s 1 s, none in 100 ms. The same holds for a lost SYN,
/// whose first wait is `initial_rto` instead of the profile's 3 s.
#[test]
fn a_lost_first_window_is_resent_at_the_initial_rto() {
    for setup in [false, true] {
        let base = json!({"connection_setup": setup});
        let mut with = base.clone();
        with["initial_rto"] = "10ms".into();
        let (before, after) = (run(&lost(base)), run(&lost(with)));
        assert_eq!(m(&before, "timeouts"), 0.0, "connection_setup {setup}");
        assert_eq!(m(&after, "timeouts"), 3.0, "connection_setup {setup}");
    }
}

/// Unset, the normalized group has no `initial_rto_s` (a scenario without
/// it normalizes as before); set, it is there in seconds.
#[test]
fn the_field_is_normalized_only_when_set() {
    let group = |extra: Value| {
        let s = from_json(&lost(extra)).unwrap();
        let v: Value = serde_json::from_str(&s.to_json()).unwrap();
        v["flows"][0].clone()
    };
    assert!(group(json!({})).get("initial_rto_s").is_none());
    assert_eq!(group(json!({"initial_rto": "10ms"}))["initial_rto_s"], 0.01);
}

/// Outside 1 ms to 60 s the field is refused by name, value and range.
#[test]
fn the_initial_rto_is_checked_by_field() {
    for bad in ["0.5ms", "61s"] {
        let e = from_json(&lost(json!({"initial_rto": bad})))
            .unwrap_err()
            .to_string();
        assert!(e.contains("flows[0].initial_rto"), "{e}");
        assert!(e.contains("at least 1ms and at most 60s"), "{e}");
    }
}
