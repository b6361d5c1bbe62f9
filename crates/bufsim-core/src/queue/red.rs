//! RED (Floyd and Jacobson, "Random early detection gateways for congestion
//! avoidance", IEEE/ACM ToN 1(4), 1993), with the gentle variant (Floyd
//! 2000), packet or byte mode, and Adaptive RED (Floyd, Gummadi and
//! Shenker, "Adaptive RED", 2001). Section and figure numbers below refer to
//! those papers. [`RedVariant::Ns3`] runs ns-3.37's `RedQueueDisc` instead.

use rand::RngExt;
use serde::Serialize;

use super::{
    Discipline, DropReason, Drops, Fifo, Limit, LinkInfo, Occupancy, QueueDisc, Queued, Setup,
};
use crate::engine::rng::{Rng, Stream, stream};
use crate::net::{ECT, Packet};
use crate::params::{PErr, Params};
use crate::units::{BitsPerSec, SimTime};

/// Whether RED measures the queue (and scales its drop probability) in
/// packets or bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RedMode {
    /// Queue in packets; every packet has the same drop probability.
    Packets,
    /// Queue in bytes / `link.packet_size`; the drop probability of a packet
    /// is scaled by its size / `link.packet_size` (Floyd and Jacobson 1993
    /// section 4, "pb <- pb PacketSize/MaximumPacketSize").
    Bytes,
}

/// Whose RED: the paper's or ns-3's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RedVariant {
    /// Floyd and Jacobson 1993 as written (Linux's sch_red too): every
    /// arrival with the average above min_th may be dropped.
    Floyd,
    /// ns-3.37's `RedQueueDisc` (ns-2's red.cc before it): the average and
    /// the drop test read the queue disc, one packet less than the buffer
    /// (the device queue holds the next); nothing is dropped while the disc
    /// holds at most one packet ("m_qAvg >= m_minTh && nQueued > 1"); the
    /// first arrival in the drop region is spared and the count starts at 1
    /// (m_old); the count runs on through forced and overflow drops; an
    /// arrival ends the idle period, dropped or not.
    Ns3,
}

/// RED (Floyd and Jacobson, "Random early detection gateways for
/// congestion avoidance", IEEE/ACM ToN 1993) with the gentle variant and
/// Adaptive RED (Floyd, Gummadi and Shenker 2001).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RedConfig {
    /// Minimum threshold of the average queue, packets.
    pub min_th: f64,
    /// Maximum threshold of the average queue, packets.
    pub max_th: f64,
    /// Drop probability at max_th (initial value under Adaptive RED).
    pub max_p: f64,
    /// EWMA weight of the average queue.
    pub w_q: f64,
    /// Gentle mode: p rises from max_p at max_th to 1 at 2 max_th.
    pub gentle: bool,
    /// Packet or byte mode (default: the buffer's mode).
    pub mode: RedMode,
    /// Adaptive RED: adapt max_p every `interval` to keep the average queue
    /// in the target band.
    pub adaptive: bool,
    /// Adaptive RED update interval.
    #[serde(serialize_with = "crate::units::ser_secs", rename = "interval_s")]
    pub interval: SimTime,
    /// Wait between early drops: ns-2's `wait_`, ns-3's `Wait` (both on by
    /// default there; see [`spaced`]).
    pub wait: bool,
    /// Mark ECN-capable packets (CE) instead of dropping them early
    /// (RFC 3168 section 5); overflow drops still drop.
    pub ecn: bool,
    /// Drop ECN-capable packets above the forced-drop threshold (max_th, or
    /// 2 max_th in gentle mode) instead of marking them: Linux's sch_red
    /// `harddrop` flag, ns-3's `RedQueueDisc::UseHardDrop`. Off by default,
    /// as Linux (`tc qdisc ... red ecn` marks there unless `harddrop` is
    /// given); ns-3's own default is on, which its DCTCP example and the
    /// DCTCP papers' scripts turn off.
    pub hard_drop: bool,
    /// The paper's RED or ns-3's.
    pub variant: RedVariant,
}

impl Default for RedConfig {
    fn default() -> Self {
        RedConfig {
            //= Floyd, "RED: discussions of setting parameters" (1997): min_th = 5
            //= packets, max_th = 3 min_th.
            min_th: 5.0,
            max_th: 15.0,
            //= Floyd 2000, "Recommendation on using the gentle_ variant of RED":
            //= max_p = 0.1 with gentle on.
            max_p: 0.1,
            //= Floyd and Jacobson 1993 section 11: w_q = 0.002.
            w_q: 0.002,
            gentle: true,
            mode: RedMode::Packets,
            adaptive: false,
            //= Floyd, Gummadi, Shenker 2001 Fig. 2: interval = 0.5 s.
            interval: SimTime::from_millis(500),
            //= Floyd & Jacobson 1993 section 4's spacing, as Linux's sch_red.
            wait: false,
            ecn: false,
            hard_drop: false,
            variant: RedVariant::Floyd,
        }
    }
}

/// RED's random early drop: the average between the thresholds (Floyd &
/// Jacobson 1993's "unforced" drop).
pub const EARLY: DropReason = DropReason::own(0);
/// RED's forced drop: the average above max_th (2 max_th in gentle mode),
/// a packet that is not ECN-capable or any packet with `hard_drop`.
pub const FORCED: DropReason = DropReason::own(1);

impl QueueDisc for Red {
    const NAME: &'static str = "red";
    const FIFO: bool = true;
    const DROP_REASONS: &'static [&'static str] = &["early", "forced"];
    //= The fluid RED of fluid/red.rs (Misra-Gong-Towsley) reads the same
    //= config; `fluid::check` refuses what it does not model.
    const FLUID: bool = true;
    type Config = RedConfig;
    fn read(p: &mut Params, link: LinkInfo) -> Result<RedConfig, PErr> {
        let d = RedConfig::default();
        let given_min = p.has("min_th");
        let min_th = p.num("min_th", d.min_th, 0.0, 1e9)?;
        //= Floyd 1997: max_th = 3 min_th when only min_th is given.
        let max_default = if given_min {
            3.0 * min_th.max(5.0 / 3.0)
        } else {
            d.max_th
        };
        let max_th = p.num("max_th", max_default, 0.0, 1e9)?;
        // max_th = min_th is a step: no mark below it, a forced mark (or drop,
        // with hard_drop or a packet that is not ECN-capable) above it: the
        // marking of ns-3's DCTCP example, MinTh = MaxTh = K, UseHardDrop =
        // false.
        if max_th < min_th {
            return Err((
                "max_th".into(),
                format!("must be >= min_th ({min_th}), got {max_th}"),
            ));
        }
        let max_p = p.num("max_p", d.max_p, 1e-9, 1.0)?;
        let adaptive = p.flag("adaptive", d.adaptive)?;
        //= Floyd, Gummadi, Shenker 2001 section 4: under Adaptive RED
        //= w_q = 1 - exp(-1/C), C the link capacity in packets/s.
        let wq_default = if adaptive {
            1.0 - (-1.0 / (link.capacity_bps / (8.0 * link.packet_size as f64))).exp()
        } else {
            d.w_q
        };
        // w_q = 1: the average is the instantaneous queue (ns-3's DCTCP
        // example, QW = 1).
        let w_q = p.num("w_q", wq_default, 1e-12, 1.0)?;
        let gentle = p.flag("gentle", d.gentle)?;
        let mode = match p.word("mode", &["packets", "bytes"])?.as_deref() {
            Some("bytes") => RedMode::Bytes,
            Some(_) => RedMode::Packets,
            None if link.bytes_mode => RedMode::Bytes,
            None => RedMode::Packets,
        };
        let ms = SimTime::from_millis;
        let interval = p.dur("interval", d.interval, ms(1), ms(1_000_000))?;
        let wait = p.flag("wait", d.wait)?;
        let ecn = p.flag("ecn", d.ecn)?;
        let hard_drop = p.flag("hard_drop", d.hard_drop)?;
        let variant = match p.word("variant", &["floyd", "ns3"])?.as_deref() {
            Some("ns3") => RedVariant::Ns3,
            _ => RedVariant::Floyd,
        };
        //= ns-3's byte mode counts bytes since the last drop: not mirrored.
        if variant == RedVariant::Ns3 && mode == RedMode::Bytes {
            return Err((
                "mode".into(),
                "\"bytes\" with variant = \"ns3\": ns-3's RED is mirrored in packet mode; \
                 set mode = \"packets\""
                    .into(),
            ));
        }
        Ok(RedConfig {
            min_th,
            max_th,
            max_p,
            w_q,
            gentle,
            mode,
            adaptive,
            interval,
            wait,
            ecn,
            hard_drop,
            variant,
        })
    }
    fn new(cfg: RedConfig, q: &Setup) -> Red {
        Red::with_config(cfg, q.limit, q.link, stream(q.seed, Stream::Queue(q.port)))
    }
}

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

/// The early-drop probability of an arrival `count` packets after the
/// last drop, from the profile's `pb` (ns-2's red.cc `modify_p`, ns-3's
/// `RedQueueDisc::ModifyP`, packet mode).
//= Without wait, Floyd & Jacobson 1993 section 4 (Fig. 2): "pa <- pb / (1 -
//= count pb)", drops about uniformly 1 to 1/pb arrivals apart. With wait:
//= "if (count1 * p < 1.0) p = 0.0; else if (count1 * p < 2.0) p /= (2.0 -
//= count1 * p); else p = 1.0": 1/pb to 2/pb apart.
#[inline]
pub fn spaced(pb: f64, count: i64, wait: bool) -> f64 {
    let cp = count as f64 * pb;
    let pa = match (wait, cp) {
        (true, cp) if cp < 1.0 => 0.0,
        (true, cp) if cp < 2.0 => pb / (2.0 - cp),
        (false, cp) if cp < 1.0 => pb / (1.0 - cp),
        _ => 1.0,
    };
    //= red.cc: "if (p > 1.0) p = 1.0".
    pa.min(1.0)
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
    /// ns-3's m_old: the average was in the drop region at the last
    /// arrival, with more than one packet in the disc.
    ns3_old: bool,
    /// When the queue last became empty (idle-time correction).
    q_time: Option<SimTime>,
    /// Transmission time s of a typical packet (section 4: "m <- f(time - q_time)").
    s_ps: f64,
    packet_size: f64,
    next_adapt: SimTime,
    /// When max_p last changed (variant ns3's Adaptive RED: red.cc's
    /// `edv_.lastset`).
    last_set: SimTime,
    rng: Rng,
}

impl Red {
    /// RED on `link` with these parameters.
    pub fn with_config(cfg: RedConfig, limit: Limit, link: LinkInfo, rng: Rng) -> Red {
        let s = BitsPerSec(link.capacity_bps).tx_time(link.packet_size);
        Red {
            cfg,
            limit,
            fifo: Fifo::default(),
            max_p: cfg.max_p,
            avg: 0.0,
            count: if cfg.variant == RedVariant::Ns3 {
                0
            } else {
                -1
            },
            ns3_old: false,
            q_time: Some(SimTime::ZERO),
            s_ps: s.0.max(1) as f64,
            packet_size: link.packet_size as f64,
            next_adapt: cfg.interval,
            last_set: SimTime::ZERO,
            rng,
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
            self.adapt_step();
        }
    }

    /// One step of Adaptive RED's max_p (Floyd, Gummadi, Shenker 2001 Fig.
    /// 2); whether max_p moved. ns-2's `REDQueue::updateMaxP` (red.cc) and
    /// ns-3's `RedQueueDisc::UpdateMaxP` take the same step, with strict
    /// bounds (`cur_max_p > bottom_`, `top_ > cur_max_p`): they differ from
    /// Fig. 2's only at max_p exactly 0.01 or 0.5.
    fn adapt_step(&mut self) -> bool {
        let span = self.cfg.max_th - self.cfg.min_th;
        //= Fig. 2: target in [min_th + 0.4 (max_th - min_th), min_th + 0.6 (max_th - min_th)].
        let (lo, hi) = (self.cfg.min_th + 0.4 * span, self.cfg.min_th + 0.6 * span);
        if self.avg > hi && self.max_p <= 0.5 {
            //= Fig. 2: "increase max_p: max_p <- max_p + alpha",
            //= alpha = min(0.01, max_p/4).
            self.max_p += (0.01f64).min(self.max_p / 4.0);
            true
        } else if self.avg < lo && self.max_p >= 0.01 {
            //= Fig. 2: "decrease max_p: max_p <- max_p * beta", beta = 0.9.
            self.max_p *= 0.9;
            true
        } else {
            false
        }
    }
}

impl Discipline for Red {
    #[inline]
    fn push_out(&mut self) -> Option<Packet> {
        self.fifo.pop_back()
    }
    fn enqueue(&mut self, pkt: Packet, occ: Occupancy, now: SimTime, drops: &mut Drops) {
        self.admit(pkt, occ, now, drops);
        if self.fifo.is_empty() && self.cfg.variant == RedVariant::Floyd {
            // The arrival was dropped and the queue is still idle: the idle
            // period restarts now (ns-2 resets its idle timer on any arrival;
            // ns-3's variant ends it, admit_ns3).
            self.q_time = Some(now);
        }
    }

    #[inline]
    fn dequeue(&mut self, _occ: Occupancy, now: SimTime, _drops: &mut Drops) -> Option<Queued> {
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
        if self.cfg.variant == RedVariant::Ns3 {
            self.admit_ns3(pkt, occ, now, drops);
            return;
        }
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
        if !self.limit.fits(occ, pkt.size()) {
            drops.push((pkt, DropReason::OVERFLOW));
            self.count = 0;
            return;
        }
        let pb = profile(&self.cfg, self.max_p, self.avg);
        if pb <= 0.0 {
            //= section 4 (Fig. 2): avg < min_th: "count <- -1".
            self.count = -1;
            self.fifo.push(pkt, now);
            return;
        }
        if pb >= 1.0 {
            //= section 4: avg >= max_th: "mark the arriving packet, count <- 0".
            self.count = 0;
            match self.forced_mark(pkt) {
                Ok(pkt) => self.fifo.push(pkt, now),
                Err(pkt) => drops.push((pkt, FORCED)),
            }
            return;
        }
        self.count += 1;
        let mut pb = pb;
        if self.cfg.mode == RedMode::Bytes {
            //= section 4: "pb <- pb PacketSize/MaximumPacketSize" (byte mode).
            pb = (pb * pkt.size() as f64 / self.packet_size).min(1.0);
        }
        let pa = spaced(pb, self.count, self.cfg.wait);
        if self.rng.random::<f64>() < pa {
            self.count = 0;
            if self.cfg.ecn && pkt.ecn() & ECT != 0 {
                //= RFC 3168 section 5: "the router MAY ... set the CE codepoint
                //= in the IP header instead of dropping the packet" when the
                //= packet is ECN-capable and the queue is not full.
                let mut pkt = pkt;
                pkt.mark_ce();
                self.fifo.push(pkt, now);
            } else {
                drops.push((pkt, EARLY));
            }
        } else {
            self.fifo.push(pkt, now);
        }
    }

    /// ns-3.37's `RedQueueDisc::DoEnqueue` (packet mode, not adaptive;
    /// [`RedVariant::Ns3`]).
    fn admit_ns3(&mut self, pkt: Packet, occ: Occupancy, now: SimTime, drops: &mut Drops) {
        let w = self.cfg.w_q;
        //= ns-3's disc holds the packets waiting but the one in the device
        //= queue (of one packet, the ns3 engine's bottleneck): "nQueued =
        //= GetInternalQueue(0)->GetCurrentSize()".
        let n_queued = occ.pkts.saturating_sub(1);
        //= "if (m_idle == 1) { m = uint32_t(m_ptc * (now -
        //= m_idleTime).GetSeconds()); m_idle = 0; } m_qAvg =
        //= Estimator(nQueued, m + 1, m_qAvg, m_qW)": qAvg (1 - qW)^(m+1) +
        //= qW nQueued. The idle period (from the dequeue that found the disc
        //= empty, RedQueueDisc::DoDequeue) ends at any arrival.
        let m = match self.q_time.take() {
            Some(t) => ((now - t).0 as f64 / self.s_ps).floor(),
            None => 0.0,
        };
        self.avg = self.avg * (1.0 - w).powf(m + 1.0) + w * n_queued as f64;
        //= Adaptive RED as ns-2 runs it (red.cc REDQueue::estimator, ns-3's
        //= RedQueueDisc::Estimator): "if (now > edv_.lastset +
        //= edp_.interval) updateMaxP(new_ave, now)", lastset moved only when
        //= max_p changes.
        if self.cfg.adaptive && now > self.last_set + self.cfg.interval && self.adapt_step() {
            self.last_set = now;
        }
        //= "m_count++" at every arrival; reset by an early drop only.
        self.count += 1;
        let pb = profile(&self.cfg, self.max_p, self.avg);
        if self.avg >= self.cfg.min_th && n_queued > 1 {
            if pb >= 1.0 {
                //= "(m_isGentle && m_qAvg >= 2 * m_maxTh)" (or >= maxTh
                //= without gentle): DTYPE_FORCED; "if (m_useHardDrop ||
                //= !m_useEcn || !Mark(item, FORCED_MARK))" drop, else the
                //= marked packet goes on to the internal queue.
                match self.forced_mark(pkt) {
                    Ok(pkt) => self.push_ns3(pkt, occ, now, drops),
                    Err(pkt) => drops.push((pkt, FORCED)),
                }
                return;
            }
            if !self.ns3_old {
                //= "else if (m_old == 0) { m_count = 1; ...; m_old = 1; }":
                //= the arrival that enters the drop region is kept.
                self.count = 1;
                self.ns3_old = true;
            } else {
                //= DropEarly: "m_vProb = ModifyP(m_vProb1, ...)"; "if (u <=
                //= m_vProb) { m_count = 0; ... return 1; }".
                let pa = spaced(pb, self.count, self.cfg.wait);
                if self.rng.random::<f64>() <= pa {
                    self.count = 0;
                    if self.cfg.ecn && pkt.ecn() & ECT != 0 {
                        //= "if (!m_useEcn || !Mark(item, UNFORCED_MARK))" drop.
                        let mut pkt = pkt;
                        pkt.mark_ce();
                        self.push_ns3(pkt, occ, now, drops);
                    } else {
                        drops.push((pkt, EARLY));
                    }
                    return;
                }
            }
        } else {
            //= "m_vProb = 0.0; m_old = 0".
            self.ns3_old = false;
        }
        self.push_ns3(pkt, occ, now, drops);
    }

    /// A forced mark: the packet marked CE when ECN is on, `hard_drop` off
    /// and the packet ECN-capable (`Ok`), else handed back to be dropped.
    //= Linux net/sched/sch_red.c red_enqueue, RED_HARD_MARK: "if
    //= (red_use_harddrop(q) || !red_use_ecn(q)) goto congestion_drop; if
    //= (INET_ECN_set_ce(skb)) forced_mark++; else ... congestion_drop".
    fn forced_mark(&self, pkt: Packet) -> Result<Packet, Packet> {
        if self.cfg.ecn && !self.cfg.hard_drop && pkt.ecn() & ECT != 0 {
            let mut pkt = pkt;
            pkt.mark_ce();
            Ok(pkt)
        } else {
            Err(pkt)
        }
    }

    /// ns-3's "GetInternalQueue(0)->Enqueue(item)": the limit after RED's
    /// decision, its drop leaving the count as it is.
    fn push_ns3(&mut self, pkt: Packet, occ: Occupancy, now: SimTime, drops: &mut Drops) {
        if self.limit.fits(occ, pkt.size()) {
            self.fifo.push(pkt, now);
        } else {
            drops.push((pkt, DropReason::OVERFLOW));
        }
    }
}
