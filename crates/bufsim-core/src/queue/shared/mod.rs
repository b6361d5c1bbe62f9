//! Buffer management of a shared pool (`[pool]`, `pool.algorithm`): which
//! arrivals the ports' queues may take from the buffer they share, one
//! file per algorithm with its paper's rule cited above the code.
//!
//! Every rule reads amounts in the pool's unit ([`crate::scenario::Pool`]'s
//! `mode`): `q` the arriving packet's queue, `total` the pool's occupancy
//! (both before the arrival), `a` the arrival (1 packet, or its bytes) and
//! `b` the pool's size. A rule that admits a packet hands it to the port's
//! discipline, which may still drop or mark it; a rule that refuses it
//! drops it as an overflow of the port's queue.
//!
//! | name       | rule                                                   | file                   |
//! |------------|--------------------------------------------------------|------------------------|
//! | `static`   | `q + a <= floor(b / ports)`                            | [`static_partition`]   |
//! | `complete` | `total + a <= b`                                       | [`complete`]           |
//! | `dt`       | `q < alpha (b - total)`, and room                      | [`dt`]                 |
//! | `lqd`      | room, else push out the longest queue's tail           | [`lqd`]                |
//! | `abm`      | `q < alpha / n_p (b - total) mu / rate`, and room      | [`abm`]                |
//! | `fab`      | `q < alpha' (b - total)`, and room; `alpha'` per flow  | [`fab`]                |

pub mod abm;
pub mod complete;
pub mod dt;
pub mod fab;
pub mod lqd;
pub mod static_partition;

use serde::Serialize;

/// A pool's buffer-management algorithm (`pool.algorithm`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Algorithm {
    /// Static partition: each port a buffer of its own, the pool split evenly.
    Static,
    /// Complete sharing: any port while the pool has room.
    Complete,
    /// Dynamic threshold (Choudhury & Hahne 1998), the default.
    #[default]
    Dt,
    /// Longest-queue drop, push-out (Hahne, Kesselman & Mansour 2001).
    Lqd,
    /// Active Buffer Management (Addanki et al., SIGCOMM 2022).
    Abm,
    /// Flow-aware buffer sharing (Apostolaki, Vanbever & Ghobadi 2019).
    Fab,
}

impl Algorithm {
    /// Every algorithm, in the order the error messages and docs list them.
    pub const ALL: [Algorithm; 6] = [
        Algorithm::Static,
        Algorithm::Complete,
        Algorithm::Dt,
        Algorithm::Lqd,
        Algorithm::Abm,
        Algorithm::Fab,
    ];

    /// The name `pool.algorithm` gives.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Static => "static",
            Algorithm::Complete => "complete",
            Algorithm::Dt => "dt",
            Algorithm::Lqd => "lqd",
            Algorithm::Abm => "abm",
            Algorithm::Fab => "fab",
        }
    }

    /// The algorithm named `name`, if any.
    pub fn from_name(name: &str) -> Option<Algorithm> {
        Algorithm::ALL.into_iter().find(|a| a.name() == name)
    }
}

/// An arrival a pool admitted, in the pool's unit, as the pool stood just
/// before it joined its queue (after any LQD push-out).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Admission {
    /// The arrival's queue.
    pub q: u64,
    /// The pool's occupancy.
    pub total: u64,
    /// The arrival (1 packet, or its bytes).
    pub a: u64,
    /// The pool's size.
    pub b: u64,
}

impl Algorithm {
    /// The rule admission `x` broke, in words (`None`: it kept it), for a
    /// pool split into `parts` queues (its ports, or their class queues)
    /// with factor `alpha` (the one the arrival's threshold used: the
    /// queue's class's; for ABM a first-RTT packet's `unscheduled.alpha`,
    /// [`crate::scenario::Pool::priority_alpha`]; for FAB the flow's factor)
    /// and, for ABM, `n` congested queues; `x.q` is the arrival's queue.
    ///
    /// Every algorithm keeps the pool within its size, `total + a <= b`;
    /// where a threshold exists the queue is under it at admission:
    /// `static` within its share, `q + a <= floor(b / parts)`; `dt` under
    /// `alpha (b - total)` (Choudhury & Hahne 1998, section III); `abm`
    /// under `alpha / n (b - total)` (drain rate 1, [`abm`]); `fab` under
    /// `alpha (b - total)` with the flow's factor ([`fab`]). The packet
    /// engine checks it at every admission in a debug build
    /// ([`debug_check_admission`]).
    pub fn broken_by(self, alpha: f64, n: f64, parts: u32, x: Admission) -> Option<String> {
        let Admission { q, total, a, b } = x;
        let name = self.name();
        if total + a > b {
            return Some(format!(
                "{name}: an admission overfills the pool: {total} + {a} > {b}"
            ));
        }
        let t = match self {
            Algorithm::Static => {
                let share = static_partition::share(b, parts);
                return (q + a > share).then(|| {
                    format!("static: a queue of {q} takes {a} past its share {share} of {b}")
                });
            }
            Algorithm::Dt => dt::threshold(alpha, b, total),
            Algorithm::Fab => fab::threshold(alpha, b, total),
            Algorithm::Abm => abm::threshold(alpha, n, b, total, 1.0),
            Algorithm::Complete | Algorithm::Lqd => return None,
        };
        ((q as f64) >= t).then(|| {
            format!(
                "{name}: a queue of {q} admitted at or above its threshold {t} (alpha {alpha}, \
                 n {n}, pool {total} of {b})"
            )
        })
    }
}

/// In a debug build, panic when admission `x` broke its algorithm's rule
/// ([`Algorithm::broken_by`], the message); a release build checks nothing.
#[inline]
pub fn debug_check_admission(algorithm: Algorithm, alpha: f64, n: f64, parts: u32, x: Admission) {
    if cfg!(debug_assertions)
        && let Some(e) = algorithm.broken_by(alpha, n, parts, x)
    {
        panic!("{e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_admission_past_its_rule_is_named() {
        let x = |q, total| Admission {
            q,
            total,
            a: 1,
            b: 500,
        };
        let broken = |alg: Algorithm, n, x| alg.broken_by(1.0, n, 4, x);
        // On the safe side, each algorithm (a 500-packet pool of 4 ports
        // holding 200, alpha 1: DT's threshold 300, static's share 125).
        for alg in Algorithm::ALL {
            assert_eq!(broken(alg, 1.0, x(100, 200)), None, "{alg:?}");
        }
        assert_eq!(
            broken(Algorithm::Dt, 1.0, x(300, 200)).unwrap(),
            "dt: a queue of 300 admitted at or above its threshold 300 (alpha 1, n 1, pool 200 of 500)"
        );
        assert_eq!(broken(Algorithm::Dt, 1.0, x(299, 200)), None);
        // ABM's threshold split among 3 congested queues: 100.
        assert!(
            broken(Algorithm::Abm, 3.0, x(100, 200))
                .unwrap()
                .starts_with("abm: a queue of 100")
        );
        assert_eq!(broken(Algorithm::Abm, 3.0, x(99, 200)), None);
        // A first-RTT packet's threshold under ABM uses its own factor:
        // with 1024 a queue of 400 is far under it (1024 / 3 x 300).
        assert!(Algorithm::Abm.broken_by(1.0, 3.0, 4, x(400, 200)).is_some());
        assert_eq!(Algorithm::Abm.broken_by(1024.0, 3.0, 4, x(400, 200)), None);
        assert_eq!(
            broken(Algorithm::Static, 1.0, x(125, 125)).unwrap(),
            "static: a queue of 125 takes 1 past its share 125 of 500"
        );
        // LQD and complete sharing: only the pool's size binds.
        assert_eq!(broken(Algorithm::Lqd, 1.0, x(499, 499)), None);
        assert_eq!(
            broken(Algorithm::Lqd, 1.0, x(10, 500)).unwrap(),
            "lqd: an admission overfills the pool: 500 + 1 > 500"
        );
    }

    #[cfg(debug_assertions)]
    #[test]
    #[should_panic(expected = "dt: a queue of 300 admitted at or above its threshold 300")]
    fn a_debug_build_stops_at_an_admission_past_its_rule() {
        let x = Admission {
            q: 300,
            total: 200,
            a: 1,
            b: 500,
        };
        debug_check_admission(Algorithm::Dt, 1.0, 1.0, 4, x);
    }

    #[test]
    fn names_round_trip_and_serialize_as_written() {
        for a in Algorithm::ALL {
            assert_eq!(Algorithm::from_name(a.name()), Some(a));
            assert_eq!(
                serde_json::to_value(a).unwrap(),
                serde_json::Value::from(a.name())
            );
        }
        assert_eq!(Algorithm::from_name("DT"), None);
        assert_eq!(Algorithm::default(), Algorithm::Dt);
    }
}
