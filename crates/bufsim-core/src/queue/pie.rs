//! PIE, RFC 8033 (Proportional Integral controller Enhanced): a drop
//! probability updated every T_UPDATE from the queueing delay's distance to
//! QDELAY_REF and its trend, applied at enqueue; a burst allowance lets
//! short bursts through. The queueing delay is the sojourn time of the
//! packet last dequeued (the timestamp method of RFC 8033 section 5.2; no
//! departure-rate estimate is needed). The periodic update runs lazily at
//! arrivals and departures, catching up on the periods that passed, so the
//! discipline schedules no events.

use rand::RngExt;

use serde::Serialize;

use super::{
    Discipline, DropReason, Drops, Fifo, Limit, LinkInfo, Occupancy, QueueDisc, Queued, Setup,
};
use crate::engine::rng::{Rng, Stream, stream};
use crate::net::Packet;
use crate::params::{PErr, Params};
use crate::units::SimTime;

/// PIE, RFC 8033.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PieConfig {
    /// QDELAY_REF, the target queue delay.
    #[serde(serialize_with = "crate::units::ser_secs", rename = "target_s")]
    pub target: SimTime,
    /// T_UPDATE, the drop-probability update period.
    #[serde(serialize_with = "crate::units::ser_secs", rename = "t_update_s")]
    pub t_update: SimTime,
    /// alpha, 1/s.
    pub alpha: f64,
    /// beta, 1/s.
    pub beta: f64,
    /// MAX_BURST, the burst allowance.
    #[serde(serialize_with = "crate::units::ser_secs", rename = "max_burst_s")]
    pub max_burst: SimTime,
}

impl Default for PieConfig {
    fn default() -> Self {
        //= RFC 8033 section 4.1/5.1: QDELAY_REF = 15 ms, T_UPDATE = 15 ms,
        //= alpha = 0.125 Hz, beta = 1.25 Hz, MAX_BURST = 150 ms.
        PieConfig {
            target: SimTime::from_millis(15),
            t_update: SimTime::from_millis(15),
            alpha: 0.125,
            beta: 1.25,
            max_burst: SimTime::from_millis(150),
        }
    }
}

/// PIE's random early drop (RFC 8033 section 4.1).
pub const PIE: DropReason = DropReason::own(0);

impl QueueDisc for Pie {
    const NAME: &'static str = "pie";
    const FIFO: bool = true;
    const DROP_REASONS: &'static [&'static str] = &["pie"];
    type Config = PieConfig;
    fn read(p: &mut Params, _link: LinkInfo) -> Result<PieConfig, PErr> {
        let d = PieConfig::default();
        let ms = SimTime::from_millis;
        Ok(PieConfig {
            target: p.dur("target", d.target, SimTime(1), ms(100_000))?,
            t_update: p.dur(
                "t_update",
                d.t_update,
                SimTime::from_micros(10),
                ms(100_000),
            )?,
            alpha: p.num("alpha", d.alpha, 0.0, 1e6)?,
            beta: p.num("beta", d.beta, 0.0, 1e6)?,
            max_burst: p.dur("max_burst", d.max_burst, SimTime::ZERO, ms(100_000))?,
        })
    }
    fn new(cfg: PieConfig, q: &Setup) -> Pie {
        Pie::with_config(
            cfg,
            q.limit,
            q.link.packet_size,
            stream(q.seed, Stream::Queue(q.port)),
        )
    }
}

/// PIE state.
pub struct Pie {
    cfg: PieConfig,
    limit: Limit,
    mtu: u32,
    fifo: Fifo,
    drop_prob: f64,
    qdelay: f64,
    qdelay_old: f64,
    burst_allowance: f64,
    next_update: SimTime,
    rng: Rng,
}

impl Pie {
    /// PIE with these parameters; `mtu` is the mean/maximum packet size.
    pub fn with_config(cfg: PieConfig, limit: Limit, mtu: u32, rng: Rng) -> Pie {
        Pie {
            cfg,
            limit,
            mtu,
            fifo: Fifo::default(),
            drop_prob: 0.0,
            qdelay: 0.0,
            qdelay_old: 0.0,
            //= RFC 8033 section 4.1: "burst_allowance = MAX_BURST" initially.
            burst_allowance: cfg.max_burst.as_secs_f64(),
            next_update: cfg.t_update,
            rng,
        }
    }

    /// The current drop probability (tests, traces).
    pub fn drop_prob(&self) -> f64 {
        self.drop_prob
    }

    /// RFC 8033 section 4.2 (with the section 5.1 scaling): one update of
    /// the drop probability.
    fn calculate_drop_prob(&mut self) {
        let target = self.cfg.target.as_secs_f64();
        let qdelay = if self.fifo.is_empty() {
            0.0
        } else {
            self.qdelay
        };
        //= section 4.2: p = alpha * (current_qdelay - QDELAY_REF)
        //=                + beta * (current_qdelay - qdelay_old).
        let mut p = self.cfg.alpha * (qdelay - target) + self.cfg.beta * (qdelay - self.qdelay_old);
        //= section 4.2: auto-tuning of alpha and beta by drop_prob ranges:
        //= "if (drop_prob_ < 0.000001) p /= 2048; else if (< 0.00001) p /= 512;
        //=  else if (< 0.0001) p /= 128; else if (< 0.001) p /= 32;
        //=  else if (< 0.01) p /= 8; else if (< 0.1) p /= 2".
        let d = self.drop_prob;
        p /= if d < 1e-6 {
            2048.0
        } else if d < 1e-5 {
            512.0
        } else if d < 1e-4 {
            128.0
        } else if d < 1e-3 {
            32.0
        } else if d < 1e-2 {
            8.0
        } else if d < 0.1 {
            2.0
        } else {
            1.0
        };
        //= section 4.2: "if (drop_prob_ >= 0.1 && p > 0.02) p = 0.02" (cap the
        //= step in high-drop regimes).
        if d >= 0.1 && p > 0.02 {
            p = 0.02;
        }
        self.drop_prob += p;
        //= section 4.2: "if (current_qdelay == 0 && qdelay_old == 0)
        //= drop_prob_ *= 0.98" (exponential decay when idle).
        if qdelay == 0.0 && self.qdelay_old == 0.0 {
            self.drop_prob *= 0.98;
        }
        //= section 4.2: "if (current_qdelay > 250 ms) drop_prob += 0.02".
        if qdelay > 0.25 {
            self.drop_prob += 0.02;
        }
        self.drop_prob = self.drop_prob.clamp(0.0, 1.0);
        //= section 4.3: "burst_allowance_ = max(0, burst_allowance_ - T_UPDATE)";
        //= reset to MAX_BURST once the queue is calm (drop_prob 0 and both
        //= delays below QDELAY_REF/2).
        let t_update = self.cfg.t_update.as_secs_f64();
        self.burst_allowance = (self.burst_allowance - t_update).max(0.0);
        if self.drop_prob == 0.0 && qdelay < target / 2.0 && self.qdelay_old < target / 2.0 {
            self.burst_allowance = self.cfg.max_burst.as_secs_f64();
        }
        self.qdelay_old = qdelay;
    }

    #[inline]
    fn catch_up(&mut self, now: SimTime) {
        let mut n = 0u32;
        while now >= self.next_update {
            self.next_update += self.cfg.t_update;
            n += 1;
            if n > 5_000 {
                // Idle for more than 5000 periods: drop_prob has decayed by
                // 0.98^5000 (to 0) and the burst allowance is back; skip ahead.
                self.drop_prob = 0.0;
                self.burst_allowance = self.cfg.max_burst.as_secs_f64();
                let k = (now - self.next_update).0 / self.cfg.t_update.0 + 1;
                self.next_update += SimTime(k * self.cfg.t_update.0);
                break;
            }
            self.calculate_drop_prob();
        }
    }
}

impl Discipline for Pie {
    #[inline]
    fn push_out(&mut self) -> Option<Packet> {
        self.fifo.pop_back()
    }
    fn enqueue(&mut self, pkt: Packet, occ: Occupancy, now: SimTime, drops: &mut Drops) {
        self.catch_up(now);
        if !self.limit.fits(occ, pkt.size()) {
            //= RFC 8033 section 4.1: "if the queue is full: drop the packet" (tail).
            drops.push((pkt, DropReason::OVERFLOW));
            return;
        }
        //= section 4.1 drop_early(): no early drop while the burst allowance
        //= lasts, when "qdelay_old_ < QDELAY_REF/2 && drop_prob_ < 0.2", or
        //= when "queue_.byte_length() <= 2 * MEAN_PKTSIZE".
        let target = self.cfg.target.as_secs_f64();
        let early = self.burst_allowance <= 0.0
            && !(self.qdelay_old < target / 2.0 && self.drop_prob < 0.2)
            && occ.bytes > 2 * self.mtu as u64
            && self.rng.random::<f64>() < self.drop_prob;
        if early {
            drops.push((pkt, PIE));
        } else {
            self.fifo.push(pkt, now);
        }
    }

    #[inline]
    fn dequeue(&mut self, _occ: Occupancy, now: SimTime, _drops: &mut Drops) -> Option<Queued> {
        self.catch_up(now);
        let p = self.fifo.pop()?;
        //= section 5.2: the queueing latency measured by timestamps: the
        //= sojourn time of the departing packet.
        self.qdelay = (now - p.since).as_secs_f64();
        Some(p)
    }
}
