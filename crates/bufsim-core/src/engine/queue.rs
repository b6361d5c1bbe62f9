//! The pending-event set, ordered by (time, sequence number), so equal-time
//! events pop in insertion order (as SimPy's `(time, priority, seq)`; slots,
//! below, first) and a run is bit-for-bit repeatable.
//!
//! It is a *calendar queue* (a timing wheel with exact order): simulated time
//! is cut into buckets of [`BUCKET_PS`] picoseconds; the [`WHEEL`] buckets
//! following the current one each keep an unsorted list of their events, and
//! events further ahead wait in a binary heap (the overflow). When the
//! current bucket is used up, the next non-empty bucket (found through an
//! occupancy bitmap) or the overflow's earliest bucket, whichever comes
//! first, is sorted by (time, seq) into the *ready* batch, and events pop
//! from its end. An event pushed into the current bucket (or earlier) is
//! inserted into the ready batch at its sorted place. So the pop order is
//! exactly the (time, seq) order a single heap gives, while a push costs
//! O(1) and a pop O(1) plus a small sort per bucket.
//!
//! Why a wheel: the packet engine keeps one event per FIFO pipe head, which
//! with many flows (few packets in each pipe) is about one push and one pop
//! per packet per pipe, on tens of thousands of pending events, where a
//! binary heap's sift walks cold cache lines at every level. Those delays
//! (access and return paths, milliseconds) fit the wheel's span, so nearly
//! every event skips the heap.
//!
//! Events of which at most one is pending at a time (a link's "transmission
//! done") may instead live in a numbered *slot* beside the wheel. A slot's
//! event pops before every wheel event at its time (slots among themselves
//! in insertion order): a link that finishes a packet at the instant another
//! arrives frees its buffer place first. Without that rule, traffic clocked
//! by the bottleneck itself (ACK-clocked bursts with no slower access link
//! in front, whose packets arrive exactly one packet time apart) would find
//! the buffer full at every departure instant, a buffer one packet smaller
//! than configured; with it, an arrival at a departure's instant sees what a
//! fluid queue sees, its content just after the departure (departures before
//! arrivals, the usual convention of discrete-time queues).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::units::SimTime;

/// log2 of the bucket width in picoseconds: 2^22 ps = 4.19 us (about three
/// 1500 B packet times at 10 Gbps).
const BUCKET_BITS: u32 = 22;
/// Bucket width, picoseconds.
pub const BUCKET_PS: u64 = 1 << BUCKET_BITS;
/// log2 of the number of buckets in the wheel.
const WHEEL_BITS: u32 = 16;
/// Number of buckets in the wheel: 65,536 x 4.19 us = 275 ms ahead of the
/// current bucket (access and return delays of RTTs up to ~500 ms).
pub const WHEEL: usize = 1 << WHEEL_BITS;
const MASK: u64 = WHEEL as u64 - 1;
/// Words of the occupancy bitmap, and of its summary (one bit per word).
const WORDS: usize = WHEEL / 64;
const SUMMARY: usize = WORDS.div_ceil(64);
/// End of a bucket's list.
const NIL: u32 = u32::MAX;

/// An event in a wheel bucket's singly linked list.
struct Node<E> {
    time: u64,
    seq: u64,
    next: u32,
    ev: E,
}

/// A min-queue of events of type `E` ordered by time, then (slots first) by
/// insertion order.
pub struct EventQueue<E: Copy> {
    seq: u64,
    /// Absolute number (time / [`BUCKET_PS`]) of the current bucket.
    /// Before the first pop none is: `u64::MAX`, one before bucket 0 in
    /// wrapping arithmetic. So events pushed while a run is set up (thousands
    /// of flows starting at time 0, say) wait in the wheel and are sorted
    /// once, when the first pop makes their bucket current: inserted one by
    /// one into the ready batch, each would shift the whole batch, a setup
    /// quadratic in the number of flows.
    cur: u64,
    /// Events of buckets up to the current one, sorted by (time, seq)
    /// from the latest to the earliest: the next one is at the end.
    ready: Vec<(u64, u64, E)>,
    /// First node of each wheel bucket's list ([`NIL`]: empty).
    heads: Box<[u32]>,
    /// Node arena of the wheel's lists; unused nodes form a free list.
    nodes: Vec<Node<E>>,
    free: u32,
    /// Occupancy bitmap of the wheel buckets, and its summary.
    bits: Box<[u64]>,
    summary: [u64; SUMMARY],
    /// Events beyond the wheel's span.
    overflow: BinaryHeap<Reverse<(u64, u64, Slot<E>)>>,
    slots: Vec<Option<(u64, u64, E)>>,
    /// Events in `ready`, the wheel and the overflow (slots excluded).
    len: usize,
}

/// Wrapper that keeps `E` out of the ordering (the key is unique already).
#[derive(Clone, Copy)]
struct Slot<E>(E);
impl<E> PartialEq for Slot<E> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}
impl<E> Eq for Slot<E> {}
impl<E> PartialOrd for Slot<E> {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl<E> Ord for Slot<E> {
    fn cmp(&self, _: &Self) -> std::cmp::Ordering {
        std::cmp::Ordering::Equal
    }
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy> EventQueue<E> {
    /// An empty queue (about 270 kB for the wheel's bucket heads and bitmap).
    pub fn new() -> Self {
        EventQueue {
            seq: 0,
            cur: u64::MAX,
            ready: Vec::with_capacity(64),
            heads: vec![NIL; WHEEL].into_boxed_slice(),
            nodes: Vec::with_capacity(1024),
            free: NIL,
            bits: vec![0u64; WORDS].into_boxed_slice(),
            summary: [0; SUMMARY],
            overflow: BinaryHeap::with_capacity(64),
            slots: Vec::new(),
            len: 0,
        }
    }

    /// Schedule `ev` at `time` in slot `k`, which must be empty.
    #[inline]
    pub fn push_slot(&mut self, k: usize, time: SimTime, ev: E) {
        if k >= self.slots.len() {
            self.slots.resize_with(k + 1, || None);
        }
        debug_assert!(self.slots[k].is_none(), "slot {k} already holds an event");
        self.seq += 1;
        self.slots[k] = Some((time.0, self.seq, ev));
    }

    /// Schedule `ev` at `time`.
    ///
    /// Always inlined: the compiler would leave it a call at the packet
    /// engine's twenty call sites, several of them on every packet's path.
    #[inline(always)]
    pub fn push(&mut self, time: SimTime, ev: E) {
        self.seq += 1;
        self.len += 1;
        let (t, q) = (time.0, self.seq);
        let b = t >> BUCKET_BITS;
        // Buckets ahead of the current one; 0 or less: the current bucket
        // or the past.
        let ahead = b.wrapping_sub(self.cur) as i64;
        if ahead <= 0 {
            // The current bucket (or, for an event in the past, earlier):
            // into the sorted ready batch, after every earlier key.
            let i = self.ready.partition_point(|&(rt, rq, _)| (rt, rq) > (t, q));
            self.ready.insert(i, (t, q, ev));
        } else if ahead < WHEEL as i64 {
            let w = (b & MASK) as usize;
            let node = Node {
                time: t,
                seq: q,
                next: self.heads[w],
                ev,
            };
            let n = if self.free != NIL {
                let n = self.free;
                self.free = self.nodes[n as usize].next;
                self.nodes[n as usize] = node;
                n
            } else {
                self.nodes.push(node);
                (self.nodes.len() - 1) as u32
            };
            self.heads[w] = n;
            self.bits[w >> 6] |= 1 << (w & 63);
            self.summary[w >> 12] |= 1 << ((w >> 6) & 63);
        } else {
            self.overflow.push(Reverse((t, q, Slot(ev))));
        }
    }

    /// First occupied wheel position at or after `from` (no wrap).
    #[inline]
    fn find_from(&self, from: usize) -> Option<usize> {
        let w = from >> 6;
        if w >= WORDS {
            return None;
        }
        let m = self.bits[w] & (!0u64 << (from & 63));
        if m != 0 {
            return Some((w << 6) | m.trailing_zeros() as usize);
        }
        let w1 = w + 1;
        for sw in (w1 >> 6)..SUMMARY {
            let mut s = self.summary[sw];
            if sw == w1 >> 6 {
                s &= !0u64 << (w1 & 63);
            }
            if s != 0 {
                let word = (sw << 6) | s.trailing_zeros() as usize;
                return Some((word << 6) | self.bits[word].trailing_zeros() as usize);
            }
        }
        None
    }

    /// The ready batch is empty: make the next non-empty bucket (wheel or
    /// overflow) the current one and sort its events into the batch.
    fn advance(&mut self) {
        let first = self.cur.wrapping_add(1);
        let start = (first & MASK) as usize;
        let wheel = self
            .find_from(start)
            .or_else(|| self.find_from(0))
            .map(|p| first + ((p as u64).wrapping_sub(start as u64) & MASK));
        let over = self
            .overflow
            .peek()
            .map(|Reverse((t, _, _))| t >> BUCKET_BITS);
        let b = match (wheel, over) {
            (Some(a), Some(o)) => a.min(o),
            (Some(a), None) => a,
            (None, Some(o)) => o,
            (None, None) => return,
        };
        self.cur = b;
        if wheel == Some(b) {
            let w = (b & MASK) as usize;
            let mut n = self.heads[w];
            self.heads[w] = NIL;
            while n != NIL {
                let node = &mut self.nodes[n as usize];
                self.ready.push((node.time, node.seq, node.ev));
                let next = node.next;
                node.next = self.free;
                self.free = n;
                n = next;
            }
            self.bits[w >> 6] &= !(1 << (w & 63));
            if self.bits[w >> 6] == 0 {
                self.summary[w >> 12] &= !(1 << ((w >> 6) & 63));
            }
        }
        while let Some(Reverse((t, _, _))) = self.overflow.peek() {
            if t >> BUCKET_BITS != b {
                break;
            }
            let Some(Reverse((t, q, Slot(e)))) = self.overflow.pop() else {
                break;
            };
            self.ready.push((t, q, e));
        }
        if self.ready.len() > 1 {
            self.ready.sort_unstable_by_key(|e| Reverse((e.0, e.1)));
        }
    }

    /// Remove and return the earliest event (wheel, overflow or slot).
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        if self.ready.is_empty() && self.len > 0 {
            self.advance();
        }
        let mut best: Option<(u64, u64, usize)> = None;
        for (k, slot) in self.slots.iter().enumerate() {
            if let Some((t, q, _)) = slot
                && best.is_none_or(|(bt, bq, _)| (*t, *q) < (bt, bq))
            {
                best = Some((*t, *q, k));
            }
        }
        match (best, self.ready.last()) {
            // A slot's event pops before every other event at its time.
            (Some((t, _, k)), top) if top.is_none_or(|&(rt, _, _)| t <= rt) => {
                self.slots[k].take().map(|(t, _, e)| (SimTime(t), e))
            }
            _ => self.ready.pop().map(|(t, _, e)| {
                self.len -= 1;
                (SimTime(t), e)
            }),
        }
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.len + self.slots.iter().filter(|s| s.is_some()).count()
    }

    /// True when nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt as _, SeedableRng as _};

    #[test]
    fn ties_pop_in_insertion_order() {
        let mut q = EventQueue::new();
        q.push(SimTime(5), 'a');
        q.push(SimTime(3), 'b');
        q.push(SimTime(5), 'c');
        q.push(SimTime(3), 'd');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['b', 'd', 'a', 'c']);
    }

    #[test]
    fn events_pushed_before_the_first_pop_keep_their_order() {
        // Setup pushes (no bucket current yet) go through the wheel, the
        // first bucket's included; ties at time 0 pop in insertion order.
        let mut q = EventQueue::new();
        for k in 0..1000u32 {
            q.push(SimTime(0), k);
        }
        q.push(SimTime(BUCKET_PS - 1), 1000);
        q.push(SimTime(1), 1001);
        q.push(SimTime(0), 1002);
        let order: Vec<u32> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        let mut want: Vec<u32> = (0..1000).collect();
        want.extend([1002, 1001, 1000]);
        assert_eq!(order, want);
        // A push into the current bucket after the first pop still lands in
        // the ready batch at its place.
        q.push(SimTime(5), 1);
        q.push(SimTime(3), 2);
        assert_eq!(q.pop(), Some((SimTime(3), 2)));
        q.push(SimTime(4), 3);
        assert_eq!(q.pop(), Some((SimTime(4), 3)));
        assert_eq!(q.pop(), Some((SimTime(5), 1)));
        assert!(q.is_empty());
    }

    #[test]
    fn slots_pop_first_at_equal_times() {
        let mut q = EventQueue::new();
        q.push(SimTime(5), 'a');
        q.push_slot(0, SimTime(3), 'b');
        q.push(SimTime(3), 'c');
        q.push_slot(1, SimTime(5), 'd');
        q.push(SimTime(4), 'e');
        q.push_slot(2, SimTime(5), 'f');
        assert_eq!(q.len(), 6);
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['b', 'c', 'e', 'd', 'f', 'a']);
        assert!(q.is_empty());
    }

    /// The reference: one binary heap keyed by (time, class, seq), class 0
    /// for a slot's event and 1 for the others.
    struct Heap(BinaryHeap<Reverse<(u64, u8, u64, u32)>>, u64);
    impl Heap {
        fn push(&mut self, t: u64, slot: bool, e: u32) {
            self.1 += 1;
            self.0.push(Reverse((t, u8::from(!slot), self.1, e)));
        }
        fn pop(&mut self) -> Option<(u64, u32)> {
            self.0.pop().map(|Reverse((t, _, _, e))| (t, e))
        }
    }

    /// Random interleavings of pushes (in the current bucket, the wheel,
    /// beyond it, in the past, with ties, into free slots) and pops give
    /// the heap's order.
    #[test]
    fn pops_in_the_order_of_a_binary_heap() {
        for seed in 0..40u64 {
            let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(seed);
            let mut q = EventQueue::new();
            let mut h = Heap(BinaryHeap::new(), 0);
            let mut now = 0u64;
            let mut id = 0u32;
            // The event each of three slots holds.
            let mut held: [Option<u32>; 3] = [None; 3];
            for _ in 0..20_000 {
                if rng.random_range(0..100) < 55 {
                    let ahead = match rng.random_range(0..6) {
                        0 => 0,
                        1 => rng.random_range(0..BUCKET_PS),
                        2 => rng.random_range(0..4 * BUCKET_PS),
                        3 => rng.random_range(0..WHEEL as u64 * BUCKET_PS),
                        4 => rng.random_range(0..3 * WHEEL as u64 * BUCKET_PS),
                        _ => (rng.random_range(0..4u64)) * BUCKET_PS,
                    };
                    // Now and then an event in the past (the heap pops it next).
                    let t = if rng.random_range(0..50) == 0 {
                        now.saturating_sub(rng.random_range(0..BUCKET_PS))
                    } else {
                        now + ahead
                    };
                    id += 1;
                    let k = rng.random_range(0..12);
                    let slot = k < 3 && held[k].is_none();
                    if slot {
                        q.push_slot(k, SimTime(t), id);
                        held[k] = Some(id);
                    } else {
                        q.push(SimTime(t), id);
                    }
                    h.push(t, slot, id);
                } else {
                    let a = q.pop().map(|(t, e)| (t.0, e));
                    let b = h.pop();
                    assert_eq!(a, b, "seed {seed}");
                    if let Some((t, e)) = a {
                        now = now.max(t);
                        held.iter_mut()
                            .filter(|s| **s == Some(e))
                            .for_each(|s| *s = None);
                    }
                }
                assert_eq!(q.len(), h.0.len());
            }
            while let Some(b) = h.pop() {
                assert_eq!(q.pop().map(|(t, e)| (t.0, e)), Some(b), "seed {seed}");
            }
            assert!(q.pop().is_none());
        }
    }
}
