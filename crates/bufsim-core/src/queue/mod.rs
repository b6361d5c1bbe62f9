//! Queue disciplines: one file per discipline behind [`Discipline`], with the
//! shared accounting (occupancy, arrivals, drops by reason, queueing delay)
//! in [`Queue`] (as ns-3's `QueueDisc::Enqueue` around `DoEnqueue`).
//!
//! A discipline sees packets, never TCP state. The buffer limit counts the
//! packets waiting, not the one being serialized (ns-2's DropTail convention).

pub mod droptail;

use std::collections::VecDeque;

use crate::net::Packet;
use crate::scenario::{BufferMode, Link};
use crate::units::SimTime;

/// Why a packet was dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropReason {
    /// The buffer was full.
    Overflow,
}

/// The occupancy a discipline may consult.
#[derive(Clone, Copy, Debug, Default)]
pub struct Occupancy {
    /// Packets waiting.
    pub pkts: u64,
    /// Bytes waiting.
    pub bytes: u64,
}

/// A queueing policy. `admit` decides on arrival; `pick` chooses what leaves.
pub trait Discipline {
    /// Decide whether `pkt` may join a queue holding `occ`; `Err` drops it.
    fn admit(&mut self, pkt: &Packet, occ: Occupancy, now: SimTime) -> Result<(), DropReason>;
}

/// Every discipline, for enum dispatch.
pub enum AnyDiscipline {
    /// FIFO drop-tail.
    DropTail(droptail::DropTail),
}

impl AnyDiscipline {
    /// The discipline the link asks for.
    pub fn new(link: &Link) -> AnyDiscipline {
        match link.qdisc.as_str() {
            "droptail" => AnyDiscipline::DropTail(droptail::DropTail::new(
                match link.buffer_mode {
                    BufferMode::Packets => droptail::Limit::Packets(link.buffer_pkts),
                    BufferMode::Bytes => droptail::Limit::Bytes(link.buffer_bytes),
                },
            )),
            other => unreachable!("scenario validation refuses qdisc {other:?}"),
        }
    }
    #[inline]
    fn admit(&mut self, pkt: &Packet, occ: Occupancy, now: SimTime) -> Result<(), DropReason> {
        match self {
            AnyDiscipline::DropTail(d) => d.admit(pkt, occ, now),
        }
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
}

/// A FIFO buffer with a discipline deciding admission, and shared accounting.
pub struct Queue {
    disc: AnyDiscipline,
    fifo: VecDeque<Packet>,
    occ: Occupancy,
    /// Counters since the last reset.
    pub counters: QueueCounters,
    area: f64,
    last_change: SimTime,
    max_pkts: u64,
}

impl Queue {
    /// An empty queue governed by `disc`.
    pub fn new(disc: AnyDiscipline) -> Queue {
        Queue {
            disc,
            fifo: VecDeque::with_capacity(1024),
            occ: Occupancy::default(),
            counters: QueueCounters::default(),
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

    /// Offer a packet; on a drop the packet is handed back with the reason.
    #[inline]
    pub fn enqueue(&mut self, mut pkt: Packet, now: SimTime) -> Result<(), (Packet, DropReason)> {
        self.counters.arrivals += 1;
        if let Err(r) = self.disc.admit(&pkt, self.occ, now) {
            self.counters.drops += 1;
            return Err((pkt, r));
        }
        self.integrate(now);
        pkt.enqueued = now;
        self.occ.pkts += 1;
        self.occ.bytes += pkt.size as u64;
        self.max_pkts = self.max_pkts.max(self.occ.pkts);
        self.fifo.push_back(pkt);
        Ok(())
    }

    /// Take the next packet for the link.
    #[inline]
    pub fn dequeue(&mut self, now: SimTime) -> Option<Packet> {
        let pkt = self.fifo.pop_front()?;
        self.integrate(now);
        self.occ.pkts -= 1;
        self.occ.bytes -= pkt.size as u64;
        self.counters.departures += 1;
        Some(pkt)
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
