//! Flow-size distributions of finite TCP transfers.
//!
//! Sizes are counted in packets (segments) of the flow group's `mss`: a size
//! given in bytes (`"100KB"`) is divided by `mss`, and every draw is rounded
//! *up* to a whole number of packets, at least one (the engine sends
//! full-sized segments only). Means used for offered load are means of the
//! rounded draw, `E[max(1, ceil X)] = 1 + sum_{k>=1} P(X > k)`, exact where a
//! closed form exists (fixed, uniform, exponential, empirical) and summed
//! with an integral tail otherwise (Pareto, lognormal).
//!
//! Schema (`[[flows]] size = ...`):
//! * `"50pkt"` / `"100KB"`: fixed;
//! * `{exponential = "50pkt"}`: exponential with that mean;
//! * `{pareto = {shape = 1.2, min = "10pkt"}}`: Pareto, `P(X > x) = (min/x)^shape`,
//!   shape > 1 (a finite mean is needed for offered load);
//! * `{lognormal = {median = "20pkt", sigma = 1.0}}`: `ln X ~ N(ln median, sigma^2)`;
//! * `{uniform = ["3pkt", "25pkt"]}`: a whole number of packets, uniform on
//!   `[ceil(lo), floor(hi)]` (paper 002's mice: 3 to 25 packets);
//! * `{mixture = [{weight = 0.7, exponential = "15pkt"}, ...]}`: one component
//!   per entry, drawn with probability weight / sum of weights;
//! * `"dhamdhere2006"`: paper 002 section 4.2's three exponentials (below);
//! * `"websearch"`, `"datamining"`: the datacenter flow sizes of the DCTCP
//!   and VL2 measurements, as empirical CDFs in bytes (below);
//! * `{empirical = "sizes.csv"}`: a CDF from a CSV file (see [`read_cdf_csv`]).

use rand::RngExt;
use rand_distr::{Distribution, StandardNormal};
use serde::Serialize;
use serde_json::Value;

use crate::engine::rng::Rng;
use crate::units;

/// A flow-size distribution, in packets of the group's `mss` (before rounding up).
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SizeDist {
    /// Always this many packets.
    Fixed {
        /// The size, packets.
        pkts: f64,
    },
    /// Exponential with this mean.
    Exponential {
        /// The mean, packets.
        mean_pkts: f64,
    },
    /// Pareto: `P(X > x) = (min/x)^shape` for `x >= min`.
    Pareto {
        /// The shape (tail index), dimensionless.
        shape: f64,
        /// The scale `min`, the smallest size, packets.
        min_pkts: f64,
    },
    /// Lognormal: `ln X ~ N(ln median, sigma^2)`.
    Lognormal {
        /// The median, packets.
        median_pkts: f64,
        /// The standard deviation of `ln X`, dimensionless.
        sigma: f64,
    },
    /// Whole numbers of packets, uniform on `[lo, hi]`.
    Uniform {
        /// `lo`, packets.
        lo_pkts: u64,
        /// `hi`, packets (inclusive).
        hi_pkts: u64,
    },
    /// Components drawn with probabilities `weight` (normalized to sum 1).
    Mixture(Vec<Component>),
    /// Piecewise-linear CDF through `(pkts, cdf)` points; the first point is
    /// an atom of mass `cdf[0]`.
    Empirical {
        /// The CSV file the points were read from, as the scenario gives it,
        /// or the preset's name (`"websearch"`, `"datamining"`).
        path: String,
        /// `(size in packets, cumulative probability)`: sizes increasing,
        /// probabilities non-decreasing up to 1.
        points: Vec<(f64, f64)>,
    },
}

/// One component of a mixture.
#[derive(Clone, Debug, Serialize)]
pub struct Component {
    /// Probability of drawing this component (normalized).
    pub weight: f64,
    /// The component's distribution.
    pub dist: SizeDist,
}

//= Paper 002 (Dhamdhere and Dovrolis 2006) section 4.2: "the distribution is
//= the sum of three exponential distributions: one modeling small transfers
//= (average size: 15 packets), one for medium transfers (average size: 50
//= packets), and one for large transfers (average size: 200 packets). The
//= arrival rates of the three flow classes are adjusted so that the largest
//= 30% of the flows account for 70% of the total bytes."
//
// One equation, two free weights: we read "the largest 30% of the flows" at
// class level (the classes' rates are what is adjusted): the medium and large
// classes are 30% of the flows and carry 70% of the bytes. With w1 = 0.7,
// w2 + w3 = 0.3 and 0.7 * 15 = 0.3 * mean, mean = 35 packets and
// 50 w2 + 200 w3 = 24.5, so w3 = (24.5 - 15) / 150 = 0.06333, w2 = 0.23667.
// (Reading it per flow instead, "the top 30% of draws hold 70% of bytes",
// forces weights near a single exponential: a lone exponential already gives
// 66%, an equal mix 82%.)
/// Class weights of the `"dhamdhere2006"` preset (small, medium, large).
pub const DHAMDHERE2006_WEIGHTS: [f64; 3] = [0.7, 0.3 - 0.095 / 1.5, 0.095 / 1.5];
/// Class means of the `"dhamdhere2006"` preset, packets.
pub const DHAMDHERE2006_MEANS: [f64; 3] = [15.0, 50.0, 200.0];

//= The web search workload of Alizadeh et al., "Data Center TCP (DCTCP)",
//= SIGCOMM 2010, figure 4 (flow sizes of background flows in a production
//= cluster), as datacenter simulators ship it: (bytes, CDF), read linearly
//= between points, mean 1,711,250 B. The copies read agree point for point:
//= datacenter/empirical-traffic-gen DCTCP_CDF, HKUST-SING/TrafficGenerator
//= conf/DCTCP_CDF.txt, alibaba-edu/High-Precision-Congestion-Control
//= traffic_gen/WebSearch_distribution.txt (CDF in percent). (ns-2 scripts,
//= HKUST-SING/PIAS-NS2 CDF_dctcp.tcl, ship a 1460 B packet version whose
//= first 15% are 6 packets exactly.)
/// `"websearch"`: (size in bytes, cumulative probability).
pub const WEBSEARCH_CDF_BYTES: [(f64, f64); 12] = [
    (0.0, 0.0),
    (10e3, 0.15),
    (20e3, 0.2),
    (30e3, 0.3),
    (50e3, 0.4),
    (80e3, 0.53),
    (200e3, 0.6),
    (1e6, 0.7),
    (2e6, 0.8),
    (5e6, 0.9),
    (10e6, 0.97),
    (30e6, 1.0),
];

//= The data mining workload of Greenberg et al., "VL2: A Scalable and
//= Flexible Data Center Network", SIGCOMM 2009, figure 2 (flow sizes), as
//= the same repositories ship it (datacenter/empirical-traffic-gen VL2_CDF,
//= HKUST-SING/TrafficGenerator conf/VL2_CDF.txt): (bytes, CDF), mean
//= 12,658,199 B, 11.0 MB of it from the last segment (100 MB to 1 GB).
//= (The ns-2 packet version, CDF_vl2.tcl, puts 0.99 at 100 MB, not 0.98,
//= and drops the 3.16 MB point; re-digitized curves of 17 points also
//= circulate, e.g. TritonNetworking/opera-sim datamining.csv, mean 5.0 MB.)
/// `"datamining"`: (size in bytes, cumulative probability).
pub const DATAMINING_CDF_BYTES: [(f64, f64); 13] = [
    (0.0, 0.0),
    (180.0, 0.1),
    (216.0, 0.2),
    (560.0, 0.3),
    (900.0, 0.4),
    (1100.0, 0.5),
    (1870.0, 0.6),
    (3160.0, 0.7),
    (10e3, 0.8),
    (400e3, 0.9),
    (3.16e6, 0.95),
    (100e6, 0.98),
    (1e9, 1.0),
];

const SHAPES: &str = "a size (\"50pkt\", \"100KB\"), \"dhamdhere2006\", \"websearch\", \"datamining\", {exponential = \"50pkt\"}, \
{pareto = {shape = 1.2, min = \"10pkt\"}}, {lognormal = {median = \"20pkt\", sigma = 1.0}}, \
{uniform = [\"3pkt\", \"25pkt\"]}, {mixture = [{weight = 0.7, exponential = \"15pkt\"}, ...]} \
or {empirical = \"sizes.csv\"}";

/// A parse error: the sub-path below the field (e.g. `.mixture[1].weight`) and the message.
pub type PathError = (String, String);

fn perr(sub: impl Into<String>, msg: impl Into<String>) -> PathError {
    (sub.into(), msg.into())
}

/// Parse a size string into packets of `mss` bytes: `"50pkt"` or any byte unit.
pub fn parse_pkts(v: &Value, mss: u32) -> Result<f64, String> {
    let s = match v {
        Value::String(s) => s.trim(),
        other => {
            return Err(format!(
                "expected a size with a unit such as \"50pkt\" or \"100KB\", got {other}"
            ));
        }
    };
    for suffix in ["packets", "pkts", "pkt"] {
        if let Some(num) = s.strip_suffix(suffix) {
            return match num.trim().parse::<f64>() {
                Ok(x) if x.is_finite() && x >= 0.0 => Ok(x),
                _ => Err(format!(
                    "invalid size {s:?}: expected a non-negative number of packets such as \"50pkt\""
                )),
            };
        }
    }
    let bytes = units::parse_bytes(s).map_err(|e| format!("{} or packets (\"50pkt\")", e.0))?;
    Ok(bytes as f64 / mss as f64)
}

fn positive(x: f64, what: &str) -> Result<f64, String> {
    if x.is_finite() && x > 0.0 {
        Ok(x)
    } else {
        Err(format!("{what} must be > 0, got {x}"))
    }
}

fn number(v: &Value) -> Result<f64, String> {
    v.as_f64()
        .filter(|x| x.is_finite())
        .ok_or_else(|| format!("expected a number, got {v}"))
}

impl SizeDist {
    /// Parse the `size` field of a group whose packets are `mss` bytes. An
    /// `empirical` law reads its CDF file here (the engine reads files in one
    /// place only, [`read_cdf_csv`]).
    pub fn parse(v: &Value, mss: u32) -> Result<SizeDist, PathError> {
        match v {
            Value::String(s) if s == "dhamdhere2006" => Ok(SizeDist::Mixture(
                DHAMDHERE2006_WEIGHTS
                    .iter()
                    .zip(DHAMDHERE2006_MEANS)
                    .map(|(&w, m)| Component {
                        weight: w,
                        dist: SizeDist::Exponential { mean_pkts: m },
                    })
                    .collect(),
            )),
            Value::String(s) if s == "websearch" || s == "datamining" => {
                let cdf: &[(f64, f64)] = if s == "websearch" {
                    &WEBSEARCH_CDF_BYTES
                } else {
                    &DATAMINING_CDF_BYTES
                };
                Ok(SizeDist::Empirical {
                    path: s.clone(),
                    points: cdf.iter().map(|&(b, f)| (b / mss as f64, f)).collect(),
                })
            }
            Value::String(_) => {
                let x =
                    parse_pkts(v, mss).map_err(|m| perr("", format!("{m}; or one of {SHAPES}")))?;
                positive(x, "a fixed size").map_err(|m| perr("", m))?;
                Ok(SizeDist::Fixed { pkts: x })
            }
            Value::Object(m) => {
                // A mixture entry carries `weight` beside its law; here we take the law only.
                let laws: Vec<(&String, &Value)> =
                    m.iter().filter(|(k, _)| k.as_str() != "weight").collect();
                if laws.len() != 1 {
                    return Err(perr(
                        "",
                        format!("expected a table with exactly one law, got {v}: use {SHAPES}"),
                    ));
                }
                let (k, p) = laws[0];
                let sub = format!(".{k}");
                let e = |msg: String| perr(sub.clone(), msg);
                match k.as_str() {
                    "exponential" => {
                        let mean = parse_pkts(p, mss).map_err(e)?;
                        positive(mean, "the mean").map_err(e)?;
                        Ok(SizeDist::Exponential { mean_pkts: mean })
                    }
                    "pareto" => {
                        let t = p.as_object().ok_or_else(|| {
                            e(format!(
                                "expected {{shape = 1.2, min = \"10pkt\"}}, got {p}"
                            ))
                        })?;
                        if let Some(bad) =
                            t.keys().find(|k| !["shape", "min"].contains(&k.as_str()))
                        {
                            return Err(perr(
                                format!("{sub}.{bad}"),
                                "unknown key: allowed are shape, min",
                            ));
                        }
                        let shape = t
                            .get("shape")
                            .ok_or_else(|| perr(format!("{sub}.shape"), "missing (e.g. 1.2)"))?;
                        let shape = number(shape).map_err(|m| perr(format!("{sub}.shape"), m))?;
                        if !(shape > 1.0 && shape <= 100.0) {
                            return Err(perr(
                                format!("{sub}.shape"),
                                format!("must be > 1 (finite mean) and <= 100, got {shape}"),
                            ));
                        }
                        let min = t.get("min").ok_or_else(|| {
                            perr(format!("{sub}.min"), "missing (e.g. \"10pkt\")")
                        })?;
                        let min =
                            parse_pkts(min, mss).map_err(|m| perr(format!("{sub}.min"), m))?;
                        positive(min, "min").map_err(|m| perr(format!("{sub}.min"), m))?;
                        Ok(SizeDist::Pareto {
                            shape,
                            min_pkts: min,
                        })
                    }
                    "lognormal" => {
                        let t = p.as_object().ok_or_else(|| {
                            e(format!(
                                "expected {{median = \"20pkt\", sigma = 1.0}}, got {p}"
                            ))
                        })?;
                        if let Some(bad) = t
                            .keys()
                            .find(|k| !["median", "sigma"].contains(&k.as_str()))
                        {
                            return Err(perr(
                                format!("{sub}.{bad}"),
                                "unknown key: allowed are median, sigma",
                            ));
                        }
                        let med = t.get("median").ok_or_else(|| {
                            perr(format!("{sub}.median"), "missing (e.g. \"20pkt\")")
                        })?;
                        let med =
                            parse_pkts(med, mss).map_err(|m| perr(format!("{sub}.median"), m))?;
                        positive(med, "median").map_err(|m| perr(format!("{sub}.median"), m))?;
                        let sigma = t
                            .get("sigma")
                            .ok_or_else(|| perr(format!("{sub}.sigma"), "missing (e.g. 1.0)"))?;
                        let sigma = number(sigma).map_err(|m| perr(format!("{sub}.sigma"), m))?;
                        if !(sigma > 0.0 && sigma <= 5.0) {
                            return Err(perr(
                                format!("{sub}.sigma"),
                                format!("must be in (0, 5], got {sigma}"),
                            ));
                        }
                        Ok(SizeDist::Lognormal {
                            median_pkts: med,
                            sigma,
                        })
                    }
                    "uniform" => {
                        let a = p.as_array().filter(|a| a.len() == 2).ok_or_else(|| {
                            e(format!(
                                "expected two sizes such as [\"3pkt\", \"25pkt\"], got {p}"
                            ))
                        })?;
                        let lo = parse_pkts(&a[0], mss).map_err(e)?;
                        let hi = parse_pkts(&a[1], mss).map_err(e)?;
                        let (l, h) = (lo.ceil().max(1.0) as u64, hi.floor() as u64);
                        if l > h {
                            return Err(e(format!(
                                "[{}, {}] holds no whole number of packets >= 1 (lo must be <= hi)",
                                a[0], a[1]
                            )));
                        }
                        Ok(SizeDist::Uniform {
                            lo_pkts: l,
                            hi_pkts: h,
                        })
                    }
                    "mixture" => {
                        let a = p.as_array().filter(|a| !a.is_empty()).ok_or_else(|| {
                            e(format!("expected a non-empty list of {{weight = 0.7, exponential = \"15pkt\"}} entries, got {p}"))
                        })?;
                        let mut comps = Vec::with_capacity(a.len());
                        for (i, c) in a.iter().enumerate() {
                            let at = format!("{sub}[{i}]");
                            let t = c.as_object().ok_or_else(|| {
                                perr(
                                    at.clone(),
                                    format!("expected a table with weight and a law, got {c}"),
                                )
                            })?;
                            let w = t.get("weight").ok_or_else(|| {
                                perr(format!("{at}.weight"), "missing (a number > 0)")
                            })?;
                            let w = number(w).map_err(|m| perr(format!("{at}.weight"), m))?;
                            positive(w, "weight").map_err(|m| perr(format!("{at}.weight"), m))?;
                            if t.contains_key("mixture") {
                                return Err(perr(at, "a mixture cannot contain a mixture"));
                            }
                            let dist = SizeDist::parse(c, mss)
                                .map_err(|(s, m)| (format!("{at}{s}"), m))?;
                            comps.push(Component { weight: w, dist });
                        }
                        let total: f64 = comps.iter().map(|c| c.weight).sum();
                        for c in &mut comps {
                            c.weight /= total;
                        }
                        Ok(SizeDist::Mixture(comps))
                    }
                    "empirical" => {
                        let path = p.as_str().ok_or_else(|| {
                            e(format!("expected the path of a CSV file, got {p}"))
                        })?;
                        let points = read_cdf_csv(path, mss).map_err(e)?;
                        Ok(SizeDist::Empirical {
                            path: path.to_string(),
                            points,
                        })
                    }
                    other => Err(perr(
                        "",
                        format!("unknown size law {other:?}: expected {SHAPES}"),
                    )),
                }
            }
            other => Err(perr("", format!("expected {SHAPES}, got {other}"))),
        }
    }

    /// Draw a size, packets (>= 1).
    pub fn draw(&self, rng: &mut Rng) -> u64 {
        let x = match self {
            SizeDist::Fixed { pkts } => *pkts,
            SizeDist::Exponential { mean_pkts } => -mean_pkts * (1.0 - rng.random::<f64>()).ln(),
            SizeDist::Pareto { shape, min_pkts } => {
                min_pkts * (1.0 - rng.random::<f64>()).powf(-1.0 / shape)
            }
            SizeDist::Lognormal { median_pkts, sigma } => {
                let z: f64 = StandardNormal.sample(rng);
                median_pkts * (sigma * z).exp()
            }
            SizeDist::Uniform { lo_pkts, hi_pkts } => return rng.random_range(*lo_pkts..=*hi_pkts),
            SizeDist::Mixture(c) => {
                let mut u = rng.random::<f64>();
                for comp in c {
                    if u < comp.weight {
                        return comp.dist.draw(rng);
                    }
                    u -= comp.weight;
                }
                return c.last().expect("non-empty").dist.draw(rng);
            }
            SizeDist::Empirical { points, .. } => {
                let u = rng.random::<f64>();
                let i = points.partition_point(|&(_, f)| f < u);
                if i == 0 {
                    points[0].0
                } else if i >= points.len() {
                    points[points.len() - 1].0
                } else {
                    let (x0, f0) = points[i - 1];
                    let (x1, f1) = points[i];
                    x0 + (x1 - x0) * (u - f0) / (f1 - f0)
                }
            }
        };
        // max/min, not clamp: a NaN draw becomes 1 packet instead of 0.
        #[allow(clippy::manual_clamp)]
        let pkts = x.ceil().max(1.0).min(1e15);
        pkts as u64
    }

    /// Mean of the rounded draw, packets.
    pub fn mean_pkts(&self) -> f64 {
        match self {
            SizeDist::Fixed { pkts } => pkts.ceil().max(1.0),
            //= ceil(X) for X ~ Exp(mean m) is geometric on {1, 2, ...} with
            //= success probability 1 - exp(-1/m): mean 1 / (1 - exp(-1/m)).
            SizeDist::Exponential { mean_pkts } => 1.0 / -(-1.0 / mean_pkts).exp_m1(),
            SizeDist::Uniform { lo_pkts, hi_pkts } => (*lo_pkts + *hi_pkts) as f64 / 2.0,
            SizeDist::Mixture(c) => c.iter().map(|x| x.weight * x.dist.mean_pkts()).sum(),
            SizeDist::Empirical { points, .. } => {
                let mut m = points[0].1 * points[0].0.ceil().max(1.0);
                for w in points.windows(2) {
                    let ((x0, f0), (x1, f1)) = (w[0], w[1]);
                    if f1 > f0 {
                        m += (f1 - f0) * mean_ceil_uniform(x0, x1);
                    }
                }
                m
            }
            SizeDist::Pareto { shape, min_pkts } => {
                let sf = |x: f64| {
                    if x < *min_pkts {
                        1.0
                    } else {
                        (min_pkts / x).powf(*shape)
                    }
                };
                let k = (min_pkts.ceil() + 100_000.0).max(100_000.0);
                // Tail: integral of (min/x)^a from k to infinity, minus half the
                // first term (Euler-Maclaurin), relative error < 1e-9 here.
                let tail =
                    min_pkts.powf(*shape) * k.powf(1.0 - shape) / (shape - 1.0) - 0.5 * sf(k);
                1.0 + sum_sf(sf, k as u64) + tail
            }
            SizeDist::Lognormal { median_pkts, sigma } => {
                let mu = median_pkts.ln();
                let sf = |x: f64| 0.5 * erfc((x.ln() - mu) / (sigma * std::f64::consts::SQRT_2));
                let k = 100_000.0f64.max(median_pkts * 10.0);
                // Tail: E[X; X > k] - k P(X > k), minus half the first term.
                let lk = k.ln();
                let ex = (mu + sigma * sigma / 2.0).exp()
                    * 0.5
                    * erfc((lk - mu - sigma * sigma) / (sigma * std::f64::consts::SQRT_2));
                let tail = ex - k * sf(k) - 0.5 * sf(k);
                1.0 + sum_sf(sf, k as u64) + tail
            }
        }
    }
}

/// `sum_{j=1}^{k-1} sf(j)`.
fn sum_sf(sf: impl Fn(f64) -> f64, k: u64) -> f64 {
    (1..k).map(|j| sf(j as f64)).sum()
}

/// `E[max(1, ceil U)]` for `U` uniform on `[a, b]`.
fn mean_ceil_uniform(a: f64, b: f64) -> f64 {
    // G(y) = integral_0^y ceil(x) dx = f (f + 1) / 2 + (y - f)(f + 1), f = floor(y).
    let g = |y: f64| {
        let f = y.floor();
        f * (f + 1.0) / 2.0 + (y - f) * (f + 1.0)
    };
    let a1 = a.max(0.0);
    // Below one packet every draw rounds to 1.
    let low = (1.0f64.min(b) - a1).max(0.0);
    let hi_a = a1.max(1.0);
    let high = if b > hi_a { g(b) - g(hi_a) } else { 0.0 };
    (low + high) / (b - a)
}

/// Complementary error function: Numerical Recipes' `erfcc` (a Chebyshev
/// fit; fractional error < 1.2e-7 everywhere).
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let r = t
        * (-z * z - 1.265_512_23
            + t * (1.000_023_68
                + t * (0.374_091_96
                    + t * (0.096_784_18
                        + t * (-0.186_288_06
                            + t * (0.278_868_07
                                + t * (-1.135_203_98
                                    + t * (1.488_515_87
                                        + t * (-0.822_152_23 + t * 0.170_872_77)))))))))
            .exp();
    if x >= 0.0 { r } else { 2.0 - r }
}

/// Largest CSV file accepted as an empirical size CDF (bytes).
pub const MAX_CDF_FILE_BYTES: u64 = 64 << 20;

/// Read an empirical size CDF from a CSV file.
///
/// Format: a header whose first column is `size_pkts` or `size_bytes` (the
/// unit of the sizes; bytes are divided by the group's `mss`) and whose
/// second is `cdf`; then one `size,cdf` row per point, sizes strictly
/// increasing and > 0, cdf non-decreasing in [0, 1] and ending at 1. Blank
/// lines and lines starting with `#` are skipped. Draws interpolate linearly
/// between points; the first point is an atom of mass `cdf[0]`. A relative
/// path is relative to the working directory here; `bufsim.Scenario.load`
/// makes it relative to the scenario file.
pub fn read_cdf_csv(path: &str, mss: u32) -> Result<Vec<(f64, f64)>, String> {
    // A CDF is a few thousand lines: refuse what is not a regular file
    // (/dev/zero, a FIFO, a directory) or is far larger than a CDF, instead of
    // reading until memory runs out.
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read {path:?}: {e}"))?;
    if !meta.is_file() {
        return Err(format!(
            "{path:?} is not a regular file (a CSV file is expected)"
        ));
    }
    if meta.len() > MAX_CDF_FILE_BYTES {
        return Err(format!(
            "{path:?} is {} bytes, more than the {MAX_CDF_FILE_BYTES} bytes allowed for a size CDF",
            meta.len()
        ));
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path:?}: {e}"))?;
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'));
    let (hl, header) = lines
        .next()
        .ok_or_else(|| format!("{path}: the file is empty"))?;
    let cols: Vec<&str> = header.split(',').map(str::trim).collect();
    let scale = match cols.as_slice() {
        ["size_pkts", "cdf"] => 1.0,
        ["size_bytes", "cdf"] => 1.0 / mss as f64,
        _ => {
            return Err(format!(
                "{path} line {hl}: header {header:?}: expected \"size_pkts,cdf\" or \"size_bytes,cdf\""
            ));
        }
    };
    let mut pts: Vec<(f64, f64)> = Vec::new();
    for (n, l) in lines {
        let f: Vec<&str> = l.split(',').map(str::trim).collect();
        let parsed = match f.as_slice() {
            [a, b] => a.parse::<f64>().ok().zip(b.parse::<f64>().ok()),
            _ => None,
        };
        let (x, p) = parsed
            .ok_or_else(|| format!("{path} line {n}: {l:?}: expected two numbers \"size,cdf\""))?;
        let x = x * scale;
        if !(x.is_finite() && x > 0.0) {
            return Err(format!("{path} line {n}: size must be > 0, got {l:?}"));
        }
        if !(0.0..=1.0).contains(&p) {
            return Err(format!("{path} line {n}: cdf must be in [0, 1], got {p}"));
        }
        if let Some(&(px, pp)) = pts.last()
            && (x <= px || p < pp)
        {
            return Err(format!(
                "{path} line {n}: sizes must increase and the cdf must not decrease ({l:?} after {px}, {pp})"
            ));
        }
        pts.push((x, p));
    }
    match pts.last() {
        None => Err(format!("{path}: no data rows after the header")),
        Some(&(_, p)) if (p - 1.0).abs() > 1e-9 => {
            Err(format!("{path}: the last cdf value must be 1, got {p}"))
        }
        _ => Ok(pts),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rng::{Stream, stream};
    use serde_json::json;

    fn sample_mean(d: &SizeDist, n: usize) -> f64 {
        let mut rng = stream(7, Stream::Traffic(0));
        (0..n).map(|_| d.draw(&mut rng) as f64).sum::<f64>() / n as f64
    }

    #[test]
    fn means_match_draws() {
        // 400k draws: the standard error is sd/632, under 0.5% for these laws
        // (Pareto 2.5: sd/mean = 0.45); allow 1.5% (3 standard errors).
        for v in [
            json!("20pkt"),
            json!({"exponential": "50pkt"}),
            json!({"uniform": ["3pkt", "25pkt"]}),
            json!({"pareto": {"shape": 2.5, "min": "10pkt"}}),
            json!({"lognormal": {"median": "20pkt", "sigma": 0.8}}),
            json!("dhamdhere2006"),
            json!("websearch"),
        ] {
            let d = SizeDist::parse(&v, 1500).unwrap();
            let (m, s) = (d.mean_pkts(), sample_mean(&d, 400_000));
            assert!((s / m - 1.0).abs() < 0.015, "{v}: mean {m} vs sample {s}");
        }
    }

    #[test]
    fn preset_is_paper_002() {
        let w = DHAMDHERE2006_WEIGHTS;
        assert!((w.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        let mean: f64 = w.iter().zip(DHAMDHERE2006_MEANS).map(|(a, b)| a * b).sum();
        assert!((mean - 35.0).abs() < 1e-9);
        // Medium + large: 30% of flows, 70% of bytes.
        assert!(((w[1] * 50.0 + w[2] * 200.0) / mean - 0.7).abs() < 1e-9);
    }

    #[test]
    fn datacenter_presets_have_the_published_means() {
        // Rounding a draw up to whole packets adds less than one packet:
        // the mean lies in [m, m + 1) packets, m the byte CDF's mean.
        for (name, bytes) in [("websearch", 1_711_250.0), ("datamining", 12_658_198.6)] {
            for mss in [1460, 1500, 9000] {
                let m = bytes / mss as f64;
                let got = SizeDist::parse(&json!(name), mss).unwrap().mean_pkts();
                assert!(got >= m && got < m + 1.0, "{name} mss {mss}: {got} vs {m}");
            }
        }
        // Web search's median: between 50 KB (0.4) and 80 KB (0.53),
        // 50000 + 30000 * 0.1 / 0.13 = 73,077 B, 49 packets of 1500 B.
        let d = SizeDist::parse(&json!("websearch"), 1500).unwrap();
        let mut rng = stream(7, Stream::Traffic(0));
        let mut v: Vec<u64> = (0..20_001).map(|_| d.draw(&mut rng)).collect();
        v.sort_unstable();
        assert!((47..=51).contains(&v[10_000]), "median {}", v[10_000]);
    }

    #[test]
    fn exact_ceil_means() {
        assert_eq!(
            SizeDist::parse(&json!("100KB"), 1500).unwrap().mean_pkts(),
            67.0
        );
        assert_eq!(
            SizeDist::parse(&json!({"uniform": ["3pkt", "25pkt"]}), 1500)
                .unwrap()
                .mean_pkts(),
            14.0
        );
        // U(0.5, 2.5): ceil is 1 on (0.5, 1], 2 on (1, 2], 3 on (2, 2.5]: (0.5 + 2 + 1.5) / 2 = 2.
        assert!((mean_ceil_uniform(0.5, 2.5) - 2.0).abs() < 1e-12);
        assert!((erfc(0.5) - 0.479_500_122).abs() < 1e-6);
    }

    #[test]
    fn bad_sizes_name_the_sub_field() {
        let e =
            SizeDist::parse(&json!({"pareto": {"shape": 0.9, "min": "10pkt"}}), 1500).unwrap_err();
        assert_eq!(e.0, ".pareto.shape");
        let e = SizeDist::parse(
            &json!({"mixture": [{"weight": -1, "exponential": "15pkt"}]}),
            1500,
        )
        .unwrap_err();
        assert_eq!(e.0, ".mixture[0].weight");
        let e = SizeDist::parse(&json!({"uniform": ["25pkt", "3pkt"]}), 1500).unwrap_err();
        assert_eq!(e.0, ".uniform");
        assert!(SizeDist::parse(&json!(50), 1500).is_err());
        assert!(
            SizeDist::parse(&json!({"gamma": "5pkt"}), 1500)
                .unwrap_err()
                .1
                .contains("unknown size law")
        );
    }
}
