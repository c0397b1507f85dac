"""The package's exceptions, and :func:`printable`, which makes text from outside safe to show.

:class:`IllegalActionError` and :class:`ConfigError` are ValueErrors, so callers can catch them
generically; :class:`AgentError` (an agent that raised, exited or timed out on a move, see
:mod:`kortmiljo.core.guard`) is a RuntimeError: the input was fine, the agent failed.
"""

from __future__ import annotations

import re

# C0 controls, DEL and the C1 controls; the Arabic letter mark, the left-to-right and right-to-left
# marks; the line and paragraph separators; the bidi embeddings, overrides and isolates
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")
_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _escape(m: re.Match) -> str:
    c = m.group()
    return _NAMED.get(c) or (f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}")


def printable(text: str) -> str:
    """``text`` with every character that could move the cursor, colour or reorder a terminal's
    output, or start a new line, written as a Python escape (``\\x1b``, ``\\n``, ``\\u202e``):
    the C0 and C1 controls, DEL, U+2028/U+2029 and the bidi controls (U+061C, U+200E/F,
    U+202A–U+202E, U+2066–U+2069). What comes from a file or an agent goes through it before it
    reaches a terminal, so that it cannot forge a line or recolour the screen. Other text
    (letters of any script, card symbols, a backslash) is unchanged."""
    return _CONTROL.sub(_escape, text)


class IllegalActionError(ValueError):
    """An action that is not legal for the seat on move; the game state is unchanged."""

    def __init__(self, agent: str, action: object, legal: list[str], reason: str | None = None):
        self.agent, self.action, self.legal = agent, action, legal
        why = f" ({reason})" if reason else ""
        super().__init__(f"{agent} cannot play {action!r} now{why}; legal actions: {', '.join(legal) or '(none)'}")


class ConfigError(ValueError):
    """A bad constructor option, or an unknown one."""


class AgentError(RuntimeError):
    """An agent that raised, exited or timed out on a move.

    ``str(err)`` is one line, ``agent {agent} failed at {where}: {reason}``, with every control
    character escaped (:func:`printable`). ``timed_out`` says whether the agent ran past its time
    limit; ``cause`` is the exception the agent raised (None for a time-out), also chained as
    ``__cause__``; ``trace`` is the text of its traceback (for a time-out: where the agent was
    when its time ran out, where that is known), which a command's ``--debug`` prints. It pickles
    (with ``trace``, without ``cause``), so that it crosses from a worker process.
    """

    def __init__(
        self,
        agent: str,
        where: str,
        reason: str,
        *,
        timed_out: bool = False,
        cause: BaseException | None = None,
        trace: str | None = None,
    ):
        self.agent, self.where, self.reason = agent, where, reason
        self.timed_out, self.cause, self.trace = timed_out, cause, trace
        super().__init__(printable(f"agent {agent} failed at {where}: {reason}"))

    def __reduce__(self):
        return (_rebuild_agent_error, (self.agent, self.where, self.reason, self.timed_out, self.trace))


def _rebuild_agent_error(agent: str, where: str, reason: str, timed_out: bool, trace: str | None = None) -> AgentError:
    return AgentError(agent, where, reason, timed_out=timed_out, trace=trace)
