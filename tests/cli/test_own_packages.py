"""``python -m kortmiljo`` runs the package's own ``agents`` and ``train``, whatever the working directory holds.

``python -m`` puts the working directory first on ``sys.path``, and a ``train.py`` or an
``agents.py``/``agents/`` is common in a researcher's folder. The package's own live under its
namespace (``kortmiljo.agents``, ``kortmiljo.train``), so such a folder is never imported.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = 'open({marker!r}, "w").write("imported")\nraise SystemExit("the hostile {name} was imported")\n'


def kortmiljo(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "kortmiljo", *args]
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)


@pytest.fixture(params=["modules", "packages"])
def hostile(tmp_path, request):
    """A folder with a ``train`` and an ``agents`` of its own that leave a marker when imported."""
    for name in ("train", "agents"):
        marker = str(tmp_path / f"{name}.imported")
        if request.param == "modules":
            (tmp_path / f"{name}.py").write_text(HOSTILE.format(marker=marker, name=f"{name}.py"))
        else:
            (tmp_path / name).mkdir()
            (tmp_path / name / "__init__.py").write_text(HOSTILE.format(marker=marker, name=f"{name}/"))
    return tmp_path


def test_train_help_runs_our_train(hostile):
    proc = kortmiljo("train", "--help", cwd=hostile)
    assert proc.returncode == 0, proc.stderr
    assert "usage: kortmiljo train" in proc.stdout
    assert not list(hostile.glob("*.imported")) and "hostile" not in proc.stderr


def test_eval_runs_our_agents(hostile):
    proc = kortmiljo("eval", "spokelse", "--agents", "random", "random", "--games", "2", "--no-progress", cwd=hostile)
    assert proc.returncode == 0, proc.stderr
    assert "random#1" in proc.stdout and "2 games" in proc.stdout
    assert not list(hostile.glob("*.imported")) and "hostile" not in proc.stderr


def test_a_run_from_the_repository_root_still_works():
    proc = kortmiljo("eval", "spokelse", "--agents", "random", "--games", "2", "--no-progress", cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert kortmiljo("--version", cwd=ROOT).stdout.startswith("kortmiljo ")
