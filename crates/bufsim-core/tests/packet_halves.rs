//! `output.halves`: the window metrics over each half of the statistics
//! window. The halves must add up to the whole window (they share its
//! accumulators), measure nothing else, and leave the run itself unchanged.

mod common;

use bufsim_core::{Scenario, fluid, packet};
use serde_json::json;

fn scenario(halves: bool, warmup: &str) -> Scenario {
    scenario_of("20s", halves, warmup, false)
}

/// With `delayed_ack`, the NewReno group's receivers delay their ACKs.
fn scenario_of(duration: &str, halves: bool, warmup: &str, delayed_ack: bool) -> Scenario {
    let v = json!({
        "duration": duration, "warmup": warmup, "seed": 3,
        "link": {"capacity": "50Mbps", "delay": "5ms", "buffer": "60pkt"},
        "flows": [
            {"count": 6, "tcp": "cubic", "rtt": {"uniform": ["20ms", "120ms"]}, "mss": "1000B"},
            {"count": 3, "tcp": "newreno", "rtt": "60ms", "mss": "1000B", "delayed_ack": delayed_ack},
            {"size": {"uniform": ["3pkt", "40pkt"]}, "arrival": {"load": 0.1}, "rtt": "60ms", "mss": "1000B"},
        ],
        "output": {"halves": halves},
    });
    common::from_json(&v).expect("valid scenario")
}

#[test]
fn halves_add_up_to_the_window_and_change_nothing_else() {
    for warmup in ["0s", "4s"] {
        let with = packet::run(&scenario(true, warmup), &mut |_| true);
        let without = packet::run(&scenario(false, warmup), &mut |_| true);
        let m = |k: &str| with.metric(k).unwrap_or_else(|| panic!("no {k}"));
        // The run is the same: every metric of the plain run is there,
        // bit for bit, but the event count (one more event: the halfway mark).
        for (k, v) in &without.summary {
            let w = m(k);
            if k == "events" {
                assert_eq!(w, v + 1.0);
            } else {
                assert_eq!(w.to_bits(), v.to_bits(), "{k}: {w} vs {v}");
            }
        }
        assert!(without.metric("utilization_half1").is_none());
        // Each half metric names a metric of the whole window.
        let halves: Vec<&String> = with
            .summary
            .iter()
            .map(|(k, _)| k)
            .filter(|k| k.ends_with("_half1") || k.ends_with("_half2"))
            .collect();
        assert_eq!(halves.len(), 2 * 12); // 9 window metrics + 3 groups' goodputs
        for k in halves {
            assert!(without.metric(&k[..k.len() - 6]).is_some(), "{k}");
        }
        // Equal halves: time averages and rates average to the whole
        // window's (to rounding).
        for k in [
            "utilization",
            "mean_queue_pkts",
            "goodput_bps",
            "goodput_bps_group2",
        ] {
            let (a, b) = (m(&format!("{k}_half1")), m(&format!("{k}_half2")));
            let whole = m(k);
            assert!(
                ((a + b) / 2.0 - whole).abs() <= 1e-9 * whole.abs().max(1.0),
                "{k}: ({a} + {b}) / 2 vs {whole}"
            );
        }
        // Drops and delays are counted per packet: the whole window's rate
        // and mean lie between the halves'.
        for k in ["drop_rate", "mean_queue_delay_s", "sync_mean"] {
            let (a, b) = (m(&format!("{k}_half1")), m(&format!("{k}_half2")));
            let whole = m(k);
            assert!(
                a.min(b) - 1e-12 <= whole && whole <= a.max(b) + 1e-12,
                "{k}: {whole} not between {a} and {b}"
            );
        }
        let (u1, u2) = (m("utilization_half1"), m("utilization_half2"));
        if warmup == "0s" {
            // The first half holds the flows' start (slow start from an
            // empty link, the first losses): less utilized than the second.
            assert!(u1 < u2, "{u1} {u2}");
        } else {
            // After the warm-up, a converged run: the halves agree (10 s
            // each at 50 Mbps).
            assert!((u1 - u2).abs() < 0.02, "{u1} {u2}");
        }
        // Jain's index is cos^2 of the angle between the goodput vector and
        // (1, ..., 1); the whole window's vector is the sum of the halves',
        // which lies between them, no farther from (1, ..., 1) than both:
        // J(whole) >= min(J(half1), J(half2)).
        let (j1, j2) = (m("jain_index_half1"), m("jain_index_half2"));
        assert!(m("jain_index") >= j1.min(j2) - 1e-12, "{j1} {j2}");
    }
}

/// The first half of the window is the run cut at its middle: the same
/// events up to then, and goodput credited by when a segment's
/// serialization ended, though its receiver takes it later (the packet
/// engine's receivers run the return delay behind the bottleneck, and a
/// delayed-ACK receiver may take a segment it only holds early).
///
/// But for one law: a congestion event belongs to the half it began in,
/// with every flow that loses a packet within its window (one RTT), so an
/// event that began less than an RTT before the middle may gather flows
/// after it, which the cut run, ending there, does not see.
#[test]
fn the_first_half_is_the_run_cut_at_the_middle() {
    let mut straddled = 0;
    for delayed_ack in [false, true] {
        let with = packet::run(&scenario_of("20s", true, "4s", delayed_ack), &mut |_| true);
        let cut = packet::run(&scenario_of("12s", false, "4s", delayed_ack), &mut |_| true);
        let (tw, fw) = events(&with);
        let (tc, fc) = events(&cut);
        // The cut run's events are the whole run's that began before the
        // middle, at the same times, each with the same share of flows but
        // the last, which began within an RTT (60 ms) of the cut and may
        // have gathered more in the whole run.
        let n = tc.len();
        assert!(n > 10);
        assert_eq!(tc, tw[..n], "delayed ACKs {delayed_ack}");
        assert!(tw[n] >= 12.0);
        assert_eq!(fc[..n - 1], fw[..n - 1], "delayed ACKs {delayed_ack}");
        assert!(fc[n - 1] <= fw[n - 1]);
        if fc[n - 1] < fw[n - 1] {
            assert!(tc[n - 1] > 12.0 - 0.06, "{}", tc[n - 1]);
            straddled += 1;
        }
        let mut checked = 0;
        for (k, v) in &cut.summary {
            let Some(h) = with.metric(&format!("{k}_half1")) else {
                continue;
            };
            if k == "sync_mean" {
                // The mean of the same shares, the last one excepted.
                let sum = fc.iter().sum::<f64>() - fc[n - 1] + fw[n - 1];
                assert!((h - sum / n as f64).abs() <= 1e-12, "{h} {v}");
            } else {
                assert!(
                    (h - v).abs() <= 1e-12 * v.abs(),
                    "delayed ACKs {delayed_ack}, {k}: first half {h} vs the cut run {v}"
                );
            }
            checked += 1;
        }
        assert_eq!(checked, 12);
        assert!(cut.metric("goodput_bps").unwrap() > 40e6);
    }
    // One of the two runs has a congestion event across the middle (at
    // 11.989 s, seed 3, without delayed ACKs): the exception is exercised.
    assert!(straddled >= 1);
}

/// Start times (s) and shares of flows of a run's congestion events.
fn events(r: &bufsim_core::RunOutput) -> (Vec<f64>, Vec<f64>) {
    let t = r.congestion_events.get("time_s").expect("time_s").to_vec();
    let f = r
        .congestion_events
        .get("fraction")
        .expect("fraction")
        .to_vec();
    (t, f)
}

#[test]
fn the_fluid_engine_refuses_halves_and_bad_values_name_the_field() {
    let s = scenario(true, "4s");
    let e = fluid::check(&s).unwrap_err();
    assert_eq!(e.path, "output.halves");
    assert!(e.to_string().contains("engine=\"packet\""), "{e}");
    let v = json!({
        "duration": "10s",
        "link": {"capacity": "10Mbps", "delay": "10ms", "buffer": "50pkt"},
        "flows": [{"count": 2, "rtt": "40ms"}],
        "output": {"halves": "yes"},
    });
    let e = common::from_json(&v).unwrap_err();
    assert!(e.path.starts_with("output.halves"), "{}", e.path);
}
