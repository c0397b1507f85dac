"""Sprøyte rules: the source's worked examples and one test per rule and decision (stacked decks)."""

from __future__ import annotations

import numpy as np
import pytest

from kortmiljo.core.cards import FRENCH, FRENCH_CODES
from kortmiljo.core.errors import ConfigError, IllegalActionError
from kortmiljo.core.tricks import strength
from kortmiljo.games.sproyte import Phase, SproyteEngine, contract_of_shown, deal_points
from kortmiljo.games.sproyte.game import (
    DONE,
    GRAND,
    KEEP,
    LOC_OUT,
    LOC_PILE,
    LOC_TALON,
    NULLO,
    PLAY0,
    TAKE_TALON,
    TRUMP,
)

from .conftest import act, cards, legal_cards, legal_names, new_engine, play_out, skip_preparation, stacked

P = FRENCH.parse
S, H, D, C = 0, 1, 2, 3


def first_legal(e, legal):
    return legal[0]


# ---- deal ------------------------------------------------------------------------------


def test_vanlig_deal_one_at_a_time_from_forhand_and_the_pile_top_first():
    e = new_engine(stacked("vanlig", 2, {}), dealer=2, variant="vanlig")
    deck = e.deck_order
    assert len(deck) == 48 and all(c % 13 != 1 for c in deck)  # no twos
    assert e.order == [0, 1, 2] and e.current_player == 0  # forhånd = left of the dealer
    assert (
        e.hands[0] == sorted(deck[0:36:3]) and e.hands[1] == sorted(deck[1:36:3]) and e.hands[2] == sorted(deck[2:36:3])
    )
    assert e.pile == deck[36:] and len(e.pile) == 12
    assert [len(h) for h in e.hands] == [12, 12, 12]
    assert e.phase == Phase.EXCHANGE and e.contract == TRUMP


def test_stacked_index_0_goes_to_forhand_for_every_dealer():
    for dealer in range(3):
        codes = stacked("variasjon", dealer, {})
        e = new_engine(codes, dealer=dealer, variant="variasjon")
        forhand = (dealer + 1) % 3
        assert P(codes[0]) in e.hands[forhand] and P(codes[1]) in e.hands[(dealer + 2) % 3]
        assert P(codes[2]) in e.hands[dealer]
        assert e.current_player == forhand
        assert len(e.pile) == 16 and e.pile == [P(c) for c in codes[36:]]


def test_tretten_deals_forhand_middle_dealer_talon():
    codes = [FRENCH.code(c) for c in range(52)]
    e = new_engine(codes, dealer=0, variant="tretten")
    assert e.hands[1] == list(range(0, 52, 4)) and e.hands[2] == list(range(1, 52, 4))
    assert e.hands[0] == list(range(2, 52, 4)) and e.talon == list(range(3, 52, 4))
    assert e.pile == [] and e.phase == Phase.TALON and e.current_player == 1


# ---- contract and trump ------------------------------------------------------------------


@pytest.mark.parametrize("code", FRENCH_CODES)
def test_variasjon_contract_from_the_shown_card(code):
    e = new_engine(stacked("variasjon", 1, {}, shown=code), dealer=1, variant="variasjon")
    rank = code[0]
    assert e.shown == P(code) == e.deck_order[-1] == e.pile[-1]  # the bottom card = last of the pile
    if rank in "2345":
        want = (NULLO, -1, "nullo", None)
    elif rank in "6789T":
        want = (TRUMP, P(code) // 13, "trump", code[1])
    else:  # J Q K A
        want = (GRAND, -1, "grand", None)
    assert (e.contract, e.trump) == want[:2]
    info = e.info(0)
    assert (info["contract"], info["trump"]) == want[2:]
    seg = e.decode(e.observe(2))
    assert seg["contract"].tolist() == [float(i == want[0]) for i in range(3)]
    assert seg["trump"].sum() == (1 if want[0] == TRUMP else 0)
    assert seg["shown"][P(code)] == 1 and seg["shown"].sum() == 1
    for v in range(3):
        assert e.unseen(v)[P(code)] == 0  # shown to all


def test_contract_of_shown_by_class():
    assert [contract_of_shown(P(r + "H"))[0] for r in "A23456789TJQK"] == [GRAND] + [NULLO] * 4 + [TRUMP] * 5 + [
        GRAND
    ] * 3
    assert contract_of_shown(P("7S")) == (TRUMP, S)


def _random_finish(e, rng):
    while not e.terminal:
        legal = e.legal_actions()
        e.step(legal[rng.integers(len(legal))])


@pytest.mark.parametrize("variant", ["vanlig", "tretten"])
def test_trump_rotates_clubs_spades_hearts_diamonds_by_deal(variant):
    e = SproyteEngine(variant=variant, match_to=1000)
    rng = np.random.default_rng(3)
    e.new_episode(rng, dealer=0)
    seen = []
    while len(seen) < 6:
        seen.append((e.deal_no, e.trump, e.dealer, e.contract))
        start = e.deal_no
        while e.deal_no == start:
            legal = e.legal_actions()
            e.step(legal[rng.integers(len(legal))])
    assert [t for _, t, _, _ in seen] == [C, S, H, D, C, S]
    assert [d for _, _, d, _ in seen] == [0, 1, 2, 0, 1, 2]  # the deal passes to the left
    assert {c for *_, c in seen} == {TRUMP}


@pytest.mark.parametrize("variant", ["vanlig", "tretten"])
def test_trump_option_fixes_the_suit(variant):
    e = SproyteEngine(variant=variant, trump="h", match_to=1000)
    rng = np.random.default_rng(4)
    e.new_episode(rng)
    for _ in range(3):
        assert e.trump == H
        start = e.deal_no
        while e.deal_no == start:
            legal = e.legal_actions()
            e.step(legal[rng.integers(len(legal))])


def test_every_contract_in_variasjon_keeps_its_own_deal():
    e = new_engine(stacked("variasjon", 0, {}, shown="4D"), variant="variasjon", match_to=10)
    assert e.contract == NULLO and e.trump == -1
    assert e.decode(e.observe(0))["deal_points"].tolist() == pytest.approx([4 / 9] * 3)


# ---- exchange ----------------------------------------------------------------------------


def discard_n(e, n):
    """The seat on move discards its n lowest cards; returns them."""
    s = e.current_player
    out = list(e.hands[s][:n])
    for c in out:
        e.step(c)
    return out


def test_vanlig_quota_5_4_3():
    e = new_engine(stacked("vanlig", 2, {}), dealer=2)
    pile = list(e.pile)
    assert e.current_player == 0 and e.ex_limit == 5
    out0 = discard_n(e, 5)
    assert legal_names(e) == ["done"]  # the sixth is refused
    with pytest.raises(IllegalActionError):
        e.step(e.hands[0][0])
    act(e, "done")
    assert set(pile[:5]) <= set(e.hands[0]) and not set(out0) & set(e.hands[0]) and len(e.hands[0]) == 12
    assert e.current_player == 1 and e.ex_limit == 4
    discard_n(e, 4)
    assert legal_names(e) == ["done"]
    act(e, "done")
    assert set(pile[5:9]) <= set(e.hands[1])
    assert e.current_player == 2 and e.ex_limit == 3
    discard_n(e, 3)
    act(e, "done")
    assert e.pile_pos == 12 and e.phase == Phase.PLAY and e.current_player == 0


def test_vanlig_unused_cards_carry_to_the_next_seat():
    e = new_engine(stacked("vanlig", 2, {}), dealer=2)
    discard_n(e, 2)  # 3 unused
    act(e, "done")
    assert e.ex_limit == 4 + 3
    discard_n(e, 7)
    assert legal_names(e) == ["done"]
    act(e, "done")
    assert e.ex_limit == 3 == len(e.pile) - e.pile_pos
    e = new_engine(stacked("vanlig", 2, {}), dealer=2)
    act(e, "done", "done")
    assert e.ex_limit == 12  # the dealer may take the whole pile


def test_variasjon_quota_8_5_rest_and_the_dealer_can_draw_the_shown_card():
    e = new_engine(stacked("variasjon", 0, {}, shown="9H"), dealer=0, variant="variasjon")
    assert e.current_player == 1 and e.ex_limit == 8
    discard_n(e, 8)
    assert legal_names(e) == ["done"]
    act(e, "done")
    assert e.current_player == 2 and e.ex_limit == 5
    discard_n(e, 4)
    act(e, "done")
    assert e.current_player == 0 and e.ex_limit == 3 + 1 == len(e.pile) - e.pile_pos
    discard_n(e, 4)
    act(e, "done")
    assert P("9H") in e.hands[0] and e.shown_holder == 0
    for v in range(3):
        assert e.unseen(v)[P("9H")] == 0  # everyone knows who holds it
        assert e.decode(e.observe(v))["shown_holder"][(0 - v) % 3] == 1


def test_variasjon_forhand_unused_goes_to_middle():
    e = new_engine(stacked("variasjon", 0, {}), dealer=0, variant="variasjon")
    discard_n(e, 3)
    act(e, "done")
    assert e.ex_limit == 5 + 5
    act(e, "done")
    assert len(e.pile) - e.pile_pos == 13 == 3 + 5 + 5
    assert e.ex_limit == 12  # all unused carried, but one cannot lay down more than a hand


@pytest.mark.parametrize(
    "variant, quota, used, limits",
    [
        ("vanlig", (2, 2, 2), [2, 0, 2], [2, 2, 4]),
        ("vanlig", (12, 12, 12), [12, 0, 0], [12, 0, 0]),  # capped by the pile
        ("vanlig", (0, 0, 0), [0, 0, 0], [0, 0, 0]),
        ("vanlig", (2, 1, 0), [0, 3, 0], [2, 3, 0]),
        ("variasjon", (20, 0, 0), [12, 0, 4], [12, 4, 4]),  # capped by the hand, then by the pile
        ("variasjon", (1, 1, 1), [1, 1, 1], [1, 1, 1]),
    ],
)
def test_exchange_quota_option(variant, quota, used, limits):
    e = new_engine(stacked(variant, 1, {}), dealer=1, variant=variant, exchange_quota=quota)
    got = []
    for k in used:
        got.append(e.ex_limit)
        if e.ex_limit == 0:
            assert legal_names(e) == ["done"]
        discard_n(e, k)
        act(e, "done")
    assert got == limits and e.phase == Phase.PLAY


def test_discards_are_private_drawn_cards_come_from_the_top_and_the_rest_stays_unseen():
    e = new_engine(stacked("vanlig", 2, {}), dealer=2)
    pile = list(e.pile)
    out = discard_n(e, 3)
    loc = e.locations()
    assert all(loc[c] == LOC_OUT + 0 for c in out)
    assert all(e.unseen(0)[c] == 0 for c in out) and all(e.unseen(1)[c] == 1 and e.unseen(2)[c] == 1 for c in out)
    assert e.decode(e.observe(0))["own_out"][out].tolist() == [1, 1, 1]
    assert e.decode(e.observe(1))["own_out"].sum() == 0
    assert e.decode(e.observe(1))["exchanged"].tolist() == pytest.approx([0, 0, 3 / 12])  # counts are public
    act(e, "done")
    drawn = pile[:3]
    assert all(c in e.hands[0] for c in drawn)
    assert all(e.unseen(0)[c] == 0 and e.unseen(1)[c] == 1 for c in drawn)
    # drawn cards cannot be laid down again: the seat's turn is over
    assert e.current_player == 1 and e.ex_done[0]  # they arrive with done, which ends the seat's exchange
    act(e, "done", "done")
    assert e.phase == Phase.PLAY
    left = pile[3:]
    assert all(e.locations()[c] == LOC_PILE for c in left)
    _random_finish(e, np.random.default_rng(0))
    for v in range(3):
        assert all(e.unseen(v)[c] == 1 for c in left)  # out of play, unseen by everyone
    assert all(e.unseen(0)[c] == 0 for c in out) and all(e.unseen(2)[c] == 1 for c in out)


def test_twos_are_never_unseen_in_vanlig():
    e = new_engine(stacked("vanlig", 0, {}))
    twos = [13 * s + 1 for s in range(4)]
    for v in range(3):
        assert e.unseen(v)[twos].tolist() == [0, 0, 0, 0]
        assert e.unseen(v).sum() == 48 - 12


# ---- talon (tretten) ---------------------------------------------------------------------


def test_talon_offer_goes_forhand_middle_dealer_and_may_be_declined_by_all():
    e = new_engine(stacked("tretten", 2, {}), dealer=2, variant="tretten")
    talon = list(e.talon)
    for seat in (0, 1, 2):
        assert e.current_player == seat and e.phase == Phase.TALON
        assert e.legal_actions() == [TAKE_TALON, KEEP]
        act(e, "keep")
    assert e.phase == Phase.PLAY and e.current_player == 0  # forhånd leads
    assert e.talon == talon and all(e.locations()[c] == LOC_TALON for c in talon)
    for v in range(3):
        assert all(e.unseen(v)[c] == 1 for c in talon)


@pytest.mark.parametrize("taker", [0, 1, 2])
def test_the_first_taker_swaps_its_whole_hand_and_the_offer_ends(taker):
    e = new_engine(stacked("tretten", 2, {}), dealer=2, variant="tretten")
    talon, old = sorted(e.talon), list(e.hands[taker])
    for _seat in range(taker):
        act(e, "keep")
    assert e.current_player == taker
    act(e, "take_talon")
    assert e.hands[taker] == talon and e.out[taker] == old and e.talon == []
    assert e.phase == Phase.PLAY and e.current_player == 0  # one swap at most: play starts
    assert all(a >= PLAY0 for a in e.legal_actions())
    loc = e.locations()
    assert all(loc[c] == LOC_OUT + taker for c in old)
    for v in range(3):
        u = e.unseen(v)
        if v == taker:
            assert u[talon].sum() == 0 and u[old].sum() == 0
        else:
            assert u[old].sum() == 13 and u[talon].sum() == 13  # the old hand goes face down
        assert e.decode(e.observe(v))["talon_taken"][(taker - v) % 3] == 1
    assert e.decode(e.observe(taker))["own_out"][old].sum() == 13
    with pytest.raises(IllegalActionError):
        e.step(TAKE_TALON)


# ---- trick play --------------------------------------------------------------------------

# vanlig, first deal → trump clubs; dealer 2 → forhånd 0, middle 1, dealer 2.
T1 = {
    0: cards("3H 4H 5H 6H 7H 3S 4S 5S 6S 7S 3D 4D"),
    1: cards("5C 9C AS KS QS JS TS 9S 8S AD KD QD"),  # void in hearts
    2: cards("4C TC JD TD 9D 8D 7D 6D 5D AH KH QH"),
}
T2 = {
    0: cards("3H 4H 5H 6H 7H 3S 4S 5S 6S 7S 3D 4D"),
    1: cards("5C 9C AS KS QS JS TS 9S 8S AD KD QD"),  # void in hearts
    2: cards("4C TC JD TD 9D 8D 7D 6D 5D QC KC AC"),  # void in hearts
}


def trick_engine(hands, **config):
    variant = config.get("variant", "vanlig")
    e = new_engine(stacked(variant, 2, hands, shown=config.pop("shown", None)), dealer=2, **config)
    skip_preparation(e)
    return e


def test_follow_suit_if_able_else_any_card():
    e = trick_engine(T1)
    act(e, "play:3H")
    assert sorted(legal_cards(e)) == sorted(e.hands[1])  # void: anything, trump or not
    act(e, "play:AS")
    assert sorted(legal_cards(e)) == sorted(P(c) for c in ("AH", "KH", "QH"))  # must follow
    with pytest.raises(IllegalActionError, match="player_2 cannot play 'play:TC'"):
        act(e, "play:TC")


def test_trumping_wins_over_the_suit_led_and_the_winner_leads():
    e = trick_engine(T1)
    act(e, "play:3H", "play:5C", "play:AH")
    assert e.tricks == [0, 1, 0] and e.current_player == 1 and e.leader == 1
    assert sorted(legal_cards(e)) == sorted(e.hands[1])  # the leader may lead anything
    assert e.locations()[P("AH")] == 40 + 1  # in player_1's tricks


def test_an_off_suit_discard_does_not_win():
    e = trick_engine(T1)
    act(e, "play:3H", "play:AS", "play:QH")
    assert e.tricks == [0, 0, 1] and e.current_player == 2


def test_highest_card_of_the_suit_led_wins_ace_high():
    e = trick_engine(T1)
    act(e, "play:7H", "play:QD", "play:AH")
    assert e.tricks == [0, 0, 1]
    assert strength(P("AH")) > strength(P("KH")) > strength(P("3H"))


@pytest.mark.parametrize("second, third, winner", [("5C", "TC", 2), ("9C", "4C", 1), ("9C", "JD", 1), ("AS", "4C", 2)])
def test_over_trumping_and_under_trumping(second, third, winner):
    e = trick_engine(T2)
    act(e, "play:3H", f"play:{second}", f"play:{third}")
    assert e.tricks[winner] == 1 and e.current_player == winner


def test_voids_are_revealed_in_the_observation():
    e = trick_engine(T1)
    act(e, "play:3H", "play:5C")
    for v in range(3):
        voids = e.decode(e.observe(v))["voids"].reshape(3, 4)
        rel = (1 - v) % 3
        assert voids[rel].tolist() == [0, 1, 0, 0] and voids.sum() == 1


def test_trump_option_changes_the_winner():
    hands = {
        0: cards("3H 4H 5H 6H 7H 3S 4S 5S 6S 7S 3D 4D"),
        1: cards("5C 9C AS KS QS JS TS 9S 8S AD KD QD"),
        2: cards("4C TC JD TD 9D 8D 7D 6D 5D AH KH QH"),
    }
    e = trick_engine(hands, trump="S")
    act(e, "play:3H", "play:5C", "play:AH")
    assert e.tricks == [0, 0, 1]  # clubs are not trump now
    e = trick_engine(hands, trump="S")
    act(e, "play:3H", "play:8S", "play:AH")
    assert e.tricks == [0, 1, 0]


def test_grand_has_no_trump():
    e = trick_engine(T1, variant="variasjon", shown="JH")
    assert e.contract == GRAND and e.trump == -1
    act(e, "play:3H", "play:5C", "play:QH")
    assert e.tricks == [0, 0, 1]


def test_trick_view_by_relative_seat():
    e = trick_engine(T1)
    act(e, "play:3H", "play:5C")
    seg = e.decode(e.observe(2))
    trick = seg["trick"].reshape(3, 52)
    assert trick[(0 - 2) % 3, P("3H")] == 1 and trick[(1 - 2) % 3, P("5C")] == 1 and trick[0].sum() == 0
    assert seg["leader"].tolist() == [0, 1, 0] and seg["to_move"].tolist() == [1, 0, 0]
    act(e, "play:AH")
    seg = e.decode(e.observe(2))
    assert seg["trick"].sum() == 0 and seg["last_trick"].reshape(3, 52)[0, P("AH")] == 1
    assert seg["tricks_won"].tolist() == pytest.approx([0, 0, 1 / 13])


# ---- scoring -----------------------------------------------------------------------------


def test_points_formula_from_the_source():
    assert [deal_points(t, TRUMP) for t in (4, 5, 6, 7)] == [0, 1, 2, 3]
    assert [deal_points(t, GRAND) for t in (5, 6, 7)] == [1, 2, 3]
    assert [deal_points(t, NULLO) for t in (0, 1, 4, 5)] == [4, 3, 0, 0]


def scoring_hands(k: int) -> dict[int, list[str]]:
    """vanlig, trump clubs, forhånd = player_0: it holds the k top clubs and only the lowest hearts.

    player_0 wins a trick exactly when it plays a club (nobody else has one), and the
    scripted play below makes it keep leading clubs while it can.
    """
    clubs = "A K Q J T 9 8 7 6 5 4 3".split()
    hearts_low = "3 4 5 6 7 8 9 T J Q K A".split()
    h0 = [r + "C" for r in clubs[:k]] + [r + "H" for r in hearts_low[: 12 - k]]
    h1 = [r + "H" for r in hearts_low[12 - k :]] + [r + "S" for r in hearts_low[: 12 - k]]
    h2 = [r + "S" for r in hearts_low[12 - k :]] + [r + "D" for r in hearts_low[: 12 - k]]
    return {0: h0, 1: h1, 2: h2}


def scripted(e, legal):
    s = e.current_player
    if s == 0:
        clubs = [c for c in legal if c // 13 == C]
        return clubs[0] if clubs else min(legal, key=strength)
    if s == 1:
        hearts = [c for c in legal if c // 13 == H]
        spades = [c for c in legal if c // 13 == S]
        if not e.trick or (e.led == H and hearts):
            return max(hearts, key=strength) if hearts else legal[0]
        return spades[0] if spades else min(hearts, key=strength)
    return legal[0]


@pytest.mark.parametrize("k, others", [(5, [7, 0]), (6, [6, 0]), (7, [5, 0])])
def test_scoring_examples_five_six_seven_tricks(k, others):
    e = new_engine(stacked("vanlig", 2, scoring_hands(k)), dealer=2)
    skip_preparation(e)
    assert e.trump == C
    play_out(e, scripted)
    assert e.terminal and e.tricks == [k, *others]
    assert e.info(0)["deal_points"] == k - 4  # 5 → 1, 6 → 2, 7 → 3
    assert e.info(1)["deal_points"] == max(0, others[0] - 4) and e.info(2)["deal_points"] == 0


def test_relative_and_raw_rewards():
    deck = stacked("vanlig", 2, scoring_hands(7))
    for reward, want in (("relative", [3 - 0.5, 1 - 1.5, 0 - 2.0]), ("raw", [3.0, 1.0, 0.0])):
        e = new_engine(deck, dealer=2, reward=reward)
        skip_preparation(e)
        play_out(e, scripted)
        assert e.rewards == want
        assert e.info(1) == {"tricks": 5, "deal_points": 1, "match_points": 1, "contract": "trump", "trump": "C"}


NULLO_ZERO = {
    0: cards("2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD"),
    1: cards("AD AS KS QS JS TS 9S 8S 7S 6S 5S 4S"),
    2: cards("AH KH QH JH TH 9H 8H 7H 6H 5H 4H 3H"),
}
NULLO_ONE = {
    0: cards("2D 3D 4D 5D 6D 7D 8D 9D TD JD QD AS"),
    1: cards("KD AD KS QS JS TS 9S 8S 7S 6S 5S 4S"),
    2: cards("AH KH QH JH TH 9H 8H 7H 6H 5H 4H 3H"),
}


@pytest.mark.parametrize("hands, tricks, points", [(NULLO_ZERO, 0, 4), (NULLO_ONE, 1, 3)])
def test_nullo_scoring_examples(hands, tricks, points):
    # dealer player_0, forhånd player_1; shown 3♣ → nullo, no trump
    e = new_engine(stacked("variasjon", 0, hands, shown="3C"), dealer=0, variant="variasjon", reward="raw")
    assert e.contract == NULLO
    skip_preparation(e)
    play_out(e, first_legal)
    assert e.tricks[0] == tricks and e.info(0)["deal_points"] == points == e.rewards[0]
    assert e.info(0)["contract"] == "nullo" and e.info(0)["trump"] is None
    assert e.info(1)["deal_points"] == max(0, 4 - e.tricks[1])


def test_tretten_plays_thirteen_tricks_and_four_is_still_par():
    e = new_engine(stacked("tretten", 0, {}), dealer=0, variant="tretten", reward="raw")
    skip_preparation(e)
    winners = play_out(e, first_legal)
    assert len(winners) == 13 and sum(e.tricks) == 13
    assert e.rewards == [float(max(0, t - 4)) for t in e.tricks]


# ---- match -------------------------------------------------------------------------------


@pytest.mark.parametrize("variant, reward", [("vanlig", "relative"), ("variasjon", "relative"), ("tretten", "raw")])
def test_match_to_10(variant, reward):
    for seed in range(4):
        e = SproyteEngine(variant=variant, match_to=10, reward=reward)
        rng = np.random.default_rng(seed)
        e.new_episode(rng, dealer=1)
        deals = [(e.dealer, list(e.totals))]
        while not e.terminal:
            legal = e.legal_actions()
            before = e.deal_no
            e.step(legal[rng.integers(len(legal))])
            if not e.terminal:
                assert e.rewards == [0.0, 0.0, 0.0]  # per-deal rewards are 0
            if e.deal_no != before:
                assert max(e.totals) < 10
                deals.append((e.dealer, list(e.totals)))
        assert max(e.totals) >= 10 and max(deals[-1][1]) < 10
        assert [d for d, _ in deals] == [(1 + i) % 3 for i in range(len(deals))]
        assert e.totals == [deals[-1][1][s] + e.final_points[s] for s in range(3)]
        top = max(e.totals)
        if reward == "raw":
            assert e.rewards == [float(t) for t in e.totals]
        else:
            w = [s for s in range(3) if e.totals[s] == top]
            assert e.rewards == [1 / len(w) if s in w else -1 / (3 - len(w)) for s in range(3)]
        for s in range(3):
            info = e.info(s)
            assert info["match_points"] == e.totals[s] and info["deal_points"] == e.final_points[s]
            assert info["tricks"] == e.tricks[s]
            assert e.decode(e.observe(s))["match_points"][0] == pytest.approx(e.totals[s] / 10)


def test_later_deals_of_a_match_are_shuffled_from_the_seed():
    def decks(seed):
        e = SproyteEngine(match_to=10)
        rng = np.random.default_rng(seed)
        e.new_episode(rng, stacked("vanlig", 0, {}), 0)
        out = [list(e.deck_order)]
        while not e.terminal and len(out) < 3:
            legal = e.legal_actions()
            n = e.deal_no
            e.step(legal[rng.integers(len(legal))])
            if e.deal_no != n:
                out.append(list(e.deck_order))
        return out

    a, b = decks(5), decks(5)
    assert a == b and a[1] != a[0] and sorted(a[1]) == sorted(a[0])


# ---- options, errors ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "config, words",
    [
        ({"variant": "kort"}, "variant='kort' is not allowed"),
        ({"exchange_quota": (1, 2)}, "exchange_quota"),
        ({"exchange_quota": (-1, 0, 0)}, "non-negative"),
        ({"exchange_quota": (1, 1, 1), "variant": "tretten"}, "tretten"),
        ({"trump": "X"}, "suit letter"),
        ({"trump": "H", "variant": "variasjon"}, "shown card decides"),
        ({"match_to": 0}, "positive int"),
        ({"reward": "win"}, '"relative"'),
        ({"num_players": 4}, "three"),
        ({"colour": 1}, "unknown option"),
    ],
)
def test_bad_options_raise_a_clear_value_error(config, words):
    with pytest.raises(ConfigError, match=words) as info:
        SproyteEngine(**config)
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize(
    "variant, mutate, words",
    [
        ("vanlig", lambda d: d[:-1] + ["2S"], "not in the 48-card"),
        ("vanlig", lambda d: d[:-1], "missing"),
        ("variasjon", lambda d: d[:-1] + [d[0]], "duplicate"),
        ("tretten", lambda d: d[:-1] + ["ZZ"], "unknown card code"),
    ],
)
def test_bad_decks_raise_a_clear_value_error(variant, mutate, words):
    good = stacked(variant, 0, {})
    with pytest.raises(ValueError, match=words):
        new_engine(mutate(list(good)), variant=variant)


def test_illegal_action_raises_and_leaves_the_state_unchanged():
    e = trick_engine(T1)
    act(e, "play:3H")
    before = (
        [e.observe(v).copy() for v in range(3)],
        [e.unseen(v) for v in range(3)],
        e.locations(),
        list(e.history),
        e.legal_actions(),
        e.current_player,
    )
    for bad in (P("AS"), DONE, TAKE_TALON, PLAY0 + P("3H"), PLAY0 + P("AH"), 107, -1, None):
        with pytest.raises(IllegalActionError) as info:
            e.step(bad)
        assert "player_1" in str(info.value) and "play:AS" in str(info.value)  # names agent and legal actions
    after = (
        [e.observe(v) for v in range(3)],
        [e.unseen(v) for v in range(3)],
        e.locations(),
        e.history,
        e.legal_actions(),
        e.current_player,
    )
    for x, y in zip(before[0] + before[1], after[0] + after[1], strict=True):
        assert np.array_equal(x, y)
    assert np.array_equal(before[2], after[2]) and before[3:] == after[3:]


def test_actions_are_named_and_stable():
    e = SproyteEngine(variant="tretten")
    assert len(e.action_names) == 107
    assert e.action_to_string(0) == "discard:AS" and e.action_to_string(51) == "discard:KC"
    assert (
        e.action_to_string(52) == "done" and e.action_to_string(53) == "take_talon" and e.action_to_string(54) == "keep"
    )
    assert e.action_to_string(55) == "play:AS" and e.action_to_string(106) == "play:KC"
    assert e.action_from_string("play:10h") == 55 + P("TH") == e.action_from_string("PLAY:TH")
    assert e.action_from_string("Discard:qs") == P("QS")
    assert SproyteEngine(variant="vanlig").action_names == e.action_names  # one table for every form
    with pytest.raises(ValueError):
        e.action_from_string("bid:7")


def test_observation_basics():
    e = new_engine(stacked("vanlig", 1, {}), dealer=1)
    for v in range(3):
        seg = e.decode(e.observe(v))
        assert seg["hand"].sum() == 12 and all(seg["hand"][c] == 1 for c in e.hands[v])
        assert seg["seat_from_dealer"].tolist() == [float(i == (v - 1) % 3) for i in range(3)]
        assert seg["phase"].tolist() == [1, 0, 0, 0] and seg["trump"].tolist() == [0, 0, 0, 1]
        assert seg["to_move"][(2 - v) % 3] == 1 and seg["pile_left"][0] == pytest.approx(12 / 16)
        assert seg["deal_points"].sum() == 0 and seg["match_points"].sum() == 0
        assert seg["exchange_left"][0] == pytest.approx(5 / 12)
    assert e.observe(0).dtype == np.float32 and e.observe(0).shape == (e.layout.size,)


def test_render_shows_own_hand_the_trick_and_scores():
    e = trick_engine(T1, match_to=10)
    act(e, "play:3H", "play:5C")
    text = e.render(0)
    rows = {line.split(" (")[0].strip(): line for line in text.splitlines() if line.startswith("  player_")}
    assert "4♥" in rows["player_0"] and "3♥" not in rows["player_0"]  # own hand, the played card is gone
    assert "11 cards" in rows["player_1"] and "A♠" not in rows["player_1"]  # others' hands hidden
    assert "trick 1:" in text and "player_0: 3♥" in text and "player_1: 5♣" in text
    assert "match 0/10" in text and "<- to move" in rows["player_2"] and "tricks 0" in rows["player_2"]
    assert "12 cards" in e.render(None) and "4♥" not in e.render(None)
    act(e, "play:AH")
    assert "last trick 1 (won by player_1)" in e.render(1)
