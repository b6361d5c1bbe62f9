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

use super::cc::FluidCc;
use super::red::Red;
use super::stats::Recorder;
use super::sync::SyncModule;
use crate::engine::Progress;
use crate::engine::rng::{Stream, stream};
use crate::output::RunOutput;
use crate::scenario::{Decrease, Scenario};
use crate::tcp::cc::fluid_law::{Growth, MIN_WINDOW};
use crate::units::{PS_PER_SEC, SimTime};

/// How often (in steps) the progress hook is called.
const PROGRESS_EVERY: u64 = 100_000;
/// Numerical guard: no window grows past this many packets.
const MAX_WINDOW: f64 = 1e12;

/// A loss indication on its way back to the sender, or a run of `count`
/// of them from consecutive steps, delivered in consecutive steps (the
/// j-th: `deliver + j`, `occurred + j`). Only buffer-overflow indications
/// in event mode form runs: their amounts are never read.
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
    /// Indications in the run (1 for a single one).
    count: u64,
}

/// The fixed parameters of the queue equation.
struct Net {
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
    /// The queue's side of the right-hand side at queue `q`, given `sum`,
    /// the flows' arrival rates summed in flow order; `keep` is the
    /// fraction of arrivals an AQM lets in (1 for drop-tail).
    #[inline]
    fn rates(&self, sum: f64, q: f64, keep: f64) -> Rates {
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

/// Flows per chunk of the RK4 loops. The arithmetic of the flows of a chunk
/// is independent (the compiler puts the lanes in SIMD registers); the sums
/// across flows are still taken one flow at a time, in flow order, so the
/// results do not depend on the chunking.
const LANES: usize = 32;

/// What one RK4 stage needs besides the per-flow arrays.
#[derive(Clone, Copy)]
struct Stage {
    /// The stage's time (seconds) and queueing delay q / C (clamped).
    t: f64,
    qd: f64,
    /// The stage's weight in the RK4 sum, and c h: the next stage's state
    /// is w + c h dW/dt.
    wt: f64,
    cnh: f64,
    /// h / 6 and h.
    h6: f64,
    h: f64,
}

/// Sums across flows, each taken one flow at a time in flow order.
#[derive(Clone, Copy)]
struct Sums {
    /// The flows' arrival rates at the stage (link packets/s).
    rate: f64,
    /// After the last stage: the flows' arrivals over the step (link
    /// packets), and the fluid the step accepted (link packets) when no
    /// buffer overflow took any of it, starting from the background's.
    arrived: f64,
    accepted: f64,
}

/// The per-flow arrays of one RK4 stage (one entry per flow, equal lengths).
struct Lanes<'a> {
    net: &'a Net,
    prop: &'a [f64],
    scale: &'a [f64],
    rwnd: &'a [f64],
    /// The step's growth coefficients ([`Growth`], one array per field).
    g0: &'a [f64],
    g1: &'a [f64],
    c3: &'a [f64],
    tk: &'a [f64],
    /// Windows at the start of the step (the end of it after the last stage).
    w: &'a mut [f64],
    /// The stage's windows: its input, then the next stage's.
    tmp: &'a mut [f64],
    /// Weighted sums of the stages' window derivatives and arrival rates
    /// (the step's arrivals, link packets, after the last stage).
    dw_acc: &'a mut [f64],
    a_acc: &'a mut [f64],
    /// The recorder's per-flow window area and accepted fluid (updated by
    /// the last stage when the step counts; empty otherwise).
    w_area: &'a mut [f64],
    accepted: &'a mut [f64],
}

#[inline(always)]
fn arr<const L: usize>(x: &[f64], i: usize) -> &[f64; L] {
    x[i..i + L].try_into().expect("L entries")
}

#[inline(always)]
fn arr_mut<const L: usize>(x: &mut [f64], i: usize) -> &mut [f64; L] {
    (&mut x[i..i + L]).try_into().expect("L entries")
}

impl Lanes<'_> {
    /// RK4's four stages over [t, t + h] from queue `q` (link packets) with
    /// `keep` of the arrivals admitted: the stages' queue rates summed with
    /// their weights, and the last stage's [`Sums`] (`accepted` starting
    /// from `bg_in`). Records each flow's window area and accepted fluid
    /// when the step is `counting`.
    #[inline(always)]
    fn rk4(
        &mut self,
        t: f64,
        h: f64,
        q: f64,
        keep: f64,
        counting: bool,
        bg_in: f64,
    ) -> (Rates, Sums) {
        let net = self.net;
        let stages = [
            (0.0, 1.0, 0.5),
            (0.5, 2.0, 0.5),
            (0.5, 2.0, 1.0),
            (1.0, 1.0, 0.0),
        ];
        let h6 = h / 6.0;
        let mut r_acc = Rates::default();
        let mut qs = q;
        let mut sums = Sums {
            rate: 0.0,
            arrived: 0.0,
            accepted: 0.0,
        };
        for (si, &(c_t, wt, c_next)) in stages.iter().enumerate() {
            let st = Stage {
                t: t + c_t * h,
                qd: qs.clamp(0.0, net.buf) * net.inv_cap,
                wt,
                cnh: c_next * h,
                h6,
                h,
            };
            sums = match (si, counting) {
                (0, _) => self.stage::<true, false, false>(&st, bg_in),
                (3, true) => self.stage::<false, true, true>(&st, bg_in),
                (3, false) => self.stage::<false, true, false>(&st, bg_in),
                _ => self.stage::<false, false, false>(&st, bg_in),
            };
            let r = net.rates(sums.rate, qs, keep);
            r_acc.dq += wt * r.dq;
            r_acc.arrive += wt * r.arrive;
            r_acc.out += wt * r.out;
            r_acc.overflow += wt * r.overflow;
            qs = q + st.cnh * r.dq;
        }
        (r_acc, sums)
    }

    /// [`Lanes::rk4`] for the target's baseline instruction set (a function
    /// of its own, like [`Lanes::rk4_avx`], which the compiler optimizes
    /// better than the stages inlined into the step).
    #[inline(never)]
    fn rk4_base(
        &mut self,
        t: f64,
        h: f64,
        q: f64,
        keep: f64,
        counting: bool,
        bg_in: f64,
    ) -> (Rates, Sums) {
        self.rk4(t, h, q, keep, counting, bg_in)
    }

    /// [`Lanes::rk4`] compiled for AVX, which takes four flows per
    /// instruction. IEEE-754 arithmetic either way (Rust never fuses
    /// `a * b + c` into a multiply-add), so the results are bit-identical.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx")]
    fn rk4_avx(
        &mut self,
        t: f64,
        h: f64,
        q: f64,
        keep: f64,
        counting: bool,
        bg_in: f64,
    ) -> (Rates, Sums) {
        self.rk4(t, h, q, keep, counting, bg_in)
    }

    /// One RK4 stage over every flow: returns the sum of the flows'
    /// arrival rates (link packets/s) and, in the last stage, the sum of
    /// their arrivals over the step (link packets), both in flow order.
    #[inline(always)]
    fn stage<const FIRST: bool, const LAST: bool, const COUNT: bool>(
        &mut self,
        st: &Stage,
        bg_in: f64,
    ) -> Sums {
        let n = self.w.len();
        let m = if COUNT { n } else { 0 };
        // Slices of one known length: the chunks' bounds checks fold away.
        let mut v = Lanes {
            net: self.net,
            prop: &self.prop[..n],
            scale: &self.scale[..n],
            rwnd: &self.rwnd[..n],
            g0: &self.g0[..n],
            g1: &self.g1[..n],
            c3: &self.c3[..n],
            tk: &self.tk[..n],
            w: &mut self.w[..n],
            tmp: &mut self.tmp[..n],
            dw_acc: &mut self.dw_acc[..n],
            a_acc: &mut self.a_acc[..n],
            w_area: &mut self.w_area[..m],
            accepted: &mut self.accepted[..m],
        };
        let main = n - n % LANES;
        // `arrived` starts where `Iterator::sum` for f64 does (-0.0); every
        // term is >= +0, so either start gives the same bits.
        let mut sums = Sums {
            rate: 0.0,
            arrived: -0.0,
            accepted: bg_in,
        };
        let mut i = 0;
        while i < main {
            v.chunk::<LANES, FIRST, LAST, COUNT>(i, st, &mut sums);
            i += LANES;
        }
        while i < n {
            v.chunk::<1, FIRST, LAST, COUNT>(i, st, &mut sums);
            i += 1;
        }
        sums
    }

    /// The stage for flows `i..i + L`.
    #[inline(always)]
    fn chunk<const L: usize, const FIRST: bool, const LAST: bool, const COUNT: bool>(
        &mut self,
        i: usize,
        st: &Stage,
        sums: &mut Sums,
    ) {
        let (rwnd, w_area, accepted) = if LAST && COUNT {
            (
                arr::<L>(self.rwnd, i),
                arr_mut::<L>(self.w_area, i),
                arr_mut::<L>(self.accepted, i),
            )
        } else if LAST {
            (arr::<L>(self.rwnd, i), &mut [0.0; L], &mut [0.0; L])
        } else {
            (&[0.0; L], &mut [0.0; L], &mut [0.0; L])
        };
        let fixed = Fixed {
            prop: arr::<L>(self.prop, i),
            scale: arr::<L>(self.scale, i),
            g0: arr::<L>(self.g0, i),
            g1: arr::<L>(self.g1, i),
            c3: arr::<L>(self.c3, i),
            tk: arr::<L>(self.tk, i),
            rwnd,
        };
        kernel::<L, FIRST, LAST, COUNT>(
            st,
            &fixed,
            sums,
            arr_mut::<L>(self.w, i),
            arr_mut::<L>(self.tmp, i),
            arr_mut::<L>(self.dw_acc, i),
            arr_mut::<L>(self.a_acc, i),
            w_area,
            accepted,
        );
    }
}

/// The read-only per-flow values of a chunk of `L` flows.
struct Fixed<'a, const L: usize> {
    prop: &'a [f64; L],
    scale: &'a [f64; L],
    g0: &'a [f64; L],
    g1: &'a [f64; L],
    c3: &'a [f64; L],
    tk: &'a [f64; L],
    rwnd: &'a [f64; L],
}

/// The stage for one chunk of `L` flows. The arrays it writes are separate
/// arguments, so the compiler knows they do not overlap (no run-time
/// overlap checks before its SIMD code).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn kernel<const L: usize, const FIRST: bool, const LAST: bool, const COUNT: bool>(
    st: &Stage,
    f: &Fixed<L>,
    sums: &mut Sums,
    w: &mut [f64; L],
    tmp: &mut [f64; L],
    dw_acc: &mut [f64; L],
    a_acc: &mut [f64; L],
    w_area: &mut [f64; L],
    accepted: &mut [f64; L],
) {
    let (prop, scale, g0, g1, c3, tk, rwnd) = (f.prop, f.scale, f.g0, f.g1, f.c3, f.tk, f.rwnd);
    // The flows' arrival rates, summed below in flow order.
    let mut a = [0.0; L];
    for j in 0..L {
        let ws = if FIRST { w[j] } else { tmp[j] };
        //= paper 004 eq. (2) and MGT: R_i(t) = propagation + q(t) / C.
        let inv_r = 1.0 / (prop[j] + st.qd);
        //= paper 004 eq. (3): A_i = W_i / R_i.
        a[j] = ws * scale[j] * inv_r;
        let dt = st.t - tk[j];
        //= paper 004 eq. (1), growth term: dW/dt = a(W) / R(t).
        let dw = (g0[j] + g1[j] * ws) * inv_r + c3[j] * dt * dt;
        let (a0, d0) = if FIRST {
            (0.0, 0.0)
        } else {
            (a_acc[j], dw_acc[j])
        };
        a_acc[j] = a0 + st.wt * a[j];
        dw_acc[j] = d0 + st.wt * dw;
        if !LAST {
            tmp[j] = w[j] + st.cnh * dw;
        } else {
            w[j] = (w[j] + st.h6 * dw_acc[j]).min(rwnd[j]).min(MAX_WINDOW);
            a_acc[j] *= st.h6;
            if COUNT {
                w_area[j] += w[j] * st.h;
                accepted[j] += a_acc[j];
            }
        }
    }
    // Three independent chains of additions, which overlap.
    for j in 0..L {
        sums.rate += a[j];
        if LAST {
            sums.arrived += a_acc[j];
        }
        if COUNT {
            sums.accepted += a_acc[j];
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
    /// The CPU has AVX: the RK4 stages run [`Lanes::rk4_avx`].
    avx: bool,
    /// Background arrival rate, link packets/s.
    bg: f64,
    /// Per flow: its group, propagation RTT (seconds), its packets / link
    /// packets, link packets -> its packets, initial window, receiver
    /// window, first step, controller.
    groups: Vec<usize>,
    prop: Vec<f64>,
    scale: Vec<f64>,
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
    /// The first step at which a flow not yet active starts (u64::MAX when
    /// every flow has started).
    next_start: u64,
    q: f64,
    // RK4 scratch: growth coefficients (one array per field of `Growth`),
    // the weighted sum of the stage derivatives, the stage state, and each
    // flow's arrivals over the step.
    g0: Vec<f64>,
    g1: Vec<f64>,
    c3: Vec<f64>,
    tk: Vec<f64>,
    dw_acc: Vec<f64>,
    tmp: Vec<f64>,
    a_acc: Vec<f64>,
    pending: Feedback,
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
    /// The TCP flows' arrivals (the sum of `a_acc` in flow order).
    tcp_in: f64,
    /// When the step counts: the fluid it accepted (link packets) if no
    /// overflow took any of it ([`Sums::accepted`]).
    accepted: f64,
}

impl<'s> Mgt<'s> {
    /// The state at time 0 (no flow started, queue empty).
    fn new(s: &'s Scenario) -> Mgt<'s> {
        let pkt = s.link().packet_size_bytes as f64;
        let cap = s.link().capacity_bps / (8.0 * pkt);
        let buf = s.link().buffer_pkts as f64;
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
                iw.push(grp.rules.initial_window as f64);
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
        let next_start = start_step.iter().copied().min().unwrap_or(u64::MAX);
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
                cap,
                inv_cap: 1.0 / cap,
                buf,
                bg,
            },
            h,
            h_ps,
            rate_mode: s.fluid.decrease == Decrease::Rate,
            #[cfg(target_arch = "x86_64")]
            avx: std::arch::is_x86_feature_detected!("avx"),
            #[cfg(not(target_arch = "x86_64"))]
            avx: false,
            bg,
            groups,
            prop,
            scale,
            to_flow,
            iw,
            rwnd,
            start_step,
            cc,
            module,
            // RED's random early-drop events use their own stream.
            red: Red::from_scenario(s, cap, h, stream(s.seed, Stream::Queue(0))),
            rec: Recorder::new(s, n, cap),
            w: vec![0.0; n],
            active: vec![false; n],
            next_start,
            q: 0.0,
            g0: vec![0.0; n],
            g1: vec![0.0; n],
            c3: vec![0.0; n],
            tk: vec![0.0; n],
            dw_acc: vec![0.0; n],
            tmp: vec![0.0; n],
            a_acc: vec![0.0; n],
            // Rate mode reads every indication's amount: no runs.
            pending: Feedback::new(n, s.fluid.decrease != Decrease::Rate),
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
        if k >= self.next_start {
            self.start_flows(k, t);
        }
        if k >= self.pending.next {
            self.deliver_losses(k, t, counting);
        }
        let f = self.integrate(t, counting);
        let (lost_tcp, forced_tcp) = self.split_losses(k, &f, counting);
        self.record(k, &f, lost_tcp, forced_tcp, counting);
    }

    /// Phase 0: flows that start now.
    fn start_flows(&mut self, k: u64, t: f64) {
        let mut next = u64::MAX;
        for i in 0..self.w.len() {
            if !self.active[i] {
                if self.start_step[i] <= k {
                    self.active[i] = true;
                    self.w[i] = self.iw[i];
                    self.cc[i].start(t, self.w[i]);
                } else {
                    next = next.min(self.start_step[i]);
                }
            }
        }
        self.next_start = next;
    }

    /// Phase 1: loss indications reaching their senders.
    fn deliver_losses(&mut self, k: u64, t: f64, counting: bool) {
        let mut next = u64::MAX;
        for i in 0..self.w.len() {
            while let Some(p) = self.pending.pop_due(i, k) {
                if self.rate_mode {
                    //= paper 004 eq. (1), decrease term dW/dt = -b W lambda(t - R),
                    //= integrated exactly over the step for the delivered amount.
                    self.cc[i].slow_start = false;
                    let b = self.cc[i].decrease_fraction(self.w[i]);
                    self.w[i] = (self.w[i] * (-b * p.amount).exp()).max(MIN_WINDOW);
                } else {
                    // One reduction per congestion event: losses of data sent
                    // before the last reduction belong to the same recovery
                    // (RFC 6582 section 3.2, NewReno "recover" point).
                    // Of a run, the indications due now are seen one after
                    // the other: the first that occurred after the last
                    // reduction fires, and the others then occurred before it.
                    let last = p.occurred + (p.count - 1);
                    let fire = last > self.last_red[i] && (!p.early || self.red.fires(p.amount));
                    if fire {
                        self.w[i] = self.cc[i].on_loss(t, self.w[i], self.prop[i]);
                        self.last_red[i] = k;
                        if counting {
                            self.rec.loss_events[i] += 1.0;
                        }
                    }
                }
            }
            next = next.min(self.pending.front[i]);
        }
        self.pending.next = next;
    }

    /// Phase 2: RK4 over [t, t + h]: windows, queue (clamped to [0, buffer]) and
    /// each flow's arrivals. When the step `counting`, each flow's window area
    /// and accepted fluid are recorded on the way.
    fn integrate(&mut self, t: f64, counting: bool) -> StepFlow {
        let (h, n, q) = (self.h, self.w.len(), self.q);
        let net = &self.net;
        // Slices of one length: their bounds live in registers and the
        // compiler can drop the checks (a `&mut Vec` reloads its header).
        let (w, active, cc, prop) = (
            &mut self.w[..n],
            &self.active[..n],
            &mut self.cc[..n],
            &self.prop[..n],
        );
        let (g0, g1, c3, tk) = (
            &mut self.g0[..n],
            &mut self.g1[..n],
            &mut self.c3[..n],
            &mut self.tk[..n],
        );
        let qd = q * net.inv_cap;
        for i in 0..n {
            let g = if active[i] {
                cc[i].growth(t, h, &mut w[i], prop[i] + qd)
            } else {
                Growth::default()
            };
            g0[i] = g.g0;
            g1[i] = g.g1;
            c3[i] = g.c3;
            tk[i] = g.tk;
        }
        let (w_area, accepted): (&mut [f64], &mut [f64]) = if counting {
            (&mut self.rec.w_area[..n], &mut self.rec.accepted[..n])
        } else {
            (&mut [], &mut [])
        };
        let mut lanes = Lanes {
            net,
            prop,
            scale: &self.scale[..n],
            rwnd: &self.rwnd[..n],
            g0,
            g1,
            c3,
            tk,
            w,
            tmp: &mut self.tmp[..n],
            dw_acc: &mut self.dw_acc[..n],
            a_acc: &mut self.a_acc[..n],
            w_area,
            accepted,
        };
        let keep = 1.0 - self.red.drop_prob();
        let h6 = h / 6.0;
        // The start of `record`'s sum of accepted fluid when no overflow
        // took any (its `- (forced - forced_tcp)` then subtracts +0.0, which
        // leaves every value as it is).
        let bg_in = self.bg * h * keep;
        let (r_acc, sums) = if self.avx {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `avx` is true only on a CPU with AVX (Mgt::new).
            unsafe {
                lanes.rk4_avx(t, h, q, keep, counting, bg_in)
            }
            #[cfg(not(target_arch = "x86_64"))]
            unreachable!("avx is false on this architecture")
        } else {
            lanes.rk4_base(t, h, q, keep, counting, bg_in)
        };
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
            tcp_in: sums.arrived,
            accepted: sums.accepted,
        }
    }

    /// Phase 3: split the step's lost fluid among the flows (a new congestion
    /// event picks its flows through the synchronization module) and queue
    /// each share for its sender. Returns the TCP fluid lost and the part
    /// of the forced loss that fell on TCP (link packets).
    fn split_losses(&mut self, k: u64, f: &StepFlow, counting: bool) -> (f64, f64) {
        let n = self.w.len();
        let tcp_in = f.tcp_in;
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
            .map(|i| self.prop[i] + net.buf * net.inv_cap)
            .fold(0.0, f64::max);
        self.event_end = k + 2 + (r_max / self.h).ceil() as u64;
    }

    /// Flow `i` lost `li` link packets in step `k`: queue the indication for
    /// its sender and count it. Returns `li`.
    fn lose(&mut self, i: usize, li: f64, early: bool, k: u64, counting: bool) -> f64 {
        let rtt = self.prop[i] + self.q * self.net.inv_cap;
        self.pending
            .push(i, k, self.h, rtt, li * self.to_flow[i], early);
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
            // (integrate recorded each flow's window area and accepted
            // fluid, and summed the latter when no overflow took any.)
            let mut accepted = f.accepted;
            if f.forced != 0.0 {
                accepted = self.bg * h * f.keep - (f.forced - forced_tcp);
                for &a in &self.a_acc {
                    accepted += a;
                }
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
        self.rec
            .finish(self.s, &self.groups, &self.prop, &self.to_flow, completed)
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

/// The loss indications on their way back to the senders: one FIFO queue
/// per flow, the delivery step of each queue's front kept beside the queues
/// (phase 1's scan then reads one dense array rather than one heap block
/// per flow). In event mode, the overflow indications of consecutive steps,
/// one RTT apart, form runs ([`Pending`]): a queue then holds one entry per
/// congestion event instead of one per step of overflow.
struct Feedback {
    queues: Vec<VecDeque<Pending>>,
    /// Per flow: the front entry's delivery step (u64::MAX when empty).
    front: Vec<u64>,
    /// The earliest of `front`: before it, phase 1 has nothing to do.
    next: u64,
    /// Whether overflow indications form runs.
    runs: bool,
}

impl Feedback {
    /// No indication in flight for `n` flows.
    fn new(n: usize, runs: bool) -> Feedback {
        Feedback {
            queues: vec![VecDeque::new(); n],
            front: vec![u64::MAX; n],
            next: u64::MAX,
            runs,
        }
    }

    /// Queue for flow `i` an indication of `amount` (flow packets) that
    /// happened in step `k` (of `h` seconds) and reaches the sender one RTT
    /// `rtt` (seconds) later.
    #[inline]
    fn push(&mut self, i: usize, k: u64, h: f64, rtt: f64, amount: f64, early: bool) {
        //= paper 004 / MGT: the loss indication rate is seen one RTT later,
        //= lambda_i(t - R_i); the RTT includes the queue at the time of the loss.
        let deliver = k + 1 + ceil_u64(rtt / h);
        let q = &mut self.queues[i];
        if let Some(last) = q.back_mut() {
            // The last indication queued (of a run, its last one).
            let (d, o) = (
                last.deliver + (last.count - 1),
                last.occurred + (last.count - 1),
            );
            if d == deliver && last.early == early {
                last.amount += amount;
                return;
            }
            // One step after the last one, delivered one step after it.
            if self.runs && !early && !last.early && k == o && deliver == d + 1 {
                last.count += 1;
                return;
            }
        }
        q.push_back(Pending {
            deliver,
            occurred: k + 1,
            amount,
            early,
            count: 1,
        });
        if q.len() == 1 {
            self.front[i] = deliver;
            self.next = self.next.min(deliver);
        }
    }

    /// Flow `i`'s front indication (of a run, the part of it due), taken off
    /// its queue, if it reaches the sender at step `k` or before.
    #[inline]
    fn pop_due(&mut self, i: usize, k: u64) -> Option<Pending> {
        if self.front[i] > k {
            return None;
        }
        let q = &mut self.queues[i];
        let first = q.front_mut()?;
        let due = (k - first.deliver + 1).min(first.count);
        let p = Pending {
            count: due,
            ..*first
        };
        if due < first.count {
            // The rest of the run is due from step k + 1.
            first.deliver += due;
            first.occurred += due;
            first.count -= due;
            self.front[i] = first.deliver;
        } else {
            q.pop_front();
            self.front[i] = q.front().map_or(u64::MAX, |x| x.deliver);
        }
        Some(p)
    }
}

/// `x.ceil() as u64` without a call to libm's `ceil` (x86-64's baseline has
/// no rounding instruction): the same value for every `x`, NaN and the
/// infinities included.
#[inline]
fn ceil_u64(x: f64) -> u64 {
    // `as` truncates towards zero and saturates (NaN gives 0).
    let t = x as u64;
    if (t as f64) < x {
        t.saturating_add(1)
    } else {
        t
    }
}

#[cfg(test)]
mod tests {
    use super::{Feedback, ceil_u64};

    /// Event-mode delivery (one reduction per event, as phase 1 does) of
    /// the overflow indications pushed by `losses[k]` (the RTT in steps of
    /// each loss at step k): the steps at which the flow reduces.
    fn reductions(runs: bool, losses: &[Vec<u64>]) -> Vec<u64> {
        let mut fb = Feedback::new(1, runs);
        let (mut last_red, mut out) = (0, vec![]);
        for k in 0..losses.len() as u64 + 400 {
            while let Some(p) = fb.pop_due(0, k) {
                if p.occurred + (p.count - 1) > last_red {
                    last_red = k;
                    out.push(k);
                }
            }
            for &r in losses.get(k as usize).into_iter().flatten() {
                fb.push(0, k, 1.0, r as f64, 1.0, false);
            }
        }
        out
    }

    /// Runs of indications reduce the window at the same steps as the
    /// indications one by one: overflow lasting many steps, RTTs that
    /// change (a queue that moves), several losses in one step.
    #[test]
    fn runs_deliver_as_single_indications() {
        let mut x: u64 = 7;
        let mut rnd = |m: u64| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) % m
        };
        for _ in 0..300 {
            let (mut rtt, mut losses) = (20 + rnd(100), vec![]);
            for _ in 0..2000 {
                let mut step = vec![];
                if rnd(10) < 3 {
                    step.push(rtt);
                    if rnd(20) == 0 {
                        step.push(rtt + rnd(3));
                    }
                }
                if rnd(50) == 0 {
                    rtt = (rtt + rnd(5)).saturating_sub(2).max(1);
                }
                losses.push(step);
            }
            let single = reductions(false, &losses);
            assert!(single.len() > 5);
            assert_eq!(reductions(true, &losses), single);
        }
    }

    #[test]
    fn ceil_u64_is_ceil_as_u64() {
        let mut xs = vec![
            0.0,
            -0.0,
            0.5,
            1.0,
            1.0 + f64::EPSILON,
            2.0 - f64::EPSILON,
            -0.5,
            -3.5,
            4503599627370495.5,
            9007199254740993.0,
            1.8446744073709552e19,
            1e30,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::MIN_POSITIVE,
        ];
        // RTTs over steps as the engine forms them.
        for k in 1..20_000u32 {
            let rtt = k as f64 * 1.37e-5;
            xs.push(rtt / 1e-3);
            xs.push(rtt / (1.0 / 3.0e3));
            xs.push(k as f64);
        }
        for x in xs {
            assert_eq!(ceil_u64(x), x.ceil() as u64, "{x:e}");
        }
    }
}
