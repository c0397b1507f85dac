"""Pretrained agents per configuration: ``agents/weights/<game>@<key>=<value>,..._v<N>.npz``.

No such file ships yet, so the tests make one (a tiny random network) in a temporary weights
folder that also links the shipped default files, and point :data:`WEIGHTS_DIR` at it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from kortmiljo.agents import benchmark
from kortmiljo.agents import pretrained as P
from kortmiljo.agents.registry import available_agents, make_agent, resolve_name
from kortmiljo.agents.trained import fingerprint_differences

from kortmiljo import cli
from kortmiljo.core.registry import load_game

SHIPPED = P.WEIGHTS_DIR


def tiny_weights(path: Path, game, seed: int = 0) -> Path:
    """A small random network of the right sizes for ``game``, saved at ``path``."""
    rng = np.random.default_rng(seed)
    sizes = [game.layout.size + game.deck.width, 8, game.num_actions]
    actor = [
        (rng.normal(0, 0.3, (a, b)).astype(np.float32), np.zeros(b, np.float32))
        for a, b in zip(sizes, sizes[1:], strict=False)
    ]
    P.save_weights(path, game, actor, source={"note": "test"})
    return path


@pytest.fixture
def weights(tmp_path, monkeypatch):
    """A weights folder holding (links to) the shipped files, where the test adds its own."""
    folder = tmp_path / "weights"
    folder.mkdir()
    for p in SHIPPED.glob("*.npz"):
        (folder / p.name).symlink_to(p)
    monkeypatch.setattr(P, "WEIGHTS_DIR", folder)
    return folder


def drift(folder: Path) -> list[str]:
    """What is wrong with the weights files of ``folder``: a name that does not parse, or a file
    whose fingerprint is not that of the configuration its name says."""
    problems = []
    for p in sorted(folder.glob("*.npz")):
        try:
            game_name, config, version = P.parse_file_name(p.name)
            game = load_game(game_name, **config)
        except ValueError as err:
            problems.append(f"{p.name}: {err}")
            continue
        if P.non_default(game) != config:
            problems.append(f"{p.name}: names a default value ({P.non_default(game)} != {config})")
        if not config and version not in P.PRETRAINED_VERSIONS:
            problems.append(f"{p.name}: v{version} is not one of PRETRAINED_VERSIONS")
        meta = P.read_weights(p).meta
        diff = [f"game {meta['game']!r}"] if meta["game"] != game_name else []
        diff += fingerprint_differences(meta["fingerprint"], game)
        if diff:
            problems.append(f"{p.name}: its fingerprint differs from its name's configuration: {'; '.join(diff)}")
    return problems


def play_full_game(game, policy) -> None:
    """Every seat played by ``policy`` until the game ends, each move legal."""
    e = game.new_state()
    e.new_episode(np.random.default_rng(0))
    while not (e.terminal or e.truncated):
        obs = e.observation(e.current_player)
        a = policy.act(obs)
        assert obs["action_mask"][a] == 1
        e.step(a)


# ---- the scheme ---------------------------------------------------------------------------------
def test_every_shipped_weights_file_holds_the_configuration_its_name_says():
    assert drift(SHIPPED) == []
    assert {s.game for s in P.shipped_agents()} == set(P.shipped(1))


def test_the_drift_check_catches_a_misnamed_file_and_loading_refuses_it(weights):
    tiny_weights(weights / "spokelse@num_players=4_v1.npz", load_game("spokelse", num_players=3))
    (weights / "spokelse@num_players=03_v1.npz").write_bytes(b"")  # not the canonical spelling
    problems = drift(weights)
    assert len(problems) == 2
    assert "spokelse@num_players=03_v1.npz: 'spokelse@num_players=03_v1.npz' is not a pretrained agent's" in problems[0]
    assert "num_players=4_v1.npz: its fingerprint differs" in problems[1] and "num_players" in problems[1]
    with pytest.raises(ValueError, match=r"pretrained_v1 \(spokelse@num_players=4_v1.npz\) was trained on another"):
        make_agent("pretrained", "spokelse", config={"num_players": 4})


def test_names_are_what_config_takes_sorted_and_read_back():
    config = {"variant": "tretten", "exchange_quota": [5, 4, 3], "trump": None, "flag": True, "x": 0.5}
    label = P.config_label(config)
    assert label == "exchange_quota=(5,4,3),flag=true,trump=none,variant=tretten,x=0.5"
    path = P.weights_path("sproyte", 2, config)
    assert path.name == f"sproyte@{label}_v2.npz"
    assert P.parse_file_name(path.name) == ("sproyte", config, 2)
    assert P.parse_file_name("sproyte_v7.npz") == ("sproyte", {}, 7)
    for bad in ({"a": "x y"}, {"a": "true"}, {"a": [[1]]}):  # not readable back, or not a file name
        with pytest.raises(ValueError, match="cannot name a weights file"):
            P.config_label(bad)
    for bad in ("sproyte@b=1,a=2_v1.npz", "sproyte@a_v1.npz", "sproyte_v0.npz", "sproyte.npz"):
        with pytest.raises(ValueError, match="<game>@<key>=<value>"):
            P.parse_file_name(bad)


# ---- resolution ---------------------------------------------------------------------------------
def test_pretrained_plays_the_file_shipped_for_the_configuration(weights):
    game = load_game("femkortskille", num_players=5)
    tiny_weights(weights / "femkortskille@num_players=5_v1.npz", game)
    assert P.weights_path("femkortskille", 1, P.non_default(game)).exists()
    for name in ("pretrained", "pretrained_v1"):
        p = make_agent(name, "femkortskille", config={"num_players": 5}, seed=0)
        assert p.name == "pretrained_v1" and Path(p.weights.source).name == "femkortskille@num_players=5_v1.npz"
        play_full_game(game, p)
    assert {"pretrained", "pretrained_v1"} <= set(available_agents(game))
    assert "pretrained_v2" not in available_agents(game)
    with pytest.raises(ValueError, match=r"no pretrained_v2 ships for femkortskille with num_players=5 \(it has v1\)"):
        make_agent("pretrained_v2", game)
    with pytest.raises(ValueError, match="pretrained_v9 does not exist.*num_players=5 has v1"):
        make_agent("pretrained_v9", game)


def test_pretrained_is_the_newest_for_the_configuration_and_vn_its_own(weights):
    game = load_game("spokelse", num_players=3)
    tiny_weights(weights / "spokelse@num_players=3_v1.npz", game, seed=1)
    tiny_weights(weights / "spokelse@num_players=3_v2.npz", game, seed=2)
    assert resolve_name("pretrained", game) == "pretrained_v2" and P.newest_version(game) == 2
    assert Path(make_agent("pretrained", game).weights.source).name == "spokelse@num_players=3_v2.npz"
    assert Path(make_agent("pretrained_v1", game).weights.source).name == "spokelse@num_players=3_v1.npz"
    # the default configuration is unchanged: its newest pretrained_vN from <game>_vN.npz
    for name in ("spokelse", "sproyte", "femkortskille"):
        newest = max(P.shipped_versions(name))
        p = make_agent("pretrained", name)
        assert p.name == f"pretrained_v{newest}" and Path(p.weights.source).name == f"{name}_v{newest}.npz"


def test_a_configuration_without_an_agent_gets_one_error_that_says_what_exists_and_how_to_make_one(weights):
    tiny_weights(weights / "femkortskille@num_players=7_v1.npz", load_game("femkortskille", num_players=7))
    with pytest.raises(ValueError) as err:
        make_agent("pretrained", "femkortskille", config={"num_players": 5})
    text = str(err.value)
    assert "no pretrained agent ships for femkortskille with num_players=5" in text  # the game and configuration
    # what exists: the shipped configurations' agents and this test's 7-player file
    listed = ", ".join(P.shipped_configurations("femkortskille"))
    assert listed.startswith("default (v1-v5), num_players=3 (v1)") and "num_players=7 (v1)" in listed
    assert f"femkortskille with a pretrained agent: {listed}" in text
    assert (
        "kortmiljo train femkortskille --config num_players=5 --recipe pi --hours 2 --out DIR, "
        "then play it with --agents DIR/model.npz" in text
    )  # how to make one
    assert resolve_name("pretrained", load_game("femkortskille", num_players=5)) == "pretrained_v5"
    assert "pretrained" not in available_agents(load_game("femkortskille", num_players=5))
    with pytest.raises(ValueError, match="--config variant=variasjon --recipe pi"):
        make_agent("pretrained", "sproyte", config={"variant": "variasjon"})
    with pytest.raises(ValueError, match=r"--config 'exchange_quota=\(4,4,4\)' --recipe pi"):
        make_agent("pretrained", "sproyte", config={"exchange_quota": (4, 4, 4)})


def test_options_given_at_their_defaults_are_the_default_configuration():
    game = load_game("sproyte", variant="vanlig", max_deals="auto")
    assert P.non_default(game) == {} and P.shipped_versions(game) == P.shipped_versions("sproyte")
    assert make_agent("pretrained", game).name == f"pretrained_v{max(P.shipped_versions('sproyte'))}"


# ---- what the commands and the web app offer ----------------------------------------------------
@pytest.mark.parametrize("command", ["eval", "play", "benchmark"])
def test_help_lists_the_shipped_configurations(command, weights, capsys):
    def listed() -> str:
        assert cli.main([command, "--help"]) == 0
        return " ".join(capsys.readouterr().out.split())

    text, before = listed(), P.shipped_configurations()
    assert "ships for (a game alone: its default configuration): " + ", ".join(before) in text and "@" not in text
    assert "train one with kortmiljo train GAME --config KEY=VALUE --recipe pi --hours 2" in text  # how to make one
    assert before[0] == "femkortskille (v1-v5)" and "sproyte (v1-v7)" in before
    tiny_weights(weights / "femkortskille@num_players=5_v1.npz", load_game("femkortskille", num_players=5))
    assert P.shipped_configurations() == sorted([*before, "femkortskille num_players=5 (v1)"])
    assert ", ".join(P.shipped_configurations()) in listed()
    (weights / "femkortskille@num_players=5_v1.npz").unlink()
    assert "femkortskille num_players=5 (v1)" not in listed()


def test_the_benchmark_plays_the_configurations_agent_and_skips_it_where_none_ships(weights, monkeypatch):
    monkeypatch.setattr(benchmark, "_CACHE", {})  # its agents by (game, name), kept per process: not this folder's
    kwargs = {"config": {"num_players": 3}, "pool": ["random", "pretrained_v1"], "games": 3, "workers": 1}
    r = benchmark.run_benchmark("spokelse", "random", **kwargs)
    assert list(r["opponents"]) == ["random"]
    assert "no pretrained agent ships for spokelse with num_players=3" in r["skipped"]["pretrained_v1"]
    tiny_weights(weights / "spokelse@num_players=3_v1.npz", load_game("spokelse", num_players=3))
    r = benchmark.run_benchmark("spokelse", "random", **kwargs)
    assert list(r["opponents"]) == ["random", "pretrained_v1"] and r["skipped"] == {}


def test_the_web_app_starts_a_configurations_agent_and_refuses_a_missing_one_in_words(weights):
    pytest.importorskip("starlette")
    pytest.importorskip("httpx")
    from tests.server import client, make_app

    c = client(make_app(agents=["random", "pretrained"]))
    body = {"game": "spokelse", "config": {"num_players": 3}, "opponents": ["pretrained"], "seed": 0}
    r = c.post("/api/games", json=body)
    assert r.status_code == 422 and "kortmiljo train spokelse --config num_players=3" in r.json()["error"], r.text
    tiny_weights(weights / "spokelse@num_players=3_v1.npz", load_game("spokelse", num_players=3))
    r = c.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    assert c.post("/api/games", json={**body, "config": {}}).status_code == 201  # the default: the shipped v1


def test_the_weights_files_ship_as_package_data():
    text = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text(encoding="utf-8")
    assert '"kortmiljo.agents.weights" = ["*.npz"]' in text  # a configuration's file is an .npz too
