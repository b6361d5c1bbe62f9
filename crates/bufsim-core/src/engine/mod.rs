//! Discrete-event machinery shared by the engines: the event queue with a
//! deterministic tie order, seeded random streams, and the progress hook.

pub mod queue;
pub mod rng;

use crate::units::SimTime;

/// Called by a running engine every so often with the simulated time reached;
/// returning `false` stops the run early (Ctrl-C from Python, for instance).
pub type Progress<'a> = &'a mut dyn FnMut(SimTime) -> bool;
