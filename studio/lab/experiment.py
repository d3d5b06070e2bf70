"""An experiment: an EXPERIMENT.toml read and checked, or one a command builds from its flags.

An experiment file names its kind (`studio.lab.kinds`) and the settings every kind shares; the kind's own
settings sit in a table of its name:

    kind = "pd"
    title = "The dilemma, a quick look"
    model = "scripted"
    reps = 2
    concurrency = 8
    # endpoints = ["http://127.0.0.1:8000/v1", "http://127.0.0.1:8001/v1"]  (one model on several servers)
    [pd]
    groups = ["cooperative", "competitive"]

The kind checks its table (a pydantic model of its settings) and plans the trials; the one runner
(`studio.lab.runner`) plays them. An experiment's name is what the store's `lab_trials` table records its
trials under, so a rerun finds what is done. For a file it is `<file stem>:<model>@<identity>`, the
identity a hash of everything that changes what a trial plays: the kind, the model and the kind's table
with its defaults filled in, a file it names (a play, a character) by its contents. An edited experiment
(another temperature, another play) is then a new one, never reported under the old one's results, and
another file of the same name elsewhere is the same experiment only when it says the same; the number
of repetitions, how many run at once and which servers answer change no trial and are left out.
`studio lab run --continue` goes on with the trials recorded under the file's earlier identity instead.
An experiment a command builds from its flags (`lab pd`, `lab game`, `lab interview`, `compare`) gets the
same identity after its own readable name, so the same flags again continue it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from studio.clean import LINE_CONTROLS, shown_value
from studio.lab.kinds import KINDS, Kind
from studio.model import InputError

MOST_TITLE = 200
SHARED = ("kind", "title", "model", "reps", "concurrency", "endpoints", "max_parallel", "structured", "small")
MOST_REPS = 10_000
MOST_CONCURRENCY = 256


def load_kinds() -> dict[str, Kind]:
    """Every kind that ships: importing a kind's module registers it."""
    import importlib

    for module in ("compare", "pd_kind", "game_kind", "interview_kind"):
        try:
            importlib.import_module(f"studio.lab.{module}")
        except ImportError as exc:  # an optional kind may be absent; a broken one must not hide
            if getattr(exc, "name", None) != f"studio.lab.{module}":
                raise
    return KINDS


@dataclass
class Experiment:
    """A kind, its checked settings and the name its trials are recorded under; `source` is what messages
    name as its origin: the file, or the command line for one a command built from its flags."""

    path: Path
    kind: Kind
    spec: dict[str, Any]
    source: str = ""

    @property
    def name(self) -> str:
        return self.spec["name"]

    @property
    def where(self) -> str:
        return self.source or str(self.path)

    @property
    def title(self) -> str:
        return self.spec.get("title") or self.path.stem

    def gateway(self) -> Any:
        """The gateway its trials call through: with `endpoints`, one that spreads the model over those
        servers (a litellm Router, at most `max_parallel` calls in flight at each)."""
        from studio.llm import Gateway
        from studio.llm.router import router_from_table

        router = router_from_table(self.spec, self.spec.get("model") or "", self.where)
        choices = {"structured": self.spec.get("structured"), "small": self.spec.get("small")}
        return Gateway(routers=[router], **choices) if router is not None else Gateway(**choices)


def experiment_name(path: str | Path, model: str, spec: dict[str, Any] | None = None) -> str:
    """`<file stem>:<model>`, and with the checked settings `@<identity>` (see the module's note)."""
    base = f"{Path(path).stem}:{model}"
    return base if spec is None else f"{base}@{identity(spec)}"


def identity(spec: dict[str, Any]) -> str:
    """Twelve hex digits of a hash of the settings that change what a trial plays."""
    kind = spec["kind"]
    resolved = {"kind": kind, "model": spec.get("model"), kind: _by_contents(spec.get(kind) or {})}
    for choice in ("structured", "small"):  # how replies are asked and sampled: set, they change the trials
        if spec.get(choice) is not None:
            resolved[choice] = spec[choice]
    text = json.dumps(resolved, sort_keys=True, ensure_ascii=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def _by_contents(value: Any) -> Any:
    """Settings with each file they name (a play, a character) standing as a hash of its bytes, so an
    edited play is another experiment and the same play reached by another path is the same one."""
    if isinstance(value, dict):
        return {k: _by_contents(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_by_contents(v) for v in value]
    if isinstance(value, str) and value.endswith(".toml"):
        from studio.model.errors import InputError
        from studio.model.outside_file import read_outside

        try:
            return "file:" + hashlib.sha256(read_outside(value, "play")).hexdigest()
        except InputError:  # not there, or not a file: the loading of the experiment says so
            return value
    return value


def earlier(store: Any, experiment: Experiment) -> str | None:
    """The name of the latest experiment recorded from the same file and model under other settings
    (or under the name it had before identities), if any: what `--continue` goes on with."""
    from studio.lab.trials import Trials

    base = experiment.name.rsplit("@", 1)[0]
    with store.lock:
        Trials(store)
        rows = store.conn.execute(
            "SELECT experiment FROM lab_trials WHERE (experiment = ? OR substr(experiment, 1, ?) = ?) "
            "AND experiment != ? GROUP BY experiment ORDER BY MAX(updated) DESC LIMIT 1",
            (base, len(base) + 1, base + "@", experiment.name),
        ).fetchall()
    return rows[0][0] if rows else None


def load_experiment(path: str | Path, *, reps: int | None = None, concurrency: int | None = None,
                    model: str | None = None, endpoints: list[str] | None = None,
                    max_parallel: int | None = None, playing: bool = True) -> Experiment:
    """Read and check an experiment file; the command line's --reps, --concurrency, --model, --endpoint and
    --max-parallel win over it. `playing`: the trials are to be played now, so a model whose size nothing
    tells is refused (a report or the status of files already played only says so)."""
    path = Path(path)
    source = str(path)
    if model is not None and not model.strip():
        raise InputError("--model", None, "is empty", "name a model, e.g. --model scripted, or leave the flag out")
    if not path.is_file():
        raise InputError(source, None, "no such experiment file",
                         "give the path of an EXPERIMENT.toml, e.g. experiments/pd_small.toml")
    from studio.model.loading import _read_toml

    data = _read_toml(path, "experiment")  # the one reader of the studio's TOML files
    kind_name, kind = _kind_of(data, source)
    title = _title(data, source)
    chosen_model = _model(data, model, source)
    chosen = _counts(data, source, reps=reps, concurrency=concurrency)
    served = _served(data, source, chosen_model, endpoints, max_parallel)
    spec: dict[str, Any] = {**{k: v for k, v in data.items() if k == kind_name}, "kind": kind_name, "title": title,
            "model": chosen_model, **chosen, **served}
    spec = kind.check(spec, source)
    _size_known(spec, source, playing)
    spec["name"] = experiment_name(path, chosen_model, spec)
    return Experiment(path, kind, spec)


def _size_known(spec: dict[str, Any], source: str, playing: bool = True) -> None:
    """Every model that makes an experiment's figures must be known small or large, since the report sets
    them beside a paper's: from the facts (`papers.model_size`; for a served model, the parameter count its
    server lists, kept as `served_billions`, which names no trial), else from `small = true|false` in the
    file. A model nothing tells of is refused before any trial plays, with the line to add; read only to
    report, it is left for the report to say."""
    from studio.lab.papers import experiment_models, is_scripted, model_size

    for model in experiment_models(spec):
        if is_scripted(model):
            continue
        small, why = model_size(model, spec.get("small"), bool(spec.get("endpoints")))
        if small is None and spec.get("endpoints"):
            from studio.lab.papers import served_billions

            billions = served_billions(spec["endpoints"], model)
            if billions is not None:
                spec.setdefault("served_billions", {})[model] = billions
                continue
        if small is None and playing:
            raise InputError(source, "small", f"is needed: the report sets {model}'s figures beside the paper's, and "
                             f"{why}", "add small = false if the model has more than 2B parameters, small = true if "
                             "2B or fewer")


def _kind_of(data: dict[str, Any], source: str) -> tuple[str, Kind]:
    """The file's kind, once every other key in it is one the kind or all experiments know."""
    kinds = load_kinds()
    kind_name = data.get("kind")
    if not isinstance(kind_name, str) or not kind_name:
        raise InputError(source, "kind", "is missing", f"add kind = \"pd\" (one of: {', '.join(sorted(kinds))})")
    if kind_name not in kinds:
        raise InputError(source, "kind", f"{kind_name!r} is not a kind of experiment",
                         f"use one of: {', '.join(sorted(kinds))}")
    for key, value in data.items():
        if key in SHARED or key == kind_name:
            continue
        if isinstance(value, dict):
            raise InputError(source, key, f"is a table, but this is a {kind_name} experiment",
                             f"put the kind's settings under [{kind_name}]")
        raise InputError(source, key, "is not a setting of an experiment",
                         f"use only {', '.join(SHARED)} and a [{kind_name}] table")
    if kind_name in data and not isinstance(data[kind_name], dict):
        raise InputError(source, kind_name, "must be a table", f"write [{kind_name}] on a line of its own above its settings")
    return kind_name, kinds[kind_name]


def _title(data: dict[str, Any], source: str) -> str:
    """The title is printed over reports: one printable line, never a way to move the terminal's cursor."""
    title = data.get("title", "")
    if not isinstance(title, str):
        raise InputError(source, "title", f"must be text, not {shown_value(title)}", 'e.g. title = "A quick look"')
    if len(title) > MOST_TITLE or LINE_CONTROLS.search(title):
        raise InputError(source, "title", f"must be one line of at most {MOST_TITLE} printable characters (no line "
                         "breaks, control characters or escapes)", 'e.g. title = "A quick look"')
    return title


def _model(data: dict[str, Any], given: str | None, source: str) -> str:
    """--model, else the file's model, else the embedded one; a problem is named on whichever said it."""
    from studio.llm import check_model
    from studio.model.limits import MAX_MODEL_NAME
    from studio.model.play import DEFAULT_MODEL

    written = data.get("model", DEFAULT_MODEL)
    if not isinstance(written, str) or not written.strip():
        # an empty name is a mistake to name, never a quiet fall back to the embedded model
        raise InputError(source, "model", f"must be a model's name, not {shown_value(written)}",
                         f'e.g. model = "scripted", or leave the line out for {DEFAULT_MODEL}')
    chosen_model = given or written
    if len(chosen_model.strip()) > MAX_MODEL_NAME:  # as a play's `model` and --model are held
        raise InputError("--model" if given else source, "model", f"a model's name is at most {MAX_MODEL_NAME} "
                         f"characters, not {len(chosen_model.strip()):,}", "see 'studio models' for the names")
    problem = check_model(chosen_model)
    if problem:
        raise InputError("--model" if given else source, "model", problem, "see 'studio models'")
    return chosen_model


def _counts(data: dict[str, Any], source: str, *, reps: int | None, concurrency: int | None) -> dict[str, int]:
    """`reps` and `concurrency`: the flag's when given, else the file's, each within its bounds."""
    numbers = {"reps": (reps, data.get("reps", 1), MOST_REPS),
               "concurrency": (concurrency, data.get("concurrency", 8), MOST_CONCURRENCY)}
    chosen: dict[str, int] = {}
    for key, (flag, written, most) in numbers.items():
        value = flag if flag is not None else written
        where = f"--{key}" if flag is not None else source
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= most:
            raise InputError(where, key, f"must be a whole number from 1 to {most}, not {value!r}",
                             f"e.g. {key} = {3 if key == 'reps' else 8}")
        chosen[key] = value
    return chosen


def _served(data: dict[str, Any], source: str, model: str, endpoints: list[str] | None,
            max_parallel: int | None) -> dict[str, Any]:
    """Where and how the model is called: the servers (the flags' over the file's), calls in flight at each,
    and the call choices; all checked now, so bad ones are bad input named before any trial plays."""
    from studio.llm.router import check_endpoints, check_routable, make_router, router_from_table

    if endpoints:  # the command line's servers replace the file's, checked as the flag's
        check_routable(model, "--endpoint", None)
        data = {**data, "endpoints": list(check_endpoints(endpoints, "--endpoint", None))}
    if max_parallel is not None:
        if not data.get("endpoints"):
            raise InputError("--max-parallel", None, "is given but no endpoints are", "add --endpoint URL (repeatable)")
        make_router(model, data["endpoints"], max_parallel, where="--max-parallel", field_name=None)
        data = {**data, "max_parallel": max_parallel}
    router_from_table(data, model, source)  # endpoints checked now: bad ones are bad input, named
    served: dict[str, Any] = {k: data[k] for k in ("endpoints", "max_parallel") if k in data}
    served.update(_call_choices(data, source))
    return served


def _call_choices(data: dict[str, Any], source: str) -> dict[str, Any]:
    """`structured` (how replies that are data are asked of a served model) and `small` (the small-model
    sampling), for every call of every trial; see docs/models.md."""
    from studio.llm.gateway import STRUCTURED

    out: dict[str, Any] = {}
    if "structured" in data:
        if data["structured"] not in STRUCTURED:
            raise InputError(source, "structured", f"must be one of {', '.join(STRUCTURED)}, not {data['structured']!r}",
                             'e.g. structured = "json" for a server that refuses JSON schemas')
        out["structured"] = data["structured"]
    if "small" in data:
        if not isinstance(data["small"], bool):
            raise InputError(source, "small", f"must be true or false, not {data['small']!r}",
                             "small = true gives a served model the small-model sampling")
        out["small"] = data["small"]
    return out


def built(kind_name: str, spec: dict[str, Any], source: str = "command line") -> Experiment:
    """An experiment a command makes from its flags (`lab pd`, `lab game`, `lab interview`, `compare`):
    checked by its kind like a file's, with the readable part of its name in `spec`.

    The name gets the identity a file's gets (`@` and the hash of the checked settings), so the same
    flags again go on with the trials already recorded and other flags (another play, scale or group, an
    edited character) are another experiment rather than trials of the first reported as its own."""
    kind = load_kinds()[kind_name]
    checked = kind.check({"concurrency": 8, "reps": 1, **spec, "kind": kind_name}, source)
    _size_known(checked, source, playing=False)  # a served model's listed size, for the report; never refused
    readable = checked["name"].rsplit("@", 1)[0]
    checked["name"] = f"{readable}@{identity(checked)}"
    return Experiment(Path(readable), kind, checked, source)


def find_experiment(name: str, folder: str | Path = "experiments") -> Path:
    """EXPERIMENT as a path, or the name of a file under experiments/ (with or without .toml)."""
    path = Path(name)
    if path.is_file():
        return path
    for candidate in (Path(folder) / name, Path(folder) / f"{name}.toml"):
        if candidate.is_file():
            return candidate
    shipped = sorted(p.stem for p in Path(folder).glob("*.toml")) if Path(folder).is_dir() else []
    raise InputError(name, None, "is neither an experiment file nor the name of one under experiments/",
                     f"use one of: {', '.join(shipped)}" if shipped else "give the path of an EXPERIMENT.toml")
