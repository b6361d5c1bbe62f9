//! The pending-event set: a binary heap keyed by (time, sequence number), so
//! equal-time events pop in insertion order (as SimPy's `(time, priority, seq)`)
//! and a run is bit-for-bit repeatable.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::units::SimTime;

/// A min-heap of events of type `E` ordered by time, then by insertion order.
pub struct EventQueue<E> {
    heap: BinaryHeap<Reverse<(u64, u64, Slot<E>)>>,
    seq: u64,
}

/// Wrapper that keeps `E` out of the ordering (the key is unique already).
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

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    /// An empty queue.
    pub fn new() -> Self {
        EventQueue { heap: BinaryHeap::with_capacity(1024), seq: 0 }
    }
    /// Schedule `ev` at `time`.
    #[inline]
    pub fn push(&mut self, time: SimTime, ev: E) {
        self.seq += 1;
        self.heap.push(Reverse((time.0, self.seq, Slot(ev))));
    }
    /// Remove and return the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        self.heap.pop().map(|Reverse((t, _, Slot(e)))| (SimTime(t), e))
    }
    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.heap.len()
    }
    /// True when nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
