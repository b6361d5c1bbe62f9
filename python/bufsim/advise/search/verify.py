"""The verification by another engine: ns-3 or ns-2 at the recommended buffer.

:func:`verify` runs a verifying engine (:attr:`bufsim.engines.Engine.verifies`)
at the packet engine's answer over the same seeds and says, objective by
objective, whether it holds there too. Buffers in packets.
"""

from __future__ import annotations

import pandas as pd

from bufsim import fmt
from bufsim.advise.objectives import judged, observed
from bufsim.advise.search.plan import Plan
from bufsim.advise.search.runs import Runner


def verify(p: Plan, runner: Runner, engine: str, b: int) -> str:
    """``engine`` (a verifying one: ns-3, ns-2) at buffer ``b`` (packets)
    over the packet runs' seeds: a note with each objective's mean in both
    engines and whether it holds in ``engine`` (the answer stays the
    packet engine's).

    Parameters
    ----------
    p : Plan
        The search's plan (objectives, seeds, confidence).
    runner : Runner
        Where the run goes, and the packet runs at ``b`` to compare with.
    engine : str
        A name of :data:`bufsim.engines.ENGINES` whose engine verifies.
    b : int
        The recommended buffer, packets.

    Returns
    -------
    str
        The note for :attr:`~bufsim.advise.Advice.notes`.
    """
    from bufsim.engines import ENGINES

    name = ENGINES[engine].label
    runner.say(engine, f"{name} at {b} packets, {len(p.seed_list)} seeds")
    t = runner.run([b], engine, p.seed_list)
    failed = t[t["status"] != "ok"]
    if len(failed):
        return f"{name} could not run at {b} packets: {failed['error'].iloc[0]}"
    parts = []
    for o in p.objs:
        ok = o.holds(judged(t, o.key).tolist(), p.confidence)
        parts.append(
            f"{o.text}: {name} {_shown(t, o.key)}, packet {_shown(runner.at(b), o.key)} "
            f"({'met' if ok else 'NOT met'} in {name})"
        )
    return (
        f"{name} {ENGINES[engine].version()} at the recommended {b} packets "
        f"({len(p.seed_list)} seeds): " + "; ".join(parts)
    )


def _shown(runs: pd.DataFrame, key: str) -> str:
    """The runs' mean of metric ``key`` as text (:func:`bufsim.fmt.metric`),
    ``>= x`` where it is only a lower bound (:func:`observed`)."""
    mean, censored = observed(runs, key)
    return fmt.metric(key, mean, censored=censored)
