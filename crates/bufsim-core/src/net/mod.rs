//! Packets and links.

pub mod pipe;

/// Flow id of background (non-TCP) packets.
pub const BACKGROUND: u32 = u32::MAX;

/// A data packet crossing the bottleneck (TCP segment or background packet).
/// Moved by value through FIFO buffers: no allocation per packet.
///
/// Two words, so that it moves between functions in two registers (the
/// Rust ABI passes a struct of two scalars as a pair, a larger one through
/// memory). A larger packet would go through the stack on each call: built
/// field by field, then read back by wider loads that wait for those
/// narrower stores to retire (no store forwarding), on every packet's path.
/// The time a packet joined the queue is kept beside it by the queue
/// (`queue::Queued`), not in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packet {
    /// Segment number (TCP), or a sequence number of the background source.
    pub seq: u64,
    /// Flow (bits 0-31), size in bytes (32-47), ECN bits (48-55), traffic
    /// class (56-58: the queue of a port of several, [`Packet::class`]),
    /// the first-RTT tag (59, [`Packet::is_unscheduled`]).
    meta: u64,
}

impl Packet {
    /// Largest packet size, bytes (the scenario's sizes are at most this).
    pub const MAX_SIZE: u32 = u16::MAX as u32;

    /// Packet `seq` of flow `flow` ([`BACKGROUND`] for a background
    /// packet), `size` bytes on the wire (at most [`Packet::MAX_SIZE`]),
    /// with ECN bits `ecn` ([`ECT`], [`CE`], [`CWR`]).
    #[inline]
    pub fn new(flow: u32, size: u32, seq: u64, ecn: u8) -> Packet {
        debug_assert!(size <= Self::MAX_SIZE, "packet size {size} B");
        Packet {
            seq,
            meta: flow as u64 | (size as u64) << 32 | (ecn as u64) << 48,
        }
    }

    /// TCP flow index, or [`BACKGROUND`].
    #[inline]
    pub fn flow(self) -> u32 {
        self.meta as u32
    }

    /// Size on the wire, bytes.
    #[inline]
    pub fn size(self) -> u32 {
        (self.meta >> 32) as u16 as u32
    }

    /// ECN bits: [`ECT`], [`CE`], [`CWR`].
    #[inline]
    pub fn ecn(self) -> u8 {
        (self.meta >> 48) as u8
    }

    /// A SYN ([`SYN_SEQ`]).
    #[inline]
    pub fn is_syn(self) -> bool {
        self.seq == SYN_SEQ
    }

    /// The handshake's ACK ([`HANDSHAKE_ACK_SEQ`]).
    #[inline]
    pub fn is_handshake_ack(self) -> bool {
        self.seq == HANDSHAKE_ACK_SEQ
    }

    /// A pure ACK ([`ACK`]) queued on a two-way run's link.
    #[inline]
    pub fn is_ack(self) -> bool {
        self.ecn() & ACK != 0
    }

    /// The traffic class (0-7): which of a port's queues it joins
    /// (`link.queues`); 0 unless [`Packet::with_class`] set it.
    #[inline]
    pub fn class(self) -> u8 {
        (self.meta >> 56) as u8 & 7
    }

    /// The packet in traffic class `class` (0-7; 0 leaves it as it is).
    #[inline]
    pub fn with_class(mut self, class: u8) -> Packet {
        debug_assert!(class < 8, "class {class}");
        self.meta |= u64::from(class & 7) << 56;
        self
    }

    /// Sent within its transfer's first RTT of bytes (ABM's "unscheduled"
    /// packets, `pool.unscheduled`): the sender's tag, which ABM reads
    /// ([`crate::scenario::Pool::priority_alpha`]); false unless
    /// [`Packet::with_unscheduled`] set it.
    #[inline]
    pub fn is_unscheduled(self) -> bool {
        self.meta & Self::UNSCHEDULED != 0
    }

    /// The packet tagged as a first-RTT packet if `on` (false leaves it as
    /// it is).
    #[inline]
    pub fn with_unscheduled(mut self, on: bool) -> Packet {
        self.meta |= u64::from(on) << Self::UNSCHEDULED.trailing_zeros();
        self
    }

    /// The first-RTT tag's bit of `meta`.
    const UNSCHEDULED: u64 = 1 << 59;

    /// Set Congestion Experienced ([`CE`]): an AQM marked the packet.
    #[inline]
    pub fn mark_ce(&mut self) {
        self.meta |= (CE as u64) << 48;
    }
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

/// Not an IP bit: the packet is a pure ACK crossing a queue of a two-way
/// run (`reverse`), its `seq` the index of its [`Ack`] in the engine's
/// store. ECN-capable only under `control_ect = "cc"` with DCTCP (RFC 3168
/// section 6.1.4: ACKs are not ECT, so an AQM drops them).
pub const ACK: u8 = 8;

/// The `seq` of a SYN (and, in an [`Ack`]'s `ack`, of the SYN-ACK that
/// answers it): above every segment number a flow reaches.
pub const SYN_SEQ: u64 = (1 << 61) - 1;

/// A SYN's size on the wire, bytes: IPv4 (20) and TCP (20) headers with
/// Linux's 20 bytes of options (MSS, SACK-permitted, timestamps, window
/// scale: tcp_syn_options). ns-3.37's carries 16 (timestamps, window
/// scale, SACK-permitted, padded: 56 bytes); either fills one place of a
/// queue counted in packets.
pub const SYN_BYTES: u32 = 60;

//= RFC 9293 section 3.5, figure 6, line 4: the handshake's third segment,
//= the ACK of the SYN-ACK.
/// The `seq` of the handshake's ACK: a pure ACK the sender sends when the
/// SYN-ACK arrives, just before its first data (Linux
/// `tcp_rcv_synsent_state_process` -> `tcp_send_ack`, data not yet
/// queued; ns-3.37 `TcpSocketBase::ProcessSynSent`:
/// `SendEmptyPacket(TcpHeader::ACK)`, then `SendPendingData`). It crosses
/// the data's path and its queues, a full one drops it, and nothing
/// answers it: a lost one costs nothing, the data carrying the same ACK.
pub const HANDSHAKE_ACK_SEQ: u64 = SYN_SEQ - 1;

/// The handshake's ACK's size on the wire, bytes: IPv4 (20) and TCP (20)
/// headers, as a pure ACK of `reverse.ack_size`'s default (Linux adds 12
/// bytes of timestamps; ns-3's driver runs without them).
pub const HANDSHAKE_ACK_BYTES: u32 = 40;

/// Whether `seq` numbers a data segment, not a SYN or the handshake's ACK.
#[inline]
pub const fn is_data(seq: u64) -> bool {
    seq < HANDSHAKE_ACK_SEQ
}

/// The size on the wire, bytes, of segment `seq` of a flow whose data
/// segments are `mss` bytes: a SYN's, the handshake's ACK's, or `mss`.
#[inline]
pub const fn wire_bytes(seq: u64, mss: u32) -> u32 {
    match seq {
        SYN_SEQ => SYN_BYTES,
        HANDSHAKE_ACK_SEQ => HANDSHAKE_ACK_BYTES,
        _ => mss,
    }
}

/// Maximum SACK blocks an ACK carries (RFC 2018 section 3: 3 with timestamps).
pub const MAX_SACK_BLOCKS: usize = 3;

/// An acknowledgment: its content (on the wire, a pure ACK packet).
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packet_fields_round_trip_in_two_words() {
        assert_eq!(std::mem::size_of::<Packet>(), 16);
        for (flow, size, seq, ecn) in [
            (0, 64, 0, 0),
            (BACKGROUND, Packet::MAX_SIZE, u64::MAX, ECT | CE | CWR),
            (7, 1500, 1 << 60, ECT),
        ] {
            let mut p = Packet::new(flow, size, seq, ecn);
            assert_eq!((p.flow(), p.size(), p.seq, p.ecn()), (flow, size, seq, ecn));
            assert_eq!(p.class(), 0);
            assert_eq!(p.with_class(7).class(), 7);
            assert_eq!(p.with_class(5).ecn(), ecn);
            assert!(!p.is_unscheduled() && !p.with_unscheduled(false).is_unscheduled());
            let t = p.with_class(7).with_unscheduled(true);
            assert!(t.is_unscheduled());
            assert_eq!(
                (t.flow(), t.size(), t.seq, t.ecn(), t.class()),
                (flow, size, seq, ecn, 7)
            );
            p.mark_ce();
            assert_eq!(
                (p.flow(), p.size(), p.seq, p.ecn()),
                (flow, size, seq, ecn | CE)
            );
        }
    }
}
