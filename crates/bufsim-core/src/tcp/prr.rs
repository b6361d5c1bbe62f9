//! Proportional Rate Reduction (RFC 9937, which obsoletes the experimental
//! RFC 6937): how much a SACK sender may send on each ACK of a fast
//! recovery, so that the data in flight falls smoothly from its size at the
//! loss to ssthresh instead of stopping for half an RTT (RFC 6675) and then
//! sending in a burst. Windows in segments.
//!
//! The sender calls [`Prr::start`] when it enters recovery, then
//! [`Prr::on_ack`] on every ACK of the recovery (the one that started it
//! included) and [`Prr::on_send`] for every segment it sends meanwhile;
//! `on_ack` returns the congestion window to use, `pipe + sndcnt`.
//!
//! [`PrrVariant::Ns3`] is ns-3.37's `TcpPrrRecovery` instead: RecoverFS
//! from snd.nxt - snd.una (the caller passes it), below ssthresh on an
//! unsafe ACK this ACK's delivery as the bound, not CRB's running balance,
//! and its arithmetic in 32-bit bytes, which wraps (ns-3 issue #1282, fixed
//! by ns-3 commit 25f76649 in 2026, after 3.37): above ssthresh the product
//! prr_delivered x ssthresh is taken modulo 2^32 bytes^2, so once it passes
//! that (ssthresh x prr_delivered above about 4660 segments^2 with 960-byte
//! segments) the proportional part sends next to nothing until the pipe
//! falls to ssthresh; below, SSRB's `max(prr_delivered - prr_out,
//! DeliveredData)` is an unsigned max, which picks a negative balance.

use crate::tcp::stack::PrrVariant;

/// PRR state of one recovery episode.
#[derive(Clone, Copy, Debug)]
pub struct Prr {
    /// Segments delivered to the receiver since recovery began (cumulatively
    /// acknowledged or newly SACKed), `prr_delivered`.
    delivered: f64,
    /// Segments sent since recovery began, `prr_out`.
    out: f64,
    /// RecoverFS, segments.
    recover_fs: f64,
    /// Whose bounds apply below ssthresh.
    variant: PrrVariant,
    /// [`PrrVariant::Ns3`]: ns-3's segment size, bytes (its 32-bit byte
    /// arithmetic wraps at sizes in bytes).
    seg_bytes: f64,
}

impl Prr {
    /// A recovery begins with RecoverFS = `recover_fs` segments: RFC 9937's
    /// "RecoverFS = pipe", the RFC 6675 estimate, or with
    /// [`PrrVariant::Ns3`] snd.nxt - snd.una as RFC 6937 had it (ns-3.37
    /// `TcpSocketBase::EnterRecovery` passes `UnAckDataCount()`; the two
    /// differ by what was SACKed before). `seg_bytes` is ns-3's segment
    /// size in bytes (read by [`PrrVariant::Ns3`] alone).
    pub fn start(recover_fs: u64, variant: PrrVariant, seg_bytes: u32) -> Prr {
        Prr {
            delivered: 0.0,
            out: 0.0,
            recover_fs: (recover_fs as f64).max(1.0),
            variant,
            seg_bytes: f64::from(seg_bytes.max(1)),
        }
    }

    /// `segments` as ns-3's `uint32_t` byte count.
    fn ns3_bytes(&self, segments: f64) -> u32 {
        (segments * self.seg_bytes)
            .round()
            .clamp(0.0, f64::from(u32::MAX)) as u32
    }

    /// One segment sent (new or retransmitted) during the recovery.
    #[inline]
    pub fn on_send(&mut self) {
        self.out += 1.0;
    }

    /// An ACK during the recovery delivered `delivered` segments
    /// (DeliveredData: the advance of snd.una plus the newly SACKed); `pipe`
    /// is the RFC 6675 pipe after it; `safe` says the ACK advanced snd.una
    /// and indicated no further loss. Returns the congestion window,
    /// segments: `pipe + sndcnt`.
    pub fn on_ack(&mut self, delivered: u64, pipe: u64, ssthresh: f64, safe: bool) -> f64 {
        let delivered = delivered as f64;
        let pipe_f = pipe as f64;
        self.delivered += delivered;
        let sndcnt = if pipe_f > ssthresh {
            match self.variant {
                //= RFC 9937 / RFC 6937 section 3: proportional rate reduction,
                //= "SndCnt = CEIL(prr_delivered * ssthresh / RecoverFS) - prr_out".
                PrrVariant::Rfc9937 => {
                    (self.delivered * ssthresh / self.recover_fs).ceil() - self.out
                }
                //= ns-3.37 TcpPrrRecovery::DoRecovery: "sendCount =
                //= std::ceil(m_prrDelivered * tcb->m_ssThresh * 1.0 /
                //= m_recoveryFlightSize) - m_prrOut", bytes, the product of
                //= two uint32_t taken modulo 2^32, the result truncated to
                //= an int.
                PrrVariant::Ns3 => {
                    let b = self.seg_bytes;
                    let product = self
                        .ns3_bytes(self.delivered)
                        .wrapping_mul(self.ns3_bytes(ssthresh));
                    ((f64::from(product) / (self.recover_fs * b)).ceil() - self.out * b).trunc() / b
                }
            }
        } else {
            //= The reduction bound: PRR-CRB, "limit = prr_delivered -
            //= prr_out", except that RFC 9937 allows PRR-SSRB, "limit =
            //= MAX(prr_delivered - prr_out, DeliveredData) + MSS", on a safe
            //= ACK (snd.una advanced, no further loss indicated);
            //= "SndCnt = MIN(ssthresh - pipe, limit)".
            let crb = self.delivered - self.out;
            let limit = if safe {
                match self.variant {
                    PrrVariant::Rfc9937 => crb.max(delivered) + 1.0,
                    //= ns-3.37 TcpPrrRecovery::DoRecovery: "limit =
                    //= std::max(m_prrDelivered - m_prrOut, deliveredBytes) +
                    //= tcb->m_segmentSize" in uint32_t, then an int: a
                    //= negative balance wraps to the larger operand and
                    //= comes back negative.
                    PrrVariant::Ns3 if crb < 0.0 => crb + 1.0,
                    PrrVariant::Ns3 => crb.max(delivered) + 1.0,
                }
            } else {
                match self.variant {
                    PrrVariant::Rfc9937 => crb,
                    //= ns-3.37 TcpPrrRecovery::DoRecovery, SSRB without
                    //= m_isRetransDataAcked: "limit = deliveredBytes".
                    PrrVariant::Ns3 => delivered,
                }
            };
            (ssthresh - pipe_f).min(limit)
        };
        //= RFC 9937: on the ACK that starts recovery, "if prr_out is 0 and
        //= SndCnt is 0 ... SndCnt = MSS" so the fast retransmit goes out.
        let sndcnt = if self.out == 0.0 {
            sndcnt.max(1.0)
        } else {
            sndcnt.max(0.0)
        };
        pipe_f + sndcnt
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The single-loss scenario of RFC 6937's examples: 20 segments in
    /// flight, the first lost, ssthresh = 10; the ACKs of segments 1..19
    /// arrive one by one, each SACKing one segment. Recovery starts on the
    /// third: the pipe is then the 16 un-SACKed segments 4..19 (segment 0
    /// is lost), RecoverFS = 16. PRR spreads its sends over the ACKs, at
    /// most one per ACK, where RFC 6675 (cwnd = ssthresh = 10 at once)
    /// would send nothing but the retransmission until the pipe fell below
    /// 10, seven ACKs later.
    #[test]
    fn rfc6937_single_loss_spreads_sends_over_the_acks() {
        let ssthresh = 10.0;
        let mut in_flight: u64 = 16;
        let mut prr = Prr::start(in_flight, PrrVariant::Rfc9937, 960);
        let mut per_ack = Vec::new();
        for ack in 3..=19 {
            if ack > 3 {
                in_flight -= 1; // one original segment SACKed
            }
            let cwnd = prr.on_ack(1, in_flight, ssthresh, false);
            let mut n = 0;
            while (in_flight as f64) + 1.0 <= cwnd {
                prr.on_send();
                in_flight += 1;
                n += 1;
            }
            per_ack.push(n);
        }
        // The fast retransmit goes out on the ACK that starts recovery.
        assert_eq!(per_ack[0], 1);
        assert!(per_ack.iter().all(|&n| n <= 1), "{per_ack:?}");
        // Hand-worked: while pipe > ssthresh (the first 16 ACKs) PRR has
        // sent CEIL(k * 10 / 16) segments after k ACKs, the retransmission
        // of 0 among them: 10 after the 16th. The last ACK finds the pipe at
        // ssthresh and sends nothing (the reduction bound). Recovery thus
        // ends with exactly ssthresh = 10 segments in flight.
        let mut cum = 0;
        for (k, n) in per_ack.iter().enumerate().take(16) {
            cum += n;
            assert_eq!(
                cum as f64,
                ((k + 1) as f64 * 10.0 / 16.0).ceil(),
                "{per_ack:?}"
            );
        }
        assert_eq!(per_ack[16], 0);
        assert_eq!(per_ack.iter().sum::<u32>(), 10);
        assert_eq!(in_flight, 10);
    }

    /// Below ssthresh the conservative bound sends no more than was
    /// delivered; a safe ACK (slow-start bound) may send one more.
    #[test]
    fn reduction_bounds() {
        let mut prr = Prr::start(20, PrrVariant::Rfc9937, 960);
        // Heavy loss: the pipe has fallen to 4, far below ssthresh 10.
        prr.on_send(); // the fast retransmit
        let cwnd = prr.on_ack(3, 4, 10.0, false);
        // CRB: prr_delivered - prr_out = 3 - 1 = 2.
        assert_eq!(cwnd, 6.0);
        let cwnd_safe = prr.on_ack(3, 4, 10.0, true);
        // SSRB: max(6 - 1, 3) + 1 = 6, capped by ssthresh - pipe = 6.
        assert_eq!(cwnd_safe, 10.0);
    }

    /// ns-3's unsafe bound is the ACK's own delivery: after sends that used
    /// up the running balance, CRB sends nothing where ns-3 sends what
    /// this ACK delivered.
    #[test]
    fn ns3_unsafe_bound_is_this_acks_delivery() {
        let run = |variant| {
            let mut prr = Prr::start(20, variant, 960);
            prr.on_ack(2, 4, 10.0, false);
            for _ in 0..3 {
                prr.on_send(); // balance 2 - 3 = -1
            }
            prr.on_ack(2, 4, 10.0, false)
        };
        // CRB: prr_delivered - prr_out = 4 - 3 = 1: cwnd = 4 + 1.
        assert_eq!(run(PrrVariant::Rfc9937), 5.0);
        // ns-3: limit = deliveredBytes = 2: cwnd = 4 + 2.
        assert_eq!(run(PrrVariant::Ns3), 6.0);
    }

    /// ns-3.37's proportional part in 32-bit bytes, against a traced ns-3
    /// recovery (a CUBIC flow's slow-start overshoot, 960-byte segments,
    /// NS_LOG=TcpPrrRecovery): EnterRecovery with UnAckDataCount 966,720
    /// bytes (1007 segments), ssthresh 674,880 (703), one segment delivered
    /// per ACK, the pipe far above ssthresh. ns-3 set cwnd to the pipe plus
    /// 1, 0.40, 1.09, 0.79, 1.49, 1.19 segments (its trace: cwnd 1003.4,
    /// 1001.09, 1000.79, 998.491, 998.19 beside the pipe after each send)
    /// and sent on ACKs 1, 3, 5, 6;
    /// on the 7th, 6720 x 674,880 passes 2^32 and wraps to 240,226,304:
    /// CEIL(248.5) - 3840 bytes, nothing sent, and so on until the pipe
    /// reaches ssthresh. RFC 9937 keeps sending about 0.7 a delivery.
    #[test]
    fn ns3_proportional_part_wraps_at_32_bits() {
        let run = |variant| {
            let mut prr = Prr::start(1007, variant, 960);
            let mut pipe: u64 = 1003;
            let mut extra = Vec::new();
            for _ in 0..12 {
                let cwnd = prr.on_ack(1, pipe, 703.0, false);
                extra.push(cwnd - pipe as f64);
                if cwnd >= pipe as f64 + 1.0 {
                    prr.on_send();
                    pipe += 1;
                }
                pipe -= 2; // one segment SACKed, one marked lost
            }
            extra
        };
        let ns3 = run(PrrVariant::Ns3);
        let rounded: Vec<f64> = ns3.iter().map(|x| (x * 100.0).round() / 100.0).collect();
        assert_eq!(
            rounded,
            [
                1.0, 0.4, 1.09, 0.79, 1.49, 1.19, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
            ]
        );
        let rfc = run(PrrVariant::Rfc9937);
        assert!(
            rfc[6..].iter().filter(|&&x| x >= 1.0).count() >= 3,
            "{rfc:?}"
        );
    }
}
