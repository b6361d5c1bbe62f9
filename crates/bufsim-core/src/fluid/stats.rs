//! What the fluid engines measure, and the [`RunOutput`] built from it. Both
//! fluid models feed one [`Recorder`], so their results have the packet
//! engine's shape and metric names.

use crate::output::{RunOutput, Table};
use crate::scenario::Scenario;
use crate::units::SimTime;

/// Bins of the queue-delay histogram over [0, buffer].
const HIST_BINS: usize = 4096;

/// Accumulates statistics over [warmup, duration] and samples the time series.
pub struct Recorder {
    warmup: SimTime,
    cap: f64,
    pkt_bytes: f64,
    buffer: f64,
    /// Seconds accumulated inside the statistics window.
    time: f64,
    /// Fluid served by the link, link packets.
    served: f64,
    /// Fluid arrived at the queue (TCP and background), link packets.
    arrived: f64,
    /// Fluid lost at the queue, link packets.
    lost: f64,
    /// Integral of the queue, packet-seconds.
    pub q_area: f64,
    hist: Vec<f64>,
    /// Per flow: fluid accepted into the queue, link packets.
    pub accepted: Vec<f64>,
    /// Per flow: fluid lost, link packets.
    pub lost_flow: Vec<f64>,
    /// Per flow: integral of the window, packet-seconds.
    pub w_area: Vec<f64>,
    /// Per flow: window reductions (loss events recorded).
    pub loss_events: Vec<f64>,
    ev_time: Vec<f64>,
    ev_frac: Vec<f64>,
    interval: SimTime,
    next_sample: SimTime,
    last_sample: SimTime,
    served_since: f64,
    cwnd: bool,
    ts_time: Vec<f64>,
    ts_util: Vec<f64>,
    ts_q: Vec<f64>,
    ts_w: Vec<Vec<f64>>,
}

impl Recorder {
    /// A recorder for `s` with `n` flows; `cap` is the link rate in link packets/s.
    pub fn new(s: &Scenario, n: usize, cap: f64) -> Recorder {
        let samples = (s.duration.0 / s.output.interval.0.max(1)) as usize + 2;
        let cwnd = s.output.cwnd;
        Recorder {
            warmup: s.warmup,
            cap,
            pkt_bytes: s.link().packet_size_bytes as f64,
            buffer: s.link().buffer_pkts as f64,
            time: 0.0,
            served: 0.0,
            arrived: 0.0,
            lost: 0.0,
            q_area: 0.0,
            hist: vec![0.0; HIST_BINS],
            accepted: vec![0.0; n],
            lost_flow: vec![0.0; n],
            w_area: vec![0.0; n],
            loss_events: vec![0.0; n],
            ev_time: Vec::new(),
            ev_frac: Vec::new(),
            interval: s.output.interval,
            next_sample: s.output.interval,
            last_sample: SimTime::ZERO,
            served_since: 0.0,
            cwnd,
            ts_time: Vec::with_capacity(samples.min(1 << 20)),
            ts_util: Vec::with_capacity(samples.min(1 << 20)),
            ts_q: Vec::with_capacity(samples.min(1 << 20)),
            ts_w: if cwnd {
                vec![Vec::new(); n]
            } else {
                Vec::new()
            },
        }
    }

    /// True when a step starting at `t` counts towards the statistics.
    #[inline]
    pub fn in_window(&self, t: SimTime) -> bool {
        t >= self.warmup
    }

    /// Account one step of `h` seconds: link totals, the queue at both ends,
    /// and `accepted` fluid that saw queueing delay `q_end / C`.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn step(
        &mut self,
        t: SimTime,
        h: f64,
        served: f64,
        arrived: f64,
        lost: f64,
        q0: f64,
        q1: f64,
        accepted: f64,
    ) {
        self.served_since += served;
        if t < self.warmup {
            return;
        }
        self.time += h;
        self.served += served;
        self.arrived += arrived;
        self.lost += lost;
        self.q_area += 0.5 * (q0 + q1) * h;
        let bin = ((q1 / self.buffer) * HIST_BINS as f64) as usize;
        self.hist[bin.min(HIST_BINS - 1)] += accepted;
    }

    /// A congestion event at `t` in which `fraction` of the flows recorded a loss.
    pub fn event(&mut self, t: SimTime, fraction: f64) {
        self.ev_time.push(t.as_secs_f64());
        self.ev_frac.push(fraction);
    }

    /// Whether a time-series sample is due at `t` (call [`Recorder::sample`] then).
    #[inline]
    pub fn sample_due(&self, t: SimTime) -> bool {
        t >= self.next_sample
    }

    /// Record a time-series sample at `t`: queue `q` and windows `w`.
    pub fn sample(&mut self, t: SimTime, q: f64, w: &[f64]) {
        let span = (t - self.last_sample).as_secs_f64();
        self.ts_time.push(t.as_secs_f64());
        self.ts_util.push(if span > 0.0 {
            self.served_since / (self.cap * span)
        } else {
            0.0
        });
        self.ts_q.push(q);
        if self.cwnd {
            for (col, &x) in self.ts_w.iter_mut().zip(w) {
                col.push(x);
            }
        }
        self.served_since = 0.0;
        self.last_sample = t;
        while self.next_sample <= t {
            self.next_sample += self.interval;
        }
    }

    fn quantile(&self, p: f64) -> f64 {
        let total: f64 = self.hist.iter().sum();
        if total <= 0.0 {
            return 0.0;
        }
        let target = p * total;
        let mut acc = 0.0;
        let width = self.buffer / HIST_BINS as f64;
        for (k, &x) in self.hist.iter().enumerate() {
            if acc + x >= target && x > 0.0 {
                let frac = ((target - acc) / x).clamp(0.0, 1.0);
                return (k as f64 + frac) * width / self.cap;
            }
            acc += x;
        }
        self.buffer / self.cap
    }

    /// The run's output. `groups[i]` and `rtts[i]` (seconds) describe flow i;
    /// `to_flow_pkts[i]` converts its link packets to its own packets
    /// (packet_size / mss).
    pub fn finish(
        self,
        s: &Scenario,
        groups: &[usize],
        rtts: &[f64],
        to_flow_pkts: &[f64],
        completed: bool,
    ) -> RunOutput {
        let t = self.time.max(1e-300);
        let bits = 8.0 * self.pkt_bytes;
        let n = groups.len();
        // Goodput is what crossed the bottleneck in the window: the fluid
        // accepted into the queue, less what was still queued at the end
        // (the queue's growth over the window), taken from every flow in
        // proportion; it can never exceed what the link served.
        let accepted: f64 = self.accepted.iter().sum();
        let k = if accepted > self.served {
            self.served / accepted
        } else {
            1.0
        };
        let goodput: Vec<f64> = self.accepted.iter().map(|a| a * k * bits / t).collect();
        let total_goodput: f64 = goodput.iter().sum();
        let jain = crate::stats::jain_index(&goodput);
        let warm = self.warmup.as_secs_f64();
        let fr: Vec<f64> = self
            .ev_time
            .iter()
            .zip(&self.ev_frac)
            .filter(|(t, _)| **t >= warm)
            .map(|(_, f)| *f)
            .collect();
        let sync_mean = crate::stats::sync_mean(fr.iter().copied());
        let mean_q = self.q_area / t;
        let mut summary = vec![
            ("utilization".to_string(), self.served / (self.cap * t)),
            ("goodput_bps".to_string(), total_goodput),
            ("throughput_bps".to_string(), self.served * bits / t),
            (
                "drop_rate".to_string(),
                if self.arrived > 0.0 {
                    self.lost / self.arrived
                } else {
                    0.0
                },
            ),
            ("mean_queue_pkts".to_string(), mean_q),
            ("mean_queue_delay_s".to_string(), mean_q / self.cap),
            ("p50_queue_delay_s".to_string(), self.quantile(0.5)),
            ("p99_queue_delay_s".to_string(), self.quantile(0.99)),
            ("jain_index".to_string(), jain),
            ("congestion_events".to_string(), fr.len() as f64),
            ("sync_mean".to_string(), sync_mean),
        ];
        for g in 0..s.flows.len() {
            let gp: f64 = (0..n).filter(|&i| groups[i] == g).map(|i| goodput[i]).sum();
            summary.push((format!("goodput_bps_group{g}"), gp));
        }

        let mut timeseries = Table::default();
        timeseries.push("time_s", self.ts_time);
        timeseries.push("utilization", self.ts_util);
        timeseries.push("queue_pkts", self.ts_q);
        for (i, col) in self.ts_w.into_iter().enumerate() {
            // The same name as the packet engine's (cwnd, packets).
            timeseries.push(format!("cwnd_flow{i}"), col);
        }

        let mut flows = Table::default();
        flows.push("flow", (0..n).map(|i| i as f64).collect());
        flows.push("group", groups.iter().map(|&g| g as f64).collect());
        flows.push("rtt_s", rtts.to_vec());
        flows.push("goodput_bps", goodput);
        flows.push(
            "mean_window_pkts",
            self.w_area.iter().map(|a| a / t).collect(),
        );
        flows.push(
            "losses",
            self.lost_flow
                .iter()
                .zip(to_flow_pkts)
                .map(|(l, k)| l * k)
                .collect(),
        );
        flows.push("loss_events", self.loss_events);

        let mut congestion_events = Table::default();
        congestion_events.push("time_s", self.ev_time);
        congestion_events.push("fraction", self.ev_frac);

        RunOutput {
            summary,
            timeseries,
            flows,
            congestion_events,
            trace: Table::default(),
            trace_events: Vec::new(),
            completed,
        }
    }
}
