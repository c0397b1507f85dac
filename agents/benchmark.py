"""A fixed, versioned strength benchmark: ``kortmiljo benchmark GAME --agent SPEC [--config K=V …]``.

A tournament (``kortmiljo eval``) answers "which of these agents is better, here, today"; a
benchmark answers "how strong is this agent", in numbers that stay comparable between agents,
machines and months. It does that by fixing everything but the agent under a **protocol id**,
printed with every result and stored in its JSON. Whatever changes what a protocol plays (the
pool, a game count, the seeds, the seating, the scoring) gets a new id (``kb2``), never an edit of
``kb1``; docs/benchmark.md has the full protocol, the measurements its counts rest on and the rules.

**The protocol** (:data:`PROTOCOLS`; one file per protocol, agents/protocols/kb1.json: data
rather than code, so that no generic module names the games): a pool of opponents (``random``,
``heuristic_v0``, ``search_v0``, ``pretrained_v1``), a deal-seed base per game and a number of
games per game and opponent; ``protocol_sha256`` in every result is the hash of that content.
Against opponent ``O`` the agent under test sits in one seat and ``O`` in every other seat (one
``O`` object drives them all, as a tournament seats an agent named twice; it is a separate object
from the agent under test even where both have the same name). Every deal is played once per seat
of the agent (duplicate deals, seats rotated: in rotation ``r`` the agent sits in seat ``r``), each
time on the same deck, dealer and episode seed, so card luck cancels. (``run_tournament`` with
``[agent, O, O]`` would number the two O's as two agents, and with ``[agent, O]`` in four seats
would seat the agent twice; hence this module's own loop over :func:`kortmiljo.agents.tournament.play_game`.)

**Game counts** (kb1; docs/benchmark.md has the measurements). From the per-deal standard
deviation of heuristic_v0's reward (and of stand-ins: heuristic variants, random play) against
each opponent, about ``(1.96 * std / 0.03) ** 2`` deals give a 95 % half-width of 0.03. That is
reached against the fast opponents in Spøkelse (win/loss rewards, std 0.05–0.2) and Sprøyte (std
0.45–0.86 points), not in Femkortskille (chips, std 1.2–2.5: about ±0.04–0.09 with 12,000 games).
Against ``search_v0`` (1.6–6.2 CPU seconds a game) the counts are what keeps a heuristic-speed
agent's whole benchmark near 10 minutes per game on two cores: ±0.03 in Spøkelse (std ≤ 0.13),
about ±0.14 in Sprøyte and ±0.3 chips in Femkortskille.

**Seeds.** Deal ``d`` of a game comes from ``numpy.random.default_rng([deal_seed, d])`` (the deck
order, the dealer, the episode seed, drawn as :func:`kortmiljo.agents.tournament.run_tournament` draws them),
the same deals for every opponent. Before every game both agents are re-seeded
(``Policy.seed``) from ``SeedSequence([deal_seed, crc32(opponent), d, r, side])``, so a game's
result depends on nothing but the protocol, the game, the configuration and the agent: not on the
games played before it, nor on how the deals are split between worker processes. Two runs of the
same agent on the same protocol give identical numbers, with any ``--workers`` (tested). An agent
whose randomness does not come from its ``seed`` (a plug-in with only ``act``) forfeits that.

**Numbers.** The unit is the deal: the agent's reward in a deal is its mean over the rotations;
``mean`` and ``ci95`` (Student-t, :func:`kortmiljo.agents.stats.mean_ci`) are over those per-deal means. Each
game also counts as a win (reward > 0), a draw (0) or a loss (< 0) for the agent; ``win_rate`` is
wins per scored game, with its Wilson interval. ``outcomes`` spells every game in order (``W``,
``D``, ``L``; ``T`` for a game a cap cut short, which is counted in ``truncated`` and not scored):
``deal_outcomes`` spells every deal the same way by the sign of the agent's mean over the deal's
rotations (the duplicate comparison: above 0, it did better in those seats than the opponent
does); the leaderboard (:mod:`kortmiljo.agents.leaderboard`) rates from it.

**Configurations.** ``--config`` plays the protocol in another configuration of the game. The
``config_hash`` (sha256 of the canonical JSON of :meth:`kortmiljo.core.game.Game.fingerprint`:
game, game version, configuration, actions, layout) names it; only results with the same game,
protocol and hash compare. A pool member that does not exist for the configuration (``pretrained_v1``
where no ``pretrained_v1`` ships for that configuration: :mod:`kortmiljo.agents.pretrained`) is
skipped, and ``skipped`` says why.

**Not the protocol.** :func:`run_benchmark` takes ``games`` (one count for every opponent, or a
dict) and ``pool``, and the command line takes ``--games N`` and ``--pool A B …``, for tests and
quick looks; such a result says ``"complete": false`` and the table says "NOT kb1". The leaderboard ranks such entries
only among themselves, under a heading that says so.

**Workers.** ``--workers N`` (default 2, the cores of the reference machine) splits the deals
between N processes (fork where the platform has it); the results are gathered in deal order, so
they do not depend on N. For ``workers > 1`` an agent given as a :class:`Policy` object must be
picklable.

**Progress.** The deals against each opponent are played in :data:`CHUNKS_PER_WORKER` chunks per
worker, taken round-robin over the opponents (the first chunk of every opponent comes early), and
the bar's time left is :class:`Eta`'s: per opponent, its games left times the seconds per game its
finished chunks took (an opponent not started yet: the median per-game time of those measured, on a
log scale), summed and divided by the workers. One rate over all games (tqdm's own) misleads here:
``search_v0`` takes seconds a game where ``random`` takes milliseconds, and a run that reached
search at 69 % showed 31 s left before it and over an hour after, for a 7-minute run.

**Output.** A table on stdout; ``--out FILE`` writes the result as JSON and ``--leaderboard FILE``
appends it to a leaderboard (a JSON list), both atomically (:func:`kortmiljo.core.files.atomic_write`).
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import math
import multiprocessing
import statistics
import sys
import time
import zlib
from collections.abc import Callable, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import kortmiljo
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
from kortmiljo.core.files import atomic_write
from kortmiljo.core.game import Game
from kortmiljo.core.guard import timed_moves
from kortmiljo.core.options import is_int, parse_options
from kortmiljo.core.registry import game_names, load_game
from kortmiljo.env.aec import CardGameEnv, OrderEnforcing
from kortmiljo.records.format import jsonable

from .base import Policy
from .registry import agent_help, make_agent
from .stats import mean_ci, wilson
from .tournament import play_game


# ---- the protocols ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Protocol:
    """What a benchmark plays: the pool, the deal seeds and the games per game and opponent.

    ``games[game][opponent]`` is the number of games against ``opponent`` (rounded up to whole
    deals of ``num_players`` games); ``games["*"]`` serves a game the table does not name (a
    plug-in game). ``deal_seed[game]`` (``"*"`` likewise) is the base of that game's deal seeds.
    """

    id: str
    version: int
    pool: tuple[str, ...]
    games: Mapping[str, Mapping[str, int]]
    deal_seed: Mapping[str, int]
    notes: str = ""

    def games_for(self, game: str) -> dict[str, int]:
        return dict(self.games.get(game, self.games["*"]))

    def seed_for(self, game: str) -> int:
        return int(self.deal_seed.get(game, self.deal_seed["*"]))

    def sha256(self) -> str:
        """The hash of what the protocol plays (its id, version, pool, games and seeds)."""
        body = {"id": self.id, "version": self.version, "pool": list(self.pool), "games": self.games}
        text = json.dumps({**body, "deal_seed": self.deal_seed}, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


POOL = ("random", "heuristic_v0", "search_v0", "pretrained_v1")
PROTOCOL_DIR = Path(__file__).resolve().parent / "protocols"  # one JSON file per protocol, never edited
DEFAULT_PROTOCOL = "kb1"


def load_protocols(folder: Path = PROTOCOL_DIR) -> dict[str, Protocol]:
    """Every protocol of ``folder`` (``<id>.json``: id, version, pool, games, deal_seed, notes)."""
    out = {}
    for path in sorted(folder.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        proto = Protocol(
            id=data["id"],
            version=int(data["version"]),
            pool=tuple(data["pool"]),
            games={game: dict(counts) for game, counts in data["games"].items()},
            deal_seed=dict(data["deal_seed"]),
            notes=data.get("notes", ""),
        )
        if proto.id != path.stem:
            raise ValueError(f"protocol file {path} holds the protocol {proto.id!r}; name it {proto.id}.json")
        out[proto.id] = proto
    return out


PROTOCOLS: dict[str, Protocol] = load_protocols()
MAX_GAMES = 10**6


def protocol(name: str) -> Protocol:
    if name not in PROTOCOLS:
        raise ValueError(f"unknown protocol {name!r}; protocols: {', '.join(PROTOCOLS)}")
    return PROTOCOLS[name]


def config_hash(game: Game) -> str:
    """sha256 (hex) of the canonical JSON of the game's fingerprint (game, version, config, actions, layout)."""
    text = json.dumps(game.fingerprint(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def package_version() -> str:
    try:
        from importlib.metadata import version

        return version("kortmiljo")
    except Exception:  # not installed as a distribution (a source checkout on sys.path)
        return kortmiljo.__version__


# ---- seeds and deals -------------------------------------------------------------------------
def game_seed(deal_seed: int, opponent: str, deal: int, rotation: int, side: int) -> int:
    """The seed of one agent (``side`` 0: the agent under test, 1: the opponent) in one game."""
    tag = zlib.crc32(opponent.encode("utf-8"))
    return int(np.random.SeedSequence([deal_seed, tag, deal, rotation, side]).generate_state(1, np.uint64)[0])


def make_deal(engine, deal_seed: int, deal: int, n: int) -> tuple[list[str], int, int]:
    """(deck codes, dealer, episode seed) of deal number ``deal``."""
    rng = np.random.default_rng([deal_seed, deal])
    deck = [engine.deck.code(c) for c in rng.permutation(np.asarray(engine.deck.cards))]
    dealer = int(rng.integers(n))
    return deck, dealer, int(rng.integers(2**31))


def _reseed(policy: Any, seed: int) -> None:
    how = getattr(policy, "seed", None)
    if callable(how):
        how(seed)


# ---- playing (also in worker processes) -----------------------------------------------------------
_CACHE: dict = {}  # per process: (game, spec, role) -> Policy, so a worker builds each agent once


def _policy(game: Game, spec: Any, role: str) -> Policy:
    """The agent ``spec`` (a name, or a Policy as is) in the ``role`` "agent" or "opponent": the agent
    under test and an opponent of the same name are two objects, each with its own seeds."""
    if isinstance(spec, Policy) or not isinstance(spec, str):
        return spec
    key = (game, spec, role)
    if key not in _CACHE:
        _CACHE[key] = make_agent(spec, game, seed=0)
    return _CACHE[key]


def play_deals(
    game: Game,
    agent: Any,
    opponent: str,
    opponent_spec: Any,
    deal_seed: int,
    deals: range,
    move_timeout: float | None = None,
    agent_name: str | None = None,
) -> list:
    """Play ``deals`` against one opponent; per deal a list of (agent's reward, or None if cut short) per rotation.

    Every move is guarded (:func:`kortmiljo.agents.tournament.play_game`): an agent or opponent that raises,
    exits or takes more than ``move_timeout`` seconds (None: no limit) over a move ends it with an
    :class:`~kortmiljo.core.errors.AgentError` naming it, the opponent, the deal and the move."""
    env = OrderEnforcing(CardGameEnv(game))
    engine = env.unwrapped.engine
    n = len(env.possible_agents)
    me, them = _policy(game, agent, "agent"), _policy(game, opponent_spec, "opponent")
    mine = agent_name or (agent if isinstance(agent, str) else getattr(me, "name", type(me).__name__))
    theirs = f"{opponent} (the opponent)"
    out = []
    with timed_moves() if move_timeout is not None else nullcontext():
        for d in deals:
            deck, dealer, episode_seed = make_deal(engine, deal_seed, d, n)
            row = []
            for r in range(n):
                _reseed(me, game_seed(deal_seed, opponent, d, r, 0))
                _reseed(them, game_seed(deal_seed, opponent, d, r, 1))
                seated = [me if s == r else them for s in range(n)]
                rewards, infos = play_game(
                    env,
                    seated,
                    episode_seed,
                    {"deck": deck, "dealer": dealer},
                    names=[mine if s == r else theirs for s in range(n)],
                    where=f"deal {d + 1} against {opponent}, game {r + 1} of {n}",
                    move_timeout=move_timeout,
                )
                cut = any(info.get("truncated_by") for info in infos)  # a cap's name; "" or absent: finished
                row.append(None if cut else float(rewards[r]))
            out.append(row)
    return out


def _task(args):
    return play_deals(*args)


# ---- chunks, timing and the time left --------------------------------------------------------------
CHUNKS_PER_WORKER = 8  # chunks of each opponent's deals per worker: the bar and the ETA move this often


def plan_chunks(deals: Mapping[str, int], workers: int) -> list[tuple[str, range]]:
    """(opponent, deals) chunks to play, round-robin over the opponents so that every opponent's time per
    game is measured early. Each opponent's chunks keep their order, so its results are in deal order."""
    chunks = {}
    for name, count in deals.items():
        size = max(1, math.ceil(count / (CHUNKS_PER_WORKER * workers)))
        chunks[name] = [range(start, min(count, start + size)) for start in range(0, count, size)]
    longest = max((len(c) for c in chunks.values()), default=0)
    return [(name, c[i]) for i in range(longest) for name, c in chunks.items() if i < len(c)]


def _timed_task(task: tuple[Callable[[], float], tuple]) -> tuple[list, float]:
    """``play_deals(*args)`` and the seconds it took by ``clock`` (in whichever process plays it)."""
    clock, args = task
    start = clock()
    rows = play_deals(*args)
    return rows, clock() - start


class Eta:
    """The time a benchmark has left, from the seconds per game measured against each opponent.

    ``games`` is the number of games against each opponent, ``parallel`` the workers playing at once.
    After each finished chunk, :meth:`record` adds its games and seconds to its opponent. :meth:`left`
    is then, summed over the opponents, the games left times the opponent's measured seconds per game,
    divided by ``parallel``. An opponent with no finished chunk yet is given the median of the measured
    per-game times on a log scale (for two, their geometric mean), so one slow opponent does not set the
    guess for a fast one. None before the first chunk.
    """

    def __init__(self, games: Mapping[str, int], parallel: int = 1):
        if not is_int(parallel) or parallel < 1:
            raise ValueError(f"parallel must be an int >= 1, got {parallel!r}")
        bad = {name: n for name, n in games.items() if not is_int(n) or n < 0}
        if bad:
            raise ValueError(f"games per opponent must be ints >= 0, got {bad}")
        self.total = dict(games)
        self.done = dict.fromkeys(self.total, 0)
        self.seconds = dict.fromkeys(self.total, 0.0)
        self.parallel = int(parallel)

    def record(self, opponent: str, games: int, seconds: float) -> None:
        """``games`` more games against ``opponent`` were played, in ``seconds``."""
        if opponent not in self.total:
            raise ValueError(f"unknown opponent {opponent!r}; opponents: {', '.join(self.total)}")
        if not is_int(games) or not 0 <= games <= self.total[opponent] - self.done[opponent]:
            left = self.total[opponent] - self.done[opponent]
            raise ValueError(f"games must be an int from 0 to the {left} left against {opponent}, got {games!r}")
        if not isinstance(seconds, (int, float)) or not seconds >= 0:
            raise ValueError(f"seconds must be a number >= 0, got {seconds!r}")
        self.done[opponent] += int(games)
        self.seconds[opponent] += float(seconds)

    @property
    def games_done(self) -> int:
        return sum(self.done.values())

    @property
    def games_total(self) -> int:
        return sum(self.total.values())

    def per_game(self) -> dict[str, float | None]:
        """Seconds per game against each opponent: measured, else the prior (None before any chunk)."""
        measured = {name: self.seconds[name] / n for name, n in self.done.items() if n}
        if not measured:
            return dict.fromkeys(self.total)
        prior = math.exp(statistics.median(math.log(max(t, 1e-9)) for t in measured.values()))
        return {name: measured.get(name, prior) for name in self.total}

    def left(self) -> float | None:
        """Seconds left (None before the first finished chunk)."""
        rates = self.per_game()
        if all(r is None for r in rates.values()):
            return None
        work = sum((self.total[name] - self.done[name]) * rates[name] for name in self.total)
        return work / self.parallel


class _Bar:
    """The tqdm bar of a benchmark: games done, and :class:`Eta`'s time left instead of tqdm's own rate."""

    def __init__(self, total: int, desc: str):
        from tqdm import tqdm

        form = "{l_bar}{bar}| {n_fmt}/{total_fmt} games [{elapsed}{postfix}]"
        self.bar = tqdm(total=total, desc=desc, leave=False, bar_format=form)
        self.bar.set_postfix_str("time left: measuring", refresh=False)

    def __call__(self, eta: Eta) -> None:
        left = eta.left()
        if left is not None:
            self.bar.set_postfix_str(f"about {self.bar.format_interval(left)} left", refresh=False)
        self.bar.update(eta.games_done - self.bar.n)

    def close(self) -> None:
        self.bar.close()


def _play(tasks, workers: int, clock: Callable[[], float]):
    """Yield (opponent, rows, seconds) of every task, in task order, in ``workers`` processes (1: here)."""
    if workers > 1 and len(tasks) > 1:
        methods = multiprocessing.get_all_start_methods()
        ctx = multiprocessing.get_context("fork" if "fork" in methods else None)
        with ctx.Pool(min(workers, len(tasks))) as pool:
            timed = pool.imap(_timed_task, [(clock, args) for _, args in tasks])
            for (name, _), (rows, seconds) in zip(tasks, timed, strict=True):
                yield name, rows, seconds
    else:
        for name, args in tasks:
            rows, seconds = _timed_task((clock, args))
            yield name, rows, seconds


# ---- the benchmark -----------------------------------------------------------------------------
def summarize(deal_rows: list[list[float | None]]) -> dict:
    """The numbers against one opponent from the per-deal, per-rotation rewards."""
    means, outcomes, deal_outcomes, wins, draws, losses, cut = [], [], [], 0, 0, 0, 0
    for row in deal_rows:
        scored = [x for x in row if x is not None]
        if scored:
            means.append(sum(scored) / len(scored))
            deal_outcomes.append("W" if means[-1] > 0 else "L" if means[-1] < 0 else "D")
        else:
            deal_outcomes.append("T")
        for x in row:
            if x is None:
                cut += 1
                outcomes.append("T")
            elif x > 0:
                wins += 1
                outcomes.append("W")
            elif x < 0:
                losses += 1
                outcomes.append("L")
            else:
                draws += 1
                outcomes.append("D")
    scored_games = wins + draws + losses
    if means:
        mean, lo, hi = mean_ci(means)
        std = float(np.std(means, ddof=1)) if len(means) > 1 else 0.0
    else:
        mean = lo = hi = std = None
    wl, wh = wilson(wins, scored_games)
    return {
        "games": len(outcomes),
        "deals": len(deal_rows),
        "mean": mean,
        "ci95": [lo, hi],
        "half_width": None if mean is None else (hi - lo) / 2,
        "deal_std": std,
        "win_rate": wins / scored_games if scored_games else 0.0,
        "win_ci95": [wl, wh],
        "wins": wins,
        "draws": draws,
        "losses": losses,
        "truncated": cut,
        "outcomes": "".join(outcomes),
        "deal_outcomes": "".join(deal_outcomes),
    }


def _members_and_counts(proto: Protocol, game: str, pool, games) -> tuple[dict[str, Any], dict[str, int]]:
    """The opponents (name → spec or Policy) and the games against each, the protocol's unless overridden."""
    counts = proto.games_for(game)
    if pool is None:
        members: dict[str, Any] = {name: name for name in proto.pool}
    elif isinstance(pool, Mapping):
        members = dict(pool)
    else:
        members = {name: name for name in pool}
    if not members:
        raise ValueError("the pool is empty: give at least one opponent")
    if games is not None:
        counts = {**counts, **games} if isinstance(games, Mapping) else {name: games for name in members}
    for name in members:
        c = counts.get(name)
        if not is_int(c) or not 1 <= c <= MAX_GAMES:
            raise ValueError(f"games against {name} must be an int from 1 to {MAX_GAMES:,}, got {c!r}")
    return members, counts


def _available(g: Game, members: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """The pool members that exist for this game and configuration, and why the others were skipped."""
    skipped: dict[str, str] = {}
    opponents: dict[str, Any] = {}
    for name, spec in members.items():
        try:
            _policy(g, spec, "opponent")
        except (ValueError, FileNotFoundError, ImportError) as err:  # not there for this game or configuration
            skipped[name] = " ".join(str(err).split())
            continue
        opponents[name] = spec
    return opponents, skipped


def run_benchmark(
    game: Game | str,
    agent: Any,
    protocol_id: str = DEFAULT_PROTOCOL,
    config: dict | None = None,
    pool: Sequence[str] | Mapping[str, Any] | None = None,
    games: int | Mapping[str, int] | None = None,
    workers: int = 2,
    progress: bool | Callable[[Eta], None] = False,
    move_timeout: float | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> dict:
    """Benchmark ``agent`` (a name for :func:`kortmiljo.agents.registry.make_agent`, or a Policy) on a protocol.

    ``pool`` (names, or a dict name → spec/Policy) and ``games`` (one count for every opponent,
    or a dict name → count) override the protocol's; the result then says ``"complete": false``.
    Returns the result dict described in docs/benchmark.md. ``move_timeout``: the longest a move
    may take, in seconds (None: no limit); an agent that raises, exits or takes longer ends the
    benchmark with an :class:`~kortmiljo.core.errors.AgentError` (:func:`play_deals`), also from
    a worker process. ``progress``: True draws a bar with the time left; a callable is called with
    the :class:`Eta` after every finished chunk. ``clock`` times the run and every chunk (in the worker
    that plays it: picklable for ``workers > 1``).
    """
    proto = protocol(protocol_id)
    g = load_game(game, **(config or {})) if isinstance(game, str) else game
    if config and not isinstance(game, str):
        raise ValueError("pass either a configured Game or a game name with config, not both")
    if not is_int(workers) or workers < 1:
        raise ValueError(f"workers must be an int >= 1, got {workers!r}")
    if not (isinstance(progress, bool) or callable(progress)):
        raise ValueError(f"progress must be True, False or a callable taking the Eta, got {progress!r}")
    members, counts = _members_and_counts(proto, g.name, pool, games)
    # the agent under test must exist: a bad spec is the user's error, before any game
    me = _policy(g, agent, "agent")
    agent_spec = agent if isinstance(agent, str) else getattr(agent, "name", type(agent).__name__)
    opponents, skipped = _available(g, members)

    t0 = clock()
    n = g.num_players
    seed = proto.seed_for(g.name)
    chunks = plan_chunks({name: math.ceil(counts[name] / n) for name in opponents}, workers)
    mover = agent if workers > 1 else me
    tasks = [(name, (g, mover, name, opponents[name], seed, deals, move_timeout, agent_spec)) for name, deals in chunks]
    rows: dict[str, list] = {name: [] for name in opponents}
    eta = Eta({name: math.ceil(counts[name] / n) * n for name in opponents}, min(workers, max(1, len(tasks))))
    report = _Bar(eta.games_total, f"{g.name} {agent_spec}") if progress is True else progress or None
    try:
        for name, got, seconds in _play(tasks, workers, clock):
            rows[name] += got
            eta.record(name, len(got) * n, seconds)
            if report is not None:
                report(eta)
    finally:  # also when an agent fails: its error is not drawn over by the bar
        if isinstance(report, _Bar):
            report.close()

    return {
        "kind": "kortmiljo-benchmark",
        "protocol": proto.id,
        "protocol_version": proto.version,
        "protocol_sha256": proto.sha256(),
        "complete": pool is None and games is None,
        "kortmiljo_version": package_version(),
        "game": g.name,
        "game_version": g.version,
        "config": jsonable(dict(g.config)),
        "config_hash": config_hash(g),
        "num_players": n,
        "agent": {"spec": agent_spec, "name": getattr(me, "name", agent_spec)},
        "opponents": {name: summarize(rows[name]) for name in opponents},
        "skipped": skipped,
        "workers": workers,
        "seconds": clock() - t0,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }


# ---- output ----------------------------------------------------------------------------------
def _signed(x: float | None) -> str:
    return "n/a" if x is None else f"{x:+.3f}"


def format_table(result: dict) -> str:
    """A plain-text table: per opponent the games, mean with its interval and the win rate."""
    head = ["opponent", "games", "mean", "95% CI", "±", "win rate", "W/D/L", "cut"]
    rows = [head]
    for name, r in result["opponents"].items():
        lo, hi = r["ci95"]
        rows.append(
            [
                name,
                str(r["games"]),
                _signed(r["mean"]),
                f"[{_signed(lo)}, {_signed(hi)}]",
                "n/a" if r["half_width"] is None else f"{r['half_width']:.3f}",
                f"{r['win_rate']:.3f}",
                f"{r['wins']}/{r['draws']}/{r['losses']}",
                str(r["truncated"]),
            ]
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    lines = [
        "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True)))
        for row in rows
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    proto = result["protocol"] if result["complete"] else f"NOT {result['protocol']} (pool or game counts overridden)"
    title = (
        f"benchmark {proto}: {result['agent']['name']} ({result['agent']['spec']}) in {result['game']}, "
        f"config {result['config_hash'][:12]}, kortmiljo {result['kortmiljo_version']}, {result['seconds']:.1f} s"
    )
    tail = [f"skipped {name}: {why}" for name, why in result["skipped"].items()]
    return "\n".join([title, *lines, *tail])


def write_json(result: dict, path: str) -> None:
    atomic_write(path, json.dumps(result, indent=2, ensure_ascii=False) + "\n")


# ---- command line ----------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    p = ArgumentParser(
        prog="kortmiljo benchmark",
        description="The fixed, versioned strength benchmark of one agent against the pool "
        f"({', '.join(POOL)}), with duplicate deals, rotated seats and fixed seeds (docs/benchmark.md); a pool "
        "member that does not exist for the configuration (pretrained_v1 where none ships for it) is skipped.",
    )
    p.add_argument("game", help=f"the game: {', '.join(game_names())}")
    p.add_argument("--agent", required=True, help=f"the agent under test: {agent_help()}")
    p.add_argument("--protocol", default=DEFAULT_PROTOCOL, help=f"protocol id (default {DEFAULT_PROTOCOL})")
    add_config_option(p)
    p.add_argument(
        "--games",
        type=int_arg(1, MAX_GAMES),
        help="games against every opponent instead of the protocol's (a quick look: the result is marked "
        "as not the protocol's)",
    )
    p.add_argument(
        "--pool",
        nargs="+",
        metavar="AGENT",
        help="opponents instead of the protocol's pool (a quick look: the result is marked as not the protocol's)",
    )
    p.add_argument("--workers", type=int_arg(1, 256), default=2, help="worker processes (default 2)")
    p.add_argument("--out", help="write the result as JSON here")
    p.add_argument("--leaderboard", metavar="FILE", help="append the result to this leaderboard (a JSON list)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_agent_options(p)
    return p


def main(argv: list[str] | None = None) -> int:
    from .leaderboard import append_entry, load_entries

    args = build_parser().parse_args(argv)
    prog = "kortmiljo benchmark"
    try:
        protocol(args.protocol)
        check_output_file("--out", args.out)
        check_output_file("--leaderboard", args.leaderboard)
        if args.leaderboard:
            load_entries(args.leaderboard, missing_ok=True)  # a corrupt leaderboard is refused before the games
        config = parse_options(args.config)
        result = run_benchmark(
            args.game,
            args.agent,
            args.protocol,
            config=config,
            pool=args.pool,
            games=args.games,
            workers=args.workers,
            progress=not args.no_progress,
            move_timeout=args.move_timeout,
        )
    except AgentError as err:
        return agent_failed(prog, err, args.debug)
    except ValueError as err:
        return fail(prog, err)
    print(format_table(result))
    try:
        if args.out:
            write_json(result, args.out)
            print(f"result written to {args.out}")
        if args.leaderboard:
            count = append_entry(args.leaderboard, result)
            print(f"appended to {args.leaderboard} ({count} {'entry' if count == 1 else 'entries'})")
    except (OSError, ValueError) as err:
        return fail(prog, f"could not write the result: {err}", 1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
