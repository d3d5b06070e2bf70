"""A line held to a simple shape by masking tokens, where llama.cpp's grammar sampler would cost more.

The interviewer's question opens as a question put to the one who answers ("How did you", "Do you")
and a space or an apostrophe, then holds some characters without a line break, a question mark or a
bracket, the last of them not a space, a comma, a colon or a semicolon either, then one question mark
(``root ::= ("What do you" | "How did you" | ...) [ '] [^\\n?([{]{3,153} [^\\n?([{ ,:;] "?"``): a
question ends on a word, not on "or ?" or "mind:?".
llama.cpp's grammar sampler works out, at every step, which of the model's 49,152 tokens the grammar
still allows: on 2 cores about 15 ms a token, half again what writing the token costs. A shape this
simple (perhaps an opening from a list and a character after it, then characters left out, a
bounded count of them, the last of them perhaps from a narrower set, one closing character that is
itself left out of the body) is worked out for the whole vocabulary once (the opening, once for each
piece of an opening begun that is met), and each step masks the tokens that would leave it. They are the
tokens the grammar sampler removes, and they are removed before the repeat penalty, which leaves a
removed token removed, so a seeded call draws the same line either way. Any other grammar goes to
llama.cpp as it is.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

_SIMPLE = re.compile(
    r'^root ::= (?:\(("[A-Za-z][A-Za-z ]*"(?: \| "[A-Za-z][A-Za-z ]*")*)\) \[([^\]\\^-]+)\] )?'
    r'\[\^((?:\\.|[^\]\\])+)\]\{(\d+),(\d+)\}(?: \[\^((?:\\.|[^\]\\])+)\])? "(\\.|[^"\\])"$')
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r"}
_WORD_PIECE = re.compile(r"( ?)([A-Za-z0-9'’]+)")


@dataclass(frozen=True)
class Shape:
    """A body of `least` to `most` characters none of which is in `left_out`, the last of them not in
    `last_out` either, then `end` (itself left out); with `openings`, the body follows one of those words
    or phrases ("How", "How did you") and one of the characters `after` them."""

    left_out: frozenset[str]
    least: int
    most: int
    end: str
    last_out: frozenset[str] = frozenset()
    openings: tuple[str, ...] = ()
    after: frozenset[str] = frozenset()

    def body(self, text: str) -> str | None:
        """The body of a line written up to `text`: after its opening and the character after it;
        None while the opening is not yet written."""
        if not self.openings:
            return text
        for word in self.openings:
            if len(text) > len(word) and text.startswith(word) and text[len(word)] in self.after:
                return text[len(word) + 1:]
        return None


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), text)


def simple_shape(gbnf: str) -> Shape | None:
    """The shape a GBNF grammar describes, when it is this simple one; else None."""
    match = _SIMPLE.match(gbnf.strip())
    if not match:
        return None
    openings = tuple(w.strip('"') for w in match.group(1).split(" | ")) if match.group(1) else ()
    after = frozenset(match.group(2) or "")
    left_out = frozenset(_unescape(match.group(3)))
    least, most, end = int(match.group(4)), int(match.group(5)), _unescape(match.group(7))
    last_out = frozenset(_unescape(match.group(6))) if match.group(6) else frozenset()
    if any(c in "-]^" for c in left_out | last_out) or end not in left_out or least > most:
        return None  # ranges and their like are llama.cpp's to read
    if after & left_out or after & set("\\\"") or (openings and any(c.isalnum() for c in after)):
        return None  # an opening the body or the word itself could run on from: llama.cpp's to read
    if not last_out:
        return Shape(left_out, least, most, end, openings=openings, after=after)
    if not left_out <= last_out:
        return None  # a last character the body's own characters could not be: llama.cpp's to read
    # the body's count, then its last character
    return Shape(left_out, least + 1, most + 1, end, last_out, openings, after)


def closed_at_limit(gbnf: str | None, text: str) -> bool:
    """Whether `text`, written under the grammar `gbnf`, is a body the simple shape closed at its length
    limit: the model never ended it, the shape put its end mark after the last character it allowed
    ("...when people can share their stories in this little bit they don?")."""
    shape = simple_shape(gbnf) if gbnf else None
    if shape is None or not text.endswith(shape.end):
        return False
    body = shape.body(text[: -len(shape.end)])
    return body is not None and len(body) >= shape.most


class Vocabulary:
    """Each token's text, worked out once per model: its length in characters, whether it keeps clear of
    a shape's left-out characters, and whether it ends a line of that shape."""

    def __init__(self, llama: Any) -> None:
        import numpy as np

        import llama_cpp

        count = llama.n_vocab()
        pieces = [llama.detokenize([token]) for token in range(count)]
        texts = [piece.decode("utf-8", errors="ignore") for piece in pieces]
        self.texts = texts
        # a piece of a character spelt over several tokens: no character of its own yet, but text
        self.partial = np.array([bool(piece) and not text for piece, text in zip(pieces, texts)])
        # a piece of a character counts as the one character it will make
        self.length = np.array([len(t) or (1 if piece else 0) for piece, t in zip(pieces, texts)], dtype=np.int64)
        vocab = llama_cpp.llama_model_get_vocab(llama.model)
        self.ends_turn = np.array([bool(llama_cpp.llama_vocab_is_eog(vocab, t)) for t in range(count)])
        self._shapes: dict[Shape, tuple[Any, ...]] = {}
        self._openings: dict[tuple[str, ...], Any] = {}
        self._opened: dict[tuple[Shape, str], Any] = {}
        self._sorted: tuple[list[str], Any] | None = None
        self._words: tuple[dict[str, list[int]], dict[str, list[int]]] | None = None

    def word_pieces(self) -> tuple[dict[str, list[int]], dict[str, list[int]]]:
        """The tokens that are part of a word and nothing else, by their text in lower case: those that
        begin with a space (a word after another) and those that do not (a word's start after a stop or
        a quote, or the rest of a word begun). Worked out once."""
        if self._words is None:
            spaced: dict[str, list[int]] = {}
            bare: dict[str, list[int]] = {}
            for token, text in enumerate(self.texts):
                match = _WORD_PIECE.fullmatch(text)
                if match:
                    table = spaced if match.group(1) else bare
                    table.setdefault(match.group(2).lower().replace("’", "'"), []).append(token)
            self._words = spaced, bare
        return self._words

    def openings(self, names: tuple[str, ...]) -> Any:
        """The tokens a new line may not open with: one that begins one of `names` (the name, or a piece of
        it from its first letter: "S", "Sas", "Sasha"; not a word that only shares its first letter, "She",
        "So"), a bracket (stage business, "(smiles)", or a template's gap, "[name]") or a star (business in
        italics: "*sighs with a raised eyebrow*" stood for six of one run's ten turns of Jenny)."""
        if names not in self._openings:
            import numpy as np

            self._openings[names] = np.array([bool(t.strip()) and t == t.lstrip() and (
                t[0] in "([*" or any(n.startswith(t) for n in names)) for t in self.texts])
        return self._openings[names]

    def opening(self, shape: Shape, text: str) -> Any:
        """The tokens that may follow `text` while a line of `shape` has not yet written its opening and
        the character after it: those that go on spelling one of the words, or finish one, write a
        character allowed after it, and go on clear of the body's left-out characters. Worked out once for
        each `text` met (the empty line, an opening's words written one by one, and rarely a word begun in
        pieces, "Wh")."""
        key = (shape, text)
        if key not in self._opened:
            import bisect

            import numpy as np

            if self._sorted is None:
                ranked = sorted(range(len(self.texts)), key=self.texts.__getitem__)
                self._sorted = ([self.texts[t] for t in ranked], np.asarray(ranked, dtype=np.int64))
            texts, order = self._sorted

            def starting(prefix: str) -> Any:  # the tokens whose text begins with `prefix`
                return order[bisect.bisect_left(texts, prefix):bisect.bisect_left(texts, prefix + "\U0010ffff")]

            allowed = np.zeros(len(self.texts), dtype=bool)
            for word in shape.openings:
                if not word.startswith(text):
                    continue
                for end in range(len(text) + 1, len(word) + 1):  # a piece that goes on spelling the word
                    piece = word[len(text):end]
                    allowed[order[bisect.bisect_left(texts, piece):bisect.bisect_right(texts, piece)]] = True
                for mark in shape.after:  # the word's rest, a character after it, and whatever follows
                    allowed[starting(word[len(text):] + mark)] = True
            # clear of the left-out characters, and not the end of the turn (a piece of a character is
            # no text, so no opening)
            self._opened[key] = allowed & self.for_shape(shape)[0]
        return self._opened[key]

    def for_shape(self, shape: Shape) -> tuple[Any, Any, Any, Any]:
        """(tokens whose text is clear of the left-out characters, tokens that are such a text and then `end`
        with a last character allowed before it, those and the tokens that are `end` alone, tokens whose
        last character may not stand before `end`)."""
        if shape not in self._shapes:
            import numpy as np

            def closes(text: str) -> bool:
                body = text[: -len(shape.end)]
                return (text.endswith(shape.end) and bool(body) and not (shape.left_out & set(body))
                        and body[-1] not in shape.last_out)

            clear = np.array([bool(t) and not (shape.left_out & set(t)) for t in self.texts]) | self.partial
            closing = np.array([closes(t) for t in self.texts])
            closing &= ~self.ends_turn
            bare = np.array([t == shape.end for t in self.texts]) & ~self.ends_turn
            open_end = np.array([bool(t) and t[-1] in shape.last_out for t in self.texts])
            self._shapes[shape] = (clear & ~self.ends_turn, closing, closing | bare, open_end)
        return self._shapes[shape]


def _unfinished(raw: bytes) -> bool:
    """Whether `raw` ends inside a character spelt over several tokens (UTF-8: a lead byte whose
    continuation bytes have not all come)."""
    for back in range(1, min(4, len(raw)) + 1):
        byte = raw[-back]
        if byte & 0xC0 != 0x80:  # not a continuation byte: an ASCII byte or the lead of the last character
            needed = 2 if byte & 0xE0 == 0xC0 else 3 if byte & 0xF0 == 0xE0 else 4 if byte & 0xF8 == 0xF0 else 1
            return back < needed
    return False


def holding(vocabulary: Vocabulary, shape: Shape, llama: Any, prompt: int):
    """A logits processor that keeps a reply inside `shape` (the reply starts after `prompt` tokens)."""
    import numpy as np

    clear, after_word, any_close, open_end = vocabulary.for_shape(shape)
    body = vocabulary.length - len(shape.end)

    def apply(input_ids, logits):
        said = input_ids[prompt:].tolist()
        raw = llama.detokenize(said) if said else b""
        line = raw.decode("utf-8", errors="ignore")
        text = shape.body(line)
        if text is None:  # the opening and the character after it come first
            logits[~vocabulary.opening(shape, line)] = -np.inf
            return logits
        if text.endswith(shape.end):
            allowed = vocabulary.ends_turn  # the line is whole: it may only end
        elif _unfinished(raw):
            allowed = vocabulary.partial  # a character begun is finished first; it was counted when begun
        else:
            written = len(text)
            # the closing mark alone follows only a last character the shape allows before it
            closes = any_close if not shape.last_out or (text and text[-1] not in shape.last_out) else after_word
            reach = written + vocabulary.length
            # a body filled to its last character ends on one the mark may follow: a line run to the limit
            # on "...work hours of " had no token left that kept the shape, and sampled dots until its
            # tokens ran out
            allowed = (clear & (reach <= shape.most) & ~(open_end & (reach == shape.most))) | (
                closes & (written + body >= shape.least) & (written + body <= shape.most))
            if not allowed.any():
                allowed = any_close & (written + body <= shape.most)  # the mark, rather than no token at all
        logits[~allowed] = -np.inf
        return logits

    return apply


def holding_back(vocabulary: Vocabulary, unsaid: Callable[[str], tuple[str, frozenset[str], frozenset[str]]],
                 llama: Any, prompt: int):
    """A logits processor that keeps a reply from writing the words `unsaid` bans (the reply starts after
    `prompt` tokens): every token that would go on with a banned word begun, and every token that would
    begin a banned next word from its second letter on (a word of one letter, that letter), so the model
    writes another word there; and, for the line's first token, those that would open it with a name of
    `unsaid.names`, a bracket or a star (`Vocabulary.openings`)."""
    import numpy as np

    spaced, bare = vocabulary.word_pieces()
    names = tuple(getattr(unsaid, "names", ()))
    opening = vocabulary.openings(names) if names else None

    def starts(words: frozenset[str], tables: tuple[dict[str, list[int]], ...]) -> list[int]:
        return [t for word in words for n in range(min(2, len(word)), len(word) + 1)
                for table in tables for t in table.get(word[:n], ())]

    def apply(input_ids, logits):
        said = input_ids[prompt:].tolist()
        if not said and opening is not None:
            logits[opening] = -np.inf  # the line opens as speech: not with a name of the cast, a bracket or a star
        text = llama.detokenize(said).decode("utf-8", errors="ignore") if said else ""
        partial, here, after = unsaid(text)
        if partial:
            # the word begun may not be finished as a banned one, nor a banned word start after it
            tokens = [t for word in here if word.startswith(partial) and word != partial
                      for n in range(1, len(word) - len(partial) + 1)
                      for t in bare.get(word[len(partial):len(partial) + n], ())]
            tokens += starts(after, (spaced,))
        else:
            tokens = starts(here, (spaced, bare))
        if tokens:
            logits[np.asarray(tokens, dtype=np.intc)] = -np.inf
        return logits

    return apply
