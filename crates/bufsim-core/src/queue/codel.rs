//! CoDel, RFC 8289 (Controlled Delay): drops at the head of the queue when
//! the sojourn time has stayed above TARGET for at least INTERVAL, spacing
//! drops by INTERVAL/sqrt(count) (the control law). The state machine
//! ([`CodelState`]) is shared with FQ-CoDel, which runs one per queue.

use serde::Serialize;

use super::{
    Discipline, DropReason, Drops, Fifo, Limit, LinkInfo, Occupancy, QueueDisc, Queued, Setup,
};
use crate::net::Packet;
use crate::params::{PErr, Params};
use crate::units::SimTime;

/// CoDel, RFC 8289.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CodelConfig {
    /// Target standing queue delay.
    #[serde(serialize_with = "crate::units::ser_secs", rename = "target_s")]
    pub target: SimTime,
    /// Interval (about a worst-case RTT).
    #[serde(serialize_with = "crate::units::ser_secs", rename = "interval_s")]
    pub interval: SimTime,
}

impl Default for CodelConfig {
    fn default() -> Self {
        //= RFC 8289 section 4.3/4.4: TARGET = 5 ms, INTERVAL = 100 ms.
        CodelConfig {
            target: SimTime::from_millis(5),
            interval: SimTime::from_millis(100),
        }
    }
}

impl CodelConfig {
    /// Read `target` and `interval` (CoDel's and FQ-CoDel's parameters).
    pub fn read(p: &mut Params) -> Result<CodelConfig, PErr> {
        let d = CodelConfig::default();
        let ms = SimTime::from_millis;
        let target = p.dur("target", d.target, SimTime(1), ms(100_000))?;
        let interval = p.dur("interval", d.interval, SimTime(1), ms(1_000_000))?;
        if target > interval {
            return Err((
                "target".into(),
                format!("must not exceed interval ({interval}), got {target}"),
            ));
        }
        Ok(CodelConfig { target, interval })
    }
}

/// CoDel's control law dropped the packet at the head (RFC 8289 section
/// 5.5); FQ-CoDel's queues drop with it too ([`CODEL_REASONS`]).
pub const CODEL: DropReason = DropReason::own(0);

/// The drop reasons of CoDel and of FQ-CoDel, beside overflow.
pub const CODEL_REASONS: &[&str] = &["codel"];

impl QueueDisc for Codel {
    const NAME: &'static str = "codel";
    const FIFO: bool = true;
    const DROP_REASONS: &'static [&'static str] = CODEL_REASONS;
    type Config = CodelConfig;
    fn read(p: &mut Params, _link: LinkInfo) -> Result<CodelConfig, PErr> {
        CodelConfig::read(p)
    }
    fn new(cfg: CodelConfig, q: &Setup) -> Codel {
        Codel::with_config(cfg, q.limit, q.link.packet_size)
    }
}

/// The CoDel state of one queue (RFC 8289 section 5 pseudocode).
#[derive(Clone, Copy, Debug, Default)]
pub struct CodelState {
    /// When the sojourn time first went (and stayed) above target, plus
    /// INTERVAL (`first_above_time`; None: not above).
    first_above_time: Option<SimTime>,
    /// When the next drop is due in the dropping state.
    drop_next: SimTime,
    /// Drops since entering the dropping state.
    count: u32,
    /// `count` when the dropping state was last left.
    lastcount: u32,
    /// In the dropping state.
    dropping: bool,
}

impl CodelState {
    //= RFC 8289 section 5.5: "control_law(t, count) = t + interval / sqrt(count)".
    #[inline]
    fn control_law(cfg: &CodelConfig, t: SimTime, count: u32) -> SimTime {
        t + SimTime((cfg.interval.0 as f64 / (count as f64).sqrt()) as u64)
    }

    /// RFC 8289 section 5.4 `dodequeue`: pop the head and say whether it may
    /// be dropped.
    #[inline]
    fn dodequeue(
        &mut self,
        cfg: &CodelConfig,
        mtu: u32,
        q: &mut Fifo,
        now: SimTime,
    ) -> (Option<Queued>, bool) {
        let Some(p) = q.pop() else {
            //= "if queue is empty: first_above_time = 0" (here None).
            self.first_above_time = None;
            return (None, false);
        };
        let sojourn = now - p.since;
        //= "if (sojourn_time < TARGET || bytes() <= MAXPACKET)": below target,
        //= or less than one packet left: not above.
        if sojourn < cfg.target || q.bytes <= mtu as u64 {
            self.first_above_time = None;
            return (Some(p), false);
        }
        match self.first_above_time {
            None => {
                //= "just went above from below: first_above_time = now + INTERVAL".
                self.first_above_time = Some(now + cfg.interval);
                (Some(p), false)
            }
            Some(t) => (Some(p), now >= t),
        }
    }

    /// RFC 8289 section 5.5 `dequeue`: the next packet of `q`, head drops
    /// pushed onto `drops`.
    pub fn dequeue(
        &mut self,
        cfg: &CodelConfig,
        mtu: u32,
        q: &mut Fifo,
        now: SimTime,
        drops: &mut Drops,
    ) -> Option<Queued> {
        let (mut p, ok_to_drop) = self.dodequeue(cfg, mtu, q, now);
        if p.is_none() {
            //= "if (r.p == NULL) { dropping = false; return r.p }".
            self.dropping = false;
            return None;
        }
        if self.dropping {
            if !ok_to_drop {
                //= "sojourn time below TARGET - leave drop state".
                self.dropping = false;
            }
            //= "while (now >= drop_next && dropping) { drop(r.p); ++count;
            //=  r = dodequeue(now); if (!r.ok_to_drop) dropping = false;
            //=  else drop_next = control_law(drop_next, count) }".
            while self.dropping && now >= self.drop_next {
                drops.push((p.take().expect("packet").pkt, CODEL));
                self.count += 1;
                let (np, ok) = self.dodequeue(cfg, mtu, q, now);
                p = np;
                if p.is_none() || !ok {
                    self.dropping = false;
                } else {
                    self.drop_next = Self::control_law(cfg, self.drop_next, self.count);
                }
            }
        } else if ok_to_drop {
            //= "drop(r.p); r = dodequeue(now); dropping = true;".
            drops.push((p.take().expect("packet").pkt, CODEL));
            p = self.dodequeue(cfg, mtu, q, now).0;
            self.dropping = true;
            //= "If min went above TARGET close to when it last went below,
            //= assume that the drop rate that controlled the queue on the last
            //= cycle is a good starting point": delta = count - lastcount;
            //= count = (delta > 1 && now - drop_next < 16 * INTERVAL) ? delta : 1.
            let delta = self.count.saturating_sub(self.lastcount);
            self.count =
                if delta > 1 && now.0.saturating_sub(self.drop_next.0) < 16 * cfg.interval.0 {
                    delta
                } else {
                    1
                };
            self.drop_next = Self::control_law(cfg, now, self.count);
            self.lastcount = self.count;
        }
        p
    }
}

/// CoDel on a single FIFO with the link's buffer as hard limit.
pub struct Codel {
    cfg: CodelConfig,
    limit: Limit,
    mtu: u32,
    fifo: Fifo,
    state: CodelState,
}

impl Codel {
    /// CoDel with these parameters; `mtu` is the largest packet (MAXPACKET).
    pub fn with_config(cfg: CodelConfig, limit: Limit, mtu: u32) -> Codel {
        Codel {
            cfg,
            limit,
            mtu,
            fifo: Fifo::default(),
            state: CodelState::default(),
        }
    }
}

impl Discipline for Codel {
    #[inline]
    fn push_out(&mut self) -> Option<Packet> {
        self.fifo.pop_back()
    }
    #[inline]
    fn enqueue(&mut self, pkt: Packet, occ: Occupancy, now: SimTime, drops: &mut Drops) {
        //= RFC 8289 section 5.2: "if queue is full: drop the packet" (tail).
        self.fifo.push_or_overflow(pkt, now, self.limit, occ, drops);
    }
    #[inline]
    fn dequeue(&mut self, _occ: Occupancy, now: SimTime, drops: &mut Drops) -> Option<Queued> {
        self.state
            .dequeue(&self.cfg, self.mtu, &mut self.fifo, now, drops)
    }
}
