"""The leaderboard shows each rating's uncertainty and ranks by one stated rule (#50): the conservative rating
``mu - 3 sigma``, ties by ``mu``. Checked on made-up ratings (the case of the report: an uncertain ``search_v0``
with the higher ``mu`` ranks below ``pretrained_v1``) and on ratings openskill computes; the PNG's error bars
are read from the figure, not from pixels."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from kortmiljo.agents import benchmark as B
from kortmiljo.agents import leaderboard as L

ROOT = Path(__file__).resolve().parents[2]

# (player, mu, sigma): search has the highest mu but few deals, so the widest uncertainty
RATINGS = [("random", 15.0, 1.0), ("search_v0", 30.0, 4.0), ("pretrained_v1", 27.0, 2.0), ("heuristic_v0", 25.0, 1.0)]


def rows(ratings=RATINGS, kind: str = "pool") -> list[dict]:
    played = {"deals": 10, "wins": 4, "draws": 2, "losses": 4, "means": {}}
    return [{"player": p, "kind": kind, "mu": mu, "sigma": sigma, **played} for p, mu, sigma in ratings]


def group(ranked: list[dict]) -> dict:
    return {"game": "sproyte", "protocol": "kb1", "config_hash": "ab" * 32, "complete": True, "config": {},
            "entries": 1, "rank_rule": L.RANK_RULE, "rows": ranked}  # fmt: skip


def test_the_ranking_is_by_mu_minus_three_sigma_not_by_mu():
    ranked = L.rank_rows(rows())
    assert [r["player"] for r in ranked] == ["heuristic_v0", "pretrained_v1", "search_v0", "random"]
    assert [r["rank"] for r in ranked] == [1, 2, 3, 4]
    for r in ranked:
        assert r["ordinal"] == r["mu"] - 3 * r["sigma"]
    by_mu = max(ranked, key=lambda r: r["mu"])
    assert by_mu["player"] == "search_v0" and by_mu["rank"] == 3  # the higher mu, but the wider uncertainty


def test_ties_go_by_mu_then_by_name():
    tied = rows([("b", 22.0, 2.0), ("a", 22.0, 2.0), ("c", 19.0, 1.0), ("d", 25.0, 3.0)])  # all ordinals 16
    assert [r["player"] for r in L.rank_rows(tied)] == ["d", "a", "b", "c"]


@pytest.fixture(scope="module")
def rated() -> list[dict]:
    """Groups openskill rated from quick benchmarks of a strong and a weak agent."""
    run = dict(pool=["random", "heuristic_v0"], games=12, workers=1)
    return L.leaderboard([B.run_benchmark("spokelse", a, **run) for a in ("heuristic", "random", "heuristic")])


def test_openskills_ratings_are_ranked_by_the_same_rule(rated):
    (g,) = rated
    assert g["rank_rule"] == L.RANK_RULE
    keys = [r["mu"] - 3 * r["sigma"] for r in g["rows"]]
    assert keys == sorted(keys, reverse=True) and [r["rank"] for r in g["rows"]] == list(range(1, len(keys) + 1))
    assert all(r["ordinal"] == pytest.approx(k) for r, k in zip(g["rows"], keys, strict=True))


def test_the_table_shows_every_ratings_uncertainty_and_states_the_rule(rated):
    groups = rated + [group(L.rank_rows(rows()))]
    text = L.format_table(groups)
    blocks = text.split("\n\n")
    assert len(blocks) == len(groups)
    for g, block in zip(groups, blocks, strict=True):
        for r in g["rows"]:
            line = next(x for x in block.splitlines() if f"  {r['player']}  " in x)
            assert f"{r['mu']:.2f}±{r['sigma']:.2f}" in line and f"{r['mu'] - 3 * r['sigma']:.2f}" in line
    assert text.count(L.RANK_RULE) == 2  # once per group
    assert "mu-3sigma" in text.splitlines()[1]


def error_bars(ax) -> dict[float, tuple[float, float, float]]:
    """y → (x of the dot, left and right end of its horizontal error bar), from the axes' errorbar containers."""
    from matplotlib.container import ErrorbarContainer

    out = {}
    for c in ax.containers:
        if isinstance(c, ErrorbarContainer) and c.has_xerr:
            data, _, (bars, *_) = c.lines
            xs, ys = data.get_data()
            for x, y, seg in zip(xs, ys, bars.get_segments(), strict=True):
                out[float(y)] = (float(x), float(seg[0][0]), float(seg[1][0]))
    return out


def test_the_png_draws_every_rating_with_a_three_sigma_error_bar_best_on_top(rated):
    import matplotlib.pyplot as plt

    groups = rated + [group(L.rank_rows(rows()))]
    fig = L.figure(groups)
    try:
        for ax, g in zip(fig.axes, groups, strict=True):
            bars = error_bars(ax)
            assert len(bars) == len(g["rows"])
            labels = [t.get_text() for t in ax.get_yticklabels()]
            for r in g["rows"]:
                y = len(g["rows"]) - r["rank"]  # rank 1 on top
                assert labels[y] == f"{r['rank']}. {r['player']}"
                np.testing.assert_allclose(bars[y], (r["mu"], r["mu"] - 3 * r["sigma"], r["mu"] + 3 * r["sigma"]))
            left_ends = [bars[y][1] for y in sorted(bars, reverse=True)]  # top to bottom
            assert left_ends == sorted(left_ends, reverse=True)  # the rank goes by the bar's left end
            assert L.RANK_RULE in ax.get_title()
    finally:
        plt.close(fig)


def test_the_docs_state_the_rule_and_the_error_bars():
    text = " ".join((ROOT / "docs" / "benchmark.md").read_text(encoding="utf-8").split())
    for words in ("ranked by the conservative rating `mu - 3 sigma`", "ties by `mu`", "error bar of ± 3 sigma",
                  "`mu±sigma`", "`rank_rule`"):  # fmt: skip
        assert words in text, words
