"""The API reference's checker (docs/build_api.py, ``make docs``) accepts real references and
refuses broken ones; every module it documents imports. The build itself runs in CI (``make check``)."""

from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def build_api():
    spec = importlib.util.spec_from_file_location("build_api", ROOT / "docs" / "build_api.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def doc(docstring: str, module: str = "kortmiljo.core.game", qualname: str = "Game.configure", kind: str = "function"):
    """A stand-in for a pdoc object: what broken_references reads."""
    return SimpleNamespace(
        docstring=docstring, modulename=module, qualname=qualname, kind=kind, fullname=f"{module}.{qualname}"
    )


def test_names_that_exist_resolve_and_others_do_not(build_api):
    assert build_api.resolves("kortmiljo.core.game.Game")
    assert build_api.resolves("kortmiljo.agents.registry.make_agent")
    assert build_api.resolves("numpy.ndarray")
    assert not build_api.resolves("kortmiljo.core.game.NoSuchThing")
    assert not build_api.resolves("no_such_package.thing")


def test_a_broken_reference_is_reported_and_good_ones_are_not(build_api):
    module = SimpleNamespace(
        flattened_own_members=[
            doc("See :class:`Game` and :func:`~kortmiljo.core.registry.load_game` and :meth:`GameDef.configure`."),
            doc("Uses :func:`load_gmae`, a typo.", qualname="Game.options"),
            doc("Cites :mod:`kortmiljo.nothing_here`.", qualname="GameDef"),
        ],
        docstring="",
        modulename="kortmiljo.core.game",
        qualname="",
        kind="module",
        fullname="kortmiljo.core.game",
    )
    bad = build_api.broken_references([module])
    assert len(bad) == 2, bad
    assert "load_gmae" in bad[0] and "kortmiljo.nothing_here" in bad[1]


def test_every_documented_module_imports(build_api):
    pytest.importorskip("stable_baselines3")  # kortmiljo.train.trainer's dependencies
    for name in build_api.MODULES:
        importlib.import_module(name)
