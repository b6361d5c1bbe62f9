//! TCP: the sender and receiver state machines and the congestion controllers.

pub mod cc;
