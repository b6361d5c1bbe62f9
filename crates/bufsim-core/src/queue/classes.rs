//! Several queues on one port (`link.queues`): one per traffic class, each
//! with its own discipline and buffer, and a scheduler that picks which
//! queue the link serves next (`link.scheduler`).
//!
//! * `strict`: strict priority, the lowest class number first (as Linux's
//!   `prio` qdisc and ns-3's `PrioQueueDisc` serve band 0 first); a lower
//!   class is served only when every higher one is empty, so a class
//!   arriving at line rate starves those below it.
//! * `dwrr`: deficit round robin (Shreedhar & Varghese, "Efficient fair
//!   queuing using deficit round robin", SIGCOMM 1995, figure 3). The
//!   non-empty queues take turns; a queue's turn adds its quantum (its
//!   `weight` times the link's packet size) to its deficit and it sends
//!   while the deficit is positive. Unlike the paper, which peeks at the
//!   head's size and stops before a packet larger than the deficit, a
//!   queue here may overdraw by less than one packet and pays it back in
//!   its next turn (the discipline behind it may drop at the head, so the
//!   head is known only once dequeued); each backlogged queue still gets
//!   `weight / sum of weights` of the link over many rounds. A queue that
//!   empties leaves the round and keeps no credit (the paper's `DC = 0`),
//!   only a debt.
//!
//! The port's [`super::Queue`] holds a [`Classes`] as its discipline: its
//! own accounting is the port's (every class together), and each class's
//! queue keeps its own ([`Classes::queue`]) beside per-class statistics
//! ([`ClassStats`]).

use std::collections::VecDeque;

use serde::Serialize;

use super::{DropReason, Drops, Limit, Occupancy, QdiscConfig, Queue, Queued, Setup, ser_qdisc};
use crate::net::{CE, Packet};
use crate::stats::histogram::DelayHistogram;
use crate::units::SimTime;

/// Most queues (traffic classes) one port holds, and the classes' range
/// (0 to `MAX_CLASSES - 1`): IEEE 802.1Q's eight priorities.
pub const MAX_CLASSES: usize = 8;

/// Largest DWRR weight.
pub const MAX_WEIGHT: u32 = 1000;

/// How the link picks the next queue to serve (`link.scheduler`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scheduler {
    /// Strict priority: the lowest class number first.
    #[default]
    Strict,
    /// Deficit weighted round robin (Shreedhar & Varghese 1995).
    Dwrr,
}

impl Scheduler {
    /// The names `link.scheduler` may give.
    pub const NAMES: &[(&str, Scheduler)] =
        &[("strict", Scheduler::Strict), ("dwrr", Scheduler::Dwrr)];
}

/// One queue of a port (`[[link.queues]]`), normalized.
#[derive(Clone, Debug, Serialize)]
pub struct ClassQueue {
    /// Its traffic class, 0-7 (the flow groups' and background's `class`).
    pub class: u8,
    /// Its discipline and parameters (normalized as `qdisc` and
    /// `qdisc_params`, as the link's).
    #[serde(flatten, serialize_with = "ser_qdisc")]
    pub queue: QdiscConfig,
    /// Its DWRR weight (1 under strict priority).
    pub weight: u32,
    /// Its buffer, packets (in byte mode: bytes / the link's packet size).
    pub buffer_pkts: u64,
    /// Its buffer, bytes.
    pub buffer_bytes: u64,
    /// Whether its buffer counts bytes (else packets).
    #[serde(skip)]
    pub bytes_mode: bool,
    /// With a pool: its class's threshold factor (the pool's `alpha` when
    /// not given).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alpha: Option<f64>,
}

impl ClassQueue {
    /// Its buffer limit.
    pub fn limit(&self) -> Limit {
        if self.bytes_mode {
            Limit::Bytes(self.buffer_bytes)
        } else {
            Limit::Packets(self.buffer_pkts)
        }
    }
}

/// A port's queues and their scheduler (`link.scheduler`, `link.queues`),
/// normalized: the queues in the order written.
#[derive(Clone, Debug, Serialize)]
pub struct ClassSet {
    /// The scheduler.
    pub scheduler: Scheduler,
    /// The queues, one per class.
    pub queues: Vec<ClassQueue>,
}

/// What one class's queue measured besides its [`super::QueueCounters`]
/// (since the warm-up's end).
#[derive(Clone, Default)]
pub struct ClassStats {
    /// Bytes that left for the link.
    pub bytes_out: u64,
    /// Packets that left carrying Congestion Experienced (marked by this
    /// queue's discipline: classes live on one link, so no packet reaches
    /// it marked).
    pub marks: u64,
    /// The waits of the packets that left.
    pub delays: DelayHistogram,
    /// The queue's time integral at the warm-up's end.
    pub area_at_warmup: f64,
}

/// A port's queues and scheduler, the discipline of the port's queue.
pub struct Classes {
    queues: Vec<Queue>,
    /// The queue of each class (0-7); classes without one map to queue 0
    /// (the scenario refuses packets of such classes).
    slot: [u8; MAX_CLASSES],
    /// Each queue's class.
    class: Vec<u8>,
    /// Strict priority: the queues by class, lowest first.
    order: Vec<u8>,
    scheduler: Scheduler,
    /// DWRR: each queue's quantum and deficit, bytes.
    quantum: Vec<i64>,
    deficit: Vec<i64>,
    /// DWRR: the non-empty queues in round order (the head's turn is on
    /// when `granted`), and which are listed.
    active: VecDeque<u8>,
    listed: Vec<bool>,
    granted: bool,
    /// Each queue's statistics.
    pub stats: Vec<ClassStats>,
}

impl Classes {
    /// The queues of `set`, empty, on the link `q` describes (each queue
    /// its own limit; `q.limit` is not used).
    pub fn new(set: &ClassSet, q: &Setup) -> Classes {
        let n = set.queues.len();
        let mut slot = [0u8; MAX_CLASSES];
        for (i, c) in set.queues.iter().enumerate() {
            slot[c.class as usize] = i as u8;
        }
        let mut order: Vec<u8> = (0..n as u8).collect();
        order.sort_by_key(|&i| set.queues[i as usize].class);
        let queues = set
            .queues
            .iter()
            .map(|c| {
                Queue::new(c.queue.discipline(&Setup {
                    limit: c.limit(),
                    link: super::LinkInfo {
                        bytes_mode: c.bytes_mode,
                        ..q.link
                    },
                    seed: q.seed,
                    // A random stream of its own per class (ports below 2^24).
                    port: q.port | u32::from(c.class) << 24,
                    tcp_flows: q.tcp_flows,
                }))
            })
            .collect();
        Classes {
            queues,
            slot,
            class: set.queues.iter().map(|c| c.class).collect(),
            order,
            scheduler: set.scheduler,
            quantum: set
                .queues
                .iter()
                .map(|c| i64::from(c.weight) * i64::from(q.link.packet_size))
                .collect(),
            deficit: vec![0; n],
            active: VecDeque::with_capacity(n),
            listed: vec![false; n],
            granted: false,
            stats: vec![ClassStats::default(); n],
        }
    }

    /// The number of queues.
    pub fn len(&self) -> usize {
        self.queues.len()
    }

    /// Always false: a port holds at least one queue.
    pub fn is_empty(&self) -> bool {
        self.queues.is_empty()
    }

    /// The index of the queue packets of class `class` join.
    #[inline]
    pub fn index(&self, class: u8) -> usize {
        self.slot[(class & 7) as usize] as usize
    }

    /// Queue `i`'s class.
    pub fn class_of(&self, i: usize) -> u8 {
        self.class[i]
    }

    /// Queue `i`.
    pub fn queue(&mut self, i: usize) -> &mut Queue {
        &mut self.queues[i]
    }

    /// Queue `i`'s occupancy.
    #[inline]
    pub fn occupancy(&self, i: usize) -> Occupancy {
        self.queues[i].occupancy()
    }

    /// Count `pkt` as refused by a shared pool at queue `i` (the port's
    /// queue reports the drop).
    pub fn refuse(&mut self, i: usize, pkt: Packet, now: SimTime, reason: DropReason) {
        let q = &mut self.queues[i];
        q.refuse(pkt, now, reason);
        q.drops.pop();
    }

    /// Push queue `i`'s tail out for a pool's push-out (counted as its drop).
    pub fn push_out_of(&mut self, i: usize, now: SimTime, reason: DropReason) -> Option<Packet> {
        self.queues[i].push_out(now, reason)
    }

    /// Statistics start at `t`: each queue's integral is noted, its
    /// counters and statistics reset.
    pub fn warmup_end(&mut self, t: SimTime) {
        for (q, s) in self.queues.iter_mut().zip(&mut self.stats) {
            *s = ClassStats {
                area_at_warmup: q.area(t),
                ..ClassStats::default()
            };
            q.reset_counters();
        }
    }

    /// Take a packet from queue `i` (its head drops onto `drops`), noting
    /// what left.
    #[inline]
    fn take(&mut self, i: usize, now: SimTime, drops: &mut Drops) -> Option<Queued> {
        let q = &mut self.queues[i];
        let out = q.dequeue(now);
        drops.append(&mut q.drops);
        if let Some(d) = &out {
            let s = &mut self.stats[i];
            s.bytes_out += u64::from(d.pkt.size());
            s.marks += u64::from(d.pkt.ecn() & CE != 0);
            s.delays.record(now - d.since);
        }
        out
    }

    /// DWRR: drop queue `i` (the head of the round, now empty) from it;
    /// it keeps a debt, not a credit.
    fn leave(&mut self, i: usize) {
        self.active.pop_front();
        self.listed[i] = false;
        self.granted = false;
        self.deficit[i] = self.deficit[i].min(0);
    }
}

// Out of line: each queue of a class is a [`Queue`] whose discipline
// dispatch has this type's arm, so inlining these into that dispatch would
// recurse; kept out, the one-queue path (every other arm) compiles as it
// did without classes.
impl super::Discipline for Classes {
    #[inline(never)]
    fn enqueue(&mut self, pkt: Packet, _occ: Occupancy, now: SimTime, drops: &mut Drops) {
        let i = self.index(pkt.class());
        let q = &mut self.queues[i];
        q.enqueue(pkt, now);
        drops.append(&mut q.drops);
        if self.scheduler == Scheduler::Dwrr && !self.listed[i] && q.occupancy().pkts > 0 {
            self.listed[i] = true;
            self.active.push_back(i as u8);
        }
    }

    #[inline(never)]
    fn dequeue(&mut self, _occ: Occupancy, now: SimTime, drops: &mut Drops) -> Option<Queued> {
        match self.scheduler {
            Scheduler::Strict => {
                for k in 0..self.order.len() {
                    let i = self.order[k] as usize;
                    if self.queues[i].occupancy().pkts > 0
                        && let Some(d) = self.take(i, now, drops)
                    {
                        return Some(d);
                    }
                }
                None
            }
            Scheduler::Dwrr => loop {
                let i = *self.active.front()? as usize;
                if self.queues[i].occupancy().pkts == 0 {
                    self.leave(i);
                    continue;
                }
                if !self.granted {
                    self.deficit[i] += self.quantum[i];
                    self.granted = true;
                }
                if self.deficit[i] <= 0 {
                    // Its turn is over: to the round's end.
                    self.active.rotate_left(1);
                    self.granted = false;
                    continue;
                }
                match self.take(i, now, drops) {
                    Some(d) => {
                        self.deficit[i] -= i64::from(d.pkt.size());
                        if self.queues[i].occupancy().pkts == 0 {
                            self.leave(i);
                        }
                        return Some(d);
                    }
                    None => self.leave(i),
                }
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::{AnyDiscipline, LinkInfo};

    fn set(scheduler: Scheduler, weights: &[(u8, u32)]) -> ClassSet {
        let cfg = QdiscConfig::from_params(
            "droptail",
            &serde_json::Map::new(),
            crate::queue::REFERENCE_LINK,
        )
        .unwrap();
        ClassSet {
            scheduler,
            queues: weights
                .iter()
                .map(|&(class, weight)| ClassQueue {
                    class,
                    queue: cfg,
                    weight,
                    buffer_pkts: 1000,
                    buffer_bytes: 1_500_000,
                    bytes_mode: false,
                    alpha: None,
                })
                .collect(),
        }
    }

    fn port(s: &ClassSet) -> Queue {
        let setup = Setup {
            limit: Limit::Packets(1),
            link: LinkInfo {
                packet_size: 1000,
                bytes_mode: false,
                capacity_bps: 1e9,
            },
            seed: 1,
            port: 0,
            tcp_flows: 0,
        };
        Queue::new(AnyDiscipline::Classes(Box::new(Classes::new(s, &setup))))
    }

    /// Keep every class of `classes` backlogged with `size`-byte packets
    /// and serve `n` packets: the bytes each class sent.
    fn serve(q: &mut Queue, classes: &[(u8, u32)], n: usize) -> Vec<u64> {
        let mut sent = vec![0u64; 8];
        let mut seq = 0;
        for t in 0..n as u64 {
            for &(c, size) in classes {
                while q
                    .classes()
                    .unwrap()
                    .occupancy(q.classes().unwrap().index(c))
                    .pkts
                    < 5
                {
                    q.enqueue(Packet::new(0, size, seq, 0).with_class(c), SimTime(t));
                    seq += 1;
                }
            }
            let d = q.dequeue(SimTime(t)).unwrap();
            sent[d.pkt.class() as usize] += u64::from(d.pkt.size());
        }
        sent
    }

    #[test]
    fn strict_priority_serves_the_lowest_class_first() {
        let s = set(Scheduler::Strict, &[(3, 1), (0, 1)]);
        let mut q = port(&s);
        let sent = serve(&mut q, &[(0, 1000), (3, 1000)], 1000);
        assert_eq!(sent[0], 1_000_000);
        assert_eq!(sent[3], 0, "class 3 starves while class 0 is backlogged");
        // Class 0 empty: class 3 is served.
        while q.classes().unwrap().occupancy(1).pkts > 0 {
            assert_eq!(q.dequeue(SimTime(2000)).unwrap().pkt.class(), 0);
        }
        assert_eq!(q.dequeue(SimTime(2000)).unwrap().pkt.class(), 3);
        // The port's accounting is every class's together.
        let c = q.classes().unwrap();
        assert_eq!(
            q.occupancy().pkts,
            c.occupancy(0).pkts + c.occupancy(1).pkts
        );
    }

    #[test]
    fn dwrr_shares_the_link_by_weight_whatever_the_sizes() {
        for (weights, sizes, want) in [
            ([1, 3], [1000, 1000], 0.25),
            ([1, 1], [1500, 64], 0.5),
            ([2, 1], [300, 1500], 2.0 / 3.0),
        ] {
            let s = set(Scheduler::Dwrr, &[(0, weights[0]), (1, weights[1])]);
            let mut q = port(&s);
            let sent = serve(&mut q, &[(0, sizes[0]), (1, sizes[1])], 40_000);
            let share = sent[0] as f64 / (sent[0] + sent[1]) as f64;
            assert!(
                (share - want).abs() < 0.005,
                "weights {weights:?} sizes {sizes:?}: class 0 sent {share}, want {want}"
            );
        }
    }

    #[test]
    fn dwrr_serves_a_lone_queue_and_forgets_credit() {
        let s = set(Scheduler::Dwrr, &[(0, 1), (1, 5)]);
        let mut q = port(&s);
        for seq in 0..3 {
            q.enqueue(Packet::new(0, 1000, seq, 0).with_class(1), SimTime(0));
        }
        for _ in 0..3 {
            assert_eq!(q.dequeue(SimTime(1)).unwrap().pkt.class(), 1);
        }
        assert!(q.dequeue(SimTime(1)).is_none());
        // Emptied with credit left (5000 - 3000): it starts the next
        // backlog from nothing.
        assert_eq!(q.classes().unwrap().deficit[1], 0);
    }
}
