//! Startup's full-pipe estimate and the entry to Drain (section 4.3.2).

use super::*;

impl Bbr {
    //= section 4.3.2.2 BBRCheckFullPipe: "if BBR.filled_pipe or not
    //= BBR.round_start or rs.is_app_limited: return"; growth of 25% resets
    //= the count; "if (BBR.full_bw_count >= 3) BBR.filled_pipe = true".
    pub(super) fn check_full_pipe(&mut self, s: &AckSample) {
        if self.filled_pipe || !self.round_start || s.rs.is_app_limited {
            return;
        }
        if self.max_bw() >= self.full_bw * FULL_BW_THRESH {
            self.full_bw = self.max_bw();
            self.full_bw_count = 0;
            return;
        }
        self.full_bw_count += 1;
        if self.full_bw_count >= FULL_BW_COUNT {
            self.filled_pipe = true;
        }
    }

    pub(super) fn enter_drain(&mut self) {
        //= section 4.3.3: "BBR.pacing_gain = 1/BBRHighGain; BBR.cwnd_gain =
        //= BBRHighGain".
        self.mode = Mode::Drain;
        self.pacing_gain = 1.0 / self.cfg.high_gain;
        self.cwnd_gain = self.cfg.high_gain;
    }
}
