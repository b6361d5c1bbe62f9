//! Packets and links.

pub mod pipe;

use crate::units::SimTime;

/// Flow id of background (non-TCP) packets.
pub const BACKGROUND: u32 = u32::MAX;

/// A data packet crossing the bottleneck (TCP segment or background packet).
/// Moved by value through FIFO buffers: no allocation per packet.
#[derive(Clone, Copy, Debug)]
pub struct Packet {
    /// TCP flow index, or [`BACKGROUND`].
    pub flow: u32,
    /// Size on the wire, bytes.
    pub size: u32,
    /// Segment number (TCP), or a sequence number of the background source.
    pub seq: u64,
    /// When it joined the bottleneck queue (for queueing delay).
    pub enqueued: SimTime,
}

/// Maximum SACK blocks an ACK carries (RFC 2018 section 3: 3 with timestamps).
pub const MAX_SACK_BLOCKS: usize = 3;

/// An acknowledgment on the (uncongested) return path.
#[derive(Clone, Copy, Debug, Default)]
pub struct Ack {
    /// Next segment expected (cumulative ACK).
    pub ack: u64,
    /// SACK blocks `[start, end)` in segments, most recent first (RFC 2018).
    pub sack: [(u64, u64); MAX_SACK_BLOCKS],
    /// Number of valid SACK blocks.
    pub nsack: u8,
}
