//! `output.stop`: a run that ends once its verdicts are known. A stopped run
//! is the run to its end time, bit for bit; its halves are its batches';
//! a run stops on the wrong side of a bound no more often than the stop
//! rule's confidence allows; bad values name the field.

mod common;

use bufsim_core::{fluid, packet};
use serde_json::{Value, json};

fn base(seed: u64, buffer: &str, output: Value) -> Value {
    json!({
        "duration": "40s", "warmup": "5s", "seed": seed,
        "link": {"capacity": "10Mbps", "delay": "5ms", "buffer": buffer},
        "flows": [{"count": 10, "tcp": "newreno", "rtt": {"uniform": ["20ms", "100ms"]},
                   "start": {"uniform": ["0s", "1s"]}}],
        "output": output,
    })
}

fn run(v: &Value) -> bufsim_core::output::RunOutput {
    packet::run(&common::from_json(v).expect("valid"), &mut |_| true)
}

fn stop(bound: f64, confidence: f64) -> Value {
    json!({"halves": true, "stop": {
        "decide": [{"metric": "utilization", "op": ">=", "bound": bound}],
        "batches": 10, "min_batches": 4, "confidence": confidence}})
}

#[test]
fn a_stopped_run_is_the_run_to_its_end_and_its_halves_its_batches() {
    // 1 BDP: the link stays busy, utilization >= 0.9 is known at once.
    let s = base(2, "1BDP", stop(0.9, 0.95));
    let a = run(&s);
    let m = |o: &bufsim_core::output::RunOutput, k: &str| o.metric(k).unwrap_or(f64::NAN);
    assert_eq!(m(&a, "stopped_early"), 1.0);
    assert_eq!(m(&a, "batches_run"), 4.0);
    // Batches of 3.5 s after a 5 s warm-up: the fourth ends at 19 s.
    assert_eq!(m(&a, "end_s"), 19.0);
    let mut b = s.clone();
    b["duration"] = json!("19s");
    b["output"] = json!({});
    let b = run(&b);
    for (k, v) in &b.summary {
        let w = m(&a, k);
        if k == "events" {
            // The boundaries at 8.5, 12, 15.5 and 19 s are events too.
            assert_eq!(w, v + 4.0);
        } else {
            assert_eq!(w.to_bits(), v.to_bits(), "{k}: {w} vs {v}");
        }
    }
    // The first half is the first two batches: the run to 12 s.
    let mut c = s.clone();
    c["duration"] = json!("12s");
    c["output"] = json!({});
    let c = run(&c);
    for k in ["utilization", "drop_rate", "mean_queue_pkts", "goodput_bps"] {
        let (h, w) = (m(&a, &format!("{k}_half1")), m(&c, k));
        assert!((h - w).abs() <= 1e-9 * w.abs().max(1.0), "{k}: {h} vs {w}");
    }
}

#[test]
fn a_close_verdict_runs_to_the_end() {
    // At a confidence this high the t interval of a noisy metric always
    // holds the bound: the run measures its whole window.
    let a = run(&base(2, "0.1BDP", stop(0.9, 1.0 - 1e-12)));
    assert_eq!(a.metric("stopped_early"), Some(0.0));
    assert_eq!(a.metric("batches_run"), Some(10.0));
    assert_eq!(a.metric("end_s"), Some(40.0));
}

#[test]
fn runs_stop_on_the_wrong_side_no_more_often_than_the_confidence_allows() {
    // 40 seeds at 0.1 BDP, where utilization varies from run to run. The
    // truth is the mean over the seeds' full runs; the bound sits just
    // below it, so that many runs' first batches straddle it.
    let seeds = 1..=40u64;
    let full: Vec<f64> = seeds
        .clone()
        .map(|k| {
            run(&base(k, "0.1BDP", json!({})))
                .metric("utilization")
                .unwrap()
        })
        .collect();
    let truth = full.iter().sum::<f64>() / full.len() as f64;
    let sd = (full.iter().map(|u| (u - truth).powi(2)).sum::<f64>() / 39.0).sqrt();
    let bound = truth - sd;
    let (mut stopped, mut wrong) = (0, 0);
    for k in seeds {
        let a = run(&base(k, "0.1BDP", stop(bound, 0.9)));
        if a.metric("stopped_early") == Some(1.0) {
            stopped += 1;
            // Stopped: the window so far says "fails", the truth "holds".
            wrong += usize::from(a.metric("utilization").unwrap() < bound);
        }
    }
    // At confidence 0.9 each run errs with probability <= 0.1 (the stop
    // rule's guarantee): 4 of 40 expected at most; 9 or more has
    // probability 0.8% under Binomial(40, 0.1).
    eprintln!("{stopped} of 40 stopped, {wrong} on the wrong side; bound {bound:.4}");
    assert!(
        stopped >= 10,
        "{stopped} runs stopped: the test checks too few"
    );
    assert!(
        wrong <= 8,
        "{wrong} of {stopped} stopped runs on the wrong side"
    );
}

#[test]
fn bad_stop_rules_name_the_field_and_the_fluid_engine_refuses_one() {
    let bad = |stop: Value| {
        let v = base(1, "1BDP", json!({ "stop": stop }));
        common::from_json(&v).unwrap_err()
    };
    let d = json!([{"metric": "utilization", "op": ">=", "bound": 0.9}]);
    let e = bad(json!({"decide": d, "batches": 1}));
    assert_eq!(e.path, "output.stop.batches");
    let e = bad(json!({"decide": d, "min_batches": 11}));
    assert_eq!(e.path, "output.stop.min_batches");
    assert!(e.to_string().contains("got 11"), "{e}");
    let e = bad(json!({"decide": d, "confidence": 1.0}));
    assert_eq!(e.path, "output.stop.confidence");
    let e = bad(json!({"decide": []}));
    assert_eq!(e.path, "output.stop.decide");
    let e = bad(json!({"decide": [{"metric": "jain_index", "op": ">=", "bound": 0.9}]}));
    assert_eq!(e.path, "output.stop.decide[0].metric");
    assert!(e.to_string().contains("utilization"), "{e}");
    let e = bad(json!({"decide": [{"metric": "goodput_bps_group1", "op": ">=", "bound": 1}]}));
    assert_eq!(e.path, "output.stop.decide[0].metric");
    let e = bad(json!({"decide": [{"metric": "utilization", "op": ">", "bound": 0.9}]}));
    assert_eq!(e.path, "output.stop.decide[0].op");
    let e = bad(json!({"decide": d, "when": 3}));
    assert!(e.path.starts_with("output.stop"), "{}", e.path);
    let ok = json!({"stop": {"decide": d}});
    let ok = common::from_json(&base(1, "1BDP", ok)).unwrap();
    assert_eq!(fluid::check(&ok).unwrap_err().path, "output.stop");
}
