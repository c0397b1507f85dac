"""Defects the conformance suite has found in the package and that are not fixed yet.

Each entry marks one check of one configuration as a strict ``xfail`` with the reason, so that the
suite stays usable while the fix is pending, and fails (XPASS) the moment the fix lands: then delete
the entry. ``(test function, case id)`` → reason; ``"*"`` as the case id matches every case of a game
when written ``"<game>-*"``.
"""

from __future__ import annotations

KNOWN_DEFECTS: dict[tuple[str, str], str] = {}


def known_defect(test: str, case_id: str) -> str | None:
    """The reason ``test`` fails for ``case_id`` today, or None."""
    for (name, pattern), reason in KNOWN_DEFECTS.items():
        if name == test and (pattern == case_id or (pattern.endswith("-*") and case_id.startswith(pattern[:-1]))):
            return reason
    return None
