"""Character development over a play: the protagonist interviewed at the end of every scene of a run.

For scene k, the character is interviewed with what it witnessed up to the end of scene k (the lines
on stage it was present for, newest kept when they do not all fit), so the interview answers from that
point's memory and nothing later. Each scene's interview is a trial of the lab's runner: its own run in
the store and a row in `lab_trials` (a rerun does only what is missing); the same assessor and methods as the plain interview
turn the answers into a Big-Five profile per scene, and the report follows each dimension across them.
"""

from __future__ import annotations

from typing import Any

from studio.lab import interview as iv
from studio.lab.kinds import Lines, Report, Table, TrialContext, TrialSpec
from studio.lab.personality import DIMENSIONS, mae_scaled
from studio.store import events as ev

MEMORY_CHARS = 2400  # what fits beside the sheet in the embedded model's context, with room for the answer
PREFERRED = ("er_all", "er_batch", "doc", "oc")  # the method the figure follows, best first (the paper's ranking)


def character_of(cast: Any, name: str | None, source: str) -> Any:
    """The protagonist (the ego, or an ensemble's first character) or the character called `name`."""
    from studio.model import InputError

    speaking = cast.characters
    if name is None:
        return cast.ego
    found = [r for r in speaking if r.name.casefold() == name.strip().casefold()]
    if not found:
        raise InputError(source, "--as", f"names no character of this run: {name!r}",
                         f"use one of: {', '.join(r.name for r in speaking)}")
    return found[0]


def scenes_of(path: list[Any]) -> list[int]:
    return sorted({e.scene for e in path if e.kind == ev.SCENE and e.scene})


def memory_until(cast: Any, path: list[Any], key: str, scene: int, limit: int = MEMORY_CHARS) -> str:
    """What the seat `key` knew of the stage by the end of `scene`, as the lens gives it to the character's
    own prompts (lines as its inner voice let it hear them), the newest kept within `limit`."""
    from studio.engine.lens import Lens

    until = [e for e in path if (e.scene or 0) <= scene]
    view = Lens.of(cast, until).lines(key, limit)
    lines = [(text if text.startswith("(") else f"({text})") if event.kind == ev.DIRECTION
             else f"{event.character or 'Someone'}: {text}" for event, text in view.lines]
    return "\n".join(line[:limit] for line in lines)


class DevelopmentKind:
    """The scenes of one run as trials: each an interview from what the character had witnessed by the
    scene's end. Built by `develop` from a run in the store (its scenes are the plan), so it is not a kind
    an experiment file names."""

    name = "development"
    summary = "a character interviewed after every scene of a run"

    def check(self, spec: dict[str, Any], source: str) -> dict[str, Any]:
        return spec

    def plan(self, spec: dict[str, Any]) -> list[TrialSpec]:
        return [TrialSpec(f"scene/{scene}", "after the scene", scene, {"scene": scene})
                for scene in spec["development"]["scenes"]]

    async def run_trial(self, ctx: TrialContext, trial: TrialSpec) -> dict[str, Any]:
        from studio.engine.engine import Engine
        from studio.lab.interview_kind import names_of

        own, scene = ctx.spec["development"], trial.params["scene"]
        model, assessor = ctx.model, own.get("assessor") or ctx.model
        if ctx.run_id is None:
            engine = Engine(ctx.store, own["run"], ctx.gateway)
            role = character_of(engine.cast, own.get("character"), ctx.source)
            cast = iv.interview_cast(role.sheet, own["scale"], model=model, seed=engine.cast.play.seed + scene,
                                     memory=memory_until(engine.cast, engine.path, role.key, scene), source=engine.cast.play_path)
            cast.play = cast.play.model_copy(update={"title": f"Interview: {role.name} after scene {scene} of run {own['run']}"})
            interview_run = await iv.interview(ctx.store, ctx.gateway, cast, started=ctx.started, options={
                "model": model, "experiment": ctx.spec["name"], "after_scene": scene, "of_run": own["run"]})
        else:  # an interview cut off: it goes on in its own run
            interview_run = await iv.interview(ctx.store, ctx.gateway, run_id=ctx.run_id)
        given = iv.answers(ctx.store, interview_run, own["scale"])
        result = await iv.assess([a for a in given if a.usable], own["methods"], gateway=ctx.gateway, model=assessor,
                                 names=names_of(own["name"]))
        return {"run": interview_run, "scene": scene, "unanswered": iv.unanswered(given, own["scale"]), **result}

    def report(self, spec: dict[str, Any], results: dict[str, dict[str, Any]]) -> Report:
        own = spec["development"]
        return development_report({"run": own["run"], "character": own["name"], "design": own["design"],
                                   "methods": own["methods"], "scenes": [results[k] for k in sorted(
                                       results, key=lambda k: int(k.split("/")[1]))], "failed": {}})


KIND = DevelopmentKind()


async def develop(store: Any, run_id: int, *, name: str | None, scale: str, methods: list[str], model: str,
                  assessor: str | None = None, gateway: Any = None, source: str = "--run",
                  on_scene: Any = None) -> dict[str, Any]:
    """Interview the character after each scene of run `run_id` (what is missing of it, through the lab's
    runner); returns the design and each scene's profile."""
    from pathlib import Path

    from studio.engine.engine import Engine
    from studio.lab.experiment import Experiment
    from studio.lab.runner import run_experiment
    from studio.model import InputError

    engine = Engine(store, run_id)
    role = character_of(engine.cast, name, source)
    scenes = scenes_of(engine.path)
    if not scenes:
        raise InputError(source, str(run_id), "has no scene yet, so there is nothing to remember",
                         "play the run first (studio run ...), or name another run (studio runs)")
    experiment_name = f"develop:{run_id}:{role.name}:{scale}:{model}:{assessor or model}:{'+'.join(methods)}"
    design = iv.designed(role.sheet)
    spec = {"name": experiment_name, "model": model, "reps": 1, "concurrency": 1,
            "development": {"run": run_id, "character": name, "name": role.name, "scale": scale, "methods": methods,
                            "assessor": assessor, "scenes": scenes, "design": design}}
    outcome = await run_experiment(store, Experiment(Path(experiment_name), KIND, spec, source), gateway=gateway,
                                   on_trial=(lambda t: on_scene(t.rep, len(scenes))) if on_scene is not None else None)
    profiles = [outcome.finished[f"scene/{s}"] for s in scenes if f"scene/{s}" in outcome.finished]
    return {"run": run_id, "character": role.name, "design": design, "scale": scale,
            "methods": methods, "scenes": profiles, "failed": outcome.failed}


def development_report(found: dict[str, Any]) -> Report:
    """Each dimension across the scenes (the figure follows the best method measured), and a table of all."""
    methods = found["methods"]
    follow = next(m for m in PREFERRED if m in methods)
    design = found["design"] or {}
    steps = [f"scene {p['scene']}" for p in found["scenes"]]
    series = {d: [p["measured"].get(follow, {}).get(d) for p in found["scenes"]] for d in DIMENSIONS}
    rows: list[list[Any]] = []
    if design:
        rows.append(["designed", "-", *[f"{design[d]:.0f}" for d in DIMENSIONS], "-"])
    for p in found["scenes"]:
        measured = p["measured"].get(follow, {})
        mae = mae_scaled(design, measured) if design else None
        rows.append([f"after scene {p['scene']}", p["run"],
                     *["-" if measured.get(d) is None else f"{measured[d]:.2f}" for d in DIMENSIONS],
                     "-" if mae is None else f"{mae:.3f}"])
    title = f"{found['character']} across the scenes of run {found['run']} ({iv.LABELS[follow]}, 1-5)"
    return Report(
        title=title,
        tables=[Table(title, ["when", "run", "O", "C", "E", "A", "N", "MAE / range"], rows,
                      note="O C E A N: openness, conscientiousness, extraversion, agreeableness, neuroticism; "
                           "each scene's interview answers from what the character witnessed up to that scene's end")],
        figures=[Lines("development", title, steps, series, ylabel=f"{iv.LABELS[follow]} score (1-5)", scale=(1.0, 5.0))],
        notes=[f"{len(found['scenes'])} scenes interviewed; {len(found['failed'])} failed."],
    )
