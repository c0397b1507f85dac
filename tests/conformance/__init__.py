"""The conformance suite: every check that holds for every registered game, run for each game and
each configuration in its descriptor's ``examples``.

A game gets all of it by being registered (built in, an entry point, or ``register_game``; the
test-only games under ``tests/`` are registered by ``tests/conftest.py``). The modules:

* ``games`` — which (game, configuration) pairs are checked, and the registration of test-only games;
* ``probes`` — the shared building blocks: snapshots of everything an input must not change, the
  view invariants, the bad actions and bad resets, random legal play;
* ``fuzz`` — the seeded stateful fuzz driver (also run for 10⁶ steps by ``benchmarks/soak.py``);
* ``test_*`` — the checks themselves, one module per concern.

``probes`` and ``fuzz`` import neither pytest nor hypothesis, so that the benchmarks can use them.
"""
