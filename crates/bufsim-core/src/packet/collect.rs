//! What the packet engine measures: bottleneck utilization, drops, queue
//! occupancy and queueing delay, per-flow goodput and loss, loss
//! synchronization, and the sampled time series. Statistics cover
//! [warmup, duration]; time series cover the whole run.
//!
//! Loss synchronization: a *congestion event* starts with a drop at the
//! bottleneck and lasts one reference RTT (`link.bdp_rtt`, the mean RTT by
//! default); its synchronization is the fraction of active TCP flows that
//! lost at least one packet at the bottleneck during it.
//!
//! Flows table: one row per persistent flow (goodput and loss over the
//! statistics window) and one row per finite *transfer* that arrived at or
//! after the warmup: finished ones when they complete, unfinished ones at the
//! end (`finished = 0`). A transfer's row covers its whole life: `drops`,
//! `loss_rate` (drops / packets sent), `throughput_bps` (bytes delivered * 8
//! / (end - start), start being the arrival, connection setup included),
//! `left_slow_start` (its ssthresh became finite: a loss or timeout ended
//! slow start; paper 002's "long" flow, where "short" flows "never leave
//! slow-start") and `large` (`size_pkts * mss > output.large_flow`;
//! persistent flows count as large). `query`: an incast response's query
//! (the id of the query's first response, in `flow`), NaN for other rows.
//!
//! Queueing delay per flow (the flows table's `queued_pkts`,
//! `mean_queue_delay_s` and `jitter_s`, as ns-3 FlowMonitor's `delaySum`
//! and `jitterSum` but for the bottleneck queue alone): over the statistics
//! window, the flow's packets that left the bottleneck queue for the link,
//! the mean time they waited in it, and the mean absolute difference between
//! the waits of consecutive packets of the flow (RFC 3550 section 6.4.1's
//! |D(i-1, i)| without its 1/16 smoothing; propagation and serialization are
//! the same for every packet of a flow, so this is the difference of their
//! transit times); 0 when the flow has no such packet (no such pair).
//! A transfer's columns cover the packets it sent in the window, which is
//! its whole life (its row exists only if it arrived after the warm-up).
//!
//! Halves (`output.halves`): the window metrics of [`Metrics`] again over
//! each half of the statistics window, as `<metric>_half1` and
//! `<metric>_half2` (a run whose halves disagree has not converged). The
//! accumulators are copied ([`Mark`]) at the window's start and middle; a
//! half's goodput counts the segments whose serialization on the
//! bottleneck ended in it (the instant their receiver takes them, see the
//! engine's module doc), a half's congestion events those that began in it.
//!
//! Batches (`output.stop`, [`crate::scenario::Stop`]): the accumulators are
//! copied at each batch boundary too, and each batch's value of the metrics
//! the stop rule names is measured as the window's (a [`Span`] between two
//! copies). A run that stops ends at a boundary; the summary covers the
//! window up to it and says so (`end_s`, `batches_run`); its halves are
//! its first `k / 2` batches and the rest (`k` batches run). A batch's
//! value is read at its boundary: goodput that a lagging receiver takes
//! later still counts in the batch for the summary's halves, not for that
//! reading.
//!
//! Flow-level metrics: `active_flows_mean` (time average over the window of
//! the transfers in progress, persistent flows included) and
//! `long_flows_mean` (of those that have left slow start: the N of the
//! Stanford rule, paper 002 section 2); the time series samples both.

use super::ports::Ports;
use crate::output::{RunOutput, Table};
use crate::queue::QueueCounters;
use crate::scenario::Scenario;
use crate::stats::histogram::DelayHistogram;
use crate::stats::{self, jain_index};
use crate::tcp::sender::SenderStats;
use crate::units::SimTime;

/// End-of-run state of one flow, handed over by the simulator.
pub struct FlowEnd {
    /// Next segment the receiver expects.
    pub rcv_nxt: u64,
    /// Segment size, bytes.
    pub mss: u32,
    /// The sender's counters.
    pub stats: SenderStats,
    /// Smoothed RTT, if measured.
    pub srtt: Option<SimTime>,
    /// Congestion window, packets.
    pub cwnd: f64,
    /// The flow left slow start.
    pub long: bool,
    /// Its handshake is still waiting for a SYN retry: a queue dropped a
    /// SYN of its and no retry has connected it.
    pub syn_lost: bool,
}

impl FlowEnd {
    /// Bytes delivered in order, counting at most `size` segments.
    fn bytes(&self, size: Option<u64>) -> f64 {
        self.rcv_nxt.min(size.unwrap_or(u64::MAX)) as f64 * self.mss as f64
    }
}

/// Number of columns of the flows table.
pub(crate) const FLOW_COLUMNS: usize = COLS.len();

/// Columns of the flows table, in order.
const COLS: [&str; 28] = [
    "flow",
    "group",
    "rtt_s",
    "goodput_bps",
    "delivered_pkts",
    "sent_pkts",
    "retransmits",
    "timeouts",
    "recoveries",
    "ecn_reductions",
    "probes",
    "drops",
    "loss_rate",
    "srtt_s",
    "final_cwnd_pkts",
    "size_pkts",
    "start_s",
    "end_s",
    "fct_s",
    "bytes",
    "throughput_bps",
    "finished",
    "left_slow_start",
    "large",
    "queued_pkts",
    "mean_queue_delay_s",
    "jitter_s",
    "query",
];

/// What differs between the row of a persistent flow (over the statistics
/// window) and that of a finite transfer (over its whole life).
struct RowSpan {
    /// Goodput (persistent) or throughput (transfer), bits/s.
    rate_bps: f64,
    /// Packets lost.
    drops: u64,
    /// Packets sent, the denominator of `loss_rate`.
    sent: u64,
    /// Transfer size, segments (`None`: persistent, counts as large).
    size: Option<u64>,
    /// When the transfer completed (`None`: persistent, or unfinished).
    end: Option<SimTime>,
}

#[derive(Clone, Default)]
struct FlowStat {
    group: u32,
    rtt: SimTime,
    queue_drops: u64,
    random_drops: u64,
    /// Goodput bits in the measurement window (see [`Collector::delivered_new`]).
    good_bits: f64,
    sent_at_warmup: u64,
    event_stamp: u64,
    // Finite transfers (whole life).
    id: u64,
    /// An incast response's query: the id of its first response.
    query: Option<u64>,
    arrival: SimTime,
    size: u64,
    drops_life: u64,
    /// Packets that left the bottleneck queue in the window.
    delay_n: u64,
    /// Sum of their waits in the queue, picoseconds.
    delay_sum: f64,
    /// Sum of |wait - previous wait| over consecutive packets, picoseconds.
    jitter_sum: f64,
    /// Wait of the flow's last packet, picoseconds.
    last_delay: f64,
}

/// The accumulators the window metrics are made of, copied at the start
/// of the statistics window and at its middle (`output.halves`) or its
/// batch boundaries (`output.stop`).
struct Mark {
    t: SimTime,
    busy: SimTime,
    area: f64,
    counters: QueueCounters,
    delays: DelayHistogram,
    /// Goodput bits of each persistent flow, then of each group.
    flow_bits: Vec<f64>,
    group_bits: Vec<f64>,
}

/// The accumulated measurements of one span of the statistics window.
struct Span {
    len: SimTime,
    /// Bottleneck busy time in the span.
    busy: SimTime,
    /// Integral of the queue length over the span, packets x picoseconds.
    area: f64,
    /// Packets offered to the queue and dropped by it in the span.
    arrivals: u64,
    drops: u64,
    delays: DelayHistogram,
    flow_bits: Vec<f64>,
    group_bits: Vec<f64>,
    /// Synchronization of the congestion events that began in the span.
    sync: Vec<f64>,
}

/// The window metrics of a span: one law for the statistics window and
/// for each of its halves.
struct Metrics {
    utilization: f64,
    /// Goodput of each persistent flow and of each group, bits/s.
    flow_goodput: Vec<f64>,
    group_goodput: Vec<f64>,
    /// Goodput of the forward groups together, bits/s.
    goodput_bps: f64,
    /// Jain's fairness index of the forward persistent flows' goodputs.
    jain_index: f64,
    drop_rate: f64,
    mean_queue_pkts: f64,
    delays: [f64; 3],
    sync_mean: f64,
}

impl Span {
    /// The metrics of the span; goodput and Jain's index count the flows
    /// of the groups `c` measures (the forward ones: [`Collector::forward`]).
    fn metrics(&self, c: &Collector) -> Metrics {
        let (secs, ps) = (self.len.as_secs_f64(), self.len.0 as f64);
        let flow_goodput: Vec<f64> = self.flow_bits.iter().map(|b| b / secs).collect();
        let group_goodput: Vec<f64> = self.group_bits.iter().map(|b| b / secs).collect();
        let forward: Vec<f64> = flow_goodput
            .iter()
            .zip(&c.flows)
            .filter(|(_, st)| c.forward[st.group as usize])
            .map(|(g, _)| *g)
            .collect();
        Metrics {
            utilization: self.busy.0 as f64 / ps,
            goodput_bps: group_goodput
                .iter()
                .zip(&c.forward)
                .filter(|(_, f)| **f)
                .map(|(g, _)| g)
                .sum(),
            jain_index: jain_index(&forward),
            flow_goodput,
            group_goodput,
            drop_rate: if self.arrivals > 0 {
                self.drops as f64 / self.arrivals as f64
            } else {
                0.0
            },
            mean_queue_pkts: self.area / ps,
            delays: [
                self.delays.mean_s(),
                self.delays.quantile_s(0.5),
                self.delays.quantile_s(0.99),
            ],
            sync_mean: stats::sync_mean(self.sync.iter().copied()),
        }
    }
}

impl Metrics {
    /// Every metric with its summary name and `suffix` (the halves;
    /// [`Collector::finish`] names the whole window's beside the others).
    fn named(&self, suffix: &str) -> Vec<(String, f64)> {
        let mut out = vec![
            (format!("utilization{suffix}"), self.utilization),
            (format!("goodput_bps{suffix}"), self.goodput_bps),
            (format!("drop_rate{suffix}"), self.drop_rate),
            (format!("mean_queue_pkts{suffix}"), self.mean_queue_pkts),
            (format!("mean_queue_delay_s{suffix}"), self.delays[0]),
            (format!("p50_queue_delay_s{suffix}"), self.delays[1]),
            (format!("p99_queue_delay_s{suffix}"), self.delays[2]),
            (format!("jain_index{suffix}"), self.jain_index),
            (format!("sync_mean{suffix}"), self.sync_mean),
        ];
        for (g, v) in self.group_goodput.iter().enumerate() {
            out.push((format!("goodput_bps_group{g}{suffix}"), *v));
        }
        out
    }
}

/// The packet engine's measurements, fed by the simulator as events happen.
pub struct Collector {
    warmup: SimTime,
    sync_window: SimTime,
    capacity_bps: f64,
    in_window: bool,
    // bottleneck
    busy_at_warmup: SimTime,
    area_at_warmup: f64,
    delays: DelayHistogram,
    // conservation (whole run)
    /// Packets sent (TCP segments and background).
    pub sent: u64,
    /// Packets that reached their receiver or sink (at the end of their
    /// serialization: the link's propagation is in the return path).
    pub delivered: u64,
    queue_drops: u64,
    random_drops_total: u64,
    access_drops: u64,
    /// Background packets dropped at the bottleneck in the statistics window.
    bg_drops: u64,
    /// Events processed.
    pub events: u64,
    // flows
    flows: Vec<FlowStat>,
    active: u64,
    long: u64,
    mss: Vec<u32>,
    large_bytes: u64,
    last_tick: SimTime,
    active_area: f64,
    long_area: f64,
    arrived: u64,
    completed: u64,
    refused: u64,
    /// Goodput bits in the window per group.
    good_bits: Vec<f64>,
    /// Per group: flows and transfers (those with a row) that sent no data
    /// segment in the whole run, and of those the ones still waiting for a
    /// SYN retry after a lost SYN ([`Collector::never_started`]).
    never_started: Vec<[u64; 2]>,
    /// Segments credited as goodput in the window that the run's end found
    /// held above a hole, taken back ([`Collector::undelivered`]).
    undelivered: u64,
    rec: Vec<Vec<f64>>,
    /// Flow slots allocated (peak simultaneous flows, zombies included).
    pub slots: usize,
    active_max: u64,
    // congestion events
    event_id: u64,
    event_start: SimTime,
    event_flows: u64,
    event_active: u64,
    sync: Vec<(f64, f64)>,
    // time series
    ts_time: Vec<f64>,
    ts_util: Vec<f64>,
    ts_queue: Vec<f64>,
    ts_drops: Vec<f64>,
    ts_cwnd: Vec<Vec<f64>>,
    ts_active: Vec<f64>,
    ts_long: Vec<f64>,
    prev_t: SimTime,
    prev_busy: SimTime,
    prev_area: f64,
    drops_in_interval: u64,
    /// Persistent flows (slots `0..persistent`).
    persistent: usize,
    /// Per group: its data crosses the forward link (not a `reverse`
    /// group). Flow counts, congestion events, goodput and Jain's index
    /// are the forward flows'.
    forward: Vec<bool>,
    /// Copies of the accumulators (`output.halves`, `output.stop`): the
    /// window's start, then each boundary passed (empty without either).
    marks: Vec<Mark>,
    /// `output.halves`.
    halves: bool,
    /// `output.stop`: for each verdict, its metric's value in each batch
    /// measured so far.
    batch_values: Vec<Vec<f64>>,
    /// The run stopped at a batch boundary (`output.stop`).
    stopped: bool,
    stop: Option<crate::scenario::Stop>,
}

impl Collector {
    /// A collector for `s` whose persistent flows (slots `0..`) have these
    /// (group, round-trip propagation delay).
    pub fn new(s: &Scenario, groups: Vec<(u32, SimTime)>) -> Collector {
        let n = groups.len();
        let mut c = Collector {
            warmup: s.warmup,
            sync_window: s.link().bdp_rtt.max(SimTime(1)),
            // A pool's ports or a chain's links together: the utilization
            // is theirs weighted by capacity (`Ports::busy_until`).
            capacity_bps: s
                .topology
                .queue_links()
                .iter()
                .map(|l| l.capacity_bps)
                .sum(),
            in_window: s.warmup == SimTime::ZERO,
            busy_at_warmup: SimTime::ZERO,
            area_at_warmup: 0.0,
            delays: DelayHistogram::default(),
            sent: 0,
            delivered: 0,
            queue_drops: 0,
            random_drops_total: 0,
            access_drops: 0,
            bg_drops: 0,
            events: 0,
            flows: groups
                .into_iter()
                .enumerate()
                .map(|(i, (group, rtt))| FlowStat {
                    group,
                    rtt,
                    id: i as u64,
                    ..FlowStat::default()
                })
                .collect(),
            active: 0,
            long: 0,
            mss: s.flows.iter().map(|g| g.mss_bytes).collect(),
            large_bytes: s.output.large_flow_bytes,
            last_tick: SimTime::ZERO,
            active_area: 0.0,
            long_area: 0.0,
            arrived: 0,
            completed: 0,
            refused: 0,
            good_bits: vec![0.0; s.flows.len()],
            never_started: vec![[0; 2]; s.flows.len()],
            undelivered: 0,
            rec: vec![Vec::new(); COLS.len()],
            slots: 0,
            active_max: 0,
            event_id: 0,
            event_start: SimTime::ZERO,
            event_flows: 0,
            event_active: 0,
            sync: Vec::new(),
            ts_time: Vec::new(),
            ts_util: Vec::new(),
            ts_queue: Vec::new(),
            ts_drops: Vec::new(),
            ts_cwnd: if s.output.cwnd {
                vec![Vec::new(); n]
            } else {
                Vec::new()
            },
            ts_active: Vec::new(),
            ts_long: Vec::new(),
            prev_t: SimTime::ZERO,
            prev_busy: SimTime::ZERO,
            prev_area: 0.0,
            drops_in_interval: 0,
            persistent: n,
            forward: s.flows.iter().map(|g| !g.reverse).collect(),
            marks: Vec::new(),
            halves: s.output.halves,
            batch_values: s
                .output
                .stop
                .as_ref()
                .map_or(Vec::new(), |st| vec![Vec::new(); st.decide.len()]),
            stopped: false,
            stop: s.output.stop.clone(),
        };
        if c.marking() && s.warmup == SimTime::ZERO {
            // The window starts at 0, where every accumulator is zero.
            c.marks.push(Mark {
                t: SimTime::ZERO,
                busy: SimTime::ZERO,
                area: 0.0,
                counters: QueueCounters::default(),
                delays: DelayHistogram::default(),
                flow_bits: vec![0.0; n],
                group_bits: vec![0.0; s.flows.len()],
            });
        }
        c
    }

    /// Flow `f` became active at `now`, its sender running `lag` behind
    /// (the packet engine's module doc): its arrival is `now - lag`.
    pub fn flow_started(&mut self, f: u32, now: SimTime, lag: SimTime) {
        self.tick(now);
        let st = &mut self.flows[f as usize];
        st.arrival = now - lag;
        if !self.forward[st.group as usize] {
            return;
        }
        if self.in_window && st.arrival >= self.warmup {
            self.arrived += 1;
        }
        self.active += 1;
        self.active_max = self.active_max.max(self.active);
        // A flow arriving during a congestion event may lose in it too.
        if self.event_id > 0 && now < self.event_start + self.sync_window {
            self.event_active += 1;
        }
    }

    /// Accumulate the time integrals of the active and long flow counts.
    #[inline]
    fn tick(&mut self, now: SimTime) {
        if self.in_window {
            let dt = (now - self.last_tick).0 as f64;
            self.active_area += self.active as f64 * dt;
            self.long_area += self.long as f64 * dt;
        }
        self.last_tick = now;
    }

    /// Slot `f` holds a new finite transfer (a new slot when `f` is the
    /// next index); `query`: an incast response's query.
    #[allow(clippy::too_many_arguments)]
    pub fn new_transfer(
        &mut self,
        f: u32,
        group: u32,
        rtt: SimTime,
        id: u64,
        arrival: SimTime,
        size: u64,
        query: Option<u64>,
    ) {
        let st = FlowStat {
            group,
            rtt,
            id,
            query,
            arrival,
            size,
            ..FlowStat::default()
        };
        if f as usize == self.flows.len() {
            self.flows.push(st);
        } else {
            self.flows[f as usize] = st;
        }
    }

    /// An open-loop arrival was refused (the group held `max_active` transfers).
    pub fn refused(&mut self) {
        self.refused += 1;
    }

    /// Flow `f` left slow start.
    pub fn left_slow_start(&mut self, f: u32, now: SimTime) {
        if !self.forward[self.flows[f as usize].group as usize] {
            return;
        }
        self.tick(now);
        self.long += 1;
    }

    /// A data segment of flow `f` that its receiver did not have yet
    /// reached it; its serialization on the bottleneck ended at `tx_end` and
    /// took `tx`.
    ///
    /// Goodput is the data of distinct segments (duplicates excluded) whose
    /// serialization on the bottleneck fell inside the measurement window,
    /// the segment in service at the window's start prorated: it can never
    /// exceed the capacity. (Counting the advance of rcv_nxt instead would
    /// credit the window with segments that crossed before it and waited
    /// out of order at the receiver.) A segment held above a hole at the
    /// run's end is taken back ([`Self::undelivered`]): goodput is the
    /// data delivered in order. Returns the bits credited.
    #[inline]
    pub fn delivered_new(&mut self, f: u32, tx_end: SimTime, tx: SimTime) -> f64 {
        if !self.in_window {
            return 0.0;
        }
        let st = &mut self.flows[f as usize];
        let g = st.group as usize;
        let mut bits = (self.mss[g] as u64 * 8) as f64;
        if tx_end < self.warmup + tx && tx.0 > 0 {
            bits *= (tx_end.0.saturating_sub(self.warmup.0)) as f64 / tx.0 as f64;
        }
        st.good_bits += bits;
        self.good_bits[g] += bits;
        // Taken by a lagging receiver after a mark, it crossed the
        // bottleneck before: it belongs to the span before the mark.
        for m in self.marks.iter_mut().rev() {
            if tx_end >= m.t {
                break;
            }
            m.group_bits[g] += bits;
            if let Some(b) = m.flow_bits.get_mut(f as usize) {
                *b += bits;
            }
        }
        bits
    }

    /// Take back the `bits` credited by [`Self::delivered_new`] to a
    /// segment of flow `f` whose serialization ended at `tx_end`: at the
    /// run's end its receiver still held it above a hole, so it was never
    /// delivered in order. The marks from `settled` on (those the flow's
    /// receiver had not passed, [`Self::unmark`]) after `tx_end` lose it
    /// too.
    pub fn undelivered(&mut self, f: u32, tx_end: SimTime, bits: f64, settled: usize) {
        let st = &mut self.flows[f as usize];
        let g = st.group as usize;
        st.good_bits -= bits;
        self.good_bits[g] -= bits;
        self.undelivered += 1;
        for m in self.marks.iter_mut().skip(settled).rev() {
            if tx_end >= m.t {
                break;
            }
            m.group_bits[g] -= bits;
            if let Some(b) = m.flow_bits.get_mut(f as usize) {
                *b -= bits;
            }
        }
    }

    /// Marks so far (boundaries of halves and batches).
    #[inline]
    pub fn mark_count(&self) -> usize {
        self.marks.len()
    }

    /// The time of mark `k`.
    pub fn mark_time(&self, k: usize) -> SimTime {
        self.marks[k].t
    }

    /// Take back from mark `k` the `bits` of a segment of flow `f` that
    /// its receiver still held above a hole when it passed the mark (took
    /// its first segment that crossed the bottleneck after it): as in the
    /// run cut at the mark, that segment was not delivered in order by
    /// then.
    pub fn unmark(&mut self, k: usize, f: u32, bits: f64) {
        let g = self.flows[f as usize].group as usize;
        let m = &mut self.marks[k];
        m.group_bits[g] -= bits;
        if let Some(b) = m.flow_bits.get_mut(f as usize) {
            *b -= bits;
        }
    }

    /// Finite transfer in slot `f` is over at `now` (`finished`: its last
    /// packet was acknowledged; otherwise the run ended first), its sender
    /// running `lag` behind: it ended at `now - lag`. Records its row.
    pub fn transfer_end(
        &mut self,
        f: u32,
        now: SimTime,
        lag: SimTime,
        e: &FlowEnd,
        finished: bool,
    ) {
        let forward = self.forward[self.flows[f as usize].group as usize];
        if finished && forward {
            self.tick(now);
            self.active -= 1;
            if e.long {
                self.long -= 1;
            }
        }
        let st = &self.flows[f as usize];
        if st.arrival < self.warmup {
            return;
        }
        if finished && forward && self.in_window {
            self.completed += 1;
        }
        if !finished {
            self.never_started(st.group as usize, e);
        }
        let st = &self.flows[f as usize];
        let end = now - lag;
        let dur = (end - st.arrival).as_secs_f64();
        let bytes = e.bytes(Some(st.size));
        let thr = if dur > 0.0 {
            bytes * 8.0 / dur
        } else {
            f64::NAN
        };
        let span = RowSpan {
            rate_bps: thr,
            drops: st.drops_life,
            sent: e.stats.sent,
            size: Some(st.size),
            end: finished.then_some(end),
        };
        let row = self.row(st, e, span);
        for (c, v) in self.rec.iter_mut().zip(row) {
            c.push(v);
        }
    }

    /// Count a flow of group `g` at its end `e` if it never sent a data
    /// segment: `never_started_group<g>` in the summary, and
    /// `never_started_syn_lost_group<g>` if a lost SYN is why (RFC 6298
    /// section 5.7: the handshake's retries back off from the initial RTO,
    /// so the next one may fall after the run's end).
    fn never_started(&mut self, g: usize, e: &FlowEnd) {
        if e.stats.sent == 0
            && let Some(n) = self.never_started.get_mut(g)
        {
            n[0] += 1;
            n[1] += u64::from(e.syn_lost);
        }
    }

    /// One row of the flows table (columns as [`COLS`]).
    fn row(&self, st: &FlowStat, e: &FlowEnd, span: RowSpan) -> [f64; COLS.len()] {
        let sent = span.sent as f64;
        let drops = span.drops as f64;
        let (end_s, fct_s) = match span.end {
            Some(end) => (end.as_secs_f64(), (end - st.arrival).as_secs_f64()),
            None => (f64::NAN, f64::NAN),
        };
        let large = span
            .size
            .is_none_or(|size| size.saturating_mul(e.mss as u64) > self.large_bytes);
        [
            st.id as f64,
            st.group as f64,
            st.rtt.as_secs_f64(),
            span.rate_bps,
            e.rcv_nxt as f64,
            e.stats.sent as f64,
            e.stats.retransmits as f64,
            e.stats.timeouts as f64,
            e.stats.recoveries as f64,
            e.stats.ecn_reductions as f64,
            e.stats.probes as f64,
            drops,
            if sent > 0.0 { drops / sent } else { 0.0 },
            e.srtt.map_or(f64::NAN, |t| t.as_secs_f64()),
            e.cwnd,
            span.size.map_or(f64::NAN, |size| size as f64),
            st.arrival.as_secs_f64(),
            end_s,
            fct_s,
            e.bytes(span.size),
            span.rate_bps,
            span.end.is_some() as u8 as f64,
            e.long as u8 as f64,
            large as u8 as f64,
            st.delay_n as f64,
            if st.delay_n > 0 {
                st.delay_sum / st.delay_n as f64 * 1e-12
            } else {
                0.0
            },
            if st.delay_n > 1 {
                st.jitter_sum / (st.delay_n - 1) as f64 * 1e-12
            } else {
                0.0
            },
            st.query.map_or(f64::NAN, |q| q as f64),
        ]
    }

    /// A packet of `flow` (or [`crate::net::BACKGROUND`]) left the
    /// bottleneck queue for the link after `waited` in it.
    #[inline]
    pub fn dequeued(&mut self, flow: u32, waited: SimTime) {
        if self.in_window {
            self.delays.record(waited);
            if flow != crate::net::BACKGROUND {
                self.flow_waited(flow, waited);
            }
        }
    }

    /// A data packet of `flow` left its first queue after `waited` there:
    /// the flows table's queueing-delay columns (the bottleneck's packets
    /// through [`Collector::dequeued`]; a reverse group's on the reverse
    /// link).
    #[inline]
    pub fn flow_waited(&mut self, flow: u32, waited: SimTime) {
        if self.in_window {
            let st = &mut self.flows[flow as usize];
            let w = waited.0 as f64;
            if st.delay_n > 0 {
                st.jitter_sum += (w - st.last_delay).abs();
            }
            st.delay_n += 1;
            st.delay_sum += w;
            st.last_delay = w;
        }
    }

    /// The flows table's id (`flow` column) of the flow in slot `f`.
    #[inline]
    pub fn flow_id(&self, f: u32) -> u64 {
        self.flows[f as usize].id
    }

    /// The bottleneck queue dropped a packet of `flow` (or [`crate::net::BACKGROUND`])
    /// at `now`; opens a congestion event unless one is running.
    pub fn queue_drop(&mut self, now: SimTime, flow: u32) {
        if flow != crate::net::BACKGROUND {
            self.flows[flow as usize].drops_life += 1;
        }
        self.queue_drops += 1;
        self.drops_in_interval += 1;
        if !self.in_window {
            return;
        }
        if self.event_id == 0 || now >= self.event_start + self.sync_window {
            self.close_event();
            self.event_id += 1;
            self.event_start = now;
            self.event_flows = 0;
            self.event_active = self.active;
        }
        if flow == crate::net::BACKGROUND {
            self.bg_drops += 1;
        } else {
            let st = &mut self.flows[flow as usize];
            st.queue_drops += 1;
            if st.event_stamp != self.event_id {
                st.event_stamp = self.event_id;
                self.event_flows += 1;
            }
        }
    }

    /// The reverse link dropped a data packet of (reverse) `flow`: its
    /// loss, not a congestion event of the forward link.
    pub fn reverse_drop(&mut self, flow: u32) {
        self.queue_drops += 1;
        let st = &mut self.flows[flow as usize];
        st.drops_life += 1;
        if self.in_window {
            st.queue_drops += 1;
        }
    }

    fn close_event(&mut self) {
        if self.event_id > 0 && self.event_active > 0 {
            let frac = self.event_flows as f64 / self.event_active as f64;
            self.sync.push((self.event_start.as_secs_f64(), frac));
        }
        self.event_id = self.event_id.max(1);
    }

    /// A packet of `flow` found its access link's buffer full.
    pub fn access_drop(&mut self, flow: u32) {
        self.access_drops += 1;
        self.path_drop(flow);
    }

    /// A packet of `flow` was lost by the random-loss element.
    pub fn random_drop(&mut self, flow: u32) {
        self.random_drops_total += 1;
        self.path_drop(flow);
    }

    /// A drop off the bottleneck queue (access link or random loss).
    fn path_drop(&mut self, flow: u32) {
        self.flows[flow as usize].drops_life += 1;
        if self.in_window {
            self.flows[flow as usize].random_drops += 1;
        }
    }

    /// Append one time-series sample at `t`: utilization and mean queue
    /// since the last sample (the links' busy time from `q`), drops,
    /// flow counts and the persistent flows' `cwnd` (packets).
    pub fn sample(&mut self, t: SimTime, q: &mut Ports, cwnd: &[f64]) {
        let busy = q.busy_until(t);
        self.ts_active.push(self.active as f64);
        self.ts_long.push(self.long as f64);
        let dt = (t - self.prev_t).0 as f64;
        let area = q.area(t);
        self.ts_time.push(t.as_secs_f64());
        self.ts_util.push((busy - self.prev_busy).0 as f64 / dt);
        self.ts_queue.push((area - self.prev_area) / dt);
        self.ts_drops.push(self.drops_in_interval as f64);
        // Empty unless `output.cwnd`.
        for (col, &w) in self.ts_cwnd.iter_mut().zip(cwnd) {
            col.push(w);
        }
        self.prev_t = t;
        self.prev_busy = busy;
        self.prev_area = area;
        self.drops_in_interval = 0;
    }

    /// Statistics start now; `at_warmup` holds each flow's segments sent.
    pub fn warmup_end(&mut self, t: SimTime, q: &mut Ports, at_warmup: &[u64]) {
        let busy = q.busy_until(t);
        self.tick(t);
        self.in_window = true;
        self.busy_at_warmup = busy;
        self.area_at_warmup = q.area(t);
        for (st, &sent) in self.flows.iter_mut().zip(at_warmup) {
            st.sent_at_warmup = sent;
        }
        if self.marking() {
            let m = self.snapshot(t, q);
            self.marks.push(m);
        }
    }

    /// Whether [`Collector::marks`] are kept (`output.halves`, `output.stop`).
    fn marking(&self) -> bool {
        self.halves || self.stop.is_some()
    }

    /// The accumulators of the window metrics at `t`.
    fn snapshot(&self, t: SimTime, q: &mut Ports) -> Mark {
        Mark {
            t,
            busy: q.busy_until(t),
            area: q.area(t),
            counters: q.counters(),
            delays: self.delays.clone(),
            flow_bits: self.flow_bits(),
            group_bits: self.good_bits.clone(),
        }
    }

    /// The measurements between two copies of the accumulators.
    fn span(&self, a: &Mark, b: &Mark) -> Span {
        let later = |x: &[f64], y: &[f64]| x.iter().zip(y).map(|(p, q)| p - q).collect();
        let (ta, tb) = (a.t.as_secs_f64(), b.t.as_secs_f64());
        Span {
            len: b.t - a.t,
            busy: b.busy - a.busy,
            area: b.area - a.area,
            arrivals: b.counters.arrivals - a.counters.arrivals,
            drops: b.counters.drops - a.counters.drops,
            delays: b.delays.since(&a.delays),
            flow_bits: later(&b.flow_bits, &a.flow_bits),
            group_bits: later(&b.group_bits, &a.group_bits),
            sync: self
                .sync
                .iter()
                .filter(|e| e.0 >= ta && e.0 < tb)
                .map(|e| e.1)
                .collect(),
        }
    }

    /// A boundary of the statistics window: its middle (`output.halves`)
    /// or a batch's end (`output.stop`). Copies the accumulators and, with
    /// a stop rule, measures the batch that ends here. Returns whether
    /// the run stops here: every verdict of the stop rule is known
    /// ([`crate::stats::verdict_known`]) after at least `min_batches`.
    pub fn boundary(&mut self, t: SimTime, q: &mut Ports) -> bool {
        let m = self.snapshot(t, q);
        self.marks.push(m);
        let Some(stop) = self.stop.as_ref() else {
            return false;
        };
        let [.., a, b] = self.marks.as_slice() else {
            return false;
        };
        let named = self.span(a, b).metrics(self).named("");
        for (d, values) in stop.decide.iter().zip(&mut self.batch_values) {
            let v = named
                .iter()
                .find(|(k, _)| *k == d.metric)
                .map_or(f64::NAN, |x| x.1);
            values.push(v);
        }
        let k = self.marks.len() as u32 - 1;
        if k < stop.min_batches || k >= stop.batches {
            return false;
        }
        // Bonferroni over the boundaries where a run may stop.
        let q = 1.0 - (1.0 - stop.confidence) / f64::from(stop.batches - stop.min_batches);
        let known = stop
            .decide
            .iter()
            .zip(&self.batch_values)
            .all(|(d, v)| stats::verdict_known(v, d.op == ">=", d.bound, q));
        if known {
            // The run ends here: this copy is its end, not a boundary.
            self.marks.pop();
            self.stopped = true;
        }
        known
    }

    /// Goodput bits of each persistent flow in the window so far.
    fn flow_bits(&self) -> Vec<f64> {
        self.flows[..self.persistent]
            .iter()
            .map(|st| st.good_bits)
            .collect()
    }

    /// The window metrics of each half of the statistics window, named
    /// `<metric>_half1` and `<metric>_half2`: from the window's start to
    /// the mark `k / 2` of the `k` spans, and from there to `end` (empty
    /// without `output.halves`).
    fn halves(&self, end: &Mark) -> Vec<(String, f64)> {
        let k = self.marks.len();
        if !self.halves || k < 2 {
            return Vec::new();
        }
        let mid = &self.marks[k / 2];
        let mut out = self.span(&self.marks[0], mid).metrics(self).named("_half1");
        out.extend(self.span(mid, end).metrics(self).named("_half2"));
        out
    }

    /// The run's output at `now`: summary, time series, flows table
    /// (`ends`: the persistent flows, in slot order) and congestion events.
    pub fn finish(
        mut self,
        now: SimTime,
        q: &mut Ports,
        in_flight: u64,
        ends: &[FlowEnd],
    ) -> RunOutput {
        self.close_event();
        let busy = q.busy_until(now);
        let span_ps = (now - self.warmup).0 as f64;
        let qc = q.counters();
        debug_assert_eq!(ends.len(), self.persistent);
        let whole = Span {
            len: now - self.warmup,
            busy: busy - self.busy_at_warmup,
            area: q.area(now) - self.area_at_warmup,
            arrivals: qc.arrivals,
            drops: qc.drops,
            delays: self.delays.clone(),
            flow_bits: self.flow_bits(),
            group_bits: self.good_bits.clone(),
            sync: self.sync.iter().map(|x| x.1).collect(),
        }
        .metrics(&self);
        let halves = if self.halves {
            let end = self.snapshot(now, q);
            self.halves(&end)
        } else {
            Vec::new()
        };

        // Persistent flows (`ends`, in slot order) first, then finite transfers.
        self.tick(now);
        let mut cols: Vec<Vec<f64>> = vec![Vec::new(); COLS.len()];
        for (i, e) in ends.iter().enumerate() {
            self.never_started(self.flows[i].group as usize, e);
        }
        // Started flows that delivered nothing in the window, per group.
        let mut idle = vec![0u64; self.never_started.len()];
        for ((st, e), &g) in self.flows.iter().zip(ends).zip(&whole.flow_goodput) {
            if g == 0.0
                && e.stats.sent > 0
                && let Some(n) = idle.get_mut(st.group as usize)
            {
                *n += 1;
            }
        }
        for ((st, e), &g) in self.flows.iter().zip(ends).zip(&whole.flow_goodput) {
            let window = RowSpan {
                rate_bps: g,
                drops: st.queue_drops + st.random_drops,
                sent: e.stats.sent - st.sent_at_warmup.min(e.stats.sent),
                size: None,
                end: None,
            };
            for (c, v) in cols.iter_mut().zip(self.row(st, e, window)) {
                c.push(v);
            }
        }
        let mut flows = Table::default();
        for ((name, mut col), rec) in COLS.iter().zip(cols).zip(std::mem::take(&mut self.rec)) {
            col.extend(rec);
            flows.push(*name, col);
        }

        let w = &whole;
        let mut summary = vec![
            ("utilization".to_string(), w.utilization),
            // The bits serialized in the window: the link sends at its
            // capacity while busy (counting whole packets as they finish
            // would credit the window with a packet begun before it).
            ("throughput_bps".into(), w.utilization * self.capacity_bps),
            ("goodput_bps".into(), w.goodput_bps),
            ("drop_rate".into(), w.drop_rate),
            ("mean_queue_pkts".into(), w.mean_queue_pkts),
            ("max_queue_pkts".into(), q.max_pkts() as f64),
            ("mean_queue_delay_s".into(), w.delays[0]),
            ("p50_queue_delay_s".into(), w.delays[1]),
            ("p99_queue_delay_s".into(), w.delays[2]),
            ("jain_index".into(), w.jain_index),
            ("congestion_events".into(), self.sync.len() as f64),
            ("sync_mean".into(), w.sync_mean),
            (
                "timeouts".into(),
                flows.get("timeouts").map_or(0.0, |t| t.iter().sum()),
            ),
            ("background_drops".into(), self.bg_drops as f64),
        ];
        // Queue drops in the statistics window by the reasons the
        // disciplines declare (overflow first), over every forward queue.
        for (r, n) in q.drops_by_reason() {
            summary.push((format!("drops_{r}"), n as f64));
        }
        for (g, v) in w.group_goodput.iter().enumerate() {
            summary.push((format!("goodput_bps_group{g}"), *v));
        }
        // Flows that never sent data or sat idle through the window, per
        // group, only where there are some (a lower Jain's index alone
        // would not show them).
        for (g, (n, &i)) in self.never_started.iter().zip(&idle).enumerate() {
            if n[0] > 0 {
                summary.push((format!("never_started_group{g}"), n[0] as f64));
                summary.push((format!("never_started_syn_lost_group{g}"), n[1] as f64));
            }
            if i > 0 {
                summary.push((format!("idle_group{g}"), i as f64));
            }
        }
        if self.undelivered > 0 {
            // Why goodput can fall short of the link's utilization: data
            // past the bottleneck behind an unrepaired loss (under RFC 6675
            // a lost retransmission waits for the RTO, having no other way
            // to be seen).
            summary.push(("undelivered_pkts".into(), self.undelivered as f64));
        }
        if self.forward.contains(&false) {
            // Two-way traffic: the reverse groups' goodput together.
            let rev = w.group_goodput.iter().zip(&self.forward);
            let rev: f64 = rev.filter(|(_, f)| !**f).map(|(g, _)| g).sum();
            summary.push(("goodput_bps_reverse".into(), rev));
        }
        // Flow level (traffic module): time averages over the window, counts of
        // transfers that arrived / completed in it, refused arrivals (overload).
        summary.extend([
            ("active_flows_mean".to_string(), self.active_area / span_ps),
            ("long_flows_mean".into(), self.long_area / span_ps),
            ("active_flows_max".into(), self.active_max as f64),
            ("flows_arrived".into(), self.arrived as f64),
            ("flows_completed".into(), self.completed as f64),
            ("flows_refused".into(), self.refused as f64),
            ("overload".into(), (self.refused > 0) as u8 as f64),
            ("flow_slots".into(), self.slots as f64),
        ]);
        summary.extend([
            ("capacity_bps".to_string(), self.capacity_bps),
            ("packets_sent".into(), self.sent as f64),
            ("packets_delivered".into(), self.delivered as f64),
            (
                "packets_dropped".into(),
                (self.queue_drops + self.random_drops_total + self.access_drops) as f64,
            ),
            ("access_drops".into(), self.access_drops as f64),
            ("packets_in_flight".into(), in_flight as f64),
            ("events".into(), self.events as f64),
        ]);
        summary.extend(halves);
        if self.stop.is_some() {
            // output.stop: where the window ended, and its batches.
            summary.extend([
                ("end_s".to_string(), now.as_secs_f64()),
                ("batches_run".into(), self.marks.len() as f64),
                ("stopped_early".into(), f64::from(u8::from(self.stopped))),
            ]);
        }

        let mut ts = Table::default();
        ts.push("time_s", self.ts_time);
        ts.push("utilization", self.ts_util);
        ts.push("queue_pkts", self.ts_queue);
        ts.push("drops", self.ts_drops);
        ts.push("active_flows", self.ts_active);
        ts.push("long_flows", self.ts_long);
        for (i, col) in self.ts_cwnd.into_iter().enumerate() {
            ts.push(format!("cwnd_flow{i}"), col);
        }
        let mut ev = Table::default();
        ev.push("time_s", self.sync.iter().map(|x| x.0).collect());
        ev.push("fraction", self.sync.iter().map(|x| x.1).collect());
        RunOutput {
            summary,
            timeseries: ts,
            flows,
            congestion_events: ev,
            trace: Table::default(),
            trace_events: Vec::new(),
            completed: true,
        }
    }
}
