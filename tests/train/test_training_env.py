"""The single-seat training view: env checker, a hand-traced Spøkelse game, seat rotation,
rewards that arrive on opponents' moves, and episodes that end before the learner acts."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from kortmiljo.agents.base import Policy, RandomPolicy

from kortmiljo import game_names, load_game
from kortmiljo.core.cards import FRENCH, FRENCH_CODES
from kortmiljo.core.engine import Engine
from kortmiljo.core.game import Facts, Game, GameDef
from kortmiljo.core.layout import Layout
from kortmiljo.core.options import Option, int_in
from kortmiljo.env.training import SingleSeatEnv

DRAW, TAKE, DISCARD = 0, 1, 6


class Scripted(Policy):
    """Plays the first action of ``prefer`` that is legal."""

    name = "scripted"

    def __init__(self, game: Game, prefer: list[int]):
        super().__init__(game, 0)
        self.prefer = prefer

    def act(self, obs, engine=None) -> int:
        legal = set(np.flatnonzero(obs["action_mask"]).tolist())
        return next(a for a in self.prefer if a in legal)


@pytest.mark.parametrize("game", game_names())
def test_env_checker(game):
    env = SingleSeatEnv(game, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the unbounded Box warning: observations are unbounded by design
        check_env(env, skip_render_check=True)


@pytest.mark.parametrize("game", game_names())
def test_random_episodes_masks_and_returns(game):
    env = SingleSeatEnv(game, opponents=[RandomPolicy(load_game(game), seed=1)], seed=3)
    rng = np.random.default_rng(0)
    for _ in range(5):
        obs, info = env.reset()
        assert obs.shape == env.observation_space.shape and obs.dtype == np.float32
        seat, done, total = info["seat"], False, 0.0
        while not done:
            e = env.engine
            assert e.current_player == seat  # the learner is always the seat on move
            mask = env.action_masks()
            np.testing.assert_array_equal(mask, e.legal_mask().astype(bool))
            np.testing.assert_array_equal(obs[: e.layout.size], e.observe(seat))
            np.testing.assert_array_equal(obs[e.layout.size :], e.unseen(seat))
            obs, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            total += r
            done = term or trunc
        assert info["game_return"] == pytest.approx(total)
        assert info["seat"] == seat


def _stacked_deck() -> list[str]:
    # Seat 1 (the learner) gets the low cards, seat 0 the high ones. Deal with dealer 1:
    # indices 0,2,4,6,8 → seat 0 (ghost first), 1,3,5,7,9 → seat 1; 10 face up; 11.. stock.
    high = ["KS", "KH", "KD", "KC", "QS"]
    low = ["8S", "8H", "8D", "8C", "AS"]
    deal = [c for pair in zip(high, low, strict=True) for c in pair]
    rest = [c for c in FRENCH_CODES if c not in deal]
    return deal + rest


def test_hand_traced_game_terminal_reward_on_opponents_move():
    """Both seats always draw and discard: 41 turns, seat 0 (forhånd) draws the last card, so the
    round ends on the opponent's move and the learner (seat 1, the low hand) gets +1 there."""
    game = load_game("spokelse")
    env = SingleSeatEnv(game, opponents=[Scripted(game, [DRAW, DISCARD])], seat=1, include_unseen=False)
    obs, info = env.reset(seed=0, options={"deck": _stacked_deck(), "dealer": 1})
    assert info["seat"] == 1
    # seat 0 moved first (draw, discard) inside reset: two cards are on the pile now
    assert [env.engine.action_names[a] for _, a in env.engine.history] == ["draw", "discard"]
    assert env.engine.current_player == 1
    np.testing.assert_array_equal(obs, env.engine.observe(1))
    rewards, masks = [], []
    done, steps = False, 0
    while not done:
        masks.append(env.action_masks().astype(int).tolist())
        action = DRAW if steps % 2 == 0 else DISCARD
        obs, r, term, trunc, info = env.step(action)
        rewards.append(r)
        done = term or trunc
        steps += 1
    assert steps == 40  # 20 turns of the learner, 2 decisions each
    assert masks[0] == [1, 1, 0, 0, 0, 0, 0]  # draw or take
    assert masks[1] == [0, 0, 1, 1, 1, 1, 1]  # a stock card: swap or discard
    assert rewards[:-1] == [0.0] * 39 and rewards[-1] == 1.0
    assert term and not trunc
    seats = [s for s, _ in env.engine.history]
    assert seats[-2:] == [0, 0]  # the last two engine steps were the opponent's
    assert info["round_points"] == 0 + 0 + 0 + 0 + 1  # four eights and the ace of spades
    assert info["game_return"] == 1.0


def test_learner_ending_the_round_itself():
    game = load_game("spokelse")
    env = SingleSeatEnv(game, opponents=[Scripted(game, [DRAW, DISCARD])], seat=0, include_unseen=False)
    env.reset(seed=0, options={"deck": _stacked_deck(), "dealer": 1})
    total, steps, done = 0.0, 0, False
    while not done:
        _, r, term, trunc, info = env.step(DRAW if steps % 2 == 0 else DISCARD)
        total += r
        steps += 1
        done = term or trunc
    assert steps == 42  # forhånd draws 21 cards, the last one ends the round
    assert total == -1.0 and info["round_points"] == 13 * 4 + 12


def test_seat_drawn_per_episode_and_reproducible():
    def seats(seed):
        env = SingleSeatEnv("spokelse", seed=seed)
        env.reset(seed=seed)
        out = []
        for _ in range(40):
            _, info = env.reset()
            out.append(info["seat"])
        return out

    a = seats(5)
    assert set(a) == {0, 1}
    assert a == seats(5)
    env = SingleSeatEnv("spokelse")
    o1, _ = env.reset(seed=11)
    o2, _ = env.reset(seed=11)
    np.testing.assert_array_equal(o1, o2)


# ---- a toy game in which the opponent can end the episode before the learner decides ----------


class ToyGame(Game):
    """Two seats; the seat left of the dealer moves first.

    First mover: ``end`` finishes at once (it +1, the other −1), or ``pass`` pays the other
    seat 0.5 (rewards −0.5/+0.5 on that move) and hands over. Second mover: ``end``
    (it +0.25, the first −0.25).
    """

    def setup(self):
        self.deck = FRENCH
        self.action_names = ("end", "pass")
        self.layout = Layout()
        self.layout.add("to_move", 2, "relative seat on move")

    def compute_facts(self):
        return Facts(utility_bounds=(-1.0, 1.0), zero_sum=True, max_decisions=1, multi_deal=False, cards_per_deal=0)


class ToyEngine(Engine):
    """The state of a :class:`ToyGame`."""

    def _start(self, deck, dealer):
        self.first = (dealer + 1) % 2
        self.current_player = self.first
        self.moves = 0

    def legal_actions(self):
        if self.terminal:
            return []
        return [0, 1] if self.moves == 0 else [0]

    def _apply(self, action):
        s = self.current_player
        r = [0.0, 0.0]
        if self.moves == 0 and action == 1:
            r[s], r[1 - s] = -0.5, 0.5
            self.current_player = 1 - s
        elif self.moves == 0:
            r[s], r[1 - s] = 1.0, -1.0
            self.terminal = True
        else:
            r[s], r[1 - s] = 0.25, -0.25
            self.terminal = True
        self.rewards = r
        self.moves += 1

    def observe(self, seat):
        o = np.zeros(2, dtype=np.float32)
        if not self.terminal:
            o[(self.current_player - seat) % 2] = 1
        return o

    def unseen(self, seat):
        return np.zeros(52, dtype=np.int8)

    def locations(self):
        return np.zeros(52, dtype=np.int16)

    def info(self, seat):
        return {}

    def render(self, viewer=None):
        return "toy"

    def resample(self, seat, rng):
        return self.clone()


# a descriptor of its own, not registered: the game names of other tests stay the package's
TOY = GameDef(name="toy", display_name="Toy", version=0, options={"num_players": Option(2, int_in(2, 2), "2")},
              game=ToyGame, engine=ToyEngine, players=(2, 2))  # fmt: skip


def test_episode_ending_before_the_learner_acts_is_redealt():
    toy = TOY.configure()
    env = SingleSeatEnv(toy, opponents=[Scripted(toy, [0])], seat=1, include_unseen=False, seed=0)
    skipped_total = 0
    for _ in range(30):
        obs, info = env.reset()
        assert env.engine.current_player == 1 and not env.engine.terminal
        skipped_total += info["skipped_episodes"]
        assert info["skipped_reward"] == -1.0 * info["skipped_episodes"]  # dropped, not carried
        _, r, term, _, _ = env.step(1)  # the learner moves first here: pass pays 0.5 to seat 0
        assert r == -0.5 + -0.25 and term  # its pass, then the opponent's end on its move
    assert skipped_total > 0 and env.skipped_episodes == skipped_total


def test_reward_before_the_first_decision_goes_to_the_first_step():
    toy = TOY.configure()
    env = SingleSeatEnv(toy, opponents=[Scripted(toy, [1, 0])], seat=1, include_unseen=False, seed=1)
    seen_second = False
    for _ in range(30):
        obs, info = env.reset()
        assert info["skipped_episodes"] == 0
        moved_first = len(env.engine.history) == 0
        _, r, term, _, info = env.step(0)
        assert term
        if moved_first:
            assert r == 1.0  # it ended the game itself
        else:
            seen_second = True
            assert r == 0.5 + 0.25  # the opponent's pass paid it 0.5 before its decision
            assert info["game_return"] == 0.75
    assert seen_second


def test_potential_shaping_telescopes():
    """With γ = 1 the shaped return is the game return minus Φ at the first decision."""
    game = load_game("spokelse")
    env = SingleSeatEnv(game, opponents=[RandomPolicy(game, seed=2)], shaping="auto", gamma=1.0, seed=4)
    rng = np.random.default_rng(1)
    for _ in range(3):
        obs, info = env.reset()
        phi0 = game.features.potential(env.engine, info["seat"], obs)
        shaped, done = 0.0, False
        while not done:
            obs, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            shaped += r
            done = term or trunc
        assert shaped == pytest.approx(info["game_return"] - phi0, abs=1e-5)


def test_illegal_action_penalty_or_raise():
    env = SingleSeatEnv("spokelse", seed=0)
    env.reset(seed=0)
    bad = int(np.flatnonzero(~env.action_masks())[0])
    before = env.engine.history[:]
    obs, r, term, trunc, info = env.step(bad)  # default: the game is abandoned with a penalty
    assert (r, term, trunc) == (-1.0, True, False) and "legal actions" in info["illegal_action"]
    assert env.engine.history == before  # the engine refused it before any change
    assert env.action_space.sample() in range(7)
    strict = SingleSeatEnv("spokelse", seed=0, illegal_action="raise")
    strict.reset(seed=0)
    with pytest.raises(ValueError, match="legal"):
        strict.step(bad)
    for _ in range(50):  # action_space.sample() draws legal actions of the current state
        a = strict.action_space.sample()
        assert strict.action_masks()[a]
        _, _, term, trunc, _ = strict.step(a)
        if term or trunc:
            strict.reset()


def test_bad_arguments():
    with pytest.raises(ValueError):
        SingleSeatEnv("spokelse", seat=2)
    with pytest.raises(ValueError):
        SingleSeatEnv("spokelse", shaping="nonsense")
    with pytest.raises(ValueError):
        SingleSeatEnv("spokelse", illegal_action="ignore")
    with pytest.raises(ValueError, match="jack_points"):
        SingleSeatEnv("spokelse", {"jack_points": 3})
