"""Paper 002's setup, findings and captions: the templates of ``prose.toml``
filled with the runs' numbers and the design's constants.
"""

from __future__ import annotations

import math

import pandas as pd

import bufsim
from bufsim.reproduce import Finding, Prose, prose, templates
from bufsim.reproduce.dhamdhere2006.design import (
    _FLOW_FIGS,
    _PAPER_MARKS,
    BDP_PKTS,
    BUFFERS,
    FIGURE_SEED,
    N_LONG,
    NS2_SECONDS,
    PAPER,
    SECONDS,
    USERS,
)
from bufsim.reproduce.dhamdhere2006.runs import _means, _variant, scenario, seeds

#: The prose templates (prose.toml, shipped beside this module).
TEXT = templates(__package__)


def setup() -> Prose:
    """What is reproduced and how bufsim's setup differs from the paper's (Markdown)."""
    # The size mixture as the engine reads it (the "dhamdhere2006" preset).
    mix = bufsim.Scenario.load(scenario("open", BUFFERS[0], 10.0)).normalized["flows"][0]
    parts = [(p["weight"], p["dist"]["exponential"]["mean_pkts"]) for p in mix["size"]["mixture"]]
    return prose(
        TEXT["setup"],
        top=sum(w for w, _ in parts[1:]),
        share=sum(w * m for w, m in parts[1:]) / sum(w * m for w, m in parts),
        w1=parts[0][0],
        w2=parts[1][0],
        w3=parts[2][0],
        c1=parts[0][1],
        c2=parts[1][1],
        c3=parts[2][1],
        cap=50.0,
        mss=1500.0,
        nodes=18,
        rmin=30.0,
        rmax=530.0,
        reff=60.0,
        bdp=BDP_PKTS,
        N=N_LONG,
        m0=3,
        m1=25,
        ml=0.05,
        think=5.0,
        mean=35.0,
        load=0.95,
        u=1.0,
        lo18=PAPER[("open", 18)][0],
        lp18=PAPER[("persistent", 18)][0],
        lo500=PAPER[("open", 500)][0],
        lp500=PAPER[("persistent", 500)][0],
        lc500=PAPER[("closed", 500)][0],
        m18=10_000,
        m500=15_000,
        nl=0.7,
        delay=5.0,
        rto=1.0,
        users=USERS,
        rto2=0.2,
        seed=1,
        warm=30.0,
        pq=SECONDS[0],
        pf=SECONDS[1],
        seeds="1-3",
        nq=NS2_SECONDS[0],
        nf=NS2_SECONDS[1],
        ratio=SECONDS[0] / NS2_SECONDS[0],
    )


def findings(table: pd.DataFrame) -> list[Finding]:
    """What the runs show, each beside the figure it explains (Markdown, numbers from ``table``)."""
    t = _means(table)

    def da(traffic: str, b: int) -> float:
        return _variant(table, traffic, "delayed_ack", b, "loss_rate")

    def ns2(traffic: str, b: int, col: str) -> float:
        """ns-2.35's value at its defaults (NaN where it did not run)."""
        rows = table.attrs.get("ns2", {}).get("rows")
        if rows is None or not len(rows):
            return math.nan
        hit = rows[(rows["traffic"] == traffic) & (rows["buffer_pkts"] == b)]
        return float(hit[col].iloc[0]) if len(hit) else math.nan

    o18 = table[(table["traffic"] == "open") & (table["buffer_pkts"] == 18)]
    k18 = o18["large_median_throughput_Bps"] / o18["large_mean_rate_Bps"]
    return [
        Finding(
            "Loss against the buffer: bufsim's TCPs lose more than the paper's",
            prose(
                TEXT["findings"]["loss_vs_buffer"],
                p500=t.loc[("persistent", 500), "loss_rate"],
                c500=t.loc[("closed", 500), "loss_rate"],
                o500=t.loc[("open", 500), "loss_rate"],
                pp=PAPER[("persistent", 500)][0],
                pc=PAPER[("closed", 500)][0],
                po=PAPER[("open", 500)][0],
                eq3=t.loc[("persistent", 500), "eq3_loss"],
                pftk=t.loc[("persistent", 500), "pftk_loss"],
                dp=da("persistent", 500),
                dc=da("closed", 500),
                do=da("open", 500),
                np=ns2("persistent", 500, "loss_rate"),
                nc=ns2("closed", 500, "loss_rate"),
                no=ns2("open", 500, "loss_rate"),
            ),
            "loss_vs_buffer",
        ),
        Finding(
            "Open loop: large flows are far faster than the paper's medians",
            prose(
                TEXT["findings"]["throughput_open"],
                gl=t.loc[("open", 18), "large_goodput_Bps"] / 1e6,
                nl18=t.loc[("open", 18), "large_flows_mean"],
                rate=t.loc[("open", 18), "large_mean_rate_Bps"] / 1e3,
                klo=k18.min(),
                khi=k18.max(),
                kp=10_000 * N_LONG / t.loc[("open", 18), "large_goodput_Bps"],
                x=k18.median() * t.loc[("open", 18), "large_goodput_Bps"] / 10_000 / N_LONG,
                m18=t.loc[("open", 18), "large_median_throughput_Bps"],
                m500=t.loc[("open", 500), "large_median_throughput_Bps"],
                p18=10_000,
                p500=15_000,
                nl=0.7,
                nlb=t.loc[("open", 500), "large_no_loss_fraction"],
                n500=t.loc[("open", 500), "long_flows_mean"],
                N=N_LONG,
            ),
            "throughput_open",
        ),
        Finding(
            "Closed loop: timeouts cost utilization at B_s",
            prose(
                TEXT["findings"]["throughput_closed"],
                u=t.loc[("closed", 18), "utilization"],
                to=t.loc[("closed", 18), "timeouts"],
                u2=_variant(table, "closed", "min_rto_0.2s", 18, "utilization"),
                un=ns2("closed", 18, "utilization"),
            ),
            "throughput_closed",
        ),
    ]


def captions(table: pd.DataFrame) -> dict[str, Prose]:
    """One sentence per figure of :func:`figures`: what it shows and how to read it."""
    ran = "seed" in table and "variant" in table
    curve = (
        sorted(int(s) for s in table.loc[table["variant"] == "rfc", "seed"].unique()) if ran else []
    )
    listed = ", ".join(str(s) for s in curve)
    several = len(curve) > 1
    over = prose("seed {s}", s=listed) if curve else Prose("the mean over the seeds run")
    out = {
        "loss_vs_buffer": prose(
            TEXT["captions"]["loss_vs_buffer"],
            over=prose("the mean over seeds {s}", s=listed) if several else over,
            band=prose(TEXT["captions"]["band"]) if several else Prose(""),
            seed=1,
            N=N_LONG,
        )
    }
    # Figures 2-7 draw seed 1's run alone (charts.figures); the claims pool
    # every seed's flows (runs.pooled_flows).
    pooled = seeds(table) if ran else []
    more = (
        prose(TEXT["captions"]["pooled"], seeds=", ".join(str(s) for s in pooled))
        if len(pooled) > 1
        else Prose("")
    )
    for traffic, (fig_tp, fig_loss) in _FLOW_FIGS.items():
        top = "persistent" if traffic == "persistent" else "large"
        for key, template, n, loss in (
            ("throughput", TEXT["captions"]["throughput"], fig_tp, False),
            ("loss", TEXT["captions"]["loss"], fig_loss, True),
        ):
            out[f"{key}_{traffic}"] = prose(
                template,
                n=n,
                top=top,
                traffic=traffic,
                seed=FIGURE_SEED,
                pooled=more,
                marks=_red_marks(traffic, loss),
            )
    return out


def _red_marks(traffic: str, loss: bool) -> Prose:
    """The caption's clause on the paper's red marks, where a panel of
    that figure has one (:data:`_PAPER_MARKS`), else nothing (text without
    numbers: no field spans)."""
    if any(k[0] == traffic and k[2] == loss for k in _PAPER_MARKS):
        return prose(TEXT["captions"]["red_marks"])
    return Prose("")
