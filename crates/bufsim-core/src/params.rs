//! Typed reads from a parameter table (`tcp_params`, `qdisc_params`): each
//! read records its key so that [`Params::finish`] can refuse unknown keys,
//! and every error is `(key, message)` naming the value and what is allowed.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::units::{self, SimTime};

/// An error: the offending key and what is wrong with it.
pub type PErr = (String, String);

/// The `Config` of a TCP variant or a queue discipline without parameters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NoParams;

/// A parameter table being read.
pub struct Params<'a> {
    map: &'a Map<String, Value>,
    used: Vec<&'static str>,
}

impl<'a> Params<'a> {
    /// Start reading `map`.
    pub fn new(map: &'a Map<String, Value>) -> Params<'a> {
        Params {
            map,
            used: Vec::new(),
        }
    }
    /// Whether the table gives `key` (a default may depend on it).
    pub fn has(&self, key: &str) -> bool {
        self.map.contains_key(key)
    }
    /// A number in `[lo, hi]`; `default` when absent.
    pub fn num(&mut self, key: &'static str, default: f64, lo: f64, hi: f64) -> Result<f64, PErr> {
        self.used.push(key);
        match self.map.get(key) {
            None => Ok(default),
            Some(Value::Number(n)) => {
                let v = n.as_f64().unwrap_or(f64::NAN);
                if (lo..=hi).contains(&v) {
                    Ok(v)
                } else {
                    Err((
                        key.into(),
                        format!("must be between {lo} and {hi}, got {v}"),
                    ))
                }
            }
            Some(other) => Err((key.into(), format!("expected a number, got {other}"))),
        }
    }
    /// The raw value of `key`, for a reader with its own forms (records
    /// the key as read).
    pub fn value(&mut self, key: &'static str) -> Option<&'a Value> {
        self.used.push(key);
        self.map.get(key)
    }
    /// A boolean; `default` when absent.
    pub fn flag(&mut self, key: &'static str, default: bool) -> Result<bool, PErr> {
        self.used.push(key);
        match self.map.get(key) {
            None => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(other) => Err((key.into(), format!("expected true or false, got {other}"))),
        }
    }
    /// A duration with a unit (`"5ms"`) in `[lo, hi]`; `default` when absent.
    pub fn dur(
        &mut self,
        key: &'static str,
        default: SimTime,
        lo: SimTime,
        hi: SimTime,
    ) -> Result<SimTime, PErr> {
        self.used.push(key);
        match self.map.get(key) {
            None => Ok(default),
            Some(Value::String(s)) => {
                let t = units::parse_duration(s).map_err(|e| (key.to_string(), e.0))?;
                if t >= lo && t <= hi {
                    Ok(t)
                } else {
                    Err((
                        key.into(),
                        format!("must be between {lo} and {hi}, got {t}"),
                    ))
                }
            }
            Some(other) => Err((
                key.into(),
                format!("expected a duration with a unit such as \"5ms\", got {other}"),
            )),
        }
    }
    /// A size with a unit (`"1500B"`) of `lo..=hi` bytes; `default` when absent.
    pub fn size(&mut self, key: &'static str, default: u32, lo: u64, hi: u64) -> Result<u32, PErr> {
        self.used.push(key);
        match self.map.get(key) {
            None => Ok(default),
            Some(Value::String(s)) => {
                let b = units::parse_bytes(s).map_err(|e| (key.to_string(), e.0))?;
                if (lo..=hi).contains(&b) {
                    Ok(b as u32)
                } else {
                    Err((
                        key.into(),
                        format!("must be between {lo}B and {hi}B, got {b}B"),
                    ))
                }
            }
            Some(other) => Err((
                key.into(),
                format!("expected a size with a unit such as \"1500B\", got {other}"),
            )),
        }
    }
    /// One of the `allowed` words; `None` when absent.
    pub fn word(&mut self, key: &'static str, allowed: &[&str]) -> Result<Option<String>, PErr> {
        self.used.push(key);
        match self.map.get(key) {
            None => Ok(None),
            Some(Value::String(s)) if allowed.contains(&s.as_str()) => Ok(Some(s.clone())),
            Some(other) => Err((
                key.into(),
                format!("expected one of {}, got {other}", allowed.join(", ")),
            )),
        }
    }
    /// Refuse any key no read asked for (`name` is the discipline or
    /// variant, for the message).
    pub fn finish(self, name: &str) -> Result<(), PErr> {
        for k in self.map.keys() {
            if !self.used.contains(&k.as_str()) {
                let allowed = if self.used.is_empty() {
                    "none".to_string()
                } else {
                    self.used.join(", ")
                };
                return Err((
                    k.clone(),
                    format!("unknown parameter for {name}: allowed are {allowed}"),
                ));
            }
        }
        Ok(())
    }
}
