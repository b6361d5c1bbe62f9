//! The engine's queues, one per [`Topology`] link, each feeding it: the
//! one link's (port 0), a shared-buffer pool's ports (each a copy of the
//! pool's link, admission by [`Pool::admits`]), or a chain's links in
//! order, each with its own queue, discipline, capacity and packet in
//! service; a two-way link's reverse direction is one more port after the
//! forward ones ([`Topology::reverse_port`]). On a chain a packet that goes
//! on to the next link waits out the link's propagation delay in the
//! link's forward line ([`Port::fwd`]).
//!
//! [`Ports`] is what the collector measures: the queues taken together
//! (occupancy, its time integral, counters; with one link, its queue as it
//! is) and their busy time, weighted by capacity. With several it also
//! keeps each one's own statistics over the statistics window
//! ([`Ports::summary`]) and queue over time ([`Ports::timeseries`]), and a
//! pool's largest occupancy.

use crate::net::Packet;
use crate::net::pipe::Pipe;
use crate::queue::classes::Classes;
use crate::queue::shared::{self, Algorithm, abm::Congestion, fab::FlowTable};
use crate::queue::{
    AnyDiscipline, DropReason, MAX_DROP_REASONS, Occupancy, Queue, QueueCounters, Setup,
};
use crate::scenario::fabric::NO_SWITCH;
use crate::scenario::{Link, Pool, Scenario, Topology};
use crate::stats::histogram::DelayHistogram;
use crate::units::{BitsPerSec, SimTime};

/// One queue and the link it feeds.
pub(crate) struct Port {
    /// Its queue and discipline.
    pub queue: Queue,
    /// The link's rate.
    capacity: BitsPerSec,
    /// The last packet size served and its serialization time (see
    /// [`Port::tx_time`]).
    tx_memo: (u32, SimTime),
    /// The link's one-way propagation delay.
    pub delay: SimTime,
    /// On a chain: packets on their way to the next link's queue.
    pub fwd: Pipe<Packet>,
    /// The packet being serialized.
    pub in_service: Option<Packet>,
    /// Time spent serializing, the packet in service excluded.
    pub busy: SimTime,
    /// When the packet in service started serializing.
    pub tx_start: SimTime,
    /// `busy` and the queue's time integral at the warm-up's end.
    busy_at_warmup: SimTime,
    area_at_warmup: f64,
    /// With several queues: the queue's integral at the last time-series
    /// sample, and the mean queue over each sampling interval, packets.
    area_at_sample: f64,
    ts_queue: Vec<f64>,
    /// With several queues: the waits of the packets that left this one in
    /// the statistics window (`None` with one: the collector's are its).
    delays: Option<DelayHistogram>,
    /// Where its discipline's drop reasons sit in [`Ports::reasons`]: its
    /// reason `i` ([`DropReason::index`]) is the run's `reason_at[i]`.
    reason_at: [u8; MAX_DROP_REASONS],
}

impl Port {
    /// Serialization time of a `size`-byte packet on the link: the same
    /// value as `capacity.tx_time(size)`, memoized for the last size
    /// (consecutive packets mostly have the same size; this saves a
    /// division and a `ceil` call per packet).
    #[inline]
    pub fn tx_time(&mut self, size: u32) -> SimTime {
        if self.tx_memo.0 != size {
            self.tx_memo = (size, self.capacity.tx_time(size));
        }
        self.tx_memo.1
    }

    /// Busy time up to `t`, the packet in service included.
    fn busy_until(&self, t: SimTime) -> SimTime {
        match self.in_service {
            Some(_) => self.busy + (t - self.tx_start),
            None => self.busy,
        }
    }
}

/// The ports, and the pool they share if any.
///
/// Port 0 lives inline, the others in `rest`: the dumbbell's one port is
/// then reached without a load through a vector's pointer, on a path every
/// packet takes several times (measured: a vector of all the ports cost the
/// 1 Gbps benchmark 8% of its packets per CPU second). A two-way run's
/// reverse link is the last port ([`Ports::reverse`]): it is served like
/// the others, but what the ports report together (occupancy, busy time,
/// counters, the summary's `_port<k>`/`_link<k>` entries) is the forward
/// ports' alone; it reports its own (`<metric>_reverse`, [`Ports::summary`]).
pub(crate) struct Ports {
    first: Port,
    /// Ports 1 and up, the reverse link last.
    rest: Vec<Port>,
    /// How many of `rest` carry the forward direction.
    forward_rest: usize,
    /// Whether some queue draws on a shared buffer (a pool, a fabric's
    /// switches): one flag for the enqueue path to test.
    shared: bool,
    /// The pool (`[pool]`), for its summary entries.
    pool: Option<Pool>,
    /// The shared buffers: a pool's, over every forward port, or each
    /// switch's of a fabric, over its egress ports.
    buffers: Vec<Buffer>,
    /// Each forward port's buffer, an index of `buffers` ([`NO_SWITCH`]:
    /// its own alone, as a fabric's NICs).
    buffer_of: Vec<u32>,
    /// What the summary and time series call one of several: `port` (a
    /// pool's) or `link` (a chain's); `None` for the one link and a fabric
    /// (whose ports have `names`).
    kind: Option<&'static str>,
    /// A fabric's ports' names (`leaf0.down3`), in order.
    names: Vec<String>,
    /// The name of a port's queue `i` of several (`class<c>`), if any.
    class_names: Vec<String>,
    /// The drop reasons of the forward queues' disciplines, each name
    /// once: overflow, then each queue's own in port order. A chain's links
    /// may run different disciplines, whose reason `i` names different
    /// things ([`Port::reason_at`] maps each onto these).
    reasons: Vec<&'static str>,
}

/// One buffer shared by several ports' queues, and its admission.
struct Buffer {
    /// Its size and algorithm (`ports`: how many ports draw on it).
    pool: Pool,
    /// The ports on it, in order.
    ports: Vec<u32>,
    /// ABM's count of congested queues (`abm` only).
    abm: Option<Congestion>,
    /// FAB's bytes of each flow at each of its ports (`fab` only).
    fab: Option<FlowTable>,
    /// Each queue's factor of the threshold by its index on a port
    /// (`link.queues`' `alpha`, else the pool's), and the queues the static
    /// partition splits the buffer into.
    alphas: Vec<f64>,
    parts: u32,
    /// Its largest occupancy, packets and bytes.
    max_pkts: u64,
    max_bytes: u64,
    /// A fabric switch's name (`leaf0`); `None` for a pool.
    name: Option<String>,
}

impl Buffer {
    fn new(pool: Pool, ports: Vec<u32>, link: &Link, name: Option<String>) -> Buffer {
        let per = link.classes.as_ref().map_or(1, |c| c.queues.len() as u32);
        Buffer {
            abm: (pool.algorithm == Algorithm::Abm).then(|| {
                Congestion::new(
                    pool.interval.unwrap_or(shared::abm::DEFAULT_INTERVAL),
                    pool.sat,
                )
            }),
            fab: pool.fab.map(|f| FlowTable::new(f.window)),
            alphas: match &link.classes {
                Some(set) => set
                    .queues
                    .iter()
                    .map(|q| q.alpha.unwrap_or(pool.alpha))
                    .collect(),
                None => vec![pool.alpha],
            },
            parts: ports.len() as u32 * per,
            pool,
            ports,
            max_pkts: 0,
            max_bytes: 0,
            name,
        }
    }
}

/// Add `link`'s drop reasons to `reasons` (those not there yet) and say
/// where each of them sits there, by its index in the discipline's own list.
fn merge_reasons(reasons: &mut Vec<&'static str>, link: &Link) -> [u8; MAX_DROP_REASONS] {
    let mut at = [0; MAX_DROP_REASONS];
    for (i, name) in link.queue.drop_reasons().into_iter().enumerate() {
        let k = reasons.iter().position(|r| *r == name).unwrap_or_else(|| {
            reasons.push(name);
            reasons.len() - 1
        });
        at[i] = k as u8;
    }
    at
}

impl Ports {
    /// The topology's forward queues ([`Topology::queue_links`]), and a
    /// two-way link's reverse direction after them
    /// ([`Topology::reverse_port`]).
    pub fn new(s: &Scenario) -> Ports {
        let links = s.topology.queue_links();
        let several = links.len() > 1;
        let mut reasons = Vec::new();
        let mut at: Vec<_> = links
            .iter()
            .map(|l| merge_reasons(&mut reasons, l))
            .collect();
        if let Some(r) = s.topology.reverse() {
            // Its drops are counted apart (`drops_reverse`).
            at.push(merge_reasons(&mut Vec::new(), &r.link));
        }
        let port = |k: usize, link: &Link, delays: bool| {
            let capacity = BitsPerSec(link.capacity_bps);
            let setup = Setup {
                limit: link.limit(),
                link: link.info(),
                seed: s.seed,
                port: k as u32,
                tcp_flows: s.total_flows() as u32,
            };
            // Several queues (`link.queues`): the port's queue holds them.
            let disc = match &link.classes {
                Some(set) => AnyDiscipline::Classes(Box::new(Classes::new(set, &setup))),
                None => link.queue.discipline(&setup),
            };
            Port {
                queue: Queue::new(disc),
                capacity,
                tx_memo: (0, capacity.tx_time(0)),
                delay: link.delay,
                fwd: Pipe::default(),
                in_service: None,
                busy: SimTime::ZERO,
                tx_start: SimTime::ZERO,
                busy_at_warmup: SimTime::ZERO,
                area_at_warmup: 0.0,
                area_at_sample: 0.0,
                ts_queue: Vec::new(),
                delays: delays.then(DelayHistogram::default),
                reason_at: at[k],
            }
        };
        let mut rest: Vec<Port> = (1..links.len())
            .map(|k| port(k, links[k], several))
            .collect();
        let forward_rest = rest.len();
        if let Some(r) = s.topology.reverse() {
            rest.push(port(links.len(), &r.link, true));
        }
        let pool = s.topology.pool().copied();
        let n = links.len();
        let (buffers, buffer_of) = match (&pool, s.topology.fabric()) {
            (Some(p), _) => (
                vec![Buffer::new(*p, (0..n as u32).collect(), s.link(), None)],
                vec![0; n],
            ),
            (None, Some(f)) => (
                f.switches
                    .iter()
                    .map(|sw| {
                        Buffer::new(sw.pool, sw.ports.clone(), s.link(), Some(sw.name.clone()))
                    })
                    .collect(),
                f.switch_of.clone(),
            ),
            (None, None) => (Vec::new(), Vec::new()),
        };
        Ports {
            first: port(0, links[0], several),
            rest,
            forward_rest,
            shared: !buffers.is_empty(),
            pool,
            buffers,
            buffer_of,
            kind: match s.topology {
                Topology::Link { .. } | Topology::Fabric { .. } => None,
                Topology::Pool { .. } => Some("port"),
                Topology::Chain { .. } => Some("link"),
            },
            names: s.topology.fabric().map_or(Vec::new(), |f| f.names.clone()),
            reasons,
            class_names: s
                .link()
                .classes
                .iter()
                .flat_map(|c| &c.queues)
                .map(|q| format!("class{}", q.class))
                .collect(),
        }
    }

    /// The drop reasons of the forward queues' disciplines, each once,
    /// overflow first (with one queue, the trace's `drop_<reason>` events:
    /// the trace records one queue).
    pub fn reasons(&self) -> &[&'static str] {
        &self.reasons
    }

    /// The forward queues' drops since the counters' reset by reason, named:
    /// each reason of their disciplines once, overflow first, each summed
    /// over the queues whose discipline has it (the summary's
    /// `drops_<reason>`).
    pub fn drops_by_reason(&self) -> Vec<(&'static str, u64)> {
        let mut out: Vec<_> = self.reasons.iter().map(|r| (*r, 0)).collect();
        for p in self.all() {
            for (n, at) in p.queue.counters.by_reason.iter().zip(p.reason_at) {
                out[at as usize].1 += n;
            }
        }
        out
    }

    /// A packet left port `k`'s queue for its link after `waited` there
    /// (kept with several queues; the window's start clears it).
    #[inline]
    pub fn dequeued(&mut self, k: u32, waited: SimTime) {
        if let Some(h) = &mut self.get(k).delays {
            h.record(waited);
        }
    }

    /// Port `k`.
    #[inline(always)]
    pub fn get(&mut self, k: u32) -> &mut Port {
        match k {
            0 => &mut self.first,
            _ => &mut self.rest[k as usize - 1],
        }
    }

    /// Port `k`, to read.
    #[inline]
    fn port(&self, k: u32) -> &Port {
        match k {
            0 => &self.first,
            _ => &self.rest[k as usize - 1],
        }
    }

    /// Every forward port, in order.
    fn all(&self) -> impl Iterator<Item = &Port> {
        std::iter::once(&self.first).chain(&self.rest[..self.forward_rest])
    }

    /// Every forward port, in order.
    fn all_mut(&mut self) -> impl Iterator<Item = &mut Port> {
        std::iter::once(&mut self.first).chain(&mut self.rest[..self.forward_rest])
    }

    /// Every port, the reverse link's included.
    fn every_mut(&mut self) -> impl Iterator<Item = &mut Port> {
        std::iter::once(&mut self.first).chain(&mut self.rest)
    }

    /// Packets being serialized or on their way between links, and
    /// waiting in every queue (the reverse link's included), in any
    /// direction.
    pub fn in_network(&self) -> u64 {
        std::iter::once(&self.first)
            .chain(&self.rest)
            .map(|p| p.in_service.is_some() as u64 + p.fwd.len() as u64 + p.queue.occupancy().pkts)
            .sum()
    }

    /// Offer `pkt` to port `k`'s queue at `now`. On a shared buffer (a
    /// pool, a fabric switch's), a packet its algorithm refuses is dropped
    /// as an overflow: the queue's share of the buffer is full
    /// ([`Pool::admits`]); with `lqd` a full buffer pushes a packet out of
    /// its longest queue instead ([`Ports::push_out`]).
    #[inline]
    pub fn enqueue(&mut self, k: u32, pkt: Packet, now: SimTime) {
        if !self.shared {
            self.get(k).queue.enqueue(pkt, now);
        } else {
            self.enqueue_shared(k, pkt, now);
        }
    }

    /// The occupancy of buffer `b`'s ports together.
    fn buffer_occupancy(&self, b: usize) -> Occupancy {
        self.buffers[b]
            .ports
            .iter()
            .fold(Occupancy::default(), |a, &k| {
                let o = self.port(k).queue.occupancy();
                Occupancy {
                    pkts: a.pkts + o.pkts,
                    bytes: a.bytes + o.bytes,
                }
            })
    }

    /// [`Ports::enqueue`] on a shared buffer: the algorithm first; a packet
    /// it admits may still be dropped by the port's discipline. Out of
    /// line, so that without one the path is one call of the discipline's
    /// enqueue.
    #[inline(never)]
    fn enqueue_shared(&mut self, k: u32, pkt: Packet, now: SimTime) {
        let b = self.buffer_of[k as usize];
        if b == NO_SWITCH {
            self.get(k).queue.enqueue(pkt, now);
            return;
        }
        let b = b as usize;
        let pool = self.buffers[b].pool;
        let total = self.buffer_occupancy(b);
        // The queue it joins: the port's, or its class's of several.
        let queue = &self.port(k).queue;
        let i = queue.queue_index(pkt.class());
        let occ = queue.queue_occupancy(i);
        let n = match self.buffers[b].abm {
            Some(mut c) if c.due(now) => {
                let lens: Vec<u64> = self.buffers[b]
                    .ports
                    .iter()
                    .map(|&j| pool.len(self.port(j).queue.occupancy()))
                    .collect();
                c.update(now, lens.into_iter());
                self.buffers[b].abm = Some(c);
                c.n
            }
            Some(c) => c.n,
            None => 1.0,
        };
        let (alpha, parts) = (self.buffers[b].alphas[i], self.buffers[b].parts);
        // The packet's priority: under ABM a transfer's first-RTT packet
        // (`unscheduled`); under FAB a flow whose count at this port, the
        // packet's bytes included (counted whether it is admitted or not),
        // is below `fab.bytes`.
        let priority = match (&mut self.buffers[b].fab, pool.fab) {
            (Some(t), Some(f)) => t.arrive(k, pkt.flow(), pkt.size(), now) < f.bytes,
            _ => pkt.is_unscheduled(),
        };
        // Refused, unless LQD makes room by pushing a packet out.
        let admitted = pool.admits(occ, total, pkt.size(), n, alpha, parts, priority);
        let pushed = !admitted
            && pool.algorithm == Algorithm::Lqd
            && self.push_out(b, k, i, pkt.size(), now);
        if !admitted && !pushed {
            self.get(k).queue.refuse(pkt, now, DropReason::OVERFLOW);
            return;
        }
        if cfg!(debug_assertions) {
            // The rule, from the occupancies as they are now (after any
            // push-out), at every admission of a debug build.
            let (q, total, a, b) = pool.amounts(
                self.port(k).queue.queue_occupancy(i),
                self.buffer_occupancy(b),
                pkt.size(),
            );
            let x = shared::Admission { q, total, a, b };
            let alpha = pool.priority_alpha(priority, alpha);
            shared::debug_check_admission(pool.algorithm, alpha, n, parts, x);
        }
        // The buffer after the arrival: what it held (anew after a
        // push-out) and what port k's queue took (the discipline may drop).
        let total = if pushed {
            self.buffer_occupancy(b)
        } else {
            total
        };
        let before = self.port(k).queue.occupancy();
        self.get(k).queue.enqueue(pkt, now);
        let after = self.port(k).queue.occupancy();
        let o = Occupancy {
            pkts: total.pkts + after.pkts - before.pkts,
            bytes: total.bytes + after.bytes - before.bytes,
        };
        debug_assert!({
            let x = self.buffer_occupancy(b);
            (x.pkts, x.bytes) == (o.pkts, o.bytes)
        });
        let buf = &mut self.buffers[b];
        buf.max_pkts = buf.max_pkts.max(o.pkts);
        buf.max_bytes = buf.max_bytes.max(o.bytes);
    }

    /// Longest-queue drop ([`shared::lqd`]): make room in full buffer `b`
    /// for a packet of `size` bytes arriving at port `k`'s queue `i` by
    /// pushing packets out of the longest other queue's tail (of the
    /// buffer's ports' queues), as overflow drops of that queue, reported
    /// with port `k`'s drops. False when the arrival's own queue is (or,
    /// with bytes, becomes) the longest before the arrival fits: the
    /// arrival is dropped.
    fn push_out(&mut self, b: usize, k: u32, i: usize, size: u32, now: SimTime) -> bool {
        let pool = self.buffers[b].pool;
        // Every port holds as many queues as the link's.
        let per = self.first.queue.queue_count();
        let at = self.buffers[b]
            .ports
            .iter()
            .position(|&j| j == k)
            .expect("the port is on its buffer");
        loop {
            let total = self.buffer_occupancy(b);
            let (_, t, a, bb) = pool.amounts(Occupancy::default(), total, size);
            if shared::complete::admits(t, a, bb) {
                return true;
            }
            let lens = self.buffers[b].ports.iter().flat_map(|&j| {
                let q = &self.port(j).queue;
                (0..per).map(move |x| pool.len(q.queue_occupancy(x)))
            });
            let Some(v) = shared::lqd::victim(lens, at * per + i) else {
                return false;
            };
            let (j, vi) = (self.buffers[b].ports[v / per], v % per);
            let Some(out) = self.get(j).queue.push_out_of(vi, now, DropReason::OVERFLOW) else {
                return false;
            };
            self.get(k).queue.drops.push((out, DropReason::OVERFLOW));
        }
    }

    /// What the ports' queues hold together.
    pub fn occupancy(&self) -> Occupancy {
        self.all().fold(Occupancy::default(), |a, p| {
            let o = p.queue.occupancy();
            Occupancy {
                pkts: a.pkts + o.pkts,
                bytes: a.bytes + o.bytes,
            }
        })
    }

    /// The time integral of the ports' queues together up to `t`, packets
    /// x picoseconds.
    pub fn area(&mut self, t: SimTime) -> f64 {
        self.all_mut().map(|p| p.queue.area(t)).sum()
    }

    /// The forward queues' arrivals, drops and departures added up; their
    /// drops by reason are [`Ports::drops_by_reason`]'s (a chain's
    /// disciplines number their reasons each their own way), `by_reason`
    /// is left at zero.
    pub fn counters(&self) -> QueueCounters {
        let mut c = QueueCounters::default();
        for o in self.all().map(|p| p.queue.counters) {
            c.arrivals += o.arrivals;
            c.drops += o.drops;
            c.departures += o.departures;
        }
        c
    }

    /// The largest occupancy, packets: the one queue's, a pool's, or on a
    /// chain the largest of one link's.
    pub fn max_pkts(&self) -> u64 {
        match self.pool {
            Some(_) => self.buffers[0].max_pkts,
            None => self.all().map(|p| p.queue.max_pkts()).max().unwrap_or(0),
        }
    }

    /// The links' busy time up to `t`, averaged over the links weighted by
    /// capacity (their utilization together, busy over elapsed time, is the
    /// share of their summed capacity they used).
    pub fn busy_until(&self, t: SimTime) -> SimTime {
        if self.forward_rest == 0 {
            return self.first.busy_until(t);
        }
        let cap: f64 = self.all().map(|p| p.capacity.0).sum();
        let weighted: f64 = self
            .all()
            .map(|p| p.busy_until(t).0 as f64 * p.capacity.0)
            .sum();
        SimTime((weighted / cap).round() as u64)
    }

    /// Statistics start at `t`: each port's busy time and queue integral
    /// are noted and its counters reset.
    pub fn warmup_end(&mut self, t: SimTime) {
        for p in self.every_mut() {
            p.busy_at_warmup = p.busy_until(t);
            p.area_at_warmup = p.queue.area(t);
            if let Some(h) = &mut p.delays {
                *h = DelayHistogram::default();
            }
            p.queue.reset_counters();
            if let Some(c) = p.queue.classes_mut() {
                c.warmup_end(t);
            }
        }
    }

    /// Name the ports whose own statistics are kept: with several forward
    /// ones, each as `<kind><k>`; the reverse link as `reverse`.
    fn own_names(&self) -> Vec<Option<String>> {
        (0..=self.rest.len())
            .map(|k| match self.kind {
                _ if k > self.forward_rest => Some("reverse".to_string()),
                Some(kind) => Some(format!("{kind}{k}")),
                None => self.names.get(k).cloned(),
            })
            .collect()
    }

    /// Note the mean over the sampling interval `dt` that ends at `t` of
    /// each queue kept on its own (the time series'
    /// `queue_pkts_<kind><k>`, `queue_pkts_reverse`).
    pub fn sample(&mut self, t: SimTime, dt: SimTime) {
        // Kept on its own: one of several forward queues, or the reverse link.
        let several = self.kind.is_some() || !self.names.is_empty();
        let forward = self.forward_rest;
        for (k, p) in self.every_mut().enumerate() {
            if several || k > forward {
                let area = p.queue.area(t);
                p.ts_queue.push((area - p.area_at_sample) / dt.0 as f64);
                p.area_at_sample = area;
            }
        }
    }

    /// The time series' `queue_pkts_<kind><k>` columns of several forward
    /// queues and the reverse link's `queue_pkts_reverse`
    /// ([`Ports::sample`]); empty with one link.
    pub fn timeseries(&mut self) -> Vec<(String, Vec<f64>)> {
        let names = self.own_names();
        self.every_mut()
            .zip(names)
            .filter_map(|(p, name)| {
                Some((
                    format!("queue_pkts_{}", name?),
                    std::mem::take(&mut p.ts_queue),
                ))
            })
            .collect()
    }

    /// The statistics over the window from the warm-up's end to `now` of
    /// each queue kept on its own, `<metric>_<kind><k>` (`_port<k>` for a
    /// pool's, `_link<k>` for a chain's) and `<metric>_reverse` for the
    /// reverse link: `utilization`, `mean_queue_pkts`, `max_queue_pkts`
    /// (whole run), `mean_queue_delay_s`, `p99_queue_delay_s`, `arrivals`,
    /// `departures`, `drops`, `drop_rate` (drops over arrivals); with a
    /// pool also its size and `alpha`; then each queue of ports holding
    /// several (`class_summary`). Empty with one link of one queue.
    pub fn summary(&mut self, now: SimTime, warmup: SimTime) -> Vec<(String, f64)> {
        let span = (now - warmup).0 as f64;
        let mut out = match &self.pool {
            Some(pool) => vec![
                ("pool_size_pkts".to_string(), pool.size_pkts as f64),
                ("pool_size_bytes".into(), pool.size_bytes as f64),
                ("pool_alpha".into(), pool.alpha),
            ],
            None => Vec::new(),
        };
        let names = self.own_names();
        for (p, name) in self.every_mut().zip(names) {
            let Some(name) = name else { continue };
            let c = p.queue.counters;
            let delay = p.delays.take().unwrap_or_default();
            let busy = p.busy_until(now) - p.busy_at_warmup;
            let area = p.queue.area(now) - p.area_at_warmup;
            let rate = if c.arrivals > 0 {
                c.drops as f64 / c.arrivals as f64
            } else {
                0.0
            };
            out.extend([
                (format!("utilization_{name}"), busy.0 as f64 / span),
                (format!("mean_queue_pkts_{name}"), area / span),
                (format!("max_queue_pkts_{name}"), p.queue.max_pkts() as f64),
                (format!("mean_queue_delay_s_{name}"), delay.mean_s()),
                (format!("p99_queue_delay_s_{name}"), delay.quantile_s(0.99)),
                (format!("arrivals_{name}"), c.arrivals as f64),
                (format!("departures_{name}"), c.departures as f64),
                (format!("drops_{name}"), c.drops as f64),
                (format!("drop_rate_{name}"), rate),
            ]);
        }
        self.class_summary(now, warmup, &mut out);
        self.switch_summary(now, warmup, &mut out);
        out
    }

    /// [`Ports::summary`]'s entries of each switch of a fabric,
    /// `<metric>_<switch>` (`drops_leaf0`): `buffer_bytes`,
    /// `max_occupancy_bytes`, `max_occupancy_pkts` (whole run),
    /// `mean_occupancy_pkts`, `queue_pkts_at_end`, and its ports' `arrivals`,
    /// `departures`, `drops` and `drop_rate` added up.
    fn switch_summary(&mut self, now: SimTime, warmup: SimTime, out: &mut Vec<(String, f64)>) {
        let span = (now - warmup).0 as f64;
        for b in 0..self.buffers.len() {
            let Some(name) = self.buffers[b].name.clone() else {
                continue;
            };
            let ports = self.buffers[b].ports.clone();
            let (mut area, mut c) = (0.0, QueueCounters::default());
            for &k in &ports {
                let p = self.get(k);
                area += p.queue.area(now) - p.area_at_warmup;
                let o = p.queue.counters;
                c.arrivals += o.arrivals;
                c.departures += o.departures;
                c.drops += o.drops;
            }
            let end = self.buffer_occupancy(b);
            let buf = &self.buffers[b];
            let rate = if c.arrivals > 0 {
                c.drops as f64 / c.arrivals as f64
            } else {
                0.0
            };
            out.extend([
                (format!("buffer_bytes_{name}"), buf.pool.size_bytes as f64),
                (format!("max_occupancy_bytes_{name}"), buf.max_bytes as f64),
                (format!("max_occupancy_pkts_{name}"), buf.max_pkts as f64),
                (format!("mean_occupancy_pkts_{name}"), area / span),
                (format!("queue_pkts_at_end_{name}"), end.pkts as f64),
                (format!("arrivals_{name}"), c.arrivals as f64),
                (format!("departures_{name}"), c.departures as f64),
                (format!("drops_{name}"), c.drops as f64),
                (format!("drop_rate_{name}"), rate),
            ]);
        }
    }

    /// [`Ports::summary`]'s entries of each queue of ports holding several
    /// (`link.queues`), `<metric>_class<c>` on the one link and
    /// `<metric>_port<k>_class<c>` on a pool's ports: `throughput_bps`,
    /// `utilization` (its share of the link), `mean_queue_pkts`,
    /// `max_queue_pkts` (whole run), `mean_queue_delay_s`,
    /// `p99_queue_delay_s`, `arrivals`, `departures`, `drops`, `drop_rate`
    /// and `marks` (packets that left carrying CE).
    fn class_summary(&mut self, now: SimTime, warmup: SimTime, out: &mut Vec<(String, f64)>) {
        let span = (now - warmup).0 as f64;
        let secs = (now - warmup).as_secs_f64();
        let prefixes: Vec<String> = self
            .own_names()
            .into_iter()
            .map(|n| n.map_or(String::new(), |n| format!("{n}_")))
            .collect();
        let names = std::mem::take(&mut self.class_names);
        for (p, prefix) in self.all_mut().zip(prefixes) {
            let cap = p.capacity.0;
            let Some(classes) = p.queue.classes_mut() else {
                continue;
            };
            for (i, class) in names.iter().enumerate() {
                let name = format!("{prefix}{class}");
                let st = std::mem::take(&mut classes.stats[i]);
                let q = classes.queue(i);
                let c = q.counters;
                let area = q.area(now) - st.area_at_warmup;
                let bps = st.bytes_out as f64 * 8.0 / secs;
                let rate = if c.arrivals > 0 {
                    c.drops as f64 / c.arrivals as f64
                } else {
                    0.0
                };
                out.extend([
                    (format!("throughput_bps_{name}"), bps),
                    (format!("utilization_{name}"), bps / cap),
                    (format!("mean_queue_pkts_{name}"), area / span),
                    (format!("max_queue_pkts_{name}"), q.max_pkts() as f64),
                    (format!("mean_queue_delay_s_{name}"), st.delays.mean_s()),
                    (
                        format!("p99_queue_delay_s_{name}"),
                        st.delays.quantile_s(0.99),
                    ),
                    (format!("arrivals_{name}"), c.arrivals as f64),
                    (format!("departures_{name}"), c.departures as f64),
                    (format!("drops_{name}"), c.drops as f64),
                    (format!("drop_rate_{name}"), rate),
                    (format!("marks_{name}"), st.marks as f64),
                ]);
            }
        }
        self.class_names = names;
    }
}
