"""Paper 000's setup, findings and captions: the templates of ``prose.toml``
filled with the runs' numbers and the design's constants.
"""

from __future__ import annotations

import pandas as pd

from bufsim.reproduce import Finding, Prose, prose, templates
from bufsim.reproduce.auge2006.runs import section_v

#: The prose templates (prose.toml, shipped beside this module).
TEXT = templates(__package__)


def setup() -> Prose:
    """What is reproduced and how bufsim's setup differs from the paper's (Markdown)."""
    return prose(
        TEXT["setup"],
        cap=50.0,
        bg=25.0,
        ns="1, 2 or 4",
        rtt=100.0,
        bufs="20, 100 and 625",
        bdp=625,
        mss=1000.0,
        p20=0.4,
        b20=20,
        p625=1.0,
        p1=0.75,
        b1=1,
        p20nb=0.8,
        d=48.0,
        acc=4.0,
        q=1024,
    )


def findings(table: pd.DataFrame) -> list[Finding]:
    """What the runs show, each beside the figure it explains (Markdown, numbers from ``table``)."""
    t = table.set_index(["flows", "buffer_pkts", "background"])
    v = section_v(table)
    hs, mix, q4, f4 = (
        v.loc["hs1-b20-fifo"],
        v.loc["hs1nr1-b625-fq"],
        v.loc["hs4-b625-fq"],
        v.loc["hs4-b625-fifo"],
    )
    return [
        Finding(
            "A small buffer costs a lone flow most of the residual bandwidth",
            prose(
                TEXT["findings"]["fig3_buffers"],
                s20=t.loc[(1, 20, True), "residual_share"],
                s100=t.loc[(1, 100, True), "residual_share"],
                s625=t.loc[(1, 625, True), "residual_share"],
                sack=t.loc[(1, 625, True), "residual_share_sack"],
                b20=20,
                b100=100,
                b625=625,
                u1=t.loc[(1, 20, True), "utilization"],
                u2=t.loc[(2, 20, True), "utilization"],
                u4=t.loc[(4, 20, True), "utilization"],
                ns="1, 2 and 4 flows",
            ),
            "fig3_buffers",
        ),
        Finding(
            "One HSTCP flow does not beat NewReno at the small buffer",
            prose(
                TEXT["findings"]["fig6_hstcp_fifo"],
                b=20,
                hs=hs["residual_share"],
                nr=t.loc[(1, 20, True), "residual_share"],
                hss=hs["residual_share_sack"],
                nrs=t.loc[(1, 20, True), "residual_share_sack"],
                hd=hs["drops"],
                nd=t.loc[(1, 20, True), "drops"],
            ),
            "fig6_hstcp_fifo",
        ),
        Finding(
            "Fair queueing: an even split, and windows that vary more than under FIFO",
            prose(
                TEXT["findings"]["fig7_fq"],
                sh=mix["hstcp_share"],
                th=mix["flow_timeouts"][0],
                tn=mix["flow_timeouts"][1],
                ss=mix["hstcp_share_sack"],
                cq=q4["cwnd_cv"],
                cf=f4["cwnd_cv"],
                bf=f4["background_drops"],
                df=f4["drops"],
                tf=f4["timeouts"],
                dq=q4["drops"],
                tq=q4["timeouts"],
                rs=f4["cwnd_cv_sack"] / q4["cwnd_cv_sack"],
            ),
            "fig7_fq",
        ),
    ]


def captions(table: pd.DataFrame) -> dict[str, Prose]:
    """One sentence per figure of :func:`figures`: what it shows and how to read it."""
    return {
        "fig3_buffers": prose(TEXT["captions"]["fig3_buffers"]),
        "fig4_arrivals": prose(TEXT["captions"]["fig4_arrivals"]),
        "fig5_flows": prose(TEXT["captions"]["fig5_flows"]),
        "fig6_hstcp_fifo": prose(TEXT["captions"]["fig6_hstcp_fifo"]),
        "fig7_fq": prose(TEXT["captions"]["fig7_fq"]),
        "goodput_shares": prose(TEXT["captions"]["goodput_shares"]),
    }
