//! Helpers of the integration tests that run scenarios written as JSON.

#![allow(dead_code)] // each test file uses some of them

pub mod pool;

use bufsim_core::output::{RunOutput, Table};
use bufsim_core::{Scenario, packet};
use serde_json::Value;

/// `v` with `"stack": "rfc"` in every flow group (forward and reverse)
/// that names none. These tests check the engines against the theory and
/// the papers, which assume the RFCs' stack, so they pin it.
pub fn pinned(v: &Value) -> Value {
    let mut v = v.clone();
    let pin = |flows: Option<&mut Value>| {
        if let Some(Value::Array(groups)) = flows {
            for g in groups {
                if let Value::Object(g) = g {
                    g.entry("stack").or_insert_with(|| Value::from("rfc"));
                }
            }
        }
    };
    pin(v.get_mut("flows"));
    pin(v.get_mut("reverse").and_then(|r| r.get_mut("flows")));
    v
}

/// [`Scenario::from_json`] of `v` [`pinned`] to the rfc profile.
pub fn from_json(v: &Value) -> Result<Scenario, bufsim_core::ScenarioError> {
    Scenario::from_json(&pinned(v).to_string())
}

/// The scenario `v` describes (it must be valid), [`pinned`].
pub fn scenario(v: &Value) -> Scenario {
    from_json(v).expect("valid")
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
