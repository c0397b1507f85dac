"""Pretrained reference agents: small MLPs stored as plain numpy arrays, played with numpy alone.

``pretrained_vN`` loads ``agents/weights/<game>_vN.npz``, the weights fitted for the game's
default configuration (the recipes and their figures: docs/models.md); ``pretrained`` is the newest
that ships. Any file in this format plays as ``PATH.npz`` in ``--agents``; ``kortmiljo export
MODEL.zip OUT.npz`` converts a trained ``ppo:`` model into it.

**Configurations.** An agent for another configuration lies beside them as
``agents/weights/<game>@<key>=<value>[,<key>=<value>...]_v<N>.npz``: the options that differ from
the defaults, sorted by key and written as ``--config`` reads them (``femkortskille@num_players=3_v1.npz``,
``sproyte@exchange_quota=(5,4,3)_v1.npz``; :func:`weights_path` and :func:`config_label` make the
name). The name is the whole index: shipping the ``model.npz`` that ``kortmiljo train GAME --config
... --out DIR`` wrote is copying it there under that name, with no second file to keep in step, and
the lookup reads a directory listing, never a weights file (only the file it plays is read). A
test checks that every shipped file's fingerprint holds the configuration its name says; a file
that does not is refused when loaded (:func:`check_weights`). For a configured game,
``pretrained`` is the newest version shipped for exactly its configuration and ``pretrained_vN``
that configuration's own vN; where none ships, the default configuration's vN plays if its
fingerprint agrees (never so today: the fingerprint holds the configuration), else one
``ValueError`` (:func:`no_agent_error`) names the game and configuration, lists the configurations
that have an agent and gives the command that trains one.

**Why this format.** An SB3 ``.zip`` unpickles Python objects when it is loaded, and playing
one needs torch. Here a weights file is an ``.npz`` archive of float32 arrays plus a JSON
header, read with ``allow_pickle=False``: loading runs no code, and inference is a few numpy
matrix products (tens of microseconds a decision, against a tenth of a second for
``search_v0``).

**The file.** ``meta`` holds the JSON header as bytes: ``format`` (``kortmiljo-mlp/1``),
``game``, ``fingerprint`` (:meth:`kortmiljo.core.game.Game.fingerprint` of the game it was
trained on), ``include_unseen`` (the input is ``observation`` followed by ``unseen``),
``activation`` (``tanh`` or ``relu``, between layers), ``actor_layers`` and ``critic_layers``
(counts), ``actor_inputs`` (the actor reads the first so many inputs), optional ``advisor``
(below), and free-form ``source`` (how the weights were made). The arrays are ``actor.K.w``
(inputs × outputs) and ``actor.K.b``; the last actor layer gives one logit per action.
``critic.K.w``/``.b`` (optional) end in one output, the estimated return of the seat to move.

**Advisor.** A file may name an ``advisor``, a deterministic agent of the game (its heuristic,
``heuristic_v0``), whose move is one more input: a one-hot over the actions after the observation
(and ``unseen``). A student distilled from search then starts from the heuristic's judgement and
has only to learn where search departs from it (``train/distill.py --advisor``); the advisor's
move costs about what the heuristic does (a millisecond or less), still far below search.

**Refusals.** A file that is missing, not an npz archive, holds object arrays, lacks the
header, has another format, shapes that do not chain, non-finite numbers, or another game's
fingerprint (game, version, configuration, action names, observation layout) is refused with
one ``ValueError`` that names the file and what is wrong.
"""

from __future__ import annotations

import io
import json
import math
import re
import shlex
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kortmiljo.core import jsonsafe
from kortmiljo.core.files import atomic_write
from kortmiljo.core.game import Game
from kortmiljo.core.options import parse_options

from .base import Policy, choose_from_logits
from .trained import _normal, fingerprint_differences

FORMAT = "kortmiljo-mlp/1"
WEIGHTS_DIR = Path(__file__).resolve().parent / "weights"
PRETRAINED_VERSIONS = (1, 2, 3, 4, 5, 6, 7)  # a version is never retrained: published results (kb1's pool) name one
ACTIVATIONS = {"tanh": np.tanh, "relu": lambda x: np.maximum(x, 0.0, out=x)}
# Loading bounds (docs/agents.md, "Loading weights safely"), each checked before the work it limits:
MAX_BYTES = 64 << 20  # the file, and its arrays uncompressed: far above any reference net (a 512-512 MLP is 3 MB)
MAX_MEMBERS = 64  # arrays in the archive: a meta header and two per layer
MAX_META_BYTES = 1 << 20  # the JSON header (the fingerprint's layout and action names are a few kB)
MAX_ABS_WEIGHT = 1e3  # |weight| and |bias|: the shipped nets stay below 7; past this the logits can overflow

Layer = tuple[np.ndarray, np.ndarray]


# ---- which file is which agent (module docstring, "Configurations") -------------------------------
_FILE_NAME = re.compile(r"(?P<game>[A-Za-z0-9_]+?)(?:@(?P<config>[^@]+))?_v(?P<version>[1-9][0-9]*)\.npz")
_LABEL_CHARS = re.compile(r"[A-Za-z0-9_.+\-=,()]+")  # what a file name may hold on every system


@dataclass(frozen=True)
class Shipped:
    """One shipped weights file: the agent ``pretrained_v<version>`` of ``game`` in the configuration
    whose options other than the defaults are ``config`` (``{}``: the default configuration)."""

    game: str
    config: dict
    version: int
    path: Path


def non_default(game: Game) -> dict:
    """The options of ``game`` that differ from their defaults, as JSON values (tuples as lists):
    the configuration a weights file is named and looked up by. Values that compare equal as JSON
    (a list given for a tuple default) are the default, as the fingerprint counts them."""
    defaults = _normal({k: opt.default for k, opt in game.definition.options.items()})
    return {k: v for k, v in _normal(game.config).items() if v != defaults[k]}


def _value_text(v: Any) -> str:
    """A value as ``--config`` reads it back (:func:`kortmiljo.core.options.parse_value`)."""
    if isinstance(v, bool) or v is None:
        return {True: "true", False: "false", None: "none"}[v]
    if isinstance(v, (list, tuple)):
        return "(" + ",".join(_value_text(x) for x in v) + ")"
    return repr(v) if isinstance(v, float) else str(v)


def config_text(config: dict) -> str:
    """``key=value`` pairs, sorted by key and joined by commas: what ``--config`` reads (empty for ``{}``)."""
    return ",".join(f"{k}={_value_text(config[k])}" for k in sorted(config))


def config_label(config: dict) -> str:
    """The part of a configuration agent's file name after ``@``: :func:`config_text`, refused
    (``ValueError``) where it would not read back as ``config`` or holds characters a file name
    should not."""
    text = config_text(config)
    if not config or not _LABEL_CHARS.fullmatch(text) or _parse_label(text) != _normal(config):
        raise ValueError(
            f"the configuration {text or '(default)'} cannot name a weights file: a file name holds the "
            "non-default options as key=value pairs of letters, digits, '.', '+', '-' and (a,b) tuples"
        )
    return text


def _parse_label(text: str) -> dict | None:
    try:
        return _normal(parse_options([text]))
    except ValueError:
        return None


def parse_file_name(name: str) -> tuple[str, dict, int]:
    """``femkortskille@num_players=3_v1.npz`` → ``("femkortskille", {"num_players": 3}, 1)``;
    ``sproyte_v7.npz`` → ``("sproyte", {}, 7)``. A ``ValueError`` says what a name must look like."""
    m = _FILE_NAME.fullmatch(name)
    config = _parse_label(m["config"]) if m and m["config"] else {}
    if m is None or config is None or (m["config"] and config_text(config) != m["config"]):
        raise ValueError(
            f"{name!r} is not a pretrained agent's file name: <game>_v<N>.npz (the default configuration) or "
            "<game>@<key>=<value>[,<key>=<value>...]_v<N>.npz (the non-default options, sorted by key, "
            "written as --config takes them)"
        )
    return m["game"], config, int(m["version"])


def shipped_agents(game_name: str | None = None) -> list[Shipped]:
    """Every weights file in :data:`WEIGHTS_DIR` (of one game, where named), sorted by game,
    configuration and version. Only file names are read (a directory listing); a file whose name
    does not parse is left out (tests/agents/test_pretrained_configurations.py fails on it)."""
    out = []
    for p in WEIGHTS_DIR.glob("*.npz"):
        try:
            game, config, version = parse_file_name(p.name)
        except ValueError:
            continue
        if game_name in (None, game):
            out.append(Shipped(game, config, version, p))
    return sorted(out, key=lambda s: (s.game, config_text(s.config), s.version))


def shipped_versions(game: str | Game) -> list[int]:
    """The versions that ship for a game in its configuration (a name: the default one)."""
    name, config = (game, {}) if isinstance(game, str) else (game.name, non_default(game))
    return [s.version for s in shipped_agents(name) if s.config == config]


def shipped_configurations(game_name: str | None = None) -> list[str]:
    """The configurations with a pretrained agent, in words, from the file names: ``sproyte
    (v1-v7)`` (a game alone: its default configuration), ``femkortskille num_players=3 (v1)``; with
    ``game_name``, that game's only, without its name (``default (v1-v5)``, ``num_players=3 (v1)``)."""
    groups: dict[tuple[str, str], list[int]] = {}
    for s in shipped_agents(game_name):
        groups.setdefault((s.game, config_text(s.config)), []).append(s.version)
    if game_name is not None:
        return [f"{text or 'default'} ({_versions_text(v)})" for (_, text), v in groups.items()]
    return [f"{game}{' ' + text if text else ''} ({_versions_text(v)})" for (game, text), v in groups.items()]


def _versions_text(versions: list[int]) -> str:
    contiguous = versions == list(range(versions[0], versions[-1] + 1))
    if contiguous and len(versions) > 2:
        return f"v{versions[0]}-v{versions[-1]}"
    return ", ".join(f"v{v}" for v in versions)


def weights_path(game_name: str, version: int = 1, config: dict | None = None) -> Path:
    """Where the package's ``pretrained_v<version>`` weights of a game lie (``config``: the
    non-default options of a configuration, :func:`non_default`; none: the default configuration)."""
    if config:
        return WEIGHTS_DIR / f"{game_name}@{config_label(config)}_v{version}.npz"
    return WEIGHTS_DIR / f"{game_name}_v{version}.npz"


def shipped(version: int = 1) -> list[str]:
    """The games with shipped ``pretrained_v<version>`` weights for their default configuration."""
    return sorted(s.game for s in shipped_agents() if not s.config and s.version == version)


def newest_version(game: str | Game) -> int | None:
    """The newest ``pretrained_v<N>`` (what ``pretrained`` names) that ships for a game: a name
    means its default configuration; a configured :class:`Game`, that configuration's own newest,
    else the default's (which :func:`pretrained_policy` then refuses unless the fingerprints agree)."""
    if not isinstance(game, str):
        own = shipped_versions(game)
        if own:
            return max(own)
        game = game.name
    have = [v for v in PRETRAINED_VERSIONS if v in shipped_versions(game)]
    return max(have) if have else None


# ---- writing and reading --------------------------------------------------------------------------
def save_weights(
    path: str | Path,
    game: Game,
    actor: list[Layer],
    critic: list[Layer] | None = None,
    activation: str = "tanh",
    include_unseen: bool = True,
    actor_inputs: int | None = None,
    source: dict | None = None,
    advisor: str | None = None,
) -> None:
    """Write a weights file for ``game`` atomically (checked by reading it back before it replaces anything)."""
    from kortmiljo import __version__

    if activation not in ACTIVATIONS:
        raise ValueError(f"activation must be one of {', '.join(ACTIVATIONS)}, got {activation!r}")
    critic = list(critic or [])
    inputs = _input_size(game, include_unseen, advisor)
    meta = {
        "format": FORMAT,
        "game": game.name,
        "fingerprint": game.fingerprint(),
        "include_unseen": bool(include_unseen),
        "activation": activation,
        "actor_layers": len(actor),
        "critic_layers": len(critic),
        "actor_inputs": int(actor_inputs if actor_inputs is not None else inputs),
        "inputs": inputs,
        "kortmiljo_version": __version__,
        "source": _plain_json(source or {}),  # a NaN metric (an empty held-out split) is written as null
    }
    if advisor is not None:
        meta["advisor"] = advisor
    arrays = {"meta": np.frombuffer(json.dumps(meta, sort_keys=True, allow_nan=False).encode(), dtype=np.uint8)}
    for part, layers in (("actor", actor), ("critic", critic)):
        for k, (w, b) in enumerate(layers):
            arrays[f"{part}.{k}.w"] = np.ascontiguousarray(w, dtype=np.float32)
            arrays[f"{part}.{k}.b"] = np.ascontiguousarray(b, dtype=np.float32).reshape(-1)
    buf = io.BytesIO()
    np.savez_compressed(buf, **arrays)
    data = buf.getvalue()
    check_weights(_parse(data, str(path)), game, str(path))  # never write a file we would refuse
    atomic_write(path, data)


def _plain_json(x: Any) -> Any:
    """``x`` with every number that is not finite as None: standard JSON, which the reader accepts."""
    if isinstance(x, dict):
        return {k: _plain_json(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain_json(v) for v in x]
    if isinstance(x, (float, np.floating)) and not np.isfinite(x):
        return None
    return x


class Weights:
    """A parsed weights file: its header and the actor's and critic's layers."""

    def __init__(self, meta: dict, actor: list[Layer], critic: list[Layer], source: str = "the weights file"):
        self.meta, self.actor, self.critic = meta, actor, critic
        self.source = source  # where they were read from: what an error about the network names


def read_weights(path: str | Path) -> Weights:
    """Read and check the structure of a weights file (not yet against a game: :func:`check_weights`)."""
    p = Path(path).expanduser()
    if not p.is_file():
        raise ValueError(f"no weights file at {path!s} (expected a kortmiljo .npz weights file)")
    with open(p, "rb") as f:  # at most one byte past the bound, whatever stat said
        data = f.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise ValueError(f"{path}: larger than a weights file may be ({MAX_BYTES:,} bytes, MAX_BYTES)")
    return _parse(data, str(path))


def _check_members(data: bytes, where: str) -> None:
    """The archive's table of contents within the bounds, before any member is decompressed: a
    zip bomb (a small file of huge arrays) is refused by the sizes its headers declare, and
    :func:`_read_arrays` holds each member to its declared size while reading it."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            infos = z.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError) as err:
        raise ValueError(f"{where} is not a readable .npz archive: {err}") from None
    if len(infos) > MAX_MEMBERS:
        raise ValueError(f"{where}: {len(infos):,} arrays; a weights file holds at most {MAX_MEMBERS} (MAX_MEMBERS)")
    total = sum(i.file_size for i in infos)
    if total > MAX_BYTES:
        raise ValueError(
            f"{where}: its arrays take {total:,} bytes uncompressed; a weights file may hold at most "
            f"{MAX_BYTES:,} (MAX_BYTES; a zip bomb?)"
        )


def _read_arrays(data: bytes, where: str) -> dict[str, np.ndarray]:
    """Every member of the archive as an array, each read no further than its declared size."""
    arrays = {}
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            for info in z.infolist():
                name = info.filename[:-4] if info.filename.endswith(".npy") else info.filename
                with z.open(info) as f:
                    raw = f.read(info.file_size + 1)
                if len(raw) != info.file_size:
                    raise ValueError(f"array {name!r} holds {len(raw):,} bytes, its header says {info.file_size:,}")
                arrays[name] = np.lib.format.read_array(io.BytesIO(raw), allow_pickle=False)
    except ValueError as err:
        if "allow_pickle" in str(err) or "Object arrays" in str(err):  # an object array: only pickle loads it
            raise ValueError(f"{where} is refused: it holds arrays that only pickle can load ({err})") from None
        raise ValueError(f"{where} is not a readable .npz archive: {err}") from None
    except Exception as err:  # a damaged member: zlib, CRC or header errors
        raise ValueError(f"{where} is not a readable .npz archive: {type(err).__name__}: {err}") from None
    return arrays


def _parse(data: bytes, where: str) -> Weights:
    if not zipfile.is_zipfile(io.BytesIO(data)):
        raise ValueError(f"{where} is not a kortmiljo weights file (not an .npz archive; corrupt or truncated?)")
    _check_members(data, where)
    arrays = _read_arrays(data, where)
    if "meta" not in arrays:
        raise ValueError(f"{where} is not a kortmiljo weights file (no 'meta' header; format {FORMAT})")
    header = arrays.pop("meta")
    if header.dtype != np.uint8 or header.ndim != 1 or header.size > MAX_META_BYTES:
        raise ValueError(
            f"{where}: its 'meta' header must be JSON text as at most {MAX_META_BYTES:,} uint8 bytes, "
            f"got {header.dtype}{header.shape}"
        )
    try:
        meta = jsonsafe.loads(header.tobytes(), what="header")
    except jsonsafe.JSONError as err:
        msg = str(err).removeprefix("header: ")
        raise ValueError(f"{where}: its 'meta' header is not JSON that kortmiljo reads ({msg})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        got = meta.get("format") if isinstance(meta, dict) else type(meta).__name__
        raise ValueError(f"{where} has format {got!r}; this kortmiljo reads {FORMAT!r}")
    kinds = {"game": str, "fingerprint": dict, "include_unseen": bool, "activation": str, "actor_layers": int,
             "critic_layers": int, "actor_inputs": int, "inputs": int}  # fmt: skip
    wrong = [f"{k} (expected {t.__name__})" for k, t in kinds.items() if not isinstance(meta.get(k), t)]
    if wrong:
        raise ValueError(f"{where}: its header lacks or mistypes {', '.join(wrong)}")
    _check_fingerprint(meta["fingerprint"], where)
    for k in ("actor_layers", "critic_layers"):
        if not 0 <= meta[k] <= MAX_MEMBERS // 2:
            raise ValueError(f"{where}: its header's {k} is {meta[k]}; a weights file has 0..{MAX_MEMBERS // 2}")
    if "advisor" in meta and not isinstance(meta["advisor"], str):
        raise ValueError(f"{where}: its header's advisor must be an agent name, got {meta['advisor']!r:.40}")
    if meta["activation"] not in ACTIVATIONS:
        raise ValueError(f"{where}: activation {meta['activation']!r} is not one of {', '.join(ACTIVATIONS)}")
    layers = {}
    for part in ("actor", "critic"):
        layers[part] = []
        for k in range(meta[f"{part}_layers"]):
            try:
                w, b = arrays.pop(f"{part}.{k}.w"), arrays.pop(f"{part}.{k}.b")
            except KeyError as err:
                raise ValueError(
                    f"{where}: layer {part}.{k} is missing (the header says {meta[f'{part}_layers']})"
                ) from err
            if w.dtype != np.float32 or b.dtype != np.float32 or w.ndim != 2 or b.shape != (w.shape[1],):
                raise ValueError(
                    f"{where}: layer {part}.{k} must be float32 weights (in, out) and bias (out,), "
                    f"got {w.dtype}{w.shape} and {b.dtype}{b.shape}"
                )
            if not (np.isfinite(w).all() and np.isfinite(b).all()):
                raise ValueError(f"{where}: layer {part}.{k} holds NaN or infinite numbers")
            top = max(float(np.abs(w).max(initial=0.0)), float(np.abs(b).max(initial=0.0)))
            if top > MAX_ABS_WEIGHT:
                raise ValueError(
                    f"{where}: layer {part}.{k} holds a weight of magnitude {top:.3g}; at most {MAX_ABS_WEIGHT:g} "
                    "is allowed (MAX_ABS_WEIGHT: larger ones overflow the network's outputs)"
                )
            layers[part].append((w, b))
    if arrays:
        raise ValueError(f"{where}: unexpected arrays {', '.join(sorted(arrays))}")
    if not layers["actor"]:
        raise ValueError(f"{where}: no actor layers")
    for part, first in (("actor", meta["actor_inputs"]), ("critic", meta["inputs"])):
        size = first
        for k, (w, _) in enumerate(layers[part]):
            if w.shape[0] != size:
                raise ValueError(f"{where}: layer {part}.{k} takes {w.shape[0]} inputs, the layer before gives {size}")
            size = w.shape[1]
        if part == "critic" and layers[part] and size != 1:
            raise ValueError(f"{where}: the critic must end in one output, got {size}")
    if meta["actor_inputs"] > meta["inputs"]:
        raise ValueError(f"{where}: the actor reads {meta['actor_inputs']} inputs of {meta['inputs']}")
    return Weights(meta, layers["actor"], layers["critic"], source=where)


_FINGERPRINT = {"game": str, "version": int, "config": dict, "action_names": list, "layout": list}


def _check_fingerprint(fp: dict, where: str) -> None:
    """The header's fingerprint has the types :func:`fingerprint_differences` compares (a
    ``ValueError`` naming the field otherwise, not a ``TypeError`` from deep inside the comparison)."""
    wrong = [f"{k} (expected {t.__name__})" for k, t in _FINGERPRINT.items() if k in fp and not _is(fp[k], t)]
    if "deck_width" in fp and not _is(fp["deck_width"], int):
        wrong.append("deck_width (expected int)")
    if isinstance(fp.get("action_names"), list) and not all(isinstance(a, str) for a in fp["action_names"]):
        wrong.append("action_names (expected a list of names)")
    if isinstance(fp.get("layout"), list) and not all(isinstance(x, list) for x in fp["layout"]):
        wrong.append("layout (expected a list of segments, each a list)")
    if wrong:
        raise ValueError(f"{where}: its header's fingerprint mistypes {', '.join(wrong)}")


def _is(x: Any, t: type) -> bool:
    return isinstance(x, t) and not (t is int and isinstance(x, bool))


def _input_size(game: Game, include_unseen: bool, advisor: str | None = None) -> int:
    return game.layout.size + (game.deck.width if include_unseen else 0) + (game.num_actions if advisor else 0)


def check_weights(w: Weights, game: Game, where: str) -> None:
    """Refuse weights that were not trained on exactly this game (a ``ValueError`` saying what differs)."""
    if w.meta["game"] != game.name:
        raise ValueError(f"{where} holds weights for {w.meta['game']!r}, not {game.name!r}")
    diff = fingerprint_differences(w.meta["fingerprint"], game)
    if diff:
        shown = "; ".join(diff[:8]) + (f"; and {len(diff) - 8} more" if len(diff) > 8 else "")
        raise ValueError(f"{where} was trained on another {game.name} than the one requested: {shown}")
    advisor = w.meta.get("advisor")
    if advisor is not None:
        from .catalog import game_agents

        known = sorted(game_agents(game.name))
        if advisor not in known:  # a versioned name: what the weights learned to read must not change
            raise ValueError(f"{where}: its advisor {advisor!r} is not one of {game.name}'s agents {known}")
    want = _input_size(game, w.meta["include_unseen"], advisor)
    if w.meta["inputs"] != want or w.actor[-1][0].shape[1] != game.num_actions:
        raise ValueError(
            f"{where} takes {w.meta['inputs']} inputs and gives {w.actor[-1][0].shape[1]} actions; "
            f"this {game.name} has {want} and {game.num_actions}"
        )


# ---- playing --------------------------------------------------------------------------------------
class MLPPolicy(Policy):
    """A policy network in numpy: masked logits of the actor; the critic's value where the file has one.

    ``deterministic=True`` (the default) plays the most probable legal action; otherwise it samples
    from the masked softmax with the policy's seeded RNG.
    """

    name = "mlp"

    def __init__(self, game: Game, weights: Weights, seed: int | None = None, deterministic: bool = True,
                 name: str | None = None):  # fmt: skip
        super().__init__(game, seed)
        self.weights = weights
        self.deterministic = deterministic
        self.include_unseen = weights.meta["include_unseen"]
        self.actor_inputs = weights.meta["actor_inputs"]
        self._act = ACTIVATIONS[weights.meta["activation"]]
        if name:
            self.name = name
        self.advisor = None
        if weights.meta.get("advisor"):
            from .catalog import game_agents

            factory = game_agents(game.name).get(weights.meta["advisor"])
            if factory is None:
                raise ValueError(f"advisor {weights.meta['advisor']!r} is not an agent of {game.name}")
            self.advisor = factory(game, seed=seed)

    def seed(self, seed: int | None) -> None:
        super().seed(seed)
        if getattr(self, "advisor", None) is not None:
            self.advisor.seed(seed)

    def vector(self, obs: dict[str, np.ndarray], advised: np.ndarray | None = None) -> np.ndarray:
        """The network's input: observation, ``unseen`` where it reads it, the advisor's move one-hot
        (``advised``, where the caller has it already)."""
        o = np.asarray(obs["observation"], dtype=np.float32)
        parts = [o]
        if self.include_unseen:
            parts.append(np.asarray(obs["unseen"], dtype=np.float32))
        if self.advisor is not None:
            parts.append(advice(self.advisor, obs, self.game.num_actions) if advised is None else advised)
        return parts[0] if len(parts) == 1 else np.concatenate(parts, axis=-1)

    def _forward(self, x: np.ndarray, layers: list[Layer]) -> np.ndarray:
        last = len(layers) - 1
        for k, (w, b) in enumerate(layers):
            x = x @ w
            x += b
            if k < last:
                x = self._act(x)
        return x

    def masked_logits(self, x: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The actor's logits, ``-inf`` on illegal actions. A legal action's logit that is not finite
        (weights that overflow on this input) is a ``ValueError`` naming the weights file: an
        argmax or softmax over such logits could pick an illegal action."""
        legal = np.asarray(mask) > 0
        logits = self._forward(x[..., : self.actor_inputs], self.weights.actor)
        if not math.isfinite(logits.sum()):  # the cheap test of every decision; the exact one when it fails
            bad = legal & ~np.isfinite(logits)
            if bad.any():
                row, action = (int(i) for i in np.argwhere(bad)[0])
                raise ValueError(
                    f"{self.weights.source}: the network's logit for legal action {action} "
                    f"({self.game.action_names[action]}) is {logits[row, action]}, not a finite number; the weights "
                    "overflow on this observation"
                )
        return np.where(legal, logits, -np.inf)

    def value(self, obs: dict[str, np.ndarray]) -> float | None:
        """The critic's estimate of the return of the seat to move, or None without a critic."""
        if not self.weights.critic:
            return None
        v = float(self._forward(self.vector(obs)[None, :], self.weights.critic)[0, 0])
        if not math.isfinite(v):
            raise ValueError(f"{self.weights.source}: the critic's value is {v}, not a finite number")
        return v

    def act(self, obs: dict[str, np.ndarray], engine: Any | None = None) -> int:
        return self._decide(obs)

    def _decide(self, obs: dict[str, np.ndarray], advised: np.ndarray | None = None) -> int:
        mask = np.asarray(obs["action_mask"])
        if not mask.any():
            raise ValueError("no legal action in the observation's action_mask")
        logits = self.masked_logits(self.vector(obs, advised)[None, :], mask[None, :])
        return int(choose_from_logits(logits, self.deterministic, self.rng)[0])

    def act_seat(self, engine: Any, seat: int) -> int:
        """:meth:`act` for the seat on move of ``engine``, the advisor's move read from the engine by
        its own ``act_seat`` (no decoding of the observation; a test checks the moves are equal):
        what :mod:`kortmiljo.train.oracle_data`'s rollouts call, about 30 % faster with a heuristic advisor."""
        obs = engine.observation(seat)
        if self.advisor is None or not hasattr(self.advisor, "act_seat") or not obs["action_mask"].any():
            return self.act(obs)
        advised = np.zeros(self.game.num_actions, dtype=np.float32)
        advised[int(self.advisor.act_seat(engine, seat))] = 1.0
        return self._decide(obs, advised)

    def act_explained(self, obs, engine=None):
        """``act``'s move, the masked softmax over the legal actions, and the critic's value."""
        mask = np.asarray(obs["action_mask"])
        if not mask.any():
            raise ValueError("no legal action in the observation's action_mask")
        logits = self.masked_logits(self.vector(obs)[None, :], mask[None, :])
        action = int(choose_from_logits(logits, self.deterministic, self.rng)[0])
        z = np.exp(logits[0].astype(np.float64) - logits[0].max())
        probs = z / z.sum()
        return action, {int(a): float(probs[a]) for a in np.flatnonzero(mask)}, self.value(obs)

    def act_batch(self, obs: dict[str, np.ndarray]) -> np.ndarray:
        logits = self.masked_logits(self.vector(obs), obs["action_mask"])
        return choose_from_logits(logits, self.deterministic, self.rng).astype(np.int64)


def advice(advisor: Policy, obs: dict[str, np.ndarray], num_actions: int) -> np.ndarray:
    """The advisor's move as a float32 one-hot (a batch of observations: one row each)."""
    if np.ndim(obs["action_mask"]) == 1:
        out = np.zeros(num_actions, dtype=np.float32)
        out[int(advisor.act(obs))] = 1.0
        return out
    moves = np.asarray(advisor.act_batch(obs), dtype=np.int64)
    out = np.zeros((len(moves), num_actions), dtype=np.float32)
    out[np.arange(len(moves)), moves] = 1.0
    return out


def load_mlp_policy(path: str | Path, game: Game, seed: int | None = None, deterministic: bool = True,
                    name: str | None = None) -> MLPPolicy:  # fmt: skip
    """A weights file as a policy for a configured game (refused unless it was trained on exactly that game)."""
    w = read_weights(path)
    check_weights(w, game, str(path))
    return MLPPolicy(game, w, seed=seed, deterministic=deterministic, name=name or str(path))


def pretrained_policy(game: Game, version: int = 1, seed: int | None = None, deterministic: bool = True) -> MLPPolicy:
    """The package's ``pretrained_v<version>`` agent for ``game`` in its configuration: the file
    shipped for exactly that configuration, else the default configuration's where the
    fingerprints agree; else one ``ValueError`` that lists the configurations with an agent and
    says how to make one (module docstring, "Configurations")."""
    config = non_default(game)
    own = [s.path for s in shipped_agents(game.name) if config and s.config == config and s.version == version]
    path = own[0] if own else _default_path(game, config, version)
    w = read_weights(path)
    if config and not own and fingerprint_differences(w.meta["fingerprint"], game):
        raise no_agent_error(game, version)
    check_weights(w, game, f"pretrained_v{version} ({path.name})")
    return MLPPolicy(game, w, seed=seed, deterministic=deterministic, name=f"pretrained_v{version}")


def _default_path(game: Game, config: dict, version: int) -> Path:
    """The default configuration's ``pretrained_v<version>`` file of ``game``, where it ships."""
    if version not in PRETRAINED_VERSIONS:
        own = shipped_versions(game) if config else []
        mine = f"; {game.name} with {config_text(config)} has {_versions_text(own)}" if own else ""
        raise ValueError(
            f"pretrained_v{version} does not exist; versions: {', '.join(map(str, PRETRAINED_VERSIONS))}{mine}"
        )
    path = weights_path(game.name, version)
    if not path.exists():
        if config:
            raise no_agent_error(game, version)
        have = ", ".join(shipped(version)) or "none"
        raise ValueError(f"no pretrained_v{version} weights ship for {game.name} (games with them: {have})")
    return path


def no_agent_error(game: Game, version: int) -> ValueError:
    """Why no ``pretrained_v<version>`` plays ``game`` in its (non-default) configuration: the game
    and the configuration asked for, the configurations with an agent, the commands that make one."""
    config = non_default(game)
    text, own = config_text(config), shipped_versions(game)
    if own:
        head = f"no pretrained_v{version} ships for {game.name} with {text} (it has {_versions_text(own)})"
    else:
        head = f"no pretrained agent ships for {game.name} with {text}"
    if weights_path(game.name, version).exists():
        head += f" (pretrained_v{version} of {game.name} was trained for its default configuration only, not {text})"
    have = ", ".join(shipped_configurations(game.name)) or "none"
    pairs = " ".join(shlex.quote(f"{k}={_value_text(config[k])}") for k in sorted(config))
    return ValueError(
        f"{head}; configurations of {game.name} with a pretrained agent: {have}; make one for this configuration: "
        f"kortmiljo train {game.name} --config {pairs} --recipe pi --hours 2 --out DIR, "
        "then play it with --agents DIR/model.npz"
    )


__all__ = ["FORMAT", "MLPPolicy", "Shipped", "Weights", "check_weights", "config_label", "config_text",
           "load_mlp_policy", "newest_version", "no_agent_error", "non_default", "parse_file_name", "pretrained_policy",
           "read_weights", "save_weights", "shipped", "shipped_agents", "shipped_configurations", "shipped_versions",
           "weights_path"]  # fmt: skip
