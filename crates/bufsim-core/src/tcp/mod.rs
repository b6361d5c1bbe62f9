//! TCP: the sender and receiver state machines and the congestion controllers.

pub mod cc;
pub mod hystart;
pub mod prr;
pub mod rack;
pub mod ranges;
pub mod rate;
pub mod receiver;
pub mod rtt;
pub mod sack;
pub mod sender;
pub mod stack;
