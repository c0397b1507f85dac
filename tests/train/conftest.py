"""A tiny trained run shared by the training tests (seconds to make; tests copy it before changing it)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

from kortmiljo.train.cli import main as train_main  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TINY = ["--net", "32", "--n-envs", "2", "--n-steps", "128", "--batch-size", "128", "--n-epochs", "1"]
TINY += ["--no-progress", "--quiet"]
QUICK = ["--opponents", "random", "--eval-opponents", "random", "--eval-deals", "4", *TINY]


@pytest.fixture(scope="session")
def trained(tmp_path_factory) -> Path:
    """A finished 1,024-step Spøkelse run with evaluations, snapshots and a checkpoint."""
    out = tmp_path_factory.mktemp("run") / "spokelse"
    argv = ["spokelse", "--timesteps", "1024", "--out", str(out), "--eval-every", "512", "--snapshot-every", "1"]
    assert train_main([*argv, "--self-play-prob", "0.5", *QUICK]) == 0
    return out


def tree(root: Path) -> dict[str, tuple[int, int]]:
    """Every file under ``root`` with its size and modification time, every folder with (-1, 0):
    equal trees mean nothing was written, changed or created."""
    return {
        str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns) if p.is_file() else (-1, 0)
        for p in root.rglob("*")
    }


def plays_legally(game, policy, seed: int = 0) -> None:
    """``policy`` plays one whole episode of ``game`` in every seat, only legal moves."""
    import numpy as np

    e = game.new_state()
    e.new_episode(np.random.default_rng(seed))
    while not (e.terminal or e.truncated):
        obs = e.observation(e.current_player)
        a = policy.act(obs)
        assert obs["action_mask"][a]
        e.step(a)
