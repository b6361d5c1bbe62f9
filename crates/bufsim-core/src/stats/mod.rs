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

/// Whether the verdict `mean(values) op bound` is known at quantile `q`:
/// `bound` lies outside the Student t interval `mean +- t(q, n - 1) s /
/// sqrt(n)` of the `n` values (`s` their sample standard deviation). Not
/// known with fewer than two values or a value that is not finite; known
/// at once when every value is equal (and differs from `bound`, or meets a
/// `>=` / `<=` bound it equals). `q` in (0.5, 1).
pub fn verdict_known(values: &[f64], at_least: bool, bound: f64, q: f64) -> bool {
    use statrs::distribution::{ContinuousCDF, StudentsT};
    let n = values.len();
    if n < 2 || values.iter().any(|v| !v.is_finite()) {
        return false;
    }
    let k = n as f64;
    let mean = values.iter().sum::<f64>() / k;
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (k - 1.0);
    let t = StudentsT::new(0.0, 1.0, k - 1.0)
        .expect("n >= 2: positive degrees of freedom")
        .inverse_cdf(q);
    let h = t * (var / k).sqrt();
    let (lo, hi) = (mean - h, mean + h);
    // Holds: the whole interval meets the bound. Fails: none of it does.
    if at_least {
        lo >= bound || hi < bound
    } else {
        hi <= bound || lo > bound
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn verdicts_known_outside_the_t_interval() {
        use super::verdict_known;
        // mean 1, s = 0.1, n = 4: t(0.975, 3) = 3.182, h = 0.159.
        let v = [0.9, 1.0, 1.1, 1.0];
        let s = (0.02f64 / 3.0).sqrt();
        let h = 3.182_446 * s / 2.0;
        assert!(verdict_known(&v, true, 1.0 - h - 1e-3, 0.975)); // holds
        assert!(!verdict_known(&v, true, 1.0 - h + 1e-3, 0.975)); // inside
        assert!(verdict_known(&v, true, 1.0 + h + 1e-3, 0.975)); // fails
        assert!(verdict_known(&v, false, 1.0 + h + 1e-3, 0.975));
        assert!(!verdict_known(&v, false, 1.0, 0.975));
        // A higher quantile widens the interval.
        assert!(!verdict_known(&v, true, 1.0 - h - 1e-3, 0.999));
        // Too few, or not finite: unknown. Equal values: known.
        assert!(!verdict_known(&[0.5], true, 0.1, 0.975));
        assert!(!verdict_known(&[0.5, f64::NAN, 0.5], true, 0.1, 0.975));
        assert!(verdict_known(&[1.0, 1.0, 1.0], true, 1.0, 0.975));
        assert!(verdict_known(&[1.0, 1.0, 1.0], false, 1.0, 0.975));
    }

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
