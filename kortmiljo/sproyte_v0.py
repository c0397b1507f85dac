"""Sprøyte (Norwegian three-player trick-taking) as a PettingZoo AEC environment.

>>> from kortmiljo import sproyte_v0
>>> env = sproyte_v0.env(variant="variasjon")     # options below
>>> env.reset(seed=0)
>>> for agent in env.agent_iter():
...     obs, reward, termination, truncation, info = env.last()
...     action = None if termination or truncation else env.action_space(agent).sample(obs["action_mask"])
...     env.step(action)

Options:

* ``variant`` — ``"vanlig"`` (default: 48 cards without twos, 12 each, 12-card exchange
  pile, always trump, rotating ♣ ♠ ♥ ♦ by deal), ``"variasjon"`` (52 cards, 12 each,
  16-card pile, the contract from the shown card: 2–5 nullo, 6–10 trump in its suit,
  J–A grand) or ``"tretten"`` (52 cards, 13 each and a 13-card hidden talon that one
  seat may swap for its whole hand; always trump, rotating).
* ``exchange_quota`` — None (``vanlig`` 5/4/3, ``variasjon`` 8/5/3) or three
  non-negative ints for forhånd, middle and dealer; unused cards carry to the next
  seat and every limit is capped by the pile. Not allowed with ``tretten``.
* ``trump`` — None (rotating) or a suit letter ``"S"``, ``"H"``, ``"D"``, ``"C"`` to
  fix the trump suit (``vanlig``, ``tretten``).
* ``match_to`` — None (one deal per episode) or a target such as 10: deals repeat
  with the deal passing left until someone reaches the target.
* ``reward`` — ``"relative"`` (default, zero-sum: own points minus the mean of the
  other two; in a match ±1 split among the highest totals) or ``"raw"`` (the points,
  in a match the totals).

``reset(seed=…, options={"dealer": k, "deck": [codes…]})`` fixes the first dealer and
stacks the deck (top first; index 0 goes to forhånd, the seat left of the dealer).

Actions (``Discrete(107)``, the same table in every configuration):

====== ========================= ==========================================
index  name                      meaning
====== ========================= ==========================================
0–51   ``discard:AS`` … ``discard:KC``  lay a card face down (exchange); index = 13·suit + rank
52     ``done``                  end the exchange, draw as many as discarded
53     ``take_talon``            swap the whole hand for the talon (tretten)
54     ``keep``                  decline the talon (tretten)
55–106 ``play:AS`` … ``play:KC`` play a card to the trick; index = 55 + 13·suit + rank
====== ========================= ==========================================

Suits in index order ``S H D C``, ranks ``A 2 … 9 T J Q K`` (``AS`` = 0, ``KC`` = 51).

Observations: ``observation`` (float32, 682 entries, seats relative to the observer;
the layout table is in docs/sproyte.md, generated from the code), ``action_mask``
(int8) and ``unseen`` (int8, 52 wide: 1 for the cards this seat cannot locate — other
seats' hands and discards, the talon, cards left in the pile; the twos are 0 in
``vanlig``).

Infos at the end of an episode, per agent: ``tricks`` (last deal), ``deal_points``
(last deal), ``match_points`` (the match total; outside a match the deal points),
``contract`` (``"trump"``, ``"grand"`` or ``"nullo"``) and ``trump`` (``"S"``,
``"H"``, ``"D"``, ``"C"`` or None).

Rules and every decision: see :mod:`kortmiljo.games.sproyte.rules` and docs/sproyte.md.

History: v0 — first release.
"""

from .env.aec import make_env_fns
from .games.sproyte import SproyteEngine

env, raw_env = make_env_fns(SproyteEngine)

__all__ = ["env", "raw_env"]
