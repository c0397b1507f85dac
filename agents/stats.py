"""The one confidence interval of the project, and the Wilson interval of a win rate.

Tournaments (``kortmiljo eval``), training's in-loop evaluation and the benchmarks all report
a mean with its two-sided 95 % Student-t interval over independent units (duplicate deals),
computed here; the t quantile comes from ``scipy.stats``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

Z95 = 1.959963984540054


def t95(df: int) -> float:
    """The two-sided 95 % Student-t quantile for ``df`` degrees of freedom (inf below 1)."""
    if df < 1:
        return math.inf
    from scipy.stats import t

    return float(t.ppf(0.975, df))


def mean_ci(values: Sequence[float], level: float = 0.95) -> tuple[float, float, float]:
    """(mean, lo, hi): the mean with its Student-t interval (a point interval for one value; NaN for none)."""
    x = np.asarray(values, dtype=np.float64)
    if x.size == 0:
        return (math.nan, math.nan, math.nan)
    m = float(x.mean())
    if x.size == 1:
        return (m, m, m)
    if level == 0.95:
        q = t95(x.size - 1)
    else:
        from scipy.stats import t

        q = float(t.ppf(0.5 + level / 2, x.size - 1))
    half = q * float(x.std(ddof=1)) / math.sqrt(x.size)
    return (m, m - half, m + half)


def wilson(wins: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (0, 1 for no trials)."""
    if trials == 0:
        return (0.0, 1.0)
    p = wins / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    lo = 0.0 if wins == 0 else max(0.0, centre - half)  # the bounds are exact at the extremes
    hi = 1.0 if wins == trials else min(1.0, centre + half)
    return (lo, hi)
