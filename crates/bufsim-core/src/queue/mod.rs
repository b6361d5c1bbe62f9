//! Queue disciplines: one file per discipline behind [`Discipline`], with the
//! shared accounting (occupancy, arrivals, departures, drops by reason, the
//! time integral of the queue) in [`Queue`], as ns-3's `QueueDisc::Enqueue`
//! around `DoEnqueue`.
//!
//! Each discipline is self-contained in its file: the policy
//! ([`Discipline`]), its parameters with their cited defaults, the reader of
//! its `qdisc_params` and its constructor, tied together by [`QueueDisc`].
//! The `disciplines!` list below is the one registry: it generates
//! [`QdiscConfig`], [`AnyDiscipline`] and the name lookup, so adding a
//! discipline is one file and one line there.
//!
//! A discipline sees packets, never TCP state. It stores the packets it
//! accepts, and reports every packet it drops, at arrival or at departure
//! (CoDel drops at the head), with a [`DropReason`] into a list the
//! simulator drains: overflow, or one of the reasons the discipline
//! declares ([`QueueDisc::DROP_REASONS`]). Disciplines schedule no events: periodic work (PIE's
//! probability update, Adaptive RED's max_p) is done lazily when a packet
//! arrives or leaves. The buffer limit counts the packets waiting, not the
//! one being serialized (ns-2's convention).

pub mod classes;
pub mod codel;
pub mod droptail;
pub mod fq;
pub mod fq_codel;
pub mod pie;
pub mod red;
pub mod shared;
pub mod threshold;

use std::collections::VecDeque;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::net::Packet;
use crate::params::{PErr, Params};
use crate::units::SimTime;

/// Why a packet was dropped: [`DropReason::OVERFLOW`], the hard buffer
/// limit every discipline has, or one of the discipline's own reasons
/// ([`QueueDisc::DROP_REASONS`], by position). Each discipline declares its
/// own, so one discipline's reasons name no counter or trace event of
/// another's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DropReason(u8);

impl DropReason {
    /// The buffer was full (drop-tail, or any discipline's hard limit).
    pub const OVERFLOW: DropReason = DropReason(0);

    /// The discipline's own reason `DROP_REASONS[i]`.
    pub const fn own(i: u8) -> DropReason {
        DropReason(i + 1)
    }

    /// Its position in [`QdiscConfig::drop_reasons`] (0: overflow).
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// The most reasons one discipline may have, overflow included (the size of
/// [`QueueCounters::by_reason`]; the registry checks it at compile time).
pub const MAX_DROP_REASONS: usize = 4;

/// Packets a discipline dropped during one call.
pub type Drops = Vec<(Packet, DropReason)>;

/// A packet waiting in a queue, with the time it joined.
#[derive(Clone, Copy, Debug)]
pub struct Queued {
    /// The packet.
    pub pkt: Packet,
    /// When it joined the bottleneck queue (for its queueing delay).
    pub since: SimTime,
}

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
    /// Offer `pkt`, arriving at `now`, to a discipline holding `occ`
    /// (before the arrival). Store it (with `now`, the time it joined), or
    /// push it onto `drops`; may also push stored packets it evicts.
    fn enqueue(&mut self, pkt: Packet, occ: Occupancy, now: SimTime, drops: &mut Drops);
    /// The next packet for the link with the time it joined, if any;
    /// packets dropped on the way (head drops) go onto `drops`. `occ` is the
    /// occupancy before the call.
    fn dequeue(&mut self, occ: Occupancy, now: SimTime, drops: &mut Drops) -> Option<Queued>;
    /// Remove the packet that joined last (the tail), for a shared pool's
    /// push-out ([`shared::lqd`]); `None` when empty or when the discipline
    /// serves several queues (it then has no one tail: only the
    /// disciplines with [`QueueDisc::FIFO`] give one up).
    fn push_out(&mut self) -> Option<Packet> {
        None
    }
}

/// What a discipline knows of its link: what its defaults and its
/// timing depend on, never the scenario itself (the scenario builds it
/// for the parameter readers, the packet engine for the discipline).
#[derive(Clone, Copy, Debug)]
pub struct LinkInfo {
    /// Reference (maximum) packet size, bytes.
    pub packet_size: u32,
    /// Whether the buffer is counted in bytes.
    pub bytes_mode: bool,
    /// Capacity, bits/s.
    pub capacity_bps: f64,
}

/// What a discipline is built with besides its parameters (the packet
/// engine fills it in from the scenario).
pub struct Setup {
    /// The buffer limit.
    pub limit: Limit,
    /// The link the queue feeds.
    pub link: LinkInfo,
    /// The scenario's seed (disciplines with random drops derive a stream).
    pub seed: u64,
    /// The port the queue feeds (0: the dumbbell's bottleneck; a pool's
    /// port number), which names its random stream.
    pub port: u32,
    /// Number of TCP flows created at the start.
    pub tcp_flows: u32,
}

/// One queue discipline, self-contained in its file.
pub trait QueueDisc: Discipline + Sized {
    /// The name a scenario's `link.qdisc` gives.
    const NAME: &'static str;
    /// Whether the fluid engine models it (`fluid::check` refuses the others).
    const FLUID: bool = false;
    /// Whether it serves one queue in arrival order (dropping or marking
    /// as it likes): then a packet waits behind at most the `buffer`
    /// packets held, at most `buffer` times the largest packet's
    /// serialization. Fair queueing serves later arrivals of other flows
    /// first.
    const FIFO: bool = false;
    /// The names of its own drop reasons, beside overflow (the summary's
    /// `drops_<name>` counters and the trace's `drop_<name>` events); its
    /// reason `DROP_REASONS[i]` is `DropReason::own(i)`.
    const DROP_REASONS: &'static [&'static str] = &[];
    /// Parameters (durations serialize as seconds under `_s` keys).
    type Config: Copy + std::fmt::Debug + PartialEq + Serialize;
    /// Read `qdisc_params` through `p` (which names a bad key and refuses
    /// unknown ones); defaults may depend on the link.
    fn read(p: &mut Params, link: LinkInfo) -> Result<Self::Config, PErr>;
    /// The discipline, empty.
    fn new(cfg: Self::Config, q: &Setup) -> Self;
}

/// What the registry says of one discipline ([`describe_disciplines`]).
#[derive(Clone, Debug, Serialize)]
pub struct DisciplineInfo {
    /// The name a scenario's `link.qdisc` gives.
    pub name: &'static str,
    /// Whether the fluid engine models it ([`QueueDisc::FLUID`]).
    pub fluid: bool,
    /// Whether it serves one queue in arrival order ([`QueueDisc::FIFO`]).
    pub fifo: bool,
    /// Its drop reasons: `overflow`, then [`QueueDisc::DROP_REASONS`] (the
    /// summary's `drops_<reason>` counters).
    pub drop_reasons: Vec<&'static str>,
    /// Its `qdisc_params` with their defaults on [`REFERENCE_LINK`], as the
    /// normalized scenario writes them (durations in seconds under `_s`
    /// keys); `None` when a parameter has no default.
    pub defaults: Option<Map<String, Value>>,
    /// The parameter that has no default, if any.
    pub required: Option<String>,
}

/// The link [`describe_disciplines`] states defaults for (some depend on
/// the link): 1 Gbps, 1500-byte packets, a buffer counted in packets.
pub const REFERENCE_LINK: LinkInfo = LinkInfo {
    packet_size: 1500,
    bytes_mode: false,
    capacity_bps: 1e9,
};

/// The registry: one line per discipline, `Arm(file::Type)`.
macro_rules! disciplines {
    ($($arm:ident($ty:ty)),* $(,)?) => {
        /// A queue discipline with its parameters, defaults filled in.
        #[derive(Clone, Copy, Debug, PartialEq, Serialize)]
        #[serde(untagged)]
        pub enum QdiscConfig {
            $(
                #[doc = concat!("`", stringify!($ty), "`'s parameters.")]
                $arm(<$ty as QueueDisc>::Config),
            )*
        }

        /// Every discipline, for enum dispatch, and a port's several
        /// queues ([`classes::Classes`]), which the registry does not list.
        pub enum AnyDiscipline {
            $(
                #[doc = concat!("`", stringify!($ty), "`.")]
                $arm($ty),
            )*
            /// Several queues, one per traffic class, and their scheduler.
            Classes(Box<classes::Classes>),
        }

        impl AnyDiscipline {
            #[inline]
            fn enqueue(&mut self, pkt: Packet, occ: Occupancy, now: SimTime, drops: &mut Drops) {
                match self {
                    $(AnyDiscipline::$arm(d) => d.enqueue(pkt, occ, now, drops),)*
                    AnyDiscipline::Classes(d) => d.enqueue(pkt, occ, now, drops),
                }
            }
            #[inline]
            fn dequeue(&mut self, occ: Occupancy, now: SimTime, drops: &mut Drops) -> Option<Queued> {
                match self {
                    $(AnyDiscipline::$arm(d) => d.dequeue(occ, now, drops),)*
                    AnyDiscipline::Classes(d) => d.dequeue(occ, now, drops),
                }
            }
            fn push_out(&mut self) -> Option<Packet> {
                match self {
                    $(AnyDiscipline::$arm(d) => d.push_out(),)*
                    AnyDiscipline::Classes(d) => d.push_out(),
                }
            }
        }

        /// The names a scenario's `link.qdisc` may give, in registry order.
        pub const QDISCS: &[&str] = &[$(<$ty as QueueDisc>::NAME),*];

        $(const _: () = assert!(
            <$ty as QueueDisc>::DROP_REASONS.len() < MAX_DROP_REASONS,
            "a discipline declares more drop reasons than QueueCounters holds"
        );)*

        impl QdiscConfig {
            /// Build the config of discipline `name` from its `qdisc_params`;
            /// on error returns `(key, message)` (the key is empty when the
            /// name is unknown).
            pub fn from_params(
                name: &str,
                params: &Map<String, Value>,
                link: LinkInfo,
            ) -> Result<QdiscConfig, PErr> {
                let mut p = Params::new(params);
                let cfg = $(
                    if name == <$ty as QueueDisc>::NAME {
                        QdiscConfig::$arm(<$ty as QueueDisc>::read(&mut p, link)?)
                    } else
                )* {
                    return Err((
                        String::new(),
                        format!(
                            "unknown queue discipline {name:?}: allowed are {}",
                            QDISCS.join(", ")
                        ),
                    ));
                };
                p.finish(name)?;
                Ok(cfg)
            }

            /// The discipline's name (the normalized scenario's `link.qdisc`).
            pub fn name(&self) -> &'static str {
                match self { $(QdiscConfig::$arm(_) => <$ty as QueueDisc>::NAME,)* }
            }

            /// Whether the fluid engine models it ([`QueueDisc::FLUID`]).
            pub fn has_fluid(&self) -> bool {
                match self { $(QdiscConfig::$arm(_) => <$ty as QueueDisc>::FLUID,)* }
            }

            /// Whether it serves one queue in arrival order
            /// ([`QueueDisc::FIFO`]): then it gives up its tail
            /// ([`Discipline::push_out`]).
            pub fn is_fifo(&self) -> bool {
                match self { $(QdiscConfig::$arm(_) => <$ty as QueueDisc>::FIFO,)* }
            }

            /// Its drop reasons' names, indexed by [`DropReason::index`]:
            /// `overflow`, then [`QueueDisc::DROP_REASONS`].
            pub fn drop_reasons(&self) -> Vec<&'static str> {
                let own = match self { $(QdiscConfig::$arm(_) => <$ty as QueueDisc>::DROP_REASONS,)* };
                std::iter::once("overflow").chain(own.iter().copied()).collect()
            }

            /// The discipline, empty.
            pub fn discipline(&self, q: &Setup) -> AnyDiscipline {
                match *self { $(QdiscConfig::$arm(c) => AnyDiscipline::$arm(<$ty as QueueDisc>::new(c, q)),)* }
            }
        }

        /// What the registry says of every discipline, in registry order
        /// (`bufsim._core.disciplines()`).
        pub fn describe_disciplines() -> Vec<DisciplineInfo> {
            let empty = Map::new();
            vec![$({
                let read = <$ty as QueueDisc>::read(&mut Params::new(&empty), REFERENCE_LINK);
                DisciplineInfo {
                    name: <$ty as QueueDisc>::NAME,
                    fluid: <$ty as QueueDisc>::FLUID,
                    fifo: <$ty as QueueDisc>::FIFO,
                    drop_reasons: std::iter::once("overflow")
                        .chain(<$ty as QueueDisc>::DROP_REASONS.iter().copied())
                        .collect(),
                    defaults: read.as_ref().ok().map(|c| QdiscConfig::$arm(*c).to_params()),
                    required: read.err().map(|(key, _)| key),
                }
            }),*]
        }

        /// The disciplines the fluid engine models, in registry order.
        pub fn fluid_qdiscs() -> Vec<&'static str> {
            let mut v = Vec::new();
            $(if <$ty as QueueDisc>::FLUID { v.push(<$ty as QueueDisc>::NAME); })*
            v
        }
    };
}

disciplines! {
    DropTail(droptail::DropTail),
    Red(red::Red),
    Fq(fq::Fq),
    Codel(codel::Codel),
    FqCodel(fq_codel::FqCodel),
    Pie(pie::Pie),
    Threshold(threshold::Threshold),
}

impl QdiscConfig {
    /// The parameters with every default filled in (the normalized scenario's
    /// `link.qdisc_params`; durations in seconds under `_s` keys).
    pub fn to_params(&self) -> Map<String, Value> {
        match serde_json::to_value(self).expect("config serializes") {
            Value::Object(m) => m,
            _ => Map::new(),
        }
    }
}

/// Serialize a link's discipline as the normalized scenario's `qdisc` (its
/// name) and `qdisc_params` (its parameters, defaults filled in).
pub fn ser_qdisc<S: serde::Serializer>(q: &QdiscConfig, s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut m = s.serialize_map(Some(2))?;
    m.serialize_entry("qdisc", q.name())?;
    m.serialize_entry("qdisc_params", &q.to_params())?;
    m.end()
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
    /// Drops by reason, indexed by [`DropReason::index`] (the names are
    /// the discipline's [`QdiscConfig::drop_reasons`]).
    pub by_reason: [u64; MAX_DROP_REASONS],
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
        // Through i64: the same f64 for values below 2^63 (106 days in
        // picoseconds), one instruction each instead of an unsigned
        // conversion's six (x86_64 before AVX-512); twice per packet.
        self.area += self.occ.pkts as i64 as f64 * (now.0 - self.last_change.0) as i64 as f64;
        self.last_change = now;
    }

    #[inline]
    fn account_drops(&mut self, from: usize) {
        for &(p, r) in &self.drops[from..] {
            self.occ.pkts -= 1;
            self.occ.bytes -= p.size() as u64;
            self.counters.drops += 1;
            self.counters.by_reason[r.index()] += 1;
        }
    }

    /// Offer a packet; dropped packets (it, or others evicted) land in `drops`.
    #[inline]
    pub fn enqueue(&mut self, pkt: Packet, now: SimTime) {
        self.counters.arrivals += 1;
        self.integrate(now);
        let before = self.occ;
        self.occ.pkts += 1;
        self.occ.bytes += pkt.size() as u64;
        let from = self.drops.len();
        self.disc.enqueue(pkt, before, now, &mut self.drops);
        self.account_drops(from);
        self.max_pkts = self.max_pkts.max(self.occ.pkts);
    }

    /// Count `pkt`, arriving at `now`, as an arrival dropped for `reason`
    /// before the discipline sees it (a shared pool's threshold); it goes
    /// onto [`Queue::drops`] like the discipline's own.
    pub fn refuse(&mut self, pkt: Packet, now: SimTime, reason: DropReason) {
        self.integrate(now);
        self.counters.arrivals += 1;
        self.counters.drops += 1;
        self.counters.by_reason[reason.index()] += 1;
        if let AnyDiscipline::Classes(c) = &mut self.disc {
            let i = c.index(pkt.class());
            c.refuse(i, pkt, now, reason);
        }
        self.drops.push((pkt, reason));
    }

    /// The port's queues when it holds several (`link.queues`).
    pub fn classes(&self) -> Option<&classes::Classes> {
        match &self.disc {
            AnyDiscipline::Classes(c) => Some(c),
            _ => None,
        }
    }

    /// The port's queues when it holds several, to change.
    pub fn classes_mut(&mut self) -> Option<&mut classes::Classes> {
        match &mut self.disc {
            AnyDiscipline::Classes(c) => Some(c),
            _ => None,
        }
    }

    /// How many queues the port holds: 1, or its classes'.
    #[inline]
    pub fn queue_count(&self) -> usize {
        self.classes().map_or(1, |c| c.len())
    }

    /// The occupancy of its queue `i` ([`Queue::queue_count`]): the whole
    /// queue's with one.
    #[inline]
    pub fn queue_occupancy(&self, i: usize) -> Occupancy {
        match &self.disc {
            AnyDiscipline::Classes(c) => c.occupancy(i),
            _ => self.occ,
        }
    }

    /// The index of the queue a packet of class `class` joins (0 with one).
    #[inline]
    pub fn queue_index(&self, class: u8) -> usize {
        match &self.disc {
            AnyDiscipline::Classes(c) => c.index(class),
            _ => 0,
        }
    }

    /// [`Queue::push_out`] from its queue `i` ([`Queue::queue_count`]).
    pub fn push_out_of(&mut self, i: usize, now: SimTime, reason: DropReason) -> Option<Packet> {
        let AnyDiscipline::Classes(c) = &mut self.disc else {
            return self.push_out(now, reason);
        };
        let pkt = c.push_out_of(i, now, reason)?;
        self.integrate(now);
        self.occ.pkts -= 1;
        self.occ.bytes -= pkt.size() as u64;
        self.counters.drops += 1;
        self.counters.by_reason[reason.index()] += 1;
        Some(pkt)
    }

    /// Push the tail packet out at `now` to make room in a shared pool for
    /// an arrival at another queue ([`shared::lqd`]): it counts as a drop
    /// for `reason` here (not as an arrival) and is returned, for the
    /// caller to report. `None` when the queue holds nothing it can give
    /// up ([`Discipline::push_out`]).
    pub fn push_out(&mut self, now: SimTime, reason: DropReason) -> Option<Packet> {
        let pkt = self.disc.push_out()?;
        self.integrate(now);
        self.occ.pkts -= 1;
        self.occ.bytes -= pkt.size() as u64;
        self.counters.drops += 1;
        self.counters.by_reason[reason.index()] += 1;
        Some(pkt)
    }

    /// Take the next packet for the link, with the time it joined; head
    /// drops land in `drops`. Always inlined into the packet engine's one
    /// caller, which every packet passes.
    #[inline(always)]
    pub fn dequeue(&mut self, now: SimTime) -> Option<Queued> {
        if self.occ.pkts == 0 {
            return None;
        }
        self.integrate(now);
        let from = self.drops.len();
        let pkt = self.disc.dequeue(self.occ, now, &mut self.drops);
        self.account_drops(from);
        if let Some(q) = &pkt {
            self.occ.pkts -= 1;
            self.occ.bytes -= q.pkt.size() as u64;
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
    q: VecDeque<Queued>,
    /// Bytes held.
    pub bytes: u64,
}

impl Fifo {
    /// Append `p`, joining at `now`.
    #[inline]
    pub fn push(&mut self, p: Packet, now: SimTime) {
        self.bytes += p.size() as u64;
        self.q.push_back(Queued { pkt: p, since: now });
    }
    /// Tail drop: append `pkt` (joining at `now`) if it fits within `limit`
    /// on top of `occ`, else drop it ([`DropReason::OVERFLOW`]).
    #[inline]
    pub fn push_or_overflow(
        &mut self,
        pkt: Packet,
        now: SimTime,
        limit: Limit,
        occ: Occupancy,
        drops: &mut Drops,
    ) {
        if limit.fits(occ, pkt.size()) {
            self.push(pkt, now);
        } else {
            drops.push((pkt, DropReason::OVERFLOW));
        }
    }
    /// Remove the head.
    #[inline]
    pub fn pop(&mut self) -> Option<Queued> {
        let q = self.q.pop_front()?;
        self.bytes -= q.pkt.size() as u64;
        Some(q)
    }
    /// Remove the tail.
    #[inline]
    pub fn pop_back(&mut self) -> Option<Packet> {
        let q = self.q.pop_back()?;
        self.bytes -= q.pkt.size() as u64;
        Some(q.pkt)
    }
    /// The head.
    #[inline]
    pub fn front(&self) -> Option<&Queued> {
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
