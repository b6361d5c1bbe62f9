//! H-TCP (Leith and Shorten, "H-TCP: TCP for high-speed and long-distance
//! networks", PFLDnet 2004; draft-leith-tcp-htcp-06): the increase grows
//! with the time since the last congestion event, the backoff adapts to
//! the ratio of the smallest and largest RTT.
//!
//! Per-ACK convention: cwnd += alpha * acked / cwnd in congestion avoidance
//! (draft section 3: alpha packets per RTT, applied per acknowledged packet).
//! Decrease: ssthresh = max(beta * cwnd, 2) with beta the adaptive backoff.
//! RTTmax is the largest RTT sample since the last congestion event (the
//! draft's per-epoch measurement), RTTmin the smallest ever.
//!
//! `mirror = "ns-3.37"` is ns-3.37's `TcpHtcp` instead (the ns3 stack
//! profile sets it; its increase counts bytes of the flow's MSS), which departs from the draft
//! in its increase and its backoff (see [`Htcp::ns3_increase`] and
//! [`Htcp::ns3_backoff`]; measured by driving the installed ns-3.37's
//! `TcpHtcp` through its public `IncreaseWindow`, `PktsAcked` and
//! `GetSsThresh`).
//!
//! The law itself is two pure functions, [`increase`] and [`backoff`], which
//! the variant's fluid law ([`HtcpFluid`]) calls too.

use serde::{Deserialize, Serialize};

use super::fluid_law::{FluidLaw, Growth};
use super::{AckInfo, CongestionControl, Epoch, MIN_SSTHRESH, Mirror, Variant, Window, slow_start};
use crate::params::{PErr, Params};
use crate::units::SimTime;

/// H-TCP (Leith and Shorten 2004; draft-leith-tcp-htcp-06).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct HtcpConfig {
    /// Time after a congestion event during which alpha = 1, seconds (Delta_L).
    pub delta_l_s: f64,
    /// Lower clamp of the adaptive backoff beta = RTTmin/RTTmax.
    pub beta_min: f64,
    /// Upper clamp of the adaptive backoff.
    pub beta_max: f64,
    /// Scale alpha by RTT / RTT_ref for RTT fairness.
    pub rtt_scaling: bool,
    /// Reference RTT of the RTT-scaling option, seconds.
    pub rtt_ref_s: f64,
    /// `"none"`: the draft's H-TCP. `"ns-3.37"`: ns-3.37's `TcpHtcp`, whose
    /// increase is counted in bytes of the flow's MSS
    /// ([`AckInfo::mss_bytes`]).
    pub mirror: Mirror,
}

impl Default for HtcpConfig {
    fn default() -> Self {
        //= draft-leith-tcp-htcp-06 section 3: Delta_L = 1 s;
        //= beta = RTTmin/RTTmax clamped to [0.5, 0.8]; RTT scaling to 100 ms.
        HtcpConfig {
            delta_l_s: 1.0,
            beta_min: 0.5,
            beta_max: 0.8,
            rtt_scaling: false,
            rtt_ref_s: 0.1,
            mirror: Mirror::Spec,
        }
    }
}

//= draft-leith-tcp-htcp-06 section 3 ("adaptive backoff"): if the
//= throughput measured over the last congestion epochs changed by more than
//= Delta_B = 20%, use beta = 0.5 (the conservative backoff).
const DELTA_B: f64 = 0.2;
//= Linux tcp_htcp.c: the RTT-scaling factor RTT/RTT_ref is clamped to
//= [0.5, 10] (`factor` between 4/8 and 80/8).
const RTT_SCALE_MIN: f64 = 0.5;
const RTT_SCALE_MAX: f64 = 10.0;

/// H-TCP controller state.
#[derive(Clone, Copy, Debug)]
pub struct Htcp {
    cfg: HtcpConfig,
    /// Time of the last congestion event (or of the flow's first ACK).
    last_event: Option<SimTime>,
    /// Largest RTT sample since the last congestion event, seconds.
    rtt_max_epoch: f64,
    /// Smallest RTT seen, seconds (0: none yet).
    rtt_min: f64,
    /// Current backoff factor.
    beta: f64,
    /// Packets acknowledged since the last congestion event.
    acked_epoch: f64,
    /// Throughput of the previous epoch, packets/s (0: none yet).
    prev_rate: f64,
    /// Smallest RTT sample since the last congestion event, seconds
    /// (ns-3's per-epoch RTTmin; infinite: none).
    rtt_min_epoch: f64,
}

impl Variant for Htcp {
    const NAMES: &'static [&'static str] = &["htcp"];
    // The backoff adapts at each event (beta from the epoch's RTTs and
    // throughput): there is no continuous-decrease form.
    const RATE_FORM: bool = false;
    type Config = HtcpConfig;
    type Fluid = HtcpFluid;
    fn read(p: &mut Params) -> Result<HtcpConfig, PErr> {
        let d = HtcpConfig::default();
        let c = HtcpConfig {
            delta_l_s: p.num("delta_l_s", d.delta_l_s, 0.0, 1e3)?,
            beta_min: p.num("beta_min", d.beta_min, 0.01, 0.999)?,
            beta_max: p.num("beta_max", d.beta_max, 0.01, 0.999)?,
            rtt_scaling: p.flag("rtt_scaling", d.rtt_scaling)?,
            rtt_ref_s: p.num("rtt_ref_s", d.rtt_ref_s, 1e-6, 1e3)?,
            mirror: Mirror::read(p)?,
        };
        if c.beta_min > c.beta_max {
            return Err((
                "beta_min".into(),
                format!("must be <= beta_max {}", c.beta_max),
            ));
        }
        Ok(c)
    }
    fn new(cfg: HtcpConfig) -> Htcp {
        //= draft-leith-tcp-htcp-06 section 3: beta starts at 0.5 (the clamp's floor).
        let ns3 = cfg.mirror.ns3();
        Htcp {
            cfg,
            // ns-3's m_lastCon starts at time 0, not at the flow's start.
            last_event: ns3.then_some(SimTime::ZERO),
            rtt_max_epoch: 0.0,
            rtt_min: 0.0,
            // ns-3's m_beta starts at 0 (its first epoch's alpha is doubled:
            // 2 (1 - 0) alpha(Delta), measured 2 bytes per ACK at Delta < 1 s).
            beta: if ns3 { 0.0 } else { cfg.beta_min },
            acked_epoch: 0.0,
            prev_rate: 0.0,
            rtt_min_epoch: f64::INFINITY,
        }
    }
    fn fluid(cfg: HtcpConfig) -> Result<HtcpFluid, &'static str> {
        Ok(HtcpFluid {
            cfg,
            t_last: 0.0,
            rtt_max: 0.0,
            //= draft-leith-tcp-htcp-06 section 3: beta starts at 0.5 (the clamp's floor).
            beta: cfg.beta_min,
            sent: 0.0,
            prev_rate: 0.0,
            rtt_min: 0.0,
        })
    }
    fn mirror(cfg: &Self::Config) -> Mirror {
        cfg.mirror
    }
    fn epoch(_cfg: &HtcpConfig, window_pkts: f64, rtt_s: f64) -> Epoch {
        // An upper bound: H-TCP's first cut halves the window (beta starts at
        // 0.5, draft-leith-tcp-htcp-06 section 3) and its increase after
        // Delta_L is faster than Reno's, so it regains a cut in at most
        // AIMD's W/2 RTTs.
        Epoch::at_most_halving(window_pkts, rtt_s)
    }
}

/// H-TCP in fluid form: the same [`increase`] and [`backoff`] as the packet
/// controller, over the fluid flow's epochs.
#[derive(Clone, Copy, Debug)]
pub struct HtcpFluid {
    cfg: HtcpConfig,
    /// Time of the last congestion event, seconds.
    t_last: f64,
    /// Largest RTT seen since, seconds.
    rtt_max: f64,
    /// Current backoff factor.
    beta: f64,
    /// Packets sent since the last event.
    sent: f64,
    /// The previous epoch's throughput, packets/s (0: none yet).
    prev_rate: f64,
    /// The flow's smallest RTT (its propagation delay), seconds, as the
    /// packet engine's RTTmin for the RTT scaling (0: not known yet).
    rtt_min: f64,
}

impl FluidLaw for HtcpFluid {
    fn start(&mut self, t: f64, _w: f64) {
        self.t_last = t;
    }

    fn growth(&mut self, t: f64, h: f64, w: &mut f64, rtt: f64) -> Growth {
        self.rtt_max = self.rtt_max.max(rtt);
        // The epoch's throughput for the backoff's 20% rule: W / R packets
        // per second over this step.
        self.sent += *w / rtt * h;
        let rtt_min = (self.rtt_min > 0.0).then_some(self.rtt_min);
        Growth::additive(increase(&self.cfg, self.beta, t - self.t_last, rtt_min))
    }

    fn decrease_fraction(&mut self, _w: f64) -> f64 {
        1.0 - self.beta
    }

    fn on_loss(&mut self, t: f64, w: f64, rtt_min: f64) -> f64 {
        self.rtt_min = rtt_min;
        let rate = if t > self.t_last {
            self.sent / (t - self.t_last)
        } else {
            0.0
        };
        self.beta = backoff(&self.cfg, rate, self.prev_rate, rtt_min, self.rtt_max);
        self.prev_rate = rate;
        self.sent = 0.0;
        self.t_last = t;
        self.rtt_max = 0.0;
        w * self.beta
    }
}

impl Htcp {
    /// alpha(Delta), packets per RTT, before the (1 - beta) and RTT scalings
    /// (see [`alpha_of_delta`]).
    pub fn alpha_of_delta(&self, delta_s: f64) -> f64 {
        alpha_of_delta(&self.cfg, delta_s)
    }

    /// The increase per RTT at `delta_s` since the last event with RTTmin
    /// `min_rtt_s` (see [`increase`]).
    pub fn alpha(&self, delta_s: f64, min_rtt_s: Option<f64>) -> f64 {
        increase(&self.cfg, self.beta, delta_s, min_rtt_s)
    }

    /// The current backoff factor beta.
    pub fn beta(&self) -> f64 {
        self.beta
    }

    /// ns-3.37's `TcpHtcp::CongestionAvoidance` on one ACK, whatever the
    /// number of segments it acknowledges: in bytes, cwnd += trunc(max(1,
    /// (MSS^2 + cwnd alpha) / cwnd)) = MSS^2/cwnd + alpha, with alpha =
    /// max(1, 2 (1 - beta) alpha(Delta)) (`UpdateAlpha`). The alpha term is
    /// alpha bytes per ACK where the draft (section 3) has alpha MSS^2/cwnd:
    /// with delayed ACKs a window of w segments grows by 1/2 + alpha w /
    /// (2 MSS) segments per RTT, 0.60 instead of 1 at alpha = 1, w = 200,
    /// MSS = 1000 B. Measured (cwnd 100,000 B, MSS 1000 B): +11 B per ACK
    /// at Delta < 1 s (first epoch, beta = 0), +53 B at Delta = 3 s
    /// (alpha = 2 x 22 = 44, 1e6/106,463 = 9.4), +9 B after a backoff of
    /// 0.5 (alpha = 1, 1e6/116,951 = 8.6), +26 B 2.6 s after it.
    /// `mss` is the segment size, bytes.
    pub fn ns3_increase(&self, cwnd_pkts: f64, delta_s: f64, mss: f64) -> f64 {
        let alpha = (2.0 * (1.0 - self.beta) * alpha_of_delta(&self.cfg, delta_s)).max(1.0);
        (mss / cwnd_pkts + alpha).max(1.0).trunc() / mss
    }

    /// ns-3.37's `TcpHtcp::UpdateBeta`: the epoch's RTTmin / RTTmax
    /// (both of this epoch, `m_minRtt`/`m_maxRtt` of tcp-htcp.h, "in each
    /// congestion period"), unclamped, when the epoch's throughput exceeds
    /// the previous one's by less than 100% (the 20% test is an integer
    /// division, `diff / m_lastThroughput`, which is 0 below 100%); the
    /// DefaultBackoff (`beta_min`) otherwise, and on the first epoch.
    /// Measured through `GetSsThresh`: +10% with RTTs 40/60 ms -> 0.667,
    /// +50% with 50/60 -> 0.833, +93% -> 0.833, +107% -> 0.5, -9% -> 0.5,
    /// +10% with 20/100 -> 0.2.
    pub fn ns3_backoff(&self, rate: f64) -> f64 {
        let measured = self.rtt_max_epoch > 0.0 && self.rtt_min_epoch.is_finite();
        if measured && self.prev_rate > 0.0 && rate > self.prev_rate && rate < 2.0 * self.prev_rate
        {
            self.rtt_min_epoch / self.rtt_max_epoch
        } else {
            self.cfg.beta_min
        }
    }

    /// ns-3.37's `TcpHtcp::GetSsThresh(tcb, bytesInFlight)`: beta from
    /// [`Self::ns3_backoff`], ssthresh = max(2, beta x flight), a new epoch.
    fn ns3_cut(&mut self, flight: f64, now: SimTime) -> f64 {
        let rate = match self.last_event {
            Some(t) if now > t => self.acked_epoch / (now - t).as_secs_f64(),
            _ => 0.0,
        };
        self.beta = self.ns3_backoff(rate);
        self.prev_rate = rate;
        self.acked_epoch = 0.0;
        self.rtt_max_epoch = 0.0;
        self.rtt_min_epoch = f64::INFINITY;
        self.last_event = Some(now);
        (self.beta * flight).max(MIN_SSTHRESH)
    }
}

/// alpha(Delta), packets per RTT, before the (1 - beta) and RTT scalings:
/// 1 for Delta <= Delta_L, else 1 + 10 (Delta - Delta_L) + ((Delta - Delta_L)/2)^2.
pub fn alpha_of_delta(cfg: &HtcpConfig, delta_s: f64) -> f64 {
    //= draft-leith-tcp-htcp-06 section 3 / Leith-Shorten 2004 eq. (2).
    let d = delta_s - cfg.delta_l_s;
    if d <= 0.0 {
        1.0
    } else {
        1.0 + 10.0 * d + (d / 2.0) * (d / 2.0)
    }
}

/// The H-TCP increase, packets per RTT, `delta_s` seconds after the last
/// congestion event with backoff `beta` and RTTmin `min_rtt_s` (the packet
/// and the fluid engines both use it).
pub fn increase(cfg: &HtcpConfig, beta: f64, delta_s: f64, min_rtt_s: Option<f64>) -> f64 {
    let mut a = alpha_of_delta(cfg, delta_s);
    if cfg.rtt_scaling
        && let Some(r) = min_rtt_s
    {
        //= draft-leith-tcp-htcp-06 section 4 (RTT scaling): alpha is
        //= scaled by RTT / RTT_ref so that flows with different RTTs
        //= grow at the same rate in packets per second.
        a *= (r / cfg.rtt_ref_s).clamp(RTT_SCALE_MIN, RTT_SCALE_MAX);
    }
    //= draft-leith-tcp-htcp-06 section 3: alpha <- 2 (1 - beta) alpha(Delta),
    //= keeping friendliness with standard TCP as beta adapts.
    2.0 * (1.0 - beta) * a
}

/// The H-TCP backoff factor for the epoch that just ended, from its
/// throughput `rate` against the previous epoch's `prev_rate` (packets/s;
/// 0: none) and its RTTmin and RTTmax (seconds; 0: not measured). The packet
/// and the fluid engines both use it.
pub fn backoff(cfg: &HtcpConfig, rate: f64, prev_rate: f64, rtt_min: f64, rtt_max: f64) -> f64 {
    let changed = prev_rate > 0.0 && ((rate - prev_rate).abs() / prev_rate) > DELTA_B;
    if changed || rtt_max <= 0.0 || rtt_min <= 0.0 {
        cfg.beta_min
    } else {
        //= draft-leith-tcp-htcp-06 section 3: beta = RTTmin / RTTmax,
        //= clamped to [0.5, 0.8].
        (rtt_min / rtt_max).clamp(cfg.beta_min, cfg.beta_max)
    }
}

impl CongestionControl for Htcp {
    fn on_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        let last = *self.last_event.get_or_insert(ack.now);
        self.acked_epoch += ack.acked as f64;
        if let Some(r) = ack.rtt {
            self.rtt_max_epoch = self.rtt_max_epoch.max(r.as_secs_f64());
            self.rtt_min_epoch = self.rtt_min_epoch.min(r.as_secs_f64());
        }
        if let Some(r) = ack.min_rtt {
            self.rtt_min = r.as_secs_f64();
        }
        if slow_start(w, ack.acked) {
            return;
        }
        let delta = (ack.now - last).as_secs_f64();
        if self.cfg.mirror.ns3() {
            w.cwnd += self.ns3_increase(w.cwnd, delta, f64::from(ack.mss_bytes));
            return;
        }
        let a = self.alpha(delta, (self.rtt_min > 0.0).then_some(self.rtt_min));
        w.cwnd += a * ack.acked as f64 / w.cwnd;
    }

    fn on_congestion_event(&mut self, w: &Window, flight: f64, now: SimTime) -> f64 {
        if self.cfg.mirror.ns3() {
            return self.ns3_cut(flight, now);
        }
        // beta is recomputed from the epoch that just ended and applied to this
        // backoff (as Linux tcp_htcp's htcp_recalc_ssthresh does).
        let rate = match self.last_event {
            Some(t) if now > t => self.acked_epoch / (now - t).as_secs_f64(),
            _ => 0.0,
        };
        self.beta = backoff(
            &self.cfg,
            rate,
            self.prev_rate,
            self.rtt_min,
            self.rtt_max_epoch,
        );
        self.prev_rate = rate;
        self.acked_epoch = 0.0;
        self.rtt_max_epoch = 0.0;
        self.last_event = Some(now);
        (self.beta * w.cwnd).max(MIN_SSTHRESH)
    }

    fn timeout_ssthresh(&mut self, w: &Window, flight: f64, now: SimTime) -> f64 {
        if self.cfg.mirror.ns3() {
            //= ns-3.37 TcpSocketBase::ReTxTimeout: "m_tcb->m_ssThresh =
            //= m_congestionControl->GetSsThresh(m_tcb, inFlightBeforeRto)".
            self.on_congestion_event(w, flight, now)
        } else {
            super::reno_ssthresh(flight)
        }
    }

    fn on_timeout(&mut self, w: &mut Window, flight: f64, now: SimTime) {
        w.ssthresh = self.timeout_ssthresh(w, flight, now);
        w.cwnd = 1.0;
        if self.cfg.mirror.ns3() {
            // ns-3's cut (on_congestion_event) restarted the epoch with its
            // own beta.
            return;
        }
        //= RFC 5681 section 3.1 on a timeout (the draft does not change it);
        //= the congestion epoch restarts and beta falls back to 0.5.
        self.beta = self.cfg.beta_min;
        self.last_event = Some(now);
        self.acked_epoch = 0.0;
        self.prev_rate = 0.0;
        self.rtt_max_epoch = 0.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alpha_of_delta_hand_worked() {
        let cc = Htcp::new(HtcpConfig::default());
        // Delta <= Delta_L = 1 s: alpha = 1.
        assert_eq!(cc.alpha_of_delta(0.5), 1.0);
        assert_eq!(cc.alpha_of_delta(1.0), 1.0);
        // Delta = 3 s: 1 + 10 * 2 + (2/2)^2 = 22.
        assert_eq!(cc.alpha_of_delta(3.0), 22.0);
        // Delta = 11 s: 1 + 100 + 25 = 126.
        assert_eq!(cc.alpha_of_delta(11.0), 126.0);
        // With beta = 0.5: alpha = 2 (1 - 0.5) alpha(Delta) = alpha(Delta).
        assert_eq!(cc.alpha(3.0, None), 22.0);
    }

    #[test]
    fn adaptive_backoff_and_rtt_scaling() {
        let mut cc = Htcp::new(HtcpConfig::default());
        let mut w = Window {
            cwnd: 100.0,
            ssthresh: 50.0,
        };
        // Epoch 1: RTT samples 100 ms .. 160 ms: beta = 100/160 = 0.625.
        for (ms, rtt) in [(0u64, 100u64), (500, 160), (1000, 120)] {
            let mut a = AckInfo::bare(1, SimTime::from_millis(ms));
            a.rtt = Some(SimTime::from_millis(rtt));
            a.min_rtt = Some(SimTime::from_millis(100));
            cc.on_ack(&mut w, &a);
        }
        let ss = cc.on_congestion_event(&w, w.cwnd, SimTime::from_millis(2000));
        assert!((cc.beta() - 0.625).abs() < 1e-12);
        assert!((ss - 0.625 * w.cwnd).abs() < 1e-9);
        // alpha with beta = 0.625 just after the event: 2 * 0.375 * 1 = 0.75.
        assert!((cc.alpha(0.2, None) - 0.75).abs() < 1e-12);
        // RTTmax/RTTmin ratio 4: clamped to beta_min = 0.5; ratio 1: beta_max 0.8.
        // RTT scaling: RTTmin 20 ms vs RTT_ref 100 ms gives factor 0.5 (the
        // clamp's floor is also 0.5); 300 ms gives 3.
        let cc = Htcp::new(HtcpConfig {
            rtt_scaling: true,
            ..HtcpConfig::default()
        });
        assert!((cc.alpha(3.0, Some(0.3)) - 66.0).abs() < 1e-12);
        assert!((cc.alpha(3.0, Some(0.02)) - 11.0).abs() < 1e-12);
    }

    #[test]
    fn throughput_change_forces_beta_min() {
        let mut cc = Htcp::new(HtcpConfig::default());
        let w = Window {
            cwnd: 100.0,
            ssthresh: 50.0,
        };
        let feed = |cc: &mut Htcp, from: u64, n: u64, rtt: u64| {
            for k in 0..n {
                let mut a = AckInfo::bare(1, SimTime::from_millis(from + k));
                a.rtt = Some(SimTime::from_millis(rtt));
                a.min_rtt = Some(SimTime::from_millis(100));
                cc.on_ack(&mut w.clone(), &a);
            }
        };
        feed(&mut cc, 0, 1000, 110);
        cc.on_congestion_event(&w, 100.0, SimTime::from_millis(1000));
        assert!((cc.beta() - 100.0 / 110.0).abs() < 1e-12 || cc.beta() == 0.8);
        // Next epoch: same duration, half the packets: throughput -50% > 20%.
        feed(&mut cc, 1000, 500, 110);
        cc.on_congestion_event(&w, 100.0, SimTime::from_millis(2000));
        assert_eq!(cc.beta(), 0.5);
    }

    #[test]
    fn ns3_increase_and_backoff_as_measured_in_ns3() {
        let cfg = HtcpConfig {
            mirror: Mirror::Ns3_37,
            ..HtcpConfig::default()
        };
        let mut cc = Htcp::new(cfg);
        // ns-3.37 TcpHtcp, cwnd 100,000 B, MSS 1000 B, first epoch (beta
        // = 0): +11 B per ACK at Delta < 1 s (10 + alpha 2, truncated from
        // 12 on the first ACK, 11.99 after), whether it acknowledges 1 or 2
        // segments.
        let mut w = Window {
            cwnd: 100.0,
            ssthresh: 10.0,
        };
        let mut a = AckInfo::bare(2, SimTime::from_millis(10));
        a.rtt = Some(SimTime::from_millis(40));
        a.mss_bytes = 1000;
        cc.on_ack(&mut w, &a);
        assert!((w.cwnd - 100.012).abs() < 1e-9, "{}", w.cwnd);
        // Delta = 3 s: alpha = 2 x 22 = 44, 1e6/106,463 = 9.39: +53 B.
        assert!((cc.ns3_increase(106.463, 3.0, 1000.0) - 0.053).abs() < 1e-12);
        // The draft's increase there: 2 x 22 x 2 / 106.463 = 0.83 segment.
        // Epochs: 1000 packets a second, then +10% at RTTs 40..60 ms: beta
        // = 40/60 (ns-3 measured 0.667); ssthresh = beta x flight.
        let feed = |cc: &mut Htcp, from_ms: u64, n: u64, rtts: (u64, u64)| {
            for k in 0..n {
                let mut a =
                    AckInfo::bare(1, SimTime::from_millis(from_ms) + SimTime::from_micros(k));
                a.rtt = Some(SimTime::from_millis(if k % 2 == 0 {
                    rtts.0
                } else {
                    rtts.1
                }));
                cc.on_ack(&mut w.clone(), &a);
            }
        };
        feed(&mut cc, 500, 1000, (40, 60));
        assert_eq!(
            cc.on_congestion_event(&w, 150.0, SimTime::from_millis(1000)),
            75.0
        );
        feed(&mut cc, 1500, 1100, (40, 60));
        let ss = cc.on_congestion_event(&w, 150.0, SimTime::from_millis(2000));
        assert!((cc.beta() - 2.0 / 3.0).abs() < 1e-12 && (ss - 100.0).abs() < 1e-9);
        // -9%: the default backoff 0.5.
        feed(&mut cc, 2500, 1000, (50, 60));
        cc.on_congestion_event(&w, 150.0, SimTime::from_millis(3000));
        assert_eq!(cc.beta(), 0.5);
        // +50% at 50/60 ms: 0.833, above the draft's 0.8 clamp.
        feed(&mut cc, 3500, 1500, (50, 60));
        cc.on_congestion_event(&w, 150.0, SimTime::from_millis(4000));
        assert!((cc.beta() - 50.0 / 60.0).abs() < 1e-12);
        // +107%: 0.5 (the draft: 0.5 too, beyond 20%).
        feed(&mut cc, 4500, 3100, (50, 60));
        cc.on_congestion_event(&w, 150.0, SimTime::from_millis(5000));
        assert_eq!(cc.beta(), 0.5);
        // +10% at 20/100 ms: 0.2, below the draft's 0.5 clamp.
        feed(&mut cc, 5500, 3410, (20, 100));
        cc.on_congestion_event(&w, 150.0, SimTime::from_millis(6000));
        assert!((cc.beta() - 0.2).abs() < 1e-12);
        // After a backoff of 0.5 and Delta < 1 s: alpha = 1, +9 B at
        // cwnd 116,951 B (ns-3: 9.0).
        cc.beta = 0.5;
        assert!((cc.ns3_increase(116.951, 0.1, 1000.0) - 0.009).abs() < 1e-12);
    }
}
