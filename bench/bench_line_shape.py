"""What holding a question's shape costs the embedded model: llama.cpp's grammar sampler against the
studio's mask (studio/llm/line_shape.py), side by side.

Writes the same seeded questions both ways, one after the other (prompts that answer briefly and prompts
that run on to the shape's length limit), and prints the seconds each way, their ratio, and how many of
the lines came out word for word the same (all of them should: the mask removes the tokens the grammar
sampler would).

    .venv/bin/python bench/bench_line_shape.py [--seeds 3]
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from studio.engine.forms.drama import QUESTION  # noqa: E402
from studio.llm import local  # noqa: E402
from studio.llm.line_shape import Vocabulary, holding, simple_shape  # noqa: E402

ASKS = [
    "Ask me about my father.",
    "Jenny: I grew up by the river. My father kept boats.",
    "Say something about the weather.",
    "Jenny: No.",
    "Write a very long sentence about cities, trains and the sea, with many commas.",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    import llama_cpp

    logging.getLogger("llama-cpp-python").setLevel(logging.CRITICAL + 1)
    model = local.load()
    llama = model.llama
    started = time.perf_counter()
    vocabulary = Vocabulary(llama)
    once = time.perf_counter() - started
    shape = simple_shape(QUESTION)
    assert shape is not None
    grammar = llama_cpp.LlamaGrammar.from_string(QUESTION, verbose=False)
    seconds = {"grammar": 0.0, "mask": 0.0}
    same = tokens = 0
    for seed in range(1, args.seeds + 1):
        for ask in ASKS:
            prompt, _ = model.prompt([{"role": "user", "content": ask}])  # as the studio lays out a call
            lines = {}
            for way in ("grammar", "mask"):
                llama.reset()
                held = ({"grammar": grammar} if way == "grammar"
                        else {"logits_processor": [holding(vocabulary, shape, llama, len(prompt))]})
                started = time.perf_counter()
                done = llama.create_completion(prompt=prompt, max_tokens=64, temperature=0.5, seed=seed,
                                               repeat_penalty=1.3, min_p=0.1, top_p=0.9, **held)
                seconds[way] += time.perf_counter() - started
                lines[way] = done["choices"][0]["text"]
                if way == "mask":
                    tokens += done["usage"]["completion_tokens"]
            same += lines["grammar"] == lines["mask"]
    count = args.seeds * len(ASKS)
    print(f"{count} questions ({tokens} tokens), load average {os.getloadavg()[0]:.1f} at the end; "
          f"the mask's table of the vocabulary, once per model: {once:.2f} s")
    print(f"  llama.cpp's grammar: {seconds['grammar']:.2f} s   the mask: {seconds['mask']:.2f} s   "
          f"mask / grammar: {seconds['mask'] / seconds['grammar']:.2f} x   the same line both ways: {same} of {count}")


if __name__ == "__main__":
    main()
