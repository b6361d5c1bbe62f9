//! A first-in first-out delay line: items leave in the order they entered,
//! each at its own ready time (non-decreasing). The simulator keeps one event
//! scheduled for the head only, so pending events stay O(links), not
//! O(packets in flight): a binary heap slows down sharply with hundreds of
//! thousands of pending events (cache misses on every pop).

use std::collections::VecDeque;

use crate::units::SimTime;

/// A FIFO of `(ready time, item)`.
pub struct Pipe<T> {
    items: VecDeque<(SimTime, T)>,
}

impl<T> Default for Pipe<T> {
    fn default() -> Self {
        Pipe {
            items: VecDeque::new(),
        }
    }
}

impl<T> Pipe<T> {
    /// Append an item ready at `at`. Returns true when the pipe was empty
    /// (the caller must then schedule an event for the new head).
    ///
    /// An empty pipe starts over at the front of its buffer (`clear` sets
    /// the ring's head back to its first slot): a ring keeps the capacity of
    /// its fullest moment (a slow-start burst), and a head walking through
    /// all of it would spread the few items in flight over the whole
    /// buffer, each flow's pipes then occupying that much cache where a few
    /// entries would do. With thousands of flows, that footprint is what
    /// misses the cache.
    #[inline]
    pub fn push(&mut self, at: SimTime, item: T) -> bool {
        debug_assert!(
            self.items.back().is_none_or(|(t, _)| *t <= at),
            "pipe order"
        );
        let first = self.items.is_empty();
        if first {
            self.items.clear();
        }
        self.items.push_back((at, item));
        first
    }
    /// Remove the head if it is ready at `now`.
    #[inline]
    pub fn pop_ready(&mut self, now: SimTime) -> Option<T> {
        match self.items.front() {
            Some((t, _)) if *t <= now => self.items.pop_front().map(|(_, x)| x),
            _ => None,
        }
    }

    /// Remove the head item whatever its time, with its time.
    pub fn pop(&mut self) -> Option<(SimTime, T)> {
        self.items.pop_front()
    }

    /// The head item and its ready time, if any.
    #[inline]
    pub fn head(&self) -> Option<&(SimTime, T)> {
        self.items.front()
    }

    /// Ready time of the head, if any.
    #[inline]
    pub fn head_time(&self) -> Option<SimTime> {
        self.items.front().map(|(t, _)| *t)
    }
    /// Number of items in the pipe.
    pub fn len(&self) -> usize {
        self.items.len()
    }
    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_leave_in_order_at_their_times() {
        let mut p = Pipe::default();
        assert!(p.push(SimTime(5), 'a'));
        assert!(!p.push(SimTime(5), 'b'));
        assert!(!p.push(SimTime(9), 'c'));
        assert_eq!(p.pop_ready(SimTime(4)), None);
        assert_eq!(p.pop_ready(SimTime(5)), Some('a'));
        assert_eq!(p.pop_ready(SimTime(5)), Some('b'));
        assert_eq!(p.head_time(), Some(SimTime(9)));
        assert_eq!(p.pop_ready(SimTime(10)), Some('c'));
        assert!(p.is_empty() && p.head_time().is_none());
    }

    /// The cache property of `push`: after the pipe drains, the next item
    /// goes to the first slot of the buffer again, not after the last one.
    #[test]
    fn an_emptied_pipe_refills_from_the_front_of_its_buffer() {
        let mut p = Pipe::default();
        for k in 0..3u64 {
            p.push(SimTime(k), k);
        }
        let front = p.items.front().map(|x| x as *const _);
        while p.pop_ready(SimTime(10)).is_some() {}
        p.push(SimTime(11), 7);
        assert_eq!(p.items.front().map(|x| x as *const _), front);
    }
}
