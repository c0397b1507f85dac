"""Trained MaskablePPO agents as kortmiljo policies (``ppo:PATH`` in ``make_agent``).

``load_ppo_policy(path, game)`` loads a model written by ``kortmiljo train``:
an SB3 ``.zip`` with a ``config.json`` beside it (game, the game's full configuration,
observation and action sizes, whether the ``unseen`` mask is appended, kortmiljo
version). ``PATH`` may also be the run directory (its ``model.zip`` is used).

**Trust.** An SB3 ``.zip`` stores pickled Python objects (spaces, schedules, policy
arguments) that are unpickled, i.e. executed, when it is loaded. Load only files from
a trusted source; the loader says so on stderr every time it opens a new file.

**Fingerprint.** ``config.json`` carries the fingerprint of the game the model was trained on
(:meth:`kortmiljo.core.game.Game.fingerprint`: name, version, configuration, action names and the
observation layout's segments). Loading compares it with the game asked for and refuses any
difference with a ``ValueError`` that says what differs, so a same-size change of the action
table or the layout never loads an old model silently. A model saved before fingerprints
existed still loads, with a warning, after its sizes (and its action names, where saved) match.

Errors: a file that is not a readable SB3 model, or a model for another game,
configuration, observation size or action count, raises ``ValueError`` saying which.
"""

from __future__ import annotations

import base64
import importlib
import json
import pickletools
import sys
import warnings
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from kortmiljo.core import jsonsafe
from kortmiljo.core.game import Game

from .base import Policy, choose_from_logits

CONFIG_NAME = "config.json"
MAX_CONFIG_BYTES = 1 << 20  # a config.json is a few kB (the fingerprint's layout and action names)
FORMAT = "kortmiljo-ppo/1"
TRUST_NOTE = (
    "kortmiljo: loading {path}: an SB3 .zip model contains pickled Python code that runs when it is "
    "loaded; load only files from a trusted source."
)
_warned: set[str] = set()


def resolve_model_path(path: str | Path) -> Path:
    """A run directory → its ``model.zip``; a path without suffix → ``.zip`` added if that exists."""
    p = Path(path).expanduser()
    if p.is_dir():
        p = p / "model.zip"
    elif not p.exists() and p.suffix != ".zip" and p.with_suffix(".zip").exists():
        p = p.with_suffix(".zip")
    if not p.exists():
        raise ValueError(f"no trained model at {path!s} (expected an SB3 .zip or a run directory with model.zip)")
    return p


def _normal(config: dict) -> dict:
    """JSON round trip, so tuples and lists (and int/float keys) compare equal."""
    return json.loads(json.dumps(config, sort_keys=True, default=str))


def read_model_config(model_path: str | Path) -> dict | None:
    """The ``config.json`` beside a model file, or None when there is none."""
    p = Path(model_path).parent / CONFIG_NAME
    if not p.exists():
        return None
    try:
        cfg = jsonsafe.loads(p.read_bytes()[: MAX_CONFIG_BYTES + 1], what=str(p), max_bytes=MAX_CONFIG_BYTES)
    except OSError as err:
        raise ValueError(f"{p} is not a readable kortmiljo model configuration: {err}") from err
    except jsonsafe.JSONError as err:
        raise ValueError(f"{err} (not a readable kortmiljo model configuration)") from None
    if not isinstance(cfg, dict) or "game" not in cfg:
        raise ValueError(f"{p} is not a kortmiljo model configuration (no 'game' field)")
    kinds = {"env_config": dict, "fingerprint": dict, "action_names": list, "obs_size": int, "action_count": int}
    kinds.update({"privileged_size": int, "include_unseen": bool})
    fp_kinds = {"config": dict, "action_names": list, "layout": list, "version": int}
    wrong = [k for k, t in kinds.items() if k in cfg and not isinstance(cfg[k], t)]
    if isinstance(cfg.get("fingerprint"), dict):
        fp = cfg["fingerprint"]
        wrong += [f"fingerprint.{k}" for k, t in fp_kinds.items() if k in fp and not isinstance(fp[k], t)]
    if wrong:
        raise ValueError(f"{p} is not a valid kortmiljo model configuration (wrong type: {', '.join(wrong)})")
    return cfg


def fingerprint_differences(theirs: dict, game: Game) -> list[str]:
    """What differs between a saved fingerprint and ``game``'s, in words (empty: they agree)."""
    ours = game.fingerprint()
    out = []
    for key in ("game", "version"):
        if theirs.get(key) != ours[key]:
            out.append(f"{key}: model {theirs.get(key)!r}, requested {ours[key]!r}")
    defaults = _normal({k: opt.default for k, opt in game.definition.options.items()})
    model_cfg = {**defaults, **_normal(theirs.get("config", {}))}
    for k in sorted(set(model_cfg) | set(ours["config"])):
        if model_cfg.get(k) != ours["config"].get(k):
            out.append(f"option {k}: model {model_cfg.get(k)!r}, requested {ours['config'].get(k)!r}")
    out += _list_differences("action", theirs.get("action_names", []), ours["action_names"])
    layout_t = [tuple(x) for x in theirs.get("layout", [])]
    out += _list_differences("layout segment", layout_t, [tuple(x) for x in ours["layout"]])
    if theirs.get("deck_width", ours["deck_width"]) != ours["deck_width"]:
        out.append(f"deck width: model {theirs.get('deck_width')}, requested {ours['deck_width']}")
    return out


def _list_differences(what: str, theirs: list, ours: list) -> list[str]:
    out = [
        f"{what} {i}: model {a!r}, requested {b!r}"
        for i, (a, b) in enumerate(zip(theirs, ours, strict=False))
        if a != b
    ]
    if len(theirs) != len(ours):
        out.append(f"{what}s: model has {len(theirs)}, requested {len(ours)}")
    return out


def check_compatible(cfg: dict, game: Game, where: str) -> None:
    """Raise ValueError if a model configuration does not fit ``game`` (its game, configuration,
    fingerprint and sizes); warn when the model predates fingerprints."""
    if cfg.get("game") != game.name:
        raise ValueError(f"{where} was trained for {cfg.get('game')!r}, not {game.name!r}")
    fp = cfg.get("fingerprint")
    if fp is not None:
        diff = fingerprint_differences(fp, game)
        if diff:
            shown = "; ".join(diff[:8]) + (f"; and {len(diff) - 8} more" if len(diff) > 8 else "")
            raise ValueError(f"{where} was trained on another {game.name} than the one requested: {shown}")
    else:
        warnings.warn(
            f"{where} has no game fingerprint (saved before kortmiljo recorded one); checking its "
            "configuration, sizes and action names only",
            stacklevel=3,
        )
        ours = _normal(game.config)
        theirs = _normal(cfg.get("env_config", {}))
        # an option added after the model was trained is absent from its config: it had the default then
        defaults = _normal({k: opt.default for k, opt in game.definition.options.items()})
        theirs = {**{k: v for k, v in defaults.items() if k not in theirs}, **theirs}
        if theirs != ours:
            diff = sorted(k for k in set(theirs) | set(ours) if theirs.get(k) != ours.get(k))
            detail = ", ".join(f"{k}: model {theirs.get(k)!r} vs requested {ours.get(k)!r}" for k in diff)
            raise ValueError(f"{where} was trained for another {game.name} configuration ({detail})")
        if "action_names" in cfg:
            diff = _list_differences("action", list(cfg["action_names"]), list(game.action_names))
            if diff:
                raise ValueError(f"{where} was trained on another action table: {'; '.join(diff[:8])}")
    want_obs = game.layout.size + (game.deck.width if cfg.get("include_unseen", True) else 0)
    if cfg.get("obs_size") != want_obs or cfg.get("action_count") != game.num_actions:
        raise ValueError(
            f"{where} expects observations of {cfg.get('obs_size')} and {cfg.get('action_count')} actions; "
            f"this {game.name} build gives {want_obs} and {game.num_actions} "
            f"(model from kortmiljo {cfg.get('kortmiljo_version')}, the observation layout changed?)"
        )


def actor_logits(sb3_policy: Any, x):
    """Masked-policy logits of an SB3 actor-critic policy for a float tensor batch ``x``."""
    features = sb3_policy.extract_features(x)
    if not sb3_policy.share_features_extractor:
        features = features[0]
    return sb3_policy.action_net(sb3_policy.mlp_extractor.forward_actor(features))


def actor_critic(sb3_policy: Any, x):
    """(logits, values) of an SB3 actor-critic policy for a float tensor batch ``x``, in one forward
    pass (the same computation as :func:`actor_logits` for the logits, as SB3's ``forward``)."""
    features = sb3_policy.extract_features(x)
    if sb3_policy.share_features_extractor:
        latent_pi, latent_vf = sb3_policy.mlp_extractor(features)
    else:
        pi_features, vf_features = features
        latent_pi = sb3_policy.mlp_extractor.forward_actor(pi_features)
        latent_vf = sb3_policy.mlp_extractor.forward_critic(vf_features)
    return sb3_policy.action_net(latent_pi), sb3_policy.value_net(latent_vf)


def masked_probabilities(logits: np.ndarray) -> np.ndarray:
    """The softmax of one row of masked logits (``-inf`` on illegal actions: probability 0)."""
    z = np.exp(np.asarray(logits, dtype=np.float64) - logits.max())
    return z / z.sum()


def clone_policy(sb3_policy: Any, state_dict: dict | None = None) -> Any:
    """A frozen CPU copy of an SB3 policy (``deepcopy`` fails on tensors cached by the last forward pass)."""
    new = type(sb3_policy)(**sb3_policy._get_constructor_parameters())
    new.load_state_dict(sb3_policy.state_dict() if state_dict is None else state_dict)
    new.set_training_mode(False)
    for p in new.parameters():
        p.requires_grad_(False)
    return new


class PPOPolicy(Policy):
    """A policy network (an SB3 ``MaskableActorCriticPolicy``) acting on the env's observation dicts.

    ``deterministic=True`` plays the most probable legal action; otherwise it samples from
    the masked distribution with the policy's own seeded RNG. :meth:`act_explained` also gives
    that distribution and the critic's value of the observation (one forward pass).
    """

    name = "ppo"

    def __init__(
        self,
        game: Game,
        sb3_policy: Any,
        seed: int | None = None,
        deterministic: bool = True,
        include_unseen: bool = True,
        name: str | None = None,
        privileged_size: int = 0,
    ):
        super().__init__(game, seed)
        import torch

        self._torch = torch
        self.net = sb3_policy
        self.net.set_training_mode(False)
        self.deterministic = deterministic
        self.include_unseen = include_unseen
        # a model with an asymmetric critic takes [observation | privileged]; the actor slices the
        # privileged part off before its first layer, so zeros stand in for it (nothing reads them)
        self.privileged_size = int(privileged_size)
        if name:
            self.name = name

    def vector(self, obs: dict[str, np.ndarray]) -> np.ndarray:
        o = np.asarray(obs["observation"], dtype=np.float32)
        parts = [o]
        if self.include_unseen:
            parts.append(np.asarray(obs["unseen"], dtype=np.float32))
        if self.privileged_size:
            parts.append(np.zeros((*o.shape[:-1], self.privileged_size), dtype=np.float32))
        return np.concatenate(parts, axis=-1) if len(parts) > 1 else o

    def masked_logits(self, x: np.ndarray, mask: np.ndarray) -> np.ndarray:
        torch = self._torch
        with torch.no_grad():
            logits = actor_logits(self.net, torch.as_tensor(x, dtype=torch.float32)).numpy()
        return np.where(np.asarray(mask) > 0, logits, -np.inf)

    def _choose(self, logits: np.ndarray) -> np.ndarray:
        return choose_from_logits(logits, self.deterministic, self.rng)

    def act(self, obs: dict[str, np.ndarray], engine: Any | None = None) -> int:
        mask = np.asarray(obs["action_mask"])
        if not mask.any():
            raise ValueError("no legal action in the observation's action_mask")
        logits = self.masked_logits(self.vector(obs)[None, :], mask[None, :])
        return int(self._choose(logits)[0])

    def act_explained(
        self, obs: dict[str, np.ndarray], engine: Any | None = None
    ) -> tuple[int, dict[int, float] | None, float | None]:
        """``act``'s action (the same logits, the same draw from the RNG), the masked action
        distribution's probability of each legal action, and the critic's value of ``obs``, from
        one forward pass. A model with a privileged critic (it reads hidden state that play does not
        have; zeros stand in for it) gives no value: None."""
        mask = np.asarray(obs["action_mask"])
        if not mask.any():
            raise ValueError("no legal action in the observation's action_mask")
        torch = self._torch
        with torch.no_grad():
            logits, values = actor_critic(self.net, torch.as_tensor(self.vector(obs)[None, :], dtype=torch.float32))
        logits = np.where(mask[None, :] > 0, logits.numpy(), -np.inf)
        action = int(self._choose(logits)[0])
        probs = masked_probabilities(logits[0])
        policy = {int(a): float(probs[a]) for a in np.flatnonzero(mask)}
        value = None if self.privileged_size else float(values.numpy().reshape(-1)[0])
        return action, policy, value

    def act_batch(self, obs: dict[str, np.ndarray]) -> np.ndarray:
        logits = self.masked_logits(self.vector(obs), obs["action_mask"])
        return self._choose(logits).astype(np.int64)


# modules that moved: kortmiljo 0.1.0 installed the training code as the top-level package ``train``
MOVED_MODULES = {"train.policy": "kortmiljo.train.policy"}


def _moved_policy_class(path: Path):
    """The policy class of a model saved before its module moved (:data:`MOVED_MODULES`), or None.

    SB3 stores the class as a pickled global reference (module and name); read without unpickling.
    """
    with zipfile.ZipFile(path) as zf:
        if "data" not in zf.namelist():
            return None
        data = json.loads(zf.read("data"))
    blob = data.get("policy_class", {}).get(":serialized:") if isinstance(data, dict) else None
    if not isinstance(blob, str):
        return None
    strings = [arg for _op, arg, _pos in pickletools.genops(base64.b64decode(blob)) if isinstance(arg, str)]
    if len(strings) == 1:  # protocols 0-3: one GLOBAL op, "module name"
        strings = strings[0].split(" ")
    if len(strings) != 2 or strings[0] not in MOVED_MODULES:
        return None
    return getattr(importlib.import_module(MOVED_MODULES[strings[0]]), strings[1])


def _load_sb3(path: Path):
    if not zipfile.is_zipfile(path):
        raise ValueError(f"{path} is not an SB3 model file (not a zip archive; corrupt or truncated?)")
    key = str(path.resolve())
    if key not in _warned:  # said once per file, just before its pickled code would run
        _warned.add(key)
        print(TRUST_NOTE.format(path=path), file=sys.stderr)
    from sb3_contrib import MaskablePPO

    zero = lambda _: 0.0  # noqa: E731  (replaces pickled schedules, which may not unpickle elsewhere)
    custom = {"learning_rate": 0.0, "lr_schedule": zero, "clip_range": zero}
    try:
        moved = _moved_policy_class(path)
        if moved is not None:
            custom["policy_class"] = moved
        return MaskablePPO.load(str(path), device="cpu", custom_objects=custom)
    except Exception as err:  # anything a broken archive throws, as one clear error
        raise ValueError(f"{path} could not be loaded as a MaskablePPO model: {type(err).__name__}: {err}") from err


def load_ppo_policy(path: str | Path, game: Game, seed: int | None = None, deterministic: bool = True) -> PPOPolicy:
    """Load a trained MaskablePPO model as a :class:`PPOPolicy` for a configured game."""
    p = resolve_model_path(path)
    cfg = read_model_config(p)
    if cfg is not None:
        check_compatible(cfg, game, str(p))
        include_unseen = bool(cfg.get("include_unseen", True))
    else:
        include_unseen = None
        print(
            f"kortmiljo: {p} has no {CONFIG_NAME} beside it; checking observation and action sizes only",
            file=sys.stderr,
        )
    model = _load_sb3(p)
    obs_n = int(model.observation_space.shape[0])
    act_n = int(model.action_space.n)
    if act_n != game.num_actions:
        raise ValueError(f"{p} has {act_n} actions; {game.name} has {game.num_actions}")
    if include_unseen is None:
        sizes = {game.layout.size: False, game.layout.size + game.deck.width: True}
        if obs_n not in sizes:
            raise ValueError(
                f"{p} expects observations of {obs_n}; {game.name} gives {min(sizes)} "
                f"(+{game.deck.width} with the unseen mask)"
            )
        include_unseen = sizes[obs_n]
    elif obs_n != cfg["obs_size"] + int(cfg.get("privileged_size", 0)):
        raise ValueError(f"{p} expects inputs of {obs_n}, but its {CONFIG_NAME} says {cfg['obs_size']}")
    privileged = int(cfg.get("privileged_size", 0)) if cfg is not None else 0
    if privileged and getattr(model.policy.mlp_extractor, "actor_dim", None) != obs_n - privileged:
        raise ValueError(f"{p}: its {CONFIG_NAME} declares privileged critic inputs, but the actor reads them")
    return PPOPolicy(
        game,
        model.policy,
        seed=seed,
        deterministic=deterministic,
        include_unseen=include_unseen,
        name=f"ppo:{path}",
        privileged_size=privileged,
    )
