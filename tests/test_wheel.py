"""The built wheel, installed into a fresh virtual environment, works
outside the checkout: the examples, the report template and relative paths
in scenario files come with it."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A fresh venv with the wheel built from this checkout; returns its bin folder."""
    maturin = shutil.which("maturin", path=str(Path(sys.executable).parent))
    assert maturin, "maturin is installed by `make install`"
    work = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [maturin, "build", "--release", "--quiet", "--out", str(work / "dist")],
        cwd=ROOT,
        check=True,
        capture_output=True,
        timeout=1200,
    )
    (wheel,) = (work / "dist").glob("bufsim-*.whl")
    subprocess.run([sys.executable, "-m", "venv", str(work / "venv")], check=True, timeout=120)
    bin_dir = work / "venv" / "bin"
    subprocess.run(
        [bin_dir / "pip", "install", "--quiet", str(wheel)],
        check=True,
        capture_output=True,
        timeout=900,
    )
    return bin_dir


def run(bin_dir: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    p = subprocess.run(
        [bin_dir / "bufsim", *args], cwd=cwd, capture_output=True, text=True, timeout=300
    )
    assert p.returncode == 0, p.stderr
    return p


def test_examples_run_outside_the_checkout(installed, tmp_path):
    listed = run(installed, "examples", cwd=tmp_path).stdout
    assert "auge2006" in listed and "advise-10g" in listed and "variants" in listed
    # The sweep spec ships too (its 72 points counted, none run).
    dry = run(installed, "sweep", "--example", "variants", "--dry-run", cwd=tmp_path).stdout
    assert "72 points" in dry
    run(
        installed,
        "run",
        "--example",
        "auge2006",
        "--engine",
        "fluid",
        "--quiet",
        "--out",
        "r",
        cwd=tmp_path,
    )
    assert (tmp_path / "r" / "summary.json").is_file()
    run(installed, "examples", "copy", "dhamdhere2006", cwd=tmp_path)
    assert (tmp_path / "dhamdhere2006.toml").is_file()
    # The report's template is in the wheel too.
    run(installed, "report", "r", "-o", "r.html", cwd=tmp_path)
    assert "<svg" in (tmp_path / "r.html").read_text()


def test_relative_paths_resolve_from_the_scenario_file(installed, tmp_path):
    (tmp_path / "cfg").mkdir()
    (tmp_path / "cfg" / "sizes.csv").write_text("size_pkts,cdf\n2,0.5\n20,1.0\n")
    (tmp_path / "cfg" / "web.toml").write_text(
        textwrap.dedent("""
        duration = "2s"
        [link]
        capacity = "10Mbps"
        delay = "10ms"
        buffer = "50pkt"
        [[flows]]
        arrival = {load = 0.5}
        size = {empirical = "sizes.csv"}
        rtt = "40ms"
    """)
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = run(
        installed, "run", "../cfg/web.toml", "--quiet", "--json", "--out", "r", cwd=elsewhere
    ).stdout
    assert '"utilization"' in out
