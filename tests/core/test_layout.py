"""Observation splitting by name: ``game.layout.split(vector)`` and ``engine.decode(vector)`` work for every
registered game and configuration, agree with the layout tables, and give the slices the encoder wrote.

The values are checked against what the engine state says, computed here without the layout: the
seat's own hand (Sprøyte, Femkortskille) and own slots (Spøkelse), from the cards' codes.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from kortmiljo.core.cards import KILLE_RANKS, RANKS, SUITS
from kortmiljo.core.registry import game_def, games, load_game

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = [(name, dict(cfg)) for name, d in games().items() for cfg in d.examples]
IDS = [f"{name}-{i}" for i, (name, _) in enumerate(CONFIGS)]
ROW = re.compile(r"^\| (\d+) \| (\d+) \| `(\w+)` \|", re.M)


def table_rows(table: str) -> list[tuple[str, int, int]]:
    """(name, offset, length) of every row of a Markdown layout table."""
    return [(m.group(3), int(m.group(1)), int(m.group(2))) for m in ROW.finditer(table)]


def observations(game, episodes: int = 2, seed: int = 0):
    """(engine, seat, observation vector) for every seat at every step of random legal play."""
    e = game.new_state()
    rng = np.random.default_rng(seed)
    for _ in range(episodes):
        e.new_episode(rng)
        while True:
            for seat in range(e.num_players):
                yield e, seat, e.observe(seat)
            if e.terminal or e.truncated:
                break
            e.step(int(rng.choice(np.flatnonzero(e.legal_mask()))))


def french_index(code: str) -> int:
    """A French card's position in card vectors, from its code: 13·suit + rank (``8S`` → 7)."""
    return 13 * SUITS.index(code[1]) + RANKS.index(code[0])


@pytest.mark.parametrize(("name", "config"), CONFIGS, ids=IDS)
def test_the_segments_tile_the_vector_in_the_tables_order(name, config):
    game = load_game(name, **config)
    e = game.new_state()
    e.new_episode(np.random.default_rng(1))
    vector = e.observe(0)
    parts = game.layout.split(vector)
    rows = table_rows(game.layout.table())
    assert [r[0] for r in rows] == list(parts), "names and order as in the layout table"
    assert [len(p) for p in parts.values()] == [r[2] for r in rows]
    assert sum(len(p) for p in parts.values()) == len(vector) == game.layout.size
    offsets = np.cumsum([0] + [len(p) for p in parts.values()])[:-1].tolist()
    assert offsets == [r[1] for r in rows], "each segment starts where the one before ends"
    assert np.array_equal(np.concatenate(list(parts.values())), vector)
    decoded = e.decode(vector)
    assert list(decoded) == list(parts) and all(np.array_equal(decoded[k], parts[k]) for k in parts)


@pytest.mark.parametrize("name", sorted(games()))
def test_the_docs_pages_table_is_the_default_configurations_split(name):
    d = game_def(name)
    text = (ROOT / d.docs).read_text(encoding="utf-8")
    table = re.search(r"<!-- BEGIN GENERATED: layout -->\n(.*?)<!-- END GENERATED: layout -->", text, re.S)
    game = load_game(name)
    parts = game.layout.split(np.zeros(game.layout.size, dtype=np.float32))
    assert [(k, len(v)) for k, v in parts.items()] == [(r[0], r[2]) for r in table_rows(table.group(1))]


def sproyte_hand(e, seat: int) -> np.ndarray:
    want = np.zeros(52, dtype=np.float32)
    want[[french_index(e.deck.code(c)) for c in e.hands[seat]]] = 1.0
    return want


def femkortskille_hand(e, seat: int) -> np.ndarray:
    counts = Counter(KILLE_RANKS.index(e.deck.code(c)) for c in e.hands[seat])
    return np.array([counts[r] for r in range(len(KILLE_RANKS))], dtype=np.float32)


def spokelse_own_slots(e, seat: int) -> np.ndarray:
    """Four 53-wide one-hots: the card where the seat knows its slot (or the round is over), else 52 =
    not known; slots the configuration does not deal stay all 0."""
    want = np.zeros((4, 53), dtype=np.float32)
    over = e.terminal or e.truncated
    for i, card in enumerate(e.slots[seat]):
        want[i, french_index(e.deck.code(card)) if e.owner_known[seat][i] or over else 52] = 1.0
    return want.ravel()


OWN = {"sproyte": ("hand", sproyte_hand), "femkortskille": ("hand", femkortskille_hand),
       "spokelse": ("own_slots", spokelse_own_slots)}  # fmt: skip


@pytest.mark.parametrize(("name", "config"), [c for c in CONFIGS if c[0] in OWN], ids=[
    i for i, c in zip(IDS, CONFIGS, strict=True) if c[0] in OWN])  # fmt: skip
def test_the_own_cards_segment_is_the_seats_cards_in_the_engine_state(name, config):
    game = load_game(name, **config)
    segment, expected = OWN[name]
    checked = 0
    for e, seat, vector in observations(game):
        part = game.layout.split(vector)[segment]
        np.testing.assert_array_equal(part, expected(e, seat), err_msg=f"seat {seat}, step {len(e.history)}")
        checked += 1
    assert checked > 20


def test_a_batch_is_cut_along_its_last_axis_into_views():
    game = load_game("femkortskille", num_players=3)
    e = game.new_state()
    e.new_episode(np.random.default_rng(2))
    batch = np.stack([e.observe(s) for s in range(3)])
    parts = game.layout.split(batch)
    for s in range(3):
        single = game.layout.split(batch[s])
        assert all(np.array_equal(parts[k][s], single[k]) for k in parts)
    parts["pot"][...] = 7.0  # a view: writing through it writes the batch
    assert (batch[:, game.layout["pot"]] == 7.0).all()


@pytest.mark.parametrize("bad", [np.zeros(10), np.zeros((2, 10)), 3.0, []])
def test_a_vector_of_another_length_is_refused_with_the_length_needed(bad):
    game = load_game("sproyte")
    with pytest.raises(ValueError, match=f"has {game.layout.size} entries, got"):
        game.layout.split(bad)


def test_the_training_views_longer_vector_is_refused_with_how_to_cut_it():
    from kortmiljo.env.training import SingleSeatEnv

    env = SingleSeatEnv("spokelse", seed=0)
    obs, _ = env.reset(seed=0)
    with pytest.raises(ValueError, match=r"cut it with vector\[\.\.\., :731\]"):
        env.engine.decode(obs)
    assert list(env.engine.decode(obs[: env.game.layout.size])) == [s.name for s in env.game.layout.segments]
