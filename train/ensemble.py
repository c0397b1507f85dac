"""Several students of one game as one network whose output is their weighted mean.

Why: students of different teachers are strong against different tables. In Sprøyte
``pretrained_v6`` learnt the action values of a table of v5s and beats search head to head, while
a student of a heuristic table (``kortmiljo.train.oracle_data --opponents heuristic``) gains more on the
heuristic than search does and is only at par with search (docs/research/strength.md, "A student of a heuristic
table in Sprøyte"). The mean of their outputs asks for both, at the cost of one forward pass of a
network as wide as the members together; measured there, it lands in between on both counts.

The mean is exact, not fitted: the first layers are placed side by side, the hidden layers on a
block diagonal (no member reads another's units), and the last layers are stacked, each scaled by
its member's weight, so the merged file gives ``sum(w_i * logits_i)`` to float32 rounding. The
members must be students of the same kind: the same game and configuration, depth, activation,
inputs and advisor. The critics are merged the same way where every member has one.

``python -m kortmiljo.train.ensemble GAME --members A.npz,B.npz [--weights 0.5,0.5] --out C.npz``; a member
may be a shipped agent's name (``pretrained_v6``, ``pretrained``).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence

import numpy as np
from kortmiljo.agents.pretrained import Layer, MLPPolicy, Weights, check_weights, save_weights
from kortmiljo.agents.registry import make_agent

from kortmiljo.core.game import Game
from kortmiljo.core.registry import load_game


def read_member(game: Game, spec: str) -> Weights:
    """A member's weights, from any agent spec that loads a network of this format (``PATH.npz``,
    ``pretrained``, ``pretrained_vN``), with the registry's checks; other agents are refused."""
    policy = make_agent(spec, game, seed=0)
    if not isinstance(policy, MLPPolicy):
        raise ValueError(f"{spec!r} is not a network in the weights format (give a PATH.npz or pretrained_vN)")
    return policy.weights


def merge_layers(members: Sequence[list[Layer]], weights: Sequence[float]) -> list[Layer]:
    """One MLP computing ``sum(w_i * f_i(x))`` of MLPs ``f_i`` with the same depth and input size."""
    depth = len(members[0])
    out: list[Layer] = []
    for k in range(depth):
        ws = [m[k][0] for m in members]
        bs = [m[k][1] for m in members]
        if k == depth - 1:  # the outputs: each member's last layer scaled by its weight, then summed
            scaled = [c * x for c, x in zip(weights, ws, strict=True)]
            w = np.concatenate(scaled, axis=0) if k > 0 else sum(scaled)  # no hidden layer: one sum
            b = sum(c * x for c, x in zip(weights, bs, strict=True))
        elif k == 0:  # every member reads the same inputs: their first layers side by side
            w, b = np.concatenate(ws, axis=1), np.concatenate(bs)
        else:  # hidden to hidden: a block diagonal, so no member reads another's units
            w = np.zeros((sum(x.shape[0] for x in ws), sum(x.shape[1] for x in ws)), dtype=np.float32)
            r = c = 0
            for x in ws:
                w[r : r + x.shape[0], c : c + x.shape[1]] = x
                r, c = r + x.shape[0], c + x.shape[1]
            b = np.concatenate(bs)
        out.append((np.asarray(w, dtype=np.float32), np.asarray(b, dtype=np.float32)))
    return out


def ensemble(game: Game, members: Sequence[Weights], weights: Sequence[float], names: Sequence[str]) -> dict:
    """The merged file's parts (``actor``, ``critic``, ``activation``, ``advisor``, ``source``); refuses
    members of different kinds or weights that are not positive and one per member."""
    if len(members) < 2:
        raise ValueError(f"an ensemble needs at least two members, got {len(members)}")
    if len(weights) != len(members) or not all(np.isfinite(w) and w > 0 for w in weights):
        raise ValueError(f"give one positive weight per member ({len(members)}), got {list(weights)}")
    first = members[0].meta
    kind = ("activation", "include_unseen", "actor_inputs", "inputs", "advisor")
    for name, m in zip(names, members, strict=True):
        check_weights(m, game, name)
        differ = [f"{k} {m.meta.get(k)!r} (not {first.get(k)!r})" for k in kind if m.meta.get(k) != first.get(k)]
        if len(m.actor) != len(members[0].actor):
            differ.append(f"{len(m.actor)} actor layers (not {len(members[0].actor)})")
        if differ:
            raise ValueError(f"{name} is a different kind of student from {names[0]}: {'; '.join(differ)}")
    total = float(sum(weights))
    weights = [float(w) / total for w in weights]
    actor = merge_layers([m.actor for m in members], weights)
    critics = [m.critic for m in members]
    same_critics = all(critics) and len({len(c) for c in critics}) == 1
    source = {
        "recipe": "the weighted mean of several students' outputs, merged into one network (train/ensemble.py)",
        "members": [
            {"file": n, "weight": round(w, 6), "recipe": m.meta["source"].get("recipe")}
            for n, w, m in zip(names, weights, members, strict=True)
        ],
        "hidden": [int(b.shape[0]) for _, b in actor[:-1]],
    }
    return {
        "actor": actor,
        "critic": merge_layers(critics, weights) if same_critics else [],
        "activation": first["activation"],
        "advisor": first.get("advisor"),
        "include_unseen": first["include_unseen"],
        "source": source,
    }


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m kortmiljo.train.ensemble", description=__doc__.split("\n")[0])
    p.add_argument("game")
    p.add_argument("--members", required=True, help="weights files or pretrained_vN names, comma-separated")
    p.add_argument("--weights", default=None, help="one positive weight per member, comma-separated (default equal)")
    p.add_argument("--out", required=True, help="the .npz weights file to write")
    a = p.parse_args(argv)
    try:
        game = load_game(a.game)
        names = [s for s in a.members.split(",") if s]
        weights = [float(w) for w in a.weights.split(",")] if a.weights else [1.0] * len(names)
        members = [read_member(game, n) for n in names]
        parts = ensemble(game, members, weights, names)
    except ValueError as err:
        p.error(str(err))
    save_weights(a.out, game, parts["actor"], parts["critic"], activation=parts["activation"],
                 include_unseen=parts["include_unseen"], source=parts["source"], advisor=parts["advisor"])  # fmt: skip
    print(json.dumps(parts["source"], indent=1))


if __name__ == "__main__":
    main()
