//! Delivery-rate estimation (draft-cheng-iccrg-delivery-rate-estimation-02),
//! in segments: each transmission records the connection's delivery state
//! (`delivered`, `delivered_time`, `first_sent_time`, app-limited), and each
//! ACK that delivers segments (cumulatively or by SACK) produces a rate
//! sample from the most recently sent of them.
//!
//! Costs do not grow with the window: the per-segment state lives in a ring
//! for `[una, max)`, each segment is delivered at most once (the SACK
//! scoreboard reports only newly SACKed segments), and cumulatively
//! acknowledged segments are popped from the front. The ring is cut into
//! blocks of `BLOCK` segments, and a block whose segments are all
//! delivered is recycled at once: a lost retransmission waiting for a
//! backed-off timeout holds `una` back for seconds while SACKed data flows
//! on, and a flat ring would keep every segment sent meanwhile.
//!
//! Only a sender whose controller asks for rate samples
//! ([`crate::tcp::cc::CongestionControl::uses_rate_samples`]) keeps one.

use std::collections::VecDeque;

use crate::units::SimTime;

/// Per-segment send state (the draft's section 3.2 "per-packet" fields,
/// and draft-ietf-ccwg-bbr's P.tx_in_flight and P.lost), 40 bytes: the two
/// flags share a word with P.delivered (a segment count far below 2^62).
#[derive(Clone, Copy, Debug, Default)]
struct TxState {
    /// C.delivered when the segment was (last) sent, times 4, plus
    /// [`APP_LIMITED`] (C.app_limited was non-zero when it was sent) and
    /// [`RETX`] (it was retransmitted: its RTT sample is ambiguous, RFC
    /// 6298 Karn).
    tag: u64,
    /// C.delivered_time when it was sent.
    delivered_time: SimTime,
    /// C.first_sent_time when it was sent.
    first_sent_time: SimTime,
    /// When it was (last) sent.
    sent_time: SimTime,
    /// P.tx_in_flight: segments in the network as it was sent, itself
    /// included (saturating at 2^32 - 1).
    tx_in_flight: u32,
    /// P.lost: C.lost when it was sent, modulo 2^32 (differences over a
    /// segment's lifetime are far below that).
    lost: u32,
}

const APP_LIMITED: u64 = 2;
const RETX: u64 = 1;

impl TxState {
    /// P.delivered.
    fn delivered(&self) -> u64 {
        self.tag >> 2
    }
}

/// One rate sample (the draft's section 3.3 "rs").
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateSample {
    /// C.delivered after this ACK: segments delivered so far.
    pub total_delivered: u64,
    /// Segments this ACK newly delivered (cumulatively or by SACK).
    pub newly_delivered: u64,
    /// P.delivered of the most recently sent segment this ACK delivered.
    pub prior_delivered: u64,
    /// Segments delivered over the sample's interval (rs.delivered).
    pub delivered: u64,
    /// rs.interval = max(send_elapsed, ack_elapsed).
    pub interval: SimTime,
    /// rs.delivery_rate, segments per second; `None` when the interval is
    /// zero or shorter than min_rtt (the draft's "unsafe" samples).
    pub delivery_rate: Option<f64>,
    /// The sample was taken while the sender was application-limited.
    pub is_app_limited: bool,
    /// RTT of the most recently sent delivered segment, if it was not
    /// retransmitted.
    pub rtt: Option<SimTime>,
    /// Under ns-3's sampler ([`RateSampler::ns3`]): the sample had no
    /// timing (its prior time zero), which ns-3.37's GenerateSample marks
    /// with "m_rateSample.m_delivered = -1". Always false otherwise.
    pub untimed: bool,
    /// rs.tx_in_flight = P.tx_in_flight of the sample's segment P:
    /// segments in the network when it was (last) sent, itself included.
    pub tx_in_flight: u64,
    /// rs.lost = C.lost - P.lost: segments marked lost since P was sent
    /// (Linux's tcp_rate_gen "rs->lost = tp->lost - rs->prior_lost").
    pub lost: u64,
}

/// What a lost segment's send state says of the flight it left in
/// (draft-ietf-ccwg-bbr BBRHandleLostPacket's rate sample), read when the sender marks it lost
/// ([`RateSampler::on_marked_lost`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LostSample {
    /// rs.tx_in_flight = P.tx_in_flight: segments in the network when it
    /// was (last) sent, itself included.
    pub tx_in_flight: u64,
    /// rs.lost = C.lost - P.lost: segments marked lost since it was sent,
    /// itself included.
    pub lost: u64,
    /// rs.is_app_limited = P.is_app_limited.
    pub is_app_limited: bool,
}

/// The connection's delivery-rate state (the draft's "C" fields) and the
/// per-segment ring.
#[derive(Debug, Default)]
pub struct RateSampler {
    ring: Ring,
    /// C.delivered, segments.
    delivered: u64,
    /// C.delivered_time.
    delivered_time: SimTime,
    /// C.first_sent_time.
    first_sent_time: SimTime,
    /// C.app_limited: 0, or the delivered count at which the app-limited
    /// phase ends.
    app_limited: u64,
    /// C.lost: loss events so far ([`Self::on_marked_lost`]).
    lost: u64,
    /// The sample being built from this ACK's delivered segments.
    newly: u64,
    best: Option<TxState>,
    /// ns-3.37's TcpRateLinux instead of the draft ([`Self::ns3`]).
    ns3: bool,
    /// ns-3's rs.prior_time: the delivered time of the last segment that
    /// became the sample's (kept across ACKs, 0 at first).
    ns3_prior_time: SimTime,
    /// ns-3's rs.ack_elapsed of the current sample.
    ns3_ack_elapsed: SimTime,
    /// This ACK moved the ns-3 sample to a newer segment.
    ns3_fresh: bool,
    /// ns-3's rs.delivery_rate, kept across ACKs: the last valid one.
    ns3_rate: Option<f64>,
}

impl RateSampler {
    /// A sampler as ns-3.37's TcpRateLinux (tcp-rate-ops.cc) computes its
    /// samples, for a sender that mirrors ns-3's socket
    /// ([`crate::tcp::stack::CongControl::Ns3`]): the sample
    /// (`m_rateSample`) is kept across ACKs and moves only to a segment
    /// sent with a larger delivered count (SkbDelivered: "m_priorDelivered
    /// == 0 || skbInfo.m_delivered > m_priorDelivered"), and its
    /// ack_elapsed is measured from the delivered time of the segment it
    /// moves from ("m_rateSample.m_ackElapsed = Simulator::Now() -
    /// m_rateSample.m_priorTime" before m_priorTime is updated; ns-3 issue
    /// #1026, fixed in ns-3.41 to "- skbInfo.m_deliveredTime"): the first
    /// sample's interval runs from time 0, and a flow sending a segment a
    /// round trip measures about half its rate. A sample shorter than
    /// min_rtt zeroes that delivered time (GenerateSample), so the next one
    /// runs from time 0 too: after a timeout, a rate of a few segments over
    /// the connection's age. An invalid sample carries the last valid
    /// rate. An ACK that delivers nothing gives the kept sample again
    /// (ns-3 calls GenerateSample on every ACK not below the cumulative
    /// point), with nothing newly delivered.
    pub fn ns3() -> RateSampler {
        RateSampler {
            ns3: true,
            ..RateSampler::default()
        }
    }

    /// Segment `seq` is sent at `now` with `inflight` segments in the network
    /// before it (a retransmission if `retx`).
    #[inline]
    pub fn on_send(&mut self, seq: u64, now: SimTime, inflight: u64, retx: bool) {
        //= draft-cheng-iccrg-delivery-rate-estimation-02 section 3.2: "If
        //= there are no packets in flight yet, then we can start the delivery
        //= rate interval at the current time".
        if inflight == 0 {
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        let s = TxState {
            tag: self.delivered << 2
                | if self.app_limited != 0 {
                    APP_LIMITED
                } else {
                    0
                }
                | if retx { RETX } else { 0 },
            delivered_time: self.delivered_time,
            first_sent_time: self.first_sent_time,
            sent_time: now,
            // draft-ietf-ccwg-bbr's per-packet P.tx_in_flight (the flight
            // as the packet left, itself counted: Linux's
            // bbr_inflight_hi_from_lost_skb takes "in flight before this
            // skb" as tx_in_flight - pcount) and P.lost (C.lost then).
            tx_in_flight: u32::try_from(inflight + 1).unwrap_or(u32::MAX),
            lost: self.lost as u32,
        };
        self.ring.put(seq, s);
    }

    /// The sender marked segment `seq` lost (a loss event: a segment not
    /// marked before, or a marked one's retransmission), as Linux's
    /// tcp_mark_skb_lost counts it in tp->lost before the controller's
    /// skb_marked_lost hook reads it: C.lost grows by one, and the
    /// segment's send state, if it was sent and not delivered, gives
    /// rs.tx_in_flight and rs.lost (draft-ietf-ccwg-bbr
    /// BBRHandleLostPacket).
    pub fn on_marked_lost(&mut self, seq: u64) -> Option<LostSample> {
        self.lost += 1;
        let p = self.ring.peek(seq)?;
        Some(LostSample {
            tx_in_flight: u64::from(p.tx_in_flight),
            lost: u64::from((self.lost as u32).wrapping_sub(p.lost)),
            is_app_limited: p.tag & APP_LIMITED != 0,
        })
    }

    /// The sender has nothing to send with `inflight` segments outstanding:
    /// mark the connection application-limited (draft section 3.4, "C.app_limited
    /// = (C.delivered + C.inflight) ? : 1").
    pub fn mark_app_limited(&mut self, inflight: u64) {
        self.app_limited = (self.delivered + inflight).max(1);
    }

    /// Segment `seq` was SACKed at `now`.
    #[inline]
    pub fn on_sacked(&mut self, seq: u64, now: SimTime) {
        if let Some(p) = self.ring.take(seq) {
            self.deliver(p, now);
        }
    }

    /// The cumulative ACK reached `una` at `now`.
    pub fn on_cum_ack(&mut self, una: u64, now: SimTime) {
        while let Some(p) = self.ring.pop_below(una) {
            self.deliver(p, now);
        }
    }

    //= draft-cheng section 3.3 UpdateRateSample: "C.delivered += P.data_length;
    //= C.delivered_time = Now()"; the sample uses the most recently sent of
    //= the packets this ACK delivers ("if (!rs.has_data || IsNewestPacket(P,
    //= rs))"), newest by P.delivered, ties by send time.
    fn deliver(&mut self, s: TxState, now: SimTime) {
        self.delivered += 1;
        self.delivered_time = now;
        self.newly += 1;
        if self.ns3 {
            if self
                .best
                .is_none_or(|b| b.delivered() == 0 || s.delivered() > b.delivered())
            {
                self.ns3_ack_elapsed = now.saturating_sub(self.ns3_prior_time);
                self.ns3_prior_time = s.delivered_time;
                self.ns3_fresh = true;
                self.best = Some(s);
                self.first_sent_time = s.sent_time;
            }
            return;
        }
        if self
            .best
            .is_none_or(|b| (s.delivered(), s.sent_time) >= (b.delivered(), b.sent_time))
        {
            self.best = Some(s);
            //= "C.first_sent_time = P.send_time": the next interval starts
            //= at this packet's transmission.
            self.first_sent_time = s.sent_time;
        }
    }

    /// The rate sample of this ACK at `now` (`None`: it delivered nothing,
    /// or under ns-3's sampler nothing was ever delivered); `min_rtt`
    /// bounds the shortest safe interval.
    pub fn sample(&mut self, now: SimTime, min_rtt: Option<SimTime>) -> Option<RateSample> {
        let p = if self.ns3 {
            //= ns-3.37 TcpSocketBase::ReceivedAck calls GenerateSample and
            //= CongControl on every ACK not below the cumulative point, one
            //= that delivers nothing too: m_rateSample, kept across ACKs,
            //= gives the same delivered count and interval again, with
            //= "m_ackedSacked = delivered" 0.
            self.best?
        } else {
            self.best.take()?
        };
        let newly = std::mem::take(&mut self.newly);
        let fresh = !self.ns3 || std::mem::take(&mut self.ns3_fresh);
        //= draft-cheng section 3.3 GenerateRateSample: "Clear app-limited
        //= field if bubble is ACKed and gone": C.delivered > C.app_limited.
        if self.app_limited != 0 && self.delivered > self.app_limited {
            self.app_limited = 0;
        }
        //= "send_elapsed = P.send_time - P.first_sent_time; ack_elapsed =
        //= C.delivered_time - P.delivered_time; rs.interval =
        //= max(send_elapsed, ack_elapsed)" (ACK compression cannot inflate it).
        let send_elapsed = p.sent_time.saturating_sub(p.first_sent_time);
        let ack_elapsed = if self.ns3 {
            self.ns3_ack_elapsed
        } else {
            self.delivered_time.saturating_sub(p.delivered_time)
        };
        let interval = send_elapsed.max(ack_elapsed);
        let delivered = self.delivered - p.delivered();
        //= "Normally we expect interval >= MinRTT. Note that rate may still
        //= be overestimated when a spuriously retransmitted skb was first
        //= (s)acked because 'interval' is under-estimated" - the draft
        //= discards samples whose interval is below min_rtt.
        let unsafe_short = min_rtt.is_some_and(|m| interval < m);
        //= ns-3.37 TcpRateLinux::GenerateSample: "if
        //= (m_rateSample.m_priorTime == Seconds(0) ...)" the sample is
        //= invalid; a short one sets "m_rateSample.m_priorTime =
        //= Seconds(0); // To make rate sample invalid", so it stays invalid
        //= until a newer segment moves the sample, and that one's
        //= ack_elapsed (SkbDelivered: "Simulator::Now() -
        //= m_rateSample.m_priorTime") then runs from time 0.
        let unset = self.ns3 && self.ns3_prior_time == SimTime::ZERO;
        if self.ns3 && unsafe_short {
            self.ns3_prior_time = SimTime::ZERO;
        }
        let mut delivery_rate = (interval > SimTime::ZERO && !unsafe_short && !unset)
            .then(|| delivered as f64 / interval.as_secs_f64());
        if self.ns3 {
            //= ns-3.37 GenerateSample returns an invalid sample with the
            //= m_deliveryRate of the last valid one, which TcpBbr's
            //= UpdateBtlBw takes as it is ("if (rs.m_deliveryRate == 0)
            //= return" only).
            delivery_rate = delivery_rate.or(self.ns3_rate);
            self.ns3_rate = delivery_rate;
        }
        Some(RateSample {
            total_delivered: self.delivered,
            newly_delivered: newly,
            prior_delivered: p.delivered(),
            delivered,
            interval,
            delivery_rate,
            is_app_limited: p.tag & APP_LIMITED != 0,
            rtt: (fresh && p.tag & RETX == 0).then(|| now.saturating_sub(p.sent_time)),
            untimed: unset,
            tx_in_flight: u64::from(p.tx_in_flight),
            lost: u64::from((self.lost as u32).wrapping_sub(p.lost)),
        })
    }

    /// C.delivered.
    pub fn delivered(&self) -> u64 {
        self.delivered
    }
}

/// Segments per block of the ring.
const BLOCK: usize = 64;

/// One block of the ring.
#[derive(Debug)]
struct Block {
    /// Bit `k`: segment `k` of the block is sent and not delivered.
    live: u64,
    s: [TxState; BLOCK],
}

/// The per-segment states of `[front, end)`, in blocks: a block with no
/// live segment (every segment delivered) is dropped from the ring, kept as
/// a spare, and made again (all delivered) if one of its segments is sent
/// once more.
#[derive(Debug, Default)]
struct Ring {
    /// Sequence number of the first block's first segment (a multiple of [`BLOCK`]).
    base: u64,
    /// The first segment not yet cumulatively acknowledged.
    front: u64,
    /// One past the highest segment sent.
    end: u64,
    blocks: VecDeque<Option<Box<Block>>>,
    #[allow(
        clippy::vec_box,
        reason = "a block moves between the ring and the spares by pointer, keeping its allocation"
    )]
    spare: Vec<Box<Block>>,
}

impl Ring {
    /// Record segment `seq`'s send state (segments are sent in order: `seq`
    /// is at most one past the highest sent; below `front` it is ignored).
    #[inline]
    fn put(&mut self, seq: u64, s: TxState) {
        if seq < self.front {
            return;
        }
        self.end = self.end.max(seq + 1);
        let i = (seq - self.base) as usize;
        let block = match self.blocks.get_mut(i / BLOCK) {
            Some(Some(block)) => block,
            _ => self.make_block(i / BLOCK),
        };
        block.live |= 1 << (i % BLOCK);
        block.s[i % BLOCK] = s;
    }

    /// Block `b`, every segment delivered, from a spare.
    #[cold]
    fn make_block(&mut self, b: usize) -> &mut Block {
        while self.blocks.len() <= b {
            self.blocks.push_back(None);
        }
        let mut block = self.spare.pop().unwrap_or_else(|| {
            Box::new(Block {
                live: 0,
                s: [TxState::default(); BLOCK],
            })
        });
        block.live = 0;
        self.blocks[b].insert(block)
    }

    /// Segment `seq`'s state if it is in the ring and not delivered yet,
    /// marking it delivered.
    #[inline]
    fn take(&mut self, seq: u64) -> Option<TxState> {
        if seq < self.front {
            return None;
        }
        self.take_at(seq)
    }

    /// Segment `seq`'s state if it is in the ring and not delivered yet,
    /// left as it is.
    fn peek(&self, seq: u64) -> Option<TxState> {
        if seq < self.front || seq >= self.end {
            return None;
        }
        let i = (seq - self.base) as usize;
        let block = self.blocks.get(i / BLOCK)?.as_ref()?;
        (block.live & (1 << (i % BLOCK)) != 0).then(|| block.s[i % BLOCK])
    }

    /// [`Self::take`] without the `front` bound.
    #[inline]
    fn take_at(&mut self, seq: u64) -> Option<TxState> {
        if seq >= self.end {
            return None;
        }
        let i = (seq - self.base) as usize;
        let b = i / BLOCK;
        let block = self.blocks.get_mut(b)?.as_mut()?;
        let bit = 1 << (i % BLOCK);
        if block.live & bit == 0 {
            return None;
        }
        block.live &= !bit;
        let p = block.s[i % BLOCK];
        if block.live == 0 {
            self.spare.extend(self.blocks[b].take());
        }
        Some(p)
    }

    /// Move `front` toward `una`, up to and including the next segment not
    /// yet delivered, whose state it returns (marked delivered); `None` once
    /// `front` reached `una`.
    fn pop_below(&mut self, una: u64) -> Option<TxState> {
        while self.front < una {
            let Some(head) = self.blocks.front() else {
                // Nothing in the ring: it starts again at `una`.
                self.front = una;
                self.end = self.end.max(una);
                self.base = una - una % BLOCK as u64;
                break;
            };
            let block_end = self.base + BLOCK as u64;
            if self.front >= block_end {
                if let Some(Some(block)) = self.blocks.pop_front() {
                    self.spare.push(block);
                }
                self.base = block_end;
            } else if head.is_none() {
                // A block without live segments: skip it whole.
                self.front = una.min(block_end);
            } else {
                let seq = self.front;
                self.front += 1;
                if let Some(p) = self.take_at(seq) {
                    return Some(p);
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimTime {
        SimTime::from_millis(x)
    }

    /// Ten segments sent back to back at 0 ms, ACKed one per ms from 100 ms:
    /// the sample at 109 ms covers 10 segments over max(send 0, ack 9 ms)...
    /// but the first ACK's delivered_time (100 ms) is P.delivered_time of
    /// none of them: all were sent with C.delivered_time = 0, so ack_elapsed
    /// = 109 ms and the rate is 10 / 0.109 s.
    #[test]
    fn first_flight_rate() {
        let mut r = RateSampler::default();
        for s in 0..10 {
            r.on_send(s, ms(0), s, false);
        }
        for s in 0..10 {
            r.on_cum_ack(s + 1, ms(100 + s));
            let rs = r.sample(ms(100 + s), Some(ms(100))).unwrap();
            assert_eq!(rs.total_delivered, s + 1);
            assert_eq!(rs.delivered, s + 1);
            assert_eq!(rs.interval, ms(100 + s));
            assert_eq!(rs.rtt, Some(ms(100 + s)));
            let rate = rs.delivery_rate.unwrap();
            assert!((rate - (s + 1) as f64 / ((100 + s) as f64 / 1e3)).abs() < 1e-9);
        }
    }

    /// One segment a round trip (100 ms), the first sent at 1 s: the draft
    /// measures 10 segments/s each time; ns-3.37's TcpRateLinux times the
    /// first sample from 0 (1 segment over 1.1 s) and each later one from
    /// the previous segment's delivered time (1 over 200 ms): half.
    #[test]
    fn ns3_ack_elapsed_runs_from_the_previous_sample() {
        for (mut r, rates) in [
            (RateSampler::default(), [10.0, 10.0, 10.0]),
            (RateSampler::ns3(), [1.0 / 1.1, 5.0, 5.0]),
        ] {
            for (k, want) in rates.into_iter().enumerate() {
                let k = k as u64;
                r.on_send(k, ms(1000 + 100 * k), 0, false);
                r.on_cum_ack(k + 1, ms(1100 + 100 * k));
                let rs = r.sample(ms(1100 + 100 * k), Some(ms(100))).unwrap();
                assert!(
                    (rs.delivery_rate.unwrap() - want).abs() < 1e-9,
                    "{k}: {rs:?}"
                );
                assert_eq!(rs.rtt, Some(ms(100)));
            }
            // Nothing delivered: no sample from the draft's sampler; ns-3's
            // gives its kept sample again, nothing newly delivered and no RTT.
            let again = r.sample(ms(2000), Some(ms(100)));
            if rates[0] == 10.0 {
                assert_eq!(again, None);
            } else {
                let again = again.unwrap();
                assert_eq!(
                    (again.newly_delivered, again.delivered, again.rtt),
                    (0, 1, None)
                );
                assert!((again.delivery_rate.unwrap() - 5.0).abs() < 1e-9);
            }
        }
    }

    /// ns-3's sample shorter than min_rtt zeroes m_priorTime: the samples
    /// stay invalid (carrying the last valid rate) until a newer segment
    /// moves the sample, whose interval then runs from time 0. One segment
    /// at a time, min_rtt 100 ms, each sent as the previous one's ACK
    /// arrives.
    #[test]
    fn ns3_short_sample_times_the_next_from_zero() {
        // (sent, ACKed) in ms; the rates, segments/s: the draft's from each
        // segment's own delivered time; ns-3's from the previous sample's
        // (150 ms, then 40 ms: short, the 150 ms one's rate again), and
        // after the short one from 0.
        let segs = [(1000, 1100), (1100, 1150), (1150, 1190), (1190, 1300)];
        for (mut r, rates) in [
            (
                RateSampler::default(),
                [Some(10.0), None, None, Some(1.0 / 0.11)],
            ),
            (
                RateSampler::ns3(),
                [
                    Some(1.0 / 1.1),
                    Some(1.0 / 0.15),
                    Some(1.0 / 0.15),
                    Some(1.0 / 1.3),
                ],
            ),
        ] {
            for (k, ((sent, acked), want)) in segs.into_iter().zip(rates).enumerate() {
                let k = k as u64;
                r.on_send(k, ms(sent), 0, false);
                r.on_cum_ack(k + 1, ms(acked));
                let got = r.sample(ms(acked), Some(ms(100))).unwrap().delivery_rate;
                match (got, want) {
                    (Some(g), Some(w)) => assert!((g - w).abs() < 1e-9, "{k}: {g} {w}"),
                    _ => assert_eq!(got, want, "{k}"),
                }
            }
        }
    }

    /// Steady state at 1 segment/ms: a segment sent at t (C.delivered = d,
    /// C.delivered_time = t) is ACKed at t + 100 ms with C.delivered = d +
    /// 100: 100 segments over 100 ms = 1000 segments/s.
    #[test]
    fn steady_rate_and_sack() {
        let mut r = RateSampler::default();
        for s in 0..100 {
            r.on_send(s, ms(s), s, false);
        }
        let mut last = None;
        for s in 0..300 {
            let now = ms(100 + s);
            r.on_cum_ack(s + 1, now);
            last = r.sample(now, Some(ms(100)));
            r.on_send(s + 100, now, 99, false);
        }
        let rs = last.unwrap();
        assert_eq!(rs.delivered, 100);
        assert_eq!(rs.interval, ms(100));
        assert!((rs.delivery_rate.unwrap() - 1000.0).abs() < 1e-6);
        // A SACK of 302 (301 lost): delivered once; the cumulative ACK over
        // it later does not count it again.
        r.on_sacked(301, ms(400));
        let rs = r.sample(ms(400), Some(ms(100))).unwrap();
        assert_eq!((rs.newly_delivered, rs.total_delivered), (1, 301));
        r.on_cum_ack(303, ms(401));
        let rs = r.sample(ms(401), Some(ms(100))).unwrap();
        assert_eq!((rs.newly_delivered, rs.total_delivered), (2, 303));
        // Nothing delivered: no sample.
        r.on_cum_ack(303, ms(402));
        assert!(r.sample(ms(402), None).is_none());
    }

    /// An interval shorter than min_rtt gives no rate; app-limited marks
    /// the segments sent until the bubble is delivered.
    #[test]
    fn unsafe_interval_and_app_limited() {
        let mut r = RateSampler::default();
        r.on_send(0, ms(0), 0, false);
        r.on_cum_ack(1, ms(10));
        let rs = r.sample(ms(10), Some(ms(50))).unwrap();
        assert_eq!(rs.delivery_rate, None);
        r.mark_app_limited(0);
        r.on_send(1, ms(10), 0, false);
        r.on_cum_ack(2, ms(20));
        assert!(r.sample(ms(20), None).unwrap().is_app_limited);
        r.on_send(2, ms(20), 0, false);
        r.on_cum_ack(3, ms(30));
        assert!(!r.sample(ms(30), None).unwrap().is_app_limited);
    }

    /// A lost retransmission holds `una` while 100,000 segments are sent
    /// and SACKed: the ring keeps the blocks of undelivered segments only,
    /// and the cumulative ACK over all of them delivers the held one alone.
    /// A lost segment's send state: segments 0..10 sent one by one (segment
    /// k into a flight of k, itself the k+1-th), 3 and 7 marked lost, then 3
    /// resent into a flight of 8 and marked lost again: each sample counts
    /// the losses since that segment's own (last) send, itself included. A
    /// delivered segment has no state left; C.lost counts every event (4).
    #[test]
    fn lost_segment_send_state() {
        let mut r = RateSampler::default();
        for s in 0..10 {
            r.on_send(s, ms(s), s, false);
        }
        let l = |tx_in_flight, lost| LostSample {
            tx_in_flight,
            lost,
            is_app_limited: false,
        };
        assert_eq!(r.on_marked_lost(3), Some(l(4, 1)));
        assert_eq!(r.on_marked_lost(7), Some(l(8, 2)));
        r.on_send(3, ms(20), 8, true);
        assert_eq!(r.on_marked_lost(3), Some(l(9, 1)));
        r.on_sacked(5, ms(30));
        assert_eq!(r.on_marked_lost(5), None);
        assert_eq!(r.lost, 4);
    }

    #[test]
    fn stalled_una_keeps_few_blocks() {
        let mut r = RateSampler::default();
        for s in 0..100_000 {
            r.on_send(s, ms(s / 100), 50, false);
            // Segment 0 is never SACKed; the others 50 segments later.
            if s > 50 {
                r.on_sacked(s - 50, ms(s / 100));
            }
        }
        assert!(r.sample(ms(1000), None).is_some());
        assert!(r.ring.blocks.iter().flatten().count() <= 3);
        r.on_cum_ack(99_950, ms(1001));
        let rs = r.sample(ms(1001), None).unwrap();
        assert_eq!((rs.newly_delivered, rs.total_delivered), (1, 99_950));
    }

    use proptest::prelude::*;

    /// The flat reference: every segment's state from its first send on,
    /// and whether it is delivered.
    #[derive(Default)]
    struct Flat {
        base: u64,
        ring: VecDeque<(TxState, bool)>,
    }

    impl Flat {
        fn put(&mut self, seq: u64, s: TxState) {
            if seq < self.base {
                return;
            }
            let i = (seq - self.base) as usize;
            if i < self.ring.len() {
                self.ring[i] = (s, false);
            } else {
                self.ring.push_back((s, false));
            }
        }
        fn take(&mut self, seq: u64) -> Option<TxState> {
            let (t, done) = self.ring.get_mut(seq.checked_sub(self.base)? as usize)?;
            (!std::mem::replace(done, true)).then_some(*t)
        }
    }

    proptest! {
        /// Random sends (new and resent), SACKs and cumulative ACKs: the
        /// blocked ring returns the states of a flat one, in the same order.
        #[test]
        fn blocks_match_a_flat_ring(ops in proptest::collection::vec((0u8..4, 0u64..400), 1..400)) {
            let (mut ring, mut flat) = (Ring::default(), Flat::default());
            let (mut max, mut una) = (0u64, 0u64);
            let state = |seq: u64| TxState { tag: seq << 2, sent_time: SimTime(seq + 1), ..TxState::default() };
            for (op, a) in ops {
                match op {
                    0 => for _ in 0..a % 150 {
                        ring.put(max, state(max));
                        flat.put(max, state(max));
                        max += 1;
                    },
                    1 => if a < max {
                        ring.put(a, state(a));
                        flat.put(a, state(a));
                    },
                    2 => {
                        let got = ring.take(a).map(|t| t.tag);
                        prop_assert_eq!(got, flat.take(a).map(|t| t.tag));
                    }
                    _ => {
                        una = una.max(a.min(max));
                        let mut got = Vec::new();
                        while let Some(t) = ring.pop_below(una) {
                            got.push(t.tag);
                        }
                        let mut want = Vec::new();
                        while flat.base < una {
                            if let Some((t, false)) = flat.ring.pop_front() {
                                want.push(t.tag);
                            }
                            flat.base += 1;
                        }
                        prop_assert_eq!(got, want);
                    }
                }
            }
        }
    }
}
