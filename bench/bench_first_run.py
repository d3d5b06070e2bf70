"""A new user's first scenes: are the embedded model's lines worth reading, and how long do they take?

Plays three plays on the embedded model, once per seed, each for its own number of turns in one scene
(or ``--turns N``): the interview (the README's first command), an ensemble (The Last Crossing, first
scene) and the play `studio new play` writes. Each
run is measured from its stored events alone, as a reader meets the stage, so a checkout from before any
change is judged the same way (``--code``); what counts as said again is the studio's one rule
(studio.engine.lines.repeats), the one its guard cuts by, read from this bench's own checkout:

* silent: spoken turns that came out as a placeholder ("Sasha says nothing.", an empty line) or as
  stage business alone, nothing said aloud ("*sighs as the interviewers look on*", "(nods)");
* asking: the share of the interviewer's lines that ask something: a "?" closing a word, in a line the
  interviewer's shape did not close at its limit (a mark after a space, a comma, a colon or a bracket,
  or on a line of the old shape run to its 160 characters, is a mark the shape forced, not a question asked);
* repeating: lines that say a sentence of 5+ words twice, or one already said on stage, or a run of 5
  words their speaker already said, or a run of 8 of anyone's;
* opening alike: lines that open with the same four words as an earlier line of their own speaker's
  ("How do you say it?", "How do you say that?"; "I'm just trying to be clear", "I'm just trying to
  explain it"): a scene that loops on one move, which no line-by-line measure above sees; no goal, a
  figure to read beside the others (the interviewer's openings are two to four words long, so its
  fourth word is mostly its own);
* relevance: how much a line shares with the line just before it, against its share with the other
  lines of the character who spoke before it (the baseline: what it would have scored had that character
  said any other of its lines there), and how often
  the same lines in a random order score as well (the shuffled chance: a permutation test; under 0.05
  says the order the lines were said in carries the score); defined in docs/benchmarks.md;
* words: the median words per line;
* seconds and CPU seconds per turn (a turn: every step up to the protagonist's line), with the load
  average before the run: on a shared machine the wall clock mostly measures the others;
* tokens read (past the model's cache) and written per turn: what the seconds are made of, steady
  whatever the load.

    .venv/bin/python bench/bench_first_run.py [--turns N] [--seeds 1,2] [--plays interview,ensemble,new]
        [--code PATH] [--json OUT] [--against BEFORE.json] [--show]
    .venv/bin/python bench/bench_first_run.py --plays path/to/play.toml   # any play file, measured alike
    .venv/bin/python bench/bench_first_run.py --compare BEFORE.json NOW.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PLAYS = {"interview": "plays/interview.toml", "ensemble": "plays/last_crossing.toml", "new": None}
ASKER = {"interview": "Sasha"}  # whose lines should ask: the interviewer (a play file's: its cast says)
GOALS = {
    "silent": "<= 5%",
    "asking": ">= 60%",
    "repeating": "<= 5%",
    "opening_alike": "",  # a speaker's lines opening with its own earlier four words: a loop
    "relevance": "> baseline",
    "baseline": "",
    "shuffled_chance": "< 0.05",
    "median_words": "",
    "seconds_per_turn": "<= 8",
    "cpu_seconds_per_turn": "",  # llama.cpp's threads together: not the goal, which is the wall clock's
    "read_per_turn": "",  # prompt tokens the model read, not found in its cache
    "written_per_turn": "",  # tokens it wrote
}

# -- measures, from stored stage lines -----------------------------------------------------------

_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+|\n+")
_PLACEHOLDER = re.compile(r"^\W*(\w+\s+)?(says nothing|is silent|stays silent|pauses)?\W*$", re.IGNORECASE)
STOPWORDS = frozenset(
    "a about after again all also am an and any are as at be because been but by can could did do does "
    "for from had has have he her here him his how i if in into is it its just me more my no not now of "
    "on one or our out she so some than that the their them then there they this to too up us was we "
    "were what when where which who why will with would you your yes oh well very really like know "
    "think said say tell".split()
)


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9']+", text.lower())


def _repeat_rule():
    """The studio's one rule of what a line says again (studio/engine/lines.py), read from this bench's own
    checkout even when another checkout is measured (--code), so every checkout is judged by one rule:
    the rule the guard of this checkout cuts by."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("_first_run_lines", ROOT / "studio" / "engine" / "lines.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module.repeats


repeats = _repeat_rule()


# What a line does rather than says: in italics (single stars; `_x_` is underlined speech in Fountain; a
# word in stars with "?" or "!" after it is an emphasised word, said), in brackets or in parentheses.
_BUSINESS = re.compile(r"\*[^*\n]+\*(?![?!])|\([^)\n]*\)|\[[^\]\n]*\]")


def is_placeholder(text: str) -> bool:
    """A line that stands for no line: empty, dots, a character "saying nothing", or stage business with
    nothing said aloud ("*sighs with a raised eyebrow*", as six of one run's ten turns of Jenny were)."""
    return (not _words(text) or bool(_PLACEHOLDER.match(text.strip().strip("*_ ")))
            or not _words(_BUSINESS.sub(" ", text)))


_ASKED = re.compile(r"[^\s?,:;(\[{]\?")
# In the checkouts before the guard dropped a line closed at its limit, the interviewer's line was held
# to 160 characters and a closing question mark (its grammar, QUESTION in
# studio/engine/forms/drama/__init__.py), and a line that ran to the limit was kept with the mark the
# grammar put there, wherever its sentence stood: 161 characters in all. Since then the guard keeps no such
# line with its mark (it trails off or keeps whole sentences), and since the grammar opens the line as a
# question to the one who answers, the limit moves with the opening (up to 17 characters, then up to 154):
# a longer line is one the model closed. So only a line of exactly the old full length is read as forced.
SHAPE_LIMIT = 160


def asks(line: str) -> bool:
    """Whether a line asks something: a question mark closing a word ("...your father?", "...'home'?"),
    not one after a space, a comma, a colon or an opening bracket ("...or ?", "...mind:?"), nor the one
    that closed a line run to the shape's limit ("...in 24 hours after we?")."""
    text = line.strip()
    if len(text) == SHAPE_LIMIT + 1 and text.endswith("?"):
        text = text[:-1]
    return bool(_ASKED.search(text))


def content(text: str) -> Counter[str]:
    """A line's content words, crudely stemmed (a plural and its singular are one word)."""
    words = (w.strip("'") for w in _words(text))
    return Counter(w[:-1] if len(w) > 4 and w.endswith("s") else w for w in words if len(w) > 2 and w not in STOPWORDS)


def similarity(a: Counter[str], b: Counter[str]) -> float:
    dot = sum(n * b[w] for w, n in a.items() if w in b)
    norm = math.sqrt(sum(n * n for n in a.values())) * math.sqrt(sum(n * n for n in b.values()))
    return dot / norm if norm else 0.0


def relevance(lines: list[tuple[str, str]]) -> tuple[float, float]:
    """(relevance, baseline) of a run's (speaker, line)s: each line's similarity to the line just before
    it, and to the other lines of that line's speaker (the expected score had the speaker before it said
    any other of its lines there), both averaged. The baseline keeps to the speaker before: a character
    shares its own words from line to line far more than with anyone, so a baseline drawn from every line
    would count that against a scene whose lines alternate."""
    bags = [content(t) for _, t in lines]
    scores, base = [], []
    for i in range(1, len(bags)):
        scores.append(similarity(bags[i], bags[i - 1]))
        before = lines[i - 1][0]
        others = [similarity(bags[i], bags[j]) for j in range(len(bags))
                  if j not in (i, i - 1) and lines[j][0] == before]
        if others:
            base.append(statistics.mean(others))
    return (statistics.mean(scores) if scores else 0.0, statistics.mean(base) if base else 0.0)


def shuffled_chance(runs: list[list[tuple[str, str]]], draws: int = 2000) -> float:
    """How often each run's lines, shuffled among the turns of their own speaker (so the same characters
    still speak in the same order), answer each other at least as well as they do in the order they were
    said (the mean over runs of each line's similarity to the line before it): the permutation test of
    the relevance against its baseline. Small (under 0.05) says the order carries the relevance; near
    0.5, that any line of the same speaker would have scored the same there."""
    tables, slots = [], []
    for lines in runs:
        if len(lines) < 2:
            continue
        bags = [content(t) for _, t in lines]
        tables.append([[similarity(a, b) for b in bags] for a in bags])
        slots.append(speaker_turns(lines))
    return order_chance(tables, slots, draws) if tables else 1.0


def speaker_turns(lines: list[tuple[str, str]]) -> list[list[int]]:
    """The places of each speaker's lines in a run: a shuffle keeps each line among its own speaker's."""
    by_speaker: dict[str, list[int]] = {}
    for i, (who, _) in enumerate(lines):
        by_speaker.setdefault(who, []).append(i)
    return list(by_speaker.values())


def order_chance(tables: list, slots: list[list[list[int]]], draws: int = 2000) -> float:
    """The permutation test under every order-against-shuffle figure here: how often the runs, each shuffled
    among its `slots` (speaker_turns), score at least as well as in the order said, a run scoring the mean
    of `table[line][line before]` over its lines (`tables`: one per run, indexed by two places)."""
    import random

    def score(orders: list[list[int]]) -> float:
        return statistics.mean(statistics.mean(t[o[i]][o[i - 1]] for i in range(1, len(o))) for t, o in zip(tables, orders))

    def shuffle(chance: random.Random, turns: list[list[int]], n: int) -> list[int]:
        order = list(range(n))
        for places in turns:
            for place, line in zip(places, chance.sample(places, len(places))):
                order[place] = line
        return order

    sizes = [max(i for turns in run for i in turns) + 1 for run in slots]
    said = score([list(range(n)) for n in sizes])
    chance = random.Random(0)
    at_least = 0
    for _ in range(draws):
        at_least += score([shuffle(chance, turns, n) for turns, n in zip(slots, sizes)]) >= said - 1e-12
    return (1 + at_least) / (1 + draws)


def opens_alike(lines: list[tuple[str, str]]) -> int:
    """How many lines open with the same four words as an earlier line of the same speaker's (a line of
    fewer words opens nothing alike)."""
    seen: set[tuple[str, tuple[str, ...]]] = set()
    alike = 0
    for who, text in lines:
        words = _words(text)
        if len(words) < 4:
            continue
        key = (who, tuple(words[:4]))
        alike += key in seen
        seen.add(key)
    return alike


def measure_run(spoken: list[tuple[str, str]], asker: str | None) -> dict:
    """`spoken`: every spoken turn of a run as (character, line), placeholders included."""
    lines = [(who, text) for who, text in spoken if not is_placeholder(text)]
    texts = [text for _, text in lines]
    asked = [asks(text) for who, text in lines if who == asker]
    rel, base = relevance(lines)
    return {
        "turns_spoken": len(spoken),
        "lines": len(lines),
        "silent": (len(spoken) - len(lines)) / len(spoken) if spoken else 0.0,
        "asking": sum(asked) / len(asked) if asked else None,
        "repeating": sum(repeats(t, texts[:i], [u for w, u in lines[:i] if w == who])
                         for i, (who, t) in enumerate(lines)) / len(texts) if texts else 0.0,
        "opening_alike": opens_alike(lines) / len(lines) if lines else 0.0,
        "relevance": rel,
        "baseline": base,
        "median_words": statistics.median(len(_words(t)) for t in texts) if texts else 0,
    }


# -- the runs -----------------------------------------------------------------------------------


def new_play(code: Path, where: Path) -> Path:
    """The play `studio new play` writes, made by the checkout under test."""
    out = subprocess.run([sys.executable, "-m", "studio", "new", "play", "The Visit", "--dir", str(where), "--no-edit"],
                         cwd=code, capture_output=True, text=True, check=True)
    return Path(out.stdout.strip().splitlines()[-1])


async def run_once(path: Path, seed: int, turns: int | None, model: str, db: Path) -> dict:
    from studio.engine import Engine
    from studio.engine.forms import load_play, resolve_cast
    from studio.model.loading import with_overrides
    from studio.store import Store

    play = load_play(path)
    play = with_overrides(play, turns=turns or play.turns, scenes=1, seed=seed)
    cast = resolve_cast(play, path, model=model)
    try:  # the interviewer, by the studio's own rule: the character whose sheet says it asks
        from studio.engine.forms.drama.prompts import asks as part_asks
        asker = next((r.name for r in cast.characters if part_asks(r)), None)
    except ImportError:  # a checkout from before the rule
        asker = None
    store = Store(db)
    engine = Engine.create(store, cast, {"model": model, "seed": seed})
    if model.startswith("local/"):
        from studio.llm import local

        local.load().llama.set_seed(seed)  # a checkout that does not seed the model is given one here
    seconds, cpu = [], []
    while True:
        started, started_cpu = time.perf_counter(), time.process_time()
        done = await engine.play_turn()
        if not done or done[-1].kind == "epilogue":
            break
        seconds.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
    # a character's turn on stage: its line, or the direction its silence became ("Sasha says nothing.")
    stage = [e for e in engine.path if e.kind in ("stage", "direction") and e.role and e.role != "director"
             and e.origin == "model"]
    # a character's direction is what its turn became when nothing was said aloud: silence, or business
    # alone (the studio keeps a line wholly in italics as a direction, its stars taken off): in italics
    # again here, it reads as what it was, in this run's figures and in any --compare of them
    turns = [(e.character or "", e.text if e.kind == "stage" else f"*{e.text.strip()}*") for e in stage]
    result = measure_run(turns, None)
    # what the turns cost the model, apart from how fast this machine ran that hour (the epilogue left out)
    usage = [e.usage for e in engine.path if e.usage and e.kind != "epilogue"]
    read = sum(u.get("prompt_tokens", 0) - u.get("cached_tokens", 0) for u in usage)
    written = sum(u.get("completion_tokens", 0) for u in usage)
    result.update(
        seed=seed,
        turns=play.turns,
        read_per_turn=read / max(len(seconds), 1),
        written_per_turn=written / max(len(seconds), 1),
        seconds_per_turn=statistics.mean(seconds) if seconds else 0.0,
        cpu_seconds_per_turn=statistics.mean(cpu) if cpu else 0.0,
        calls=len([e for e in engine.path if e.usage]),
        asker=asker,
        stage=turns,
    )
    store.close()
    return result


def summarise(runs: list[dict], asker: str | None) -> dict:
    """One play's runs as one: the measures over all their lines, the times averaged."""
    spoken = [(who, text) for r in runs for who, text in r["stage"]]
    whole = {"silent": 0.0, "asking": None, "repeating": 0.0, "median_words": 0}
    per = by_run(runs, asker)
    if spoken:
        whole = measure_run([tuple(x) for x in spoken], asker)  # silent, asking, words: over every line
        for key in ("repeating", "opening_alike"):  # each line against the earlier lines of its own run
            whole[key] = sum(p[key] * p["lines"] for p in per) / max(sum(p["lines"] for p in per), 1)
        whole["relevance"] = statistics.mean(p["relevance"] for p in per)
        whole["baseline"] = statistics.mean(p["baseline"] for p in per)
        whole["shuffled_chance"] = shuffled_chance(
            [[(who, text) for who, text in r["stage"] if not is_placeholder(text)] for r in runs])
    whole["seconds_per_turn"] = statistics.mean(r["seconds_per_turn"] for r in runs)
    whole["cpu_seconds_per_turn"] = statistics.mean(r["cpu_seconds_per_turn"] for r in runs)
    for key in ("read_per_turn", "written_per_turn"):  # not in a --json written before they were measured
        known = [r[key] for r in runs if key in r]
        whole[key] = statistics.mean(known) if known else None
    whole["load"] = statistics.mean(r.get("load", 0.0) for r in runs)
    return whole


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=None, help="turns a play (default: each play's own)")
    parser.add_argument("--seeds", default="1,2")
    parser.add_argument("--plays", default="interview,ensemble,new",
                        help="interview, ensemble, new, or the path of a play file (a copy of one with its inner "
                             "voice off, say), comma-separated")
    parser.add_argument("--model", default="local/smollm2")
    parser.add_argument("--code", type=Path, help="measure the studio checked out here instead of this one")
    parser.add_argument("--json", type=Path, help="also write every figure and stage line here")
    parser.add_argument("--against", type=Path, help="a --json of another checkout, shown beside these figures")
    parser.add_argument("--show", action="store_true", help="print each play's first run")
    parser.add_argument("--compare", type=Path, nargs=2, metavar=("BEFORE", "NOW"),
                        help="print two --json files side by side, running nothing")
    args = parser.parse_args()
    if args.compare:
        before, now = (json.loads(p.read_text()) for p in args.compare)
        report(now, before, args.show)
        return
    code = (args.code or ROOT).resolve()
    sys.path.insert(0, str(code))
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    for name in args.plays.split(","):  # before the model loads: a wrong name is told at once
        if name in PLAYS:
            continue
        if not (Path(name).is_file() and name.endswith(".toml")):
            parser.error(f"--plays: {name!r} is not interview, ensemble, new nor a play file (.toml); "
                         "name one of those, or give the path of a play")
        from studio.engine.forms import load_play

        try:
            load_play(Path(name))
        except Exception as exc:  # the checkout's own message: the file, the field and the fix
            parser.error(f"--plays: {exc}")
    from studio.llm import CallContext, CallSettings, Gateway

    # Warm: the model's load and (in older checkouts) litellm's import are not a turn's cost.
    await Gateway().complete(CallSettings(model=args.model, temperature=0.0, max_tokens=1),
                             [{"role": "user", "content": "Hello."}], CallContext(role="other", task="speak", character="Sasha"))
    seeds = [int(s) for s in args.seeds.split(",")]
    figures: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.plays.split(","):
            if name not in PLAYS:
                path = Path(name).resolve()
            else:
                path = code / PLAYS[name] if PLAYS[name] else new_play(code, Path(tmp) / "new")
            runs = []
            for seed in seeds:
                load = os.getloadavg()[0]
                run = await run_once(path, seed, args.turns, args.model, Path(tmp) / f"{name}{seed}.db")
                run["load"] = load
                runs.append(run)
            figures[name] = {"summary": summarise(runs, asker_of(name, runs)), "runs": runs}
    got = {"code": str(code), "model": args.model, "turns": args.turns, "seeds": seeds, "plays": figures}
    if args.json:
        args.json.write_text(json.dumps(got, indent=1, ensure_ascii=False))
    before = json.loads(args.against.read_text()) if args.against and args.against.exists() else None
    report(got, before, args.show)


def report(got: dict, before: dict | None, show: bool = False) -> None:
    """The figures of a bench's --json, beside another's (the code before) when given."""
    print(f"code: {got['code']}  model: {got.get('model')}  turns: {got['turns'] or 'each play its own'}  "
          f"seeds: {got['seeds']}  "
          f"cores: {os.cpu_count()}" + (f"\nbefore: {before['code']}" if before else ""))
    for figures, which in ((got, "now"), (before, "before")):
        if figures and is_scripted(figures.get("model") or ""):
            print(f"{which}: the scripted model's lines, made from each prompt, not written by a model: these "
                  "figures measure the bench, not a scene")

    def summary(figures: dict | None, name: str) -> dict | None:
        # measured again from the stored lines, so two files are judged by the same measures
        return summarise(figures["runs"], asker_of(name, figures["runs"])) if figures else None

    for name, figures in got["plays"].items():
        now = summary(figures, name)
        was = summary((before or {}).get("plays", {}).get(name), name)
        runs = by_run(figures["runs"], asker_of(name, figures["runs"]))
        turns = figures["runs"][0].get("turns") or got["turns"]
        print(f"\n{name} ({turns} turns, load average {now['load']:.1f}" + (f"; before: {was['load']:.1f})" if was else ")"))
        seeds = ", ".join(str(r.get("seed", "?")) for r in figures["runs"])
        print(f"  {'measure':<21}" + (f"{'before':>10}" if was else "") + f"{'now':>10}   {'goal':<12}now by run (seeds {seeds})")
        for key, goal in GOALS.items():
            cells = (f"{_fmt(key, was.get(key)):>10}" if was else "") + f"{_fmt(key, now.get(key)):>10}"
            spread = " ".join(f"{_fmt(key, r.get(key)):>6}" for r in runs) if key != "shuffled_chance" else ""
            print(f"  {key:<21}{cells}   {goal:<12}{spread}".rstrip())
        if show:
            for who, text in figures["runs"][0]["stage"]:
                print(f"    {who}: {text}")


def asker_of(name: str, runs: list[dict]) -> str | None:
    """Whose lines should ask in a play's runs: the interview's interviewer, or the one a play file's cast
    names by the studio's rule (kept with each run). The named plays keep the bench's own choice: the
    ensemble's Marit is asked for questions by her beat, but the goal of asking is the interview's."""
    if name in PLAYS:
        return ASKER.get(name)
    return next((r["asker"] for r in runs if r.get("asker")), None)


def is_scripted(model: str) -> bool:
    """The studio's rule (studio.lab.papers.is_scripted), written here: the report runs with another
    checkout's studio imported (--code), which may be older than that rule."""
    return model == "scripted" or model.startswith("scripted/")


def by_run(runs: list[dict], asker: str | None) -> list[dict]:
    """Each run's own figures, measured as the whole is, so a reader sees whether a figure over all the runs
    stands for each of them or for one run far from the rest (a run's lines hang together: one greeting
    reworded nine times is one run's habit, not nine findings). The permutation test reads the runs
    together and has no figure of one run."""
    return [{**{k: r.get(k) for k in GOALS}, **measure_run([tuple(x) for x in r["stage"]], asker)} for r in runs]


def _fmt(key: str, value: float | None) -> str:
    if value is None:
        return "-"
    if key in ("silent", "asking", "repeating", "opening_alike"):
        return f"{value:.0%}"
    if key in ("median_words", "read_per_turn", "written_per_turn"):
        return f"{value:.0f}"
    if key == "shuffled_chance":
        return f"{value:.3f}"
    return f"{value:.2f}"


if __name__ == "__main__":
    asyncio.run(main())
