"""The move guard: an agent's move, with a time limit, and its failures as one :class:`AgentError`.

Every caller that asks an agent for a move (the tournament, the benchmark, ``play``, the web app)
goes through :func:`guarded_act` (or :func:`guarded_call` for another method, such as
``act_explained``), so that an agent's failure is reported the same way everywhere: one
:class:`AgentError` naming the agent, where it was asked (the deal, the move) and what happened.

**What counts as a failure.** Any ``Exception``, a ``SystemExit`` (an agent's ``sys.exit()`` must
not end the program, least of all silently with status 0) and a ``GeneratorExit``; the original
exception is the error's ``cause`` and ``__cause__``, so a traceback still shows where it came
from. ``KeyboardInterrupt`` is not caught: Ctrl-C still stops the program.

**The time limit** (``timeout`` seconds of wall-clock time; None: no limit). Two ways:

* *In the main thread*, where the platform has ``SIGALRM`` (POSIX): ``signal.setitimer
  (ITIMER_REAL)`` arms an alarm whose handler raises a private ``BaseException`` inside ``act``
  (an agent's ``except Exception`` does not swallow it); the previous handler and timer are
  restored after every move. It costs about a microsecond or two a move (docs/benchmark.md has the
  measurement). ``act`` stuck inside C code that does not return to the interpreter is stopped
  when it returns to it. An agent that swallows the alarm (a bare ``except:``) and then returns
  a move has still timed out.
* *Elsewhere* (another thread, such as the web app's thread pool; Windows, which has no
  ``SIGALRM``; while another alarm is running, such as an outer guard's or a test runner's):
  ``act`` runs in a new daemon thread and the caller waits ``timeout`` seconds for it. That costs
  the start of a thread a move. A thread cannot be stopped from outside: after a time-out the
  stuck ``act`` goes on in the background, holding its CPU and memory until it returns (the
  process can still exit), and the policy object, with any engine it was given, must not be used
  again.
"""

from __future__ import annotations

import math
import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any, TypeVar

from .errors import AgentError
from .policy import Policy

__all__ = ["DEFAULT_MOVE_TIMEOUT", "AgentError", "guarded_act", "guarded_call", "timed_moves"]

T = TypeVar("T")

DEFAULT_MOVE_TIMEOUT = 60.0  # seconds: the command lines' default, generous for a searching agent

_HAS_ALARM = hasattr(signal, "setitimer") and hasattr(signal, "SIGALRM")
# the main thread's alarm (see timed_moves); changed only by the main thread and its signal handler
_depth = 0  # timed_moves() entered and not left
_usable = False  # its handler is installed, and no other alarm was running
_previous: Any = None  # the handler it replaced
_deadline: float | None = None  # when the guarded move now running runs out of time; None between moves
_fire_at = math.inf  # when the timer goes off
_fired = False  # the running move's alarm went off


class _Timeout(BaseException):
    """Raised inside a guarded move that ran out of time (a BaseException, so that an agent's
    ``except Exception`` lets it through)."""


def _on_alarm(signum: int, frame: Any) -> None:
    global _fire_at, _fired
    now = time.monotonic()
    if _deadline is None:  # between moves: the next move arms the timer again
        _fire_at = math.inf
    elif now >= _deadline:
        _fire_at, _fired = math.inf, True
        raise _Timeout
    else:  # set for an earlier move: wait for this one's deadline
        _fire_at = _deadline
        signal.setitimer(signal.ITIMER_REAL, _deadline - now)


@contextmanager
def timed_moves() -> Iterator[None]:
    """Within it, the guarded moves of the main thread share one SIGALRM handler and one timer,
    set at entry and put back as they were at exit, so that a move costs a clock reading rather than
    four system calls. The tournament, the benchmark and ``play`` hold it around their games; a
    guarded move outside it sets and restores the handler itself. Re-entrant; in another thread,
    or where another alarm is running already, it does nothing (moves then wait in a thread)."""
    global _depth, _usable, _previous, _deadline, _fire_at
    if not _HAS_ALARM or threading.current_thread() is not threading.main_thread():
        yield
        return
    if _depth:
        _depth += 1
        try:
            yield
        finally:
            _depth -= 1
        return
    _depth = 1
    # a handler set outside Python could not be put back; someone else's alarm is theirs
    _usable = signal.getsignal(signal.SIGALRM) is not None and signal.getitimer(signal.ITIMER_REAL)[0] == 0
    if _usable:
        try:
            _previous = signal.signal(signal.SIGALRM, _on_alarm)
        except ValueError:  # not the main interpreter: no signal handlers here
            _usable = False
    try:
        yield
    finally:
        _depth = 0
        if _usable:
            _usable, _deadline, _fire_at = False, None, math.inf
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, _previous)


def _forget_in_child() -> None:
    """A forked child has no timer of its parent's, and its own main thread."""
    global _depth, _usable, _deadline, _fire_at
    _depth, _usable, _deadline, _fire_at = 0, False, None, math.inf


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_child)


def guarded_act(
    policy: Any, obs: Any, engine: Any = None, *, agent: str, where: str | Callable[[], str], timeout: float | None
) -> int:
    """``policy.act(obs, engine)``, guarded (see the module docstring): within ``timeout`` seconds
    (None: no limit), and any failure turned into an :class:`AgentError` naming ``agent`` and
    ``where``.

    A kortmiljo :class:`~kortmiljo.core.policy.Policy`, or an object that says ``needs_engine =
    True``, is called as ``act(obs, engine)``; any other object with ``act`` as ``act(obs)``, as
    :class:`kortmiljo.agents.plugins.PluginPolicy` calls a plug-in. ``where`` (``"deal 2, move 17"``) may be
    a function that returns it, called only on a failure, so that a hot loop formats nothing. After
    a time-out in a thread other than the main one the policy must not be used again.
    """
    if isinstance(policy, Policy) or getattr(policy, "needs_engine", False) is True:
        call = partial(policy.act, obs, engine)
    else:
        call = partial(policy.act, obs)
    return guarded_call(call, agent=agent, where=where, timeout=timeout)


def guarded_call(call: Callable[[], T], *, agent: str, where: str | Callable[[], str], timeout: float | None) -> T:
    """``call()`` under the guard of :func:`guarded_act` (for ``act_explained`` and the like)."""
    if timeout is not None and not timeout > 0:
        raise ValueError(f"a move's time limit must be a number of seconds > 0 or None (no limit), got {timeout!r}")
    if timeout is not None and math.isinf(timeout):
        timeout = None
    try:
        if timeout is None:
            return call()
        if _deadline is None and threading.current_thread() is threading.main_thread():
            if _usable:
                return _with_alarm(call, timeout)
            if not _depth and _HAS_ALARM:
                with timed_moves():
                    if _usable:
                        return _with_alarm(call, timeout)
        return _in_thread(call, timeout, agent)
    except _Timeout as err:
        where = where() if callable(where) else where
        reason = f"no move within {timeout:g} s, its time limit"
        raise AgentError(agent, where, reason, timed_out=True, trace=_stuck_at(err)) from err
    except (Exception, SystemExit, GeneratorExit) as err:
        where = where() if callable(where) else where
        raise AgentError(agent, where, _reason(err), cause=err, trace=_trace(err)) from err


def _with_alarm(call: Callable[[], T], timeout: float) -> T:
    """``call()`` in the main thread, within :func:`timed_moves`, with the alarm due in ``timeout`` s."""
    global _deadline, _fire_at, _fired
    deadline = time.monotonic() + timeout
    _fired, _deadline = False, deadline
    if deadline < _fire_at:  # the timer goes off later, or not at all: bring it forward
        _fire_at = deadline
        signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        result = call()
    except (Exception, SystemExit, GeneratorExit) as err:
        if _fired:  # the agent caught the alarm and raised something else
            raise _Timeout from err
        raise
    finally:
        _deadline = None
    if _fired:  # the agent caught the alarm and returned a move all the same
        raise _Timeout
    return result


def _in_thread(call: Callable[[], T], timeout: float, agent: str) -> T:
    """``call()`` in a new daemon thread; :class:`_Timeout` if it has not returned in ``timeout`` s
    (the thread then goes on: it cannot be stopped)."""
    box: list[tuple[bool, Any]] = []
    done = threading.Event()

    def run() -> None:
        try:
            box.append((True, call()))
        except BaseException as err:  # handed to the waiting thread, which decides
            box.append((False, err))
        finally:
            done.set()

    thread = threading.Thread(target=run, name=f"kortmiljo move: {agent}", daemon=True)
    thread.start()
    if not done.wait(timeout):
        frame = sys._current_frames().get(thread.ident or -1)  # where the stuck move is, for --debug
        stack = "".join(traceback.format_stack(frame)) if frame is not None else ""
        raise _Timeout(f"the agent's thread when its time ran out (it goes on running):\n{stack}" if stack else "")
    ok, value = box[0]
    if ok:
        return value
    raise value


def _trace(err: BaseException) -> str:
    """The text of ``err``'s traceback (what ``--debug`` prints)."""
    return "".join(traceback.format_exception(type(err), err, err.__traceback__))


def _stuck_at(err: _Timeout) -> str:
    """Where a move was when its time ran out: the alarm's traceback ends in the agent's code; a
    thread's stack is taken when the caller stops waiting for it."""
    return err.args[0] if err.args and err.args[0] else _trace(err)


def _reason(err: BaseException) -> str:
    """What an agent's exception says, and where in the code it was raised."""
    frames = traceback.extract_tb(err.__traceback__)
    at = f" (at {os.path.basename(frames[-1].filename)} line {frames[-1].lineno})" if frames else ""
    if isinstance(err, SystemExit):
        return f"it tried to end the program (SystemExit with code {err.code!r}){at}; an agent must return a move"
    text = str(err)
    return f"{type(err).__name__}: {text}{at}" if text else f"{type(err).__name__}{at}"
