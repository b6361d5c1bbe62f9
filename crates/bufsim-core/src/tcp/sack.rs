//! The SACK scoreboard of RFC 6675, in segments, with costs that do not grow
//! with the window: each segment is marked SACKed at most once (new SACK
//! information is found by merging blocks into a short list of SACKed
//! ranges, one per hole), acknowledged segments are popped from the front,
//! and the pipe estimate is kept from counters instead of walking the window
//! (RFC 6675 section 4, SetPipe).
//!
//! After a retransmission timeout every un-SACKed segment sent so far is
//! marked lost at once ([`Scoreboard::mark_lost_below`], as Linux's
//! `tcp_timeout_mark_lost`): IsLost is then true below that floor, whatever
//! lies SACKed above it.
//!
//! [`Scoreboard::keep_sacked_retransmissions`] is ns-3.37's pipe instead: a
//! retransmission stays in it once SACKed, until the cumulative ACK passes
//! it or a timeout (`TcpTxBuffer::Update` leaves `m_retrans` as it was;
//! ns-3 issue #1190, fixed after 3.37).
//!
//! With RACK ([`Scoreboard::rack`]) loss is not inferred from DupThresh:
//! each segment carries its last transmission time and RACK (`tcp::rack`)
//! marks segments lost one by one ([`Scoreboard::mark_lost`]); the pipe
//! counts the marked segments out, and the lost segments not yet resent wait
//! in a heap, so NextSeg costs O(log n).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use crate::tcp::ranges::Ranges;
use crate::units::SimTime;

const SACKED: u8 = 1;
const RETX: u8 = 2;
const LOST: u8 = 4;

//= RFC 6675 section 2: DupThresh = 3.
/// Segments SACKed above a hole before the hole counts as lost.
pub const DUP_THRESH: u64 = 3;

/// SACK blocks remembered in [`Scoreboard::recent`]: an ACK repeats at most
/// `MAX_SACK_BLOCKS - 1` earlier blocks (RFC 2018 section 4), one more for
/// the merges of its first.
const RECENT: usize = 4;

/// Per-connection SACK state for segments in `[una, max)`.
#[derive(Default)]
pub struct Scoreboard {
    una: u64,
    flags: VecDeque<u8>,
    /// SACKed ranges `[start, end)` above `una`, sorted and disjoint.
    ranges: Ranges,
    /// SACK blocks merged lately away from the highest range (each SACKed
    /// throughout, or below `una`), newest at `recent_next - 1`: RFC 2018's
    /// receiver repeats its recent blocks, found here without a search.
    recent: [(u64, u64); RECENT],
    recent_next: usize,
    /// Segments SACKed above `una`.
    sacked: u64,
    /// Retransmitted segments not acknowledged, nor SACKed unless
    /// `keep_sacked_retx`: the retransmissions the pipe counts.
    retx_out: u64,
    /// ns-3.37's accounting: a SACKed retransmission stays in `retx_out`.
    keep_sacked_retx: bool,
    /// Every un-SACKed segment below this one is lost (set by a timeout).
    lost_floor: u64,
    /// [`Scoreboard::lost_bound`] and the un-SACKed segments below it (the
    /// lost ones without RACK), kept from every change of the ranges, `una`
    /// or the floor: the pipe is read several times per ACK.
    bound: Option<u64>,
    lost_below: u64,
    /// RACK mode: loss is what [`Scoreboard::mark_lost`] marked.
    rack: Option<Box<RackBoard>>,
    /// Segments newly SACKed since the last [`Scoreboard::take_newly_sacked`],
    /// kept only when `report_newly` (delivery-rate estimation asks).
    newly: Vec<u64>,
    report_newly: bool,
}

/// The per-segment state RACK adds to the scoreboard.
#[derive(Default)]
struct RackBoard {
    /// Last transmission time of each segment in `[una, max)`.
    xmit: VecDeque<SimTime>,
    /// Un-SACKed segments marked lost (retransmitted or not).
    lost: u64,
    /// Segments marked lost and not retransmitted since, smallest first
    /// (stale entries are skipped when read).
    resend: BinaryHeap<Reverse<u64>>,
    /// The newest transmission among the segments delivered since the last
    /// [`Scoreboard::take_delivered`].
    delivered: Option<Delivered>,
    /// Segments marked lost since the last [`Scoreboard::take_newly_lost`],
    /// kept only when `report_lost` (a controller that reads each loss asks).
    newly_lost: Vec<u64>,
    report_lost: bool,
}

/// A delivered (cumulatively acknowledged or SACKed) segment, as RACK
/// (RFC 8985 section 6.2 step 2) reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Delivered {
    /// When it was last sent.
    pub xmit: SimTime,
    /// Its sequence number.
    pub seq: u64,
    /// Whether it was retransmitted (the ACK may be for an earlier copy).
    pub retransmitted: bool,
}

impl Scoreboard {
    /// An empty scoreboard in RACK mode (RFC 8985): losses are marked by
    /// RACK instead of being inferred from DupThresh SACKed segments.
    pub fn rack() -> Scoreboard {
        Scoreboard {
            rack: Some(Box::default()),
            ..Scoreboard::default()
        }
    }

    /// Count a retransmission in the pipe until the cumulative ACK passes
    /// it or a timeout, SACKed or not, as ns-3.37's `BytesInFlight()` does
    /// (`TcpTxBuffer::Update` marks a SACKed segment's bytes SACKed and
    /// clears its lost mark, but leaves it in `m_retrans`, which only
    /// `DiscardUpTo` and `SetSentListLost` lower; ns-3 issue #1190, fixed
    /// in 2026): where RFC 6675's SetPipe counts a retransmission only
    /// while it is neither SACKed nor acknowledged.
    pub fn keep_sacked_retransmissions(&mut self) {
        self.keep_sacked_retx = true;
    }

    /// Report each newly SACKed segment ([`Scoreboard::take_newly_sacked`]),
    /// for delivery-rate estimation (`tcp::rate`).
    pub fn report_newly_sacked(&mut self) {
        self.report_newly = true;
    }

    /// The segments SACKed for the first time since the last call, each
    /// once (empty unless [`Scoreboard::report_newly_sacked`]).
    pub fn take_newly_sacked(&mut self) -> std::vec::Drain<'_, u64> {
        self.newly.drain(..)
    }

    /// RACK mode: report each loss event ([`Scoreboard::take_newly_lost`]),
    /// for a controller that reads the send state of each lost segment.
    /// Nothing without RACK: RFC 6675's IsLost marks no segment by itself.
    pub fn report_newly_lost(&mut self) {
        if let Some(r) = self.rack.as_mut() {
            r.report_lost = true;
        }
    }

    /// The segments [`Scoreboard::mark_lost`] marked since the last call, in
    /// marking order (a lost retransmission again each time it is marked).
    pub fn take_newly_lost(&mut self) -> std::vec::Drain<'_, u64> {
        match self.rack.as_mut() {
            Some(r) => r.newly_lost.drain(..),
            None => self.newly.drain(0..0),
        }
    }

    /// Outstanding segments now reach up to (not including) `max`.
    #[inline]
    pub fn extend_to(&mut self, max: u64) {
        while self.una + (self.flags.len() as u64) < max {
            self.flags.push_back(0);
            if let Some(r) = self.rack.as_mut() {
                r.xmit.push_back(SimTime::ZERO);
            }
        }
    }

    /// Segment `seq` (outstanding) was sent at `now` (RACK mode only).
    #[inline]
    pub fn record_xmit(&mut self, seq: u64, now: SimTime) {
        if let Some(r) = self.rack.as_mut() {
            r.xmit[(seq - self.una) as usize] = now;
        }
    }

    /// When outstanding segment `seq` was last sent (RACK mode only).
    pub fn xmit(&self, seq: u64) -> Option<SimTime> {
        let r = self.rack.as_ref()?;
        r.xmit.get(seq.checked_sub(self.una)? as usize).copied()
    }

    /// The newest transmission delivered since the last call (RACK mode).
    pub fn take_delivered(&mut self) -> Option<Delivered> {
        self.rack.as_mut().and_then(|r| r.delivered.take())
    }

    /// Note segment `seq` (flags `f`) as delivered, for RACK.
    #[inline]
    fn deliver(&mut self, seq: u64, f: u8) {
        if let Some(r) = self.rack.as_mut() {
            let d = Delivered {
                xmit: r.xmit[(seq - self.una) as usize],
                seq,
                retransmitted: f & RETX != 0,
            };
            //= RFC 8985 section 6.2 step 2: keep the most recently sent of the
            //= delivered segments (ties: the highest sequence).
            if r.delivered
                .is_none_or(|o| (d.xmit, d.seq) > (o.xmit, o.seq))
            {
                r.delivered = Some(d);
            }
            if f & LOST != 0 {
                r.lost -= 1;
            }
        }
    }

    /// The cumulative ACK moved to `una`.
    pub fn on_cum_ack(&mut self, una: u64) {
        while self.una < una {
            if let Some(f) = self.flags.pop_front() {
                if f & RETX != 0 && (f & SACKED == 0 || self.keep_sacked_retx) {
                    self.retx_out -= 1;
                }
                if f & SACKED != 0 {
                    self.sacked -= 1;
                } else {
                    self.deliver(self.una, f);
                }
                if let Some(r) = self.rack.as_mut() {
                    r.xmit.pop_front();
                }
            }
            self.una += 1;
        }
        // Everything acknowledged: the rings start over at the front of their
        // buffers (`clear` resets the head), keeping a flow's cache footprint
        // to its window, as `net::pipe::Pipe::push` explains.
        if self.flags.is_empty() {
            self.flags.clear();
            if let Some(r) = self.rack.as_mut() {
                r.xmit.clear();
            }
        }
        self.ranges.remove_below(una);
        self.refresh_lost();
    }

    /// Merge one SACK block `[s, e)`, marking only segments not SACKed
    /// before; returns how many segments it newly SACKed.
    pub fn on_sack_block(&mut self, s: u64, e: u64) -> u64 {
        let max = self.una + self.flags.len() as u64;
        let (s, e) = (s.max(self.una), e.min(max));
        if s >= e {
            return 0;
        }
        let before = self.sacked;
        match self.ranges.last() {
            // The common case, and no search: the block extends the highest
            // range or opens a new one above it (ranges are separated by
            // holes, so no lower range can touch the block).
            Some((ls, le)) if s >= ls => {
                let n = self.ranges.len();
                if s > le {
                    self.mark(s, e);
                    self.ranges.replace(n, n, (s, e));
                } else if e > le {
                    self.mark(le, e);
                    self.ranges.replace(n - 1, n, (ls, e));
                } else {
                    return 0;
                }
                self.refresh_lost();
                return self.sacked - before;
            }
            None => {
                self.mark(s, e);
                self.ranges.replace(0, 0, (s, e));
                self.refresh_lost();
                return self.sacked - before;
            }
            Some(_) => {}
        }
        //= RFC 2018 section 4: every ACK repeats the most recently reported
        //= blocks; one merged here lately holds nothing new.
        if self.recent.iter().any(|&(rs, re)| rs <= s && e <= re) {
            return 0;
        }
        // Ranges overlapping or touching [s, e).
        let lo = self.ranges.partition_point(|&(_, re)| re < s);
        let hi = self.ranges.partition_point(|&(rs, _)| rs <= e);
        let mut cursor = s;
        for k in lo..hi {
            let (rs, re) = self.ranges.get(k);
            if rs > cursor {
                self.mark(cursor, rs.min(e));
            }
            cursor = cursor.max(re);
        }
        if cursor < e {
            self.mark(cursor, e);
        }
        let new_s = if lo < hi {
            s.min(self.ranges.get(lo).0)
        } else {
            s
        };
        let new_e = if lo < hi {
            e.max(self.ranges.get(hi - 1).1)
        } else {
            e
        };
        self.ranges.replace(lo, hi, (new_s, new_e));
        self.recent[self.recent_next] = (new_s, new_e);
        self.recent_next = (self.recent_next + 1) % RECENT;
        self.refresh_lost();
        self.sacked - before
    }

    fn mark(&mut self, s: u64, e: u64) {
        for seq in s..e {
            let f = self.flags[(seq - self.una) as usize];
            if f & SACKED == 0 {
                if f & RETX != 0 && !self.keep_sacked_retx {
                    self.retx_out -= 1;
                }
                self.deliver(seq, f);
                self.flags[(seq - self.una) as usize] = f | SACKED;
                self.sacked += 1;
                if self.report_newly {
                    self.newly.push(seq);
                }
            }
        }
    }

    /// Record a retransmission of `seq`.
    pub fn mark_retransmitted(&mut self, seq: u64) {
        let f = &mut self.flags[(seq - self.una) as usize];
        if *f & (RETX | SACKED) == 0 {
            self.retx_out += 1;
        }
        *f |= RETX;
    }

    /// RACK mode: outstanding, un-SACKed segment `seq` is lost (a lost
    /// retransmission included: it may be sent again). Returns whether
    /// this changed anything.
    pub fn mark_lost(&mut self, seq: u64) -> bool {
        let i = (seq - self.una) as usize;
        let f = self.flags[i];
        let Some(r) = self.rack.as_mut() else {
            return false;
        };
        if f & SACKED != 0 || (f & LOST != 0 && f & RETX == 0) {
            return false;
        }
        if f & LOST == 0 {
            r.lost += 1;
        }
        if f & RETX != 0 {
            self.retx_out -= 1;
        }
        self.flags[i] = (f | LOST) & !RETX;
        r.resend.push(Reverse(seq));
        if r.report_lost {
            r.newly_lost.push(seq);
        }
        true
    }

    /// RACK mode: the first segment marked lost and not resent since.
    pub fn next_lost(&mut self) -> Option<u64> {
        let r = self.rack.as_mut()?;
        while let Some(&Reverse(seq)) = r.resend.peek() {
            let pending = seq >= self.una
                && self.flags[(seq - self.una) as usize] & (LOST | RETX | SACKED) == LOST;
            if pending {
                return Some(seq);
            }
            r.resend.pop();
        }
        None
    }

    /// RACK mode: whether every outstanding segment was sent once, in
    /// sequence order, after the transmission `newest` (`(time, segment)`):
    /// nothing SACKed, retransmitted or marked lost above `una`, and `una`
    /// itself (the first sent of them) sent after `newest`. Then
    /// `RACK_detect_loss` has no segment to examine (RFC 8985 section 6.2
    /// step 5 looks only at segments sent before `newest`).
    pub fn rack_sent_after(&self, newest: (SimTime, u64)) -> bool {
        let Some(r) = self.rack.as_ref() else {
            return false;
        };
        self.sacked == 0
            && self.retx_out == 0
            && r.lost == 0
            && r.xmit.front().is_none_or(|&t| (t, self.una) > newest)
    }

    /// The cumulative ACK point: the first segment not yet acknowledged.
    #[inline]
    pub fn una(&self) -> u64 {
        self.una
    }

    /// Segments in `[una, max)`.
    #[inline]
    pub fn outstanding(&self) -> u64 {
        self.flags.len() as u64
    }

    /// Whether RACK still watches `seq`: outstanding, not SACKed, and not
    /// marked lost and waiting to be resent (a resent lost segment is
    /// watched again: its retransmission may be lost too).
    pub fn rack_pending(&self, seq: u64) -> bool {
        self.flags_of(seq)
            .is_some_and(|f| f & SACKED == 0 && f & (LOST | RETX) != LOST)
    }

    /// The flags of outstanding segment `seq` (`None` below the cumulative
    /// ACK or beyond the highest sent).
    #[inline]
    fn flags_of(&self, seq: u64) -> Option<u8> {
        let i = seq.checked_sub(self.una)?;
        self.flags.get(usize::try_from(i).ok()?).copied()
    }

    /// Segments SACKed above the cumulative ACK.
    #[inline]
    pub fn sacked(&self) -> u64 {
        self.sacked
    }

    /// Whether `seq` has been SACKed.
    #[inline]
    pub fn is_sacked(&self, seq: u64) -> bool {
        self.flags_of(seq).is_some_and(|f| f & SACKED != 0)
    }

    /// Whether `seq` has been retransmitted and is not SACKed since.
    #[inline]
    pub fn is_retransmitted(&self, seq: u64) -> bool {
        self.flags_of(seq)
            .is_some_and(|f| f & (RETX | SACKED) == RETX)
    }

    /// Every un-SACKed segment below the returned bound is lost: RFC 6675
    /// section 4, IsLost (DupThresh SACKed segments above it), or below the
    /// floor a timeout set; `None` when neither marks anything lost.
    #[inline]
    pub fn lost_bound(&self) -> Option<u64> {
        self.bound
    }

    /// Recompute [`Scoreboard::lost_bound`] and the segments it marks lost
    /// (without RACK). Inlined for the loss-free ACK's case, which then
    /// costs no call.
    #[inline]
    fn refresh_lost(&mut self) {
        if self.rack.is_some() {
            return;
        }
        if self.ranges.is_empty() && self.lost_floor <= self.una {
            // Nothing SACKed, no timeout floor: nothing lost.
            (self.bound, self.lost_below) = (None, 0);
        } else {
            self.refresh_lost_sacked();
        }
    }

    /// [`Scoreboard::refresh_lost`] with SACKed ranges or a timeout floor.
    fn refresh_lost_sacked(&mut self) {
        (self.bound, self.lost_below) = match self.find_lost_bound() {
            // Below the bound, all but the SACKed segments are lost.
            Some((l, above)) => (Some(l), (l - self.una) - (self.sacked - above)),
            None => (None, 0),
        };
    }

    /// The lost bound and the SACKed segments at or above it. A bound set
    /// by SACK lies DupThresh SACKed segments below the top, so exactly
    /// DupThresh lie above it; it is found from the highest range down (in
    /// recovery nearly always in the highest range itself). Only the
    /// timeout floor needs the SACKed segments above it counted.
    fn find_lost_bound(&self) -> Option<(u64, u64)> {
        let mut need = DUP_THRESH;
        let mut by_sack = None;
        for &(s, e) in self.ranges.iter_rev() {
            if e - s >= need {
                by_sack = Some(e - need);
                break;
            }
            need -= e - s;
        }
        match by_sack {
            Some(b) if b >= self.lost_floor => Some((b, DUP_THRESH)),
            _ if self.lost_floor > self.una => {
                Some((self.lost_floor, self.sacked_from(self.lost_floor)))
            }
            b => b.map(|b| (b, DUP_THRESH)),
        }
    }

    /// SACKed segments at or above `bound`.
    fn sacked_from(&self, bound: u64) -> u64 {
        let mut n = 0;
        for &(s, e) in self.ranges.iter_rev() {
            if e <= bound {
                break;
            }
            n += e - s.max(bound);
        }
        n
    }

    /// Un-SACKed segments marked lost (by RFC 6675's IsLost, a timeout or
    /// RACK), retransmitted or not: ns-3.37's `TcpTxBuffer::GetLost()`,
    /// whose marks stay on a resent segment until it is SACKed or
    /// acknowledged.
    pub fn lost(&self) -> u64 {
        match self.rack.as_ref() {
            Some(r) => r.lost,
            None => self.lost_below,
        }
    }

    /// RFC 6675 section 4, SetPipe: segments in `[una, max)` that are not
    /// SACKed and not lost, plus retransmissions not yet SACKed or ACKed
    /// (SACKed too with [`Scoreboard::keep_sacked_retransmissions`]).
    pub fn pipe(&self) -> u64 {
        let outstanding = self.flags.len() as u64;
        if let Some(r) = self.rack.as_ref() {
            // IsLost is RACK's mark.
            return outstanding - self.sacked - r.lost + self.retx_out;
        }
        outstanding - self.sacked - self.lost_below + self.retx_out
    }

    /// A retransmission timeout: mark every un-SACKed segment below `max`
    /// lost, earlier retransmissions included (they are presumed lost too
    /// and may be sent again), and restart the retransmission walk.
    pub fn mark_lost_below(&mut self, max: u64) {
        if self.rack.is_some() {
            //= RFC 8985 section 6.3: on a timeout RACK marks outstanding
            //= segments lost; here all un-SACKed ones, as without RACK.
            for seq in self.una..max {
                self.mark_lost(seq);
            }
            return;
        }
        self.flags.iter_mut().for_each(|f| *f &= !RETX);
        self.retx_out = 0;
        self.lost_floor = max;
        self.refresh_lost();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Slow reference: SetPipe by walking every segment, as RFC 6675 writes it.
    fn pipe_by_walking(sb: &Scoreboard) -> u64 {
        let max = sb.una + sb.flags.len() as u64;
        let mut pipe = 0;
        for seq in sb.una..max {
            if sb.is_sacked(seq) {
                continue;
            }
            let above = (seq + 1..max).filter(|&x| sb.is_sacked(x)).count() as u64;
            let lost = if sb.rack.is_some() {
                sb.flags[(seq - sb.una) as usize] & LOST != 0
            } else {
                above >= DUP_THRESH || seq < sb.lost_floor
            };
            if !lost {
                pipe += 1;
            }
            if sb.flags[(seq - sb.una) as usize] & RETX != 0 {
                pipe += 1;
            }
        }
        pipe
    }

    #[test]
    fn pipe_matches_rfc_walk() {
        let mut sb = Scoreboard::default();
        sb.extend_to(20);
        sb.on_sack_block(5, 8);
        assert_eq!(sb.pipe(), pipe_by_walking(&sb));
        assert_eq!(sb.lost_bound(), Some(5));
        sb.mark_retransmitted(0);
        sb.on_sack_block(10, 12);
        sb.on_sack_block(7, 11); // overlaps both
        assert_eq!(sb.sacked, 7);
        assert_eq!(sb.pipe(), pipe_by_walking(&sb));
        sb.on_cum_ack(3);
        assert_eq!(sb.pipe(), pipe_by_walking(&sb));
        sb.on_cum_ack(12);
        assert_eq!(sb.sacked, 0);
        assert_eq!(sb.pipe(), 8);
    }

    /// Segments 0..10 out, 0..4 lost (3 SACKed above: 4, 5, 6), all four
    /// resent, the retransmission of 0 lost again and those of 1..4
    /// SACKed: RFC 6675's pipe drops them, ns-3.37's keeps them until the
    /// cumulative ACK passes them, or a timeout.
    #[test]
    fn ns3_keeps_a_sacked_retransmission_in_the_pipe() {
        let pipes = |keep: bool| {
            let mut sb = Scoreboard::default();
            if keep {
                sb.keep_sacked_retransmissions();
            }
            sb.extend_to(10);
            sb.on_sack_block(4, 7);
            (0..4).for_each(|s| sb.mark_retransmitted(s));
            // 7, 8, 9 and the four retransmissions.
            let resent = sb.pipe();
            sb.on_sack_block(1, 7);
            let sacked = sb.pipe();
            sb.on_cum_ack(7);
            let acked = sb.pipe();
            (resent, sacked, acked)
        };
        assert_eq!(pipes(false), (7, 4, 3));
        assert_eq!(pipes(true), (7, 7, 3));
        let mut sb = Scoreboard::default();
        sb.keep_sacked_retransmissions();
        sb.extend_to(10);
        sb.on_sack_block(4, 7);
        (0..4).for_each(|s| sb.mark_retransmitted(s));
        sb.on_sack_block(1, 7);
        // A timeout clears every retransmission (SetSentListLost).
        sb.mark_lost_below(10);
        assert_eq!(sb.pipe(), 0);
    }

    #[test]
    fn timeout_marks_unsacked_lost_and_counts_new_sacks() {
        let mut sb = Scoreboard::default();
        sb.extend_to(10);
        assert_eq!(sb.on_sack_block(4, 6), 2);
        assert_eq!(sb.on_sack_block(4, 7), 1); // only 6 is new
        assert_eq!(sb.on_sack_block(5, 6), 0); // nothing new: not a DupAck
        sb.mark_retransmitted(0);
        // 0..4 lie below three SACKed segments (IsLost): the pipe holds
        // 7, 8, 9 and the retransmission of 0.
        assert_eq!(sb.pipe(), 4);
        // A timeout: 0..4 and 7..10 are lost, the retransmission of 0 too.
        sb.mark_lost_below(10);
        assert_eq!(sb.lost_bound(), Some(10));
        assert_eq!(sb.pipe(), 0);
        assert_eq!(sb.pipe(), pipe_by_walking(&sb));
        // New data above the floor is in the pipe; resending 0 puts it back.
        sb.extend_to(12);
        sb.mark_retransmitted(0);
        assert_eq!(sb.pipe(), 3);
        assert_eq!(sb.pipe(), pipe_by_walking(&sb));
        // Once everything below the floor is acknowledged it no longer counts.
        sb.on_cum_ack(10);
        assert_eq!(sb.lost_bound(), None);
        assert_eq!(sb.pipe(), 2);
    }

    use proptest::prelude::*;

    proptest! {
        /// Random operation sequences: the O(1) pipe equals the RFC walk.
        #[test]
        fn pipe_invariant(ops in proptest::collection::vec((0u8..4, 0u64..40, 1u64..6), 1..60)) {
            let mut sb = Scoreboard::default();
            let mut una = 0;
            sb.extend_to(40);
            for (op, a, len) in ops {
                match op {
                    0 => { sb.on_sack_block(a, a + len); }
                    1 => if a >= una && a < 40 { sb.mark_retransmitted(a) },
                    2 => sb.mark_lost_below(a.max(una)),
                    _ => { if a > una { una = a.min(40); sb.on_cum_ack(una); } }
                }
                prop_assert_eq!(sb.pipe(), pipe_by_walking(&sb));
            }
        }

        /// SACK blocks as a receiver repeats them (RFC 2018 section 4), with
        /// cumulative ACKs between: each block newly SACKs exactly the
        /// segments of it not SACKed or acknowledged before (a set as
        /// reference), whichever path (top, recent, search) merges it.
        #[test]
        fn newly_sacked_matches_set(ops in proptest::collection::vec((0u8..6, 0u64..200, 1u64..20), 1..200)) {
            let mut sb = Scoreboard::default();
            sb.report_newly_sacked();
            sb.extend_to(200);
            let (mut una, mut set) = (0, std::collections::BTreeSet::new());
            let mut seen: Vec<(u64, u64)> = Vec::new();
            for (op, a, len) in ops {
                let (s, e) = match op {
                    // Repeat an earlier block.
                    0 | 1 if !seen.is_empty() => seen[a as usize % seen.len()],
                    2 => {
                        una = una.max(a.min(200));
                        sb.on_cum_ack(una);
                        set.retain(|&q| q >= una);
                        continue;
                    }
                    _ => (a, (a + len).min(200)),
                };
                seen.push((s, e));
                let expect: Vec<u64> = (s.max(una)..e).filter(|q| !set.contains(q)).collect();
                prop_assert_eq!(sb.on_sack_block(s, e), expect.len() as u64);
                prop_assert_eq!(sb.take_newly_sacked().collect::<Vec<_>>(), expect);
                set.extend(s.max(una)..e);
                prop_assert_eq!(sb.sacked(), set.len() as u64);
                for q in una..200 {
                    prop_assert_eq!(sb.is_sacked(q), set.contains(&q));
                }
                prop_assert_eq!(sb.pipe(), pipe_by_walking(&sb));
            }
        }

        /// RACK mode: the pipe equals the walk, and the next segment to
        /// resend is the smallest one marked lost and not resent since.
        #[test]
        fn rack_pipe_and_next_lost(ops in proptest::collection::vec((0u8..5, 0u64..40, 1u64..6), 1..60)) {
            let mut sb = Scoreboard::rack();
            let mut una = 0;
            sb.extend_to(40);
            for (op, a, len) in ops {
                match op {
                    0 => { sb.on_sack_block(a, a + len); }
                    1 => if a >= una && a < 40 { sb.mark_retransmitted(a) },
                    2 => if a >= una && a < 40 { sb.mark_lost(a); },
                    3 => sb.mark_lost_below(a.clamp(una, 40)),
                    _ => { if a > una { una = a.min(40); sb.on_cum_ack(una); } }
                }
                prop_assert_eq!(sb.pipe(), pipe_by_walking(&sb));
                let expect = (una..40).find(|&q| sb.flags[(q - una) as usize] & (LOST | RETX | SACKED) == LOST);
                prop_assert_eq!(sb.next_lost(), expect);
            }
        }
    }
}
