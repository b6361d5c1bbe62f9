//! Seeded random streams: every random element of a run draws from its own
//! named stream, derived from the scenario seed, so adding a consumer never
//! shifts another's numbers (as ns-3's `AssignStreams`).
//!
//! The generator is `Pcg64Mcg` (rand_pcg), a named algorithm whose output is
//! stable across crate versions, unlike `StdRng`.

use rand_pcg::Pcg64Mcg;

/// The generator every stream uses.
pub type Rng = Pcg64Mcg;

/// Who owns a stream. The discriminant and the index make the stream id.
#[derive(Clone, Copy, Debug)]
pub enum Stream {
    /// Random choices made while resolving the scenario (random RTTs, start times).
    Scenario,
    /// Poisson background source number `i`.
    Background(u32),
    /// Random-loss element of TCP flow number `i`.
    Loss(u32),
    /// Queue discipline randomness (RED drops, ...) of port `i` (0: the
    /// dumbbell's bottleneck).
    Queue(u32),
    /// Fluid engine randomness (loss-synchronization draws).
    Fluid,
    /// Traffic generators (flow arrivals, sizes, think times) number `i`.
    Traffic(u32),
    /// Send-time jitter of TCP flow slot `i`.
    Jitter(u32),
}

impl Stream {
    fn id(self) -> u64 {
        let (kind, idx) = match self {
            Stream::Scenario => (1u64, 0u32),
            Stream::Background(i) => (2, i),
            Stream::Loss(i) => (3, i),
            Stream::Queue(i) => (4, i),
            Stream::Fluid => (5, 0),
            Stream::Traffic(i) => (6, i),
            Stream::Jitter(i) => (7, i),
        };
        (kind << 32) | idx as u64
    }
}

/// SplitMix64 finalizer: spreads nearby integers over the whole 64-bit range.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The generator of `which` for a run with scenario seed `seed`.
pub fn stream(seed: u64, which: Stream) -> Rng {
    let hi = mix(seed ^ mix(which.id()));
    let lo = mix(hi ^ which.id().rotate_left(17));
    Pcg64Mcg::new(((hi as u128) << 64) | (lo as u128 | 1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt as _;

    #[test]
    fn streams_differ_and_repeat() {
        let a: u64 = stream(1, Stream::Loss(0)).random();
        let b: u64 = stream(1, Stream::Loss(1)).random();
        let c: u64 = stream(2, Stream::Loss(0)).random();
        assert_ne!(a, b);
        assert_ne!(a, c);
        assert_eq!(a, stream(1, Stream::Loss(0)).random::<u64>());
    }
}
