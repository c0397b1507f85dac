"""The conformance suite's building blocks, for any game through its PettingZoo env.

* :func:`snapshot` / :func:`assert_unchanged`: everything a rejected input (or a pure read such
  as ``observe``) must leave as it was — every seat's observation, mask and ``unseen``, the
  card locations, the history, the seat on move, the engine's and the env's random streams,
  the env's reward and termination books, and every attribute of the engine's own (pickled).
* :func:`check_views`: what every seat's observation must look like at any moment.
* :func:`bad_actions`, :func:`bad_resets`: inputs every game must refuse with a ``ValueError``.
* :class:`Episode`: the books of one episode, checked at its end against the game's ``facts``.

No pytest here: ``benchmarks/soak.py`` uses this module through :mod:`.fuzz`.
"""

from __future__ import annotations

import copy
import pickle
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kortmiljo.core.cards import FRENCH_CODES, KILLE_RANKS
from kortmiljo.core.errors import IllegalActionError

TOL = 1e-9


# ---- snapshots --------------------------------------------------------------------------------
def _rng_state(rng: Any) -> Any:
    return None if rng is None else rng.bit_generator.state  # a fresh dict on every call


def snapshot(env) -> dict[str, Any]:
    """Everything an input that is refused must not change (``env`` is ``env()`` or ``raw_env()``)."""
    raw = env.unwrapped
    e = raw.engine
    n = e.num_players
    views = [e.observation(s) for s in range(n)]
    return {
        "observation": np.stack([v["observation"] for v in views]),
        "action_mask": np.stack([v["action_mask"] for v in views]),
        "unseen": np.stack([v["unseen"] for v in views]),
        "legal_actions": tuple(e.legal_actions()),
        "locations": e.locations().copy(),
        "history": tuple(e.history),
        "current_player": e.current_player,
        "terminal": (e.terminal, e.truncated),
        "engine_rewards": tuple(e.rewards),
        "engine_rng": _rng_state(getattr(e, "rng", None)),
        "env_rng": _rng_state(raw._rng),
        "agents": tuple(raw.agents),
        "agent_selection": raw.agent_selection,
        "books": tuple(dict(b) for b in (raw.rewards, raw._cumulative_rewards, raw.terminations, raw.truncations)),
        "infos": {agent: copy.copy(info) for agent, info in raw.infos.items()},
        "engine_state": engine_state(e),
    }


def engine_state(e) -> dict[str, bytes]:
    """The engine's own state, each attribute pickled alone (two attributes naming one list is not
    state): every attribute but the configuration it copied from its game (``Engine.__init__``),
    which is fixed and would make every snapshot slow. The legal-action caches an engine may keep
    are filled first, so that a cache is never taken for a change."""
    e.legal_mask()
    fixed = vars(e.game)
    return {k: pickle.dumps(v) for k, v in vars(e).items() if k not in fixed and k != "game"}


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b)
    return type(a) is type(b) and a == b


def assert_unchanged(before: dict[str, Any], after: dict[str, Any], what: str) -> None:
    """Fail naming every part of the state that ``what`` changed."""
    changed = [k for k in before if not _same(before[k], after[k])]
    if "engine_state" in changed:  # name the engine's attributes
        a, b = before["engine_state"], after["engine_state"]
        attrs = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
        changed[changed.index("engine_state")] = f"engine attributes {attrs}"
    if changed:
        raise AssertionError(f"{what} changed the state: {', '.join(changed)}")


# ---- views ---------------------------------------------------------------------------------------
def in_deck_mask(game) -> np.ndarray:
    mask = np.zeros(game.deck.width, dtype=bool)
    mask[list(game.deck.cards)] = True
    return mask


def check_views(env) -> None:
    """Every seat's observation dict, the mask, ``unseen``, the locations and ``state()`` are well formed.

    The mask of the seat on move is exactly ``legal_actions()`` (and ``is_legal`` agrees with it);
    every other seat's mask, and every mask once the game is over, is all zeros; ``unseen`` is
    0/1 inside the deck and 0 outside it; the observation is finite float32 of the layout's size.
    """
    raw = env.unwrapped
    e, game = raw.engine, raw.game
    A, width, size = game.num_actions, game.deck.width, game.layout.size
    live = not (e.terminal or e.truncated)
    outside = ~in_deck_mask(game)
    legal = list(e.legal_actions())
    if live:
        assert legal, "a live game has no legal action"
        assert len(set(legal)) == len(legal), f"legal_actions() repeats an action: {legal}"
        assert all(0 <= a < A for a in legal), f"legal_actions() out of range: {legal}"
        assert raw.agent_selection == f"player_{e.current_player}", (raw.agent_selection, e.current_player)
        legal_set = set(legal)
        wrong = [a for a in range(A) if e.is_legal(a) != (a in legal_set)]
        assert not wrong, f"is_legal disagrees with legal_actions() on {wrong}"
    else:
        assert legal == [], f"a finished game still has legal actions {legal}"
    for seat, agent in enumerate(raw.possible_agents):
        obs = env.observe(agent)
        space = raw.observation_space(agent).spaces
        assert set(obs) == set(space) == {"observation", "action_mask", "unseen"}, (sorted(obs), sorted(space))
        for key, part in space.items():  # what Dict.contains checks, less its cost
            assert obs[key].dtype == part.dtype and obs[key].shape == part.shape, (agent, key, obs[key].dtype)
        o, m, u = obs["observation"], obs["action_mask"], obs["unseen"]
        assert o.shape == (size,) and m.shape == (A,) and u.shape == (width,), (o.shape, m.shape, u.shape)
        assert o.dtype == np.float32 and m.dtype == np.int8 and u.dtype == np.int8, (o.dtype, m.dtype, u.dtype)
        assert np.isfinite(o).all(), f"{agent}: non-finite observation entries at {np.flatnonzero(~np.isfinite(o))}"
        assert ((m == 0) | (m == 1)).all(), f"{agent}: the mask is not 0/1"
        assert ((u == 0) | (u == 1)).all(), f"{agent}: unseen is not 0/1"
        assert not u[outside].any(), f"{agent}: unseen marks cards outside the deck: {np.flatnonzero(u * outside)}"
        if live and seat == e.current_player:
            assert np.flatnonzero(m).tolist() == sorted(legal), (agent, np.flatnonzero(m).tolist(), legal)
        else:
            assert not m.any(), f"{agent} is not on move but its mask allows {np.flatnonzero(m).tolist()}"
    loc = e.locations()
    assert loc.shape == (width,) and np.issubdtype(loc.dtype, np.integer), (loc.shape, loc.dtype)
    state = raw.state()
    assert state.shape == raw.state_space.shape and state.dtype == np.float32, (state.shape, state.dtype)


# ---- inputs every game refuses -----------------------------------------------------------------------
def bad_actions(engine, rng: np.random.Generator, indices: int = 4) -> list[tuple[str, Any]]:
    """(label, action) pairs that ``step`` must refuse with ``IllegalActionError`` right now: up to
    ``indices`` illegal indices (the lowest and the highest among them), then every other kind."""
    A = len(engine.action_names)
    legal = sorted(engine.legal_actions())
    some = legal[0] if legal else 0
    illegal = [a for a in range(A) if a not in set(legal)]
    if len(illegal) > indices:
        middle = rng.choice(illegal[1:-1], size=max(indices - 2, 0), replace=False).tolist()
        illegal = sorted({illegal[0], illegal[-1], *middle})
    out: list[tuple[str, Any]] = [(f"illegal index {a}", a) for a in illegal]
    if illegal:
        out.append(("illegal numpy index", np.int64(illegal[-1])))
    out += [
        ("index -1", -1),
        ("index past the end", A),
        ("huge index", 2**40),
        ("numpy -1", np.int32(-1)),
        ("float of a legal index", float(some)),
        ("numpy float of a legal index", np.float32(some)),
        ("fractional index", some + 0.5),
        ("nan", float("nan")),
        ("True", True),
        ("False", False),
        ("numpy bool", np.bool_(True)),
        ("None", None),
        ("string of a legal index", str(some)),
        ("action name", engine.action_names[some]),
        ("list", [some]),
        ("array", np.array([some])),
    ]
    return out


def _unknown_to(deck) -> list[str]:
    """Card codes this deck does not know (for a short or a kille deck, real cards of other decks)."""
    out = ["ZZ"]
    for code in (*FRENCH_CODES, *KILLE_RANKS):
        try:
            deck.parse(code)
        except ValueError:
            out.append(code)
            break
    return out


def good_deck(game, rng: np.random.Generator) -> list[str]:
    codes = [game.deck.code(c) for c in game.deck.cards]
    return [codes[i] for i in rng.permutation(len(codes))]


def bad_resets(game, rng: np.random.Generator) -> list[tuple[str, dict[str, Any]]]:
    """(label, ``reset`` keyword arguments) that ``reset`` must refuse with a ``ValueError``."""
    n = game.num_players
    deck = good_deck(game, rng)
    other = next(c for c in deck if c != deck[0])  # a kille rank has two copies: take another rank
    out: list[tuple[str, dict[str, Any]]] = []
    for code in _unknown_to(game.deck):
        out.append((f"deck with the unknown card {code!r}", {"options": {"deck": [code, *deck[1:]]}}))
    out += [
        ("deck with a duplicate", {"options": {"deck": [other, *deck[1:]]}}),
        ("deck missing a card", {"options": {"deck": deck[:-1]}}),
        ("deck with an extra card", {"options": {"deck": [*deck, deck[0]]}}),
        ("empty deck", {"options": {"deck": []}}),
        ("deck as a set", {"options": {"deck": set(deck)}}),
        ("deck as one string", {"options": {"deck": " ".join(deck)}}),
        ("deck of card ints", {"options": {"deck": list(game.deck.cards)}}),
        ("deck with None in it", {"options": {"deck": [None, *deck[1:]]}}),
        ("deck as a number", {"options": {"deck": 7}}),
        (f"dealer {n}", {"options": {"dealer": n}}),
        ("dealer -1", {"options": {"dealer": -1}}),
        ("dealer 1.0", {"options": {"dealer": 1.0}}),
        ("dealer '0'", {"options": {"dealer": "0"}}),
        ("dealer True", {"options": {"dealer": True}}),
        ("good deck, bad dealer", {"seed": 3, "options": {"deck": deck, "dealer": n + 1}}),
        ("good dealer, bad deck", {"seed": 3, "options": {"deck": deck[:-1], "dealer": 0}}),
        ("options 'x'", {"options": "x"}),
        ("options a list", {"options": ["deck"]}),
        ("options a number", {"options": 5}),
        ("seed 1.5", {"seed": 1.5}),
        ("seed -1", {"seed": -1}),
        ("seed '1'", {"seed": "1"}),
        ("seed True", {"seed": True}),
        ("seed a list", {"seed": [1]}),
        ("seed numpy float", {"seed": np.float64(2)}),
    ]
    return out


def good_reset(game, rng: np.random.Generator) -> tuple[str, dict[str, Any]]:
    """A random valid ``reset``: seeded or not, with or without a stacked deck and a dealer."""
    kind = int(rng.integers(6))
    seed = int(rng.integers(2**31))
    if kind == 0:
        return "unseeded reset", {}
    if kind == 1:
        return "seeded reset", {"seed": seed}
    if kind == 2:
        return "numpy seed", {"seed": np.int64(seed)}
    if kind == 3:
        return "stacked deck", {"seed": seed, "options": {"deck": good_deck(game, rng)}}
    if kind == 4:
        return "fixed dealer", {"options": {"dealer": int(rng.integers(game.num_players)), "other_key": 1}}
    deck = tuple(good_deck(game, rng))  # any sequence of codes is a deck
    return "deck and dealer", {"seed": seed, "options": {"deck": deck, "dealer": int(rng.integers(game.num_players))}}


def refuses(call, exc: type[BaseException] = ValueError) -> BaseException:
    """Run ``call``; return the exception it raised, fail if it raised none or another kind."""
    try:
        call()
    except exc as err:
        return err
    except Exception as err:  # noqa: BLE001 - reported as the defect it is
        raise AssertionError(f"raised {type(err).__name__} instead of {exc.__name__}: {err}") from err
    raise AssertionError(f"accepted (expected {exc.__name__})")


def check_bad_action(env, label: str, action: Any, before: dict[str, Any] | None = None) -> None:
    """``env.step(action)`` raises ``IllegalActionError`` and changes nothing (``before``: the
    snapshot to compare with, when the caller already took it)."""
    before = snapshot(env) if before is None else before
    try:
        err = refuses(lambda: env.step(action), IllegalActionError)
    except AssertionError as failure:
        raise AssertionError(f"step({label}: {action!r}) {failure}") from None
    e = env.unwrapped.engine
    assert f"player_{e.current_player}" in str(err), f"the refusal does not name the seat on move: {err}"
    if type(action) is int and 0 <= action < len(e.action_names):
        assert repr(e.action_names[action]) in str(err), f"the refusal does not name the action: {err}"
    assert_unchanged(before, snapshot(env), f"the refused step({label}: {action!r})")


# ---- episodes --------------------------------------------------------------------------------------
@dataclass
class Episode:
    """One episode's books: engine returns, rewards seen through ``last()``, decisions, final infos."""

    num_players: int
    returns: np.ndarray = field(init=False)
    seen: dict[str, float] = field(default_factory=dict)
    decisions: np.ndarray = field(init=False)
    infos: dict[str, dict] = field(default_factory=dict)

    def __post_init__(self):
        self.returns = np.zeros(self.num_players)
        self.decisions = np.zeros(self.num_players, dtype=np.int64)

    def before_step(self, agent: str, reward: float) -> None:
        """Call once per step of ``agent``, with the reward ``last()`` gave it just before."""
        self.seen[agent] = self.seen.get(agent, 0.0) + float(reward)

    def after_step(self, seat: int, engine) -> None:
        self.decisions[seat] += 1
        self.returns += np.asarray(engine.rewards, dtype=np.float64)

    def check_end(self, env) -> None:
        """At the end (after every agent's last, dead step): the game's facts hold for this episode."""
        raw = env.unwrapped
        e, facts = raw.engine, raw.game.facts
        assert e.terminal or e.truncated
        if facts.zero_sum:
            assert abs(self.returns.sum()) < 1e-6, f"zero-sum game, returns {self.returns.tolist()}"
        lo, hi = facts.utility_bounds
        # where episodes inherit state (a carried pot) the bounds speak of a session's first episode only
        assert facts.carry_over or ((self.returns >= lo - TOL).all() and (self.returns <= hi + TOL).all()), (
            f"returns {self.returns.tolist()} outside utility_bounds {facts.utility_bounds}"
        )
        if facts.max_decisions is not None:
            assert (self.decisions <= facts.max_decisions).all(), (
                f"decisions per seat {self.decisions.tolist()} > max_decisions {facts.max_decisions}"
            )
        agents = raw.possible_agents
        for seat, agent in enumerate(agents):
            assert agent in self.seen, f"{agent} never got its last turn"
            assert abs(self.seen[agent] - self.returns[seat]) < 1e-6, (
                f"{agent}: rewards through last() sum to {self.seen[agent]}, the engine paid {self.returns[seat]}"
            )
        assert set(self.infos) == set(agents), f"final infos only for {sorted(self.infos)}"
        keys = {tuple(sorted(info)) for info in self.infos.values()}
        assert len(keys) == 1 and keys != {()}, f"final infos differ in their keys or are empty: {keys}"
        for seat, agent in enumerate(agents):
            # the env's info is the engine's env_info: its result fields (info) and the stable extras
            assert self.infos[agent] == e.env_info(seat), (agent, self.infos[agent], e.env_info(seat))
            result = e.info(seat)
            assert {k: self.infos[agent].get(k) for k in result} == result, (agent, self.infos[agent], result)


def random_legal(rng: np.random.Generator, mask: np.ndarray) -> int:
    legal = np.flatnonzero(mask)
    return int(legal[rng.integers(len(legal))])


def play_episode(env, rng: np.random.Generator, on_step=None, **reset_kwargs) -> Episode:
    """One episode of random legal play through the AEC loop; ``on_step(env)`` before every turn."""
    env.reset(**reset_kwargs)
    raw = env.unwrapped
    ep = Episode(raw.engine.num_players)
    for agent in env.agent_iter():
        if on_step is not None:
            on_step(env)
        obs, reward, term, trunc, info = env.last()
        ep.before_step(agent, reward)
        if term or trunc:
            ep.infos[agent] = info
            env.step(None)
            continue
        seat = raw.engine.current_player
        env.step(random_legal(rng, obs["action_mask"]))
        ep.after_step(seat, raw.engine)
    return ep
