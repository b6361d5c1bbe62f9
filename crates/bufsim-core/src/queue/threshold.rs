//! Step marking at a single threshold K (DCTCP's switch, RFC 8257 section
//! 3.1; Alizadeh et al., SIGCOMM 2010 section 3.1): an arriving ECN-capable
//! packet is marked CE when the instantaneous queue exceeds K; a packet that
//! is not ECN-capable is dropped there instead (RFC 3168 section 5: a drop
//! is the congestion signal of a non-ECT packet). The buffer limit still
//! drops what does not fit.

use serde::Serialize;
use serde_json::Value;

use super::{
    Discipline, DropReason, Drops, Fifo, Limit, LinkInfo, Occupancy, QueueDisc, Queued, Setup,
};
use crate::net::{ECT, Packet};
use crate::params::{PErr, Params};
use crate::units::{self, BufferSize, SimTime};

/// What K counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum KUnit {
    /// Packets waiting.
    Packets,
    /// Bytes waiting.
    Bytes,
}

/// The threshold discipline's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ThresholdConfig {
    /// The marking threshold K (no default: the buffer it asks for is the
    /// point of the study; Alizadeh et al. 2010 eq. (13): K > C x RTT / 7).
    pub k: u64,
    /// Whether `k` counts packets or bytes.
    pub k_unit: KUnit,
}

/// Step marking policy.
pub struct Threshold {
    cfg: ThresholdConfig,
    limit: Limit,
    fifo: Fifo,
}

impl Threshold {
    /// A threshold queue with this config and buffer limit.
    pub fn with_config(cfg: ThresholdConfig, limit: Limit) -> Threshold {
        Threshold {
            cfg,
            limit,
            fifo: Fifo::default(),
        }
    }
}

const K_HELP: &str = "expected the marking threshold as packets (\"20pkt\" or a number of \
                      packets) or bytes (\"30000B\", \"64KB\")";

/// A packet that cannot carry a mark (not ECN-capable) arrived above K.
pub const FORCED: DropReason = DropReason::own(0);

impl QueueDisc for Threshold {
    const NAME: &'static str = "threshold";
    const FIFO: bool = true;
    const DROP_REASONS: &'static [&'static str] = &["forced"];
    type Config = ThresholdConfig;
    fn read(p: &mut Params, _link: LinkInfo) -> Result<ThresholdConfig, PErr> {
        let (k, k_unit) = match p.value("k") {
            None => return Err(("k".into(), format!("is required: {K_HELP}"))),
            Some(Value::Number(n)) => {
                let k = n.as_f64().unwrap_or(f64::NAN);
                if !(k >= 0.0 && k.fract() == 0.0 && k <= 1e12) {
                    return Err((
                        "k".into(),
                        format!("must be a whole number of packets >= 0, got {n}"),
                    ));
                }
                (k as u64, KUnit::Packets)
            }
            Some(Value::String(s)) => match units::parse_buffer(s) {
                Ok(BufferSize::Packets(n)) => (n, KUnit::Packets),
                Ok(BufferSize::Bytes(b)) => (b, KUnit::Bytes),
                Ok(_) => {
                    return Err((
                        "k".into(),
                        format!(
                            "{s:?}: a fraction of the BDP or a time is not allowed here; {K_HELP}"
                        ),
                    ));
                }
                Err(e) => return Err(("k".into(), e.0)),
            },
            Some(other) => return Err(("k".into(), format!("{K_HELP}, got {other}"))),
        };
        Ok(ThresholdConfig { k, k_unit })
    }
    fn new(cfg: ThresholdConfig, q: &Setup) -> Threshold {
        Threshold::with_config(cfg, q.limit)
    }
}

impl Discipline for Threshold {
    #[inline]
    fn push_out(&mut self) -> Option<Packet> {
        self.fifo.pop_back()
    }
    #[inline]
    fn enqueue(&mut self, mut pkt: Packet, occ: Occupancy, now: SimTime, drops: &mut Drops) {
        if !self.limit.fits(occ, pkt.size()) {
            drops.push((pkt, DropReason::OVERFLOW));
            return;
        }
        let q = match self.cfg.k_unit {
            KUnit::Packets => occ.pkts,
            KUnit::Bytes => occ.bytes,
        };
        //= RFC 8257 section 3.1: the switch marks "if the queue occupancy is
        //= greater than K" on the packet's arrival (the instantaneous queue,
        //= not an average; Alizadeh et al. 2010 section 3.1: "an arriving
        //= packet is marked with the CE codepoint if the queue occupancy is
        //= greater than K upon its arrival").
        if q > self.cfg.k {
            if pkt.ecn() & ECT != 0 {
                pkt.mark_ce();
            } else {
                //= RFC 3168 section 5: the router marks an ECN-capable packet
                //= where it would drop one that is not.
                drops.push((pkt, FORCED));
                return;
            }
        }
        self.fifo.push(pkt, now);
    }
    #[inline]
    fn dequeue(&mut self, _occ: Occupancy, _now: SimTime, _drops: &mut Drops) -> Option<Queued> {
        self.fifo.pop()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(ecn: u8) -> Packet {
        Packet::new(0, 1500, 0, ecn)
    }

    #[test]
    fn marks_every_ect_packet_above_k_and_drops_non_ect() {
        let cfg = ThresholdConfig {
            k: 2,
            k_unit: KUnit::Packets,
        };
        let mut t = Threshold::with_config(cfg, Limit::Packets(4));
        let mut drops = Drops::new();
        let mut occ = Occupancy::default();
        let mut marks = Vec::new();
        for _ in 0..5 {
            t.enqueue(pkt(ECT), occ, SimTime::ZERO, &mut drops);
            if drops.is_empty() {
                occ.pkts += 1;
                occ.bytes += 1500;
            }
        }
        while let Some(p) = t.dequeue(occ, SimTime::ZERO, &mut drops) {
            marks.push(p.pkt.ecn() & crate::net::CE != 0);
        }
        // Arrivals see 0, 1, 2 waiting (not > K = 2): unmarked; 3: marked;
        // the fifth finds the 4-packet buffer full.
        assert_eq!(marks, vec![false, false, false, true]);
        assert_eq!(drops.len(), 1);
        assert_eq!(drops[0].1, DropReason::OVERFLOW);
        // A non-ECT packet above K is dropped (forced), below K kept.
        let mut drops = Drops::new();
        let three = Occupancy {
            pkts: 3,
            bytes: 4500,
        };
        t.enqueue(pkt(0), three, SimTime::ZERO, &mut drops);
        assert_eq!(drops[0].1, FORCED);
    }

    #[test]
    fn reads_k_in_packets_or_bytes_and_refuses_bad_k() {
        let link = LinkInfo {
            packet_size: 1500,
            bytes_mode: false,
            capacity_bps: 1e10,
        };
        let read = |js: &str| {
            let m: serde_json::Map<String, Value> = serde_json::from_str(js).unwrap();
            let mut p = Params::new(&m);
            let r = Threshold::read(&mut p, link);
            r.and_then(|c| p.finish("threshold").map(|_| c))
        };
        let c = read(r#"{"k": 20}"#).unwrap();
        assert_eq!((c.k, c.k_unit), (20, KUnit::Packets));
        let c = read(r#"{"k": "65pkt"}"#).unwrap();
        assert_eq!((c.k, c.k_unit), (65, KUnit::Packets));
        let c = read(r#"{"k": "30000B"}"#).unwrap();
        assert_eq!((c.k, c.k_unit), (30000, KUnit::Bytes));
        for bad in [
            r#"{}"#,
            r#"{"k": -1}"#,
            r#"{"k": 2.5}"#,
            r#"{"k": "0.5BDP"}"#,
            r#"{"k": "lots"}"#,
            r#"{"k": true}"#,
        ] {
            assert_eq!(read(bad).unwrap_err().0, "k", "{bad}");
        }
        assert_eq!(read(r#"{"k": 5, "K": 5}"#).unwrap_err().0, "K");
    }
}
