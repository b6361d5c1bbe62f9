//! Congestion control: one file per variant behind one small trait.

pub mod config;
