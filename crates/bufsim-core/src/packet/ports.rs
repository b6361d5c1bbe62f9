//! The bottleneck's egress ports: the dumbbell's one link, or the ports of
//! a shared-buffer pool ([`crate::scenario::Pool`]), each a copy of the
//! scenario's link with its own queue, discipline and packet in service.
//!
//! [`Ports`] is what the collector measures: the ports' queues taken
//! together (occupancy, its time integral, counters; with one port, that
//! port's queue as it is) and their busy time, averaged over the ports. With
//! a pool it also keeps the pool's largest occupancy and each port's own
//! statistics over the statistics window ([`Ports::port_summary`]).

use crate::net::Packet;
use crate::queue::{DropReason, Occupancy, Queue, QueueCounters, Setup};
use crate::scenario::{Pool, Scenario};
use crate::units::SimTime;

/// One egress port.
pub(crate) struct Port {
    /// Its queue and discipline.
    pub queue: Queue,
    /// The packet being serialized.
    pub in_service: Option<Packet>,
    /// Time spent serializing, the packet in service excluded.
    pub busy: SimTime,
    /// When the packet in service started serializing.
    pub tx_start: SimTime,
    /// `busy` and the queue's time integral at the warm-up's end.
    busy_at_warmup: SimTime,
    area_at_warmup: f64,
    /// With a pool: the queue's integral at the last time-series sample,
    /// and the mean queue over each sampling interval, packets.
    area_at_sample: f64,
    ts_queue: Vec<f64>,
}

impl Port {
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
/// 1 Gbps benchmark 8% of its packets per CPU second).
pub(crate) struct Ports {
    first: Port,
    /// Ports 1 and up.
    rest: Vec<Port>,
    pool: Option<Pool>,
    /// The pool's largest occupancy, packets (pool only).
    max_pkts: u64,
}

impl Ports {
    /// The scenario's ports, empty: one per `pool.ports`, else one.
    pub fn new(s: &Scenario) -> Ports {
        let n = s.pool.as_ref().map_or(1, |p| p.ports);
        let port = |port| Port {
            queue: Queue::new(s.link.queue.discipline(&Setup {
                limit: s.link.limit(),
                link: s.link.info(),
                seed: s.seed,
                port,
                tcp_flows: s.total_flows() as u32,
            })),
            in_service: None,
            busy: SimTime::ZERO,
            tx_start: SimTime::ZERO,
            busy_at_warmup: SimTime::ZERO,
            area_at_warmup: 0.0,
            area_at_sample: 0.0,
            ts_queue: Vec::new(),
        };
        Ports {
            first: port(0),
            rest: (1..n).map(port).collect(),
            pool: s.pool,
            max_pkts: 0,
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

    /// Every port, in order.
    fn all(&self) -> impl Iterator<Item = &Port> {
        std::iter::once(&self.first).chain(&self.rest)
    }

    /// Every port, in order.
    fn all_mut(&mut self) -> impl Iterator<Item = &mut Port> {
        std::iter::once(&mut self.first).chain(&mut self.rest)
    }

    /// How many ports are serializing a packet.
    pub fn in_service(&self) -> u64 {
        self.all().filter(|p| p.in_service.is_some()).count() as u64
    }

    /// Offer `pkt` to port `k`'s queue at `now`. With a pool, a packet the
    /// dynamic threshold refuses is dropped as an overflow: the port's
    /// share of the pool is full ([`Pool::admits`]).
    #[inline]
    pub fn enqueue(&mut self, k: u32, pkt: Packet, now: SimTime) {
        match self.pool {
            // Without a pool every packet is port 0's.
            None => self.first.queue.enqueue(pkt, now),
            Some(pool) => self.enqueue_pooled(pool, k, pkt, now),
        }
    }

    /// [`Ports::enqueue`] with a pool: the threshold first; a packet it
    /// admits may still be dropped by the port's discipline. Out of line,
    /// so that without a pool the path is one call of the discipline's
    /// enqueue.
    #[inline(never)]
    fn enqueue_pooled(&mut self, pool: Pool, k: u32, pkt: Packet, now: SimTime) {
        let total = self.occupancy();
        let q = &mut self.get(k).queue;
        if !pool.admits(q.occupancy(), total, pkt.size()) {
            q.refuse(pkt, now, DropReason::OVERFLOW);
            return;
        }
        q.enqueue(pkt, now);
        self.max_pkts = self.max_pkts.max(self.occupancy().pkts);
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

    /// The ports' queue counters added up.
    pub fn counters(&self) -> QueueCounters {
        let mut c = self.first.queue.counters;
        for p in &self.rest {
            let o = p.queue.counters;
            c.arrivals += o.arrivals;
            c.drops += o.drops;
            c.departures += o.departures;
            for (a, b) in c.by_reason.iter_mut().zip(o.by_reason) {
                *a += b;
            }
        }
        c
    }

    /// The largest occupancy, packets: the one queue's, or the pool's.
    pub fn max_pkts(&self) -> u64 {
        match self.pool {
            Some(_) => self.max_pkts,
            None => self.first.queue.max_pkts(),
        }
    }

    /// The ports' busy time up to `t`, averaged over the ports (their
    /// utilization together is this over the elapsed time).
    pub fn busy_until(&self, t: SimTime) -> SimTime {
        if self.rest.is_empty() {
            return self.first.busy_until(t);
        }
        let sum: u64 = self.all().map(|p| p.busy_until(t).0).sum();
        SimTime(sum / (1 + self.rest.len() as u64))
    }

    /// Statistics start at `t`: each port's busy time and queue integral
    /// are noted and its counters reset.
    pub fn warmup_end(&mut self, t: SimTime) {
        for p in self.all_mut() {
            p.busy_at_warmup = p.busy_until(t);
            p.area_at_warmup = p.queue.area(t);
            p.queue.reset_counters();
        }
    }

    /// With a pool, note each port's mean queue over the sampling interval
    /// `dt` that ends at `t` (the time series' `queue_pkts_port<k>`).
    pub fn sample(&mut self, t: SimTime, dt: SimTime) {
        if self.pool.is_none() {
            return;
        }
        for p in self.all_mut() {
            let area = p.queue.area(t);
            p.ts_queue.push((area - p.area_at_sample) / dt.0 as f64);
            p.area_at_sample = area;
        }
    }

    /// With a pool, the time series' `queue_pkts_port<k>` columns
    /// ([`Ports::sample`]); empty without one.
    pub fn timeseries(&mut self) -> Vec<(String, Vec<f64>)> {
        if self.pool.is_none() {
            return Vec::new();
        }
        self.all_mut()
            .enumerate()
            .map(|(k, p)| {
                (
                    format!("queue_pkts_port{k}"),
                    std::mem::take(&mut p.ts_queue),
                )
            })
            .collect()
    }

    /// With a pool, each port's statistics over the window from the
    /// warm-up's end to `now`, `<metric>_port<k>`: `utilization`,
    /// `mean_queue_pkts`, `max_queue_pkts` (whole run), `drops`,
    /// `drop_rate` (drops over arrivals); and the pool's `alpha` and size.
    /// Empty without a pool.
    pub fn port_summary(&mut self, now: SimTime, warmup: SimTime) -> Vec<(String, f64)> {
        let Some(pool) = &self.pool else {
            return Vec::new();
        };
        let span = (now - warmup).0 as f64;
        let mut out = vec![
            ("pool_size_pkts".to_string(), pool.size_pkts as f64),
            ("pool_size_bytes".into(), pool.size_bytes as f64),
            ("pool_alpha".into(), pool.alpha),
        ];
        for (k, p) in std::iter::once(&mut self.first)
            .chain(&mut self.rest)
            .enumerate()
        {
            let c = p.queue.counters;
            let busy = p.busy_until(now) - p.busy_at_warmup;
            let area = p.queue.area(now) - p.area_at_warmup;
            out.extend([
                (format!("utilization_port{k}"), busy.0 as f64 / span),
                (format!("mean_queue_pkts_port{k}"), area / span),
                (format!("max_queue_pkts_port{k}"), p.queue.max_pkts() as f64),
                (format!("drops_port{k}"), c.drops as f64),
                (
                    format!("drop_rate_port{k}"),
                    if c.arrivals > 0 {
                        c.drops as f64 / c.arrivals as f64
                    } else {
                        0.0
                    },
                ),
            ]);
        }
        out
    }
}
