//! A log-binned histogram of durations (1% relative resolution) for delay
//! percentiles without storing every sample, plus the exact mean.

use crate::units::SimTime;

/// Bins per factor e: 1 / ln(1.01), i.e. bins 1% wide.
const BINS_PER_E: f64 = 100.499_170_8;
/// Durations up to e^40 ps (about 2.4e5 s) fit.
const NBINS: usize = 4100;

/// Histogram of [`SimTime`] spans.
#[derive(Clone)]
pub struct DelayHistogram {
    zero: u64,
    bins: Vec<u64>,
    count: u64,
    sum_ps: f64,
}

impl Default for DelayHistogram {
    fn default() -> Self {
        DelayHistogram { zero: 0, bins: vec![0; NBINS], count: 0, sum_ps: 0.0 }
    }
}

impl DelayHistogram {
    /// Record one duration.
    #[inline]
    pub fn record(&mut self, d: SimTime) {
        self.count += 1;
        self.sum_ps += d.0 as f64;
        if d.0 == 0 {
            self.zero += 1;
        } else {
            let i = ((d.0 as f64).ln() * BINS_PER_E) as usize;
            self.bins[i.min(NBINS - 1)] += 1;
        }
    }
    /// Number of samples.
    pub fn count(&self) -> u64 {
        self.count
    }
    /// Exact mean, seconds (NaN without samples).
    pub fn mean_s(&self) -> f64 {
        if self.count == 0 { f64::NAN } else { self.sum_ps / self.count as f64 * 1e-12 }
    }
    /// The q-quantile (0..1), seconds, within 1% (NaN without samples).
    pub fn quantile_s(&self, q: f64) -> f64 {
        if self.count == 0 {
            return f64::NAN;
        }
        let rank = (q * self.count as f64).ceil().max(1.0) as u64;
        if rank <= self.zero {
            return 0.0;
        }
        let mut acc = self.zero;
        for (i, &c) in self.bins.iter().enumerate() {
            acc += c;
            if acc >= rank {
                // Geometric middle of bin i.
                return ((i as f64 + 0.5) / BINS_PER_E).exp() * 1e-12;
            }
        }
        f64::NAN
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_within_one_percent() {
        let mut h = DelayHistogram::default();
        for k in 1..=1000u64 {
            h.record(SimTime::from_micros(k));
        }
        assert!((h.quantile_s(0.5) / 500e-6 - 1.0).abs() < 0.01);
        assert!((h.quantile_s(0.99) / 990e-6 - 1.0).abs() < 0.01);
        assert!((h.mean_s() - 500.5e-6).abs() < 1e-12);
    }
}
