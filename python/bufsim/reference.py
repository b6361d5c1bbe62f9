"""The scenario reference, generated from the core's schema.

The schema lives once, in the Rust core (``crates/bufsim-core/src/scenario/``).
:func:`fields` asks it which fields each table accepts (a scenario with an
unknown field gets the list of the expected ones), :func:`bad_value_error`
what a wrong value gets (its type, unit or allowed names), and the
registries give each TCP variant's ``tcp_params`` and each discipline's
``qdisc_params`` with their defaults. :data:`DESCRIPTIONS` says what each
field means; a test fails when the core accepts a field it does not
describe. :func:`markdown` is the docs site's "Scenario reference" page
(generated at build time by ``mkdocs_hooks.py``), so the page cannot drift
from the code.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

from bufsim import _core
from bufsim._core import BufsimError

__all__ = [
    "DESCRIPTIONS",
    "STACK_PROFILES",
    "STACK_SOURCES",
    "TABLES",
    "bad_value_error",
    "default_stack",
    "fields",
    "markdown",
    "params",
    "stack_table",
]

#: A valid scenario the probes start from.
_BASE: dict[str, Any] = {
    "duration": "10s",
    "link": {"capacity": "10Mbps", "delay": "5ms", "buffer": "20pkt"},
    "flows": [{"count": 1, "rtt": "40ms"}],
    "background": [{"kind": "poisson", "rate": "1Mbps", "packet_size": "1000B"}],
    "output": {"stop": {"decide": [{"metric": "utilization", "op": ">=", "bound": 0.9}]}},
    "fluid": {"sync": 0.5},
}

#: The scenario's tables: path prefix (``[]`` a list of tables) -> what it is.
TABLES: dict[str, str] = {
    "": "The top level of a scenario file.",
    "link": "`[link]`: the bottleneck.",
    "links[]": "`[[links]]`: a chain of bottlenecks in order (a parking lot), each a table "
    "like `[link]`, in place of `[link]`; flow groups name the links they cross. Packet "
    "engine and ns-3.",
    "link.queues[]": "`[[link.queues]]`: one queue of the port per traffic class (1 to 8), "
    "each with its own discipline and buffer, served by `link.scheduler`; flow groups and "
    "background sources name their `class`. Packet engine only.",
    "flows[]": "`[[flows]]`: a group of TCP flows: long-lived, finite transfers "
    "(`size` with `arrival` or `users`), all sharing these settings.",
    "background[]": "`[[background]]`: open-loop packets crossing the bottleneck.",
    "output": "`[output]`: what a run records.",
    "output.stop": "`[output.stop]`: end a packet run once its verdicts are known.",
    "output.stop.decide[]": "Each verdict of `output.stop.decide`.",
    "fluid": "`[fluid]`: settings of the fluid engine (the packet engine ignores them).",
    "pool": "`[pool]`: a buffer shared by several egress ports, each a copy of `[link]` "
    "with the flows that name it (`port`), and admission by a buffer-management algorithm "
    "(`algorithm`), by default the dynamic threshold (Choudhury & Hahne 1998): a packet joins "
    "port i's queue only while it holds less than `alpha` times the free pool. Packet engine "
    "only.",
    "reverse": "`[reverse]`: two-way traffic. The bottleneck's return direction as a link "
    "with its own capacity, buffer and discipline (the same delay and packet size as "
    "`[link]`): the forward flows' ACKs queue there as packets, beside the data of its own "
    "flow groups, whose ACKs queue on the forward link. Packet engine and ns-3.",
    "fabric": "`[fabric]`: a leaf-spine of switches, each with one buffer shared by its "
    "egress ports under a buffer-management algorithm, and hosts; each transfer crosses its "
    "path's ports, its leaf-spine link chosen by ECMP (in place of `[link]`; "
    "docs/howto/fabric.md). Packet engine only.",
    "reverse.flows[]": "`[[reverse.flows]]`: a group of TCP flows sending over the reverse "
    "link, with every field of `[[flows]]`; numbered after the forward groups in the "
    "results (`group`, `goodput_bps_group<g>`).",
}

#: What each field means (its type, unit and allowed names come from the
#: core, :func:`bad_value_error`).
DESCRIPTIONS: dict[str, str] = {
    "name": "A name for the scenario (reports, stored runs).",
    "duration": 'Simulated time of a run, e.g. `"300s"`.',
    "warmup": "Time at the start left out of every statistic (default 0 s).",
    "seed": "Every random stream derives from it (default 1).",
    "link": "The bottleneck (table).",
    "links": "A chain of bottlenecks, in order (list of tables), in place of `link`; "
    "`links = [L]` is `link = L`.",
    "flows": "The flow groups (list of tables).",
    "background": "Open-loop background traffic (list of tables).",
    "output": "What a run records (table).",
    "fluid": "Fluid engine settings (table).",
    "pool": "A shared buffer feeding several copies of the link (table).",
    "reverse": "The bottleneck's return direction, for two-way traffic (table).",
    "link.capacity": 'Bottleneck rate, e.g. `"50Mbps"`.',
    "link.delay": "One-way propagation delay of the bottleneck link.",
    "link.buffer": 'The buffer: `"20pkt"`; bytes `"64KB"` (byte mode); `"0.2BDP"`; '
    'or a time at line rate, `"10us"` (byte mode). Counts packets waiting, not the one '
    "being sent (ns-2's convention). With a `[pool]`: each port's own limit beside the "
    "threshold (default: the pool's size).",
    "link.bdp_rtt": 'The round trip a `"BDP"` refers to (default: the flows\' mean RTT).',
    "link.packet_size": "Reference packet size for the BDP in packets (default: the first "
    "group's `mss`).",
    "link.qdisc": 'Queue discipline (default `"droptail"`).',
    "link.qdisc_params": "The discipline's parameters (a table; see the disciplines below).",
    "link.scheduler": 'How the link serves its `queues`: `"strict"` (default), strict '
    'priority, the lowest class first; `"dwrr"`, deficit round robin (Shreedhar & Varghese '
    "1995) by the queues' `weight`.",
    "link.queues": "Several queues, one per traffic class (list of tables, below); without "
    "it the port has one queue (class 0).",
    "flows[].count": "Long-lived flows in the group.",
    "flows[].tcp": 'Congestion control (default `"newreno"`).',
    "flows[].tcp_params": "The variant's parameters (a table; see the variants below).",
    "flows[].rtt": 'Round-trip propagation: `"100ms"`, a list with one value per flow, '
    '`{min = "80ms", max = "260ms"}` (evenly spaced) or `{uniform = ["80ms", "260ms"]}`.',
    "flows[].mss": "Full packet size on the wire (default 1000 B).",
    "flows[].access_rate": "Per-flow access link rate (serialization before the bottleneck).",
    "flows[].access_buffer": "Its drop-tail buffer (default 1000 packets, Linux's "
    "txqueuelen; or bytes, or a time at `access_rate`).",
    "flows[].jitter": "Random send delay in [0, jitter], order kept (ns-2's overhead_): "
    "breaks phase effects between identical flows.",
    "flows[].rwnd": 'Receiver window cap (`"64KB"` or `"44pkt"`).',
    "flows[].initial_window": "Initial window, packets (profile default).",
    "flows[].min_rto": "Least retransmission timeout (RFC 6298 section 2.4; profile default).",
    "flows[].initial_rto": "Retransmission timeout before the first RTT sample, for data "
    "(floored at `min_rto`) and the first SYN, 1 ms to 60 s (unset: RFC 6298 (2.1)'s 1 s, "
    "the profile's SYN timeout).",
    "flows[].start": 'Start times: `"0s"`, `{stagger = "1s"}` or `{uniform = ["0s", "1s"]}`.',
    "flows[].stack": 'Stack profile `"linux"` (the default), `"rfc"` or `"ns3"`: the '
    "defaults of the stack fields below.",
    "flows[].sack": "SACK (RFC 6675 recovery); false: RFC 6582 NewReno.",
    "flows[].delayed_ack": "Delayed ACKs (RFC 5681 section 4.2: every second segment).",
    "flows[].delack_timeout": "The delayed-ACK timer (below 500 ms).",
    "flows[].quick_acks": "First in-order segments acknowledged at once (Linux's quick-ACK start).",
    "flows[].push_ack": "A transfer's last segment acknowledged at once (Linux: the PSH'd end).",
    "flows[].prr": "Proportional Rate Reduction in SACK recovery (RFC 9937).",
    "flows[].prr_variant": 'PRR\'s bounds: `"rfc9937"` or `"ns3"` (RecoverFS = snd.nxt - '
    "snd.una; an ACK of no retransmitted data sends what it delivered).",
    "flows[].recovery": '`"rfc6675"` or `"rack"`: RACK-TLP loss detection (RFC 8985; needs sack).',
    "flows[].abc": "Slow start counts every acknowledged segment up to ssthresh (Linux); "
    '`"uncapped"`: no cap (ns-3.37\'s CUBIC).',
    "flows[].limited_transmit": "A new segment on each of the first two duplicate ACKs (RFC 3042).",
    "flows[].partial_ack_retransmit": "A SACK recovery resends the head on each partial ACK "
    "unless resent already, and restarts the timer at the first only (RFC 6582; ns-3).",
    "flows[].dupack_growth": "An ACK that advances snd.una and SACKs new data (a duplicate ACK "
    "by RFC 6675) grows cwnd (RFC 5681, Linux); false: not (ns-3's CA_DISORDER).",
    "flows[].rto_collapse": 'When a backed-off RTO comes back down: `"sample"` (a new RTT '
    'sample, RFC 6298, Linux) or `"ack"` (any ACK of new data, ns-3).',
    "flows[].rto_timer": 'When the retransmission timer runs: `"rfc"` (off with nothing '
    'outstanding, RFC 6298; Linux) or `"ns3"` (on while data waits to be sent, so a paced sender '
    "held past the RTO times out; the timeout's first segment leaves unpaced).",
    "flows[].recovery_entry": "What starts a fast recovery before three duplicate ACKs (with "
    'SACK, without RACK): `"rfc"` (the first unacknowledged segment lost, RFC 6675 step (2)) '
    'or `"ns3"` (the second, ns-3.37).',
    "flows[].sack_pipe": 'Whether a retransmission the receiver SACKs leaves the pipe: `"rfc"` '
    '(RFC 6675, Linux) or `"ns3"` (it stays until acknowledged, ns-3.37).',
    "flows[].rto_ssthresh": 'A timeout during a recovery: `"rfc5681"`, `"keep"` (Linux) or '
    '`"pipe"` (ns-3: recomputed from the pipe at every timeout, a repeated one too).',
    "flows[].recovery_exit": 'The ACK that ends a loss episode: `"rfc"` (cwnd = ssthresh, '
    'RFC 6675) or `"ns3"` (then grown for every segment it covers, SACKed ones too).',
    "flows[].rtt_sampling": 'RTT samples: `"rfc"` (one segment timed a round trip, RFC 6298 '
    'section 3) or `"ns3"` (every ACK, the handshake from the first SYN, the controller '
    "reading the smoothed RTT).",
    "flows[].cut_from": 'The window a fast retransmit or an ECE cuts: `"flight_size"` '
    '(RFC 5681), `"pipe"` (ns-3) or `"cwnd"` (ns-2: Limited Transmit\'s packets left out).',
    "flows[].ecn_reduction": 'After an ECE: `"immediate"` (RFC 3168) or `"prr"` (CWR with '
    "PRR: Linux, ns-3).",
    "flows[].ce_ack": 'DCTCP receiver, the segment that changes the CE state: `"immediate"` '
    '(RFC 8257) or `"delayed"` (ns-3).',
    "flows[].control_ect": 'Whether the SYN, SYN-ACK and pure ACKs carry ECT: `"rfc"` (never, '
    'RFC 3168 section 6.1.1) or `"cc"` (when the congestion control needs ECN, DCTCP: Linux, '
    "ns-3); a marking queue drops a packet without ECT above its threshold.",
    "flows[].hystart": "HyStart++ in the initial slow start (RFC 9406).",
    "flows[].ecn": "ECN-capable (RFC 3168), for a marking discipline (DCTCP: on).",
    "flows[].loss": "Bernoulli loss of data packets after the bottleneck.",
    "flows[].size": 'Transfer size: `"50pkt"`, `"100KB"`, or a law: `"dhamdhere2006"`, '
    '`"websearch"`, `"datamining"`, a table such as `{pareto = ...}`. Makes the group '
    "finite transfers.",
    "flows[].arrival": 'Open-loop arrivals: `{load = 0.7}`, `{rate = "50/s"}`, '
    '`{every = "10ms", burst = 100}` (incasts).',
    "flows[].users": "Closed loop: this many users, each starting its next transfer a think "
    "time after the last one ends.",
    "flows[].think": "The users' think time between transfers.",
    "flows[].connection_setup": "SYN/SYN-ACK/ACK before data (the SYN and the ACK are packets that queue and can be lost), the SYN's round trip the first RTT sample.",
    "flows[].max_active": "At most this many transfers of the group at once; arrivals beyond "
    "are refused (counted in `flows_refused`).",
    "flows[].port": "The `[pool]` port the group's data leaves by (default 0).",
    "flows[].class": "The traffic class its data joins, a `link.queues` class (default 0).",
    "flows[].links": "The links of the chain it crosses, consecutive indices in order, e.g. "
    "`[1, 2]` (default: all). Its RTT covers their delays both ways.",
    "background[].kind": '`"poisson"`: exponential gaps.',
    "background[].rate": "Mean rate of the source.",
    "background[].packet_size": "Its packet size.",
    "background[].port": "The `[pool]` port it crosses (default 0).",
    "background[].class": "The traffic class its packets join (default 0).",
    "background[].links": "The one link of the chain it crosses, e.g. `[1]` (default `[0]`).",
    "output.interval": "Time-series sampling interval (default 100 ms).",
    "output.cwnd": "Per-flow congestion windows in the time series.",
    "output.large_flow": 'Transfers of more than this are "large" (default 100 KB, paper 002).',
    "output.trace": "Packet trace of the bottleneck queue (packet engine).",
    "output.halves": "Window metrics over each half of the window too (packet engine).",
    "output.stop": "End a packet run once each verdict is known (table, below).",
    "output.stop.decide": "The verdicts: a list of `{metric, op, bound}`.",
    "output.stop.batches": "The statistics window in this many equal batches (default 10).",
    "output.stop.min_batches": "The first test after this many batches (default 4).",
    "output.stop.confidence": "Probability that a stopped run's verdicts are right, split "
    "over the boundaries where it may stop (default 0.95).",
    "output.stop.decide[].metric": "A window metric's summary name: utilization, goodput, "
    "drop rate, mean queue, queueing delays.",
    "output.stop.decide[].op": '`">="` or `"<="`.',
    "output.stop.decide[].bound": "In the metric's unit (fraction, seconds, packets, bits/s).",
    "fluid.step": "Integration step (default: a fraction of the smallest RTT).",
    "fluid.model": '`"mgt"` (per-flow windows, paper 004) or `"hybrid"` (paper 003).',
    "fluid.sync": "Loss synchronization X (paper 004 eq. 8): the least fraction of flows "
    "that cut at an overflow (unset: every flow, in proportion to its rate).",
    "fluid.sync_policy": "How the flows that cut are picked.",
    "fluid.sync_sd": "Standard deviation of the number that cut.",
    "fluid.decrease": 'How a loss cuts a fluid window: at once (`"event"`) or as a rate.',
    "pool.size": 'The shared buffer, as `link.buffer` is given (`"4MB"`, `"2000pkt"`, '
    '`"100us"` of one port\'s line rate, `"1BDP"`); the threshold counts in its unit.',
    "pool.ports": "Egress ports (1 to 64), each a copy of `[link]`.",
    "pool.alpha": "The threshold's factor (default 1): one busy port may take "
    "alpha/(1+alpha) of the pool, n busy ports alpha/(1+n alpha) each.",
    "pool.algorithm": 'The buffer management: `"dt"` (default), the dynamic threshold; '
    '`"static"`, a partition of pool/ports per port; `"complete"`, any port while the pool '
    'has room; `"lqd"`, longest-queue drop (a full pool pushes the longest queue\'s tail '
    'out); `"abm"`, ABM (Addanki et al. 2022): alpha/n (free pool), n the congested ports; '
    '`"fab"`, FAB (Apostolaki et al. 2019): the dynamic threshold, with `fab.alpha` for a '
    "flow's first bytes.",
    "pool.interval": "ABM's update interval of its count of congested ports (default "
    '`"30us"`; abm only).',
    "pool.unscheduled": "ABM's priority for a transfer's first-RTT packets, as the authors' "
    'code has it (table, e.g. `{alpha = 1024, bytes = "100KB"}`): a sender tags each packet '
    "sent while its transfer's data sent so far (retransmissions too) is below `bytes` "
    "(default one BDP of the link), and ABM's threshold takes `alpha` (default 1024) for a "
    "tagged packet. The other algorithms ignore it. Unset: no packet tagged.",
    "pool.fab": "FAB's flow-aware priority, as the ABM authors' code has it (table, e.g. "
    '`{window = "5ms", bytes = "21000B", alpha = 1024}`): each port counts each flow\'s '
    "bytes, from 0 again after `window` (default 5 ms) of silence; a packet whose flow's "
    "count, its own included, is below `bytes` (default 15 packets of the link's size) is "
    "admitted with `alpha` (default 1024) in the dynamic threshold. Read by fab only; the "
    "other algorithms ignore it.",
    "fabric": "A leaf-spine fabric of switches and hosts (table), in place of `link`.",
    "fabric.form": '`"leaf_spine"` (the default and only form).',
    "fabric.leaves": "Leaf (top-of-rack) switches (1 to 1024).",
    "fabric.spines": "Spine switches (1 to 1024), each joined to every leaf.",
    "fabric.hosts_per_leaf": "Hosts under each leaf (leaves x hosts_per_leaf: 2 to 16384).",
    "fabric.links_per_pair": "Parallel links between each leaf and each spine (default 1, "
    "at most 64); ECMP picks one per transfer.",
    "fabric.host_rate": "Rate of the host links (NIC uplinks and leaf downlinks); `load` "
    "is a fraction of it.",
    "fabric.fabric_rate": "Rate of the leaf-spine links (default `host_rate`).",
    "fabric.delay": "Every link's one-way propagation delay; a transfer's RTT is its "
    "path's links' delays both ways.",
    "fabric.buffer": 'Each switch\'s buffer in bytes, e.g. `"2MB"` (or '
    "`buffer_per_port_per_gbps`).",
    "fabric.buffer_per_port_per_gbps": "A switch's buffer per port per Gbps of its ports, "
    "e.g. `\"9.6KB\"` (ABM's setup, Broadcom Tomahawk's ratio).",
    "fabric.spine_buffer": 'A spine\'s buffer in bytes, e.g. `"1MB"`, when not as a '
    "leaf's: `advise` then sizes the leaves' (`fabric.buffer`) with the spines' kept.",
    "fabric.nic_buffer": "The hosts' NIC queues' own buffer (default `\"1000pkt\"`, "
    "Linux's txqueuelen); a NIC is on no switch's buffer.",
    "fabric.algorithm": 'Every switch\'s buffer management, as `pool.algorithm` (default `"dt"`).',
    "fabric.alpha": "The threshold's factor, as `pool.alpha` (default 1).",
    "fabric.interval": "ABM's update interval, as `pool.interval` (abm only).",
    "fabric.unscheduled": "ABM's first-RTT priority, as `pool.unscheduled` (table); "
    "`bytes` by default one BDP of a host link over the longest path (10 Gbps x 80 us: "
    "100 KB, the authors' `RTTBytes`).",
    "fabric.fab": "FAB's flow-aware priority, as `pool.fab` (table); `bytes` by default 15 "
    "packets of `packet_size` (21,000 bytes at 1400, the authors' `FabThreshold`).",
    "fabric.packet_size": "Reference packet size, as `link.packet_size`.",
    "fabric.qdisc": 'Every port\'s queue discipline, as `link.qdisc` (e.g. `"threshold"` '
    "to mark for DCTCP).",
    "fabric.qdisc_params": "Its parameters, as `link.qdisc_params`.",
    "fabric.scheduler": "With `queues`: every port's scheduler, as `link.scheduler`.",
    "fabric.queues": "Several queues per port, as `link.queues` (list of tables).",
    "flows[].hosts": 'In a `[fabric]`: `"random"`, each transfer between a uniformly drawn '
    "pair of distinct hosts (the default without `src` and `dst`).",
    "flows[].src": "In a `[fabric]`: the host its transfers leave from (default: drawn).",
    "flows[].dst": "In a `[fabric]`: the host its transfers go to (default: drawn); with "
    "`src` drawn and `arrival.burst`, an incast of distinct servers.",
    "flows[].incast": "In a `[fabric]`: an incast query workload (table), the group's "
    "transfers its responses: `servers` (hosts asked per query, distinct, not the client), "
    '`response` (all servers together: bytes, `"500KB"`, or a fraction of the client\'s '
    'switch buffer, `"0.3 buffer"`; split evenly, rounded up to whole packets), `rate` '
    '(queries per second, Poisson, `"2/s"`) and optionally `client` (a host; default drawn '
    "per query). A query's responses start together; the summary's `qct_*` time the last.",
    "reverse.capacity": "The reverse link's rate (default: `link.capacity`).",
    "reverse.buffer": "Its buffer, as `link.buffer` is given; ACKs count as packets.",
    "reverse.qdisc": 'Its queue discipline (default `"droptail"`); ACKs are not ECN-capable '
    "(RFC 3168 section 6.1.4): an AQM drops them.",
    "reverse.qdisc_params": "Its discipline's parameters (a table).",
    "reverse.ack_size": 'An ACK\'s size on the wire (default `"40B"`: IP and TCP headers).',
    "reverse.flows": "The flow groups sending over the reverse link (list of tables).",
}

# A link of a chain has the fields of `link`, and a reverse group those of
# a flow group, meaning the same.
DESCRIPTIONS.update(
    {f"links[]{k[4:]}": v for k, v in list(DESCRIPTIONS.items()) if k.startswith("link.")}
)
DESCRIPTIONS.update(
    {f"reverse.{k}": v for k, v in list(DESCRIPTIONS.items()) if k.startswith("flows[].")}
)
# The queues of a port (on `link` only: a chain's links refuse them).
DESCRIPTIONS.update(
    {
        "link.queues[].class": "Its traffic class, 0 to 7, each once.",
        "link.queues[].qdisc": "Its queue discipline (default: `link.qdisc` with its params).",
        "link.queues[].qdisc_params": "Its discipline's parameters (a table).",
        "link.queues[].weight": 'Its DWRR weight, 1 to 1000 (default 1; `"dwrr"` only): '
        "backlogged queues share the link in proportion.",
        "link.queues[].buffer": "Its own buffer, as `link.buffer` is given (default "
        "`link.buffer`).",
        "link.queues[].alpha": "With a `[pool]`: its class's factor of the dynamic threshold, "
        "alpha_c (free pool) (Hahne & Choudhury 2002; default `pool.alpha`).",
    }
)

_EXPECTED = re.compile(r"expected one of (.*)$")


def _at(raw: dict[str, Any], table: str) -> dict[str, Any]:
    """The table ``table`` (a path as in :data:`TABLES`) inside ``raw``."""
    d: Any = raw
    for part in [p for p in table.split(".") if p]:
        key = part.removesuffix("[]")
        d = d.setdefault(key, [{}] if part.endswith("[]") else {})
        if part.endswith("[]"):
            d = d[0]
    return d


def _error(raw: dict[str, Any]) -> str:
    """The core's error for ``raw``, or an empty string if it is valid."""
    try:
        _core.Scenario(json.dumps(raw))
    except BufsimError as e:
        return str(e)
    return ""


def fields(table: str) -> list[str]:
    """The fields the core accepts in ``table`` (a key of :data:`TABLES`),
    in the schema's order, as full paths (``flows[].rtt``)."""
    raw = copy.deepcopy(_BASE)
    _at(raw, table)["zz_not_a_field"] = 1
    m = _EXPECTED.search(_error(raw))
    if m is None:
        raise BufsimError(f"the core did not list the fields of {table or 'the top level'}")
    prefix = f"{table}." if table else ""
    return [prefix + f.strip("`") for f in re.findall(r"`[^`]+`", m.group(1))]


def bad_value_error(path: str) -> str:
    """What the core says to field ``path`` set to the string ``"bogus!"``
    (its type, unit or allowed names), without the path; empty when it
    takes any string (a name)."""
    table, _, key = path.rpartition(".")
    raw = copy.deepcopy(_BASE)
    _at(raw, table)[key] = "bogus!"
    msg = _error(raw)
    msg = re.sub(r"^\S+: ", "", msg)
    table_like = ("expected struct", "expected a sequence", "expected a map")
    return "a table" if any(t in msg for t in table_like) else msg


def _registry(kind: str) -> list[dict[str, Any]]:
    return json.loads(_core.variants() if kind == "tcp" else _core.disciplines())


def params(kind: str, name: str) -> list[str]:
    """The parameter names the core accepts for TCP variant ``name``
    (``kind="tcp"``, its ``tcp_params``) or discipline ``name``
    (``kind="qdisc"``, its ``qdisc_params``)."""
    raw = copy.deepcopy(_BASE)
    if kind == "tcp":
        raw["flows"][0].update(tcp=name, tcp_params={"zz_not_a_field": 1})
    else:
        raw["link"].update(qdisc=name, qdisc_params={"zz_not_a_field": 1})
    m = re.search(r"allowed are (.*)$", _error(raw))
    names = [p.strip() for p in m.group(1).split(",")] if m else []
    return [] if names == ["none"] else names


def _params_text(kind: str, entry: dict[str, Any]) -> str:
    """Each parameter with its default (the registry's, normalized: seconds
    and bytes), or what the core requires."""
    defaults = entry["defaults"] or {}
    shown = []
    for k in params(kind, entry["name"]):
        d = next((defaults[n] for n in (k, f"{k}_s", f"{k}_bytes") if n in defaults), None)
        unit = " s" if f"{k}_s" in defaults else " B" if f"{k}_bytes" in defaults else ""
        shown.append(f"`{k}` ({json.dumps(d)}{unit})" if d is not None else f"`{k}`")
    if entry.get("required"):
        shown.append(f"`{entry['required']}` (required)")
    return ", ".join(shown) or "(none)"


def markdown() -> str:
    """The docs site's scenario reference page (Markdown)."""
    out = [
        "# Scenario reference",
        "",
        "Every field a scenario file (TOML or JSON) may hold, generated from the core's "
        "schema when the site is built (`bufsim.reference`): the fields each table "
        "accepts, what each means, and what a wrong value gets (the error shows its "
        "type, unit or allowed names). Units are written with the value: "
        '`"100ms"`, `"50Mbps"`, `"1500B"`, `"20pkt"`.',
        "",
    ]
    for table, what in TABLES.items():
        out += [
            f"## {table or 'Top level'}",
            "",
            what,
            "",
            "| field | meaning | a wrong value gets |",
        ]
        out.append("|---|---|---|")
        for path in fields(table):
            err = bad_value_error(path).replace("|", "\\|") or "(any name)"
            key = path.rpartition(".")[2]
            out.append(f"| `{key}` | {DESCRIPTIONS.get(path, '')} | {err} |")
        out.append("")
    out += [
        "## TCP variants and their `tcp_params`",
        "",
        "| `tcp` | also | `tcp_params` (default) |",
        "|---|---|---|",
    ]
    for v in _registry("tcp"):
        out.append(f"| `{v['name']}` | {', '.join(v['aliases'])} | {_params_text('tcp', v)} |")
    out += [
        "",
        "## Queue disciplines and their `qdisc_params`",
        "",
        "| `qdisc` | fluid engine | drop reasons | `qdisc_params` (default) |",
        "|---|---|---|---|",
    ]
    for q in _registry("qdisc"):
        out.append(
            f"| `{q['name']}` | {'yes' if q['fluid'] else 'no'} | "
            f"{', '.join(q['drop_reasons'])} | {_params_text('qdisc', q)} |"
        )
    return "\n".join(out) + "\n"


#: The profiles of ``flows[].stack``, in the stack-profile table's order.
STACK_PROFILES = ("rfc", "linux", "ns3", "ns2")

#: Stack field -> where each profile's value comes from, in a few words
#: (``rfc``, ``linux``, ``ns3``, ``ns2``): the RFC, the Linux function or
#: constant, the ns-3 attribute or method, the ns-2.35 variable
#: (``ns-default.tcl``) or function (``tcp/*.cc``), with what ns-2 does
#: that the packet engine does not mirror. The table of the Engines page
#: gives each profile's value (from the core) with these; the page's
#: section on the field below the table says the rest. A field the core adds needs an
#: entry here and a section there (a test checks both).
STACK_SOURCES: dict[str, tuple[str, str, str, str]] = {
    "initial_window": (
        "ns-2 runs; RFC 5681",
        "`TCP_INIT_CWND`",
        "`TcpSocket::InitialCwnd`",
        "`windowInit_`",
    ),
    "min_rto": (
        "RFC 6298 (2.4)",
        "`TCP_RTO_MIN`",
        "`TcpSocketBase::MinRto`",
        "`minrto_`; no `tcpTick_` rounding",
    ),
    "initial_rto": (
        "RFC 6298 (2.1): 1 s",
        "`TCP_TIMEOUT_INIT` 1 s",
        "`InitialEstimation` 1 s; SYN `ConnTimeout` 3 s",
        "SYN `rtxcur_init_` 3 s; data 1 s",
    ),
    "connection_setup": (
        "RFC 6298 (2.1)",
        "`TCP_TIMEOUT_INIT`",
        "`ProcessSynSent`",
        "`syn_`; `rtxcur_init_` 3 s",
    ),
    "sack": ("RFC 6675", "`tcp_sack`", "`Sack`", "`Sack1`"),
    "recovery": ("RFC 6675 DupThresh", "`tcp_recovery` = 1", "ns-3 has no RACK", "`numdupacks_` 3"),
    "prr": ("RFC 6675", "`tcp_cwnd_reduction`", "`TcpPrrRecovery`", "Sack1's `pipe_` < `cwnd_`"),
    "prr_variant": ("RFC 9937", "RFC 9937", "`DoRecovery`", "no PRR"),
    "hystart": ("", "CUBIC's HyStart", "ns-3 has none", "ns-2 has none"),
    "abc": ("RFC 5681 eq. (2)", "`tcp_slow_start`", "`TcpNewReno::SlowStart`", "`opencwnd`"),
    "limited_transmit": (
        "ns-2 runs",
        "`tcp_packets_in_flight`",
        "`LimitedTransmit`",
        "`singledup_` 1",
    ),
    "partial_ack_retransmit": (
        "RFC 6675",
        "`tcp_newreno_mark_lost`",
        "`ProcessAck`",
        "`partial_ack_` false",
    ),
    "dupack_growth": (
        "RFC 5681 section 3.1",
        "`tcp_may_raise_cwnd`",
        "`DupAck`",
        "`recv_newack_helper`",
    ),
    "rto_ssthresh": (
        "RFC 5681 eq. (4)",
        "`tcp_enter_loss`",
        "`ReTxTimeout`",
        "`slowdown`, from cwnd",
    ),
    "rto_collapse": ("RFC 6298 section 5", "`tcp_ack_update_rtt`", "`NewAck`", "`newack`"),
    "rto_timer": ("RFC 6298 section 5.2", "`tcp_rearm_rto`", "`NewAck`", "`restart_bugfix_`"),
    "recovery_entry": ("RFC 6675 section 5", "RACK replaces it", "`DupAck`", "`numdupacks_` only"),
    "sack_pipe": (
        "RFC 6675 section 4",
        "`tcp_sacktag_one`",
        "`TcpTxBuffer::Update`",
        "Sack1's `pipe_`",
    ),
    "recovery_exit": (
        "RFC 6675 section 5",
        "`tcp_end_cwnd_reduction`",
        "`ProcessAck`",
        "Sack1's `newack`",
    ),
    "rtt_sampling": (
        "RFC 6298 section 3",
        "`tcp_rtt_estimator`",
        "`EstimateRtt`",
        "`rtt_seq_`; no `tcpTick_` ticks",
    ),
    "cut_from": (
        "RFC 5681 eq. (4)",
        "Linux's controllers",
        "`BytesInFlight()`",
        "`slowdown`: cwnd",
    ),
    "ecn_reduction": ("RFC 3168 section 6.1.2", "`tcp_enter_cwr`", "`EnterCwr`", "`TcpAgent::ecn`"),
    "ce_ack": (
        "RFC 8257 section 3.2",
        "`dctcp_ece_ack_update`",
        "`TcpDctcp::CeState0to1`",
        "no DCTCP here",
    ),
    "delayed_ack": ("the papers' runs", "`__tcp_ack_snd_check`", "`DelAckCount` 2", "`TCPSink`"),
    "delack_timeout": (
        "RFC 5681 section 4.2",
        "`TCP_ATO_MIN`",
        "`DelAckTimeout`",
        "DelAck `interval_`",
    ),
    "quick_acks": ("", "`TCP_MAX_QUICKACKS`", "`ProcessSynSent`", "`SYN_immediate_ack_`"),
    "push_ack": ("", "`tcp_cleanup_rbuf`", "", "`DelAckSink::recv`"),
    "control_ect": (
        "RFC 3168 section 6.1.1",
        "`tcp_ecn_send_syn`",
        "`AddSocketTags`",
        "`ecn_syn_` false",
    ),
}


def _stack_value(field: str, key: str, value: Any) -> str:
    """A profile's value as a scenario file writes it, in code."""
    from bufsim import fmt

    if value is None:
        # A field no profile sets (initial_rto): absent from the group.
        return "unset"
    if field == "recovery":
        value = "rack" if value else "rfc6675"
    if key.endswith("_s"):
        return fmt.metric(key, value)
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    return f"`{value}`"


def default_stack() -> str:
    """The profile a flow group that names none gets (from the core)."""
    probe = copy.deepcopy(_BASE)
    group = json.loads(_core.Scenario(json.dumps(probe)).normalized())["flows"][0]
    return str(group["stack"])


def stack_table() -> str:
    """The Engines page's stack-profile table, one line a cell: per field of
    :data:`bufsim.scenario.STACK_FIELDS` (its name linking to its section
    on the page) each profile's value, read from the core, with its source
    (:data:`STACK_SOURCES`); a value that differs by TCP variant names the
    variants."""
    from bufsim.scenario import STACK_FIELDS, VARIANTS, _profile

    default = default_stack()
    heads = [f"`{p}`" + (" (default)" if p == default else "") for p in STACK_PROFILES]
    lines = ["| field | " + " | ".join(heads) + " |", "|---" * (len(heads) + 1) + "|"]
    for field, key, _ in STACK_FIELDS:
        sources = STACK_SOURCES.get(field, ("",) * len(STACK_PROFILES))
        cells = []
        for profile, source in zip(STACK_PROFILES, sources, strict=True):
            base = _profile(profile, "newreno", True)
            assert base is not None
            cell = _stack_value(field, key, base.get(key)) + (f" ({source})" if source else "")
            other = []
            for name in VARIANTS:
                group = _profile(profile, name, True)
                if group is not None and group.get(key) != base.get(key):
                    other.append(f"{name} {_stack_value(field, key, group.get(key))}")
            cells.append(cell + ("; " + ", ".join(other) if other else ""))
        lines.append(f"| [`{field}`](#{field}) | " + " | ".join(cells) + " |")
    return "\n".join(lines)
