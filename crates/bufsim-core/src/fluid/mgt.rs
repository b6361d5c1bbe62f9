//! The per-flow fluid model: paper 004 eqs. (1)-(5) (Misra-Gong-Towsley
//! form) with the loss-synchronization module of its section II.C-D.
//!
//! State: the window W_i of every flow (packets of its MSS) and the
//! bottleneck queue q (packets of the link's packet size). Each fixed step:
//!
//! 1. loss indications whose RTT has elapsed reach their sender (ring
//!    buffers of pending indications, one per flow) and reduce its window;
//! 2. RK4 advances (W, q) over the step, with the growth law of each flow and
//!    the clamped queue equation (overflow is the drop-tail loss of eq. (4));
//! 3. the step's lost fluid is split among the flows (eq. (5) in proportion
//!    to rate, or among the m_k flows the module picks, eq. (7)), and each
//!    flow's share is queued to reach it one RTT later.
//!
//! No forward delay is modelled between sender and queue (as in MGT, the
//! whole RTT sits on the feedback path).

use std::collections::VecDeque;

use super::cc::{FluidCc, Growth};
use super::red::Red;
use super::stats::Recorder;
use super::sync::SyncModule;
use crate::engine::Progress;
use crate::engine::rng::{Stream, stream};
use crate::output::RunOutput;
use crate::scenario::{Decrease, Scenario};
use crate::units::{PS_PER_SEC, SimTime};

/// How often (in steps) the progress hook is called.
const PROGRESS_EVERY: u64 = 100_000;
/// Numerical guard: no window grows past this many packets.
const MAX_WINDOW: f64 = 1e12;

/// A loss indication on its way back to the sender.
#[derive(Clone, Copy, Debug)]
struct Pending {
    /// Step at whose start the sender sees it.
    deliver: u64,
    /// Step index at the end of which the loss happened at the queue.
    occurred: u64,
    /// Lost fluid, packets of the flow.
    amount: f64,
    /// An early (RED) drop rather than a buffer overflow.
    early: bool,
}

/// The fixed parameters the right-hand side needs.
struct Net {
    prop: Vec<f64>,
    scale: Vec<f64>,
    cap: f64,
    inv_cap: f64,
    buf: f64,
    bg: f64,
}

/// Rates out of one evaluation of the right-hand side (link packets/s).
#[derive(Clone, Copy, Default)]
struct Rates {
    dq: f64,
    arrive: f64,
    out: f64,
    overflow: f64,
}

impl Net {
    /// Right-hand side at time `t`: window derivatives into `dw`, per-flow
    /// arrival rates (weighted by `wt`) added to `a_acc`; `keep` is the
    /// fraction of arrivals an AQM lets in (1 for drop-tail).
    #[inline]
    #[allow(clippy::too_many_arguments)]
    fn eval(
        &self,
        g: &[Growth],
        t: f64,
        w: &[f64],
        q: f64,
        keep: f64,
        dw: &mut [f64],
        a_acc: &mut [f64],
        wt: f64,
    ) -> Rates {
        //= paper 004 eq. (2) and MGT: R_i(t) = propagation + q(t) / C.
        let qd = q.clamp(0.0, self.buf) * self.inv_cap;
        let mut sum = 0.0;
        let n = w.len();
        // Equal-length slices let the compiler drop the bounds checks.
        let (prop, scale, g, dw, a_acc) = (
            &self.prop[..n],
            &self.scale[..n],
            &g[..n],
            &mut dw[..n],
            &mut a_acc[..n],
        );
        for i in 0..n {
            let inv_r = 1.0 / (prop[i] + qd);
            //= paper 004 eq. (3): A_i = W_i / R_i.
            let a = w[i] * scale[i] * inv_r;
            sum += a;
            a_acc[i] += wt * a;
            let gi = &g[i];
            let dt = t - gi.tk;
            //= paper 004 eq. (1), growth term: dW/dt = a(W) / R(t).
            dw[i] = (gi.g0 + gi.g1 * w[i]) * inv_r + gi.c3 * dt * dt;
        }
        let arrive = sum + self.bg;
        let admitted = arrive * keep;
        let net = admitted - self.cap;
        let qc = q.clamp(0.0, self.buf);
        //= paper 004 eq. (2), clamped to [0, q_max]; eq. (4): at q = q_max the
        //= excess ARsum - C is lost (p = (ARsum - C) / ARsum).
        if qc >= self.buf && net > 0.0 {
            Rates {
                dq: 0.0,
                arrive,
                out: self.cap,
                overflow: net,
            }
        } else if qc <= 0.0 && net <= 0.0 {
            Rates {
                dq: 0.0,
                arrive,
                out: admitted,
                overflow: 0.0,
            }
        } else {
            Rates {
                dq: net,
                arrive,
                out: self.cap,
                overflow: 0.0,
            }
        }
    }
}

/// The model's state over a run: the fixed parameters, the windows and the
/// queue, the loss indications in flight and the congestion-event state.
/// [`run`] advances it one step at a time through the numbered phases of the
/// module doc, one method each.
struct Mgt<'s> {
    s: &'s Scenario,
    net: Net,
    /// Step, seconds and picoseconds.
    h: f64,
    h_ps: u64,
    /// Paper 004 eq. (1)'s continuous decrease instead of one cut per event.
    rate_mode: bool,
    /// Background arrival rate, link packets/s.
    bg: f64,
    /// Per flow: its group, link packets -> its packets, initial window,
    /// receiver window, first step, controller.
    groups: Vec<usize>,
    to_flow: Vec<f64>,
    iw: Vec<f64>,
    rwnd: Vec<f64>,
    start_step: Vec<u64>,
    cc: Vec<FluidCc>,
    module: Option<SyncModule>,
    red: Red,
    rec: Recorder,
    /// Windows (packets of each flow's MSS) and the queue (link packets).
    w: Vec<f64>,
    active: Vec<bool>,
    q: f64,
    // RK4 scratch: growth coefficients, stage derivatives, their weighted
    // sum, the stage state, and each flow's arrivals over the step.
    growth: Vec<Growth>,
    dw: Vec<f64>,
    dw_acc: Vec<f64>,
    tmp: Vec<f64>,
    a_acc: Vec<f64>,
    pending: Vec<VecDeque<Pending>>,
    /// Step of each flow's last window reduction.
    last_red: Vec<u64>,
    /// The flows picked at the current congestion event.
    chosen: Vec<bool>,
    in_event: bool,
    event_end: u64,
    event_marked: Vec<bool>,
}

/// What one step's integration moved through the queue (link packets).
struct StepFlow {
    /// Queue at the start of the step.
    q0: f64,
    arrived: f64,
    served: f64,
    /// Lost to a full buffer.
    forced: f64,
    /// The fraction of arrivals an AQM lets in (1 for drop-tail).
    keep: f64,
}

impl<'s> Mgt<'s> {
    /// The state at time 0 (no flow started, queue empty).
    fn new(s: &'s Scenario) -> Mgt<'s> {
        let pkt = s.link.packet_size_bytes as f64;
        let cap = s.link.capacity_bps / (8.0 * pkt);
        let buf = s.link.buffer_pkts as f64;
        let bg: f64 = s.background.iter().map(|b| b.rate_bps / (8.0 * pkt)).sum();

        let mut prop = Vec::new();
        let mut scale = Vec::new();
        let mut groups = Vec::new();
        let mut start = Vec::new();
        let mut iw = Vec::new();
        let mut rwnd = Vec::new();
        let mut cc = Vec::new();
        for (g, grp) in s.flows.iter().enumerate() {
            for k in 0..grp.count as usize {
                prop.push(grp.rtts[k].as_secs_f64());
                scale.push(grp.mss_bytes as f64 / pkt);
                groups.push(g);
                start.push(grp.starts[k]);
                iw.push(grp.initial_window_pkts as f64);
                rwnd.push(grp.rwnd_pkts.map(|x| x as f64).unwrap_or(f64::INFINITY));
                cc.push(
                    FluidCc::new(&grp.cc)
                        .expect("fluid::check refuses a variant without a fluid law"),
                );
            }
        }
        let n = prop.len();
        let to_flow: Vec<f64> = scale.iter().map(|x| 1.0 / x).collect();
        let h_ps = s.fluid.step.0;
        let h = h_ps as f64 / PS_PER_SEC as f64;
        let start_step: Vec<u64> = start.iter().map(|t| t.0.div_ceil(h_ps)).collect();
        let module = s.fluid.sync.map(|x| {
            SyncModule::new(
                x,
                s.fluid.sync_sd,
                s.fluid.sync_policy,
                stream(s.seed, Stream::Fluid),
            )
        });
        Mgt {
            s,
            net: Net {
                prop,
                scale,
                cap,
                inv_cap: 1.0 / cap,
                buf,
                bg,
            },
            h,
            h_ps,
            rate_mode: s.fluid.decrease == Decrease::Rate,
            bg,
            groups,
            to_flow,
            iw,
            rwnd,
            start_step,
            cc,
            module,
            // RED's random early-drop events use their own stream.
            red: Red::from_scenario(s, cap, h, stream(s.seed, Stream::Queue)),
            rec: Recorder::new(s, n, cap),
            w: vec![0.0; n],
            active: vec![false; n],
            q: 0.0,
            growth: vec![Growth::default(); n],
            dw: vec![0.0; n],
            dw_acc: vec![0.0; n],
            tmp: vec![0.0; n],
            a_acc: vec![0.0; n],
            pending: vec![VecDeque::new(); n],
            last_red: vec![0; n],
            chosen: vec![false; n],
            in_event: false,
            event_end: 0,
            event_marked: vec![false; n],
        }
    }

    /// One step `k` (phases 0-3 and the statistics).
    fn step(&mut self, k: u64) {
        let t_sim = SimTime(k * self.h_ps);
        let t = t_sim.as_secs_f64();
        let counting = self.rec.in_window(t_sim);
        self.start_flows(k, t);
        self.deliver_losses(k, t, counting);
        let f = self.integrate(t);
        let (lost_tcp, forced_tcp) = self.split_losses(k, &f, counting);
        self.record(k, &f, lost_tcp, forced_tcp, counting);
    }

    /// Phase 0: flows that start now.
    fn start_flows(&mut self, k: u64, t: f64) {
        for i in 0..self.w.len() {
            if !self.active[i] && self.start_step[i] <= k {
                self.active[i] = true;
                self.w[i] = self.iw[i];
                self.cc[i].start(t, self.w[i]);
            }
        }
    }

    /// Phase 1: loss indications reaching their senders.
    fn deliver_losses(&mut self, k: u64, t: f64, counting: bool) {
        for i in 0..self.w.len() {
            while let Some(p) = self.pending[i].front().copied() {
                if p.deliver > k {
                    break;
                }
                self.pending[i].pop_front();
                if self.rate_mode {
                    //= paper 004 eq. (1), decrease term dW/dt = -b W lambda(t - R),
                    //= integrated exactly over the step for the delivered amount.
                    self.cc[i].slow_start = false;
                    let b = self.cc[i].decrease_fraction(self.w[i]);
                    self.w[i] = (self.w[i] * (-b * p.amount).exp()).max(super::cc::MIN_WINDOW);
                } else {
                    // One reduction per congestion event: losses of data sent
                    // before the last reduction belong to the same recovery
                    // (RFC 6582 section 3.2, NewReno "recover" point).
                    let fire =
                        p.occurred > self.last_red[i] && (!p.early || self.red.fires(p.amount));
                    if fire {
                        self.w[i] = self.cc[i].on_loss(t, self.w[i], self.net.prop[i]);
                        self.last_red[i] = k;
                        if counting {
                            self.rec.loss_events[i] += 1.0;
                        }
                    }
                }
            }
        }
    }

    /// Phase 2: RK4 over [t, t + h]: windows, queue (clamped to [0, buffer]) and
    /// each flow's arrivals.
    fn integrate(&mut self, t: f64) -> StepFlow {
        // Borrow the fields apart: the hot loops then index plain slices.
        let Mgt {
            net,
            cc,
            red,
            w,
            active,
            growth,
            dw,
            dw_acc,
            tmp,
            a_acc,
            rwnd,
            h,
            q,
            ..
        } = self;
        let (h, n, q) = (*h, w.len(), *q);
        // Slices of one length: their bounds live in registers and the
        // compiler can drop the checks (a `&mut Vec` reloads its header).
        let (w, active, growth, cc) = (&mut w[..n], &active[..n], &mut growth[..n], &mut cc[..n]);
        let (dw, dw_acc, tmp, a_acc) = (
            &mut dw[..n],
            &mut dw_acc[..n],
            &mut tmp[..n],
            &mut a_acc[..n],
        );
        let (rwnd, prop) = (&rwnd[..n], &net.prop[..n]);
        let qd = q * net.inv_cap;
        for i in 0..n {
            growth[i] = if active[i] {
                cc[i].growth(t, h, &mut w[i], prop[i] + qd)
            } else {
                Growth::default()
            };
            dw_acc[i] = 0.0;
            a_acc[i] = 0.0;
        }
        let keep = 1.0 - red.drop_prob();
        let mut r_acc = Rates::default();
        let stages = [
            (0.0, 1.0, 0.5),
            (0.5, 2.0, 0.5),
            (0.5, 2.0, 1.0),
            (1.0, 1.0, 0.0),
        ];
        let mut qs = q;
        for (si, &(c_t, wt, c_next)) in stages.iter().enumerate() {
            let ws: &[f64] = if si == 0 { w } else { tmp };
            let r = net.eval(growth, t + c_t * h, ws, qs, keep, dw, a_acc, wt);
            r_acc.dq += wt * r.dq;
            r_acc.arrive += wt * r.arrive;
            r_acc.out += wt * r.out;
            r_acc.overflow += wt * r.overflow;
            for i in 0..n {
                dw_acc[i] += wt * dw[i];
                tmp[i] = w[i] + c_next * h * dw[i];
            }
            qs = q + c_next * h * r.dq;
        }
        let h6 = h / 6.0;
        for i in 0..n {
            w[i] = (w[i] + h6 * dw_acc[i]).min(rwnd[i]).min(MAX_WINDOW);
            a_acc[i] *= h6;
        }
        let mut q1 = q + h6 * r_acc.dq;
        let arrived = h6 * r_acc.arrive;
        let mut served = h6 * r_acc.out;
        let mut forced = h6 * r_acc.overflow;
        if q1 > net.buf {
            forced += q1 - net.buf;
            q1 = net.buf;
        } else if q1 < 0.0 {
            served += q1;
            q1 = 0.0;
        }
        self.q = q1;
        self.red.update_avg(q1);
        StepFlow {
            q0: q,
            arrived,
            served,
            forced,
            keep,
        }
    }

    /// Phase 3: split the step's lost fluid among the flows (a new congestion
    /// event picks its flows through the synchronization module) and queue
    /// each share for its sender. Returns the TCP fluid lost and the part
    /// of the forced loss that fell on TCP (link packets).
    fn split_losses(&mut self, k: u64, f: &StepFlow, counting: bool) -> (f64, f64) {
        let n = self.w.len();
        let tcp_in: f64 = self.a_acc.iter().sum();
        let all_in = tcp_in + self.bg * self.h * f.keep;
        let forced_tcp = if all_in > 0.0 {
            f.forced * tcp_in / all_in
        } else {
            0.0
        };
        let overflow = f.forced > 0.0 && tcp_in > 0.0;
        if overflow {
            // An event whose overflow outlasts the RTT of the flows it picked
            // (their reductions did not end it) is a new congestion event:
            // more flows lose (e.g. flows still in slow start).
            if !self.in_event || k >= self.event_end {
                self.new_event(k);
            }
        }
        self.in_event = overflow;
        let mut lost_tcp = 0.0;
        if overflow {
            let chosen_in: f64 = (0..n)
                .filter(|&i| self.chosen[i])
                .map(|i| self.a_acc[i])
                .sum();
            // A flow cannot lose more than it sent in the step: what the
            // chosen flows cannot take (flows that grew after the event's
            // choice) falls on the others, in proportion to their rates.
            let excess = (forced_tcp - chosen_in).max(0.0);
            let others_in = tcp_in - chosen_in;
            for i in 0..n {
                let a = self.a_acc[i];
                //= paper 004 eq. (5): lambda_i = A_i p (no module), or eq. (7):
                //= the m_k chosen flows share the whole excess ARsum - C, here
                //= in proportion to their rates, so every loss is accounted for.
                let li = if chosen_in > 0.0 {
                    if self.chosen[i] {
                        (forced_tcp * a / chosen_in).min(a)
                    } else if others_in > 0.0 {
                        excess * a / others_in
                    } else {
                        0.0
                    }
                } else {
                    forced_tcp * a / tcp_in
                };
                if li > 0.0 {
                    lost_tcp += self.lose(i, li, false, k, counting);
                    if counting && self.rate_mode && !self.event_marked[i] {
                        self.rec.loss_events[i] += 1.0;
                    }
                    self.event_marked[i] = true;
                }
            }
        }
        let early_frac = 1.0 - f.keep;
        if early_frac > 0.0 {
            for i in 0..n {
                //= MGT (RED): early drops at rate p(avg) A_i, split in proportion to rate.
                let li = self.a_acc[i] * early_frac;
                if li > 0.0 {
                    lost_tcp += self.lose(i, li, true, k, counting);
                }
            }
        }
        (lost_tcp, forced_tcp)
    }

    /// A new congestion event at step `k`: the module (or, without one,
    /// every sending flow) picks the flows that record it.
    fn new_event(&mut self, k: u64) {
        let n = self.w.len();
        self.event_marked.iter_mut().for_each(|m| *m = false);
        let n_active = self.a_acc.iter().filter(|&&a| a > 0.0).count().max(1);
        let mut fraction = 1.0;
        match self.module.as_mut() {
            Some(m) => {
                //= paper 004 section II.C: at the k-th congestion the
                //= controller draws m_k and the policy picks Pl_k.
                let picked = m.choose(&self.a_acc, &mut self.chosen);
                fraction = picked as f64 / n_active as f64;
            }
            None => {
                for i in 0..n {
                    self.chosen[i] = self.a_acc[i] > 0.0;
                }
            }
        }
        self.rec.event(SimTime((k + 1) * self.h_ps), fraction);
        let net = &self.net;
        let r_max = (0..n)
            .filter(|&i| self.chosen[i])
            .map(|i| net.prop[i] + net.buf * net.inv_cap)
            .fold(0.0, f64::max);
        self.event_end = k + 2 + (r_max / self.h).ceil() as u64;
    }

    /// Flow `i` lost `li` link packets in step `k`: queue the indication for
    /// its sender and count it. Returns `li`.
    fn lose(&mut self, i: usize, li: f64, early: bool, k: u64, counting: bool) -> f64 {
        let rtt = self.net.prop[i] + self.q * self.net.inv_cap;
        push_loss(
            &mut self.pending[i],
            k,
            self.h,
            rtt,
            li * self.to_flow[i],
            early,
        );
        if counting {
            self.rec.lost_flow[i] += li;
        }
        li
    }

    /// The step's statistics and, when due, a time-series sample.
    fn record(&mut self, k: u64, f: &StepFlow, lost_tcp: f64, forced_tcp: f64, counting: bool) {
        let (h, t_sim) = (self.h, SimTime(k * self.h_ps));
        let early_frac = 1.0 - f.keep;
        if counting {
            let mut accepted = self.bg * h * f.keep - (f.forced - forced_tcp);
            for i in 0..self.w.len() {
                self.rec.w_area[i] += self.w[i] * h;
                self.rec.accepted[i] += self.a_acc[i];
                accepted += self.a_acc[i];
            }
            accepted -= lost_tcp;
            self.rec.step(
                t_sim,
                h,
                f.served,
                f.arrived,
                f.forced + f.arrived * early_frac,
                f.q0,
                self.q,
                accepted.max(0.0),
            );
        } else {
            self.rec
                .step(t_sim, h, f.served, f.arrived, 0.0, f.q0, self.q, 0.0);
        }
        let t_end = SimTime((k + 1) * self.h_ps);
        if self.rec.sample_due(t_end) {
            self.rec.sample(t_end, self.q, &self.w);
        }
    }

    /// The run's output; `completed` is false when the progress hook stopped it.
    fn finish(mut self, completed: bool) -> RunOutput {
        // Accepted = arrived - lost, per flow.
        for i in 0..self.w.len() {
            self.rec.accepted[i] = (self.rec.accepted[i] - self.rec.lost_flow[i]).max(0.0);
        }
        self.rec.finish(
            self.s,
            &self.groups,
            &self.net.prop,
            &self.to_flow,
            completed,
        )
    }
}

/// Run the per-flow model on a checked scenario.
pub fn run(s: &Scenario, progress: Progress) -> RunOutput {
    let mut m = Mgt::new(s);
    let steps = s.duration.0 / m.h_ps;
    for k in 0..steps {
        if k % PROGRESS_EVERY == 0 && k > 0 && !progress(SimTime(k * m.h_ps)) {
            return m.finish(false);
        }
        m.step(k);
    }
    m.finish(true)
}

/// Queue a loss indication of `amount` (flow packets) that happened in step
/// `k` and reaches the sender one RTT `rtt` later.
#[inline]
fn push_loss(p: &mut VecDeque<Pending>, k: u64, h: f64, rtt: f64, amount: f64, early: bool) {
    //= paper 004 / MGT: the loss indication rate is seen one RTT later,
    //= lambda_i(t - R_i); the RTT includes the queue at the time of the loss.
    let deliver = k + 1 + (rtt / h).ceil() as u64;
    match p.back_mut() {
        Some(last) if last.deliver == deliver && last.early == early => {
            last.amount += amount;
        }
        _ => p.push_back(Pending {
            deliver,
            occurred: k + 1,
            amount,
            early,
        }),
    }
}
