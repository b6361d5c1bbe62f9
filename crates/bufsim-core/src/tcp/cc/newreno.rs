//! Reno/NewReno window rules, RFC 5681 section 3.1 (the NewReno recovery
//! itself, RFC 6582, lives in the sender because it is loss recovery, not
//! window policy).

use super::aimd::{Aimd, AimdConfig, AimdFluid};
use super::{AckInfo, CongestionControl, Epoch, Variant, Window, reno_ssthresh, slow_start};
use crate::params::{NoParams, PErr, Params};
use crate::units::SimTime;

/// Standard TCP congestion control (AIMD(1, 1/2) with slow start).
#[derive(Clone, Copy, Debug, Default)]
pub struct NewReno;

impl Variant for NewReno {
    const NAMES: &'static [&'static str] = &["newreno", "reno"];
    type Config = NoParams;
    //= RFC 5681 section 3.1: standard TCP is AIMD(1, 1/2), whose fluid law
    //= paper 004 eq. (1) writes dW/dt = 1/R between losses, W <- W/2 at one.
    type Fluid = AimdFluid;
    fn read(_p: &mut Params) -> Result<NoParams, PErr> {
        Ok(NoParams)
    }
    fn new(_cfg: NoParams) -> NewReno {
        NewReno
    }
    fn fluid(_cfg: NoParams) -> Result<AimdFluid, &'static str> {
        Ok(AimdFluid(AimdConfig::default()))
    }
    fn epoch(_cfg: &NoParams, window_pkts: f64, rtt_s: f64) -> Epoch {
        Aimd::epoch(&AimdConfig::default(), window_pkts, rtt_s)
    }
}

impl CongestionControl for NewReno {
    fn on_ack(&mut self, w: &mut Window, ack: &AckInfo) {
        if slow_start(w, ack.acked) {
            return;
        }
        //= RFC 5681 section 3.1 eq. (3): "cwnd += SMSS*SMSS/cwnd" per ACK.
        //= With byte counting, RFC 3465 section 2.1: cwnd grows by SMSS once
        //= a window of data is acknowledged, per segment acked/cwnd (Linux
        //= tcp_cong_avoid_ai(tp, cwnd, acked); ns-3.37
        //= TcpLinuxReno::CongestionAvoidance, which DCTCP derives).
        let n = if ack.abc { ack.acked as f64 } else { 1.0 };
        w.cwnd += n / w.cwnd;
    }

    fn on_congestion_event(&mut self, _w: &Window, flight: f64, _now: SimTime) -> f64 {
        reno_ssthresh(flight)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(n: u64) -> AckInfo {
        AckInfo::bare(n, SimTime::ZERO)
    }

    #[test]
    fn slow_start_then_avoidance() {
        let mut cc = NewReno;
        let mut w = Window {
            cwnd: 1.0,
            ssthresh: 4.0,
        };
        cc.on_ack(&mut w, &ack(2)); // slow start: at most one SMSS per ACK
        assert_eq!(w.cwnd, 2.0);
        w.cwnd = 10.0;
        cc.on_ack(&mut w, &ack(1)); // avoidance: +1/cwnd
        assert!((w.cwnd - 10.1).abs() < 1e-12);
        assert_eq!(cc.on_congestion_event(&w, 10.0, SimTime::ZERO), 5.0);
        assert_eq!(cc.on_congestion_event(&w, 3.0, SimTime::ZERO), 2.0);
    }
}
