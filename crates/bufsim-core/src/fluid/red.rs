//! RED in fluid form (Floyd and Jacobson 1993; MGT 2000 section 3): an
//! exponentially weighted average of the queue and a linear drop profile,
//! with the "gentle" extension. Parameters come from the one
//! [`RedConfig`] both engines share (`queue::red`), and the drop profile
//! is the packet engine's [`crate::queue::red::profile`].

use rand::RngExt;

use crate::engine::rng::Rng;
use crate::queue::QdiscConfig;
use crate::queue::red::RedConfig;
use crate::scenario::Scenario;

/// The RED state of the bottleneck (disabled for drop-tail).
pub struct Red {
    enabled: bool,
    cfg: RedConfig,
    /// Per-step decay of the average: (1 - w_q)^(C h).
    decay: f64,
    avg: f64,
    rng: Rng,
}

impl Red {
    /// RED for `s` (a no-op unless `link.qdisc` is `red`); `cap` in packets/s,
    /// `h` the step in seconds.
    pub fn from_scenario(s: &Scenario, cap: f64, h: f64, rng: Rng) -> Red {
        let (enabled, cfg) = match s.link().queue {
            QdiscConfig::Red(c) => (true, c),
            _ => (false, RedConfig::default()),
        };
        //= MGT 2000 eq. (3): dx/dt = ln(1 - w_q)/delta (x - q), delta = 1/C (one
        //= average update per packet); integrated exactly over a step with q
        //= held, since 1/(w_q C) is often shorter than the step. w_q = 1
        //= gives ln 0 = -inf and a decay of 0: the average is the queue.
        let decay = (cap * h * (1.0 - cfg.w_q).ln()).exp();
        Red {
            enabled,
            cfg,
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
        //= Floyd & Jacobson 1993 section 4 and Floyd 2000 (gentle): the drop
        //= profile shared with the packet engine.
        crate::queue::red::profile(&self.cfg, self.cfg.max_p, self.avg)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rng::{Stream, stream};

    #[test]
    fn with_w_q_one_the_average_is_the_queue() {
        let s = Scenario::from_json(
            r#"{"duration": "1s", "link": {"capacity": "10Mbps", "delay": "1ms", "buffer": "100pkt",
                "qdisc": "red", "qdisc_params": {"min_th": 20, "max_th": 20, "w_q": 1}},
                "flows": [{"rtt": "10ms"}]}"#,
        )
        .unwrap();
        let mut red = Red::from_scenario(&s, 833.0, 1e-3, stream(1, Stream::Queue(0)));
        assert_eq!(red.decay, 0.0);
        for q in [5.0, 37.0, 12.0] {
            red.update_avg(q);
            assert_eq!(red.avg, q);
        }
        red.update_avg(25.0);
        // Gentle is on by default: 25 is between max_th and 2 max_th, on
        // Floyd 2000's ramp from max_p to 1.
        let want = crate::queue::red::profile(&red.cfg, red.cfg.max_p, 25.0);
        assert_eq!(red.drop_prob(), want);
        assert!(want > red.cfg.max_p && want < 1.0);
    }
}
