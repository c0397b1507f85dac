"""The package's exceptions. Both are ValueErrors so callers can catch them generically."""


class IllegalActionError(ValueError):
    """An action that is not legal for the seat on move; the game state is unchanged."""

    def __init__(self, agent: str, action: object, legal: list[str], reason: str | None = None):
        self.agent, self.action, self.legal = agent, action, legal
        why = f" ({reason})" if reason else ""
        super().__init__(f"{agent} cannot play {action!r} now{why}; legal actions: {', '.join(legal) or '(none)'}")


class ConfigError(ValueError):
    """A bad constructor option, or an unknown one."""
