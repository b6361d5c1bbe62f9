//! Property tests of the fluid engine under random scenarios: utilization
//! and goodput never above the capacity (goodput is what the link served in
//! the window), drop rate in [0, 1], and bit-identical reruns.

mod common;

use bufsim_core::fluid;
use proptest::prelude::*;
use serde_json::json;

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn goodput_and_utilization_within_capacity(
        cap_mbps in 1.0f64..50.0,
        buffer in 1u32..100,
        flows in 1u32..6,
        rtt_lo in 1u32..50,
        rtt_span in 0u32..200,
        late in 1u32..4,
        tcp in prop::sample::select(vec!["newreno", "cubic", "highspeed", "scalable", "htcp"]),
        seed in 0u64..1000,
    ) {
        let v = json!({
            "duration": "1.3s",
            "warmup": "0.2s",
            "seed": seed,
            "link": {"capacity": format!("{cap_mbps}Mbps"), "delay": "0ms", "buffer": format!("{buffer}pkt")},
            "flows": [
                {"count": flows, "tcp": tcp, "rtt": {"uniform": [format!("{rtt_lo}ms"), format!("{}ms", rtt_lo + rtt_span)]}},
                {"count": late, "rtt": "1ms", "start": {"uniform": ["0s", "0.65s"]}},
            ],
        });
        let s = common::from_json(&v).expect("valid scenario");
        fluid::check(&s).expect("has a fluid form");
        let out = fluid::run(&s, &mut |_| true);
        let m = |k: &str| out.metric(k).unwrap();
        let cap = s.link().capacity_bps;
        prop_assert!(m("utilization") <= 1.0 + 1e-9, "utilization {}", m("utilization"));
        prop_assert!(m("goodput_bps") <= cap * (1.0 + 1e-9), "goodput {} on {}", m("goodput_bps"), cap);
        prop_assert!((0.0..=1.0).contains(&m("drop_rate")));
        let again = fluid::run(&s, &mut |_| true);
        prop_assert_eq!(format!("{out:?}"), format!("{again:?}"));
    }
}
