//! RED (Floyd and Jacobson, "Random early detection gateways for congestion
//! avoidance", IEEE/ACM ToN 1(4), 1993), with the gentle variant (Floyd
//! 2000), packet or byte mode, and Adaptive RED (Floyd, Gummadi and
//! Shenker, "Adaptive RED", 2001). Section and figure numbers below refer to
//! those papers.

use rand::RngExt;

use super::config::{RedConfig, RedMode};
use super::{Discipline, DropReason, Drops, Fifo, Limit, Occupancy};
use crate::engine::rng::{Rng, Stream, stream};
use crate::net::{CE, ECT, Packet};
use crate::scenario::Link;
use crate::units::{BitsPerSec, SimTime};

/// The RED drop profile: p_b as a function of the average queue, without
/// the count correction. Shared by the packet and the fluid engine.
#[inline]
pub fn profile(cfg: &RedConfig, max_p: f64, avg: f64) -> f64 {
    if avg < cfg.min_th {
        0.0
    } else if avg < cfg.max_th {
        //= Floyd & Jacobson 1993 section 4 (Fig. 2):
        //= p_b <- max_p (avg - min_th) / (max_th - min_th).
        max_p * (avg - cfg.min_th) / (cfg.max_th - cfg.min_th)
    } else if cfg.gentle && avg < 2.0 * cfg.max_th {
        //= Floyd 2000, "Recommendation on using the gentle_ variant of RED":
        //= p rises linearly from max_p at max_th to 1 at 2 max_th.
        max_p + (1.0 - max_p) * (avg - cfg.max_th) / cfg.max_th
    } else {
        1.0
    }
}

/// RED queue state.
pub struct Red {
    cfg: RedConfig,
    limit: Limit,
    fifo: Fifo,
    /// Current max_p (adapted under Adaptive RED).
    max_p: f64,
    /// Average queue, packets (or bytes / packet_size in byte mode).
    avg: f64,
    /// Packets since the last drop (-1: avg below min_th).
    count: i64,
    /// When the queue last became empty (idle-time correction).
    q_time: Option<SimTime>,
    /// Transmission time s of a typical packet (section 4: "m <- f(time - q_time)").
    s_ps: f64,
    packet_size: f64,
    next_adapt: SimTime,
    rng: Rng,
}

impl Red {
    /// RED on `link` with these parameters.
    pub fn new(cfg: RedConfig, limit: Limit, link: &Link, seed: u64) -> Red {
        let s = BitsPerSec(link.capacity_bps).tx_time(link.packet_size_bytes);
        Red {
            cfg,
            limit,
            fifo: Fifo::default(),
            max_p: cfg.max_p,
            avg: 0.0,
            count: -1,
            q_time: Some(SimTime::ZERO),
            s_ps: s.0.max(1) as f64,
            packet_size: link.packet_size_bytes as f64,
            next_adapt: cfg.interval,
            rng: stream(seed, Stream::Queue),
        }
    }

    /// The average queue (tests, traces).
    pub fn avg(&self) -> f64 {
        self.avg
    }
    /// The current max_p (tests, traces).
    pub fn max_p(&self) -> f64 {
        self.max_p
    }

    fn queue_len(&self, occ: Occupancy) -> f64 {
        match self.cfg.mode {
            RedMode::Packets => occ.pkts as f64,
            RedMode::Bytes => occ.bytes as f64 / self.packet_size,
        }
    }

    /// Adaptive RED, Floyd-Gummadi-Shenker 2001 Fig. 2, run every interval
    /// (lazily, at arrivals).
    fn adapt(&mut self, now: SimTime) {
        let mut n = 0;
        while now >= self.next_adapt {
            self.next_adapt += self.cfg.interval;
            n += 1;
            if n > 10_000 {
                // A long idle period: further updates only shrink max_p to its floor.
                self.next_adapt = now + self.cfg.interval;
            }
            let span = self.cfg.max_th - self.cfg.min_th;
            //= Fig. 2: target in [min_th + 0.4 (max_th - min_th), min_th + 0.6 (max_th - min_th)].
            let (lo, hi) = (self.cfg.min_th + 0.4 * span, self.cfg.min_th + 0.6 * span);
            if self.avg > hi && self.max_p <= 0.5 {
                //= Fig. 2: "increase max_p: max_p <- max_p + alpha",
                //= alpha = min(0.01, max_p/4).
                self.max_p += (0.01f64).min(self.max_p / 4.0);
            } else if self.avg < lo && self.max_p >= 0.01 {
                //= Fig. 2: "decrease max_p: max_p <- max_p * beta", beta = 0.9.
                self.max_p *= 0.9;
            }
        }
    }
}

impl Discipline for Red {
    fn enqueue(&mut self, pkt: Packet, occ: Occupancy, now: SimTime, drops: &mut Drops) {
        self.admit(pkt, occ, now, drops);
        if self.fifo.is_empty() {
            // The arrival was dropped and the queue is still idle: the idle
            // period restarts now (ns-2 resets its idle timer on any arrival).
            self.q_time = Some(now);
        }
    }

    #[inline]
    fn dequeue(&mut self, _occ: Occupancy, now: SimTime, _drops: &mut Drops) -> Option<Packet> {
        let p = self.fifo.pop();
        if self.fifo.is_empty() {
            //= section 4: "when queue becomes empty: q_time <- time". The
            //= link finishes sending this packet later; the idle period is
            //= measured from here, as ns-2 does at dequeue.
            self.q_time = Some(now);
        }
        p
    }
}

impl Red {
    fn admit(&mut self, pkt: Packet, occ: Occupancy, now: SimTime, drops: &mut Drops) {
        let w = self.cfg.w_q;
        let q = self.queue_len(occ);
        match self.q_time {
            Some(t) if occ.pkts == 0 => {
                //= Floyd & Jacobson 1993 section 4: when the queue is empty,
                //= "m <- f(time - q_time); avg <- (1 - w_q)^m avg", m the number
                //= of small packets that could have been sent while idle.
                let m = (now - t).0 as f64 / self.s_ps;
                self.avg *= (1.0 - w).powf(m);
            }
            _ => {
                //= section 4: "avg <- (1 - w_q) avg + w_q q".
                self.avg = (1.0 - w) * self.avg + w * q;
            }
        }
        self.q_time = None;
        if self.cfg.adaptive {
            self.adapt(now);
        }
        if !self.limit.fits(occ, pkt.size) {
            drops.push((pkt, DropReason::Overflow));
            self.count = 0;
            return;
        }
        let pb = profile(&self.cfg, self.max_p, self.avg);
        if pb <= 0.0 {
            //= section 4 (Fig. 2): avg < min_th: "count <- -1".
            self.count = -1;
            self.fifo.push(pkt);
            return;
        }
        if pb >= 1.0 {
            //= section 4: avg >= max_th: "mark the arriving packet, count <- 0".
            self.count = 0;
            drops.push((pkt, DropReason::Forced));
            return;
        }
        self.count += 1;
        let mut pb = pb;
        if self.cfg.mode == RedMode::Bytes {
            //= section 4: "pb <- pb PacketSize/MaximumPacketSize" (byte mode).
            pb = (pb * pkt.size as f64 / self.packet_size).min(1.0);
        }
        //= section 4 (Fig. 2): "pa <- pb / (1 - count pb)": drops spaced
        //= roughly uniformly between 1 and 1/pb arrivals apart.
        let denom = 1.0 - self.count as f64 * pb;
        let pa = if denom <= pb { 1.0 } else { pb / denom };
        if self.rng.random::<f64>() < pa {
            self.count = 0;
            if self.cfg.ecn && pkt.ecn & ECT != 0 {
                //= RFC 3168 section 5: "the router MAY ... set the CE codepoint
                //= in the IP header instead of dropping the packet" when the
                //= packet is ECN-capable and the queue is not full.
                let mut pkt = pkt;
                pkt.ecn |= CE;
                self.fifo.push(pkt);
            } else {
                drops.push((pkt, DropReason::Early));
            }
        } else {
            self.fifo.push(pkt);
        }
    }
}
