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
    /// ECN bits: [`ECT`], [`CE`], [`CWR`].
    pub ecn: u8,
}

//= RFC 3168 section 5: ECN-Capable Transport codepoint in the IP header.
/// The sender is ECN-capable (ECT): a router may mark instead of dropping.
pub const ECT: u8 = 1;
//= RFC 3168 section 5: Congestion Experienced, set by a router.
/// Congestion Experienced: an AQM marked the packet.
pub const CE: u8 = 2;
//= RFC 3168 section 6.1: the TCP CWR flag, "Congestion Window Reduced".
/// The sender reduced its window in answer to ECE.
pub const CWR: u8 = 4;

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
    /// ECN-Echo (RFC 3168 section 6.1.3): the receiver saw a CE packet.
    pub ece: bool,
    /// D-SACK (RFC 2883): the segment this ACK answers had been received
    /// before (sent only with SACK).
    pub dsack: bool,
}
