//! The RTT estimator and retransmission timeout of RFC 6298: SRTT, RTTVAR,
//! RTO with its floor, ceiling and exponential backoff, and the smallest
//! and latest samples the congestion controllers read; and which
//! sent segments give the samples ([`Timing`]).

use std::collections::VecDeque;

use crate::tcp::stack::RttSampling;
use crate::units::SimTime;

//= RFC 6298 section 2.1: "Until a round-trip time (RTT) measurement has been
//= made ... the sender SHOULD set RTO <- 1 second".
const INITIAL_RTO: SimTime = SimTime(1_000_000_000_000);
//= RFC 6298 section 2 (2.5): "A maximum value MAY be placed on RTO provided it
//= is at least 60 seconds."
/// The ceiling of every retransmission timer, the SYN's too.
pub const MAX_RTO: SimTime = SimTime(60_000_000_000_000);

/// One connection's RTT estimate and RTO (times in picoseconds inside).
#[derive(Clone, Debug)]
pub struct RttEstimator {
    srtt: f64,
    rttvar: f64,
    have_sample: bool,
    rto: SimTime,
    min_rto: SimTime,
    /// The smallest sample so far.
    pub min: Option<SimTime>,
    /// The latest sample.
    pub last: Option<SimTime>,
    /// The smallest SRTT so far (ns-3.37's `m_minRtt`: TcpSocketBase::
    /// EstimateRtt takes the minimum of `m_lastRtt`, which it sets to the
    /// estimate, not the sample).
    pub min_srtt: Option<SimTime>,
}

impl RttEstimator {
    /// No sample yet: RTO is `initial` (`flows[].initial_rto`; without
    /// it RFC 6298 (2.1)'s 1 s), or `min_rto` if larger.
    pub fn new(min_rto: SimTime, initial: Option<SimTime>) -> RttEstimator {
        RttEstimator {
            srtt: 0.0,
            rttvar: 0.0,
            have_sample: false,
            rto: initial.unwrap_or(INITIAL_RTO).max(min_rto).min(MAX_RTO),
            min_rto,
            min: None,
            last: None,
            min_srtt: None,
        }
    }

    /// RFC 6298 section 2.2-2.4: update SRTT, RTTVAR and RTO from sample `r`.
    pub fn sample(&mut self, r: SimTime) {
        let r_ps = r.0 as f64;
        if self.have_sample {
            //= RFC 6298 (2.3): RTTVAR <- (1 - beta) * RTTVAR + beta * |SRTT - R'|,
            //= SRTT <- (1 - alpha) * SRTT + alpha * R', alpha = 1/8, beta = 1/4.
            self.rttvar = 0.75 * self.rttvar + 0.25 * (self.srtt - r_ps).abs();
            self.srtt = 0.875 * self.srtt + 0.125 * r_ps;
        } else {
            //= RFC 6298 (2.2): SRTT <- R, RTTVAR <- R/2.
            self.srtt = r_ps;
            self.rttvar = r_ps / 2.0;
            self.have_sample = true;
        }
        self.rto = self.computed();
        self.min = Some(self.min.map_or(r, |m| m.min(r)));
        self.last = Some(r);
        let srtt = SimTime(self.srtt as u64);
        self.min_srtt = Some(self.min_srtt.map_or(srtt, |m| m.min(srtt)));
    }

    /// RFC 6298 (2.3)-(2.4): RTO <- SRTT + max (G, K*RTTVAR), K = 4,
    /// floored at the minimum RTO and capped at [`MAX_RTO`]. The simulated
    /// clock is exact, G = 0.
    fn computed(&self) -> SimTime {
        SimTime((self.srtt + 4.0 * self.rttvar) as u64)
            .max(self.min_rto)
            .min(MAX_RTO)
    }

    /// RFC 6298 section 5.5: RTO <- RTO * 2 ("back off the timer"), at most
    /// the 60 s ceiling.
    pub fn backoff(&mut self) {
        self.rto = self.rto.times(2).min(MAX_RTO);
    }

    /// The RTO recomputed from SRTT and RTTVAR as they stand, ending a
    /// backoff without a new sample (ns-3.37 `TcpSocketBase::NewAck`:
    /// "m_rto = Max(m_rtt->GetEstimate() + Max(m_clockGranularity,
    /// m_rtt->GetVariation() * 4), m_minRto)"); nothing before the first
    /// sample.
    pub fn collapse(&mut self) {
        if self.have_sample {
            self.rto = self.computed();
        }
    }

    /// RFC 6298 section 5.7: with no sample yet, data starts with RTO
    /// `rto` (3 s after a SYN timeout), floored and capped as any RTO.
    pub fn restart_at(&mut self, rto: SimTime) {
        self.rto = rto.max(self.min_rto).min(MAX_RTO);
    }

    /// The current retransmission timeout.
    pub fn rto(&self) -> SimTime {
        self.rto
    }

    /// Smoothed RTT, if measured.
    pub fn srtt(&self) -> Option<SimTime> {
        self.have_sample.then_some(SimTime(self.srtt as u64))
    }
}

/// Which sent segments a sender times for RTT samples, by its
/// [`RttSampling`] rule. Segments are numbered; a retransmission is a
/// segment sent before.
#[derive(Clone, Debug)]
pub enum Timing {
    /// RFC 6298 section 3 (Karn), as BSD: one segment timed at a time,
    /// none across a retransmission: the timed segment and its send time.
    One(Option<(u64, SimTime)>),
    /// ns-3.37's `m_history` (`TcpSocketBase::UpdateRttHistory`): every
    /// segment sent, oldest first, with its send time and whether it was
    /// sent again since.
    Every(VecDeque<(u64, SimTime, bool)>),
}

impl Timing {
    /// Nothing timed yet.
    pub fn new(rule: RttSampling) -> Timing {
        match rule {
            RttSampling::Rfc => Timing::One(None),
            RttSampling::Ns3 => Timing::Every(VecDeque::new()),
        }
    }

    /// Segment `seq` leaves at `now`, sent before if `retx`.
    pub fn on_send(&mut self, seq: u64, now: SimTime, retx: bool) {
        match self {
            Timing::One(timed) => {
                //= RFC 6298 section 3 (Karn): RTT samples MUST NOT be made
                //= from retransmitted segments; as BSD, stop timing on any
                //= retransmission.
                if retx {
                    *timed = None;
                } else if timed.is_none() {
                    *timed = Some((seq, now));
                }
            }
            //= ns-3.37 TcpSocketBase::UpdateRttHistory: a new segment is
            //= appended ("m_history.emplace_back(seq, sz, Simulator::Now())");
            //= a retransmission marks the entry holding it ("i->retx = true").
            Timing::Every(h) => {
                if !retx {
                    h.push_back((seq, now, false));
                } else if let Some(&(first, _, _)) = h.front()
                    && let Some(e) = seq.checked_sub(first).and_then(|i| h.get_mut(i as usize))
                {
                    e.2 = true;
                }
            }
        }
    }

    /// The cumulative ACK has moved up to `una` (the next segment the
    /// receiver expects) at `now`: the RTT sample it gives, if any.
    pub fn on_cum_ack(&mut self, una: u64, now: SimTime) -> Option<SimTime> {
        match self {
            Timing::One(timed) => {
                let (seq, sent) = (*timed)?;
                (una > seq).then(|| {
                    *timed = None;
                    now - sent
                })
            }
            Timing::Every(h) => {
                //= ns-3.37 TcpSocketBase::EstimateRtt: "if (!h.retx &&
                //= ackSeq >= (h.seq + SequenceNumber32(h.count)))", "m =
                //= Simulator::Now() - h.time" for the front entry; then
                //= "delete all ack history with seq <= ack".
                let sample = h
                    .front()
                    .filter(|&&(seq, _, retx)| !retx && una > seq)
                    .map(|&(_, sent, _)| now - sent);
                while h.front().is_some_and(|&(seq, _, _)| una > seq) {
                    h.pop_front();
                }
                sample
            }
        }
    }

    /// The retransmission timer expired: nothing sent before is timed
    /// (RFC 6298 section 3, Karn; ns-3.37 TcpSocketBase::ReTxTimeout:
    /// "m_history.clear()").
    pub fn on_timeout(&mut self) {
        match self {
            Timing::One(timed) => *timed = None,
            Timing::Every(h) => h.clear(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc6298_hand_worked() {
        let ms = SimTime::from_millis;
        let mut e = RttEstimator::new(ms(200), None);
        assert_eq!(e.rto(), ms(1000));
        assert_eq!(e.srtt(), None);
        // First sample 100 ms: SRTT 100, RTTVAR 50, RTO = 100 + 4 * 50 = 300 ms.
        e.sample(ms(100));
        assert_eq!((e.srtt(), e.rto()), (Some(ms(100)), ms(300)));
        // Second 200 ms: RTTVAR = 0.75 * 50 + 0.25 * 100 = 62.5,
        // SRTT = 0.875 * 100 + 0.125 * 200 = 112.5, RTO = 112.5 + 250 = 362.5 ms.
        e.sample(ms(200));
        assert_eq!(e.rto(), SimTime::from_micros(362_500));
        assert_eq!((e.min, e.last), (Some(ms(100)), Some(ms(200))));
        e.backoff();
        assert_eq!(e.rto(), ms(725));
        for _ in 0..10 {
            e.backoff();
        }
        assert_eq!(e.rto(), ms(60_000));
        // The floor: a 1 ms RTT still gives the minimum RTO.
        let mut e = RttEstimator::new(ms(200), None);
        e.sample(ms(1));
        assert_eq!(e.rto(), ms(200));
    }

    /// `initial_rto` replaces RFC 6298 (2.1)'s 1 s before a sample, floored
    /// at the minimum RTO and capped at 60 s; a sample then sets the RTO as
    /// ever (1 ms: 1 + 4 x 0.5 = 3 ms, floored at 10 ms).
    #[test]
    fn initial_rto_before_the_first_sample() {
        let ms = SimTime::from_millis;
        let mut e = RttEstimator::new(ms(10), Some(ms(10)));
        assert_eq!(e.rto(), ms(10));
        e.backoff();
        assert_eq!(e.rto(), ms(20));
        e.sample(ms(1));
        assert_eq!(e.rto(), ms(10));
        assert_eq!(RttEstimator::new(ms(200), Some(ms(10))).rto(), ms(200));
        assert_eq!(RttEstimator::new(ms(1), Some(ms(90_000))).rto(), MAX_RTO);
    }

    #[test]
    fn one_timed_segment_a_round_trip() {
        let ms = SimTime::from_millis;
        let mut t = Timing::new(RttSampling::Rfc);
        t.on_send(0, ms(0), false);
        t.on_send(1, ms(1), false);
        // Segment 0 is timed; segment 1 left while it was, so is not.
        assert_eq!(t.on_cum_ack(1, ms(20)), Some(ms(20)));
        assert_eq!(t.on_cum_ack(2, ms(21)), None);
        // Karn: a retransmission stops the timing.
        t.on_send(2, ms(30), false);
        t.on_send(2, ms(40), true);
        assert_eq!(t.on_cum_ack(3, ms(60)), None);
    }

    #[test]
    fn ns3_times_every_ack_from_the_oldest_segment_it_covers() {
        let ms = SimTime::from_millis;
        let mut t = Timing::new(RttSampling::Ns3);
        for seq in 0..5 {
            t.on_send(seq, ms(seq), false);
        }
        // A delayed ACK for 0 and 1: from segment 0's send time.
        assert_eq!(t.on_cum_ack(2, ms(20)), Some(ms(20)));
        // The next covers 2 and 3: from 2's (sent at 2 ms).
        assert_eq!(t.on_cum_ack(4, ms(23)), Some(ms(21)));
        // Segment 4 resent: the ACK covering it gives none.
        t.on_send(4, ms(30), true);
        t.on_send(5, ms(31), false);
        assert_eq!(t.on_cum_ack(5, ms(40)), None);
        // ... and the next one samples segment 5, sent once.
        assert_eq!(t.on_cum_ack(6, ms(45)), Some(ms(14)));
        // A timeout forgets what was sent before it: the ACK of a segment
        // resent after it gives none; new data after it is timed again.
        t.on_send(6, ms(50), false);
        t.on_timeout();
        t.on_send(6, ms(1050), true);
        t.on_send(7, ms(1051), false);
        assert_eq!(t.on_cum_ack(7, ms(1060)), None);
        assert_eq!(t.on_cum_ack(8, ms(1070)), Some(ms(19)));
    }
}
