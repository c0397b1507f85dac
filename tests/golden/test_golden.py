"""Every golden playthrough replays exactly: same observations, masks, unseen cards, rewards and infos.

A failure means a public behaviour changed. If the change is intended, regenerate with
``python -m tests.golden.generate``, review the diff, and bump the game's version (``_v0`` →
``_v1``) with a line in its history.
"""

from __future__ import annotations

import difflib

import pytest

from .generate import CASES, HERE, case_name, playthrough


@pytest.mark.parametrize("index", range(len(CASES)), ids=[case_name(g, c, i) for i, (g, c, _, _) in enumerate(CASES)])
def test_playthrough_matches_golden_file(index):
    game, config, seed, policy_seed = CASES[index]
    path = HERE / f"{case_name(game, config, index)}.txt"
    assert path.exists(), f"missing {path.name}: run `python -m tests.golden.generate`"
    want = path.read_text(encoding="utf-8")
    got = playthrough(game, config, seed, policy_seed)
    if got != want:
        diff = "".join(list(difflib.unified_diff(want.splitlines(True), got.splitlines(True), "golden", "now"))[:60])
        pytest.fail(f"{path.name} differs (regenerate with `python -m tests.golden.generate` if intended):\n{diff}")


def test_every_golden_file_belongs_to_a_case():
    names = {f"{case_name(g, c, i)}.txt" for i, (g, c, _, _) in enumerate(CASES)}
    stray = sorted(p.name for p in HERE.glob("*.txt") if p.name not in names)
    assert not stray, f"golden files without a case (delete them): {stray}"
