"""Shared pytest fixtures and helpers."""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

BASE: dict[str, Any] = {
    "duration": "20s",
    "link": {"capacity": "10Mbps", "delay": "20ms", "buffer": "50pkt"},
    "flows": [{"count": 1, "rtt": "100ms", "mss": "1000B"}],
}


#: The sweep tests' base: short packet runs with random elements (Poisson
#: background, random starts), so that the seed matters.
SWEEP_BASE: dict[str, Any] = {
    "name": "sweep-test",
    "duration": "3s",
    "seed": 1,
    "link": {"capacity": "10Mbps", "delay": "10ms", "buffer": "20pkt"},
    "flows": [{"count": 2, "rtt": "40ms", "mss": "1000B", "start": {"uniform": ["0s", "1s"]}}],
    "background": [{"kind": "poisson", "rate": "2Mbps", "packet_size": "1000B"}],
}


def stable(table: pd.DataFrame) -> pd.DataFrame:
    """A sweep table without the columns that legitimately differ between
    runs of the same sweep (``wall_s``, ``cached``)."""
    return table.drop(columns=["wall_s", "cached"]).reset_index(drop=True)


@pytest.fixture
def base() -> dict[str, Any]:
    """A small valid scenario (a fresh copy per test)."""
    return copy.deepcopy(BASE)


CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    # Belt and braces: no name resolves, and the browser runs in a network
    # namespace of its own (below), so nothing can leave the machine.
    "--host-resolver-rules=MAP * ~NOTFOUND",
]


def chromium() -> list[str]:
    """The command that starts headless Chromium (in an empty network namespace when possible)."""
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        pytest.fail(
            "Chromium is not installed: `apt-get install chromium` (make test and .ci/run install it)"
        )
    unshare = shutil.which("unshare")
    if unshare and subprocess.run([unshare, "--net", "true"], capture_output=True).returncode == 0:
        return [unshare, "--net", exe]
    return [exe]


def render_in_chromium(page: Path, tmp: Path, name: str) -> None:
    """Open an HTML report in headless Chromium and check it: a screenshot
    that is not blank, every figure of the page in the rendered DOM, and no
    request made by the page (its network log)."""
    from matplotlib.image import imread

    profile = tmp / f"profile-{name}"
    netlog = tmp / f"{name}-net.json"
    shot = tmp / f"{name}.png"
    base = [*chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", f"--log-net-log={netlog}"]
    run = subprocess.run(
        [*base, f"--screenshot={shot}", "--window-size=1100,1400", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0 and shot.is_file(), run.stderr[-2000:]
    # Not blank: a white page has no variance and almost no dark pixels.
    img = imread(shot)[..., :3]
    dark = (img.mean(axis=2) < 0.6).mean()
    assert img.std() > 0.05 and dark > 0.01, (img.std(), dark)
    # Every figure of the page is in the rendered DOM.
    dom = subprocess.run(
        [*base, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120
    ).stdout
    ids = re.findall(r'<div class="figure" id="([^"]+)"', page.read_text())
    assert ids and all(f'id="{i}"' in dom for i in ids), ids
    assert dom.count("<svg") == len(ids)
    # The page itself requested nothing: every URL request the network
    # log holds is either the file itself or the browser's own
    # background traffic (no page origin), and none succeeded.
    events = json.loads(netlog.read_text())
    types = {v: k for k, v in events["constants"]["logEventTypes"].items()}
    page_requests = [
        e["params"].get("url", "")
        for e in events["events"]
        if types.get(e["type"]) == "URL_REQUEST_START_JOB"
        and e["params"].get("initiator") not in (None, "not an origin")
    ]
    assert page_requests == [], page_requests


#: pytest-timeout's bound for a test marked ``slow`` (pyproject.toml sets
#: 900 s for the others): a full reproduction runs in its first test's setup,
#: 15 minutes and more for paper 003's on two cores.
SLOW_TIMEOUT_S = 3600


def pytest_configure(config: pytest.Config) -> None:
    """pytest-xdist's workers start with ``COLUMNS=80`` and ``LINES=24`` in
    their environment, which fix the width of ``bufsim.cli``'s consoles
    when it is imported; drop them, so that a CLI test's ``COLUMNS`` takes
    effect as under plain pytest."""
    if os.environ.get("PYTEST_XDIST_WORKER") is not None:
        os.environ.pop("COLUMNS", None)
        os.environ.pop("LINES", None)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Give the tests marked ``slow`` (``make bench``) :data:`SLOW_TIMEOUT_S`."""
    for item in items:
        if item.get_closest_marker("slow") and not item.get_closest_marker("timeout"):
            item.add_marker(pytest.mark.timeout(SLOW_TIMEOUT_S))


@pytest.fixture(
    scope="module",
    params=[pytest.param(True, id="quick"), pytest.param(False, id="full", marks=pytest.mark.slow)],
)
def quick(request):
    """A reproduction's length, for the tests that run both: the quick one in
    ``make test``, the full one (marked slow) in ``make bench``."""
    return request.param


@pytest.fixture(scope="session")
def quick_store(tmp_path_factory) -> Path:
    """The results store of this session's quick reproductions: the
    reproduction tests and the docs build (``BUFSIM_DOCS_STORE``, whose
    reproduction figures draw them) share it, so each runs once. Under
    pytest-xdist (``make test`` runs ``-n auto``) the workers share one
    folder beside their own: a run one worker has claimed, another reads
    back when it is stored (the store's claims, as for two sweep drivers).
    ``BUFSIM_QUICK_STORE`` names a folder that keeps them across sessions
    (a developer rerunning the reproduction tests after a claims change)."""
    if kept := os.environ.get("BUFSIM_QUICK_STORE"):
        Path(kept).mkdir(parents=True, exist_ok=True)
        return Path(kept)
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        return tmp_path_factory.mktemp("quick-runs")
    shared = tmp_path_factory.getbasetemp().parent / "quick-runs"
    shared.mkdir(exist_ok=True)
    return shared


@pytest.fixture(scope="session")
def quick_table(quick_store):
    """``quick_table(name)``: the quick run table of reproduction ``name``
    (3-35 s each), run once per session for the reproduction and report
    tests (or read from :func:`quick_store`), with ``attrs["quick"] =
    True``; do not modify it."""
    from bufsim import reproduce

    cache: dict[str, pd.DataFrame] = {}

    def get(name: str) -> pd.DataFrame:
        if name not in cache:
            cache[name] = reproduce.get(name).run(quick=True, store=quick_store)
            cache[name].attrs["quick"] = True
        return cache[name]

    return get


@pytest.fixture(scope="module")
def reproduction_table(quick, quick_table):
    """``reproduction_table(name)``: reproduction ``name``'s table at the
    length :func:`quick` picks: a copy of the session's quick run
    (:func:`quick_table`) or the full run (:func:`full_table`)."""

    def get(name: str) -> pd.DataFrame:
        if quick:
            return quick_table(name).copy()
        return full_table(name)

    return get


def _full_runs() -> Path:
    """The results store ``bufsim reproduce`` and ``bench/full_verdicts.py``
    keep their simulations in, in this checkout: read once, before a test's
    ``_no_stored_reproductions`` points ``reproduce.RESULTS`` elsewhere."""
    from bufsim import reproduce

    return Path(__file__).parents[1] / reproduce.RESULTS / "runs"


FULL_RUNS = _full_runs()


def full_table(name: str) -> pd.DataFrame:
    """Reproduction ``name``'s full run, on every core, its runs kept in
    :data:`FULL_RUNS`: runs either made are read back, not rerun (a run's
    key holds the engine's build, so none is stale; results do not depend
    on the workers)."""
    from bufsim import reproduce

    return reproduce.get(name).run(quick=False, workers=None, store=FULL_RUNS)


@pytest.fixture(scope="session")
def avrachenkov_quick_table(quick_table) -> pd.DataFrame:
    """Paper 003's quick reproduction table; do not modify it."""
    return quick_table("avrachenkov2006")


@pytest.fixture(autouse=True)
def _no_stored_reproductions(monkeypatch, tmp_path_factory):
    """Reports read stored full runs from ``results/reproduce`` under the
    working directory (:data:`bufsim.reproduce.RESULTS`): tests see an empty
    folder instead, whatever a developer's checkout holds."""
    from bufsim import reproduce

    monkeypatch.setattr(reproduce, "RESULTS", tmp_path_factory.mktemp("reproduce"))


def cli(
    *args: str, cwd: Path | None = None, env: Mapping[str, str] | None = None, timeout: float = 300
) -> subprocess.CompletedProcess:
    """Run ``bufsim`` (``python -m bufsim.cli``) with ``args``, as a user
    would from ``cwd``: its output captured as text; ``timeout`` (s) guards
    against a hang."""
    return subprocess.run(
        [sys.executable, "-m", "bufsim.cli", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def default_sigint() -> None:
    """``preexec_fn`` of a child that a test interrupts with SIGINT: the
    signal's default action, as an interactive terminal's Ctrl-C finds it.
    A test runner started in the background by a shell without job control
    ignores SIGINT (POSIX), and its children would inherit that."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


#: A fenced block of a Markdown page: language, what follows it on the
#: fence line (a ``title``), code.
MARKDOWN_BLOCK = re.compile(r"^```(\w*)([^\n]*)\n(.*?)^```$", flags=re.S | re.M)


def markdown_blocks(page: Path) -> list[tuple[str, str, str, str | None]]:
    """(language, info after it, code, expected output or None) for each
    fenced block of ``page`` that has a language (a plain block right after
    one is its expected output; ``text`` blocks are prose)."""
    text = page.read_text()
    found = list(MARKDOWN_BLOCK.finditer(text))
    out = []
    for k, b in enumerate(found):
        if b.group(1) in ("", "text"):
            continue
        nxt = found[k + 1] if k + 1 < len(found) else None
        adjacent = (
            nxt is not None and nxt.group(1) == "" and not text[b.end() : nxt.start()].strip()
        )
        out.append((b.group(1), b.group(2), b.group(3), nxt.group(3) if adjacent else None))
    return out


# A fan-in burst into a 100-packet ABM pool: 16 transfers of 15 KB start
# together on port 0 while Poisson background keeps port 1 busy (the
# first-RTT priority's test and a golden case).
ABM_BURST = {
    "duration": "0.02s",
    "seed": 2,
    "link": {"capacity": "10Gbps", "delay": "10us"},
    "pool": {"size": "100pkt", "ports": 2, "algorithm": "abm"},
    "flows": [
        {
            "count": 16,
            "tcp": "dctcp",
            "size": "15KB",
            "mss": "1500B",
            "rtt": "80us",
            "start": "1ms",
            "port": 0,
        }
    ],
    "background": [{"kind": "poisson", "rate": "6Gbps", "packet_size": "1500B", "port": 1}],
}


def refusal(base: dict, edit) -> str:
    """The :class:`bufsim.ScenarioError` message of a copy of scenario
    ``base`` changed by ``edit`` (a function of the copy); the test fails
    if it is accepted."""
    import copy

    import bufsim

    s = copy.deepcopy(base)
    edit(s)
    with pytest.raises(bufsim.ScenarioError) as info:
        bufsim.simulate(s)
    return str(info.value)


def run_python_block(code: str, expected: str | None, namespace: dict, source: str) -> None:
    """Execute a page's python block in ``namespace``; with ``expected``,
    what it prints must be exactly that."""
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(compile(code, source, "exec"), namespace)
    if expected is not None:
        assert buf.getvalue() == expected, code


class _Delete:
    """The value :func:`edit` deletes a field with (its repr names the test:
    the same in every pytest-xdist worker, as an object()'s address is not)."""

    def __repr__(self) -> str:
        return "<deleted>"


DELETE = _Delete()


def edit(base: dict, path: str, value) -> dict:
    """A copy of ``base`` with the dotted ``path`` (``flows.0.rtt``) set to
    ``value``; ``value = DELETE`` removes the key."""
    import copy

    s = copy.deepcopy(base)
    *parents, last = path.split(".")
    node = s
    for key in parents:
        node = node[int(key)] if key.isdigit() else node[key]
    if value is DELETE:
        del node[last]
    else:
        node[int(last) if last.isdigit() else last] = value
    return s
