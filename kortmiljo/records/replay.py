"""Reading a record back into play: :func:`restore` any position, :func:`verify` a whole record.

A record holds everything that decided its episode (the decks of every deal, the dealer, the
moves, a carried-in pot), so replaying its moves through a fresh engine gives back every
position exactly: each observation, mask, ``unseen``, reward and info equals the original run's.
Deals after the recorded ones (when a restored game is played on) are new: they are shuffled from
a seed derived from the record's (:func:`play_on_seed`), the same on every restore.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from ..core.errors import IllegalActionError
from .format import Record, RecordError, check_game, jsonable


def episode_options(record: Record) -> dict[str, Any]:
    """The ``reset`` options that deal the record's episode: deck and dealer, later decks, carry."""
    if record.redacted:
        raise RecordError(
            f"{record.where()}: the record is redacted for {record.redacted_for}; its hidden cards are gone, "
            "so it can be read and printed but not restored (use the full record)"
        )
    first, *later = record.deals
    options: dict[str, Any] = {"deck": list(first["deck"]), "dealer": first["dealer"]}
    if later:
        options["later_decks"] = [list(d["deck"]) for d in later]
    if record.carry is not None:
        options["carry"] = record.carry
    return options


def play_on_seed(record: Record) -> int | None:
    """The seed a restored env is reset with: derived from the record's seed and its number of
    deals. The recorded deals are stacked, so the seed only shuffles the deals past the record;
    the original stream would deal the recorded decks again (the stacked ones did not use it up),
    so a derived one deals new cards, the same on every restore. None for an unseeded record."""
    if record.seed is None:
        return None
    return int(np.random.SeedSequence([record.seed, len(record.deals)]).generate_state(1)[0])


def _action(game, record: Record, i: int) -> int:
    try:
        return game.action_from_string(record.actions[i]["action"])
    except ValueError as err:
        raise RecordError(f"{record.where(i)}: {err}") from None


def restore(record: Record, step: int | None = None, render_mode: str | None = None):
    """A fresh ``env()`` at move ``step`` of ``record`` (None: after the last move), ready to play on.

    ``record`` is a :class:`Record` (``load(path)`` reads one). Every observation, mask, ``unseen``, reward and
    info equals the original run's at that step; from there the env is an ordinary one, so
    research code can branch from any position.
    """
    from ..env.aec import CardGameEnv, OrderEnforcing

    if not isinstance(record, Record):
        raise TypeError(f"restore takes a Record (kortmiljo.records.load(path) reads one), got {record!r}")
    rec = record
    steps = len(rec.actions) if step is None else step
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or not 0 <= steps <= len(rec.actions):
        raise RecordError(f"{rec.where()}: step must be a move 0..{len(rec.actions)}, got {step!r}")
    options = episode_options(rec)
    game = check_game(rec)
    env = OrderEnforcing(CardGameEnv(game, render_mode=render_mode))
    try:
        env.reset(seed=play_on_seed(rec), options=options)
    except ValueError as err:
        raise RecordError(f"{rec.where()}: {err}") from None
    for i in range(int(steps)):
        seat = rec.actions[i]["seat"]
        if env.agent_selection != seat:
            raise RecordError(f"{rec.where(i)}: it is {env.agent_selection}'s move, not {seat}'s")
        if env.terminations[seat] or env.truncations[seat]:
            raise RecordError(f"{rec.where(i)}: the episode has already ended")
        try:
            env.step(_action(game, rec, i))
        except IllegalActionError as err:
            raise RecordError(f"{rec.where(i)}: {err}") from None
    return env


def states(record: Record) -> Iterator[Any]:
    """The engine before each move and after the last (``len(actions) + 1`` yields of one state
    object, advanced in place): what redaction and the text form read."""
    game = check_game(record)
    engine = game.new_state()
    options = episode_options(record)
    engine.new_episode(np.random.default_rng(record.seed), **options)
    yield engine
    for i in range(len(record.actions)):
        engine.step(_action(game, record, i))
        yield engine


def verify(record: Record) -> None:
    """Replay the record and refuse it (:class:`RecordError`, naming the move) unless every move is
    the legal move of the seat on move, in the deal the record says, and the deals, the status,
    the rewards and the infos are the ones the replay gives. A redacted record cannot be replayed
    (its hidden cards are gone): it is checked against what is public (:func:`verify_redacted`)."""
    if record.redacted:
        verify_redacted(record)
        return
    game = check_game(record)
    names = [f"player_{i}" for i in range(game.num_players)]
    engine = game.new_state()
    try:
        engine.new_episode(np.random.default_rng(record.seed), **episode_options(record))
    except ValueError as err:
        raise RecordError(f"{record.where()}: {err}") from None
    totals = [0.0] * game.num_players
    recorded_deals = record.deals
    for i, a in enumerate(record.actions):
        if engine.terminal or engine.truncated:
            raise RecordError(f"{record.where(i)}: the episode had already ended (after move {i - 1})")
        on_move = names[engine.current_player]
        if a["seat"] != on_move:
            raise RecordError(f"{record.where(i)}: it is {on_move}'s move, not {a['seat']}'s")
        deal = len(engine.deal_log) - 1
        if a["deal"] != deal:
            raise RecordError(f"{record.where(i)}: the move is in deal {deal}, the record says deal {a['deal']}")
        phase, trick = engine.moment()
        if a.get("phase", phase) != phase or a.get("trick", trick) != trick:
            raise RecordError(
                f"{record.where(i)}: the move is in phase {phase!r}, trick {trick}; the record says "
                f"{a.get('phase')!r}, trick {a.get('trick')}"
            )
        action = _action(game, record, i)
        try:
            engine.step(action)
        except IllegalActionError as err:
            raise RecordError(f"{record.where(i)}: {err}") from None
        if len(engine.deal_log) > len(recorded_deals):
            raise RecordError(
                f"{record.where(i)}: the move starts deal {len(engine.deal_log) - 1}, but the record has "
                f"only {len(recorded_deals)} deals"
            )
        if len(engine.deal_log) > deal + 1:
            d = len(engine.deal_log) - 1
            if engine.deal_log[d][0] != recorded_deals[d]["dealer"]:
                raise RecordError(
                    f"{record.where(i)}: deal {d} is dealt by player_{engine.deal_log[d][0]}, the record says "
                    f"player_{recorded_deals[d]['dealer']}"
                )
        for s, r in enumerate(engine.rewards):
            totals[s] += r
    if len(engine.deal_log) < len(recorded_deals):
        raise RecordError(
            f"{record.where()}: the record has {len(recorded_deals)} deals, its moves play {len(engine.deal_log)}"
        )
    status = "finished" if engine.terminal else "truncated" if engine.truncated else "unfinished"
    if status != record.status:
        raise RecordError(f"{record.where()}: the moves leave the episode {status}, the record says {record.status}")
    for s, nm in enumerate(names):
        got = record.rewards[nm]
        if not math.isclose(got, totals[s], rel_tol=1e-9, abs_tol=1e-9):
            raise RecordError(f"{record.where()}: rewards.{nm} is {got}, the moves give {totals[s]}")
        if status != "unfinished":
            want = jsonable(engine.info(s))
            if record.infos.get(nm) != want:
                raise RecordError(f"{record.where()}: infos.{nm} is {record.infos.get(nm)}, the moves give {want}")


def verify_redacted(record: Record) -> None:
    """Refuse (:class:`RecordError`, naming the move) a redacted record whose public part is
    impossible. Its hidden cards are gone, so the moves cannot be replayed; what is checked is what
    holds whatever they were (docs/records.md, "Sharing without leaking"):

    - every move is an action of the game by name: the full name for the seat's own moves, the public
      name (``discard:?``) or the full one for the others';
    - the moves' deals run in order, none before the one before it;
    - a card a move names (``play:QS``) is one the seat located in that deal (its deck keeps it, or
      a move's ``seen`` so far names it: a card played face up is located by the move), and no deal
      names a card more often than the game's deck holds it; ``seen`` names cards of the deck;
    - no seat makes more moves than the game allows in an episode (``max_decisions``);
    - the rewards lie within the game's bounds on a return, and sum to 0 in a zero-sum game;
    - an unfinished record has no end-of-episode infos, an ended one has them for every seat.

    What depends on the hidden cards is not checked: whether a public move was legal for the hand
    it came from (following suit, a face-down discard), whose move it was, and the exact rewards
    and infos.
    """
    game = check_game(record)
    names = [f"player_{i}" for i in range(game.num_players)]
    me = record.redacted_for
    public = {game.public_action_name(a) for a in range(len(game.action_names))}

    def is_name(name: str, own: bool) -> bool:
        try:
            game.action_from_string(name)
        except ValueError:
            return not own and name in public
        return True

    code = game.deck.code
    full: dict[str, int] = {}
    for c in game.deck.cards:
        full[code(c)] = full.get(code(c), 0) + 1
    # per deal: the cards the seat located (kept in the deck, or ``seen`` by a move so far), and
    # how often the moves have named each card
    known = [{code(game.deck.parse(c)) for c in d["deck"] if c is not None} for d in record.deals]
    named: list[dict[str, int]] = [{} for _ in record.deals]
    moves = dict.fromkeys(names, 0)
    deal = 0
    for i, a in enumerate(record.actions):
        name = a["action"]
        if not is_name(name, a["seat"] == me):
            what = "an action" if a["seat"] == me else "an action or the public name of one"
            raise RecordError(f"{record.where(i)}: {name!r} is not {what} of {game.name}")
        if a["deal"] < deal:
            raise RecordError(f"{record.where(i)}: the move is in deal {a['deal']}, after a move in deal {deal}")
        deal = a["deal"]
        for c in a.get("seen", ()):
            try:
                known[deal].add(code(game.deck.parse(c)))
            except ValueError as err:
                raise RecordError(f"{record.where(i)}: seen: {err}") from None
        card = game.named_card(name)
        if card is not None:
            if card not in known[deal]:
                raise RecordError(
                    f"{record.where(i)}: the move shows {card}, which {me} never located in deal {deal} "
                    "(neither its deck nor any move's seen holds it)"
                )
            named[deal][card] = named[deal].get(card, 0) + 1
            if named[deal][card] > full.get(card, 0):
                raise RecordError(
                    f"{record.where(i)}: {card} is shown {named[deal][card]} times in deal {deal}; "
                    f"the {game.deck.name} deck holds it {full.get(card, 0)} time(s)"
                )
        moves[a["seat"]] += 1
    facts = game.facts
    if facts.max_decisions is not None:
        for nm, n in moves.items():
            if n > facts.max_decisions:
                raise RecordError(
                    f"{record.where()}: {nm} makes {n} moves; an episode of this game allows at most "
                    f"{facts.max_decisions}"
                )
    lo, hi = facts.utility_bounds
    for nm in names:
        r = record.rewards[nm]
        if not lo - 1e-9 <= r <= hi + 1e-9:
            raise RecordError(f"{record.where()}: rewards.{nm} is {r}, outside the game's bounds [{lo}, {hi}]")
    total = sum(record.rewards[nm] for nm in names)
    if facts.zero_sum and not math.isclose(total, 0.0, abs_tol=1e-6):
        raise RecordError(f"{record.where()}: the rewards sum to {total}; in {game.name} they sum to 0")
    ended = record.status != "unfinished"
    for nm in names:
        if bool(record.infos.get(nm)) != ended:
            have = "has" if record.infos.get(nm) else "lacks"
            raise RecordError(
                f"{record.where()}: the record is {record.status} but infos.{nm} {have} end-of-episode infos"
            )
