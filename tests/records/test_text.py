"""The text form and ``kortmiljo replay``: tags, every deal, tricks one per line, card symbols,
a seat's view, ``--step``, ``--index``, and one-line errors."""

from __future__ import annotations

import numpy as np
import pytest

import kortmiljo
from kortmiljo.cli import main
from kortmiljo.records import RecordEpisode, redact, save, to_text


def _record(name: str, seed: int, **config):
    env = RecordEpisode(getattr(kortmiljo, f"{name}_v0").env(**config), seats={"player_0": "random"})
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return env.last_record


def test_open_view_lists_every_deal_and_every_trick():
    rec = _record("sproyte", 3, match_to=4)
    text = to_text(rec)
    for tag in ("Game", "Env", "Config", "Seats", "Seed", "Created", "View", "Status", "Result"):
        assert f"[{tag} " in text
    assert '[View "open"]' in text and '[Seats "player_0: random; player_1: ?; player_2: ?"]' in text
    assert text.count("\nDeal ") == len(rec.deals) >= 2
    tricks = {(a["deal"], a["trick"]) for a in rec.actions if a.get("trick") is not None}
    assert text.count("    trick ") == len(tricks)
    first = rec.deals[0]["deck"]
    game = kortmiljo.load_game("sproyte", match_to=4)
    forhand = f"  player_{(rec.deals[0]['dealer'] + 1) % 3}"
    hand_line = next(line for line in text.splitlines() if line.startswith(forhand))
    assert game.deck.pretty(game.deck.parse(first[0])) in hand_line  # the top card goes to forhånd
    assert "?" not in text.split("\nDeal 1")[1].split("\n  exchange")[0]  # the open view hides nothing


def test_seat_view_hides_what_the_seat_never_saw():
    rec = _record("sproyte", 5)
    text = to_text(rec, seat="player_1")
    assert '[View "player_1"]' in text and "[Seed " not in text
    assert "discard ?" in text  # the other seats' face-down discards
    assert text == to_text(redact(rec, 1))


def test_step_stops_after_that_move():
    rec = _record("spokelse", 2)
    text = to_text(rec, step=5)
    assert "(stopped after move 5 of" in text
    numbered = [line for line in text.splitlines() if line.strip()[:1].isdigit()]
    assert numbered and int(numbered[-1].split(".")[0]) <= 5
    with pytest.raises(ValueError, match="step must be a move 0.."):
        to_text(rec, step=len(rec.actions) + 1)


def test_kille_cards_print_with_their_swedish_names():
    rec = _record("femkortskille", 4)
    text = to_text(rec)
    assert any(name in text for name in ("Blaren", "Kavallen", "Värdshuset", "Husun", "Kuku", "Killen"))


def test_replay_cli(tmp_path, capsys):
    rec = _record("sproyte", 7)
    path = tmp_path / "game.json"
    save(rec, path)
    assert main(["replay", str(path)]) == 0
    assert capsys.readouterr().out == to_text(rec)
    assert main(["replay", str(path), "--seat", "player_2", "--step", "20"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(to_text(rec, seat=2, step=20))
    assert "The table after move 20:" in out and "[view of player_2]" in out
    many = tmp_path / "games.jsonl"
    save([rec, _record("spokelse", 1)], many)
    assert main(["replay", str(many), "--index", "1"]) == 0
    assert '[Game "Spøkelse"]' in capsys.readouterr().out


@pytest.mark.parametrize(
    "args, words",
    [
        (["missing.json"], "no such record file"),
        (["game.json", "--seat", "player_5"], "seat must be one of player_0, player_1, player_2"),
        (["game.json", "--step", "9999"], "step must be a move 0.."),
        (["game.json", "--index", "3"], "index 3 is out of range"),
    ],
)
def test_replay_errors_are_one_line(tmp_path, capsys, monkeypatch, args, words):
    monkeypatch.chdir(tmp_path)
    save(_record("sproyte", 8), tmp_path / "game.json")
    assert main(["replay", *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err and err.startswith("kortmiljo replay: ")
