"""Re-judge the ns-3 table of docs/validate-engines.md under the equivalence
rule (bufsim.ns3.validate.rejudge) from the numbers an earlier page
published: each metric's two seed means with their 95% half-widths and
the seeds behind them are all Welch's interval needs. The ns-3 runs
behind that page are not kept (validation/ns3-runs keeps only the
costliest scenarios'), and running the suite's first look again costs
about 65 CPU minutes of ns-3.

Rows of scenarios run again under the rule (``--rerun``: a
``bufsim validate-engines`` output folder, its metrics.csv and runs.csv)
replace the re-judged ones.

    python validation/rejudge_ns3_page.py OLD_PAGE.md --rerun DIR ... > ns3-part.md
"""

from __future__ import annotations

import argparse
import math
import re
from pathlib import Path

import pandas as pd
from bufsim import ns3
from bufsim.ns3 import validate as v

#: The ns-3 seeds of each scenario's last look on the page of commit
#: dd77a30 (its runs of `make validate` with looks at 3, 10, 40 and 100):
#: stated in its text where it names them; the others inferred from the
#: ratio of the two engines' 95% half-widths (about 12 over 3 seeds, 3.6
#: over 10, 1.6 over 40 and 1 over 100 for the same spread), which gives
#: exactly the page's tally (6 with 10, 4 with 40, 4 with 100).
OLD_SEEDS = {
    # Stated.
    "cubic-droptail-1bdp": 100,
    "bbr-droptail-0.25bdp": 100,
    "bbr-droptail-1bdp": 100,
    "cubic-codel-1bdp": 100,
    "cubic-droptail-0.25bdp": 10,
    "newreno-1gbps": 10,
    # Inferred (median half-width ratio in brackets).
    "cubic-red-1bdp": 40,  # 1.53
    "cubic-background": 40,  # 1.67
    "newreno-droptail-2bdp": 40,  # 1.70
    "newreno-openloop": 40,  # 2.93
    "newreno-nosack": 10,  # 3.14
    "cubic-fqcodel-1bdp": 10,  # 3.40
    "newreno-noack": 10,  # 4.05
    "cubic-pie-1bdp": 10,  # 4.44
}


def _pm(text: str) -> tuple[float, float]:
    text = text.strip()
    if text == "-":
        return math.nan, math.nan
    mean, _, ci = text.partition("±")
    return float(mean.replace(",", "")), float(ci.replace(",", "")) if ci else math.nan


def parse(page: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The old page's metric rows and its runs table's CPU times."""
    rows = re.findall(
        r"^\| ([\w.-]+) \| (\w+) \| ([^|]+) \| ([^|]+) \| ([^|]+) \| (within|undecided|beyond) \|$",
        page,
        re.M,
    )
    metrics = pd.DataFrame(
        [
            (s, m, *_pm(p), *_pm(n), tol.strip(), verdict, OLD_SEEDS.get(s, 3))
            for s, m, p, n, tol, verdict in rows
        ],
        columns=[
            "scenario",
            "metric",
            "packet",
            "packet_ci",
            "ns3",
            "ns3_ci",
            "tolerance",
            "old_verdict",
            "seeds",
        ],
    )
    runs = re.findall(
        r"^\| ([\w.-]+) \| (agrees|undecided|differs, \w+|failed) \| [^|]+ \| [^|]+ \| "
        r"([\d.]+) \| ([\d.]+) \| \d+x \|$",
        page,
        re.M,
    )
    cpu = pd.DataFrame(runs, columns=["scenario", "old_verdict", "packet_cpu_s", "ns3_cpu_s"])
    cpu[["packet_cpu_s", "ns3_cpu_s"]] = cpu[["packet_cpu_s", "ns3_cpu_s"]].astype(float)
    return metrics, cpu


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("old_page", type=Path)
    ap.add_argument("--rerun", type=Path, action="append", default=[])
    ap.add_argument("--notes", type=Path)
    ap.add_argument("--counts", action="store_true", help="print the before/after counts")
    a = ap.parse_args()
    old, cpu = parse(a.old_page.read_text())
    new = v.rejudge(old, v.PACKET_SEEDS)
    reruns = [
        (pd.read_csv(d / "metrics.csv"), pd.read_csv(d / "runs.csv", keep_default_na=False))
        for d in a.rerun
    ]
    again = {s for _, r in reruns for s in r["scenario"]}
    order = list(v.scenarios())
    runs = []
    for name in order:
        if name in again:
            continue
        m = new[new["scenario"] == name]
        beyond = list(m.loc[m["verdict"] == "beyond", "metric"])
        close = list(m.loc[m["verdict"] == "undecided", "metric"])
        c = cpu.set_index("scenario").loc[name]
        runs.append(
            {
                "scenario": name,
                "seeds": int(m["seeds"].iloc[0]),
                "packet_seeds": v.PACKET_SEEDS,
                "verdict": v._verdict(name, beyond, close),
                "reason": v.EXPLAINED.get(name, "") if beyond or close else "",
                "differs_on": ", ".join(beyond),
                "undecided_on": ", ".join(close),
                "packet_cpu_s": c["packet_cpu_s"],
                "ns3_cpu_s": c["ns3_cpu_s"],
                "speed_ratio": c["ns3_cpu_s"] / c["packet_cpu_s"],
            }
        )
    runs = pd.DataFrame(runs)
    metrics = new[~new["scenario"].isin(again)]
    for m, r in reruns:
        r["reason"] = [
            v.EXPLAINED.get(n, "") if d or u else ""
            for n, d, u in zip(r["scenario"], r["differs_on"], r["undecided_on"])
        ]
        runs = pd.concat([runs, r[runs.columns]])
        metrics = pd.concat([metrics, m])
    key = {n: i for i, n in enumerate(order)}
    runs = runs.sort_values("scenario", key=lambda s: s.map(key), kind="stable")
    metrics = metrics.sort_values("scenario", key=lambda s: s.map(key), kind="stable")
    if a.counts:
        before = old["old_verdict"].value_counts().to_dict()
        after = metrics["verdict"].value_counts().to_dict()
        print("metrics before", len(old), before, "after", len(metrics), after)
        print(
            "scenarios before",
            cpu["old_verdict"].value_counts().to_dict(),
            "after",
            runs["verdict"].value_counts().to_dict(),
        )
        print("seeds", runs["seeds"].value_counts().to_dict())
        und = metrics[(metrics["verdict"] == "undecided")]
        print("undecided metrics by seeds", und["seeds"].value_counts().to_dict())
        print(runs[["scenario", "verdict", "seeds", "differs_on", "undecided_on"]].to_string())
        return
    notes = a.notes.read_text() if a.notes else ""
    print(v.markdown(metrics, runs, ns3.version(), notes=notes), end="")


if __name__ == "__main__":
    main()
