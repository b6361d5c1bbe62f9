//! A sorted list of disjoint segment ranges `[start, end)`: the receiver's
//! out-of-order segments (`tcp::receiver`) and the sender's SACKed ones
//! (`tcp::sack`), one range per island above a hole.
//!
//! Both lists change at three places: a new segment or SACK block extends
//! the highest range or opens one above it; the cumulative ACK (or the
//! in-order segment that fills the first hole) removes the lowest ranges;
//! and retransmissions repair holes, mostly in sequence order, so their
//! merges follow a cursor that moves up through the list. A plain sorted
//! `Vec` moves every range above each removal, so with many holes (a lossy
//! window of thousands of segments) each ACK cost O(holes). Here the list is
//! a gap buffer: the live ranges are `buf[head..gap]` then `buf[tail..]`.
//! Removing at the front advances `head` (the dead prefix is reclaimed once
//! it outgrows the live ranges, amortized O(1)); a change at the top is a
//! push or an overwrite at the end; a merge or an insert below the top moves
//! the gap there first, at a cost of the distance from the last one. Lookups
//! gallop from the gap, O(log distance).

/// Sorted, disjoint, non-empty ranges `[start, end)` of segments.
#[derive(Clone, Debug, Default)]
pub struct Ranges {
    buf: Vec<(u64, u64)>,
    /// `buf[..head]` is dead; the lower live ranges are `buf[head..gap]`.
    head: usize,
    gap: usize,
    /// `buf[gap..tail]` is the gap; the upper live ranges are `buf[tail..]`.
    tail: usize,
}

/// Index of the first element of `v` for which `pred` is false (`pred`
/// true on a prefix), galloping up from the front.
fn gallop_up(v: &[(u64, u64)], mut pred: impl FnMut(&(u64, u64)) -> bool) -> usize {
    let (mut lo, mut step) = (0, 1);
    while lo + step <= v.len() {
        let p = lo + step - 1;
        if !pred(&v[p]) {
            return lo + v[lo..p].partition_point(pred);
        }
        lo = p + 1;
        step *= 2;
    }
    lo + v[lo..].partition_point(pred)
}

/// The same, galloping down from the back.
fn gallop_down(v: &[(u64, u64)], mut pred: impl FnMut(&(u64, u64)) -> bool) -> usize {
    let (mut hi, mut step) = (v.len(), 1);
    while hi >= step {
        let p = hi - step;
        if pred(&v[p]) {
            return p + 1 + v[p + 1..hi].partition_point(pred);
        }
        hi = p;
        step *= 2;
    }
    v[..hi].partition_point(pred)
}

impl Ranges {
    /// Live ranges below the gap.
    #[inline]
    fn lower(&self) -> &[(u64, u64)] {
        &self.buf[self.head..self.gap]
    }

    /// Live ranges above the gap.
    #[inline]
    fn upper(&self) -> &[(u64, u64)] {
        &self.buf[self.tail..]
    }

    /// Number of ranges.
    #[inline]
    pub fn len(&self) -> usize {
        (self.gap - self.head) + (self.buf.len() - self.tail)
    }

    /// Whether there is no range.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The lowest range.
    #[inline]
    pub fn first(&self) -> Option<(u64, u64)> {
        self.lower().first().or(self.upper().first()).copied()
    }

    /// The highest range.
    #[inline]
    pub fn last(&self) -> Option<(u64, u64)> {
        self.upper().last().or(self.lower().last()).copied()
    }

    /// Physical index in `buf` of range `i` (0: the lowest).
    #[inline]
    fn at(&self, i: usize) -> usize {
        let below = self.gap - self.head;
        if i < below {
            self.head + i
        } else {
            self.tail + (i - below)
        }
    }

    /// Range `i` (0: the lowest).
    #[inline]
    pub fn get(&self, i: usize) -> (u64, u64) {
        self.buf[self.at(i)]
    }

    /// The ranges, highest first.
    pub fn iter_rev(&self) -> impl Iterator<Item = &(u64, u64)> {
        self.upper().iter().rev().chain(self.lower().iter().rev())
    }

    /// Index of the first range for which `pred` is false (`pred` true on
    /// a prefix), galloping from the gap: O(log distance).
    pub fn partition_point(&self, mut pred: impl FnMut(&(u64, u64)) -> bool) -> usize {
        let (lower, upper) = (self.lower(), self.upper());
        match lower.last() {
            Some(l) if !pred(l) => gallop_down(lower, pred),
            _ => lower.len() + gallop_up(upper, pred),
        }
    }

    /// Move the gap so that ranges `0..i` lie below it.
    fn move_gap(&mut self, i: usize) {
        let below = self.gap - self.head;
        if i < below {
            let k = below - i;
            self.buf.copy_within(self.gap - k..self.gap, self.tail - k);
            self.gap -= k;
            self.tail -= k;
        } else if i > below {
            let k = i - below;
            self.buf.copy_within(self.tail..self.tail + k, self.gap);
            self.gap += k;
            self.tail += k;
        }
    }

    /// Drop every segment below `floor`: the ranges ending at or below it
    /// go, and the first one left starts at `floor` at the earliest.
    #[inline]
    pub fn remove_below(&mut self, floor: u64) {
        // An empty list (a loss-free ACK's scoreboard) costs no call.
        if !self.is_empty() {
            self.remove_below_nonempty(floor);
        }
    }

    fn remove_below_nonempty(&mut self, floor: u64) {
        // Usually nothing or the first range goes: no search then.
        let gone = if self.first().is_some_and(|(_, e)| e > floor) {
            0
        } else {
            self.partition_point(|&(_, e)| e <= floor)
        };
        let below = self.gap - self.head;
        if gone <= below {
            self.head += gone;
        } else {
            self.head = self.gap;
            self.tail += gone - below;
        }
        let live = self.len();
        if live == 0 {
            self.buf.clear();
            (self.head, self.gap, self.tail) = (0, 0, 0);
            return;
        }
        if self.head + (self.tail - self.gap) > 2 * live + 16 {
            // More dead slots than live ranges: close the gap and reclaim the
            // prefix (their cost is at most the removals that made them).
            self.buf.drain(self.gap..self.tail);
            self.buf.drain(..self.head);
            self.gap -= self.head;
            self.tail = self.gap;
            self.head = 0;
        }
        let i = self.at(0);
        self.buf[i].0 = self.buf[i].0.max(floor);
    }

    /// Replace ranges `lo..hi` (`lo <= hi <= len`) by the single range `r`,
    /// which must keep the list sorted and disjoint: `lo == hi` inserts,
    /// `hi == lo + 1` overwrites, more merges.
    ///
    /// Inlined for its two common cases (a SACK block or an out-of-order
    /// segment extending or opening the highest range), which then cost no
    /// call; the moves of the gap are out of line.
    #[inline]
    pub fn replace(&mut self, lo: usize, hi: usize, r: (u64, u64)) {
        debug_assert!(lo <= hi && hi <= self.len());
        if hi == lo + 1 {
            let i = self.at(lo);
            self.buf[i] = r;
        } else if lo == hi && hi == self.len() {
            // Above every range: `buf`'s end is the top of the list.
            self.buf.push(r);
        } else {
            self.replace_in_gap(lo, hi, r);
        }
    }

    /// [`Ranges::replace`] below the top or over several ranges.
    fn replace_in_gap(&mut self, lo: usize, hi: usize, r: (u64, u64)) {
        // Bring the gap to just above the replaced ranges, then drop them
        // off the lower part and put r in their place.
        self.move_gap(hi);
        self.gap -= hi - lo;
        if self.gap == self.tail {
            // No room: open a gap as large as the list (amortized O(1)).
            let room = self.len() + 16;
            self.buf
                .splice(self.tail..self.tail, std::iter::repeat_n((0, 0), room));
            self.tail += room;
        }
        self.buf[self.gap] = r;
        self.gap += 1;
    }

    /// The ranges, lowest first (tests).
    #[cfg(test)]
    fn to_vec(&self) -> Vec<(u64, u64)> {
        self.lower().iter().chain(self.upper()).copied().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Mark `[s, e)` in a plain sorted `Vec` (the structure `Ranges`
    /// replaced): merge the ranges that overlap or touch it.
    fn reference_add(v: &mut Vec<(u64, u64)>, s: u64, e: u64) {
        let lo = v.partition_point(|&(_, re)| re < s);
        let hi = v.partition_point(|&(rs, _)| rs <= e);
        let (ns, ne) = if lo < hi {
            (s.min(v[lo].0), e.max(v[hi - 1].1))
        } else {
            (s, e)
        };
        v.splice(lo..hi, std::iter::once((ns, ne)));
    }

    fn add(r: &mut Ranges, s: u64, e: u64) {
        let lo = r.partition_point(|&(_, re)| re < s);
        let hi = r.partition_point(|&(rs, _)| rs <= e);
        let (ns, ne) = if lo < hi {
            (s.min(r.get(lo).0), e.max(r.get(hi - 1).1))
        } else {
            (s, e)
        };
        r.replace(lo, hi, (ns, ne));
    }

    #[test]
    fn front_removal_and_merges() {
        let mut r = Ranges::default();
        for k in 0..10 {
            add(&mut r, 10 * k + 5, 10 * k + 8);
        }
        assert_eq!(r.len(), 10);
        r.remove_below(26);
        assert_eq!(r.first(), Some((26, 28)));
        assert_eq!(r.len(), 8);
        // A block over two ranges near the front merges them.
        add(&mut r, 30, 50);
        assert_eq!(&r.to_vec()[..3], &[(26, 28), (30, 50), (55, 58)]);
        assert_eq!(r.len(), 7);
        // An insert at the front moves the gap there.
        add(&mut r, 20, 22);
        assert_eq!(&r.to_vec()[..3], &[(20, 22), (26, 28), (30, 50)]);
        assert_eq!(r.last(), Some((95, 98)));
        r.remove_below(1000);
        assert!(r.is_empty());
        assert_eq!(r.first(), None);
    }

    proptest! {
        /// Random blocks and cumulative advances: the same ranges as the
        /// plain sorted `Vec` they replace.
        #[test]
        fn matches_sorted_vec(ops in proptest::collection::vec((0u8..4, 0u64..200, 1u64..12), 1..300)) {
            let (mut r, mut v) = (Ranges::default(), Vec::new());
            let mut floor = 0;
            for (op, a, len) in ops {
                if op == 0 {
                    floor = floor.max(a / 2);
                    r.remove_below(floor);
                    let keep = v.partition_point(|&(_, e): &(u64, u64)| e <= floor);
                    v.drain(..keep);
                    if let Some(f) = v.first_mut() {
                        f.0 = f.0.max(floor);
                    }
                } else {
                    let s = a.max(floor);
                    add(&mut r, s, s + len);
                    reference_add(&mut v, s, s + len);
                }
                prop_assert_eq!(r.to_vec(), &v[..]);
                prop_assert_eq!(r.len(), v.len());
                // The galloping search from the finger agrees with a
                // binary search everywhere.
                for x in (0..220).step_by(7) {
                    prop_assert_eq!(
                        r.partition_point(|&(_, e)| e <= x),
                        v.partition_point(|&(_, e)| e <= x)
                    );
                    prop_assert_eq!(
                        r.partition_point(|&(s, _)| s <= x),
                        v.partition_point(|&(s, _)| s <= x)
                    );
                }
            }
        }
    }
}
