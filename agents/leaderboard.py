"""The benchmark leaderboard: ``kortmiljo leaderboard FILE [--game G] [--png OUT.png]``.

**The file** is one JSON list of benchmark results (:mod:`kortmiljo.agents.benchmark`, docs/benchmark.md),
oldest first; ``kortmiljo benchmark … --leaderboard FILE`` appends to it (made if missing), and
every write replaces the whole file atomically (:func:`kortmiljo.core.files.atomic_write`), so a
reader never sees half a list. A file that is not JSON, not a list, or that holds an entry of the
wrong shape is refused with a one-line error that names the file (and the entry), and nothing is
written to it.

**Groups.** Only results that played the same thing compare: entries are grouped by game,
protocol id, ``config_hash`` and whether they are complete. Entries whose game counts or pool
were overridden (``"complete": false``) are rated only among themselves, under a heading that
says they are not the protocol's.

**The rating.** Within a group every entry and every pool opponent is a player of one openskill
Plackett–Luce model (``tau = 0``: skills that do not drift, so the order of the games matters
little). Each benchmark *deal* is a two-player match between the entry and the opponent it
faced, won by the agent under test when its mean reward over the deal's seat rotations is > 0,
lost for < 0, drawn for 0 (the ``deal_outcomes`` the benchmark stores; deals a cap cut short are
left out). That is the duplicate comparison: at par the mean is 0. Single games would mislead,
since in a game of three or more seats one seat wins well under half its games even at par (in
Sprøyte an agent 0.04 points a game better than the heuristic has a positive reward in 35 % of
its games). The deals are fed in a fixed order: the entries in file order, each entry's deals
round-robin over its opponents (deal 1 against each opponent, then deal 2, …), so the ranking is
the same every time the same file is read. The pool
agents' ratings are shared by every entry of the group, which is what links the entries: an entry
rated above ``heuristic_v0`` won more of its benchmark deals than the pool's heuristic can explain.
**The ranking rule** (:data:`RANK_RULE`, printed with every table and drawn on the PNG): players
are ranked by the conservative rating ``mu - 3 sigma`` (openskill's ordinal), ties by ``mu``, then
by name. ``mu`` is on openskill's scale (25 at the start, a few points per clear difference in
strength) and ``sigma`` is its uncertainty, which shrinks with every deal rated. So a player with few
deals (``search_v0``, whose benchmark counts are small) ranks below one with a lower ``mu`` but many
deals until its deals settle it; the table shows ``mu ± sigma`` and the PNG ``mu ± 3 sigma`` as an
error bar, so that this is visible. The rating is a summary for ranking; the benchmark's means and
intervals against each opponent remain the numbers to quote.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

from kortmiljo.cli import ArgumentParser, check_output_file, fail
from kortmiljo.core import jsonsafe
from kortmiljo.core.files import atomic_write

from .tournament import save_png

Z = 3  # the ranking key is mu - Z sigma, openskill's ordinal
RANK_RULE = "ranked by the conservative rating mu - 3 sigma (openskill's ordinal), ties by mu"
MAX_LEADERBOARD_BYTES = 16 << 20  # a result is about 1 kB: thousands of entries; read no further

ENTRY_KEYS = {
    "protocol": str,
    "complete": bool,
    "game": str,
    "config_hash": str,
    "agent": dict,
    "opponents": dict,
}
OPPONENT_KEYS = {"games": int, "deals": int, "wins": int, "draws": int, "losses": int, "outcomes": str,
                 "deal_outcomes": str}  # fmt: skip


# ---- the file ---------------------------------------------------------------------------------
def check_entry(entry: Any, where: str) -> None:
    """Raise ``ValueError`` naming ``where`` unless ``entry`` has the shape of a benchmark result."""
    if not isinstance(entry, dict):
        raise ValueError(f"{where} is not a benchmark result (a JSON object), got {type(entry).__name__}")
    for key, kind in ENTRY_KEYS.items():
        if key not in entry:
            raise ValueError(f"{where} is not a benchmark result: it has no {key!r}")
        if not isinstance(entry[key], kind):
            raise ValueError(f"{where}: {key!r} must be a {kind.__name__}, got {type(entry[key]).__name__}")
    if not isinstance(entry["agent"].get("name"), str):
        raise ValueError(f"{where}: 'agent' must hold the agent's 'name'")
    for name, opp in entry["opponents"].items():
        if not isinstance(opp, dict):
            raise ValueError(f"{where}: opponent {name!r} must be an object, got {type(opp).__name__}")
        for key, kind in OPPONENT_KEYS.items():
            if not isinstance(opp.get(key), kind) or (kind is int and isinstance(opp.get(key), bool)):
                raise ValueError(f"{where}: opponent {name!r} needs {key!r} as a {kind.__name__}")
        if set(opp["outcomes"]) - set("WDLT") or len(opp["outcomes"]) != opp["games"]:
            raise ValueError(f"{where}: opponent {name!r}: 'outcomes' must be one of W, D, L, T per game")
        if set(opp["deal_outcomes"]) - set("WDLT") or len(opp["deal_outcomes"]) != opp["deals"]:
            raise ValueError(f"{where}: opponent {name!r}: 'deal_outcomes' must be one of W, D, L, T per deal")


def load_entries(path: str | os.PathLike, missing_ok: bool = False) -> list[dict]:
    """The entries of the leaderboard ``path`` (``[]`` for a missing file where ``missing_ok``)."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read(MAX_LEADERBOARD_BYTES + 1)
    except FileNotFoundError:
        if missing_ok:
            return []
        raise ValueError(f"leaderboard {str(path)!r} does not exist") from None
    except OSError as err:
        raise ValueError(f"leaderboard {str(path)!r} cannot be read: {err.strerror or err}") from None
    except UnicodeDecodeError:
        raise ValueError(f"leaderboard {str(path)!r} is not a text file") from None
    try:
        data = jsonsafe.loads(text, what="leaderboard", max_bytes=MAX_LEADERBOARD_BYTES)
    except jsonsafe.JSONError as err:
        why = str(err).removeprefix("leaderboard: ")
        sep = " is " if why.startswith("not valid JSON") else ": "
        raise ValueError(f"leaderboard {str(path)!r}{sep}{why}; it must be a JSON list of benchmark results") from None
    if not isinstance(data, list):
        raise ValueError(
            f"leaderboard {str(path)!r} must be a JSON list of benchmark results, got {type(data).__name__}"
        )
    for i, entry in enumerate(data, 1):
        check_entry(entry, f"entry {i} of leaderboard {str(path)!r}")
    return data


def append_entry(path: str | os.PathLike, result: dict) -> int:
    """Append ``result`` to the leaderboard ``path`` (made if missing); the number of entries now."""
    check_entry(result, "the result")
    entries = load_entries(path, missing_ok=True)
    entries.append(result)
    atomic_write(path, json.dumps(entries, indent=1, ensure_ascii=False) + "\n")
    return len(entries)


# ---- the rating -------------------------------------------------------------------------------
def group_key(entry: dict) -> tuple:
    return (entry["game"], entry["protocol"], entry["config_hash"], entry["complete"])


def _interleaved(entry: dict) -> list[tuple[str, str]]:
    """(opponent, outcome) of every deal of ``entry``, round-robin over the opponents."""
    seqs = [(name, opp["deal_outcomes"]) for name, opp in entry["opponents"].items()]
    out = []
    for i in range(max((len(s) for _, s in seqs), default=0)):
        out += [(name, s[i]) for name, s in seqs if i < len(s)]
    return out


def rate_group(entries: Sequence[tuple[int, dict]]) -> list[dict]:
    """Rows (ranked best first) for the entries of one group, given as (number in the file, entry)."""
    from openskill.models import PlackettLuce

    model = PlackettLuce(tau=0)
    ratings: dict[str, Any] = {}
    stats: dict[str, dict] = {}

    def player(key: str, row: dict) -> Any:
        if key not in ratings:
            ratings[key] = model.rating(name=key)
            stats[key] = {**row, "deals": 0, "wins": 0, "draws": 0, "losses": 0}
        return ratings[key]

    ranks = {"W": [0, 1], "L": [1, 0], "D": [0, 0]}
    for number, entry in entries:
        me = f"#{number} {entry['agent']['name']}"
        player(me, {"player": me, "kind": "entry", "entry": number, "agent": entry["agent"], "means": {}})
        for name, opp in entry["opponents"].items():
            stats[me]["means"][name] = opp.get("mean")
        for name, outcome in _interleaved(entry):
            if outcome == "T":
                continue
            player(name, {"player": name, "kind": "pool", "entry": None, "agent": {"name": name}, "means": {}})
            (a,), (b,) = model.rate([[ratings[me]], [ratings[name]]], ranks=ranks[outcome])
            ratings[me], ratings[name] = a, b
            for key, mine in ((me, outcome), (name, {"W": "L", "L": "W", "D": "D"}[outcome])):
                s = stats[key]
                s["deals"] += 1
                s[{"W": "wins", "L": "losses", "D": "draws"}[mine]] += 1
    return rank_rows([{**stats[key], "mu": float(r.mu), "sigma": float(r.sigma)} for key, r in ratings.items()])


def rank_rows(rows: Sequence[dict]) -> list[dict]:
    """``rows`` (each with ``player``, ``mu`` and ``sigma``) with their ``ordinal`` (``mu - 3 sigma``) and
    ``rank``, best first, by :data:`RANK_RULE`: the ordinal, ties by mu, then by name."""
    out = [{**row, "ordinal": row["mu"] - Z * row["sigma"]} for row in rows]
    out.sort(key=lambda row: (-row["ordinal"], -row["mu"], row["player"]))
    for rank, row in enumerate(out, 1):
        row["rank"] = rank
    return out


def leaderboard(entries: Sequence[dict], game: str | None = None) -> list[dict]:
    """Every group of ``entries`` (of ``game`` only, if given) with its ranked rows, in a fixed order."""
    groups: dict[tuple, list[tuple[int, dict]]] = {}
    for number, entry in enumerate(entries, 1):
        if game is None or entry["game"] == game:
            groups.setdefault(group_key(entry), []).append((number, entry))
    out = []
    for key in sorted(groups, key=lambda k: (k[0], k[1], not k[3], k[2])):
        members = groups[key]
        first = members[0][1]
        out.append(
            {
                "game": key[0],
                "protocol": key[1],
                "config_hash": key[2],
                "complete": key[3],
                "config": first.get("config"),
                "entries": len(members),
                "rank_rule": RANK_RULE,
                "rows": rate_group(members),
            }
        )
    return out


# ---- output -----------------------------------------------------------------------------------
def _signed(x: float | None) -> str:
    return "-" if x is None else f"{x:+.3f}"


def group_title(group: dict, config: bool = True) -> str:
    proto = group["protocol"] if group["complete"] else f"NOT {group['protocol']} (game counts or pool overridden)"
    shown = f" {group['config']}" if config else ""
    count = f"{group['entries']} {'entry' if group['entries'] == 1 else 'entries'}"
    return f"{group['game']} {proto}, config {group['config_hash'][:12]}{shown}: {count}"


def format_table(groups: Sequence[dict]) -> str:
    """Plain-text tables, one per group: rank, player, rating, games and the entries' means per opponent."""
    blocks = []
    for group in groups:
        opponents = sorted({name for row in group["rows"] for name in row["means"]})
        head = ["rank", "player", "kind", "mu±sigma", "mu-3sigma", "deals", "W/D/L", *[f"vs {o}" for o in opponents]]
        rows = [head]
        for row in group["rows"]:
            cells = [
                str(row["rank"]),
                row["player"],
                row["kind"],
                f"{row['mu']:.2f}±{row['sigma']:.2f}",
                f"{row['ordinal']:.2f}",
                str(row["deals"]),
                f"{row['wins']}/{row['draws']}/{row['losses']}",
            ]
            cells += [_signed(row["means"].get(o)) if row["kind"] == "entry" else "" for o in opponents]
            rows.append(cells)
        widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
        lines = [
            "  ".join(c.ljust(w) if i in (1, 2) else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True)))
            for r in rows
        ]
        lines.insert(1, "  ".join("-" * w for w in widths))
        blocks.append("\n".join([group_title(group), *lines, f"({RANK_RULE}; sigma: the rating's uncertainty)"]))
    return "\n\n".join(blocks)


def figure(groups: Sequence[dict]):
    """A matplotlib figure: per group, every player's mu with an error bar of ± 3 sigma, best on top.

    The bar's left end is the ranking key ``mu - 3 sigma`` (:data:`RANK_RULE`, in each title)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    heights = [max(1.8, 0.35 * len(g["rows"]) + 1.2) for g in groups]
    fig, axes = plt.subplots(len(groups), 1, figsize=(8, sum(heights)), squeeze=False, height_ratios=heights)
    for ax, group in zip(axes[:, 0], groups, strict=True):
        rows = list(reversed(group["rows"]))  # rank 1 on top
        for kind, colour in (("entry", "tab:blue"), ("pool", "tab:gray")):
            ys = [y for y, r in enumerate(rows) if r["kind"] == kind]
            if ys:
                mu = [rows[y]["mu"] for y in ys]
                err = [Z * rows[y]["sigma"] for y in ys]
                ax.errorbar(mu, ys, xerr=err, fmt="o", color=colour, capsize=3, label=kind)
        ax.set_yticks(range(len(rows)))
        ax.set_yticklabels([f"{r['rank']}. {r['player']}" for r in rows])
        ax.set_xlabel("openskill rating: mu (dot) ± 3 sigma (bar); the rank goes by the bar's left end")
        ax.set_title(f"{group_title(group, config=False)}\n{RANK_RULE}", fontsize=8)
    return fig


def plot(groups: Sequence[dict], path: str) -> None:
    """The :func:`figure` of ``groups`` as a PNG at ``path``."""
    save_png(figure(groups), path)


# ---- command line -----------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    p = ArgumentParser(
        prog="kortmiljo leaderboard",
        description="Rank every benchmark result of a leaderboard file with openskill ratings (docs/benchmark.md).",
    )
    p.add_argument("file", help="the leaderboard: a JSON list written by kortmiljo benchmark --leaderboard")
    p.add_argument("--game", help="only this game's entries")
    p.add_argument("--png", metavar="OUT.png", help="also draw the ratings as a PNG here")
    p.add_argument("--json", metavar="OUT.json", help="also write the ranked groups as JSON here")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    prog = "kortmiljo leaderboard"
    try:
        check_output_file("--png", args.png)
        check_output_file("--json", args.json)
        if args.png:
            from importlib.util import find_spec

            if find_spec("matplotlib") is None:
                raise ValueError("--png needs matplotlib, which is not installed (pip install 'kortmiljo[train]')")
        entries = load_entries(args.file)
        groups = leaderboard(entries, args.game)
        if not groups:
            games = sorted({e["game"] for e in entries})
            raise ValueError(
                f"leaderboard {args.file!r} holds no entries"
                + (f" of {args.game} (games in it: {', '.join(games) or 'none'})" if args.game else "")
            )
    except ValueError as err:
        return fail(prog, err)
    print(format_table(groups))
    try:
        if args.json:
            atomic_write(args.json, json.dumps(groups, indent=2, ensure_ascii=False) + "\n")
            print(f"ranking written to {args.json}")
        if args.png:
            plot(groups, args.png)
            print(f"chart written to {args.png}")
    except Exception as err:
        return fail(prog, f"could not write the output: {err}", 1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
