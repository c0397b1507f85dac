"""Build the API reference from the docstrings with pdoc, failing on any warning or broken reference.

``make docs`` runs it: ``python docs/build_api.py [--out site/api]``; open ``site/api/index.html``.

* **What it covers**: the modules of :data:`MODULES`, the public API a user imports (the game
  registry and ``env()``, :class:`~kortmiljo.core.game.Game` and the engine, the AEC, single-seat
  and vector envs, the wrappers, records, policies and agents, the training config).
* **Warnings are errors**: a warning that pdoc raises (a module that does not import, a docstring it
  cannot parse) ends the build with status 1.
* **Broken references fail**: every reST cross-reference in a docstring (``:func:`name```,
  ``:class:`~a.b```, ``:mod:``, ``:meth:``, ``:attr:``, ``:data:``, ``:exc:``, ``:obj:``) must name
  something that exists: absolute, or relative to the module, class or package it is written in.
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODULES = [
    "kortmiljo",
    "kortmiljo.core.game",
    "kortmiljo.core.engine",
    "kortmiljo.core.layout",
    "kortmiljo.core.options",
    "kortmiljo.core.policy",
    "kortmiljo.core.registry",
    "kortmiljo.core.batched",
    "kortmiljo.core.cards",
    "kortmiljo.core.errors",
    "kortmiljo.env.aec",
    "kortmiljo.env.training",
    "kortmiljo.env.vector",
    "kortmiljo.wrappers",
    "kortmiljo.records",
    "kortmiljo.records.format",
    "kortmiljo.records.recorder",
    "kortmiljo.records.replay",
    "kortmiljo.records.text",
    "kortmiljo.agents.base",
    "kortmiljo.agents.registry",
    "kortmiljo.agents.catalog",
    "kortmiljo.agents.plugins",
    "kortmiljo.agents.pretrained",
    "kortmiljo.agents.trained",
    "kortmiljo.agents.search",
    "kortmiljo.agents.tournament",
    "kortmiljo.agents.stats",
    "kortmiljo.agents.benchmark",
    "kortmiljo.agents.leaderboard",
    "kortmiljo.train.config",
    "kortmiljo.train.trainer",
]
ROLE = re.compile(r":(?:py:)?(?:mod|func|class|meth|attr|data|exc|obj):`([^`]+)`")


def resolves(name: str) -> bool:
    """Whether a dotted name is a module, or an attribute path inside one."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            if not hasattr(obj, attr):
                annotations = getattr(obj, "__annotations__", {})  # a dataclass field, a typed attribute
                if attr not in annotations:
                    return False
                obj = None
            else:
                obj = getattr(obj, attr)
        return True
    return False


def target(text: str) -> str:
    """The dotted name of a role's text: ``~a.b`` → ``a.b``, ``title <a.b>`` → ``a.b``, ``f()`` → ``f``."""
    m = re.search(r"<([^>]+)>$", text)
    name = m.group(1) if m else text
    return name.strip().lstrip("~!").removesuffix("()")


def scopes(doc) -> list[str]:
    """Where a relative reference in ``doc``'s docstring may point: its class, module and packages."""
    module = doc.modulename
    defined_in = getattr(getattr(doc, "obj", None), "__module__", None)  # a member re-exported elsewhere
    out = [defined_in] if isinstance(defined_in, str) and defined_in != module else []
    out += [f"{module}.{doc.qualname.rsplit('.', 1)[0]}"] if "." in getattr(doc, "qualname", "") else []
    if getattr(doc, "kind", "") == "class":
        out.append(f"{module}.{doc.qualname}")
    parts = module.split(".")
    return out + [".".join(parts[:i]) for i in range(len(parts), 0, -1)]


def broken_references(modules) -> list[str]:
    bad = []
    seen = set()
    for mod in modules:
        for doc in [mod, *mod.flattened_own_members]:
            for text in ROLE.findall(doc.docstring or ""):
                name = target(text)
                key = (doc.fullname, name)
                if key in seen:
                    continue
                seen.add(key)
                relative = name.lstrip(".")
                if not (resolves(relative) or any(resolves(f"{s}.{relative}") for s in scopes(doc))):
                    bad.append(f"{doc.fullname}: {text!r} names nothing that exists")
    return bad


def build(out: Path) -> int:
    import pdoc
    import pdoc.doc
    import pdoc.render

    pdoc.render.configure(docformat="restructuredtext", show_source=False, search=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pdoc.pdoc(*MODULES, output_directory=out)
        modules = [pdoc.doc.Module.from_name(m) for m in MODULES]
    ours = [w for w in caught if "pdoc" in (w.filename or "") or issubclass(w.category, RuntimeWarning)]
    problems = [f"warning: {w.message}" for w in ours] + broken_references(modules)
    for line in problems:
        print(f"docs/build_api.py: {line}", file=sys.stderr)
    if problems:
        print(f"docs/build_api.py: {len(problems)} problem(s); the reference was not accepted", file=sys.stderr)
        return 1
    print(f"API reference: {len(MODULES)} modules → {out / 'index.html'}")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python docs/build_api.py", description=__doc__.split("\n")[0])
    p.add_argument("--out", type=Path, default=ROOT / "site" / "api", help="output folder (default site/api)")
    return build(p.parse_args(argv).out)


if __name__ == "__main__":
    sys.exit(main())
