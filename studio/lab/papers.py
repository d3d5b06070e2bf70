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


def reproduction(key: str, measured: dict[str, Cell], only: tuple[str, ...] | None = None,
                 note: str = "") -> Reproduction:
    """Every published figure of `key`'s paper with the studio's measure of it from `measured` (by id);
    `only`: the figures whose ids begin so (the scenarios an experiment played), the rest left out."""
    shipped = published(key)
    return Reproduction(
        shipped.paper, shipped.source,
        [PaperFigure(f.where, f.label, f.paper, measured.get(fid), f.note) for fid, f in shipped.figures
         if only is None or fid.startswith(only)],
        note=note,
    )


def is_scripted(model: str) -> bool:
    """The scripted understudy: its replies are made from a hash of the prompt, not a model's judgement."""
    return model == "scripted" or model.startswith("scripted/")


def experiment_models(spec: dict[str, Any]) -> list[str]:
    """Every model whose replies make an experiment's figures: the experiment's, and its kind's own Critic
    or assessor where it names one."""
    own = spec.get(spec.get("kind") or "") or next((v for v in spec.values() if isinstance(v, dict)
                                                    and ("critic" in v or "assessor" in v)), {})
    found = [spec.get("model"), own.get("critic"), own.get("assessor")] if isinstance(own, dict) else [spec.get("model")]
    return list(dict.fromkeys(str(m) for m in found if m))


def not_a_reproduction(models: list[str], small: bool | None = None) -> str:
    """Why figures made by `models` are not a reproduction of a paper's, or "" when nothing says so: the
    scripted model's numbers are a demonstration, and a model of 2B parameters or fewer (the embedded one,
    a name that gives its size, "135m", "0.5b", "1.5b", "2b", or `small = true`) is far below any the papers
    used, so its numbers beside theirs would read as a match or a miss that means nothing."""
    from studio.llm.sampling import is_embedded, is_small

    scripted = [m for m in models if is_scripted(m)]
    if scripted:
        return (f"This is not a reproduction: the figures come from the scripted model ({', '.join(scripted)}), "
                "whose replies are made from a hash of the prompt to show the experiment running end to end. "
                "Any likeness to the paper's figures is chance.")
    tiny = [m for m in models if is_embedded(m) or is_small(m) or small]
    if tiny:
        return (f"This is not a reproduction: the figures come from a small model ({', '.join(tiny)}, 2B "
                "parameters or fewer, far smaller than the papers' models), so they show the experiment "
                "running, not what the paper measured. Run it with a larger model to compare.")
    return ""


def judged(report: Any, spec: dict[str, Any]) -> Any:
    """The report with its reproduction marked as none when the experiment's models cannot make one."""
    if report.paper is not None:
        small = spec.get("small")
        report.paper.not_a_reproduction = not_a_reproduction(experiment_models(spec),
                                                             small if isinstance(small, bool) else None)
    return report


def ids(key: str) -> list[str]:
    """The ids of `key`'s published figures, so a kind can measure exactly those."""
    return [fid for fid, _ in published(key).figures]
