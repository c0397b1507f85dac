"""Anyone's policy as an agent: ``module:attr``, ``file.py:attr``, ``PATH.zip``, ``PATH.npz``,
``pretrained``, policy objects in the Python API, the errors, the help texts and docs/agents.md."""

from __future__ import annotations

import io
import json
import re
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest
from kortmiljo.agents import tournament as T
from kortmiljo.agents.base import Policy
from kortmiljo.agents.play import play
from kortmiljo.agents.plugins import PluginPolicy, as_policy
from kortmiljo.agents.registry import AGENT_KINDS, available_agents, make_agent, spec_kind

from kortmiljo import cli, load_game

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "spokelse_model_v010"

POLICY_MODULE = '''
import numpy as np

from kortmiljo.agents.base import Policy


class LowestPolicy(Policy):
    """The lowest legal action, as a Policy subclass."""

    name = "lowest"

    def __init__(self, game, seed=None, offset=0):
        super().__init__(game, seed)
        self.offset = offset

    def act(self, obs, engine=None):
        return int(np.flatnonzero(obs["action_mask"])[self.offset])


class LowestLegal:
    """The lowest legal action, as a plain class with act(obs)."""

    def act(self, obs):
        return int(np.flatnonzero(obs["action_mask"])[0])


def make_lowest(game, seed=None):
    return LowestLegal()


def make_random(game, seed=None):
    return RandomLegal(seed)


class RandomLegal:
    def __init__(self, seed=None):
        self.seeds = [seed]
        self.rng = np.random.default_rng(seed)

    def seed(self, seed):
        self.seeds.append(seed)
        self.rng = np.random.default_rng(seed)

    def act(self, obs):
        return int(self.rng.choice(np.flatnonzero(obs["action_mask"])))


lowest = LowestLegal()
NOT_A_POLICY = 42
'''


def lowest_legal(obs) -> int:
    return int(np.flatnonzero(obs["action_mask"])[0])


class Lowest:
    """A bare object with act(obs) that logs what it returns."""

    def __init__(self):
        self.returned: list[int] = []

    def act(self, obs):
        a = lowest_legal(obs)
        self.returned.append(a)
        return a


class LowestAsPolicy(Policy):
    name = "Lowest"

    def act(self, obs, engine=None):
        return lowest_legal(obs)


class Returns:
    """act returns whatever it was given (for the error cases)."""

    def __init__(self, value):
        self.value = value

    def act(self, obs):
        return self.value


@pytest.fixture
def plugin_module(tmp_path, monkeypatch):
    """``kortmiljo_test_plugin`` importable from a tmp folder on sys.path."""
    (tmp_path / "kortmiljo_test_plugin.py").write_text(POLICY_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "kortmiljo_test_plugin"
    sys.modules.pop("kortmiljo_test_plugin", None)


def observations(game: str, n: int = 30, seed: int = 3) -> list[dict]:
    """``n`` observations of a game played by random agents."""
    g = load_game(game)
    e = g.new_state()
    rng = np.random.default_rng(seed)
    e.new_episode(rng)
    out = []
    while len(out) < n and not (e.terminal or e.truncated):
        obs = e.observation(e.current_player)
        out.append(obs)
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return out


def recorded_actions(folder: Path) -> list[list[tuple[str, str]]]:
    return [
        [(a["seat"], a["action"]) for a in json.loads(p.read_text())["actions"]] for p in sorted(folder.glob("*.json"))
    ]


# ---- what a spec is -------------------------------------------------------------------------------
def test_spec_kinds_in_order():
    assert spec_kind("heuristic") == "name" and spec_kind("nobody") == "name"
    assert spec_kind("ppo:runs/x/model.zip") == "ppo" and spec_kind("rllib:runs/r") == "rllib"
    assert spec_kind("runs/x/model.zip") == "zip" and spec_kind("w.npz") == "npz"
    assert spec_kind("dir/my.py:Mine") == "file" and spec_kind("my.py:Mine") == "file"
    assert spec_kind("pkg.mod:Mine") == "module" and spec_kind("mod:make.inner") == "module"
    assert spec_kind("a/b:c") == "file"
    assert spec_kind("not a spec!") is None and spec_kind("1mod:x") is None and spec_kind("mod:") is None


# ---- module:attr ----------------------------------------------------------------------------------
def test_a_policy_subclass_by_module_attr(plugin_module):
    p = make_agent(f"{plugin_module}:LowestPolicy", "spokelse", seed=4, offset=0)
    assert isinstance(p, Policy) and type(p).__name__ == "LowestPolicy"  # built, not wrapped
    assert p.name == "lowest" and p.offset == 0
    same = make_agent("random", "spokelse", seed=4)
    assert p.rng.integers(1 << 30) == same.rng.integers(1 << 30)  # seeded with the seed given
    for obs in observations("spokelse"):
        assert p.act(obs) == lowest_legal(obs)


def test_a_factory_and_a_plain_class_and_an_instance(plugin_module):
    obs = observations("sproyte")
    for attr in ("make_lowest", "LowestLegal", "lowest"):
        spec = f"{plugin_module}:{attr}"
        p = make_agent(spec, "sproyte", seed=1)
        assert isinstance(p, PluginPolicy) and p.name == spec and not p.needs_engine
        assert [p.act(o) for o in obs] == [lowest_legal(o) for o in obs]


def test_seeds_are_passed_and_forwarded(plugin_module):
    p = make_agent(f"{plugin_module}:make_random", "sproyte", seed=5)
    assert p.obj.seeds == [5]  # the factory took the seed; no second seeding
    p.seed(9)
    assert p.obj.seeds == [5, 9]
    q = make_agent(f"{plugin_module}:RandomLegal", "sproyte", seed=7)  # a class whose seed is a keyword
    assert q.obj.seeds == [7]
    obs = observations("sproyte")
    p.seed(3)
    q.seed(3)
    assert [p.act(o) for o in obs] == [q.act(o) for o in obs]


def test_missing_module_and_attribute(plugin_module):
    with pytest.raises(ValueError, match=r"no module named 'no_such_mod_xyz' on the Python path"):
        make_agent("no_such_mod_xyz:Thing", "spokelse")
    with pytest.raises(ValueError) as err:
        make_agent(f"{plugin_module}:Nope", "spokelse")
    msg = str(err.value)
    assert f"agent '{plugin_module}:Nope'" in msg and "has no attribute 'Nope'" in msg
    listed = msg.split("it has: ")[1].split(", ")
    assert listed == ["LowestLegal", "LowestPolicy", "RandomLegal", "lowest", "make_lowest", "make_random"]
    with pytest.raises(ValueError, match=r"is an int \(42\), not a policy"):
        make_agent(f"{plugin_module}:NOT_A_POLICY", "spokelse")
    with pytest.raises(ValueError, match="is the module numpy"):
        make_agent(f"{plugin_module}:np", "spokelse")


# ---- file.py:attr ---------------------------------------------------------------------------------
def test_a_file_by_path_relative_and_absolute(tmp_path, monkeypatch):
    (tmp_path / "mine.py").write_text(POLICY_MODULE)
    monkeypatch.chdir(tmp_path)
    obs = observations("femkortskille")
    for spec in ("mine.py:LowestLegal", f"{tmp_path / 'mine.py'}:LowestPolicy", "./mine.py:make_lowest"):
        p = make_agent(spec, "femkortskille", seed=0)
        assert [p.act(o) for o in obs] == [lowest_legal(o) for o in obs], spec
    assert "mine" not in sys.modules  # imported under its own unique name


def test_two_files_named_policy_py_do_not_clash(tmp_path, monkeypatch):
    for folder, index in (("a", 0), ("b", -1)):
        (tmp_path / folder).mkdir()
        body = f"        return int(np.flatnonzero(obs['action_mask'])[{index}])\n"
        code = "import numpy as np\n\nclass P:\n    def act(self, obs):\n" + body
        (tmp_path / folder / "policy.py").write_text(code)
    monkeypatch.chdir(tmp_path)
    a = make_agent("a/policy.py:P", "sproyte")
    b = make_agent("b/policy.py:P", "sproyte")
    assert type(a.obj) is not type(b.obj) and type(a.obj).__module__ != type(b.obj).__module__
    obs = [o for o in observations("sproyte") if o["action_mask"].sum() > 1]
    assert obs
    for o in obs:
        legal = np.flatnonzero(o["action_mask"])
        assert (a.act(o), b.act(o)) == (legal[0], legal[-1])


def test_file_errors(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.txt").write_text("hello\n")
    (tmp_path / "pkg.py").mkdir()
    (tmp_path / "broken.py").write_text("import numpy as np\n\nraise RuntimeError('no luck today')\n")
    (tmp_path / "syntax.py").write_text("def f(:\n")
    (tmp_path / "needs.py").write_text("import no_such_dependency_xyz\n")
    (tmp_path / "empty.py").write_text("X = 1\n")
    cases = {
        "missing.py:P": r"agent 'missing.py:P': the file missing.py does not exist \(relative to ",
        "pkg.py:P": r"the file pkg.py is a folder, not a .py file",
        "sub/notes.txt:P": r"sub/notes.txt is not a .py file",
        "broken.py:P": r"importing broken.py failed: RuntimeError: no luck today \(at broken.py line 3\)",
        "syntax.py:P": r"importing syntax.py failed: SyntaxError: .*line 1",
        "needs.py:P": r"importing needs.py failed: ModuleNotFoundError: No module named 'no_such_dependency_xyz'",
        "empty.py:P": r"empty.py has no attribute 'P'; it has no public name that looks like a policy",
        "empty.py:X": r"is an int \(1\), not a policy",
        "empty.py": r"name the policy in the file too, as empty.py:ATTR",
    }
    for spec, words in cases.items():
        with pytest.raises(ValueError, match=words):
            make_agent(spec, "spokelse")
    assert not [m for m in sys.modules if m.endswith(("_broken", "_syntax", "_needs"))]  # failed imports left no module


def test_constructor_and_factory_errors(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code = textwrap.dedent(
        """
        class Fails:
            def __init__(self, game, seed=None):
                raise KeyError("weights")

            def act(self, obs):
                return 0


        class NoAct:
            pass


        def gives_none(game, seed=None):
            return None
        """
    )
    (tmp_path / "bad.py").write_text(code)
    with pytest.raises(ValueError, match=r"building it failed: KeyError: 'weights' \(at bad.py line 4\)"):
        make_agent("bad.py:Fails", "sproyte")
    with pytest.raises(ValueError, match="the class NoAct, which has no act"):
        make_agent("bad.py:NoAct", "sproyte")
    with pytest.raises(ValueError, match="the factory returned NoneType, which has no act"):
        make_agent("bad.py:gives_none", "sproyte")
    with pytest.raises(ValueError, match="takes no arguments"):
        make_agent(Lowest(), "sproyte", worlds=3)


# ---- the adapter's checks -------------------------------------------------------------------------
def test_an_illegal_action_names_the_agent_and_the_legal_actions():
    g = load_game("sproyte")
    obs = next(o for o in observations("sproyte") if not o["action_mask"].all())
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    p = as_policy(Returns(illegal), g, name="mine.py:Bad")
    with pytest.raises(ValueError) as err:
        p.act(obs)
    msg = str(err.value)
    assert msg.startswith(f"agent 'mine.py:Bad' returned {illegal}, not a legal action now ({g.action_names[illegal]})")
    legal = [g.action_names[i] for i in np.flatnonzero(obs["action_mask"])]
    assert f"legal actions: {', '.join(legal[:24])}" in msg
    with pytest.raises(ValueError, match=r"returned 9999, not a legal action now; legal actions: "):
        as_policy(Returns(9999), g).act(obs)


@pytest.mark.parametrize("value", [1.0, None, "draw", True, np.float32(0), np.array([0, 1])])
def test_a_non_int_action_is_refused(value):
    g = load_game("sproyte")
    obs = observations("sproyte")[0]
    with pytest.raises(ValueError, match=r"agent 'Returns' returned .*, not an int; legal actions: "):
        as_policy(Returns(value), g).act(obs)


def test_numpy_ints_become_ints_and_the_engine_goes_only_where_asked():
    g = load_game("spokelse")
    obs = observations("spokelse")[0]
    a = lowest_legal(obs)
    for value in (np.int64(a), np.int32(a), np.array(a), np.array([a])):
        got = as_policy(Returns(value), g).act(obs)
        assert got == a and type(got) is int

    class WantsEngine:
        needs_engine = True

        def act(self, obs, engine):
            self.engine = engine
            return lowest_legal(obs)

    class SaysTruthy:
        needs_engine = "yes"  # only True counts

        def act(self, obs):
            return lowest_legal(obs)

    w = as_policy(WantsEngine(), g)
    assert w.needs_engine
    sentinel = object()
    assert w.act(obs, sentinel) == a and w.obj.engine is sentinel
    s = as_policy(SaysTruthy(), g)
    assert not s.needs_engine and s.act(obs, sentinel) == a


# ---- the Python API takes objects ---------------------------------------------------------------
def test_run_tournament_with_a_plain_object_plays_its_moves(tmp_path):
    bare = Lowest()
    T.run_tournament("sproyte", [bare, "random"], 6, seed=3, progress=False, record=tmp_path / "bare")
    T.run_tournament("sproyte", [LowestAsPolicy(load_game("sproyte")), "random"], 6, seed=3, progress=False,
                     record=tmp_path / "policy")  # fmt: skip
    moves = recorded_actions(tmp_path / "bare")
    assert moves == recorded_actions(tmp_path / "policy")  # the same moves as the Policy that plays lowest-legal
    seats = [json.loads(p.read_text())["seats"] for p in sorted((tmp_path / "bare").glob("*.json"))]
    ours = sum(1 for game, s in zip(moves, seats, strict=True) for seat, _ in game if s[seat] == "Lowest")
    assert ours == len(bare.returned) > 0  # every move of its seats came from it


def test_run_tournament_names_objects_and_builds_classes():
    res = T.run_tournament("spokelse", [Lowest(), LowestAsPolicy, lowest_legal_factory], 3, progress=False)
    assert list(res["agents"]) == ["Lowest", "LowestAsPolicy", "lowest_legal_factory"]
    assert T.unique_names([Lowest(), "random", Lowest()]) == ["Lowest#1", "random", "Lowest#2"]


def lowest_legal_factory(game, seed=None):
    return Lowest()


def test_play_takes_policy_objects():
    g = load_game("spokelse")
    for opponent in (Lowest(), LowestAsPolicy(g)):
        out = io.StringIO()
        assert play(g, opponents=[opponent], seed=1, stdin=io.StringIO("quit\n"), stdout=out) == 0
        assert "player_1 = Lowest" in out.getvalue() and "game left unfinished" in out.getvalue()
    bare = Lowest()
    out = io.StringIO()
    play(g, opponents=[bare], seat=1, seed=2, stdin=io.StringIO("1\n" * 30 + "quit\n"), stdout=out)
    moves = re.findall(r"^player_0 \(Lowest\): (\S+)$", out.getvalue(), re.M)
    assert moves and moves == [g.action_names[a] for a in bare.returned]  # its moves, as it chose them


def test_a_record_does_not_choose_a_plug_in(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.py").write_text(POLICY_MODULE)
    rec = tmp_path / "g.json"
    out = io.StringIO()
    play(
        "spokelse", opponents=["mine.py:LowestLegal"], seed=1, stdin=io.StringIO("quit\n"), stdout=out, record=str(rec)
    )
    assert json.loads(rec.read_text())["seats"]["player_1"] == "mine.py:LowestLegal"
    assert cli.main(["play", "--resume", str(rec)]) == 2
    err = capsys.readouterr().err
    assert "by the plug-in 'mine.py:LowestLegal', which runs code when loaded; a record does not choose that: " in err
    assert "give --opponents mine.py:LowestLegal" in err


@pytest.mark.parametrize(
    "spec,what",
    [(f"ppo:{FIXTURE / 'model.zip'}", "the SB3 model"), (str(FIXTURE / "model.zip"), "the SB3 model"),
     ("rllib:ckpt", "the RLlib checkpoint")],
)  # fmt: skip
def test_a_record_does_not_choose_a_pickled_model(tmp_path, capsys, spec, what):
    """A record naming an SB3 model or an RLlib checkpoint for a seat would unpickle it on --resume: refused."""
    rec = tmp_path / "g.json"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the fixture predates fingerprints: the loader warns
        play("spokelse", opponents=["heuristic"], seed=1, stdin=io.StringIO("quit\n"), stdout=io.StringIO(),
             record=str(rec))  # fmt: skip
    doc = json.loads(rec.read_text())
    doc["seats"]["player_1"] = spec  # as a record from anyone may say
    rec.write_text(json.dumps(doc))
    assert cli.main(["play", "--resume", str(rec)]) == 2
    err = capsys.readouterr().err
    assert f"player_1 was played by {what} {spec!r}, which runs code when loaded" in err
    assert f"give --opponents {spec}" in err


# ---- .zip, .npz, pretrained -----------------------------------------------------------------------
def test_a_zip_path_is_the_ppo_loader():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the fixture predates fingerprints: the loader warns
        direct = make_agent(str(FIXTURE / "model.zip"), "spokelse", seed=0)
        prefixed = make_agent(f"ppo:{FIXTURE / 'model.zip'}", "spokelse", seed=0)
    assert type(direct) is type(prefixed) and type(direct).__name__ == "PPOPolicy"
    obs = observations("spokelse", 20)
    assert [direct.act(o) for o in obs] == [prefixed.act(o) for o in obs]


def test_a_broken_zip_path_gives_the_loaders_errors(tmp_path):
    with pytest.raises(ValueError, match="no trained model at"):
        make_agent(str(tmp_path / "nothing.zip"), "spokelse")
    (tmp_path / "model.zip").write_bytes(b"PK\x03\x04 this is not a zip archive at all")
    with pytest.raises(ValueError, match="is not an SB3 model file"):
        make_agent(str(tmp_path / "model.zip"), "spokelse")


def test_an_npz_path_is_the_weights_loader(tmp_path):
    from kortmiljo.agents.pretrained import load_mlp_policy, save_weights

    g = load_game("sproyte")
    rng = np.random.default_rng(0)
    n_in = g.layout.size + g.deck.width
    hidden = (rng.normal(size=(n_in, 16)).astype(np.float32), np.zeros(16, np.float32))
    out = (rng.normal(size=(16, g.num_actions)).astype(np.float32), np.zeros(g.num_actions, np.float32))
    actor = [hidden, out]
    path = tmp_path / "w.npz"
    save_weights(path, g, actor)
    p = make_agent(str(path), g, seed=2)
    q = load_mlp_policy(path, g, seed=2)
    obs = observations("sproyte")
    assert type(p) is type(q) and [p.act(o) for o in obs] == [q.act(o) for o in obs]
    with pytest.raises(ValueError, match="no weights file at"):
        make_agent(str(tmp_path / "none.npz"), g)
    with pytest.raises(ValueError, match="holds weights for 'sproyte', not 'spokelse'"):
        make_agent(str(path), "spokelse")


@pytest.mark.parametrize("game", ["spokelse", "sproyte", "femkortskille"])
def test_pretrained_names(game):
    from kortmiljo.agents.pretrained import PRETRAINED_VERSIONS, newest_version, shipped

    names = available_agents(game)
    if game in shipped(1):
        versions = [v for v in PRETRAINED_VERSIONS if game in shipped(v)]
        assert {"pretrained", *(f"pretrained_v{v}" for v in versions)} <= set(names)
        assert newest_version(game) == max(versions)  # ``pretrained`` is the newest that ships for the game
        for name in ("pretrained", *(f"pretrained_v{v}" for v in versions)):
            p = make_agent(name, game, seed=0)
            assert p.name == (f"pretrained_v{max(versions)}" if name == "pretrained" else name)
            obs = observations(game, 5)
            assert all(o["action_mask"][p.act(o)] for o in obs)
    else:
        assert "pretrained" not in names and "pretrained_v1" not in names
        for name in ("pretrained", "pretrained_v1"):
            with pytest.raises(ValueError, match=f"no pretrained_v1 weights ship for {game}"):
                make_agent(name, game)
    with pytest.raises(ValueError, match="pretrained_v9 does not exist"):
        make_agent("pretrained_v9", game)


def test_an_unknown_spec_lists_the_names_and_the_kinds():
    with pytest.raises(ValueError) as err:
        make_agent("nobody", "spokelse")
    msg = str(err.value)
    assert msg.startswith("unknown agent 'nobody' for spokelse; available: random, ")
    assert msg.endswith("or a spec: ppo:PATH, rllib:PATH, PATH.zip, PATH.npz, module:attr, file.py:attr")
    with pytest.raises(ValueError, match="a policy object with act"):
        make_agent(42, "spokelse")


# ---- the command lines ------------------------------------------------------------------------------
def test_eval_runs_a_file_policy(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "my_file.py").write_text(POLICY_MODULE)
    status = cli.main(["eval", "spokelse", "--agents", "my_file.py:LowestLegal", "random", "--games", "4",
                       "--no-progress", "--out", "r.json"])  # fmt: skip
    out, err = capsys.readouterr()
    assert status == 0, err
    assert "my_file.py:LowestLegal" in out
    res = json.loads((tmp_path / "r.json").read_text())
    assert res["games"] == 4 and list(res["agents"]) == ["my_file.py:LowestLegal", "random"]


def test_eval_reports_a_plugin_error_in_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "my_file.py").write_text(POLICY_MODULE)
    assert cli.main(["eval", "spokelse", "--agents", "my_file.py:Nope", "--games", "2", "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("kortmiljo eval: agent 'my_file.py:Nope': my_file.py has no attribute")


@pytest.mark.parametrize("command", ["eval", "play"])
def test_help_lists_every_kind(command, capsys):
    assert cli.main([command, "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())  # argparse wraps lines
    for kind in AGENT_KINDS:
        assert kind in text, (command, kind)
    assert "random, heuristic[_vN], search[_v0], pretrained[_vN], ppo:PATH, rllib:PATH, PATH.zip, PATH.npz, " \
        "module:attr, file.py:attr" in text  # fmt: skip


# ---- docs/agents.md ---------------------------------------------------------------------------------
def doc_examples() -> list[str]:
    text = (ROOT / "docs" / "agents.md").read_text(encoding="utf-8")
    section = re.search(r"^## Your own policy\s*$(.*?)(?=^## |\Z)", text, re.M | re.S).group(1)
    return re.findall(r"```python\n(.*?)```", section, re.S)


def test_the_docs_examples_run(tmp_path, monkeypatch, capsys):
    examples = doc_examples()
    assert len(examples) == 2
    plain, subclass = examples
    assert len(plain.strip().splitlines()) <= 16  # a short file
    monkeypatch.chdir(tmp_path)
    for code in (plain, subclass):
        (tmp_path / "my_policy.py").write_text(code)
        sys.modules.pop(next((m for m in sys.modules if m.endswith("_my_policy")), ""), None)  # a fresh import
        p = make_agent("my_policy.py:MyPolicy", "sproyte", seed=1)
        obs = observations("sproyte")
        assert all(o["action_mask"][p.act(o)] for o in obs)
        res = T.run_tournament("sproyte", ["my_policy.py:MyPolicy", "heuristic"], 6, progress=False)
        assert res["games"] == 6 and list(res["agents"]) == ["my_policy.py:MyPolicy", "heuristic"]
        again = T.run_tournament("sproyte", ["my_policy.py:MyPolicy", "heuristic"], 6, progress=False)
        assert {k: v for k, v in again.items() if k != "seconds"} == {k: v for k, v in res.items() if k != "seconds"}
    status = cli.main(["eval", "sproyte", "--agents", "my_policy.py:MyPolicy", "heuristic", "--games", "6",
                       "--no-progress"])  # fmt: skip
    assert status == 0, capsys.readouterr().err
