"""The RLlib backend's checks and bookkeeping that need no Ray: the resources a run asks of the
cluster, the one-line errors of a failed connection, the checkpoint swap that survives a kill, and the
options of a resumed run (tests/integrations/test_rllib.py runs RLlib itself, under ``-m rllib``)."""

from __future__ import annotations

import dataclasses

import pytest
from kortmiljo.train.config import TrainError
from kortmiljo.train.rllib_backend import RLlibConfig, rllib_settings
from kortmiljo.train.rllib_cluster import check_resources, connection_error, needs
from kortmiljo.train.rllib_run import RunDir

from kortmiljo import load_game


def cfg(**kw) -> RLlibConfig:
    return RLlibConfig(game="spokelse", **kw)


def test_a_run_needs_a_cpu_per_env_runner_and_per_cpu_learner():
    assert needs(cfg(num_env_runners=3)) == {"CPU": 3, "GPU": 0}
    assert needs(cfg(num_env_runners=2, num_learners=2)) == {"CPU": 4, "GPU": 0}
    assert needs(cfg(num_env_runners=2, num_learners=2, num_gpus_per_learner=0.5)) == {"CPU": 2, "GPU": 1.0}


def test_runners_the_cluster_cannot_place_are_refused_with_what_it_has():
    with pytest.raises(TrainError, match=r"need 3 CPUs; the local Ray has 2 free\. Use at most 2 env runners"):
        check_resources(cfg(num_env_runners=3), {"CPU": 2.0})
    with pytest.raises(TrainError, match=r"need 3 CPUs; the Ray cluster at auto has 2 free\. Use at most 1 env"):
        check_resources(cfg(num_env_runners=2, num_learners=1, address="auto"), {"CPU": 2.0})
    check_resources(cfg(num_env_runners=2), {"CPU": 2.0})  # fits


def test_a_gpu_is_refused_where_there_is_none():
    with pytest.raises(TrainError, match="puts the learner on this machine, which has no GPU"):
        check_resources(cfg(num_gpus_per_learner=1.0), {"CPU": 8.0}, local_gpu=False)
    check_resources(cfg(num_gpus_per_learner=1.0), {"CPU": 8.0}, local_gpu=True)
    with pytest.raises(TrainError, match=r"need 2 GPUs; the local Ray has 1 free"):
        check_resources(cfg(num_learners=2, num_gpus_per_learner=1.0), {"CPU": 8.0, "GPU": 1.0})
    check_resources(cfg(num_learners=2, num_gpus_per_learner=1.0), {"CPU": 8.0, "GPU": 2.0})


@pytest.mark.parametrize(
    "err, words",
    [
        (ConnectionError("ray client connection timeout"), ["could not reach the Ray cluster at ray://h:10001"]),
        (RuntimeError("Authentication required.\nsee the log"), ["refused this client's authentication",
                                                                  "RAY_AUTH_MODE=token"]),
        (RuntimeError("Version mismatch: The cluster was started with Ray 2.61"), ["another version of Ray"]),
        (ValueError("something else"), ["could not start the Ray cluster at ray://h:10001: ValueError"]),
    ],
)  # fmt: skip
def test_a_failed_connection_is_one_line_with_the_remedy(err, words):
    text = connection_error("ray://h:10001", err)
    assert "\n" not in text and all(w in text for w in words), text


def test_the_config_maps_learners_onto_rllib():
    s = rllib_settings(cfg(num_learners=2, num_gpus_per_learner=0.5), load_game("spokelse"))
    assert s["learners"] == {"num_learners": 2, "num_gpus_per_learner": 0.5}
    with pytest.raises(TrainError, match="--num-learners must be from 0 to 1,024"):
        cfg(num_learners=5000).validate()


def test_a_resumed_run_keeps_its_options_but_takes_the_cluster_from_the_command():
    saved = cfg(lr=1e-3, num_env_runners=64, address="auto", minutes=60.0)
    now = cfg(resume=True, out="runs/x", num_env_runners=2, num_learners=1)
    r = now.resumed(saved)
    assert (r.lr, r.minutes) == (1e-3, 60.0)  # the run's own
    assert (r.num_env_runners, r.num_learners, r.address, r.out) == (2, 1, None, "runs/x")
    assert dataclasses.replace(now, minutes=90.0).resumed(saved).minutes == 90.0  # a budget given now replaces it
    assert dataclasses.replace(now, iterations=7).resumed(cfg(iterations=5)).iterations == 7


class FakeAlgo:
    def __init__(self, fail: bool = False):
        self.fail = fail

    def save_to_path(self, path: str) -> None:
        from pathlib import Path

        Path(path).mkdir(parents=True)
        (Path(path) / "weights").write_text("w")
        if self.fail:
            raise KeyboardInterrupt  # killed while saving


def test_a_checkpoint_replaces_the_last_only_once_it_is_complete(tmp_path):
    run = RunDir(tmp_path)
    run.save(FakeAlgo(), {"iteration": 1})
    assert (run.ckpt / "state.json").exists() and not run.new.exists() and not run.old.exists()
    with pytest.raises(KeyboardInterrupt):
        run.save(FakeAlgo(fail=True), {"iteration": 2})
    run.recover()  # the half-written one goes; the last complete one stays
    assert not run.new.exists() and '"iteration": 1' in (run.ckpt / "state.json").read_text()
    # killed between the two renames: the old one comes back
    run.ckpt.rename(run.old)
    run.recover()
    assert run.ckpt.exists() and not run.old.exists()


def test_a_state_without_its_fields_is_refused(tmp_path):
    run = RunDir(tmp_path)
    run.ckpt.mkdir()
    (run.ckpt / "state.json").write_text('{"iteration": 3}')
    with pytest.raises(TrainError, match="is corrupt .* the run cannot be resumed"):
        run.state()


def test_rows_after_the_checkpoint_are_dropped(tmp_path):
    run = RunDir(tmp_path)
    run.progress.write_text("iteration,x\n1,a\n2,b\n3,c\n")
    run.eval.write_text("iteration,opponent\n2,random\n4,random\n")
    run.cut_rows(2)
    assert run.progress.read_text() == "iteration,x\n1,a\n2,b\n"
    assert run.eval.read_text() == "iteration,opponent\n2,random\n"
