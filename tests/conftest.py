"""Session set-up shared by every test: register the test-only games (``tests/<pkg>/__init__.py``
defining ``GAME``) through the public registration, before any test module is collected, so that
the conformance suite and every test parametrised over the registry pick them up."""

from tests.conformance.games import register_test_games


def pytest_configure(config):
    register_test_games()
