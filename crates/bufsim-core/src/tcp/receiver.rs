//! The TCP receiver: cumulative ACKs, SACK blocks (RFC 2018) and delayed
//! ACKs (RFC 5681 section 4.2, RFC 1122 section 4.2.3.2). Sequence numbers
//! count segments.

use crate::net::{Ack, MAX_SACK_BLOCKS};
use crate::tcp::ranges::Ranges;
use crate::tcp::stack::CeAck;
use crate::units::SimTime;

/// What the receiver wants done after a segment arrives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckAction {
    /// Send this ACK now.
    Now,
    /// Hold the ACK; make sure the delayed-ACK timer runs.
    Delay,
}

/// Receiver state of one connection.
pub struct Receiver {
    /// Next in-order segment expected.
    pub rcv_nxt: u64,
    /// Distinct segments received (duplicates not counted), in order or not.
    pub received: u64,
    /// Out-of-order segments held, as sorted disjoint `[start, end)` ranges.
    ooo: Ranges,
    /// SACK blocks in the order RFC 2018 section 4 asks (most recent first):
    /// the first `nrecent`.
    recent: [(u64, u64); MAX_SACK_BLOCKS],
    nrecent: usize,
    sack: bool,
    delayed_ack: bool,
    /// In-order segments received and not yet acknowledged (delayed ACK).
    unacked: u32,
    /// Echo ECE on every ACK (a CE packet arrived, no CWR since); with
    /// `per_packet`, DCTCP.CE: the last data packet carried CE.
    ece: bool,
    /// RFC 8257 section 3.2's per-packet echo instead of RFC 3168's.
    per_packet: bool,
    /// The CE state changed: acknowledge the arriving segment at once.
    force_now: bool,
    /// How the segment that changes the per-packet CE state is acknowledged.
    ce_ack: CeAck,
    /// The last segment was a duplicate: the next ACK reports it (D-SACK).
    dup: bool,
    /// In-order segments still to acknowledge at once before delayed ACKs
    /// begin (Linux's quick-ACK mode at the start of a connection).
    quick: u32,
    /// How long an owed ACK may be held (the delayed-ACK timer).
    pub delack_timeout: SimTime,
    /// Acknowledge at once once `rcv_nxt` reaches this (the end of a
    /// transfer, with `push_ack`; `u64::MAX`: never).
    push_at: u64,
}

impl Receiver {
    /// A receiver expecting segment 0.
    pub fn new(sack: bool, delayed_ack: bool) -> Receiver {
        Receiver {
            rcv_nxt: 0,
            received: 0,
            ooo: Ranges::default(),
            recent: [(0, 0); MAX_SACK_BLOCKS],
            nrecent: 0,
            sack,
            delayed_ack,
            unacked: 0,
            ece: false,
            per_packet: false,
            force_now: false,
            ce_ack: CeAck::Immediate,
            dup: false,
            quick: 0,
            //= RFC 5681 section 4.2: "MUST be generated within 500 ms";
            //= 200 ms is the common timer (set by the stack profile).
            delack_timeout: SimTime::from_millis(200),
            push_at: u64::MAX,
        }
    }

    /// With delayed ACKs, acknowledge the first `n` in-order segments at
    /// once, and hold an owed ACK at most `timeout` (the stack profile's
    /// quick-ACK start and delayed-ACK timer, `tcp::stack`).
    pub fn delayed_ack_timing(mut self, n: u32, timeout: SimTime) -> Receiver {
        self.quick = n;
        self.delack_timeout = timeout;
        self
    }

    /// Acknowledge at once the segment that completes a transfer of `end`
    /// segments (`push_ack`, `tcp::stack`), instead of holding its ACK.
    pub fn push_at(mut self, end: u64) -> Receiver {
        self.push_at = end;
        self
    }

    /// With `on`, echo CE marks per packet as a DCTCP receiver (RFC 8257
    /// section 3.2) instead of RFC 3168's ECE-until-CWR.
    pub fn ecn_per_packet(mut self, on: bool) -> Receiver {
        self.per_packet = on;
        self
    }

    /// With per-packet echo, how the segment that changes the CE state is
    /// acknowledged ([`CeAck`]; the stack profile's `ce_ack`).
    pub fn ce_ack(mut self, rule: CeAck) -> Receiver {
        self.ce_ack = rule;
        self
    }

    /// Process the arrival of segment `seq`.
    pub fn on_segment(&mut self, seq: u64) -> AckAction {
        let force_now = std::mem::take(&mut self.force_now);
        if seq < self.rcv_nxt || self.holds(seq) {
            //= RFC 5681 section 4.2: an out-of-order (here: duplicate) segment
            //= SHOULD be acknowledged immediately; RFC 2883 section 4: with
            //= SACK the ACK reports the duplicate in a D-SACK block.
            self.dup = self.sack;
            self.unacked = 0;
            return AckAction::Now;
        }
        self.received += 1;
        if seq == self.rcv_nxt {
            let had_gap = !self.ooo.is_empty();
            self.rcv_nxt += 1;
            // Absorb held segments that are now in order.
            if let Some((s, e)) = self.ooo.first()
                && s == self.rcv_nxt
            {
                self.rcv_nxt = e;
                self.ooo.remove_below(e);
            }
            let nxt = self.rcv_nxt;
            self.keep_recent(|(_, e)| e > nxt);
            //= RFC 5681 section 4.2: "an immediate ACK SHOULD be generated
            //= when a segment arrives that fills in all or part of a gap".
            if had_gap || !self.delayed_ack || force_now {
                self.unacked = 0;
                return AckAction::Now;
            }
            //= net/ipv4/tcp_input.c __tcp_ack_snd_check: in quick-ACK mode
            //= (tcp_in_quickack_mode) every segment is acknowledged at once;
            //= tcp_dec_quickack_mode counts the mode down per ACK sent.
            if self.quick > 0 {
                self.quick -= 1;
                self.unacked = 0;
                return AckAction::Now;
            }
            if self.rcv_nxt >= self.push_at {
                self.unacked = 0;
                return AckAction::Now;
            }
            //= RFC 5681 section 4.2: an ACK SHOULD be generated for at least
            //= every second full-sized segment.
            self.unacked += 1;
            if self.unacked >= 2 {
                self.unacked = 0;
                AckAction::Now
            } else {
                AckAction::Delay
            }
        } else {
            self.insert_ooo(seq);
            //= RFC 5681 section 4.2: out-of-order segments are acknowledged
            //= immediately (they generate duplicate ACKs).
            self.unacked = 0;
            AckAction::Now
        }
    }

    /// Note the ECN bits of an arriving data packet (before [`Self::on_segment`]).
    /// Returns the ACK owed at once for segments received before it, if the
    /// per-packet echo's CE state changed while a delayed ACK was pending.
    pub fn on_ecn(&mut self, bits: u8) -> Option<Ack> {
        if self.per_packet {
            let ce = bits & crate::net::CE != 0;
            if ce == self.ece {
                //= RFC 8257 section 3.2 step 3: "Otherwise, ignore the CE
                //= codepoint" (the delayed-ACK rules apply as usual).
                return None;
            }
            //= RFC 8257 section 3.2 steps 1-2: when the CE codepoint differs
            //= from DCTCP.CE, flip DCTCP.CE and "send an immediate ACK"; with
            //= delayed ACKs the ACK owed for the earlier segments goes first,
            //= with ECE at the old state (the state machine of its Figure 1;
            //= Linux's dctcp_ece_ack_update), then the arriving segment is
            //= acknowledged at once with the new state.
            let flush = (self.unacked > 0).then(|| {
                self.unacked = 0;
                self.ack()
            });
            self.ece = ce;
            // `CeAck::Delayed` (ns-3.37): the owed ACK leaves ns-3's count of
            // held segments (m_delAckCount) as it was, so an arriving segment
            // that follows a held one is the second and is acknowledged at
            // once; with nothing owed it is held like any lone segment.
            self.force_now = self.ce_ack == CeAck::Immediate || flush.is_some();
            return flush;
        }
        //= RFC 3168 section 6.1.3: after a CE packet the receiver "sets the
        //= ECN-Echo flag in every ACK" until it receives a packet with CWR.
        if bits & crate::net::CWR != 0 {
            self.ece = false;
        }
        if bits & crate::net::CE != 0 {
            self.ece = true;
        }
        None
    }

    /// Would segment `seq` with ECN bits `bits`, arriving now, only be held
    /// for a delayed ACK ([`Self::on_ecn`] owing nothing, then
    /// [`Self::on_segment`] answering [`AckAction::Delay`])? True exactly
    /// for the next in-order segment, with no gap held, no segment waiting
    /// for its ACK, and no change of a per-packet CE echo acknowledged at
    /// once; the property test below checks it against the two calls.
    pub fn holds_ack(&self, seq: u64, bits: u8) -> bool {
        let ce_flips = self.per_packet
            && self.ce_ack == CeAck::Immediate
            && (bits & crate::net::CE != 0) != self.ece;
        self.delayed_ack
            && self.quick == 0
            && seq + 1 < self.push_at
            && seq == self.rcv_nxt
            && self.ooo.is_empty()
            && self.unacked == 0
            && !self.force_now
            && !ce_flips
    }

    /// The delayed-ACK timer fired: is an ACK still owed?
    pub fn on_delack_timer(&mut self) -> bool {
        let owed = self.unacked > 0;
        self.unacked = 0;
        owed
    }

    /// Whether out-of-order segment `seq` is already held.
    fn holds(&self, seq: u64) -> bool {
        // Most segments arrive above every held one or fill the first hole.
        let (Some((fs, _)), Some((_, le))) = (self.ooo.first(), self.ooo.last()) else {
            return false;
        };
        if seq < fs || seq >= le {
            return false;
        }
        let i = self.ooo.partition_point(|&(_, e)| e <= seq);
        i < self.ooo.len() && self.ooo.get(i).0 <= seq
    }

    /// Hold out-of-order segment `seq` (not held yet).
    fn insert_ooo(&mut self, seq: u64) {
        // The range seq extends or precedes; most segments arrive above
        // every hole, at the top, found without a search.
        let i = match self.ooo.last() {
            Some((_, le)) if seq > le => self.ooo.len(),
            Some((_, le)) if seq == le => self.ooo.len() - 1,
            _ => self.ooo.partition_point(|&(_, e)| e < seq),
        };
        let (n, at) = (self.ooo.len(), |k: usize| self.ooo.get(k));
        let block = if i < n && at(i).1 == seq {
            // Extends range i upwards, and joins range i + 1 if it touches.
            if i + 1 < n && at(i + 1).0 == seq + 1 {
                let b = (at(i).0, at(i + 1).1);
                self.ooo.replace(i, i + 2, b);
                b
            } else {
                let b = (at(i).0, seq + 1);
                self.ooo.replace(i, i + 1, b);
                b
            }
        } else if i < n && at(i).0 == seq + 1 {
            let b = (seq, at(i).1);
            self.ooo.replace(i, i + 1, b);
            b
        } else {
            self.ooo.replace(i, i, (seq, seq + 1));
            (seq, seq + 1)
        };
        if self.sack {
            //= RFC 2018 section 4: the first SACK block MUST specify the block
            //= containing the most recently received segment; the others repeat
            //= the most recently reported blocks.
            let older = self.recent;
            let n = self.nrecent;
            self.recent[0] = block;
            self.nrecent = 1;
            for &(s, e) in &older[..n] {
                if self.nrecent == MAX_SACK_BLOCKS {
                    break;
                }
                if e <= block.0 || s >= block.1 {
                    self.recent[self.nrecent] = (s, e);
                    self.nrecent += 1;
                }
            }
        }
    }

    /// Keep the SACK blocks for which `pred` holds, in order.
    fn keep_recent(&mut self, pred: impl Fn((u64, u64)) -> bool) {
        let mut n = 0;
        for k in 0..self.nrecent {
            let b = self.recent[k];
            if pred(b) {
                self.recent[n] = b;
                n += 1;
            }
        }
        self.nrecent = n;
    }

    /// The ACK to send now.
    pub fn ack(&mut self) -> Ack {
        let mut a = Ack {
            ack: self.rcv_nxt,
            ece: self.ece,
            dsack: std::mem::take(&mut self.dup),
            ..Ack::default()
        };
        if self.sack {
            // Block by block: a copy of a variable length was a call to
            // memcpy on every ACK.
            for (b, &r) in a.sack.iter_mut().zip(&self.recent).take(self.nrecent) {
                *b = r;
            }
            a.nsack = self.nrecent as u8;
        }
        a
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    /// The receiver as first written (a set of held segments, SACK blocks
    /// kept in a `Vec` by RFC 2018 section 4's rule), for comparison.
    #[derive(Default)]
    struct Reference {
        rcv_nxt: u64,
        held: BTreeSet<u64>,
        recent: Vec<(u64, u64)>,
    }

    impl Reference {
        fn on_segment(&mut self, seq: u64) {
            if seq < self.rcv_nxt || !self.held.insert(seq) {
                return;
            }
            if seq == self.rcv_nxt {
                while self.held.remove(&self.rcv_nxt) {
                    self.rcv_nxt += 1;
                }
                let nxt = self.rcv_nxt;
                self.recent.retain(|&(_, e)| e > nxt);
                return;
            }
            let (mut s, mut e) = (seq, seq + 1);
            while s > self.rcv_nxt && self.held.contains(&(s - 1)) {
                s -= 1;
            }
            while self.held.contains(&e) {
                e += 1;
            }
            self.recent.retain(|&(rs, re)| re <= s || rs >= e);
            self.recent.insert(0, (s, e));
            self.recent.truncate(MAX_SACK_BLOCKS);
        }
    }

    proptest! {
        /// Random arrival orders (with duplicates): the same cumulative ACK
        /// and the same SACK blocks, in the same order, as the reference.
        #[test]
        fn acks_match_reference(arrivals in proptest::collection::vec(0u64..120, 1..400)) {
            let (mut r, mut reference) = (Receiver::new(true, false), Reference::default());
            for seq in arrivals {
                r.on_segment(seq);
                reference.on_segment(seq);
                let a = r.ack();
                prop_assert_eq!(a.ack, reference.rcv_nxt);
                prop_assert_eq!(&a.sack[..a.nsack as usize], &reference.recent[..]);
            }
        }
    }

    proptest! {
        /// `holds_ack` answers what `on_ecn` and `on_segment` then do, over
        /// random arrivals (in order, reordered, duplicated), CE marks,
        /// CWR bits and delayed-ACK timer expiries, for both echo modes,
        /// with and without quick ACKs at the start and a transfer end.
        #[test]
        fn holds_ack_predicts_a_held_ack(
            steps in proptest::collection::vec((0u64..3, 0u8..8, 0u8..10), 1..300),
            per_packet: bool,
            delayed_ce: bool,
            sack: bool,
            quick in 0u32..20,
            end in proptest::option::of(1u64..200),
        ) {
            let mut r = Receiver::new(sack, true)
                .ecn_per_packet(per_packet)
                .ce_ack(if delayed_ce { CeAck::Delayed } else { CeAck::Immediate })
                .delayed_ack_timing(quick, SimTime::from_millis(40))
                .push_at(end.unwrap_or(u64::MAX));
            let mut next = 0u64;
            for (jump, bits, timer) in steps {
                if timer == 0 {
                    r.on_delack_timer();
                }
                // Mostly the next segment; now and then one further on or
                // one already sent again.
                let seq = match jump {
                    0 => next,
                    1 => next + 2,
                    _ => next.saturating_sub(1),
                };
                next = next.max(seq + 1);
                let predicted = r.holds_ack(seq, bits);
                let owed = r.on_ecn(bits);
                let action = r.on_segment(seq);
                prop_assert_eq!(predicted, owed.is_none() && action == AckAction::Delay);
                if action == AckAction::Now {
                    r.ack();
                }
            }
        }
    }

    #[test]
    fn sack_blocks_most_recent_first() {
        let mut r = Receiver::new(true, false);
        for s in [0, 1, 3, 4, 7, 5] {
            assert_eq!(r.on_segment(s), AckAction::Now);
        }
        let a = r.ack();
        assert_eq!(a.ack, 2);
        assert_eq!(&a.sack[..a.nsack as usize], &[(3, 6), (7, 8)]);
        r.on_segment(2); // fills the first hole
        let a = r.ack();
        assert_eq!(a.ack, 6);
        assert_eq!(&a.sack[..a.nsack as usize], &[(7, 8)]);
        assert!(!a.dsack);
        // Duplicates below rcv_nxt and of a held segment: D-SACK, once each.
        assert_eq!(r.on_segment(1), AckAction::Now);
        assert!(r.ack().dsack);
        assert!(!r.ack().dsack);
        r.on_segment(7);
        assert!(r.ack().dsack);
    }

    #[test]
    fn quick_acks_then_delayed_and_the_last_segment_at_once() {
        // Linux's start: 3 quick ACKs here (16 in the profile), then every
        // second segment; the segment that completes a 6-segment transfer
        // is acknowledged at once (push_ack) although it is a lone one.
        use AckAction::{Delay, Now};
        let mut r = Receiver::new(true, true)
            .delayed_ack_timing(3, SimTime::from_millis(40))
            .push_at(6);
        let got: Vec<AckAction> = (0..6).map(|s| r.on_segment(s)).collect();
        assert_eq!(got, [Now, Now, Now, Delay, Now, Now]);
        assert_eq!(r.delack_timeout, SimTime::from_millis(40));
        // Without push_at the last segment waits for the timer.
        let mut r = Receiver::new(true, true).delayed_ack_timing(3, SimTime::from_millis(40));
        let got: Vec<AckAction> = (0..6).map(|s| r.on_segment(s)).collect();
        assert_eq!(got, [Now, Now, Now, Delay, Now, Delay]);
        // holds_ack agrees: not during the quick ACKs, not for the last segment.
        let r = Receiver::new(true, true).delayed_ack_timing(1, SimTime::from_millis(40));
        assert!(!r.holds_ack(0, 0));
        let mut r = Receiver::new(true, true).push_at(2);
        assert!(r.holds_ack(0, 0));
        assert_eq!(r.on_segment(0), AckAction::Delay);
        assert!(!r.holds_ack(1, 0));
    }

    #[test]
    fn delayed_ack_every_second_segment() {
        let mut r = Receiver::new(false, true);
        assert_eq!(r.on_segment(0), AckAction::Delay);
        assert_eq!(r.on_segment(1), AckAction::Now);
        assert_eq!(r.on_segment(2), AckAction::Delay);
        assert!(r.on_delack_timer());
        assert!(!r.on_delack_timer());
        assert_eq!(r.on_segment(4), AckAction::Now); // out of order: immediate
        assert_eq!(r.on_segment(3), AckAction::Now); // fills the gap: immediate
        assert_eq!(r.rcv_nxt, 5);
    }

    /// The CE marks of segments 0..8 in the DCTCP echo tests.
    const RFC8257_MARKS: [bool; 9] = [false, false, false, true, true, true, false, false, false];

    /// The ACKs `(ack, ece)` a per-packet echo receiver sends, in order, as
    /// segments 0, 1, ... arrive in order with these CE marks.
    fn echoes(r: &mut Receiver, marks: &[bool]) -> Vec<(u64, bool)> {
        use crate::net::{CE, ECT};
        let mut got = Vec::new();
        for (seq, &ce) in marks.iter().enumerate() {
            if let Some(a) = r.on_ecn(if ce { ECT | CE } else { ECT }) {
                got.push((a.ack, a.ece));
            }
            if r.on_segment(seq as u64) == AckAction::Now {
                let a = r.ack();
                got.push((a.ack, a.ece));
            }
        }
        got
    }

    #[test]
    fn dctcp_echo_with_delayed_acks() {
        use crate::net::{CE, CWR, ECT};
        // RFC 8257 section 3.2: with delayed ACKs (one ACK per 2 segments),
        // segments 0..8 arrive marked N N | C C | C N | N N (C = CE).
        let mut r = Receiver::new(false, true).ecn_per_packet(true);
        assert_eq!(
            echoes(&mut r, &RFC8257_MARKS),
            vec![
                // 0, 1 unmarked: one delayed ACK for both, ECE = 0.
                (2, false),
                // 2 unmarked waits; 3 is CE: state 0 -> 1, the ACK owed for 2
                // goes with ECE = 0, then 3 is acknowledged at once, ECE = 1.
                (3, false),
                (4, true),
                // 4, 5 CE: one delayed ACK, ECE = 1.
                (6, true),
                // 6 unmarked: state 1 -> 0, nothing owed, immediate ACK ECE = 0.
                (7, false),
                // 7, 8 unmarked: delayed, ECE = 0.
                (9, false),
            ]
        );
        // The segments acknowledged under ECE = 1 (3 by ack 4; 4, 5 by ack 6)
        // are exactly the marked ones, so the sender's M is exact.
        // CWR means nothing to a DCTCP receiver: ECE follows CE only.
        r.on_ecn(ECT | CE);
        r.on_segment(9);
        r.on_ecn(ECT | CWR | CE);
        r.on_segment(10);
        assert!(r.ack().ece);
    }

    #[test]
    fn dctcp_echo_as_ns3_holds_a_change_with_nothing_owed() {
        // The arrivals of `dctcp_echo_with_delayed_acks` under
        // `CeAck::Delayed` (ns-3.37's TcpDctcp).
        let mut r = Receiver::new(false, true)
            .ecn_per_packet(true)
            .ce_ack(CeAck::Delayed);
        assert_eq!(
            echoes(&mut r, &RFC8257_MARKS),
            vec![
                (2, false),
                // 3 is CE with 2 owed: as RFC 8257, the owed ACK with the old
                // state, then 3's at once (ns-3's count reaches two).
                (3, false),
                (4, true),
                (6, true),
                // 6 unmarked with nothing owed: held, and acknowledged with
                // 7 (ECE = 0) where RFC 8257 sends (7, false) at once.
                (8, false),
            ]
        );
    }

    #[test]
    fn ece_echoed_until_cwr() {
        use crate::net::{CE, CWR, ECT};
        let mut r = Receiver::new(true, false);
        r.on_ecn(ECT);
        r.on_segment(0);
        assert!(!r.ack().ece);
        r.on_ecn(ECT | CE);
        r.on_segment(1);
        assert!(r.ack().ece);
        r.on_ecn(ECT);
        r.on_segment(2);
        assert!(
            r.ack().ece,
            "ECE persists until CWR (RFC 3168 section 6.1.3)"
        );
        r.on_ecn(ECT | CWR);
        r.on_segment(3);
        assert!(!r.ack().ece);
    }
}
