"""Oracle teacher data (train/oracle_data.py) and its regression target (train/distill.py --target
advantage): every legal action of a searched stage is scored by one rollout in the real deal, the
move played scores exactly the return the game then gave, and a student regressing the scores over
the heuristic's move is a weights file that plays."""

from __future__ import annotations

import json

import numpy as np
import pytest
from kortmiljo.agents.pretrained import load_mlp_policy, read_weights
from kortmiljo.agents.registry import make_agent
from kortmiljo.agents.search import SearchPolicy
from kortmiljo.train import distill
from kortmiljo.train.distill import advantage_targets, advice_columns, regret
from kortmiljo.train.expert_data import ARRAYS, chunk_totals, load_chunks
from kortmiljo.train.oracle_data import collect, play_chunk

from kortmiljo import load_game

from .conftest import plays_legally


class ByObservation:
    """The pretrained agent with ``act`` alone, as a plug-in policy may be: no engine-level ``act_seat``."""

    def __init__(self, g):
        self.inner = make_agent("pretrained", g, seed=0)

    def seed(self, seed):
        self.inner.seed(seed)

    def act(self, obs, engine=None):
        return self.inner.act(obs)


def make_policy(policy, g):
    return ByObservation(g) if policy == "by-observation" else make_agent(policy, g, seed=0)


@pytest.mark.parametrize("policy", ["heuristic", "pretrained", "by-observation"])
@pytest.mark.parametrize("name", ["sproyte", "femkortskille", "spokelse"])
def test_the_move_played_scores_the_return_the_game_gave(name, policy):
    g = load_game(name)
    d = play_chunk(g, make_policy(policy, g), SearchPolicy(g, seed=0), games=2, seed=5, explore=0.0)
    n = len(d["action"])
    assert set(d) == set(ARRAYS) and n > 0 and all(len(d[k]) == n for k in ARRAYS)
    scored = np.isfinite(d["q"])
    searched = scored.sum(axis=1) > 1
    assert searched.any() and (scored <= d["mask"]).all()
    # every legal action of a searched decision is scored, and nothing where search is not asked
    assert (scored[searched] == d["mask"][searched]).all() and not scored[~searched].any()
    assert (d["mask"].sum(axis=1) > 1).all()  # decisions without a choice are not recorded
    # the score of the heuristic's own move is one rollout of the same play: the real return, exactly
    played = d["q"][np.arange(n), d["action"].astype(int)]
    assert np.array_equal(played[searched], d["ret"][searched])
    # the moves played are the policy's own (a policy that reads observations plays and rolls out too)
    agent, size = make_policy(policy, g), g.layout.size
    moves = [agent.act({"observation": x[:size], "unseen": x[size:], "action_mask": m.astype(np.int8)})
             for x, m in zip(d["obs"], d["mask"], strict=True)]  # fmt: skip
    assert np.array_equal(moves, d["action"])


def test_sproytes_exchange_is_kept_without_scores():
    g = load_game("sproyte")
    d = play_chunk(g, make_agent("heuristic", g, seed=0), SearchPolicy(g, seed=0), games=2, seed=1, explore=0.0)
    names = [g.action_names[int(a)] for a in d["action"][np.isfinite(d["q"]).sum(axis=1) == 0]]
    assert names and all(a.startswith("discard:") or a == "done" for a in names)


def test_exploration_plays_other_moves_and_bad_shares_are_refused(tmp_path):
    g = load_game("spokelse")
    d = play_chunk(g, make_agent("heuristic", g, seed=0), SearchPolicy(g, seed=0), games=3, seed=2, explore=1.0)
    advice = make_agent("heuristic", g, seed=0)
    size = g.layout.size
    moves = [
        advice.act({"observation": x[:size], "unseen": x[size:], "action_mask": m.astype(np.int8)})
        for x, m in zip(d["obs"], d["mask"], strict=True)
    ]
    assert (np.asarray(moves) != d["action"]).any() and d["mask"][np.arange(len(moves)), d["action"]].all()
    with pytest.raises(ValueError, match=r"explore must be in \[0, 1\], got 1.5"):
        collect("spokelse", tmp_path / "x", minutes=1, explore=1.5)
    assert not (tmp_path / "x").exists()
    with pytest.raises(ValueError, match="unknown agent 'nosuch' for spokelse"):
        collect("spokelse", tmp_path / "y", minutes=1, policy="nosuch")
    assert not (tmp_path / "y").exists()


@pytest.mark.parametrize("name", ["sproyte", "femkortskille"])
def test_at_a_table_of_opponents_only_the_one_seat_is_recorded_and_its_rollouts_keep_the_table(name):
    g = load_game(name)
    d = play_chunk(g, make_agent("pretrained", g, seed=0), SearchPolicy(g, seed=0), games=6, seed=4, explore=0.0,
                   opponents=make_agent("heuristic", g, seed=0), opponent_share=1.0)  # fmt: skip
    seats = {int(gi): set(d["seat"][d["game"] == gi].tolist()) for gi in np.unique(d["game"])}
    assert all(len(s) == 1 for s in seats.values()) and len(set().union(*seats.values())) > 1  # one seat a game
    n = len(d["action"])
    searched = np.isfinite(d["q"]).sum(axis=1) > 1
    played = d["q"][np.arange(n), d["action"].astype(int)]
    # the played move's rollout is the rest of that game at that table (pretrained there, the heuristic elsewhere)
    assert searched.any() and np.array_equal(played[searched], d["ret"][searched])
    agent, size = make_agent("pretrained", g, seed=0), g.layout.size
    moves = [agent.act({"observation": x[:size], "unseen": x[size:], "action_mask": m.astype(np.int8)})
             for x, m in zip(d["obs"], d["mask"], strict=True)]  # fmt: skip
    assert np.array_equal(moves, d["action"])  # every recorded move is the policy's
    # at a share of 0.5 some games are self-play (every seat recorded), some at the table (one seat)
    d = play_chunk(g, make_agent("pretrained", g, seed=0), SearchPolicy(g, seed=0), games=8, seed=4, explore=0.0,
                   opponents=make_agent("heuristic", g, seed=0), opponent_share=0.5)  # fmt: skip
    sizes = sorted({len(set(d["seat"][d["game"] == gi].tolist())) for gi in np.unique(d["game"])})
    assert sizes[0] == 1 and sizes[-1] > 1


def test_opponents_and_their_share_are_checked_before_anything_is_written(tmp_path):
    for kwargs, message in [
        ({"opponents": "heuristic", "opponent_share": 1.5}, r"opponent_share must be in \[0, 1\], got 1.5"),
        ({"opponents": "heuristic"}, "give opponents and a share above 0 together"),
        ({"opponent_share": 0.5}, "give opponents and a share above 0 together"),
        ({"opponents": "nosuch", "opponent_share": 0.5}, "unknown agent 'nosuch' for sproyte"),
    ]:
        with pytest.raises(ValueError, match=message):
            collect("sproyte", tmp_path / "x", minutes=1, **kwargs)
        assert not (tmp_path / "x").exists()
    assert collect("sproyte", tmp_path / "y", minutes=5, max_chunks=1, policy="pretrained", opponents="heuristic",
                   opponent_share=0.5) == 1  # fmt: skip
    assert load_chunks(tmp_path / "y")[1]["games"] == 10
    meta = json.loads((tmp_path / "y" / "meta.json").read_text())  # the folder says how its games were seated
    assert meta["opponents"] == "heuristic" and meta["opponent_share"] == 0.5


def test_advantage_targets_are_gains_over_the_advisors_move():
    A = 4
    mask = np.array([[1, 1, 1, 0], [1, 1, 0, 0], [1, 0, 0, 0]], dtype=bool)
    q = np.full((3, A), np.nan, dtype=np.float32)
    q[0, :3] = [1.0, 3.0, 0.5]  # searched; the advisor plays action 0
    advisor = np.zeros((3, A), dtype=np.float32)
    advisor[[0, 1, 2], [0, 1, 0]] = 1
    data = {"q": q, "mask": mask, "obs": np.concatenate([np.zeros((3, 5), np.float32), advisor], axis=1)}
    t, w = advantage_targets(data, A, margin=0.25)
    assert np.allclose(t[0], [0.0, 1.75, -0.75, 0.0]) and np.array_equal(w[0], [1, 1, 1, 0])
    # not searched: the advisor's move (action 1) is taught 0, the other legal action -1 (less the margin)
    assert np.allclose(t[1], [-1.25, 0.0, 0.0, 0.0]) and np.array_equal(w[1], [1, 1, 0, 0])
    assert not w[2].any()  # no choice: nothing to teach
    q[0, 0] = np.nan
    with pytest.raises(ValueError, match="advisor's move scored"):
        advantage_targets(data, A, margin=0.0)


def test_regret_is_the_score_given_up_against_the_best_scored_action():
    q = np.array([[1.0, 3.0, np.nan], [2.0, 2.0, 0.0], [5.0, np.nan, np.nan]], dtype=np.float32)
    assert regret(np.array([0, 2, 0]), q) == pytest.approx((2.0 + 2.0) / 2)  # the single-score row is left out


def test_oracle_data_distils_with_the_advantage_target_into_weights_that_play(tmp_path):
    out = tmp_path / "data"
    assert collect("sproyte", out, minutes=5, explore=0.1, max_chunks=1) == 1
    assert collect("sproyte", out, minutes=5, explore=0.1, max_chunks=1) == 0  # resumes: nothing redone
    with pytest.raises(
        ValueError, match=r"holds another collection's data \(its meta.json differs in: explore, policy\)"
    ):
        collect("sproyte", out, minutes=5, explore=0.2, max_chunks=2, policy="pretrained")
    data, meta = load_chunks(out)
    assert meta["games"] == 10 and meta["decisions"] == len(data["action"])
    w = tmp_path / "s.npz"
    distill.main(["sproyte", "--data", str(out), "--out", str(w), "--epochs", "2", "--hidden", "16",
                  "--advisor", "heuristic_v0", "--target", "advantage", "--margin", "0.1"])  # fmt: skip
    source = read_weights(w).meta["source"]
    assert source["target"] == "advantage" and source["margin"] == 0.1
    assert np.isfinite(source["regret"]) and np.isfinite(source["advisor_regret"])
    g = load_game("sproyte")
    plays_legally(g, make_agent(str(w), g, seed=0), seed=3)


def test_several_folders_load_as_one_with_game_ids_unique_across_them(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"  # two steps' data: a fit may replay the earlier one's
    assert collect("sproyte", a, minutes=5, max_chunks=1) == 1
    assert collect("sproyte", b, minutes=5, start=7, max_chunks=8, policy="pretrained") == 1
    (da, ma), (db, mb) = load_chunks(a), load_chunks(b)
    both, meta = load_chunks([a, b])
    assert meta == {k: ma[k] + mb[k] for k in meta} == chunk_totals([a, b])
    for k in ARRAYS:
        tail = db[k] + ma["games"] if k == "game" else db[k]
        assert np.array_equal(both[k], np.concatenate([da[k], tail]), equal_nan=k == "q")  # q: unscored is nan
    assert len(np.intersect1d(both["game"][: len(da["game"])], both["game"][len(da["game"]) :])) == 0


def test_half_precision_loading_keeps_the_advisors_moves_and_the_inputs_to_2e_4(tmp_path):
    out = tmp_path / "data"
    assert collect("sproyte", out, minutes=5, max_chunks=3) == 3
    g = load_game("sproyte")
    full, meta = load_chunks(out)
    assert chunk_totals(out) == meta  # the totals without the arrays
    half, _ = load_chunks(out, np.float16, distill.advice_columns(g, "heuristic_v0"))
    advised = distill.with_advice(g, full, "heuristic_v0")
    assert half["obs"].dtype == np.float16 and half["obs"].shape == advised["obs"].shape
    # the advisor's one-hot is computed from the float32 inputs before the cast, so it is exact
    assert np.array_equal(half["obs"][:, -g.num_actions :], advised["obs"][:, -g.num_actions :])
    assert np.abs(half["obs"].astype(np.float32) - advised["obs"]).max() < 2e-4
    assert len(np.unique(half["game"])) == meta["games"] == 30  # game ids unique across chunks
    for k in ARRAYS:
        if k != "obs":
            assert np.array_equal(half[k], full[k], equal_nan=k == "q"), k
    w = tmp_path / "h.npz"
    distill.main(["sproyte", "--data", str(out), "--out", str(w), "--epochs", "1", "--hidden", "16", "--half",
                  "--advisor", "heuristic_v0", "--target", "advantage", "--margin", "0.1"])  # fmt: skip
    assert read_weights(w).meta["source"]["decisions"] == meta["decisions"]
    plays_legally(g, make_agent(str(w), g, seed=0), seed=4)


def test_the_advantage_target_without_an_advisor_is_refused_before_data_loads(tmp_path, capsys):
    with pytest.raises(SystemExit):
        distill.main(["sproyte", "--data", str(tmp_path), "--out", str(tmp_path / "w.npz"), "--target", "advantage"])
    assert "--target advantage needs --advisor" in capsys.readouterr().err
    assert not (tmp_path / "w.npz").exists()


@pytest.mark.parametrize("policy,half", [("heuristic", False), ("pretrained_v2", True)])  # v2's recipe, v3's
def test_the_oracle_recipe_runs_end_to_end(tmp_path, policy, half):
    from kortmiljo.train.reference import run

    out = tmp_path / "v.npz"
    report = run("femkortskille", collect_minutes=0.01, workers=1, data=str(tmp_path / "data"), out=str(out),
                 epochs=1, check_games=8, hidden="16", teacher="oracle", margin=0.2, policy=policy,
                 half=half)  # fmt: skip
    assert report["advisor"] == "heuristic_v0" and report["margin"] == 0.2 and report["explore"] == 0.05
    assert report["policy"] == policy and report["half"] == half
    assert report["stages"]["teacher_games"]["chunks"] >= 1 and report["stages"]["check"]["games"] >= 8
    source = read_weights(out).meta["source"]
    assert source["target"] == "advantage" and source["margin"] == 0.2 and source["advisor"] == "heuristic_v0"


def test_each_recipe_names_the_version_it_makes():
    from kortmiljo.train.reference import recipe_version

    assert recipe_version("search", "heuristic") == 1
    assert recipe_version("oracle", "heuristic") == recipe_version("oracle", "heuristic_v0") == 2
    assert recipe_version("oracle", "pretrained_v2") == 3 and recipe_version("oracle", "pretrained_v3") == 4
    with pytest.raises(SystemExit, match="--policy pretrained: .*--out"):  # the alias moves, so it has no version
        recipe_version("oracle", "pretrained")
    assert recipe_version("oracle", "search_v0", out="w.npz") == 0


def test_all_stages_scores_sproytes_exchange_too_and_keeps_its_data_apart(tmp_path):
    out = tmp_path / "all"
    assert collect("sproyte", out, minutes=5, max_chunks=1, all_stages=True) == 1
    d, meta = load_chunks(out)
    g = load_game("sproyte")
    names = [g.action_names[int(a)] for a in d["action"]]
    exchange = np.array([a.startswith("discard:") or a == "done" for a in names])
    assert exchange.any() and (~exchange).any()
    scored = np.isfinite(d["q"])
    assert (scored == d["mask"]).all()  # every legal action of every decision, the exchange's included
    played = d["q"][np.arange(len(names)), d["action"].astype(int)]
    # the played move's score is the return, unless a random move (explore) came at or after it in its game:
    # in each game the decisions that differ are a prefix, and the rest match exactly
    differs = played != d["ret"]
    for gi in np.unique(d["game"]):
        run = differs[d["game"] == gi]
        assert not (~run[:-1] & run[1:]).any()  # no differing decision after a matching one
    assert not differs.all()
    assert (out / "meta.json").read_text().count('"all_stages": true') == 1
    with pytest.raises(ValueError, match=r"meta.json differs in: all_stages\)"):
        collect("sproyte", out, minutes=5, max_chunks=2)


def test_a_fit_from_init_starts_where_the_earlier_student_stopped(tmp_path, capsys):
    out = tmp_path / "data"
    assert collect("sproyte", out, minutes=5, max_chunks=1) == 1
    args = ["sproyte", "--data", str(out), "--advisor", "heuristic_v0", "--target", "advantage", "--hidden"]
    first, same, moved = tmp_path / "a.npz", tmp_path / "b.npz", tmp_path / "c.npz"
    distill.main([*args, "16", "--out", str(first), "--epochs", "1"])
    distill.main([*args, "16", "--out", str(same), "--epochs", "1", "--init", str(first), "--lr", "0"])
    distill.main([*args, "16", "--out", str(moved), "--epochs", "1", "--init", str(first)])
    a, b, c = (read_weights(p) for p in (first, same, moved))
    for (wa, ba), (wb, bb) in zip(a.actor + a.critic, b.actor + b.critic, strict=True):
        assert np.array_equal(wa, wb) and np.array_equal(ba, bb)  # no step taken: exactly the start
    assert not all(np.array_equal(x[0], y[0]) for x, y in zip(a.actor, c.actor, strict=True))
    assert b.meta["source"]["init"] == str(first) and b.meta["source"]["lr"] == 0.0
    with pytest.raises(SystemExit):  # another shape is refused before any data loads
        distill.main([*args, "8", "--out", str(tmp_path / "d.npz"), "--init", str(first)])
    assert "a different student: hidden [16] (this fit: [8])" in capsys.readouterr().err
    assert not (tmp_path / "d.npz").exists()


def test_the_recipe_goes_on_from_an_earlier_student_with_every_stage_scored(tmp_path, capsys):
    from kortmiljo.train.reference import main, run

    kw = {"workers": 1, "epochs": 1, "check_games": 6, "hidden": "16", "teacher": "oracle"}
    first, second = str(tmp_path / "a.npz"), str(tmp_path / "b.npz")
    run("sproyte", collect_minutes=0.01, data=str(tmp_path / "d1"), out=first, **kw)
    report = run("sproyte", collect_minutes=0.01, data=str(tmp_path / "d2"), out=second, all_stages=True, init=first,
                 lr=3e-4, first_chunk=100, replay=str(tmp_path / "d1"), **kw)  # fmt: skip
    assert report["all_stages"] and report["first_chunk"] == 100 and report["init"] == first and report["lr"] == 3e-4
    new, old = report["stages"]["teacher_games"], report["replay"]
    assert old["folders"] == str(tmp_path / "d1") and old["games"] == chunk_totals(tmp_path / "d1")["games"]
    assert sorted(p.name for p in (tmp_path / "d2").glob("chunk_*.npz"))[0] == "chunk_00100.npz"
    assert '"all_stages": true' in (tmp_path / "d2" / "meta.json").read_text()
    source = read_weights(second).meta["source"]
    assert source["init"] == first and source["lr"] == 3e-4
    assert source["games"] == new["games"] + old["games"]  # the earlier step's data was fitted again
    with pytest.raises(ValueError, match="no chunk_"):  # before any game is played
        run("sproyte", collect_minutes=5, data=str(tmp_path / "d3"), out=str(tmp_path / "c.npz"),
            replay=str(tmp_path / "nowhere"), **kw)  # fmt: skip
    with pytest.raises(SystemExit):  # the command line says the same, without a traceback
        main(["sproyte", "--teacher", "oracle", "--data", str(tmp_path / "d3"), "--out", str(tmp_path / "c.npz"),
              "--replay", str(tmp_path / "nowhere")])  # fmt: skip
    assert f"no chunk_*.npz teacher data in {tmp_path / 'nowhere'}" in capsys.readouterr().err
    assert not (tmp_path / "d3").exists()


def test_the_recipe_passes_the_mixed_table_on_and_refuses_a_bad_one_before_its_workers_start(tmp_path, capsys):
    from kortmiljo.train.reference import main, run

    kw = {"workers": 1, "epochs": 1, "check_games": 6, "hidden": "16", "teacher": "oracle"}
    report = run("sproyte", collect_minutes=0.01, data=str(tmp_path / "d"), out=str(tmp_path / "a.npz"),
                 opponents="heuristic", opponent_share=0.75, **kw)  # fmt: skip
    assert report["opponents"] == "heuristic" and report["opponent_share"] == 0.75
    meta = json.loads((tmp_path / "d" / "meta.json").read_text())  # the collection was seated as asked
    assert meta["opponents"] == "heuristic" and meta["opponent_share"] == 0.75
    assert "opponents" not in run("sproyte", collect_minutes=0.01, data=str(tmp_path / "e"),
                                  out=str(tmp_path / "b.npz"), **kw)  # fmt: skip
    for argv, message in [
        (["--teacher", "oracle", "--opponent-share", "0.5"], "give opponents and a share above 0 together"),
        (["--teacher", "oracle", "--opponents", "heuristic", "--opponent-share", "2"], "must be in [0, 1], got 2.0"),
        (["--opponents", "heuristic", "--opponent-share", "0.5"], "--opponents needs --teacher oracle"),
    ]:
        with pytest.raises(SystemExit):
            main(["sproyte", *argv, "--data", str(tmp_path / "x"), "--out", str(tmp_path / "c.npz")])
        assert message in capsys.readouterr().err
        assert not (tmp_path / "x").exists() and not (tmp_path / "c.npz").exists()


def test_a_wider_fit_from_init_starts_as_the_narrower_student_and_plays_the_same(tmp_path, capsys):
    out = tmp_path / "data"
    assert collect("sproyte", out, minutes=5, max_chunks=1) == 1
    args = ["sproyte", "--data", str(out), "--advisor", "heuristic_v0", "--target", "advantage", "--hidden"]
    narrow, wide = tmp_path / "a.npz", tmp_path / "b.npz"
    distill.main([*args, "16,16", "--out", str(narrow), "--epochs", "1"])
    distill.main([*args, "24,32", "--out", str(wide), "--epochs", "1", "--init", str(narrow), "--lr", "0"])
    a, b = read_weights(narrow), read_weights(wide)
    assert [w.shape for w, _ in b.actor] == [(a.actor[0][0].shape[0], 24), (24, 32), (32, a.actor[-1][0].shape[1])]
    for k, ((wa, ba), (wb, bb)) in enumerate(zip(a.actor, b.actor, strict=True)):
        assert np.array_equal(wb[: wa.shape[0], : wa.shape[1]], wa) and np.array_equal(bb[: len(ba)], ba)
        assert (wb[wa.shape[0] :, : wa.shape[1]] == 0).all()  # old units read nothing from the new ones
        if k < len(a.actor) - 1:
            assert (wb[:, wa.shape[1] :] != 0).any()  # the new units do read their inputs: they can learn
    game = load_game("sproyte")
    d, _ = load_chunks(out, columns=advice_columns(game, "heuristic_v0"))
    pa, pb = (load_mlp_policy(p, game) for p in (narrow, wide))
    x = d["obs"][:200]
    same = pb._forward(x, pb.weights.actor), pa._forward(x, pa.weights.actor)
    np.testing.assert_allclose(*same, rtol=1e-5, atol=1e-5)  # the widened student computes the same
    with pytest.raises(SystemExit):  # another depth is still refused (narrower layers: the test above)
        distill.main([*args, "24", "--out", str(tmp_path / "c.npz"), "--init", str(narrow)])
    assert "a different student: hidden [16, 16] (this fit: [24])" in capsys.readouterr().err


def test_end_fixes_the_data_to_the_chunk_and_bad_stops_are_refused(tmp_path, capsys):
    from kortmiljo.train import oracle_data

    a, b = tmp_path / "a", tmp_path / "b"
    # two processes on one folder (odd and even numbers) write every chunk below --end, with no time box
    oracle_data.main(["sproyte", "--out", str(a), "--start", "3", "--step", "2", "--end", "6"])
    oracle_data.main(["sproyte", "--out", str(a), "--start", "4", "--step", "2", "--end", "6"])
    assert sorted(p.name for p in a.glob("chunk_*.npz")) == [f"chunk_{j:05d}.npz" for j in (3, 4, 5)]
    oracle_data.main(["sproyte", "--out", str(b), "--start", "3", "--end", "6"])  # one process, another folder
    (da, ma), (db, mb) = load_chunks(a), load_chunks(b)
    assert ma["games"] == mb["games"] == 30
    for k in ARRAYS:  # chunk j's games depend on j alone: the same data, to the decision
        assert np.array_equal(da[k], db[k], equal_nan=k == "q")
    for flags, message in [(["--start", "5", "--end", "5"], "--end must be above --start (5), got 5"),
                           (["--minutes", "0"], "--minutes must be above 0, got 0.0"),
                           (["--step", "0"], "--step >= 1")]:  # fmt: skip
        with pytest.raises(SystemExit):
            oracle_data.main(["sproyte", "--out", str(tmp_path / "c"), *flags])
        assert message in capsys.readouterr().err
        assert not (tmp_path / "c").exists()
