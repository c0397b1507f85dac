"""Duplicate-deal tournaments: ``kortmiljo eval GAME --agents A B [C …] --games N``.

**Duplicate deals.** Card luck is the largest source of noise in card games, so every
deal (a deck order and a dealer drawn from ``seed``) is played once per *rotation* of the
seating, each time on the same cards, so that every agent plays every seat on every deal:

* ``k`` agents, ``n`` seats, ``k <= n``: the seats are filled by cycling the agent list
  (seat ``j`` gets agent ``j mod k``) and the seating is rotated through all ``n``
  rotations (rotation ``r``: seat ``i`` gets agent ``((i + r) mod n) mod k``). Two agents
  in a two-player game play both seatings; two agents in a four-seat game play
  ``ABAB, BABA, ABAB, BABA`` (two copies of each seating).
* ``k > n``: rotation ``r`` (``r = 0 … k-1``) gives seat ``i`` agent ``(i + r) mod k``, so
  every agent still plays every seat exactly once per deal.

Each game of a deal is reset with ``options={"deck": codes, "dealer": d}`` and the same
``seed`` (later deals of a multi-deal episode, such as a Spøkelse match or a void kille
deal, are shuffled from that seed, so they are equal across rotations too, as long as
the play is). ``--games N`` asks for N games; it is rounded up to whole deals, so
``games`` in the results is the number actually played.

**Statistics.** An agent's reward in a game is the mean over the seats it holds (usually
one). The duplicate unit is the deal: ``mean_reward`` is the mean of the per-deal means
over the rotations, ``ci95`` a Student-t 95 % interval over those per-deal means.
``win_rate`` counts seat-games with reward > 0, with a Wilson 95 % interval;
``per_seat`` breaks both down by seat; ``rating`` is an openskill Plackett–Luce rating
(``mu``, ``sigma``, ``ordinal``) updated after every game with the agents ranked by
their reward in it (ties share a rank). A game that a cap cuts short (``truncated_by`` in
its infos: agents that pass cards back and forth forever) is no result: it is counted apart in
``truncated`` (by cap in ``truncated_by``) and left out of every statistic.

Results are printed as a plain table, written as JSON (atomically: temporary file plus
``os.replace``) with ``--out``, and drawn as a PNG bar chart with the intervals with
``--plot`` (matplotlib, Agg backend). Both paths are checked before the first game, so a
typo does not cost the tournament; should writing still fail at the end, the results are
saved in a temporary file and the error says where.

**Records.** ``--record DIR`` (``run_tournament(..., record=DIR)``) saves every game of the
tournament as a game record (:mod:`kortmiljo.records`, docs/records.md): one file
``DIR/<game>-<NNNNNN>.json`` per game, numbered from 0 in the order played (the number zero-padded
to six digits), each written atomically as its game ends, so an interrupted tournament leaves only
whole records. A record's ``seats`` name the agent that sat there (as the table names it:
``search``, ``heuristic#1``, ``ppo:runs/x/model.zip``), its ``event`` is ``{"tournament": {"seed",
"agents"}, "deal", "rotation", "game"}``, and every move carries what its agent could say about it
(``Policy.act_explained``: the probability of each legal move, a value estimate). Games a cap cut
short are recorded too (status ``truncated``). ``DIR`` is made if missing; one that already holds
``*.json`` files, or that is not a folder this process can write in, is refused before the first
game. ``kortmiljo replay`` shows a record; :func:`kortmiljo.records.restore` plays on from any move. A
record that cannot be written (a full disk) ends the tournament with :class:`RecordWriteError`
(``eval``: one line, exit status 2); the records written before it stay whole and valid.

**Agents' failures.** Every move is asked through :func:`kortmiljo.core.guard.guarded_act`: an
agent whose ``act`` raises, calls ``sys.exit()`` or takes more than ``--move-timeout`` seconds
(default :data:`kortmiljo.core.guard.DEFAULT_MOVE_TIMEOUT`; ``0`` or ``none``: no limit) ends
``eval`` with one line naming the agent and the move (``agent X failed at deal 3, game 2 of 2,
move 17 (player_1): ValueError: …``) and exit status 2; ``--debug`` prints its traceback first.
:func:`run_tournament` raises the :class:`~kortmiljo.core.errors.AgentError` (its
``move_timeout`` defaults to None: no limit).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from contextlib import ExitStack, nullcontext
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from kortmiljo.cli import (
    ArgumentParser,
    add_agent_options,
    add_config_option,
    agent_failed,
    check_output_file,
    fail,
    int_arg,
)
from kortmiljo.core.errors import AgentError
from kortmiljo.core.files import atomic_write  # noqa: F401  (part of this module's API)
from kortmiljo.core.game import Game
from kortmiljo.core.guard import guarded_act, guarded_call, timed_moves
from kortmiljo.core.options import is_int, parse_options
from kortmiljo.core.registry import game_names, load_game
from kortmiljo.env.aec import CardGameEnv, OrderEnforcing
from kortmiljo.records.format import jsonable

from .base import Policy
from .plugins import label
from .registry import agent_help, make_agent
from .stats import mean_ci, t95, wilson  # noqa: F401  (t95 and wilson are part of this module's API)


# ---- seating ------------------------------------------------------------------------
def seatings(num_agents: int, num_seats: int) -> list[list[int]]:
    """Agent index per seat, one list per rotation (see the module docstring)."""
    k, n = num_agents, num_seats
    if k <= n:
        return [[((i + r) % n) % k for i in range(n)] for r in range(n)]
    return [[(i + r) % k for i in range(n)] for r in range(k)]


def unique_names(specs: Sequence[Any]) -> list[str]:
    """Display names; a name given more than once is numbered: ``heuristic#1``, ``heuristic#2``."""
    base = [label(s) for s in specs]
    out = []
    for i, b in enumerate(base):
        if base.count(b) > 1:
            out.append(f"{b}#{base[: i + 1].count(b)}")
        else:
            out.append(b)
    return out


# ---- running --------------------------------------------------------------------------
MAX_STEPS = 100_000  # the guard where a game's own cap is switched off (its facts give no bound)
MAX_GAMES = 10**7  # weeks of play for the fastest agents: a larger number is a typo


def play_game(
    env,
    policies: Sequence[Policy],
    seed: int | None = None,
    options: dict | None = None,
    max_steps: int | None = None,
    explain: bool = False,
    *,
    names: Sequence[str] | None = None,
    where: str = "",
    move_timeout: float | None = None,
):
    """Play one episode, seat ``i`` driven by ``policies[i]``; return (rewards, infos) per seat.

    ``explain``: ``env`` is a :class:`kortmiljo.records.RecordEpisode`; every move is asked of
    its agent with ``act_explained`` and what the agent says about it goes to ``env.annotate``.

    Every move goes through :func:`kortmiljo.core.guard.guarded_act`: an agent that raises, calls
    ``sys.exit`` or takes more than ``move_timeout`` seconds (None: no limit) ends the game with an
    :class:`~kortmiljo.core.errors.AgentError` that names it (``names[i]``, default the policy's
    ``name``) and the move: ``{where}, move {k} (player_{i})``, ``k`` numbered from 1 as in the
    game's record.

    Every game caps its episodes (Spøkelse's ``max_steps``, Sprøyte's ``max_deals``): agents that
    pass cards back and forth forever are truncated by the game, and the infos then say
    ``truncated_by``. Where a cap is switched off (the game's facts give no bound on decisions)
    ``max_steps`` agent steps (default 100,000) guard the tournament: past them the game is
    abandoned with a RuntimeError that says so.
    """
    env.reset(seed=seed, options=options)
    if max_steps is None and env.unwrapped.game.facts.max_decisions is None:
        max_steps = MAX_STEPS
    limit = max_steps
    engine = env.unwrapped.engine
    if names is None:
        names = [getattr(p, "name", type(p).__name__) for p in policies]
    seat_of = {a: i for i, a in enumerate(env.possible_agents)}
    total = [0.0] * len(policies)
    infos: list[dict] = [{} for _ in policies]
    with timed_moves() if move_timeout is not None else nullcontext():  # one alarm for the game's moves
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            i = seat_of[agent]
            total[i] += float(reward)
            if term or trunc:
                infos[i] = dict(info)
                action = None
            else:
                if max_steps is not None:
                    max_steps -= 1
                    if max_steps < 0:
                        who = ", ".join(names)
                        raise RuntimeError(
                            f"game abandoned after {limit} steps without ending ({who}); the agents may be "
                            "passing cards back and forth (the game's own cap is switched off)"
                        )
                p = policies[i]
                live = engine if p.needs_engine else None
                at = partial(_move_where, where, engine, i)  # formatted only on a failure
                if explain:
                    call = partial(explained, p, obs, live)
                    action, probs, value = guarded_call(call, agent=names[i], where=at, timeout=move_timeout)
                    env.annotate(policy=probs, value=value)
                else:
                    action = guarded_act(p, obs, live, agent=names[i], where=at, timeout=move_timeout)
            env.step(action)
    return total, infos


def _move_where(where: str, engine: Any, seat: int) -> str:
    move = f"move {len(engine.history) + 1} (player_{seat})"
    return f"{where}, {move}" if where else move


def explained(p, obs, engine):
    """``p.act_explained(obs, engine)``, or ``(p.act(obs, engine), None, None)`` for an agent that
    has only ``act`` (anything with ``act`` plugs in)."""
    how = getattr(p, "act_explained", None)
    if how is None:
        return p.act(obs, engine), None, None
    return how(obs, engine)


def check_record_dir(path: str | os.PathLike) -> Path:
    """The folder ``--record`` names, checked before any game (``ValueError`` saying why not): a
    folder (or a path where one can be made) that this process can write in and that holds no
    ``*.json`` files yet. Nothing is made here (see :func:`make_record_dir`)."""
    p = Path(path).expanduser()
    if p.exists():
        if not p.is_dir():
            raise ValueError(f"--record {str(path)!r} is not a folder; give a folder for the game records")
        if not os.access(p, os.W_OK | os.X_OK):
            raise ValueError(f"--record {str(path)!r} cannot be written: no permission to write in it")
        taken = sorted(p.glob("*.json"))
        if taken:
            raise ValueError(
                f"--record {str(path)!r} already holds {len(taken)} record file{'s' if len(taken) > 1 else ''} "
                f"(such as {taken[0].name}); give a new or empty folder, so that records are not mixed or overwritten"
            )
        return p
    folder = p.absolute().parent
    while not folder.exists():
        folder = folder.parent
    if not folder.is_dir():
        raise ValueError(f"--record {str(path)!r} cannot be made: {folder} is a file, not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ValueError(f"--record {str(path)!r} cannot be made: no permission to write in {folder}")
    return p


def make_record_dir(path: str | os.PathLike) -> Path:
    """:func:`check_record_dir`, then the folder made if missing."""
    p = check_record_dir(path)
    try:
        p.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ValueError(f"--record {str(path)!r} cannot be made: {err.strerror or err}") from None
    return p


class RecordWriteError(OSError):
    """A game record that could not be written (a full disk, say). Every record is written
    atomically, so the ones before it are whole and valid, and no part of this one is left."""

    def __init__(self, err: OSError, path: Path, written: int):
        why = err.strerror or str(err) or type(err).__name__
        super().__init__(
            err.errno,
            f"could not write the game record {path}: {why}; the {written} record{'' if written == 1 else 's'} "
            "written before it are whole, and no part of this one was left",
        )
        self.filename, self.written = str(path), written

    def __str__(self) -> str:
        return self.strerror


def truncated_by(infos: Sequence[dict]) -> str | None:
    """The cap that cut a game short (the ``truncated_by`` of its infos), or None for a finished game."""
    return next((info["truncated_by"] for info in infos if info.get("truncated_by")), None)  # "": not cut short


def run_tournament(
    game: Game | str,
    agents: Sequence[Any],
    games: int,
    config: dict | None = None,
    seed: int = 0,
    progress: bool = True,
    agent_kwargs: dict[str, dict] | None = None,
    record: str | os.PathLike | None = None,
    per_deal: bool = False,
    move_timeout: float | None = None,
) -> dict:
    """Play about ``games`` games of duplicate deals between ``agents`` and return the results dict.

    ``agents`` are names or specs (``"random"``, ``"heuristic"``, ``"search"``, ``"ppo:PATH"``,
    ``"my_policy.py:MyPolicy"``: :mod:`kortmiljo.agents.registry`), :class:`Policy` objects (used as they are),
    or any object with ``act(obs)`` (wrapped: :class:`kortmiljo.agents.plugins.PluginPolicy`, which checks
    every action it returns); ``agent_kwargs`` maps a name to extra keyword arguments for
    :func:`kortmiljo.agents.registry.make_agent` (``{"search": {"worlds": 8}}``). The dict has the
    keys ``game``, ``config``, ``games``, ``agents`` and ``seconds``. ``record``: a folder to
    save every game in as a record (see "Records" in the module docstring; a folder that already
    holds records, or cannot be written, is refused with ``ValueError`` before the first game).
    ``per_deal``: each agent's entry also gets ``deal_means``, its mean reward on every deal in
    deal order (``None`` where a cap cut all its games short). The deals depend only on ``seed``,
    so two tournaments with one seed can be compared deal by deal (``benchmarks/paired_margin.py``).

    Every move is guarded (:func:`play_game`): an agent that raises, calls ``sys.exit`` or takes
    more than ``move_timeout`` seconds over a move (None, the default here: no limit; the command
    line's default is :data:`kortmiljo.core.guard.DEFAULT_MOVE_TIMEOUT`) ends the tournament with an
    :class:`~kortmiljo.core.errors.AgentError` naming the agent, the deal and the move. A record
    that cannot be written (a full disk) ends it with :class:`RecordWriteError`; the records
    written before it are whole.
    """
    if len(agents) < 1:
        raise ValueError("give at least one agent")
    if not is_int(games) or not 1 <= games <= MAX_GAMES:
        raise ValueError(f"games must be an int from 1 to {MAX_GAMES:,}, got {games!r}")
    if not is_int(seed) or seed < 0:
        raise ValueError(f"seed must be a non-negative int, got {seed!r}")
    g = load_game(game, **(config or {})) if isinstance(game, str) else game
    if config and not isinstance(game, str):
        raise ValueError("pass either a configured Game or a game name with config, not both")
    agent_kwargs = agent_kwargs or {}
    if record is not None:
        check_record_dir(record)
    t0 = time.perf_counter()
    env = OrderEnforcing(CardGameEnv(g))
    engine = env.unwrapped.engine
    n = len(env.possible_agents)
    names = unique_names(agents)
    policies: list[Policy] = []
    for j, spec in enumerate(agents):
        if isinstance(spec, Policy):
            policies.append(spec)
        else:  # a name or spec; an object with act(obs) is wrapped, a class or factory built
            kw = agent_kwargs.get(spec, {}) if isinstance(spec, str) else {}
            policies.append(make_agent(spec, g, seed=seed * 1009 + j, **kw))
    rotations = seatings(len(agents), n)
    deals = math.ceil(games / len(rotations))
    record_dir = None
    if record is not None:
        from kortmiljo.records import RecordEpisode, save

        record_dir = make_record_dir(record)  # after the agents: a bad agent leaves no folder behind
        recorder = RecordEpisode(env)
        tournament = {"seed": seed, "agents": names}
    played = 0

    rng = np.random.default_rng(seed)
    truncated: dict[str, int] = {}  # games cut short by a cap, by cap: counted apart, not scored
    by_deal: list[list[float | None]] = [[] for _ in agents]  # agent -> its mean on each deal (None: none finished)
    seat_rewards = [[[] for _ in range(n)] for _ in agents]  # agent -> seat -> rewards
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = [model.rating(name=nm) for nm in names]

    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=deals * len(rotations), desc=f"{g.name} {' vs '.join(names)}", unit="game", leave=False)
    with ExitStack() as stack:
        if bar is not None:
            stack.callback(bar.close)  # also when an agent fails: its error is not drawn over by the bar
        if move_timeout is not None:
            stack.enter_context(timed_moves())
        for deal in range(deals):
            deck = [engine.deck.code(c) for c in rng.permutation(np.asarray(engine.deck.cards))]
            dealer = int(rng.integers(n))
            episode_seed = int(rng.integers(2**31))
            per_agent: list[list[float]] = [[] for _ in agents]
            for rotation, seating in enumerate(rotations):
                seated = [policies[a] for a in seating]
                guard = {
                    "names": [names[a] for a in seating],
                    "where": f"deal {deal + 1}, game {rotation + 1} of {len(rotations)}",
                    "move_timeout": move_timeout,
                }
                options = {"deck": deck, "dealer": dealer}
                if record_dir is None:
                    rewards, infos = play_game(env, seated, episode_seed, options, **guard)
                else:
                    recorder.seats = {env.possible_agents[i]: names[a] for i, a in enumerate(seating)}
                    recorder.event = {"tournament": tournament, "deal": deal, "rotation": rotation, "game": played}
                    rewards, infos = play_game(recorder, seated, episode_seed, options, explain=True, **guard)
                    path = record_dir / f"{g.name}-{played:06d}.json"
                    try:  # atomic (a complete file or none); no fsync: a tournament writes one per game
                        save(recorder.record(), path, fsync=False)
                    except OSError as err:
                        raise RecordWriteError(err, path, played) from err
                played += 1
                cap = truncated_by(infos)
                if cap is not None:
                    truncated[cap] = truncated.get(cap, 0) + 1
                    if bar is not None:
                        bar.update(1)
                    continue
                game_reward: dict[int, list[float]] = {}
                for seat, a in enumerate(seating):
                    seat_rewards[a][seat].append(rewards[seat])
                    game_reward.setdefault(a, []).append(rewards[seat])
                for a, rs in game_reward.items():
                    per_agent[a].append(sum(rs) / len(rs))
                if len(game_reward) > 1:  # rate the agents of this game by their reward in it
                    present = sorted(game_reward)
                    scores = [sum(game_reward[a]) / len(game_reward[a]) for a in present]
                    new = model.rate([[ratings[a]] for a in present], scores=scores)
                    for a, team in zip(present, new, strict=True):
                        ratings[a] = team[0]
                if bar is not None:
                    bar.update(1)
            for a in range(len(agents)):
                by_deal[a].append(sum(per_agent[a]) / len(per_agent[a]) if per_agent[a] else None)

    out_agents = {}
    for a, nm in enumerate(names):
        deal_means = [m for m in by_deal[a] if m is not None]
        mean, lo, hi = mean_ci(deal_means) if deal_means else (None, None, None)  # None: no finished game
        all_rewards = [r for seat in seat_rewards[a] for r in seat]
        wins = sum(1 for r in all_rewards if r > 0)
        wl, wh = wilson(wins, len(all_rewards))
        per_seat = {}
        for seat in range(n):
            rs = seat_rewards[a][seat]
            if rs:
                sw = sum(1 for r in rs if r > 0)
                per_seat[env.possible_agents[seat]] = {
                    "games": len(rs),
                    "mean_reward": float(np.mean(rs)),
                    "win_rate": sw / len(rs),
                }
        rt = ratings[a]
        out_agents[nm] = {
            "mean_reward": mean,
            "ci95": [lo, hi],
            "win_rate": wins / len(all_rewards) if all_rewards else 0.0,
            "win_ci95": [wl, wh],
            "per_seat": per_seat,
            "rating": {"mu": float(rt.mu), "sigma": float(rt.sigma), "ordinal": float(rt.ordinal())},
        }
        if per_deal:
            out_agents[nm]["deal_means"] = by_deal[a]
    return {
        "game": g.name,
        "config": jsonable(dict(g.config)),
        "games": deals * len(rotations),
        "truncated": sum(truncated.values()),
        "truncated_by": truncated,
        "agents": out_agents,
        "seconds": time.perf_counter() - t0,
    }


# ---- output -----------------------------------------------------------------------------
def _signed(x: float | None) -> str:
    return "n/a" if x is None else f"{x:+.3f}"


def format_table(results: dict) -> str:
    """A plain-text table of the results (no colour, no box drawing)."""
    seats = sorted({s for r in results["agents"].values() for s in r["per_seat"]}, key=lambda s: int(s.split("_")[-1]))
    head = ["agent", "mean reward", "95% CI", "win rate", "95% CI", "rating mu±sigma", *[f"{s} mean" for s in seats]]
    rows = [head]
    for name, r in results["agents"].items():
        lo, hi = r["ci95"]
        wl, wh = r["win_ci95"]
        rating = r["rating"]
        row = [
            name,
            _signed(r["mean_reward"]),
            f"[{_signed(lo)}, {_signed(hi)}]",
            f"{r['win_rate']:.3f}",
            f"[{wl:.3f}, {wh:.3f}]",
            f"{rating['mu']:.1f}±{rating['sigma']:.1f}",
        ]
        row += [f"{r['per_seat'][s]['mean_reward']:+.3f}" if s in r["per_seat"] else "-" for s in seats]
        rows.append(row)
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    lines = [
        "  ".join(
            cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        )
        for row in rows
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    title = f"{results['game']} {results['config']}: {results['games']} games, {results['seconds']:.1f} s"
    if results.get("truncated"):
        caps = ", ".join(f"{n} by {cap}" for cap, n in results["truncated_by"].items())
        title += f" ({results['truncated']} cut short and not scored: {caps})"
    return title + "\n" + "\n".join(lines)


def write_json(results: dict, path: str) -> None:
    atomic_write(path, json.dumps(results, indent=2, ensure_ascii=False) + "\n")


def save_elsewhere(results: dict) -> str:
    """Write the results to a new temporary file (when ``--out`` or ``--plot`` failed); its path."""
    fd, path = tempfile.mkstemp(prefix="kortmiljo-eval-", suffix=".json")
    with os.fdopen(fd, "w") as f:
        f.write(json.dumps(results, indent=2, ensure_ascii=False) + "\n")
    return path


def plot(results: dict, path: str) -> None:
    """A PNG bar chart: mean reward with its 95 % CI, and win rate with its Wilson interval."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(results["agents"])
    r = [results["agents"][a] for a in names]
    x = np.arange(len(names))
    mean = np.array([a["mean_reward"] for a in r], dtype=float)  # None (nothing finished) → nan: no bar
    ci = np.array([a["ci95"] for a in r], dtype=float)
    win = np.array([a["win_rate"] for a in r])
    wci = np.array([a["win_ci95"] for a in r])
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(max(6, 1.6 * len(names) + 3), 4))
    ax1.bar(x, mean, yerr=[mean - ci[:, 0], ci[:, 1] - mean], capsize=6, color="tab:blue")
    ax1.axhline(0, color="black", linewidth=0.8)
    ax1.set_ylabel("mean reward per game (95% CI)")
    ax2.bar(x, win, yerr=[win - wci[:, 0], wci[:, 1] - win], capsize=6, color="tab:green")
    ax2.set_ylim(0, 1)
    ax2.set_ylabel("win rate (Wilson 95% CI)")
    for ax in (ax1, ax2):
        ax.set_xticks(x)
        ax.set_xticklabels(names, rotation=20, ha="right")
    fig.suptitle(f"{results['game']}: {results['games']} games (duplicate deals)")
    save_png(fig, path)


def save_png(fig: Any, path: str) -> None:
    """Write a matplotlib figure as a PNG, atomically, and close it."""
    import io

    import matplotlib.pyplot as plt

    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    plt.close(fig)
    atomic_write(path, buf.getvalue())


# ---- command line ------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    p = ArgumentParser(
        prog="kortmiljo eval",
        description="Duplicate-deal tournament between agents, with 95% confidence intervals.",
    )
    p.add_argument("game", help=f"the game: {', '.join(game_names())}")
    p.add_argument(
        "--agents",
        nargs="+",
        required=True,
        metavar="AGENT",
        help=f"the agents: {agent_help()} (a name twice is numbered; see docs/agents.md)",
    )
    p.add_argument(
        "--games",
        type=int_arg(1, MAX_GAMES),
        default=100,
        help=f"games to play (1 to {MAX_GAMES:,}), rounded up to whole duplicate deals (default 100)",
    )
    p.add_argument("--seed", type=int_arg(0), default=0, help="seed of the deals and the agents, >= 0 (default 0)")
    add_config_option(p)
    p.add_argument("--out", help="write the results as JSON here")
    p.add_argument("--plot", help="write a PNG bar chart with the intervals here")
    p.add_argument(
        "--record",
        metavar="DIR",
        help="save every game as a record DIR/<game>-<NNNNNN>.json (moves, the agents' move probabilities "
        "and values); DIR is made if missing and must not hold *.json files yet",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_agent_options(p)
    return p


def check_outputs(out: str | None, chart: str | None) -> None:
    """Every output path usable, before the first game (``ValueError`` saying which is not)."""
    check_output_file("--out", out)
    check_output_file("--plot", chart)
    if out and chart and os.path.abspath(out) == os.path.abspath(chart):
        raise ValueError(f"--out and --plot name the same file {out!r}; give each its own")
    if chart:
        from importlib.util import find_spec

        if find_spec("matplotlib") is None:
            raise ValueError("--plot needs matplotlib, which is not installed (pip install matplotlib)")


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    prog = "kortmiljo eval"
    try:
        check_outputs(args.out, args.plot)
        config = parse_options(args.config)
        results = run_tournament(
            args.game,
            args.agents,
            args.games,
            config,
            args.seed,
            progress=not args.no_progress,
            record=args.record,
            move_timeout=args.move_timeout,
        )
    except AgentError as err:
        return agent_failed(prog, err, args.debug)
    except (ValueError, RecordWriteError) as err:
        return fail(prog, err)
    print(format_table(results))
    if args.record:
        print(f"{results['games']} game records written to {args.record}")
    written = None
    try:
        if args.out:
            write_json(results, args.out)
            written = args.out
            print(f"results written to {args.out}")
        if args.plot:
            plot(results, args.plot)
            print(f"chart written to {args.plot}")
    except Exception as err:  # the tournament is done: whatever went wrong, keep its results
        where = written or save_elsewhere(results)
        what = "--plot" if written or not args.out else "--out"
        return fail(prog, f"could not write {what}: {err}; the results are saved in {where}", 1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
