"""A new user's first run: is the embedded model's scene readable, and how long does it take?

Plays the interview on the embedded model with all three superego strategies on, a few turns, once per
seed, and measures the stage as a reader would meet it:

* stage lines that repeat a sentence of 5+ words, within the line or from an earlier stage line;
* distinct bigrams over all bigrams of a run's stage lines (how varied the words are);
* stage lines that write a cast member's cue (``Name:`` at a line start), i.e. another character's part;
* the median words per stage line;
* seconds per turn (a turn: the other's line, the rewrite, the draft, the critique, the revision), on the
  wall clock and in CPU seconds (on a shared machine the wall clock mostly measures the others' load);
* prompt tokens llama.cpp actually evaluated over prompt tokens sent (what reusing the KV cache saves).

The measures are computed here from the stored events alone, independently of the studio's own line
guard, so the bench can also judge a checkout from before the guard existed: point ``--code`` at it.

    .venv/bin/python bench/bench_first_run.py [--turns 5] [--seeds 1,2,3] [--code PATH] [--json OUT]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

MIN_REPEAT_WORDS = 5
GOALS = {
    "repeating": "<= 5%",
    "distinct_bigrams": ">= 0.7",
    "cue_lines": "0",
    "median_words": "15 to 60",
    "seconds_per_turn": "<= 12",
    # CPU seconds of the whole process (llama.cpp's thread included): what a turn costs whatever else
    # the machine is doing; on an idle machine the wall time comes close to it
    "cpu_seconds_per_turn": "<= 12",
    "evaluated_ratio": "<= 0.5",
}


# -- measures, from stored stage lines -----------------------------------------------------------

_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+|\n+")


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9']+", text.lower())


def sentences(text: str) -> list[tuple[str, ...]]:
    return [tuple(w) for part in _SENTENCE_END.split(text) if (w := _words(part))]


def repeats(line: str, earlier: list[str]) -> bool:
    """Does the line say a sentence of 5+ words twice, or one already said in an earlier line?"""
    said = {s for text in earlier for s in sentences(text) if len(s) >= MIN_REPEAT_WORDS}
    for sentence in sentences(line):
        if len(sentence) >= MIN_REPEAT_WORDS and sentence in said:
            return True
        said.add(sentence) if len(sentence) >= MIN_REPEAT_WORDS else None
    return False


def writes_a_cue(line: str, names: list[str]) -> bool:
    cue = re.compile(r"^\W*(%s)\W*:" % "|".join(re.escape(n) for n in names), re.IGNORECASE | re.MULTILINE)
    return bool(cue.search(line))


def measure_run(lines: list[str], names: list[str]) -> dict:
    repeated = sum(repeats(line, lines[:i]) for i, line in enumerate(lines))
    bigrams = [pair for line in lines for pair in zip(_words(line), _words(line)[1:])]
    return {
        "lines": len(lines),
        "repeating": repeated / len(lines) if lines else 0.0,
        "distinct_bigrams": len(set(bigrams)) / len(bigrams) if bigrams else 0.0,
        "cue_lines": sum(writes_a_cue(line, names) for line in lines),
        "median_words": statistics.median(len(_words(line)) for line in lines) if lines else 0,
    }


# -- counting what llama.cpp evaluates ----------------------------------------------------------


class EvalCounter:
    """Counts the prompt tokens llama.cpp evaluates: the first eval of each generation is the prompt's
    remainder after whatever prefix was reused. Patched on the class, so any version of the studio is
    measured the same way."""

    def __init__(self):
        import llama_cpp

        self.evaluated = 0
        cls = llama_cpp.Llama
        generate, evaluate = cls.generate, cls.eval
        counter = self

        def counting_generate(self, *args, **kwargs):
            self._bench_first_eval = True
            return generate(self, *args, **kwargs)

        def counting_eval(self, tokens):
            if getattr(self, "_bench_first_eval", False):
                counter.evaluated += len(tokens)
                self._bench_first_eval = False
            return evaluate(self, tokens)

        cls.generate, cls.eval = counting_generate, counting_eval


# -- the runs -----------------------------------------------------------------------------------


async def run_once(seed: int, turns: int, model: str, db: Path) -> dict:
    from studio.engine import Engine
    from studio.engine.forms import load_play, resolve_cast
    from studio.store import Store

    path = ROOT / "plays" / "interview.toml"
    play = load_play(path).model_copy(update={"turns": turns, "seed": seed})
    cast = resolve_cast(play, path, model=model)
    store = Store(db)
    engine = Engine.create(store, cast, {"model": model, "seed": seed})
    if model.startswith("local/"):
        from studio.llm import local

        local.load().llama.set_seed(seed)
    seconds, cpu = [], []
    while True:
        started, started_cpu = time.perf_counter(), time.process_time()
        done = await engine.play_turn()
        if not done or done[-1].kind == "epilogue":
            epilogue = time.perf_counter() - started
            break
        seconds.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
    stage = [e for e in engine.path if e.kind == "stage" and e.origin == "model"]
    calls = [e for e in engine.path if e.usage]
    names = [r.name for r in cast.roles]
    result = measure_run([e.text for e in stage], names)
    result.update(
        seed=seed,
        seconds_per_turn=statistics.mean(seconds),
        cpu_seconds_per_turn=statistics.mean(cpu),
        epilogue_seconds=epilogue,
        prompt_tokens=sum(int(e.usage.get("prompt_tokens", 0)) for e in calls),
        completion_tokens=sum(int(e.usage.get("completion_tokens", 0)) for e in calls),
        calls=len(calls),
        stage=[f"{e.character}: {e.text}" for e in stage],
    )
    store.close()
    return result


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=5)
    parser.add_argument("--seeds", default="1,2,3")
    parser.add_argument("--model", default="local/smollm2")
    parser.add_argument("--code", type=Path, help="measure the studio checked out here instead of this one")
    parser.add_argument("--json", type=Path, help="also write every figure and stage line here")
    parser.add_argument("--show", action="store_true", help="print the first run's stage lines")
    args = parser.parse_args()
    sys.path.insert(0, str((args.code or ROOT).resolve()))
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

    load = os.getloadavg()[0]
    counter = EvalCounter() if args.model.startswith("local/") else None
    from studio.llm import CallContext, CallSettings, Gateway

    # Warm: the model's load and (in older checkouts) litellm's import are not a turn's cost.
    await Gateway().complete(
        CallSettings(model=args.model, temperature=0.0, max_tokens=1),
        [{"role": "user", "content": "Hello."}],
        CallContext(role="other", task="speak", character="Sasha"),
    )
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for seed in [int(s) for s in args.seeds.split(",")]:
            before = counter.evaluated if counter else 0
            result = await run_once(seed, args.turns, args.model, Path(tmp) / f"seed{seed}.db")
            if counter:
                result["evaluated_ratio"] = (counter.evaluated - before) / max(result["prompt_tokens"], 1)
            results.append(result)

    import studio

    print(f"code: {Path(studio.__file__).parent.parent}  model: {args.model}  turns: {args.turns}  "
          f"seeds: {args.seeds}  load average before: {load:.2f} ({os.cpu_count()} cores)")
    keys = ["repeating", "distinct_bigrams", "cue_lines", "median_words", "seconds_per_turn", "cpu_seconds_per_turn"]
    if counter:
        keys.append("evaluated_ratio")
    print(f"{'measure':<21}" + "".join(f"{'seed ' + str(r['seed']):>12}" for r in results) + f"{'all':>12}   goal")
    total_lines = sum(r["lines"] for r in results)
    for key in keys:
        values = [r[key] for r in results]
        if key == "repeating":
            overall = sum(r["repeating"] * r["lines"] for r in results) / max(total_lines, 1)
        elif key == "cue_lines":
            overall = sum(values)
        elif key == "median_words":
            overall = statistics.median(len(_words(s.split(": ", 1)[1])) for r in results for s in r["stage"])
        else:
            overall = statistics.mean(values)
        cells = "".join(f"{_fmt(key, v):>12}" for v in values)
        print(f"{key:<21}{cells}{_fmt(key, overall):>12}   {GOALS[key]}")
    print(f"stage lines: {total_lines}; model calls: {sum(r['calls'] for r in results)}; "
          f"epilogue: {statistics.mean(r['epilogue_seconds'] for r in results):.1f} s")
    if args.show:
        print("\nseed", results[0]["seed"])
        for line in results[0]["stage"]:
            print("  " + line.replace("\n", "\n    "))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, ensure_ascii=False))


def _fmt(key: str, value: float) -> str:
    if key == "repeating":
        return f"{value:.0%}"
    if key in ("cue_lines",):
        return f"{value:g}"
    if key == "median_words":
        return f"{value:.0f}"
    return f"{value:.2f}"


if __name__ == "__main__":
    asyncio.run(main())
