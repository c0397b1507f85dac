"""Spøkelse's training-view extras: the shaping potential and the critic's hidden-state features.

Each comes scalar and batched, equal entry for entry (``tests/conformance`` and the vector-env
tests check it lane for lane).
"""

from __future__ import annotations

import numpy as np


def potential(state, seat: int, obs: np.ndarray) -> float:
    """Expected score margin from ``seat``'s observation, in card points / 13.

    Each seat's expected sum: known slots at their points (own slots as the seat knows
    them, opponents' as publicly known), every other slot and the ghost at the mean
    points of the cards the seat cannot locate. Φ = (mean opponent sum − own sum) / 13.
    Only the configuration (layout, players) is read off ``state``.
    """
    L = state.layout
    n = state.num_players
    u = float(obs[L["unseen_mean_points"]][0])  # already /13
    own_p = obs[L["own_slot_points"]]
    own_k = obs[L["own_slot_known"]]
    own = float(own_p.sum() + (len(own_p) - own_k.sum()) * u + u)
    opp_p = obs[L["opp_slot_points"]]
    opp_k = obs[L["opp_slot_known"]]
    opp = float(opp_p.sum() + (len(opp_p) - opp_k.sum()) * u + (n - 1) * u) / (n - 1)
    return opp - own


def potential_batch(game, seats: np.ndarray, obs: np.ndarray) -> np.ndarray:
    """:func:`potential` for a batch of learner observations, with the same float32
    arithmetic, so each entry equals the scalar value exactly."""
    L = game.layout
    n = game.num_players
    u = obs[:, L["unseen_mean_points"]][:, 0]
    own_p = obs[:, L["own_slot_points"]]
    own_k = obs[:, L["own_slot_known"]]
    own = own_p.sum(axis=1) + (np.float32(4) - own_k.sum(axis=1)) * u + u
    opp_p = obs[:, L["opp_slot_points"]]
    opp_k = obs[:, L["opp_slot_known"]]
    rest = ((n - 1) * u.astype(np.float64)).astype(np.float32)
    opp = (opp_p.sum(axis=1) + (np.float32(4 * (n - 1)) - opp_k.sum(axis=1)) * u + rest).astype(np.float64) / (n - 1)
    return opp - own.astype(np.float64)


def privileged(state, seat: int) -> np.ndarray:
    """Hidden Spøkelse state from ``seat``'s side: per relative seat the ghost's and every slot's
    points /13, then the stock in draw order (points /13) and a mask of the stock entries."""
    n, k, S = state.num_players, state.num_slots, state.stock_start
    pts = state.points
    out = np.zeros(n * (k + 1) + 2 * S, dtype=np.float32)
    for rel in range(n):
        s = (seat + rel) % n
        b = rel * (k + 1)
        out[b] = pts[state.ghost[s]] / 13.0
        out[b + 1 : b + 1 + k] = pts[state.slots[s]] / 13.0
    stock = state.stock[::-1]  # top first
    b = n * (k + 1)
    out[b : b + len(stock)] = pts[stock] / 13.0
    out[b + S : b + S + len(stock)] = 1.0
    return out


def privileged_size(game) -> int:
    """Length of :func:`privileged`: ghost and slots per seat, then the stock's points and mask."""
    return game.num_players * (game.num_slots + 1) + 2 * game.stock_start


def privileged_batch(engine, seats: np.ndarray, lanes: np.ndarray) -> np.ndarray:
    """:func:`privileged` lane-wise, read off the batched engine that owns the hidden arrays."""
    return engine.privileged_features(seats, lanes)
