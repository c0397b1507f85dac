"""Observation layouts: named segments over one flat float32 buffer.

Each game declares its segments once per configuration; the encoder writes into
slices by name and the docs table is generated from the same object, so the two
cannot drift apart. ``game.layout.split(vector)`` (the same as ``engine.decode(vector)``) cuts
an observation back into its named segments, for every game and configuration.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class Segment:
    name: str
    offset: int
    size: int
    meaning: str


@dataclass
class Layout:
    segments: list[Segment] = field(default_factory=list)
    size: int = 0

    def add(self, name: str, size: int, meaning: str) -> int:
        """Append a segment and return its offset."""
        if any(s.name == name for s in self.segments):
            raise ValueError(f"duplicate segment {name!r}")
        self.segments.append(Segment(name, self.size, size, meaning))
        self.size += size
        return self.size - size

    def __getitem__(self, name: str) -> slice:
        for s in self.segments:
            if s.name == name:
                return slice(s.offset, s.offset + s.size)
        raise KeyError(name)

    def split(self, vector) -> dict[str, np.ndarray]:
        """The observation ``vector`` cut into its named segments, in layout order: ``{name: part}``.

        ``vector`` is one observation (``size`` entries) or a batch of them (``[..., size]``, cut
        along the last axis). The parts are views into it, so they cost no copy and change with it.
        Anything else is refused with a ``ValueError`` that says the length this layout needs.
        """
        array = np.asarray(vector)
        if array.ndim == 0 or array.shape[-1] != self.size:
            got = "a scalar" if array.ndim == 0 else f"{array.shape[-1]} entries (shape {array.shape})"
            raise ValueError(
                f"an observation of this layout has {self.size} entries, got {got}; a training view's vector "
                f"appends the unseen mask (and privileged features): cut it with vector[..., :{self.size}] first"
            )
        return {s.name: array[..., s.offset : s.offset + s.size] for s in self.segments}

    def table(self) -> str:
        """Markdown table of the layout (offset, length, meaning)."""
        rows = ["| offset | length | segment | meaning |", "|---:|---:|---|---|"]
        rows += [f"| {s.offset} | {s.size} | `{s.name}` | {s.meaning} |" for s in self.segments]
        return "\n".join(rows)
