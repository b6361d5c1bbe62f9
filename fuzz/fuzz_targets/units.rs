//! Any string through the unit parsers: a value or a UnitError, never a
//! panic; a parsed duration, rate or size is finite and non-negative.
#![no_main]

use bufsim_core::units;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    if let Ok(t) = units::parse_duration(text) {
        assert!(t.as_secs_f64().is_finite());
    }
    if let Ok(r) = units::parse_rate(text) {
        assert!(r.0.is_finite() && r.0 >= 0.0, "{text:?} -> {}", r.0);
    }
    let _ = units::parse_bytes(text);
    let _ = units::parse_buffer(text);
});
