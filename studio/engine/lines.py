"""What a model's answer becomes as a line of the play: one character's words, each said once.

Small models overrun: after their line they write the other characters' cues and parts, or a second
paragraph; they fall into a loop and say one sentence again and again; they repeat a sentence already
said on stage, feeding the loop on the next turn. The stops sent with a call catch most of the
overruns at the source; this guard cuts whatever still comes back, so the stage, the next prompts
and the exports only ever hold the line itself. What it cut is reported, so the event can say so.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

# A sentence this long said twice in one line is a loop, not rhetoric ("No. No." stays).
MIN_REPEAT_WORDS = 4
# A sentence this long said again, word for word, after it was said on stage feeds the loop.
MIN_ECHO_WORDS = 5
# A run of this many words appearing twice in one line is a loop even without sentence breaks.
LOOP_WORDS = 6
# Within a line, sentences this long sharing this much of their vocabulary are one sentence reworded.
NEAR_WORDS = 6
NEAR_OVERLAP = 0.8

# A sentence ends at a run of stops followed by a space or the end of the text ("3.5" and "today...Jenny"
# go on), at a full-width stop (Chinese and Japanese leave no space after one), or at a newline; the
# quotes, brackets and emphasis closing it stay with it.
_SENTENCE_END = re.compile(r"[.!?…]+[\"'”’)\]*_」』）]*(?=\s|$)|[。！？]+[\"'”’)\]*_」』）]*|\n")
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_FINISHED = re.compile(r"[.!?…。！？][\"'”’)\]*_」』）]*$|[*_]$|—$|-$")
_BLANK_LINE = re.compile(r"\n\s*\n")


@dataclass
class Guarded:
    """The line as kept, and what was taken off it (``cue``, ``paragraph``, ``repeat``, ``echo``,
    ``unfinished``)."""

    text: str
    cuts: list[str] = field(default_factory=list)


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower().replace("’", "'"))


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Where each sentence starts and ends. Together they hold every word of `text`, so the words of
    its sentences, one after another, are its words."""
    spans, start = [], 0
    for match in _SENTENCE_END.finditer(text):
        if text[start : match.end()].strip():
            spans.append((start, match.end()))
        start = match.end()
    if text[start:].strip():
        spans.append((start, len(text)))
    return spans


def sentence_keys(text: str) -> list[tuple[str, ...]]:
    """Each sentence of ``text`` as its words, for comparing sentences whatever their case and punctuation."""
    return [key for start, end in sentence_spans(text) if (key := tuple(words(text[start:end])))]


def runs_of(said: list[str] | tuple[str, ...], n: int) -> list[tuple[str, ...]]:
    """Every run of `n` words in a row of `said`."""
    return [tuple(said[i : i + n]) for i in range(len(said) - n + 1)]


class _Said:
    """The sentences a line has said so far, held for the question "said before, or nearly?": the exact
    ones in a set, the long ones with their vocabulary worked out once. A reply of thousands of
    sentences (a provider past its token limit) is then read in seconds' hundredths, not seconds."""

    def __init__(self) -> None:
        self.exact: set[tuple[str, ...]] = set()
        self.long: dict[int, list[frozenset[str]]] = {}  # by the size of their vocabulary

    def has(self, key: tuple[str, ...]) -> bool:
        if key in self.exact:
            return True
        if len(key) < NEAR_WORDS:
            return False
        vocabulary = frozenset(key)
        size = len(vocabulary)
        # Overlap over union reaches NEAR_OVERLAP only if the smaller vocabulary is that share of the larger.
        for other_size in range(math.ceil(NEAR_OVERLAP * size), math.floor(size / NEAR_OVERLAP) + 1):
            for other in self.long.get(other_size, ()):
                shared = len(vocabulary & other)
                if shared >= NEAR_OVERLAP * (size + other_size - shared):
                    return True
        return False

    def add(self, key: tuple[str, ...]) -> None:
        self.exact.add(key)
        if len(key) >= NEAR_WORDS:
            vocabulary = frozenset(key)
            self.long.setdefault(len(vocabulary), []).append(vocabulary)


# A transcript's speaker label that names no one of the cast: a model writing an interview as a transcript
# heads a line "The Interviewer:" or "Narrator:" and goes on in that voice, someone else's part as surely as
# "Sasha:" is. Only such role words, with or without "The", so "The truth: I hated him." stays speech.
TRANSCRIPT_LABEL = (r"(?:the\s+)?(?:interview(?:er|ee|ing)?|narrator|speaker|host|guest|user|assistant|reporter|"
                    r"journalist|moderator)")


@lru_cache(maxsize=64)
def _cue(names: tuple[str, ...]) -> re.Pattern[str]:
    """The cue of any of `names`, or a transcript's label (`TRANSCRIPT_LABEL`); made once per cast, as every
    answer of a run is read against the same one."""
    alternatives = "|".join([*(re.escape(n.strip()) for n in names if n and n.strip()), TRANSCRIPT_LABEL])
    # 'Sasha:', '**Sasha:**', 'SASHA (softly):', '(Sasha: ...' at the start of a line, or after a sentence
    # ends within it ("...today...Jenny: It's been"): a line held to one line writes the next cue inline
    return re.compile(rf"(?:^|(?<=[.!?…]))[^\w\n]*(?:{alternatives})[*_]*\s*(?:\([^)\n]*\))?\s*[*_]*:",
                      re.IGNORECASE | re.MULTILINE)


@lru_cache(maxsize=64)
def _own_aside(name: str) -> re.Pattern[str]:
    """A bracketed aside naming `name`, with a colon after it if one follows; made once per speaker."""
    return re.compile(rf"\s*[(\[][^()\[\]\n]*\b{re.escape(name.strip())}\b[^()\[\]\n]*[)\]]\s*:?",
                      re.IGNORECASE)


def cut_own_narration(text: str, name: str) -> tuple[str, bool]:
    """Take out of `name`'s line a bracketed aside that speaks of `name` ("(Jenny now continues with one
    sentence.)", "(Jenny smiles)"): a small model copying the shape of the note the studio writes to it, or
    narrating its own character. Nobody says that aloud, and a script printed with it shows words nobody
    meant as the character's. An aside that names no one ("(smiling)") or another ("(to Sasha)") stays."""
    if not name.strip() or name.strip().lower() not in text.lower():
        return text, False
    cut, found = _own_aside(name).subn(" ", text)
    return (re.sub(r" {2,}", " ", cut).strip(), True) if found else (text, False)


def cut_loop(text: str) -> tuple[str, bool]:
    """Cut a line at the first sentence it already said, or at a run of LOOP_WORDS words said twice."""
    before = _Said()
    for start, end in sentence_spans(text):
        key = tuple(words(text[start:end]))
        if len(key) < MIN_REPEAT_WORDS:
            continue
        if before.has(key):
            return text[:start].rstrip(" ,;-—"), True
        before.add(key)
    # A loop with no sentence breaks: the same run of words again.
    lowered = text.lower().replace("’", "'")
    said = _WORD.findall(lowered)  # each word read out once, not once per run it is in
    if len(set(said)) == len(said):
        return text, False  # no word said twice, so no run of them either: most lines end here
    seen: dict[tuple[str, ...], int] = {}
    for i in range(len(said) - LOOP_WORDS + 1):
        run = tuple(said[i : i + LOOP_WORDS])
        if run in seen and i - seen[run] >= LOOP_WORDS:
            start = next(m.start() for n, m in enumerate(_WORD.finditer(lowered)) if n == i)
            return text[:start].rstrip(" ,;-—"), True
        seen.setdefault(run, i)
    return text, False


def cut_echo(text: str, said: Iterable[tuple[str, ...]], drop: bool = False) -> tuple[str, bool]:
    """Cut a line at the first sentence that was already said on stage, word for word (`drop`: leave out
    every such sentence and keep the rest)."""
    earlier = {k for k in said if len(k) >= MIN_ECHO_WORDS}
    if not earlier:
        return text, False
    return _cut_at(text, lambda sentence: tuple(words(sentence)) in earlier, drop)


def _cut_at(text: str, offends: Callable[[str], bool], drop: bool) -> tuple[str, bool]:
    """`text` cut at its first sentence that `offends`, or (`drop`) with every such sentence left out."""
    kept, found = [], False
    for start, end in sentence_spans(text):
        if offends(text[start:end]):
            if not drop:
                return text[:start].rstrip(" ,;-—"), True
            found = True
        else:
            kept.append(text[start:end].strip())
    return (" ".join(kept), True) if found else (text, False)


# What a line says again, by one rule the guard cuts by and the first-run bench
# (bench/bench_first_run.py) counts by, so a line the bench counts as said again is one the guard would
# not have let through. It reads words and sentences as the rest of the guard does.
REPEAT_WORDS = 5  # a sentence this long said again, or a run this long of the speaker's own words
COPIED_RUN = 8  # words in a row no one may copy from another's line (a shorter phrase may be taken up)
OWN_SENTENCE = 3  # a sentence this long its own speaker said before, word for word ("What is it?" again)


@dataclass
class Heard:
    """What a new line may not say again by :func:`repeats`: the stage before it, and its speaker's own
    lines among them. Filled before it is read: what it holds is read once, on first use, into the sets
    every sentence of the new line is looked up in."""

    earlier: list[str] = field(default_factory=list)
    own: list[str] = field(default_factory=list)

    @cached_property
    def sentences(self) -> frozenset[tuple[str, ...]]:
        return frozenset(key for text in self.earlier for key in sentence_keys(text) if len(key) >= REPEAT_WORDS)

    @cached_property
    def copied(self) -> frozenset[tuple[str, ...]]:
        return frozenset(run for text in self.earlier for run in runs_of(words(text), COPIED_RUN))

    @cached_property
    def mine(self) -> frozenset[tuple[str, ...]]:
        return frozenset(run for text in self.own for run in runs_of(words(text), REPEAT_WORDS))

    @cached_property
    def own_sentences(self) -> frozenset[tuple[str, ...]]:
        return frozenset(key for text in self.own for key in sentence_keys(text) if len(key) >= OWN_SENTENCE)


class _Reading:
    """A new line read sentence by sentence against what was `heard`: each sentence is asked whether,
    taken after those taken so far, it makes the line say something again. Only the runs a sentence
    completes are looked at, so a line is read once, however long."""

    def __init__(self, heard: Heard) -> None:
        self.heard = heard
        self.sentences: set[tuple[str, ...]] = set()
        self.runs: set[tuple[str, ...]] = set()
        self.tail: list[str] = []  # the last words taken, as many as a run needs from before a sentence

    def _runs(self, sentence: tuple[str, ...]) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
        """The runs of COPIED_RUN and of REPEAT_WORDS words that end in `sentence`."""
        joined = [*self.tail, *sentence]
        return (runs_of(joined[-(len(sentence) + COPIED_RUN - 1):], COPIED_RUN),
                runs_of(joined[-(len(sentence) + REPEAT_WORDS - 1):], REPEAT_WORDS))

    def repeats(self, sentence: tuple[str, ...]) -> bool:
        if len(sentence) >= REPEAT_WORDS and (sentence in self.heard.sentences or sentence in self.sentences):
            return True
        if len(sentence) >= OWN_SENTENCE and sentence in self.heard.own_sentences:
            return True  # a short sentence of its own again: "What is it?" a second time
        copied, own = self._runs(sentence)
        if any(run in self.heard.copied for run in copied):
            return True  # another's sentence copied with a word or two changed
        seen: set[tuple[str, ...]] = set()
        for run in own:
            if run in self.heard.mine or run in self.runs or run in seen:
                return True
            seen.add(run)
        return False

    def take(self, sentence: tuple[str, ...]) -> None:
        if len(sentence) >= REPEAT_WORDS:
            self.sentences.add(sentence)
        self.runs.update(self._runs(sentence)[1])
        self.tail = [*self.tail, *sentence][-(COPIED_RUN - 1):]


def repeats(line: str, earlier: Iterable[str], own: Iterable[str] = ()) -> bool:
    """Does `line` say again a sentence of REPEAT_WORDS+ words said in `earlier` (the stage before it) or
    twice in itself, a sentence of OWN_SENTENCE+ words said in `own` (its speaker's earlier lines), a run
    of REPEAT_WORDS words twice in itself or said in `own` (reworded around it or not), or a run of
    COPIED_RUN of anyone's? Taking up a shorter phrase of another's is not a repeat: an interviewer is
    asked to."""
    reading = _Reading(Heard(list(earlier), list(own)))
    for sentence in sentence_keys(line):
        if reading.repeats(sentence):
            return True
        reading.take(sentence)
    return False


def cut_repeats(text: str, heard: Heard, drop: bool = False) -> tuple[str, bool]:
    """Cut a line at the first sentence with which it :func:`repeats` what was heard (`drop`: leave out
    every such sentence and keep the rest); what is kept never repeats by that rule."""
    reading = _Reading(heard)
    kept: list[str] = []
    found = False
    for start, end in sentence_spans(text):
        key = tuple(words(text[start:end]))
        if reading.repeats(key):
            if not drop:
                return text[:start].rstrip(" ,;-—"), True
            found = True
            continue
        reading.take(key)
        kept.append(text[start:end].strip())
    return (" ".join(kept), True) if found else (text, False)


def drop_unfinished(text: str) -> tuple[str, bool]:
    """Drop a last sentence broken off by the token limit, when a finished one comes before it."""
    stripped = text.rstrip()
    if not stripped or _FINISHED.search(stripped):
        return text, False
    spans = sentence_spans(stripped)
    if len(spans) < 2:
        # "Jenny," or "This is what I mean:" promises words that never came: nothing is said
        return ("", True) if stripped[-1] in ",:;" else (text, False)
    return stripped[: spans[-1][0]].rstrip(), True


@lru_cache(maxsize=64)
def _own_cue(name: str) -> re.Pattern[str]:
    """`name`'s own cue in front of its line, made once per speaker rather than for every line."""
    return re.compile(rf"^[*_]*{re.escape(name)}[*_]*\s*(?:\([^)\n]*\))?\s*[*_]*:\s*", re.IGNORECASE)


def tidy(text: str, name: str) -> str:
    """Take off what any writer may put around a line: the speaker's own cue, a second paragraph,
    wrapping quotes. A human's line gets only this: their words are theirs."""
    text = _own_cue(name).sub("", text.strip())
    text = _BLANK_LINE.split(text, maxsplit=1)[0].strip()
    if len(text) >= 2 and text[0] == text[-1] == '"' and text.count('"') == 2:
        text = text[1:-1].strip()
    return text


def guard_line(
    text: str,
    name: str,
    names: Iterable[str] = (),
    said: Iterable[tuple[str, ...]] = (),
    *,
    speech: bool = True,
    heard: Heard | None = None,
    drop: bool = False,
) -> Guarded:
    """The part of a model's answer that is ``name``'s line.

    ``names`` is the cast: a cue of any of them at a line start ends the line (the model has begun
    someone's part), and so does a blank line. ``said`` holds the sentence keys already said on stage
    (see :func:`sentence_keys`); a sentence repeating one of them, or one said earlier in the same
    line, ends the line there; with ``heard`` (a small model's new line), so does the first sentence
    that makes the line say again what was heard (:func:`repeats`), and a line wholly in italics says
    nothing (it is business, and the character was told to speak). With ``drop``, such sentences are left
    out and the rest kept: the last resort of a line every ask of which said something again. With ``speech`` False (a critique, a
    rewritten prompt, an epilogue) only loops are cut: such texts may quote the stage and run to paragraphs.
    """
    cuts: list[str] = []
    text = text.strip()
    if speech:
        whole = text
        text = tidy(text, name)
        cue = _cue((*names, name))
        match = cue.search(text)
        if match:
            text = text[: match.start()].strip()
            cuts.append("cue")
        # the cue may also have stood after the blank line tidy cut at
        elif cue.search(whole[len(whole.split("\n\n", 1)[0]) :]):
            cuts.append("cue")
        if _BLANK_LINE.search(whole.strip()) and "cue" not in cuts:
            cuts.append("paragraph")
        text, narrated = cut_own_narration(text, name)
        if narrated:
            cuts.append("narration")
    text, looped = cut_loop(text)
    if looped:
        cuts.append("repeat")
    if speech:
        text, echoed = cut_echo(text, said, drop)
        if echoed:
            cuts.append("echo")
        if heard is not None and is_direction(text):
            # a small model's line wholly in italics is business with nothing said: the character is told so
            text = ""
            cuts.append("business")
        text, broken = drop_unfinished(text)
        if broken:
            cuts.append("unfinished")
        # last, so nothing cut after it can leave a line that says something again
        text, again = cut_repeats(text, heard, drop) if heard is not None else (text, False)
        if again:
            cuts.append("echo")
    return Guarded(text.strip(), cuts)


def clean_line(text: str, name: str) -> str:
    """A model's line without cues, a second paragraph, wrapping quotes, loops or a broken-off end."""
    return guard_line(text, name).text


def same_line(a: str, b: str) -> bool:
    """Two takes of a line that differ only in spacing, case or outer quotes are the same line."""
    norm = lambda s: " ".join(s.split()).strip(" \"'").lower()  # noqa: E731
    return norm(a) == norm(b)


# Single stars only: `_x_` is underlined speech in Fountain and an emphasised word to a reader, not business.
_ITALIC_RUN = re.compile(r"^(?:\s*\*[^*\n]+\*[\s.…]*)+$")


def is_direction(text: str) -> bool:
    """A line wholly in italics is what happens on stage, not speech: true for every character. A full
    stop after the closing star ("*sighs and looks away*.") leaves it business; a question or exclamation
    mark ("*Really*?", "*No*!") makes it an emphasised word, said."""
    return bool(_ITALIC_RUN.match(text.strip())) if text.strip() else False


def strip_italics(text: str) -> str:
    parts = re.findall(r"\*([^*\n]+)\*", text)
    return " ".join(a.strip() for a in parts) or text.strip()


_TRAILING_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]*)?$")


class Unsaid:
    """What a line being written may not go on to say, by the rules the guard cuts by: while a model
    writes, the words that would complete a sentence said before (:func:`cut_echo`), a run of the
    speaker's own words or a copied run of another's (:func:`repeats`, with `heard`), or a loop within the
    line (:func:`cut_loop`'s exact cases). A model held off those words as it samples writes something
    else there, where the guard would have cut the line afterwards and asked again. Only a faster way to
    a line the guard keeps: the guard still reads every answer."""

    def __init__(self, said: Iterable[tuple[str, ...]] = (), heard: Heard | None = None,
                 names: Iterable[str] = ()) -> None:
        # A new line opens as speech: not with a name of the cast, with which a small model narrates ("Sasha
        # smiled...") or writes a cue, and, the prompt's last line being penalised, finishes the name as
        # another word ("Shares of the conversation..."); nor with a bracket or a star, stage business
        # ("(smiles)", "*sighs*").
        # Only the first token is held (holding_back in studio/llm/line_shape.py).
        self.names = tuple(n for n in names if n)
        sentences = {k for k in said if len(k) >= MIN_ECHO_WORDS}
        if heard is not None:
            sentences |= heard.sentences | heard.own_sentences
        self.sentences = _by_start(sentences)
        self.tables: list[tuple[int, dict[tuple[str, ...], set[str]]]] = []
        if heard is not None:
            self.tables = [(REPEAT_WORDS - 1, _by_start(heard.mine)), (COPIED_RUN - 1, _by_start(heard.copied))]
        # a run of the line's own said twice: REPEAT_WORDS for a line held to `heard`, LOOP_WORDS apart otherwise
        self.own_run = REPEAT_WORDS if heard is not None else LOOP_WORDS

    def next_words(self, text: str) -> tuple[str, frozenset[str], frozenset[str]]:
        """For a line written up to `text`: the word it ends inside, or ""; the words that word may not
        become; the words that may not come next (after that word, if it is whole). A word is banned
        whole, so a word begun is finished only as something else."""
        lowered = text.lower().replace("’", "'")
        partial = _TRAILING_WORD.search(lowered)
        head = lowered[: partial.start()] if partial else lowered
        done = _WORD.findall(head)
        sentence_start = 0
        for match in _SENTENCE_END.finditer(head):
            sentence_start = match.end()
        sentence = tuple(_WORD.findall(head[sentence_start:]))
        line = [key for start, end in sentence_spans(head[:sentence_start])
                if len(key := tuple(_WORD.findall(head[start:end]))) >= MIN_REPEAT_WORDS]
        here = self._banned(done, sentence, line)
        if not partial:
            return "", here, here
        word = partial.group()
        return word, here, self._banned([*done, word], (*sentence, word), line)

    def _banned(self, done: list[str], sentence: tuple[str, ...], line: list[tuple[str, ...]]) -> frozenset[str]:
        """The words that may not follow `done` (the line's words), `sentence` being its last sentence so
        far and `line` the earlier sentences of the line worth a loop."""
        banned = set(self.sentences.get(sentence, ()))
        banned |= {key[-1] for key in line if len(key) == len(sentence) + 1 and key[:-1] == sentence}
        for width, table in self.tables:
            if len(done) >= width:
                banned |= table.get(tuple(done[-width:]), set())
        width = self.own_run - 1
        if len(done) >= width:
            tail = done[-width:]
            # the run the next word would complete may not stand earlier in the line (a loop: a run apart)
            reach = len(done) - width - (LOOP_WORDS - 1 if self.own_run == LOOP_WORDS else 0)
            banned |= {done[i + width] for i in range(max(reach, 0)) if done[i : i + width] == tail}
        return frozenset(banned)

    __call__ = next_words


def _by_start(runs: Iterable[tuple[str, ...]]) -> dict[tuple[str, ...], set[str]]:
    """Each run by all its words but the last: the last words that would complete it."""
    table: dict[tuple[str, ...], set[str]] = {}
    for run in runs:
        table.setdefault(run[:-1], set()).add(run[-1])
    return table
