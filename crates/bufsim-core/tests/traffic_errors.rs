//! Bad traffic input: every new field of a `[[flows]]` group (and
//! `output.large_flow`) is refused with its path, the value and what is allowed.

mod common;

use serde_json::{Value, json};

fn base() -> Value {
    json!({
        "duration": "10s",
        "link": {"capacity": "10Mbps", "delay": "5ms", "buffer": "50pkt"},
        "flows": [{"rtt": "20ms", "size": {"exponential": "50pkt"}, "arrival": {"load": 0.5}}],
    })
}

/// Set `flows[0].<key> = val` (or remove it when `val` is null) and expect an error at `path` containing `needle`.
fn bad(key: &str, val: Value, path: &str, needle: &str) {
    let mut v = base();
    if val.is_null() {
        v["flows"][0].as_object_mut().unwrap().remove(key);
    } else {
        v["flows"][0][key] = val.clone();
    }
    let e = common::from_json(&v)
        .err()
        .unwrap_or_else(|| panic!("{key} = {val} was accepted"));
    assert_eq!(e.path, path, "{key} = {val}: {e}");
    assert!(e.message.contains(needle), "{key} = {val}: {e}");
}

#[test]
fn sizes() {
    bad("size", json!(50), "flows[0].size", "expected");
    bad("size", json!("50"), "flows[0].size", "packets");
    bad("size", json!("0pkt"), "flows[0].size", "> 0");
    bad(
        "size",
        json!({"gamma": "5pkt"}),
        "flows[0].size",
        "unknown size law",
    );
    bad(
        "size",
        json!({"exponential": "-5pkt"}),
        "flows[0].size.exponential",
        "non-negative",
    );
    bad(
        "size",
        json!({"pareto": {"shape": 1.0, "min": "10pkt"}}),
        "flows[0].size.pareto.shape",
        "> 1",
    );
    bad(
        "size",
        json!({"pareto": {"shape": 1.5}}),
        "flows[0].size.pareto.min",
        "missing",
    );
    bad(
        "size",
        json!({"pareto": {"shape": 1.5, "min": "1pkt", "max": "9pkt"}}),
        "flows[0].size.pareto.max",
        "unknown key",
    );
    bad(
        "size",
        json!({"lognormal": {"median": "20pkt", "sigma": 0}}),
        "flows[0].size.lognormal.sigma",
        "(0, 5]",
    );
    bad(
        "size",
        json!({"uniform": ["25pkt", "3pkt"]}),
        "flows[0].size.uniform",
        "lo must be <= hi",
    );
    bad(
        "size",
        json!({"uniform": ["3pkt"]}),
        "flows[0].size.uniform",
        "two sizes",
    );
    bad(
        "size",
        json!({"mixture": []}),
        "flows[0].size.mixture",
        "non-empty",
    );
    bad(
        "size",
        json!({"mixture": [{"exponential": "15pkt"}]}),
        "flows[0].size.mixture[0].weight",
        "missing",
    );
    bad(
        "size",
        json!({"mixture": [{"weight": 1, "exponential": "15pkt"}, {"weight": 0, "fixed": "1pkt"}]}),
        "flows[0].size.mixture[1].weight",
        "> 0",
    );
    bad(
        "size",
        json!({"mixture": [{"weight": 1, "exponential": "15pkt", "uniform": ["1pkt", "2pkt"]}]}),
        "flows[0].size.mixture[0]",
        "exactly one law",
    );
    bad(
        "size",
        json!({"empirical": "/nonexistent/sizes.csv"}),
        "flows[0].size.empirical",
        "cannot read",
    );
}

#[test]
fn empirical_csv_contents() {
    let dir = std::env::temp_dir().join(format!("bufsim-traffic-errors-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, text, needle) in [
        ("noheader.csv", "10,0.5\n20,1\n", "header"),
        (
            "decreasing.csv",
            "size_pkts,cdf\n10,0.6\n20,0.5\n30,1\n",
            "must not decrease",
        ),
        ("notone.csv", "size_pkts,cdf\n10,0.5\n20,0.9\n", "must be 1"),
        ("text.csv", "size_bytes,cdf\n10KB,0.5\n", "two numbers"),
        ("empty.csv", "size_pkts,cdf\n", "no data rows"),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        bad(
            "size",
            json!({"empirical": path.to_str().unwrap()}),
            "flows[0].size.empirical",
            needle,
        );
    }
    let ok = dir.join("ok.csv");
    std::fs::write(&ok, "# sizes\nsize_bytes,cdf\n1500,0.5\n15000,1\n").unwrap();
    let mut v = base();
    v["flows"][0]["size"] = json!({"empirical": ok.to_str().unwrap()});
    let s = common::from_json(&v).unwrap();
    // Atom of 0.5 at 1 packet, then uniform on (1, 10] packets: mean of the
    // rounded draw 0.5 * 1 + 0.5 * 6 = 3.5 packets.
    assert!((s.flows[0].mean_size_pkts.unwrap() - 3.5).abs() < 1e-9);
}

#[test]
fn arrivals_users_think_cap() {
    bad(
        "arrival",
        json!({"rate": 20}),
        "flows[0].arrival",
        "\"20/s\"",
    );
    bad("arrival", json!({"rate": "20"}), "flows[0].arrival", "/s");
    bad(
        "arrival",
        json!({"rate": "20/day"}),
        "flows[0].arrival",
        "unknown time unit",
    );
    bad(
        "arrival",
        json!({"rate": "-2/s"}),
        "flows[0].arrival",
        "> 0",
    );
    bad("arrival", json!({"load": 0}), "flows[0].arrival", "(0, 10]");
    bad(
        "arrival",
        json!({"load": "95%"}),
        "flows[0].arrival",
        "number",
    );
    bad(
        "arrival",
        json!({"lambda": 3}),
        "flows[0].arrival",
        "unknown key",
    );
    bad(
        "arrival",
        json!({"rate": "1/s", "load": 0.5}),
        "flows[0].arrival",
        "expected",
    );
    bad("users", json!(10), "flows[0].users", "not both");
    bad("count", json!(10), "flows[0].count", "remove count");
    bad(
        "size",
        Value::Null,
        "flows[0].size",
        "needs a transfer size",
    );
    bad("think", json!("1s"), "flows[0].think", "only closed-loop");
    bad("max_active", json!(0), "flows[0].max_active", "from 1");
    bad(
        "start",
        json!({"stagger": "1s"}),
        "flows[0].start",
        "one start time",
    );
    bad(
        "start",
        json!("10s"),
        "flows[0].start",
        "not before duration",
    );
    bad(
        "connection_setup",
        json!("yes"),
        "flows[0].connection_setup",
        "boolean",
    );

    // Closed loop.
    let closed = |f: Value| {
        let mut v = base();
        v["flows"][0] = f;
        common::from_json(&v).unwrap_err()
    };
    let e = closed(json!({"rtt": "20ms", "users": 0, "think": "1s", "size": "10pkt"}));
    assert_eq!(
        (e.path.as_str(), e.message.contains("from 1")),
        ("flows[0].users", true),
        "{e}"
    );
    let e = closed(json!({"rtt": "20ms", "users": 5, "size": "10pkt"}));
    assert_eq!(e.path, "flows[0].think", "{e}");
    let e = closed(json!({"rtt": "20ms", "users": 5, "think": {"gamma": "1s"}, "size": "10pkt"}));
    assert!(
        e.path == "flows[0].think" && e.message.contains("unknown think law"),
        "{e}"
    );
    let e =
        closed(json!({"rtt": "20ms", "users": 5, "think": "1s", "size": "10pkt", "max_active": 3}));
    assert!(
        e.path == "flows[0].max_active" && e.message.contains("only open-loop"),
        "{e}"
    );
    // Persistent groups have no max_active either.
    let e = closed(json!({"rtt": "20ms", "count": 2, "max_active": 3}));
    assert_eq!(e.path, "flows[0].max_active", "{e}");
}

#[test]
fn tree_rtts_and_large_flow() {
    bad(
        "rtt",
        json!({"tree": {"nodes": 0, "min": "30ms", "max": "530ms"}}),
        "flows[0].rtt",
        "from 1",
    );
    bad(
        "rtt",
        json!({"tree": {"nodes": 18, "min": "30ms"}}),
        "flows[0].rtt",
        "tree.max: missing",
    );
    bad(
        "rtt",
        json!({"tree": {"nodes": 18, "min": "600ms", "max": "530ms"}}),
        "flows[0].rtt",
        "<= max",
    );
    bad(
        "rtt",
        json!({"tree": {"nodes": 18, "min": "30ms", "max": "530ms", "harmonic_mean": "600ms"}}),
        "flows[0].rtt",
        "not reachable",
    );
    bad(
        "rtt",
        json!({"tree": {"nodes": 18, "min": "30ms", "max": "530ms", "depth": 4}}),
        "flows[0].rtt",
        "unknown key",
    );
    bad(
        "rtt",
        json!({"tree": {"nodes": 4, "min": "5ms", "max": "530ms"}}),
        "flows[0].rtt",
        "shorter than twice link.delay",
    );
    bad("rtt", json!([]), "flows[0].rtt", "empty");
    let mut v = base();
    v["output"] = json!({"large_flow": 100000});
    let e = common::from_json(&v).unwrap_err();
    assert_eq!(e.path, "output.large_flow", "{e}");
    // A valid tree: harmonic mean reported on the group.
    let mut v = base();
    v["flows"][0]["rtt"] =
        json!({"tree": {"nodes": 18, "min": "30ms", "max": "530ms", "harmonic_mean": "60ms"}});
    let s = common::from_json(&v).unwrap();
    assert!((s.flows[0].rtt_harmonic_mean_s - 0.060).abs() < 1e-6);
}

#[test]
fn fluid_engine_refuses_finite_traffic() {
    let s = common::from_json(&base()).unwrap();
    let e = bufsim_core::fluid::check(&s).unwrap_err();
    assert_eq!(e.path, "flows[0].arrival", "{e}");
    assert!(e.message.contains("persistent flows only"), "{e}");
}
