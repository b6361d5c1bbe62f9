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

/// Run the per-flow model on a checked scenario.
pub fn run(s: &Scenario, progress: Progress) -> RunOutput {
    let pkt = s.link.packet_size_bytes as f64;
    let cap = s.link.capacity_bps / (8.0 * pkt);
    let buf = s.link.buffer_pkts as f64;
    let bg: f64 = s.background.iter().map(|b| b.rate_bps / (8.0 * pkt)).sum();
    let rate_mode = s.fluid.decrease == Decrease::Rate;

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
            cc.push(FluidCc::new(&grp.cc));
        }
    }
    let n = prop.len();
    let to_flow: Vec<f64> = scale.iter().map(|x| 1.0 / x).collect();
    let net = Net {
        prop: prop.clone(),
        scale,
        cap,
        inv_cap: 1.0 / cap,
        buf,
        bg,
    };

    let h_ps = s.fluid.step.0;
    let h = h_ps as f64 / PS_PER_SEC as f64;
    let steps = s.duration.0 / h_ps;
    let start_step: Vec<u64> = start.iter().map(|t| t.0.div_ceil(h_ps)).collect();

    let mut module = s.fluid.sync.map(|x| {
        SyncModule::new(
            x,
            s.fluid.sync_sd,
            s.fluid.sync_policy,
            stream(s.seed, Stream::Fluid),
        )
    });
    // RED's random early-drop events use their own stream.
    let mut red = Red::from_scenario(s, cap, h, stream(s.seed, Stream::Queue));

    let mut rec = Recorder::new(s, n, cap);
    let mut w = vec![0.0f64; n];
    let mut active = vec![false; n];
    let mut q = 0.0f64;
    let mut growth = vec![Growth::default(); n];
    let mut dw = vec![0.0; n];
    let mut dw_acc = vec![0.0; n];
    let mut tmp = vec![0.0; n];
    let mut a_acc = vec![0.0; n];
    let mut pending: Vec<VecDeque<Pending>> = vec![VecDeque::new(); n];
    let mut last_red = vec![0u64; n];
    let mut chosen = vec![false; n];
    let mut in_event = false;
    let mut event_end = 0u64;
    let mut event_marked = vec![false; n];
    let mut completed = true;

    for k in 0..steps {
        let t_sim = SimTime(k * h_ps);
        let t = t_sim.as_secs_f64();
        if k % PROGRESS_EVERY == 0 && k > 0 && !progress(t_sim) {
            completed = false;
            break;
        }
        let counting = rec.in_window(t_sim);

        // 0. Flows that start now.
        for i in 0..n {
            if !active[i] && start_step[i] <= k {
                active[i] = true;
                w[i] = iw[i];
                cc[i].start(t, w[i]);
            }
        }

        // 1. Loss indications reaching their senders.
        for i in 0..n {
            while let Some(p) = pending[i].front().copied() {
                if p.deliver > k {
                    break;
                }
                pending[i].pop_front();
                if rate_mode {
                    //= paper 004 eq. (1), decrease term dW/dt = -b W lambda(t - R),
                    //= integrated exactly over the step for the delivered amount.
                    cc[i].slow_start = false;
                    let b = cc[i].decrease_fraction(w[i]);
                    w[i] = (w[i] * (-b * p.amount).exp()).max(super::cc::MIN_WINDOW);
                } else {
                    // One reduction per congestion event: losses of data sent
                    // before the last reduction belong to the same recovery
                    // (RFC 6582 section 3.2, NewReno "recover" point).
                    let fire = p.occurred > last_red[i] && (!p.early || red.fires(p.amount));
                    if fire {
                        w[i] = cc[i].on_loss(t, w[i], net.prop[i]);
                        last_red[i] = k;
                        if counting {
                            rec.loss_events[i] += 1.0;
                        }
                    }
                }
            }
        }

        // 2. RK4 over [t, t + h].
        let qd = q * net.inv_cap;
        for i in 0..n {
            growth[i] = if active[i] {
                cc[i].growth(t, h, &mut w[i], net.prop[i] + qd)
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
            let ws: &[f64] = if si == 0 { &w } else { &tmp };
            let r = net.eval(&growth, t + c_t * h, ws, qs, keep, &mut dw, &mut a_acc, wt);
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
        let q0 = q;
        let mut q1 = q + h6 * r_acc.dq;
        let arrived = h6 * r_acc.arrive;
        let mut served = h6 * r_acc.out;
        let mut forced = h6 * r_acc.overflow;
        if q1 > buf {
            forced += q1 - buf;
            q1 = buf;
        } else if q1 < 0.0 {
            served += q1;
            q1 = 0.0;
        }
        q = q1;
        let early_frac = 1.0 - keep;
        red.update_avg(q);

        // 3. Split the lost fluid among the flows.
        let tcp_in: f64 = a_acc.iter().sum();
        let all_in = tcp_in + bg * h * keep;
        let forced_tcp = if all_in > 0.0 {
            forced * tcp_in / all_in
        } else {
            0.0
        };
        let overflow = forced > 0.0 && tcp_in > 0.0;
        if overflow {
            // An event whose overflow outlasts the RTT of the flows it picked
            // (their reductions did not end it) is a new congestion event:
            // more flows lose (e.g. flows still in slow start).
            let new_event = !in_event || k >= event_end;
            if new_event {
                event_marked.iter_mut().for_each(|m| *m = false);
                let n_active = a_acc.iter().filter(|&&a| a > 0.0).count().max(1);
                let mut fraction = 1.0;
                match module.as_mut() {
                    Some(m) => {
                        //= paper 004 section II.C: at the k-th congestion the
                        //= controller draws m_k and the policy picks Pl_k.
                        let picked = m.choose(&a_acc, &mut chosen);
                        fraction = picked as f64 / n_active as f64;
                    }
                    None => {
                        for i in 0..n {
                            chosen[i] = a_acc[i] > 0.0;
                        }
                    }
                }
                rec.event(SimTime((k + 1) * h_ps), fraction);
                let r_max = (0..n)
                    .filter(|&i| chosen[i])
                    .map(|i| net.prop[i] + buf * net.inv_cap)
                    .fold(0.0, f64::max);
                event_end = k + 2 + (r_max / h).ceil() as u64;
            }
        }
        in_event = overflow;
        // Flow i lost `li` link packets in this step: queue the indication
        // for its sender and count it.
        let mut lost_tcp = 0.0;
        let mut lose = |i: usize, li: f64, early: bool| {
            lost_tcp += li;
            let rtt = net.prop[i] + q * net.inv_cap;
            push_loss(&mut pending[i], k, h, rtt, li * to_flow[i], early);
            if counting {
                rec.lost_flow[i] += li;
            }
        };
        if overflow {
            let chosen_in: f64 = (0..n).filter(|&i| chosen[i]).map(|i| a_acc[i]).sum();
            // A flow cannot lose more than it sent in the step: what the
            // chosen flows cannot take (flows that grew after the event's
            // choice) falls on the others, in proportion to their rates.
            let excess = (forced_tcp - chosen_in).max(0.0);
            let others_in = tcp_in - chosen_in;
            for i in 0..n {
                //= paper 004 eq. (5): lambda_i = A_i p (no module), or eq. (7):
                //= the m_k chosen flows share the whole excess ARsum - C, here
                //= in proportion to their rates, so every loss is accounted for.
                let li = if chosen_in > 0.0 {
                    if chosen[i] {
                        (forced_tcp * a_acc[i] / chosen_in).min(a_acc[i])
                    } else if others_in > 0.0 {
                        excess * a_acc[i] / others_in
                    } else {
                        0.0
                    }
                } else {
                    forced_tcp * a_acc[i] / tcp_in
                };
                if li > 0.0 {
                    lose(i, li, false);
                    if counting && rate_mode && !event_marked[i] {
                        rec.loss_events[i] += 1.0;
                    }
                    event_marked[i] = true;
                }
            }
        }
        if early_frac > 0.0 {
            for (i, &a) in a_acc.iter().enumerate() {
                //= MGT (RED): early drops at rate p(avg) A_i, split in proportion to rate.
                let li = a * early_frac;
                if li > 0.0 {
                    lose(i, li, true);
                }
            }
        }

        if counting {
            let mut accepted = bg * h * keep - (forced - forced_tcp);
            for i in 0..n {
                rec.w_area[i] += w[i] * h;
                rec.accepted[i] += a_acc[i];
                accepted += a_acc[i];
            }
            accepted -= lost_tcp;
            rec.step(
                t_sim,
                h,
                served,
                arrived,
                forced + arrived * early_frac,
                q0,
                q,
                accepted.max(0.0),
            );
        } else {
            rec.step(t_sim, h, served, arrived, 0.0, q0, q, 0.0);
        }
        let t_end = SimTime((k + 1) * h_ps);
        if rec.sample_due(t_end) {
            rec.sample(t_end, q, &w);
        }
    }

    // Accepted = arrived - lost, per flow.
    for i in 0..n {
        rec.accepted[i] = (rec.accepted[i] - rec.lost_flow[i]).max(0.0);
    }
    rec.finish(s, &groups, &prop, &to_flow, completed)
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
