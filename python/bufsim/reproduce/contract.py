"""The contract between the reproduction framework and a paper.

A paper (``bufsim.reproduce.<name>``, a module or a package) is whatever
:func:`bufsim.reproduce.get` turns into a :class:`~bufsim.reproduce.Reproduction`:
exactly the seven functions :class:`Paper` names, no more. The framework
reads nothing else of a paper; the report, the CLI and the docs go through
the :class:`~bufsim.reproduce.Reproduction` :func:`~bufsim.reproduce.get`
builds. ``tests/test_reproduce_contract.py`` checks every paper in
:data:`~bufsim.reproduce.PAPERS` against it, signatures included.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    import pandas as pd

    from bufsim.reproduce import Finding, Prose


@runtime_checkable
class Paper(Protocol):
    """What a paper's module defines for the framework.

    ``isinstance(module, Paper)`` checks that the seven names exist;
    the signatures are the contract's test's to check.
    """

    def setup(self) -> Prose:
        """The setup, what the paper reports and where bufsim's setup
        differs, as Markdown whose numbers come from the paper's constants."""
        ...

    def run(
        self, quick: bool = False, progress: Callable[[str], Any] | None = None
    ) -> pd.DataFrame:
        """The runs, one row per case (``quick``: the short version the test
        suite runs; ``progress`` is called with a line before each case)."""
        ...

    def claims(self, table: pd.DataFrame) -> pd.DataFrame:
        """Each of the paper's statements beside bufsim's number with a
        verdict (:class:`~bufsim.reproduce.Claims`)."""
        ...

    def findings(self, table: pd.DataFrame) -> list[Finding]:
        """What the runs show and why, each beside the figure it explains."""
        ...

    def figures(self, table: pd.DataFrame) -> dict[str, Any]:
        """Key -> matplotlib Figure."""
        ...

    def captions(self, table: pd.DataFrame) -> dict[str, Prose]:
        """The keys of :meth:`figures` -> one sentence on what each shows."""
        ...

    def tables(self, table: pd.DataFrame) -> dict[str, tuple[str, pd.DataFrame]]:
        """Further tables, key -> (title, frame); ``{}`` for none."""
        ...
