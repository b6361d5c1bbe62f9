//! The scenarios the shared-pool tests (`packet_pool`, `packet_pool_algorithms`)
//! run: TCP on one port of a pool against the dumbbell, and Poisson
//! overload on several ports.

use bufsim_core::output::RunOutput;
use serde_json::{Value, json};

/// 20 NewReno flows (SACK, delayed ACKs, 1000-byte segments, RTTs 8-12 ms)
/// on port `port` of a 100 Mbps link with a pool of `size` shared by
/// `ports` ports, its other fields `pool` (`alpha`, `algorithm`), for 20 s
/// after a 4 s warm-up; or (`ports` = 0) the dumbbell with `buffer`.
pub fn tcp(ports: u32, size: &str, pool: Value, port: u32, buffer: &str) -> Value {
    let mut v = json!({
        "duration": "20s", "warmup": "4s", "seed": 3,
        "link": {"capacity": "100Mbps", "delay": "1ms"},
        "flows": [{"count": 20, "rtt": {"uniform": ["8ms", "12ms"]}, "mss": "1000B",
                   "sack": true, "delayed_ack": true}],
    });
    if ports == 0 {
        v["link"]["buffer"] = buffer.into();
    } else {
        v["pool"] = with(json!({"size": size, "ports": ports}), &pool);
        v["flows"][0]["port"] = port.into();
    }
    v
}

/// Poisson packets at `rates` (Mbps, 0: idle) on the 4 ports (100 Mbps,
/// 1000-byte packets) of a 500-packet pool with the fields `pool`
/// (`alpha`, `algorithm`), for `duration` after a 2 s warm-up.
pub fn overloaded(rates: [u32; 4], pool: Value, duration: &str) -> RunOutput {
    let bg: Vec<Value> = (0..4)
        .filter(|&k| rates[k] > 0)
        .map(|k| {
            json!({"kind": "poisson", "rate": format!("{}Mbps", rates[k]),
                   "packet_size": "1000B", "port": k})
        })
        .collect();
    super::run(&json!({
        "duration": duration, "warmup": "2s", "seed": 3,
        "link": {"capacity": "100Mbps", "delay": "1ms", "packet_size": "1000B"},
        "pool": with(json!({"size": "500pkt", "ports": 4}), &pool),
        "background": bg,
    }))
}

/// The pool table `base` with the fields of `more` set over it.
fn with(mut base: Value, more: &Value) -> Value {
    for (k, x) in more.as_object().expect("pool fields") {
        base[k] = x.clone();
    }
    base
}
