"""A small model's question held to its shape by a mask over the vocabulary, as llama.cpp's grammar
would hold it, at a fraction of the cost."""

from __future__ import annotations

import importlib.util

import pytest

from studio.engine.forms.drama import QUESTION, QUESTION_OPENINGS
from studio.llm.line_shape import Shape, _unfinished, closed_at_limit, simple_shape


def test_the_questions_grammar_is_read_as_a_shape_and_any_other_is_left_to_llama_cpp():
    assert simple_shape(QUESTION) == Shape(frozenset("\n?([{"), 4, 154, "?", frozenset("\n?([{ ,:;"),
                                           QUESTION_OPENINGS, frozenset(" '"))
    assert simple_shape('root ::= [^\\n?([{]{7,159} [^\\n?([{ ,:;] "?"') == Shape(
        frozenset("\n?([{"), 8, 160, "?", frozenset("\n?([{ ,:;"))  # no opening word
    assert simple_shape('root ::= [^\\n?]{8,160} "?"') == Shape(frozenset({"\n", "?"}), 8, 160, "?")
    # a last character that could be one the body leaves out is llama.cpp's to read
    assert simple_shape('root ::= [^\\n?]{7,159} [^ ,] "?"') is None
    assert simple_shape('root ::= "yes" | "no"') is None
    assert simple_shape('root ::= [^a-z]{1,5} "?"') is None  # a range of characters
    assert simple_shape('root ::= [^\\n]{1,5} "?"') is None  # the closing character could stand in the body
    assert simple_shape('root ::= [^\\n?]{9,3} "?"') is None
    # an opening the body could run on from, or one written in a way the mask does not read: llama.cpp's
    assert simple_shape('root ::= ("What" | "How") [a ] [^\\n?]{3,9} "?"') is None
    assert simple_shape('root ::= ("What" | "How") [?] [^\\n?]{3,9} "?"') is None
    assert simple_shape('root ::= ("What" | how) [ ] [^\\n?]{3,9} "?"') is None
    # an opening of several words is read as one
    assert simple_shape('root ::= ("How did you" | "Do you") [ ] [^\\n?]{3,9} "?"').openings == ("How did you", "Do you")


def test_a_line_opens_as_a_question_to_the_one_who_answers_and_a_space_or_an_apostrophe_after_it():
    shape = simple_shape(QUESTION)
    assert shape.body("What did you keep") == "keep" and shape.body("How did your father") == "father"
    assert shape.body("Do you remember") == "remember" and shape.body("How long have you lived") == "lived"
    # not yet opened: an opening begun, one without what follows it, a word that runs on, a question about
    # the one who asks ("How do I get started?" was a small model's habit) or one that opens with a remark
    for text in ("Wh", "What", "What did", "Do you", "Whatever", "What's", "Does it", "How do I get started",
                 "I'm so glad I could meet you today! How did you"):
        assert shape.body(text) is None, text


# A sentence the model never ended, its body (after "What would you ") filled to the shape's 154
# characters: the question's shape closes it with its mark
RAN_ON = "What would you " + ("love to tell me about how your life is going; it is always so much easier when "
                             "people can share their stories in this little piece of their lives that all")[:154]


def test_a_line_the_shape_closed_at_its_limit_is_told_from_a_question_the_model_closed():
    assert len(RAN_ON) == 169 and RAN_ON[-1].isalpha()
    assert closed_at_limit(QUESTION, RAN_ON + "?")
    assert closed_at_limit(QUESTION, "How long have you" + RAN_ON[14:] + "?")  # 154 after a longer opening
    assert not closed_at_limit(QUESTION, RAN_ON[:120] + "?")  # the model closed it, short of the limit
    assert not closed_at_limit(QUESTION, "I'd" + RAN_ON[4:] + "?")  # not a line of this shape at all
    assert not closed_at_limit(QUESTION, "Where did you grow up?")
    assert not closed_at_limit(None, RAN_ON + "?")  # no shape, no limit of its
    assert not closed_at_limit('root ::= "yes" | "no"', RAN_ON + "?")  # a grammar that is not a simple shape


def test_a_character_begun_in_one_token_is_known_to_be_unfinished():
    curled = "’".encode()
    assert _unfinished(b"It" + curled[:1]) and _unfinished(b"It" + curled[:2])
    assert not _unfinished(b"It" + curled) and not _unfinished(b"It's") and not _unfinished(b"")


needs_model = pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None,
                                 reason="llama-cpp-python is not installed")


@pytest.fixture
def question():
    """The embedded model, its vocabulary and the interviewer's shape, as the studio holds a question."""
    from studio.llm import local
    from studio.llm.line_shape import Vocabulary

    model = local.load()
    return model, Vocabulary(model.llama), simple_shape(QUESTION)


@pytest.fixture
def held(question):
    """(the vocabulary, the shape, and which tokens the mask allows after a line written so far), the
    interviewer answering "Jenny: I grew up by the river."."""
    import numpy as np

    from studio.llm.line_shape import holding

    model, vocabulary, shape = question
    llama = model.llama
    prompt, _ = model.prompt([{"role": "user", "content": "Jenny: I grew up by the river."}])
    holds = holding(vocabulary, shape, llama, len(prompt))

    def allowed(written: str) -> np.ndarray:
        said = llama.tokenize(written.encode(), add_bos=False, special=False) if written else []
        return holds(np.array(prompt + said, dtype=np.intc), np.zeros(len(vocabulary.texts), dtype=np.single)) > -np.inf

    return vocabulary, shape, allowed


@pytest.mark.embedded
@needs_model
def test_the_mask_writes_the_line_the_grammar_would_and_keeps_it_a_question(question):
    import llama_cpp

    from studio.llm.line_shape import holding

    model, vocabulary, shape = question
    llama = model.llama
    grammar = llama_cpp.LlamaGrammar.from_string(QUESTION, verbose=False)
    # a short answer, and one that runs on to the shape's limit, where the last token must close it
    for ask, seed in [("Jenny: I grew up by the river. My father kept boats.", 1),
                      ("Write one very long question, with many commas, about cities, trains, rivers and the sea, "
                       "and never stop.", 1)]:
        prompt, _ = model.prompt([{"role": "user", "content": ask}])  # as the studio lays out a call
        lines = []
        for held in ({"grammar": grammar}, {"logits_processor": [holding(vocabulary, shape, llama, len(prompt))]}):
            llama.reset()
            done = llama.create_completion(prompt=prompt, max_tokens=64, temperature=0.5, seed=seed,
                                           repeat_penalty=1.3, min_p=0.1, top_p=0.9, **held)
            lines.append(done["choices"][0]["text"])
        assert lines[0] == lines[1]
        assert lines[1].endswith("?") and lines[1].count("?") == 1 and "\n" not in lines[1]
        body = shape.body(lines[1])  # opened as a question to the one who answers
        assert body is not None and shape.least <= len(body) - 1 <= shape.most
        if "long question" in ask:
            assert closed_at_limit(QUESTION, lines[1])  # held at the limit, then the closing mark


@pytest.mark.embedded
@needs_model
def test_a_question_mark_closes_a_word_not_a_colon_a_comma_or_a_space(held):
    vocabulary, _, allowed = held
    mark = [t for t, text in enumerate(vocabulary.texts) if text == "?"]
    spaced = [t for t, text in enumerate(vocabulary.texts) if text == " ?"]
    assert mark and spaced

    for open_end in ("What was your mind on:", "Was your river cold, or ", "What did your father keep,",
                     "What did your father keep;"):
        assert not allowed(open_end)[mark].any(), open_end
    brackets = [t for t, text in enumerate(vocabulary.texts) if set(text) & set("([{")]
    assert brackets and not allowed("What did your father")[brackets].any()  # no "(pauses)", no "[insert]"
    assert allowed("What did your father keep")[mark].all()
    assert not allowed("What did your father keep")[spaced].any()
    assert allowed("Was your river cold")[mark].all()


@pytest.mark.embedded
@needs_model
def test_a_line_filled_to_the_limit_ends_on_a_character_the_mark_may_follow(held):
    """The body's last character may not be a space, a comma, a colon or a semicolon: a line run to the
    limit ending "...work hours of " had no token left that kept the shape, and wrote dots until its
    tokens ran out ("...work hours of .............................." stood as the interviewer's line)."""
    vocabulary, shape, allowed = held

    space = [t for t, text in enumerate(vocabulary.texts) if text == " "]
    mark = [t for t, text in enumerate(vocabulary.texts) if text == "?"]
    almost = "What did you " + ("see in it " * 30)[:153]  # a body one character short of the shape's 154
    assert len(shape.body(almost)) == shape.most - 1 and almost[-1].isalpha() and space and mark
    assert not allowed(almost)[space].any()  # a space as the last character would leave nothing to close it
    assert allowed(almost)[mark].all()
    # a body already at the limit on a space (as the old mask let it be) still has its mark to close with
    stuck = almost + " "
    assert allowed(stuck).any() and allowed(stuck)[mark].all()


@pytest.mark.embedded
@needs_model
def test_the_first_tokens_spell_a_questions_opening(held):
    vocabulary, _, mask = held

    def allowed(written: str) -> set[str]:
        return {text for text, yes in zip(vocabulary.texts, mask(written)) if yes}

    first = allowed("")
    assert {"What", "How", "Why", "Did", "W", "Wh"} <= first  # a word, or a piece of one ("Wh", then "at")
    # nor a word a line opens with that the shape would make another: "I" held to go on as "Is" wrote
    # "Is sorry I could help"
    assert not first & {"I", "I'm", "A", "We", "Sasha", " What", "Tell", "So", "?", "What?"}
    after = allowed("What")
    assert {" did", " was", " do", " "} <= after and not after & {"ever", "?", " did?", "s", "'s", " I"}
    assert "at" in allowed("Wh") and "ould" in allowed("W") and "ish" not in allowed("W")
    # the opening goes on to the one who answers: not "How do I get started?"
    assert " you" in allowed("How do") and not allowed("How do") & {" I", " we", " they"}
    assert " your" in allowed("What was") and " did" not in allowed("What was")
    assert " did" in allowed("What was your father")  # the opening written, the body goes on as before


def test_the_opening_tokens_are_those_that_keep_the_line_a_prefix_of_an_opening_and_its_mark():
    """Worked out by ranges of the sorted vocabulary, the opening's tokens are the ones a reading of the
    line character by character allows (a small vocabulary, without the model)."""
    import numpy as np

    from studio.llm.line_shape import Vocabulary

    texts = ["", "W", "Wh", "What", "What ", " did", " do", "'s", "s", "ever", "Do", "es", "Does", "D", "I",
             "I'm", "How", "How?", "What (", " you", " your", " you'", " yours", " I", "?", "How do",
             "How do you", "Whatever", " "]
    vocabulary = object.__new__(Vocabulary)
    vocabulary.texts = texts
    vocabulary.partial = np.array([t == "" for t in texts])
    vocabulary.ends_turn = np.array([t == "" for t in texts])
    vocabulary.length = np.array([len(t) for t in texts])
    vocabulary._shapes, vocabulary._opened, vocabulary._sorted = {}, {}, None
    shape = simple_shape(QUESTION)

    def by_characters(text: str) -> set[str]:
        def fits(token: str) -> bool:
            line = text + token
            if not token or line.lstrip() != line:
                return False
            body = shape.body(line)
            return any(w.startswith(line) for w in shape.openings) or (
                body is not None and not (shape.left_out & set(body)))
        return {t for t in texts if fits(t)}

    for text in ("", "W", "Wh", "What", "What do", "D", "Do", "How", "How do", "Do you"):
        allowed = {t for t, yes in zip(texts, vocabulary.opening(shape, text)) if yes}
        assert allowed == by_characters(text), text
    assert {t for t, yes in zip(texts, vocabulary.opening(shape, "")) if yes} == {
        "W", "Wh", "What", "What ", "Do", "Does", "D", "How", "How do", "How do you"}
