"""The validation suite's verdict rule (bufsim.ns3.validate): an equivalence
test (two one-sided tests on Welch's interval of the difference of the seed
means) at looks planned in advance, their error spent by a Pocock-type
function; the suite against ns-2 end to end; and the published tables'
verdicts are the rule's on their own numbers."""

from __future__ import annotations

import math
import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from bufsim.ns3 import validate
from conftest import cli

PAGE = Path(__file__).parents[1] / "docs" / "validate-engines.md"


def _judge(pkt, ref, alpha=0.05, metric="utilization"):
    return validate.judge(metric, validate._summary(pkt), validate._summary(ref), alpha)


def test_means_that_agree_with_a_wide_spread_are_undecided():
    # Utilization, tolerance 0.02. The packet engine's 100 seeds all 0.90
    # (no spread), the reference's three 0.70, 0.90 and 1.10: the means
    # are equal, but the 90% interval of the difference is 0 +- t(0.95, 2)
    # * 0.2 / sqrt(3) = +-0.337, far past +-0.02.
    verdict, low, high = _judge([0.90] * 100, [0.70, 0.90, 1.10])
    assert verdict == "undecided"
    assert (low, high) == pytest.approx((-0.3372, 0.3372), abs=1e-4)
    # The old rule called it within: |0.90 - 0.90| <= 0.02.
    assert validate._within_tolerance("utilization", 0.90, 0.90)


def test_tight_intervals_inside_agree_and_outside_differ():
    # Inside: 0.905, 0.906, 0.907 against 0.90: 0.006 +- 2.92 * 0.001 /
    # sqrt(3) = [0.00431, 0.00769], inside +-0.02.
    verdict, low, high = _judge([0.90] * 100, [0.905, 0.906, 0.907])
    assert verdict == "within"
    assert (low, high) == pytest.approx((0.004314, 0.007686), abs=1e-6)
    # Outside: 0.950-0.952, [0.04931, 0.05269], wholly above 0.02.
    verdict, low, high = _judge([0.90] * 100, [0.950, 0.951, 0.952])
    assert verdict == "beyond" and low == pytest.approx(0.04931, abs=1e-5)
    # Below too: wholly under -0.02.
    assert _judge([0.90] * 100, [0.850, 0.851, 0.852])[0] == "beyond"
    # Straddling the tolerance: 0.02 +- 0.0017 is neither.
    assert _judge([0.90] * 100, [0.919, 0.920, 0.921])[0] == "undecided"
    # One seed gives no interval: undecided, never within.
    assert _judge([0.90] * 100, [0.905])[0] == "undecided"
    # A mean one engine lacks (no transfer finished) is a difference.
    assert _judge([1.0] * 10, [math.nan] * 3, metric="fct_median_s")[0] == "beyond"
    # ns-3's measured reasons explain a difference from ns-3 only.
    beyond = ["drop_rate"]
    assert validate._verdict("cubic-droptail-1bdp", beyond, []) == "differs, explained"
    assert validate._verdict("cubic-droptail-1bdp", beyond, [], {}) == "differs, unexplained"


def test_the_pages_example_no_longer_agrees_by_luck():
    # newreno-droptail-0.25bdp's Jain's index as the page before the rule
    # published it: 0.8453 +- 0.0058 (100 packet seeds) against ns-3's
    # 0.844 +- 0.14 over 3 seeds, "within" since |difference| = 0.0013 <
    # 0.05. Its interval at the first look's level is about +-0.15.
    pk = validate.from_published(0.8453, 0.0058, 100)
    ns = validate.from_published(0.844, 0.14, 3)
    verdict, low, high = validate.judge("jain_index", pk, ns, validate.spending((3, 6, 10))[0])
    assert verdict == "undecided"
    assert high - low == pytest.approx(2 * 0.155, abs=0.01)


def test_the_planned_looks_spend_alpha():
    # Pocock-type: 0.05 * ln(1 + (e - 1) t) at t = 0.3, 0.6, 1.
    shares = validate.spending((3, 6, 10))
    assert shares == pytest.approx((0.020787, 0.014639, 0.014574), abs=1e-6)
    assert sum(shares) == pytest.approx(0.05, abs=1e-12)
    assert validate.spending((10,)) == pytest.approx((0.05,))
    # More looks, less each: no look of a plan tests at the whole alpha.
    assert max(validate.spending((3, 6))) < 0.05
    assert validate.look_alpha(6) == shares[1]
    assert validate.look_alpha(100) == shares[2]  # past the plan: its last level
    with pytest.raises(ValueError, match="seeds: 4 is no look of the plan"):
        validate.look_alpha(4)


def test_looking_again_does_not_raise_the_chance_of_a_false_agreement():
    # The true difference at the tolerance (0.02: "within" would be
    # false), both engines' seeds spread by 0.01. 2000 simulated suites
    # with looks at 3, 6 and 10 reference seeds, each stopping at its first
    # decided look: at the plan's levels a false agreement comes in 5.3%
    # (0.05 asked, the sampling error 0.5%); with every look at the whole
    # 0.05 (looks not planned) in 10.7%, twice as often.
    rng = np.random.default_rng(7)
    looks = (3, 6, 10)

    def false_within(levels) -> float:
        hits = 0
        for _ in range(2000):
            pk = validate._summary(rng.normal(0.90, 0.01, 100))
            ref = rng.normal(0.92, 0.01, looks[-1])
            for n, a in zip(looks, levels):
                v = validate.judge("utilization", pk, validate._summary(ref[:n]), a)[0]
                if v != "undecided":
                    hits += v == "within"
                    break
        return hits / 2000

    planned, unplanned = false_within(validate.spending(looks)), false_within((0.05,) * 3)
    assert planned == pytest.approx(0.05, abs=0.01)
    assert unplanned == pytest.approx(0.107, abs=0.015) and unplanned > 1.8 * planned


class _Run:
    """A stand-in for a Result: what the suite reads of one."""

    def __init__(self, values: dict[str, float]):
        self.summary = {**values, "p99_queue_delay_s": 0.01}
        self.flows = pd.DataFrame(
            {"flow": [0, 1], "goodput_bps": [5e6, 5e6], "size_pkts": [np.nan] * 2}
        )
        self.provenance = {"wall_s": 0.1, "cpu_s": 0.1}


def test_a_metric_stops_at_the_look_that_decides_it(monkeypatch):
    # Utilization and the rest equal in both engines at every seed (within
    # at the first look); Jain's index 0.80, 0.90, 0.85, then 0.85: over 3
    # seeds 0.85 +- 0.14 (undecided), over 6 +- t(1 - 0.0146, 5) * 0.0129 =
    # 0.039 (within 0.05). The
    # scenario agrees at the second look, each metric's row that of its
    # deciding look; the third is not taken.
    jain = {1: 0.80, 2: 0.90}

    def fake_runs(scns, engines, **kw):
        out = []
        for s, e in zip(scns, engines):
            j = 0.85 if e == "packet" else jain.get(s["seed"], 0.85)
            common = {"utilization": 0.95, "drop_rate": 0.01, "mean_queue_pkts": 50.0}
            out.append(_Run({**common, "jain_index": j}))
        return out

    monkeypatch.setattr(validate, "run_each", fake_runs)
    rows, run = validate.validate_one("newreno-red-1bdp", (1, 2, 3), max_seeds=(6, 10))
    by = {r["metric"]: r for r in rows}
    a1, a2, _ = validate.spending((3, 6, 10))
    assert run["verdict"] == "agrees" and run["seeds"] == 6
    assert by["utilization"]["seeds"] == 3 and by["utilization"]["alpha"] == a1
    assert by["jain_index"]["seeds"] == 6 and by["jain_index"]["alpha"] == a2
    assert by["jain_index"]["high"] == pytest.approx(0.03904, abs=1e-5)
    assert by["jain_index"]["verdict"] == "within"


needs_ns = pytest.mark.skipif(
    shutil.which("ns") is None, reason="ns-2.35's `ns` is not installed (make ns2)"
)


@needs_ns
def test_validate_engines_against_ns2_end_to_end(tmp_path):
    # A quick NewReno scenario run on ns-2 and the packet engine (ns2
    # profile), and BBR, which ns-2.35 has not: refused, naming the field.
    p = cli(
        "validate-engines",
        "--against",
        "ns2",
        "--quick",
        "--only",
        "newreno-droptail-0.25bdp",
        "--only",
        "bbr-droptail-1bdp",
        "--seeds",
        "2",
        "--packet-seeds",
        "4",
        "--workers",
        "0",
        "-o",
        str(tmp_path),
        timeout=300,
    )
    assert p.returncode == 0, p.stderr
    out = " ".join(p.stdout.split())
    assert "bbr-droptail-1bdp refused: flows[0].tcp: 'bbr': ns-2.35 has no such TCP" in out
    runs = pd.read_csv(tmp_path / "runs.csv")
    row = runs.set_index("scenario").loc["newreno-droptail-0.25bdp"]
    assert row["seeds"] == 2 and row["packet_seeds"] == 4
    # ns-2 ran: about a CPU second for 10 s of 20 flows at 100 Mbps.
    assert 0.05 < row["ns2_cpu_s"] < 20 and row["verdict"] != "refused"
    metrics = pd.read_csv(tmp_path / "metrics.csv")
    # ns-2 gives no p99 queueing delay: not compared.
    assert "p99_queue_delay_s" not in set(metrics["metric"])
    assert metrics.loc[metrics["metric"] == "utilization", "ns2"].iloc[0] > 0.9
    page = (tmp_path / "report.md").read_text()
    assert page.startswith("# The packet engine against ns-2\n")
    assert "| bbr-droptail-1bdp | refused | - |" in page
    bad = cli("validate-engines", "--against", "ns4", "--list")
    assert bad.returncode == 2
    assert "error: --against: 'ns4'; the suite runs against ns3 or ns2" in bad.stderr


def _published(part: str, ref: str) -> tuple[pd.DataFrame, pd.DataFrame, int]:
    """A page part's metric rows, its runs table and packet seeds."""

    def pm(text: str) -> tuple[float, float]:
        mean, _, ci = text.strip().partition("±")
        if mean.strip() == "-":
            return math.nan, math.nan
        return float(mean.replace(",", "")), float(ci.replace(",", "")) if ci else math.nan

    rows = re.findall(
        r"^\| ([\w.-]+) \| (\w+) \| ([^|]+) \| ([^|]+) \| [^|]+ \| [^|]+ \| (\d+) \| "
        r"[\d.]+% \| (within|undecided|beyond) \|$",
        part,
        re.M,
    )
    metrics = pd.DataFrame(
        [(s, m, *pm(p), *pm(r), int(n), v) for s, m, p, r, n, v in rows],
        columns=["scenario", "metric", "packet", "packet_ci", ref, f"{ref}_ci", "seeds", "verdict"],
    )
    runs = pd.DataFrame(
        re.findall(
            r"^\| ([\w.-]+) \| (agrees|undecided|differs, \w+|failed|refused) \| ([\d-]+) \| "
            r"([^|]+) \| ([^|]+) \|",
            part,
            re.M,
        ),
        columns=["scenario", "verdict", "seeds", "differs_on", "undecided_on"],
    )
    packet = re.search(r"on the packet engine: (\d+)\.", part)
    return metrics, runs, int(packet.group(1))


@pytest.mark.parametrize("ref", ["ns3", "ns2"])
def test_the_published_verdicts_are_the_rules_on_their_numbers(ref):
    # Each metric's published verdict is the rule's on the published seed
    # means, 95% half-widths and seed counts (a standard error is the
    # half-width over t(0.975, n - 1)), at its look's level; each scenario's
    # verdict and metric lists follow from its metrics, the count lines
    # from the table. Numbers are rounded on the page (4 significant digits,
    # 2 for a half-width), so a metric whose interval ends within that
    # rounding of its tolerance may read either way.
    title = {"ns3": "ns-3", "ns2": "ns-2"}[ref]
    page = PAGE.read_text()
    head = f"# The packet engine against {title}\n"
    assert head in page
    part = page.split(head, 1)[1].split("\n# The packet engine against ", 1)[0]
    metrics, runs, packet = _published(part, ref)
    assert len(metrics) and len(runs)
    again = validate.rejudge(metrics.drop(columns="verdict"), packet, against=ref)
    off = again["verdict"] != metrics["verdict"]
    for r in again[off].to_dict("records"):
        tol = validate.tolerance(r["metric"], r["packet"])
        edge = min(abs(abs(r["low"]) - tol), abs(abs(r["high"]) - tol))
        assert edge <= 0.01 * max(abs(r["high"] - r["low"]), tol), r
    assert off.sum() <= 2, again[off]
    for r in runs.to_dict("records"):
        mine = metrics[metrics["scenario"] == r["scenario"]]
        beyond = ", ".join(mine.loc[mine["verdict"] == "beyond", "metric"]) or "-"
        close = ", ".join(mine.loc[mine["verdict"] == "undecided", "metric"]) or "-"
        assert (r["differs_on"].strip(), r["undecided_on"].strip()) == (beyond, close), r
        if r["verdict"] == "refused":
            assert mine.empty
            continue
        want = "differs" if beyond != "-" else "undecided" if close != "-" else "agrees"
        assert r["verdict"].startswith(want), r
        assert int(r["seeds"]) == mine["seeds"].max()
    agree = int((runs["verdict"] == "agrees").sum())
    assert f"**{agree} of {len(runs)} scenarios agree within tolerance**" in part
    counts = metrics["verdict"].value_counts()
    line = ", ".join(f"{int(counts.get(v, 0))} {v}" for v in ("within", "undecided", "beyond"))
    assert f"Metrics: {len(metrics)}; {line}." in part


def test_the_suite_against_ns2_runs_the_ns2_profile():
    # Both engines run each group on stack = "ns2", ns-2.35's agents as the
    # packet engine mirrors them; TCP-Linux's variants without a SYN, as
    # ns-2's TCP-Linux agent runs (its DelAck sink then ACKs packet 0, data,
    # at once). Two-way traffic, the parking lot and the open and closed
    # loops run; 10 of the 48 are refused (BBR, DCTCP, CoDel, PIE,
    # fq_codel).
    suite = validate.scenarios("ns2")
    groups = {
        (name, g["tcp"], g.get("connection_setup"), g.get("quick_acks"), g["stack"])
        for name, s in suite.items()
        for g in s["flows"] + s.get("reverse", {}).get("flows", [])
    }
    assert {stack for *_, stack in groups} == {"ns2"}
    linux = {(c, q) for _, tcp, c, q, _ in groups if tcp in ("cubic", "htcp", "scalable")}
    assert linux == {(False, 1)}
    assert {(c, q) for _, tcp, c, q, _ in groups if tcp == "newreno"} == {(None, None)}
    refused = [n for n in suite if validate._refusal(n, "ns2")]
    assert len(suite) == 48 and len(refused) == 10
    runs = {"newreno-two-way", "newreno-parking-lot", "newreno-openloop", "cubic-closedloop"}
    assert not runs & set(refused)


def test_the_reasons_are_a_loose_list():
    # A blank line between the items of "Why the rest do not agree": each
    # its own paragraph (a tight list of 30 reasons renders as one block).
    runs = pd.DataFrame(
        [
            dict(
                scenario=name,
                verdict="undecided",
                differs_on="",
                undecided_on="jain_index",
                reason="",
                seeds=3,
                packet_seeds=100,
                packet_cpu_s=0.03,
                ns2_cpu_s=1.0,
                speed_ratio=33.0,
            )
            for name in ("newreno-droptail-0.25bdp", "newreno-droptail-1bdp")
        ]
    )
    page = validate.markdown(pd.DataFrame([], columns=["scenario"]), runs, "2.35", against="ns2")
    why = page.split("## Why the rest do not agree\n", 1)[1].split("\n## ", 1)[0]
    items = re.findall(r"^- \*\*", why, re.M)
    assert len(items) == 2
    assert "\n\n- **newreno-droptail-1bdp** (undecided): " in why
    assert not re.search(r"^- .*\n- ", why, re.M)
    assert "packet engine with the ns2 stack profile;" in page
