//! RED against its definition (Floyd and Jacobson 1993 section 4; Floyd
//! 2000 for gentle mode), driving the discipline directly.

mod common;

use bufsim_core::Scenario;
use bufsim_core::engine::rng::{Stream, stream};
use bufsim_core::net::Packet;
use bufsim_core::queue::QdiscConfig;
use bufsim_core::queue::red::FORCED;
use bufsim_core::queue::red::{Red, profile};
use bufsim_core::queue::red::{RedConfig, RedVariant};
use bufsim_core::queue::{Discipline, Drops, Limit, Occupancy};
use bufsim_core::units::SimTime;
use serde_json::json;

fn scenario(params: serde_json::Value) -> Scenario {
    let v = json!({
        "duration": "10s",
        "link": {"capacity": "12Mbps", "delay": "10ms", "buffer": "1000pkt", "qdisc": "red", "qdisc_params": params},
        "flows": [{"rtt": "100ms", "mss": "1500B"}],
    });
    common::from_json(&v).unwrap()
}

fn red(s: &Scenario) -> (Red, RedConfig) {
    let QdiscConfig::Red(cfg) = s.link().queue else {
        panic!("red")
    };
    (
        Red::with_config(
            cfg,
            Limit::Packets(1000),
            s.link().info(),
            stream(7, Stream::Queue(0)),
        ),
        cfg,
    )
}

fn pkt(seq: u64) -> Packet {
    Packet::new(0, 1500, seq, 0)
}

#[test]
fn average_follows_the_ewma_and_idle_correction() {
    let s = scenario(json!({"min_th": 100, "max_th": 300, "w_q": 0.002}));
    let (mut q, _) = red(&s);
    let mut drops: Drops = Vec::new();
    let mut occ = Occupancy::default();
    let t = SimTime::from_millis(1);
    // 50 arrivals, no departures: arrival k sees q = k and
    // avg_k = (1 - w) avg_{k-1} + w k; the first arrival finds the queue empty
    // after 1 ms of idle time (m = 1 ms / 1 ms per 1500B at 12 Mbps = 1), avg stays 0.
    let w = 0.002f64;
    let mut expect = 0.0f64;
    for k in 0..50u64 {
        q.enqueue(pkt(k), occ, t, &mut drops);
        expect = if k == 0 {
            0.0
        } else {
            (1.0 - w) * expect + w * k as f64
        };
        occ.pkts += 1;
        occ.bytes += 1500;
    }
    assert!(drops.is_empty());
    assert!((q.avg() - expect).abs() < 1e-12, "{} vs {expect}", q.avg());
    // Closed form of the same recursion: avg_49 = w sum_{k=1}^{49} k (1-w)^(49-k) = 2.3733.
    assert!((q.avg() - 2.373_3).abs() < 1e-3, "{}", q.avg());
    // Drain; the queue empties at t = 1 ms. An arrival 100 ms later finds an
    // idle queue: m = 100 ms / (1500 * 8 / 12e6 s) = 100 packet times, so
    // avg <- (1 - w)^100 avg (section 4: "m <- f(time - q_time)").
    for _ in 0..50 {
        q.dequeue(occ, t, &mut drops);
        occ.pkts -= 1;
        occ.bytes -= 1500;
    }
    let before = q.avg();
    let t2 = SimTime::from_millis(101);
    q.enqueue(pkt(99), occ, t2, &mut drops);
    let want = before * (1.0 - w).powi(100);
    assert!((q.avg() - want).abs() < 1e-9, "{} vs {want}", q.avg());
}

/// Drop fraction over `n` arrivals that each see a queue of `hold` packets
/// (RED reads the occupancy it is given; with w_q ~ 1 the average equals it).
fn drop_fraction(params: serde_json::Value, hold: u64, n: u64) -> (f64, f64, f64) {
    let s = scenario(params);
    let (mut q, cfg) = red(&s);
    let mut drops: Drops = Vec::new();
    let t = SimTime::from_millis(1);
    let occ = Occupancy {
        pkts: hold,
        bytes: hold * 1500,
    };
    let (mut dropped, mut forced) = (0u64, 0u64);
    for k in 0..n {
        q.enqueue(pkt(k), occ, t, &mut drops);
        match drops.pop() {
            Some((_, r)) if r == FORCED => forced += 1,
            Some(_) => dropped += 1,
            None => {
                q.dequeue(occ, t, &mut drops);
            }
        }
    }
    let pb = profile(&cfg, cfg.max_p, q.avg());
    (dropped as f64 / n as f64, forced as f64 / n as f64, pb)
}

/// Long-run drop fraction under count spacing, from the gap distribution:
/// P(gap = k) = pa_k prod_{j<k} (1 - pa_j), the drop fraction 1 / E[gap].
/// Floyd & Jacobson's pa_k = pb / (1 - k pb) (section 4, Fig. 2)
/// telescopes to gaps uniform over k < 1/pb - 1 (section 7, "Method 2"),
/// about 2 pb for small pb. With ns-2's wait_ (red.cc modify_p) pa_k is 0
/// below k pb = 1, pb / (2 - k pb) up to k pb = 2 and 1 beyond: gaps uniform
/// from 1/pb to 2/pb, about 2 pb / 3.
fn spaced_fraction(pb: f64, wait: bool) -> f64 {
    let (mut survive, mut mean, mut k) = (1.0f64, 0.0f64, 1.0f64);
    while survive > 1e-15 {
        let pa = match (wait, k * pb) {
            (true, kp) if kp < 1.0 => 0.0,
            (true, kp) if kp < 2.0 => (pb / (2.0 - kp)).min(1.0),
            (false, kp) if kp < 1.0 - pb => pb / (1.0 - kp),
            _ => 1.0,
        };
        mean += k * survive * pa;
        survive *= 1.0 - pa;
        k += 1.0;
    }
    1.0 / mean
}

#[test]
fn drop_probability_matches_the_profile_with_count_spacing() {
    // 200000 arrivals give 5000-60000 drops: a relative standard error
    // under 1.5%; tolerance 5%.
    for wait in [false, true] {
        let base = json!({"min_th": 10, "max_th": 30, "max_p": 0.1, "w_q": 0.999999, "gentle": false, "wait": wait});
        for hold in [15u64, 20, 25, 29] {
            let (f, forced, pb) = drop_fraction(base.clone(), hold, 200_000);
            let want_pb = 0.1 * (hold as f64 - 10.0) / 20.0;
            assert!(
                (pb - want_pb).abs() < 1e-3,
                "profile at {hold}: {pb} vs {want_pb}"
            );
            let want = spaced_fraction(pb, wait);
            println!(
                "red wait={wait} hold={hold}: pb={pb:.4} drop fraction {f:.5} vs spaced {want:.5}"
            );
            assert_eq!(forced, 0.0);
            assert!(
                (f / want - 1.0).abs() < 0.05,
                "wait {wait}, hold {hold}: {f} vs {want}"
            );
        }
        // Non-gentle: at or above max_th every arrival is a forced drop.
        let (f, forced, _) = drop_fraction(base.clone(), 31, 1000);
        assert_eq!((f, forced), (0.0, 1.0));
    }
}

#[test]
fn gentle_mode_between_max_th_and_twice_max_th() {
    // Floyd 2000: p = max_p + (1 - max_p)(avg - max_th)/max_th for
    // max_th <= avg < 2 max_th, then 1. At 40 (max_th 30): 0.1 + 0.9 * 10/30 = 0.4;
    // at 34: 0.22; at 50: 0.7, where the count spacing (pb / (1 - pb) >= 1)
    // drops every arrival early.
    let gentle = json!({"min_th": 10, "max_th": 30, "max_p": 0.1, "w_q": 0.999999, "gentle": true});
    for (hold, want_pb) in [(34u64, 0.22), (40, 0.4), (50, 0.7)] {
        let (f, forced, pb) = drop_fraction(gentle.clone(), hold, 100_000);
        assert!(
            (pb - want_pb).abs() < 1e-3,
            "gentle profile at {hold}: {pb}"
        );
        let want = spaced_fraction(pb, false);
        println!("red gentle hold={hold}: pb={pb:.3} drop fraction {f:.4} vs {want:.4}");
        assert_eq!(forced, 0.0);
        assert!(
            (f / want - 1.0).abs() < 0.05,
            "gentle {hold}: {f} vs {want}"
        );
    }
    // At 2 max_th and above: forced drops.
    let (_, forced, _) = drop_fraction(gentle, 61, 1000);
    assert_eq!(forced, 1.0);
}

#[test]
fn with_w_q_one_it_marks_on_the_instantaneous_queue() {
    // ns-3's DCTCP example (examples/tcp/dctcp-example.cc): QW = 1, so the
    // average is the queue each arrival sees, and ECN-capable packets are
    // marked, not dropped, between the thresholds. A queue that jumps from
    // 0 to 59 packets and back marks at once and stops at once: no EWMA
    // memory in either direction.
    use bufsim_core::net::{CE, ECT};
    let s = scenario(
        json!({"min_th": 20, "max_th": 60, "max_p": 1.0, "w_q": 1, "ecn": true, "gentle": false}),
    );
    let (mut q, cfg) = red(&s);
    assert_eq!(cfg.w_q, 1.0);
    let mut drops: Drops = Vec::new();
    let t = SimTime::from_millis(1);
    let mut marked = |q: &mut Red, hold: u64, n: u64| {
        let occ = Occupancy {
            pkts: hold,
            bytes: hold * 1500,
        };
        let mut ce = 0;
        for k in 0..n {
            q.enqueue(Packet::new(0, 1500, k, ECT), occ, t, &mut drops);
            assert!(drops.is_empty(), "an ECN-capable packet was dropped");
            let out = q.dequeue(occ, t, &mut drops).expect("queued");
            assert_eq!(q.avg(), hold as f64);
            ce += u64::from(out.pkt.ecn() & CE != 0);
        }
        ce as f64 / n as f64
    };
    assert_eq!(marked(&mut q, 10, 1000), 0.0);
    // p_b = (59 - 20) / 40 = 0.975: count spacing marks almost every arrival.
    let hi = marked(&mut q, 59, 1000);
    assert!(hi > 0.95, "{hi}");
    assert_eq!(marked(&mut q, 19, 1000), 0.0);
    // max_th = min_th (a step at K) is accepted too.
    let step = scenario(json!({"min_th": 30, "max_th": 30, "w_q": 1}));
    let QdiscConfig::Red(c) = step.link().queue else {
        panic!("red")
    };
    assert_eq!((c.min_th, c.max_th), (30.0, 30.0));
}

#[test]
fn above_max_th_ecn_capable_packets_are_marked_unless_hard_drop() {
    // Linux's sch_red (RED_HARD_MARK) and ns-3's RedQueueDisc (DTYPE_FORCED)
    // mark an ECN-capable packet above the forced threshold when ECN is on
    // and harddrop / UseHardDrop is off; otherwise, and for a packet that is
    // not ECN-capable, they drop it.
    use bufsim_core::net::{CE, ECT};
    let occ = Occupancy {
        pkts: 50,
        bytes: 50 * 1500,
    };
    let t = SimTime::from_millis(1);
    for variant in ["floyd", "ns3"] {
        for (hard_drop, ecn_capable, marked) in [
            (false, true, true),
            (false, false, false),
            (true, true, false),
        ] {
            let params = json!({"min_th": 10, "max_th": 10, "w_q": 1, "gentle": false,
                                "ecn": true, "hard_drop": hard_drop, "variant": variant});
            let (mut q, cfg) = red(&scenario(params));
            assert_eq!(cfg.hard_drop, hard_drop);
            let mut drops: Drops = Vec::new();
            let ecn = if ecn_capable { ECT } else { 0 };
            q.enqueue(Packet::new(0, 1500, 0, ecn), occ, t, &mut drops);
            let case = format!("{variant}, hard_drop {hard_drop}, ECT {ecn_capable}");
            if marked {
                assert!(drops.is_empty(), "{case}");
                let out = q.dequeue(occ, t, &mut drops).expect("queued");
                assert_ne!(out.pkt.ecn() & CE, 0, "{case}");
            } else {
                assert_eq!(drops.len(), 1, "{case}");
                assert_eq!(drops[0].1, FORCED, "{case}");
            }
        }
    }
    // Off by default, as Linux.
    let (_, cfg) = red(&scenario(json!({})));
    assert!(!cfg.hard_drop);
}

#[test]
fn ns3_red_spares_a_disc_of_one_packet_and_the_first_arrival_above_min_th() {
    // w_q = 1: the average is the queue ns-3's disc holds, the buffer's
    // packets but the one in the device queue. Above 2 max_th the paper's
    // RED drops every arrival, however short the queue; ns-3's
    // RedQueueDisc::DoEnqueue drops only with more than one packet in the
    // disc ("m_qAvg >= m_minTh && nQueued > 1").
    let occ = |pkts: u64| Occupancy {
        pkts,
        bytes: pkts * 1500,
    };
    let t = SimTime::from_millis(1);
    let params = |variant: &str| json!({"min_th": 1, "max_th": 1, "w_q": 1, "gentle": false, "variant": variant});
    for (variant, held, dropped) in [("floyd", 2, true), ("ns3", 2, false), ("ns3", 3, true)] {
        let (mut q, cfg) = red(&scenario(params(variant)));
        let mut drops: Drops = Vec::new();
        q.enqueue(pkt(0), occ(held), t, &mut drops);
        assert_eq!(drops.len() == 1, dropped, "{variant}, {held} held");
        if dropped {
            assert_eq!(drops[0].1, FORCED);
        }
        // ns-3's average reads its disc: one packet less.
        let disc = if cfg.variant == RedVariant::Ns3 {
            held - 1
        } else {
            held
        };
        assert_eq!(q.avg(), disc as f64);
    }
    // Between the thresholds with max_p = 1 and p_b = 1/2 (avg 30 between
    // 20 and 40, held at 31): the paper's RED may drop the first arrival
    // (count 0, p_a = p_b); ns-3 keeps it ("m_old == 0": m_count = 1, no
    // drop) and then drops at p_b / (1 - count p_b) = 1 with count 2: the
    // second arrival, always.
    for seed in 0..20 {
        let s =
            scenario(json!({"min_th": 20, "max_th": 40, "max_p": 1.0, "w_q": 1, "variant": "ns3"}));
        let QdiscConfig::Red(cfg) = s.link().queue else {
            panic!("red")
        };
        let mut q = Red::with_config(
            cfg,
            Limit::Packets(1000),
            s.link().info(),
            stream(seed, Stream::Queue(0)),
        );
        let mut drops: Drops = Vec::new();
        q.enqueue(pkt(0), occ(31), t, &mut drops);
        assert!(
            drops.is_empty(),
            "seed {seed}: the first arrival above min_th dropped"
        );
        q.enqueue(pkt(1), occ(32), t, &mut drops);
        assert_eq!(drops.len(), 1, "seed {seed}");
    }
}

#[test]
fn ns3_red_is_refused_where_it_is_not_mirrored() {
    for (params, field) in [
        (json!({"variant": "ns3", "mode": "bytes"}), "mode"),
        (json!({"variant": "ns2"}), "variant"),
    ] {
        let v = json!({
            "duration": "10s",
            "link": {"capacity": "12Mbps", "delay": "10ms", "buffer": "1000pkt", "qdisc": "red", "qdisc_params": params},
            "flows": [{"rtt": "100ms", "mss": "1500B"}],
        });
        let e = common::from_json(&v).unwrap_err().to_string();
        assert!(e.contains(&format!("link.qdisc_params.{field}")), "{e}");
    }
}

/// Adaptive RED's steps of max_p, arrivals every 100 ms with the average
/// above the target band (min_th 10, max_th 30: band 18-22, queue 26):
/// Fig. 2 steps at every interval (0.5, 1.0, 1.5 s), ns-2 and ns-3 at the
/// first arrival more than an interval after max_p last moved (red.cc
/// REDQueue::estimator: 0.6, 1.2 s). Each step adds min(0.01, max_p / 4).
#[test]
fn adaptive_red_steps_at_each_variants_times() {
    for (variant, steps) in [("floyd", 3), ("ns3", 2)] {
        let s = scenario(json!({"min_th": 10, "max_th": 30, "w_q": 0.999999,
            "adaptive": true, "variant": variant}));
        let (mut q, _) = red(&s);
        let mut drops: Drops = Vec::new();
        let occ = Occupancy {
            pkts: 27,
            bytes: 27 * 1500,
        };
        for k in 1..=15u64 {
            q.enqueue(pkt(k), occ, SimTime::from_millis(100 * k), &mut drops);
        }
        let want = (0..steps).fold(0.1f64, |m, _| m + 0.01f64.min(m / 4.0));
        assert!(
            (q.max_p() - want).abs() < 1e-12,
            "{variant}: max_p {} vs {want} ({steps} steps)",
            q.max_p()
        );
    }
}
