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

pub mod abm;
pub mod complete;
pub mod dt;
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
}

impl Algorithm {
    /// Every algorithm, in the order the error messages and docs list them.
    pub const ALL: [Algorithm; 5] = [
        Algorithm::Static,
        Algorithm::Complete,
        Algorithm::Dt,
        Algorithm::Lqd,
        Algorithm::Abm,
    ];

    /// The name `pool.algorithm` gives.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Static => "static",
            Algorithm::Complete => "complete",
            Algorithm::Dt => "dt",
            Algorithm::Lqd => "lqd",
            Algorithm::Abm => "abm",
        }
    }

    /// The algorithm named `name`, if any.
    pub fn from_name(name: &str) -> Option<Algorithm> {
        Algorithm::ALL.into_iter().find(|a| a.name() == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
