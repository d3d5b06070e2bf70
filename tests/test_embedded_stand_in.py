"""The embedded model's road through the studio, on a stand-in for llama.cpp: the quick tests' share of what
tests/test_embedded.py and the embedded tests in tests/test_llm.py check on the real SmolLM2.

The stand-in holds no weights: a word is a token and the reply is a text it was handed. What runs for
real is the studio's part: the prompt as the chat template lays it out, the refusal of a prompt the
context cannot hold, the budget, the usage, the handing over of pieces to the gateway, the stop flag on
cancel, the penalty on the prompt's last words and the go-on rule for a continued line.
"""

from __future__ import annotations

import asyncio
import threading
import time
import types

import pytest

from studio.llm import CallContext, CallSettings, Gateway, ModelError
from studio.llm import local

MESSAGES = [{"role": "system", "content": "You are Sasha."}, {"role": "user", "content": "Say one line."}]
OPENS = "<|im_start|>assistant\n"


class StandInLlama:
    """llama-cpp-python's Llama as far as the studio touches it."""

    def __init__(self, reply: str, delay: float = 0.0):
        self.words = reply.split(" ")
        self.delay = delay
        self.vocabulary: dict[str, int] = {}
        self.calls: list[dict] = []
        self.closed = threading.Event()
        self.n_tokens = 0

    def tokenize(self, text: bytes, add_bos: bool = True, special: bool = False) -> list[int]:
        text = text.decode()
        for mark in ("\n", "<|im_start|>", "<|im_end|>"):
            text = text.replace(mark, f" {mark} ")
        pieces = text.split(" ")
        return [self.vocabulary.setdefault(p, len(self.vocabulary) + 1) for p in pieces if p]

    def create_completion(self, prompt, stream, temperature, max_tokens, stop, **options):
        self.calls.append({"prompt": prompt, "max_tokens": max_tokens, "stop": stop, **options})

        def chunks():
            try:
                for i, word in enumerate(self.words[:max_tokens]):
                    time.sleep(self.delay)
                    yield {"choices": [{"text": (" " if i else "") + word, "finish_reason": None}]}
                finish = "length" if len(self.words) > max_tokens else "stop"
                yield {"choices": [{"text": "", "finish_reason": finish}]}
            finally:
                self.closed.set()

        return chunks()


def _template(messages):
    text = "".join(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in messages)
    return types.SimpleNamespace(prompt=text + OPENS, added_special=False, stop="<|im_end|>")


@pytest.fixture
def stand_in(monkeypatch):
    """Puts a stand-in in the embedded model's place; call it with the reply the model is to give."""

    def make(reply: str = "The kettle has been cold since Tuesday.", delay: float = 0.0, n_ctx: int = 256):
        model = local.EmbeddedModel.__new__(local.EmbeddedModel)
        model.llama = StandInLlama(reply, delay)
        model.n_ctx = n_ctx
        model._format = _template
        model.cache = local.PrefixCache(0)
        model._grammars = {}
        model.cores = None
        model.threads_used = local.threads_now(None)
        model._structural = set(model.llama.tokenize(b"\n<|im_end|>"))
        monkeypatch.setattr(local, "load", lambda: model)
        return model

    return make


def ctx() -> CallContext:
    return CallContext("ego", "speak", "Sasha")


async def test_a_reply_streams_whole_and_its_tokens_are_counted(stand_in):
    model = stand_in()
    tokens: list[str] = []
    done = await Gateway().complete(CallSettings("local/smollm2", 0.0, 16), MESSAGES, ctx(), on_token=tokens.append)
    assert done.text == "The kettle has been cold since Tuesday." and "".join(tokens) == done.text
    [call] = model.llama.calls
    assert done.usage["prompt_tokens"] == len(call["prompt"]) and done.usage["completion_tokens"] == 7
    assert done.usage["total_tokens"] == done.usage["prompt_tokens"] + done.usage["completion_tokens"]
    assert "<|im_end|>" in call["stop"]  # the template's own end of a turn stops the reply


async def test_the_budget_is_what_the_context_has_left(stand_in):
    model = stand_in(reply=" ".join(["rain"] * 100), n_ctx=40)
    done = await Gateway().complete(CallSettings("local/smollm2", 0.0, 2000), MESSAGES, ctx())
    [call] = model.llama.calls
    assert call["max_tokens"] == 40 - len(call["prompt"]) == done.usage["completion_tokens"]


async def test_a_prompt_longer_than_the_context_is_refused_before_a_token_is_spent(stand_in):
    model = stand_in(n_ctx=64)
    flood = [{"role": "user", "content": "rain " * 100}]
    with pytest.raises(ModelError) as caught:
        await Gateway(backoff=0.001).complete(CallSettings("local/smollm2", 0.0, 8), flood, ctx())
    assert caught.value.attempts == 1  # asking again cannot make it fit
    assert "tokens" in str(caught.value) and "shorten" in str(caught.value)
    assert model.llama.calls == []


async def test_a_cancelled_call_stops_the_generation_and_the_next_is_served(stand_in):
    model = stand_in(reply=" ".join(["on"] * 2000), delay=0.005)
    tokens: list[str] = []
    call = asyncio.create_task(Gateway().complete(CallSettings("local/smollm2", 0.7, 2000), MESSAGES, ctx(),
                                                  on_token=tokens.append))
    while not tokens:
        await asyncio.sleep(0.01)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    assert await asyncio.to_thread(model.llama.closed.wait, 5)  # the generation let go, not run on to the end
    model.llama.words, model.llama.delay = ["Hello."], 0.0
    assert (await Gateway().complete(CallSettings("local/smollm2", 0.0, 4), MESSAGES, ctx())).text == "Hello."


async def test_the_penalty_reaches_the_prompts_last_words_but_never_the_ends_of_lines(stand_in):
    import numpy as np
    model = stand_in()
    await Gateway().complete(CallSettings("local/smollm2", 0.7, 16, repeat_penalty=1.5), MESSAGES, ctx())
    [call] = model.llama.calls
    [penalise] = call["logits_processor"]
    said = model.llama.vocabulary["Sasha."]
    likely = penalise(None, np.full(len(model.llama.vocabulary) + 1, 3.0))
    unlikely = penalise(None, np.full(len(model.llama.vocabulary) + 1, -3.0))
    assert likely[said] == 2.0 and unlikely[said] == -4.5  # a word of the prompt is less likely to be copied
    assert all(likely[t] == 3.0 and unlikely[t] == -3.0 for t in model._structural)  # a line may still end


async def test_an_answer_asked_again_is_kept_off_the_words_it_repeated_wherever_they_stood(stand_in):
    import numpy as np
    model = stand_in()
    for avoid in (None, "lighthouse Sasha."):
        await Gateway().complete(CallSettings("local/smollm2", 0.7, 16, repeat_penalty=1.5, avoid=avoid), MESSAGES,
                                 ctx())
    plain, again = model.llama.calls
    word = model.llama.vocabulary["lighthouse"]  # in no prompt: only the dropped answer said it
    for call, weight in ((plain, 3.0), (again, 2.0)):
        [penalise] = call["logits_processor"]
        assert penalise(None, np.full(len(model.llama.vocabulary) + 1, 3.0))[word] == weight
    [penalise] = again["logits_processor"]
    assert all(penalise(None, np.full(len(model.llama.vocabulary) + 1, 3.0))[t] == 3.0 for t in model._structural)


async def test_a_continued_line_goes_on_from_its_last_word_inside_the_reply(stand_in):
    import numpy as np
    model = stand_in(reply="and the stairs.")
    settings = CallSettings("local/smollm2", 0.7, 16, prefill="The kettle has been cold since")
    await Gateway().complete(settings, MESSAGES, CallContext("ego", "continue", "Sasha"))
    [call] = model.llama.calls
    plain, _ = model.prompt(MESSAGES)
    # the same prompt, with the reply begun after the template's opening of it
    assert call["prompt"][: len(plain)] == plain
    assert call["prompt"][len(plain):] == model.llama.tokenize(b"The kettle has been cold since")
    [go_on] = call["logits_processor"]
    ends = sorted(model._structural)
    early = go_on(list(call["prompt"]), np.zeros(len(model.llama.vocabulary) + 1))
    assert all(early[t] == -np.inf for t in ends)  # its first tokens may not end it
    later = go_on(list(call["prompt"]) + [1] * local.GO_ON_TOKENS, np.zeros(len(model.llama.vocabulary) + 1))
    assert all(later[t] == 0 for t in ends)


def test_a_schema_becomes_one_grammar_held_for_every_call_that_asks_it():
    from studio.mind.reflection import ReflectionReply
    from studio.structured import reply_schema

    model = local.EmbeddedModel.__new__(local.EmbeddedModel)
    model._grammars = {}
    schema = reply_schema(ReflectionReply)
    assert model.grammar(schema) is model.grammar(schema)
    with pytest.raises(ModelError, match="cannot hold a reply to this schema"):
        model.grammar("{not json")
