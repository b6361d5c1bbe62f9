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
//! from snd.nxt - snd.una (the caller passes it), and below ssthresh on an
//! unsafe ACK this ACK's delivery as the bound, not CRB's running balance.

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
}

impl Prr {
    /// A recovery begins with RecoverFS = `recover_fs` segments: RFC 9937's
    /// "RecoverFS = pipe", the RFC 6675 estimate, or with
    /// [`PrrVariant::Ns3`] snd.nxt - snd.una as RFC 6937 had it (ns-3.37
    /// `TcpSocketBase::EnterRecovery` passes `UnAckDataCount()`; the two
    /// differ by what was SACKed before).
    pub fn start(recover_fs: u64, variant: PrrVariant) -> Prr {
        Prr {
            delivered: 0.0,
            out: 0.0,
            recover_fs: (recover_fs as f64).max(1.0),
            variant,
        }
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
            //= RFC 9937 / RFC 6937 section 3: proportional rate reduction,
            //= "SndCnt = CEIL(prr_delivered * ssthresh / RecoverFS) - prr_out".
            (self.delivered * ssthresh / self.recover_fs).ceil() - self.out
        } else {
            //= The reduction bound: PRR-CRB, "limit = prr_delivered -
            //= prr_out", except that RFC 9937 allows PRR-SSRB, "limit =
            //= MAX(prr_delivered - prr_out, DeliveredData) + MSS", on a safe
            //= ACK (snd.una advanced, no further loss indicated);
            //= "SndCnt = MIN(ssthresh - pipe, limit)".
            let crb = self.delivered - self.out;
            let limit = if safe {
                crb.max(delivered) + 1.0
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
        let mut prr = Prr::start(in_flight, PrrVariant::Rfc9937);
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
        let mut prr = Prr::start(20, PrrVariant::Rfc9937);
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
            let mut prr = Prr::start(20, variant);
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
}
