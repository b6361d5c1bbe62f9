//! The TCP sender: slow start and congestion avoidance (RFC 5681), NewReno
//! fast retransmit / fast recovery (RFC 6582), SACK-based loss recovery
//! (RFC 6675) when SACK is on, and the retransmission timer (RFC 6298) with
//! Karn's rule and exponential backoff. Sequence numbers count segments
//! (one segment = one packet of `mss` bytes).
//!
//! After a timeout the sender is in a loss-recovery episode until every
//! segment sent before the timeout is acknowledged (RFC 6675 section 5.1's
//! RecoveryPoint; Linux's `TCP_CA_Loss`). With SACK it keeps the scoreboard,
//! marks every un-SACKed segment
//! lost and resends only those; without SACK it goes back N. In both cases
//! the duplicate ACKs that resent segments may provoke are kept from starting
//! a second, spurious window reduction.
//!
//! With `rack` (SACK only), losses are found by RACK-TLP (RFC 8985,
//! `tcp::rack`) instead of DupThresh: by time, lost retransmissions
//! included, with a tail loss probe before the retransmission timer.
//!
//! The sender never reads a clock: `now` is passed to every call. It emits
//! segment numbers into a caller-provided buffer; the simulator turns them
//! into packets. Its timers (retransmission, and with RACK the reordering
//! and probe timers) are deadlines the simulator checks lazily
//! ([`Sender::deadline`], [`Sender::on_timer`]; no cancel/re-push per ACK).

use crate::net::Ack;
use crate::tcp::cc::{AckInfo, AckSample, AnyCc, Window, reno_ssthresh};
use crate::tcp::hystart::{CSS_GROWTH_DIVISOR, Growth, HyStart};
use crate::tcp::prr::Prr;
use crate::tcp::rack::{Rack, Tlp};
use crate::tcp::rate::{RateSample, RateSampler};
use crate::tcp::rtt::{RttEstimator, Timing};
use crate::tcp::sack::{DUP_THRESH, Scoreboard};
use crate::tcp::stack::{
    CongControl, CutFrom, EcnReduction, LostSyn, PrrVariant, RecoveryEntry, RecoveryExit,
    RtoCollapse, RtoSsthresh, RtoTimer, RttSampling, SackPipe, SlowStart, StackDefaults,
    ns3_segment_bytes,
};
use crate::units::SimTime;

/// Settings of one sender.
#[derive(Clone, Copy, Debug)]
pub struct SenderConfig {
    /// Receiver window cap, segments.
    pub rwnd: Option<u32>,
    /// Use SACK-based recovery (RFC 6675) instead of NewReno (RFC 6582).
    pub sack: bool,
    /// Segments the application has to send (`u64::MAX`: persistent).
    pub limit: u64,
    /// ECN-capable: answer ECE by reducing the window (RFC 3168).
    pub ecn: bool,
    /// Segment size, bytes (a paced controller's send quantum counts bytes).
    pub mss_bytes: u32,
    /// The stack's rules (`tcp::stack`): the group's, with
    /// [`CongControl::Ns3`] only around the controller that mirrors
    /// ns-3.37's (the packet engine's `Flow::new`).
    pub rules: StackDefaults,
}

/// Counters of one sender.
#[derive(Clone, Copy, Debug, Default)]
pub struct SenderStats {
    /// Data segments sent, retransmissions included.
    pub sent: u64,
    /// Retransmitted segments.
    pub retransmits: u64,
    /// Retransmission timeouts.
    pub timeouts: u64,
    /// Fast-recovery episodes entered.
    pub recoveries: u64,
    /// Window reductions in answer to ECN-Echo.
    pub ecn_reductions: u64,
    /// Tail loss probes sent (RACK-TLP).
    pub probes: u64,
}

/// The sender's state before an ACK, which the ACK's later phases
/// measure it against ([`Sender::on_ack`]).
#[derive(Clone, Copy, Debug)]
struct AckStart {
    /// The oldest unacknowledged segment.
    una: u64,
    /// Segments SACKed.
    sacked: u64,
    /// With PRR running, the scoreboard's lost bound, RFC 9937's test for
    /// a new loss (`None` without PRR).
    lost_bound: Option<Option<u64>>,
}

/// Sender state of one connection.
pub struct Sender {
    cfg: SenderConfig,
    cc: AnyCc,
    /// Congestion window and slow-start threshold, segments.
    pub w: Window,
    /// Oldest unacknowledged segment.
    una: u64,
    nxt: u64,
    max: u64,
    dupacks: u32,
    /// Without SACK, the segments above `una` ns-3.37 counts as SACKed,
    /// one per duplicate ACK (TcpTxBuffer::AddRenoSack, a run from `una +
    /// 1`): what its `BytesInFlight()` subtracts, read by the `Pipe` rules
    /// (`cut_from`, `rto_ssthresh`) and by ns-3's recovery without SACK
    /// ([`Self::ns3_reno_prr`]).
    reno_sacked: u64,
    in_recovery: bool,
    /// After a timeout, until `una >= recover` (Linux's `TCP_CA_Loss`).
    rto_recovery: bool,
    /// `recover` was set by a timeout (not by fast recovery).
    recover_by_rto: bool,
    //= RFC 6582 section 3.2 "recover" / RFC 6675 "RecoveryPoint", stored
    //= exclusive: recovery ends when `una >= recover`.
    recover: u64,
    first_partial: bool,
    //= RFC 3168 section 6.1.2: react to ECE "at most once per window of
    //= data"; no new reduction before `una` passes this point.
    cwr_point: u64,
    cwr_pending: bool,
    sb: Option<Scoreboard>,
    /// PRR state while in a SACK fast recovery with `prr` on, or in CWR.
    prr: Option<Prr>,
    /// HyStart++ state during the initial slow start, with `hystart` on.
    hystart: Option<Box<HyStart>>,
    /// RACK state, with `rack` on.
    rack: Option<Box<Rack>>,
    tlp: Tlp,
    /// RACK's reordering timer and TLP's probe timer (`SimTime::MAX`: off).
    reo_deadline: SimTime,
    pto_deadline: SimTime,
    rxt_next: u64,
    /// RFC 6298's RTT estimate and RTO.
    rtt: RttEstimator,
    /// When the retransmission timer expires (`SimTime::MAX`: not running).
    pub rto_deadline: SimTime,
    /// The segments being timed for RTT samples.
    timing: Timing,
    /// Delivery-rate state, for a controller that uses rate samples (BBR).
    rate: Option<Box<RateSampler>>,
    /// This ACK's rate sample, until the controller has seen it.
    pending_rs: Option<RateSample>,
    /// Segments marked lost when this ACK arrived ([`Scoreboard::lost`]).
    lost_at_ack: u64,
    /// Segments sent so far when the ACK being processed arrived.
    sent_at_ack: u64,
    /// Pacing: the earliest time the next pacing event may open.
    pace_next: SimTime,
    /// When the current pacing event opened and how many segments of its
    /// send quantum are left (they may leave only at that instant).
    burst_at: SimTime,
    burst_left: u32,
    /// The last pacing rate (segments/s) and its gap 1/rate: the rate
    /// changes only with the controller's model, not per segment.
    pace_gap: (f64, SimTime),
    /// Pacing held back a segment the windows allowed: the pacing timer runs
    /// (a lazily checked deadline, like the others).
    pace_armed: bool,
    /// The ACK being processed carried ECE (for [`Self::cc_sample`]).
    pending_ece: bool,
    /// Counters.
    pub stats: SenderStats,
}

impl Sender {
    /// A sender with nothing sent yet.
    pub fn new(mut cfg: SenderConfig, cc: AnyCc) -> Sender {
        if cfg.rules.cong_control == CongControl::Ns3 && cc.owns_window() {
            // The controller sets cwnd itself in a recovery and a CWR
            // (CongControl::Ns3): no PRR before it.
            cfg.rules.prr = false;
            cfg.rules.ecn_reduction = EcnReduction::Immediate;
        } else if Self::cc_owns_recovery_rules(&cfg, &cc) {
            //= Linux tcp_input.c tcp_cong_control: "if
            //= (icsk->icsk_ca_ops->cong_control) { icsk->icsk_ca_ops->
            //= cong_control(sk, ack, flag, rs); return; }", before
            //= tcp_cwnd_reduction (PRR) in a recovery or a CWR.
            cfg.rules.prr = false;
            cfg.rules.ecn_reduction = EcnReduction::Immediate;
        }
        Sender {
            cfg,
            //= RFC 5681 section 3.1: ssthresh "SHOULD be set arbitrarily high".
            w: Window {
                cwnd: cfg.rules.initial_window as f64,
                ssthresh: f64::INFINITY,
            },
            una: 0,
            nxt: 0,
            max: 0,
            dupacks: 0,
            reno_sacked: 0,
            in_recovery: false,
            rto_recovery: false,
            recover_by_rto: false,
            recover: 0,
            first_partial: true,
            cwr_point: 0,
            cwr_pending: false,
            sb: cfg.sack.then(|| {
                let mut sb = if cfg.rules.rack {
                    Scoreboard::rack()
                } else {
                    Scoreboard::default()
                };
                if cfg.rules.sack_pipe == SackPipe::Ns3 {
                    sb.keep_sacked_retransmissions();
                }
                sb
            }),
            prr: None,
            hystart: cfg.rules.hystart.then(|| Box::new(HyStart::new())),
            rack: (cfg.rules.rack && cfg.sack).then(Box::default),
            tlp: Tlp::default(),
            reo_deadline: SimTime::MAX,
            pto_deadline: SimTime::MAX,
            rxt_next: 0,
            rtt: RttEstimator::new(cfg.rules.min_rto, cfg.rules.initial_rto),
            rto_deadline: SimTime::MAX,
            timing: Timing::new(cfg.rules.rtt_sampling),
            rate: None,
            pending_rs: None,
            lost_at_ack: 0,
            sent_at_ack: 0,
            pace_next: SimTime::ZERO,
            burst_at: SimTime::MAX,
            burst_left: 0,
            pace_gap: (f64::NAN, SimTime::ZERO),
            pace_armed: false,
            pending_ece: false,
            stats: SenderStats::default(),
            cc,
        }
        .with_rate_state()
    }

    /// Whether the socket runs the controller as ns-3.37's TcpSocketBase
    /// runs one with `CongControl` ([`CongControl::Ns3`]).
    #[inline]
    fn ns3_socket(&self) -> bool {
        self.cfg.rules.cong_control == CongControl::Ns3 && self.cc.owns_window()
    }

    /// Whether the controller alone sets cwnd in a fast recovery and a CWR
    /// (the socket neither runs PRR nor sets RFC 6675's or RFC 6582's
    /// window): a controller that owns its window (BBR) under
    /// [`CongControl::Rfc`], every stack but ns-3's, whose socket keeps
    /// its own rules ([`CongControl::Ns3`], [`CongControl::Ns3Prr`]).
    /// Linux tcp_input.c tcp_cong_control returns after a `cong_control`
    /// controller runs, before tcp_cwnd_reduction; BBR's ssthresh hook
    /// returns snd_ssthresh unchanged (tcp_bbr.c bbr_ssthresh), so neither
    /// tcp_init_cwnd_reduction nor tcp_end_cwnd_reduction moves cwnd.
    /// draft-ietf-ccwg-bbr section 4.2.3.4 gives BBR its own recovery
    /// rules (BBRSaveCwnd, BBRModulateCwndForRecovery, BBRRestoreCwnd).
    fn cc_owns_recovery_rules(cfg: &SenderConfig, cc: &AnyCc) -> bool {
        cc.owns_window() && cfg.rules.cong_control == CongControl::Rfc
    }

    /// [`Self::cc_owns_recovery_rules`] for this sender.
    #[inline]
    fn cc_owns_recovery(&self) -> bool {
        Self::cc_owns_recovery_rules(&self.cfg, &self.cc)
    }

    /// Keep per-segment delivery-rate state when the controller asks for it.
    fn with_rate_state(mut self) -> Sender {
        if self.cc.uses_rate_samples() {
            self.rate = Some(Box::new(if self.ns3_socket() {
                RateSampler::ns3()
            } else {
                RateSampler::default()
            }));
            if let Some(sb) = self.sb.as_mut() {
                sb.report_newly_sacked();
                if self.cc.reads_lost_segments() {
                    sb.report_newly_lost();
                }
            }
        }
        self
    }

    /// Tell the controller of each segment the scoreboard marked lost since
    /// the last call, with its send state (C.lost counts every one).
    fn report_lost(&mut self, now: SimTime) {
        let (Some(sb), Some(r)) = (self.sb.as_mut(), self.rate.as_mut()) else {
            return;
        };
        for seq in sb.take_newly_lost() {
            if let Some(l) = r.on_marked_lost(seq) {
                self.cc.on_lost_segment(&mut self.w, now, &l);
            }
        }
    }

    /// Segments in the network: the RFC 6675 pipe with SACK, else FlightSize.
    fn inflight(&self) -> u64 {
        self.sb.as_ref().map_or(self.flight(), Scoreboard::pipe)
    }

    /// Whether the pacing event opened at `now` has send quantum left.
    #[inline]
    fn in_burst(&self, now: SimTime) -> bool {
        now == self.burst_at && self.burst_left > 0
    }

    /// Whether pacing lets a segment leave at `now` (a new pacing event
    /// opens, or the one open at `now` has quantum left); if not, arm the
    /// pacing timer for `pace_next`.
    #[inline]
    fn pace_ok(&mut self, now: SimTime) -> bool {
        if self.rate.is_none()
            || now >= self.pace_next
            || self.in_burst(now)
            || self.cc.pacing_rate().is_none()
            || !self.paced(self.max)
        {
            return true;
        }
        self.pace_armed = true;
        false
    }

    /// Hand this ACK's rate sample to the controller (a model-based one
    /// sets cwnd in every state); nothing for the other variants.
    fn cc_sample(&mut self, ece: bool, now: SimTime) {
        let Some(rs) = self.pending_rs.take() else {
            return;
        };
        let mut inflight = self.inflight();
        if self.ns3_socket() {
            //= ns-3.37 TcpBbr reads tcb->m_bytesInFlight, which holds the
            //= pipe of the last BytesInFlight() call: SendDataPacket's,
            //= taken before the segment leaves, when ProcessAck resent one
            //= (EnterRecovery's DoRetransmit, a partial ACK's), so a
            //= recovery's first window ("m_bytesInFlight +
            //= max(m_lastAckedSackedBytes, m_segmentSize)") and packet
            //= conservation leave out the ACK's retransmissions.
            inflight = inflight.saturating_sub(self.stats.sent - self.sent_at_ack);
        }
        let s = AckSample {
            now,
            rs,
            inflight,
            in_recovery: self.in_recovery || self.rto_recovery,
            fast_recovery: self.in_recovery,
            retransmits: self.stats.retransmits,
            //= ns-3.37 TcpSocketBase::ReceivedAck: "lost = (currentLost >
            //= previousLost) ? currentLost - previousLost : previousLost -
            //= currentLost", read after ProcessAck (its retransmissions
            //= included, SendPendingData's not).
            lost_change: self
                .sb
                .as_ref()
                .map(|sb| sb.lost().abs_diff(self.lost_at_ack)),
            ece,
            srtt: self.srtt(),
            mss_bytes: self.cfg.mss_bytes,
        };
        self.cc.on_rate_sample(&mut self.w, &s);
    }

    /// Segments sent and not yet cumulatively acknowledged.
    pub fn flight(&self) -> u64 {
        self.max - self.una
    }

    /// The window a fast retransmit (`recovery`) or an ECE cut reads,
    /// segments: FlightSize (RFC 5681 eq. (4)); with `CutFrom::Cwnd`
    /// ns-2.35's windowd(), cwnd at most the receiver's window (Limited
    /// Transmit's packets left out); or with `CutFrom::Pipe` ns-3.37's
    /// BytesInFlight() ([`Self::ns3_pipe`]), the head counted lost at a
    /// recovery (EnterRecovery's MarkHeadAsLost).
    fn cut_base(&self, recovery: bool) -> f64 {
        match self.cfg.rules.cut_from {
            CutFrom::FlightSize => return self.flight() as f64,
            //= ns-2.35 tcp.cc TcpAgent::windowd: "return (cwnd_ < wnd_ ?
            //= (double)cwnd_ : (double)wnd_)".
            CutFrom::Cwnd => return self.w.cwnd.min(self.rwnd()),
            CutFrom::Pipe => {}
        }
        let pipe = match self.sb.as_ref() {
            Some(sb) => {
                // With fewer than DupThresh SACKed above it the head is not
                // lost yet on the scoreboard.
                let head_unmarked = recovery && sb.lost_bound().is_none_or(|b| b <= self.una);
                sb.pipe().saturating_sub(u64::from(head_unmarked))
            }
            // Without SACK EnterRecovery adds the lost head back ("still
            // consider the head as 'in flight'"): the pipe as it stands.
            None => self.ns3_pipe(),
        };
        pipe as f64
    }

    /// ns-3's segment size for this flow, bytes ([`ns3_segment_bytes`]).
    fn ns3_segment_bytes(&self) -> u32 {
        ns3_segment_bytes(self.cfg.mss_bytes)
    }

    /// ns-3.37's `BytesInFlight()`, segments: with SACK the RFC 6675 pipe;
    /// without, FlightSize less the segments it counts as SACKed from
    /// duplicate ACKs (`reno_sacked`; the lost head, resent at once, counts
    /// in flight).
    fn ns3_pipe(&self) -> u64 {
        match self.sb.as_ref() {
            Some(sb) => sb.pipe(),
            None => self.flight().saturating_sub(self.reno_sacked),
        }
    }

    /// Fast recovery without SACK runs ns-3.37's: `TcpPrrRecovery` over the
    /// pipe its `BytesInFlight()` guesses from duplicate ACKs (`prr` on,
    /// `prr_variant = "ns3"`, no SACK), instead of RFC 6582's window
    /// inflation. ns-3 counts nothing delivered on a duplicate ACK
    /// (`currentDelivered` comes from `TcpRateOps`, which `AddRenoSack`
    /// does not touch) and reads the pipe from before the ACK's guessed
    /// SACK, so each duplicate ACK releases one new segment while the pipe
    /// exceeds ssthresh, and a partial ACK's whole advance counts as
    /// delivered at once.
    fn ns3_reno_prr(&self) -> bool {
        self.sb.is_none() && self.cfg.rules.prr && self.cfg.rules.prr_variant == PrrVariant::Ns3
    }

    /// Without SACK, count a duplicate ACK as ns-3.37 does
    /// (TcpTxBuffer::AddRenoSack): one more segment SACKed, if one is left
    /// above the head.
    fn add_reno_sack(&mut self) {
        if self.sb.is_none() {
            self.reno_sacked = (self.reno_sacked + 1).min(self.flight().saturating_sub(1));
        }
    }

    /// In CWR: a PRR reduction after an ECE (`EcnReduction::Prr`), from
    /// the ECE until `una` reaches `cwr_point`, a loss or a timeout. PRR
    /// runs outside a fast recovery only there.
    fn in_cwr(&self) -> bool {
        self.prr.is_some() && !self.in_recovery
    }

    /// Whether this sender is ECN-capable (its packets carry ECT).
    pub fn ecn_capable(&self) -> bool {
        self.cfg.ecn
    }

    /// Whether the next data packet carries CWR (RFC 3168 section 6.1.2);
    /// clears the flag.
    pub fn take_cwr(&mut self) -> bool {
        std::mem::take(&mut self.cwr_pending)
    }

    /// Smoothed RTT, if measured.
    pub fn srtt(&self) -> Option<SimTime> {
        self.rtt.srtt()
    }

    /// Whether every segment of a finite transfer has been acknowledged.
    pub fn done(&self) -> bool {
        self.una >= self.cfg.limit
    }

    fn rwnd(&self) -> f64 {
        self.cfg.rwnd.map(|r| r as f64).unwrap_or(f64::INFINITY)
    }

    /// Whether pacing applies once `max` segments have been sent: always,
    /// except as ns-3.37's socket
    /// ([`CongControl::Ns3`]) until the
    /// initial window has been sent (TcpSocketBase::IsPacingEnabled:
    /// "highTxMark.GetValue() > (GetInitialCwnd() * m_tcb->m_segmentSize)",
    /// TcpSocketState attribute PaceInitialWindow false by default; the
    /// SYN takes sequence number 0, so after `max` segments highTxMark is
    /// 1 + max x segmentSize, above the initial window's bytes once `max`
    /// reaches it). SendPendingData asks before a segment (may it leave
    /// now?) and after it (start the pacing timer?): the segment that
    /// completes the initial window starts the timer, and every later one,
    /// a retransmission of the initial window's too, is paced.
    #[inline]
    fn paced(&self, max: u64) -> bool {
        !self.ns3_socket() || max >= u64::from(self.cfg.rules.initial_window)
    }

    /// Emit segment `seq` from [`Self::pump`], the sends that ns-3.37's
    /// SendPendingData makes: there, and only there, "if
    /// (m_tcb->m_bytesInFlight.Get() == 0)
    /// m_congestionControl->CwndEvent(m_tcb,
    /// TcpSocketState::CA_EVENT_TX_START)" comes before the segment. The
    /// retransmissions ProcessAck sends directly (EnterRecovery's, a
    /// partial ACK's: DoRetransmit) raise no event.
    fn emit_pending(&mut self, seq: u64, now: SimTime, out: &mut Vec<u64>) {
        if self.rate.is_some() && self.ns3_socket() && self.inflight() == 0 {
            self.cc.on_tx_start(&mut self.w, now);
        }
        self.emit(seq, now, out);
    }

    /// Emit segment `seq` (a retransmission if already sent once).
    fn emit(&mut self, seq: u64, now: SimTime, out: &mut Vec<u64>) {
        let retx = seq < self.max;
        if self.rate.is_some() {
            let inflight = self.inflight();
            if let Some(r) = self.rate.as_mut() {
                r.on_send(seq, now, inflight, retx);
            }
            if let Some(rate) = self
                .cc
                .pacing_rate()
                .filter(|_| self.paced(self.max.max(seq + 1)))
            {
                //= draft-cardwell-iccrg-bbr-congestion-control-00 section
                //= 4.2.1: "the sender paces data at ... pacing_rate"; section
                //= 4.2.2: up to BBR.send_quantum leaves at one pacing event
                //= (Linux: one TSO burst), the next event a burst's length
                //= of pacing time, segments / pacing_rate, later.
                if rate != self.pace_gap.0 {
                    self.pace_gap = (rate, SimTime::from_secs_f64(1.0 / rate));
                }
                if !self.in_burst(now) {
                    self.burst_at = now;
                    self.burst_left = self.cc.send_quantum();
                    self.pace_next = now;
                }
                self.burst_left -= 1;
                self.pace_next += self.pace_gap.1;
            }
        }
        self.stats.sent += 1;
        if let Some(p) = self.prr.as_mut() {
            p.on_send();
        }
        if let Some(h) = self.hystart.as_mut() {
            h.on_send(seq, now, retx);
        }
        if let Some(r) = self.rack.as_mut() {
            r.on_send(seq, now);
        }
        self.timing.on_send(seq, now, retx);
        if retx {
            self.stats.retransmits += 1;
            if let Some(sb) = self.sb.as_mut() {
                sb.mark_retransmitted(seq);
            }
        } else {
            self.max = seq + 1;
            if let Some(sb) = self.sb.as_mut() {
                sb.extend_to(self.max);
            }
        }
        //= RFC 6298 section 5.1: "Every time a packet containing data is sent
        //= (including a retransmission), if the timer is not running, start it".
        if self.rto_deadline == SimTime::MAX {
            self.rto_deadline = now + self.rtt.rto();
        }
        if let Some(sb) = self.sb.as_mut() {
            sb.record_xmit(seq, now);
        }
        if !retx {
            //= RFC 8985 section 7.2: start or restart the PTO "after
            //= transmitting new data".
            self.arm_pto(now);
        }
        out.push(seq);
    }

    /// The earliest of the sender's timers (`SimTime::MAX`: none runs).
    pub fn deadline(&self) -> SimTime {
        self.rto_deadline
            .min(self.reo_deadline)
            .min(self.pto_deadline)
    }

    /// When pacing next lets a segment leave that the windows allow
    /// (`SimTime::MAX`: not waiting on pacing). A separate lazily checked
    /// deadline from [`Self::deadline`], so that the pacing timer (one
    /// event per segment) never leaves stale retransmission-timer events
    /// behind it.
    pub fn pace_deadline(&self) -> SimTime {
        if self.pace_armed {
            self.pace_next
        } else {
            SimTime::MAX
        }
    }

    /// The pacing timer fired at `now`: send what the windows allow.
    pub fn on_pace(&mut self, now: SimTime, out: &mut Vec<u64>) {
        if self.pace_armed && self.pace_next <= now {
            self.pace_armed = false;
            self.pump(now, out);
        }
    }

    /// A timer expired at `now` (the caller checked [`Self::deadline`]).
    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<u64>) {
        if self.rto_deadline <= now {
            self.on_timeout(now, out);
        } else if self.reo_deadline <= now {
            //= RFC 8985 section 6.3: when the reordering timer fires, run
            //= RACK's loss detection again.
            self.reo_deadline = SimTime::MAX;
            if !self.rack_detect(0, now, out).0 {
                self.pump(now, out);
            }
        } else if self.pto_deadline <= now {
            self.pto_deadline = SimTime::MAX;
            self.probe(now, out);
        }
    }

    /// RFC 8985 section 7.2: (re)arm the probe timer when a probe may be
    /// sent: RACK on, not in a recovery, no probe outstanding, data in flight.
    fn arm_pto(&mut self, now: SimTime) {
        if self.rack.is_none() {
            return;
        }
        let eligible = !self.in_recovery
            && !self.rto_recovery
            && self.tlp.end.is_none()
            && self.max > self.una;
        self.pto_deadline = if eligible {
            let rto = if self.rto_deadline == SimTime::MAX {
                now + self.rtt.rto()
            } else {
                self.rto_deadline
            };
            Tlp::pto(self.srtt(), self.flight(), now, rto)
        } else {
            SimTime::MAX
        };
    }

    /// RFC 8985 section 7.3: the probe timer fired: send one segment,
    /// whatever cwnd allows: new data if there is any and the receiver
    /// window allows, else the highest segment sent.
    fn probe(&mut self, now: SimTime, out: &mut Vec<u64>) {
        if self.max == self.una {
            return;
        }
        self.stats.probes += 1;
        let new_data = self.max < self.cfg.limit && ((self.max - self.una) as f64) < self.rwnd();
        self.tlp.is_retrans = !new_data;
        if new_data {
            let seq = self.max;
            self.emit(seq, now, out);
            self.nxt = self.nxt.max(self.max);
        } else {
            self.emit(self.max - 1, now, out);
        }
        //= "TLP.end_seq = SND.NXT"; the retransmission timer is armed again.
        self.tlp.end = Some(self.max);
        self.pto_deadline = SimTime::MAX;
        self.rto_deadline = now + self.rtt.rto();
    }

    /// RACK on an ACK or the reordering timer: update from the newest
    /// delivered segment, mark overdue segments lost and (re)arm the
    /// reordering timer; enter fast recovery when a loss is found outside
    /// one. Returns whether it entered recovery (and so already sent).
    fn rack_detect(&mut self, delivered: u64, now: SimTime, out: &mut Vec<u64>) -> (bool, bool) {
        let (min_rtt, srtt) = (self.rtt.min, self.srtt());
        let (Some(rack), Some(sb)) = (self.rack.as_mut(), self.sb.as_mut()) else {
            return (false, false);
        };
        if let Some(d) = sb.take_delivered() {
            rack.on_delivered(d, now, min_rtt);
        }
        let in_recovery = self.in_recovery || self.rto_recovery;
        let reo = Rack::reo_wnd(in_recovery, sb.sacked(), min_rtt, srtt);
        let (marked, due) = rack.detect_loss(sb, now, reo);
        self.reo_deadline = due.unwrap_or(SimTime::MAX);
        if marked {
            self.report_lost(now);
        }
        //= RFC 8985 section 6.2: a loss RACK detects starts fast recovery,
        //= under RFC 6675 section 5.1's rule (no new recovery before the
        //= RecoveryPoint is acknowledged).
        if !in_recovery
            && self.una >= self.recover
            && self.sb.as_mut().is_some_and(|sb| sb.next_lost().is_some())
        {
            self.enter_recovery(delivered, now, out);
            return (true, marked);
        }
        (false, marked)
    }

    /// Send whatever the windows allow now.
    pub fn pump(&mut self, now: SimTime, out: &mut Vec<u64>) {
        let rwnd = self.rwnd();
        if (self.in_recovery || self.rto_recovery) && self.sb.is_some() {
            loop {
                let sb = self.sb.as_ref().expect("sack");
                //= RFC 6675 section 5 step (C): "If cwnd - pipe >= 1 SMSS, the
                //= sender SHOULD transmit one or more segments".
                if self.w.cwnd - (sb.pipe() as f64) < 1.0 {
                    break;
                }
                if !self.pace_ok(now) {
                    break;
                }
                let sb = self.sb.as_ref().expect("sack");
                let lost = if self.rack.is_some() {
                    // RACK: the first segment marked lost and not resent.
                    self.sb.as_mut().and_then(Scoreboard::next_lost)
                } else {
                    //= RFC 6675 section 4, NextSeg (1): the first un-SACKed
                    //= segment above HighRxt that IsLost().
                    let bound = sb.lost_bound().unwrap_or(self.una);
                    let mut s = self.rxt_next.max(self.una);
                    while s < bound && sb.is_sacked(s) {
                        s += 1;
                    }
                    self.rxt_next = if s < bound { s + 1 } else { s };
                    (s < bound).then_some(s)
                };
                if let Some(seq) = lost {
                    self.emit_pending(seq, now, out);
                    continue;
                }
                //= NextSeg (2): new data, if the receiver window allows.
                //= Rules (3) and (4) (MAY) are not implemented: with a backlog
                //= rule (2) always applies.
                if self.max < self.cfg.limit && ((self.max - self.una) as f64) < rwnd {
                    let seq = self.max;
                    self.emit_pending(seq, now, out);
                    self.nxt = self.max;
                    continue;
                }
                break;
            }
            return;
        }
        //= RFC 3042 section 2: on each of the first two duplicate ACKs the
        //= sender "SHOULD send a new data segment ... if the receiver's
        //= advertised window allows, the total FlightSize would remain less
        //= than or equal to cwnd plus 2*SMSS, and ... new data is available";
        //= cwnd itself "MUST NOT be changed". Only new data: after a
        //= timeout's go-back-N (nxt < max) the window is cwnd alone.
        let extra = if self.cfg.rules.limited_transmit && !self.in_recovery && self.nxt == self.max
        {
            f64::from(self.dupacks.min(DUP_THRESH as u32 - 1))
        } else {
            0.0
        };
        let win = (self.w.cwnd + extra).min(rwnd);
        // ns-3's recovery without SACK sends what cwnd leaves above its
        // guessed pipe (TcpSocketBase::AvailableWindow).
        let guessed = if self.in_recovery && self.ns3_reno_prr() {
            self.reno_sacked
        } else {
            0
        };
        while self.nxt < self.cfg.limit
            && ((self.nxt - self.una).saturating_sub(guessed) as f64) + 1.0 <= win + 1e-9
        {
            if !self.pace_ok(now) {
                break;
            }
            let seq = self.nxt;
            self.nxt += 1;
            self.emit_pending(seq, now, out);
        }
        if self.nxt >= self.cfg.limit
            && let Some(r) = self.rate.as_mut()
        {
            //= draft-cheng-iccrg-delivery-rate-estimation-02 section 3.4:
            //= the application has no more data: app-limited.
            r.mark_app_limited(self.nxt - self.una);
        }
    }

    /// Enter fast recovery on the ACK that delivered `delivered` segments.
    fn enter_recovery(&mut self, delivered: u64, now: SimTime, out: &mut Vec<u64>) {
        self.stats.recoveries += 1;
        //= RFC 9406 section 4.2: on a loss during slow start or CSS, HyStart++
        //= ends and the controller's loss response applies.
        self.hystart = None;
        self.prr = None;
        //= ns-3.37 TcpSocketBase::EnterRecovery: "One segment has left the
        //= network": AddRenoSack without SACK.
        self.add_reno_sack();
        let base = self.cut_base(true);
        self.w.ssthresh = self.cc.on_congestion_event(&self.w, base, now);
        self.recover = self.max;
        self.recover_by_rto = false;
        self.cwr_point = self.max;
        self.in_recovery = true;
        self.first_partial = true;
        let prr_cwnd = match self.sb.as_ref() {
            Some(sb) if self.cfg.rules.prr => {
                let pipe = sb.pipe();
                let recover_fs = match self.cfg.rules.prr_variant {
                    PrrVariant::Rfc9937 => pipe,
                    PrrVariant::Ns3 => self.flight(),
                };
                let mut p = Prr::start(
                    recover_fs,
                    self.cfg.rules.prr_variant,
                    self.ns3_segment_bytes(),
                );
                let cwnd = p.on_ack(delivered, pipe, self.w.ssthresh, false);
                self.prr = Some(p);
                Some(cwnd)
            }
            None if self.ns3_reno_prr() => {
                //= ns-3.37 TcpSocketBase::EnterRecovery without SACK:
                //= AddRenoSack, MarkHeadAsLost, then
                //= TcpPrrRecovery::EnterRecovery(UnAckDataCount(),
                //= currentDelivered = 0) over BytesInFlight() with the head
                //= lost and not yet resent.
                let mut p = Prr::start(self.flight(), PrrVariant::Ns3, self.ns3_segment_bytes());
                let pipe = self.ns3_pipe().saturating_sub(1);
                let cwnd = p.on_ack(0, pipe, self.w.ssthresh, false);
                self.prr = Some(p);
                Some(cwnd)
            }
            _ => None,
        };
        self.pto_deadline = SimTime::MAX;
        self.tlp.end = None;
        //= RFC 6675 section 5 step (4.3): retransmit the first segment presumed
        //= dropped, HighACK + 1 (here `una`); RFC 6582 section 3.2 step 2
        //= (RFC 5681 section 3.2 step 3): retransmit the lost segment. With
        //= RACK, the first segment RACK marked lost.
        let first = match self.sb.as_mut() {
            Some(sb) if self.rack.is_some() => sb.next_lost().unwrap_or(self.una),
            _ => self.una,
        };
        self.emit(first, now, out);
        if self.cc_owns_recovery() {
            // The controller sets cwnd on this ACK's sample (cc_sample).
            self.rxt_next = self.una + 1;
        } else if self.sb.is_some() || prr_cwnd.is_some() {
            //= RFC 6675 section 5 step (4.2): cwnd = ssthresh, or what PRR
            //= allows on this ACK.
            self.w.cwnd = prr_cwnd.unwrap_or(self.w.ssthresh);
            self.rxt_next = self.una + 1;
        } else {
            //= RFC 5681 section 3.2 step 3: cwnd = ssthresh + 3*SMSS.
            self.w.cwnd = self.w.ssthresh + DUP_THRESH as f64;
        }
        self.cc_sample(self.pending_ece, now);
        self.pump(now, out);
    }

    /// The connection is set up: the SYN-ACK came back `last` after the
    /// last SYN and `first` after the first. That round trip is the first
    /// RTT sample, before any data (RFC 6298 (2.2); Linux
    /// tcp_ack_update_rtt on the SYN-ACK, ns-3 EstimateRtt), unless a SYN
    /// timed out and `lost` (the profile's
    /// [`crate::tcp::stack::Stack::after_lost_syn`]) says otherwise.
    pub fn connected(&mut self, last: SimTime, first: SimTime, lost: Option<LostSyn>) {
        let r = match self.cfg.rules.rtt_sampling {
            RttSampling::Rfc => last,
            //= ns-3.37 TcpSocketBase::UpdateRttHistory: a resent SYN's
            //= zero-length entry fails "seq < (i->seq + count)" and is never
            //= marked resent, so EstimateRtt times the SYN-ACK from the
            //= first SYN.
            RttSampling::Ns3 => first,
        };
        match lost {
            None => self.rtt.sample(r),
            Some(l) => {
                if l.sample {
                    self.rtt.sample(r);
                } else if let Some(rto) = l.rto {
                    self.rtt.restart_at(rto);
                }
                if l.one_segment {
                    self.w.cwnd = 1.0;
                }
            }
        }
        if let Some(srtt) = self.srtt() {
            self.cc.on_connected(&self.w, srtt);
        }
    }

    /// Process an ACK; then send what the windows allow.
    ///
    /// One phase per procedure, in the order the RFCs run them, each
    /// consulting the stack's rules (`self.cfg.rules`): the SACK blocks
    /// (`sack_intake`), the delivery-rate sample (`sample_delivery_rate`),
    /// ECN-Echo (`ecn_echo`); then an ACK of new data (`cumulative_ack`:
    /// the advance, the ends of a loss episode, a fast recovery's exit or
    /// partial ACK, the window's growth, the timers) or a duplicate ACK
    /// (`duplicate_ack`); last RACK's loss detection (`rack_detect`) and
    /// PRR (`prr_ack`).
    pub fn on_ack(&mut self, ack: &Ack, now: SimTime, out: &mut Vec<u64>) {
        let before = self.ack_start();
        let newly_sacked = self.sack_intake(ack);
        self.sample_delivery_rate(ack, now);
        self.ecn_echo(ack, now);
        if ack.ack > self.una {
            self.cumulative_ack(ack, newly_sacked, now, out);
        } else if ack.ack == self.una
            && self.max > self.una
            && self.duplicate_ack(newly_sacked, now, out)
        {
            // Fast recovery began: it sampled the controller and sent.
            return;
        }
        let delivered = self.delivered_since(&before);
        let (entered, new_loss) = self.rack_detect(delivered, now, out);
        if entered {
            return;
        }
        self.prr_ack(&before, newly_sacked, delivered, new_loss);
        self.cc_sample(ack.ece, now);
        self.pump(now, out);
    }

    /// The state the later phases of an ACK measure it against, read
    /// before the ACK changes anything.
    fn ack_start(&mut self) -> AckStart {
        //= ns-3.37 TcpSocketBase::ReceivedAck: "uint32_t previousLost =
        //= m_txBuffer->GetLost()", before the ACK's SACK blocks are read.
        self.lost_at_ack = self.sb.as_ref().map_or(0, Scoreboard::lost);
        self.sent_at_ack = self.stats.sent;
        AckStart {
            una: self.una,
            sacked: self.sb.as_ref().map_or(0, Scoreboard::sacked),
            lost_bound: self
                .prr
                .is_some()
                .then(|| self.sb.as_ref().and_then(|sb| sb.lost_bound())),
        }
    }

    /// SACK intake (RFC 2018 section 4; RFC 6675 section 5, "update the
    /// scoreboard via the Update() routine"): the ACK's SACK blocks mark
    /// their segments SACKed. Returns how many were newly SACKed (none
    /// without SACK).
    fn sack_intake(&mut self, ack: &Ack) -> u64 {
        let Some(sb) = self.sb.as_mut() else {
            return 0;
        };
        let mut newly_sacked = 0;
        for &(s, e) in &ack.sack[..ack.nsack as usize] {
            newly_sacked += sb.on_sack_block(s, e);
        }
        newly_sacked
    }

    /// The ACK's delivery-rate sample
    /// (draft-cheng-iccrg-delivery-rate-estimation-02 section 3.3), for a
    /// controller that reads rate samples; [`Self::cc_sample`] hands it
    /// over once the ACK's other phases have run.
    fn sample_delivery_rate(&mut self, ack: &Ack, now: SimTime) {
        let ns3_socket = self.ns3_socket();
        let Some(r) = self.rate.as_mut() else {
            return;
        };
        if let Some(sb) = self.sb.as_mut() {
            for seq in sb.take_newly_sacked() {
                r.on_sacked(seq, now);
            }
        }
        r.on_cum_ack(ack.ack.max(self.una), now);
        //= ns-3.37 TcpSocketBase::ReceivedAck: GenerateSample(...,
        //= m_tcb->m_minRtt), the least smoothed RTT (RttEstimator::
        //= min_srtt), under ns-3's socket.
        let min_rtt = if ns3_socket {
            self.rtt.min_srtt
        } else {
            self.rtt.min
        };
        //= ns-3.37 TcpSocketBase::ReceivedAck returns before
        //= GenerateSample on an ACK below the cumulative point ("Possibly
        //= received a stale ACK").
        let stale = ns3_socket && ack.ack < self.una;
        self.pending_rs = if stale { None } else { r.sample(now, min_rtt) };
        self.pending_ece = ack.ece;
    }

    /// ECN-Echo (RFC 3168 section 6.1.2; RFC 8257 section 3.3 for
    /// DCTCP's count): an ECN-capable sender's answer to ECE, at most once
    /// per window and never inside a fast recovery, by the stack's
    /// `ecn_reduction` (at once, or spread by PRR over a CWR).
    fn ecn_echo(&mut self, ack: &Ack, now: SimTime) {
        if !self.cfg.ecn {
            return;
        }
        //= RFC 8257 section 3.3: the sender counts acknowledged and
        //= ECE-marked bytes on every ACK (DCTCP's alpha; a no-op for
        //= RFC 3168 variants).
        let acked = ack.ack.saturating_sub(self.una);
        let una = ack.ack.max(self.una);
        self.cc.on_ecn_ack(acked, ack.ece, una, self.max);
        if !ack.ece || self.in_recovery || self.una < self.cwr_point {
            return;
        }
        //= RFC 3168 section 6.1.2: on ECE "the TCP source halves the
        //= congestion window 'cwnd' and reduces the slow start threshold
        //= 'ssthresh'" (here: the variant's ECE response, its loss
        //= decrease unless it says otherwise, as DCTCP), without
        //= retransmitting, and sets CWR on the next data packet.
        let base = self.cut_base(false);
        self.w.ssthresh = self.cc.on_ece(&self.w, base, now);
        self.cwr_point = self.max;
        self.cwr_pending = true;
        self.hystart = None;
        self.stats.ecn_reductions += 1;
        match self.cfg.rules.ecn_reduction {
            EcnReduction::Immediate => self.w.cwnd = self.w.ssthresh.max(1.0),
            EcnReduction::Prr => {
                //= Linux tcp_init_cwnd_reduction, ns-3 TcpPrrRecovery::
                //= EnterRecovery: RecoverFS is the data outstanding
                //= (UnAckDataCount); cwnd follows PRR on this ACK and
                //= the next ones ([`Self::prr_ack`]).
                self.prr = Some(Prr::start(
                    self.flight(),
                    self.cfg.rules.prr_variant,
                    self.ns3_segment_bytes(),
                ));
            }
        }
    }

    /// An ACK of new data: the cumulative advance, the end of a timeout's
    /// loss episode and of a tail loss probe, then by state a fast
    /// recovery's exit or partial ACK, a CWR's end or the window's growth,
    /// and the timers.
    fn cumulative_ack(&mut self, ack: &Ack, newly_sacked: u64, now: SimTime, out: &mut Vec<u64>) {
        let newly = ack.ack - self.una;
        let grows = self.advance_cumulative(ack.ack, newly_sacked, now);
        let grows = self.exit_loss_recovery(grows);
        self.tlp_acked(ack, now);
        if self.in_recovery && self.una < self.recover {
            self.partial_ack(newly, now, out);
        } else {
            if self.in_recovery {
                self.exit_recovery(newly, now);
            } else if self.in_cwr() {
                self.exit_cwr(newly, now);
            } else {
                self.grow(grows, now);
            }
            //= RFC 6298 section 5.2: all data acknowledged: turn the timer
            //= off (`RtoTimer::Ns3`: only once nothing is left to send);
            //= 5.3: new data acknowledged: restart it.
            self.restart_timer(now);
            if self.una == self.max && !self.timer_idles() {
                self.rto_deadline = SimTime::MAX;
            }
        }
        //= RFC 8985 section 7.2: restart the PTO "upon receiving an ACK
        //= that cumulatively acknowledges new data".
        self.arm_pto(now);
    }

    /// Cumulative advance (RFC 5681 section 3; RFC 6675 section 5's
    /// DupAcks reset): `una` moves to `ack_no`, the scoreboard and the RTT
    /// timing follow. Returns the segments the controller's increase
    /// counts for this ACK (none for a duplicate ACK under
    /// `dupack_growth = false`).
    fn advance_cumulative(&mut self, ack_no: u64, newly_sacked: u64, now: SimTime) -> u64 {
        let newly = ack_no - self.una;
        //= ns-3.37 TcpTxBuffer::DiscardUpTo: the SACKed run [una + 1,
        //= una + 1 + reno_sacked) loses what falls below the new head;
        //= a head inside it is un-SACKed and the run extended by one
        //= (AddRenoSack), so it keeps what lies at or above the head.
        self.reno_sacked = (self.reno_sacked + 1).saturating_sub(newly);
        self.una = ack_no;
        if self.nxt < self.una {
            self.nxt = self.una;
        }
        if let Some(sb) = self.sb.as_mut() {
            sb.on_cum_ack(self.una);
        }
        if let Some(r) = self.timing.on_cum_ack(self.una, now) {
            self.rtt.sample(r);
        }
        //= RFC 6675 section 5: "If the incoming ACK is a cumulative
        //= acknowledgment, the TCP MUST reset DupAcks to zero"; then "If
        //= the incoming ACK is a duplicate acknowledgment per the
        //= definition in Section 2 (regardless of its status as a
        //= cumulative acknowledgment), and the TCP is not currently in
        //= loss recovery, the TCP MUST increase DupAcks by one": an ACK
        //= that SACKs new data (the receiver's first after a loss, when
        //= it held a delayed ACK) is the first duplicate. (ns-3.37
        //= TcpSocketBase::DupAck returns early in CA_LOSS.)
        let dupack = newly_sacked > 0 && !(self.in_recovery || self.rto_recovery);
        self.dupacks = u32::from(dupack);
        if dupack && !self.cfg.rules.dupack_growth {
            //= ns-3.37 TcpSocketBase::ProcessAck: CA_DISORDER calls
            //= PktsAcked only; IncreaseWindow runs in CA_OPEN.
            return 0;
        }
        newly
    }

    /// The end of a timeout's loss-recovery episode (RFC 6675 section 5.1,
    /// RFC 6582 section 4: `una` reaches the RecoveryPoint; Linux's
    /// `TCP_CA_Loss`). Returns the segments the controller's increase
    /// counts, `grows` unless `recovery_exit = "ns3"` counts only those
    /// past the recovery point.
    fn exit_loss_recovery(&mut self, grows: u64) -> u64 {
        if !self.rto_recovery || self.una < self.recover {
            return grows;
        }
        self.rto_recovery = false;
        match self.cfg.rules.recovery_exit {
            //= ns-3.37 TcpSocketBase::ProcessAck, leaving CA_LOSS:
            //= "segsAcked = (ackNumber - m_recover) / m_segmentSize".
            RecoveryExit::Ns3 => self.una - self.recover,
            RecoveryExit::Rfc => grows,
        }
    }

    /// A tail loss probe's answer (RFC 8985 section 7.4): the ACK covers
    /// the probe; a retransmitted probe answered without D-SACK repaired
    /// a loss nothing else saw, and the window is cut as fast recovery
    /// would.
    fn tlp_acked(&mut self, ack: &Ack, now: SimTime) {
        let Some(end) = self.tlp.end else {
            return;
        };
        if self.una < end {
            return;
        }
        self.tlp.end = None;
        //= RFC 8985 section 7.4: the ACK covers the probe. A
        //= retransmitted probe answered without D-SACK repaired a
        //= loss no other mechanism saw: the sender "MUST invoke a
        //= congestion control response equivalent to fast recovery".
        if self.tlp.is_retrans && !ack.dsack && !self.in_recovery && !self.rto_recovery {
            let flight = self.flight() as f64;
            self.w.ssthresh = self.cc.on_congestion_event(&self.w, flight, now);
            if !self.cc_owns_recovery() {
                self.w.cwnd = self.w.ssthresh;
            }
            self.hystart = None;
        }
    }

    /// Fast recovery's exit on a full acknowledgment, `una` at `recover`
    /// (RFC 6582 section 3.2 step 3, full acknowledgments; RFC 6675
    /// section 5: HighACK reaches RecoveryPoint), cwnd set by the stack's
    /// `recovery_exit`; `newly` segments were acknowledged.
    fn exit_recovery(&mut self, newly: u64, now: SimTime) {
        self.in_recovery = false;
        self.prr = None;
        if self.cc_owns_recovery() {
            // cwnd is the controller's (its restore rule).
        } else if self.cfg.rules.recovery_exit == RecoveryExit::Ns3 {
            //= ns-3.37 TcpSocketBase::ProcessAck, leaving
            //= CA_RECOVERY (SACK or not): "m_cWnd = m_ssThresh",
            //= then IncreaseWindow for "segsAcked = (ackNumber -
            //= oldHeadSequence) / m_segmentSize", every segment
            //= the ACK covers, SACKed ones too.
            self.w.cwnd = self.w.ssthresh;
            self.grow(newly, now);
        } else if self.sb.is_some() {
            //= RFC 6675 section 5: recovery ends when HighACK reaches
            //= RecoveryPoint; cwnd stays at ssthresh.
            self.w.cwnd = self.w.ssthresh;
        } else {
            //= RFC 6582 section 3.2 step 3 (full ACK), option (1):
            //= cwnd = min (ssthresh, max (FlightSize, SMSS) + SMSS).
            self.w.cwnd = self.w.ssthresh.min((self.flight() as f64).max(1.0) + 1.0);
        }
    }

    /// A partial acknowledgment in fast recovery, `una` still below
    /// `recover` (RFC 6582 section 3.2 step 3, partial acknowledgments):
    /// without SACK the head is resent and cwnd deflated (or, under ns-3's
    /// recovery, set by PRR); with SACK the head is resent only under
    /// `partial_ack_retransmit`. The retransmission timer restarts on the
    /// first partial ACK only when the recovery follows RFC 6582's
    /// "Impatient" variant (section 4): without SACK, or with
    /// `partial_ack_retransmit`; otherwise on each (RFC 6298 section 5.3).
    fn partial_ack(&mut self, newly: u64, now: SimTime, out: &mut Vec<u64>) {
        if self.sb.is_none() {
            if self.ns3_reno_prr() {
                //= ns-3.37 TcpSocketBase::ProcessAck, a partial ACK
                //= in CA_RECOVERY without SACK: MarkHeadAsLost,
                //= DoRecovery(currentDelivered) over the pipe read
                //= before the ACK's processing, then DoRetransmit
                //= (MarkHeadAsLost cleared the head's m_retrans, so
                //= IsRetransmittedDataAcked is false: always). The
                //= delivery is the whole advance (DiscardUpTo's
                //= SkbDelivered; the guessed SACKs counted nothing)
                //= and the ACK covers the resent head
                //= (m_isRetransDataAcked: SSRB's bound).
                let pipe = self.ns3_pipe();
                if let Some(p) = self.prr.as_mut() {
                    self.w.cwnd = p.on_ack(newly, pipe, self.w.ssthresh, true);
                }
                self.emit(self.una, now, out);
            } else {
                //= RFC 6582 section 3.2 step 3, partial acknowledgments:
                //= retransmit the first unacknowledged segment, deflate
                //= cwnd by the amount newly acknowledged and add back
                //= one SMSS.
                self.emit(self.una, now, out);
                if !self.cc_owns_recovery() {
                    self.w.cwnd = (self.w.cwnd - newly as f64 + 1.0).max(1.0);
                }
            }
        } else if self.cfg.rules.partial_ack_retransmit
            && !self
                .sb
                .as_ref()
                .is_some_and(|sb| sb.is_sacked(self.una) || sb.is_retransmitted(self.una))
        {
            //= ns-3 TcpSocketBase::ProcessAck, a partial ACK in
            //= CA_RECOVERY: MarkHeadAsLost() then DoRetransmit(), SACK
            //= or not: RFC 6582 section 3.2 step 3's "retransmit the
            //= first unacknowledged segment" on top of RFC 6675, which
            //= would resend it only as NextSeg finds it lost; "If the
            //= packet is already retransmitted do not retransmit it"
            //= (`!IsRetransmittedDataAcked(ackNumber + segmentSize)`:
            //= the new head not resent yet), so a lost retransmission
            //= waits for the RTO.
            self.emit(self.una, now, out);
        }
        //= RFC 6582 section 3.2 step 3: "For the first partial ACK that
        //= arrives during fast recovery, also reset the retransmit timer"
        //= (the "Impatient" variant of section 4), applied in SACK
        //= recovery with `partial_ack_retransmit` (ns-3.37
        //= TcpSocketBase::ProcessAck: "NewAck(ackNumber,
        //= m_isFirstPartialAck)"): only the first partial ACK restarts
        //= the timer, so a recovery still open one RTO after it ends in
        //= a timeout. Otherwise RFC 6298 section 5.3: new data
        //= acknowledged restarts it (`una` is below `recover`, so data
        //= is outstanding).
        let impatient = self.sb.is_none() || self.cfg.rules.partial_ack_retransmit;
        if !impatient || std::mem::replace(&mut self.first_partial, false) {
            self.restart_timer(now);
        }
    }

    /// A CWR's end (RFC 3168 section 6.1.2's window of data, reduced by
    /// PRR): `una` past the ECE's `cwr_point`, cwnd = ssthresh; `newly`
    /// segments were acknowledged.
    fn exit_cwr(&mut self, newly: u64, now: SimTime) {
        if self.una < self.cwr_point {
            return;
        }
        //= ns-3.37 TcpSocketBase::ReceivedAck: CA_CWR ends when the
        //= ACK passes m_recover, "m_tcb->m_cWnd =
        //= m_tcb->m_ssThresh"; Linux tcp_end_cwnd_reduction.
        self.prr = None;
        if !self.cc_owns_recovery() {
            self.w.cwnd = self.w.ssthresh;
        }
        if self.cfg.rules.recovery_exit == RecoveryExit::Ns3 {
            //= ns-3.37: ProcessAck then runs in CA_OPEN:
            //= IncreaseWindow for the segments the ACK covers.
            self.grow(newly, now);
        }
    }

    /// A duplicate ACK (RFC 5681 section 3.2; RFC 6675 sections 2 and 5;
    /// Limited Transmit, RFC 3042): inside a fast recovery without SACK it
    /// inflates cwnd (or, under ns-3's recovery, steps PRR); outside one it
    /// counts toward DupThresh and enters fast recovery by the stack's
    /// `recovery_entry`. Returns whether it entered fast recovery (which
    /// has sampled the controller and sent).
    fn duplicate_ack(&mut self, newly_sacked: u64, now: SimTime, out: &mut Vec<u64>) -> bool {
        if self.in_recovery {
            if self.sb.is_none() {
                if self.ns3_reno_prr() {
                    //= ns-3.37 TcpSocketBase::DupAck in CA_RECOVERY
                    //= without SACK: DoRecovery(currentDelivered = 0)
                    //= over the pipe read before this ACK's AddRenoSack.
                    let pipe = self.ns3_pipe();
                    if let Some(p) = self.prr.as_mut() {
                        self.w.cwnd = p.on_ack(0, pipe, self.w.ssthresh, false);
                    }
                } else {
                    //= RFC 6582 section 3.2 step 3 defers further duplicate
                    //= ACKs to RFC 5681 section 3.2 step 4: each inflates
                    //= cwnd by one SMSS.
                    self.w.cwnd += 1.0;
                }
                //= ns-3.37 TcpSocketBase::DupAck in CA_RECOVERY.
                self.add_reno_sack();
            }
            return false;
        }
        //= RFC 6675 section 2: with SACK, a duplicate acknowledgment
        //= is one whose SACK block "identifies previously
        //= unacknowledged and un-SACKed octets between HighACK and
        //= HighData": duplicate ACKs of segments resent after a
        //= timeout carry none and do not count.
        if self.sb.is_some() && newly_sacked == 0 {
            return false;
        }
        self.dupacks += 1;
        //= RFC 6675 section 5: enter recovery on DupThresh duplicate ACKs
        //= or when IsLost (HighACK + 1) (`RecoveryEntry`), but (section
        //= 5.1) not before HighACK >= RecoveryPoint: every segment sent
        //= before the last recovery or timeout is acknowledged (`una >=
        //= recover`).
        //= RFC 6582 section 3.2 step 2 asks NewReno for one segment
        //= more: the cumulative ACK must "cover more than recover"
        //= (ack_number - 1 > recover). bufsim applies the RFC 6675 rule
        //= to NewReno too, so a loss of the first segment sent after the
        //= recovery point is repaired by fast retransmit. With the RFC's
        //= strict rule those losses, frequent when a full buffer keeps
        //= dropping, all end in timeouts (RFC 6582 section 4 offers
        //= heuristics for this case): one NewReno flow with Poisson
        //= background and a 625-packet buffer (paper 000) fell from 0.83
        //= to 0.39 of the residual capacity.
        let seq = match self.cfg.rules.recovery_entry {
            RecoveryEntry::Rfc => self.una,
            RecoveryEntry::Ns3 => self.una + 1,
        };
        let lost = self
            .sb
            .as_ref()
            .is_some_and(|sb| sb.lost_bound().is_some_and(|b| b > seq) && !sb.is_sacked(seq));
        //= RFC 6582 section 3.2 step 2, kept strictly after a
        //= timeout: go-back-N resends segments the receiver holds,
        //= and their duplicate ACKs arrive with ack = recover (RFC
        //= 6582 section 4: "to avoid multiple fast retransmits
        //= caused by the retransmission of packets already received").
        let past_recover = if self.recover_by_rto && self.sb.is_none() {
            self.una > self.recover
        } else {
            self.una >= self.recover
        };
        if (self.dupacks >= DUP_THRESH as u32 || lost) && past_recover && self.rack.is_none() {
            self.enter_recovery(newly_sacked, now, out);
            return true;
        }
        if self.cfg.rules.limited_transmit && !self.rto_recovery {
            //= ns-3.37 TcpSocketBase::DupAck in CA_DISORDER: "if
            //= (!m_sackEnabled && m_limitedTx) AddRenoSack()"; in
            //= CA_LOSS duplicate ACKs are ignored.
            self.add_reno_sack();
        }
        false
    }

    /// RFC 9937's DeliveredData since `before`: the change in snd.una plus
    /// the change in SACKed segments (0 without SACK).
    fn delivered_since(&self, before: &AckStart) -> u64 {
        self.sb.as_ref().map_or(0, |sb| {
            (self.una + sb.sacked()) - (before.una + before.sacked)
        })
    }

    /// Proportional Rate Reduction (RFC 9937 section 3) on this ACK, while
    /// a CWR or a SACK fast recovery runs it: cwnd from what was
    /// delivered, by the stack's `prr_variant`. `new_loss`: RACK marked a
    /// segment lost on this ACK.
    fn prr_ack(&mut self, before: &AckStart, newly_sacked: u64, delivered: u64, new_loss: bool) {
        if self.in_cwr() {
            //= RFC 9937 applied to CWR (Linux tcp_cwnd_reduction, ns-3
            //= TcpPrrRecovery::DoRecovery): DeliveredData is the advance of
            //= snd.una plus the newly SACKed; an ACK that advances snd.una is
            //= safe (no loss is being repaired).
            let pipe = self.sb.as_ref().map_or(self.flight(), Scoreboard::pipe);
            let delivered = (self.una - before.una) + newly_sacked;
            //= ns-3.37 sets m_isRetransDataAcked only in CA_RECOVERY
            //= (TcpSocketBase::ReceivedAck): no ACK of a CWR is safe there.
            let safe = self.una > before.una && self.cfg.rules.prr_variant == PrrVariant::Rfc9937;
            if let Some(p) = self.prr.as_mut() {
                self.w.cwnd = p.on_ack(delivered, pipe, self.w.ssthresh, safe);
            }
        }
        if let (Some(lost_before), Some(sb), Some(p)) =
            (before.lost_bound, self.sb.as_ref(), self.prr.as_mut())
            && self.in_recovery
        {
            let safe = match self.cfg.rules.prr_variant {
                //= RFC 9937: a safe ACK advances snd.una and indicates no new loss.
                PrrVariant::Rfc9937 => {
                    self.una > before.una && !new_loss && sb.lost_bound() <= lost_before
                }
                //= ns-3.37 TcpPrrRecovery::DoRecovery: SSRB's bound when
                //= "m_isRetransDataAcked", an ACK advancing snd.una in
                //= CA_RECOVERY over a retransmitted segment (the head, resent
                //= when recovery began or at the previous partial ACK),
                //= whatever loss it indicates.
                PrrVariant::Ns3 => self.una > before.una,
            };
            self.w.cwnd = p.on_ack(delivered, sb.pipe(), self.w.ssthresh, safe);
        }
    }

    /// New data acknowledged outside fast recovery: the controller grows the
    /// window, unless HyStart++ holds the initial slow start to CSS's pace
    /// or ends it.
    fn grow(&mut self, acked: u64, now: SimTime) {
        //= Linux tcp_input.c tcp_cong_control: "if
        //= (icsk->icsk_ca_ops->cong_control) { icsk->icsk_ca_ops->
        //= cong_control(sk, ...); return; }": tcp_cong_avoid, and with it
        //= tcp_slow_start's byte counting ("cwnd = min(cwnd + acked,
        //= ssthresh)"), runs only for controllers without that hook. BBR
        //= sets cwnd in on_rate_sample (`CongestionControl::owns_window`).
        if acked == 0 || self.cc.owns_window() {
            return;
        }
        // Segments slow start may count for this ACK: RFC 5681 eq. (2)'s
        // min(N, SMSS), or every one with `abc`.
        let ss_acked = if self.cfg.rules.abc.counts_segments() {
            acked as f64
        } else {
            (acked as f64).min(1.0)
        };
        if let Some(h) = self.hystart.as_mut() {
            if self.w.cwnd < self.w.ssthresh {
                match h.on_ack(self.una, self.max, now) {
                    Growth::SlowStart => {}
                    Growth::Conservative => {
                        //= RFC 9406 section 4.2: in CSS "cwnd = cwnd + (min(N,
                        //= L * SMSS) / CSS_GROWTH_DIVISOR)".
                        self.w.cwnd += ss_acked / CSS_GROWTH_DIVISOR;
                        return;
                    }
                    Growth::Exit => {
                        self.w.ssthresh = self.w.cwnd;
                        self.hystart = None;
                    }
                }
            } else {
                self.hystart = None;
            }
        }
        let mut acked = acked;
        if self.cfg.rules.abc == SlowStart::Uncapped && self.w.cwnd < self.w.ssthresh {
            //= ns-3.37 TcpCubic::IncreaseWindow (Stack::slow_start): every
            //= acknowledged segment, no cap, none left to congestion avoidance.
            self.w.cwnd += acked as f64;
            return;
        }
        if self.cfg.rules.abc == SlowStart::Capped && self.w.cwnd < self.w.ssthresh {
            //= Linux tcp_slow_start: "cwnd = min(cwnd + acked, ssthresh)";
            //= what is left of `acked` goes to congestion avoidance.
            let room = (self.w.ssthresh - self.w.cwnd).ceil().max(1.0);
            let used = ss_acked.min(room);
            self.w.cwnd = (self.w.cwnd + used).min(self.w.ssthresh);
            acked -= used as u64;
            if acked == 0 {
                return;
            }
        }
        //= ns-3.37 TcpSocketBase::EstimateRtt: "m_tcb->m_lastRtt =
        //= m_rtt->GetEstimate()", the RTT PktsAcked gives the controller,
        //= and "m_tcb->m_minRtt = std::min(m_tcb->m_lastRtt.Get(), ...)".
        let (rtt, min_rtt) = match self.cfg.rules.rtt_sampling {
            RttSampling::Rfc => (self.rtt.last, self.rtt.min),
            RttSampling::Ns3 => (self.srtt(), self.rtt.min_srtt),
        };
        let info = AckInfo {
            acked,
            now,
            srtt: self.srtt(),
            min_rtt,
            rtt,
            abc: self.cfg.rules.abc.counts_segments(),
            mss_bytes: self.cfg.mss_bytes,
        };
        self.cc.on_ack(&mut self.w, &info);
    }

    /// Whether the retransmission timer runs with nothing outstanding:
    /// under `RtoTimer::Ns3` while data is left to send (ns-3.37's
    /// `TcpSocketBase::NewAck` cancels it only when the send buffer is
    /// empty).
    fn timer_idles(&self) -> bool {
        self.cfg.rules.rto_timer == RtoTimer::Ns3 && self.max < self.cfg.limit
    }

    /// An ACK of new data restarts the retransmission timer at `now`
    /// (RFC 6298 section 5.3), first collapsing a backed-off RTO under
    /// `RtoCollapse::Ack` (ns-3.37 `TcpSocketBase::NewAck`).
    fn restart_timer(&mut self, now: SimTime) {
        if self.cfg.rules.rto_collapse == RtoCollapse::Ack {
            self.rtt.collapse();
        }
        self.rto_deadline = now + self.rtt.rto();
    }

    /// The retransmission timer expired at `now` (the caller checked the deadline).
    /// With nothing outstanding it runs only under `RtoTimer::Ns3` (a
    /// paced sender held past the RTO since its last ACK), as ns-3.37's
    /// `ReTxTimeout` does: a timeout like any, whose one segment is new.
    pub fn on_timeout(&mut self, now: SimTime, out: &mut Vec<u64>) {
        if self.una >= self.max && !self.timer_idles() {
            self.rto_deadline = SimTime::MAX;
            return;
        }
        self.stats.timeouts += 1;
        self.hystart = None;
        self.tlp.end = None;
        self.pto_deadline = SimTime::MAX;
        self.reo_deadline = SimTime::MAX;
        let flight = self.flight() as f64;
        let in_episode = self.in_recovery || self.rto_recovery;
        if self.cfg.rules.rto_ssthresh == RtoSsthresh::Pipe {
            //= ns-3.37 TcpSocketBase::ReTxTimeout: "inFlightBeforeRto =
            //= BytesInFlight()", then "SetSentListLost", which clears every
            //= segment's m_retrans, so the guard "m_congState != CA_LOSS ||
            //= !IsHeadRetransmitted()" always holds: every timeout, in
            //= fast recovery, in CA_LOSS or outside both, recomputes
            //= ssthresh by the variant's GetSsThresh from the pipe and
            //= enters CA_LOSS (CongestionStateSet) with cwnd = 1 segment.
            let pipe = self.ns3_pipe() as f64;
            self.cc.on_timeout(&mut self.w, pipe, now);
        } else if in_episode {
            //= RFC 5681 section 3.1: on a timeout ssthresh "MUST be set to no
            //= more than" eq. (4), max (FlightSize / 2, 2*SMSS), for a segment
            //= "not yet resent by way of the retransmission timer". Inside a
            //= loss episode the controller has already answered (fast
            //= recovery, or an earlier timeout whose RecoveryPoint is not yet
            //= acknowledged) ssthresh is not cut a second time: it keeps the
            //= episode's value, lowered to eq. (4) where that is smaller
            //= (`rfc5681`), or unchanged (`keep`: Linux's tcp_enter_loss
            //= recomputes ssthresh only from the Open/Disorder states).
            //= cwnd = LW = 1 segment.
            if self.cfg.rules.rto_ssthresh == RtoSsthresh::Rfc5681 {
                self.w.ssthresh = self.w.ssthresh.min(reno_ssthresh(flight));
            }
            self.cc.on_repeated_timeout(&mut self.w);
        } else {
            //= RFC 5681 section 3.1 eq. (4) and "cwnd ... to 1 full-sized segment".
            self.cc.on_timeout(&mut self.w, flight, now);
        }
        //= RFC 6582 section 4 / RFC 6675 section 5.1: after a timeout, record
        //= the highest segment sent; no new fast recovery until it is acked.
        //= "If an RTO occurs during loss recovery ... the loss recovery
        //= algorithm outlined in this document MUST be terminated."
        self.recover = self.max;
        self.recover_by_rto = true;
        self.cwr_point = self.max;
        self.in_recovery = false;
        self.prr = None;
        self.rto_recovery = true;
        self.dupacks = 0;
        //= ns-3.37 TcpSocketBase::ReTxTimeout: ResetRenoSack.
        self.reno_sacked = 0;
        if let Some(sb) = self.sb.as_mut() {
            //= RFC 6675 section 5.1: RFC 2018 asks a sender to discard SACK
            //= information on a timeout, "since the timeout might indicate
            //= that the data receiver has reneged", but "as long as robust
            //= tests for reneging are present, an implementation can retain
            //= and use SACK information across a timeout event" (RFC 2018
            //= erratum 1610). bufsim's receivers never renege, so the
            //= scoreboard is kept, as Linux and ns-3 keep theirs.
            //= RFC 6675 section 5.1: "a SACK TCP sender SHOULD utilize all
            //= SACK information made available during the loss recovery
            //= following an RTO": every un-SACKed segment is lost and resent
            //= in order by NextSeg, skipping what the receiver SACKs.
            sb.mark_lost_below(self.max);
            self.rxt_next = self.una;
            self.report_lost(now);
        } else {
            // Go back N: resend from the first unacknowledged segment.
            self.nxt = self.una;
        }
        //= RFC 6298 section 5.5: back off the timer.
        self.rtt.backoff();
        self.timing.on_timeout();
        //= RFC 6298 section 5.4/5.6: retransmit the earliest segment and
        //= restart the timer with the backed-off RTO.
        self.rto_deadline = now + self.rtt.rto();
        if self.cfg.rules.rto_timer == RtoTimer::Ns3 {
            //= ns-3.37 TcpSocketBase::ReTxTimeout: "m_pacingTimer.Cancel()",
            //= then SendPendingData: the first segment leaves now.
            self.pace_next = self.pace_next.min(now);
        }
        self.pump(now, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::cc::newreno::NewReno;
    use crate::tcp::stack::Stack;

    fn sender(sack: bool) -> Sender {
        sender_with(sack, AnyCc::NewReno(NewReno))
    }

    /// A sender with `cc`: the RFC profile's rules (none of the optional
    /// recovery features) with initial window 4 and a 200 ms minimum RTO;
    /// ECN on.
    fn sender_with(sack: bool, cc: AnyCc) -> Sender {
        let cfg = SenderConfig {
            rwnd: None,
            sack,
            limit: u64::MAX,
            ecn: true,
            mss_bytes: 1500,
            rules: StackDefaults {
                initial_window: 4,
                min_rto: SimTime::from_millis(200),
                initial_rto: None,
                ..Stack::Rfc.defaults()
            },
        };
        Sender::new(cfg, cc)
    }

    /// A BBR sender (SACK, IW 4) with the given send-quantum rule.
    fn bbr_sender(quantum: &str) -> Sender {
        use crate::params::Params;
        use crate::tcp::cc::Variant;
        use crate::tcp::cc::bbr::Bbr;
        let m: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(&format!(r#"{{"send_quantum": "{quantum}"}}"#)).unwrap();
        let cfg = Bbr::read(&mut Params::new(&m)).unwrap();
        let mut s = sender(true);
        s.cc = AnyCc::Bbr(Bbr::new(cfg));
        s.rate = Some(Box::default());
        s
    }

    /// As ns-3.37's socket around TcpBbr (`CongControl::Ns3`, `mirror =
    /// "ns-3.37"`): no PRR; a 50 ms
    /// handshake sets the pacing rate, 2.885 x 4 segments over 50 ms
    /// (TcpBbr::InitPacingRate); and yet the initial window (4) leaves at
    /// once, unpaced (IsPacingEnabled); its last segment starts the pacing
    /// timer, so the next leaves one pacing interval after it.
    #[test]
    fn ns3_socket_paces_from_the_handshake_but_not_the_initial_window() {
        use crate::params::Params;
        use crate::tcp::cc::Variant;
        use crate::tcp::cc::bbr::Bbr;
        let m: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(r#"{"send_quantum": "segment", "mirror": "ns-3.37"}"#).unwrap();
        let bbr = Bbr::read(&mut Params::new(&m)).unwrap();
        let mut cfg = sender(true).cfg;
        cfg.rules.prr = true;
        cfg.rules.cong_control = CongControl::Ns3;
        let mut s = Sender::new(cfg, AnyCc::Bbr(Bbr::new(bbr)));
        assert!(!s.cfg.rules.prr);
        s.connected(SimTime::from_millis(50), SimTime::from_millis(50), None);
        assert_eq!(s.srtt(), Some(SimTime::from_millis(50)));
        let rate = s.cc.pacing_rate().unwrap();
        assert!((rate - 2.0 / std::f64::consts::LN_2 * 4.0 / 0.05).abs() < 1e-9);
        let mut out = vec![];
        s.pump(SimTime::ZERO, &mut out);
        assert_eq!(out, vec![0, 1, 2, 3]);
        let gap = SimTime::from_secs_f64(1.0 / rate);
        out.clear();
        s.on_ack(&ack(1), SimTime::from_millis(1), &mut out);
        assert!(out.is_empty(), "the fifth segment waits for pacing");
        assert_eq!(s.pace_deadline(), gap);
        s.on_pace(gap, &mut out);
        assert_eq!(out, vec![4]);
    }

    /// Pacing releases a send quantum at one instant (draft-cardwell-iccrg-
    /// bbr-congestion-control-00 section 4.2.2) and then waits quantum /
    /// pacing_rate. Before any ACK the quantum is one segment: the initial
    /// window leaves one segment per 1/pacing_rate, pacing_rate = 2/ln 2 x
    /// BBR's 10 initial segments / 1 ms (section 4.2.1). After the first ACK
    /// (rate still 28854 segments/s = 346 Mbps: a quantum of 28 segments)
    /// the window's two new segments leave together; with one-segment
    /// quanta, one now and one 1/rate later.
    #[test]
    fn pacing_releases_a_send_quantum_at_once() {
        for (quantum, burst) in [("draft", vec![4, 5]), ("segment", vec![4])] {
            let mut s = bbr_sender(quantum);
            let rate = 2.0 / std::f64::consts::LN_2 * 10.0 / 1e-3;
            let gap = SimTime::from_secs_f64(1.0 / rate);
            let mut out = vec![];
            let mut t = SimTime::ZERO;
            s.pump(t, &mut out);
            assert_eq!(out, vec![0], "{quantum}: one segment before any ACK");
            for k in 1..4 {
                assert_eq!(s.pace_deadline(), t + gap);
                t = s.pace_deadline();
                s.on_pace(t, &mut out);
                assert_eq!(out.len(), k + 1);
            }
            assert_eq!(s.pace_deadline(), SimTime::MAX, "window full");
            out.clear();
            let t = SimTime::from_millis(100);
            s.on_ack(&ack(1), t, &mut out);
            assert_eq!(s.w.cwnd, 5.0);
            assert_eq!(out, burst, "{quantum}");
            assert_eq!(
                s.pace_deadline(),
                if burst.len() == 1 {
                    t + gap
                } else {
                    SimTime::MAX
                }
            );
        }
    }

    /// A paced sender held past the RTO with everything acknowledged
    /// (its pacing rate collapsed): RFC 6298 section 5.2 turns the timer
    /// off; ns-3.37 keeps it running while data waits (NewAck cancels it
    /// only with an empty send buffer), and its expiry is a timeout whose
    /// one segment, new data, leaves at once (ReTxTimeout cancels the
    /// pacing timer). A finite transfer all acknowledged has nothing
    /// waiting: no timer under either rule.
    #[test]
    fn the_ns3_timer_runs_while_data_waits() {
        for (rule, limit, runs) in [
            (RtoTimer::Rfc, u64::MAX, false),
            (RtoTimer::Ns3, u64::MAX, true),
            (RtoTimer::Ns3, 1, false),
        ] {
            let mut s = bbr_sender("segment");
            s.cfg.rules.rto_timer = rule;
            s.cfg.limit = limit;
            let mut out = vec![];
            s.pump(SimTime::ZERO, &mut out);
            assert_eq!(out, vec![0]);
            s.pace_next = SimTime::from_secs_f64(10.0);
            out.clear();
            let t = SimTime::from_millis(100);
            s.on_ack(&ack(1), t, &mut out);
            assert!(out.is_empty(), "{rule:?}: pacing holds the next segment");
            if !runs {
                assert_eq!(s.rto_deadline, SimTime::MAX, "{rule:?}, limit {limit}");
                continue;
            }
            // First sample 100 ms: RTO = 100 + 4 * 50 = 300 ms.
            assert_eq!(s.rto_deadline, t + SimTime::from_millis(300));
            let t = s.rto_deadline;
            s.on_timer(t, &mut out);
            assert_eq!(out, vec![1], "one new segment, unpaced");
            assert_eq!(s.stats.timeouts, 1);
            assert_eq!(s.w.cwnd, 1.0);
            assert_eq!(s.rto_deadline, t + SimTime::from_millis(600));
        }
    }

    fn ack(n: u64) -> Ack {
        Ack {
            ack: n,
            ..Ack::default()
        }
    }

    #[test]
    fn limited_transmit_sends_new_data_on_the_first_two_dupacks() {
        // RFC 3042 section 2: cwnd 4, segments 0..4 out, 0 lost. With
        // Limited Transmit the first two duplicate ACKs each send one new
        // segment (4, then 5: FlightSize <= cwnd + 2) and cwnd stays 4; the
        // third enters fast recovery and retransmits 0. Without it the
        // first two send nothing.
        for lt in [false, true] {
            let mut s = sender(false);
            s.cfg.rules.limited_transmit = lt;
            s.w.cwnd = 4.0;
            s.w.ssthresh = 4.0;
            let mut out = vec![];
            s.pump(SimTime::ZERO, &mut out);
            assert_eq!(out, vec![0, 1, 2, 3]);
            let t = SimTime::from_millis(100);
            let mut sent = vec![];
            for _ in 0..2 {
                out.clear();
                s.on_ack(&ack(0), t, &mut out);
                sent.push(out.clone());
                assert_eq!(s.w.cwnd, 4.0);
            }
            let want: Vec<Vec<u64>> = if lt {
                vec![vec![4], vec![5]]
            } else {
                vec![vec![], vec![]]
            };
            assert_eq!(sent, want, "limited transmit {lt}");
            out.clear();
            s.on_ack(&ack(0), t, &mut out);
            assert!(s.in_recovery);
            assert_eq!(out[0], 0);
        }
    }

    #[test]
    fn newreno_fast_retransmit_and_partial_ack() {
        let mut s = sender(false);
        let mut out = vec![];
        s.w.ssthresh = 8.0;
        s.pump(SimTime::ZERO, &mut out);
        assert_eq!(out, vec![0, 1, 2, 3]);
        let t = SimTime::from_millis(100);
        // Segment 0 acked; slow start grows the window to 5.
        out.clear();
        s.on_ack(&ack(1), t, &mut out);
        assert_eq!(s.w.cwnd, 5.0);
        assert_eq!(out, vec![4, 5]);
        // Segment 1 lost: duplicate ACKs for 1.
        out.clear();
        for _ in 0..3 {
            s.on_ack(&ack(1), t, &mut out);
        }
        // Third dupack: flight = 5 (1..6), ssthresh = 2.5, retransmit 1, cwnd = 5.5.
        assert_eq!(s.w.ssthresh, 2.5);
        assert_eq!(s.w.cwnd, 5.5);
        assert_eq!(out, vec![1]);
        // Partial ACK up to 3 (2 newly acked): retransmit 3, cwnd = 5.5 - 2 + 1.
        out.clear();
        s.on_ack(&ack(3), t, &mut out);
        assert_eq!(out[0], 3);
        assert_eq!(s.w.cwnd, 4.5);
        assert_eq!(out[1..], [6]); // 3 + 1 <= 4.5: one new segment
        // Full ACK (recover = 6): cwnd = min(ssthresh 2.5, FlightSize 1 + 1) = 2.
        out.clear();
        s.on_ack(&ack(6), t, &mut out);
        assert!(!s.in_recovery);
        assert_eq!(s.w.cwnd, 2.0);
    }

    #[test]
    fn rto_backoff_and_karn() {
        let mut s = sender(false);
        let mut out = vec![];
        s.pump(SimTime::ZERO, &mut out);
        s.on_ack(&ack(1), SimTime::from_millis(100), &mut out);
        // First sample 100 ms: RTO = 100 + 4 * 50 = 300 ms.
        assert_eq!(s.rtt.rto(), SimTime::from_millis(300));
        let t = s.rto_deadline;
        out.clear();
        s.on_timeout(t, &mut out);
        assert_eq!(out, vec![1]);
        assert_eq!(s.w.cwnd, 1.0);
        assert_eq!(s.rtt.rto(), SimTime::from_millis(600));
        assert_eq!(s.stats.timeouts, 1);
    }

    /// The ACK of a timeout's retransmission gives no sample (Karn): under
    /// RFC 6298 the timer restarts with the backed-off RTO, under ns-3's
    /// `NewAck` with SRTT + 4 RTTVAR again.
    #[test]
    fn an_ack_of_a_retransmission_collapses_the_rto_only_under_ack() {
        for (rule, rto) in [(RtoCollapse::Sample, 600), (RtoCollapse::Ack, 300)] {
            let mut s = sender(false);
            s.cfg.rules.rto_collapse = rule;
            let mut out = vec![];
            s.w.cwnd = 2.0;
            s.pump(SimTime::ZERO, &mut out);
            s.on_ack(&ack(1), SimTime::from_millis(100), &mut out);
            assert_eq!(s.rtt.rto(), SimTime::from_millis(300));
            let t = s.rto_deadline;
            s.on_timeout(t, &mut out);
            assert_eq!(s.rtt.rto(), SimTime::from_millis(600));
            // The retransmission of segment 1 is acknowledged: no sample.
            let now = t + SimTime::from_millis(100);
            s.on_ack(&ack(2), now, &mut out);
            assert_eq!(s.rtt.srtt(), Some(SimTime::from_millis(100)), "{rule:?}");
            assert_eq!(s.rto_deadline, now + SimTime::from_millis(rto), "{rule:?}");
        }
    }

    #[test]
    fn sack_recovery_retransmits_only_holes() {
        let mut s = sender(true);
        let mut out = vec![];
        s.w.cwnd = 10.0;
        s.pump(SimTime::ZERO, &mut out);
        assert_eq!(out.len(), 10);
        out.clear();
        // Segments 2 and 5 lost; receiver SACKs 3..5 and 6..10 progressively.
        let t = SimTime::from_millis(100);
        s.on_ack(&ack(2), t, &mut out);
        out.clear();
        let mut a = ack(2);
        a.sack[0] = (3, 5);
        a.sack[1] = (6, 8);
        a.nsack = 2;
        s.on_ack(&a, t, &mut out);
        // Four SACKed above 2 (>= DupThresh): IsLost(2) triggers recovery at once.
        assert!(s.in_recovery);
        assert_eq!(out[0], 2);
        assert!(!out.contains(&3) && !out.contains(&4));
        out.clear();
        a.sack[0] = (6, 10);
        a.sack[1] = (3, 5);
        s.on_ack(&a, t, &mut out);
        // Now 5 has DupThresh SACKed above it: retransmitted next.
        assert!(out.contains(&5), "{out:?}");
    }

    fn sack_ack(n: u64, blocks: &[(u64, u64)]) -> Ack {
        let mut a = ack(n);
        for (i, &b) in blocks.iter().enumerate() {
            a.sack[i] = b;
        }
        a.nsack = blocks.len() as u8;
        a
    }

    /// A BBR sender under Linux's recovery rules (PRR on, PRR for ECN, as
    /// the linux stack sets them).
    fn bbr_sender_with_prr() -> Sender {
        let mut s = bbr_sender("draft");
        s.cfg.rules.prr = true;
        s.cfg.rules.ecn_reduction = EcnReduction::Prr;
        let cfg = s.cfg;
        let cc = std::mem::replace(&mut s.cc, AnyCc::NewReno(NewReno));
        let mut s = Sender::new(cfg, cc);
        s.rate = Some(Box::default());
        s
    }

    /// Linux tcp_cong_control returns after BBR's cong_control, before
    /// PRR (tcp_cwnd_reduction): in a fast recovery cwnd is the
    /// controller's (the draft's BBR v1 here, as Linux's v1
    /// bbr_set_cwnd_to_recover_or_restore). Segment 0 out and ACKed at
    /// 100 ms: Startup grows cwnd 10 -> 11 and sends 1..=11; two ACKs
    /// SACK 2 and 3 and send 12 and 13 (cwnd 13). The third SACKs 4 (one
    /// delivered), 1 is lost (three SACKed above it) and resent: the pipe
    /// is 13 out - 3 SACKed - 1 lost + 1 resent = 10, and BBR's recovery
    /// entry sets cwnd = pipe + max(delivered, 1) = 11, which sends 14.
    /// The next ACK SACKs 5 under packet conservation: cwnd = max(cwnd -
    /// losses, pipe + delivered) = max(11 - 0, 10 + 1) = 11, sending 15.
    /// PRR never starts. ns-3's socket (`prr_variant = "ns3"`) keeps its
    /// PRR.
    #[test]
    fn bbr_sets_its_own_window_in_a_linux_fast_recovery() {
        let mut s = bbr_sender_with_prr();
        assert!(!s.cfg.rules.prr);
        assert_eq!(s.cfg.rules.ecn_reduction, EcnReduction::Immediate);
        s.w.cwnd = 10.0;
        let mut out = vec![];
        s.pump(SimTime::ZERO, &mut out);
        assert_eq!(out, [0]);
        out.clear();
        let t = SimTime::from_millis(100);
        s.on_ack(&ack(1), t, &mut out);
        assert_eq!((out.len(), s.w.cwnd), (11, 11.0));
        out.clear();
        let ms = SimTime::from_millis;
        s.on_ack(&sack_ack(1, &[(2, 3)]), t + ms(1), &mut out);
        s.on_ack(&sack_ack(1, &[(2, 4)]), t + ms(2), &mut out);
        assert_eq!((out.as_slice(), s.w.cwnd), (&[12, 13][..], 13.0));
        out.clear();
        s.on_ack(&sack_ack(1, &[(2, 5)]), t + ms(3), &mut out);
        assert!(s.in_recovery && s.prr.is_none());
        assert_eq!((out.as_slice(), s.w.cwnd), (&[1, 14][..], 11.0));
        out.clear();
        s.on_ack(&sack_ack(1, &[(2, 6)]), t + ms(4), &mut out);
        assert!(s.prr.is_none());
        assert_eq!((out.as_slice(), s.w.cwnd), (&[15][..], 11.0));
        // The ns3 profile's socket keeps its PRR.
        let mut s = bbr_sender("draft");
        s.cfg.rules.prr = true;
        s.cfg.rules.cong_control = CongControl::Ns3Prr;
        let cc = std::mem::replace(&mut s.cc, AnyCc::NewReno(NewReno));
        let s = Sender::new(s.cfg, cc);
        assert!(s.cfg.rules.prr);
    }

    /// RFC 6675 section 5 step (2): a recovery starts before DupThresh
    /// duplicate ACKs when IsLost (HighACK + 1) (`RecoveryEntry::Rfc`);
    /// ns-3.37 tests the segment after it (`RecoveryEntry::Ns3`); neither
    /// before HighACK reaches the recovery point (section 5.1). Segments
    /// 0-9 sent, 0 and 1 acknowledged, then one duplicate ACK SACKs three
    /// segments.
    #[test]
    fn recovery_entry_before_dupthresh() {
        // (rule, the SACK block, the recovery point, recovery at once)
        for (rule, block, recover, enters) in [
            // 2 lost (3, 4 and 5 SACKed above it).
            (RecoveryEntry::Rfc, (3, 6), 0, true),
            // The second unacknowledged segment, 3, is SACKed.
            (RecoveryEntry::Ns3, (3, 6), 0, false),
            // 2 and 3 lost (4, 5 and 6 SACKed).
            (RecoveryEntry::Ns3, (4, 7), 0, true),
            // HighACK (2) short of the recovery point.
            (RecoveryEntry::Rfc, (4, 7), 20, false),
            (RecoveryEntry::Ns3, (4, 7), 20, false),
        ] {
            let mut s = sender(true);
            s.cfg.rules.recovery_entry = rule;
            s.w.cwnd = 10.0;
            let mut out = vec![];
            s.pump(SimTime::ZERO, &mut out);
            let t = SimTime::from_millis(100);
            s.on_ack(&ack(2), t, &mut out);
            s.recover = recover;
            out.clear();
            s.on_ack(&sack_ack(2, &[block]), t, &mut out);
            assert_eq!(s.in_recovery, enters, "{rule:?} {block:?} {recover}");
            assert_eq!(out.first() == Some(&2), enters, "{out:?}");
        }
    }

    /// The receiver's first ACK after a loss when it held a delayed ACK:
    /// it acknowledges segment 0 and SACKs segment 2 (1 lost). RFC 6675
    /// section 5 counts it as the first duplicate ACK, so limited transmit
    /// sends one segment beyond the one its advance frees; it grows cwnd
    /// by the segment it acknowledges under `dupack_growth` (RFC 5681,
    /// Linux) and not without (ns-3.37: CA_DISORDER).
    #[test]
    fn a_cumulative_ack_that_sacks_is_the_first_duplicate() {
        for growth in [true, false] {
            let mut s = sender(true);
            s.cfg.rules.limited_transmit = true;
            s.cfg.rules.dupack_growth = growth;
            let mut out = vec![];
            s.pump(SimTime::ZERO, &mut out);
            assert_eq!(out, [0, 1, 2, 3]);
            out.clear();
            s.on_ack(&sack_ack(1, &[(2, 3)]), SimTime::from_millis(50), &mut out);
            assert_eq!(s.dupacks, 1);
            assert_eq!(s.w.cwnd, if growth { 5.0 } else { 4.0 });
            // Flight 3 (1..4) of cwnd 4, plus one for the duplicate; with
            // growth one more.
            assert_eq!(out, if growth { vec![4, 5, 6] } else { vec![4, 5] });
            out.clear();
            // A second duplicate sends one more; a third (three SACKed
            // above 1) starts the recovery with 1's retransmission.
            s.on_ack(&sack_ack(1, &[(2, 4)]), SimTime::from_millis(51), &mut out);
            assert_eq!((s.dupacks, s.in_recovery), (2, false));
            s.on_ack(&sack_ack(1, &[(2, 5)]), SimTime::from_millis(52), &mut out);
            assert!(s.in_recovery);
            assert!(out.contains(&1), "{out:?}");
        }
    }

    #[test]
    fn timeout_in_sack_recovery_keeps_ssthresh_and_resends_only_holes() {
        let mut s = sender(true);
        let mut out = vec![];
        s.w.cwnd = 20.0;
        s.pump(SimTime::ZERO, &mut out);
        let t = SimTime::from_millis(100);
        // Segments 0 and 10 lost: recovery with FlightSize 20, ssthresh 10.
        s.on_ack(&sack_ack(0, &[(1, 10), (11, 20)]), t, &mut out);
        assert!(s.in_recovery);
        assert_eq!(s.w.ssthresh, 10.0);
        // The retransmissions are lost too: the timer fires in recovery.
        let high = s.max;
        out.clear();
        s.on_timeout(s.rto_deadline, &mut out);
        // ssthresh is not cut a second time (eq. (4) of the FlightSize is
        // larger); cwnd = 1 and only the first hole is resent.
        assert_eq!(s.w.ssthresh, 10.0);
        assert!(reno_ssthresh((high - s.una) as f64) > 10.0);
        assert_eq!(s.w.cwnd, 1.0);
        assert_eq!(out, vec![0]);
        // The ACK of 0 jumps to 10: slow start, and the segments sent are
        // the other hole and the un-SACKed ones sent after 20, never the
        // SACKed 11..20.
        out.clear();
        let t2 = SimTime::from_millis(1500);
        s.on_ack(&sack_ack(10, &[(11, 20)]), t2, &mut out);
        assert_eq!(s.w.cwnd, 2.0);
        assert_eq!(out, vec![10, 20]);
        // Duplicate ACKs with nothing newly SACKed are not DupAcks (RFC 6675
        // section 2): no recovery, no reduction.
        s.on_ack(&ack(20), t2, &mut out);
        for _ in 0..5 {
            s.on_ack(&ack(20), t2, &mut out);
        }
        assert!(!s.in_recovery);
        assert_eq!(s.w.ssthresh, 10.0);
        assert_eq!(s.stats.recoveries, 1);
    }

    /// A SACK sender with `partial_ack_retransmit = on` that has sent
    /// segments 0..20 at time 0, and an empty output.
    fn twenty_out(on: bool) -> (Sender, Vec<u64>) {
        let mut s = sender(true);
        s.cfg.rules.partial_ack_retransmit = on;
        let mut out = vec![];
        s.w.cwnd = 20.0;
        s.pump(SimTime::ZERO, &mut out);
        out.clear();
        (s, out)
    }

    /// ns-3's partial ACK in a SACK recovery (`partial_ack_retransmit`,
    /// `TcpSocketBase::ProcessAck`): segments 0 and 5 lost of 0..20. The
    /// SACKs 1..5 and 6..8 leave 5 two SACKed segments short of IsLost, so
    /// recovery resends 0 alone. The ACK of 0 is partial (up to 5): ns-3
    /// resends the new head 5 at once (`MarkHeadAsLost`, `DoRetransmit`),
    /// RFC 6675 waits for NextSeg to find it lost. Both restart the timer.
    #[test]
    fn partial_ack_resends_a_head_not_yet_resent() {
        for on in [false, true] {
            let (mut s, mut out) = twenty_out(on);
            let t = SimTime::from_millis(100);
            s.on_ack(&sack_ack(0, &[(1, 5)]), t, &mut out);
            s.on_ack(&sack_ack(0, &[(1, 5), (6, 8)]), t, &mut out);
            assert!(s.in_recovery);
            assert_eq!(out.iter().filter(|&&q| q < 20).collect::<Vec<_>>(), [&0]);
            out.clear();
            let t2 = SimTime::from_millis(150);
            s.on_ack(&sack_ack(5, &[(6, 8)]), t2, &mut out);
            assert!(s.in_recovery);
            assert_eq!(out.contains(&5), on, "{out:?}");
            assert_eq!(s.rto_deadline, t2 + s.rtt.rto());
        }
    }

    /// A partial ACK whose new head was resent already (by NextSeg) does
    /// not resend it ("If the packet is already retransmitted do not
    /// retransmit it": `IsRetransmittedDataAcked(ackNumber +
    /// segmentSize)`), so a lost retransmission waits for the timer; and
    /// only the first partial ACK of the recovery restarts it (RFC 6582's
    /// "Impatient" variant, `NewAck(ackNumber, m_isFirstPartialAck)`),
    /// where RFC 6298 restarts it on every ACK of new data.
    #[test]
    fn partial_ack_leaves_a_resent_head_and_the_timer_as_ns3_does() {
        for on in [false, true] {
            let (mut s, mut out) = twenty_out(on);
            // 0, 5 and 10 lost; every other segment SACKed: NextSeg resends
            // all three during the recovery.
            let t = SimTime::from_millis(100);
            s.on_ack(&sack_ack(0, &[(1, 5)]), t, &mut out);
            s.on_ack(&sack_ack(0, &[(1, 5), (6, 10)]), t, &mut out);
            s.on_ack(&sack_ack(0, &[(1, 5), (6, 10), (11, 20)]), t, &mut out);
            assert!(s.in_recovery);
            for q in [0, 5, 10] {
                assert_eq!(out.iter().filter(|&&x| x == q).count(), 1, "{q}: {out:?}");
            }
            // The ACK of 0 restarts the timer in both; the ACK of 5 (the
            // retransmission of 10 lost) only without ns-3's rule.
            let t1 = SimTime::from_millis(150);
            s.on_ack(&sack_ack(5, &[(6, 10), (11, 20)]), t1, &mut out);
            assert_eq!(s.rto_deadline, t1 + s.rtt.rto());
            out.clear();
            let t2 = SimTime::from_millis(160);
            s.on_ack(&sack_ack(10, &[(11, 20)]), t2, &mut out);
            assert!(s.in_recovery);
            assert!(!out.contains(&10), "{out:?}");
            let restarted = t2 + s.rtt.rto();
            assert_eq!(s.rto_deadline == restarted, !on);
        }
    }

    #[test]
    fn newreno_ignores_dupacks_of_go_back_n_duplicates() {
        let mut s = sender(false);
        let mut out = vec![];
        s.w.cwnd = 10.0;
        s.pump(SimTime::ZERO, &mut out);
        // Segment 0 lost, the receiver holds 1..10; the timer fires.
        out.clear();
        s.on_timeout(s.rto_deadline, &mut out);
        assert_eq!(out, vec![0]);
        assert_eq!(s.w.ssthresh, 5.0);
        // Its ACK covers everything (recover = 10): cwnd 2 sends 10 and 11.
        out.clear();
        let t = SimTime::from_millis(1100);
        s.on_ack(&ack(10), t, &mut out);
        assert_eq!(out, vec![10, 11]);
        // Had the sender resent 1..9 before that ACK, their duplicate ACKs
        // would arrive now with ack = recover: RFC 6582 section 3.2 step 2
        // (the ACK must cover more than recover) keeps them from a fast
        // retransmit.
        for _ in 0..3 {
            s.on_ack(&ack(10), t, &mut out);
        }
        assert_eq!(s.stats.recoveries, 0);
        assert_eq!(s.w.ssthresh, 5.0);
        // Past recover, three duplicate ACKs are a loss again.
        s.on_ack(&ack(11), t, &mut out);
        s.pump(t, &mut out);
        for _ in 0..3 {
            s.on_ack(&ack(11), t, &mut out);
        }
        assert_eq!(s.stats.recoveries, 1);
    }

    /// A RACK-TLP sender (SACK, the RFC profile's rules with RACK on and
    /// initial window 10) of `limit` segments.
    fn rack_sender(limit: u64) -> Sender {
        let cfg = SenderConfig {
            rwnd: None,
            sack: true,
            limit,
            ecn: false,
            mss_bytes: 1500,
            rules: StackDefaults {
                initial_window: 10,
                rack: true,
                ..Stack::Rfc.defaults()
            },
        };
        Sender::new(cfg, AnyCc::NewReno(NewReno))
    }

    #[test]
    fn rack_repairs_a_lost_retransmission_without_a_timeout() {
        let ms = SimTime::from_millis;
        let mut s = rack_sender(u64::MAX);
        s.w.ssthresh = 10.0;
        let mut out = vec![];
        s.pump(SimTime::ZERO, &mut out);
        assert_eq!(out, (0..10).collect::<Vec<_>>());
        // Segment 0 is lost. Three SACKed segments: RACK's reordering window
        // is 0 and 0, sent before them, is overdue: fast recovery resends it.
        out.clear();
        s.on_ack(&sack_ack(0, &[(1, 4)]), ms(100), &mut out);
        assert!(s.in_recovery);
        assert_eq!(out, vec![0]);
        // The rest of the window is SACKed; the pipe makes room for new data.
        out.clear();
        s.on_ack(&sack_ack(0, &[(1, 10)]), ms(103), &mut out);
        assert_eq!(out, vec![10, 11, 12, 13]);
        // The retransmission of 0 (sent at 100 ms) is lost too. When 13,
        // sent at 103 ms, is SACKed at 203 ms (RACK.rtt = 100 ms), 0 is
        // overdue since 200 ms: RACK resends it at once, where DupThresh
        // recovery would wait for the retransmission timer (1 s here).
        out.clear();
        s.on_ack(&sack_ack(0, &[(1, 14)]), ms(203), &mut out);
        assert_eq!(out.first(), Some(&0));
        assert_eq!(s.stats.timeouts, 0);
        assert_eq!(s.stats.retransmits, 2);
        assert_eq!(s.stats.recoveries, 1);
        assert!(s.deadline() > ms(203));
    }

    #[test]
    fn tail_loss_probe_instead_of_a_timeout() {
        let ms = SimTime::from_millis;
        // A 5-segment transfer whose last segment is lost.
        let mut s = rack_sender(5);
        let mut out = vec![];
        s.pump(SimTime::ZERO, &mut out);
        assert_eq!(out, vec![0, 1, 2, 3, 4]);
        out.clear();
        s.on_ack(&ack(4), ms(100), &mut out);
        assert!(out.is_empty());
        // SRTT = 100 ms, one segment in flight: PTO = 2 SRTT + WCDelAckT =
        // 400 ms (RFC 8985 section 7.2), before the 1 s retransmission timer.
        assert_eq!(s.deadline(), ms(500));
        s.on_timer(ms(500), &mut out);
        // No new data: the probe resends the last segment.
        assert_eq!(out, vec![4]);
        assert_eq!(s.stats.probes, 1);
        assert_eq!(s.stats.timeouts, 0);
        // Its ACK (no D-SACK: the original was lost) completes the
        // transfer; the repaired loss still cuts the window once (section 7.4).
        out.clear();
        s.on_ack(&ack(5), ms(600), &mut out);
        assert!(s.done());
        assert_eq!(s.stats.timeouts, 0);
        assert!(s.w.ssthresh.is_finite());
    }

    /// The three rules for ssthresh when the timer fires during a SACK fast
    /// recovery: segments 0..20 sent, 0 and 10 lost, recovery at ssthresh
    /// 10; by the timeout 28 segments are outstanding (FlightSize 28), of
    /// which the pipe counts the retransmissions and new data only.
    #[test]
    fn timeout_in_recovery_ssthresh_rules() {
        let run = |rule: RtoSsthresh| {
            let mut s = sender(true);
            s.cfg.rules.rto_ssthresh = rule;
            let mut out = vec![];
            s.w.cwnd = 20.0;
            s.pump(SimTime::ZERO, &mut out);
            s.on_ack(
                &sack_ack(0, &[(1, 10), (11, 20)]),
                SimTime::from_millis(100),
                &mut out,
            );
            let (flight, pipe) = (s.flight(), s.sb.as_ref().unwrap().pipe());
            s.on_timeout(s.rto_deadline, &mut out);
            (s.w.ssthresh, flight, pipe)
        };
        let (rfc, flight, pipe) = run(RtoSsthresh::Rfc5681);
        assert_eq!(flight, 28);
        // min(10, eq. (4) of 28 = 14) = 10; Linux keeps 10; ns-3 recomputes
        // from the pipe: max(pipe / 2, 2).
        assert_eq!(rfc, 10.0);
        assert_eq!(run(RtoSsthresh::Keep).0, 10.0);
        assert_eq!(run(RtoSsthresh::Pipe).0, reno_ssthresh(pipe as f64));
        assert!(run(RtoSsthresh::Pipe).0 < 10.0);
    }

    /// A second timeout before the first one's recovery point is acked
    /// (CA_LOSS): RFC 5681 and Linux keep the first timeout's ssthresh,
    /// ns-3.37 recomputes it from the pipe (`ReTxTimeout` clears every
    /// m_retrans flag before its CA_LOSS guard reads the head's).
    #[test]
    fn a_repeated_timeout_recomputes_ssthresh_only_under_pipe() {
        let run = |rule: RtoSsthresh| {
            let mut s = sender(true);
            s.cfg.rules.rto_ssthresh = rule;
            let mut out = vec![];
            s.w.cwnd = 40.0;
            s.pump(SimTime::ZERO, &mut out);
            // 0..40 outstanding; the first timeout: ssthresh 20 by every rule.
            s.on_timeout(s.rto_deadline, &mut out);
            assert_eq!(s.w.ssthresh, 20.0);
            // The ACK of its retransmission SACKs 2..40 (1 lost again):
            // slow start to 2, the pipe holds the resent 1 only.
            s.on_ack(
                &sack_ack(1, &[(2, 40)]),
                SimTime::from_millis(1100),
                &mut out,
            );
            assert!(s.rto_recovery);
            let pipe = s.sb.as_ref().unwrap().pipe();
            s.on_timeout(s.rto_deadline, &mut out);
            (s.w.ssthresh, s.w.cwnd, pipe)
        };
        assert_eq!(run(RtoSsthresh::Rfc5681).0, 20.0);
        assert_eq!(run(RtoSsthresh::Keep).0, 20.0);
        let (ssthresh, cwnd, pipe) = run(RtoSsthresh::Pipe);
        assert_eq!(ssthresh, reno_ssthresh(pipe as f64));
        assert_eq!(ssthresh, 2.0);
        assert_eq!(cwnd, 1.0);
    }

    #[test]
    fn abc_counts_every_acknowledged_segment_up_to_ssthresh() {
        let mut s = sender(false);
        let mut out = vec![];
        s.w = Window {
            cwnd: 4.0,
            ssthresh: 7.0,
        };
        s.pump(SimTime::ZERO, &mut out);
        let t = SimTime::from_millis(100);
        // RFC 5681 eq. (2): one segment per ACK, however many it covers.
        s.on_ack(&ack(2), t, &mut out);
        assert_eq!(s.w.cwnd, 5.0);
        // Linux: every acknowledged segment, capped at ssthresh; the rest
        // goes to congestion avoidance (+1/cwnd for the one left).
        let mut s = sender(false);
        s.cfg.rules.abc = SlowStart::Capped;
        s.w = Window {
            cwnd: 4.0,
            ssthresh: 7.0,
        };
        s.pump(SimTime::ZERO, &mut out);
        s.on_ack(&ack(2), t, &mut out);
        assert_eq!(s.w.cwnd, 6.0);
        s.on_ack(&ack(4), t, &mut out);
        assert!((s.w.cwnd - (7.0 + 1.0 / 7.0)).abs() < 1e-12, "{}", s.w.cwnd);
        // ns-3.37's CUBIC: every acknowledged segment, past ssthresh, and
        // nothing to congestion avoidance on that ACK.
        let mut s = sender(false);
        s.cfg.rules.abc = SlowStart::Uncapped;
        s.w = Window {
            cwnd: 4.0,
            ssthresh: 5.0,
        };
        s.pump(SimTime::ZERO, &mut out);
        s.on_ack(&ack(4), t, &mut out);
        assert_eq!(s.w.cwnd, 8.0);
    }

    #[test]
    fn byte_counting_never_reaches_a_controller_that_owns_its_window() {
        // Linux tcp_cong_control: a controller with `cong_control` (BBR)
        // sets cwnd itself; tcp_slow_start's "cwnd = min(cwnd + acked,
        // ssthresh)" runs only from tcp_cong_avoid. The linux stack's byte
        // counting, let through, grows a lone BBR v3 flow's window behind
        // its model after Startup's losses (0.399 utilization at 0.25 BDP).
        let t = SimTime::from_millis(100);
        let mut s = bbr_sender("draft");
        assert!(s.cc.owns_window());
        s.cfg.rules.abc = SlowStart::Capped;
        s.w = Window {
            cwnd: 4.0,
            ssthresh: 7.0,
        };
        s.grow(2, t);
        assert_eq!(s.w.cwnd, 4.0);
        // A window-based controller still counts both segments.
        let mut s = sender(true);
        assert!(!s.cc.owns_window());
        s.cfg.rules.abc = SlowStart::Capped;
        s.w = Window {
            cwnd: 4.0,
            ssthresh: 7.0,
        };
        s.grow(2, t);
        assert_eq!(s.w.cwnd, 6.0);
    }

    #[test]
    fn ece_halves_once_per_window() {
        let mut s = sender(true);
        let mut out = vec![];
        s.w = Window {
            cwnd: 20.0,
            ssthresh: 10.0,
        };
        s.pump(SimTime::ZERO, &mut out);
        assert_eq!(out.len(), 20);
        let t = SimTime::from_millis(100);
        let mut a = ack(1);
        a.ece = true;
        out.clear();
        s.on_ack(&a, t, &mut out);
        // RFC 3168 section 6.1.2: ssthresh = FlightSize / 2 = 10, cwnd = ssthresh; no retransmission.
        assert_eq!(s.w.ssthresh, 10.0);
        assert_eq!(s.w.cwnd, 10.0 + 0.1); // then the ACK itself grows cwnd by 1/cwnd
        assert!(out.iter().all(|&q| q >= 20));
        assert!(s.take_cwr());
        assert!(!s.take_cwr());
        // More ECE within the same window: no second reduction.
        let mut a = ack(5);
        a.ece = true;
        s.on_ack(&a, t, &mut out);
        assert_eq!(s.stats.ecn_reductions, 1);
        assert_eq!(s.w.ssthresh, 10.0);
    }

    /// DCTCP through the sender (RFC 8257 section 3.3): the cut follows
    /// alpha, once per window of data.
    #[test]
    fn dctcp_sender_cuts_by_alpha_once_per_window_on_ece() {
        use crate::tcp::cc::CcConfig;
        use crate::tcp::cc::dctcp::DctcpConfig;
        let mut s = sender_with(true, AnyCc::new(&CcConfig::Dctcp(DctcpConfig::default())));
        s.w = Window {
            cwnd: 20.0,
            ssthresh: 10.0,
        };
        let mut out = vec![];
        s.pump(SimTime::ZERO, &mut out);
        assert_eq!(out.len(), 20);
        let t = SimTime::from_millis(1);
        let ack = |n: u64, ece: bool| Ack {
            ack: n,
            ece,
            ..Ack::default()
        };
        // ACK 1, unmarked: ends the first observation window (una 1 > 0):
        // alpha = 1 x 15/16 = 0.9375; cwnd grows to 20 + 1/20 = 20.05.
        s.on_ack(&ack(1, false), t, &mut out);
        assert_eq!(s.w.cwnd, 20.05);
        // ACK 2 with ECE: cwnd = 20.05 x (1 - 0.9375/2) = 10.6515625 (RFC
        // 3168 would halve the flight of 19 to 9.5), ssthresh the same, then
        // the ACK's own growth of 1/cwnd.
        s.on_ack(&ack(2, true), t, &mut out);
        assert_eq!(s.w.ssthresh, 10.6515625);
        assert!((s.w.cwnd - (10.6515625 + 1.0 / 10.6515625)).abs() < 1e-12);
        assert_eq!(s.stats.ecn_reductions, 1);
        // More ECE before una passes the window (SND.NXT at the cut): no
        // second cut.
        s.on_ack(&ack(3, true), t, &mut out);
        assert_eq!(s.stats.ecn_reductions, 1);
        assert_eq!(s.w.ssthresh, 10.6515625);
    }

    /// cwnd 20, segments 0..20 out, 0 lost: three duplicate ACKs SACKing
    /// 1..4 at 100 ms enter a SACK recovery. Returns the segments sent.
    fn enter_sack_recovery(s: &mut Sender) -> Vec<u64> {
        s.w.cwnd = 20.0;
        let mut out = vec![];
        s.pump(SimTime::ZERO, &mut out);
        let t = SimTime::from_millis(100);
        for k in 2..=4 {
            s.on_ack(&sack_ack(0, &[(1, k)]), t, &mut out);
        }
        assert!(s.in_recovery);
        out
    }

    /// ns-3's cut reads the pipe (`CutFrom::Pipe`): segments 0..20 out, 0
    /// lost, the third duplicate ACK SACKs 1..4. FlightSize is 20 (RFC 5681
    /// eq. (4): ssthresh 10); ns-3's BytesInFlight() counts out the 3
    /// SACKed and the head marked lost: 16, ssthresh 8.
    #[test]
    fn cut_from_pipe_at_a_sack_fast_retransmit() {
        let run = |rule: CutFrom| {
            let mut s = sender(true);
            s.cfg.rules.cut_from = rule;
            enter_sack_recovery(&mut s);
            s.w.ssthresh
        };
        assert_eq!(run(CutFrom::FlightSize), 10.0);
        assert_eq!(run(CutFrom::Pipe), 8.0);
    }

    /// ns-3 leaves a recovery at ssthresh, then grows the window for every
    /// segment the exit ACK covers (`RecoveryExit::Ns3`; NewReno's
    /// congestion avoidance counts the ACK once: 1/cwnd, as ns-3's
    /// TcpNewReno adds MSS^2/cwnd once per call); RFC 6675 stops at
    /// ssthresh. Segments 0..20 out, 0 lost, 1..4 SACKed: ssthresh 10.
    #[test]
    fn recovery_exit_grows_from_ssthresh_as_ns3_does() {
        let run = |rule: RecoveryExit| {
            let mut s = sender(true);
            s.cfg.rules.recovery_exit = rule;
            let mut out = enter_sack_recovery(&mut s);
            assert_eq!(s.w.ssthresh, 10.0);
            s.on_ack(&ack(20), SimTime::from_millis(140), &mut out);
            assert!(!s.in_recovery);
            s.w.cwnd
        };
        assert_eq!(run(RecoveryExit::Rfc), 10.0);
        assert!((run(RecoveryExit::Ns3) - 10.1).abs() < 1e-12);
    }

    /// After a timeout ns-3 counts, on the ACK that reaches the recovery
    /// point, only the segments past it: cwnd 10, 0..10 out, a timeout
    /// (cwnd 1, recovery point 10), then one ACK of all ten. RFC 5681's
    /// slow start counts the ACK (cwnd 2); ns-3 counts 10 - 10 = 0.
    #[test]
    fn timeout_exit_counts_only_past_the_recovery_point_as_ns3_does() {
        let run = |rule: RecoveryExit| {
            let mut s = sender(false);
            s.cfg.rules.recovery_exit = rule;
            s.w.cwnd = 10.0;
            let mut out = vec![];
            s.pump(SimTime::ZERO, &mut out);
            s.on_timeout(SimTime::from_millis(300), &mut out);
            assert_eq!(s.w.cwnd, 1.0);
            s.on_ack(&ack(10), SimTime::from_millis(340), &mut out);
            s.w.cwnd
        };
        assert_eq!(run(RecoveryExit::Rfc), 2.0);
        assert_eq!(run(RecoveryExit::Ns3), 1.0);
    }

    /// Without SACK ns-3 counts each duplicate ACK as a SACK (AddRenoSack,
    /// one per duplicate ACK with Limited Transmit) and the head as lost,
    /// then adds the head back: cwnd 10, segments 0..10 out, 0 lost; two
    /// Limited Transmit segments make FlightSize 12 at the third duplicate
    /// ACK, and ns-3 cuts from 12 - 3 = 9 (ssthresh 4.5) where RFC 5681
    /// cuts from 12 (6); ns-2 from cwnd, 10 (5), the two left out as RFC
    /// 5681 section 3.2 step 2 asks.
    #[test]
    fn cut_from_pipe_without_sack_counts_the_duplicate_acks() {
        let run = |rule: CutFrom| {
            let mut s = sender(false);
            s.cfg.rules.cut_from = rule;
            s.cfg.rules.limited_transmit = true;
            s.w.cwnd = 10.0;
            let mut out = vec![];
            s.pump(SimTime::ZERO, &mut out);
            let t = SimTime::from_millis(100);
            for _ in 0..3 {
                s.on_ack(&ack(0), t, &mut out);
            }
            assert!(s.in_recovery);
            assert_eq!(s.flight(), 12);
            s.w.ssthresh
        };
        assert_eq!(run(CutFrom::FlightSize), 6.0);
        assert_eq!(run(CutFrom::Pipe), 4.5);
        assert_eq!(run(CutFrom::Cwnd), 5.0);
    }

    #[test]
    fn ns3_recovery_without_sack_is_prr_over_the_guessed_pipe() {
        // Ten segments out, the first lost; each later segment's duplicate
        // ACK arrives. `ns3` runs ns-3.37's TcpPrrRecovery over the pipe
        // AddRenoSack guesses; `false` RFC 6582's window inflation.
        let run = |ns3: bool| {
            let mut s = sender(false);
            s.cfg.rules.limited_transmit = true;
            s.cfg.rules.cut_from = CutFrom::Pipe;
            s.cfg.rules.prr = ns3;
            s.cfg.rules.prr_variant = PrrVariant::Ns3;
            s.w.cwnd = 10.0;
            let mut out = vec![];
            s.pump(SimTime::ZERO, &mut out);
            out.clear();
            let t = SimTime::from_millis(100);
            let mut sent = vec![];
            for _ in 0..8 {
                s.on_ack(&ack(0), t, &mut out);
                sent.push(out.len());
                out.clear();
            }
            assert!(s.in_recovery);
            (s, sent)
        };
        // Two new segments under Limited Transmit, the retransmission at the
        // third duplicate ACK; ssthresh = (12 - 3) / 2 from the guessed pipe.
        let (mut s, sent) = run(true);
        assert_eq!(s.w.ssthresh, 4.5);
        // Then each duplicate ACK delivers nothing (PRR sends 0) but finds
        // the pipe one lower than PRR read it: one new segment each, and the
        // pipe stays at 9 segments, above ssthresh.
        assert_eq!(sent, [1, 1, 1, 1, 1, 1, 1, 1]);
        assert_eq!(s.ns3_pipe(), 9);
        // A partial ACK of 3: its whole advance is delivered (3 * 4.5 / 12
        // -> 2 of PRR's quota, 6 sent already): the new head alone goes.
        let mut out = vec![];
        s.on_ack(&ack(3), SimTime::from_millis(150), &mut out);
        assert_eq!(out, [3]);
        // RFC 6582: cwnd = 4.5 + 3, plus one per later duplicate ACK, stays
        // below the flight of 12 plus one through the eighth.
        let (_, sent) = run(false);
        assert_eq!(sent, [1, 1, 1, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn timeout_in_recovery_without_sack_cuts_from_ns3s_pipe() {
        // ns-3 counts each duplicate ACK as a SACK without SACK; a timeout in
        // the recovery cuts from FlightSize less those (`RtoSsthresh::Pipe`).
        let mut s = sender(false);
        s.cfg.rules.rto_ssthresh = RtoSsthresh::Pipe;
        s.cfg.rules.limited_transmit = true;
        s.w.cwnd = 10.0;
        let mut out = vec![];
        s.pump(SimTime::ZERO, &mut out);
        let t = SimTime::from_millis(100);
        for _ in 0..8 {
            s.on_ack(&ack(0), t, &mut out);
        }
        assert!(s.in_recovery);
        // Two under Limited Transmit, one at the recovery, five in it.
        assert_eq!(s.reno_sacked, 8);
        // A partial ACK of 3 segments: 1 and 2 leave the SACKed run.
        s.on_ack(&ack(3), t, &mut out);
        assert_eq!(s.reno_sacked, 6);
        let flight = s.flight();
        s.on_timeout(s.rto_deadline, &mut out);
        assert_eq!(s.w.ssthresh, reno_ssthresh((flight - 6) as f64));
        assert_eq!(s.reno_sacked, 0);
    }

    /// `EcnReduction::Prr` (Linux, ns-3): an ECE sets ssthresh but the
    /// window comes down by PRR, about ssthresh / RecoverFS segments per
    /// delivered one, with no growth, and is ssthresh once the data
    /// outstanding at the ECE is acknowledged. RFC 3168 (`Immediate`) sets
    /// cwnd = ssthresh at once and sends nothing until the flight falls
    /// below it.
    #[test]
    fn ecn_reduction_by_prr_spreads_the_cut_over_the_round_trip() {
        let run = |rule: EcnReduction| {
            let mut s = sender(false);
            s.cfg.rules.ecn_reduction = rule;
            s.w = Window {
                cwnd: 20.0,
                ssthresh: 100.0,
            };
            let mut out = vec![];
            s.pump(SimTime::ZERO, &mut out);
            let t = SimTime::from_millis(1);
            // One ACK per segment, the first with ECE: count what each sends.
            let mut sent = vec![];
            for n in 1..=20 {
                out.clear();
                let a = Ack {
                    ack: n,
                    ece: n == 1,
                    ..Ack::default()
                };
                s.on_ack(&a, t, &mut out);
                sent.push(out.len());
            }
            (s.w.ssthresh, s.w.cwnd, sent, s.in_cwr())
        };
        let (ss, cwnd, sent, in_cwr) = run(EcnReduction::Immediate);
        // FlightSize 20 at the ECE: ssthresh 10. Nothing goes out until the
        // flight (19 after the ECE's ACK) falls below cwnd 10 (+ growth).
        assert_eq!(ss, 10.0);
        assert_eq!(&sent[..9], &[0; 9]);
        assert!(cwnd > 10.0 && !in_cwr);
        let (ss, cwnd, sent, in_cwr) = run(EcnReduction::Prr);
        assert_eq!(ss, 10.0);
        // RFC 9937's first send on the ECE's ACK, then CEIL(k x 10 / 20) -
        // prr_out: one segment on every second ACK while pipe > ssthresh.
        assert_eq!(&sent[..6], &[1, 0, 1, 0, 1, 0]);
        // Over the round trip PRR sends ssthresh = 10 segments, and the ACK
        // of the last segment outstanding at the ECE (cwr_point) ends CWR
        // with cwnd = ssthresh: no growth meanwhile.
        assert_eq!(sent.iter().sum::<usize>(), 10);
        assert_eq!(cwnd, 10.0);
        assert!(!in_cwr);
    }
}
