//! bufsim-core: the engines of the bufsim router buffer-sizing workbench.
//!
//! * [`scenario`]: the one validated scenario every engine takes, with
//!   [`units`] (integer-picosecond time, rates, sizes) and [`traffic`] (how
//!   transfers come and go);
//! * [`packet`]: the discrete-event packet-level simulator, built from
//!   [`engine`] (events, RNG streams), [`net`], [`queue`], [`tcp`] and [`stats`];
//! * [`fluid`]: the fluid (ODE) models;
//! * [`output`]: the engine-neutral result shape;
//! * [`params`]: typed readers of the variants' and disciplines' parameters;
//! * [`cost`]: what a run will cost, estimated before it starts.
//!
//! Pure Rust: compiles and tests without Python (the bindings live in
//! `bufsim-py`). `ARCHITECTURE.md` at the repository root shows how the
//! modules depend on each other.

#![warn(missing_docs)]

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
