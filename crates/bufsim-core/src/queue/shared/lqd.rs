//! Longest-queue drop, a push-out policy (Hahne, Kesselman & Mansour,
//! "Competitive buffer management for shared-memory switches", SPAA 2001;
//! the optimal symmetric push-out of Cidon, Georgiadis, Guérin
//! & Khamisy, "Optimal buffer sharing", IEEE JSAC 13(7), 1995): every
//! arrival is accepted while the pool has room; when it is full, a packet
//! is pushed out of the longest queue to make room, and when the arrival's
//! own queue is the longest (ties included) the arrival is dropped
//! instead.
//!
//! The packet pushed out is the longest queue's tail, the one that joined
//! last: it has waited least, and it is the one drop-tail would have
//! refused (the ABM authors' ns-3 baseline, `inet-tub/ns3-datacenter`,
//! pushes out the tail too). With bytes, packets are pushed out until the
//! arrival fits. The arrival then meets its port's discipline, which may
//! still drop it (its own `link.buffer`, RED): the push-out is not undone.

/// The queue to push a packet out of, among queues of lengths `lens` (the
/// pool's unit), for an arrival at queue `own` in a full pool: the longest,
/// the earliest on ties; `None` when `own` is among the longest (the
/// arrival is dropped) or every other queue is empty.
pub fn victim(lens: impl Iterator<Item = u64>, own: usize) -> Option<usize> {
    let mut own_len = 0;
    let mut best: Option<(usize, u64)> = None;
    for (i, q) in lens.enumerate() {
        if i == own {
            own_len = q;
        } else if q > best.map_or(0, |b| b.1) {
            best = Some((i, q));
        }
    }
    best.filter(|&(_, q)| q > own_len).map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::Packet;
    use crate::queue::droptail::DropTail;
    use crate::queue::{AnyDiscipline, DropReason, Limit, Queue};
    use crate::units::SimTime;

    #[test]
    fn the_longest_other_queue_loses_a_packet() {
        let v = |lens: &[u64], own| victim(lens.iter().copied(), own);
        assert_eq!(v(&[10, 30, 20, 0], 0), Some(1));
        assert_eq!(v(&[10, 30, 30, 0], 3), Some(1), "earliest on ties");
        // The arrival's own queue is the longest, or ties for it.
        assert_eq!(v(&[10, 30, 20, 0], 1), None);
        assert_eq!(v(&[30, 30, 20, 0], 1), None);
        assert_eq!(v(&[0, 0], 0), None);
    }

    #[test]
    fn the_tail_is_pushed_out_last_in_first_out() {
        // Packets 0, 1, 2 join in order; push-outs take 2, then 1, and the
        // head (0) is still the next to leave for the link.
        let mut q = Queue::new(AnyDiscipline::DropTail(DropTail::with_limit(
            Limit::Packets(10),
        )));
        for seq in 0..3 {
            q.enqueue(Packet::new(0, 1000, seq, 0), SimTime(seq));
        }
        let out = |q: &mut Queue| q.push_out(SimTime(10), DropReason::OVERFLOW).map(|p| p.seq);
        assert_eq!(out(&mut q), Some(2));
        assert_eq!(out(&mut q), Some(1));
        assert_eq!(q.occupancy().pkts, 1);
        assert_eq!(q.occupancy().bytes, 1000);
        assert_eq!(q.counters.drops, 2);
        assert_eq!(q.counters.arrivals, 3);
        assert_eq!(q.dequeue(SimTime(20)).map(|d| d.pkt.seq), Some(0));
        assert_eq!(out(&mut q), None);
    }
}
