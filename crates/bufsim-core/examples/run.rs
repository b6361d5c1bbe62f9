//! Run one scenario (JSON file) through an engine and print the summary and
//! the wall time (a profiling aid: `perf record` this binary). Summary values
//! print at full precision (shortest round-trip form), so that the output of
//! two builds can be compared bit for bit with `diff`.
//! Usage: cargo run --release --example run -- scenario.json [packet|fluid]
use bufsim_core::{Scenario, fluid, packet};

/// The Python extension's allocator (`crates/bufsim-py/src/lib.rs` says
/// why), so that a profile shows the engine as users run it.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: run <scenario.json> [packet|fluid]");
    let engine = std::env::args().nth(2).unwrap_or_else(|| "packet".into());
    let text = std::fs::read_to_string(&path).expect("readable scenario file");
    let s = match Scenario::from_json(&text) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let t0 = std::time::Instant::now();
    let out = match engine.as_str() {
        "fluid" => fluid::run(&s, &mut |_| true),
        _ => packet::run(&s, &mut |_| true),
    };
    let wall = t0.elapsed().as_secs_f64();
    for (k, v) in &out.summary {
        println!("{k:24} {v:?}");
    }
    println!("{:24} {wall:.3}", "wall_s");
    println!(
        "{:24} {:.3e}",
        "events_per_s",
        out.metric("events").unwrap_or(0.0) / wall
    );
}
