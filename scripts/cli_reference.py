"""The CLI reference, read from the parser itself, so docs/reference/cli.md cannot drift from `studio --help`.

mkdocs runs this as a hook (mkdocs.yml `hooks:`): at every build it writes reference/cli.md into the site
from `studio.cli.build_parser()`, every command and subcommand with its help, usage and options. Run alone,
it prints the same page (`python scripts/cli_reference.py > cli.md`).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = "reference/cli.md"


def _parser() -> argparse.ArgumentParser:
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from studio.cli import build_parser

    return build_parser()


def commands(parser: argparse.ArgumentParser, prefix: str = "studio") -> list[tuple[str, str, argparse.ArgumentParser]]:
    """Every command under `parser`, depth first, as (full name, one-line help, its parser)."""
    found = []
    seen: set[int] = set()
    for action in parser._actions:
        if not isinstance(action, argparse._SubParsersAction):
            continue
        helps = {choice.dest: choice.help or "" for choice in action._choices_actions}
        for name, sub in action.choices.items():
            if id(sub) in seen:  # an alias of a command already listed
                continue
            seen.add(id(sub))
            full = f"{prefix} {name}"
            found.append((full, helps.get(name, sub.description or ""), sub))
            found.extend(commands(sub, full))
    return found


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _options(parser: argparse.ArgumentParser) -> list[str]:
    rows = []
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        if action.option_strings:
            name = ", ".join(action.option_strings)
            if action.nargs != 0:
                name += " " + (action.metavar or action.dest.upper())
        else:
            name = action.metavar or action.dest
        help_ = action.help or ""
        if "%(" in help_:
            help_ = help_ % {"default": action.default, "prog": parser.prog}
        if action.choices and not isinstance(action.choices, dict):
            help_ += (" " if help_ else "") + "(one of: " + ", ".join(f"`{c}`" for c in action.choices) + ")"
        rows.append(f"| `{_cell(name)}` | {_cell(help_)} |")
    if not rows:
        return []
    return ["| argument | what it does |", "| --- | --- |", *rows]


def render(parser: argparse.ArgumentParser | None = None) -> str:
    # argparse wraps usage to the terminal's width; a fixed width makes the page the same on every machine.
    width, os.environ["COLUMNS"] = os.environ.get("COLUMNS"), "100"
    try:
        return _render(parser or _parser())
    finally:
        if width is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = width


def _render(parser: argparse.ArgumentParser) -> str:
    lines = [
        "# CLI reference",
        "",
        "Every `studio` command with its options, generated from the command's own parser when the site",
        "is built. `studio COMMAND --help` prints the same in the terminal.",
        "",
        "```text",
        parser.format_usage().strip(),
        "```",
        "",
    ]
    for full, help_, sub in commands(parser):
        level = "#" * min(full.count(" ") + 1, 4)
        lines += [f"{level} `{full}`", ""]
        if help_:
            lines += [help_[0].upper() + help_[1:] + ("" if help_.endswith(".") else "."), ""]
        lines += ["```text", sub.format_usage().strip(), "```", ""]
        lines += _options(sub)
        lines.append("")
    return "\n".join(lines)


def on_files(files, config):
    """mkdocs hook: add the generated page to the site (replacing a stale copy, if one was written by hand)."""
    from mkdocs.structure.files import File

    stale = files.get_file_from_path(PAGE)
    if stale is not None:
        files.remove(stale)
    files.append(File.generated(config, PAGE, content=render()))
    return files


if __name__ == "__main__":
    sys.stdout.write(render())
