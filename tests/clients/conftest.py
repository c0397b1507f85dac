"""Helpers of the client tests: each runs one example of ``docs/clients/`` with the library it shows.

The client libraries live in their own venv (``make test-clients`` builds ``.venv-clients`` with the
``clients`` extra): in the main venv these tests are skipped, with the reason, unless
``KORTMILJO_REQUIRE_CLIENTS`` is set (``make test-clients`` sets it): then a missing library fails.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "clients"
REQUIRE = bool(os.environ.get("KORTMILJO_REQUIRE_CLIENTS"))


def need(*modules: str) -> None:
    """Skip (or, with KORTMILJO_REQUIRE_CLIENTS, fail) unless every module imports."""
    missing = []
    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError as err:
            missing.append(f"{name} ({err})")
    if not missing:
        return
    why = "not installed: " + ", ".join(missing) + " (pip install 'kortmiljo[clients]', or `make test-clients`)"
    if REQUIRE:
        pytest.fail(f"KORTMILJO_REQUIRE_CLIENTS is set but the client tests cannot run: {why}")
    pytest.skip(why)


def example(name: str) -> ModuleType:
    """Import ``docs/clients/<name>.py`` (the runnable example) as a module."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
