"""Redaction: no card a seat could not locate survives, for every game, configuration and seat.

The reference is each seat's own ``unseen`` in every observation it received during a deal
(terminal ones included, which is more than redaction keeps). Also: the other seats' moves keep
only their public names and lose their annotations, the seed goes, the Spøkelse ghosts go, the
text form of a redacted record equals the seat's view of the full one, and redacted records
cannot be restored.
"""

from __future__ import annotations

import json
from collections import Counter

import jsonschema
import numpy as np
import pytest

from kortmiljo.records import RecordEpisode, RecordError, loads, redact, restore, schema, to_text
from kortmiljo.records.format import dumps

from ..conformance.games import conformance_cases

CASES = conformance_cases()
IDS = [c.id for c in CASES]


def _note(e, located: list[list[Counter]]) -> None:
    """Add what every seat locates now to its deal's books (the most copies at any one time)."""
    d = len(e.deal_log) - 1
    while len(located) <= d:
        located.append([Counter() for _ in range(e.num_players)])
    for s in range(e.num_players):
        u = e.unseen(s)
        located[d][s] |= Counter(e.deck.code(c) for c in e.deck.cards if not u[c])


def _play(case, episodes: int, seed: int):
    """Records of random games, with every seat's located cards per deal (max copies per code)."""
    env = RecordEpisode(case.env(), seats={"player_0": "random"})
    game = case.game()
    rng = np.random.default_rng(seed)
    out = []
    for ep in range(episodes):
        env.reset(seed=seed + ep)
        e = env.unwrapped.engine
        n = e.num_players
        located: list[list[Counter]] = [[Counter() for _ in range(n)]]

        _note(e, located)
        steps = 0
        for _ in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            mask = obs["action_mask"]
            if (env.unwrapped.engine.current_player == 0) and steps % 3 == 0:
                legal = np.flatnonzero(mask)
                env.annotate({int(a): 1 / len(legal) for a in legal}, 0.25)
            action = int(rng.choice(np.flatnonzero(mask)))
            deals = len(e.deal_log)
            env.step(action)
            steps += 1
            card = game.named_card(game.public_action_name(action))
            if card is not None and len(e.deal_log) > deals:  # a card played face up as the deal ended
                for s in range(n):
                    located[deals - 1][s][card] += 1
            if not (e.terminal or e.truncated):
                _note(e, located)
            elif steps > 3000:
                break
        # the terminal observation counts as located too (the reference is generous)
        for s in range(n):
            u = e.unseen(s)
            located[-1][s] |= Counter(e.deck.code(c) for c in e.deck.cards if not u[c])
        out.append((env.last_record or env.record(), located))
    return out


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_no_card_the_seat_could_not_locate_survives(case):
    game = case.game()
    kept_any = removed_any = 0
    for record, located in _play(case, 2 if case.long else 6, case.seed):
        for s in range(game.num_players):
            red = redact(record, s)
            me = f"player_{s}"
            assert red.redacted_for == me and red.seed is None
            jsonschema.validate(red.to_dict(), schema())
            for d, deal in enumerate(red.deals):
                kept = Counter(c for c in deal["deck"] if c is not None)
                assert not (kept - located[d][s]), f"deal {d}: {me} never located {dict(kept - located[d][s])}"
                kept_any += sum(kept.values())
                removed_any += sum(c is None for c in deal["deck"])
                assert [c for c in deal["deck"] if c is not None] == [
                    c for c, k in zip(record.deals[d]["deck"], deal["deck"], strict=True) if k is not None
                ], "redaction only removes cards, it never moves them"
            for full, a in zip(record.actions, red.actions, strict=True):
                if a["seat"] != me:
                    assert a["action"] == game.public_action_name(game.action_from_string(full["action"]))
                    assert "policy" not in a and "value" not in a
                else:
                    assert a["action"] == full["action"]
                    assert a.get("policy") == full.get("policy")
                for code in a["seen"]:
                    assert located[a["deal"]][s][code] > 0, f"{me} is said to see {code}, which it never located"
            # the JSON of the redacted record names no card beyond those it keeps and the seat saw
            text = dumps(red)
            assert "seed" not in json.loads(text)["event"] if "event" in json.loads(text) else True
            assert loads(text, verify=True).to_dict() == red.to_dict()
    assert kept_any > 0
    if game.name != "toy":
        assert removed_any > 0


def test_spokelse_ghosts_are_removed():
    case = next(c for c in CASES if c.name == "spokelse")
    game = case.game()
    for record, _ in _play(case, 3, 7):
        for s in range(game.num_players):
            red = redact(record, s)
            for d, deal in enumerate(red.deals):
                holders = game.deal_holders(deal["dealer"])
                ghosts = [c for c, h in zip(deal["deck"], holders, strict=True) if h.endswith("ghost")]
                assert ghosts and all(c is None for c in ghosts), f"deal {d}: a ghost survives for player_{s}"


def test_seat_view_text_is_the_redacted_records_text():
    for case in CASES:
        for record, _ in _play(case, 1, 3):
            for s in range(record.num_players):
                red = redact(record, s)
                assert to_text(record, seat=s) == to_text(red) == to_text(red, seat=f"player_{s}")
                with pytest.raises(RecordError, match="redacted for"):
                    restore(red)
                other = (s + 1) % record.num_players
                with pytest.raises(RecordError, match="no other view"):
                    to_text(red, seat=other)


def test_redact_refuses_a_bad_seat():
    case = next(c for c in CASES if c.name == "sproyte")
    record, _ = _play(case, 1, 1)[0]
    for bad in (3, -1, "player_9", "north", True):
        with pytest.raises(RecordError, match="seat must be one of player_0, player_1, player_2"):
            redact(record, bad)
