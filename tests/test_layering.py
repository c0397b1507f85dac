"""The layers point one way, nothing imports in a circle, and no generic module names a game.

* The core (``kortmiljo`` outside ``kortmiljo.agents`` and ``kortmiljo.train``) imports neither
  ``kortmiljo.agents`` nor ``kortmiljo.train``; ``kortmiljo.agents`` does not import
  ``kortmiljo.train`` (every import counts, also one inside a function).
* Nothing imports a top-level ``agents`` or ``train``: the folders agents/ and train/ install as
  ``kortmiljo.agents`` and ``kortmiljo.train`` (pyproject.toml's ``package-dir``).
* No import cycle among the project's modules.
* Outside a game's own files (``kortmiljo/games/<g>/``, a module whose file name holds the
  game's name such as ``agents/<g>_heuristic.py``) and the demo's choice of game
  (``train/demo.py``), no module holds a string equal to a registered game's name.
* ``import kortmiljo`` and playing a game need only the core dependencies: SB3, torch, Ray,
  pyspiel and matplotlib are imported only where they are used.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import kortmiljo

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = {"kortmiljo": "kortmiljo", "agents": "kortmiljo.agents", "train": "kortmiljo.train"}  # folder: package
LAYERS = ("kortmiljo.train", "kortmiljo.agents", "kortmiljo")  # the most specific first
ALLOWED = {
    "kortmiljo": {"kortmiljo"},
    "kortmiljo.agents": {"kortmiljo", "kortmiljo.agents"},
    "kortmiljo.train": {"kortmiljo", "kortmiljo.agents", "kortmiljo.train"},
}
PACKAGES = tuple(FOLDERS)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join([FOLDERS[parts[0]], *parts[1:]])


def layer_of(module: str) -> str | None:
    return next((layer for layer in LAYERS if module == layer or module.startswith(layer + ".")), None)


def project_modules() -> dict[str, Path]:
    return {module_name(p): p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")}


def imports_of(name: str, path: Path) -> list[tuple[int, str]]:
    """(line, imported module or module.attribute) for every import in the file, lazy ones included."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            out.append((node.lineno, mod))
            out += [(node.lineno, f"{mod}.{a.name}") for a in node.names]
    return out


def import_graph() -> dict[str, set[str]]:
    modules = project_modules()
    return {m: {t for _, t in imports_of(m, p) if t in modules and t != m} for m, p in modules.items()}


def test_layers_point_one_way():
    bad = []
    for name, path in project_modules().items():
        layer = layer_of(name)
        for line, target in imports_of(name, path):
            target_layer = layer_of(target)
            if target_layer is not None and target_layer not in ALLOWED[layer]:
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {target}")
    assert not bad, "layer breaks:\n" + "\n".join(bad)


def test_nothing_imports_a_top_level_agents_or_train():
    bad = [
        f"{path.relative_to(ROOT)}:{line} imports {target}"
        for root in (ROOT / "kortmiljo", ROOT / "agents", ROOT / "train", ROOT / "tests", ROOT / "benchmarks")
        for path in root.rglob("*.py")
        for line, target in imports_of(module_name(path) if root.name in FOLDERS else "x", path)
        if target.split(".")[0] in ("agents", "train")
    ]
    assert not bad, "\n".join(bad)


def modules_run_with_dash_m(path: Path) -> list[tuple[int, str]]:
    """(line, module) for every ``"-m", "module"`` pair in a list or tuple literal (a subprocess's argv)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.List, ast.Tuple)):
            items = node.elts
            for a, b in zip(items, items[1:], strict=False):
                if isinstance(a, ast.Constant) and a.value == "-m" and isinstance(b, ast.Constant):
                    found.append((b.lineno, str(b.value)))
    return found


def test_no_subprocess_runs_a_top_level_agents_or_train():
    """``python -m train`` from the repository root would run the folder as a second, top-level copy."""
    bad = [
        f"{path.relative_to(ROOT)}:{line} runs -m {module}"
        for root in ("kortmiljo", "agents", "train", "tests", "benchmarks")
        for path in (ROOT / root).rglob("*.py")
        for line, module in modules_run_with_dash_m(path)
        if module.split(".")[0] in ("agents", "train")
    ]
    assert not bad, "\n".join(bad)


def test_the_dash_m_finder_finds_one(tmp_path):
    (tmp_path / "x.py").write_text('argv = [sys.executable, "-m", "train", "spokelse"]\n')
    assert modules_run_with_dash_m(tmp_path / "x.py") == [(1, "train")]


def test_the_layer_rule_catches_a_core_module_importing_the_agents():
    assert layer_of("kortmiljo.core.game") == "kortmiljo" and layer_of("kortmiljo.agents.search") == "kortmiljo.agents"
    assert layer_of("kortmiljo.train") not in ALLOWED["kortmiljo.agents"] and layer_of("numpy") is None


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            for w in children:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        found.append(sorted(comp))
    return found


def test_no_import_cycles():
    assert cycles(import_graph()) == []


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_generic_module_names_a_game():
    names = set(kortmiljo.game_names())
    bad = []
    for _name, path in project_modules().items():
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith("kortmiljo/games/") or rel == "train/demo.py" or any(g in path.name for g in names):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names:
                bad.append(f"{rel}:{node.lineno} names the game {node.value!r}")
    assert not bad, "\n".join(bad)


BLOCKED = ("stable_baselines3", "sb3_contrib", "torch", "ray", "pyspiel", "matplotlib", "tensorboard")


def test_core_needs_only_core_dependencies():
    """With every optional dependency made unimportable, the package imports and every game plays
    a tournament (through its PettingZoo env) between the heuristic and random play."""
    code = f"""
import sys

class Block:  # importing any of these now raises ImportError, as on a machine without them
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {BLOCKED!r}:
            raise ImportError(f"{{name}} is blocked")

sys.meta_path.insert(0, Block())
import kortmiljo
from kortmiljo.agents.tournament import run_tournament
for name in kortmiljo.game_names():
    res = run_tournament(name, ["heuristic", "random"], 4, seed=0, progress=False)
    assert res["games"] >= 4
print("ok")
"""
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and out.stdout.strip().endswith("ok"), out.stderr[-2000:]
