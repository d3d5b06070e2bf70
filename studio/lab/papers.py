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
                                                    and ("critic" in v or "assessor" in v or "roles" in v)), {})
    found = [spec.get("model"), own.get("critic"), own.get("assessor")] if isinstance(own, dict) else [spec.get("model")]
    if isinstance(own, dict) and isinstance(own.get("roles"), dict):  # a role with a model of its own
        found += [m for m in own["roles"].values() if isinstance(m, str) and m != "human"]
    return list(dict.fromkeys(str(m) for m in found if m))


def served_billions(endpoints: list[str], model: str, timeout: float = 2.0) -> float | None:
    """The parameter count a server gives for `model` in its model list (`GET /models`; llama.cpp's server
    puts it in each entry's `meta.n_params`), in billions; None when no endpoint answers with one. The
    address's credentials are sent as a header, never in the address."""
    import json
    import urllib.request

    from studio.clean import joined_address, url_credentials

    wanted = model.split("/", 1)[-1]
    for endpoint in endpoints:
        address, secret = url_credentials(endpoint)
        request = urllib.request.Request(joined_address(address, "/models"))
        if secret:
            request.add_header("Authorization", f"Bearer {secret.split(':', 1)[-1]}")
        try:
            with urllib.request.urlopen(request, timeout=timeout) as reply:  # noqa: S310 - the user's own server
                listed_models = json.loads(reply.read(1_000_000)).get("data") or []
        except (OSError, ValueError, AttributeError):
            continue
        for entry in listed_models if isinstance(listed_models, list) else []:
            meta = entry.get("meta") if isinstance(entry, dict) else None
            count = meta.get("n_params") if isinstance(meta, dict) else None
            named = str(entry.get("id", "")) if isinstance(entry, dict) else ""
            if isinstance(count, (int, float)) and count > 0 and (named in (wanted, model) or len(listed_models) == 1):
                return float(count) / 1e9
    return None


def model_size(model: str, small: bool | None = None, served: bool = False,
               listed_billions: float | None = None) -> tuple[bool | None, str]:
    """Whether `model` has 2B parameters or fewer (True), more (False) or nobody says (None), with what
    decided it. Facts, in order: the embedded model is small; the experiment's `small = true|false`; a
    parameter count or a small-only family in the name; for a model not behind an endpoint, litellm's model
    facts, which list hosted models (none of them small). A served model's name is the server's to choose
    (`openai/gpt-4o` may be a 124M model on a laptop), so behind an endpoint only the first three count;
    `openai/gpt2` is listed nowhere and gives no size, so it is unknown, never taken for a large model."""
    from studio.llm.names import listed
    from studio.llm.sampling import SMALL_BILLIONS, is_embedded, is_small, stated_billions

    if is_embedded(model):
        return True, "the embedded model"
    if small is not None:
        return small, f"the experiment says small = {str(small).lower()}"
    if is_small(model):
        return True, "its name gives 2B parameters or fewer"
    billions = stated_billions(model)
    if billions is not None and billions > SMALL_BILLIONS:
        return False, f"its name gives {billions:g}B parameters"
    if listed_billions is not None:
        return listed_billions <= SMALL_BILLIONS, f"its server lists {listed_billions:.2g}B parameters"
    if served:
        return None, "it is served from an endpoint, whose model names say nothing of their size"
    if listed(model) is not None:
        return False, "litellm's model facts list it as a hosted model"
    return None, "neither its name nor litellm's model facts give its size"


def not_a_reproduction(models: list[str], small: bool | None = None, served: bool = False,
                       listed: dict[str, float] | None = None) -> str:
    """Why figures made by `models` are not a reproduction of a paper's, or "" when nothing says so: the
    scripted model's numbers are a demonstration, a model of 2B parameters or fewer is far below any the
    papers used, and a model whose size nothing tells (`model_size`) cannot be called either, so its
    numbers beside the paper's would read as a match or a miss that means nothing."""
    scripted = [m for m in models if is_scripted(m)]
    if scripted:
        return (f"This is not a reproduction: the figures come from the scripted model ({', '.join(scripted)}), "
                "whose replies are made from a hash of the prompt to show the experiment running end to end. "
                "Any likeness to the paper's figures is chance.")
    sizes = {m: model_size(m, small, served, (listed or {}).get(m)) for m in models}
    tiny = [m for m, (is_tiny, _) in sizes.items() if is_tiny]
    if tiny:
        return (f"This is not a reproduction: the figures come from a small model ({', '.join(tiny)}, 2B "
                "parameters or fewer, far smaller than the papers' models), so they show the experiment "
                "running, not what the paper measured. Run it with a larger model to compare.")
    unknown = [f"{m}: {why}" for m, (is_tiny, why) in sizes.items() if is_tiny is None]
    if unknown:
        return (f"This is not a reproduction: nothing says how large the model is ({'; '.join(unknown)}), and a "
                "small model's figures beside the paper's would read as a match or a miss that means nothing. "
                "Set small = false in the experiment file if it has more than 2B parameters.")
    return ""


def judged(report: Any, spec: dict[str, Any]) -> Any:
    """The report with its reproduction marked as none when the experiment's models cannot make one."""
    if report.paper is not None:
        small = spec.get("small")
        report.paper.not_a_reproduction = not_a_reproduction(experiment_models(spec),
                                                             small if isinstance(small, bool) else None,
                                                             bool(spec.get("endpoints")), spec.get("served_billions"))
    return report


def ids(key: str) -> list[str]:
    """The ids of `key`'s published figures, so a kind can measure exactly those."""
    return [fid for fid, _ in published(key).figures]
