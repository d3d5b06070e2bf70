"""Does a line follow from the line before it? The embedded model, read as a language model, judges it.

`bench_first_run.py` scores relevance by the content words a line shares with the one before it. A line
can follow from the one before without sharing a word ("What does he do on Sundays?" / "He fixes
clocks."), so this reads the same stored lines another way: how much more likely the embedded model
finds each line after the line it followed, in nats a token, than after another line of the character
who spoke before it. Two other lines are set beside the one it followed:

* any other line of that character (what the first-run bench's baseline does), with a permutation test
  over the same shuffles as its shuffled chance; a scene whose subject drifts scores here without
  answering anything, as neighbouring lines share a subject;
* that character's line before (the one two turns back): as near in the scene as the line it followed,
  so drift alone does not carry it. The share of lines more likely after the line they followed, with
  a one-sided sign test, says whether the lines answer what was just said rather than the scene.

What it does not show: a line that echoes the words before it scores as well as one that answers them;
the reader is the 135M model that wrote the lines, and its sense of what follows what is its own; plain
text ("Sasha: ...\\nJenny: ...") is not the chat layout the lines were written in.

    .venv/bin/python bench/bench_answers.py RUN.json [MORE.json ...] [--plays interview]

RUN.json: what `bench_first_run.py --json` wrote (its stored stage lines); nothing is played again.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_first_run import is_placeholder, order_chance, speaker_turns  # noqa: E402  (beside this file)

Line = tuple[str, str]
Table = dict[tuple[int, int], float]  # (line, the line set before it) -> mean log-likelihood a token


def pairs_needed(lines: list[Line]) -> dict[int, list[int]]:
    """For each line that stands before another, the lines to score after it: every line of a speaker who
    follows that line's speaker somewhere in the run (a shuffle among a speaker's own turns puts any of
    them there)."""
    follows: dict[str, set[str]] = {}
    for (before, _), (who, _) in zip(lines, lines[1:]):
        follows.setdefault(before, set()).add(who)
    needed: dict[int, list[int]] = {}
    for j, (speaker, _) in enumerate(lines):
        after = [i for i, (who, _) in enumerate(lines) if i != j and who in follows.get(speaker, ())]
        if after:
            needed[j] = after
    return needed


def measure(lines: list[Line], table: Table) -> dict:
    """The line-before lifts of one run: against any other line of the speaker before, and against that
    speaker's line before."""
    lift, near = [], []
    for i in range(1, len(lines)):
        before = lines[i - 1][0]
        said = table[(i, i - 1)]
        others = [table[(i, j)] for j in range(len(lines)) if j not in (i, i - 1) and lines[j][0] == before]
        if others:
            lift.append(said - statistics.mean(others))
        earlier = next((j for j in range(i - 2, -1, -1) if lines[j][0] == before), None)
        if earlier is not None:
            near.append(said - table[(i, earlier)])
    return {"lift": lift, "near": near}


def shuffled_chance(runs: list[tuple[list[Line], Table]], draws: int = 2000) -> float:
    """How often the lines shuffled among their own speaker's turns score, after the line set before them,
    at least as well as in the order said: bench_first_run's permutation test, on this reader's tables."""
    tables = []
    for _, table in runs:
        nested: dict[int, dict[int, float]] = {}
        for (i, j), value in table.items():
            nested.setdefault(i, {})[j] = value
        tables.append(nested)
    return order_chance(tables, [speaker_turns(lines) for lines, _ in runs], draws)


def sign_test(diffs: list[float]) -> tuple[int, int, float]:
    """(lines more likely after the line they followed, lines compared, one-sided sign-test p)."""
    from scipy.stats import binomtest

    wins, n = sum(d > 0 for d in diffs), sum(d != 0 for d in diffs)
    return wins, n, binomtest(wins, n, 0.5, alternative="greater").pvalue if n else 1.0


class Reader:
    """The embedded model's weights, loaded to read text rather than write it: every token's
    log-likelihood after what stands before it."""

    def __init__(self) -> None:
        import llama_cpp

        from studio.llm.local import gguf_path, threads

        self.llama = llama_cpp.Llama(model_path=str(gguf_path()), n_ctx=1024, n_threads=threads(),
                                     n_threads_batch=threads(), logits_all=True, verbose=False)

    def tokens(self, text: str, first: bool = False) -> list[int]:
        return self.llama.tokenize(text.encode(), add_bos=first, special=False)

    def table(self, lines: list[Line], longest: int = 60) -> Table:
        """Each needed line's mean log-likelihood a token (its first `longest` tokens), read after each
        line that may stand before it, the line before read once for all that follow it."""
        import numpy as np

        llama, table = self.llama, {}
        for j, after in pairs_needed(lines).items():
            context = self.tokens(f"{lines[j][0]}: {' '.join(lines[j][1].split())}\n", first=True)
            llama.reset()
            llama.eval(context)
            for i in after:
                cue = self.tokens(f"{lines[i][0]}:")
                said = self.tokens(" " + " ".join(lines[i][1].split()))[:longest]
                llama.n_tokens = len(context)  # the line before stays evaluated; only what follows is read
                llama.eval(cue + said)
                start = len(context) + len(cue)
                scores = np.asarray(llama.scores[start - 1 : start - 1 + len(said)], dtype=np.float64)
                top = scores.max(axis=1, keepdims=True)
                norm = top[:, 0] + np.log(np.exp(scores - top).sum(axis=1))
                table[(i, j)] = float((scores[np.arange(len(said)), said] - norm).mean())
        return table


def report(name: str, runs: list[tuple[list[Line], Table]]) -> dict:
    per = [measure(lines, table) for lines, table in runs]
    lift = [d for p in per for d in p["lift"]]
    near = [d for p in per for d in p["near"]]
    wins, n, p = sign_test(near)
    return {"play": name, "lines": sum(len(lines) for lines, _ in runs),
            "lift_over_any": statistics.mean(lift) if lift else 0.0, "shuffled_chance": shuffled_chance(runs),
            "lift_over_line_before": statistics.mean(near) if near else 0.0,
            "more_likely": f"{wins}/{n}", "sign_p": p}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", type=Path, nargs="+", help="what bench_first_run.py --json wrote")
    parser.add_argument("--plays", default="", help="only these plays (default: every play in the file)")
    args = parser.parse_args()
    reader: Reader | None = None
    wanted = {p for p in args.plays.split(",") if p}
    for path in args.runs:
        data = json.loads(path.read_text())
        print(f"{path}  (code {data.get('code', '?')}, seeds {data.get('seeds', '?')})")
        for name, play in data["plays"].items():
            if wanted and name not in wanted:
                continue
            reader = reader or Reader()
            started = time.perf_counter()
            runs = []
            for run in play["runs"]:
                lines = [(who, text) for who, text in run["stage"] if not is_placeholder(text)]
                if len(lines) > 2:
                    runs.append((lines, reader.table(lines)))
            if not runs:
                continue
            r = report(name, runs)
            print(f"  {name}: {r['lines']} lines; after the line it followed, against any other line of that "
                  f"speaker {r['lift_over_any']:+.3f} nats a token (shuffled chance {r['shuffled_chance']:.3f}); "
                  f"against that speaker's line before {r['lift_over_line_before']:+.3f}, more likely in "
                  f"{r['more_likely']} (sign test p {r['sign_p']:.3f}); read in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
