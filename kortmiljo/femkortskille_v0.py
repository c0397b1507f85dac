"""Femkortskille (Swedish knock-kille) as a PettingZoo AEC environment.

>>> from kortmiljo import femkortskille_v0
>>> env = femkortskille_v0.env(num_players=4)     # options below
>>> env.reset(seed=0)
>>> for agent in env.agent_iter():
...     obs, reward, termination, truncation, info = env.last()
...     action = None if termination or truncation else env.action_space(agent).sample(obs["action_mask"])
...     env.step(action)

Options: ``num_players`` 3 … 8 (default 4); ``ante`` 1 (chips per player into the pot
before the first deal); ``max_deals`` 20 (void deals before the episode is truncated
and the pot refunded in equal shares); ``ante_on_redeal`` False (ante again on a
redeal); and the variants, all off by default and combinable: ``skituppslag`` (three
low cards must ``show`` and win the pot), ``knock_stake`` 0 (chips added per knock),
``payments_stay`` (the losers' payments stay in the pot for the next episode of this
instance; a seeded ``reset`` starts with an empty pot), ``auktion`` with ``max_bet`` 5
(``bet:k`` instead of ``knock``/``lura``), ``poker`` (discard and draw, then one betting
round). ``reset(options={"deck": [...], "dealer": k})`` stacks the first deal's deck
(index 0 to forhånd, three rounds of one card, then the stock top first) and sets the
first dealer.

Actions (one ``Discrete`` per configuration, names need no state). The base block is
the same in every configuration; each variant appends its block in this order:

===========================  ==================================================
index                        action
===========================  ==================================================
0, 1, 2                      ``knock``, ``pass``, ``lura``
3 + r (3 … 23)               ``play:<rank>``: ``play:blaren`` … ``play:kille``
next, if ``skituppslag``     ``show``
next ``max_bet``, if auktion ``bet:1`` … ``bet:<max_bet>``
next 21, if ``poker``        ``discard:blaren`` … ``discard:kille``
next 6, if ``poker``         ``done``, ``check``, ``bet``, ``call``, ``raise``, ``fold``
===========================  ==================================================

So the default has ``Discrete(24)``; ``skituppslag`` adds ``show`` = 24; ``auktion``
alone has ``bet:k`` = 23 + k; ``poker`` alone has ``discard:<rank>`` = 24 + r and
``done`` 45, ``check`` 46, ``bet`` 47, ``call`` 48, ``raise`` 49, ``fold`` 50.
``env.unwrapped.action_to_string`` / ``action_from_string`` translate.

Observation: ``observation`` (float32, seats relative to the observer, layout table in
docs/femkortskille.md, generated from the code), ``action_mask`` and ``unseen`` (42
bits; rank r owns bits 2r, 2r+1; unseen copies fill the low bit first).

Rewards: each seat's net chip change over the episode, at its end. Infos at the end:
``chips`` (own net change), ``pot`` (the pot as the episode leaves it), ``knocked``
(whether this seat knocked in the last deal), and ``pot_won``, ``winner``, ``deals``.

Rules and every decision: see :mod:`kortmiljo.games.femkortskille.rules` and
docs/femkortskille.md.

History: v0 — first release.
"""

from .env.aec import make_env_fns
from .games.femkortskille import FemkortskilleEngine

env, raw_env = make_env_fns(FemkortskilleEngine)

__all__ = ["env", "raw_env"]
