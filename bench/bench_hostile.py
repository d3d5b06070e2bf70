"""What a hostile card or lorebook costs: each case's time and peak memory, and how the time grows when
the hostile part doubles (about 2 for a cost in step with the text, 4 for quadratic, 8 for cubic).

Times are the process's own CPU time, which a busy machine's other work does not add to, so the ratios
hold at any load. Each case runs three times, each in a fresh interpreter under a 1 GB address-space limit and a 120 s timeout, so a case
that has regressed prints "over the limit" instead of taking the machine with it. The keys are matched
against 20,000 characters of text, as a turn's scanned lines can hold; the macro texts go through
everything a prompt and `import` read them with (resolve, the unknown macros, template code, the
import notes).

    .venv/bin/python bench/bench_hostile.py

What it does not show: a real run's other costs (the model, the store); `tests/test_robust_hostile.py`
plays a whole run with such a key and sheet.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 1 << 30

KEYS = ["/a{999999999}/", "/(a{1000}){1000}/", "/((a{100}){100}){100}/", "/(?<=a{100000})b/", "/(a)\\1{1000000}/",
        "/(a{100}){100}/", "/(a{10}){100}/", "/(\\w+) \\1/", "/((a+)+)\\1b/"]

# name: the expression that makes the text for a size n (sent to the child, which builds it)
MACROS = {
    "{{ then n spaces": '"{{" + " " * n + "x"',
    "n unclosed <%": '"<%" * n',
    "n unclosed {{//": '"{{//" * n',
    "n unclosed {{if": '"{{if" * n',
    "{{roll: then n spaces": '"{{roll:" + " " * n + "x}}"',
    "n distinct unknown macros": '"".join("{{m%d}}" % i for i in range(n))',
}

CHILD = """
import json, sys, time
from studio.mind.worldinfo import matches
from studio.model.lorebook import template_code
from studio.model.macros import MacroContext, macro_notes, resolve, unknown_macros
case = json.loads(sys.stdin.read())
if case["kind"] == "key":
    text = "a" * 20_000 + "b"
    start = time.process_time()
    matches(case["key"], text)
else:
    n = case["n"]
    text = eval(case["make"])
    start = time.process_time()
    resolve(text, MacroContext("Ann", "Bob", seed=1)); unknown_macros(text); template_code(text)
    macro_notes({"description": text})
# the process's own peak (ru_maxrss would carry the parent's over fork and exec)
peak = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps([time.process_time() - start, peak / 1024]))
"""


def measure(case: dict[str, object], repeats: int = 3) -> tuple[float, float] | None:
    """(CPU seconds, peak MB) of one case, the fastest of `repeats` fresh interpreters, imports done before
    the clock starts; None past the limits."""
    results = [once(case) for _ in range(repeats)]
    if any(result is None for result in results):
        return None
    return min(r[0] for r in results if r), max(r[1] for r in results if r)


def once(case: dict[str, object]) -> tuple[float, float] | None:
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))
    try:
        done = subprocess.run([sys.executable, "-c", textwrap.dedent(CHILD)], input=json.dumps(case), capture_output=True,
                              text=True, cwd=ROOT, timeout=120, preexec_fn=limit, env={"PYTHONPATH": str(ROOT)})
    except subprocess.TimeoutExpired:
        return None
    if done.returncode != 0:
        return None
    seconds, peak = json.loads(done.stdout.strip().splitlines()[-1])
    return seconds, peak


def shown(result: tuple[float, float] | None) -> str:
    return "over the limit" if result is None else f"{result[0] * 1000:9.1f} ms {result[1]:7.0f} MB"


def main() -> None:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    print(f"{'World Info key (20,000 characters scanned)':46} {'time':>12} {'peak':>10}")
    for key in KEYS:
        print(f"{key:46} {shown(measure({'kind': 'key', 'key': key}))}")
    print()
    print(f"{'macro text':30} {'n':>7} {'at n':>22} {'at 2n':>22} {'2n / n':>7}")
    for name, make in MACROS.items():
        for n in (3_000, 20_000):
            one = measure({"kind": "macro", "make": make, "n": n})
            two = measure({"kind": "macro", "make": make, "n": 2 * n})
            ratio = f"{two[0] / one[0]:7.1f}" if one and two and one[0] > 0.002 else "      -"
            print(f"{name:30} {n:7,} {shown(one):>22} {shown(two):>22} {ratio}")
    print("\n(peak: the interpreter and the studio's modules included, about 30 MB of it; '-': too fast to time a ratio)")


if __name__ == "__main__":
    main()
