//! Flow-aware buffer sharing (Apostolaki, Vanbever & Ghobadi, "FAB: Toward
//! Flow-aware Buffer Sharing on Programmable Switches", Workshop on Buffer
//! Sizing, 2019), as the ABM authors implement it as a baseline
//! (`inet-tub/ns3-datacenter`, `GenQueueDisc::FlowAwareBuffer`, read for
//! its rule): each egress port counts the bytes each flow brought it; a
//! flow not seen for more than `window` starts again from 0. An arrival
//! first adds its bytes to its flow's count (a packet the pool then drops
//! counted too); while the count is below `bytes` the packet's threshold
//! uses the priority factor `alpha_fab`, else its class's `alpha`:
//!
//! `q < alpha' (b - total)`, and the arrival fits in what is left,
//!
//! the dynamic threshold ([`super::dt`]) with that factor. The
//! implementation compares `q + a <= alpha' (b - total)`; bufsim keeps its
//! dynamic threshold's `q < alpha' (b - total)` ([`super::dt::admits`]), so
//! that FAB with a flow past its count is DT bit for bit.
//!
//! The authors' defaults (their `abm-evaluation.cc`): `window` 5 ms,
//! `bytes` 15 packets of 1400 bytes, `alpha_fab` their `alphaUnsched`,
//! 1024: a short flow's packets, or a long one's after a pause, may fill
//! most of the free buffer.
//!
//! The implementation keeps every flow's count for the run; bufsim's
//! [`FlowTable`] drops counts idle for more than `window` (they would be
//! reset at the flow's next packet anyway) in a sweep at most once per
//! `window`, so a long run holds the flows of about two windows.

use std::collections::HashMap;

use crate::units::SimTime;

/// The count window's default (the authors' `FabWindow`, 5 ms).
pub const DEFAULT_WINDOW: SimTime = SimTime(5_000_000_000);

/// The count's limit by default, in packets of the link's size (the
/// authors' `FabThreshold`, 15 x 1400 bytes).
pub const DEFAULT_PKTS: u64 = 15;

/// The priority factor's default (the authors' `alphaUnsched`).
pub const DEFAULT_ALPHA: f64 = 1024.0;

/// The threshold `alpha (b - total)` (the pool's unit), `alpha` the
/// priority factor for a flow whose count is below its limit, else the
/// class's; `total <= b`.
#[inline]
pub fn threshold(alpha: f64, b: u64, total: u64) -> f64 {
    super::dt::threshold(alpha, b, total)
}

/// Whether an arrival of `a` joins a queue holding `q` in a pool of `b`
/// holding `total`: `total + a <= b` and `q` under [`threshold`].
#[inline]
pub fn admits(alpha: f64, q: u64, total: u64, a: u64, b: u64) -> bool {
    total + a <= b && (q as f64) < threshold(alpha, b, total)
}

/// The factor an arrival's threshold uses: `alpha_fab` while its flow's
/// count, its own bytes included, is below `limit` bytes, else `alpha`.
#[inline]
pub fn factor(count: u64, limit: u64, alpha_fab: f64, alpha: f64) -> f64 {
    if count < limit { alpha_fab } else { alpha }
}

/// Each flow's bytes at a buffer's ports and when it was last seen, keyed
/// by port and flow.
#[derive(Clone, Debug)]
pub struct FlowTable {
    counts: HashMap<u64, (u64, SimTime)>,
    window: SimTime,
    /// The next sweep of idle flows.
    next_sweep: SimTime,
}

impl FlowTable {
    /// An empty table whose counts reset after `window` of silence.
    pub fn new(window: SimTime) -> FlowTable {
        FlowTable {
            counts: HashMap::new(),
            window,
            next_sweep: window,
        }
    }

    /// Count `size` bytes of `flow` arriving at `port` at `now` and return
    /// the flow's count there, these bytes included: from 0 again if the
    /// flow was last seen more than `window` before `now`.
    pub fn arrive(&mut self, port: u32, flow: u32, size: u32, now: SimTime) -> u64 {
        if now >= self.next_sweep {
            // Counts idle for more than the window would restart from 0.
            let w = self.window;
            self.counts.retain(|_, (_, last)| now - *last <= w);
            self.next_sweep = now + w;
        }
        let e = self
            .counts
            .entry(u64::from(port) << 32 | u64::from(flow))
            .or_insert((0, now));
        if now - e.1 > self.window {
            e.0 = 0;
        }
        e.0 += u64::from(size);
        e.1 = now;
        e.0
    }

    /// How many flows the table holds.
    pub fn len(&self) -> usize {
        self.counts.len()
    }

    /// Whether the table holds no flow.
    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::shared::dt;

    #[test]
    fn the_threshold_is_the_dynamic_one_with_the_flows_factor() {
        // 500-packet pool holding 200: alpha (500 - 200).
        assert_eq!(threshold(1.0, 500, 200), 300.0);
        assert_eq!(threshold(1024.0, 500, 200), 307_200.0);
        assert_eq!(threshold(0.5, 500, 500), 0.0);
        for (alpha, q, total) in [(1.0, 249, 249), (1.0, 250, 250), (0.5, 99, 300)] {
            assert_eq!(
                admits(alpha, q, total, 1, 500),
                dt::admits(alpha, q, total, 1, 500)
            );
        }
        // A queue of 400 in a pool holding 450: over DT's 50, under 1024's.
        assert!(!admits(1.0, 400, 450, 1, 500));
        assert!(admits(1024.0, 400, 450, 1, 500));
        assert!(!admits(1024.0, 0, 500, 1, 500), "a full pool");
        assert_eq!(factor(1400, 21_000, 1024.0, 1.0), 1024.0);
        assert_eq!(factor(21_000, 21_000, 1024.0, 1.0), 1.0);
    }

    #[test]
    fn a_flows_first_bytes_get_the_priority_factor() {
        let mut t = FlowTable::new(DEFAULT_WINDOW);
        let limit = DEFAULT_PKTS * 1400;
        let us = |n: u64| SimTime(n * 1_000_000);
        // 1400-byte packets 1 us apart: counts 1400, 2800, ...; the 15th
        // reaches 21000, not below the limit, and takes the class's alpha.
        let alphas: Vec<f64> = (0..20)
            .map(|i| factor(t.arrive(3, 7, 1400, us(i)), limit, 1024.0, 1.0))
            .collect();
        assert_eq!(alphas[..14], [1024.0; 14]);
        assert_eq!(alphas[14..], [1.0; 6]);
        // Another port, or another flow, counts apart.
        assert_eq!(t.arrive(4, 7, 1400, us(20)), 1400);
        assert_eq!(t.arrive(3, 8, 1400, us(20)), 1400);
        assert_eq!(t.len(), 3);
    }

    #[test]
    fn the_count_resets_after_the_window_and_idle_flows_are_dropped() {
        let w = SimTime(5_000);
        let mut t = FlowTable::new(w);
        assert_eq!(t.arrive(0, 1, 1000, SimTime(0)), 1000);
        assert_eq!(t.arrive(0, 2, 1000, SimTime(0)), 1000);
        // Exactly the window later: still counting (more than it resets).
        assert_eq!(t.arrive(0, 1, 1000, SimTime(5_000)), 2000);
        assert_eq!(t.arrive(0, 1, 1000, SimTime(10_001)), 1000);
        // Flow 2, idle since 0, was swept at the sweep of 10 001.
        assert_eq!(t.len(), 1);
        assert_eq!(t.arrive(0, 2, 500, SimTime(10_002)), 500);
        assert!(!t.is_empty());
    }
}
