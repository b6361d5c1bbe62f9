//! HyStart++ (RFC 9406): leave the initial slow start when the round's
//! minimum RTT rises, before the window overshoots the path and the buffer
//! and loses a large part of a window at once.
//!
//! Slow start is watched round by round (a round ends when the segment that
//! was `SND.NXT` at its start is acknowledged). When a round's minimum RTT,
//! over at least `N_RTT_SAMPLE` ACKs, exceeds the previous round's by
//! `RttThresh`, the sender enters Conservative Slow Start (CSS), growing a
//! quarter as fast; after `CSS_ROUNDS` rounds of CSS it enters congestion
//! avoidance with ssthresh = cwnd. A CSS round whose minimum RTT falls back
//! below the baseline was a false alarm: slow start resumes.
//!
//! RTT samples come from every ACK that advances SND.UNA (the send time of
//! the newest segment it acknowledges, never from a retransmitted segment);
//! the sender keeps send times only while HyStart++ runs, in the initial
//! slow start.

use std::collections::VecDeque;

use crate::units::SimTime;

//= RFC 9406 section 4.3: "MIN_RTT_THRESH = 4 msec".
const MIN_RTT_THRESH: SimTime = SimTime::from_millis(4);
//= RFC 9406 section 4.3: "MAX_RTT_THRESH = 16 msec".
const MAX_RTT_THRESH: SimTime = SimTime::from_millis(16);
//= RFC 9406 section 4.3: "MIN_RTT_DIVISOR = 8".
const MIN_RTT_DIVISOR: u64 = 8;
//= RFC 9406 section 4.3: "N_RTT_SAMPLE = 8".
const N_RTT_SAMPLE: u32 = 8;
//= RFC 9406 section 4.3: "CSS_GROWTH_DIVISOR = 4".
/// In CSS the window grows this many times more slowly than in slow start.
pub const CSS_GROWTH_DIVISOR: f64 = 4.0;
//= RFC 9406 section 4.3: "CSS_ROUNDS = 5".
const CSS_ROUNDS: u32 = 5;

/// What slow start does with the ACK just processed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Growth {
    /// Standard slow start.
    SlowStart,
    /// Conservative Slow Start: grow by 1 / [`CSS_GROWTH_DIVISOR`].
    Conservative,
    /// Enter congestion avoidance now: ssthresh = cwnd.
    Exit,
}

/// HyStart++ state of one sender in its initial slow start.
#[derive(Clone, Debug)]
pub struct HyStart {
    /// A round ends when SND.UNA passes this segment (`windowEnd`).
    window_end: u64,
    last_round_min: Option<SimTime>,
    current_round_min: Option<SimTime>,
    samples: u32,
    /// The minimum RTT that started CSS (`cssBaselineMinRtt`); None in
    /// standard slow start.
    css_baseline: Option<SimTime>,
    /// Whole rounds spent in CSS (the round that entered it not counted).
    css_rounds: u32,
    /// CSS began during the current round.
    css_entered: bool,
    /// Send time of each segment from `first` on (None: retransmitted).
    sent: VecDeque<Option<SimTime>>,
    first: u64,
}

impl Default for HyStart {
    fn default() -> Self {
        HyStart::new()
    }
}

impl HyStart {
    /// Before the first segment is sent.
    pub fn new() -> HyStart {
        HyStart {
            window_end: 0,
            last_round_min: None,
            current_round_min: None,
            samples: 0,
            css_baseline: None,
            css_rounds: 0,
            css_entered: false,
            sent: VecDeque::new(),
            first: 0,
        }
    }

    /// Segment `seq` was sent at `now` (`retx`: a retransmission, whose
    /// ACK gives no RTT sample).
    pub fn on_send(&mut self, seq: u64, now: SimTime, retx: bool) {
        if seq < self.first {
            return;
        }
        let i = (seq - self.first) as usize;
        if i < self.sent.len() {
            self.sent[i] = if retx { None } else { Some(now) };
        } else {
            while self.sent.len() < i {
                self.sent.push_back(None);
            }
            self.sent.push_back(Some(now));
        }
    }

    /// An ACK moved SND.UNA to `una` at `now`; `nxt` is the next new segment.
    pub fn on_ack(&mut self, una: u64, nxt: u64, now: SimTime) -> Growth {
        // RTT sample: the newest segment this ACK acknowledges.
        let mut newest = None;
        while self.first < una {
            newest = self.sent.pop_front().flatten();
            self.first += 1;
        }
        if let Some(sent) = newest {
            let rtt = now - sent;
            //= RFC 9406 section 4.2: "currentRoundMinRTT = min(currentRoundMinRTT,
            //= currRTT); rttSampleCount += 1".
            self.current_round_min = Some(self.current_round_min.map_or(rtt, |m| m.min(rtt)));
            self.samples += 1;
        }
        let mut growth = self.check();
        //= RFC 9406 section 4.2: a round ends when the ACK covers windowEnd,
        //= the SND.NXT of its start.
        if una >= self.window_end {
            // A new round: "lastRoundMinRTT = currentRoundMinRTT;
            // currentRoundMinRTT = infinity; rttSampleCount = 0".
            self.window_end = nxt;
            self.last_round_min = self.current_round_min;
            self.current_round_min = None;
            self.samples = 0;
            if self.css_baseline.is_some() {
                if std::mem::take(&mut self.css_entered) {
                    // The round CSS began in is not a whole CSS round.
                } else {
                    self.css_rounds += 1;
                }
                //= RFC 9406 section 4.2: "If CSS_ROUNDS rounds are complete,
                //= enter congestion avoidance by setting the ssthresh to the
                //= current cwnd."
                if self.css_rounds >= CSS_ROUNDS {
                    growth = Growth::Exit;
                }
            }
        }
        growth
    }

    /// The delay tests of RFC 9406 section 4.2 on the current round.
    fn check(&mut self) -> Growth {
        let (Some(cur), Some(last)) = (self.current_round_min, self.last_round_min) else {
            return self.growth();
        };
        if self.samples < N_RTT_SAMPLE {
            return self.growth();
        }
        match self.css_baseline {
            None => {
                //= "RttThresh = max(MIN_RTT_THRESH, min(lastRoundMinRTT /
                //= MIN_RTT_DIVISOR, MAX_RTT_THRESH))"; "if (currentRoundMinRTT
                //= >= (lastRoundMinRTT + RttThresh)) cssBaselineMinRtt =
                //= currentRoundMinRTT; exit slow start and enter CSS".
                let thresh = rtt_thresh(last);
                if cur >= last + thresh {
                    self.css_baseline = Some(cur);
                    self.css_rounds = 0;
                    self.css_entered = true;
                }
            }
            Some(base) => {
                //= "if (currentRoundMinRTT < cssBaselineMinRtt) cssBaselineMinRtt
                //= = infinity; resume slow start including HyStart++".
                if cur < base {
                    self.css_baseline = None;
                }
            }
        }
        self.growth()
    }

    fn growth(&self) -> Growth {
        if self.css_baseline.is_some() {
            Growth::Conservative
        } else {
            Growth::SlowStart
        }
    }
}

/// RFC 9406 section 4.2's `RttThresh` for a previous round's minimum RTT.
pub fn rtt_thresh(last_round_min: SimTime) -> SimTime {
    SimTime(last_round_min.0 / MIN_RTT_DIVISOR)
        .min(MAX_RTT_THRESH)
        .max(MIN_RTT_THRESH)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimTime {
        SimTime::from_millis(x)
    }

    /// Drive `rounds` rounds of slow start: each round sends `per_round`
    /// segments at the round's start and acknowledges them one by one,
    /// segment k of round r with RTT `rtt(r)` (plus k us, as a queue would).
    /// By the time a round's ACKs arrive the sender has sent the next
    /// round's segments (SND.NXT one round ahead), as in slow start; the
    /// first ACK starts the first round, so rounds 0 and 1 form one.
    fn drive(
        h: &mut HyStart,
        rounds: u32,
        per_round: u64,
        rtt: impl Fn(u32) -> u64,
    ) -> Vec<Growth> {
        let mut out = vec![];
        let mut seq = 0;
        let mut t = SimTime::ZERO;
        for r in 0..rounds {
            let start = seq;
            for s in start..start + per_round {
                h.on_send(s, t, false);
            }
            seq += per_round;
            let mut last = Growth::SlowStart;
            for s in start..start + per_round {
                let now = t + ms(rtt(r)) + SimTime::from_micros(s - start);
                last = h.on_ack(s + 1, seq + per_round, now);
                if last == Growth::Exit {
                    out.push(last);
                    return out;
                }
            }
            out.push(last);
            t = t + ms(rtt(r)) + SimTime::from_micros(per_round);
        }
        out
    }

    #[test]
    fn rtt_thresh_is_clamped() {
        // Hand-worked: 200 ms / 8 = 25 ms > 16 ms; 20 ms / 8 = 2.5 ms < 4 ms.
        assert_eq!(rtt_thresh(ms(200)), ms(16));
        assert_eq!(rtt_thresh(ms(20)), ms(4));
        assert_eq!(rtt_thresh(ms(80)), ms(10));
    }

    #[test]
    fn constant_rtt_never_leaves_slow_start() {
        let mut h = HyStart::new();
        let g = drive(&mut h, 12, 16, |_| 100);
        assert!(g.iter().all(|&x| x == Growth::SlowStart), "{g:?}");
    }

    #[test]
    fn rtt_rise_enters_css_then_congestion_avoidance_after_five_rounds() {
        let mut h = HyStart::new();
        // 100 ms for three rounds, then 120 ms: a rise of 20 ms >= RttThresh
        // 12.5 ms, seen once the round has N_RTT_SAMPLE = 8 samples.
        let g = drive(&mut h, 20, 16, |r| if r < 3 { 100 } else { 120 });
        assert_eq!(&g[..3], &[Growth::SlowStart; 3]);
        assert_eq!(g[3], Growth::Conservative);
        // Rounds 4..7 are CSS; the fifth round boundary after entering CSS
        // ends it.
        assert_eq!(&g[4..8], &[Growth::Conservative; 4]);
        assert_eq!(g[8], Growth::Exit);
        assert_eq!(g.len(), 9);
    }

    #[test]
    fn a_small_rise_or_too_few_samples_is_ignored() {
        let mut h = HyStart::new();
        // +10 ms < RttThresh 12.5 ms.
        let g = drive(&mut h, 8, 16, |r| if r < 3 { 100 } else { 110 });
        assert!(g.iter().all(|&x| x == Growth::SlowStart), "{g:?}");
        // A rise seen in rounds of 4 ACKs only (< N_RTT_SAMPLE) is ignored.
        let mut h = HyStart::new();
        let g = drive(&mut h, 8, 4, |r| if r < 3 { 100 } else { 150 });
        assert!(g.iter().all(|&x| x == Growth::SlowStart), "{g:?}");
    }

    #[test]
    fn rtt_falling_below_the_baseline_resumes_slow_start() {
        let mut h = HyStart::new();
        // Rise to 120 ms in round 3 (CSS), back to 100 ms in round 4.
        let g = drive(&mut h, 8, 16, |r| if r == 3 { 120 } else { 100 });
        assert_eq!(g[3], Growth::Conservative);
        assert_eq!(&g[4..], &[Growth::SlowStart; 4]);
    }
}
