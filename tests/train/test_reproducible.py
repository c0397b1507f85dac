"""The same ``--seed`` trains the same weights in any process: nothing may depend on ``hash()``,
which PYTHONHASHSEED changes (self-play snapshots were once seeded with ``hash(name)``)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import zipfile

import torch

from .conftest import QUICK, ROOT


def _weights(model_zip) -> dict:
    with zipfile.ZipFile(model_zip) as z:
        return torch.load(io.BytesIO(z.read("policy.pth")), map_location="cpu")


def test_same_seed_same_weights_whatever_the_hash_seed(tmp_path):
    runs = []
    for hash_seed in ("1", "2"):
        out = tmp_path / f"hash{hash_seed}"
        argv = [sys.executable, "-m", "kortmiljo.train", "spokelse", "--timesteps", "1024", "--out", str(out)]
        argv += ["--seed", "3"]
        argv += ["--snapshot-every", "1", "--self-play-prob", "0.5", "--eval-every", "0", "--update-threads", "1"]
        env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(ROOT)}
        subprocess.run([*argv, *QUICK], cwd=ROOT, env=env, check=True, timeout=300)
        runs.append(_weights(out / "last_model.zip"))
    a, b = runs
    assert a.keys() == b.keys()
    for k in a:
        assert torch.equal(a[k], b[k]), k
