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
    #[inline]
    pub fn push(&mut self, at: SimTime, item: T) -> bool {
        debug_assert!(
            self.items.back().is_none_or(|(t, _)| *t <= at),
            "pipe order"
        );
        self.items.push_back((at, item));
        self.items.len() == 1
    }
    /// Remove the head if it is ready at `now`.
    #[inline]
    pub fn pop_ready(&mut self, now: SimTime) -> Option<T> {
        match self.items.front() {
            Some((t, _)) if *t <= now => self.items.pop_front().map(|(_, x)| x),
            _ => None,
        }
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
