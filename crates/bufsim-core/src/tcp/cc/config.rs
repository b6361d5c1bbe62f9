//! Congestion-control configurations: one struct per variant whose `Default`
//! holds the RFC's or paper's constants, each next to its citation. Both the
//! packet engine and the fluid engine build their controllers from these, so
//! a constant lives in exactly one place.
//!
//! [`CcConfig::from_params`] turns a scenario's `tcp` name and `tcp_params`
//! table into a config, naming the offending key on error.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::params::Params;

/// Generic AIMD(a, b): +a packets per RTT in congestion avoidance, window
/// multiplied by (1 - b) on loss. Reno is a = 1, b = 0.5.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct AimdConfig {
    /// Additive increase, packets per RTT.
    pub a: f64,
    /// Multiplicative decrease fraction (window *= 1 - b).
    pub b: f64,
}

impl Default for AimdConfig {
    fn default() -> Self {
        //= RFC 5681 section 3.1: cwnd += SMSS*SMSS/cwnd per ACK (a = 1 per RTT),
        //= ssthresh = FlightSize/2 on loss (b = 0.5).
        AimdConfig { a: 1.0, b: 0.5 }
    }
}

/// HighSpeed TCP, RFC 3649.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct HighSpeedConfig {
    /// At or below this window (packets) HSTCP behaves as standard TCP.
    pub low_window: f64,
    /// The window (packets) reached at loss rate `high_p`.
    pub high_window: f64,
    /// Loss rate at which the window is `high_window`.
    pub high_p: f64,
    /// Decrease factor b(w) at `high_window`.
    pub high_decrease: f64,
}

impl Default for HighSpeedConfig {
    fn default() -> Self {
        //= RFC 3649 section 5: Low_Window = 38, High_Window = 83000,
        //= High_P = 10^-7, High_Decrease = 0.1.
        HighSpeedConfig {
            low_window: 38.0,
            high_window: 83_000.0,
            high_p: 1e-7,
            high_decrease: 0.1,
        }
    }
}

/// Scalable TCP (Kelly, "Scalable TCP: improving performance in highspeed
/// wide area networks", CCR 2003).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ScalableConfig {
    /// Increase per ACK in congestion avoidance, packets (cwnd += a).
    pub a: f64,
    /// Decrease fraction on loss (cwnd *= 1 - b).
    pub b: f64,
    /// At or below this window (packets) the flow behaves as standard TCP.
    pub low_window: f64,
}

impl Default for ScalableConfig {
    fn default() -> Self {
        //= Kelly 2003 section 2: a = 0.01, b = 0.125; legacy behaviour below
        //= a low-window threshold (16 packets in the Linux tcp_scalable module).
        ScalableConfig {
            a: 0.01,
            b: 0.125,
            low_window: 16.0,
        }
    }
}

/// CUBIC, RFC 9438.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CubicConfig {
    /// Scaling constant C, packets / s^3.
    pub c: f64,
    /// Multiplicative decrease factor beta_cubic (window *= beta).
    pub beta: f64,
    /// Fast convergence (RFC 9438 section 4.7).
    pub fast_convergence: bool,
    /// Reno-friendly region (RFC 9438 section 4.3).
    pub reno_friendly: bool,
}

impl Default for CubicConfig {
    fn default() -> Self {
        //= RFC 9438 section 5.1: C = 0.4; section 4.6: beta_cubic = 0.7.
        CubicConfig {
            c: 0.4,
            beta: 0.7,
            fast_convergence: true,
            reno_friendly: true,
        }
    }
}

/// H-TCP (Leith and Shorten 2004; draft-leith-tcp-htcp-06).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct HtcpConfig {
    /// Time after a congestion event during which alpha = 1, seconds (Delta_L).
    pub delta_l_s: f64,
    /// Lower clamp of the adaptive backoff beta = RTTmin/RTTmax.
    pub beta_min: f64,
    /// Upper clamp of the adaptive backoff.
    pub beta_max: f64,
    /// Scale alpha by RTT / RTT_ref for RTT fairness.
    pub rtt_scaling: bool,
    /// Reference RTT of the RTT-scaling option, seconds.
    pub rtt_ref_s: f64,
}

impl Default for HtcpConfig {
    fn default() -> Self {
        //= draft-leith-tcp-htcp-06 section 3: Delta_L = 1 s;
        //= beta = RTTmin/RTTmax clamped to [0.5, 0.8]; RTT scaling to 100 ms.
        HtcpConfig {
            delta_l_s: 1.0,
            beta_min: 0.5,
            beta_max: 0.8,
            rtt_scaling: false,
            rtt_ref_s: 0.1,
        }
    }
}

/// A congestion-control variant with its parameters.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "variant", rename_all = "lowercase")]
pub enum CcConfig {
    /// Reno/NewReno (AIMD(1, 0.5) with RFC 5681 slow start).
    NewReno,
    /// Generic AIMD(a, b).
    Aimd(AimdConfig),
    /// HighSpeed TCP.
    HighSpeed(HighSpeedConfig),
    /// Scalable TCP.
    Scalable(ScalableConfig),
    /// CUBIC.
    Cubic(CubicConfig),
    /// H-TCP.
    Htcp(HtcpConfig),
}

/// Variant names a scenario may use.
pub const VARIANTS: &[&str] = &[
    "newreno",
    "reno",
    "aimd",
    "highspeed",
    "scalable",
    "cubic",
    "htcp",
];

impl CcConfig {
    /// Build the config of variant `name` from its `tcp_params`; on error,
    /// returns `(key, message)` (the key is empty when the name is unknown).
    pub fn from_params(
        name: &str,
        params: &Map<String, Value>,
    ) -> Result<CcConfig, (String, String)> {
        let mut p = Params::new(params);
        let cfg = match name {
            "newreno" | "reno" => CcConfig::NewReno,
            "aimd" => {
                let d = AimdConfig::default();
                CcConfig::Aimd(AimdConfig {
                    a: p.num("a", d.a, 1e-6, 1e6)?,
                    b: p.num("b", d.b, 1e-6, 0.999)?,
                })
            }
            "highspeed" => {
                let d = HighSpeedConfig::default();
                let c = HighSpeedConfig {
                    low_window: p.num("low_window", d.low_window, 1.0, 1e9)?,
                    high_window: p.num("high_window", d.high_window, 2.0, 1e12)?,
                    high_p: p.num("high_p", d.high_p, 1e-15, 0.5)?,
                    high_decrease: p.num("high_decrease", d.high_decrease, 0.001, 0.5)?,
                };
                if c.high_window <= c.low_window {
                    return Err((
                        "high_window".into(),
                        format!("must exceed low_window {}", c.low_window),
                    ));
                }
                CcConfig::HighSpeed(c)
            }
            "scalable" => {
                let d = ScalableConfig::default();
                CcConfig::Scalable(ScalableConfig {
                    a: p.num("a", d.a, 1e-6, 1.0)?,
                    b: p.num("b", d.b, 1e-6, 0.999)?,
                    low_window: p.num("low_window", d.low_window, 1.0, 1e9)?,
                })
            }
            "cubic" => {
                let d = CubicConfig::default();
                CcConfig::Cubic(CubicConfig {
                    c: p.num("c", d.c, 1e-6, 1e6)?,
                    beta: p.num("beta", d.beta, 0.01, 0.999)?,
                    fast_convergence: p.flag("fast_convergence", d.fast_convergence)?,
                    reno_friendly: p.flag("reno_friendly", d.reno_friendly)?,
                })
            }
            "htcp" => {
                let d = HtcpConfig::default();
                let c = HtcpConfig {
                    delta_l_s: p.num("delta_l_s", d.delta_l_s, 0.0, 1e3)?,
                    beta_min: p.num("beta_min", d.beta_min, 0.01, 0.999)?,
                    beta_max: p.num("beta_max", d.beta_max, 0.01, 0.999)?,
                    rtt_scaling: p.flag("rtt_scaling", d.rtt_scaling)?,
                    rtt_ref_s: p.num("rtt_ref_s", d.rtt_ref_s, 1e-6, 1e3)?,
                };
                if c.beta_min > c.beta_max {
                    return Err((
                        "beta_min".into(),
                        format!("must be <= beta_max {}", c.beta_max),
                    ));
                }
                CcConfig::Htcp(c)
            }
            other => {
                return Err((
                    String::new(),
                    format!(
                        "unknown TCP variant {other:?}: allowed are {}",
                        VARIANTS.join(", ")
                    ),
                ));
            }
        };
        p.finish(name)?;
        Ok(cfg)
    }
}
