//! RACK-TLP (RFC 8985): time-based loss detection.
//!
//! RACK marks a segment lost when a segment sent after it has been delivered
//! and more than `RACK.rtt + reo_wnd` has passed since it was sent, so a
//! lost retransmission is found like any other loss, without waiting for
//! the retransmission timer. TLP sends one probe segment two smoothed RTTs
//! after the last transmission when nothing else would (a tail loss), so its
//! ACK lets RACK find the loss.
//!
//! The transmissions are kept in the order they were sent ([`Rack::on_send`]);
//! the loss walk reads them from the oldest and stops at the first one not
//! yet overdue, so each transmission is looked at O(1) times. The per-segment
//! flags and send times live in the scoreboard (`tcp::sack`, RACK mode).
//!
//! bufsim's links deliver in order (FIFO queues, no multipath; jitter keeps
//! the order) and its receivers send no D-SACK, so RACK's reordering
//! detection (section 6.2 step 3) and D-SACK window adaptation never apply:
//! `RACK.reord` stays false and `reo_wnd_mult` stays 1.

use std::collections::VecDeque;

use crate::tcp::sack::{DUP_THRESH, Delivered, Scoreboard};
use crate::units::SimTime;

//= RFC 8985 section 7.2: "WCDelAckT: A constant ... the worst-case delayed
//= ACK timer ... 200 ms".
const WC_DEL_ACK: SimTime = SimTime::from_millis(200);

/// Transmission entries beyond the outstanding segments that the loss walk's
/// fast path lets accumulate before it drops the delivered ones in one
/// batch (see [`Rack::detect_loss`]).
const PRUNE_SLACK: u64 = 64;

/// RACK's state for one sender (RFC 8985 section 6.1).
#[derive(Clone, Debug, Default)]
pub struct Rack {
    /// `RACK.xmit_ts`, `RACK.end_seq` (here the segment) and `RACK.rtt` of
    /// the most recently sent delivered segment.
    newest: Option<(SimTime, u64)>,
    rtt: SimTime,
    /// Every transmission `(time, segment)`, oldest first ([`Sent`]); an
    /// entry is stale once its segment was delivered, marked lost or sent
    /// again.
    sent: Sent,
}

/// The transmissions in send order, the oldest kept apart: the loss walk
/// reads it on every ACK (in a recovery it is the hole, not yet overdue),
/// and reading it from the sender's own state costs no cache miss where a
/// queue entry written a round trip ago would, with thousands of flows.
#[derive(Clone, Debug, Default)]
struct Sent {
    head: Option<(SimTime, u64)>,
    rest: VecDeque<(SimTime, u64)>,
}

impl Sent {
    #[inline]
    fn push_back(&mut self, e: (SimTime, u64)) {
        if self.head.is_none() {
            self.head = Some(e);
        } else {
            self.rest.push_back(e);
        }
    }

    #[inline]
    fn front(&self) -> Option<&(SimTime, u64)> {
        self.head.as_ref()
    }

    #[inline]
    fn pop_front(&mut self) {
        self.head = self.rest.pop_front();
    }

    fn len(&self) -> usize {
        usize::from(self.head.is_some()) + self.rest.len()
    }
}

impl Rack {
    /// Segment `seq` was sent at `now`.
    #[inline]
    pub fn on_send(&mut self, seq: u64, now: SimTime) {
        self.sent.push_back((now, seq));
    }

    /// RFC 8985 section 6.2 step 2, for the newest segment an ACK delivered.
    pub fn on_delivered(&mut self, d: Delivered, now: SimTime, min_rtt: Option<SimTime>) {
        let rtt = now - d.xmit;
        //= "If Segment.retransmitted is TRUE ... if RACK.min_RTT is set and
        //= (Now() - Segment.xmit_ts) < RACK.min_RTT: return" (the ACK may be
        //= for the original transmission: a spurious retransmission).
        if d.retransmitted && min_rtt.is_some_and(|m| rtt < m) {
            return;
        }
        //= "RACK.rtt = Now() - Segment.xmit_ts; if RACK_sent_after(
        //= Segment.xmit_ts, Segment.end_seq, RACK.xmit_ts, RACK.end_seq):
        //= RACK.xmit_ts = Segment.xmit_ts; RACK.end_seq = Segment.end_seq".
        self.rtt = rtt;
        if self.newest.is_none_or(|n| (d.xmit, d.seq) > n) {
            self.newest = Some((d.xmit, d.seq));
        }
    }

    /// RFC 8985 section 6.2 step 4, `RACK_update_reo_wnd` (without D-SACK
    /// adaptation and with `RACK.reord` false, see the module doc).
    pub fn reo_wnd(
        in_recovery: bool,
        sacked: u64,
        min_rtt: Option<SimTime>,
        srtt: Option<SimTime>,
    ) -> SimTime {
        //= "If RACK.reord is FALSE: If in loss recovery: return 0; Else if
        //= RACK.segs_sacked >= DupThresh: return 0".
        if in_recovery || sacked >= DUP_THRESH {
            return SimTime::ZERO;
        }
        //= "Return min(RACK.reo_wnd_mult * RACK.min_RTT / 4, SRTT)".
        match (min_rtt, srtt) {
            (Some(m), Some(s)) => SimTime(m.0 / 4).min(s),
            (Some(m), None) => SimTime(m.0 / 4),
            _ => SimTime::ZERO,
        }
    }

    /// RFC 8985 section 6.2 step 5, `RACK_detect_loss`: mark overdue
    /// segments lost in `sb`. Returns whether any was marked and, if some
    /// segment sent before the newest delivered one is not overdue yet, the
    /// time at which it will be (the reordering timer).
    pub fn detect_loss(
        &mut self,
        sb: &mut Scoreboard,
        now: SimTime,
        reo_wnd: SimTime,
    ) -> (bool, Option<SimTime>) {
        let Some(newest) = self.newest else {
            return (false, None);
        };
        // Every outstanding segment sent once, in order, after `newest`
        // (the loss-free ACK's case): the walk below would only drop the
        // entries of delivered segments and stop at the first outstanding
        // one. Skip it, and drop those entries in batches instead: each
        // ACK reading the oldest entry, written a round trip ago, costs a
        // cache miss per ACK with thousands of flows.
        if sb.rack_sent_after(newest) {
            if self.sent.len() as u64 > sb.outstanding() + PRUNE_SLACK {
                let una = sb.una();
                while self.sent.front().is_some_and(|&(_, seq)| seq < una) {
                    self.sent.pop_front();
                }
            }
            return (false, None);
        }
        let mut marked = false;
        while let Some(&(t, seq)) = self.sent.front() {
            let live = sb.rack_pending(seq) && sb.xmit(seq) == Some(t);
            if !live {
                self.sent.pop_front();
                continue;
            }
            //= "If RACK_sent_after(RACK.xmit_ts, RACK.end_seq, Segment.xmit_ts,
            //= Segment.end_seq)": only segments sent before the newest
            //= delivered one; the walk is in send order, so stop at the first
            //= sent later.
            if (t, seq) >= newest {
                break;
            }
            //= "remaining = Segment.xmit_ts + RACK.rtt + RACK.reo_wnd - Now();
            //= If remaining <= 0: Segment.lost = TRUE ... Else: timeout =
            //= max(remaining, timeout)". Later transmissions are due later.
            let due = t + self.rtt + reo_wnd;
            if due > now {
                return (marked, Some(due));
            }
            sb.mark_lost(seq);
            marked = true;
            self.sent.pop_front();
        }
        (marked, None)
    }
}

/// Tail Loss Probe state (RFC 8985 section 7).
#[derive(Clone, Copy, Debug, Default)]
pub struct Tlp {
    /// `TLP.end_seq`: the probe is outstanding until SND.UNA passes this.
    pub end: Option<u64>,
    /// `TLP.is_retrans`: the probe was a retransmission.
    pub is_retrans: bool,
}

impl Tlp {
    /// RFC 8985 section 7.2: the probe timeout for a smoothed RTT `srtt` and
    /// a flight of `flight` segments, capped by the retransmission timer.
    pub fn pto(srtt: Option<SimTime>, flight: u64, now: SimTime, rto_deadline: SimTime) -> SimTime {
        //= "If SRTT is available: PTO = 2 * SRTT; If FlightSize is one
        //= segment: PTO += WCDelAckT; Else: PTO = 1 sec".
        let pto = match srtt {
            Some(s) if flight == 1 => s.times(2) + WC_DEL_ACK,
            Some(s) => s.times(2),
            None => SimTime::from_millis(1000),
        };
        //= "If Now() + PTO > TCP_RTO_expire(): PTO = TCP_RTO_expire() - Now()".
        (now + pto).min(rto_deadline)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimTime {
        SimTime::from_millis(x)
    }

    #[test]
    fn reo_wnd_rules() {
        // RFC 8985 section 6.2 step 4: min_RTT / 4 capped at SRTT, zero in
        // recovery or once DupThresh segments are SACKed.
        assert_eq!(
            Rack::reo_wnd(false, 0, Some(ms(100)), Some(ms(120))),
            ms(25)
        );
        assert_eq!(Rack::reo_wnd(false, 0, Some(ms(100)), Some(ms(10))), ms(10));
        assert_eq!(
            Rack::reo_wnd(true, 0, Some(ms(100)), Some(ms(120))),
            SimTime::ZERO
        );
        assert_eq!(
            Rack::reo_wnd(false, 3, Some(ms(100)), Some(ms(120))),
            SimTime::ZERO
        );
    }

    #[test]
    fn pto_rules() {
        // 2 SRTT; + WCDelAckT (200 ms) with one segment in flight; capped by the RTO.
        let rto = ms(10_000);
        assert_eq!(Tlp::pto(Some(ms(100)), 5, SimTime::ZERO, rto), ms(200));
        assert_eq!(Tlp::pto(Some(ms(100)), 1, SimTime::ZERO, rto), ms(400));
        assert_eq!(Tlp::pto(Some(ms(100)), 5, SimTime::ZERO, ms(150)), ms(150));
        assert_eq!(Tlp::pto(None, 5, SimTime::ZERO, rto), ms(1000));
    }

    /// A loss-free flow: 20 segments in flight, each ACK delivering the
    /// oldest. Nothing is ever lost or due, and the transmissions kept stay
    /// within the window plus `PRUNE_SLACK` (the fast path drops delivered
    /// entries in batches); a hole afterwards is found as before.
    #[test]
    fn loss_free_acks_keep_the_queue_bounded() {
        let mut sb = Scoreboard::rack();
        let mut rack = Rack::default();
        let send = |sb: &mut Scoreboard, rack: &mut Rack, seq: u64| {
            sb.extend_to(seq + 1);
            sb.record_xmit(seq, ms(seq));
            rack.on_send(seq, ms(seq));
        };
        for seq in 0..20 {
            send(&mut sb, &mut rack, seq);
        }
        for una in 1..10_000 {
            sb.on_cum_ack(una);
            rack.on_delivered(sb.take_delivered().unwrap(), ms(una + 99), None);
            assert_eq!(
                rack.detect_loss(&mut sb, ms(una + 99), ms(25)),
                (false, None)
            );
            assert!(rack.sent.len() as u64 <= sb.outstanding() + PRUNE_SLACK + 1);
            send(&mut sb, &mut rack, una + 19);
        }
        // Segment 10,000 lost: the SACK of the next one makes it due 25 ms
        // after RACK.rtt from its sending, then lost.
        sb.on_sack_block(10_000, 10_001);
        rack.on_delivered(sb.take_delivered().unwrap(), ms(10_100), None);
        assert_eq!(
            rack.detect_loss(&mut sb, ms(10_100), ms(25)),
            (false, Some(ms(10_000 + 99 + 25)))
        );
        assert_eq!(rack.detect_loss(&mut sb, ms(10_124), ms(25)), (true, None));
        assert_eq!(sb.next_lost(), Some(9_999));
    }

    /// Segments 0..10 sent 1 ms apart at t = 0..9 ms; 2 is lost; the ACKs
    /// of 3.. arrive 100 ms after each was sent. RACK marks 2 lost as soon
    /// as a segment sent after it is delivered and 2 is overdue by RACK.rtt
    /// + reo_wnd, and not before.
    #[test]
    fn marks_the_hole_once_overdue() {
        let mut sb = Scoreboard::rack();
        let mut rack = Rack::default();
        sb.extend_to(10);
        for seq in 0..10 {
            sb.record_xmit(seq, ms(seq));
            rack.on_send(seq, ms(seq));
        }
        // 0 and 1 acknowledged at 100 and 101 ms.
        sb.on_cum_ack(2);
        let d = sb.take_delivered().unwrap();
        assert_eq!((d.xmit, d.seq), (ms(1), 1));
        rack.on_delivered(d, ms(101), None);
        assert_eq!(
            rack.detect_loss(&mut sb, ms(101), SimTime::ZERO),
            (false, None)
        );
        // 3 SACKed at 103 ms: 2 was sent at 2 ms, RACK.rtt = 100 ms; with a
        // reordering window of 25 ms it is due at 127 ms.
        sb.on_sack_block(3, 4);
        rack.on_delivered(sb.take_delivered().unwrap(), ms(103), None);
        assert_eq!(
            rack.detect_loss(&mut sb, ms(103), ms(25)),
            (false, Some(ms(127)))
        );
        assert_eq!(sb.next_lost(), None);
        // At 127 ms (the reordering timer) it is lost; nothing else is.
        assert_eq!(rack.detect_loss(&mut sb, ms(127), ms(25)), (true, None));
        assert_eq!(sb.next_lost(), Some(2));
        // 2 is resent at 127 ms, and that copy is lost too. The SACK of 4..9
        // (sent before it) says nothing about it.
        sb.mark_retransmitted(2);
        sb.record_xmit(2, ms(127));
        rack.on_send(2, ms(127));
        assert_eq!(sb.next_lost(), None);
        sb.on_sack_block(4, 10);
        rack.on_delivered(sb.take_delivered().unwrap(), ms(109), None);
        assert_eq!(
            rack.detect_loss(&mut sb, ms(130), SimTime::ZERO),
            (false, None)
        );
        // New segment 10, sent at 130 ms after the retransmission, is SACKed
        // at 230 ms: the retransmission (sent at 127 ms, RACK.rtt 100 ms) is
        // overdue at 227 ms: lost again, to be resent, with no timeout.
        sb.extend_to(11);
        sb.record_xmit(10, ms(130));
        rack.on_send(10, ms(130));
        sb.on_sack_block(10, 11);
        rack.on_delivered(sb.take_delivered().unwrap(), ms(230), None);
        assert_eq!(
            rack.detect_loss(&mut sb, ms(230), SimTime::ZERO),
            (true, None)
        );
        assert_eq!(sb.next_lost(), Some(2));
        assert_eq!(sb.pipe(), 0);
    }
}
