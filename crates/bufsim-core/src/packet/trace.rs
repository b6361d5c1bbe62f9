//! The opt-in packet trace of the bottleneck queue (`output.trace = true`):
//! one row per event, as ns-3's queue-disc traces (`Enqueue`, `Dequeue`,
//! `Drop`) or ns-2's `+`, `-`, `d` trace lines.
//!
//! * `enqueue`: a packet reached the queue (every arrival, dropped or not);
//! * `drop_<reason>`: the discipline dropped a packet, at its arrival or at
//!   the head ([`DropReason`]: overflow or one of the discipline's own
//!   reasons, the same names as the summary's `drops_<reason>` counters);
//! * `dequeue`: a packet left the queue for the link (its serialization starts).
//!
//! So enqueues = dequeues + drops + the packets waiting at the end. The
//! rows come in event order; `queue_pkts` is the number of packets waiting
//! after the row's event, a running count (+1 per enqueue, -1 per drop or
//! dequeue): an arrival dropped at once shows one packet above the buffer
//! on its `enqueue` row and the buffer again on its `drop_` row. The trace
//! covers the whole run, warm-up included.
//!
//! Columns are kept as separate vectors (struct of arrays): the output
//! table takes them without a copy. Recording is behind one `Option` test
//! per queue event in the simulator, so a run without a trace pays nothing
//! else.

use crate::net::Packet;
use crate::output::Table;
use crate::queue::DropReason;
use crate::units::SimTime;

/// Code of an `enqueue` row in the `event` column.
pub const ENQUEUE: u8 = 0;
/// Code of a `dequeue` row in the `event` column.
pub const DEQUEUE: u8 = 1;
/// Code of the first drop event; drop reason `r` is `DROP_BASE + r.index()`
/// (the order of the discipline's `QdiscConfig::drop_reasons`).
pub const DROP_BASE: u8 = 2;

/// Columns of the trace table, in order.
pub const TRACE_COLUMNS: [&str; 7] = [
    "time_s",
    "event",
    "flow",
    "seq",
    "size_bytes",
    "queue_pkts",
    "ecn",
];

/// Names of a run's event codes, indexed by code: `enqueue`, `dequeue`,
/// then `drop_<reason>` for each of the discipline's `drop_reasons` (the
/// run output's `trace_events`).
pub fn event_names(drop_reasons: &[&str]) -> Vec<String> {
    let mut v = vec!["enqueue".to_string(), "dequeue".to_string()];
    v.extend(drop_reasons.iter().map(|r| format!("drop_{r}")));
    v
}

/// `seq` in the trace of a SYN (segments are numbered from 0).
pub const SYN_ID: f64 = -1.0;

/// `seq` in the trace of the handshake's ACK ([`crate::net::HANDSHAKE_ACK_SEQ`]).
pub const HANDSHAKE_ACK_ID: f64 = -2.0;

/// Flow id in the trace of background packets (TCP flows have ids >= 0,
/// those of the flows table).
pub const BACKGROUND_ID: f64 = -1.0;

/// The recorded rows, column by column.
#[derive(Default)]
pub struct Trace {
    /// Simulated time of the event, seconds.
    time_s: Vec<f64>,
    /// Event code ([`ENQUEUE`], [`DEQUEUE`], [`DROP_BASE`] + reason).
    event: Vec<f64>,
    /// Flow id (the flows table's `flow`), or [`BACKGROUND_ID`].
    flow: Vec<f64>,
    /// Segment number of a TCP packet; 0 for background packets.
    seq: Vec<f64>,
    /// Packet size on the wire, bytes.
    size: Vec<f64>,
    /// Packets waiting after the event.
    queue: Vec<f64>,
    /// ECN bits of the packet (`net::ECT` 1, `CE` 2, `CWR` 4) as the event
    /// saw it: a CE mark an AQM set at the arrival shows on the dequeue row.
    ecn: Vec<f64>,
    /// Running count of packets waiting.
    waiting: u64,
}

impl Trace {
    /// An empty trace.
    pub fn new() -> Trace {
        Trace::default()
    }

    /// Number of rows recorded.
    pub fn rows(&self) -> usize {
        self.time_s.len()
    }

    /// Packets waiting after the last recorded event (the running count).
    pub fn waiting(&self) -> u64 {
        self.waiting
    }

    #[inline]
    fn push(&mut self, now: SimTime, code: u8, id: Option<u64>, p: &Packet) {
        self.time_s.push(now.as_secs_f64());
        self.event.push(code as f64);
        match id {
            Some(id) => {
                self.flow.push(id as f64);
                self.seq.push(if p.is_syn() {
                    SYN_ID
                } else if p.is_handshake_ack() {
                    HANDSHAKE_ACK_ID
                } else {
                    p.seq as f64
                });
            }
            None => {
                self.flow.push(BACKGROUND_ID);
                self.seq.push(0.0);
            }
        }
        self.size.push(p.size() as f64);
        self.queue.push(self.waiting as f64);
        self.ecn.push(p.ecn() as f64);
    }

    /// Packet `p` of flow `id` (`None`: background) reached the queue at `now`.
    #[inline]
    pub fn enqueue(&mut self, now: SimTime, id: Option<u64>, p: &Packet) {
        self.waiting += 1;
        self.push(now, ENQUEUE, id, p);
    }

    /// The discipline dropped packet `p` of flow `id` at `now` for `reason`.
    #[inline]
    pub fn dropped(&mut self, now: SimTime, id: Option<u64>, p: &Packet, reason: DropReason) {
        self.waiting -= 1;
        self.push(now, DROP_BASE + reason.index() as u8, id, p);
    }

    /// Packet `p` of flow `id` left the queue for the link at `now`.
    #[inline]
    pub fn dequeue(&mut self, now: SimTime, id: Option<u64>, p: &Packet) {
        self.waiting -= 1;
        self.push(now, DEQUEUE, id, p);
    }

    /// The trace as a table (columns [`TRACE_COLUMNS`]), without copying.
    pub fn into_table(self) -> Table {
        let mut t = Table::default();
        let cols = [
            self.time_s,
            self.event,
            self.flow,
            self.seq,
            self.size,
            self.queue,
            self.ecn,
        ];
        for (name, col) in TRACE_COLUMNS.iter().zip(cols) {
            t.push(*name, col);
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(flow: u32, seq: u64) -> Packet {
        Packet::new(flow, 1000, seq, 0)
    }

    #[test]
    fn running_count_and_codes() {
        let mut t = Trace::new();
        t.enqueue(SimTime(1), Some(3), &pkt(3, 7));
        t.enqueue(SimTime(2), None, &pkt(crate::net::BACKGROUND, 9));
        t.dropped(
            SimTime(2),
            None,
            &pkt(crate::net::BACKGROUND, 9),
            DropReason::OVERFLOW,
        );
        t.dequeue(SimTime(3), Some(3), &pkt(3, 7));
        assert_eq!(t.waiting(), 0);
        let tab = t.into_table();
        assert_eq!(tab.rows(), 4);
        assert_eq!(tab.get("queue_pkts").unwrap(), &[1.0, 2.0, 1.0, 0.0]);
        assert_eq!(tab.get("event").unwrap(), &[0.0, 0.0, 2.0, 1.0]);
        assert_eq!(tab.get("flow").unwrap(), &[3.0, -1.0, -1.0, 3.0]);
        assert_eq!(tab.get("seq").unwrap(), &[7.0, 0.0, 0.0, 7.0]);
        let names = event_names(&["overflow", "early", "forced"]);
        assert_eq!(
            names,
            [
                "enqueue",
                "dequeue",
                "drop_overflow",
                "drop_early",
                "drop_forced"
            ]
        );
        assert_eq!(crate::queue::red::FORCED.index(), 2);
    }
}
