"""Observation layouts: named segments over one flat float32 buffer.

Each game declares its segments once per configuration; the encoder writes into
slices by name and the docs table is generated from the same object, so the two
cannot drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass, field


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

    def split(self, vector) -> dict:
        """The vector cut into its named segments (for tests, debugging and docs)."""
        return {s.name: vector[s.offset : s.offset + s.size] for s in self.segments}

    def table(self) -> str:
        """Markdown table of the layout (offset, length, meaning)."""
        rows = ["| offset | length | segment | meaning |", "|---:|---:|---|---|"]
        rows += [f"| {s.offset} | {s.size} | `{s.name}` | {s.meaning} |" for s in self.segments]
        return "\n".join(rows)
