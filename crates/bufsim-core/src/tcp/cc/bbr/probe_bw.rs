//! BBR v1's ProbeBW: the eight-phase gain cycle (section 4.3.4). BBRv3's
//! ProbeBW phases are in [`super::v3`].

use super::*;

impl Bbr {
    pub(super) fn enter_probe_bw(&mut self, now: SimTime) {
        //= section 4.3.4.2: "BBR.cycle_index = BBRGainCycleLen - 1 -
        //= random_int_between(0, BBRGainCycleRand)" with BBRGainCycleRand = 7:
        //= a random phase other than the 3/4 one. ns-3.37
        //= TcpBbr::EnterProbeBW draws "(int)m_uv->GetValue(0, 6)", an
        //= integer in 0..=5, so it never starts in the 1x phase after the
        //= 3/4 one either (the 5/4 one is 1 in 6, not 1 in 7).
        self.mode = Mode::ProbeBw;
        self.pacing_gain = 1.0;
        self.cwnd_gain = self.cfg.cwnd_gain;
        let draws = if self.cfg.mirror.ns3() { 6 } else { 7 };
        let r = (self.random() % draws) as usize;
        self.cycle_index = PACING_GAIN_CYCLE.len() - 1 - r;
        self.advance_cycle_phase(now);
    }

    pub(super) fn advance_cycle_phase(&mut self, now: SimTime) {
        self.cycle_stamp = now;
        self.cycle_index = (self.cycle_index + 1) % PACING_GAIN_CYCLE.len();
        self.pacing_gain = PACING_GAIN_CYCLE[self.cycle_index];
    }

    //= section 4.3.4.3 BBRIsNextCyclePhase: "is_full_length = (Now() -
    //= BBR.cycle_stamp) > BBR.RTprop"; gain > 1: full length and (losses or
    //= prior_inflight >= BBRInflight(pacing_gain)); gain < 1: full length or
    //= prior_inflight <= BBRInflight(1).
    pub(super) fn is_next_cycle_phase(
        &self,
        now: SimTime,
        prior_inflight: f64,
        losses: u64,
    ) -> bool {
        let full = now.saturating_sub(self.cycle_stamp) > self.rtprop;
        if self.pacing_gain > 1.0 {
            full && (losses > 0 || prior_inflight >= self.inflight(self.pacing_gain))
        } else if self.pacing_gain < 1.0 {
            full || prior_inflight <= self.inflight(1.0)
        } else {
            full
        }
    }
}
