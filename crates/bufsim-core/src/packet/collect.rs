//! What the packet engine measures: bottleneck utilization, drops, queue
//! occupancy and queueing delay, per-flow goodput and loss, loss
//! synchronization, and the sampled time series. Statistics cover
//! [warmup, duration]; time series cover the whole run.
//!
//! Loss synchronization: a *congestion event* starts with a drop at the
//! bottleneck and lasts one reference RTT (`link.bdp_rtt`, the mean RTT by
//! default); its synchronization is the fraction of active TCP flows that
//! lost at least one packet at the bottleneck during it.

use crate::output::{RunOutput, Table};
use crate::queue::Queue;
use crate::scenario::Scenario;
use crate::stats::histogram::DelayHistogram;
use crate::stats::jain_index;
use crate::tcp::sender::SenderStats;
use crate::units::SimTime;

/// End-of-run state of one flow, handed over by the simulator.
pub struct FlowEnd {
    /// Next segment the receiver expects.
    pub rcv_nxt: u64,
    pub mss: u32,
    pub stats: SenderStats,
    pub srtt: Option<SimTime>,
    pub cwnd: f64,
}

#[derive(Clone, Default)]
struct FlowStat {
    group: u32,
    rtt: SimTime,
    queue_drops: u64,
    random_drops: u64,
    rcv_at_warmup: u64,
    sent_at_warmup: u64,
    event_stamp: u64,
    started: bool,
}

pub struct Collector {
    warmup: SimTime,
    sync_window: SimTime,
    capacity_bps: f64,
    cwnd: bool,
    in_window: bool,
    // bottleneck
    pub busy: SimTime,
    pub tx_start: SimTime,
    busy_at_warmup: SimTime,
    bits: f64,
    area_at_warmup: f64,
    delays: DelayHistogram,
    // conservation (whole run)
    pub sent: u64,
    pub delivered: u64,
    queue_drops: u64,
    random_drops: u64,
    pub events: u64,
    // flows
    flows: Vec<FlowStat>,
    active: u64,
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
    prev_t: SimTime,
    prev_busy: SimTime,
    prev_area: f64,
    drops_in_interval: u64,
}

impl Collector {
    pub fn new(s: &Scenario, groups: Vec<(u32, SimTime)>) -> Collector {
        let n = groups.len();
        Collector {
            warmup: s.warmup_s,
            sync_window: s.link.bdp_rtt_s.max(SimTime(1)),
            capacity_bps: s.link.capacity_bps,
            cwnd: s.output.cwnd,
            in_window: s.warmup_s == SimTime::ZERO,
            busy: SimTime::ZERO,
            tx_start: SimTime::ZERO,
            busy_at_warmup: SimTime::ZERO,
            bits: 0.0,
            area_at_warmup: 0.0,
            delays: DelayHistogram::default(),
            sent: 0,
            delivered: 0,
            queue_drops: 0,
            random_drops: 0,
            events: 0,
            flows: groups.into_iter().map(|(group, rtt)| FlowStat { group, rtt, ..FlowStat::default() }).collect(),
            active: 0,
            event_id: 0,
            event_start: SimTime::ZERO,
            event_flows: 0,
            event_active: 0,
            sync: Vec::new(),
            ts_time: Vec::new(),
            ts_util: Vec::new(),
            ts_queue: Vec::new(),
            ts_drops: Vec::new(),
            ts_cwnd: if s.output.cwnd { vec![Vec::new(); n] } else { Vec::new() },
            prev_t: SimTime::ZERO,
            prev_busy: SimTime::ZERO,
            prev_area: 0.0,
            drops_in_interval: 0,
        }
    }

    pub fn flow_started(&mut self, f: u32) {
        self.flows[f as usize].started = true;
        self.active += 1;
    }

    #[inline]
    pub fn dequeued(&mut self, _now: SimTime, waited: SimTime) {
        if self.in_window {
            self.delays.record(waited);
        }
    }

    #[inline]
    pub fn tx_bits(&mut self, bytes: u32) {
        if self.in_window {
            self.bits += bytes as f64 * 8.0;
        }
    }

    pub fn queue_drop(&mut self, now: SimTime, flow: u32) {
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
        if flow != crate::net::BACKGROUND {
            let st = &mut self.flows[flow as usize];
            st.queue_drops += 1;
            if st.event_stamp != self.event_id {
                st.event_stamp = self.event_id;
                self.event_flows += 1;
            }
        }
    }

    fn close_event(&mut self) {
        if self.event_id > 0 && self.event_active > 0 {
            let frac = self.event_flows as f64 / self.event_active as f64;
            self.sync.push((self.event_start.as_secs_f64(), frac));
        }
        self.event_id = self.event_id.max(1);
    }

    pub fn random_drop(&mut self, flow: u32) {
        self.random_drops += 1;
        if self.in_window {
            self.flows[flow as usize].random_drops += 1;
        }
    }

    pub fn sample(&mut self, t: SimTime, q: &mut Queue, busy: SimTime, cwnd: &[f64]) {
        let dt = (t - self.prev_t).0 as f64;
        let area = q.area(t);
        self.ts_time.push(t.as_secs_f64());
        self.ts_util.push((busy - self.prev_busy).0 as f64 / dt);
        self.ts_queue.push((area - self.prev_area) / dt);
        self.ts_drops.push(self.drops_in_interval as f64);
        if self.cwnd {
            for (col, &w) in self.ts_cwnd.iter_mut().zip(cwnd) {
                col.push(w);
            }
        }
        self.prev_t = t;
        self.prev_busy = busy;
        self.prev_area = area;
        self.drops_in_interval = 0;
    }

    /// Statistics start now; `at_warmup` holds each flow's (rcv_nxt, segments sent).
    pub fn warmup_end(&mut self, t: SimTime, q: &mut Queue, busy: SimTime, at_warmup: &[(u64, u64)]) {
        self.in_window = true;
        self.busy_at_warmup = busy;
        self.area_at_warmup = q.area(t);
        q.reset_counters();
        for (st, &(r, sent)) in self.flows.iter_mut().zip(at_warmup) {
            st.rcv_at_warmup = r;
            st.sent_at_warmup = sent;
        }
    }

    pub fn finish(mut self, now: SimTime, q: &mut Queue, busy: SimTime, in_flight: u64, ends: &[FlowEnd]) -> RunOutput {
        self.close_event();
        let span = (now - self.warmup).as_secs_f64();
        let span_ps = (now - self.warmup).0 as f64;
        let util = (busy - self.busy_at_warmup).0 as f64 / span_ps;
        let mean_q = (q.area(now) - self.area_at_warmup) / span_ps;
        let qc = q.counters;
        let drop_rate = if qc.arrivals > 0 { qc.drops as f64 / qc.arrivals as f64 } else { 0.0 };

        let mut flows = Table::default();
        let n = ends.len();
        let mut goodput = Vec::with_capacity(n);
        let mut cols: [Vec<f64>; 12] = Default::default();
        let ngroups = self.flows.iter().map(|f| f.group + 1).max().unwrap_or(0) as usize;
        let mut group_goodput = vec![0.0; ngroups];
        for (i, (st, e)) in self.flows.iter().zip(ends).enumerate() {
            let bits = (e.rcv_nxt - st.rcv_at_warmup) as f64 * e.mss as f64 * 8.0;
            let g = bits / span;
            goodput.push(g);
            group_goodput[st.group as usize] += g;
            let sent = (e.stats.sent - st.sent_at_warmup.min(e.stats.sent)) as f64;
            let drops = (st.queue_drops + st.random_drops) as f64;
            for (c, v) in cols.iter_mut().zip([
                i as f64,
                st.group as f64,
                st.rtt.as_secs_f64(),
                g,
                e.rcv_nxt as f64,
                e.stats.sent as f64,
                e.stats.retransmits as f64,
                e.stats.timeouts as f64,
                e.stats.recoveries as f64,
                drops,
                if sent > 0.0 { drops / sent } else { 0.0 },
                e.srtt.map_or(f64::NAN, |t| t.as_secs_f64()),
            ]) {
                c.push(v);
            }
        }
        for (name, col) in [
            "flow", "group", "rtt_s", "goodput_bps", "delivered_pkts", "sent_pkts", "retransmits",
            "timeouts", "recoveries", "drops", "loss_rate", "srtt_s",
        ]
        .iter()
        .zip(cols)
        {
            flows.push(*name, col);
        }
        flows.push("final_cwnd_pkts", ends.iter().map(|e| e.cwnd).collect());

        let total_goodput: f64 = goodput.iter().sum();
        let sync_mean = if self.sync.is_empty() {
            f64::NAN
        } else {
            self.sync.iter().map(|x| x.1).sum::<f64>() / self.sync.len() as f64
        };
        let mut summary = vec![
            ("utilization".to_string(), util),
            ("throughput_bps".into(), self.bits / span),
            ("goodput_bps".into(), total_goodput),
            ("drop_rate".into(), drop_rate),
            ("mean_queue_pkts".into(), mean_q),
            ("max_queue_pkts".into(), q.max_pkts() as f64),
            ("mean_queue_delay_s".into(), self.delays.mean_s()),
            ("p50_queue_delay_s".into(), self.delays.quantile_s(0.5)),
            ("p99_queue_delay_s".into(), self.delays.quantile_s(0.99)),
            ("jain_index".into(), jain_index(&goodput)),
            ("congestion_events".into(), self.sync.len() as f64),
            ("sync_mean".into(), sync_mean),
            ("timeouts".into(), ends.iter().map(|e| e.stats.timeouts as f64).sum()),
        ];
        for (g, v) in group_goodput.iter().enumerate() {
            summary.push((format!("goodput_bps_group{g}"), *v));
        }
        summary.extend([
            ("capacity_bps".to_string(), self.capacity_bps),
            ("packets_sent".into(), self.sent as f64),
            ("packets_delivered".into(), self.delivered as f64),
            ("packets_dropped".into(), (self.queue_drops + self.random_drops) as f64),
            ("packets_in_flight".into(), in_flight as f64),
            ("events".into(), self.events as f64),
        ]);

        let mut ts = Table::default();
        ts.push("time_s", self.ts_time);
        ts.push("utilization", self.ts_util);
        ts.push("queue_pkts", self.ts_queue);
        ts.push("drops", self.ts_drops);
        for (i, col) in self.ts_cwnd.into_iter().enumerate() {
            ts.push(format!("cwnd_flow{i}"), col);
        }
        let mut ev = Table::default();
        ev.push("time_s", self.sync.iter().map(|x| x.0).collect());
        ev.push("fraction", self.sync.iter().map(|x| x.1).collect());
        RunOutput { summary, timeseries: ts, flows, congestion_events: ev, completed: true }
    }
}
