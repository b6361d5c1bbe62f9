//! `links`: a chain of bottlenecks (a parking lot). One link is the
//! dumbbell; a flow through one link of a chain is the dumbbell's flow;
//! each link conserves packets; flows crossing several equally loaded links
//! get less than those crossing one.

mod common;

use common::{bits, m, run, scenario};
use serde_json::{Value, json};

fn link(cap: &str) -> Value {
    json!({"capacity": cap, "delay": "5ms", "buffer": "50pkt"})
}

/// 8 NewReno flows with SACK and delayed ACKs, RTTs 40-80 ms.
fn group(links: Option<Value>) -> Value {
    let mut g = json!({"count": 8, "rtt": {"uniform": ["40ms", "80ms"]}, "sack": true,
                       "delayed_ack": true, "start": {"uniform": ["0s", "1s"]}});
    if let Some(l) = links {
        g["links"] = l;
    }
    g
}

#[test]
fn a_flow_through_one_link_of_a_chain_is_the_dumbbells() {
    let one = json!({"duration": "20s", "warmup": "5s", "link": link("10Mbps"),
                     "flows": [group(None)]});
    // links = [L] is link = L: the same normalized scenario.
    let mut chain1 = one.clone();
    chain1["links"] = json!([link("10Mbps")]);
    chain1.as_object_mut().unwrap().remove("link");
    assert_eq!(scenario(&chain1).to_json(), scenario(&one).to_json());
    // On a chain of three, flows crossing only link 1 see link 1 as the
    // dumbbell's link: the same flows table bit for bit, and link 1's
    // statistics the dumbbell's.
    let mut chain = chain1.clone();
    chain["links"] = json!([link("100Mbps"), link("10Mbps"), link("100Mbps")]);
    chain["flows"] = json!([group(Some(json!([1])))]);
    let (a, b) = (run(&chain), run(&one));
    assert!(bits(&a.flows) == bits(&b.flows), "the flows differ");
    for k in [
        "utilization",
        "mean_queue_pkts",
        "drop_rate",
        "max_queue_pkts",
    ] {
        assert_eq!(m(&a, &format!("{k}_link1")), m(&b, k), "{k}");
    }
    assert_eq!(m(&a, "arrivals_link0"), 0.0);
    assert!(m(&b, "drop_rate") > 0.001, "the link is congested");
}

/// Three 10 Mbps links; 8 flows cross all three, 8 more each cross one.
fn parking_lot(warmup: &str) -> Value {
    json!({
        "duration": "60s", "warmup": warmup, "seed": 2,
        "links": [link("10Mbps"), link("10Mbps"), link("10Mbps")],
        "flows": [group(Some(json!([0, 1, 2]))), group(Some(json!([0]))),
                  group(Some(json!([1]))), group(Some(json!([2])))],
    })
}

#[test]
fn every_link_conserves_packets() {
    // From time 0: what reached a link's queue left it, was dropped, or
    // waits in it at the end (at most its 50 packets). Over the whole
    // network: sent = delivered + dropped + in flight (between links too).
    let o = run(&parking_lot("0s"));
    for k in 0..3 {
        let at = |x: &str| m(&o, &format!("{x}_link{k}"));
        let waiting = at("arrivals") - at("departures") - at("drops");
        assert!((0.0..=50.0).contains(&waiting), "link {k}: {waiting}");
        assert!(at("arrivals") > 40_000.0, "link {k} carries traffic");
    }
    let sent = m(&o, "packets_sent");
    let accounted =
        m(&o, "packets_delivered") + m(&o, "packets_dropped") + m(&o, "packets_in_flight");
    assert_eq!(sent, accounted);
}

#[test]
fn flows_crossing_more_links_get_less() {
    // The parking-lot result for TCP with equal RTT laws: a flow crossing
    // three equally loaded links loses at each and gets less than one
    // crossing one (measured: 0.276 Mbit/s each against 0.971-0.974).
    // Every link is full and carries what its flows get (9.975-10.0
    // Mbit/s of goodput; a packet crossing the window's edge may credit
    // it with up to one packet more than the link sent in it).
    let o = run(&parking_lot("10s"));
    let per_flow = |g: u32| m(&o, &format!("goodput_bps_group{g}")) / 8.0;
    for k in 0..3 {
        assert!(m(&o, &format!("utilization_link{k}")) > 0.99);
        assert!(
            per_flow(0) < 0.5 * per_flow(k + 1),
            "long {} vs link {k}'s {}",
            per_flow(0),
            per_flow(k + 1)
        );
        // Little's law on each link: its mean wait is its mean queue over
        // its departure rate (within 2%: the two are counted over slightly
        // different packets at the window's edges).
        let at = |x: &str| m(&o, &format!("{x}_link{k}"));
        let little = at("mean_queue_pkts") / (at("departures") / 50.0);
        let wait = at("mean_queue_delay_s");
        assert!(
            (wait / little - 1.0).abs() < 0.02,
            "link {k}: {wait} s against {little} s"
        );
        let carried = 8.0 * (per_flow(0) + per_flow(k + 1));
        assert!(
            carried <= 10e6 * 1.00001 && carried > 9.5e6,
            "link {k} carries {carried}"
        );
    }
}

#[test]
fn drops_by_reason_count_every_links_discipline() {
    // Links of different disciplines number their drop reasons each their
    // own way (fq's `longest_queue` is its reason 1, RED's `early`): the
    // summary names each reason once, overflow first and then each link's
    // own in link order, and sums each over the links that have it.
    let chain = |links: Value, flows: Value| {
        run(&json!({"duration": "10s", "seed": 1, "links": links, "flows": flows}))
    };
    let slow = |buffer: &str, qdisc: &str| json!({"capacity": "1Mbps", "delay": "1ms", "buffer": buffer, "qdisc": qdisc});
    // One flow through the second link only, fq behind drop-tail: every
    // drop is fq's, at link 1.
    let o = chain(
        json!([slow("5pkt", "droptail"), slow("1pkt", "fq")]),
        json!([{"count": 1, "rtt": "10ms", "links": [1]}]),
    );
    assert_eq!(m(&o, "drops_link0"), 0.0);
    let fq = m(&o, "drops_overflow") + m(&o, "drops_longest_queue");
    assert!(m(&o, "drops_link1") > 10.0, "{}", m(&o, "drops_link1"));
    assert_eq!(fq, m(&o, "drops_link1"));
    // Drop-tail, RED and fq, a flow group through each: the drops by
    // reason are the links' drops.
    let mut red = slow("30pkt", "red");
    red["qdisc_params"] = json!({"min_th": 2, "max_th": 6});
    let o = chain(
        json!([slow("5pkt", "droptail"), red, slow("3pkt", "fq")]),
        json!([{"count": 3, "rtt": "10ms", "links": [0]},
               {"count": 3, "rtt": "10ms", "links": [1]},
               {"count": 3, "rtt": "10ms", "links": [2]}]),
    );
    let reasons: Vec<&str> = o
        .summary
        .iter()
        .filter_map(|(k, _)| k.strip_prefix("drops_"))
        .filter(|k| !k.starts_with("link"))
        .collect();
    assert_eq!(reasons, ["overflow", "early", "forced", "longest_queue"]);
    let by_reason: f64 = reasons.iter().map(|r| m(&o, &format!("drops_{r}"))).sum();
    let by_link: f64 = (0..3).map(|k| m(&o, &format!("drops_link{k}"))).sum();
    assert_eq!(by_reason, by_link);
    for k in 0..3 {
        assert!(m(&o, &format!("drops_link{k}")) > 10.0, "link {k}");
    }
    assert!(m(&o, "drops_early") > 0.0 && m(&o, "drops_longest_queue") > 0.0);
}
