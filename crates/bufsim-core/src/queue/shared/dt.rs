//! Dynamic threshold (Choudhury & Hahne, "Dynamic queue length thresholds
//! for shared-memory packet switches", IEEE/ACM ToN 6(2), 1998, section
//! III): a queue `q` takes an arrival only while `q < T = alpha (b -
//! total)`, and if the arrival fits in what is left of the pool.
//!
//! At the threshold's fixed point one busy port holds `alpha b / (1 +
//! alpha)` and `n` equally busy ports `alpha b / (1 + n alpha)` each
//! ([`fixed_point`]); the rest is kept free for ports that become busy.
//!
//! With traffic classes (`link.queues`) each queue is held to its class's
//! factor, `q < alpha_c (b - total)`: the multi-priority form of Hahne &
//! Choudhury, "Dynamic queue length thresholds for multiple loss
//! priorities", IEEE/ACM ToN 10(3), 2002, section III, a threshold per
//! priority on the one free space. At its fixed point
//! ([`fixed_point_classes`]) a class with a larger factor holds more, in
//! the ratio of the factors.

/// The threshold `T = alpha (b - total)` (the pool's unit); `total <= b`.
#[inline]
pub fn threshold(alpha: f64, b: u64, total: u64) -> f64 {
    alpha * (b - total) as f64
}

/// Whether an arrival of `a` joins a queue holding `q` in a pool of `b`
/// holding `total`: `total + a <= b` and `q < alpha (b - total)`.
#[inline]
pub fn admits(alpha: f64, q: u64, total: u64, a: u64, b: u64) -> bool {
    total + a <= b && (q as f64) < threshold(alpha, b, total)
}

/// Each of `n` equally busy queues' length at the threshold's fixed point:
/// `q = alpha (b - n q)`, so `q = alpha b / (1 + n alpha)`.
pub fn fixed_point(alpha: f64, b: f64, n: f64) -> f64 {
    alpha * b / (1.0 + n * alpha)
}

/// Each class's queue length at the threshold's fixed point when `n[c]`
/// equally busy queues of class `c` with factor `alpha[c]` share a pool of
/// `b`: `q_c = alpha_c (b - Q)` with `Q = sum_c n_c q_c`, so `b - Q = b /
/// (1 + sum_c n_c alpha_c)` and `q_c = alpha_c b / (1 + sum_c n_c
/// alpha_c)`.
pub fn fixed_point_classes(alpha: &[f64], n: &[f64], b: f64) -> Vec<f64> {
    let sum: f64 = alpha.iter().zip(n).map(|(a, n)| a * n).sum();
    alpha.iter().map(|a| a * b / (1.0 + sum)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_threshold_is_alpha_times_the_free_pool() {
        assert_eq!(threshold(1.0, 500, 200), 300.0);
        assert_eq!(threshold(0.5, 500, 100), 200.0);
        assert_eq!(threshold(2.0, 500, 500), 0.0);
        // One busy port, alpha 1, 500 packets: it grows while q < 500 - q,
        // up to 250 packets.
        assert!(admits(1.0, 249, 249, 1, 500));
        assert!(!admits(1.0, 250, 250, 1, 500));
        // A full pool refuses whatever the threshold.
        assert!(!admits(1e6, 0, 500, 1, 500));
    }

    #[test]
    fn the_fixed_point_solves_the_threshold_equation() {
        for (alpha, n) in [(1.0, 1.0), (1.0, 4.0), (2.0, 4.0), (0.5, 2.0)] {
            let q = fixed_point(alpha, 500.0, n);
            assert!((q - alpha * (500.0 - n * q)).abs() < 1e-9, "{alpha} {n}");
        }
        assert_eq!(fixed_point(1.0, 500.0, 1.0), 250.0);
        assert_eq!(fixed_point(1.0, 500.0, 4.0), 100.0);
    }

    #[test]
    fn the_classes_fixed_point_solves_each_threshold_equation() {
        let (alpha, n) = ([1.0, 0.5, 2.0], [1.0, 2.0, 3.0]);
        let q = fixed_point_classes(&alpha, &n, 500.0);
        let total: f64 = q.iter().zip(&n).map(|(q, n)| q * n).sum();
        for c in 0..3 {
            assert!(
                (q[c] - alpha[c] * (500.0 - total)).abs() < 1e-9,
                "class {c}"
            );
        }
        // One class: the single-priority fixed point.
        assert_eq!(
            fixed_point_classes(&[1.0], &[4.0], 500.0)[0],
            fixed_point(1.0, 500.0, 4.0)
        );
        // Two classes, alpha 1 and 0.5, one queue each: 200 and 100 packets.
        assert_eq!(
            fixed_point_classes(&[1.0, 0.5], &[1.0, 1.0], 500.0),
            vec![200.0, 100.0]
        );
    }
}
