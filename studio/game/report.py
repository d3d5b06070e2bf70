"""The game report: who placed where, every vote with its reason, and who allied with whom.

Built from a run's events through the form's own fold, so it says what the game was, not what a view
remembers. Alliances are read from impressions: two players who each trust the other (trust >= 1 in
their latest impressions) count as allies; one-sided trust is listed as such.
"""

from __future__ import annotations

import re
from typing import Any

_TRUST = re.compile(r"trust ([+-]?\d)")


def build(engine: Any) -> dict[str, Any]:
    from studio.engine.forms.social import SocialState
    from studio.store import events as ev

    state = engine.state
    if not isinstance(state, SocialState):
        raise ValueError("this run is not a social game")
    names = state.names
    reasons: dict[tuple[int | None, str | None], str] = {}
    for event in engine.path:
        if event.kind == ev.VOTE and event.data.get("vote"):
            reasons.setdefault((event.scene, event.character), event.data.get("reason") or "")
    trust: dict[tuple[str, str], int] = {}
    for key, about in state.impressions.items():
        for other, text in about.items():
            found = _TRUST.search(text)
            if found:
                trust[(names[key], other)] = int(found.group(1))
    mutual, one_sided = [], []
    for (a, b), t in sorted(trust.items()):
        if t >= 1:
            if trust.get((b, a), 0) >= 1:
                if a < b:
                    mutual.append((a, b))
            else:
                one_sided.append((a, b))
    votes = []
    for vote in state.game.votes:
        votes.append({**vote, "reason": reasons.get((vote["round"], vote["voter"]), "")
                      if vote["round"] != "final" else ""})
    return {
        "title": engine.cast.play.title,
        "finished": state.game.finished,
        "winner": state.game.winner,
        "placements": state.game.placements() or {n: None for n in names.values()},
        "jury": list(state.game.jury),
        "tallies": state.tallies,
        "votes": votes,
        "allies": mutual,
        "trusts": one_sided,
        "architecture": {n: state.rules.architecture.get(n, "both") for n in names.values()},
        "persona": {r.name: r.sheet.archetype or "" for r in engine.cast.roles if r.key in names},
    }


def markdown(report: dict[str, Any]) -> str:
    lines = [f"# {report['title']}: the game report", ""]
    if report["finished"]:
        lines.append(f"**Winner: {report['winner']}**, chosen by a jury of {len(report['jury'])}.")
    else:
        lines.append("The game is not finished yet.")
    lines += ["", "| place | player | persona | architecture |", "| --- | --- | --- | --- |"]
    order = sorted(report["placements"].items(), key=lambda x: (x[1] is None, x[1] or 0))
    for name, place in order:
        lines.append(f"| {place or '-'} | {name} | {report['persona'].get(name, '')} | {report['architecture'][name]} |")
    lines += ["", "## Votes", "", "| round | voter | voted for | reason |", "| --- | --- | --- | --- |"]
    for v in report["votes"]:
        reason = str(v.get("reason", "")).replace("|", "\\|").replace("\n", " ")
        lines.append(f"| {v['round']} | {v['voter']} | {v['vote']} | {reason} |")
    lines += ["", "## Who left", ""]
    for t in report["tallies"]:
        extra = f" (a tie with {', '.join(x for x in t['tie'] if x != t['eliminated'])}, settled by a draw)" if "draw" in t else ""
        idol = f"; {t['idol_played_by']} played the idol" if t.get("idol_played_by") else ""
        lines.append(f"- Round {t['round']}: {t['eliminated']}{extra}{idol}.")
    lines += ["", "## Alliances", ""]
    lines += [f"- {a} and {b} trust each other." for a, b in report["allies"]] or ["- No mutual trust recorded."]
    lines += [f"- {a} trusts {b}, not returned." for a, b in report["trusts"]]
    return "\n".join(lines) + "\n"
