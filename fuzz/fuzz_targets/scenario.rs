//! Any bytes as a scenario (JSON text): validation returns Ok or a
//! ScenarioError naming a field, and a valid scenario's cost estimate and
//! engine checks never panic.
#![no_main]

use bufsim_core::scenario::Scenario;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match Scenario::from_json(text) {
        Ok(s) => {
            let _ = s.to_json();
            for engine in ["packet", "fluid"] {
                let _ = bufsim_core::cost::estimate(&s, engine);
            }
            let _ = bufsim_core::packet::check(&s);
            let _ = bufsim_core::fluid::check(&s);
        }
        Err(e) => assert!(!e.to_string().is_empty()),
    }
});
