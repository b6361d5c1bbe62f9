//! Active Buffer Management (Addanki, Apostolaki, Ghobadi, Schmid &
//! Vanbever, "ABM: Active Buffer Management in Datacenters", SIGCOMM 2022):
//! queue `i` of priority `p` takes an arrival only while
//!
//! `q_i < T_i = alpha_p x (1 / n_p) x (b - total) x (mu_i / rate)`,
//!
//! and if the arrival fits in what is left of the pool: the dynamic
//! threshold ([`super::dt`]) divided among the `n_p` congested queues of
//! the priority and scaled by the queue's drain rate `mu_i` over its
//! port's rate. With one queue per port (one priority), as the pool has
//! today, `n_p` counts the congested ports.
//!
//! How the pool measures them, as the authors' ns-3 implementation does
//! (`inet-tub/ns3-datacenter`, `GenQueueDisc`, read for its estimators):
//!
//! * congested: a queue's saturation is `min(1, q / sat)`, with `sat` 20
//!   packets of the link's packet size (the implementation's 20 x 1400
//!   bytes); `n_p` is the saturations' sum, at least 1 ([`congested`]);
//! * both `n_p` and the drain rates are refreshed once per update interval
//!   (`pool.interval`, default 30 us, the implementation's default; the
//!   paper's runs use one base RTT), lazily at the first arrival of each
//!   interval;
//! * the drain rate is the bytes a queue sent in the last interval over
//!   what its port could send, taken as 1 when it is above 1 or below
//!   `1 / classes`. With one class per port that makes it 1 for every
//!   queue (a backlogged single queue drains at its port's rate), so the
//!   pool passes `mu_i / rate = 1`.
//!
//! A transfer's first-RTT ("unscheduled") packets may get a factor of
//! their own, `alpha_unsched` (`pool.unscheduled`, off by default): the
//! implementation's senders tag each packet sent while the transfer's data
//! sent so far, retransmissions included, is below `RTTBytes` (one base-RTT
//! BDP in the authors' run script), and its `ActiveBufferManagement` takes
//! `alphaUnsched` (default 1024) for a tagged packet in place of the
//! priority's alpha ([`crate::scenario::Unscheduled`]). With 1024 the
//! threshold hardly binds: a burst of new transfers may fill most of the
//! free pool, the room left for queues that become busy being what the
//! paper's scheduled packets keep.
//!
//! At the threshold's fixed point `n` equally congested queues hold
//! `alpha b / (n (1 + alpha))` each, `alpha b / (1 + alpha)` together
//! whatever `n` ([`fixed_point`]): unlike the dynamic threshold's, the
//! free share does not shrink as more queues congest (the isolation the
//! paper proves).

use crate::units::SimTime;

/// The implementation's saturation length, in packets of the link's size.
pub const SAT_PKTS: u64 = 20;

/// The update interval's default (the implementation's `updateInterval`).
pub const DEFAULT_INTERVAL: SimTime = SimTime(30_000_000);

/// The factor of a first-RTT packet's threshold by default (the
/// implementation's `alphaUnsched`).
pub const DEFAULT_UNSCHEDULED_ALPHA: f64 = 1024.0;

/// The threshold `alpha / n (b - total) drain` (the pool's unit), `n >= 1`
/// the congested queues of the priority and `drain` the queue's
/// normalized drain rate; `total <= b`.
#[inline]
pub fn threshold(alpha: f64, n: f64, b: u64, total: u64, drain: f64) -> f64 {
    alpha / n * (b - total) as f64 * drain
}

/// Whether an arrival of `a` joins a queue holding `q` in a pool of `b`
/// holding `total`: `total + a <= b` and `q` under [`threshold`].
#[inline]
pub fn admits(alpha: f64, n: f64, q: u64, total: u64, a: u64, b: u64, drain: f64) -> bool {
    total + a <= b && (q as f64) < threshold(alpha, n, b, total, drain)
}

/// `n_p`: the saturations `min(1, q / sat)` of queues of lengths `lens`
/// summed, at least 1 (the implementation's `GetNofP`).
pub fn congested(lens: impl Iterator<Item = u64>, sat: u64) -> f64 {
    let sat = sat.max(1) as f64;
    lens.map(|q| (q as f64 / sat).min(1.0))
        .sum::<f64>()
        .max(1.0)
}

/// Each of `n` equally congested queues' length at the threshold's fixed
/// point (drain rate 1): `q = alpha / n (b - n q)`, so `q = alpha b / (n
/// (1 + alpha))`.
pub fn fixed_point(alpha: f64, b: f64, n: f64) -> f64 {
    alpha * b / (n * (1.0 + alpha))
}

/// `n_p` as the pool last measured it, and when to measure it again.
#[derive(Clone, Copy, Debug)]
pub struct Congestion {
    /// The congested queues at the last update.
    pub n: f64,
    /// The update interval.
    interval: SimTime,
    /// The next update's time (a multiple of `interval`).
    next: SimTime,
    /// A queue's saturation length (the pool's unit).
    sat: u64,
}

impl Congestion {
    /// Before the first update: `n` is 1.
    pub fn new(interval: SimTime, sat: u64) -> Congestion {
        Congestion {
            n: 1.0,
            interval,
            next: SimTime::ZERO,
            sat,
        }
    }

    /// Whether `n` is due for its update at `now`.
    #[inline]
    pub fn due(&self, now: SimTime) -> bool {
        now >= self.next
    }

    /// Measure `n` at `now` from the queues' lengths; the next update is
    /// at the interval's next multiple.
    pub fn update(&mut self, now: SimTime, lens: impl Iterator<Item = u64>) {
        self.n = congested(lens, self.sat);
        let i = self.interval.0.max(1);
        self.next = SimTime((now.0 / i + 1) * i);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::shared::dt;

    #[test]
    fn the_threshold_is_the_dynamic_one_shared_by_the_congested_queues() {
        // alpha 1, 500-packet pool holding 200: DT's 300, split by n and
        // scaled by the drain rate.
        assert_eq!(threshold(1.0, 1.0, 500, 200, 1.0), 300.0);
        assert_eq!(threshold(1.0, 3.0, 500, 200, 1.0), 100.0);
        assert_eq!(threshold(2.0, 4.0, 500, 200, 0.5), 75.0);
        assert_eq!(threshold(0.5, 1.0, 500, 100, 1.0), 200.0);
        // One congested queue draining at line rate: the dynamic threshold,
        // bit for bit.
        for (alpha, total) in [(1.0, 0), (0.5, 123), (2.0, 499), (1.0 / 3.0, 7)] {
            assert_eq!(
                threshold(alpha, 1.0, 500, total, 1.0),
                dt::threshold(alpha, 500, total)
            );
            for q in [0, 100, 249, 250, 400] {
                assert_eq!(
                    admits(alpha, 1.0, q, total, 1, 500, 1.0),
                    dt::admits(alpha, q, total, 1, 500)
                );
            }
        }
        assert!(!admits(1e6, 1.0, 0, 500, 1, 500, 1.0), "a full pool");
    }

    #[test]
    fn congested_sums_the_saturations() {
        let n = |lens: &[u64]| congested(lens.iter().copied(), 20);
        assert_eq!(n(&[0, 0, 0, 0]), 1.0, "at least 1");
        assert_eq!(n(&[5, 0, 0, 0]), 1.0);
        assert_eq!(n(&[40, 20, 0, 0]), 2.0);
        assert_eq!(n(&[100, 10, 30, 5]), 2.75);
        assert_eq!(n(&[20, 20, 20, 20]), 4.0);
    }

    #[test]
    fn the_fixed_point_solves_the_threshold_equation() {
        for (alpha, n) in [(1.0, 1.0), (1.0, 4.0), (2.0, 4.0), (0.5, 2.0)] {
            let q = fixed_point(alpha, 500.0, n);
            assert!(
                (q - alpha / n * (500.0 - n * q)).abs() < 1e-9,
                "{alpha} {n}"
            );
            // The congested queues hold alpha b / (1 + alpha) together.
            assert!((n * q - alpha * 500.0 / (1.0 + alpha)).abs() < 1e-9);
        }
        // One congested queue: the dynamic threshold's fixed point.
        assert_eq!(
            fixed_point(1.0, 500.0, 1.0),
            dt::fixed_point(1.0, 500.0, 1.0)
        );
        assert_eq!(fixed_point(1.0, 500.0, 4.0), 62.5);
    }

    #[test]
    fn n_is_updated_once_per_interval() {
        let mut c = Congestion::new(SimTime(30), 20);
        assert!(c.due(SimTime(0)));
        c.update(SimTime(5), [40, 40].into_iter());
        assert_eq!(c.n, 2.0);
        assert!(!c.due(SimTime(29)));
        assert!(c.due(SimTime(30)));
        c.update(SimTime(95), [0, 10].into_iter());
        assert_eq!(c.n, 1.0);
        assert!(!c.due(SimTime(119)) && c.due(SimTime(120)));
    }
}
