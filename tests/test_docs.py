"""Each game's docs page is its one, complete and current description, and no doc cites a missing file.

* The page of every game of the package (``GameDef.docs``) has the generated tables as the code
  makes them, every option with its default, the reset options, ``unseen``, every info field an
  episode ends with and the history, and its Python example runs. The env module's docstring
  and the game's own modules point at the page; ``rules.py`` does not repeat it.
* ``docs/*.md``, ``README.md``, every module docstring of the project and every env module's
  docstring cite only files that are in the repository.

Per-game content (every decision, the documented action indices) is checked in
``tests/<game>/test_docs.py`` and below for Spøkelse.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
from functools import cache
from importlib import import_module
from pathlib import Path

import numpy as np
import pytest

from kortmiljo.core.registry import game_def, games, load_game
from kortmiljo.docgen import fill, generated
from kortmiljo.env.aec import CardGameEnv, OrderEnforcing
from kortmiljo.env.modules import env_module_of, env_modules

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_GAMES = [n for n, d in games().items() if d.game.__module__.startswith("kortmiljo.games.")]


def page(game: str) -> str:
    return (ROOT / game_def(game).docs).read_text(encoding="utf-8")


def section(text: str, title: str) -> str:
    """The text of the ``## title`` section (up to the next ``## ``), or '' if there is none."""
    m = re.search(rf"^## {re.escape(title)}\s*$(.*?)(?=^## |\Z)", text, re.M | re.S)
    return m.group(1) if m else ""


# ---- the game pages -------------------------------------------------------------------------------
@pytest.mark.parametrize("game", PACKAGE_GAMES)
def test_generated_tables_are_current(game):
    text = page(game)
    assert "<!-- BEGIN GENERATED: actions -->" in text and "<!-- BEGIN GENERATED: layout -->" in text
    assert fill(text, generated(game)) == text, "run `python -m kortmiljo.docgen`"


@pytest.mark.parametrize("game", sorted(games()))
def test_the_env_module_docstring_points_at_the_page(game):
    d = game_def(game)
    assert d.docs, f"{game} names no docs page"
    assert d.docs in env_module_of(game).__doc__


@pytest.mark.parametrize("game", PACKAGE_GAMES)
def test_the_games_own_modules_point_at_the_page_without_repeating_it(game):
    d = game_def(game)
    assert (ROOT / d.docs).is_file()
    for part in ("", ".game", ".rules", ".batched"):
        doc = import_module(f"kortmiljo.games.{game}{part}").__doc__
        assert d.docs in doc, f"kortmiljo.games.{game}{part}'s docstring does not point at {d.docs}"
    rules = import_module(f"kortmiljo.games.{game}.rules").__doc__
    assert len(rules.strip().splitlines()) <= 10, "the rules belong on the docs page, not in rules.py"


def default_text(value) -> str:
    return f'"{value}"' if isinstance(value, str) else repr(value)


@pytest.mark.parametrize("game", PACKAGE_GAMES)
def test_the_page_lists_every_option_with_its_default(game):
    options = section(page(game), "Options")
    assert options, "no ## Options section"
    rows = {m.group(1): m.group(2) for m in re.finditer(r"^\| `(\w+)` \| ([^|]*) \|", options, re.M)}
    for name, opt in game_def(game).options.items():
        assert name in rows, f"option {name} is not in the options table"
        cell = rows[name].replace("`", "").strip()
        assert re.match(rf"{re.escape(default_text(opt.default))}(?!\w)", cell), f"{name}: {opt.default!r}, not {cell}"
    assert "render_mode" in rows


@pytest.mark.parametrize("game", PACKAGE_GAMES)
def test_the_page_documents_reset_and_unseen(game):
    text = " ".join(page(game).split())
    for words in ('`"deck"`', '`"dealer"`', "`seed`", "list or tuple", "top card first", "before anything changes"):
        assert words in text, words
    assert "`unseen`" in section(page(game), "Observation")


def ended_infos(game: str, config: dict) -> set[str]:
    env = OrderEnforcing(CardGameEnv(load_game(game, **config)))
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    keys: set[str] = set()
    for _ in env.agent_iter(max_iter=100_000):
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            keys |= set(info)
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return keys


@pytest.mark.parametrize("game", PACKAGE_GAMES)
def test_the_page_documents_every_info_field(game):
    infos = section(page(game), "Infos")
    assert infos, "no ## Infos section"
    keys = set().union(*(ended_infos(game, dict(c)) for c in game_def(game).examples))
    assert keys
    for key in sorted(keys):
        assert f"`{key}`" in infos, f"info {key!r} is not described under ## Infos"


@pytest.mark.parametrize("game", PACKAGE_GAMES)
def test_the_page_has_the_history(game):
    history = section(page(game), "History")
    for line in game_def(game).history:
        assert line in history, line


@pytest.mark.parametrize("game", PACKAGE_GAMES)
def test_the_pages_python_examples_run(game):
    blocks = re.findall(r"^```python\n(.*?)^```", page(game), re.S | re.M)
    assert blocks
    namespace: dict = {"__name__": "__doc_example__"}
    for i, code in enumerate(blocks):
        exec(compile(code, f"{game_def(game).docs} block {i + 1}", "exec"), namespace)  # noqa: S102


SPOKELSE_DECISIONS = [
    "ghost",
    "slots 0 and 1",
    r"discard.*Legal only for a card drawn from the stock",
    "lowest rank",
    "never consumes a stacked deck",
    "first to 21 loses",
    "revealed",
    r"reward=\"points\"",
    r"\(1 \+ num_slots\) × num_players \+ 2",
    "turns_left",
]


@pytest.mark.parametrize("words", SPOKELSE_DECISIONS)
def test_spokelse_docs_state_every_decision(words):
    assert re.search(words, page("spokelse"), re.I), words


def test_spokelse_docs_state_the_action_indices():
    names = load_game("spokelse").action_names
    text = page("spokelse")
    assert "Discrete(7)" in text
    for i, name in enumerate(names):
        assert f"| {i} | `{name}` |" in text


# ---- no doc cites a file that is not there ----------------------------------------------------------
CITED = re.compile(r"(?<![\w/.\-])((?:docs|benchmarks|tests|kortmiljo|agents|train|shared)(?:/[\w.\-]+)+)")
BARE_PAGE = re.compile(r"(?<![\w/.\-])([\w\-]+\.md)\b")
LINK = re.compile(r"\]\(([^)\s#]+)")
ENV_ID = re.compile(r"kortmiljo/\w+-v\d+")  # a PettingZoo registry id, not a path


@cache
def repo_files() -> frozenset[str]:
    """The repository's files, tracked or new (``git ls-files``; a walk of the tree without git)."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        skip = {".git", ".venv", "__pycache__", "build", "dist"}
        out = []
        for folder, dirs, names in os.walk(ROOT):
            dirs[:] = [d for d in dirs if d not in skip and not d.endswith(".egg-info")]
            out += [Path(folder, n).relative_to(ROOT).as_posix() for n in names]
    return frozenset(f for f in out if (ROOT / f).exists())


def exists(path: str, files: frozenset[str]) -> bool:
    path = path.rstrip("/")
    return path in files or any(f.startswith(path + "/") for f in files)


def missing_citations(text: str, where: str = "", files: frozenset[str] | None = None) -> list[str]:
    """The files ``text`` cites that are not in the repository: paths from the repository root
    (``docs/x.md``, ``benchmarks/x.py``, ``tests/…``), Markdown links relative to ``where`` (the
    citing file's folder) and bare page names (``RULES.md``). Templates (``docs/<game>.md``) and
    PettingZoo ids (``kortmiljo/spokelse-v0``) are not files."""
    files = repo_files() if files is None else files
    bad = []
    for m in CITED.finditer(text):
        path = m.group(1).rstrip(".-")
        if text[m.end() : m.end() + 2].lstrip("/")[:1] in ("<", "*", "{") or ENV_ID.fullmatch(path):
            continue
        if not exists(path, files):
            bad.append(path)
    names = {f.rsplit("/", 1)[-1] for f in files}
    bad += [m.group(1) for m in BARE_PAGE.finditer(text) if m.group(1) not in names]
    for m in LINK.finditer(text):
        target = m.group(1)
        if "://" in target or target.startswith("mailto:"):
            continue
        path = os.path.normpath(os.path.join(where, target)).replace(os.sep, "/")
        if not exists(path, files):
            bad.append(target)
    return bad


def doc_pages() -> list[str]:
    """Every Markdown page we write: docs/ and its folders (the research log and its pre-registrations),
    and each README."""
    pages = {p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").rglob("*.md")}
    pages |= {f for f in repo_files() if f.rsplit("/", 1)[-1] == "README.md" and not f.startswith(".")}
    return sorted(pages)


FROZEN = "docs/research/prereg/"  # pre-registrations: records that do not change once their games are played


def git(*args: str) -> str | None:
    try:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None


@cache
def history_known() -> bool:
    """A full history to ask: git is there and the clone is not shallow."""
    return git("rev-parse", "--is-shallow-repository") == "false\n"


@cache
def in_history(path: str) -> bool:
    """Whether some commit holds ``path``: a frozen record may cite a file removed since (a candidate's
    weights that failed their test). Without a full history there is nothing to ask, so nothing is refused."""
    return not history_known() or bool((git("log", "--all", "--format=%H", "-1", "--", path) or "").strip())


@pytest.mark.parametrize("doc", doc_pages())
def test_the_docs_cite_only_files_in_the_repository(doc):
    text = (ROOT / doc).read_text(encoding="utf-8")
    missing = missing_citations(text, os.path.dirname(doc))
    if doc.startswith(FROZEN):
        missing = [m for m in missing if not in_history(m)]
    assert missing == []


def test_a_frozen_record_may_cite_only_what_git_once_held():
    if not history_known():
        pytest.skip("no full git history in this checkout")
    assert in_history("docs/prereg/sproyte_v7.md")
    assert not in_history("benchmarks/candidates/never_there.npz")


def module_docstrings() -> dict[str, str]:
    out = {}
    for package in ("kortmiljo", "agents", "train", "benchmarks"):
        for path in sorted((ROOT / package).rglob("*.py")):
            doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
            if doc:
                out[path.relative_to(ROOT).as_posix()] = doc
    for name in env_modules():
        out[f"kortmiljo.{name}"] = import_module(f"kortmiljo.{name}").__doc__
    return out


def test_module_docstrings_cite_only_files_in_the_repository():
    docs = module_docstrings()
    assert "kortmiljo/games/spokelse/rules.py" in docs and "kortmiljo.spokelse_v0" in docs
    bad = {where: missing for where, doc in docs.items() if (missing := missing_citations(doc))}
    assert bad == {}


def test_the_citation_check_finds_made_up_files():
    files = frozenset({"docs/spokelse.md", "docs/openspiel.md", "kortmiljo/games/spokelse/rules.py"})
    text = (
        "See docs/spokelse.md, docs/nope.md and benchmarks/gone.py; tests/differential/test_x.py "
        "and train/missing.py::test; [a link](openspiel.md), [another](lost.md) and RULES.md; "
        "kortmiljo/games/spokelse/rules.py, kortmiljo/games/<game>/rules.py, docs/<game>.md, "
        "kortmiljo/spokelse-v0, https://example.org/docs/x.md and /shared/runs/x."
    )
    assert missing_citations(text, "docs", files) == [
        "docs/nope.md",
        "benchmarks/gone.py",
        "tests/differential/test_x.py",
        "train/missing.py",
        "lost.md",
        "RULES.md",
        "lost.md",
    ]
    # and against the real repository
    assert missing_citations("docs/spokelse.md, tests/differential and kortmiljo/made_up.py") == [
        "kortmiljo/made_up.py"
    ]
