"""ABM's setup, findings and captions: the templates of ``prose.toml``
filled with the runs' numbers and the design's constants.
"""

from __future__ import annotations

import pandas as pd

from bufsim.reproduce import Finding, Prose, prose, templates
from bufsim.reproduce.addanki2022 import authors
from bufsim.reproduce.addanki2022.design import (
    ALPHA_DATA,
    BASE_RTT_US,
    BUFFER_BYTES,
    BUFFER_KIBS,
    BURST_AT_BUFFERS,
    BURST_AT_LOADS,
    BURSTS,
    DELAY_US,
    FAB_PKTS,
    FAB_WINDOW_MS,
    FAN_IN,
    FULL_DRAIN_S,
    FULL_WINDOW_S,
    HOSTS,
    HOSTS_PER_LEAF,
    INITIAL_RTO,
    INTERVAL_US,
    KIB_PER_PORT_PER_GBPS,
    LEAVES,
    LINKS,
    LOAD_AT_BURSTS,
    LOADS,
    MIN_RTO,
    MIN_RTO_S,
    MSS,
    NOT_RUN,
    PAPER_SHORT_GAIN,
    PAPER_TRANSPORT_GAIN,
    PERCENTILE,
    PLAIN_ABM,
    QUERY_RATE,
    QUICK_BUFFER_KIBS,
    QUICK_BURSTS,
    QUICK_LOADS,
    QUICK_WINDOW_S,
    RATE_GBPS,
    RED_K_PKTS,
    SHORT_BYTES,
    SPINES,
    UNSCHED_ALPHA,
    UNSCHED_BYTES,
    WEB_IW,
    buffer_bytes,
    incast_bytes,
)
from bufsim.reproduce.addanki2022.runs import _pick, buffer_growth, value

#: The prose templates (prose.toml, shipped beside this module).
TEXT = templates(__package__)

#: The script's run: flows launched from 10 s to 13 s, the run ending at 24 s.
PAPER_WINDOW_S, PAPER_DRAIN_S = 3.0, 11.0

#: RFC 6298 section 2.1's first RTO (bufsim's without ``initial_rto``), and
#: the script's ``RttEstimator::InitialEstimation``, microseconds.
RFC_FIRST_RTO_S = 1.0

SCRIPT_ESTIMATE_US = 200.0


def _bound(censored: float) -> str:
    """How to read a p99: a lower bound where transfers still unfinished
    lie at or below it, else exact."""
    return "a lower bound: unfinished transfers lie at or below it" if censored else "exact"


def _pct(xs: tuple[float, ...]) -> str:
    return ", ".join(f"{x:.1%}".replace(".0%", "%") for x in xs)


def setup() -> Prose:
    """What is reproduced and how bufsim's setup differs from the paper's (Markdown)."""
    return prose(
        TEXT["setup"],
        q=99.0,
        g=PAPER_SHORT_GAIN,
        t=PAPER_TRANSPORT_GAIN,
        leaves=LEAVES,
        spines=SPINES,
        hpl=HOSTS_PER_LEAF,
        links=LINKS,
        rate=RATE_GBPS,
        delay=DELAY_US,
        buf=BUFFER_BYTES,
        kib=KIB_PER_PORT_PER_GBPS,
        ports=HOSTS_PER_LEAF + SPINES * LINKS,
        mss=MSS,
        fan=FAN_IN,
        qr=QUERY_RATE,
        alpha=ALPHA_DATA,
        iv=INTERVAL_US,
        k=RED_K_PKTS,
        iw=WEB_IW,
        rto=MIN_RTO,
        rto0=INITIAL_RTO,
        loads=", ".join(f"{x:g}" for x in LOADS),
        b0=BURST_AT_LOADS,
        bursts=_pct(BURSTS),
        l0=LOAD_AT_BURSTS,
        pw=PAPER_WINDOW_S,
        short=SHORT_BYTES,
        hosts=HOSTS,
        dr=FULL_DRAIN_S,
        pdr=PAPER_DRAIN_S,
        fw=FULL_WINDOW_S,
        qw=QUICK_WINDOW_S,
        qloads=", ".join(f"{x:g}" for x in QUICK_LOADS),
        qbursts=_pct(QUICK_BURSTS),
        kibs=", ".join(f"{k:g}" for k in BUFFER_KIBS),
        qkibs=", ".join(f"{k:g}" for k in QUICK_BUFFER_KIBS),
        bb=BURST_AT_BUFFERS,
        notrun="; ".join(f"{k} ({v})" for k, v in NOT_RUN.items()),
        fabw=FAB_WINDOW_MS,
        fabp=FAB_PKTS,
        au=UNSCHED_ALPHA,
        repo=authors.REPOSITORY,
        commit=authors.COMMIT[:7],
        npts=len(authors.published()),
    )


def findings(table: pd.DataFrame) -> list[Finding]:
    """What the runs show, each beside the figure it explains (Markdown, numbers from ``table``)."""
    high = float(table.loc[table["sweep"] == "load", "load"].max())
    top = float(table.loc[table["sweep"] == "burst", "burst"].max())

    def at(alg: str, col: str, sweep: str = "load", **kw: float) -> float:
        return value(table, sweep, alg, col, **(kw or {"load": high}))

    # The authors' CUBIC runs of figures 6 (the loads) and 7 (the requests).
    paper = authors.published()
    cubic = paper[(paper["tcp"] == "cubic") & paper["figures"].str.contains("6|7")]
    dt6 = cubic[(cubic["algorithm"] == "dt") & cubic["figures"].str.contains("6")]
    dt7 = cubic[(cubic["algorithm"] == "dt") & cubic["figures"].str.contains("7")]
    # The longest short transfer's ideal time (its bytes at line rate and
    # the base RTT) and its slowdown after one minimum RTO.
    ideal = SHORT_BYTES * 8 / (RATE_GBPS * 1e9) + BASE_RTT_US * 1e-6
    ours = table[table["tcp"] == "cubic"]["short_p99"]
    ours_dt = table[(table["tcp"] == "cubic") & (table["algorithm"] == "dt")]
    out = [
        Finding(
            "bufsim's short-flow tail is RTO waits; the authors' only near their highest load",
            prose(
                TEXT["findings"]["first_window"],
                iw=WEB_IW,
                rto0=INITIAL_RTO,
                rfc=RFC_FIRST_RTO_S,
                est=SCRIPT_ESTIMATE_US,
                rto=MIN_RTO,
                x=high,
                ideal=ideal * 1e6,
                one=1.0 + MIN_RTO_S / ideal,
                dts=at("dt", "short_rto"),
                # More than the share above the p99 waited an RTO: the p99
                # is one of them.
                wait="is an RTO wait"
                if at("dt", "short_rto") > 1.0 - PERCENTILE
                else "lies below the RTO waits",
                abs=at("abm", "short_rto"),
                dtu=at("dt", "short_unfinished"),
                dtn=at("dt", "short_n"),
                dtp=at("dt", "short_p99"),
                dtb=_bound(at("dt", "short_p99_censored")),
                abp=at("abm", "short_p99"),
                abb=_bound(at("abm", "short_p99_censored")),
                qlo=ours.min(),
                qhi=ours.max(),
                pmax=cubic.loc[cubic["algorithm"] == "dt", "short_rto"].max(),
                prlo=cubic.loc[cubic["algorithm"] == "dt", "short_rto"].min(),
                px=float(dt6.loc[dt6["short_rto"].idxmax(), "load"]),
                tail=1.0 - PERCENTILE,
                olo=ours_dt["short_rto"].min(),
                ohi=ours_dt["short_rto"].max(),
                ok=int((ours_dt["short_rto"] > 1.0 - PERCENTILE).sum()),
                on=len(ours_dt),
                pamax=cubic.loc[cubic["algorithm"] == "abm", "short_rto"].max(),
                plo=dt6["short_p99"].min(),
                phi=dt6["short_p99"].max(),
                blo=dt7["short_p99"].min(),
                bhi=dt7["short_p99"].max(),
            ),
            "load",
        ),
        Finding(
            "ABM's first-RTT priority",
            prose(
                TEXT["findings"]["first_rtt"],
                rtt=UNSCHED_BYTES,
                au=UNSCHED_ALPHA,
                b=top,
                ap=at("abm", "short_p99", "burst", burst=top),
                pp=at(PLAIN_ABM, "short_p99", "burst", burst=top),
                dp=at("dt", "short_p99", "burst", burst=top),
                ai=at("abm", "incast_p99", "burst", burst=top),
                pi=at(PLAIN_ABM, "incast_p99", "burst", burst=top),
                di=at("dt", "incast_p99", "burst", burst=top),
                ao=at("abm", "occupancy_p99", "burst", burst=top),
                po=at(PLAIN_ABM, "occupancy_p99", "burst", burst=top),
                do=at("dt", "occupancy_p99", "burst", burst=top),
            ),
            "burst",
        ),
    ]
    d = table[table["sweep"] == "dctcp"]
    dt = _pick(table, "dctcp", "dt")["incast_p99"]
    abm = _pick(table, "dctcp", "abm")["incast_p99"]
    dctcp9 = paper[paper["figures"].str.contains("9b")]
    if len(dt) and len(abm):
        out.append(
            Finding(
                "DCTCP keeps the queues short, not the incast's tail",
                prose(
                    TEXT["findings"]["dctcp"],
                    k=RED_K_PKTS,
                    rto0=INITIAL_RTO,
                    sl=d["short_p99"].min(),
                    sh=d["short_p99"].max(),
                    psl=dctcp9["short_p99"].min(),
                    psh=dctcp9["short_p99"].max(),
                    cmin=table.loc[table["tcp"] == "cubic", "short_p99"].min(),
                    ol=d["occupancy_p99"].min(),
                    oh=d["occupancy_p99"].max(),
                    dtu=_pick(table, "dctcp", "dt")["incast_unfinished"].sum(),
                    abu=_pick(table, "dctcp", "abm")["incast_unfinished"].sum(),
                    dtl=dt.min(),
                    dth=dt.max(),
                    abl=abm.min(),
                    abh=abm.max(),
                ),
                "dctcp",
            )
        )
    b = table[table["sweep"] == "buffer"]
    if len(b):
        k0, k, grow, pgrow = buffer_growth(table)

        def inc(a: str, kk: float) -> float:
            return value(table, "buffer", a, "incast_p99", buffer_kib=kk)

        def theirs(kk: float) -> float:
            """DT's incast p99 in the authors' buffer sweep."""
            return authors.value(
                "dctcp", "dt", "incast_p99", LOAD_AT_BURSTS, BURST_AT_BUFFERS, buffer_kib=kk
            )

        # DT's limit for one congested queue: T = alpha (B - T).
        def limit(kk: float) -> int:
            return int(ALPHA_DATA / (1.0 + ALPHA_DATA) * buffer_bytes(kk))

        req = incast_bytes(BURST_AT_BUFFERS) * FAN_IN
        sizes = sorted(BUFFER_KIBS)
        kfit = min(kk for kk in sizes if limit(kk) >= req)
        below = max((kk for kk in sizes if kk < kfit), default=kfit)

        out.append(
            Finding(
                "DT needs the buffer, ABM does not",
                prose(
                    TEXT["findings"]["buffer"],
                    k0=k0,
                    k=k,
                    b=BURST_AT_BUFFERS,
                    d0=inc("dt", k0),
                    d1=inc("dt", k),
                    a0=inc("abm", k0),
                    a1=inc("abm", k),
                    gd=grow["dt"],
                    ga=grow["abm"],
                    pd=pgrow["dt"],
                    pa=pgrow["abm"],
                    req=req,
                    lim0=limit(k0),
                    kfit=kfit,
                    limfit=limit(kfit),
                    rtt=UNSCHED_BYTES,
                    au=UNSCHED_ALPHA,
                    here=prose("; here {a:.1f} to {b:.1f}", a=inc("dt", kfit), b=inc("dt", below))
                    if {kfit, below} <= set(b["buffer_kib"])
                    else Prose(""),
                    pfit=theirs(kfit),
                    pnext=theirs(below),
                ),
                "buffer",
            )
        )
    return out


def captions(table: pd.DataFrame) -> dict[str, Prose]:
    """One sentence per figure of :func:`figures`: what it shows and how to read it."""
    return {
        "load": prose(TEXT["captions"]["load"], b=BURST_AT_LOADS),
        "burst": prose(TEXT["captions"]["burst"], x=LOAD_AT_BURSTS),
        "dctcp": prose(TEXT["captions"]["dctcp"], x=LOAD_AT_BURSTS),
        "buffer": prose(
            TEXT["captions"]["buffer"],
            x=LOAD_AT_BURSTS,
            b=BURST_AT_BUFFERS,
            k=KIB_PER_PORT_PER_GBPS,
        ),
    }
