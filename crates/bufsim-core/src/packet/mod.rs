//! The packet-level discrete-event simulator on a dumbbell.
//!
//! Each TCP flow's data path is: sender -> access link (optional rate limit,
//! then propagation) -> the shared bottleneck queue -> the bottleneck link
//! (serialization at capacity C, propagation `link.delay`) -> optional
//! Bernoulli loss -> receiver. ACKs return over an uncongested path. The
//! one-way access delay is `(rtt - 2 * link.delay) / 2` each way, so the
//! round-trip propagation delay equals the flow's configured RTT.
//!
//! Poisson background packets join the bottleneck queue directly and leave
//! into a sink after the link.
//!
//! Pending events stay O(flows): every FIFO delay line ([`Pipe`]) keeps one
//! event for its head, the bottleneck one for the packet in service, and
//! timers are checked lazily (DESIGN.md performance notes).

mod collect;

use rand::RngExt;
use rand_distr::{Distribution, Exp};

use crate::engine::queue::EventQueue;
use crate::engine::rng::{stream, Rng, Stream};
use crate::engine::Progress;
use crate::net::pipe::Pipe;
use crate::net::{Ack, Packet, BACKGROUND};
use crate::output::RunOutput;
use crate::queue::{AnyDiscipline, Queue};
use crate::scenario::{Scenario, ScenarioError};
use crate::tcp::cc::AnyCc;
use crate::tcp::receiver::{AckAction, Receiver};
use crate::tcp::sender::{Sender, SenderConfig};
use crate::units::{BitsPerSec, SimTime};
use collect::Collector;

//= RFC 5681 section 4.2: an ACK "MUST be generated within 500 ms of the
//= arrival of the first unacknowledged packet"; 200 ms is the common timer.
const DELACK_TIMEOUT: SimTime = SimTime(200_000_000_000);

/// Call the progress hook every this many events.
const PROGRESS_EVERY: u64 = 1 << 16;

/// Event-queue slots of the bottleneck's singleton events.
const SLOT_TX_DONE: usize = 0;
const SLOT_LINK_HEAD: usize = 1;

#[derive(Clone, Copy, Debug)]
enum Ev {
    Start(u32),
    AccessHead(u32),
    TxDone,
    LinkHead,
    AckHead(u32),
    Rto(u32),
    DelAck(u32),
    Background(u32),
    Sample,
    WarmupEnd,
}

/// Per-flow state on the dumbbell.
struct Flow {
    sender: Sender,
    receiver: Receiver,
    mss: u32,
    access_delay: SimTime,
    return_delay: SimTime,
    access_rate: Option<BitsPerSec>,
    access_free_at: SimTime,
    access: Pipe<Packet>,
    acks: Pipe<Ack>,
    rto_event_at: SimTime,
    delack_pending: bool,
    loss: f64,
    loss_rng: Rng,
    started: bool,
}

struct Bg {
    rng: Rng,
    exp: Exp<f64>,
    size: u32,
    seq: u64,
}

/// Refuse what the packet engine cannot simulate (beyond schema validation).
/// Every TCP variant and queue discipline of the scenario schema is
/// implemented; nothing is refused today.
pub fn check(_s: &Scenario) -> Result<(), ScenarioError> {
    Ok(())
}

/// The simulator state.
struct Sim<'s> {
    s: &'s Scenario,
    now: SimTime,
    events: EventQueue<Ev>,
    flows: Vec<Flow>,
    bgs: Vec<Bg>,
    queue: Queue,
    capacity: BitsPerSec,
    in_service: Option<Packet>,
    link: Pipe<Packet>,
    col: Collector,
    out: Vec<u64>,
}

/// Run the packet engine on a validated scenario (see [`check`]).
pub fn run(s: &Scenario, progress: Progress) -> RunOutput {
    let mut sim = Sim::new(s);
    let completed = sim.run(progress);
    let mut out = sim.finish();
    out.completed = completed;
    out
}

impl<'s> Sim<'s> {
    fn new(s: &'s Scenario) -> Sim<'s> {
        let mut events = EventQueue::new();
        let mut flows = Vec::with_capacity(s.total_flows());
        let mut groups = Vec::with_capacity(s.total_flows());
        for (g, grp) in s.flows.iter().enumerate() {
            for k in 0..grp.count as usize {
                let id = flows.len() as u32;
                let rtt = grp.rtts_s[k];
                let access = SimTime((rtt.0 - 2 * s.link.delay_s.0) / 2);
                let cfg = SenderConfig {
                    initial_window: grp.initial_window_pkts,
                    rwnd: grp.rwnd_pkts,
                    min_rto: grp.min_rto_s,
                    sack: grp.sack,
                    limit: u64::MAX,
                };
                flows.push(Flow {
                    sender: Sender::new(cfg, AnyCc::new(&grp.cc)),
                    receiver: Receiver::new(grp.sack, grp.delayed_ack),
                    mss: grp.mss_bytes,
                    access_delay: access,
                    return_delay: rtt - s.link.delay_s - access,
                    access_rate: grp.access_rate_bps.map(BitsPerSec),
                    access_free_at: SimTime::ZERO,
                    access: Pipe::default(),
                    acks: Pipe::default(),
                    rto_event_at: SimTime::MAX,
                    delack_pending: false,
                    loss: grp.loss,
                    loss_rng: stream(s.seed, Stream::Loss(id)),
                    started: false,
                });
                groups.push((g as u32, rtt));
                events.push(grp.starts_s[k], Ev::Start(id));
            }
        }
        let mut bgs = Vec::new();
        for (i, b) in s.background.iter().enumerate() {
            let pps = b.rate_bps / (8.0 * b.packet_size_bytes as f64);
            let mut rng = stream(s.seed, Stream::Background(i as u32));
            let exp = Exp::new(pps).expect("validated positive rate");
            let first = SimTime::from_secs_f64(exp.sample(&mut rng));
            events.push(first, Ev::Background(i as u32));
            bgs.push(Bg { rng, exp, size: b.packet_size_bytes, seq: 0 });
        }
        events.push(s.output.interval_s, Ev::Sample);
        if s.warmup_s > SimTime::ZERO {
            events.push(s.warmup_s, Ev::WarmupEnd);
        }
        Sim {
            s,
            now: SimTime::ZERO,
            events,
            flows,
            bgs,
            queue: Queue::new(AnyDiscipline::new(s)),
            capacity: BitsPerSec(s.link.capacity_bps),
            in_service: None,
            link: Pipe::default(),
            col: Collector::new(s, groups),
            out: Vec::with_capacity(64),
        }
    }

    fn run(&mut self, progress: Progress) -> bool {
        let end = self.s.duration_s;
        let mut n: u64 = 0;
        while let Some((t, ev)) = self.events.pop() {
            if t > end {
                break;
            }
            self.now = t;
            n += 1;
            if n % PROGRESS_EVERY == 0 && !progress(t) {
                self.col.events += n;
                return false;
            }
            match ev {
                Ev::Start(f) => {
                    self.flows[f as usize].started = true;
                    self.col.flow_started(f);
                    self.pump(f);
                }
                Ev::AccessHead(f) => self.access_head(f),
                Ev::TxDone => self.tx_done(),
                Ev::LinkHead => self.link_head(),
                Ev::AckHead(f) => self.ack_head(f),
                Ev::Rto(f) => self.rto(f),
                Ev::DelAck(f) => self.delack(f),
                Ev::Background(i) => self.background(i),
                Ev::Sample => {
                    let (busy, cwnd) = (self.busy_until(t), self.flows_cwnd());
                    self.col.sample(t, &mut self.queue, busy, &cwnd);
                    self.events.push(t + self.s.output.interval_s, Ev::Sample);
                }
                Ev::WarmupEnd => {
                    let busy = self.busy_until(t);
                    let at: Vec<(u64, u64)> =
                        self.flows.iter().map(|f| (f.receiver.rcv_nxt, f.sender.stats.sent)).collect();
                    self.col.warmup_end(t, &mut self.queue, busy, &at);
                }
            }
        }
        self.now = end;
        self.col.events += n;
        true
    }

    fn flows_cwnd(&self) -> Vec<f64> {
        if self.s.output.cwnd { self.flows.iter().map(|f| f.sender.w.cwnd).collect() } else { Vec::new() }
    }

    /// Bottleneck busy time accumulated up to `t` (including the packet in service).
    fn busy_until(&self, t: SimTime) -> SimTime {
        match self.in_service {
            Some(_) => self.col.busy + (t - self.col.tx_start),
            None => self.col.busy,
        }
    }

    /// Let flow `f` send what its windows allow and arm its timer.
    fn pump(&mut self, f: u32) {
        let flow = &mut self.flows[f as usize];
        let mut out = std::mem::take(&mut self.out);
        flow.sender.pump(self.now, &mut out);
        self.transmit(f, &mut out);
        self.out = out;
    }

    /// Put the segments in `out` on flow `f`'s access link; arm the RTO event.
    fn transmit(&mut self, f: u32, out: &mut Vec<u64>) {
        let now = self.now;
        let flow = &mut self.flows[f as usize];
        for &seq in out.iter() {
            let pkt = Packet { flow: f, size: flow.mss, seq, enqueued: SimTime::ZERO };
            let depart = match flow.access_rate {
                Some(rate) => {
                    let start = flow.access_free_at.max(now);
                    flow.access_free_at = start + rate.tx_time(flow.mss);
                    flow.access_free_at
                }
                None => now,
            };
            let at = depart + flow.access_delay;
            if flow.access.push(at, pkt) {
                self.events.push(at, Ev::AccessHead(f));
            }
        }
        self.col.sent += out.len() as u64;
        out.clear();
        let deadline = flow.sender.rto_deadline;
        if deadline < flow.rto_event_at {
            flow.rto_event_at = deadline;
            self.events.push(deadline, Ev::Rto(f));
        }
    }

    fn access_head(&mut self, f: u32) {
        while let Some(pkt) = self.flows[f as usize].access.pop_ready(self.now) {
            self.arrive(pkt);
        }
        if let Some(t) = self.flows[f as usize].access.head_time() {
            self.events.push(t, Ev::AccessHead(f));
        }
    }

    /// A packet reaches the bottleneck queue.
    fn arrive(&mut self, pkt: Packet) {
        let now = self.now;
        self.queue.enqueue(pkt, now);
        self.drain_drops();
        if self.in_service.is_none() {
            self.start_tx();
        }
    }

    /// Report the packets the queue discipline dropped (at arrival, or at
    /// the head for CoDel) to the collector.
    #[inline]
    fn drain_drops(&mut self) {
        let now = self.now;
        for (p, _reason) in self.queue.drops.drain(..) {
            self.col.queue_drop(now, p.flow);
        }
    }

    fn start_tx(&mut self) {
        let now = self.now;
        let next = self.queue.dequeue(now);
        if !self.queue.drops.is_empty() {
            self.drain_drops();
        }
        if let Some(p) = next {
            self.col.dequeued(now, now - p.enqueued);
            self.col.tx_start = now;
            let done = now + self.capacity.tx_time(p.size);
            self.in_service = Some(p);
            self.events.push_slot(SLOT_TX_DONE, done, Ev::TxDone);
        }
    }

    fn tx_done(&mut self) {
        let now = self.now;
        let p = self.in_service.take().expect("TxDone without a packet in service");
        self.col.busy += now - self.col.tx_start;
        self.col.tx_bits(p.size);
        let at = now + self.s.link.delay_s;
        if self.link.push(at, p) {
            self.events.push_slot(SLOT_LINK_HEAD, at, Ev::LinkHead);
        }
        self.start_tx();
    }

    fn link_head(&mut self) {
        while let Some(p) = self.link.pop_ready(self.now) {
            self.deliver(p);
        }
        if let Some(t) = self.link.head_time() {
            self.events.push_slot(SLOT_LINK_HEAD, t, Ev::LinkHead);
        }
    }

    /// A packet leaves the bottleneck link.
    fn deliver(&mut self, p: Packet) {
        if p.flow == BACKGROUND {
            self.col.delivered += 1;
            return;
        }
        let f = p.flow;
        let flow = &mut self.flows[f as usize];
        if flow.loss > 0.0 && flow.loss_rng.random::<f64>() < flow.loss {
            self.col.random_drop(f);
            return;
        }
        self.col.delivered += 1;
        match flow.receiver.on_segment(p.seq) {
            AckAction::Now => self.send_ack(f),
            AckAction::Delay => {
                if !flow.delack_pending {
                    flow.delack_pending = true;
                    self.events.push(self.now + DELACK_TIMEOUT, Ev::DelAck(f));
                }
            }
        }
    }

    fn send_ack(&mut self, f: u32) {
        let flow = &mut self.flows[f as usize];
        let at = self.now + flow.return_delay;
        if flow.acks.push(at, flow.receiver.ack()) {
            self.events.push(at, Ev::AckHead(f));
        }
    }

    fn delack(&mut self, f: u32) {
        let flow = &mut self.flows[f as usize];
        flow.delack_pending = false;
        if flow.receiver.on_delack_timer() {
            self.send_ack(f);
        }
    }

    fn ack_head(&mut self, f: u32) {
        let now = self.now;
        let mut out = std::mem::take(&mut self.out);
        let flow = &mut self.flows[f as usize];
        while let Some(a) = flow.acks.pop_ready(now) {
            flow.sender.on_ack(&a, now, &mut out);
        }
        let next = flow.acks.head_time();
        self.transmit(f, &mut out);
        self.out = out;
        if let Some(t) = next {
            self.events.push(t, Ev::AckHead(f));
        }
    }

    /// Lazy retransmission timer: the event may be stale (deadline moved later).
    fn rto(&mut self, f: u32) {
        let now = self.now;
        let flow = &mut self.flows[f as usize];
        if flow.rto_event_at != now {
            return; // superseded by an earlier event
        }
        flow.rto_event_at = SimTime::MAX;
        let deadline = flow.sender.rto_deadline;
        if deadline == SimTime::MAX {
            return;
        }
        let mut out = std::mem::take(&mut self.out);
        if deadline <= now {
            flow.sender.on_timeout(now, &mut out);
        }
        self.transmit(f, &mut out);
        self.out = out;
    }

    fn background(&mut self, i: u32) {
        let now = self.now;
        let bg = &mut self.bgs[i as usize];
        let pkt = Packet { flow: BACKGROUND, size: bg.size, seq: bg.seq, enqueued: SimTime::ZERO };
        bg.seq += 1;
        let gap = SimTime::from_secs_f64(bg.exp.sample(&mut bg.rng)).max(SimTime(1));
        self.events.push(now + gap, Ev::Background(i));
        self.col.sent += 1;
        self.arrive(pkt);
    }

    fn finish(mut self) -> RunOutput {
        let now = self.now;
        let busy = self.busy_until(now);
        let in_flight = self.flows.iter().map(|f| f.access.len() as u64).sum::<u64>()
            + self.queue.occupancy().pkts
            + self.in_service.is_some() as u64
            + self.link.len() as u64;
        let per_flow: Vec<collect::FlowEnd> = self
            .flows
            .iter()
            .map(|f| collect::FlowEnd {
                rcv_nxt: f.receiver.rcv_nxt,
                mss: f.mss,
                stats: f.sender.stats,
                srtt: f.sender.srtt(),
                cwnd: f.sender.w.cwnd,
            })
            .collect();
        self.col.finish(now, &mut self.queue, busy, in_flight, &per_flow)
    }
}
