"""Anyone's policy as an agent: ``module:attr`` and ``path/to/file.py:attr`` in ``make_agent``.

``attr`` names one of:

* a :class:`~kortmiljo.core.policy.Policy` subclass, built as ``cls(game, seed=seed, **kwargs)``;
* any other class with an ``act`` method, or a factory (a callable that is not a class), called
  as ``f(game, seed=seed, **kwargs)``, leaving out ``game`` or ``seed`` where its signature takes
  no such argument (``class Mine: def act(self, obs): ...`` needs no constructor at all);
  a factory must return an object with ``act``;
* an object with ``act(obs) -> int``, used as it is.

What is not a kortmiljo ``Policy`` is wrapped in :class:`PluginPolicy`, which passes the live
engine only to an object that says ``needs_engine = True``, turns the action returned into an
int, refuses an action that is not a legal int with a ``ValueError`` naming the agent, what it
returned and the legal actions, forwards ``seed(s)`` to the object where it has one, and is
named by the spec. The Python API takes such objects directly: :func:`as_policy` (which
``make_agent``, ``run_tournament`` and ``play`` use) builds or wraps them the same way.

A file is imported with :func:`importlib.util.spec_from_file_location` under a module name made
from its absolute path, so two files both called ``policy.py`` do not clash; a relative path is
relative to the current directory. A file or module is imported once per process (like any
import). A ``module:attr`` is imported with :func:`importlib.import_module` from ``sys.path``
(for a file in the current folder write ``file.py:attr``).

**Trust.** Loading such an agent imports and runs the user's code, with the rights of the user,
exactly as ``import`` does: name only files and modules you would import yourself.

Every problem is one ``ValueError`` that names the spec: a file that is missing or not a
``.py``, an import that failed (the exception's type and message, and where in the file), a
missing attribute (with the module's public names that look like policies), an attribute of the
wrong kind, a constructor or factory that failed or returned no policy.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import numbers
import re
import sys
import traceback
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from kortmiljo.core.game import Game

from .base import Policy

__all__ = ["MODULE_SPEC", "PluginPolicy", "as_policy", "label", "load_object", "load_plugin", "policy_like_names"]

# a dotted Python identifier path, a colon, and a (dotted) attribute
_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
MODULE_SPEC = re.compile(rf"^{_IDENT}(?:\.{_IDENT})*:{_IDENT}(?:\.{_IDENT})*$")
_MAX_LEGAL_SHOWN = 24


def label(agent: Any) -> str:
    """A display name for an agent given as a spec string or as an object."""
    if isinstance(agent, str):
        return agent
    name = getattr(agent, "name", None)
    if isinstance(name, str) and name and not isinstance(agent, type):
        return name
    if isinstance(agent, type) or inspect.isroutine(agent):
        return getattr(agent, "__name__", None) or repr(agent)
    return type(agent).__name__


class PluginPolicy(Policy):
    """A kortmiljo :class:`Policy` around any object with ``act(obs)`` (see the module docstring)."""

    def __init__(self, obj: Any, game: Game, name: str, seed: int | None = None):
        super().__init__(game, seed)
        if not callable(getattr(obj, "act", None)):
            raise ValueError(f"agent {name!r}: {type(obj).__name__} has no act(obs) method")
        self.obj = obj
        self.name = name
        self.needs_engine = getattr(obj, "needs_engine", False) is True

    def seed(self, seed: int | None) -> None:
        super().seed(seed)
        own = getattr(self.obj, "seed", None)
        if callable(own):
            own(seed)

    def _checked(self, action: Any, obs: dict[str, np.ndarray]) -> int:
        mask = np.asarray(obs["action_mask"])
        a = _as_int(action)
        if a is None or not 0 <= a < len(mask) or not mask[a]:
            legal = [self.game.action_names[i] for i in np.flatnonzero(mask)]
            shown = ", ".join(legal[:_MAX_LEGAL_SHOWN]) + (
                f", … ({len(legal)} in all)" if len(legal) > _MAX_LEGAL_SHOWN else ""
            )
            what = "not an int" if a is None else "not a legal action now"
            if a is not None and 0 <= a < len(mask):
                what += f" ({self.game.action_names[a]})"
            raise ValueError(f"agent {self.name!r} returned {action!r}, {what}; legal actions: {shown}")
        return a

    def act(self, obs: dict[str, np.ndarray], engine: Any | None = None) -> int:
        raw = self.obj.act(obs, engine) if self.needs_engine else self.obj.act(obs)
        return self._checked(raw, obs)

    def act_explained(self, obs, engine=None):
        how = getattr(self.obj, "act_explained", None)
        if not callable(how):
            return self.act(obs, engine), None, None
        action, probs, value = how(obs, engine) if self.needs_engine else how(obs)
        return self._checked(action, obs), probs, value

    def __repr__(self) -> str:
        return f"PluginPolicy({self.name!r}, {type(self.obj).__name__})"


def _as_int(action: Any) -> int | None:
    """``action`` as an int (a Python or numpy integer, or an integer array of one element); None
    for anything else (a float, a bool, a string, None)."""
    if isinstance(action, np.ndarray) and action.size == 1 and np.issubdtype(action.dtype, np.integer):
        return int(action.reshape(()))
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, numbers.Integral):
        return None
    return int(action)


# ---- building and wrapping -------------------------------------------------------------------
def _takes(f: Any) -> tuple[bool, bool]:
    """Whether ``f`` takes a positional argument (the game) and a ``seed`` keyword."""
    try:
        sig = inspect.signature(f)
    except (TypeError, ValueError):  # no signature to read (some builtins): pass both
        return True, True
    params = list(sig.parameters.values())
    positional = any(
        p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL) and p.name != "seed" for p in params
    )
    seed = any(p.kind == p.VAR_KEYWORD or (p.name == "seed" and p.kind != p.POSITIONAL_ONLY) for p in params)
    return positional, seed


def _where(err: BaseException, filename: str | None) -> str:
    """`` (at FILE line N)``: the last frame of the traceback in the user's code, if any."""
    frames = traceback.extract_tb(err.__traceback__)
    mine = [f for f in frames if filename is not None and Path(f.filename) == Path(filename)]
    frame = (mine or [None])[-1]
    if frame is None and isinstance(err, SyntaxError) and err.lineno:
        return ""  # str(SyntaxError) already names the file and line
    return f" (at {Path(frame.filename).name} line {frame.lineno})" if frame else ""


def _call(f: Any, game: Game, seed: int | None, kwargs: dict, name: str) -> tuple[Any, bool]:
    """``f(game, seed=seed, **kwargs)`` with what its signature takes; (result, seed passed)."""
    if isinstance(f, type) and issubclass(f, Policy):
        positional, takes_seed = True, True
    else:
        positional, takes_seed = _takes(f)
    args = (game,) if positional else ()
    kw = {**({"seed": seed} if takes_seed else {}), **kwargs}
    try:
        return f(*args, **kw), takes_seed
    except Exception as err:
        what = "building it" if isinstance(f, type) else "the factory"
        filename = getattr(inspect.getmodule(f), "__file__", None)
        raise ValueError(f"agent {name!r}: {what} failed: {type(err).__name__}: {err}{_where(err, filename)}") from err


def as_policy(obj: Any, game: Game, name: str | None = None, seed: int | None = None, **kwargs: Any) -> Policy:
    """A kortmiljo :class:`Policy` for ``game`` from a Policy subclass, another class with
    ``act``, a factory, or an object with ``act`` (see the module docstring); a ``Policy``
    instance is returned as it is. ``name``: the agent's name (default: the object's)."""
    name = name or label(obj)
    if isinstance(obj, Policy):
        if kwargs:
            raise ValueError(f"agent {name!r} is a ready policy object: it takes no arguments, got {sorted(kwargs)}")
        return obj
    if isinstance(obj, type):
        if not callable(getattr(obj, "act", None)):
            raise ValueError(
                f"agent {name!r} is the class {obj.__name__}, which has no act(obs) method: give a Policy "
                "subclass, a class with act(obs), a factory function or an object with act(obs)"
            )
        if inspect.isabstract(obj):
            missing = ", ".join(sorted(obj.__abstractmethods__))
            raise ValueError(f"agent {name!r}: the class {obj.__name__} is abstract (it does not define {missing})")
        built, seeded = _call(obj, game, seed, kwargs, name)
    elif callable(getattr(obj, "act", None)):
        if kwargs:
            raise ValueError(
                f"agent {name!r} is a ready object with act(obs): it takes no arguments, got {sorted(kwargs)}"
            )
        built, seeded = obj, False
    elif callable(obj):
        built, seeded = _call(obj, game, seed, kwargs, name)
        if not isinstance(built, Policy) and not callable(getattr(built, "act", None)):
            raise ValueError(
                f"agent {name!r}: the factory returned {type(built).__name__}, which has no act(obs) method"
            )
    else:
        raise ValueError(
            f"agent {name!r} is {_kind(obj)}, not a policy: give a Policy subclass, a class with act(obs), "
            "a factory function or an object with act(obs)"
        )
    if isinstance(built, Policy):
        return built
    policy = PluginPolicy(built, game, name, seed)
    if seed is not None and not seeded and callable(getattr(built, "seed", None)):
        built.seed(seed)
    return policy


def _kind(obj: Any) -> str:
    if isinstance(obj, ModuleType):
        return f"the module {obj.__name__}"
    art = "an" if type(obj).__name__[:1].lower() in "aeiou" else "a"
    return f"{art} {type(obj).__name__} ({obj!r:.40})"


# ---- loading ----------------------------------------------------------------------------------
def _looks_like_policy(value: Any, module: ModuleType) -> bool:
    if isinstance(value, type):
        return callable(getattr(value, "act", None)) and not inspect.isabstract(value)
    if inspect.isfunction(value):
        return value.__module__ == module.__name__  # a factory defined there, not an imported helper
    return not isinstance(value, ModuleType) and callable(getattr(value, "act", None))


def policy_like_names(module: ModuleType) -> list[str]:
    """The module's public names that look like policies (classes or objects with ``act``, and
    functions defined in it)."""
    names = getattr(module, "__all__", None) or [n for n in vars(module) if not n.startswith("_")]
    return sorted(n for n in names if hasattr(module, n) and _looks_like_policy(getattr(module, n), module))


def _file_module(path_text: str, spec: str) -> ModuleType:
    path = Path(path_text).expanduser()
    if path.suffix != ".py":
        raise ValueError(f"agent {spec!r}: {path_text} is not a .py file")
    if not path.is_file():
        what = "is a folder, not a .py file" if path.is_dir() else "does not exist"
        raise ValueError(f"agent {spec!r}: the file {path_text} {what} (relative to {Path.cwd()})")
    path = path.resolve()
    stem = re.sub(r"\W", "_", path.stem)
    mod_name = f"_kortmiljo_plugin_{hashlib.sha1(str(path).encode()).hexdigest()[:12]}_{stem}"
    if mod_name in sys.modules:
        return sys.modules[mod_name]
    loader_spec = importlib.util.spec_from_file_location(mod_name, path)
    if loader_spec is None or loader_spec.loader is None:
        raise ValueError(f"agent {spec!r}: {path_text} cannot be imported as a Python file")
    module = importlib.util.module_from_spec(loader_spec)
    sys.modules[mod_name] = module  # before running it, as import does (dataclasses, pickling look it up)
    try:
        loader_spec.loader.exec_module(module)
    except BaseException as err:
        del sys.modules[mod_name]
        if not isinstance(err, Exception):
            raise  # KeyboardInterrupt, SystemExit: not an import error
        raise ValueError(
            f"agent {spec!r}: importing {path_text} failed: {type(err).__name__}: {err}{_where(err, str(path))}"
        ) from err
    return module


def _named_module(mod_name: str, spec: str) -> ModuleType:
    try:
        return importlib.import_module(mod_name)
    except ModuleNotFoundError as err:
        if err.name is not None and mod_name.startswith(err.name) and mod_name[len(err.name) :][:1] in ("", "."):
            top = mod_name.split(".")[0]
            hint = f"; for the file {top}.py in this folder write {top}.py:ATTR" if Path(f"{top}.py").is_file() else ""
            raise ValueError(f"agent {spec!r}: no module named {err.name!r} on the Python path{hint}") from err
        raise ValueError(f"agent {spec!r}: importing {mod_name} failed: ModuleNotFoundError: {err}") from err
    except Exception as err:
        filename = None
        frames = traceback.extract_tb(err.__traceback__)
        if frames:
            filename = frames[-1].filename
        raise ValueError(
            f"agent {spec!r}: importing {mod_name} failed: {type(err).__name__}: {err}{_where(err, filename)}"
        ) from err


def load_object(spec: str) -> Any:
    """The object a ``file.py:attr`` or ``module:attr`` spec names (the module imported)."""
    where, sep, attr = spec.rpartition(":")
    if not sep or not where or not attr:
        raise ValueError(f"agent {spec!r}: expected module:attr or file.py:attr")
    if where.endswith(".py") or "/" in where or "\\" in where:
        module = _file_module(where, spec)
    else:
        module = _named_module(where, spec)
    obj: Any = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            names = policy_like_names(module)
            there = f"; it has: {', '.join(names)}" if names else "; it has no public name that looks like a policy"
            raise ValueError(f"agent {spec!r}: {where} has no attribute {attr!r}{there}")
        obj = getattr(obj, part)
    return obj


def load_plugin(spec: str, game: Game, seed: int | None = None, **kwargs: Any) -> Policy:
    """``make_agent`` for a ``file.py:attr`` or ``module:attr`` spec."""
    return as_policy(load_object(spec), game, name=spec, seed=seed, **kwargs)
