//! Statistics collectors shared by the engines.

pub mod histogram;

/// Jain's fairness index (sum x)^2 / (n * sum x^2) of non-negative values;
/// 1 when all are equal, 1/n when one takes everything.
///
/// Nothing to measure: with no values (no persistent flow) or all of them
/// zero, every share is equal and the index is 1 (both engines).
pub fn jain_index(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    let s2: f64 = x.iter().map(|v| v * v).sum();
    if s2 == 0.0 {
        1.0
    } else {
        s * s / (x.len() as f64 * s2)
    }
}

/// Mean loss synchronization: the mean over congestion events of the
/// fraction of flows that lost a packet in it. Nothing to measure: with no
/// congestion event no flows lost packets together, and it is 0 (both engines).
pub fn sync_mean(fractions: impl ExactSizeIterator<Item = f64>) -> f64 {
    let n = fractions.len();
    if n == 0 {
        0.0
    } else {
        fractions.sum::<f64>() / n as f64
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn jain() {
        assert_eq!(super::jain_index(&[2.0, 2.0, 2.0]), 1.0);
        assert!((super::jain_index(&[1.0, 0.0, 0.0, 0.0]) - 0.25).abs() < 1e-12);
        // Nothing to measure: equal (empty or zero) shares.
        assert_eq!(super::jain_index(&[]), 1.0);
        assert_eq!(super::jain_index(&[0.0, 0.0]), 1.0);
        assert_eq!(super::sync_mean([].into_iter()), 0.0);
        assert_eq!(super::sync_mean([0.5, 1.0].into_iter()), 0.75);
    }
}
