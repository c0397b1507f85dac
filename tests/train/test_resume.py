"""``--resume --out DIR`` continues DIR, wherever it came from and wherever it is resumed from;
a finished run is left exactly as it is."""

from __future__ import annotations

import json
import shutil

from kortmiljo.train.cli import main as train_main

from .conftest import QUICK, tree


def _report(run) -> dict:
    return json.loads((run / "report.json").read_text())


def test_resume_continues_the_directory_it_is_given(tmp_path, monkeypatch):
    """``cp -a runs/A runs/B; --resume --out runs/B`` trains B (not A, whose directory args.json names),
    also from another working directory with a relative ``out``, and also once A is gone."""
    work, elsewhere = tmp_path / "work", tmp_path / "elsewhere"
    work.mkdir()
    elsewhere.mkdir()
    monkeypatch.chdir(work)
    assert train_main(["spokelse", "--timesteps", "256", "--out", "runs/A", *QUICK]) == 0
    shutil.copytree(work / "runs" / "A", work / "runs" / "B")  # cp -a: the same files, the same times
    a_before = tree(work / "runs" / "A")
    monkeypatch.chdir(elsewhere)
    b = work / "runs" / "B"
    assert train_main(["spokelse", "--resume", "--out", str(b), "--timesteps", "512", "--quiet"]) == 0
    assert tree(work / "runs" / "A") == a_before
    assert _report(b)["timesteps"] >= 512 and json.loads((b / "args.json").read_text())["out"] == str(b)
    assert list(elsewhere.iterdir()) == []  # no run started here under A's relative name
    shutil.rmtree(work / "runs" / "A")
    monkeypatch.chdir(work)
    assert train_main(["spokelse", "--resume", "--out", "runs/B", "--timesteps", "768", "--quiet"]) == 0
    assert _report(b)["timesteps"] >= 768 and not (work / "runs" / "A").exists()


def test_resuming_a_finished_run_changes_nothing(trained, tmp_path, capsys):
    """No second final evaluation, no new TensorBoard run, no file rewritten: it says so and exits 0."""
    run = tmp_path / "done"
    shutil.copytree(trained, run)
    before = tree(run)
    assert train_main(["spokelse", "--resume", "--out", str(run), "--no-progress"]) == 0
    assert "is finished" in capsys.readouterr().out
    assert tree(run) == before
