"""The shipped notebook (``bufsim.examples.notebook("buffer-sweep")``) runs
from top to bottom in a fresh kernel (nbclient) and draws its figures; the
file in the package carries no outputs."""

from __future__ import annotations

import shutil

import bufsim
import nbclient
import nbformat
import pytest
from bufsim._core import BufsimError


def test_the_notebook_runs_and_draws(tmp_path):
    src = bufsim.examples.notebook("buffer-sweep")
    nb = nbformat.read(src, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code and all(not c.outputs and c.execution_count is None for c in code)
    shutil.copy(src, tmp_path)
    client = nbclient.NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()
    # The table: six buffers by four variants, BBR near full at 5 packets
    # (it paces at its rate estimate), the loss-based variants far below.
    table = code[0].outputs[0]["data"]["text/plain"].splitlines()
    assert table[0].split()[1:] == ["bbr", "cubic", "highspeed", "newreno"]
    rows = {float(r.split()[0]): [float(x) for x in r.split()[1:]] for r in table[2:]}
    assert sorted(rows) == [5.0, 20.0, 80.0, 160.0, 320.0, 625.0]
    assert rows[5.0][0] > 0.9 > 0.6 > max(rows[5.0][1:])
    assert min(rows[625.0]) > 0.97
    # Each figure cell shows a PNG; the runs are in the notebook's store.
    assert all("image/png" in c.outputs[0]["data"] for c in code[1:])
    assert (tmp_path / "results" / "store.sqlite").exists()


def test_an_unknown_notebook_names_the_known_ones():
    with pytest.raises(BufsimError, match="unknown; the notebooks are buffer-sweep"):
        bufsim.examples.notebook("nope")
