"""Every reproduction: honest verdicts, numbers in prose that come from the
runs, quick and full labelled, and all of them on one page (`bufsim
reproduce all`).

The quick tables run in `make test`; the full ones are marked slow and run
in `make bench`.
"""

from __future__ import annotations

import copy
import importlib
import json
import re
import warnings
from pathlib import Path

import pytest
from bufsim import report, reproduce
from bufsim.reproduce import PAPERS, VERDICTS, stray_numbers
from conftest import full_table, render_in_chromium


@pytest.fixture(
    scope="module",
    params=[pytest.param(True, id="quick"), pytest.param(False, id="full", marks=pytest.mark.slow)],
)
def tables(request, quick_table):
    """name -> run table of every reproduction, quick or full."""
    if request.param:
        return {name: quick_table(name) for name in PAPERS}
    return {name: full_table(name) for name in PAPERS}


@pytest.mark.parametrize("name", list(PAPERS))
def test_every_claim_has_a_category_that_fits_it(tables, name):
    # A claim with a tolerance says where it comes from; one met after
    # tuning names the parameter; one that differs "explained" names the run
    # that shows its cause; a check is counted apart. Names are unique, so a claim can be
    # followed from quick to full.
    c = reproduce.get(name).claims(tables[name])
    assert set(c["verdict"]) <= set(VERDICTS), set(c["verdict"]) - set(VERDICTS)
    assert c["claim"].is_unique
    has_tol = c["tolerance"].notna()
    assert (c.loc[has_tol, "tolerance_source"].str.len() > 5).all(), c[has_tol]
    tuned = c["verdict"] == "agrees after tuning"
    assert (c.loc[tuned, "tuning"].str.len() > 10).all(), c[tuned]
    assert (c.loc[c["verdict"] == "agrees", "tuning"] == "").all()
    assert (c["why"].str.len() > 20).all(), c[c["why"].str.len() <= 20]
    assert (c["verdict"] == "agrees").sum() >= 1


def test_no_explanation_is_a_literal():
    # "differs, explained" is computed from a run of the same reproduction
    # (bufsim.reproduce.Explanation); a flag typed in decides before the run.
    root = Path(reproduce.__file__).parents[1]
    literal = re.compile(
        r"explained\w*\s*[=:]\s*(True|1)\b|\[[\"']explained\w*[\"']\]\s*=\s*True|"
        r"\*\*\{[\"']explained\w*[\"']\s*:|verdict\w*\s*=\s*[\"']differs, explained"
    )
    found = [
        f"{path.relative_to(root)}:{i}: {line.strip()}"
        for path in sorted(root.rglob("*.py"))
        for i, line in enumerate(path.read_text().splitlines(), 1)
        if literal.search(line)
    ]
    assert found == []
    # The pattern finds the forms it is for.
    for line in ("explained=True,", 'kw["explained"] = True', "explained = True"):
        assert literal.search(line), line
    # Nor an Explanation whose run's value is typed in: a number literal as
    # its value (the argument after the run's name).
    typed = re.compile(
        r"Explanation(?:\.\w+)?\(\s*(?:\w+|\"[^\"]*\"|prose\([^)]*\)),\s*-?[\d.]+\s*,"
    )
    fakes = [
        str(path.relative_to(root))
        for path in sorted(root.rglob("*.py"))
        if typed.search(path.read_text())
    ]
    assert fakes == []
    assert typed.search('Explanation.at_least(\n    "delayed ACKs", 0.93, 0.9, "s")')


#: Perturbations of a run-table column: zeroed, scaled, its rows reversed,
#: or every row set to the column's mean (an ordering or a ratio moves under
#: these).
PERTURB = (
    lambda v: v * 0,
    lambda v: v * 0.01,
    lambda v: v * 0.5,
    lambda v: v * 1.5,
    lambda v: v * 100.0,
    lambda v: v[::-1].to_numpy(),
    lambda v: v * 0 + v.mean(),
)


def _perturbed(table, about: str, how):
    """A copy of a run table with the column ``about`` (``attr:column`` for
    one of ``table.attrs[attr]``) perturbed by ``how``."""
    t = table.copy()
    t.attrs = copy.deepcopy(table.attrs)
    attr, _, col = about.rpartition(":")
    frame = t.attrs[attr] if attr else t
    frame[col] = how(frame[col].astype(float))
    return t


def _perturbed_flows(mod, col: str, how, buffer_pkts: int | None):
    """``mod.case_flows`` with the column ``col`` of the per-flow tables it
    returns at ``buffer_pkts`` (every buffer if None) perturbed by ``how``
    (the per-flow claims' input, which compare one buffer with another)."""
    original = mod.case_flows

    def case_flows(traffic, buffer, *args, **kw):
        f = original(traffic, buffer, *args, **kw)
        if buffer_pkts is not None and buffer != buffer_pkts:
            return f
        out = f.copy()
        out.attrs = dict(f.attrs)
        out[col] = how(f[col].astype(float))
        return out

    return case_flows


@pytest.mark.parametrize("name", list(PAPERS))
def test_every_agreement_can_fail(tables, name, monkeypatch):
    # An "agrees" must be able to miss: each claim names the run-table
    # column it reads (`about`), and perturbing that column moves its
    # verdict; a claim that reads no such column says why ("fixed: ...").
    # A claim that holds by construction is a check, never an agreement.
    mod = reproduce.get(name)
    # The runs module: what the claims call (case_flows) and its buffers.
    mod_py = importlib.import_module(f"bufsim.reproduce.{name}.runs")
    table = tables[name]
    claims = mod.claims(table)
    agrees = claims[claims["verdict"] == "agrees"]
    assert len(agrees) >= 1
    stuck = []
    for _, row in agrees.iterrows():
        about = row["about"]
        assert about, f"{row['claim']}: names no column it reads"
        if about.startswith("fixed: "):
            assert len(about) > 20, row["claim"]
            continue
        moved = False
        for how in PERTURB:
            # A perturbed run may divide by zero (a zeroed column): the
            # verdict, not the warning, is what counts here.
            warnings.simplefilter("ignore", RuntimeWarning)
            for buffer_pkts in (None, *getattr(mod_py, "BUFFERS", ())):
                try:
                    if about.startswith("flows:"):
                        flows = _perturbed_flows(mod_py, about[6:], how, buffer_pkts)
                        with monkeypatch.context() as m:
                            m.setattr(mod_py, "case_flows", flows)
                            c = mod.claims(table).set_index("claim")
                    elif buffer_pkts is None:
                        c = mod.claims(_perturbed(table, about, how)).set_index("claim")
                    else:
                        continue
                except ZeroDivisionError:
                    # A zeroed column some claim divides by: no evidence.
                    continue
                if c.loc[row["claim"], "verdict"] != "agrees":
                    moved = True
                    break
            if moved:
                break
        if not moved:
            stuck.append((row["claim"], about))
    assert stuck == []


@pytest.mark.parametrize("name", list(PAPERS))
def test_every_pass_mark_states_its_source(tables, name):
    # A comparator's mark (a tolerance, a bound, a decision made elsewhere)
    # says where it comes from; a check has none to state.
    c = reproduce.get(name).claims(tables[name])
    compared = c[c["verdict"] != "check"]
    assert (compared["tolerance_source"].str.len() > 10).all(), compared[
        compared["tolerance_source"].str.len() <= 10
    ]["claim"].tolist()
    # An explained difference names the run behind it.
    explained = c[c["verdict"] == "differs, explained"]
    assert (explained["explained_by"].str.contains(" meets ")).all(), explained


@pytest.mark.parametrize("name", list(PAPERS))
def test_every_number_in_the_prose_comes_from_the_run(tables, name):
    # The setup and the findings are templates: a number typed into the
    # text (a stale result) fails here, with the words before it.
    mod = reproduce.get(name)
    table = tables[name]
    texts = {"setup": mod.setup()} | {f.title: f.text for f in mod.findings(table)}
    texts |= {f"caption {k}": v for k, v in mod.captions(table).items()}
    stray = {k: s for k, t in texts.items() if (s := stray_numbers(t))}
    stray |= mod.claims(table).attrs["stray_numbers"]
    assert stray == {}
    # No reST left for the Markdown renderer to print raw.
    for k, t in texts.items():
        assert ":func:" not in t and ":data:" not in t and "``" not in t, k


@pytest.mark.parametrize("name", list(PAPERS))
def test_findings_sit_beside_their_figures(tables, name):
    mod = reproduce.get(name)
    figures = mod.figures(tables[name])
    assert set(mod.captions(tables[name])) == set(figures)
    named = [f.figure for f in mod.findings(tables[name]) if f.figure]
    assert set(named) <= set(figures) and len(named) == len(set(named))
    assert mod.findings(tables[name]), name


@pytest.mark.slow
def test_full_runs_give_the_verdicts_kept_with_the_code():
    # A quick report marks the claims whose verdict differs at full length
    # from python/bufsim/reproduce/full_verdicts.json; this keeps that file
    # true (regenerate it with `python bench/full_verdicts.py`).
    # A paper whose full run has not been made keeps none (and says why,
    # test_kept_full_verdicts_cover_every_paper_and_the_docs_count_them):
    # there is nothing to compare with until bench/full_verdicts.py runs it.
    for name in PAPERS:
        if reproduce.full_not_run(name):
            continue
        c = reproduce.get(name).claims(full_table(name))
        assert dict(zip(c["claim"], c["verdict"])) == reproduce.full_verdicts(name), name
        assert reproduce.headline_counts(c) == reproduce.full_headline_counts(name), name


def test_kept_full_verdicts_cover_every_paper_and_the_docs_count_them():
    # Every paper has its full run's verdicts kept, or the reason there is
    # no full run yet (which its quick report prints), never both.
    kept = json.loads(reproduce.FULL_VERDICTS.read_text())
    missing = kept.get("not_run", {})
    assert set(kept["verdicts"]) | set(missing) == set(PAPERS)
    assert not set(kept["verdicts"]) & set(missing)
    assert all(len(why) > 20 for why in missing.values()), missing
    readme = (reproduce.FULL_VERDICTS.parents[3] / "docs" / "reproductions.md").read_text()
    head = "| paper | " + " | ".join(VERDICTS) + " |"
    assert head in readme
    table = readme[readme.index(head) :].split("\n\n")[0]
    for name, verdicts in kept["verdicts"].items():
        counts = [sum(v == k for v in verdicts.values()) for k in VERDICTS]
        row = re.search(rf"^\| `{name}` \|.*$", table, re.M)
        assert row, name
        cells = [c.strip() for c in row.group(0).strip("|").split("|")]
        assert [int(x) for x in cells[1:]] == counts, (name, cells)


def test_the_docs_count_the_headline_results():
    # docs/reproductions.md counts each paper's headline results from the
    # full-length verdicts kept with the code, and the README sums them.
    root = reproduce.FULL_VERDICTS.parents[3]
    docs = (root / "docs" / "reproductions.md").read_text()
    head = "| paper | headline results | " + " | ".join(reproduce.HEADLINE_COUNTS) + " |"
    assert head in docs
    table = docs[docs.index(head) :].split("\n\n")[0]
    total = dict.fromkeys(("headline", *reproduce.HEADLINE_COUNTS), 0)
    for name in PAPERS:
        counts = reproduce.full_headline_counts(name)
        assert counts["headline"] >= 1, name
        row = re.search(rf"^\| `{name}` \|.*$", table, re.M)
        assert row, name
        cells = [int(c.strip()) for c in row.group(0).strip("|").split("|")[1:]]
        assert cells == list(counts.values()), (name, cells, counts)
        total = {k: total[k] + counts[k] for k in total}
    readme = (root / "README.md").read_text()
    assert (
        f"their {total['headline']} headline results, full-length runs: {total['reproduced']} "
        f"reproduced, {total['explained by a run']} explained by a run, "
        f"{total['unexplained']} unexplained, {total['tuned or undecided']} tuned or undecided"
    ) in readme
    # The README's own table, per paper, the same counts.
    for name in PAPERS:
        row = re.search(rf"^\|[^|]*\(`{name}`\) \|.*$", readme, re.M)
        assert row, name
        cells = [int(c.strip()) for c in row.group(0).strip("|").split("|")[1:]]
        assert cells == list(reproduce.full_headline_counts(name).values()), name


def test_report_uses_the_stored_full_run(quick_table, monkeypatch, tmp_path):
    # `bufsim report NAME` reads the full run `bufsim reproduce NAME` stored
    # and says which run it shows (here a copy of the quick table stored as
    # the full one).
    name = "dhamdhere2006"
    monkeypatch.setattr(reproduce, "RESULTS", tmp_path)
    full = quick_table(name).copy()
    reproduce.save(name, full, quick=False)
    page = report.source_report(name)
    assert "(full run)" in page and "Full-length run at commit" in page
    assert "Every verdict is the same" not in page  # no stored quick run to compare with


def test_quick_report_marks_the_verdicts_the_full_run_moves(quick_table, monkeypatch, tmp_path):
    name = "dhamdhere2006"
    table = quick_table(name)
    claims = reproduce.get(name).claims(table)
    kept = dict(zip(claims["claim"], claims["verdict"]))
    moved = claims["claim"].iloc[0]
    kept[moved] = "differs, unexplained" if kept[moved] != "differs, unexplained" else "agrees"
    monkeypatch.setattr(reproduce, "RESULTS", tmp_path)
    monkeypatch.setattr(reproduce, "full_verdicts", lambda n: kept)
    page = report.reproduction_report(name, table=table)
    assert "(quick run)" in page and "Quick run: the short version" in page
    assert "1 verdict differs from the full run" in page and "other length" in page
    counts = reproduce.verdict_counts(claims)
    for verdict, n in counts.items():
        assert f"<strong>{verdict}</strong>: {n}" in page


def test_reproductions_on_one_page(tables, tmp_path):
    # `bufsim reproduce all` writes one report: every reproduction's tables
    # on one page, every figure and section id prefixed by its paper so none
    # collides, opened in headless Chromium.
    page = report.reproductions_report(tables)
    ids = re.findall(r'<div class="figure" id="([^"]+)"', page)
    for name in tables:
        assert any(i.startswith(f"fig-{name}-") for i in ids), (name, ids)
        for section in ("verdicts", "setup", "claims", "finding-1"):
            assert f'id="{name}-{section}"' in page, (name, section)
    assert len(ids) == len(set(ids))
    path = tmp_path / "all.html"
    path.write_text(page)
    render_in_chromium(path, tmp_path, "all")


#: Per paper, how many claims of the quick run ns-2.35 gives a number for
#: (the rest say why it cannot: a fluid model, a queue or an output the
#: ns2 engine does not write, a link too fast to run).
NS2_CLAIMS = {
    "auge2006": 11,
    "barman2005": 12,
    "avrachenkov2006": 19,
    "kumar2010": 3,
    "dhamdhere2006": 40,
    "addanki2022": 0,
}


@pytest.mark.parametrize("name", list(PAPERS))
def test_the_ns2_column_is_filled_where_ns2_can_run_the_setup(quick_table, name):
    # Every claim that is not a check has ns-2.35's number, judged against
    # the paper by the claim's own pass mark, or a short reason ns-2 has
    # none; the headline table shows one or the other.
    from bufsim import ns2

    if not ns2.available():
        pytest.skip(f"ns-2 is not installed ({ns2.why_unavailable()}): no ns-2 column to check")
    c = reproduce.get(name).claims(quick_table(name))
    claims = c[c["verdict"] != "check"]
    has = claims["ns2"].notna()
    assert int(has.sum()) == NS2_CLAIMS[name], claims.loc[has, "claim"].tolist()
    assert set(claims.loc[has, "ns2_verdict"]) <= {"agrees", "differs"}
    why = claims.loc[~has, "ns2_why"]
    assert (why.str.len() > 3).all() and (why.str.split().str.len() <= 4).all(), claims[~has]
    head = reproduce.headline_table(c)
    assert "-" not in set(head["ns-2.35"]), head
    # A difference ns-2 shares is explained by that run, in the rule's words.
    shared = claims["explained_by"].str.contains("the paper's simulator gives", regex=False)
    assert (claims.loc[shared, "verdict"] == "differs, explained").all()
