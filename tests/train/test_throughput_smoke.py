"""A seconds-long run of benchmarks/train_throughput.py, so that it keeps working."""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import train_throughput  # noqa: E402


def test_rows_ratios_and_json(tmp_path, capsys):
    out = tmp_path / "tt.json"
    argv = ["--game", "spokelse", "--updates", "1", "--repeats", "1", "--rollout", "64", "--lanes", "16"]
    argv += ["--net", "16", "--update-threads", "2", "--train-precision", "bf16", "--json", str(out)]
    assert train_throughput.main(argv) == 0
    res = json.loads(out.read_text())
    assert res["update_threads"] == 2 and res["net"] == [16] and res["train_precision"] == "bf16"
    assert [r["kind"] for r in res["rows"]] == ["dummy", "native"] and res["rows"][1]["lanes"] == 16
    for r in res["rows"]:
        assert r["env_steps_per_s"] > 0 and r["wall_env_steps_per_s"] > 0
        assert r["collect_steps_per_s"] >= r["env_steps_per_s"]  # collection is part of the whole
    assert "update on 2 thread(s) in bf16" in capsys.readouterr().out


def test_training_target_recipes_are_valid_configs(tmp_path):
    """benchmarks/train_targets.py runs each recipe as a TrainConfig: every one parses and validates."""
    import train_targets

    for game in train_targets.RECIPES:
        config = train_targets.recipe_config(game, str(tmp_path / game))
        config.validate()
        assert config.game == game and config.minutes and not config.resume
