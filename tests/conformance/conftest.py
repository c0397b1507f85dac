"""Marks the checks of :mod:`.known_defects` as strict xfails (they must fail until the fix lands)."""

from __future__ import annotations

import pytest

from .known_defects import known_defect


def pytest_collection_modifyitems(config, items):
    for item in items:
        callspec = getattr(item, "callspec", None)
        case = callspec.params.get("case") if callspec else None
        reason = known_defect(item.originalname, case.id) if case is not None else None
        if reason:
            item.add_marker(pytest.mark.xfail(reason=reason, strict=True))
