"""Shared helpers for the agent tests: configurations per game and engine-level play."""

from __future__ import annotations

import numpy as np

from kortmiljo import game_names, load_game

SHORT_DECK = [r + "S" for r in "A23456789TJQK"] + ["AH", "2H", "8H", "KH", "QH"]

# a few configurations per game: the default first, then variants that change what agents see
CONFIGS: dict[str, list[dict]] = {
    "spokelse": [
        {},
        {"num_players": 3, "jack_points": 11},
        {"num_players": 5, "reward": "points"},
        {"match_to": 21},
        {"num_slots": 2, "max_turns": 12, "cards": SHORT_DECK},
    ],
    "sproyte": [
        {},
        {"variant": "variasjon"},
        {"variant": "tretten", "reward": "raw"},
        {"match_to": 4},
    ],
    "femkortskille": [
        {},
        {"num_players": 3, "skituppslag": True, "knock_stake": 1},
        {"num_players": 6, "auktion": True},
        {"poker": True},
        {"num_players": 8, "payments_stay": True},
    ],
}

GAMES = [g for g in CONFIGS if g in game_names()]
GAME_CONFIGS = [(g, c) for g in GAMES for c in CONFIGS[g]]


def config_id(item) -> str:
    if isinstance(item, dict):
        return ",".join(f"{k}={'short' if k == 'cards' else v}" for k, v in item.items()) or "default"
    return str(item)


def play_engine(game: str, config: dict, policies, seed: int, deck=None, dealer=None, check_legal=True):
    """Play one episode on the engine, seat i by ``policies[i % len]``; return per-seat rewards."""
    e = load_game(game, **config).new_state()
    e.new_episode(np.random.default_rng(seed), deck, dealer)
    n = e.num_players
    total = np.zeros(n)
    steps = 0
    while not (e.terminal or e.truncated):
        s = e.current_player
        obs = e.observation(s)
        p = policies[s % len(policies)]
        a = p.act(obs, e if p.needs_engine else None)
        if check_legal:
            assert obs["action_mask"][a] == 1, f"{p.name} chose illegal {e.action_names[a]} in {game} {config}"
        e.step(a)
        total += e.rewards
        steps += 1
        assert steps < 100_000, "episode did not end"
    return total
