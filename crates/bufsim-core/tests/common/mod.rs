//! Helpers of the integration tests that run scenarios written as JSON.

#![allow(dead_code)] // each test file uses some of them

use bufsim_core::output::{RunOutput, Table};
use bufsim_core::{Scenario, packet};
use serde_json::Value;

/// The scenario `v` describes (it must be valid).
pub fn scenario(v: &Value) -> Scenario {
    Scenario::from_json(&v.to_string()).expect("valid")
}

/// The packet engine's run of scenario `v`.
pub fn run(v: &Value) -> RunOutput {
    packet::run(&scenario(v), &mut |_| true)
}

/// Summary metric `k` of `o` (it must be there).
pub fn m(o: &RunOutput, k: &str) -> f64 {
    o.metric(k).unwrap_or_else(|| panic!("no {k}"))
}

/// The table's values bit for bit (a NaN equals itself).
pub fn bits(t: &Table) -> Vec<(String, Vec<u64>)> {
    t.columns
        .iter()
        .map(|(k, v)| (k.clone(), v.iter().map(|x| x.to_bits()).collect()))
        .collect()
}
