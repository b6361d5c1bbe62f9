//! Statistics collectors shared by the engines.

pub mod histogram;

/// Jain's fairness index (sum x)^2 / (n * sum x^2) of non-negative values;
/// 1 when all are equal, 1/n when one takes everything. NaN for no values.
pub fn jain_index(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    let s2: f64 = x.iter().map(|v| v * v).sum();
    if x.is_empty() {
        f64::NAN
    } else if s2 == 0.0 {
        1.0
    } else {
        s * s / (x.len() as f64 * s2)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn jain() {
        assert_eq!(super::jain_index(&[2.0, 2.0, 2.0]), 1.0);
        assert!((super::jain_index(&[1.0, 0.0, 0.0, 0.0]) - 0.25).abs() < 1e-12);
    }
}
