//! bufsim-core: the engines of the bufsim router buffer-sizing workbench.
//!
//! * [`scenario`]: the one validated scenario every engine takes, with
//!   [`units`] (integer-picosecond time, rates, sizes) and [`traffic`] (how
//!   transfers come and go);
//! * [`packet`]: the discrete-event packet-level simulator, built from
//!   [`engine`] (events, RNG streams), [`net`], [`queue`], [`tcp`] and [`stats`];
//! * [`fluid`]: the fluid (ODE) models;
//! * [`output`]: the engine-neutral result shape.
//!
//! Pure Rust: compiles and tests without Python (the bindings live in `bufsim-py`).

pub mod cost;
pub mod engine;
pub mod fluid;
pub mod net;
pub mod output;
pub mod packet;
pub mod params;
pub mod queue;
pub mod scenario;
pub mod stats;
pub mod tcp;
pub mod traffic;
pub mod units;

pub use output::RunOutput;
pub use scenario::{Scenario, ScenarioError};

/// The allocator of every program that links the engines (the Python
/// extension, the benchmarks, the tests): mimalloc, which backs its heap
/// with 2 MiB transparent huge pages where the kernel grants them on request
/// (`madvise` mode, Debian's default). With thousands of flows the per-flow
/// state spans tens of megabytes read at random, and with 4 KiB pages the
/// address translations cost a large share of the packet engine's time (on
/// the virtual machines bufsim is benchmarked on, paired runs: -12% CPU time
/// at 10,000 CUBIC flows, -5% with 10 HighSpeed flows at 10 Gbps, no change
/// with 10 NewReno flows at 1 Gbps; glibc's allocator with huge pages
/// forced on gave the same gain). Results do not depend on the allocator.
/// Local-dynamic TLS: the library is loaded by `dlopen` into Python.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;
