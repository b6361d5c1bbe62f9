//! Queue disciplines: one file per discipline behind [`Discipline`], with the
//! shared accounting (occupancy, arrivals, departures, drops by reason, the
//! time integral of the queue) in [`Queue`], as ns-3's `QueueDisc::Enqueue`
//! around `DoEnqueue`. Parameters and their defaults live in [`config`].
//!
//! A discipline sees packets, never TCP state. It stores the packets it
//! accepts, and reports every packet it drops, at arrival or at departure
//! (CoDel drops at the head), with a [`DropReason`] into a list the
//! simulator drains. Disciplines schedule no events: periodic work (PIE's
//! probability update, Adaptive RED's max_p) is done lazily when a packet
//! arrives or leaves. The buffer limit counts the packets waiting, not the
//! one being serialized (ns-2's convention).

pub mod codel;
pub mod config;
pub mod droptail;
pub mod fq;
pub mod fq_codel;
pub mod pie;
pub mod red;

use std::collections::VecDeque;

use crate::net::Packet;
use crate::scenario::{BufferMode, Scenario};
use crate::units::SimTime;
use config::QdiscConfig;

/// Why a packet was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropReason {
    /// The buffer was full (drop-tail, or any discipline's hard limit).
    Overflow,
    /// RED's random early drop (average between the thresholds: "unforced").
    Early,
    /// RED's forced drop (average above max_th, or 2 max_th in gentle mode).
    Forced,
    /// Fair queueing pushed the packet out of the longest queue.
    LongestQueue,
    /// CoDel's control law (head drop), also within FQ-CoDel.
    Codel,
    /// PIE's random early drop.
    Pie,
}

impl DropReason {
    /// Every reason, in the order of [`QueueCounters::by_reason`].
    pub const ALL: [DropReason; 6] = [
        DropReason::Overflow,
        DropReason::Early,
        DropReason::Forced,
        DropReason::LongestQueue,
        DropReason::Codel,
        DropReason::Pie,
    ];
    /// A short name (`overflow`, `early`, ...).
    pub fn name(self) -> &'static str {
        match self {
            DropReason::Overflow => "overflow",
            DropReason::Early => "early",
            DropReason::Forced => "forced",
            DropReason::LongestQueue => "longest_queue",
            DropReason::Codel => "codel",
            DropReason::Pie => "pie",
        }
    }
}

/// Packets a discipline dropped during one call.
pub type Drops = Vec<(Packet, DropReason)>;

/// The occupancy a discipline may consult (all its queues together).
#[derive(Clone, Copy, Debug, Default)]
pub struct Occupancy {
    /// Packets waiting.
    pub pkts: u64,
    /// Bytes waiting.
    pub bytes: u64,
}

/// The buffer limit of the link.
#[derive(Clone, Copy, Debug)]
pub enum Limit {
    /// At most this many packets waiting.
    Packets(u64),
    /// At most this many bytes waiting.
    Bytes(u64),
}

impl Limit {
    /// Whether a packet of `size` bytes fits on top of `occ`.
    #[inline]
    pub fn fits(self, occ: Occupancy, size: u32) -> bool {
        match self {
            Limit::Packets(k) => occ.pkts < k,
            Limit::Bytes(b) => occ.bytes + size as u64 <= b,
        }
    }
}

/// The queue holding the most bytes: `first`, unless one of `others` holds
/// strictly more (the earliest such wins ties).
#[inline]
fn fattest(queues: &[Fifo], first: usize, others: impl Iterator<Item = u32>) -> usize {
    others.fold(first, |best, j| {
        if queues[j as usize].bytes > queues[best].bytes {
            j as usize
        } else {
            best
        }
    })
}

/// A queueing policy: it stores packets and decides what leaves and what is
/// dropped.
pub trait Discipline {
    /// Offer `pkt`, arriving at `now` with `pkt.enqueued == now`, to a
    /// discipline holding `occ` (before the arrival). Store it, or push it
    /// onto `drops`; may also push stored packets it evicts.
    fn enqueue(&mut self, pkt: Packet, occ: Occupancy, now: SimTime, drops: &mut Drops);
    /// The next packet for the link, if any; packets dropped on the way
    /// (head drops) go onto `drops`. `occ` is the occupancy before the call.
    fn dequeue(&mut self, occ: Occupancy, now: SimTime, drops: &mut Drops) -> Option<Packet>;
}

/// Every discipline, for enum dispatch.
pub enum AnyDiscipline {
    /// FIFO drop-tail.
    DropTail(droptail::DropTail),
    /// RED / Adaptive RED.
    Red(red::Red),
    /// DRR fair queueing with longest-queue drop.
    Fq(fq::Fq),
    /// CoDel.
    Codel(codel::Codel),
    /// FQ-CoDel.
    FqCodel(fq_codel::FqCodel),
    /// PIE.
    Pie(pie::Pie),
}

macro_rules! dispatch {
    ($self:expr, $d:ident => $call:expr) => {
        match $self {
            AnyDiscipline::DropTail($d) => $call,
            AnyDiscipline::Red($d) => $call,
            AnyDiscipline::Fq($d) => $call,
            AnyDiscipline::Codel($d) => $call,
            AnyDiscipline::FqCodel($d) => $call,
            AnyDiscipline::Pie($d) => $call,
        }
    };
}

impl AnyDiscipline {
    /// The discipline the scenario's link asks for.
    pub fn new(s: &Scenario) -> AnyDiscipline {
        let link = &s.link;
        let limit = match link.buffer_mode {
            BufferMode::Packets => Limit::Packets(link.buffer_pkts),
            BufferMode::Bytes => Limit::Bytes(link.buffer_bytes),
        };
        let tcp_flows = s.total_flows() as u32;
        match link.queue {
            QdiscConfig::DropTail => AnyDiscipline::DropTail(droptail::DropTail::new(limit)),
            QdiscConfig::Red(c) => AnyDiscipline::Red(red::Red::new(c, limit, link, s.seed)),
            QdiscConfig::Fq(c) => AnyDiscipline::Fq(fq::Fq::new(c, limit, tcp_flows)),
            QdiscConfig::Codel(c) => {
                AnyDiscipline::Codel(codel::Codel::new(c, limit, link.packet_size_bytes))
            }
            QdiscConfig::FqCodel(c) => {
                AnyDiscipline::FqCodel(fq_codel::FqCodel::new(c, limit, link.packet_size_bytes))
            }
            QdiscConfig::Pie(c) => {
                AnyDiscipline::Pie(pie::Pie::new(c, limit, link.packet_size_bytes, s.seed))
            }
        }
    }
    #[inline]
    fn enqueue(&mut self, pkt: Packet, occ: Occupancy, now: SimTime, drops: &mut Drops) {
        dispatch!(self, d => d.enqueue(pkt, occ, now, drops))
    }
    #[inline]
    fn dequeue(&mut self, occ: Occupancy, now: SimTime, drops: &mut Drops) -> Option<Packet> {
        dispatch!(self, d => d.dequeue(occ, now, drops))
    }
}

/// Counters kept by every queue, whatever its discipline.
#[derive(Clone, Copy, Debug, Default)]
pub struct QueueCounters {
    /// Packets offered to the queue.
    pub arrivals: u64,
    /// Packets dropped (any reason).
    pub drops: u64,
    /// Packets that left the queue for the link.
    pub departures: u64,
    /// Drops by reason, indexed as [`DropReason::ALL`].
    pub by_reason: [u64; DropReason::ALL.len()],
}

/// A buffer governed by a discipline, with the shared accounting.
pub struct Queue {
    disc: AnyDiscipline,
    occ: Occupancy,
    /// Counters since the last reset.
    pub counters: QueueCounters,
    /// Packets dropped by the last `enqueue`/`dequeue`, with their reasons;
    /// the caller drains it.
    pub drops: Drops,
    area: f64,
    last_change: SimTime,
    max_pkts: u64,
}

impl Queue {
    /// An empty queue governed by `disc`.
    pub fn new(disc: AnyDiscipline) -> Queue {
        Queue {
            disc,
            occ: Occupancy::default(),
            counters: QueueCounters::default(),
            drops: Vec::with_capacity(8),
            area: 0.0,
            last_change: SimTime::ZERO,
            max_pkts: 0,
        }
    }

    #[inline]
    fn integrate(&mut self, now: SimTime) {
        self.area += self.occ.pkts as f64 * (now.0 - self.last_change.0) as f64;
        self.last_change = now;
    }

    #[inline]
    fn account_drops(&mut self, from: usize) {
        for &(p, r) in &self.drops[from..] {
            self.occ.pkts -= 1;
            self.occ.bytes -= p.size as u64;
            self.counters.drops += 1;
            self.counters.by_reason[r as usize] += 1;
        }
    }

    /// Offer a packet; dropped packets (it, or others evicted) land in `drops`.
    #[inline]
    pub fn enqueue(&mut self, mut pkt: Packet, now: SimTime) {
        self.counters.arrivals += 1;
        self.integrate(now);
        pkt.enqueued = now;
        let before = self.occ;
        self.occ.pkts += 1;
        self.occ.bytes += pkt.size as u64;
        let from = self.drops.len();
        self.disc.enqueue(pkt, before, now, &mut self.drops);
        self.account_drops(from);
        self.max_pkts = self.max_pkts.max(self.occ.pkts);
    }

    /// Take the next packet for the link; head drops land in `drops`.
    #[inline]
    pub fn dequeue(&mut self, now: SimTime) -> Option<Packet> {
        if self.occ.pkts == 0 {
            return None;
        }
        self.integrate(now);
        let from = self.drops.len();
        let pkt = self.disc.dequeue(self.occ, now, &mut self.drops);
        self.account_drops(from);
        if let Some(p) = &pkt {
            self.occ.pkts -= 1;
            self.occ.bytes -= p.size as u64;
            self.counters.departures += 1;
        }
        pkt
    }

    /// Current occupancy.
    pub fn occupancy(&self) -> Occupancy {
        self.occ
    }

    /// Largest number of packets ever waiting at once.
    pub fn max_pkts(&self) -> u64 {
        self.max_pkts
    }

    /// Integral of the number of packets waiting over time since the start,
    /// up to `now` (packets x picoseconds); differences give time averages.
    pub fn area(&mut self, now: SimTime) -> f64 {
        self.integrate(now);
        self.area
    }

    /// Restart the counters (end of warm-up).
    pub fn reset_counters(&mut self) {
        self.counters = QueueCounters::default();
    }
}

/// A plain FIFO of packets, the storage of the single-queue disciplines.
#[derive(Default)]
pub struct Fifo {
    q: VecDeque<Packet>,
    /// Bytes held.
    pub bytes: u64,
}

impl Fifo {
    /// Append.
    #[inline]
    pub fn push(&mut self, p: Packet) {
        self.bytes += p.size as u64;
        self.q.push_back(p);
    }
    /// Tail drop: append `pkt` if it fits within `limit` on top of `occ`,
    /// else drop it ([`DropReason::Overflow`]).
    #[inline]
    pub fn push_or_overflow(
        &mut self,
        pkt: Packet,
        limit: Limit,
        occ: Occupancy,
        drops: &mut Drops,
    ) {
        if limit.fits(occ, pkt.size) {
            self.push(pkt);
        } else {
            drops.push((pkt, DropReason::Overflow));
        }
    }
    /// Remove the head.
    #[inline]
    pub fn pop(&mut self) -> Option<Packet> {
        let p = self.q.pop_front()?;
        self.bytes -= p.size as u64;
        Some(p)
    }
    /// Remove the tail.
    #[inline]
    pub fn pop_back(&mut self) -> Option<Packet> {
        let p = self.q.pop_back()?;
        self.bytes -= p.size as u64;
        Some(p)
    }
    /// The head.
    #[inline]
    pub fn front(&self) -> Option<&Packet> {
        self.q.front()
    }
    /// Packets held.
    #[inline]
    pub fn len(&self) -> usize {
        self.q.len()
    }
    /// True when empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }
}
