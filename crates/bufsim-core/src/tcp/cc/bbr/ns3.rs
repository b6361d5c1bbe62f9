//! The `mirror = "ns-3.37"` mode's own state: ns-3.37 TcpBbr's
//! ACK-aggregation estimate. Its other departures from the draft are coded,
//! each cited, where the draft's rule they replace is.

use super::*;

/// ns-3.37's estimate of the data ACKs deliver beyond the bandwidth
/// estimate (TcpBbr::UpdateAckAggregation, after Linux's
/// bbr_update_ack_aggregation), in ns-3's units: bytes and whole seconds.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct AckAggregation {
    /// m_ackEpochTime: the start of the sampling epoch.
    pub(super) epoch_time: SimTime,
    /// m_ackEpochAcked: bytes delivered in the epoch.
    pub(super) epoch_acked: u32,
    /// m_extraAcked: the largest excess of each of two windows, bytes.
    pub(super) extra_acked: [u32; 2],
    /// m_extraAckedWinRtt: round starts in the current window.
    pub(super) win_rtt: u32,
    /// m_extraAckedIdx: the current window.
    pub(super) idx: usize,
}

impl Bbr {
    /// The max filter's bandwidth as ns-3's DataRate holds it, bits/s.
    pub(super) fn ns3_bits_per_s(&self) -> u64 {
        (self.max_bw() * f64::from(self.seg_bytes) * 8.0) as u64
    }

    //= ns-3.37 TcpBbr::UpdateAckAggregation (mirror): per sampling
    //= epoch, the bytes ACKed beyond "expectedAcked = maxBw * epochProp /
    //= 8", the epoch's largest excess kept per window of 5 round trips.
    //= ns-3 holds epochProp, the epoch's age, in a uint32_t of seconds (0
    //= for the first second), and resets the epoch once it reaches 4096
    //= bytes, so the excess is about an ACK's bytes: the largest ACK of
    //= the window, up to cwnd.
    pub(super) fn update_ack_aggregation(&mut self, cwnd: f64, s: &AckSample) {
        let seg = self.seg_bytes;
        let acked = u32::try_from(s.rs.newly_delivered)
            .unwrap_or(u32::MAX)
            .saturating_mul(seg);
        //= "if (!m_extraAckedGain || rs.m_ackedSacked <= 0 ||
        //= rs.m_delivered < 0) return".
        if acked == 0 || s.rs.untimed {
            return;
        }
        let bits = self.ns3_bits_per_s();
        let a = &mut self.aggr;
        if self.round_start {
            a.win_rtt = (a.win_rtt + 1).min(31);
            if a.win_rtt >= NS3_EXTRA_ACKED_WIN_RTTS {
                a.win_rtt = 0;
                a.idx ^= 1;
                a.extra_acked[a.idx] = 0;
            }
        }
        let epoch_prop = (s.now.as_secs_f64() - a.epoch_time.as_secs_f64()) as u32;
        let mut expected = (bits * u64::from(epoch_prop) / 8) as u32;
        if a.epoch_acked <= expected
            || a.epoch_acked.wrapping_add(acked) >= NS3_ACK_EPOCH_RESET_BYTES
        {
            a.epoch_acked = 0;
            a.epoch_time = s.now;
            expected = 0;
        }
        a.epoch_acked = a.epoch_acked.wrapping_add(acked);
        // ns-3's cwnd, a uint32_t of bytes.
        let cwnd_bytes = (cwnd * f64::from(seg)) as u32;
        let extra = a.epoch_acked.wrapping_sub(expected).min(cwnd_bytes);
        let best = &mut a.extra_acked[a.idx];
        *best = (*best).max(extra);
    }

    //= ns-3.37 TcpBbr::AckAggregationCwnd: once the pipe is filled, the
    //= target window grows by "m_extraAckedGain * std::max(m_extraAcked[0],
    //= m_extraAcked[1])", at most "maxAggrBytes = maxBw / (10 * 8)" (0.1 s
    //= of the bandwidth estimate). Segments.
    pub(super) fn ns3_aggregation_cwnd(&self) -> f64 {
        if !self.cfg.mirror.ns3() || !self.filled_pipe {
            return 0.0;
        }
        let max_aggr = (self.ns3_bits_per_s() / 80) as u32;
        let [a, b] = self.aggr.extra_acked;
        let aggr = NS3_EXTRA_ACKED_GAIN.saturating_mul(a.max(b)).min(max_aggr);
        f64::from(aggr) / f64::from(self.seg_bytes)
    }
}
