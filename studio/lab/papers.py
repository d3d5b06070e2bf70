"""The papers' published figures, shipped as data, and a report's reproduction section built from them.

Each file under `studio/lab/data/papers/` holds one paper's figures as facts: where in the paper each
is published (a table or figure), what it measures, its value and, when the paper gives one, its
interval and sample size. A kind's report measures the same quantities under the same ids and
`reproduction` sets the two side by side; a published figure the experiment did not measure is still
listed, with no studio value, so a reader sees what is missing rather than a shorter table.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from studio.lab.kinds import Cell, PaperFigure, Reproduction


@dataclass(frozen=True)
class Published:
    key: str
    paper: str  # authors, year and title
    source: str  # where the figures were read
    figures: tuple[tuple[str, PaperFigure], ...]  # (id, figure with no studio value), in the paper's order


def _cell(entry: dict[str, Any]) -> Cell:
    return Cell(entry.get("value"), entry.get("low"), entry.get("high"), entry.get("n"), entry.get("digits", 2))


@cache
def published(key: str) -> Published:
    """The figures of the paper filed under `key` (the data file's stem); KeyError if none is shipped."""
    try:
        text = resources.files("studio.lab").joinpath("data", "papers", f"{key}.toml").read_text(encoding="utf-8")
    except FileNotFoundError:
        raise KeyError(key) from None
    data = tomllib.loads(text)
    paper = data["paper"]
    figures = tuple(
        (f["id"], PaperFigure(f["where"], f["label"], _cell(f), None, f.get("note", "")))
        for f in data.get("figure", [])
    )
    return Published(key, paper["cite"], paper["source"], figures)


def reproduction(key: str, measured: dict[str, Cell]) -> Reproduction:
    """Every published figure of `key`'s paper with the studio's measure of it from `measured` (by id)."""
    shipped = published(key)
    return Reproduction(
        shipped.paper, shipped.source,
        [PaperFigure(f.where, f.label, f.paper, measured.get(fid), f.note) for fid, f in shipped.figures],
    )


def ids(key: str) -> list[str]:
    """The ids of `key`'s published figures, so a kind can measure exactly those."""
    return [fid for fid, _ in published(key).figures]
