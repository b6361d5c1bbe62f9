//! Paper 003's hybrid model (Avrachenkov, Ayesta, Piunovskiy), for
//! validation against its Theorem 1: the aggregate sending rate lambda grows
//! linearly at alpha, the buffer follows eq. (1), and when the buffer fills
//! the rate jumps to beta lambda.
//!
//! Between jumps the trajectory is a polynomial in time, so each fixed step
//! is integrated exactly, with the moments the buffer fills or empties found
//! by solving the quadratic: "RK4 or better", and the jump times are exact.

use super::stats::Recorder;
use crate::engine::Progress;
use crate::output::RunOutput;
use crate::scenario::Scenario;
use crate::tcp::cc::CcConfig;
use crate::tcp::cc::aimd::AimdConfig;
use crate::units::{PS_PER_SEC, SimTime};

/// How often (in steps) the progress hook is called.
const PROGRESS_EVERY: u64 = 100_000;

/// Smallest root s > 0 of a s^2 + b s + c = 0 (None if there is none).
fn first_positive_root(a: f64, b: f64, c: f64) -> Option<f64> {
    const EPS: f64 = 1e-15;
    if a.abs() < 1e-300 {
        let s = -c / b;
        return (b != 0.0 && s > EPS).then_some(s);
    }
    let disc = b * b - 4.0 * a * c;
    if disc < 0.0 {
        return None;
    }
    // Numerically stable pair of roots.
    let qq = -0.5 * (b + b.signum() * disc.sqrt());
    let r1 = qq / a;
    let r2 = if qq != 0.0 { c / qq } else { r1 };
    let (lo, hi) = if r1 < r2 { (r1, r2) } else { (r2, r1) };
    if lo > EPS {
        Some(lo)
    } else if hi > EPS {
        Some(hi)
    } else {
        None
    }
}

/// (a, b) of the AIMD law of a flow group (checked to be AIMD beforehand).
fn aimd_of(cc: &CcConfig) -> AimdConfig {
    match *cc {
        CcConfig::Aimd(c) => c,
        _ => AimdConfig::default(),
    }
}

/// Run the hybrid model on a checked scenario.
pub fn run(s: &Scenario, progress: Progress) -> RunOutput {
    let pkt = s.link().packet_size_bytes as f64;
    let mu = s.link().capacity_bps / (8.0 * pkt);
    let buf = s.link().buffer_pkts as f64;
    let bg: f64 = s.background.iter().map(|b| b.rate_bps / (8.0 * pkt)).sum();

    let mut rtts = Vec::new();
    let mut groups = Vec::new();
    let mut weight = Vec::new();
    let mut to_flow = Vec::new();
    let mut alpha = 0.0;
    let mut lam = 0.0;
    let mut b_sum = 0.0;
    for (g, grp) in s.flows.iter().enumerate() {
        let c = aimd_of(&grp.cc);
        let sc = grp.mss_bytes as f64 / pkt;
        for k in 0..grp.count as usize {
            let r = grp.rtts[k].as_secs_f64();
            //= paper 003 section II: alpha_i = 1/RTT_i^2 (a packets per RTT:
            //= a/RTT_i^2), alpha = sum_i alpha_i.
            alpha += c.a * sc / (r * r);
            lam += grp.rules.initial_window as f64 * sc / r;
            b_sum += c.b;
            rtts.push(r);
            groups.push(g);
            // AIMD's rate share is proportional to sqrt(a)/RTT (same b).
            weight.push(c.a.sqrt() * sc / r);
            to_flow.push(1.0 / sc);
        }
    }
    let n = rtts.len();
    let wsum: f64 = weight.iter().sum();
    let share: Vec<f64> = weight.iter().map(|x| x / wsum).collect();
    //= paper 003 section II: beta = 1 - (1 - beta_0) n~/n, with 1 - beta_0 the
    //= flows' decrease fraction b and n~/n the signalled fraction (fluid.sync,
    //= all flows when absent).
    let frac = s.fluid.sync.unwrap_or(1.0);
    let b0 = b_sum / n as f64;
    let beta = 1.0 - b0 * frac;

    let h_ps = s.fluid.step.0;
    let h = h_ps as f64 / PS_PER_SEC as f64;
    let steps = s.duration.0 / h_ps;
    let mut rec = Recorder::new(s, n, mu);
    let mut x = 0.0f64;
    let mut completed = true;
    let mut w = vec![0.0; n];

    for k in 0..steps {
        let t_sim = SimTime(k * h_ps);
        if k % PROGRESS_EVERY == 0 && k > 0 && !progress(t_sim) {
            completed = false;
            break;
        }
        let counting = rec.in_window(t_sim);
        let (x0, lam0) = (x, lam);
        let mut rem = h;
        let (mut served, mut arrived_tcp, mut area) = (0.0, 0.0, 0.0);
        let mut guard = 0;
        while rem > 0.0 && guard < 100_000 {
            guard += 1;
            let net = lam + bg - mu;
            if x >= buf && net >= 0.0 {
                //= paper 003 section II: when x reaches B, lambda(t+0) = beta lambda(t-0).
                lam *= beta;
                let at = SimTime(k * h_ps + ((h - rem) * PS_PER_SEC as f64) as u64);
                rec.event(at, frac);
                if counting {
                    for i in 0..n {
                        rec.loss_events[i] += frac;
                    }
                }
                continue;
            }
            if x <= 0.0 && net < 0.0 {
                //= paper 003 eq. (1): x' = 0 while x = 0 and lambda <= mu.
                let dt = if alpha > 0.0 {
                    (-net / alpha).min(rem)
                } else {
                    rem
                };
                served += (lam + bg) * dt + 0.5 * alpha * dt * dt;
                arrived_tcp += lam * dt + 0.5 * alpha * dt * dt;
                lam += alpha * dt;
                rem -= dt;
                x = 0.0;
                continue;
            }
            //= paper 003 eqs. (1)-(2): lambda(s) = lambda + alpha s,
            //= x(s) = x + (lambda - mu) s + alpha s^2 / 2.
            let mut dt = rem;
            let mut full = false;
            let mut empty = false;
            if let Some(r) = first_positive_root(0.5 * alpha, net, x - buf)
                && r <= dt
            {
                dt = r;
                full = true;
            }
            if net < 0.0
                && let Some(r) = first_positive_root(0.5 * alpha, net, x)
                && r < dt
            {
                dt = r;
                full = false;
                empty = true;
            }
            area += x * dt + 0.5 * net * dt * dt + alpha * dt * dt * dt / 6.0;
            served += mu * dt;
            arrived_tcp += lam * dt + 0.5 * alpha * dt * dt;
            x += net * dt + 0.5 * alpha * dt * dt;
            lam += alpha * dt;
            rem -= dt;
            if full {
                x = buf;
            } else if empty {
                x = 0.0;
            }
            x = x.clamp(0.0, buf);
        }
        if counting {
            rec.step(
                t_sim,
                h,
                served,
                arrived_tcp + bg * h,
                0.0,
                x0,
                x,
                arrived_tcp + bg * h,
            );
            // The exact integral of the queue replaces the trapezoid the recorder used.
            rec.q_area += area - 0.5 * (x0 + x) * h;
            for i in 0..n {
                rec.accepted[i] += share[i] * arrived_tcp;
                rec.w_area[i] += share[i] * 0.5 * (lam0 + lam) * rtts[i] * to_flow[i] * h;
            }
        } else {
            rec.step(t_sim, h, served, 0.0, 0.0, x0, x, 0.0);
        }
        let t_end = SimTime((k + 1) * h_ps);
        if rec.sample_due(t_end) {
            for i in 0..n {
                w[i] = share[i] * lam * rtts[i] * to_flow[i];
            }
            rec.sample(t_end, x, &w);
        }
    }
    rec.finish(s, &groups, &rtts, &to_flow, completed)
}

#[cfg(test)]
mod tests {
    use super::first_positive_root;

    #[test]
    fn roots() {
        // s^2 - 3 s + 2 = 0: roots 1 and 2.
        assert!((first_positive_root(1.0, -3.0, 2.0).unwrap() - 1.0).abs() < 1e-12);
        // c = 0: the root at 0 is skipped, the other one (3) is returned.
        assert!((first_positive_root(1.0, -3.0, 0.0).unwrap() - 3.0).abs() < 1e-12);
        assert_eq!(first_positive_root(1.0, 0.0, 1.0), None);
    }
}
