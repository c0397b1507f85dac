"""The run directory: its files, atomic writes, the resumable checkpoint, and the checks made before
anything is written.

Every file of a run is replaced atomically (written beside it, then ``os.replace``), so a run
killed at any moment leaves each file either old or new. The checkpoint (``checkpoint/``) is the
model with its optimizer, the torch RNG, the snapshots of the opponent pool and ``state.json``,
which names them and is written last: a checkpoint is whatever ``state.json`` says it is.
:meth:`RunDirectory.read_state` checks that everything it names is there before a resume starts,
and :func:`check_writable` that a run directory can be written before a run starts.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from kortmiljo.train.config import TrainConfig, TrainError

from kortmiljo.core import jsonsafe
from kortmiljo.core.files import atomic_write

MAX_JSON_BYTES = 16 << 20  # a run's JSON files (args.json, state.json, evaluations) are kB; read no further

STATE_KEYS = ("phase", "elapsed_s", "updates", "timesteps", "model_file", "snapshots")


def check_writable(path: str | Path, what: str) -> None:
    """Refuse (``TrainError``) a directory that is a file, lies under a file, or cannot be written."""
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise TrainError(f"{what} {path} is a file, not a directory")
    existing = p
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        raise TrainError(f"{what} {path} lies under {existing}, which is a file")
    try:  # access() says yes to root everywhere; a real file says what the file system allows
        with tempfile.TemporaryFile(dir=existing):
            pass
    except OSError as err:
        raise TrainError(f"{what} {path}: cannot write in {existing} ({err.strerror or err})") from None


def atomic_save(path: Path, save: Callable[[Path], Any]) -> None:
    """``save(tmp)`` to a temporary file beside ``path`` (same suffix: SB3 adds ``.zip`` otherwise), then rename it."""
    tmp = path.with_name(f".{path.stem}.tmp{os.getpid()}{path.suffix}")
    save(tmp)
    os.replace(tmp, path)


def write_json(path: Path, obj: Any) -> None:
    atomic_write(str(path), json.dumps(obj, indent=1, default=json_default))


def json_default(o: Any) -> Any:
    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.floating):
        return float(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    return str(o)


def append_csv(path: Path, row: dict) -> None:
    new = not path.exists()
    with open(path, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(row))
        if new:
            w.writeheader()
        w.writerow(row)


def read_json(path: Path) -> Any:
    """A JSON file of the run, or ``TrainError`` saying it is corrupt."""
    try:
        return jsonsafe.loads(path.read_bytes()[: MAX_JSON_BYTES + 1], what=str(path), max_bytes=MAX_JSON_BYTES)
    except OSError as err:
        raise TrainError(f"{path} is corrupt ({err}); the run cannot be resumed") from None
    except jsonsafe.JSONError as err:
        raise TrainError(
            f"{path} is corrupt ({str(err).removeprefix(f'{path}: ')}); the run cannot be resumed"
        ) from None


class RunDirectory:
    """The files of one run directory (``--out``) and of its checkpoint."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.ckpt = self.path / "checkpoint"
        self.pool = self.ckpt / "pool"

        self.args_json = self.path / "args.json"
        self.config_json = self.path / "config.json"
        self.report_json = self.path / "report.json"
        self.progress_csv = self.path / "progress.csv"
        self.eval_csv = self.path / "eval.csv"
        self.model_zip = self.path / "model.zip"
        self.last_model_zip = self.path / "last_model.zip"
        self.best_model_zip = self.path / "best_model.zip"
        self.tb = self.path / "tb"

    def read_args(self, cls: type[TrainConfig]) -> TrainConfig | None:
        """The saved options (``args.json``), or None where the run never started."""
        path = self.args_json
        if not path.exists():
            return None
        data = read_json(path)
        try:
            return cls.from_dict(data)
        except (TypeError, ValueError, AttributeError, argparse.ArgumentTypeError) as err:
            raise TrainError(f"{path} is corrupt ({err}); the run cannot be resumed") from None

    def read_state(self) -> dict | None:
        """The checkpoint's ``state.json`` after checking that every file it names exists; None without one."""
        path = self.ckpt / "state.json"
        if not path.exists():
            return None
        st = read_json(path)
        missing = [k for k in STATE_KEYS if not isinstance(st, dict) or k not in st]
        if missing:
            raise TrainError(f"{path} is corrupt (no {', '.join(missing)}); the run cannot be resumed")
        names = [st["model_file"], *st["snapshots"]] if isinstance(st["snapshots"], list) else [None]
        if not all(isinstance(n, str) and n and Path(n).name == n for n in names):
            raise TrainError(f"{path} is corrupt (bad file names); the run cannot be resumed")
        files = [self.ckpt / st["model_file"], self.ckpt / "torch_rng.pt"]
        files += [self.pool / f"{name}.pt" for name in st["snapshots"]]
        for f in files:
            if not f.is_file():
                raise TrainError(f"the checkpoint file {f} is missing; the run cannot be resumed")
        return st

    def write_checkpoint(self, model: Any, state: dict, model_config: dict) -> None:
        """Model + optimizer, then the state that names it (written last), then old files go."""
        import torch

        self.ckpt.mkdir(parents=True, exist_ok=True)
        name = f"model_{int(model.num_timesteps):010d}.zip"
        atomic_save(self.ckpt / name, lambda tmp: model.save(str(tmp)))
        atomic_save(self.ckpt / "torch_rng.pt", lambda tmp: torch.save(torch.get_rng_state(), tmp))
        write_json(self.ckpt / "config.json", model_config)
        write_json(self.ckpt / "state.json", {**state, "model_file": name, "timesteps": int(model.num_timesteps)})
        for f in self.ckpt.glob("model_*.zip"):
            if f.name != name:
                f.unlink(missing_ok=True)
        keep = {f"{s}.pt" for s in state["snapshots"]}
        for f in self.pool.glob("*.pt") if self.pool.exists() else []:
            if f.name not in keep:
                f.unlink(missing_ok=True)

    def save_snapshot(self, name: str, state_dict: dict) -> None:
        import torch

        self.pool.mkdir(parents=True, exist_ok=True)
        atomic_save(self.pool / f"{name}.pt", lambda tmp: torch.save(state_dict, tmp))

    def load_model(self, state: dict, venv: Any) -> Any:
        """The checkpoint's MaskablePPO with ``venv`` attached (``TrainError`` if it does not load)."""
        import torch
        from sb3_contrib import MaskablePPO

        path = self.ckpt / state["model_file"]
        try:
            model = MaskablePPO.load(path, env=venv, device="cpu", tensorboard_log=str(self.tb))
            torch.set_rng_state(torch.load(self.ckpt / "torch_rng.pt"))
        except Exception as err:  # anything a broken file throws, as one line
            raise TrainError(f"the checkpoint {path} could not be loaded ({type(err).__name__}: {err})") from None
        return model

    def load_snapshot(self, name: str) -> dict:
        import torch

        return torch.load(self.pool / f"{name}.pt")
