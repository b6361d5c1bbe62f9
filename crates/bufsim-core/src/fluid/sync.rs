//! The loss-synchronization module of paper 004 section II.C-D: at each
//! congestion event k, a loss-synchronization controller draws the number
//! m_k of flows that record the loss, and a packet-drop policy controller
//! picks which ones (highest current rate first in the paper).

use rand::RngExt;
use rand_distr::{Distribution, Normal};

use crate::engine::rng::Rng;
use crate::scenario::SyncPolicy;

/// The module: X, the spread of the draw, the policy, and its random stream.
pub struct SyncModule {
    x: f64,
    sd_frac: f64,
    policy: SyncPolicy,
    rng: Rng,
    order: Vec<usize>,
}

impl SyncModule {
    /// A module with minimum synchronized fraction `x`, normal spread
    /// `sd_frac` * N, `policy`, drawing from `rng`.
    pub fn new(x: f64, sd_frac: f64, policy: SyncPolicy, rng: Rng) -> SyncModule {
        SyncModule {
            x,
            sd_frac,
            policy,
            rng,
            order: Vec::new(),
        }
    }

    /// Draw m_k for `n` flows.
    pub fn draw_m(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        let nf = n as f64;
        //= paper 004 eq. (8): m_k in (X N, N); eq. (6): at least one flow.
        let lo = ((self.x * nf - 1e-9).ceil() as usize).clamp(1, n);
        //= paper 004 section III: "Values for configurable parameter m is drawn
        //= from normal distribution" (no mean or sd given); section II.D.1: X
        //= is "the minimum level of synchronization" that "does not avoid any
        //= degree of synchronization higher than X". We centre the draw on X N
        //= with sd = sync_sd * N and clip it to [X N, N]: half the events
        //= synchronize exactly ceil(X N) flows, the others more.
        let mean = self.x * nf;
        let sd = self.sd_frac * nf;
        let v = match Normal::new(mean, sd) {
            Ok(d) if sd > 0.0 => d.sample(&mut self.rng),
            _ => mean,
        };
        (v.round().max(0.0) as usize).clamp(lo, n)
    }

    /// Mark in `chosen` the flows that record the loss at this congestion
    /// event; `rates` are the current arrival rates (inactive flows have 0 and
    /// are never chosen). Returns how many were chosen.
    pub fn choose(&mut self, rates: &[f64], chosen: &mut [bool]) -> usize {
        chosen.iter_mut().for_each(|c| *c = false);
        self.order.clear();
        self.order
            .extend((0..rates.len()).filter(|&i| rates[i] > 0.0));
        let n = self.order.len();
        let m = match self.policy {
            SyncPolicy::All => n,
            _ => self.draw_m(n),
        };
        match self.policy {
            SyncPolicy::All => {}
            SyncPolicy::HighestRate => {
                //= paper 004 section II.C.2: the priority matrix P^k = [D_1^k ..
                //= D_N^k] with D_i^k the arrival rate of flow i; ties go to the
                //= lower index so runs are deterministic.
                self.order
                    .sort_by(|&a, &b| rates[b].total_cmp(&rates[a]).then(a.cmp(&b)));
            }
            SyncPolicy::Random => {
                // Partial Fisher-Yates: the first m entries are a uniform sample.
                for k in 0..m {
                    let j = self.rng.random_range(k..n);
                    self.order.swap(k, j);
                }
            }
        }
        for &i in &self.order[..m] {
            chosen[i] = true;
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rng::{Stream, stream};

    #[test]
    fn draws_stay_in_the_interval() {
        let mut s = SyncModule::new(0.3, 0.5, SyncPolicy::HighestRate, stream(7, Stream::Fluid));
        for _ in 0..1000 {
            let m = s.draw_m(10);
            assert!((3..=10).contains(&m), "{m}");
        }
        let mut s = SyncModule::new(1.0, 0.0, SyncPolicy::HighestRate, stream(7, Stream::Fluid));
        assert_eq!(s.draw_m(10), 10);
    }

    #[test]
    fn highest_rate_first() {
        let mut s = SyncModule::new(0.5, 0.0, SyncPolicy::HighestRate, stream(1, Stream::Fluid));
        // 4 active flows, X = 0.5, sd 0: m = X N = 2.
        let rates = [1.0, 5.0, 0.0, 3.0, 4.0];
        let mut chosen = [false; 5];
        assert_eq!(s.choose(&rates, &mut chosen), 2);
        assert_eq!(chosen, [false, true, false, false, true]);
    }
}
