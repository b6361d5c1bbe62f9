"""The OTcl writer of the ns2 engine: a checked, normalized scenario as one
ns-2.35 script (:func:`script`), which prints its measurements as
``BUFSIM`` lines on standard output for :func:`bufsim.ns2.parse`.

File and line names in the comments are ns-2.35's source (the copy at
github.com/hbatmit/ns2.35, the release Debian packages as ``ns2``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

#: IP and TCP headers ns-2's one-way TCP adds to ``packetSize_`` on every
#: data packet (``Agent/TCP set tcpip_base_hdr_size_ 40``, ns-default.tcl;
#: TcpAgent::output adds headersize() when useHeaders_ is true, tcp.cc).
HEADERS = 40
#: The timestamp option TCP-Linux runs with (``ts_option_size_ 10``,
#: ns-default.tcl; headersize() adds it when ts_option_ is on, tcp.cc).
TS_OPTION = 10
#: ``window_`` for an unlimited receiver window, packets.
UNLIMITED_WINDOW = 1_000_000
#: The queue limit of every link but the bottleneck: it never fills.
BIG_QUEUE = 1_000_000


def fast_rate_bps(norm: Mapping[str, Any]) -> float:
    """The rate of the links the script adds (access, receivers, the
    bottleneck's return), bit/s: the ns3 engine's rule,
    :func:`bufsim.ns3.fast_rate_bps`, so both simulators build one topology."""
    from bufsim.ns3 import fast_rate_bps as ns3_rule

    return ns3_rule(norm)


def _num(x: float) -> str:
    """A number as OTcl reads it: integers bare, else 12 significant digits."""
    if float(x).is_integer() and abs(x) < 1e15:
        return str(int(x))
    return f"{x:.12g}"


def queue_lines(link: Mapping[str, Any]) -> list[str]:
    """The bottleneck queue's class settings and limit (before the links are
    built: Queue/RED reads its thresholds at reset, red.cc).

    Buffer accounting: bufsim counts the packets waiting, not the one being
    sent. ns-2's link dequeues the packet it sends (Queue::recv, queue.cc),
    so ``pkts_`` of the queue monitor is bufsim's count, but the two queues
    test their limit differently:

    - DropTail drops an arrival when ``length + 1 >= limit_`` (DropTail::enque,
      drop-tail.cc): it holds limit_ - 1 waiting, so ``limit_ = buffer + 1``.
      In bytes it drops when ``bytes + size >= limit_ * mean_pktsize_``: with
      ``mean_pktsize_ 1``, ``limit_ = buffer_bytes + 1`` holds buffer_bytes.
    - RED drops an arrival when ``qlen >= qlim`` before it is queued
      (REDQueue::enque, red.cc), so ``limit_ = buffer``.
    """
    q = link["qdisc"]
    if q == "droptail":
        if link["buffer_mode"] == "bytes":
            return [
                "Queue/DropTail set queue_in_bytes_ true",
                "Queue/DropTail set mean_pktsize_ 1",
                f"set LIMIT {link['buffer_bytes'] + 1}",
            ]
        return ["Queue/DropTail set queue_in_bytes_ false", f"set LIMIT {link['buffer_pkts'] + 1}"]
    if q == "fq":
        return fq_queue_lines(link)
    p = link["qdisc_params"]
    in_bytes = "true" if p["mode"] == "bytes" else "false"
    return [
        # min_th, max_th in packets (thresh_, maxthresh_: red.cc binds them
        # as th_min_pkts, th_max_pkts and scales them by mean_pktsize_ in
        # byte mode); max_p = 1 / linterm_ (red.cc: cur_max_p = 1/max_p_inv).
        f"Queue/RED set thresh_ {_num(p['min_th'])}",
        f"Queue/RED set maxthresh_ {_num(p['max_th'])}",
        f"Queue/RED set linterm_ {_num(1.0 / p['max_p'])}",
        f"Queue/RED set q_weight_ {_num(p['w_q'])}",
        f"Queue/RED set gentle_ {'true' if p['gentle'] else 'false'}",
        # Byte mode: the average in bytes and the drop probability scaled by
        # size / mean_pktsize_ (red.cc: bytes_, queue_in_bytes_), as bufsim's
        # mode = "bytes" scales by size / link.packet_size.
        f"Queue/RED set bytes_ {in_bytes}",
        f"Queue/RED set queue_in_bytes_ {in_bytes}",
        f"Queue/RED set mean_pktsize_ {link['packet_size_bytes']}",
        # ECN: mark ECT packets instead of an early drop (setbit_); with
        # use_mark_p_ false the drops above max_th (2 max_th gentle) stay
        # forced drops, as bufsim's RED drops them (red.cc, REDQueue::enque
        # and drop_early).
        f"Queue/RED set setbit_ {'true' if p['ecn'] else 'false'}",
        "Queue/RED set use_mark_p_ false",
        # Drops spaced 1/p_b to 2/p_b arrivals apart (red.cc modify_p) or 1
        # to 1/p_b (Floyd and Jacobson 1993), as the packet engine's wait.
        f"Queue/RED set wait_ {'true' if p['wait'] else 'false'}",
        *ared_lines(p),
        f"set LIMIT {link['buffer_pkts']}",
    ]


def ared_lines(p: Mapping[str, Any]) -> list[str]:
    """Adaptive RED's lines of a RED queue (``qdisc_params`` ``p``): off, or
    on with Floyd, Gummadi and Shenker's (2001) Fig. 2 constants, which
    ns-2's ``REDQueue::updateMaxP`` (red.cc) reads from these variables:
    at the first arrival ``interval_`` s after its last change max_p rises
    by min(``alpha_``, max_p/4) while it is below ``top_`` and the average
    is above the target band, and falls by the factor ``beta_`` while it is
    above ``bottom_`` and the average below it. ns-default.tcl gives alpha
    0.01, beta 0.9 and interval 0.5; top and bottom are written as the
    paper's 0.5 and 0.01 (ns-2's automatic bottom is min(0.01, 80000 /
    bandwidth), 8e-5 at 1 Gbps), as the packet engine's variant "ns3"
    adapts (crates/bufsim-core/src/queue/red.rs ``adapt_step``)."""
    if not p["adaptive"]:
        return ["Queue/RED set adaptive_ 0"]
    return [
        "Queue/RED set adaptive_ 1",
        f"Queue/RED set interval_ {_num(p['interval_s'])}",
        "Queue/RED set alpha_ 0.01",
        "Queue/RED set beta_ 0.9",
        "Queue/RED set top_ 0.5",
        "Queue/RED set bottom_ 0.01",
    ]


def fq_buckets(norm: Mapping[str, Any]) -> int:
    """DRR's ``buckets_`` for ``fq``: a power of two at least four times the
    queues the script gives addresses (each TCP sender, each background
    queue), at least 64, so that :data:`FQ_PROCS` finds free buckets fast."""
    n = sum(len(g["rtts_s"]) for g in norm["flows"])
    if norm.get("background"):
        n += norm["link"]["qdisc_params"]["background_flows"]
    return max(64, 1 << math.ceil(math.log2(4 * n)))


def fq_queue_lines(link: Mapping[str, Any]) -> list[str]:
    """bufsim's ``fq`` as ns-2's DRR (Shreedhar and Varghese's deficit round
    robin with a shared buffer and drop from the longest queue, Queue/DRR,
    drr.cc), the queue paper 000 ran for its section V.B:

    - the buffer: DRR drops while its bytes exceed ``blimit_``
      (DRR::enque), after queueing the arrival, as the packet engine drops
      when the arrival does not fit; ``blimit_`` is the buffer in bytes (in
      packets: packets of the link's size, :func:`bufsim.ns2.check`);
      ``limit_`` is not read.
    - the quantum: ``quantum_`` bytes added at each turn of a queue
      (DRR::deque), a new queue starting from 0 (the packet engine credits
      the first quantum when the queue turns active: the same turn);
    - the queues: DRR hashes the source address (``mask_ 0``: the node,
      DRR::hash) into ``buckets_``; the script gives every sender and every
      background queue an address of a bucket of its own (:data:`FQ_PROCS`).
    """
    limit = (
        link["buffer_bytes"]
        if link["buffer_mode"] == "bytes"
        else (link["buffer_pkts"] * link["packet_size_bytes"])
    )
    return [
        f"Queue/DRR set blimit_ {limit}",
        f"Queue/DRR set quantum_ {link['qdisc_params']['quantum_bytes']}",
        "Queue/DRR set mask_ 0",
        "Queue/DRR set buckets_ $BUCKETS",
        f"set LIMIT {link['buffer_pkts']}",
    ]


def drr_hash(addr: int) -> int:
    """ns-2's DRR::hash (drr.cc) of a source address above 0, before the
    modulo ``buckets_``: ``((i + (i >> 8) + ~(i >> 4)) % (2^24 - 1)) + 1``,
    which ``drr_bucket`` in :data:`FQ_PROCS` computes in the script."""
    return ((addr + (addr >> 8) + ~(addr >> 4)) % 16777215) + 1


#: The procs that give each of fq's queues a DRR bucket of its own:
#: ``drr_bucket`` is DRR::hash (drr.cc) modulo ``buckets_`` (C's int
#: arithmetic: addresses above 0 keep the sum positive); ``fq_node`` makes
#: nodes until one's address falls in a free bucket (the ones skipped stay
#: unconnected; ids 15 and 16 hash alike, for one); ``fq_addr`` gives
#: background queue ``j`` an address of its own past every node's, which
#: only DRR reads (a UDP source's packets route on their destination).
FQ_PROCS = [
    "proc drr_bucket {a} {",
    "    global BUCKETS",
    "    return [expr {((($a + ($a >> 8) + ~($a >> 4)) % 16777215) + 1) % $BUCKETS}]",
    "}",
    "proc fq_node {} {",
    "    global ns drr_used",
    "    while 1 {",
    "        set n [$ns node]",
    "        set b [drr_bucket [$n id]]",
    "        if {![info exists drr_used($b)]} {set drr_used($b) 1; return $n}",
    "    }",
    "}",
    "proc fq_addr {j} {",
    "    global drr_used drr_bg drr_next",
    "    if {[info exists drr_bg($j)]} {return $drr_bg($j)}",
    "    if {![info exists drr_next]} {set drr_next 1000000}",
    "    while {[info exists drr_used([drr_bucket $drr_next])]} {incr drr_next}",
    "    set drr_used([drr_bucket $drr_next]) 1",
    "    set drr_bg($j) $drr_next",
    "    incr drr_next",
    "    return $drr_bg($j)",
    "}",
]


def _agent_lines(
    i: int,
    g: Mapping[str, Any],
    rtt: float,
    start: float,
    gi: int,
    size: int | None,
    ack_size: int | None = None,
    scheduled: bool = True,
) -> list[str]:
    """One flow's sender, sink and FTP source, OTcl lines: a transfer of
    ``size`` packets (None: long-lived); ``ack_size`` (bytes) the ACKs'
    size on the wire with two-way traffic, where they queue at the reverse
    link (None: ns-2's 40 B, ``Agent/TCPSink set packetSize_ 40``,
    ns-default.tcl). ``scheduled`` False: no start (an agent of a pool,
    :func:`dynamic_lines`, whose transfers ``tx`` starts)."""
    variant = g["cc"]["variant"]
    linux = variant in LINUX
    header = HEADERS + (TS_OPTION if linux else 0)
    if linux:
        cls = "Agent/TCP/Linux"
    else:
        cls = "Agent/TCP/Sack1" if g["sack"] else "Agent/TCP/Newreno"
    sink = "Agent/TCPSink/Sack1" if (g["sack"] or linux) else "Agent/TCPSink"
    if g["delayed_ack"]:
        sink += "/DelAck"
    window = g["rwnd_pkts"] if g["rwnd_pkts"] is not None else UNLIMITED_WINDOW
    lines = [
        f"# flow {i}: group {gi}, rtt {_num(rtt)} s, start {_num(start)} s",
        f"set tcp({i}) [new {cls}]",
        # bufsim's mss is the packet on the wire; ns-2 adds the headers.
        f"$tcp({i}) set packetSize_ {g['mss_bytes'] - header}",
        f"$tcp({i}) set window_ {window}",
        f"$tcp({i}) set windowInit_ {g['initial_window_pkts']}",
        f"$tcp({i}) set minrto_ {_num(g['min_rto_s'])}",
    ]
    if "initial_rto_s" in g:
        # initial_rto: ns-2.35's RTO before any sample, the SYN's and the
        # data's (tcp.cc TcpAgent::rtt_init: "t_rtxcur_ = rtxcur_init_",
        # read when the agent is reset as the run starts; ns-default.tcl 3 s).
        lines.append(f"$tcp({i}) set rtxcur_init_ {_num(g['initial_rto_s'])}")
    lines += [
        # connection_setup: the SYN is packet 0 (TcpAgent::output), and
        # delay_growth_ sends it alone, the initial window once it is
        # acknowledged (set_initial_window, tcp.cc). Without a SYN,
        # delay_growth_ would reset cwnd to the initial window at the
        # first ACK (TcpAgent::recv: last_ack_ == 0), a round trip lost.
        f"$tcp({i}) set syn_ {'true' if g['connection_setup'] else 'false'}",
        f"$tcp({i}) set delay_growth_ {'true' if g['connection_setup'] else 'false'}",
        f"$tcp({i}) set ecn_ {1 if g['ecn'] else 0}",
        f"$tcp({i}) set fid_ {i}",
    ]
    if variant == "highspeed":
        cc = g["cc"]
        # HighSpeed TCP as ns-2 runs it (tcp.cc: wnd_option_ == 8, the
        # increase and decrease by RFC 3649's formulas between low_window_
        # and high_window_).
        lines += [
            f"$tcp({i}) set windowOption_ 8",
            f"$tcp({i}) set low_window_ {_num(cc['low_window'])}",
            f"$tcp({i}) set high_window_ {_num(cc['high_window'])}",
            f"$tcp({i}) set high_p_ {_num(cc['high_p'])}",
            f"$tcp({i}) set high_decrease_ {_num(cc['high_decrease'])}",
        ]
    if linux:
        # TCP-Linux as its documentation runs it: timestamps on, a SACK sink
        # echoing them (tcp-linux.cc; ns-default.tcl's Agent/TCP/Linux).
        lines.append(f"$tcp({i}) set timestamps_ true")
    lines += [
        f"$ns attach-agent $s({i}) $tcp({i})",
        f"set sink({i}) [new {sink}]",
    ]
    if linux:
        lines.append(f"$sink({i}) set ts_echo_rfc1323_ true")
    if ack_size is not None:
        # The ACK is the sink's packetSize_ bytes on the wire (allocpkt()'s
        # size, TcpSink::ack, tcp-sink.cc), 8 more per SACK block a Sack1
        # sink adds (Sacker::append_ack: ch->size() += sack_index * 8),
        # where the packet engine's ACKs stay ack_size.
        lines.append(f"$sink({i}) set packetSize_ {ack_size}")
    if g["delayed_ack"]:
        lines.append(f"$sink({i}) set interval_ {_num(g['delack_timeout_s'])}")
    lines += [
        f"$ns attach-agent $d({i}) $sink({i})",
        f"$ns connect $tcp({i}) $sink({i})",
    ]
    if linux and scheduled:
        lines.append(f"$ns at 0 {{$tcp({i}) select_ca {LINUX[variant]}}}")
    lines += [
        f"set ftp({i}) [new Application/FTP]",
        f"$ftp({i}) attach-agent $tcp({i})",
    ]
    if not scheduled:
        return lines
    if size is None:
        lines.append(f"$ns at {_num(start)} {{$ftp({i}) start}}")
    else:
        # A finite transfer: `send` queues whole packets of packetSize_
        # (TcpAgent::sendmsg, tcp.cc), and the agent calls its `done` once
        # the last one is acknowledged (TcpAgent::finish, tcp.cc).
        lines += [
            f"$tcp({i}) proc done {{}} {{fin {i}}}",
            f"$ns at {_num(start)} {{$ftp({i}) send {size * (g['mss_bytes'] - header)}}}",
        ]
    return lines


def transfer_pkts(g: Mapping[str, Any]) -> int | None:
    """A finite group's fixed transfer size in packets (rounded up as the
    packet engine sends it), None for a persistent group or drawn sizes."""
    if g["kind"] != "finite" or "fixed" not in g["size"]:
        return None
    return math.ceil(round(g["size"]["fixed"]["pkts"], 9))


_M64 = (1 << 64) - 1
_M128 = (1 << 128) - 1
#: Pcg64Mcg's multiplier (rand_pcg 0.10, pcg128.rs).
_PCG_MULTIPLIER = 0x2360_ED05_1FC6_5DA4_4385_DF64_9FCC_F645
#: The core's stream kind of the traffic generators (``Stream::Traffic``,
#: ``engine/rng.rs``).
_TRAFFIC_STREAM = 6


def _mix(z: int) -> int:
    """SplitMix64's finalizer (``engine/rng.rs``, ``mix``)."""
    z = (z + 0x9E37_79B9_7F4A_7C15) & _M64
    z = ((z ^ (z >> 30)) * 0xBF58_476D_1CE4_E5B9) & _M64
    z = ((z ^ (z >> 27)) * 0x94D0_49BB_1331_11EB) & _M64
    return z ^ (z >> 31)


class CoreRng:
    """The packet engine's generator of one flow group's traffic, in
    Python: ``stream(seed, Stream::Traffic(group))`` of ``engine/rng.rs``
    (Pcg64Mcg, rand_pcg 0.10) and the draws of rand 0.10 the traffic
    module makes from it: a float in [0, 1) from the top 53 bits of a
    word, an integer range by the widening multiply with one correction
    word (``UniformInt::sample_single_inclusive``, uniform_int.rs, without
    the ``unbiased`` feature). Its ``random``, ``exponential`` and
    ``integers`` follow numpy's Generator's names, so :func:`draw_pkts`
    takes either; ``standard_normal`` (the lognormal law) is Box-Muller,
    not the core's ziggurat: those sizes match in law only.
    """

    def __init__(self, seed: int, group: int) -> None:
        sid = (_TRAFFIC_STREAM << 32) | group
        hi = _mix((int(seed) & _M64) ^ _mix(sid))
        lo = _mix(hi ^ (((sid << 17) | (sid >> 47)) & _M64))
        self.state = ((hi << 64) | lo | 1) & _M128

    def next_u64(self) -> int:
        """The next word (Mcg128Xsl64::next_u64: the state times the
        multiplier, then XSL RR)."""
        self.state = (self.state * _PCG_MULTIPLIER) & _M128
        rot = self.state >> 122
        xsl = ((self.state >> 64) ^ self.state) & _M64
        return ((xsl >> rot) | (xsl << (64 - rot))) & _M64 if rot else xsl

    def random(self) -> float:
        """A float in [0, 1): 53 bits (rand's StandardUniform for f64)."""
        return (self.next_u64() >> 11) * 2.0**-53

    def exponential(self, mean: float) -> float:
        """-mean ln(1 - U), as ``SizeDist::draw`` and ``ThinkDist::draw``."""
        return -mean * math.log(1.0 - self.random())

    def standard_normal(self) -> float:
        """A standard normal draw (Box-Muller; not the core's numbers)."""
        u = 1.0 - self.random()
        return math.sqrt(-2.0 * math.log(u)) * math.cos(2.0 * math.pi * self.random())

    def integers(self, low: int, high: int, endpoint: bool = False) -> int:
        """A whole number in [low, high) ([low, high] with ``endpoint``, as
        numpy's): rand's ``random_range`` on ``u64`` (a uniform size)."""
        return self._range(low, high if endpoint else high - 1, 64)

    def index(self, n: int) -> int:
        """A whole number in [0, n): rand's ``random_range(0..n)`` on
        ``usize``, drawn on 32 bits while n - 1 fits them (an RTT pick)."""
        return self._range(0, n - 1, 32 if n - 1 <= 0xFFFF_FFFF else 64)

    def _range(self, low: int, top: int, bits: int) -> int:
        """rand's ``sample_single_inclusive`` on ``bits``-bit words."""
        mask = (1 << bits) - 1
        span = (top - low + 1) & mask
        if span == 0:
            return low + (self.next_u64() & mask)
        x = (self.next_u64() & mask) * span
        result, lo = x >> bits, x & mask
        if lo > ((-span) & mask):
            extra = ((self.next_u64() & mask) * span) >> bits
            result += int(lo + extra > mask)
        return low + result


def transfer_sizes(norm: Mapping[str, Any]) -> list[list[int | None]]:
    """Each flow's transfer size in packets, per group (None: long-lived).

    A fixed size is the group's; a size drawn from a law is drawn here, in
    Python with the packet engine's own generator of the group
    (:class:`CoreRng`, in slot order as the core draws them, :func:`draw_pkts`)
    and written into the script as each transfer's fixed size: the same
    sizes as the packet engine's, one by one (a lognormal law's in law
    only).
    """
    out: list[list[int | None]] = []
    for gi, g in enumerate(norm["flows"]):
        n = len(g["rtts_s"])
        if g["kind"] != "finite":
            out.append([None] * n)
        elif "fixed" in g["size"]:
            out.append([transfer_pkts(g)] * n)
        else:
            rng = CoreRng(norm["seed"], gi)
            out.append([draw_pkts(g["size"], rng) for _ in range(n)])
    return out


def draw_pkts(law: Mapping[str, Any], rng: CoreRng | np.random.Generator) -> int:
    """One transfer size in packets from a normalized size law, by the
    packet engine's rules (``SizeDist::draw``, bufsim-core's
    ``traffic/size.rs``) from ``rng`` (:class:`CoreRng`: its numbers too;
    or numpy's): ``exponential`` (-mean ln(1 - U)),
    ``pareto`` (min / (1 - U)^(1/shape)), ``lognormal`` (median e^(sigma Z)),
    ``uniform`` (a whole number lo..hi, both included), ``mixture`` (a
    component by weight), ``empirical`` (the CDF's points read linearly
    between them); rounded up to a whole packet, at least one.
    """
    ((kind, p),) = law.items()
    if kind == "fixed":
        x = p["pkts"]
    elif kind == "exponential":
        x = -p["mean_pkts"] * math.log(1.0 - rng.random())
    elif kind == "pareto":
        x = p["min_pkts"] * (1.0 - rng.random()) ** (-1.0 / p["shape"])
    elif kind == "lognormal":
        x = p["median_pkts"] * math.exp(p["sigma"] * rng.standard_normal())
    elif kind == "uniform":
        return int(rng.integers(p["lo_pkts"], p["hi_pkts"], endpoint=True))
    elif kind == "mixture":
        u = rng.random()
        for comp in p:
            if u < comp["weight"]:
                return draw_pkts(comp["dist"], rng)
            u -= comp["weight"]
        return draw_pkts(p[-1]["dist"], rng)
    elif kind == "empirical":
        pts = np.array(p["points"], dtype=float)
        x = float(np.interp(rng.random(), pts[:, 1], pts[:, 0]))
    else:  # pragma: no cover - the scenario's laws are these
        raise ValueError(f"size law {kind!r}")
    return int(min(max(math.ceil(x), 1), 10**15))


#: bufsim's variants run through ns-2.35's TCP-Linux, and the name
#: ``select_ca`` takes (tcp/linux/src/tcp_*.c).
LINUX = {"cubic": "cubic", "htcp": "htcp", "scalable": "scalable"}


def linux_params(variant: str, cc: Mapping[str, Any]) -> dict[str, int]:
    """TCP-Linux module parameters (``set_ca_param <ca> <name> <int>``) for a
    Linux variant's checked ``cc`` table."""
    if variant == "cubic":
        # tcp_cubic.c (version 2.1): beta in 1/1024, C = bic_scale * 10 / 1024.
        return {
            "beta": round(cc["beta"] * 1024),
            "bic_scale": round(cc["c"] * 1024 / 10),
            "fast_convergence": int(cc["fast_convergence"]),
            "tcp_friendliness": int(cc["reno_friendly"]),
        }
    if variant == "htcp":
        return {"use_rtt_scaling": int(cc["rtt_scaling"])}
    return {}


#: The on-rate of a background source, bit/s: its packets of a burst
#: follow each other by size / rate (EXPOO_Traffic::init, expoo.cc), here
#: a picosecond or less, so that the gaps are the exponential idle times.
POISSON_ON_RATE_BPS = 10**15


def background_lines(
    k: int, fid: int, b: Mapping[str, Any], fast: float, link: int = 0
) -> list[str]:
    """Background source ``k`` (flow id ``fid``): Poisson packets over UDP
    from a host behind ``r<link>`` to a null agent behind ``r<link+1>``
    (the one link of a chain it crosses).

    ns-2's Exponential on/off source with ``burst_time_ 0`` sends bursts of
    one packet (EXPOO_Traffic::next_interval, expoo.cc: rem_ at least 1)
    separated by size / rate_ plus an exponential idle time of mean
    ``idle_time_``: Poisson arrivals of mean gap size / rate (the source's
    rate) when rate_ is far above it. UDP adds no headers to packetSize_
    (UdpAgent::sendmsg, udp.cc): the packet on the wire is packet_size.
    """
    size = b["packet_size_bytes"]
    return [
        f"# background {k}: Poisson, {_num(b['rate_bps'])} bit/s of {size} B packets",
        f"set b({k}) [$ns node]",
        f"set bd({k}) [$ns node]",
        f"$ns duplex-link $b({k}) $r{link} {_num(fast)} 0 DropTail",
        f"$ns duplex-link $r{link + 1} $bd({k}) {_num(fast)} 0 DropTail",
        f"$ns queue-limit $b({k}) $r{link} {BIG_QUEUE}",
        f"$ns queue-limit $r{link + 1} $bd({k}) {BIG_QUEUE}",
        f"set udp({k}) [new Agent/UDP]",
        f"$udp({k}) set packetSize_ {size}",
        f"$udp({k}) set fid_ {fid}",
        f"$ns attach-agent $b({k}) $udp({k})",
        f"set null({k}) [new Agent/Null]",
        f"$ns attach-agent $bd({k}) $null({k})",
        f"$ns connect $udp({k}) $null({k})",
        f"set bg({k}) [new Application/Traffic/Exponential]",
        f"$bg({k}) set packetSize_ {size}",
        f"$bg({k}) set burst_time_ 0",
        f"$bg({k}) set idle_time_ {_num(size * 8 / b['rate_bps'])}",
        f"$bg({k}) set rate_ {POISSON_ON_RATE_BPS}",
        f"$bg({k}) attach-agent $udp({k})",
        f"$ns at 0 {{$bg({k}) start}}",
    ]


def fq_background_lines(
    k: int, fid: int, b: Mapping[str, Any], fast: float, queues: int
) -> list[str]:
    """Background source ``k`` over ``fq``: the packet engine spreads the
    background over ``queues`` queues of its own (``background_flows``,
    each packet by its sequence number); the script writes as many Poisson
    sources of ``rate / queues`` from one host (together the same Poisson
    law), source ``j`` with the address of DRR's queue ``j`` (``fq_addr``),
    as :func:`background_lines` writes one."""
    size = b["packet_size_bytes"]
    one = background_lines(k, fid, b, fast)
    # The host, its links and the null agent of background_lines.
    host = [x for x in one if x.startswith(("# ", f"set b({k})", f"set bd({k})", "$ns d", "$ns q"))]
    return [
        *host,
        f"set null({k}) [new Agent/Null]",
        f"$ns attach-agent $bd({k}) $null({k})",
        f"for {{set j 0}} {{$j < {queues}}} {{incr j}} {{",
        "    set u [new Agent/UDP]",
        f"    $u set packetSize_ {size}",
        f"    $u set fid_ {fid}",
        f"    $ns attach-agent $b({k}) $u",
        f"    $ns connect $u $null({k})",
        "    $u set agent_addr_ [fq_addr $j]",
        "    set e [new Application/Traffic/Exponential]",
        f"    $e set packetSize_ {size}",
        "    $e set burst_time_ 0",
        f"    $e set idle_time_ {_num(size * 8 * queues / b['rate_bps'])}",
        f"    $e set rate_ {POISSON_ON_RATE_BPS}",
        "    $e attach-agent $u",
        '    $ns at 0 "$e start"',
        "}",
    ]


def queues(norm: Mapping[str, Any]) -> list[tuple[str, int, int, Mapping[str, Any]]]:
    """The monitored queues, in the order the script prints them: each
    forward link ``k`` (``r<k>`` to ``r<k+1>``; one on a dumbbell), then
    with two-way traffic the reverse link (``r1`` to ``r0``). Each is
    (name, from router, to router, normalized link); the name is the
    packet engine's suffix (``link<k>``, ``reverse``)."""
    links = norm.get("links") or [norm["link"]]
    out = [(f"link{k}", k, k + 1, link) for k, link in enumerate(links)]
    if "reverse" in norm:
        out.append(("reverse", 1, 0, norm["reverse"]["link"]))
    return out


def group_routers(norm: Mapping[str, Any], g: Mapping[str, Any]) -> tuple[int, int]:
    """The routers a group's senders and receivers hang from: a forward
    group crossing links i..j from ``r<i>`` to ``r<j+1>``, a reverse group
    from ``r1`` to ``r0``."""
    if g.get("reverse"):
        return 1, 0
    crossed = g.get("links") or [0]
    return crossed[0], crossed[-1] + 1


def group_delay_s(norm: Mapping[str, Any], g: Mapping[str, Any]) -> float:
    """One way's propagation delay of the links a group crosses, s."""
    links = norm.get("links") or [norm["link"]]
    return sum(links[k]["delay_s"] for k in g.get("links") or [0])


def _link_lines(norm: Mapping[str, Any], fast: float) -> list[str]:
    """The routers, the monitored links (each queue's class settings right
    before it is built: ns-2 copies them into the queue then) and their
    return directions at the fast rate, a queue monitor (``qmon``,
    ``pint``) and a flow monitor (``fmon``) on each monitored queue."""
    lines: list[str] = []
    monitored = queues(norm)
    chain = [q for q in monitored if q[0] != "reverse"]
    for j, (_, a, b, link) in enumerate(monitored):
        qclass = {"red": "RED", "fq": "DRR"}.get(link["qdisc"], "DropTail")
        lines += queue_lines(link)
        if j == 0:
            lines.append("set r0 [$ns node]")
        if j < len(chain):
            lines.append(f"set r{b} [$ns node]")
        lines.append(
            f"$ns simplex-link $r{a} $r{b} {_num(link['capacity_bps'])} {_num(link['delay_s'])} {qclass}"
        )
        back = j < len(chain) and "reverse" not in norm
        if back:
            # The return direction: ACKs at the fast rate, never queued.
            lines.append(
                f"$ns simplex-link $r{b} $r{a} {_num(fast)} {_num(link['delay_s'])} DropTail"
            )
        lines.append(f"$ns queue-limit $r{a} $r{b} $LIMIT")
        if back:
            lines.append(f"$ns queue-limit $r{b} $r{a} {BIG_QUEUE}")
    # The links added below count packets (queue_lines may have set bytes).
    if any(q[3]["qdisc"] == "droptail" and q[3]["buffer_mode"] == "bytes" for q in monitored):
        lines.append("Queue/DropTail set queue_in_bytes_ false")
    if len(monitored) == 1:
        return lines + [
            "set qmon [$ns monitor-queue $r0 $r1 0]",
            "set pint [$qmon get-pkts-integrator]",
            # Per-flow counters at the bottleneck: a flow monitor classifying by
            # fid_ (Simulator makeflowmon, attach-fmon, ns-lib.tcl), chained
            # after the queue monitor's snoops (SimpleLink attach-monitors).
            "set fmon [$ns makeflowmon Fid]",
            "$ns attach-fmon [$ns link $r0 $r1] $fmon",
        ]
    for j, (_, a, b, _link) in enumerate(monitored):
        lines += [
            f"set qmon({j}) [$ns monitor-queue $r{a} $r{b} 0]",
            f"set pint({j}) [$qmon({j}) get-pkts-integrator]",
            f"set fmon({j}) [$ns makeflowmon Fid]",
            f"$ns attach-fmon [$ns link $r{a} $r{b}] $fmon({j})",
        ]
    return lines


#: The bytes a monitor's counter may rise between two readings: a quarter
#: of the 2^32 its 32-bit reading wraps at (``wide`` in :func:`script`).
WRAP_BYTES = 2**30


def wrap_tick_s(norm: Mapping[str, Any]) -> float:
    """How often the script reads the monitors' counters to unwrap them, s:
    1 s, or less where the fastest monitored link could send
    :data:`WRAP_BYTES` in a second (above 8.6 Gbps)."""
    fastest = max(q[3]["capacity_bps"] for q in queues(norm))
    return min(1.0, WRAP_BYTES * 8 / fastest)


def script(norm: Mapping[str, Any], notes: list[str] | None = None) -> str:
    """The OTcl script of a checked, normalized scenario ``norm``.

    Parameters
    ----------
    norm : mapping
        :attr:`bufsim.Scenario.normalized`, after :func:`bufsim.ns2.check`.
    notes : list of str, optional
        Comment lines for the script's header (what the engine ignored).

    Returns
    -------
    str
        The script; ``ns script.tcl`` runs it and prints ``BUFSIM`` lines.
    """
    fast = fast_rate_bps(norm)
    out = norm["output"]
    dynamic = has_dynamic(norm)
    lines = [
        f"# bufsim scenario {norm['name']!r} for ns-2.35, written by bufsim.ns2.",
        "# Rerun with: ns script.tcl (prints BUFSIM lines: ts, flow, queue).",
    ]
    if "links" in norm:
        lines += [
            f"# Chain: routers r0 .. r{len(norm['links'])}, link k from r<k> to r<k+1>;",
            "# sender i -> access link -> the first router of its links -> ... -> the",
            "# last -> receiver i (0 s); every added link runs at the fast rate with",
            "# a queue that never fills.",
        ]
    else:
        lines += [
            "# Dumbbell: sender i -> access link (rtt_i - 2 delay) / 2 -> router r0 ->",
            "# bottleneck -> router r1 -> receiver i (0 s); every link but the",
            "# bottleneck runs at the fast rate with a queue that never fills.",
        ]
    if "reverse" in norm:
        lines += [
            "# Two-way traffic: the bottleneck's return (r1 -> r0) is the reverse link;",
            "# reverse senders hang from r1, their receivers from r0.",
        ]
    lines += [f"# {n}" for n in notes or []]
    if dynamic and any(g["cc"]["variant"] in LINUX for g in norm["flows"]):
        # Each transfer's select_ca prints through C's stdio buffer, which
        # flushes mid-line (tcp-linux.cc): the script's lines go out whole.
        lines.append("fconfigure stdout -buffering line")
    lines += [
        "set ns [new Simulator]",
        # ns-2's one generator (RED's drop tests, Exponential sources):
        # seeded from the scenario, never from the clock (seed 0).
        "global defaultRNG",
        f"$defaultRNG seed {norm['seed']}",
    ]
    fq = "links" not in norm and norm["link"]["qdisc"] == "fq"
    if fq:
        lines += [f"set BUCKETS {fq_buckets(norm)}", *FQ_PROCS]
    lines += _link_lines(norm, fast)
    lines += [
        # A finite transfer's end: its sender's last ACK.
        "proc fin {i} {",
        "    global ns" + (" fdone" if dynamic else ""),
        '    puts "BUFSIM done $i [$ns now]"',
        *(["    set fdone($i) 1"] if dynamic else []),
        "}",
    ]
    ack_size = norm["reverse"]["ack_size_bytes"] if "reverse" in norm else None
    cc_params: dict[str, int] = {}
    sizes = transfer_sizes(norm)
    i = 0
    for gi, g in enumerate(norm["flows"]):
        rate = g["access_rate_bps"] or fast
        # DropTail holds limit_ - 1 waiting (queue_lines): access_buffer + 1.
        qlim = g["access_buffer_pkts"] + 1 if g["access_rate_bps"] else BIG_QUEUE
        variant = g["cc"]["variant"]
        for name, value in linux_params(variant, g["cc"]).items():
            cc_params[f"{LINUX[variant]} {name}"] = value
        first, last = group_routers(norm, g)
        d = group_delay_s(norm, g)
        for rtt, start, size in zip(g["rtts_s"], g["starts_s"], sizes[gi]):
            access = (rtt - 2 * d) / 2
            lines += [
                f"set s({i}) [{'fq_node' if fq else '$ns node'}]",
                f"set d({i}) [$ns node]",
                f"$ns duplex-link $s({i}) $r{first} {_num(rate)} {_num(access)} DropTail",
                f"$ns duplex-link $r{last} $d({i}) {_num(fast)} 0 DropTail",
                f"$ns queue-limit $s({i}) $r{first} {qlim}",
                f"$ns queue-limit $r{first} $s({i}) {BIG_QUEUE}",
                f"$ns queue-limit $r{last} $d({i}) {BIG_QUEUE}",
                f"$ns queue-limit $d({i}) $r{last} {BIG_QUEUE}",
            ]
            lines += _agent_lines(i, g, rtt, start, gi, size, ack_size)
            i += 1
    # TCP-Linux's module parameters are global per algorithm (tcp-linux.cc
    # set_ca_param; one value per name, checked by bufsim.ns2.check).
    if cc_params:
        # Any TCP-Linux agent sets them: flow 0's, else one made for it.
        first = norm["flows"][0]
        agent = "$tcp(0)"
        if first["kind"] in DYNAMIC or first["cc"]["variant"] not in LINUX:
            agent = "[new Agent/TCP/Linux]"
        lines.append(
            "foreach {ca name value} {"
            + " ".join(f"{k} {v}" for k, v in sorted(cc_params.items()))
            + f"}} {{ {agent} set_ca_param $ca $name $value }}"
        )
    n = i
    for k, b in enumerate(norm.get("background") or []):
        if fq:
            bg = norm["link"]["qdisc_params"]["background_flows"]
            lines += fq_background_lines(k, n + k, b, fast, bg)
        else:
            lines += background_lines(k, n + k, b, fast, (b.get("links") or [0])[0])
    if dynamic:
        lines += track_lines(norm)
        lines += dynamic_lines(norm, fast, n + len(norm.get("background") or []), ack_size)
    interval = out["interval_s"]
    steps = max(1, math.floor(norm["duration_s"] / interval + 1e-9))
    # The monitors' names: qmon, pint, fmon alone, else arrays by queue.
    nq = len(queues(norm))
    qs = "{}" if nq == 1 else " ".join(f"({j})" for j in range(nq))
    tick = wrap_tick_s(norm)
    lines += [
        f"set N {n}",
        # The monitors' counters read as 32-bit integers: bdepartures_
        # wraps past 2^31 bytes, 17 s at 1 Gbps (measured: a negative
        # count at 26 s of paper 001's 1 Gbps link). `wide` unwraps a
        # counter into a Tcl integer of any size from its rise modulo 2^32
        # since its last reading; `unwrap` reads them all every tick, in
        # which no counter can rise 2^30.
        "proc wide {key raw} {",
        "    global last total",
        "    if {![info exists last($key)]} {set last($key) 0; set total($key) 0}",
        "    set total($key) [expr {$total($key) + (($raw - $last($key)) & 0xFFFFFFFF)}]",
        "    set last($key) $raw",
        "    return $total($key)",
        "}",
        "proc unwrap {} {",
        "    global qmon fmon",
        "    set q 0",
        f"    foreach j {{{qs}}} {{",
        '        set m [set "qmon$j"]',
        '        set fm [set "fmon$j"]',
        "        foreach c {parrivals_ pdepartures_ pdrops_ bdepartures_} t {a d x b} {",
        "            wide q$j,$t [$m set $c]",
        "            foreach f [$fm flows] {wide f$q,[$f set flowid_],$t [$f set $c]}",
        "        }",
        "        incr q",
        "    }",
        "}",
        f"for {{set k 1}} {{$k <= {math.floor(norm['duration_s'] / tick)}}} {{incr k}} {{",
        f'    $ns at [expr {{$k * {_num(tick)}}}] "unwrap"',
        "}",
        # The queue monitors' counters (QueueMonitor, queue-monitor.cc), six
        # per monitored queue: arrivals, departures (at the start of
        # transmission), drops, bytes departed, the time integral of the
        # queue in packets (ns-link.tcl's sample-queue-size reads it the
        # same way) and the queue.
        "proc qline {tag} {",
        "    global ns qmon pint",
        "    set now [$ns now]",
        '    set out "BUFSIM $tag $now"',
        f"    foreach j {{{qs}}} {{",
        '        set m [set "qmon$j"]',
        '        set p [set "pint$j"]',
        "        $p newpoint $now [$p set lasty_]",
        '        append out " [wide q$j,a [$m set parrivals_]] [wide q$j,d [$m set pdepartures_]] '
        "[wide q$j,x [$m set pdrops_]] [wide q$j,b [$m set bdepartures_]] "
        '[$p set sum_] [$m set pkts_]"',
        "    }",
        "    puts $out",
        "}",
        # Per flow: highest cumulative ACK (packets), data packets sent,
        # retransmitted packets, timeouts (nrexmit_: TcpAgent::timeout,
        # tcp.cc), cwnd, smoothed RTT (t_srtt_ in tcpTick_/8, T_SRTT_BITS 3),
        # whether it left slow start (ssthresh_ below window_, where
        # TcpAgent::reset puts it).
        "proc flines {tag} {",
        "    global ns tcp N",
        "    for {set i 0} {$i < $N} {incr i} {",
        "        set t $tcp($i)",
        '        puts "BUFSIM $tag $i [$ns now] [$t set ack_] [$t set ndatapack_] '
        "[$t set nrexmitpack_] [$t set nrexmit_] [$t set cwnd_] [$t set srtt_] "
        '[$t set tcpTick_] [expr {[$t set ssthresh_] < [$t set window_]}]"',
        "    }",
        "}",
        # Per monitored queue and flow: arrivals, departures, drops, bytes
        # sent (the flows the monitor has seen; QueueMonitor/ED/Flow,
        # flowmon.cc). ACKs keep their data's fid_ (TcpSink::ack).
        "proc fmlines {tag} {",
        "    global fmon",
        "    set q 0",
        f"    foreach j {{{qs}}} {{",
        '        set fm [set "fmon$j"]',
        "        foreach f [$fm flows] {",
        "            set k f$q,[$f set flowid_]",
        '            puts "BUFSIM $tag $q [$f set flowid_] [wide $k,a [$f set parrivals_]] '
        "[wide $k,d [$f set pdepartures_]] [wide $k,x [$f set pdrops_]] "
        '[wide $k,b [$f set bdepartures_]]"',
        "        }",
        "        incr q",
        "    }",
        "}",
        f"for {{set k 1}} {{$k <= {steps}}} {{incr k}} {{",
        f'    $ns at [expr {{$k * {_num(interval)}}}] "qline ts{"; nline" if dynamic else ""}"',
        "}",
        f'$ns at {_num(norm["warmup_s"])} "qline warm; flines fwarm; fmlines mwarm'
        + ('; txsnap txwarm"' if dynamic else '"'),
        f'$ns at {_num(norm["duration_s"])} "qline end; flines fend; fmlines mend'
        + ("; txsnap txend; refusals" if dynamic else "")
        + '; exit 0"',
        "$ns run",
    ]
    return "\n".join(lines) + "\n"


# --- open and closed loops -------------------------------------------------
#
# A transfer of an open- or closed-loop group runs on a pair of agents (a
# sender and its sink) taken from a pool, one pool per group and RTT: a
# sender node and a receiver node per RTT the group can draw, each pair of
# the pool attached to them. A pair whose transfer is done goes back to its
# pool and serves a later transfer, as ns-2's own web traffic recycles its
# agents (PagePool/WebTraf done-resp, tcl/webcache/webtraf.tcl): `reset` on
# both ends (TcpAgent::reset, tcp.cc; TcpSink::reset, tcp-sink.cc) marks
# the time, and both discard a packet of the previous transfer still in
# flight by its timestamp ("previous incarnation", TcpAgent::recv,
# NewRenoTcpAgent::recv, Sack1TcpAgent::recv, TcpSink::recv). New agents
# per transfer would leave every finished pair in memory (paper 002's open
# loop starts 70,000 transfers in 630 s); a pool holds as many pairs as
# transfers were ever active together.

#: Normalized group kinds whose transfers come and go during the run.
DYNAMIC = ("open", "closed")
#: Standard deviations of a Poisson count of think times the pre-drawn
#: list of a closed-loop user covers beyond its mean (:func:`closed_users`).
THINK_MARGIN_SD = 8


#: RTT classes of a uniform RTT draw (:func:`rtt_classes`): spaced evenly
#: in log, a transfer runs at the nearest, within 0.9 % of its drawn RTT
#: on a 3x range.
UNIFORM_CLASSES = 64


def rtt_classes(g: Mapping[str, Any]) -> list[float]:
    """The RTTs a dynamic group's transfers run at, ascending, s: its
    normalized ``rtt_draw``'s one value, its list's values each once, or
    for a uniform draw on [a, b] :data:`UNIFORM_CLASSES` RTTs from a to b
    spaced evenly in log (one sender node per RTT)."""
    ((law, v),) = g["rtt_draw"].items()
    if law == "fixed":
        return [float(v)]
    if law == "uniform":
        a, b = float(v[0]), float(v[1])
        if b <= a:
            return [a]
        n = UNIFORM_CLASSES
        return [a * (b / a) ** (k / (n - 1)) for k in range(n)]
    return sorted({float(x) for x in v})


def _rtt_class(g: Mapping[str, Any], rng: CoreRng) -> int:
    """A transfer's RTT class, drawn as ``RttDraw::draw`` draws its RTT: a
    fixed RTT draws nothing; a list a uniform pick of an entry (a repeated
    RTT weighs more); a uniform law a whole picosecond in [a, b], which
    runs at the nearest class (in log) of :func:`rtt_classes`."""
    ((law, v),) = g["rtt_draw"].items()
    if law == "fixed":
        return 0
    if law == "uniform":
        a, b = float(v[0]), float(v[1])
        x = rng.integers(_ps(a), _ps(b), endpoint=True) / 1e12
        if b <= a:
            return 0
        k = round(math.log(x / a) / math.log(b / a) * (UNIFORM_CLASSES - 1))
        return min(max(k, 0), UNIFORM_CLASSES - 1)
    return rtt_classes(g).index(float(v[rng.index(len(v))]))


def _ps(t_s: float) -> int:
    """Seconds as the core's whole picoseconds (``SimTime::from_secs_f64``:
    rounded, half away from zero)."""
    return math.floor(t_s * 1e12 + 0.5)


def open_arrivals(norm: Mapping[str, Any], gi: int) -> list[tuple[float, int, int]]:
    """The transfers of open-loop group ``gi`` before the run's end: (arrival
    time s, RTT class of :func:`rtt_classes`, size packets), in time order.

    The packet engine's own draws (``traffic/mod.rs``, ``Sim::arrival``),
    with its generator (:class:`CoreRng`) in its order: the first arrival
    one gap after ``begin``; at each arrival the next gap (exponential of
    mean burst / rate, in whole picoseconds, or the fixed period of
    ``every``), then per transfer of the burst its RTT and its size
    (:func:`draw_pkts`). Both engines start the same transfers at the same
    times, until an arrival is refused (``max_active``: the packet engine
    then skips that transfer's draws) or for a lognormal size law.
    """
    g = norm["flows"][gi]
    rng = CoreRng(norm["seed"], gi)
    burst = g.get("arrival_burst") or 1
    every = g.get("arrival_every_s")
    mean_gap = 1.0 / (g["arrival_rate_per_s"] / burst)

    def gap() -> int:
        if every is not None:
            return _ps(every)
        return max(_ps(-mean_gap * math.log(1.0 - rng.random())), 1)

    out: list[tuple[float, int, int]] = []
    t, end = _ps(g["begin_s"]) + gap(), _ps(norm["duration_s"])
    while t < end:
        step = gap()
        for _ in range(burst):
            k = _rtt_class(g, rng)
            out.append((t / 1e12, k, draw_pkts(g["size"], rng)))
        t += step
    return out


def _think(think: Mapping[str, float], rng: CoreRng) -> float:
    """A think time, s: a fixed one draws nothing (``ThinkDist::draw``)."""
    ((law, mean),) = think.items()
    if law == "fixed":
        return float(mean)
    return _ps(-mean * math.log(1.0 - rng.random())) / 1e12


def closed_turns(norm: Mapping[str, Any], g: Mapping[str, Any]) -> int:
    """How many transfers each closed-loop user of ``g`` has drawn for it: more
    than the run can hold. Each turn takes a think time and a round trip
    at least; with exponential think times of mean T, the count in D
    seconds is at most Poisson(D / T), and the list covers its mean plus
    :data:`THINK_MARGIN_SD` standard deviations (a user runs out with
    probability below 1e-15); with fixed ones, D / (T + the shortest RTT)."""
    ((law, mean),) = g["think"].items()
    span = max(norm["duration_s"] - g["begin_s"], 0.0)
    rtt = min(rtt_classes(g))
    if law == "fixed":
        return math.ceil(span / (float(mean) + rtt)) + 1
    m = span / float(mean)
    return math.ceil(min(m + THINK_MARGIN_SD * math.sqrt(m) + 10, span / rtt + 2))


def closed_users(norm: Mapping[str, Any], gi: int) -> list[list[tuple[float, int, int]]]:
    """Per user of closed-loop group ``gi``, its turns: (think time s, RTT
    class, size packets), :func:`closed_turns` of them. The user's first
    transfer starts a think time after ``begin`` (the packet engine's
    rule: starts spread out, ``traffic/mod.rs``), each next one a think
    time after the last ended.

    With the packet engine's generator (:class:`CoreRng`): the first think
    times are its own (it draws them user after user at the start); the
    rest follow, user after user, where the packet engine draws them in
    the order transfers end: the same laws, other numbers.
    """
    g = norm["flows"][gi]
    rng = CoreRng(norm["seed"], gi)
    turns = closed_turns(norm, g)
    first = [_think(g["think"], rng) for _ in range(g["users"])]
    users = []
    for th in first:
        turn = []
        for _ in range(turns):
            k = _rtt_class(g, rng)
            turn.append((th, k, draw_pkts(g["size"], rng)))
            th = _think(g["think"], rng)
        users.append(turn)
    return users


def has_dynamic(norm: Mapping[str, Any]) -> bool:
    """Whether a group's transfers come and go (open or closed loop)."""
    return any(g["kind"] in DYNAMIC for g in norm["flows"])


def data_queues(norm: Mapping[str, Any], g: Mapping[str, Any]) -> list[int]:
    """The monitored queues (indices of :func:`queues`) a group's data
    crosses, in order."""
    names = [q[0] for q in queues(norm)]
    if g.get("reverse"):
        return [names.index("reverse")]
    return list(g.get("links") or [0])


#: The procedures of the open and closed loops (:func:`dynamic_lines`).
DYNAMIC_PROCS = r"""# A transfer's counters at each queue its data crosses (dq): arrivals,
# drops, bytes sent of its pair's flow id, read through `wide` (fobj: the
# flow monitors' record per flow id, `track`).
proc counters {j g} {
    global dq fobj
    set out {}
    foreach q $dq($g) {
        if {[info exists fobj($q,$j)]} {
            set f $fobj($q,$j)
            lappend out [wide f$q,$j,a [$f set parrivals_]] [wide f$q,$j,x [$f set pdrops_]] \
                [wide f$q,$j,b [$f set bdepartures_]]
        } else {
            lappend out 0 0 0
        }
    }
    return $out
}
# Transfer of group g, RTT class k, size packets (user u, -1 for an open
# loop): refused when max_active are active, else on an idle pair of the
# class's pool or a new one.
proc tx {g k size u} {
    global ns pool ftp info ntx nslot active maxact refused pay
    if {$active($g) >= $maxact($g)} {
        incr refused($g)
        return
    }
    incr active($g)
    if {[llength $pool($g,$k)] > 0} {
        set j [lindex $pool($g,$k) end]
        set pool($g,$k) [lreplace $pool($g,$k) end end]
    } else {
        set j $nslot
        incr nslot
        agent$g $j $k
    }
    set info($j) [list $ntx $g $k $size $u [$ns now] [counters $j $g]]
    incr ntx
    $ftp($j) send [expr {$size * $pay($g)}]
}
# One transfer's line: id, group, class, size, user, start, now, the agent's
# ack_ ndatapack_ nrexmitpack_ nrexmit_ cwnd_ srtt_ tcpTick_, whether it
# left slow start (ssthresh_ below window_, where reset puts it), then its
# counters at its start and now.
proc txline {tag j} {
    global ns tcp info
    lassign $info($j) id g k size u t0 base
    set t $tcp($j)
    puts "BUFSIM $tag $id $g $k $size $u $t0 [$ns now] [$t set ack_] [$t set ndatapack_]\
        [$t set nrexmitpack_] [$t set nrexmit_] [$t set cwnd_] [$t set srtt_] [$t set tcpTick_]\
        [expr {[$t set ssthresh_] < [$t set window_]}] $base [counters $j $g]"
}
# The sender's last ACK (TcpAgent::finish calls `done`): the transfer's
# line, its pair reset and back in the pool (reuse); a user thinks, then
# wakes.
proc txdone {j} {
    global ns tcp sink info pool active ul up reuse
    txline tx $j
    lassign $info($j) id g k size u
    unset info($j)
    if {$reuse($g)} {
        $tcp($j) reset
        $sink($j) reset
        lappend pool($g,$k) $j
    }
    incr active($g) -1
    if {$u >= 0} {
        set p $up($g,$u)
        if {$p < [llength $ul($g,$u)]} {
            $ns at [expr {[$ns now] + [lindex $ul($g,$u) $p]}] "wake $g $u"
        } else {
            puts "BUFSIM spent $g $u"
        }
    }
}
# User u of closed-loop group g starts its next transfer (ul: its turns,
# think time, RTT class, size; up: the next one).
proc wake {g u} {
    global ul up
    set p $up($g,$u)
    set up($g,$u) [expr {$p + 3}]
    tx $g [lindex $ul($g,$u) [expr {$p + 1}]] [lindex $ul($g,$u) [expr {$p + 2}]] $u
}
# The transfers in progress.
proc txsnap {tag} {
    global info
    foreach j [lsort -integer [array names info]] {txline $tag $j}
}
# Forward flows active now and those that left slow start: the lasting
# flows started (SSTART) and not done, the transfers in progress.
proc nline {} {
    global ns tcp N SSTART fdone info fwd
    set now [$ns now]
    set a 0
    set l 0
    for {set i 0} {$i < $N} {incr i} {
        if {[lindex $SSTART $i] <= $now && ![info exists fdone($i)]} {
            incr a
            if {[$tcp($i) set ssthresh_] < [$tcp($i) set window_]} {incr l}
        }
    }
    foreach j [array names info] {
        if {!$fwd([lindex $info($j) 1])} continue
        incr a
        if {[$tcp($j) set ssthresh_] < [$tcp($j) set window_]} {incr l}
    }
    puts "BUFSIM n $now $a $l"
}
proc refusals {} {
    global refused
    foreach g [lsort -integer [array names refused]] {puts "BUFSIM refused $g $refused($g)"}
}"""


def track_lines(norm: Mapping[str, Any]) -> list[str]:
    """Each flow monitor records its per-flow record by flow id (``fobj``):
    makeflowmon's ``unknown-flow`` (ns-lib.tcl) and the queue's index, so a
    transfer reads its pair's counters without listing every flow."""
    nq = len(queues(norm))
    names = ["$fmon"] if nq == 1 else [f"$fmon({j})" for j in range(nq)]
    lines = [
        "proc track {q fm} {",
        "    global qof",
        "    set cl [$fm classifier]",
        "    set qof($cl) $q",
        "    $cl proc unknown-flow {src dst fid} {",
        "        global fobj qof",
        "        set f [new QueueMonitor/ED/Flow]",
        "        $f set-delay-samples [new Samples]",
        "        set slot [$self installNext $f]",
        "        $self set-hash auto $src $dst $fid $slot",
        "        set fobj($qof($self),$fid) $f",
        "    }",
        "}",
    ]
    return lines + [f"track {j} {name}" for j, name in enumerate(names)]


def dynamic_lines(
    norm: Mapping[str, Any], fast: float, base: int, ack_size: int | None
) -> list[str]:
    """The open- and closed-loop groups: per group and RTT class a sender
    and a receiver node, an empty pool and a procedure making a pair of
    agents (flow id = its slot, from ``base`` on); the open loops'
    arrivals (:func:`open_arrivals`) and the closed-loop users' turns
    (:func:`closed_users`) written out, so the script reruns alone."""
    lines = [
        f"set nslot {base}",
        "set ntx 0",
        "set SSTART {"
        + " ".join(
            _num(t) if not g.get("reverse") else "1e300"
            for g in norm["flows"]
            for t in g["starts_s"]
        )
        + "}",
        DYNAMIC_PROCS,
    ]
    for gi, g in enumerate(norm["flows"]):
        lines.append(f"set fwd({gi}) {0 if g.get('reverse') else 1}")
        if g["kind"] not in DYNAMIC:
            continue
        variant = g["cc"]["variant"]
        header = HEADERS + (TS_OPTION if variant in LINUX else 0)
        first, last = group_routers(norm, g)
        d = group_delay_s(norm, g)
        cap = g["max_active"] if g["kind"] == "open" else 10**12
        lines += [
            f"# group {gi}: {'open' if g['kind'] == 'open' else 'closed'} loop, "
            f"a pool of agent pairs per RTT",
            f"set pay({gi}) {g['mss_bytes'] - header}",
            f"set dq({gi}) {{{' '.join(str(q) for q in data_queues(norm, g))}}}",
            f"set active({gi}) 0",
            f"set maxact({gi}) {cap}",
            f"set refused({gi}) 0",
            # TCP-Linux's agent has no previous-incarnation check
            # (LinuxTcpAgent::recv, tcp-linux.cc): a new pair per transfer.
            f"set reuse({gi}) {0 if variant in LINUX else 1}",
        ]
        # An access link (checked: as fast as the script's own links or
        # faster) is the class's, its buffer as a flow's (queue_lines).
        rate = g["access_rate_bps"] or fast
        qlim = g["access_buffer_pkts"] + 1 if g["access_rate_bps"] else BIG_QUEUE
        for k, rtt in enumerate(rtt_classes(g)):
            access = (rtt - 2 * d) / 2
            lines += [
                f"# class {k}: rtt {_num(rtt)} s",
                f"set ds({gi},{k}) [$ns node]",
                f"set dd({gi},{k}) [$ns node]",
                f"$ns duplex-link $ds({gi},{k}) $r{first} {_num(rate)} {_num(access)} DropTail",
                f"$ns duplex-link $r{last} $dd({gi},{k}) {_num(fast)} 0 DropTail",
                f"$ns queue-limit $ds({gi},{k}) $r{first} {qlim}",
                f"$ns queue-limit $r{first} $ds({gi},{k}) {BIG_QUEUE}",
                f"$ns queue-limit $r{last} $dd({gi},{k}) {BIG_QUEUE}",
                f"$ns queue-limit $dd({gi},{k}) $r{last} {BIG_QUEUE}",
                f"set pool({gi},{k}) {{}}",
            ]
        body = _agent_lines("$j", g, 0.0, 0.0, gi, None, ack_size, scheduled=False)[1:]
        lines += [
            f"proc agent{gi} {{j k}} {{",
            "    global ns tcp sink ftp s d ds dd",
            f"    set s($j) $ds({gi},$k)",
            f"    set d($j) $dd({gi},$k)",
            *("    " + x for x in body),
            '    $tcp($j) proc done {} "txdone $j"',
            # Made during the run: reset as `$ns run` resets the agents
            # made before it (ssthresh_ to window_, TcpAgent::reset), then
            # TCP-Linux's algorithm chosen, as at time 0 for the others.
            "    $tcp($j) reset",
            "    $sink($j) reset",
            *([f"    $tcp($j) select_ca {LINUX[variant]}"] if variant in LINUX else []),
            "}",
        ]
        if g["kind"] == "open":
            lines += [
                f"$ns at {_num(t)} {{tx {gi} {k} {size} -1}}"
                for t, k, size in open_arrivals(norm, gi)
            ]
            continue
        for u, turns in enumerate(closed_users(norm, gi)):
            flat = " ".join(f"{_num(th)} {k} {size}" for th, k, size in turns)
            lines += [
                f"set ul({gi},{u}) {{{flat}}}",
                f"set up({gi},{u}) 0",
            ]
            if g["begin_s"] + turns[0][0] < norm["duration_s"]:
                lines.append(f"$ns at {_num(g['begin_s'] + turns[0][0])} {{wake {gi} {u}}}")
    return lines
