"""Paper 003 (Avrachenkov, Ayesta & Piunovskiy, *Optimal choice of the buffer
size in the Internet routers*), section III: N NewReno flows with one RTT.

The bottleneck is 100 Mbps, 500 B packets, with a BDP of 150 packets (a 6 ms
round trip; every flow has the same RTT, which the paper says synchronizes
them). The paper's 100 Mbps access links are left out: they only pace each
sender (with them, B0 is 140 and 130 packets for N = 5 and 20 instead of 150
and 140). The paper reports, for N = 5 and N = 20: mean rate at B = 0 of
64.4 and 66.6 Mbps (Corollary 1 says 75); the smallest buffer giving 99.9%
utilization, B0, of 120 and 70 packets; the synchronized B0 of Theorem 1,
(mu RTT)^2/(18 N), of 250 and 62.5. Here: Theorem 1 (synchronized), the
fluid engine (Misra-Gong-Towsley with X = 1) and the packet engine over a
range of buffers, for N = 1, 2, 5, 10 and 20 (1, 5 and 20 in the quick
version). The packet engine's smallest buffer is one packet where ns-2 used
zero. Figure 7 (the Pareto set of rate against mean queue) and Figure 8 (B0
and the relative error of the three rules against N) are redrawn with the
paper's published values on them.

Why the packet engine's B0 does not fall from N = 5 to N = 20 (150 and 140
packets, where ns-2 gave 120 and 70): its identical flows are exactly
synchronized. Every flow halves its window in every congestion episode, and
synchronized window-based flows need B0 = BDP whatever N is: the aggregate
window W = BDP + B halves and must stay >= BDP, so B >= BDP (the statement
of Appenzeller et al. that the paper disputes). Measured over one RTT at a
full buffer (6 ms + B/C) the loss synchronization is 1.00 for every N at
B >= 100 packets; the summary's default sync_mean (a 6 ms window) reads 0.50
because an episode of drops lasts about two propagation RTTs (the queue
adds up to 6 ms) and is cut into two partial events (into three, 0.33, at
some buffers from 180 packets on): at B = 120, 40 s, the two windows count
242 and 121 events (N = 5) and 704 and 352 (N = 20) in runs otherwise
bit-identical (the window only changes the statistic). B0 is 140-150 packets for N = 1,
2, 5, 10 and 20 alike. Theorem 1's rate model lets the aggregate rate
overshoot the capacity by 2/(1+beta) = 4/3 before a cut, so its B0 falls
with alpha = N/RTT^2; a window sender with a full queue is held at the
capacity by its ACK clock, and only desynchronization lowers B0. The
windows show it (N = 20, B = 120, 1 ms samples over 20 s): after an episode
the 20 congestion windows add up to 164 packets, about the BDP, and the
queue is empty 4.6% of the time (utilization 0.994); with 200 us of send
jitter only part of the flows cut, the sum stays at 235 and the queue never
falls below 17 packets (utilization 1.000).

The candidates, each changed alone (B0 for N = 5 / 20 from 100 s runs on a
grid of 10 packets; the run table has this module's own numbers): delayed
ACKs 100 / 80 (they desynchronize: 0.44 / 0.28 of the flows lose per
episode, with many timeouts at N = 20); send jitter (flows[].jitter, ns-2's
overhead_) of 40 us 150 / 140, 80 us 140 / 100, 120 us 140 / 70-80, 200 us
120-130 / 70 over seeds 1-3 (sync 0.66 / 0.45), 400 us 120-130 / 70; random
starts in [0, 1 s] 160 / 140 (the flows fall back into step); SACK 140 /
140; min_rto 200 ms 150 / 140; 100 Mbps access links 140 / 130; a 99%
target instead of 99.9% 120 / 120; 40 s instead of 100 s runs the same. So
the cause is the synchronization, not the TCP details, the target or the
measurement window: with 200 us of send jitter (JITTER, five packet times
at 100 Mbps) bufsim gives the paper's 120 and 70 packets, and the paper's
ratio 70/120. The paper does not say what desynchronized its ns-2 flows.
Jitter has a cost at tiny buffers: 5 flows through a 1-packet buffer get
74 Mbps when deterministic (the ACK clock spaces their packets) and collapse
with jitter (collisions, timeouts); ns-2's 64.4 Mbps at B = 0 lies between.

Paper inconsistencies: section III says "equation (12) gives a value of 250
(N=5) and 62 (N=20)": those are the synchronized B0 = (mu RTT)^2/(18 n);
eq. (12) (desynchronized) gives 6.2 and 0.09 packets. Its Stanford rule
values, "67 (N=5) and 21 (N=20)": mu RTT/sqrt(N) = 150/sqrt(N) gives 67.1
and 33.5 (and 100/sqrt(20) = 22.4 with the 4 ms RTT below): 21 is a slip.
The BDP of 150 packets needs a 6 ms RTT, while the delays listed (1 ms
bottleneck, 1 ms access links) make 4 ms (100 packets): bufsim keeps the
stated BDP. Section II says the simulations do not confirm that
synchronized flows need the BDP; bufsim's synchronized flows do need it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

import bufsim
import bufsim.models as m
from bufsim.reproduce import Claims, variant

BASE: dict[str, Any] = {
    "name": "avrachenkov2006",
    "duration": "120s",
    "warmup": "20s",
    "seed": 1,
    "link": {"capacity": "100Mbps", "delay": "1ms", "buffer": "1pkt"},
    "flows": [
        {
            "count": 5,
            "tcp": "newreno",
            "sack": False,
            "rtt": "6ms",
            "mss": "500B",
        }
    ],
}

#: N -> (rate at B = 0 in Mbps, B0 in packets) as the paper reports from ns-2.
PAPER = {5: (64.4, 120), 20: (66.6, 70)}

#: N -> (eq. (12) as the paper quotes it, BDP, Stanford rule), packets, section III.
PAPER_RULES = {5: (250.0, 150.0, 67.0), 20: (62.0, 150.0, 21.0)}

#: Bandwidth-delay product, packets: 100 Mbps x 6 ms / 500 B.
BDP_PKTS = 150.0

#: Utilization that defines B0 (section III: "greater than 99.9%").
TARGET = 0.999

#: Send jitter that desynchronizes the flows (ns-2's overhead_): five packet times at 100 Mbps.
JITTER = "200us"

#: Flow settings tried as the cause of B0 not falling with N: name -> flow fields.
SETTINGS: dict[str, dict[str, Any]] = {
    "deterministic": {},
    "jitter": {"jitter": JITTER},
    "delayed_ack": {"delayed_ack": True},
    "sack": {"sack": True},
    "random_start": {"start": {"uniform": ["0s", "1s"]}},
    "min_rto": {"min_rto": "200ms"},
    "access_links": {"access_rate": "100Mbps"},
}

NS = (1, 2, 5, 10, 20)
QUICK_NS = (1, 5, 20)
BUFFERS = (1, 5, 10, 20, 40, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150, 160, 180, 200, 250)
QUICK_BUFFERS = (1, 20, 60, 70, 80, 100, 120, 130, 140, 150, 160)
#: Buffers searched (bisection) for the other settings, packets.
SEARCH_BUFFERS = tuple(range(20, 210, 10))


def scenario(
    n: int, buffer_pkts: int, duration: str = "120s", *, jitter: str | None = None
) -> dict[str, Any]:
    """The raw scenario for N flows and a buffer in packets.

    Parameters
    ----------
    n : int
        Number of flows.
    buffer_pkts : int
        Bottleneck buffer, packets (>= 1).
    duration : str
        Simulated time with its unit.
    jitter : str, optional
        Send jitter of every flow with its unit (``"200us"``); default none.
    """
    s = variant(
        BASE, f"avrachenkov2006-n{n}-b{buffer_pkts}", duration=duration, buffer_pkts=buffer_pkts
    )
    s["flows"][0]["count"] = n
    if jitter is not None:
        s["flows"][0]["jitter"] = jitter
    return s


def episode_rtt_ms(buffer_pkts: float) -> float:
    """Round-trip time with a full buffer, ms: 6 ms + B x 500 B / 100 Mbps.

    The window over which :func:`run` measures loss synchronization (the
    scenario's ``link.bdp_rtt``): one congestion episode lasts about this long.

    Parameters
    ----------
    buffer_pkts : float
        Bottleneck buffer, packets of 500 B.

    Returns
    -------
    float
        Milliseconds (6.0 for an empty buffer, 12.0 for 150 packets).
    """
    return 6.0 + buffer_pkts * 500 * 8 / 100e6 * 1e3


def b0(buffers, utilization, threshold: float = TARGET) -> float:
    """Smallest buffer whose utilization reaches ``threshold`` (NaN if none).

    Parameters
    ----------
    buffers : array_like
        Buffers measured, packets.
    utilization : array_like
        Utilization at each buffer, 0..1.
    threshold : float
        The target, 0..1 (default :data:`TARGET`, the paper's 99.9%).

    Returns
    -------
    float
        Packets.
    """
    ok = [b for b, u in zip(buffers, utilization) if u >= threshold]
    return float(min(ok)) if ok else float("nan")


def _packet(n: int, buf: int, setting: str, duration: str, warmup: str) -> dict[str, Any]:
    raw = scenario(n, buf, duration)
    raw["warmup"] = warmup
    raw["flows"][0].update(SETTINGS[setting])
    raw["link"]["bdp_rtt"] = f"{episode_rtt_ms(buf):g}ms"
    s = bufsim.simulate(raw).summary
    return {
        "setting": setting,
        "n": n,
        "buffer_pkts": buf,
        "packet": s["utilization"],
        "packet_mean_queue_pkts": s["mean_queue_pkts"],
        "packet_sync": s["sync_mean"],
        "packet_timeouts": s["timeouts"],
    }


def _model_and_fluid(n: int, buf: int, duration: str, warmup: str) -> dict[str, Any]:
    raw = scenario(n, buf, duration)
    raw["warmup"] = warmup
    scn = bufsim.Scenario.load(raw)
    theory = m.predict(scn, model="avrachenkov_sync")
    fluid = bufsim.simulate({**raw, "fluid": {"sync": 1.0}}, engine="fluid")
    row = {
        "theorem1": theory.summary["utilization"],
        "theorem1_mean_queue_pkts": theory.summary["mean_queue_pkts"],
        "fluid": fluid.summary["utilization"],
    }
    if n in PAPER:
        # The summary's own synchronization window: one propagation RTT (6 ms).
        row["packet_sync_rtt"] = bufsim.simulate(raw).summary["sync_mean"]
    return row


def _search(n: int, setting: str, duration: str, warmup: str) -> list[dict[str, Any]]:
    """Bisection for B0 over :data:`SEARCH_BUFFERS` (utilization taken as rising with B)."""
    grid = SEARCH_BUFFERS
    rows: dict[int, dict[str, Any]] = {}
    lo, hi = -1, len(grid) - 1
    rows[grid[hi]] = _packet(n, grid[hi], setting, duration, warmup)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        rows[grid[mid]] = _packet(n, grid[mid], setting, duration, warmup)
        if rows[grid[mid]]["packet"] >= TARGET:
            hi = mid
        else:
            lo = mid
    return [rows[b] for b in sorted(rows)]


def run(quick: bool = False, progress: Callable[[str], Any] | None = None) -> pd.DataFrame:
    """Utilization, mean queue and synchronization against the buffer.

    Parameters
    ----------
    quick : bool
        40 s runs (10 s warm-up), N in :data:`QUICK_NS` and buffers in
        :data:`QUICK_BUFFERS`, instead of 120 s, :data:`NS` and :data:`BUFFERS`.
    progress : callable, optional
        Called with a line of text before each case.

    Returns
    -------
    pandas.DataFrame
        One row per (setting, n, buffer_pkts). ``setting`` names the flows'
        variation (:data:`SETTINGS`): ``deterministic`` (the paper's setup)
        and ``jitter`` cover every buffer and N; the others only N = 5 and 20
        at the buffers a bisection for B0 visited. Columns: ``packet``
        (utilization, 0..1), ``packet_mean_queue_pkts`` (packets),
        ``packet_sync`` (fraction of flows losing in a congestion episode,
        measured over :func:`episode_rtt_ms`), ``packet_timeouts``; on the
        deterministic rows also ``theorem1`` and ``fluid`` utilizations,
        ``theorem1_mean_queue_pkts`` and, for N = 5 and 20,
        ``packet_sync_rtt`` (the same with the summary's 6 ms window).
    """
    buffers = QUICK_BUFFERS if quick else BUFFERS
    ns = QUICK_NS if quick else NS
    duration, warmup = ("40s", "10s") if quick else (BASE["duration"], BASE["warmup"])
    rows = []
    for setting in ("deterministic", "jitter"):
        for n in ns:
            for buf in buffers:
                if progress:
                    progress(f"running avrachenkov2006 {setting} N={n} buffer={buf}pkt ...")
                row = _packet(n, buf, setting, duration, warmup)
                if setting == "deterministic":
                    row.update(_model_and_fluid(n, buf, duration, warmup))
                rows.append(row)
    for setting in [s for s in SETTINGS if s not in ("deterministic", "jitter")]:
        for n in PAPER:
            if progress:
                progress(f"running avrachenkov2006 {setting} N={n}: bisection for B0 ...")
            rows.extend(_search(n, setting, duration, warmup))
    return pd.DataFrame(rows)


def _setting(table: pd.DataFrame, setting: str) -> pd.DataFrame:
    if "setting" not in table:
        return table
    return table[table["setting"] == setting]


def summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per N: the rate at the smallest buffer (Mbps) and B0 (packets) for each
    source, next to the paper and the rules.

    Returns
    -------
    pandas.DataFrame
        One row per N of the deterministic rows: ``paper_rate_B0_mbps``,
        ``packet_rate_B1_mbps``, ``jitter_rate_B1_mbps``,
        ``corollary1_mbps``, ``paper_B0``, ``packet_B0``, ``jitter_B0``,
        ``fluid_B0``, ``packet_B0_99`` (B0 at a 99% target), ``<setting>_B0``
        for the other settings (N = 5 and 20), ``packet_sync_at_B0``,
        ``jitter_sync_at_B0``, ``eq12_B0`` (Theorem 1 synchronized,
        BDP^2/(18 N)), ``eq12_desync_B0`` (eq. (12)), ``bdp``, ``stanford``.
    """
    det = _setting(table, "deterministic")
    out = []
    for n, g in det.groupby("n"):
        g = g.sort_values("buffer_pkts")
        paper = PAPER.get(n, (math.nan, math.nan))
        row: dict[str, Any] = {
            "n": n,
            "paper_rate_B0_mbps": paper[0],
            "packet_rate_B1_mbps": 100 * g["packet"].iloc[0],
            "corollary1_mbps": 100 * float(m.corollary1_rate(1.0, 0.5)),
            "paper_B0": paper[1],
            "packet_B0": b0(g["buffer_pkts"], g["packet"]),
            "fluid_B0": b0(g["buffer_pkts"], g["fluid"]),
            "packet_B0_99": b0(g["buffer_pkts"], g["packet"], 0.99),
        }
        for setting in SETTINGS:
            if setting == "deterministic":
                continue
            s = _setting(table, setting)
            s = s[s["n"] == n].sort_values("buffer_pkts")
            if setting == "jitter" and len(s):
                row["jitter_rate_B1_mbps"] = 100 * s["packet"].iloc[0]
            row[f"{setting}_B0"] = b0(s["buffer_pkts"], s["packet"]) if len(s) else math.nan
        for name, s in (("packet", g), ("jitter", _setting(table, "jitter"))):
            at = s[(s["n"] == n) & (s["buffer_pkts"] == row[f"{name}_B0"])]
            row[f"{name}_sync_at_B0"] = float(at["packet_sync"].iloc[0]) if len(at) else math.nan
        row["eq12_B0"] = float(np.asarray(m.b0_symmetric(BDP_PKTS, n, synchronized=True)))
        row["eq12_desync_B0"] = float(np.asarray(m.b0_symmetric(BDP_PKTS, n, synchronized=False)))
        row["bdp"] = BDP_PKTS
        row["stanford"] = float(np.asarray(m.stanford_buffer_pkts(BDP_PKTS, n)))
        out.append(row)
    return pd.DataFrame(out)


def relative_errors(s: pd.DataFrame, reference: str) -> pd.DataFrame:
    """Figure 8's relative error |B0_rule - B0| / B0 of each rule, per N.

    Parameters
    ----------
    s : pandas.DataFrame
        From :func:`summary`.
    reference : str
        The measured B0 column (``packet_B0``, ``jitter_B0`` or ``paper_B0``).

    Returns
    -------
    pandas.DataFrame
        Indexed by N: ``theorem1`` (synchronized B0), ``bdp``, ``stanford``.
    """
    ref = s.set_index("n")[reference]
    rules = s.set_index("n")[["eq12_B0", "bdp", "stanford"]]
    err = rules.sub(ref, axis=0).abs().div(ref, axis=0)
    return err.rename(columns={"eq12_B0": "theorem1"})


def _paper_errors() -> pd.DataFrame:
    """Figure 8's relative errors from the paper's own numbers (section III)."""
    rows = {
        n: {
            k: abs(v - PAPER[n][1]) / PAPER[n][1]
            for k, v in zip(("theorem1", "bdp", "stanford"), r)
        }
        for n, r in PAPER_RULES.items()
    }
    return pd.DataFrame.from_dict(rows, orient="index")


def _row(table: pd.DataFrame, setting: str, n: int, buf: int) -> pd.Series:
    t = _setting(table, setting)
    return t[(t["n"] == n) & (t["buffer_pkts"] == buf)].iloc[0]


def _claims_rate_at_zero(c: Claims, table: pd.DataFrame, s: pd.DataFrame) -> None:
    for n in PAPER:
        r = s.loc[n]
        rate = float(r["packet_rate_B1_mbps"])
        c.add(
            f"rate at B = 0, N = {n}",
            f"{PAPER[n][0]} Mbps from ns-2 (Corollary 1: 75)",
            rate,
            abs(rate - PAPER[n][0]) <= 3.0,
            f"packet engine at 1 packet (ns-2 used 0); Corollary 1 gives {r['corollary1_mbps']:.1f}. "
            "The deterministic flows' ACK clock spaces their packets so they rarely collide; with "
            f"{JITTER} of send jitter they collide and time out: {r['jitter_rate_B1_mbps']:.1f} Mbps. "
            "ns-2's burstiness lies between",
            3.0,
        )


def _claims_b0(c: Claims, table: pd.DataFrame, s: pd.DataFrame) -> None:
    for n in PAPER:
        r = s.loc[n]
        b, j = float(r["packet_B0"]), float(r["jitter_B0"])
        c.add(
            f"B0, N = {n}",
            f"{PAPER[n][1]} packets from ns-2 (utilization > 99.9%)",
            b,
            abs(b - PAPER[n][1]) <= 10,
            f"deterministic flows, fully synchronized (sync {r['packet_sync_at_B0']:.2f} over an "
            f"episode; the summary's 6 ms window reads {_row(table, 'deterministic', n, int(b))['packet_sync_rtt']:.2f}), "
            f"need about the BDP; with {JITTER} send jitter (sync {r['jitter_sync_at_B0']:.2f}) B0 = {j:.0f}",
            10.0,
        )
        c.add(
            f"B0, N = {n}, {JITTER} jitter",
            f"{PAPER[n][1]} packets from ns-2",
            j,
            abs(j - PAPER[n][1]) <= 10,
            "desynchronized flows need less buffer (grid step 10 packets)",
            10.0,
        )
    others = ", ".join(
        f"{k.replace('_', ' ')} {s.loc[5, f'{k}_B0']:.0f}/{s.loc[20, f'{k}_B0']:.0f}"
        for k in SETTINGS
        if k not in ("deterministic", "jitter") and f"{k}_B0" in s
    )
    for name, col in (("deterministic", "packet_B0"), (f"{JITTER} jitter", "jitter_B0")):
        ratio = float(s.loc[20, col] / s.loc[5, col])
        paper = PAPER[20][1] / PAPER[5][1]
        c.add(
            f"B0 falls from N = 5 to 20, {name}",
            f"120 -> 70 packets (ratio {paper:.2f})",
            ratio,
            abs(ratio - paper) <= 0.15,
            f"B0(20)/B0(5) = {s.loc[20, col]:.0f}/{s.loc[5, col]:.0f}; synchronized window flows halve "
            "the aggregate window W = BDP + B, which must stay >= BDP: B0 = BDP for any N. Only "
            f"desynchronization lowers it. B0 N = 5/20 with each other change: {others}; "
            f"99% target {s.loc[5, 'packet_B0_99']:.0f}/{s.loc[20, 'packet_B0_99']:.0f}",
            0.15,
        )


def _claims_rules(c: Claims, s: pd.DataFrame) -> None:
    for n in PAPER:
        v = float(s.loc[n, "eq12_B0"])
        c.add(
            f"eq. (12), N = {n}",
            f"{PAPER_RULES[n][0]:g} packets",
            v,
            abs(v - PAPER_RULES[n][0]) <= 1.0,
            "these are the synchronized B0 = (mu RTT)^2/(18 N) of section II, not eq. (12), which "
            f"(desynchronized) gives {s.loc[n, 'eq12_desync_B0']:.2g}",
            1.0,
        )
        v = float(s.loc[n, "stanford"])
        c.add(
            f"Stanford rule, N = {n}",
            f"{PAPER_RULES[n][2]:g} packets",
            v,
            abs(v - PAPER_RULES[n][2]) <= 1.0,
            "mu RTT / sqrt(N) = 150/sqrt(N)"
            + (
                ""
                if n == 5
                else ": the paper's 21 matches neither this nor 100/sqrt(20) = 22.4 (the 4 ms RTT "
                "of the delays it lists): a slip"
            ),
            1.0,
        )


def _claims_synchronization(c: Claims, table: pd.DataFrame, s: pd.DataFrame) -> None:
    det = _setting(table, "deterministic")
    near = det[(det["n"].isin(list(PAPER))) & (det["buffer_pkts"] >= 100)]
    sync = float(near["packet_sync"].min())
    c.add(
        "synchronization",
        "equal access delays imply the connections will be synchronized",
        sync,
        sync >= 0.95,
        "the least fraction of flows losing per congestion episode, N = 5 and 20, B >= 100 packets",
    )
    b0s = [float(s.loc[n, "packet_B0"]) for n in s.index]
    worst = max(abs(b - BDP_PKTS) for b in b0s) / BDP_PKTS
    c.add(
        "synchronized flows need less than the BDP",
        "even completely synchronized connections need B0 ~ 1/N; the simulations do not confirm "
        "that they need the BDP (section II)",
        worst,
        worst > 0.2,
        "largest |B0 - BDP|/BDP of the synchronized packet flows over N = "
        + ", ".join(f"{n}" for n in s.index)
        + f" (B0 = {', '.join(f'{b:.0f}' for b in b0s)}): they need the BDP, as Appenzeller et al. "
        "state. Theorem 1 lets the rate exceed the capacity by 4/3 before a cut; an ACK clock does not",
    )


def _claims_figure8(c: Claims, s: pd.DataFrame) -> None:
    err = relative_errors(s.reset_index(), "jitter_B0")
    paper = _paper_errors()
    falls = bool(err.loc[20, "theorem1"] < err.loc[5, "theorem1"])
    c.add(
        "figure 8: Theorem 1's error",
        f"falls quickly with N (paper's numbers: {paper.loc[5, 'theorem1']:.2f} at N = 5, "
        f"{paper.loc[20, 'theorem1']:.2f} at 20)",
        float(err.loc[20, "theorem1"]),
        falls,
        f"relative error at N = 20 against the jittered packet B0 ({err.loc[5, 'theorem1']:.2f} at N = 5); "
        "against the deterministic B0: "
        + ", ".join(
            f"{v:.2f} (N = {n})"
            for n, v in relative_errors(s.reset_index(), "packet_B0")["theorem1"].items()
        ),
    )
    if 1 in s.index:
        e = float(abs(BDP_PKTS - s.loc[1, "packet_B0"]) / s.loc[1, "packet_B0"])
        c.add(
            "figure 8: one connection",
            "the BDP rule is appropriate for a single TCP connection",
            e,
            e <= 0.15,
            f"|BDP - B0|/B0 at N = 1 (B0 = {s.loc[1, 'packet_B0']:.0f}); Theorem 1 says "
            f"{s.loc[1, 'eq12_B0']:.0f}",
            0.15,
        )


def _claims_figure7(c: Claims, table: pd.DataFrame) -> None:
    det = _setting(table, "deterministic")
    rho, worst = [], (0.0, 0, 0, 0)  # fall, n, from buffer, to buffer
    for n in PAPER:
        g = det[det["n"] == n].sort_values("packet_mean_queue_pkts")
        rho.append(float(g["packet"].corr(g["packet_mean_queue_pkts"], method="spearman")))
        falls = -np.diff(g["packet"].to_numpy())
        k = int(np.argmax(falls))
        if falls[k] > worst[0]:
            b = g["buffer_pkts"].to_numpy()
            worst = (float(falls[k]), n, b[k], b[k + 1])
    full = bool((det[det["n"].isin(list(PAPER))].groupby("n")["packet"].max() >= TARGET).all())
    c.add(
        "figure 7: the Pareto set",
        "its qualitative shape agrees with the model: more mean queue, more rate, up to the capacity",
        min(rho),
        min(rho) >= 0.9 and full,
        "Spearman rank correlation of the deterministic packet points' rate with their mean queue "
        f"(N = 5: {rho[0]:.3f}, N = 20: {rho[1]:.3f}; both reach 99.9%: {full}). The phase-locked "
        f"flows wobble: the largest fall is {100 * worst[0]:.1f} points at N = {worst[1]}, from "
        f"{worst[2]:.0f} to {worst[3]:.0f} packets",
        0.9,
    )


def claims(table: pd.DataFrame) -> pd.DataFrame:
    """Paper 003's statements beside bufsim's numbers from the :func:`run`
    table, with a verdict and its reason (the columns of
    :meth:`bufsim.reproduce.Claims.table`). Rates in Mbps, buffers in
    packets, errors and synchronization as fractions."""
    s = summary(table).set_index("n")
    c = Claims()
    _claims_rate_at_zero(c, table, s)
    _claims_b0(c, table, s)
    _claims_synchronization(c, table, s)
    _claims_rules(c, s)
    _claims_figure8(c, s)
    _claims_figure7(c, table)
    return c.table()


def _figure7(table: pd.DataFrame):
    from bufsim.plot import ENGINE_COLORS, _figure

    fig, axes = _figure(height=7.0, nrows=len(PAPER))
    for ax, n in zip(axes, PAPER):
        mu, alpha = 25_000.0, n / 0.006**2  # packets/s, packets/s^2
        p = m.pareto_set(mu, alpha, 0.5, 201)
        ax.plot(
            p["mean_buffer"],
            p["mean_rate"] * 500 * 8 / 1e6,
            "-",
            color="#548235",
            label=f"Theorem 1, synchronized (B = 0 .. B0 = {p['buffer'].iloc[-1]:.0f} pkts)",
        )
        for setting, style, label in (
            ("deterministic", "o-", "packet engine (deterministic flows)"),
            ("jitter", "s--", f"packet engine, {JITTER} send jitter"),
        ):
            g = _setting(table, setting)
            g = g[g["n"] == n].sort_values("buffer_pkts")
            low = g[g["packet"] < 0.6]
            if len(low):
                label += ", " + ", ".join(
                    f"{100 * u:.1f} Mbps at {b:.0f} pkt"
                    for b, u in zip(low["buffer_pkts"], low["packet"])
                )
            ax.plot(
                g["packet_mean_queue_pkts"],
                100 * g["packet"],
                style,
                lw=0.8,
                color=ENGINE_COLORS["packet"],
                mfc="none" if setting == "jitter" else ENGINE_COLORS["packet"],
                ms=5,
                label=label,
            )
            at = g[g["buffer_pkts"] == b0(g["buffer_pkts"], g["packet"])]
            if len(at):
                ax.annotate(
                    f"B0 = {at['buffer_pkts'].iloc[0]:.0f}",
                    (at["packet_mean_queue_pkts"].iloc[0], 100 * at["packet"].iloc[0]),
                    xytext=(-44, -14) if setting == "jitter" else (6, -14),
                    textcoords="offset points",
                    fontsize=7,
                    color=ENGINE_COLORS["packet"],
                )
        ax.plot(
            [0],
            [PAPER[n][0]],
            "*",
            color="#c00000",
            ms=12,
            label=f"paper, ns-2 at B = 0: {PAPER[n][0]} Mbps (B0 = {PAPER[n][1]} pkts)",
        )
        ax.axhline(100, color="grey", lw=0.8)
        ax.set_xlabel("mean queue (packets)")
        ax.set_ylabel("mean rate (Mbps)")
        ax.set_ylim(60, 102)
        ax.set_title(
            f"N = {n}: the Pareto set of rate against mean queue (paper's Fig. 7)", fontsize=9
        )
        ax.legend(fontsize=7, loc="lower right")
    return fig


def _figure_b0_scan(table: pd.DataFrame):
    from bufsim.plot import ENGINE_COLORS, _figure

    fig, axes = _figure(height=7.0, nrows=len(PAPER))
    floor = 1e-5
    for ax, n in zip(axes, PAPER):
        det = _setting(table, "deterministic")
        det = det[det["n"] == n].sort_values("buffer_pkts")
        jit = _setting(table, "jitter")
        jit = jit[jit["n"] == n].sort_values("buffer_pkts")
        x = det["buffer_pkts"]
        for col, style, color, label in (
            ("theorem1", "--", "#548235", "Theorem 1, synchronized"),
            ("fluid", "^-", ENGINE_COLORS["fluid"], "fluid engine, X = 1"),
        ):
            ax.plot(x, np.maximum(1 - det[col], floor), style, color=color, label=label, ms=4)
        ax.plot(
            x,
            np.maximum(1 - det["packet"], floor),
            "o-",
            color=ENGINE_COLORS["packet"],
            lw=2,
            label="packet engine (deterministic)",
        )
        ax.plot(
            jit["buffer_pkts"],
            np.maximum(1 - jit["packet"], floor),
            "s--",
            color=ENGINE_COLORS["packet"],
            mfc="none",
            label=f"packet engine, {JITTER} jitter",
        )
        ax.axhline(1 - TARGET, color="grey", lw=0.8)
        ax.axvline(
            PAPER[n][1], color="#c00000", ls=":", lw=1.5, label=f"paper, ns-2 B0 = {PAPER[n][1]}"
        )
        ax.axvline(
            PAPER_RULES[n][0],
            color="#548235",
            ls=":",
            lw=1,
            label=f"paper, eq. (12) {PAPER_RULES[n][0]:g}",
        )
        ax.axvline(BDP_PKTS, color="grey", ls="-.", lw=1, label="BDP 150")
        ax.set_yscale("log")
        ax.set_ylim(floor * 0.8, 3.0)
        ax.set_xlim(0, max(x.max(), PAPER_RULES[n][0], BDP_PKTS) + 10)
        ax.set_xlabel("buffer (packets)")
        ax.set_ylabel(f"1 - utilization (0 drawn at {floor:g})")
        ax.set_title(f"N = {n}: B0 is where the curve crosses 1e-3 (99.9%)", fontsize=9)
        ax.legend(fontsize=7, loc="upper right", ncol=2)
    return fig


def _figure8(table: pd.DataFrame):
    from bufsim.plot import ENGINE_COLORS, _figure

    s = summary(table).set_index("n")
    fig, (top, bottom) = _figure(height=7.0, nrows=2)
    ns = np.array(s.index, dtype=float)
    nn = np.geomspace(1, max(20, ns.max()), 50)
    top.plot(nn, BDP_PKTS**2 / (18 * nn), "-", color="#548235", label="Theorem 1, synchronized")
    top.plot(nn, np.full_like(nn, BDP_PKTS), "-", color="grey", label="BDP")
    top.plot(nn, BDP_PKTS / np.sqrt(nn), "-", color="#7030a0", label="Stanford, BDP/sqrt(N)")
    top.plot(ns, s["packet_B0"], "o-", color=ENGINE_COLORS["packet"], lw=2, label="packet engine")
    top.plot(
        ns,
        s["jitter_B0"],
        "s--",
        color=ENGINE_COLORS["packet"],
        mfc="none",
        label=f"packet engine, {JITTER} jitter",
    )
    top.plot(
        list(PAPER),
        [v[1] for v in PAPER.values()],
        "*",
        color="#c00000",
        ms=12,
        label="paper, ns-2",
    )
    top.set_xscale("log")
    top.set_yscale("log")
    top.set_ylabel("B0 (packets)")
    top.set_title(
        "B0 against N (100 Mbps, 6 ms, 500 B): the three rules and the simulations", fontsize=9
    )
    top.legend(fontsize=7, loc="lower left", ncol=2)
    from matplotlib.lines import Line2D

    colors = {"theorem1": "#548235", "bdp": "grey", "stanford": "#7030a0"}
    names = {"theorem1": "Theorem 1, synchronized", "bdp": "BDP", "stanford": "Stanford"}
    floor = 0.01
    refs = (
        ("jitter_B0", "s-", "none", f"vs packet engine, {JITTER} jitter"),
        ("packet_B0", "o:", None, "vs packet engine, deterministic"),
    )
    for ref, style, mfc, _ in refs:
        err = relative_errors(s.reset_index(), ref)
        for rule, color in colors.items():
            bottom.plot(ns, np.maximum(err[rule], floor), style, color=color, mfc=mfc or color)
    paper = _paper_errors()
    for rule, color in colors.items():
        bottom.plot(paper.index, paper[rule], "*", color=color, mec="#c00000", ms=13)
    handles = [Line2D([], [], color=c, lw=3, label=names[r]) for r, c in colors.items()]
    handles += [
        Line2D([], [], color="black", ls=st[1:] or "-", marker=st[0], mfc=mfc or "black", label=lab)
        for _, st, mfc, lab in refs
    ]
    handles.append(
        Line2D(
            [],
            [],
            ls="",
            marker="*",
            color="grey",
            mec="#c00000",
            ms=11,
            label="vs ns-2 (paper's numbers)",
        )
    )
    bottom.legend(handles=handles, fontsize=7, loc="upper right", ncol=2)
    bottom.set_ylim(floor / 2, 100)
    bottom.set_xscale("log")
    bottom.set_yscale("log")
    bottom.set_xticks(list(ns), labels=[f"{n:g}" for n in ns])
    top.set_xticks(list(ns), labels=[f"{n:g}" for n in ns])
    top.minorticks_off()
    bottom.minorticks_off()
    bottom.set_xlabel("number of flows N")
    bottom.set_ylabel(f"relative error of B0 (0 drawn at {floor:g})")
    bottom.set_title("The paper's Fig. 8: |B0(rule) - B0(simulation)| / B0(simulation)", fontsize=9)
    return fig


def figures(table: pd.DataFrame) -> dict[str, Any]:
    """The paper's Figure 7 (the Pareto set: mean rate against mean queue,
    Theorem 1 and the packet engine, for N = 5 and 20), the utilization
    shortfall against the buffer with the paper's B0 values (how B0 is
    read), and Figure 8 (B0 and each rule's relative error against N), with
    the paper's published values drawn on them (red stars and lines).

    Returns
    -------
    dict
        ``{"pareto": Figure, "b0_scan": Figure, "b0_error": Figure}``.
    """
    return {
        "pareto": _figure7(table),
        "b0_scan": _figure_b0_scan(table),
        "b0_error": _figure8(table),
    }
