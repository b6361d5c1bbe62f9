//! DCTCP, Data Center TCP (RFC 8257; Alizadeh et al., SIGCOMM 2010). The
//! sender estimates the fraction of its data that met a CE mark, once per
//! window, and cuts its window in proportion to it instead of halving; the
//! receiver echoes each CE mark (`tcp::receiver`'s per-packet echo, RFC 8257
//! section 3.2); the switch marks on an instantaneous-queue threshold K
//! (`queue::threshold`, section 3.1). Loss recovery and window growth are
//! standard TCP's (sections 3.5, 3.4 defers to RFC 5681).
//!
//! Windows and byte counts are in segments: every segment of a flow has the
//! same size, so the ratio BytesMarked / BytesAcked is unchanged.

use serde::{Deserialize, Serialize};

use super::fluid_law::NoFluidLaw;
use super::newreno::NewReno;
use super::{AckInfo, CongestionControl, Epoch, MIN_SSTHRESH, Variant, Window};
use crate::params::{PErr, Params};
use crate::units::SimTime;

/// DCTCP's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct DctcpConfig {
    /// EWMA gain of the marked fraction, 0 < g <= 1.
    pub g: f64,
    /// alpha before the first observation window ends, 0 <= alpha_init <= 1.
    pub alpha_init: f64,
}

impl Default for DctcpConfig {
    fn default() -> Self {
        DctcpConfig {
            //= RFC 8257 section 4.2: "a good choice of g is 1/16" (the
            //= estimation gain; Alizadeh et al. 2010 section 3.4 use 1/16).
            g: 1.0 / 16.0,
            //= RFC 8257 section 3.3: DCTCP.Alpha is initialized to 1, the
            //= conservative choice (Linux's dctcp_alpha_on_init default).
            alpha_init: 1.0,
        }
    }
}

/// The DCTCP sender's congestion state.
#[derive(Clone, Debug)]
pub struct Dctcp {
    cfg: DctcpConfig,
    /// DCTCP.Alpha: the estimated fraction of marked data.
    pub alpha: f64,
    /// DCTCP.WindowEnd (exclusive sequence, segments).
    window_end: u64,
    /// DCTCP.BytesAcked in the current observation window (segments).
    acked: u64,
    /// DCTCP.BytesMarked in the current observation window (segments).
    marked: u64,
}

impl Variant for Dctcp {
    const NAMES: &'static [&'static str] = &["dctcp"];
    const RATE_FORM: bool = false;
    //= RFC 8257 section 3.2: the receiver "MUST" set ECE on the ACK of a CE
    //= packet and clear it otherwise (an accurate per-packet echo), and the
    //= sender's packets carry ECT: DCTCP needs ECN on both ends.
    const ECN_PER_PACKET: bool = true;
    type Config = DctcpConfig;
    type Fluid = NoFluidLaw;
    fn read(p: &mut Params) -> Result<DctcpConfig, PErr> {
        let d = DctcpConfig::default();
        let g = p.num("g", d.g, 1e-6, 1.0)?;
        let alpha_init = p.num("alpha_init", d.alpha_init, 0.0, 1.0)?;
        Ok(DctcpConfig { g, alpha_init })
    }
    fn new(cfg: DctcpConfig) -> Dctcp {
        Dctcp {
            cfg,
            alpha: cfg.alpha_init,
            window_end: 0,
            acked: 0,
            marked: 0,
        }
    }
    fn fluid(_cfg: DctcpConfig) -> Result<NoFluidLaw, &'static str> {
        Err(
            "dctcp reacts to the fraction of ECN-marked packets (RFC 8257), a law \
             the fluid engine does not model (Alizadeh, Javanmard, Prabhakar 2011's \
             DCTCP fluid model is not implemented): use engine = \"packet\"",
        )
    }
    fn epoch(_cfg: &DctcpConfig, window_pkts: f64, rtt_s: f64) -> Epoch {
        // An upper bound: the first cut, at alpha = 1, halves the window
        // (RFC 8257 section 3.3), regained in AIMD's W/2 RTTs; steady cuts
        // last only sqrt(W/2) RTTs (Alizadeh et al. 2010 eq. (7)).
        Epoch::at_most_halving(window_pkts, rtt_s)
    }
}

impl Dctcp {
    /// The window after an ECE-signalled congestion event, packets.
    pub fn cut(&self, cwnd: f64) -> f64 {
        //= RFC 8257 section 3.3 step 10: "cwnd = cwnd * (1 - DCTCP.Alpha / 2)"
        //= (never below RFC 5681's 2 segments).
        (cwnd * (1.0 - self.alpha / 2.0)).max(MIN_SSTHRESH)
    }
}

impl CongestionControl for Dctcp {
    //= RFC 8257 section 3.4: DCTCP grows its window as standard TCP
    //= (NewReno's law, RFC 5681 section 3.1).
    fn on_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        NewReno.on_ack(w, ack);
    }

    //= RFC 8257 section 3.5: "A DCTCP sender MUST react to loss episodes in
    //= the same way as conventional TCP": halve (RFC 5681 eq. (4)).
    fn on_congestion_event(&mut self, w: &Window, flight: f64, now: SimTime) -> f64 {
        NewReno.on_congestion_event(w, flight, now)
    }

    fn on_ecn_ack(&mut self, acked: u64, ece: bool, una: u64, nxt: u64) {
        //= RFC 8257 section 3.3 steps 2-4: "DCTCP.BytesAcked += BytesAcked";
        //= "If the ECE flag is set, DCTCP.BytesMarked += BytesAcked" (SACK
        //= is ignored when counting).
        self.acked += acked;
        if ece {
            self.marked += acked;
        }
        //= step 5: "If the acknowledgment number is less than or equal to
        //= DCTCP.WindowEnd, stop processing".
        if una <= self.window_end {
            return;
        }
        //= step 6: "M = DCTCP.BytesMarked / DCTCP.BytesAcked"; step 7:
        //= "DCTCP.Alpha = DCTCP.Alpha * (1 - g) + g * M".
        let m = if self.acked > 0 {
            self.marked as f64 / self.acked as f64
        } else {
            0.0
        };
        let g = self.cfg.g;
        self.alpha = self.alpha * (1.0 - g) + g * m;
        //= step 8: "DCTCP.WindowEnd = SND.NXT"; step 9: reset the counters.
        self.window_end = nxt;
        self.acked = 0;
        self.marked = 0;
    }

    //= RFC 8257 section 3.3 step 10: "Rather than always halving the
    //= congestion window as described in [RFC3168], when the sender receives
    //= an indication of congestion (ECE), the sender sets the congestion
    //= window" to cwnd * (1 - alpha / 2), at most once per window of data
    //= (the sender's RFC 3168 rule); ssthresh follows cwnd (Linux's
    //= dctcp_ssthresh).
    fn on_ece(&mut self, w: &Window, _flight: f64, _now: SimTime) -> f64 {
        self.cut(w.cwnd)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alpha_ewma_against_hand_worked_numbers() {
        let mut d = Dctcp::new(DctcpConfig::default());
        assert_eq!(d.alpha, 1.0);
        // Window 1: ACK of 10 segments ends it (una 10 > WindowEnd 0), no
        // marks: alpha = 1 * 15/16 + 0 = 0.9375; WindowEnd = SND.NXT = 20.
        d.on_ecn_ack(10, false, 10, 20);
        assert_eq!(d.alpha, 0.9375);
        // Window 2 (ends when una passes 20): 6 unmarked segments (una 16 <=
        // 20: no update), then 5 marked up to una 21 > 20: M = 5/11,
        // alpha = 0.9375 * 15/16 + (5/11)/16 = 0.87890625 + 0.0284090909...
        //       = 0.9073153409...
        d.on_ecn_ack(6, false, 16, 30);
        assert_eq!(d.alpha, 0.9375);
        d.on_ecn_ack(5, true, 21, 30);
        let want = 0.9375 * (15.0 / 16.0) + (5.0 / 11.0) / 16.0;
        assert!((d.alpha - want).abs() < 1e-15, "{} vs {want}", d.alpha);
        assert!((d.alpha - 0.907_315_340_909_090_9).abs() < 1e-15);
        // A duplicate ACK (nothing acked) with ECE counts nothing.
        d.on_ecn_ack(0, true, 21, 40);
        assert_eq!((d.acked, d.marked), (0, 0));
    }

    #[test]
    fn alpha_converges_to_the_marked_fraction() {
        // Alizadeh et al. 2010 eq. (1): alpha is an EWMA of the marked
        // fraction F, so with F fixed at 1/4 in every window, after n windows
        // alpha = F + (alpha_0 - F) (15/16)^n.
        let mut d = Dctcp::new(DctcpConfig::default());
        // A first ACK of nothing ends window 0 (M = 0): alpha_0 = 15/16,
        // WindowEnd = 4.
        d.on_ecn_ack(0, false, 1, 4);
        assert_eq!(d.alpha, 0.9375);
        let mut u = 1;
        for _ in 0..100 {
            // Four one-segment ACKs, the last marked and past WindowEnd; at
            // that point SND.NXT is 3 segments ahead.
            for k in 1..=3 {
                d.on_ecn_ack(1, false, u + k, u + k + 3);
            }
            d.on_ecn_ack(1, true, u + 4, u + 7);
            u += 4;
        }
        let want = 0.25 + (0.9375 - 0.25) * (15.0f64 / 16.0).powi(100);
        assert!((d.alpha - want).abs() < 1e-12, "{} vs {want}", d.alpha);
    }

    #[test]
    fn window_cut_and_loss_response() {
        let mut d = Dctcp::new(DctcpConfig::default());
        let w = Window {
            cwnd: 100.0,
            ssthresh: 50.0,
        };
        // alpha = 1: cwnd * (1 - 1/2) = 50 (as RFC 3168's halving).
        assert_eq!(d.on_ece(&w, 80.0, SimTime::ZERO), 50.0);
        // alpha = 0.1: 100 * 0.95 = 95.
        d.alpha = 0.1;
        assert!((d.on_ece(&w, 80.0, SimTime::ZERO) - 95.0).abs() < 1e-12);
        // alpha = 0: no cut.
        d.alpha = 0.0;
        assert_eq!(d.on_ece(&w, 80.0, SimTime::ZERO), 100.0);
        // Never below 2 segments.
        d.alpha = 1.0;
        let small = Window {
            cwnd: 3.0,
            ssthresh: 2.0,
        };
        assert_eq!(d.on_ece(&small, 3.0, SimTime::ZERO), 2.0);
        // Loss: standard TCP, half the flight whatever alpha is.
        d.alpha = 0.1;
        assert_eq!(d.on_congestion_event(&w, 80.0, SimTime::ZERO), 40.0);
    }

    #[test]
    fn reads_its_params() {
        let m: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(r#"{"g": 0.125}"#).unwrap();
        let mut p = Params::new(&m);
        let c = Dctcp::read(&mut p).unwrap();
        assert_eq!(c.g, 0.125);
        assert_eq!(c.alpha_init, 1.0);
        let bad: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(r#"{"g": 0}"#).unwrap();
        assert_eq!(Dctcp::read(&mut Params::new(&bad)).unwrap_err().0, "g");
    }
}
