"""Starting files for a new play or character: every field there, each explained in one line.

A playwright starting from nothing should not need the README open to know what a field does, so the
file explains itself; the optional fields are present but commented out, ready to switch on. Every
starting file is valid as written, so a new play can be stepped at once.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

from studio.model.errors import InputError


def slug(text: str) -> str:
    """A file stem from a title or name, in any script: letters and digits of every alphabet, lower case,
    accents dropped from Latin letters, underscores between words (`修女与女忍`, `élodie` -> `elodie`).
    A name with no letter at all gets a stem from its own characters' codes, so two never share one."""
    chars: list[str] = []
    base = ""
    for ch in unicodedata.normalize("NFKD", text.lower()):
        if unicodedata.combining(ch) or unicodedata.category(ch).startswith("M"):
            if base and base >= "\u0250":  # a vowel sign or accent of a non-Latin script is part of the word
                chars.append(ch)
            continue
        base = ch
        chars.append(ch if ch.isalnum() else " ")
    words = unicodedata.normalize("NFC", "".join(chars)).split()
    stem = "_".join(words)[:60].rstrip("_")
    if stem:
        return stem
    if not text.strip():
        return "untitled"
    import hashlib

    return "name_" + hashlib.sha256(text.strip().encode("utf-8")).hexdigest()[:10]


def _q(text: str) -> str:
    """A TOML basic string, escaped: names come from the command line and may hold anything."""
    import tomlkit  # here, not at the top: `studio`'s argument parser imports this module for `studio new`

    return tomlkit.string(text).as_string()


def _block(text: str) -> str:
    import tomlkit

    body = tomlkit.string(text, multiline=True).as_string()[3:-3]
    return f'"""\n{body}\n"""'


STARTER_PREMISE = "Say in a sentence or two where we are and what is at stake."
STARTER_SCENE = "The first scene: where we are, who is there, and what has just happened."


def starter_prompt(name: str) -> str:
    """The prompt a new character's file starts with: what to write there, in its place. The editors show it
    as a hint in an empty box rather than as text to delete."""
    return (
        f"You are {name}. Say here, in the second person, who {name} is: their age, work and history, "
        "what they want in this play and what they hide, and how they speak (short or long sentences, "
        "plain or ornate, warm or guarded). "
        "Say only what they speak aloud; keep replies to two or three sentences."
    )


def starter_description(name: str) -> str:
    return f"{name}, as the others see them."


def character_text(name: str, description: str | None = None, prompt: str | None = None) -> str:
    """A character's file; a sheet written from a script (`studio import`) brings its own description and prompt."""
    prompt = prompt or starter_prompt(name)
    description = description or starter_description(name)
    return f"""# A character for the studio. Each field is explained on the line above it; the optional
# ones are commented out: delete the "# " in front of one to use it.

# The name on stage and in the script.
name = {_q(name)}

# What the other characters know of them: a sentence or two anyone in the room could see or know.
description = {_q(description)}

# Who they are and how they speak, addressed to the model. {{ego}}, {{superego}}, {{other}} and
# {{director}} are replaced by the names of whoever sits in those seats.
prompt = {_block(prompt)}

# The model that plays them (litellm's names; local/smollm2 is built in and offline).
# model = "local/smollm2"

# How freely they improvise, from 0 (predictable) to 2 (wild); the role's default otherwise.
# temperature = 0.8

# The longest line they may say, in tokens.
# max_tokens = 120

# How much of the scene they keep in mind, in tokens.
# context_tokens = 1400

# An OpenAI-compatible server to call for this character.
# api_base = "http://localhost:8000/v1"

# Seconds to wait for a reply before trying again.
# timeout = 120
"""


def _others_text(others: list[str]) -> str:
    return "\n".join(
        f"""[[cast.others]]
# Someone the protagonist talks to; add another [[cast.others]] block for each further character.
character = {_q(o)}
""" for o in others
    )


def _superego_text(superego: str | None) -> str:
    if not superego:
        return """# The protagonist's inner voice, heard only backstage; name a character to give them one.
# [cast.superego]
# character = "inner_voice"
"""
    return f"""[cast.superego]
# The protagonist's inner voice, heard only backstage.
character = {_q(superego)}

# Its three strategies, each "every = N" turns or "probability = p" (seeded, so a replay agrees).
# [cast.superego.rewrite_prompt]   # rewrite the protagonist's character prompt
# every = 4
# [cast.superego.rewrite_speech]   # rewrite what the protagonist hears
# every = 1
# [cast.superego.critique]         # critique the protagonist's draft before it is spoken
# every = 1
"""


def _director_text(director: str | None) -> str:
    if not director:
        return """# A director who opens each scene with a stage direction.
# [cast.director]
# character = "director"
"""
    return f"""[cast.director]
# Opens each scene with a stage direction.
character = {_q(director)}
"""


# The title page's fields besides the title, in the order a new play's file explains them: the field,
# what it is, and an example for the commented-out line when it is left empty.
TITLE_PAGE_FIELDS = (
    ("author", "Who wrote it (empty: the title page names no one).", "Ana Kay"),
    ("credit", 'How the author is credited (empty: "Written by", or "by" on a stage play).', "Story by"),
    ("draft_date", "The draft's date as the title page prints it (empty: the day of the run).", "First draft, May 2026"),
    ("contact", "How to reach the author, at the foot of the title page.", "ana@example.com"),
)


def check_title_page(page: dict[str, str], where: str = "command line", names: dict[str, str] | None = None) -> dict[str, str]:
    """The title page's values as a play would keep them, or an InputError naming the field (`names` maps
    a field to what the playwright typed it as, e.g. "--author")."""
    from pydantic import ValidationError

    from studio.model.play import Play

    names = names or {}
    for key, value in page.items():
        try:
            Play.model_validate({"title": "x", "cast": {}, key: value})
        except ValidationError as exc:
            problem = exc.errors()[0]["msg"].removeprefix("Value error, ").lower()
            fix = "shorten it" if "at most" in problem else "write it on one line of printable text"
            raise InputError(where, names.get(key, key), problem, fix) from None
    return {key: value.strip() for key, value in page.items()}


def _title_page_text(page: dict[str, str]) -> str:
    out = []
    for key, what, example in TITLE_PAGE_FIELDS:
        value = page.get(key, "").strip()
        out.append(f"# {what}\n" + (f"{key} = {_q(value)}" if value else f"# {key} = {_q(example)}"))
    return "\n\n".join(out) + "\n"


def play_text(title: str, ego: str, others: list[str], superego: str | None, director: str | None,
              page: dict[str, str] | None = None) -> str:
    return f"""# A play for the studio. Each field is explained on the line above it; the optional ones are
# commented out: delete the "# " in front of one to use it. Run it with 'studio open THIS_FILE'.

# The title on the script's title page.
title = {_q(title)}

{_title_page_text(page or {})}
# What the play is about, for the director and the characters.
premise = {_q(STARTER_PREMISE)}

# Turns per scene: in a turn the other speaks and the protagonist answers.
turns = 6

# One brief per scene (the director and the characters read it), or just a number of scenes.
scenes = [
    {_q(STARTER_SCENE)},
]

# Seeds whatever fires by probability, so a run can be replayed exactly.
# seed = 0

# Whether the protagonist writes an autobiographical epilogue at the end.
# epilogue = true

[cast.ego]
# The protagonist: a file in characters/ (its name without .toml) or a path to one.
character = {_q(ego)}
# Any setting of a character can be given here for this play only, e.g. a model:
# model = "local/smollm2"
# human = true                  # play this role yourself

{_superego_text(superego)}
{_others_text(others)}
{_director_text(director)}"""


def write_new(path: Path, text: str | bytes) -> Path:
    """Write a starting file that must not replace one the playwright already has."""
    from studio.model.edit import write_atomically

    if path.exists():
        raise InputError(str(path), None, "already exists", "choose another name, or edit that file")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, text)
    except OSError as exc:
        raise InputError(str(path), None, f"cannot be written ({exc.strerror})", "check the folder") from None
    return path


def new_character(root: Path, name: str) -> Path:
    """Write characters/NAME.toml under `root` (never over an existing file); shared by `studio new` and the app."""
    if not name.strip():
        raise InputError("command line", "NAME", "is empty", "give the character a name")
    return write_new(root / "characters" / f"{slug(name)}.toml", character_text(name.strip()))


def new_play(
    root: Path,
    title: str,
    ego: str = "protagonist",
    others: list[str] | None = None,
    superego: str | None = None,
    director: str | None = None,
    page: dict[str, str] | None = None,
) -> tuple[Path, list[Path]]:
    """Write the play and a starting sheet for each character it names that does not exist yet. `page`
    holds the title page's author, credit, draft_date and contact (checked before anything is written)."""
    if not title.strip():
        raise InputError("command line", "TITLE", "is empty", "give the play a title")
    page = check_title_page(page or {})
    others = others or ["stranger"]
    names = [ego, *others, *(n for n in (superego, director) if n)]
    stems = {n: slug(n) for n in names}
    if len(set(stems.values())) != len(stems):
        raise InputError("command line", None, "two seats name the same character", "give each seat its own")
    path = root / "plays" / f"{slug(title)}.toml"
    if path.exists():
        raise InputError(str(path), None, "already exists", "choose another title, or edit that file")
    created: list[Path] = []
    for name, stem in stems.items():
        sheet = root / "characters" / f"{stem}.toml"
        if not sheet.exists():
            created.append(write_new(sheet, character_text(name)))
    text = play_text(
        title.strip(),
        stems[ego],
        [stems[o] for o in others],
        stems[superego] if superego else None,
        stems[director] if director else None,
        page,
    )
    write_new(path, text)
    return path, created


def imported_play_text(source: str, title: str, page: dict[str, str], briefs: list[str], turns: int,
                       characters: list[str], ego: str | None = None, superego: str | None = None) -> str:
    """A play written from a script (`studio import`): its title page, one brief per scene heading, and
    its speakers as an ensemble, or, with an `ego` (and its inner voice, `superego`), as a Drama Machine
    play. `characters` are stems in characters/; `page` holds author, credit, draft_date and contact."""
    fields = "".join(f"{key} = {_q(page[key])}\n" for key in ("author", "credit", "draft_date", "contact")
                     if page.get(key))
    scenes = "".join(f"    {_q(brief)},\n" for brief in briefs)
    if ego is not None:
        others = [c for c in characters if c != ego]
        cast = f"""[cast.ego]
# The protagonist: the models play every seat from the script's end on.
character = {_q(ego)}

{_superego_text(superego)}
{_others_text(others)}"""
        form = ""
    else:
        cast = "".join(f"""[[cast.characters]]
character = {_q(c)}

""" for c in characters)
        form = """# An ensemble: everyone who speaks in the script; who speaks next is whoever the newest line names,
# else the next in turn.
form = "ensemble"
next = "mentions"

"""
    return f"""# A play written by 'studio import' from {source}. Its run holds the script as written; the models
# go on from its end. Each field is explained on the line above it.

# The title page.
title = {_q(title)}
{fields}
# What the play is about, for the characters and the director: write it here.
premise = ""

{form}# Turns per scene: room for the longest scene of the script, and for the last to go on.
turns = {turns}

# One brief per scene heading of the script: the heading, then the action under it.
scenes = [
{scenes}]

{cast}"""
