//! RED in fluid form (Floyd and Jacobson 1993; MGT 2000 section 3): an
//! exponentially weighted average of the queue and a linear drop profile,
//! with the "gentle" extension. Parameters come from `link.qdisc_params`
//! (validated and defaulted in `scenario.rs`).

use rand::RngExt;

use crate::engine::rng::Rng;
use crate::scenario::Scenario;

/// The RED state of the bottleneck (disabled for drop-tail).
pub struct Red {
    enabled: bool,
    min_th: f64,
    max_th: f64,
    max_p: f64,
    gentle: bool,
    /// Per-step decay of the average: (1 - w_q)^(C h).
    decay: f64,
    avg: f64,
    rng: Rng,
}

impl Red {
    /// RED for `s` (a no-op unless `link.qdisc` is `red`); `cap` in packets/s,
    /// `h` the step in seconds.
    pub fn from_scenario(s: &Scenario, cap: f64, h: f64, rng: Rng) -> Red {
        let p = &s.link.qdisc_params;
        let num = |k: &str, d: f64| p.get(k).and_then(|v| v.as_f64()).unwrap_or(d);
        let w_q = num("w_q", 0.002);
        //= MGT 2000 eq. (3): dx/dt = ln(1 - w_q)/delta (x - q), delta = 1/C (one
        //= average update per packet); integrated exactly over a step with q
        //= held, since 1/(w_q C) is often shorter than the step.
        let decay = (cap * h * (1.0 - w_q).ln()).exp();
        Red {
            enabled: s.link.qdisc == "red",
            min_th: num("min_th", 5.0),
            max_th: num("max_th", 15.0),
            max_p: num("max_p", 0.1),
            gentle: p.get("gentle").and_then(|v| v.as_bool()).unwrap_or(true),
            decay,
            avg: 0.0,
            rng,
        }
    }

    /// The drop probability at the current average queue.
    #[inline]
    pub fn drop_prob(&self) -> f64 {
        if !self.enabled {
            return 0.0;
        }
        let x = self.avg;
        //= Floyd & Jacobson 1993 section 4: p_b = max_p (avg - min_th) / (max_th - min_th)
        //= for min_th <= avg < max_th; every arrival is dropped above max_th.
        if x < self.min_th {
            0.0
        } else if x < self.max_th {
            self.max_p * (x - self.min_th) / (self.max_th - self.min_th)
        } else if self.gentle && x < 2.0 * self.max_th {
            //= Floyd 2000, "Recommendation on using the gentle_ variant of RED":
            //= p rises linearly from max_p at max_th to 1 at 2 max_th.
            self.max_p + (1.0 - self.max_p) * (x - self.max_th) / self.max_th
        } else {
            1.0
        }
    }

    /// Advance the average over one step with the queue at `q`.
    #[inline]
    pub fn update_avg(&mut self, q: f64) {
        if self.enabled {
            self.avg = q + (self.avg - q) * self.decay;
        }
    }

    /// Whether `amount` expected early drops (packets) reaching a sender
    /// contain at least one: RED drops packets independently, so the count is
    /// Poisson and P(at least one) = 1 - exp(-amount).
    pub fn fires(&mut self, amount: f64) -> bool {
        let u: f64 = self.rng.random();
        u < 1.0 - (-amount).exp()
    }
}
