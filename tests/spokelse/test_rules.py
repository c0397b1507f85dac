"""Spøkelse rules: worked examples of the source and one test per rule and decision."""

from __future__ import annotations

import numpy as np
import pytest

from kortmiljo.core.cards import FRENCH
from kortmiljo.core.errors import ConfigError, IllegalActionError
from kortmiljo.games.spokelse import Phase, SpokelseEngine, card_points

from .conftest import new_engine, play, run_out_stock, stacked

P = FRENCH.parse


def points(codes, jack_points=0.5):
    pts = card_points(jack_points)
    return sum(pts[P(c)] for c in codes)


# ---- worked examples of the source -------------------------------------------------


def test_card_points_example_3_5():
    assert points(["8S", "JH", "AD", "2C"]) == 3.5


def test_card_values_by_rank_and_jack_variant():
    expected = {
        "A": 1,
        "2": 2,
        "3": 3,
        "4": 4,
        "5": 5,
        "6": 6,
        "7": 7,
        "8": 0,
        "9": 9,
        "T": 10,
        "J": 0.5,
        "Q": 12,
        "K": 13,
    }
    for r, v in expected.items():
        for s in "SHDC":  # suits never matter
            assert points([r + s]) == v
    assert points(["JH"], jack_points=11) == 11


def test_ghost_king_makes_19_and_loses_to_12():
    # player_0: 8♠ A♦ 2♣ 3♥ = 6, ghost K♠ → 19; player_1: 8♣ 8♥ 5♣ 7♦ + ghost 8♦ = 12.
    deck = stacked(2, 1, ghosts=["KS", "8D"], slots=[["8S", "AD", "2C", "3H"], ["8C", "8H", "5C", "7D"]], up="9C")
    e = new_engine(deck, dealer=1)
    run_out_stock(e)
    assert e.last_sums == [19, 12]
    assert e.rewards == [-1.0, 1.0]
    assert e.info(0) == {"round_points": 19, "match_points": 19}


def test_queen_for_three_swap():
    # player_0 peeked at slot 1 (Q♣), draws 3♥ and swaps it there: Q♣ goes to the pile,
    # 12 points are gone and player_0 still knows the slot.
    deck = stacked(
        2, 1, ghosts=["2S", "2D"], slots=[["4S", "QC", "5S", "6S"], ["4D", "5D", "6D", "7D"]], up="9C", stock=["3H"]
    )
    e = new_engine(deck, dealer=1)
    before = e.round_sums()[0]
    play(e, "draw", "swap:1")
    assert e.slots[0][1] == P("3H") and e.discard[-1] == P("QC")
    assert before - e.round_sums()[0] == 9  # Q (12) out, 3 in
    assert e.observe(0)[e.o_own + 53 * 1 + P("3H")] == 1
    assert e.unseen(0)[P("3H")] == 0 and e.unseen(1)[P("3H")] == 1  # drawn from the stock: private
    assert e.unseen(1)[P("QC")] == 0  # discarded: public


# ---- deal ----------------------------------------------------------------------------


def test_deal_order_ghost_first_then_slots_up_card_and_stock():
    codes = [FRENCH.code(c) for c in range(52)]
    e = new_engine(codes, dealer=1)  # forhånd = player_0 gets indices 0, 2, 4, 6, 8
    assert e.ghost == [0, 1]
    assert e.slots == [[2, 4, 6, 8], [3, 5, 7, 9]]
    assert e.discard == [10]
    assert len(e.stock) == 41 and e.stock[-1] == 11 and e.stock[0] == 51  # top of the stock is index 11


def test_dealing_starts_left_of_dealer_for_three_players():
    codes = [FRENCH.code(c) for c in range(52)]
    e = new_engine(codes, dealer=2, num_players=3)
    assert e.ghost == [0, 1, 2]  # seat 0 is left of dealer 2
    e = new_engine(codes, dealer=0, num_players=3)
    assert e.ghost == [2, 0, 1] and e.current_player == 1
    assert e.discard == [15] and len(e.stock) == 36


def test_each_player_knows_slots_0_and_1_only():
    codes = [FRENCH.code(c) for c in range(52)]
    e = new_engine(codes, dealer=1)
    u0 = e.unseen(0)
    assert u0[[2, 4, 10]].tolist() == [0, 0, 0]  # slots 0, 1 and the up card
    assert u0[[0, 1, 6, 8, 3, 5, 7, 9, 11]].tolist() == [1] * 9  # ghosts, slots 2-3, opponent, stock


def test_forhand_moves_first():
    assert new_engine(dealer=0).current_player == 1
    assert new_engine(dealer=1).current_player == 0


def test_first_dealer_by_card_draw_is_lowest_rank_and_never_consumes_stacked_deck():
    e = SpokelseEngine(num_players=3)
    codes = [FRENCH.code(c) for c in range(52)]
    dealers = set()
    for seed in range(40):
        rng = np.random.default_rng(seed)
        expected = e.draw_dealer(np.random.default_rng(seed))
        e.new_episode(rng, codes)
        assert e.dealer == expected
        order = [(expected + 1 + i) % 3 for i in range(3)]
        assert [e.ghost[s] for s in order] == [0, 1, 2]
        assert e.discard == [15]  # the stacked deck is dealt unchanged
        dealers.add(e.dealer)
    assert dealers == {0, 1, 2}


def test_card_draw_lowest_deals_with_ties_drawing_again():
    class FixedRng:
        def __init__(self, cards):
            self.cards = cards

        def permutation(self, n):
            return np.array(self.cards[::-1])  # draw_dealer pops from the end

    e = SpokelseEngine()
    # player_0 draws K, player_1 draws 3 → player_1 deals
    assert e.draw_dealer(FixedRng([P("KS"), P("3H")] + [0] * 50)) == 1
    # both draw a 5 → they draw again: 9 and 2 → player_1
    assert e.draw_dealer(FixedRng([P("5S"), P("5H"), P("9C"), P("2D")] + [0] * 48)) == 1
    # ace is low
    assert e.draw_dealer(FixedRng([P("AS"), P("2H")] + [0] * 50)) == 0


# ---- turns ------------------------------------------------------------------------------


def test_turn_is_draw_or_take_then_swap_or_discard():
    e = new_engine(dealer=1)
    assert [e.action_names[a] for a in e.legal_actions()] == ["draw", "take"]
    play(e, "draw")
    assert [e.action_names[a] for a in e.legal_actions()] == ["swap:0", "swap:1", "swap:2", "swap:3", "discard"]
    play(e, "discard")
    assert e.current_player == 1 and e.phase == Phase.DRAW


def test_taken_card_must_be_swapped_in_not_discarded():
    e = new_engine(dealer=1)
    play(e, "take")
    assert "discard" not in [e.action_names[a] for a in e.legal_actions()]
    with pytest.raises(IllegalActionError):
        play(e, "discard")


def test_taken_card_is_public_and_old_card_goes_face_up():
    deck = stacked(2, 1, ghosts=["2S", "2D"], slots=[["4S", "QC", "5S", "6S"], ["4D", "5D", "6D", "7D"]], up="8C")
    e = new_engine(deck, dealer=1)
    play(e, "take", "swap:3")  # 6♠ was never seen by player_0: it leaves unseen, then is public
    assert e.slots[0][3] == P("8C") and e.discard == [P("6S")]
    for viewer in (0, 1):
        assert e.unseen(viewer)[P("8C")] == 0 and e.unseen(viewer)[P("6S")] == 0
    assert e.public[0][3] and e.knows_slot(1, 0, 3)
    obs1 = e.observe(1)
    assert obs1[e.o_opp + 53 * 3 + P("8C")] == 1  # the opponent sees the slot as known


def test_drawn_card_swapped_in_is_known_only_to_mover():
    e = new_engine(dealer=1)
    play(e, "draw")
    card = e.hand
    play(e, "swap:2")
    assert e.unseen(0)[card] == 0 and e.unseen(1)[card] == 1
    assert not e.knows_slot(1, 0, 2) and e.knows_slot(0, 0, 2)


def test_ghost_cannot_be_swapped_and_still_counts():
    deck = stacked(2, 1, ghosts=["KS", "8D"], slots=[["8S", "8H", "8C", "JD"], ["AC", "AD", "AH", "AS"]], up="9C")
    e = new_engine(deck, dealer=1)
    assert len([a for a in range(len(e.action_names)) if e.action_names[a].startswith("swap")]) == 4
    run_out_stock(e)
    assert e.last_sums[0] == 13.5


def test_round_ends_exactly_after_the_turn_that_draws_the_last_stock_card():
    e = new_engine(dealer=1)
    turns = 0
    while len(e.stock) > 1:
        play(e, "draw", "discard")
        turns += 1
    assert turns == 40 and not e.terminal
    play(e, "take", "swap:0")  # takes do not consume the stock
    assert not e.terminal
    play(e, "draw")
    assert not e.terminal and len(e.stock) == 0  # the turn is finished first
    play(e, "swap:1")
    assert e.terminal and e.legal_actions() == []
    assert e.unseen(0).sum() == 0 and e.unseen(1).sum() == 0  # all cards revealed


def test_rewards_win_and_points_modes_and_tie():
    deck = stacked(2, 1, ghosts=["KS", "8D"], slots=[["8S", "AD", "2C", "3H"], ["8C", "8H", "5C", "7D"]], up="9C")
    e = new_engine(deck, dealer=1, reward="points")
    run_out_stock(e)
    assert e.rewards == [12 - 19, 19 - 12]
    tie = stacked(2, 1, ghosts=["KS", "KD"], slots=[["8S", "AD", "2C", "3H"], ["8C", "AH", "2D", "3S"]], up="9C")
    e = new_engine(tie, dealer=1)
    run_out_stock(e)
    assert e.rewards == [0.0, 0.0]


def test_three_players_winner_split_and_points_zero_sum():
    deck = stacked(
        3,
        2,
        ghosts=["8S", "8D", "KC"],
        slots=[["AS", "AD", "2C", "2H"], ["AC", "AH", "2D", "2S"], ["KS", "KD", "KH", "QS"]],
        up="9C",
    )
    e = new_engine(deck, dealer=2, num_players=3)
    run_out_stock(e)
    assert e.last_sums == [6, 6, 64]
    assert e.rewards == [0.5, 0.5, -1.0]
    e = new_engine(deck, dealer=2, num_players=3, reward="points")
    run_out_stock(e)
    assert e.rewards == [(6 + 64) / 2 - 6, (6 + 64) / 2 - 6, 6 - 64]
    assert abs(sum(e.rewards)) < 1e-12


def test_jack_points_variant_changes_the_sum():
    deck = stacked(2, 1, ghosts=["JS", "8D"], slots=[["8S", "AD", "2C", "3H"], ["8C", "8H", "5C", "7D"]], up="9C")
    e = new_engine(deck, dealer=1, jack_points=11)
    run_out_stock(e)
    assert e.last_sums[0] == 6 + 11


# ---- match --------------------------------------------------------------------------------


def test_match_adds_rounds_rotates_deal_and_lowest_total_wins():
    deck = stacked(2, 1, ghosts=["KS", "8D"], slots=[["8S", "AD", "2C", "3H"], ["8C", "8H", "5C", "7D"]], up="9C")
    e = new_engine(deck, dealer=1, match_to=21, seed=3)
    run_out_stock(e)  # plays every round of the match with draw+discard
    assert e.terminal and max(e.totals) >= 21
    assert e.round_no >= 2
    low = min(e.totals)
    winners = [s for s in range(2) if e.totals[s] == low]
    assert e.rewards == ([0.0, 0.0] if len(winners) == 2 else [1.0 if s in winners else -1.0 for s in range(2)])
    assert e.info(0)["match_points"] == e.totals[0] and e.info(0)["round_points"] == e.last_sums[0]


def test_match_intermediate_rewards_are_zero_and_new_deal_passes_left():
    deck = stacked(2, 1, ghosts=["8S", "8D"], slots=[["AS", "AD", "AC", "AH"], ["2S", "2D", "2C", "2H"]], up="9C")
    e = new_engine(deck, dealer=1, match_to=21, seed=5)
    rewards = []
    while len(e.stock) > 0 or e.phase != Phase.DRAW:
        play(e, "draw") if e.phase == Phase.DRAW else play(e, "discard")
        rewards.append(e.rewards[:])
        if e.round_no == 2:
            break
    assert e.round_no == 2 and e.dealer == 0 and e.current_player == 1
    assert all(r == [0.0, 0.0] for r in rewards)
    assert e.totals == [4, 8]
    assert e.unseen(0).sum() == 52 - 3  # a new deal starts knowledge afresh (two peeks + up card)


def test_match_both_pass_target_in_same_round_higher_total_loses():
    e = SpokelseEngine(match_to=5)
    e.new_episode(
        np.random.default_rng(0),
        stacked(2, 1, ["KS", "QD"], [["8S", "8D", "8C", "8H"], ["JS", "JD", "JC", "JH"]], "9C"),
        1,
    )
    run_out_stock(e)
    assert e.totals == [13, 14] and e.rewards == [1.0, -1.0]


def test_match_points_reward_uses_totals():
    e = SpokelseEngine(match_to=5, reward="points")
    e.new_episode(
        np.random.default_rng(0),
        stacked(2, 1, ["KS", "QD"], [["8S", "8D", "8C", "8H"], ["JS", "JD", "JC", "JH"]], "9C"),
        1,
    )
    run_out_stock(e)
    assert e.rewards == [1.0, -1.0]


# ---- errors -------------------------------------------------------------------------------------


def test_illegal_action_names_agent_action_and_legal_actions_and_leaves_state_unchanged():
    e = new_engine(dealer=1)
    before = (e.clone().__dict__.copy(), e.observe(0).copy(), e.unseen(0).copy(), list(e.history))
    with pytest.raises(IllegalActionError) as err:
        e.step(e.action_from_string("swap:0"))
    msg = str(err.value)
    assert "player_0" in msg and "swap:0" in msg and "draw" in msg and "take" in msg
    assert isinstance(err.value, ValueError)
    assert np.array_equal(e.observe(0), before[1]) and np.array_equal(e.unseen(0), before[2])
    assert e.history == before[3] and e.phase == Phase.DRAW
    for bad in (-1, 7, 99):
        with pytest.raises(IllegalActionError):
            e.step(bad)
    assert e.phase == Phase.DRAW and e.history == []


@pytest.mark.parametrize(
    "options, words",
    [
        ({"num_players": 7}, "num_players"),
        ({"num_players": 1}, "2 to 5"),
        ({"jack_points": -1}, "jack_points"),
        ({"match_to": 0}, "match_to"),
        ({"reward": "money"}, "reward"),
        ({"colour": "red"}, "unknown option"),
    ],
)
def test_bad_options_raise_value_error_saying_what_is_allowed(options, words):
    with pytest.raises(ConfigError, match=words):
        SpokelseEngine(**options)
    assert issubclass(ConfigError, ValueError)


@pytest.mark.parametrize(
    "deck, words",
    [
        (["AS"] * 52, "duplicate"),
        ([FRENCH.code(c) for c in range(51)], "missing: KC"),
        ([FRENCH.code(c) for c in range(51)] + ["XX"], "unknown card code 'XX'"),
        ("AS 2S", "list of card codes"),
    ],
)
def test_malformed_decks_raise(deck, words):
    with pytest.raises(ValueError, match=words):
        new_engine(deck)


def test_bad_dealer_raises():
    with pytest.raises(ValueError, match="dealer must be a seat 0..1"):
        new_engine(dealer=2)


def test_deck_codes_are_case_insensitive():
    codes = [FRENCH.code(c).lower() for c in range(52)]
    e = new_engine(codes, dealer=1)
    assert e.discard == [10]


def test_action_names_round_trip():
    e = SpokelseEngine()
    for i, name in enumerate(e.action_names):
        assert e.action_from_string(name) == i
        assert e.action_to_string(i) == name
    assert e.action_from_string(" SWAP:2 ") == 4
    with pytest.raises(ValueError, match="unknown action"):
        e.action_from_string("fold")


def test_everyone_sees_which_slot_a_drawn_card_went_into():
    # Perfect recall: the card is private, but the slot it went into is public, and so is
    # the fact that its owner now knows that slot.
    e = new_engine(dealer=1)
    seg = e.layout.split(e.observe(1))
    assert seg["owner_knows"].tolist() == [1, 1, 0, 0, 1, 1, 0, 0]  # peeks: slots 0 and 1 of each seat
    assert seg["swapped_in"].sum() == 0
    play(e, "draw", "swap:3")  # player_0 keeps a stock card in slot 3
    seg = e.layout.split(e.observe(1))  # player_1's view: player_0 is relative seat 1
    assert seg["owner_knows"].tolist() == [1, 1, 0, 0, 1, 1, 0, 1]
    assert seg["swapped_in"].tolist() == [0, 0, 0, 0, 0, 0, 0, 1]
    assert seg["opp_slot_known"][3] == 0  # the card itself stays private
    own = e.layout.split(e.observe(0))
    assert own["owner_knows"].tolist()[:4] == [1, 1, 0, 1] and own["swapped_in"].tolist()[:4] == [0, 0, 0, 1]
