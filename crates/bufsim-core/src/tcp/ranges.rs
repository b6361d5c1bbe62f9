//! A sorted list of disjoint segment ranges `[start, end)`: the receiver's
//! out-of-order segments (`tcp::receiver`) and the sender's SACKed ones
//! (`tcp::sack`), one range per island above a hole.
//!
//! Both lists change mostly at their two ends: a new segment or SACK block
//! extends the highest range or opens one above it, and the cumulative ACK
//! (or the in-order segment that fills the first hole) removes the lowest
//! ranges. A plain sorted `Vec` pays a move of every range for each removal
//! at the front, so with many holes (a lossy window of thousands of
//! segments) each ACK cost O(holes). Here the live ranges are a contiguous
//! slice `buf[head..]`: removing at the front only advances `head` (the dead
//! prefix is reclaimed once it outgrows the live part, amortized O(1)), a
//! change inside the list moves the shorter of the two sides, and lookups
//! stay binary searches over one slice.

/// Sorted, disjoint, non-empty ranges `[start, end)` of segments.
#[derive(Clone, Debug, Default)]
pub struct Ranges {
    buf: Vec<(u64, u64)>,
    /// Index in `buf` of the first live range; `buf[..head]` is dead.
    head: usize,
    /// Index in `buf` of the range changed last below the highest one,
    /// where searches start (changes at the top need no search).
    finger: usize,
}

impl Ranges {
    /// The live ranges, lowest first.
    #[inline]
    pub fn as_slice(&self) -> &[(u64, u64)] {
        &self.buf[self.head..]
    }

    /// Number of ranges.
    #[inline]
    pub fn len(&self) -> usize {
        self.buf.len() - self.head
    }

    /// Whether there is no range.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.head == self.buf.len()
    }

    /// The lowest range.
    #[inline]
    pub fn first(&self) -> Option<(u64, u64)> {
        self.buf.get(self.head).copied()
    }

    /// The highest range.
    #[inline]
    pub fn last(&self) -> Option<(u64, u64)> {
        self.as_slice().last().copied()
    }

    /// Range `i` (0: the lowest).
    #[inline]
    pub fn get(&self, i: usize) -> (u64, u64) {
        self.buf[self.head + i]
    }

    /// Index of the first range for which `pred` is false (`pred` true on
    /// a prefix). A galloping search from the range changed last below the
    /// highest: holes are mostly repaired in sequence order, so the answer
    /// is usually near it and the search costs O(log distance) instead of
    /// O(log len).
    pub fn partition_point(&self, mut pred: impl FnMut(&(u64, u64)) -> bool) -> usize {
        let v = self.as_slice();
        let f = self.finger.saturating_sub(self.head).min(v.len());
        let (mut lo, mut hi, mut step) = (0, v.len(), 1);
        if f < v.len() && pred(&v[f]) {
            // The answer lies above f.
            lo = f + 1;
            while lo + step - 1 < v.len() {
                let p = lo + step - 1;
                if !pred(&v[p]) {
                    hi = p;
                    break;
                }
                lo = p + 1;
                step *= 2;
            }
        } else {
            // At or below f.
            hi = f;
            while hi >= step {
                let p = hi - step;
                if pred(&v[p]) {
                    lo = p + 1;
                    break;
                }
                hi = p;
                step *= 2;
            }
        }
        lo + v[lo..hi].partition_point(pred)
    }

    /// Drop every segment below `floor`: the ranges ending at or below it
    /// go, and the first one left starts at `floor` at the earliest.
    pub fn remove_below(&mut self, floor: u64) {
        let gone = self.partition_point(|&(_, e)| e <= floor);
        self.head += gone;
        if self.head == self.buf.len() {
            self.buf.clear();
            self.head = 0;
            return;
        }
        if self.head > self.buf.len() - self.head {
            // More dead than live ranges: reclaim the prefix (its cost is
            // at most the removals that made it).
            self.buf.drain(..self.head);
            self.finger = self.finger.saturating_sub(self.head);
            self.head = 0;
        }
        let first = &mut self.buf[self.head].0;
        *first = (*first).max(floor);
    }

    /// Replace ranges `lo..hi` (`lo <= hi <= len`) by the single range `r`,
    /// which must keep the list sorted and disjoint: `lo == hi` inserts,
    /// `hi == lo + 1` overwrites, more merges.
    pub fn replace(&mut self, lo: usize, hi: usize, r: (u64, u64)) {
        debug_assert!(lo <= hi && hi <= self.len());
        let (lo, hi) = (self.head + lo, self.head + hi);
        let (front, back) = (lo - self.head, self.buf.len() - hi);
        if back > 0 {
            // r's index in `buf` once placed.
            self.finger = if hi > lo && front < back { hi - 1 } else { lo };
        }
        if hi == lo + 1 {
            self.buf[lo] = r;
        } else if hi == lo {
            if back == 0 {
                self.buf.push(r);
            } else if self.head > 0 && front < back {
                // Shift the lower ranges down into the dead prefix.
                self.buf.copy_within(self.head..lo, self.head - 1);
                self.head -= 1;
                self.finger = lo - 1;
                self.buf[lo - 1] = r;
            } else {
                self.buf.insert(lo, r);
            }
        } else if front < back {
            // Merge: keep r at hi - 1 and shift the lower ranges up.
            let k = hi - lo - 1;
            self.buf[hi - 1] = r;
            self.buf.copy_within(self.head..lo, self.head + k);
            self.head += k;
        } else {
            self.buf[lo] = r;
            self.buf.drain(lo + 1..hi);
        }
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
        assert_eq!(&r.as_slice()[..3], &[(26, 28), (30, 50), (55, 58)]);
        assert_eq!(r.len(), 7);
        // An insert at the front reuses the dead prefix.
        add(&mut r, 20, 22);
        assert_eq!(&r.as_slice()[..3], &[(20, 22), (26, 28), (30, 50)]);
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
                prop_assert_eq!(r.as_slice(), &v[..]);
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
