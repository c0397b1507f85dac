"""Worked examples on stacked decks: one test per rule and per decision of docs/femkortskille.md."""

from __future__ import annotations

import numpy as np
import pytest

from kortmiljo.core.cards import KILLE_RANKS
from kortmiljo.core.errors import IllegalActionError
from kortmiljo.games.femkortskille import FemkortskilleEngine, Phase, Status

from .conftest import deal, hand_names, legal_names, play, stacked

R = {name: i for i, name in enumerate(KILLE_RANKS)}

# Four players, dealer 3, so seat 0 is forhånd. Seat 0 is strong, seat 2 weak.
STRONG = ["kille", "kuku", "husar"]
WEAK = ["1", "2", "3"]
HANDS4 = {0: STRONG, 1: ["6", "7", "8"], 2: WEAK, 3: ["9", "10", "11"]}
STOCK4 = ["husu", "kavall", "4", "5", "12", "vardshus", "blaren", "blompotta"]


# ---- deal -----------------------------------------------------------------------------
def test_deal_one_card_at_a_time_from_forhand_rest_is_stock():
    deck = [KILLE_RANKS[i % 21] for i in range(42)]  # blaren, blompotta, … kille, blaren, …
    e = FemkortskilleEngine(num_players=4)
    e.new_episode(np.random.default_rng(0), deck, dealer=1)  # forhånd = seat 2
    assert e.forhand == 2 and e.current_player == 2
    # deck index 0, 4, 8 to seat 2; 1, 5, 9 to seat 3; 2, 6, 10 to seat 0; 3, 7, 11 to seat 1
    assert hand_names(e, 2) == sorted([deck[0], deck[4], deck[8]])
    assert hand_names(e, 3) == sorted([deck[1], deck[5], deck[9]])
    assert hand_names(e, 0) == sorted([deck[2], deck[6], deck[10]])
    assert hand_names(e, 1) == sorted([deck[3], deck[7], deck[11]])
    assert [KILLE_RANKS[c >> 1] for c in e.stock] == deck[12:]


def test_every_player_antes_before_the_first_deal():
    e = deal(ante=2)
    assert e.pot == 8 and e.net == [-2, -2, -2, -2]
    obs = e.layout.split(e.observe(0))
    assert obs["pot"][0] == 8 and list(obs["net"]) == [-2] * 4


# ---- bidding ----------------------------------------------------------------------------
def test_bidding_is_one_circle_from_forhand_dealer_last():
    e = deal(n=5, dealer=2)  # forhånd 3
    seen = []
    for _ in range(5):
        seen.append(e.current_player)
        assert legal_names(e) == ["knock", "pass", "lura"]
        play(e, "lura")
    assert seen == [3, 4, 0, 1, 2]


def test_lura_is_illegal_once_somebody_has_knocked():
    e = deal()
    play(e, "lura", "knock")  # seat 0 waits, seat 1 knocks
    assert e.current_player == 2
    assert legal_names(e) == ["knock", "pass"]
    before = (e.observe(2).copy(), e.unseen(2).copy(), list(e.history), e.current_player)
    with pytest.raises(IllegalActionError) as err:
        play(e, "lura")
    msg = str(err.value)
    assert "player_2" in msg and "lura" in msg and "knock" in msg and "pass" in msg
    assert np.array_equal(e.observe(2), before[0]) and np.array_equal(e.unseen(2), before[1])
    assert e.history == before[2] and e.current_player == before[3]


def test_waiting_players_decide_after_the_circle_in_seat_order_from_forhand():
    e = deal(dealer=1)  # forhånd 2: circle 2, 3, 0, 1
    play(e, "lura", "lura", "knock", "pass")  # 2 and 3 wait, 0 knocks, 1 passes
    assert e.phase == Phase.DECIDE and e.current_player == 2
    assert legal_names(e) == ["knock", "pass"]
    play(e, "pass")
    assert e.current_player == 3
    play(e, "knock")  # knockers 3 and 0 → tricks
    assert e.phase == Phase.PLAY
    assert [s for s in range(4) if e.status[s] == Status.KNOCKED] == [0, 3]
    assert e.status[2] == Status.PASSED


def test_waiting_when_everybody_waits_then_passes_is_a_void_deal():
    e = deal()
    play(e, "lura", "lura", "lura", "lura")
    assert e.phase == Phase.DECIDE and e.current_player == 0
    play(e, "pass", "pass", "pass", "pass")
    assert e.deals == 2 and e.dealer == 0 and e.phase == Phase.BID


def test_void_deal_is_redealt_by_the_next_dealer_with_the_pot_kept_and_no_new_ante():
    e = deal(dealer=3)
    first = list(e.deal_deck)
    play(e, "pass", "pass", "pass", "pass")
    assert e.deals == 2 and e.dealer == 0 and e.forhand == 1 and e.current_player == 1
    assert e.pot == 4 and e.net == [-1] * 4
    assert not (e.terminal or e.truncated)
    assert e.deal_deck != first  # shuffled from the episode's stream
    assert all(len(h) == 3 for h in e.hands) and e.history[e.deal_start :] == []
    obs = e.layout.split(e.observe(1))
    assert obs["dealer"][3] == 1  # seat 0 is relative seat 3 of seat 1
    assert obs["deal_number"][0] == pytest.approx(2 / 20)
    assert list(obs["status"].reshape(4, 6)[:, 0]) == [1, 1, 1, 1]  # everyone to speak again


def test_redeal_is_reproducible_from_the_seed():
    decks = []
    for _ in range(2):
        e = deal(seed=42)
        play(e, "pass", "pass", "pass", "pass")
        decks.append(list(e.deal_deck))
    assert decks[0] == decks[1]


def test_ante_on_redeal_antes_again():
    e = deal(ante_on_redeal=True)
    play(e, "pass", "pass", "pass", "pass")
    assert e.pot == 8 and e.net == [-2] * 4


def test_single_knocker_wins_the_pot_at_once_and_nobody_pays():
    e = deal(hands=HANDS4)
    play(e, "pass", "knock", "pass", "pass")
    assert e.terminal and not e.truncated and e.phase == Phase.OVER
    assert e.net == [-1, 3, -1, -1] and e.rewards == [-1.0, 3.0, -1.0, -1.0]
    assert e.pot == 0 and e.trick_no == 0 and all(len(h) == 3 for h in e.hands)
    assert e.info(1) == {"chips": 3.0, "pot": 0.0, "knocked": True, "pot_won": 4.0, "winner": "player_1", "deals": 1}
    assert e.info(0)["knocked"] is False
    assert e.legal_actions() == []


def test_a_waiting_player_who_knocks_alone_wins_at_once():
    e = deal()
    play(e, "lura", "pass", "pass", "pass", "knock")
    assert e.terminal and e.net == [3, -1, -1, -1]


# ---- extra cards and tricks ------------------------------------------------------------------
def test_each_knocker_in_seat_order_from_forhand_gets_the_next_two_stock_cards():
    # dealer 2, forhånd 3: seat order 3, 0, 1, 2; knockers 1 and 3 → 3 first (stock 0, 1), then 1 (2, 3)
    hands = {0: ["6", "7", "8"], 1: ["1", "2", "3"], 2: ["9", "10", "11"], 3: ["kille", "kuku", "husar"]}
    e = deal(dealer=2, hands=hands, stock=["husu", "kavall", "4", "5"])
    play(e, "knock", "pass", "knock", "pass")
    assert hand_names(e, 3) == sorted(["kille", "kuku", "husar", "husu", "kavall"])
    assert hand_names(e, 1) == sorted(["1", "2", "3", "4", "5"])
    assert hand_names(e, 0) == sorted(hands[0]) and hand_names(e, 2) == sorted(hands[2])
    assert e.stock_pos == 4


def test_first_knocker_from_forhand_leads_and_play_skips_non_knockers():
    # five players, dealer 4, forhånd 0; knockers 0, 2, 4
    hands = {
        0: ["1", "2", "3"],
        1: ["6", "6", "7"],
        2: ["4", "5", "8"],
        3: ["7", "8", "9"],
        4: ["kille", "kuku", "husar"],
    }
    e = deal(n=5, dealer=4, hands=hands, stock=["blaren", "blompotta", "kransen", "kransen", "10", "11"])
    play(e, "knock", "pass", "knock", "pass", "knock")
    assert e.phase == Phase.PLAY and e.current_player == 0 and e.leader == 0
    order = []
    for name in ["play:1", "play:4", "play:kuku"]:
        order.append(e.current_player)
        play(e, name)
    assert order == [0, 2, 4]
    assert e.tricks_won == [0, 0, 0, 0, 1] and e.current_player == 4 and e.leader == 4  # the winner leads
    order = []
    for name in ["play:husar", "play:2", "play:5"]:
        order.append(e.current_player)
        play(e, name)
    assert order == [4, 0, 2]


def test_overstickstvang_a_higher_card_is_obligatory_when_held():
    hands = {0: ["10", "1", "2"], 1: ["6", "7", "8"], 2: ["5", "11", "kille"], 3: ["9", "3", "4"]}
    e = deal(hands=hands, stock=["blaren", "blompotta", "kransen", "12"])
    play(e, "knock", "pass", "knock", "pass")  # seat 0 gets blaren, blompotta; seat 2 kransen, 12
    play(e, "play:10")
    assert legal_names(e) == ["play:11", "play:12", "play:kille"]  # 5 and kransen are not allowed
    with pytest.raises(IllegalActionError):
        play(e, "play:5")


def test_overstickstvang_without_a_higher_card_anything_goes_an_equal_card_is_not_obligatory():
    hands = {0: ["10", "11", "12"], 1: ["6", "7", "8"], 2: ["10", "1", "2"], 3: ["9", "3", "4"]}
    e = deal(hands=hands, stock=["vardshus", "kavall", "blaren", "blompotta"])
    play(e, "knock", "pass", "knock", "pass")
    play(e, "play:10")
    assert legal_names(e) == ["play:blaren", "play:blompotta", "play:1", "play:2", "play:10"]


def test_of_equal_cards_the_later_one_wins():
    hands = {0: ["10", "11", "12"], 1: ["6", "7", "8"], 2: ["10", "1", "2"], 3: ["9", "3", "4"]}
    e = deal(hands=hands, stock=["vardshus", "kavall", "blaren", "blompotta"])
    play(e, "knock", "pass", "knock", "pass", "play:10", "play:10")
    assert e.tricks_won[2] == 1 and e.current_player == 2


def test_kille_beats_kuku():
    hands = {0: ["kuku", "11", "12"], 1: ["6", "7", "8"], 2: ["kille", "1", "2"], 3: ["9", "3", "4"]}
    e = deal(hands=hands, stock=["vardshus", "kavall", "blaren", "blompotta"])
    play(e, "knock", "pass", "knock", "pass", "play:kuku")
    assert legal_names(e) == ["play:kille"]
    play(e, "play:kille")
    assert e.tricks_won == [0, 0, 1, 0] and e.current_player == 2


def test_trick_observation_shows_the_trick_the_card_to_beat_and_who_wins_it():
    hands = {0: ["kuku", "11", "12"], 1: ["6", "7", "8"], 2: ["kille", "1", "2"], 3: ["9", "3", "4"]}
    e = deal(hands=hands, stock=["vardshus", "kavall", "blaren", "blompotta"])
    play(e, "knock", "pass", "knock", "pass", "play:kuku")
    o = e.layout.split(e.observe(2))  # seat 0 is relative seat 2 of seat 2
    assert o["trick"].reshape(4, 21)[2, R["kuku"]] == 1 and o["trick"].sum() == 1
    assert np.flatnonzero(o["trick_highest"]).tolist() == [R["kuku"]]
    assert np.flatnonzero(o["trick_winning"]).tolist() == [2]
    assert np.flatnonzero(o["leader"]).tolist() == [2] and np.flatnonzero(o["to_move"]).tolist() == [0]
    assert o["played"].reshape(4, 21)[2, R["kuku"]] == 1
    play(e, "play:kille")
    o = e.layout.split(e.observe(2))
    assert o["trick"].sum() == 0 and o["trick_highest"].sum() == 0  # a new trick
    assert list(o["tricks_won"]) == [1, 0, 0, 0] and np.flatnonzero(o["leader"]).tolist() == [0]


# ---- the payment ----------------------------------------------------------------------------
def play_out(e: FemkortskilleEngine, lowest: bool = False) -> None:
    """Each player plays its highest (or lowest) legal card until the deal ends."""
    while e.phase == Phase.PLAY:
        legal = e.legal_actions()
        e.step(legal[0] if lowest else legal[-1])


def test_payment_four_players_pot_4_the_fifth_trick_winner_ends_plus_7_the_other_knocker_minus_5():
    e = deal(hands=HANDS4, stock=STOCK4)
    play(e, "knock", "pass", "knock", "pass")
    assert e.current_player == 0 and e.pot == 4
    play_out(e)
    assert e.terminal and e.tricks_won == [5, 0, 0, 0]
    assert e.net == [7, -1, -5, -1] and e.rewards == [7.0, -1.0, -5.0, -1.0]
    assert e.pot == 0 and e.pot_won == 8
    assert [e.info(s)["chips"] for s in range(4)] == [7.0, -1.0, -5.0, -1.0]
    assert [e.info(s)["knocked"] for s in range(4)] == [True, False, True, False]
    assert e.info(0)["pot"] == 0.0


def test_only_the_fifth_trick_counts():
    # seat 2 wins the first four tricks; seat 0 keeps its 10, which beats seat 2's last card
    hands = {0: ["1", "2", "10"], 1: ["6", "7", "8"], 2: ["11", "12", "vardshus"], 3: ["9", "kille", "kuku"]}
    e = deal(hands=hands, stock=["3", "4", "kavall", "5"])
    play(e, "knock", "pass", "knock", "pass")
    play(e, "play:1", "play:11", "play:12", "play:2", "play:vardshus", "play:3", "play:kavall", "play:4")
    assert e.tricks_won == [0, 0, 4, 0] and e.current_player == 2
    play(e, "play:5")
    assert legal_names(e) == ["play:10"]
    play(e, "play:10")
    assert e.tricks_won == [1, 0, 4, 0] and e.net == [7, -1, -5, -1]


def test_payment_with_three_knockers_every_loser_pays_the_pot_at_the_end_of_play():
    hands = {0: STRONG, 1: ["6", "7", "8"], 2: WEAK, 3: ["9", "10", "11"]}
    e = deal(hands=hands, stock=STOCK4)
    play(e, "knock", "knock", "knock", "pass")
    play_out(e)
    assert e.tricks_won[0] == 5
    assert e.net == [-1 + 4 + 8, -5, -5, -1]


# ---- variants ---------------------------------------------------------------------------------
def test_skituppslag_three_low_cards_must_show_and_win_the_pot_with_stakes():
    hands = {0: ["6", "7", "8"], 1: ["blaren", "kransen", "blaren"], 2: WEAK, 3: ["9", "10", "11"]}
    e = deal(hands=hands, skituppslag=True, knock_stake=1)
    play(e, "knock")  # seat 0 knocks and stakes 1
    assert legal_names(e) == ["show"]
    play(e, "show")
    assert e.terminal and e.status[1] == Status.SHOWED
    assert e.net == [-2, 4, -1, -1] and e.pot == 0 and e.pot_won == 5
    assert e.info(1)["knocked"] is False
    # the shown cards are known to everyone: seat 3 can locate both blaren and one kransen
    u = e.unseen(3)
    assert list(u[0:2]) == [0, 0] and list(u[4:6]) == [1, 0]
    assert e.layout.split(e.observe(3))["shown"][[0, 2]].tolist() == [2, 1]


def test_without_skituppslag_three_low_cards_bid_as_usual():
    hands = {0: ["6", "7", "8"], 1: ["blaren", "kransen", "blaren"], 2: WEAK, 3: ["9", "10", "11"]}
    e = deal(hands=hands)
    play(e, "knock")
    assert legal_names(e) == ["knock", "pass"]
    assert "show" not in e.action_names


def test_skituppslag_is_checked_on_the_three_card_deal_only_low_ranks_count():
    hands = {0: ["blaren", "blompotta", "1"], 1: ["6", "7", "8"], 2: WEAK, 3: ["9", "10", "11"]}
    e = deal(hands=hands, skituppslag=True)
    assert legal_names(e) == ["knock", "pass", "lura"]  # "1" is the fourth rank


def test_knock_stake_adds_chips_per_knock_and_to_the_payment():
    e = deal(hands=HANDS4, stock=STOCK4, knock_stake=2)
    play(e, "knock", "pass", "knock", "pass")
    assert e.pot == 8 and e.stake == [2, 0, 2, 0]
    play_out(e)
    assert e.net == [-1 - 2 + 16, -1, -1 - 2 - 8, -1] and sum(e.net) == 0


def test_knock_stake_single_knocker():
    e = deal(knock_stake=2)
    play(e, "lura", "pass", "pass", "pass", "knock")
    assert e.net == [3, -1, -1, -1]


def test_payments_stay_the_winner_takes_the_pot_as_it_was_and_payments_carry_to_the_next_episode():
    e = deal(hands=HANDS4, stock=STOCK4, payments_stay=True)
    play(e, "knock", "pass", "knock", "pass")
    play_out(e)
    assert e.net == [3, -1, -5, -1] and e.pot == 4 and e.pot_won == 4
    assert e.info(0)["pot"] == 4.0
    assert sum(e.net) + e.pot - e.pot_carried == 0
    e.new_episode(np.random.default_rng(1), dealer=0)
    assert e.pot == 8 and e.pot_carried == 4 and e.net == [-1] * 4
    o = e.layout.split(e.observe(2))
    assert o["pot"][0] == 8 and o["pot_carried"][0] == 4
    e.new_session()
    e.new_episode(np.random.default_rng(1), dealer=0)
    assert e.pot == 4 and e.pot_carried == 0


def test_without_payments_stay_nothing_carries():
    e = deal(hands=HANDS4, stock=STOCK4)
    play(e, "knock", "pass", "knock", "pass")
    play_out(e)
    e.new_episode(np.random.default_rng(1), dealer=0)
    assert e.pot == 4 and e.pot_carried == 0


def test_auktion_pass_or_bet_at_least_the_highest_bet_no_lura_no_knock():
    e = deal(auktion=True)
    assert legal_names(e) == ["pass", "bet:1", "bet:2", "bet:3", "bet:4", "bet:5"]
    play(e, "bet:3")
    assert e.pot == 7 and e.net[0] == -4 and e.status[0] == Status.KNOCKED
    assert legal_names(e) == ["pass", "bet:3", "bet:4", "bet:5"]
    with pytest.raises(IllegalActionError):
        play(e, "bet:2")
    with pytest.raises(IllegalActionError):
        play(e, "lura")
    play(e, "pass", "bet:5", "pass")
    assert e.phase == Phase.PLAY and e.pot == 12  # no waiting players in auktion
    o = e.layout.split(e.observe(0))
    assert list(o["auction_bet"]) == [3, 0, 5, 0] and o["highest_bet"][0] == 5


def test_auktion_single_bettor_wins_at_once_and_max_bet_limits_the_table():
    e = deal(auktion=True, max_bet=2)
    assert e.action_names[24:] == ("bet:1", "bet:2")
    play(e, "pass", "bet:2", "pass", "pass")
    assert e.terminal and e.net == [-1, 3, -1, -1] and e.info(1)["knocked"] is True


def test_auktion_payment_uses_the_pot_with_bets():
    e = deal(hands=HANDS4, stock=STOCK4, auktion=True)
    play(e, "bet:1", "pass", "bet:2", "pass")
    play_out(e)
    assert e.net == [-1 - 1 + 7 + 7, -1, -1 - 2 - 7, -1]


def poker_start(**config) -> FemkortskilleEngine:
    # knockers 0 and 2; stock: extra cards husu, kavall (seat 0), 4, 5 (seat 2), then draws
    e = deal(hands=HANDS4, stock=STOCK4, poker=True, **config)
    play(e, "knock", "pass", "knock", "pass")
    return e


def test_poker_exchange_discard_up_to_three_then_done_draws_as_many():
    e = poker_start()
    assert e.phase == Phase.EXCHANGE and e.current_player == 0
    assert legal_names(e) == [
        "discard:kavall",
        "discard:husu",
        "discard:husar",
        "discard:kuku",
        "discard:kille",
        "done",
    ]
    play(e, "done")  # seat 0 keeps its hand
    assert e.current_player == 2
    play(e, "discard:1", "discard:2", "discard:3")
    assert legal_names(e) == ["done"]  # at most three
    assert len(e.hands[2]) == 2
    play(e, "done")  # draws 12, vardshus, blaren
    assert hand_names(e, 2) == sorted(["4", "5", "12", "vardshus", "blaren"])
    assert e.phase == Phase.BETTING and e.current_player == 0
    o = e.layout.split(e.observe(2))
    assert list(o["exchanged"]) == [3, 0, 0, 0] and o["own_discards"][[R["1"], R["2"], R["3"]]].tolist() == [1, 1, 1]
    assert e.layout.split(e.observe(0))["own_discards"].sum() == 0
    # seat 0 cannot locate what seat 2 discarded; seat 2 can
    one = 2 * R["1"]
    assert list(e.unseen(0)[one : one + 2]) == [1, 1] and list(e.unseen(2)[one : one + 2]) == [1, 0]


def test_poker_discards_only_as_far_as_the_stock_reaches():
    e = deal(n=8, dealer=7, poker=True)  # 8 knockers: 42 - 24 - 16 = 2 stock cards left
    play(e, *["knock"] * 8)
    assert len(e.stock) - e.stock_pos == 2
    first = [a for a in legal_names(e) if a.startswith("discard")][0]
    play(e, first)
    second = [a for a in legal_names(e) if a.startswith("discard")][0]
    play(e, second)
    assert legal_names(e) == ["done"]
    play(e, "done")
    assert legal_names(e) == ["done"] and all(len(e.hands[s]) == 5 for s in range(8))


def test_poker_betting_check_bet_call_raise_at_most_three_raises():
    e = poker_start()
    play(e, "done", "done")
    assert legal_names(e) == ["check", "bet"]
    play(e, "bet")
    assert e.current_player == 2 and legal_names(e) == ["call", "raise", "fold"]
    play(e, "raise", "raise", "raise")  # seat 2, seat 0, seat 2
    assert e.raises == 3 and e.current_player == 0 and legal_names(e) == ["call", "fold"]
    play(e, "call")
    assert e.phase == Phase.PLAY and e.stake == [4, 0, 4, 0] and e.pot == 12
    play_out(e)
    assert e.net == [-1 - 4 + 24, -1, -1 - 4 - 12, -1]


def test_poker_all_check_goes_to_the_tricks():
    e = poker_start()
    play(e, "done", "done", "check", "check")
    assert e.phase == Phase.PLAY and e.pot == 4 and e.current_player == 0


def test_poker_a_check_then_a_bet_reopens_the_round():
    e = poker_start()
    play(e, "done", "done", "check", "bet")
    assert e.current_player == 0 and legal_names(e) == ["call", "raise", "fold"]
    play(e, "call")
    assert e.phase == Phase.PLAY and e.stake == [1, 0, 1, 0]


def test_poker_fold_leaves_one_player_who_wins_at_once_the_folder_pays_nothing_more():
    e = poker_start()
    play(e, "done", "done", "bet", "fold")
    assert e.terminal and e.status[2] == Status.FOLDED
    assert e.net == [-1 - 1 + 5, -1, -1, -1] and e.info(2)["knocked"] is True


def test_poker_folder_does_not_pay_when_the_others_play():
    hands = {0: STRONG, 1: ["6", "7", "8"], 2: WEAK, 3: ["9", "10", "11"]}
    e = deal(hands=hands, stock=STOCK4, poker=True)
    play(e, "knock", "knock", "knock", "pass", "done", "done", "done")
    play(e, "bet", "fold", "call")  # seat 1 folds
    assert e.phase == Phase.PLAY and e.in_play == [0, 2]
    play_out(e)
    assert e.net[1] == -1 - 0 and e.net[0] == -1 - 1 + 6 + 6 and e.net[2] == -1 - 1 - 6


def test_max_deals_truncates_and_returns_the_pot_in_equal_shares():
    e = deal(max_deals=3, ante_on_redeal=True)
    for _ in range(3):
        play(e, "pass", "pass", "pass", "pass")
    assert e.truncated and not e.terminal and e.deals == 3
    assert e.net == [0, 0, 0, 0] and e.pot == 0 and e.info(0)["winner"] is None


def test_max_deals_refund_may_be_fractional():
    # n=3, payments_stay with a knock stake leaves 5 in the pot; the next episode has 8 to refund
    hands = {0: STRONG, 1: WEAK, 2: ["6", "7", "8"]}
    e = deal(n=3, dealer=2, hands=hands, stock=STOCK4, payments_stay=True, knock_stake=1, max_deals=1)
    play(e, "knock", "knock", "pass")
    play_out(e)
    assert e.pot == 5
    e.new_episode(np.random.default_rng(0), stacked(3, 2, hands, STOCK4), 2)
    play(e, "pass", "pass", "pass")
    assert e.truncated and e.rewards == pytest.approx([-1 + 8 / 3] * 3)
    assert sum(e.net) == pytest.approx(5)  # the carried pot went back to the players


# ---- the observation and unseen ----------------------------------------------------------------
def test_hand_counts_and_relative_status():
    e = deal(hands={0: ["kuku", "kuku", "1"], 1: ["6", "7", "8"], 2: WEAK, 3: ["9", "10", "11"]})
    o = e.layout.split(e.observe(0))
    assert o["hand"][R["kuku"]] == 2 and o["hand"][R["1"]] == 1 and o["hand"].sum() == 3
    play(e, "knock", "pass")
    o = e.layout.split(e.observe(1))  # seat 0 is relative seat 3 of seat 1
    st = o["status"].reshape(4, 6)
    assert st[3, Status.KNOCKED] == 1 and st[0, Status.PASSED] == 1 and st[1, Status.TO_SPEAK] == 1


def test_unseen_copies_fill_the_low_bit_first():
    e = deal(hands={0: ["kuku", "kuku", "1"], 1: ["kille", "7", "8"], 2: WEAK, 3: ["9", "10", "11"]})
    u0, u1 = e.unseen(0), e.unseen(1)
    k, kl = 2 * R["kuku"], 2 * R["kille"]
    assert list(u0[k : k + 2]) == [0, 0] and list(u0[kl : kl + 2]) == [1, 1]
    assert list(u1[kl : kl + 2]) == [1, 0] and list(u1[k : k + 2]) == [1, 1]
    assert u0.sum() == 39 and u0.dtype == np.int8 and u0.shape == (42,)


def test_played_cards_become_known_to_everyone():
    hands = {0: ["kuku", "11", "12"], 1: ["6", "7", "8"], 2: ["kille", "1", "2"], 3: ["9", "3", "4"]}
    e = deal(hands=hands, stock=["vardshus", "kavall", "blaren", "blompotta"])
    play(e, "knock", "pass", "knock", "pass", "play:kuku")
    k = 2 * R["kuku"]
    for s in (1, 2, 3):
        assert list(e.unseen(s)[k : k + 2]) == [1, 0]
    v = 2 * R["vardshus"]
    assert list(e.unseen(1)[v : v + 2]) == [1, 1]  # seat 0's extra card stays hidden from seat 1
    assert list(e.unseen(0)[v : v + 2]) == [1, 0]


# ---- errors ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "options, words",
    [
        ({"num_players": 9}, "3 to 8"),
        ({"num_players": 2}, "3 to 8"),
        ({"ante": 0}, "positive"),
        ({"max_bet": 0}, "positive"),
        ({"knock_stake": -1}, ">= 0"),
        ({"poker": "yes"}, "True or False"),
        ({"max_deals": 0}, "positive"),
        ({"jokers": True}, "allowed options"),
    ],
)
def test_bad_options_raise_value_error_saying_what_is_allowed(options, words):
    with pytest.raises(ValueError, match=words):
        FemkortskilleEngine(**options)


@pytest.mark.parametrize(
    "change, words",
    [
        (lambda d: d[:-1], "missing: "),
        (lambda d: d[:-1] + ["joker"], "unknown kille card"),
        (lambda d: d[:-1] + [d[0]], "duplicate"),
        (lambda d: [c if c != "5" else "kille" for c in d], "duplicate cards: kille .4 copies.; missing: 5"),
        (lambda d: [c if i != d.index("5") else "kille" for i, c in enumerate(d)], "kille .3 copies.; missing: 5"),
        (lambda d: "kille", "list of card codes"),
    ],
)
def test_malformed_decks_raise_value_error(change, words):
    deck = stacked(4, 3, {})
    e = FemkortskilleEngine()
    with pytest.raises(ValueError, match=words):
        e.new_episode(np.random.default_rng(0), change(deck), 3)


def test_bad_dealer_raises():
    with pytest.raises(ValueError, match="dealer"):
        FemkortskilleEngine().new_episode(np.random.default_rng(0), None, 4)


def test_illegal_actions_raise_naming_agent_action_and_legal_actions_state_unchanged():
    e = deal(hands=HANDS4, stock=STOCK4)
    play(e, "knock", "pass", "knock", "pass")
    snap = e.clone()
    for bad in [e.action_from_string("knock"), e.action_from_string("play:1"), 99, -1, "knock", None, 3.0]:
        with pytest.raises(IllegalActionError) as err:
            e.step(bad)
        assert "player_0" in str(err.value) and "play:kille" in str(err.value)
    assert "'knock'" in str(IllegalActionError("player_0", "knock", []))
    for s in range(4):
        assert np.array_equal(e.observe(s), snap.observe(s)) and np.array_equal(e.unseen(s), snap.unseen(s))
    assert e.history == snap.history and e.hands == snap.hands and e.legal_actions() == snap.legal_actions()


def test_steps_after_the_end_are_illegal():
    e = deal()
    play(e, "knock", "pass", "pass", "pass")
    with pytest.raises(IllegalActionError, match=r"\(none\)"):
        play(e, "pass")


def test_action_names_round_trip_and_spellings():
    e = FemkortskilleEngine(skituppslag=True, auktion=True, poker=True)
    for i, name in enumerate(e.action_names):
        assert e.action_from_string(name) == i and e.action_to_string(i) == name
    assert e.action_from_string("play:Kuku") == e.action_from_string("play:kuku") == 3 + R["kuku"]
    assert e.action_from_string("PLAY:Värdshus") == 3 + R["vardshus"]
    assert e.action_from_string("discard:10") == e.action_names.index("discard:10")
    with pytest.raises(ValueError):
        e.action_from_string("play:joker")
    with pytest.raises(ValueError):
        FemkortskilleEngine().action_from_string("bet:3")


def test_action_tables_per_configuration():
    assert len(FemkortskilleEngine().action_names) == 24
    p = FemkortskilleEngine(poker=True).action_names
    assert p[:24] == FemkortskilleEngine().action_names
    assert p[24] == "discard:blaren" and p[44] == "discard:kille"
    assert p[45:] == ("done", "check", "bet", "call", "raise", "fold")
    assert FemkortskilleEngine(skituppslag=True).action_names[24] == "show"
    a = FemkortskilleEngine(skituppslag=True, auktion=True, max_bet=3, poker=True).action_names
    assert a[24:28] == ("show", "bet:1", "bet:2", "bet:3") and a[28] == "discard:blaren" and len(a) == 55


def test_render_uses_swedish_names_and_hides_other_hands():
    e = deal(hands=HANDS4, stock=STOCK4)
    play(e, "knock", "pass", "knock", "pass", "play:kille")
    text = e.render(0)
    assert "Killen" not in text.split("player_0:")[1].split("played")[0]  # played, no longer in hand
    assert "Kuku" in text and "Husaren" in text and "Husun" in text
    assert "trick: player_0 Killen" in text
    assert "5 cards" in text and "Blaren" not in text
    public = e.render(None)
    assert "Kuku" not in public and "Killen" in public
