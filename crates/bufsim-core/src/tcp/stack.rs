//! Stack profiles: named bundles of sender and receiver defaults that make a
//! flow group behave like the RFCs, like Linux, or like ns-3
//! (`flows[].stack`). Each field of a profile can still be set on its own in
//! the scenario; a profile only fills what the scenario leaves unset.
//!
//! The RFCs, Linux and ns-3 differ in details that move buffer-sizing
//! results: the initial window, the minimum RTO, delayed ACKs, how the
//! window is cut during a recovery (PRR) and whether slow start exits
//! before it overshoots (HyStart). The table lives here once; the README
//! prints it.

use serde::Serialize;

use crate::units::SimTime;

/// A named bundle of defaults.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Stack {
    /// The RFCs as bufsim's reproductions of the papers use them (the default,
    /// so published reproductions keep their numbers).
    #[default]
    Rfc,
    /// Linux (what an engineer sizing a real port should pick).
    Linux,
    /// ns-3's TCP models.
    Ns3,
}

/// The defaults a profile sets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StackDefaults {
    /// Initial window, segments.
    pub initial_window: u32,
    /// Minimum retransmission timeout.
    pub min_rto: SimTime,
    /// Delayed ACKs (ACK every second segment, RFC 5681 section 4.2).
    pub delayed_ack: bool,
    /// Proportional Rate Reduction during SACK fast recovery.
    pub prr: bool,
    /// RACK-TLP loss detection (with SACK) instead of DupThresh.
    pub rack: bool,
    /// HyStart++ (RFC 9406) in slow start.
    pub hystart: bool,
}

impl Stack {
    /// Every profile, in the order the README lists them.
    pub const ALL: [Stack; 3] = [Stack::Rfc, Stack::Linux, Stack::Ns3];

    /// The profile's name in scenarios.
    pub fn name(self) -> &'static str {
        match self {
            Stack::Rfc => "rfc",
            Stack::Linux => "linux",
            Stack::Ns3 => "ns3",
        }
    }

    /// The profile called `name`, if any.
    pub fn parse(name: &str) -> Option<Stack> {
        Stack::ALL.into_iter().find(|s| s.name() == name)
    }

    /// The profile's defaults.
    pub fn defaults(self) -> StackDefaults {
        match self {
            Stack::Rfc => StackDefaults {
                //= RFC 5681 section 3.1: IW may be up to 4 segments (RFC 3390),
                //= 1 being the classic value the papers' ns-2 runs used.
                initial_window: 1,
                //= RFC 6298 section 2 (2.4): "RTO ... should be rounded up to
                //= 1 second".
                min_rto: SimTime::from_millis(1000),
                // The papers' ns-2 runs ACK every segment.
                delayed_ack: false,
                prr: false,
                rack: false,
                hystart: false,
            },
            Stack::Linux => StackDefaults {
                //= include/net/tcp.h TCP_INIT_CWND = 10 (RFC 6928).
                initial_window: 10,
                //= include/net/tcp.h TCP_RTO_MIN = HZ / 5 (200 ms).
                min_rto: SimTime::from_millis(200),
                //= net/ipv4/tcp_input.c __tcp_ack_snd_check: an ACK for every
                //= second full-sized segment, otherwise delayed.
                delayed_ack: true,
                //= net/ipv4/tcp_input.c tcp_cwnd_reduction: PRR is always on.
                prr: true,
                //= net/ipv4/tcp_recovery.c: RACK-TLP on by default
                //= (net.ipv4.tcp_recovery = 1).
                rack: true,
                // Linux's CUBIC exits slow start with its own HyStart (delay
                // and ACK-train detection); HyStart++ is the standardized
                // delay-based form of it.
                hystart: true,
            },
            Stack::Ns3 => StackDefaults {
                //= ns-3 TcpSocket attribute InitialCwnd (default 10).
                initial_window: 10,
                //= ns-3 TcpSocketBase attribute MinRto (default 1 s).
                min_rto: SimTime::from_millis(1000),
                //= ns-3 TcpSocket attribute DelAckCount (default 2).
                delayed_ack: true,
                //= ns-3 TcpL4Protocol attribute RecoveryType (default
                //= TcpPrrRecovery).
                prr: true,
                // ns-3 has no RACK: DupThresh (TcpSocketBase, ReTxThreshold 3).
                rack: false,
                hystart: false,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for s in Stack::ALL {
            assert_eq!(Stack::parse(s.name()), Some(s));
        }
        assert_eq!(Stack::parse("bsd"), None);
    }
}
