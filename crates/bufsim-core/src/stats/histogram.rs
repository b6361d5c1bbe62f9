//! A log-binned histogram of durations for delay percentiles without storing
//! every sample, plus the exact mean. Bins split each power of two into 128
//! linear sub-bins (read off the float's exponent and top mantissa bits, as
//! HDR histograms do): a bin is at most 0.8% wide, so a quantile read at a
//! bin's middle is within 0.4%.

use crate::units::SimTime;

/// Mantissa bits kept: 2^7 = 128 sub-bins per octave.
const SUB_BITS: u32 = 7;
/// The most a quantile read at a bin's middle exceeds the true one,
/// relative: half a bin, 1/2^(SUB_BITS + 1) of the bin's start.
pub const QUANTILE_ERROR: f64 = 1.0 / (2u64 << SUB_BITS) as f64;
/// Durations up to 2^64 ps fit: 64 octaves.
const NBINS: usize = 64 << SUB_BITS;

/// Bin of a duration of `ps` >= 1 picoseconds.
#[inline]
fn bin(ps: u64) -> usize {
    let bits = (ps as f64).to_bits();
    // Exponent (unbiased, >= 0 for ps >= 1) and the top SUB_BITS of the mantissa.
    let exp = ((bits >> 52) & 0x7ff) as usize - 1023;
    let sub = ((bits >> (52 - SUB_BITS)) & ((1 << SUB_BITS) - 1)) as usize;
    (exp << SUB_BITS) | sub
}

/// Middle of bin `i`, picoseconds.
fn bin_middle(i: usize) -> f64 {
    let exp = (i >> SUB_BITS) as i32;
    let sub = (i & ((1 << SUB_BITS) - 1)) as f64;
    2f64.powi(exp) * (1.0 + (sub + 0.5) / (1 << SUB_BITS) as f64)
}

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
        DelayHistogram {
            zero: 0,
            bins: vec![0; NBINS],
            count: 0,
            sum_ps: 0.0,
        }
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
            self.bins[bin(d.0)] += 1;
        }
    }
    /// Number of durations recorded.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Exact mean, seconds. Without samples (no packet went through the
    /// queue) 0: no packet waited.
    pub fn mean_s(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum_ps / self.count as f64 * 1e-12
        }
    }
    /// The samples recorded since `earlier`, an earlier copy of this
    /// histogram (the second half of a window from a copy at its middle).
    pub fn since(&self, earlier: &DelayHistogram) -> DelayHistogram {
        DelayHistogram {
            zero: self.zero - earlier.zero,
            bins: self
                .bins
                .iter()
                .zip(&earlier.bins)
                .map(|(a, b)| a - b)
                .collect(),
            count: self.count - earlier.count,
            sum_ps: self.sum_ps - earlier.sum_ps,
        }
    }

    /// The q-quantile (0..1), seconds, within 0.4%. Without samples 0, as
    /// the mean.
    pub fn quantile_s(&self, q: f64) -> f64 {
        if self.count == 0 {
            return 0.0;
        }
        let rank = (q * self.count as f64).ceil().max(1.0) as u64;
        if rank <= self.zero {
            return 0.0;
        }
        let mut acc = self.zero;
        for (i, &c) in self.bins.iter().enumerate() {
            acc += c;
            if acc >= rank {
                return bin_middle(i) * 1e-12;
            }
        }
        f64::NAN
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_within_half_a_percent() {
        let mut h = DelayHistogram::default();
        for k in 1..=1000u64 {
            h.record(SimTime::from_micros(k));
        }
        assert!((h.quantile_s(0.5) / 500e-6 - 1.0).abs() < 0.005);
        assert!((h.quantile_s(0.99) / 990e-6 - 1.0).abs() < 0.005);
        assert_eq!(bin(1), 0);
        assert_eq!(bin(2), 1 << SUB_BITS);
        assert!((h.mean_s() - 500.5e-6).abs() < 1e-12);
    }

    #[test]
    fn a_quantile_reads_at_most_quantile_error_above_the_sample() {
        // One sample: every quantile is its bin's middle, at most half a
        // bin above it (the bound advise's a-priori delay check relies on).
        let mut worst: f64 = 0.0;
        for ps in (1..200_000u64)
            .step_by(7)
            .chain([1 << 20, (1 << 20) - 1, 9_830_400_000])
        {
            let mut h = DelayHistogram::default();
            h.record(SimTime(ps));
            let r = h.quantile_s(0.99) / (ps as f64 * 1e-12) - 1.0;
            assert!(r <= QUANTILE_ERROR * (1.0 + 1e-12), "{ps}: {r}");
            worst = worst.max(r);
        }
        assert!(worst > 0.9 * QUANTILE_ERROR, "{worst}");
    }

    #[test]
    fn since_holds_the_later_samples_only() {
        let mut h = DelayHistogram::default();
        for k in 1..=1000u64 {
            h.record(SimTime::from_micros(k));
        }
        let mid = h.clone();
        for k in 1..=1000u64 {
            h.record(SimTime::from_micros(2000 + k));
        }
        h.record(SimTime::ZERO);
        let later = h.since(&mid);
        assert_eq!(later.count, 1001);
        assert_eq!(later.zero, 1);
        // 1001 samples: 0 and 2001..=3000 us; the median is 2500 us.
        assert!((later.quantile_s(0.5) / 2500e-6 - 1.0).abs() < 0.005);
        assert!((later.mean_s() - 2500.5e-6 * 1000.0 / 1001.0).abs() < 1e-12);
    }
}
