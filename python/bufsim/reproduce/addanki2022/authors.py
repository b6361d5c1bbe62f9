"""The authors' published simulator output for ABM's figures 6, 7, 9 and
11: the per-flow files their run scripts wrote (``inet-tub/ns3-datacenter``,
``simulator/ns-3.35/examples/ABM/dump_sigcomm/fcts-single-*.fct`` and
``fcts-buffer-*.fct``), read by the rules of their parser, one row per
figure point, kept beside this module as ``authors_p99.csv``.

These are the authors' published outputs of their own ns-3.35 simulator,
named as their plot script names the figures; they are not proven to be
the exact data behind the printed figures. The claims use them as the
paper's simulator's numbers, as the other reproductions use ns-2.35 runs.

Build the CSV from a git copy of the repository (the commit must be in it)::

    python -c 'from bufsim.reproduce.addanki2022 import authors; authors.build("GIT_DIR")'
"""

from __future__ import annotations

import functools
import io
import subprocess
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd

#: Where the files are: the repository, the commit that added them
#: ("adding datafiles, plot scripts ...", 27 June 2022) and their folder.
REPOSITORY = "inet-tub/ns3-datacenter"

COMMIT = "40b84300cf5bc6b41953239419aa8b9022a793d4"

DUMP = "simulator/ns-3.35/examples/ABM/dump_sigcomm"

#: The commit of ``plots-rename.sh``, which names each of the plot
#: script's (``plots/plots_sigcomm.py``) files as a figure of the paper.
RENAME_COMMIT = "fb990a54b350e61294aedd8e9fa1fe8d0c4e7f52"

#: ``results.sh``'s codes: the buffer managements and the transports.
ALGORITHMS = {101: "dt", 102: "fab", 103: "complete", 104: "ib", 110: "abm"}

TRANSPORTS = {1: "cubic", 2: "dctcp", 4: "powertcp", 6: "timely"}

#: ``parseData-singleQ.py``'s short flows: ``flowsize < bdp`` with ``bdp =
#: linerate x 1e9 x rtt x 1e-6 / 8`` (10 Gbps, 80 us; in this order it is
#: 100,000 exactly) and ``incast == 0``.
SHORT_BYTES = 10 * 1e9 * 80 * 1e-6 / 8

#: The RTO a short flow waits when it loses what duplicate ACKs cannot
#: recover: the script's 10 ms minimum (the files' times are in ns).
RTO_NS = 10e6

#: The file's panels (plots-rename.sh): the load sweep (CUBIC, requests of
#: 30% of the buffer) is figure 6, (a) the incast, (b) the short flows;
#: the request sweep (CUBIC, load 0.4, the plot's ``burst <= 0.75``, the
#: load sweep's 30% point too) figure 7; each transport's request sweep
#: (load 0.4, DT and ABM, the 30% point left out) figure 9, (a) CUBIC, (b)
#: DCTCP, (c) TIMELY, (d) PowerTCP, the incast's p99.
PANEL_9 = {"cubic": "9a", "dctcp": "9b", "timely": "9c", "powertcp": "9d"}

#: The buffer sweep (``run-buffer.sh``: load 0.4, requests of 25% of the
#: 9.6 KiB buffer, DT, ABM and IB): figure 11, (a) DCTCP, (b) PowerTCP.
PANEL_11 = {"dctcp": "11a", "powertcp": "11b"}

#: The script's buffer (KiB per port per Gbps) and the buffer sweep's load
#: and request, which its file names leave out.
KIB = 9.6

BUFFER_LOAD, BUFFER_BURST = 0.4, 0.25

#: The CSV shipped beside this module.
CSV = resources.files(__package__).joinpath("authors_p99.csv")

HEADER = f"""\
# ABM (Addanki et al., SIGCOMM 2022): the authors' published ns-3.35 output,
# p99 slowdowns per figure point. Built by bufsim.reproduce.addanki2022.authors.build
# (GIT_DIR: a git copy of the repository); do not edit by hand.
# Source: github.com/{REPOSITORY} at commit {COMMIT},
#   {DUMP}/fcts-single-TCP-ALG-LOAD-BURST-2.fct and fcts-buffer-TCP-ALG-KIB.fct
#   (load {BUFFER_LOAD}, requests of {BUFFER_BURST} of the {KIB} KiB buffer; column file:
#   the file's name, series: single or buffer, buffer_kib: KiB per port per Gbps).
# Figures: plots/plots_sigcomm.py's names mapped by plots-rename.sh (commit
#   {RENAME_COMMIT}): load-ABM-incastfct = 6a, load-ABM-shortfct = 6b,
#   burst-ABM-incastfct = 7a, burst-ABM-shortfct = 7b, tcp-cubic/dctcp/timely/
#   powertcp-incastfct = 9a/9b/9c/9d, buffer-incastfct-dctcp/powertcp = 11a/11b.
# Codes (results.sh): ALG 101 DT, 102 FAB, 103 CS, 104 IB, 110 ABM; TCP 1 CUBIC,
#   2 DCTCP, 4 PowerTCP, 6 TIMELY.
# Parser rule (parseData-singleQ.py): short = incast == 0 and flowsize < 10 Gbps
#   x 80 us / 8 = 100000 B; incast = incast == 1; p99 = the slowdowns sorted,
#   element int(0.99 n) - 1 (0-based). short_rto: the share of short flows with
#   fct - basefct >= 10 ms (the script's minimum RTO).
# These are the authors' published outputs, not proven to be the exact data
# behind the printed figures.
"""


def _p99(x: np.ndarray) -> float:
    """The parser's 99th percentile: element ``int(0.99 n) - 1`` of the sorted list."""
    return float(np.sort(x)[int(len(x) * 0.99) - 1]) if len(x) else float("nan")


def figures(tcp: str, alg: str, load: float, burst: float, series: str = "single") -> str:
    """The panels a point is drawn in (space-separated), by the plot script's
    selections (figure 9 draws DT and ABM only; the buffer series is figure
    11's alone)."""
    if series == "buffer":
        return PANEL_11[tcp]
    out = []
    if tcp == "cubic" and np.isclose(burst, 0.3):
        out += ["6a", "6b"]
    if tcp == "cubic" and np.isclose(load, 0.4) and burst <= 0.75:
        out += ["7a", "7b"]
    if alg in ("dt", "abm") and np.isclose(load, 0.4) and not np.isclose(burst, 0.3):
        out.append(PANEL_9[tcp])
    return " ".join(out)


def point(flows: pd.DataFrame) -> dict[str, float]:
    """One file's numbers by the parser's rules: ``short_p99``, ``incast_p99``,
    ``short_n``, ``incast_n`` and ``short_rto`` (see :data:`HEADER`)."""
    short = flows[(flows["flowsize"] < SHORT_BYTES) & (flows["incast"] == 0)]
    incast = flows[flows["incast"] == 1]
    late = (short["fct"] - short["basefct"]) >= RTO_NS
    return {
        "short_p99": _p99(short["slowdown"].to_numpy()),
        "incast_p99": _p99(incast["slowdown"].to_numpy()),
        "short_n": float(len(short)),
        "incast_n": float(len(incast)),
        "short_rto": float(late.mean()) if len(short) else float("nan"),
    }


def build(git_dir: str | Path, out: str | Path | None = None) -> pd.DataFrame:
    """Read every ``fcts-single-*.fct`` and ``fcts-buffer-*.fct`` of
    :data:`COMMIT` from a git copy of the repository and write the CSV.

    Parameters
    ----------
    git_dir : str or Path
        A git directory (or work tree) holding :data:`COMMIT`.
    out : str or Path, optional
        Where to write; default the CSV beside this module.

    Returns
    -------
    pandas.DataFrame
        One row per file: ``series`` (``single`` or ``buffer``), ``tcp``,
        ``algorithm``, ``load``, ``burst``, ``buffer_kib``, ``figures``, the
        numbers of :func:`point`, ``file``.
    """

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(git_dir), *args], check=True, capture_output=True, text=True
        ).stdout

    rows = []
    for path in git("ls-tree", "--name-only", COMMIT, f"{DUMP}/").split():
        name = path.rsplit("/", 1)[-1]
        if name.startswith("fcts-single-"):
            series = "single"
            tcp, alg, load, burst, _ = name[len("fcts-single-") : -len(".fct")].split("-")
            kib = KIB
        elif name.startswith("fcts-buffer-"):
            series, load, burst = "buffer", BUFFER_LOAD, BUFFER_BURST
            tcp, alg, kib = name[len("fcts-buffer-") : -len(".fct")].split("-")
        else:
            continue
        flows = pd.read_csv(io.StringIO(git("show", f"{COMMIT}:{path}")), sep=" ")
        t, a = TRANSPORTS[int(tcp)], ALGORITHMS[int(alg)]
        rows.append(
            {
                "series": series,
                "tcp": t,
                "algorithm": a,
                "load": float(load),
                "burst": float(burst),
                "buffer_kib": float(kib),
                "figures": figures(t, a, float(load), float(burst), series),
                **point(flows),
                "file": name,
            }
        )
    keys = ["series", "tcp", "algorithm", "load", "burst", "buffer_kib"]
    table = pd.DataFrame(rows).sort_values(keys, kind="stable")
    target = Path(str(CSV)) if out is None else Path(out)
    with target.open("w") as fh:
        fh.write(HEADER)
        table.to_csv(fh, index=False, float_format="%.6g")
    return table.reset_index(drop=True)


@functools.cache
def published() -> pd.DataFrame:
    """The CSV :func:`build` wrote (its columns), read once."""
    return pd.read_csv(io.StringIO(CSV.read_text()), comment="#")


def value(
    tcp: str, alg: str, column: str, load: float, burst: float, buffer_kib: float | None = None
) -> float:
    """One number of the authors' output (NaN where they ran no such point):
    the buffer sweep's where ``buffer_kib`` is given (its 9.6 KiB point is a
    run of its own, apart from the single runs' at the same setup), else the
    single runs'."""
    t = published()
    t = t[(t["tcp"] == tcp) & (t["algorithm"] == alg)]
    t = t[np.isclose(t["load"], load) & np.isclose(t["burst"], burst)]
    if buffer_kib is None:
        t = t[t["series"] == "single"]
    else:
        t = t[(t["series"] == "buffer") & np.isclose(t["buffer_kib"], buffer_kib)]
    return float(t[column].iloc[0]) if len(t) else float("nan")
