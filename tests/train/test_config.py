"""Training as an API: ``Trainer(TrainConfig(...)).run()``; the command line is generated from the same
fields (every option of the old parser, with its old default); the RLlib backend reads the same config."""

from __future__ import annotations

import dataclasses
import json
import shlex
import sys

import pytest
from kortmiljo.train.cli import build_parser, parse_args
from kortmiljo.train.cli import main as train_main
from kortmiljo.train.config import TrainConfig, TrainError
from kortmiljo.train.rllib_backend import RLlibConfig, rllib_settings
from kortmiljo.train.trainer import Trainer

import kortmiljo.cli
from kortmiljo import load_game

from .conftest import TINY

SB3_FLAGS = """--backend --config --timesteps --minutes --resume --out --seed --n-envs --vec --threads --update-threads
--train-precision --no-progress --quiet --net --init --lr --n-steps --batch-size --n-epochs --gamma --gae-lambda --clip
--ent-coef --vf-coef --target-kl --max-grad-norm --no-unseen --shaping --shaping-scale --privileged-critic
--reward-scale --opponents --self-play-prob --snapshot-every --pool-size --eval-every --eval-deals --eval-opponents
--select-by --keep-last --checkpoint-every --bc-teacher --bc-games --bc-opponents --bc-minutes --bc-workers
--bc-epochs --bc-lr --bc-aux-coef --bc-aux-batches --cache --recipe --hours --workers""".split()
RLLIB_FLAGS = """--backend --config --out --address --num-cpus --num-env-runners --envs-per-runner --iterations
--timesteps --minutes --seed --net --lr --train-batch-size --minibatch-size --num-epochs --gamma --lambda --ent-coef
--pool-size --snapshot-every --checkpoint-every --quiet --resume --num-learners --num-gpus-per-learner --eval-every
--eval-deals --eval-opponents""".split()


def _flags(parser) -> set[str]:
    return {s for a in parser._actions for s in a.option_strings} - {"-h", "--help"}


def test_the_api_runs_a_config_and_reports(tmp_path):
    config = TrainConfig(game="spokelse", timesteps=256, out=str(tmp_path / "api"), net=(32,), n_envs=2,
                         n_steps=128, batch_size=128, n_epochs=1, opponents=("random",), eval_opponents=("random",),
                         eval_deals=2, no_progress=True, quiet=True)  # fmt: skip
    report = Trainer(config).run()
    assert report["timesteps"] >= 256 and (tmp_path / "api" / "model.zip").exists()
    assert report["args"] == config.to_dict()
    # the report's command is a command line that gives this very config back
    words = shlex.split(report["command"])
    assert words[:3] == ["kortmiljo", "train", "spokelse"] and parse_args(words[2:]) == config


def test_the_reported_command_is_the_one_typed(tmp_path, monkeypatch):
    """Run as ``kortmiljo train spokelse …``: report.json once said ``kortmiljo train train spokelse …``."""
    argv = ["spokelse", "--timesteps", "256", "--out", str(tmp_path / "cli"), "--opponents", "random"]
    argv += ["--eval-opponents", "random", "--eval-deals", "2", *TINY]
    monkeypatch.setattr(sys, "argv", ["kortmiljo", "train", *argv])
    assert kortmiljo.cli.main(["train", *argv]) == 0
    command = json.loads((tmp_path / "cli" / "report.json").read_text())["command"]
    assert command.startswith("kortmiljo train spokelse ") and "train train" not in command
    # the run names the recipe the default rule chose, so the command repeats it whatever the rule becomes
    assert parse_args(shlex.split(command)[2:]) == dataclasses.replace(parse_args(argv), recipe="ppo")


def test_every_option_of_the_old_parser_with_its_old_default():
    assert _flags(build_parser()) == set(SB3_FLAGS)
    c = parse_args(["spokelse"])
    assert c == TrainConfig(game="spokelse")
    old = {"n_envs": 64, "n_steps": 32, "net": (256, 256), "lr": 3e-4, "batch_size": 512, "n_epochs": 4,
           "gamma": 0.995, "gae_lambda": 0.95, "clip": 0.2, "ent_coef": 0.01, "vf_coef": 0.5, "max_grad_norm": 0.5,
           "target_kl": None, "shaping": "none", "shaping_scale": 0.1, "reward_scale": 1.0, "vec": "auto",
           "threads": 1, "update_threads": 0, "train_precision": "auto", "seed": 0, "timesteps": None,
           "minutes": None, "self_play_prob": 0.5, "snapshot_every": 10, "pool_size": 20, "eval_every": 50_000,
           "eval_deals": 200, "checkpoint_every": 10, "bc_games": 1000, "bc_workers": 1, "bc_epochs": 10,
           "bc_lr": 1e-3, "bc_aux_coef": 0.0, "bc_aux_batches": 4, "cache": "runs/cache"}  # fmt: skip
    assert {k: getattr(c, k) for k in old} == old
    assert c.target_timesteps == 200_000 and dataclasses.replace(c, minutes=1.0).target_timesteps > 10**9


def test_parsing_lists_tuples_and_game_options():
    c = parse_args(["sproyte", "--config", "num_players=3", "--opponents", "random,heuristic", "--net", "64,32"])
    assert c.game_options == {"num_players": 3} and c.opponents == ("random", "heuristic") and c.net == (64, 32)
    c = parse_args(["spokelse", "--config", "num_players=3,jack_points=11", "match_to=21", "--lr", "1e-4"])
    assert c.game_options == {"num_players": 3, "jack_points": 11, "match_to": 21} and c.lr == 1e-4
    cards = ["AS", "2S", "3S", "8S", "KS", "QS", "JS", "TS"]
    c = TrainConfig(game="spokelse", game_options={"cards": cards, "num_slots": 1})
    assert parse_args(shlex.split(c.command_line())[2:]).game_options == {"cards": tuple(cards), "num_slots": 1}


def test_args_json_round_trip_and_runs_saved_before_the_config():
    c = TrainConfig(game="spokelse", opponents=("random",), net=(32, 32), minutes=2.0, game_options={"x": [1, 2]})
    assert TrainConfig.from_dict(json.loads(json.dumps(c.to_dict()))) == c
    old = {"game": "spokelse", "net": "64,64", "opponents": "random,heuristic", "config": ["num_players=3"],
           "lr": 1, "backend": "sb3", "gone_option": 5}  # fmt: skip
    c = TrainConfig.from_dict(old)
    assert c.net == (64, 64) and c.opponents == ("random", "heuristic") and c.game_options == {"num_players": 3}
    assert c.lr == 1.0 and isinstance(c.lr, float)


def test_validate_names_the_option_in_the_api_too():
    cases = [
        ({"timesteps": "5"}, "--timesteps must be an int or None"),
        ({"net": (0,)}, "--net must be"),
        ({"opponents": ()}, "--opponents must be 1 to 64 comma-separated agent names"),
        ({"vec": "gpu"}, "--vec must be one of"),
        ({"no_unseen": 1}, "--no-unseen must be True or False"),
    ]
    for bad, words in cases:
        with pytest.raises(TrainError, match=words):
            TrainConfig(game="spokelse", **bad).validate()
    with pytest.raises(TrainError, match="RLlibConfig runs with its own backend"):
        Trainer(RLlibConfig(game="spokelse"))


def test_the_rllib_backend_reads_the_same_config_without_ray(tmp_path):
    """The shared options are TrainConfig's fields, parsed by the same generated parser; the RLlib-only
    ones are RLlibConfig's; rllib_settings maps them onto RLlib's PPOConfig sections (no Ray needed)."""
    argv = ["spokelse", "--backend", "rllib", "--config", "num_players=3", "--lr", "1e-4", "--lambda", "0.9"]
    argv += ["--gamma", "0.99", "--ent-coef", "0.02", "--net", "64,64", "--pool-size", "2", "--seed", "7"]
    argv += ["--train-batch-size", "1000", "--minibatch-size", "250", "--num-epochs", "2", "--num-env-runners", "1"]
    argv += ["--envs-per-runner", "3", "--num-learners", "2", "--num-gpus-per-learner", "0.5"]
    c = parse_args(argv)
    assert isinstance(c, RLlibConfig) and isinstance(c, TrainConfig)
    game = load_game(c.game, **c.game_options)
    s = rllib_settings(c, game)
    assert s["training"] == {"lr": 1e-4, "train_batch_size_per_learner": 1000, "minibatch_size": 250,
                             "num_epochs": 2, "gamma": 0.99, "lambda_": 0.9, "entropy_coeff": 0.02}  # fmt: skip
    assert s["model"] == {"fcnet_hiddens": [64, 64], "vf_share_layers": False}
    assert s["env_runners"] == {"num_env_runners": 1, "num_envs_per_env_runner": 3}
    assert s["learners"] == {"num_learners": 2, "num_gpus_per_learner": 0.5}
    assert s["environment"]["env_config"] == {"game": "spokelse", "config": game.config}
    assert s["multi_agent"]["policies"] == {"learner", "snapshot_0", "snapshot_1"}
    assert s["multi_agent"]["num_players"] == 3 and s["debugging"] == {"seed": 7}
    assert _flags(build_parser(RLlibConfig)) == set(RLLIB_FLAGS) | {"--gae-lambda"}
    assert parse_args(shlex.split(c.command_line())[2:]) == c
    # RLlib's defaults where its units differ (iterations), TrainConfig's elsewhere
    d, t = RLlibConfig(game="spokelse"), TrainConfig(game="spokelse")
    assert (d.pool_size, d.snapshot_every, d.iteration_budget) == (3, 5, 100)
    assert (d.lr, d.gamma, d.gae_lambda, d.ent_coef, d.net) == (t.lr, t.gamma, t.gae_lambda, t.ent_coef, t.net)
    with pytest.raises(TrainError, match="unrecognized arguments: --bc-teacher"):
        parse_args(["spokelse", "--backend", "rllib", "--bc-teacher", "heuristic"])
    assert train_main(["spokelse", "--backend", "rllib", "--num-env-runners", "-1", "--out", str(tmp_path / "x")]) == 2
    assert not (tmp_path / "x").exists()


def test_every_size_has_a_maximum_checked_before_anything_is_built():
    from kortmiljo.train.config import MAX_ROLLOUT, TrainConfig, TrainError

    with pytest.raises(TrainError, match=f"at most {MAX_ROLLOUT:,} are allowed"):
        TrainConfig(game="sproyte", n_envs=4096, n_steps=100_000, batch_size=4096).validate()
    with pytest.raises(TrainError, match="--n-envs must be from 1 to 4,096"):
        TrainConfig(game="sproyte", n_envs=10**5000).validate()
    with pytest.raises(TrainError, match="--net must be 1 to 16 layer sizes"):
        TrainConfig(game="sproyte", net=(10**9,)).validate()
