//! Units in the types: simulated time, rates, sizes, and the parsers for the
//! unit strings users write in scenarios (`"100ms"`, `"50Mbps"`, `"1500B"`).
//!
//! Simulated time is an integer number of picoseconds ([`SimTime`]), so no
//! float error accumulates over long runs; 2^64 ps is about 213 days.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// Picoseconds in one second.
pub const PS_PER_SEC: u64 = 1_000_000_000_000;

/// A point in (or a span of) simulated time, in integer picoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(pub u64);

impl SimTime {
    /// Time zero.
    pub const ZERO: SimTime = SimTime(0);
    /// The largest representable time (used as "never").
    pub const MAX: SimTime = SimTime(u64::MAX);

    /// From seconds (rounded to the nearest picosecond; negative clamps to zero).
    pub fn from_secs_f64(s: f64) -> SimTime {
        SimTime((s * PS_PER_SEC as f64).round().max(0.0) as u64)
    }
    /// From milliseconds.
    pub const fn from_millis(ms: u64) -> SimTime {
        SimTime(ms * 1_000_000_000)
    }
    /// From microseconds.
    pub const fn from_micros(us: u64) -> SimTime {
        SimTime(us * 1_000_000)
    }
    /// As seconds (for reporting only; never accumulate these).
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / PS_PER_SEC as f64
    }
    /// Picoseconds.
    pub fn as_ps(self) -> u64 {
        self.0
    }
    /// Saturating subtraction.
    pub fn saturating_sub(self, other: SimTime) -> SimTime {
        SimTime(self.0.saturating_sub(other.0))
    }
    /// Multiply a span by an integer factor (saturating).
    pub fn times(self, k: u64) -> SimTime {
        SimTime(self.0.saturating_mul(k))
    }
}

impl Add for SimTime {
    type Output = SimTime;
    fn add(self, o: SimTime) -> SimTime {
        SimTime(self.0.saturating_add(o.0))
    }
}
impl AddAssign for SimTime {
    fn add_assign(&mut self, o: SimTime) {
        self.0 = self.0.saturating_add(o.0);
    }
}
impl Sub for SimTime {
    type Output = SimTime;
    fn sub(self, o: SimTime) -> SimTime {
        SimTime(self.0 - o.0)
    }
}
impl fmt::Display for SimTime {
    /// Displays as seconds with microsecond precision, e.g. `5.674000s`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.6}s", self.as_secs_f64())
    }
}

/// Serialize a [`SimTime`] as float seconds (the `_s` fields of the
/// normalized scenario JSON).
pub(crate) fn ser_secs<S: serde::Serializer>(t: &SimTime, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(t.as_secs_f64())
}

/// Serialize an optional [`SimTime`] as float seconds or null.
pub(crate) fn ser_opt_secs<S: serde::Serializer>(
    t: &Option<SimTime>,
    s: S,
) -> Result<S::Ok, S::Error> {
    match t {
        Some(t) => ser_secs(t, s),
        None => s.serialize_none(),
    }
}

/// Serialize a list of [`SimTime`]s as float seconds.
pub(crate) fn ser_secs_vec<S: serde::Serializer>(t: &[SimTime], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(t.iter().map(|x| x.as_secs_f64()))
}

/// A link rate in bits per second.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
pub struct BitsPerSec(pub f64);

impl BitsPerSec {
    /// Serialization time of `bytes` at this rate, rounded up to the next picosecond.
    pub fn tx_time(self, bytes: u32) -> SimTime {
        let ps = (bytes as f64 * 8.0 * PS_PER_SEC as f64 / self.0).ceil();
        SimTime(ps as u64)
    }
}

/// A parse failure: what was wrong with the string (the caller adds the field path).
#[derive(Debug, Clone, PartialEq)]
pub struct UnitError(pub String);

impl fmt::Display for UnitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Split `"12.5ms"` into `(12.5, "ms")`. Whitespace between number and unit is allowed.
fn split_number(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let end = s
        .char_indices()
        .find(|&(_, c)| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+'))
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    // Scientific notation such as "1e-3s": the exponent follows the mantissa.
    let (num, rest) = s.split_at(end);
    let (num, rest) = match rest.strip_prefix(['e', 'E']) {
        Some(after) if after.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '+') => {
            let exp_end = after
                .char_indices()
                .skip(1)
                .find(|&(_, c)| !c.is_ascii_digit())
                .map(|(i, _)| i)
                .unwrap_or(after.len());
            let full = &s[..num.len() + 1 + exp_end];
            (full, &after[exp_end..])
        }
        _ => (num, rest),
    };
    let v: f64 = num.parse().ok()?;
    if !v.is_finite() {
        return None;
    }
    Some((v, rest.trim()))
}

/// Parse a duration such as `"100ms"`, `"1.5s"`, `"20us"`, `"3ns"`, `"2min"`.
pub fn parse_duration(s: &str) -> Result<SimTime, UnitError> {
    let bad = || {
        UnitError(format!(
            "invalid duration {s:?}: expected a non-negative number with a unit ps, ns, us, ms, s or min (e.g. \"100ms\")"
        ))
    };
    let (v, unit) = split_number(s).ok_or_else(bad)?;
    let scale = match unit {
        "ps" => 1e-12,
        "ns" => 1e-9,
        "us" | "µs" => 1e-6,
        "ms" => 1e-3,
        "s" => 1.0,
        "min" => 60.0,
        _ => return Err(bad()),
    };
    if v < 0.0 {
        return Err(bad());
    }
    // Simulated time is u64 picoseconds: refuse, rather than saturate, a
    // duration it cannot hold.
    if v * scale >= SimTime::MAX.as_secs_f64() {
        return Err(UnitError(format!(
            "duration {s:?} is longer than the longest time bufsim represents ({:.0}s, about 213 days)",
            SimTime::MAX.as_secs_f64()
        )));
    }
    Ok(SimTime::from_secs_f64(v * scale))
}

/// Parse a rate such as `"50Mbps"`, `"10Gbps"`, `"1.5kbps"`, `"9600bps"` (decimal prefixes).
pub fn parse_rate(s: &str) -> Result<BitsPerSec, UnitError> {
    let bad = || {
        UnitError(format!(
            "invalid rate {s:?}: expected a non-negative number with a unit bps, kbps, Mbps, Gbps or Tbps (e.g. \"50Mbps\")"
        ))
    };
    let (v, unit) = split_number(s).ok_or_else(bad)?;
    let scale = match unit {
        "bps" => 1.0,
        "kbps" | "Kbps" => 1e3,
        "Mbps" => 1e6,
        "Gbps" => 1e9,
        "Tbps" => 1e12,
        _ => return Err(bad()),
    };
    if v < 0.0 {
        return Err(bad());
    }
    Ok(BitsPerSec(v * scale))
}

/// Parse a byte size such as `"1500B"`, `"64KB"` (10^3), `"1KiB"` (2^10), `"1MB"`.
pub fn parse_bytes(s: &str) -> Result<u64, UnitError> {
    bytes(s).map_err(|e| match e {
        CountError::Unit => UnitError(format!(
            "invalid size {s:?}: expected a non-negative number with a unit B, KB, KiB, MB, MiB, GB or GiB (e.g. \"1500B\")"
        )),
        CountError::OutOfRange(n) => out_of_range(s, n, "bytes"),
    })
}

/// Why a count (of bytes) was refused: the caller words it.
#[derive(Debug, Clone, Copy, PartialEq)]
enum CountError {
    /// Not a non-negative number with a byte unit.
    Unit,
    /// Past [`MAX_COUNT`]: the count.
    OutOfRange(f64),
}

/// [`parse_bytes`], its error typed.
fn bytes(s: &str) -> Result<u64, CountError> {
    let (v, unit) = split_number(s).ok_or(CountError::Unit)?;
    let scale = match unit {
        "B" => 1.0,
        "KB" | "kB" => 1e3,
        "KiB" => 1024.0,
        "MB" => 1e6,
        "MiB" => 1024.0 * 1024.0,
        "GB" => 1e9,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        _ => return Err(CountError::Unit),
    };
    if v < 0.0 {
        return Err(CountError::Unit);
    }
    let bytes = (v * scale).round();
    if bytes > MAX_COUNT {
        return Err(CountError::OutOfRange(bytes));
    }
    Ok(bytes as u64)
}

/// The largest packet or byte count a quantity may give: past it a count
/// means nothing here, and `as u64` would saturate silently.
const MAX_COUNT: f64 = 1e15;

/// The refusal of `s`, a count of `n` (past [`MAX_COUNT`]) `what`
/// (packets or bytes): `"1e30pkt" is 1 x 10^30 packets, out of range: ...`.
fn out_of_range(s: &str, n: f64, what: &str) -> UnitError {
    UnitError(format!(
        "{s:?} is {} {what}, out of range: a count of packets or bytes must be at most 10^15",
        power_of_ten(n)
    ))
}

/// `n` (>= 1) as `m x 10^e`, `m` to one decimal (`8.3 x 10^16`, `1 x 10^30`),
/// as the Python front writes large numbers (no e-notation).
fn power_of_ten(n: f64) -> String {
    let mut e = n.log10().floor() as i32;
    let mut m = (n / 10f64.powi(e) * 10.0).round() / 10.0;
    if m >= 10.0 {
        (m, e) = (m / 10.0, e + 1);
    }
    format!("{m} x 10^{e}")
}

/// A buffer size as the user wrote it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BufferSize {
    /// A number of packets (`"20pkt"`).
    Packets(u64),
    /// A number of bytes (`"30000B"`, `"64KB"`).
    Bytes(u64),
    /// A fraction of the bandwidth-delay product (`"0.2BDP"`).
    Bdp(f64),
    /// The bytes a link sends in this time at its rate (`"10us"`, `"5ms"`:
    /// how switch vendors quote buffers).
    Time(SimTime),
}

/// Parse a buffer size: `"20pkt"`, `"30000B"` (any [`parse_bytes`] unit),
/// `"0.2BDP"` or a time of line rate (`"10us"`, `"5ms"`: ns, us, ms or s).
pub fn parse_buffer(s: &str) -> Result<BufferSize, UnitError> {
    let bad = || {
        UnitError(format!(
            "invalid buffer size {s:?}: expected packets (\"20pkt\"), bytes (\"30000B\", \"64KB\", \"32MiB\"), a fraction of the bandwidth-delay product (\"0.2BDP\") or a time at line rate (\"10us\", \"5ms\")"
        ))
    };
    let (v, unit) = split_number(s).ok_or_else(bad)?;
    if v < 0.0 {
        return Err(bad());
    }
    match unit {
        "pkt" | "pkts" | "packets" => {
            if v.fract() != 0.0 {
                return Err(UnitError(format!(
                    "invalid buffer size {s:?}: a packet count must be a whole number"
                )));
            }
            if v > MAX_COUNT {
                return Err(out_of_range(s, v, "packets"));
            }
            Ok(BufferSize::Packets(v as u64))
        }
        "BDP" => Ok(BufferSize::Bdp(v)),
        "ns" | "us" | "µs" | "ms" | "s" => parse_duration(s).map(BufferSize::Time),
        // A byte count past its range keeps its message; any other error is
        // not a unit this field takes.
        _ => bytes(s).map(BufferSize::Bytes).map_err(|e| match e {
            CountError::OutOfRange(n) => out_of_range(s, n, "bytes"),
            CountError::Unit => bad(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_past_their_range_are_refused_not_saturated() {
        for (s, n) in [
            ("1e30pkt", "1 x 10^30 packets"),
            ("1e30B", "1 x 10^30 bytes"),
            ("1e20GB", "1 x 10^29 bytes"),
            ("8.34e16pkt", "8.3 x 10^16 packets"),
            ("9.99e15B", "1 x 10^16 bytes"),
        ] {
            let e = parse_buffer(s).unwrap_err().0;
            assert_eq!(
                e,
                format!(
                    "{s:?} is {n}, out of range: a count of packets or bytes must be at most 10^15"
                )
            );
        }
        // The same refusal of a byte count where only bytes are taken.
        assert_eq!(
            parse_bytes("1e30B").unwrap_err(),
            parse_buffer("1e30B").unwrap_err()
        );
        assert!(
            parse_buffer("1e30Mbps")
                .unwrap_err()
                .0
                .starts_with("invalid buffer size")
        );
        assert_eq!(
            parse_buffer("1e15pkt").unwrap(),
            BufferSize::Packets(1_000_000_000_000_000)
        );
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("100ms").unwrap(), SimTime::from_millis(100));
        assert_eq!(parse_duration("1.5s").unwrap(), SimTime::from_millis(1500));
        assert_eq!(parse_duration("20us").unwrap(), SimTime::from_micros(20));
        assert_eq!(parse_duration("1e-3s").unwrap(), SimTime::from_millis(1));
        assert_eq!(
            parse_duration("2min").unwrap(),
            SimTime::from_millis(120_000)
        );
        assert!(parse_duration("100").is_err());
        assert!(parse_duration("-1s").is_err());
        assert!(parse_duration("1 parsec").is_err());
        assert!(parse_duration("").is_err());
        // Beyond u64 picoseconds: an error naming the limit, not a silent cap.
        let e = parse_duration("1e9s").unwrap_err().0;
        assert!(e.contains("213 days"), "{e}");
        assert!(parse_duration("200days").is_err());
        assert_eq!(
            parse_duration("100000s").unwrap(),
            SimTime::from_millis(100_000_000)
        );
    }

    #[test]
    fn rates_and_sizes() {
        assert_eq!(parse_rate("50Mbps").unwrap(), BitsPerSec(50e6));
        assert_eq!(parse_rate("10Gbps").unwrap(), BitsPerSec(10e9));
        assert!(parse_rate("50MB").is_err());
        assert_eq!(parse_bytes("1500B").unwrap(), 1500);
        assert_eq!(parse_bytes("1KiB").unwrap(), 1024);
        assert_eq!(parse_buffer("20pkt").unwrap(), BufferSize::Packets(20));
        assert_eq!(parse_buffer("0.2BDP").unwrap(), BufferSize::Bdp(0.2));
        assert_eq!(parse_buffer("30000B").unwrap(), BufferSize::Bytes(30000));
        assert_eq!(
            parse_buffer("10us").unwrap(),
            BufferSize::Time(SimTime::from_micros(10))
        );
        assert_eq!(
            parse_buffer("32MiB").unwrap(),
            BufferSize::Bytes(33_554_432)
        );
        assert!(parse_buffer("2min").is_err());
        assert!(parse_buffer("2.5pkt").is_err());
        assert!(parse_buffer("20").is_err());
    }

    #[test]
    fn tx_time_is_exact_for_round_rates() {
        // 1000 B at 1 Gbps = 8000 ns; 1500 B at 10 Gbps = 1.2 us.
        assert_eq!(BitsPerSec(1e9).tx_time(1000), SimTime(8_000_000));
        assert_eq!(BitsPerSec(10e9).tx_time(1500), SimTime(1_200_000));
    }
}
