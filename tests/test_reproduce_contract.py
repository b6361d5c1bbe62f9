"""Every paper satisfies the reproduction contract (reproduce.contract.Paper):
the seven names exist and each has the Protocol's parameters, in order,
with the same defaults and annotations."""

import importlib
import inspect
import tomllib
import types
from importlib import resources

import pytest
from bufsim import reproduce
from bufsim.reproduce.contract import Paper

MEMBERS = ("setup", "run", "claims", "findings", "figures", "captions", "tables")


def _params(fn):
    # Name, kind, default and annotation (as written: every module has
    # postponed annotations) of each parameter, then the return annotation.
    sig = inspect.signature(fn)
    params = [
        (p.name, p.kind, p.default, p.annotation)
        for p in sig.parameters.values()
        if p.name != "self"
    ]
    return [*params, sig.return_annotation]


def test_the_protocol_names_what_get_reads():
    # The contract is the seven names and nothing more.
    names = {n for n in vars(Paper) if not n.startswith("_")}
    assert names == set(MEMBERS)


@pytest.mark.parametrize("name", list(reproduce.PAPERS))
def test_every_paper_satisfies_the_contract(name):
    paper = importlib.import_module(f"bufsim.reproduce.{name}")
    assert isinstance(paper, Paper)
    for member in MEMBERS:
        fn = getattr(paper, member)
        assert callable(fn), (name, member)
        assert _params(fn) == _params(getattr(Paper, member)), (name, member)
    rep = reproduce.get(name)
    assert rep.runs is paper.run and rep.tables is paper.tables


def test_a_module_missing_a_member_is_not_a_paper():
    fake = types.SimpleNamespace(**{m: (lambda *a, **k: None) for m in MEMBERS[:-1]})
    assert not isinstance(fake, Paper)
    fake.tables = lambda table: {}
    assert isinstance(fake, Paper)


PACKAGES = [
    n
    for n in reproduce.PAPERS
    if hasattr(importlib.import_module(f"bufsim.reproduce.{n}"), "__path__")
]


@pytest.mark.parametrize("name", PACKAGES)
def test_a_papers_prose_ships_and_every_template_is_used(name):
    # A paper that is a package keeps its prose in prose.toml beside its
    # code, read through importlib.resources (so it must ship as package
    # data); every template in it is filled somewhere in the package's code.
    paper = importlib.import_module(f"bufsim.reproduce.{name}")
    root = resources.files(paper.__name__)
    text = tomllib.loads(root.joinpath("prose.toml").read_text(encoding="utf-8"))
    code = "".join(f.read_text(encoding="utf-8") for f in root.iterdir() if f.name.endswith(".py"))
    refs = [f'TEXT["{k}"]' for k, v in text.items() if isinstance(v, str)]
    refs += [f'TEXT["{sec}"]["{k}"]' for sec, v in text.items() if isinstance(v, dict) for k in v]
    assert len(refs) >= 3
    assert [r for r in refs if r not in code] == []
