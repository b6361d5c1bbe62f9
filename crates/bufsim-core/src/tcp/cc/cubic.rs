//! CUBIC, RFC 9438: the window follows a cubic function of the time since
//! the last congestion event, W_cubic(t) = C (t - K)^3 + W_max, with a
//! Reno-friendly region, fast convergence and the RFC's timeout rule.
//!
//! Per-ACK convention: in congestion avoidance, for an ACK newly
//! acknowledging `acked` packets, W_est += alpha_cubic * acked / cwnd
//! (RFC 9438 section 4.3 eq. (4)); in the concave/convex regions
//! cwnd += acked * (target - cwnd) / cwnd (section 4.4/4.5, per segment).
//! Decrease: ssthresh = max(beta_cubic * cwnd, 2) (section 4.6 allows cwnd in
//! place of FlightSize; Linux uses cwnd), W_max = cwnd (or the fast
//! convergence value, section 4.7). `t` is measured from the first ACK of the
//! congestion-avoidance epoch and RTT is the smoothed RTT.
//!
//! `mirror = "ns-3.37"` is ns-3.37's `TcpCubic` instead (the ns3 stack
//! profile sets it): whole segments and integer counts (see
//! [`CubicConfig::mirror`]).

use serde::{Deserialize, Serialize};

use super::aimd::AimdConfig;
use super::fluid_law::{FluidLaw, Growth, MIN_WINDOW};
use super::{AckInfo, CongestionControl, Epoch, MIN_SSTHRESH, Mirror, Variant, Window, slow_start};
use crate::params::{PErr, Params};
use crate::units::SimTime;

/// CUBIC, RFC 9438.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct CubicConfig {
    /// Scaling constant C, packets / s^3.
    pub c: f64,
    /// Multiplicative decrease factor beta_cubic (window *= beta).
    pub beta: f64,
    /// Fast convergence (RFC 9438 section 4.7).
    pub fast_convergence: bool,
    /// Reno-friendly region (RFC 9438 section 4.3).
    pub reno_friendly: bool,
    /// `"ns-3.37"`: ns-3.37's `TcpCubic::IncreaseWindow`/`Update`/`GetSsThresh`: the
    /// window in whole segments, one segment added once the segments
    /// acknowledged reach cnt = segCwnd / (target - segCwnd) (at least 2,
    /// at most 20 while no loss has set W_max), the target's offset
    /// C |t - K|^3 truncated to a whole number of segments, t counted from
    /// the epoch's first ACK plus the least RTT, and W_max, K and the least
    /// RTT forgotten at a timeout (`CubicReset`). `"none"`: RFC 9438.
    pub mirror: Mirror,
}

impl Default for CubicConfig {
    fn default() -> Self {
        //= RFC 9438 section 5.1: C = 0.4; section 4.6: beta_cubic = 0.7.
        CubicConfig {
            c: 0.4,
            beta: 0.7,
            fast_convergence: true,
            reno_friendly: true,
            mirror: Mirror::Spec,
        }
    }
}

impl CubicConfig {
    /// alpha_cubic, packets per RTT in the Reno-friendly region.
    pub fn alpha(&self) -> f64 {
        //= RFC 9438 section 4.3: alpha_cubic = 3 (1 - beta_cubic) / (1 + beta_cubic).
        3.0 * (1.0 - self.beta) / (1.0 + self.beta)
    }

    /// K = cbrt((W_max - cwnd_epoch) / C), seconds, for `drop` = W_max -
    /// cwnd_epoch packets (RFC 9438 section 4.2 eq. (2)).
    pub fn k(&self, drop: f64) -> f64 {
        (drop / self.c).cbrt()
    }

    /// W_max after a congestion event at window `cwnd` with the previous
    /// W_max `w_max`, RFC 9438 section 4.7 (fast convergence): "if cwnd <
    /// W_max and fast convergence enabled: W_max = cwnd * (1 + beta_cubic) /
    /// 2, else W_max = cwnd".
    pub fn new_w_max(&self, cwnd: f64, w_max: f64) -> f64 {
        if self.fast_convergence && cwnd < w_max {
            cwnd * (1.0 + self.beta) / 2.0
        } else {
            cwnd
        }
    }
}

/// CUBIC controller state.
#[derive(Clone, Copy, Debug)]
pub struct Cubic {
    cfg: CubicConfig,
    /// alpha_cubic = 3 (1 - beta) / (1 + beta), section 4.3 eq. (4).
    alpha: f64,
    /// W_max, packets: the window just before the last reduction.
    w_max: f64,
    /// cwnd just before the last reduction (cwnd_prior, section 4.3).
    cwnd_prior: f64,
    /// Start of the current congestion-avoidance epoch (None: not started).
    epoch_start: Option<SimTime>,
    /// K, seconds.
    k: f64,
    /// Reno-friendly estimate W_est, packets.
    w_est: f64,
    /// The next epoch follows a timeout (section 4.8: K = 0, W_max = cwnd).
    after_timeout: bool,
    /// ns-3.37's integer state ([`CubicConfig::mirror`]).
    ns3: Ns3Cubic,
}

/// ns-3.37 `TcpCubic`'s integer state: `m_cWndCnt`, `m_lastMaxCwnd`,
/// `m_bicOriginPoint` (segments) and `m_delayMin`.
#[derive(Clone, Copy, Debug, Default)]
struct Ns3Cubic {
    acked: u32,
    last_max: u32,
    origin: u32,
    delay_min: Option<SimTime>,
}

/// ns-3.37 `TcpCubic` attribute CntClamp (default 20).
const NS3_CNT_CLAMP: u32 = 20;
/// ns-3.37 `TcpCubic` attribute CubicDelta (10 ms): RTT samples this soon
/// after an epoch starts are discarded (`PktsAcked`).
const NS3_CUBIC_DELTA: SimTime = SimTime::from_millis(10);

impl Variant for Cubic {
    const NAMES: &'static [&'static str] = &["cubic"];
    // The window is a function of the time since the last event (eq. (1)),
    // which a continuous decrease cannot express.
    const RATE_FORM: bool = false;
    type Config = CubicConfig;
    type Fluid = CubicFluid;
    fn read(p: &mut Params) -> Result<CubicConfig, PErr> {
        let d = CubicConfig::default();
        Ok(CubicConfig {
            c: p.num("c", d.c, 1e-6, 1e6)?,
            beta: p.num("beta", d.beta, 0.01, 0.999)?,
            fast_convergence: p.flag("fast_convergence", d.fast_convergence)?,
            reno_friendly: p.flag("reno_friendly", d.reno_friendly)?,
            mirror: Mirror::read(p)?,
        })
    }
    fn new(cfg: CubicConfig) -> Cubic {
        Cubic {
            cfg,
            alpha: cfg.alpha(),
            w_max: 0.0,
            cwnd_prior: 0.0,
            epoch_start: None,
            k: 0.0,
            w_est: 0.0,
            after_timeout: false,
            ns3: Ns3Cubic::default(),
        }
    }
    fn fluid(cfg: CubicConfig) -> Result<CubicFluid, &'static str> {
        Ok(CubicFluid {
            cfg,
            w_max: 0.0,
            w_prior: 0.0,
            k: 0.0,
            t_epoch: 0.0,
            w_est: 0.0,
        })
    }
    fn mirror(cfg: &Self::Config) -> Mirror {
        cfg.mirror
    }
    fn epoch(cfg: &CubicConfig, window_pkts: f64, _rtt_s: f64) -> Epoch {
        // After a cut to beta W the window regains W_max = W in K seconds.
        let k = cfg.k(window_pkts * (1.0 - cfg.beta));
        Epoch {
            seconds: k,
            rtts: f64::NAN,
            law: "CUBIC K = cbrt(W (1 - beta) / C) (RFC 9438 section 4.2 eq. (2))",
        }
    }
}

/// CUBIC in fluid form: W_max, cwnd_prior, K, the epoch's start and the
/// Reno-friendly estimate W_est (RFC 9438 section 4), the window following
/// W_cubic(t).
#[derive(Clone, Copy, Debug)]
pub struct CubicFluid {
    cfg: CubicConfig,
    w_max: f64,
    w_prior: f64,
    k: f64,
    t_epoch: f64,
    w_est: f64,
}

impl FluidLaw for CubicFluid {
    fn start(&mut self, t: f64, w: f64) {
        self.t_epoch = t;
        self.w_est = w;
        self.w_max = w;
        self.w_prior = w;
    }

    fn growth(&mut self, t: f64, h: f64, w: &mut f64, rtt: f64) -> Growth {
        let c = self.cfg;
        //= RFC 9438 section 4.3: "a TCP sender SHOULD set alpha_cubic to 1 once
        //= W_est reaches cwnd_prior", as the packet controller does.
        let alpha = if self.w_est >= self.w_prior {
            AimdConfig::default().a
        } else {
            c.alpha()
        };
        //= RFC 9438 section 4.2 eq. (1): W_cubic(t) = C (t - K)^3 + W_max,
        //= t measured from the start of the congestion-avoidance epoch.
        let te = t - self.t_epoch - self.k;
        let wc = c.c * te * te * te + self.w_max;
        let reno = c.reno_friendly && self.w_est > wc;
        //= RFC 9438 section 4.3: in the Reno-friendly region (W_cubic <
        //= W_est) cwnd follows W_est.
        *w = if reno { self.w_est } else { wc.max(MIN_WINDOW) };
        //= RFC 9438 section 4.3 eq. (4): W_est grows by alpha_cubic per RTT.
        self.w_est += alpha * h / rtt;
        if reno {
            Growth::additive(alpha)
        } else {
            //= d/dt W_cubic = 3 C (t - K)^2 (RK4 integrates it exactly).
            Growth {
                c3: 3.0 * c.c,
                tk: self.t_epoch + self.k,
                ..Growth::default()
            }
        }
    }

    fn decrease_fraction(&mut self, _w: f64) -> f64 {
        1.0 - self.cfg.beta
    }

    fn on_loss(&mut self, t: f64, w: f64, _rtt_min: f64) -> f64 {
        let c = self.cfg;
        self.w_max = c.new_w_max(w, self.w_max);
        self.w_prior = w;
        //= RFC 9438 section 4.6: cwnd = cwnd * beta_cubic.
        let new = (w * c.beta).max(MIN_WINDOW);
        //= RFC 9438 section 4.2 eq. (2): K = cbrt((W_max - cwnd_epoch) / C),
        //= cwnd_epoch being the window at the start of the epoch.
        self.k = c.k((self.w_max - new).max(0.0));
        self.t_epoch = t;
        //= RFC 9438 section 4.3: W_est = cwnd_epoch at a congestion event.
        self.w_est = new;
        new
    }
}

impl Cubic {
    /// K = cbrt((W_max - cwnd_epoch) / C), RFC 9438 section 4.2 eq. (2).
    pub fn k_of(&self, w_max: f64, cwnd_epoch: f64) -> f64 {
        self.cfg.k(w_max - cwnd_epoch)
    }

    /// W_cubic(t) = C (t - K)^3 + W_max, RFC 9438 section 4.2 eq. (1).
    #[inline]
    pub fn w_cubic(&self, t: f64) -> f64 {
        let d = t - self.k;
        self.cfg.c * d * d * d + self.w_max
    }

    /// Current K and W_max (tests, traces).
    pub fn k_and_w_max(&self) -> (f64, f64) {
        (self.k, self.w_max)
    }

    /// ns-3.37 `TcpCubic::PktsAcked` and `IncreaseWindow` for one ACK (kept
    /// out of [`CongestionControl::on_ack`]'s RFC path, which runs on every
    /// ACK of every CUBIC flow).
    #[inline(never)]
    fn ns3_on_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        //= ns-3.37 TcpCubic::PktsAcked: "Discard delay samples right after
        //= fast recovery", else the least RTT: the least of the smoothed
        //= RTTs the socket passes on every ACK (m_lastRtt,
        //= RttSampling::Ns3), which this sender gives the controller on
        //= congestion-avoidance ACKs only; the least over the connection
        //= (`min_rtt`, every sample's, slow start's too) stands in for
        //= those it does not see.
        let fresh = self
            .epoch_start
            .is_some_and(|e| ack.now - e < NS3_CUBIC_DELTA);
        let n = &mut self.ns3;
        if let (Some(r), false) = (ack.min_rtt, fresh) {
            n.delay_min = Some(n.delay_min.map_or(r, |d| d.min(r)));
        }
        if slow_start(w, ack.acked) {
            return;
        }
        //= ns-3.37 TcpCubic::IncreaseWindow: "m_cWndCnt += segmentsAcked";
        //= "if (m_cWndCnt >= cnt) { m_cWnd += m_segmentSize; m_cWndCnt -= cnt; }".
        n.acked = n.acked.saturating_add(ack.acked as u32);
        let cnt = self.ns3_count(w.cwnd, ack.now);
        let n = &mut self.ns3;
        if n.acked >= cnt {
            w.cwnd += 1.0;
            n.acked -= cnt;
        }
    }

    /// ns-3.37 `TcpCubic::Update`: the count of segments to acknowledge
    /// before the next one-segment increase, for a window of `cwnd`.
    fn ns3_count(&mut self, cwnd: f64, now: SimTime) -> u32 {
        let n = &mut self.ns3;
        let seg = cwnd.max(0.0) as u32;
        let start = match self.epoch_start {
            Some(t) => t,
            None => {
                if n.last_max <= seg {
                    self.k = 0.0;
                    n.origin = seg;
                } else {
                    //= "m_bicK = std::pow((m_lastMaxCwnd - segCwnd) / m_c, 1 / 3.)".
                    self.k = (f64::from(n.last_max - seg) / self.cfg.c).cbrt();
                    n.origin = n.last_max;
                }
                self.epoch_start = Some(now);
                now
            }
        };
        //= "t = Simulator::Now() + m_delayMin - m_epochStart" (no sample yet
        //= after a reset: none added).
        let t = (now + n.delay_min.unwrap_or(SimTime::ZERO) - start).as_secs_f64();
        let offs = (t - self.k).abs();
        //= "delta = m_c * std::pow(offs, 3)" stored in a uint32_t.
        let delta = (self.cfg.c * offs * offs * offs) as u32;
        let target = if t < self.k {
            n.origin.wrapping_sub(delta)
        } else {
            n.origin.wrapping_add(delta)
        };
        //= "cnt = segCwnd / (bicTarget - segCwnd)", else "100 * segCwnd".
        let mut cnt = if target > seg {
            seg / (target - seg)
        } else {
            seg.wrapping_mul(100)
        };
        if n.last_max == 0 && cnt > NS3_CNT_CLAMP {
            cnt = NS3_CNT_CLAMP;
        }
        //= "return std::max(cnt, 2U)": at most 1.5x per RTT.
        cnt.max(2)
    }

    /// ns-3.37's `TcpCubic::CongestionStateSet(CA_LOSS)`, which
    /// `TcpSocketBase::ReTxTimeout` calls on every timeout, a repeated one
    /// in CA_LOSS included, -> `CubicReset`: m_lastMaxCwnd,
    /// m_bicOriginPoint, m_bicK zeroed, m_delayMin forgotten (the epoch
    /// ended in GetSsThresh, or at the first timeout). Nothing with
    /// RFC 9438's arithmetic.
    fn ns3_loss_reset(&mut self) {
        if self.cfg.mirror.ns3() {
            let n = &mut self.ns3;
            *n = Ns3Cubic {
                acked: n.acked,
                ..Ns3Cubic::default()
            };
            self.k = 0.0;
        }
    }
}

impl CongestionControl for Cubic {
    #[inline]
    fn on_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        if self.cfg.mirror.ns3() {
            self.ns3_on_ack(w, ack);
            return;
        }
        if slow_start(w, ack.acked) {
            return;
        }
        let start = match self.epoch_start {
            Some(t) => t,
            None => {
                let cwnd_epoch = w.cwnd;
                if self.after_timeout || self.w_max <= 0.0 {
                    //= RFC 9438 section 4.8: after a timeout "K is set to 0, and
                    //= W_max is set to the congestion window size at the beginning
                    //= of the current congestion avoidance stage". (Also the first
                    //= epoch after slow start without any loss.)
                    self.w_max = cwnd_epoch;
                    self.cwnd_prior = cwnd_epoch;
                    self.k = 0.0;
                    self.after_timeout = false;
                } else {
                    //= RFC 9438 section 4.2 eq. (2): K = cbrt((W_max - cwnd_epoch)/C).
                    self.k = self.k_of(self.w_max, cwnd_epoch);
                }
                //= RFC 9438 section 4.3: W_est is set to cwnd_epoch at the start
                //= of the congestion avoidance stage.
                self.w_est = cwnd_epoch;
                self.epoch_start = Some(ack.now);
                ack.now
            }
        };
        let acked = ack.acked as f64;
        //= RFC 9438 section 4.3: "a TCP sender SHOULD set alpha_cubic to 1 once
        //= W_est reaches cwnd_prior" (the window before the last reduction).
        let alpha = if self.w_est >= self.cwnd_prior {
            AimdConfig::default().a
        } else {
            self.alpha
        };
        //= RFC 9438 section 4.3 eq. (4): W_est = W_est + alpha_cubic * segments_acked / cwnd.
        self.w_est += alpha * acked / w.cwnd;
        let t = (ack.now - start).as_secs_f64();
        if self.cfg.reno_friendly && self.w_cubic(t) < self.w_est {
            //= RFC 9438 section 4.3: "If W_cubic(t) is less than W_est ... cwnd
            //= SHOULD be set to W_est at each reception of a new ACK".
            w.cwnd = self.w_est;
            return;
        }
        let rtt = ack.srtt.or(ack.min_rtt).map_or(0.0, |r| r.as_secs_f64());
        //= RFC 9438 section 4.2: target = W_cubic(t + RTT), clamped to
        //= [cwnd, 1.5 cwnd].
        let target = self.w_cubic(t + rtt).clamp(w.cwnd, 1.5 * w.cwnd);
        //= RFC 9438 sections 4.4-4.5: cwnd += (target - cwnd)/cwnd per ACK.
        w.cwnd += acked * (target - w.cwnd) / w.cwnd;
    }

    fn on_congestion_event(&mut self, w: &Window, _flight: f64, _now: SimTime) -> f64 {
        if self.cfg.mirror.ns3() {
            let n = &mut self.ns3;
            //= ns-3.37 TcpCubic::GetSsThresh, in whole segments of cwnd:
            //= "m_lastMaxCwnd = (segCwnd * (1 + m_beta)) / 2" below the last
            //= W_max with fast convergence, else segCwnd; "m_epochStart =
            //= Time::Min()"; "max(static_cast<uint32_t>(segCwnd * m_beta), 2U)".
            let seg = w.cwnd.max(0.0) as u32;
            n.last_max = if seg < n.last_max && self.cfg.fast_convergence {
                (f64::from(seg) * (1.0 + self.cfg.beta) / 2.0) as u32
            } else {
                seg
            };
            self.epoch_start = None;
            return f64::from(((f64::from(seg) * self.cfg.beta) as u32).max(2));
        }
        let cwnd = w.cwnd;
        //= RFC 9438 section 4.7 (fast convergence).
        self.w_max = self.cfg.new_w_max(cwnd, self.w_max);
        self.cwnd_prior = cwnd;
        self.epoch_start = None;
        //= RFC 9438 section 4.6: ssthresh = flight_size * beta_cubic (cwnd here),
        //= "cwnd = max(ssthresh, 2)".
        (self.cfg.beta * cwnd).max(MIN_SSTHRESH)
    }

    fn on_timeout(&mut self, w: &mut Window, _flight: f64, now: SimTime) {
        //= RFC 9438 section 4.8: "In the case of a timeout, CUBIC follows Reno to
        //= reduce cwnd [RFC5681] but sets ssthresh using beta_cubic (same as in
        //= Section 4.6)".
        w.ssthresh = self.on_congestion_event(w, w.cwnd, now);
        w.cwnd = 1.0;
        self.after_timeout = true;
        self.ns3_loss_reset();
    }

    fn on_repeated_timeout(&mut self, w: &mut Window) {
        w.cwnd = 1.0;
        self.ns3_loss_reset();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack_at(ms: u64, srtt_ms: u64) -> AckInfo {
        let mut a = AckInfo::bare(1, SimTime::from_millis(ms));
        a.srtt = Some(SimTime::from_millis(srtt_ms));
        a
    }

    #[test]
    fn k_and_w_cubic_hand_worked() {
        // W_max = 100, beta = 0.7: cwnd_epoch = 70,
        // K = cbrt((100 - 70)/0.4) = cbrt(75) = 4.217163 s (RFC 9438 eq. (2)).
        let mut cc = Cubic::new(CubicConfig::default());
        let w = Window {
            cwnd: 100.0,
            ssthresh: f64::INFINITY,
        };
        let ss = cc.on_congestion_event(&w, 100.0, SimTime::ZERO);
        assert!((ss - 70.0).abs() < 1e-12);
        let mut w = Window {
            cwnd: 70.0,
            ssthresh: 70.0,
        };
        cc.on_ack(&mut w, &ack_at(1000, 100));
        let (k, w_max) = cc.k_and_w_max();
        assert!((k - 4.217_163).abs() < 1e-6, "{k}");
        assert_eq!(w_max, 100.0);
        // W_cubic(0) = 0.4 (-4.217163)^3 + 100 = 70; W_cubic(K) = 100;
        // W_cubic(6) = 0.4 * 1.782837^3 + 100 = 102.2667.
        assert!((cc.w_cubic(0.0) - 70.0).abs() < 1e-9);
        assert!((cc.w_cubic(k) - 100.0).abs() < 1e-12);
        assert!(
            (cc.w_cubic(6.0) - 102.2667).abs() < 1e-4,
            "{}",
            cc.w_cubic(6.0)
        );
        // Two seconds into the epoch, RTT 100 ms: target = W_cubic(2.1)
        // = 0.4 (2.1 - 4.217163)^3 + 100 = 96.2044; W_est is about 70.1 so the
        // cubic region applies and cwnd grows by (96.2044 - 70.x)/70.x.
        let before = w.cwnd;
        cc.on_ack(&mut w, &ack_at(3000, 100));
        let target = 0.4 * (2.1f64 - 4.217_163).powi(3) + 100.0;
        assert!((target - 96.2044).abs() < 1e-3);
        // (tolerance: K above is rounded to 1e-6 s, which moves the target by ~2e-6)
        assert!(
            (w.cwnd - (before + (target - before) / before)).abs() < 1e-6,
            "{}",
            w.cwnd
        );
    }

    #[test]
    fn fast_convergence_and_reno_friendly() {
        let mut cc = Cubic::new(CubicConfig::default());
        cc.on_congestion_event(
            &Window {
                cwnd: 100.0,
                ssthresh: 1e9,
            },
            100.0,
            SimTime::ZERO,
        );
        // A second loss below W_max = 100: W_max = 80 * 1.7 / 2 = 68.
        cc.on_congestion_event(
            &Window {
                cwnd: 80.0,
                ssthresh: 56.0,
            },
            80.0,
            SimTime::ZERO,
        );
        assert!((cc.k_and_w_max().1 - 68.0).abs() < 1e-12);
        // Reno-friendly: alpha_cubic = 3 * 0.3 / 1.7 = 0.529412 per RTT.
        // Loss at cwnd 10 (W_max = 10), epoch at cwnd 7: at t = 0 W_cubic = 7
        // is below W_est, so cwnd follows W_est.
        let mut cc = Cubic::new(CubicConfig::default());
        cc.on_congestion_event(
            &Window {
                cwnd: 10.0,
                ssthresh: 1e9,
            },
            10.0,
            SimTime::ZERO,
        );
        let mut w = Window {
            cwnd: 7.0,
            ssthresh: 7.0,
        };
        cc.on_ack(&mut w, &ack_at(0, 1000));
        // After the first ACK: W_est = 7 + 0.529412/7 = 7.075630; W_cubic(0) = 7.
        assert!((w.cwnd - 7.075_630).abs() < 1e-6, "{}", w.cwnd);
        assert!((cc.alpha - 0.529_412).abs() < 1e-6);
    }

    #[test]
    fn timeout_resets_the_epoch() {
        let mut cc = Cubic::new(CubicConfig::default());
        let mut w = Window {
            cwnd: 50.0,
            ssthresh: 40.0,
        };
        cc.on_timeout(&mut w, 50.0, SimTime::ZERO);
        assert_eq!(w.cwnd, 1.0);
        assert!((w.ssthresh - 35.0).abs() < 1e-12);
        // Slow start to ssthresh, then the epoch starts with K = 0 and
        // W_max = cwnd (RFC 9438 section 4.8).
        w.cwnd = 35.0;
        cc.on_ack(&mut w, &ack_at(500, 100));
        let (k, w_max) = cc.k_and_w_max();
        assert_eq!(k, 0.0);
        assert_eq!(w_max, 35.0);
    }

    #[test]
    fn ns3s_cubic_counts_whole_segments() {
        let cfg = CubicConfig {
            reno_friendly: false,
            mirror: Mirror::Ns3_37,
            ..CubicConfig::default()
        };
        let mut cc = Cubic::new(cfg);
        let at = |ms: u64| {
            let mut a = AckInfo::bare(1, SimTime::from_millis(ms));
            a.min_rtt = Some(SimTime::from_millis(50));
            a
        };
        // A loss at cwnd 100.9: GetSsThresh reads 100 whole segments,
        // W_max = 100, ssthresh = 70.
        let mut w = Window {
            cwnd: 100.9,
            ssthresh: f64::INFINITY,
        };
        assert_eq!(cc.on_congestion_event(&w, 0.0, SimTime::ZERO), 70.0);
        w = Window {
            cwnd: 70.0,
            ssthresh: 70.0,
        };
        // The epoch starts at 70: K = cbrt(30 / 0.4) = 4.2172 s; 50 ms of
        // least RTT later the offset 4.1672 s gives delta = floor(0.4 x
        // 72.37) = 28, target 72, cnt = 70 / (72 - 70) = 35: the 35th
        // segment acknowledged adds one.
        for k in 0..34 {
            cc.on_ack(&mut w, &at(1000 + k));
        }
        assert_eq!(w.cwnd, 70.0);
        cc.on_ack(&mut w, &at(1034));
        assert_eq!(w.cwnd, 71.0);
        // A timeout forgets W_max (CubicReset): the next epoch's origin is
        // the window, the target the window itself, and cnt = 100 x cwnd
        // clamped to CntClamp = 20 while no loss has set W_max again.
        cc.on_timeout(&mut w, 71.0, SimTime::from_millis(2000));
        assert_eq!((w.ssthresh, w.cwnd), (49.0, 1.0));
        w = Window {
            cwnd: 49.0,
            ssthresh: 49.0,
        };
        for k in 0..19 {
            cc.on_ack(&mut w, &at(3000 + k));
        }
        assert_eq!(w.cwnd, 49.0);
        cc.on_ack(&mut w, &at(3019));
        assert_eq!(w.cwnd, 50.0);
    }

    /// ns-3.37 resets TcpCubic at every timeout (CongestionStateSet(CA_LOSS)
    /// -> CubicReset), a repeated one whose ssthresh the episode keeps too:
    /// the W_max learned at the last loss is forgotten. RFC 9438's
    /// arithmetic keeps it.
    #[test]
    fn a_repeated_timeout_resets_ns3s_cubic_only() {
        let run = |mirror: Mirror| {
            let cfg = CubicConfig {
                reno_friendly: false,
                mirror,
                ..CubicConfig::default()
            };
            let mut cc = Cubic::new(cfg);
            let w = Window {
                cwnd: 100.0,
                ssthresh: f64::INFINITY,
            };
            cc.on_congestion_event(&w, 0.0, SimTime::ZERO);
            let before = (cc.w_max, cc.ns3.last_max);
            let mut w = Window {
                cwnd: 5.0,
                ssthresh: 70.0,
            };
            cc.on_repeated_timeout(&mut w);
            assert_eq!((w.cwnd, w.ssthresh), (1.0, 70.0));
            (before, (cc.w_max, cc.ns3.last_max))
        };
        assert_eq!(run(Mirror::Spec), ((100.0, 0), (100.0, 0)));
        assert_eq!(run(Mirror::Ns3_37), ((0.0, 100), (0.0, 0)));
    }
}
