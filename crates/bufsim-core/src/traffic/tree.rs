//! Paper 002 section 4.1's binary-tree topology, reduced to what matters at
//! the target link: the round-trip times of its source nodes.
//!
//!= Paper 002 section 4.1: "18 source nodes arranged in the form of a
//!= balanced binary tree ... heterogeneous RTTs ranging from 30ms to 530ms,
//!= with an effective RTT of T_eff = 60ms" (the harmonic mean), and "the
//!= capacities and buffers of the access links are sufficiently large to
//!= avoid losses or significant queueing delays in those links".
//!
//! Since the tree's links never queue or drop, a source node matters only
//! through its propagation RTT. The paper does not give the tree's link
//! delays, so the node RTTs follow one documented curve: node k of n (heap
//! order, k = 0 the root, next to the target link, k = n - 1 the deepest
//! leaf) has `RTT_k = min + (max - min) (k / (n - 1))^p`. Without
//! `harmonic_mean`, p = 1 (evenly spaced); with it, p is solved (bisection)
//! so that the harmonic mean of the node RTTs equals it. Each flow picks a
//! source node uniformly at random, so the harmonic mean of the flows' RTTs
//! is the nodes' one. Paper 002's numbers (18, 30 ms, 530 ms, 60 ms) give
//! p = 3.59: RTTs 30.0, 30.0, 30.2, 31.0, 32.8, 36.2, 41.8, 50.6, 63.3, 80.9,
//! 104, 135, 173, 221, 279, 349, 432 and 530 ms (arithmetic mean 135 ms).

use serde_json::Value;

use crate::units::{self, SimTime};

/// `rtt = {tree = {nodes = 18, min = "30ms", max = "530ms", harmonic_mean = "60ms"}}`.
#[derive(Clone, Copy, Debug)]
pub struct TreeSpec {
    /// Number of source nodes (>= 1).
    pub nodes: u32,
    /// RTT of the node nearest the target link.
    pub min: SimTime,
    /// RTT of the deepest node.
    pub max: SimTime,
    /// Target harmonic mean of the node RTTs (the paper's effective RTT).
    pub harmonic_mean: Option<SimTime>,
}

impl TreeSpec {
    /// Parse the table under `tree`.
    pub fn parse(v: &Value) -> Result<TreeSpec, String> {
        let shape = "{nodes = 18, min = \"30ms\", max = \"530ms\"} with an optional harmonic_mean = \"60ms\"";
        let t = v
            .as_object()
            .ok_or_else(|| format!("tree: expected {shape}, got {v}"))?;
        if let Some(k) = t
            .keys()
            .find(|k| !["nodes", "min", "max", "harmonic_mean"].contains(&k.as_str()))
        {
            return Err(format!(
                "tree: unknown key {k:?}: allowed are nodes, min, max, harmonic_mean"
            ));
        }
        let dur = |k: &str| -> Result<Option<SimTime>, String> {
            match t.get(k) {
                None => Ok(None),
                Some(Value::String(s)) => units::parse_duration(s)
                    .map(Some)
                    .map_err(|e| format!("tree.{k}: {}", e.0)),
                Some(o) => Err(format!(
                    "tree.{k}: expected a duration such as \"30ms\", got {o}"
                )),
            }
        };
        let nodes = match t.get("nodes") {
            Some(n) => n.as_u64().filter(|&n| (1..=100_000).contains(&n)).ok_or_else(|| {
                format!("tree.nodes: expected a whole number of source nodes from 1 to 100000, got {n}")
            })? as u32,
            None => return Err(format!("tree.nodes: missing: expected {shape}")),
        };
        let min = dur("min")?.ok_or_else(|| format!("tree.min: missing: expected {shape}"))?;
        let max = dur("max")?.ok_or_else(|| format!("tree.max: missing: expected {shape}"))?;
        if min > max || min == SimTime::ZERO {
            return Err(format!("tree: min {min} must be > 0 and <= max {max}"));
        }
        let spec = TreeSpec {
            nodes,
            min,
            max,
            harmonic_mean: dur("harmonic_mean")?,
        };
        spec.node_rtts()?;
        Ok(spec)
    }

    fn rtts_with(&self, p: f64) -> Vec<f64> {
        let (a, b, n) = (self.min.as_secs_f64(), self.max.as_secs_f64(), self.nodes);
        (0..n)
            .map(|k| {
                if n == 1 {
                    a
                } else {
                    a + (b - a) * (k as f64 / (n - 1) as f64).powf(p)
                }
            })
            .collect()
    }

    /// The RTT of every source node.
    pub fn node_rtts(&self) -> Result<Vec<SimTime>, String> {
        let p = match self.harmonic_mean {
            None => 1.0,
            Some(h) => {
                let h = h.as_secs_f64();
                let hm = |p: f64| harmonic_mean(&self.rtts_with(p));
                // The harmonic mean falls from near max (p -> 0) to near min (p -> inf).
                let (mut lo, mut hi) = (1e-3, 1e3);
                if !(self.nodes > 1 && h < hm(lo) && h > hm(hi)) {
                    return Err(format!(
                        "tree.harmonic_mean: {}s is not reachable with {} nodes between {} and {}: allowed is ({:.4}s, {:.4}s)",
                        h,
                        self.nodes,
                        self.min,
                        self.max,
                        hm(hi),
                        hm(lo)
                    ));
                }
                for _ in 0..200 {
                    let mid = (lo * hi).sqrt();
                    if hm(mid) > h { lo = mid } else { hi = mid }
                }
                (lo * hi).sqrt()
            }
        };
        Ok(self
            .rtts_with(p)
            .into_iter()
            .map(SimTime::from_secs_f64)
            .collect())
    }
}

/// Harmonic mean of RTTs in seconds (paper 002 footnote 1: the effective RTT).
pub fn harmonic_mean(rtts_s: &[f64]) -> f64 {
    rtts_s.len() as f64 / rtts_s.iter().map(|r| 1.0 / r).sum::<f64>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paper_002_tree_has_harmonic_mean_60ms() {
        let t = TreeSpec::parse(&serde_json::json!({"nodes": 18, "min": "30ms", "max": "530ms", "harmonic_mean": "60ms"}))
            .unwrap();
        let r: Vec<f64> = t
            .node_rtts()
            .unwrap()
            .iter()
            .map(|x| x.as_secs_f64())
            .collect();
        assert!((harmonic_mean(&r) - 0.060).abs() < 1e-6, "{r:?}");
        assert!((r[0] - 0.030).abs() < 1e-9 && (r[17] - 0.530).abs() < 1e-9);
        // Evenly spaced without a target.
        let t = TreeSpec {
            harmonic_mean: None,
            ..t
        };
        let r = t.node_rtts().unwrap();
        assert_eq!(r[1] - r[0], r[2] - r[1]);
        let e = TreeSpec::parse(
            &serde_json::json!({"nodes": 18, "min": "30ms", "max": "530ms", "harmonic_mean": "20ms"}),
        );
        assert!(e.unwrap_err().contains("not reachable"));
    }
}
