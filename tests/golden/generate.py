"""Golden playthroughs: one seeded game per game and main configuration, printed as text.

Each file in ``tests/golden/`` is one episode of random legal play (the actions drawn from
a seeded generator, independent of the env's own stream): for every turn of the AEC loop,
the agent, the names of its legal actions, its observation cut into the layout's named
segments (the indices of the non-zero entries within the segment, ``i=value`` where the
value is not 1; a one-entry segment shows ``=value``), its ``unseen`` cards, the reward ``last()`` reports and
the action taken; the info on the first turn (the neutral values every step carries until the end)
and at the end every agent's info. ``tests/golden/test_golden.py`` replays
them and fails on any difference, so every behaviour change shows as a diff.

Regenerate after an intended behaviour change (and bump the game's version):

    python -m tests.golden.generate
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent

# (game, configuration, env seed, policy seed): the main configurations of each game
CASES: list[tuple[str, dict, int, int]] = [
    ("spokelse", {}, 0, 0),
    ("spokelse", {"num_players": 3, "jack_points": 11}, 1, 1),
    ("spokelse", {"match_to": 21, "reward": "points"}, 2, 2),
    ("spokelse", {"cards": ["AS", "2S", "3S", "8S", "KS", "QS", "JS", "TS"], "num_slots": 1, "max_turns": 4}, 3, 3),
    ("sproyte", {}, 0, 0),
    ("sproyte", {"variant": "variasjon"}, 1, 1),
    ("sproyte", {"variant": "tretten"}, 2, 2),
    ("sproyte", {"match_to": 3, "reward": "raw"}, 3, 3),
    ("femkortskille", {}, 0, 0),
    ("femkortskille", {"num_players": 3, "skituppslag": True, "knock_stake": 1}, 1, 1),
    ("femkortskille", {"num_players": 5, "auktion": True}, 2, 2),
    ("femkortskille", {"poker": True}, 3, 3),
    ("femkortskille", {"payments_stay": True, "num_players": 6}, 4, 4),
]


def case_name(game: str, config: dict, index: int) -> str:
    tag = "default" if not config else "_".join(f"{k}-{v}" for k, v in config.items() if k != "cards")
    tag = "".join(ch if ch.isalnum() or ch in "-_" else "" for ch in tag.replace(" ", ""))
    return f"{index:02d}_{game}__{tag}"


def _fmt(x: float) -> str:
    return "1" if x == 1.0 else f"{x:.6g}"


def _segments(layout, vector: np.ndarray) -> list[str]:
    lines = []
    for seg in layout.segments:
        part = vector[seg.offset : seg.offset + seg.size]
        nz = np.flatnonzero(part)
        if seg.size == 1 and len(nz):
            lines.append(f"    {seg.name}: ={_fmt(float(part[0]))}")
        elif len(nz):
            items = " ".join(str(i) if part[i] == 1.0 else f"{i}={_fmt(float(part[i]))}" for i in nz)
            lines.append(f"    {seg.name}: {items}")
    return lines


def _jsonable(x):
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, float):
        return round(x, 9)
    return x


def playthrough(game: str, config: dict, seed: int, policy_seed: int) -> str:
    import kortmiljo

    module = getattr(kortmiljo, f"{game}_v0")
    env = module.env(**config)
    raw = env.unwrapped
    layout = raw.game.layout if hasattr(raw, "game") else raw.engine.layout
    deck = raw.game.deck if hasattr(raw, "game") else raw.engine.deck
    rng = np.random.default_rng(policy_seed)
    env.reset(seed=seed)
    out = [f"# {env.metadata['name']} {json.dumps(config, sort_keys=True)} seed={seed} policy_seed={policy_seed}"]
    turn = 0
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        legal = np.flatnonzero(obs["action_mask"])
        out.append(f"turn {turn} {agent}" + (" (terminated)" if term else "") + (" (truncated)" if trunc else ""))
        out.append("  legal: " + " ".join(raw.action_to_string(int(a)) for a in legal))
        out.append("  observation:")
        out.extend(_segments(layout, obs["observation"]))
        unseen = np.flatnonzero(obs["unseen"])
        out.append("  unseen: " + " ".join(deck.code(int(c)) for c in unseen))
        out.append(f"  reward: {_fmt(float(reward)) if reward else '0'}")
        if term or trunc or turn == 0:  # the first turn shows the neutral values every step carries
            out.append("  info: " + json.dumps(_jsonable(info), sort_keys=True, ensure_ascii=False))
        if term or trunc:
            action = None
        else:
            action = int(rng.choice(legal))
            out.append(f"  action: {raw.action_to_string(action)}")
        env.step(action)
        turn += 1
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    written = 0
    for i, (game, config, seed, policy_seed) in enumerate(CASES):
        path = HERE / f"{case_name(game, config, i)}.txt"
        text = playthrough(game, config, seed, policy_seed)
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(HERE.parent.parent)}")
            written += 1
    print(f"{written} golden file(s) changed, {len(CASES) - written} unchanged")
    return 0


if __name__ == "__main__":
    sys.exit(main())
