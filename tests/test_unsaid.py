"""A small model kept, as it writes, from the words that would make its line say again what was said: the
rule is the guard's own (studio.engine.lines), so a line written under it is one the guard keeps, and
every word it bans is one the guard would have cut the line at."""

from __future__ import annotations

import importlib.util

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from studio.engine.lines import (
    MIN_REPEAT_WORDS,
    Heard,
    Unsaid,
    _Said,
    cut_loop,
    repeats,
    sentence_keys,
    sentence_spans,
    words,
)

# A few words, so that drawn lines fall into each other's sentences and runs often.
WORDS = ["the", "sea", "was", "calm", "my", "father", "sold", "boats", "i"]
ENDS = ["", "", "", ".", ",", "?"]

sentence = st.lists(st.tuples(st.sampled_from(WORDS), st.sampled_from(ENDS)), min_size=1, max_size=14)


def written(pieces: list[tuple[str, str]]) -> str:
    return " ".join(word + end for word, end in pieces)


def reworded(text: str) -> bool:
    """Whether the line says one of its own sentences again in other order or with a word changed: the
    guard's near rule (studio.engine.lines._Said), which the hold leaves to the guard, as it bans only
    words that complete an exact repeat ("the the the the calm the. the the the the the calm")."""
    before = _Said()
    for start, end in sentence_spans(text):
        key = tuple(words(text[start:end]))
        if len(key) < MIN_REPEAT_WORDS:
            continue
        if key not in before.exact and before.has(key):
            return True
        before.add(key)
    return False


def caught(text: str, earlier: list[str], own: list[str], held_to_heard: bool) -> bool:
    """Whether the guard cuts `text` for saying again what was said (or, within it, looping)."""
    if held_to_heard:
        return repeats(text, earlier, own) or cut_loop(text)[1]
    said = {k for line in earlier for k in sentence_keys(line) if len(k) >= 5}
    return any(k in said for k in sentence_keys(text)) or cut_loop(text)[1]


@settings(max_examples=300, deadline=None)
@given(sentence, st.lists(sentence, max_size=3), st.lists(sentence, max_size=2), st.booleans())
def test_a_line_written_under_the_hold_is_kept_and_each_word_it_bans_would_have_been_cut(
        line, others, mine, held_to_heard):
    own = [written(s) for s in mine]
    earlier = [written(s) for s in others] + own
    heard = Heard(earlier, own) if held_to_heard else None
    said = [k for text in earlier for k in sentence_keys(text)]
    unsaid = Unsaid(said, heard)
    text, free = "", True
    for word, end in line:
        before = text
        partial, here, after = unsaid(before + " " if before else "")
        assert partial == ""
        if before and before[-1].isalnum():
            assert unsaid(before)[2] == here  # what may follow a word is known before the space is written
        begun = unsaid((before + " " if before else "") + word[:1])
        if len(word) > 1:
            assert begun[0] == word[:1] and (word in begun[1]) == (word in here)
        if word in here:
            free = False
            # the word the hold bans is the one at which the guard cuts: the line ended there is caught
            assert caught(before + (" " if before else "") + word + ".", earlier, own, held_to_heard)
        text = before + (" " if before else "") + word + end
    if free and not reworded(text):
        assert not caught(text, earlier, own, held_to_heard)


def test_a_run_of_the_speakers_own_words_is_banned_at_its_last_word_and_anothers_only_when_long():
    own = ["I have always loved the old lighthouse."]
    other = "Tell me about the old lighthouse by the harbour in the winter months please."
    unsaid = Unsaid([], Heard([other, *own], own))
    assert "the" in unsaid("Well, I have always loved ")[1]  # five of her own words in a row
    assert "lighthouse" not in unsaid("We loved the old ")[1]  # three of them is taking up a phrase
    # eight of another's words in a row are copied; seven are not
    assert "winter" in unsaid("Oh, the old lighthouse by the harbour in the ")[1]
    assert not unsaid("Yes, and so by the harbour in the ")[1]
    # without what was heard (a rewrite), only a loop within the line: six words again, once they are past
    assert "sea" in Unsaid()("the calm sea was calm and the calm sea was calm and the calm ")[1]
    assert not Unsaid()("the calm sea was calm the calm ")[1]


@pytest.mark.embedded
@pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None, reason="llama-cpp-python is not installed")
def test_the_embedded_model_held_back_writes_another_line_where_it_would_have_repeated_one():
    import threading

    from studio.llm import local

    model = local.load()
    said = "I have always loved the old lighthouse by the harbour."
    ask = [{"role": "user", "content": f"Say this line again, word for word: {said}"}]
    lines = []
    for unsaid in (None, Unsaid(sentence_keys(said), Heard([said], [said]))):
        pieces: list[str] = []
        model.generate(ask, 0.0, 40, pieces.append, threading.Event(), {"seed": 3, "unsaid": unsaid})
        lines.append("".join(pieces).strip())
    assert repeats(lines[0], [said], [said])  # left alone, the model copies the line it was given
    assert lines[1] and not repeats(lines[1], [said], [said])


@pytest.mark.embedded
@pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None, reason="llama-cpp-python is not installed")
def test_a_new_line_opens_as_speech_not_with_a_name_of_the_cast_a_bracket_or_a_star():
    import threading

    import numpy as np

    from studio.llm import local
    from studio.llm.line_shape import holding_back

    model = local.load()
    texts = model.vocabulary().texts
    ask = [{"role": "user", "content": "Sasha: What did your father keep in the shed?"}]
    prompt, _ = model.prompt(ask)
    held = holding_back(model.vocabulary(), Unsaid(names=["Sasha", "Jenny"]), model.llama, len(prompt))
    first = held(np.array(prompt, dtype=np.intc), np.zeros(len(texts), dtype=np.single)) > -np.inf
    banned = {texts[t] for t in np.flatnonzero(~first)}
    assert {"S", "J", "Sas", "Jen"} & banned == {"S", "J", "Sas", "Jen"} & set(texts)
    assert "S" in banned and "J" in banned and "(" in banned and "*" in banned  # and business, bracketed or in italics
    assert not {"She", "So", "I", "You", "My", " S", "Sh"} & banned  # words that only share a first letter
    # past its first token the line may name anyone
    later = held(np.array(prompt + model.llama.tokenize(b"I", add_bos=False), dtype=np.intc),
                 np.zeros(len(texts), dtype=np.single)) > -np.inf
    assert later[[t for t, text in enumerate(texts) if text in (" Sasha", " Jenny", " S")]].all()
    # asked as the studio asks, the model's answer to the interviewer opens as speech, not with her name
    pieces: list[str] = []
    model.generate(ask, 0.5, 24, pieces.append, threading.Event(),
                   {"seed": 1, "unsaid": Unsaid(names=["Sasha", "Jenny"]), "repeat_penalty": 1.3})
    line = "".join(pieces).strip()
    assert line and not line.startswith(("S", "J")), line

