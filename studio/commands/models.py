"""`studio models`: the survey of studio.llm.survey, printed for a person or as JSON."""

from __future__ import annotations

import argparse
import json
from typing import Any

from studio.commands.common import console


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("models", help="the models you can use here, and the --model line for each")
    p.add_argument("--json", action="store_true", help="print the survey as JSON")
    p.set_defaults(func=models)


def models(args: argparse.Namespace) -> int:
    return show(console(), as_json=args.json)


_HELD = {
    "schema": "held a one-field JSON schema when asked: the lab's moves, votes and scores are sent theirs",
    "json": "refused a JSON schema but held one in JSON mode: the lab asks it that way",
    "words": "held no JSON schema when asked: the lab asks it in words and reads the replies leniently",
}


def _held_line(server: dict[str, Any]) -> str:
    return _HELD.get(server.get("structured") or "", f"structured replies: {server.get('structured_note') or 'not known'}")


def show(out: Any, as_json: bool = False) -> int:
    from rich.markup import escape

    from studio.llm.survey import survey

    found = survey()
    if as_json:
        print(json.dumps(found, indent=1))
        return 0
    e = escape
    out.print("[bold]Built in[/] (no key, no network)")
    for item in found["builtin"]:
        mark = "" if item["installed"] else " [red](not installed)[/]"
        out.print(f"  [bold]{e(item['use'])}[/]{mark}  {e(item['note'])}")
    out.print("\n[bold]Providers[/] (a key is read from its variable; its value is never shown)")
    keyed = [p for p in found["providers"] if p["key_set"]]
    for p in keyed:
        out.print(f"  {e(p['variable'])} is set: [bold]{e(p['use'])}[/]  ({e(p['prices'])})")
    if not keyed:
        out.print("  No provider key is set.")
    unset = [p["variable"] for p in found["providers"] if not p["key_set"]]
    if unset:
        out.print(f"  [dim]Not set: {e(', '.join(unset))}. Export one, e.g. OPENAI_API_KEY=..., then use "
                      f"{e(found['providers'][0]['use'])}.[/]")
    out.print("\n[bold]Servers on this machine[/]")
    for s in found["servers"]:
        where = f"{s['server']} at {s['url']}" if s["server"] != "STUDIO_API_BASE" else f"STUDIO_API_BASE ({s['url']})"
        if not s["answered"]:
            out.print(f"  {e(where)}: {e(s['problem'])}")
            continue
        if not s["models"]:
            out.print(f"  {e(where)} answers, but serves no models yet")
            continue
        out.print(f"  {e(where)} answers, serving {len(s['models'])}:")
        out.print(f"    [dim]{e(_held_line(s))}[/]")
        for m in s["models"]:
            out.print(f"    [bold]{e(m['use'])}[/]")
    if found["servers"] and found["servers"][0]["server"] == "Ollama" and not found["servers"][0]["answered"]:
        out.print("  [dim]Ollama (ollama.com): 'ollama serve', then 'ollama pull llama3.2' and run this again.[/]")
    if not found["studio_api_base"]:
        out.print("  [dim]Another OpenAI-compatible server (llama.cpp, vLLM, LM Studio): set STUDIO_API_BASE to its "
                      "URL, e.g. http://localhost:8080/v1; its models are used as openai/NAME.[/]")
    out.print("\n[dim]Any of these for one role only: --role ROLE=MODEL, ROLE being ego, superego, other, director "
                  "or a character's name; e.g. studio run plays/interview.toml --role ego=openai/gpt-4o-mini[/]")
    return 0
