"""Reading plays and characters from TOML, and turning a play into a cast the engine can run.

Nothing in a file is evaluated: TOML is parsed as data and validated by pydantic; prompts are
filled with plain string replacement of a few named fields.
"""

from __future__ import annotations

import os
from pathlib import Path
from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from studio.model.errors import InputError
from studio.model.toml_file import read_toml as _read_toml
from studio.model.play import (
    CHARACTER_KINDS,
    DEFAULT_CONTEXT_TOKENS,
    DEFAULT_MODEL,
    ROLE_DEFAULTS,
    CastMember,
    CharacterSheet,
    Play,
    ResolvedCast,
    ResolvedRole,
    RoleKind,
    SuperegoSettings,
)

M = TypeVar("M", bound=BaseModel)

_FIXES = {
    "less_than_equal": "use a smaller value",
    "greater_than_equal": "use a larger value",
    "greater_than": "use a larger value",
    "less_than": "use a smaller value",
    "missing": "add it",
    "extra_forbidden": "remove it or check its spelling",
    "string_type": "write it as a quoted string",
    "int_type": "write it as a whole number",
    "int_parsing": "write it as a whole number",
    "float_type": "write it as a number",
    "float_parsing": "write it as a number",
    "bool_type": "write true or false",
    "bool_parsing": "write true or false",
    "list_type": "write it as a list, [ ... ]",
    "too_short": "give at least one",
    "string_too_short": "it must not be empty",
    "string_too_long": "shorten it",
    "too_long": "give fewer",
}


def _field_path(loc: tuple[Any, ...]) -> str:
    parts: list[str] = []
    for item in loc:
        if isinstance(item, int):
            parts[-1:] = [f"{parts[-1]}[{item}]"] if parts else [f"[{item}]"]
        elif item in ("int", "list[str]", "function-after[_scenes(), union[int,list[str]]]"):
            continue
        else:
            parts.append(str(item))
    return ".".join(parts)


def _validate(model: type[M], data: dict[str, Any], path: Path, prefix: str = "") -> M:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        from studio.clean import shown_value  # only on the error path: keeps start-up light

        err = exc.errors()[0]
        field = prefix + _field_path(err["loc"])
        kind = err["type"]
        problem = err["msg"]
        if kind == "extra_forbidden" and field.startswith("cast.") and field.count(".") == 1:
            problem = f"unknown role '{field.split('.')[1]}'"
            fix = "the roles are ego, superego, others and director"
        elif kind == "missing":
            problem = "is missing"
            fix = _FIXES["missing"]
        elif kind == "value_error":
            # A validator's own sentence: "<problem>; <fix>". Pydantic's "Value error, " prefix and a dump
            # of the whole table would bury it, so neither is shown.
            problem, _, fix = str(err.get("ctx", {}).get("error", problem)).partition("; ")
            fix = fix or "see docs/plays.md for the fields this file takes"
            sub, sep, rest = problem.partition(": ")
            if sep and sub.replace("_", "").replace(".", "").isalpha() and sub.islower():
                field, problem = f"{field}.{sub}" if field else sub, rest
        else:
            if "input" in err and kind != "extra_forbidden":
                problem += f" (got {shown_value(err['input'])})"
            fix = _FIXES.get(kind, "see docs/plays.md for the fields this file takes")
        raise InputError(str(path), field or None, problem, fix) from None


def read_play(path: str | os.PathLike[str]) -> Play:
    """A play file as data: its fields checked, not yet its form's rules (studio.engine.forms.load_play
    reads a play through this and then asks the form)."""
    p = Path(path)
    return _validate(Play, _read_toml(p, "play"), p)


Seat = tuple[str, RoleKind, CastMember, str]
"""A place in the cast: its key, its kind, who fills it and the field that names it."""


def members(play: Play) -> list[Seat]:
    """Every seat a play's cast declares: (key, kind, member, the field naming it), in cast order."""
    seats: list[Seat] = []
    if play.cast.ego is not None:
        seats.append(("ego", "ego", play.cast.ego, "cast.ego"))
    if play.cast.superego is not None:
        seats.append(("superego", "superego", play.cast.superego, "cast.superego"))
    for i, member in enumerate(play.cast.others):
        key = "other" if len(play.cast.others) == 1 else f"other{i + 1}"
        seats.append((key, "other", member, f"cast.others[{i}]"))
    if play.cast.director is not None:
        seats.append(("director", "director", play.cast.director, "cast.director"))
    if play.cast.moderator is not None:
        seats.append(("moderator", "moderator", play.cast.moderator, "cast.moderator"))
    for i, ensemble_member in enumerate(play.cast.characters):
        seats.append((f"c{i + 1}", "other", ensemble_member, f"cast.characters[{i}]"))
        if ensemble_member.voice is not None:
            seats.append((f"c{i + 1}.voice", "superego", ensemble_member.voice, f"cast.characters[{i}].voice"))
    return seats


def with_overrides(
    play: Play,
    *,
    turns: int | None = None,
    scenes: int | None = None,
    seed: int | None = None,
) -> Play:
    """The play with the command line's --turns/--scenes/--seed, checked by the same rules as the file.

    Bounds are checked before anything is built, so `--scenes 100000000` is refused, not allocated.
    """
    from studio.model.play import MAX_SCENES, MAX_TURNS

    updates: dict[str, Any] = {}
    if turns is not None:
        if not 1 <= turns <= MAX_TURNS:
            raise InputError("--turns", None, f"must be between 1 and {MAX_TURNS}, not {turns}", "e.g. --turns 4")
        updates["turns"] = turns
    if scenes is not None:
        if not 1 <= scenes <= MAX_SCENES:
            raise InputError("--scenes", None, f"must be between 1 and {MAX_SCENES}, not {scenes}", "e.g. --scenes 2")
        briefs = play.scenes
        updates["scenes"] = scenes if isinstance(briefs, int) else (list(briefs) + [""] * scenes)[:scenes]
    if seed is not None:
        if not -(2**63) <= seed < 2**63:
            raise InputError("--seed", None, "must fit in 64 bits", "e.g. --seed 7")
        updates["seed"] = seed
    if not updates:
        return play
    try:
        return Play.model_validate({**play.model_dump(), **updates})
    except ValidationError as exc:
        err = exc.errors()[0]
        flag = "--" + str(err["loc"][0]) if err["loc"] else "the command line"
        raise InputError(flag, None, err["msg"], "see 'studio run --help'") from None


def load_character(path: str | os.PathLike[str]) -> CharacterSheet:
    p = Path(path)
    return _validate(CharacterSheet, _read_toml(p, "character"), p)


def character_path(ref: str, play_path: Path) -> Path | None:
    """Where a cast entry's character lives: a path, or a stem looked up in characters/ folders."""
    if ref.endswith(".toml"):
        candidate = Path(ref)
        if not candidate.is_absolute():
            candidate = play_path.parent / candidate
        return candidate if candidate.exists() else None
    for folder in (play_path.parent.parent / "characters", play_path.parent / "characters", Path("characters")):
        candidate = folder / f"{ref}.toml"
        if candidate.exists():
            return candidate
    return None


def _known_characters(play_path: Path) -> list[str]:
    names: set[str] = set()
    for folder in (play_path.parent.parent / "characters", play_path.parent / "characters", Path("characters")):
        if folder.is_dir():
            names.update(p.stem for p in folder.glob("*.toml"))
    return sorted(names)


def _settings(layers: list[Any], kind: str) -> dict[str, Any]:
    out: dict[str, Any] = {
        "model": DEFAULT_MODEL,
        "temperature": ROLE_DEFAULTS[kind]["temperature"],
        "max_tokens": ROLE_DEFAULTS[kind]["max_tokens"],
        "context_tokens": None,  # the model's own window when nobody sets it (resolve_roles' `window`)
        "api_base": None,
        "timeout": 120.0,
        "structured": None,
        "small": None,
    }
    for layer in layers:
        if layer is None:
            continue
        for key in out:
            value = getattr(layer, key, None) if not isinstance(layer, dict) else layer.get(key)
            if value is not None:
                out[key] = value
    return out


def _read_lorebooks(play: Play, path: Path, cast: ResolvedCast, seats: list[Any]) -> None:
    """Each character's lorebooks (its sheet's, then the play's), read and kept with the cast, so a run
    outlives edits to the files (studio.model.lorebook finds and reads them)."""
    from studio.model.lorebook import load_lorebooks

    played = load_lorebooks(play.lorebooks, path)
    for (_key, kind, member, _field), role in zip(seats, cast.roles, strict=True):
        if kind in CHARACTER_KINDS:
            sheet_file = character_path(member.character, path) or path
            role.lore = [*load_lorebooks(role.sheet.lorebooks, sheet_file), *played]


def _missing_character(path: Path, field: str, ref: str) -> InputError:
    known = ", ".join(_known_characters(path)) or "none yet"
    return InputError(
        str(path),
        f"{field}.character",
        f"no character called '{ref}'",
        f"create {ref if ref.endswith('.toml') else 'characters/' + ref + '.toml'}, or use one of: {known}",
    )


def _resolve_role(path: Path, seat: Seat, model: str | None) -> tuple[ResolvedRole, bool]:
    """One seat's role with its settings layered (role defaults, sheet, play, --model), and whether
    nobody set its context budget."""
    key, kind, member, field = seat
    cpath = character_path(member.character, path)
    if cpath is None:
        raise _missing_character(path, field, member.character)
    sheet = load_character(cpath)
    s = _settings([sheet, member, {"model": model}], kind)
    unset = s["context_tokens"] is None
    if unset:
        s["context_tokens"] = DEFAULT_CONTEXT_TOKENS
    role = ResolvedRole(
        key=key, kind=kind, sheet=sheet, human=member.human, rule=member.rule,
        schedules=_voice_schedules(member) if key.endswith(".voice") else None, **s,
    )
    return role, unset


def _check_speakers(path: Path, seats: list[Seat], resolved: list[ResolvedRole]) -> None:
    """Two speakers with one name would be one voice on the page, and `--role NAME=...` would take both seats."""
    speakers: dict[str, str] = {}
    for (_, kind, _member, field), role in zip(seats, resolved, strict=True):
        if kind not in CHARACTER_KINDS:
            continue
        folded = role.name.casefold()
        if folded in speakers:
            raise InputError(
                str(path), f"{field}.character", f"'{role.name}' already speaks as {speakers[folded]}",
                "give each speaking character its own name",
            )
        speakers[folded] = field


def _set_strategies(cast: ResolvedCast, superego: bool | None, strategies: list[str] | None) -> None:
    """--no-superego turns off the inner voices; --strategies keeps only the strategies it names."""
    if superego is False or cast.play.cast.superego is None:
        cast.superego.enabled = False
    voices = [r.schedules for r in cast.roles if r.schedules is not None]
    for settings in voices if superego is False else ():
        settings.enabled = False
    if strategies is not None:
        for settings in [cast.superego, *voices]:
            for name in ("rewrite_prompt", "rewrite_speech", "critique"):
                settings.schedule(name).enabled = name in strategies


def _choose_roles(cast: ResolvedCast, roles: dict[str, str]) -> None:
    """--role WORD=MODEL or WORD=human, for every role or character WORD names."""
    for word, choice in roles.items():
        matches = cast.matching(word)
        if not matches:
            names = ", ".join(sorted({r.kind for r in cast.roles} | {r.name for r in cast.roles}))
            raise InputError("--role", word, f"this play has no role or character '{word}'", f"use one of: {names}")
        for role in matches:
            if choice == "human":
                role.human = True
            else:
                role.model = choice
                role.human = False


def _fill_windows(cast: ResolvedCast, unset: set[str], window: Callable[[str], int | None] | None) -> None:
    """A role whose context budget nobody set gets its model's whole window, each model asked once."""
    windows: dict[str, int | None] = {}
    for role in cast.roles:
        if window is not None and role.key in unset:
            if role.model not in windows:
                windows[role.model] = window(role.model)
            role.context_tokens = max(windows[role.model] or DEFAULT_CONTEXT_TOKENS, role.max_tokens + 256)


def resolve_roles(
    play: Play,
    play_path: str | os.PathLike[str],
    *,
    model: str | None = None,
    roles: dict[str, str] | None = None,
    superego: bool | None = None,
    strategies: list[str] | None = None,
    window: Callable[[str], int | None] | None = None,
) -> ResolvedCast:
    """Apply, in order: role defaults, the character's settings, the play's, --model, then --role. The
    form's own rules for the cast are studio.engine.forms.resolve_cast's, which builds the cast through this.

    A role whose context budget nobody set gets its model's whole window, asked of `window` (the model
    layer cannot ask a model; studio.llm.names.model_window can), else DEFAULT_CONTEXT_TOKENS."""
    path = Path(play_path)
    seats = members(play)
    resolved: list[ResolvedRole] = []
    unset: set[str] = set()
    for seat in seats:
        role, unset_budget = _resolve_role(path, seat, model)
        resolved.append(role)
        if unset_budget:
            unset.add(seat[0])
    _check_speakers(path, seats, resolved)
    cast_settings = SuperegoSettings.model_validate(
        play.cast.superego.model_dump(include=set(SuperegoSettings.model_fields)) if play.cast.superego else {}
    )
    cast = ResolvedCast(play=play, play_path=str(path), roles=resolved, superego=cast_settings)
    _set_strategies(cast, superego, strategies)
    _choose_roles(cast, roles or {})
    _read_lorebooks(play, path, cast, seats)
    _fill_windows(cast, unset, window)
    # An OpenAI-compatible server the playwright named once (see `studio models`) serves openai/NAME.
    from studio.settings import served_api_base

    from studio.clean import address_problem

    for role in cast.roles:
        if role.api_base is None:
            role.api_base = served_api_base(role.model)
            problem = address_problem(role.api_base) if role.api_base else None
            if problem:
                raise InputError("STUDIO_API_BASE", None, problem,
                                 "set it to the server's base address, e.g. http://127.0.0.1:8080/v1, or unset it")
    return cast


def _voice_schedules(member: CastMember) -> SuperegoSettings:
    return SuperegoSettings.model_validate(member.model_dump(include=set(SuperegoSettings.model_fields)))


def fill(template: str, **values: str) -> str:
    """Plain templating: {ego}, {superego}, {other}... are replaced; nothing else is interpreted."""
    out = template
    for key, value in values.items():
        out = out.replace("{" + key + "}", value)
    return out
