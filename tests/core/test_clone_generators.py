"""What an engine copy does with the random generator (issue #51: the copies made for search and
oracle rollouts spent about half their time copying a generator that was then overwritten).

* ``clone()`` stays an exact copy: its own generator, in the same state, so the same later deals;
* ``clone(rng=None)`` copies no generator and the copy has none; ``clone(rng=g)`` takes ``g`` as it is;
* ``resample`` copies no generator: the copy's later deals come from a
  :class:`~kortmiljo.core.engine.LazyGenerator` seeded from the resample's ``rng`` (the seed the
  eager ``default_rng`` took before), built only if a deal draws from it;
* neither advances the live generator;
* a ``LazyGenerator`` draws exactly what ``default_rng(seed)`` draws, copies and pickles with or
  without its generator built.
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from kortmiljo import load_game
from kortmiljo.core.engine import LazyGenerator

GAMES = [("sproyte", {}), ("femkortskille", {}), ("spokelse", {}), ("spokelse", {"match_to": 30})]


class CountingGenerator:
    """A generator that counts the copies made of it (``copy.deepcopy``, as ``clone`` copies)."""

    copies = 0

    def __init__(self, seed: int):
        self.generator = np.random.default_rng(seed)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.generator, name)

    def __deepcopy__(self, memo):
        type(self).copies += 1
        new = CountingGenerator.__new__(CountingGenerator)
        new.generator = copy.deepcopy(self.generator, memo)
        return new


def mid_game(name: str, config: dict, steps: int = 9, seed: int = 0):
    """A state ``steps`` random moves into an episode that is not over yet (the first such seed from ``seed``)."""
    e = load_game(name, **config).new_state()
    for s in range(seed, seed + 100):
        rng = np.random.default_rng(s)
        e.new_episode(rng)
        for _ in range(steps):
            legal = e.legal_actions()
            if not legal:
                break
            e.step(legal[int(rng.integers(len(legal)))])
        if not (e.terminal or e.truncated):
            break
    e.rng = CountingGenerator(seed + 1)
    CountingGenerator.copies = 0
    return e


@pytest.mark.parametrize(("name", "config"), GAMES)
def test_clone_is_exact_by_default_and_copies_no_generator_when_told(name, config):
    e = mid_game(name, config)
    state = e.rng.bit_generator.state
    exact = e.clone()
    assert CountingGenerator.copies == 1 and exact.rng is not e.rng
    assert exact.rng.bit_generator.state == state  # the same later deals
    np.testing.assert_array_equal(exact.locations(), e.locations())

    bare = e.clone(rng=None)
    assert bare.rng is None and CountingGenerator.copies == 1
    np.testing.assert_array_equal(bare.locations(), e.locations())
    own = np.random.default_rng(7)
    given = e.clone(rng=own)
    lazy = e.clone(rng=LazyGenerator(5))
    assert given.rng is own and not lazy.rng.built and CountingGenerator.copies == 1
    assert e.rng.bit_generator.state == state  # the live stream is not advanced


@pytest.mark.parametrize(("name", "config"), GAMES)
def test_resample_copies_no_generator_and_seeds_a_lazy_one_as_the_eager_one_was(name, config):
    e = mid_game(name, config)
    state = e.rng.bit_generator.state
    seat = (e.current_player + 1) % e.num_players
    world = e.resample(seat, np.random.default_rng(11))
    assert CountingGenerator.copies == 0
    assert isinstance(world.rng, LazyGenerator) and not world.rng.built
    assert e.rng.bit_generator.state == state
    if name != "femkortskille":  # its seed is drawn after the redeal (the first draw elsewhere)
        assert world.rng.seed == int(np.random.default_rng(11).integers(2**63))
    again = e.resample(seat, np.random.default_rng(11))  # a function of rng: the same world, the same stream
    np.testing.assert_array_equal(again.locations(), world.locations())
    assert again.rng.seed == world.rng.seed
    np.testing.assert_array_equal(world.rng.permutation(40), np.random.default_rng(world.rng.seed).permutation(40))


def test_the_base_clone_takes_the_same_rng_argument():
    e = load_game("toy").new_state()  # the test-only toy game keeps Engine.clone (copy.deepcopy)
    e.new_episode(np.random.default_rng(0))
    e.rng = CountingGenerator(3)
    CountingGenerator.copies = 0
    assert e.clone().rng is not e.rng and CountingGenerator.copies == 1
    assert e.clone(rng=None).rng is None and CountingGenerator.copies == 1
    lazy = LazyGenerator(2)
    assert e.clone(rng=lazy).rng is lazy and CountingGenerator.copies == 1
    e.rng = None  # nothing to leave out: None stays None, other Nones are not the generator's
    assert e.clone(rng=lazy).rng is lazy
    with pytest.raises(ValueError, match="'copy', None or a generator"):
        e.clone(rng="share")


@pytest.mark.parametrize(("name", "config"), GAMES[:2])
def test_a_bad_rng_word_is_refused_by_the_games_clones(name, config):
    with pytest.raises(ValueError, match="'copy', None or a generator"):
        mid_game(name, config).clone(rng="fresh")


def test_a_lazy_generator_draws_as_default_rng_and_is_built_only_when_drawn_from():
    lazy = LazyGenerator(42)
    assert not lazy.built and "42" in repr(lazy)
    twin = copy.deepcopy(lazy)
    assert not twin.built and twin.seed == 42
    ref = np.random.default_rng(42)
    np.testing.assert_array_equal(lazy.permutation(52), ref.permutation(52))
    assert lazy.built and lazy.integers(2**63) == ref.integers(2**63)
    later = copy.deepcopy(lazy)  # a built one copies its generator's state, apart
    assert later.built and later.random() == lazy.random()
    lazy.random()
    for back in (pickle.loads(pickle.dumps(lazy)), pickle.loads(pickle.dumps(LazyGenerator(9)))):
        assert back.generator.bit_generator.state == (
            lazy.generator.bit_generator.state if back.seed == 42 else np.random.default_rng(9).bit_generator.state
        )
    with pytest.raises(AttributeError):
        lazy.no_such_method  # noqa: B018


def test_an_engine_with_a_lazy_generator_pickles_and_copies_it_unbuilt():
    e = mid_game("sproyte", {})
    w = e.clone(rng=LazyGenerator(8))
    for back in (pickle.loads(pickle.dumps(w)), copy.deepcopy(w), w.clone()):
        assert isinstance(back.rng, LazyGenerator) and not back.rng.built and back.rng.seed == 8
        np.testing.assert_array_equal(back.locations(), w.locations())
