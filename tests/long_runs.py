"""A long run with many takes, written straight into the store: the shape the engine leaves, in a second.

Used by the desk's tests and by bench/bench_tui.py, which need a 1,000-turn run with 50 branches
without playing 5,000 model steps.
"""

from __future__ import annotations

from studio.store import events as ev


def build_branched_run(store, cast, turns: int = 1000, branches: int = 50, branch_turns: int = 2) -> tuple[int, list[int]]:
    """A run of `turns` turns (other speaks, the superego rewrites, the ego drafts, is critiqued,
    answers) and `branches` other takes of the ego's line, each going on for `branch_turns` turns.
    Returns the run id and the first event of each branch; the head is left on the main take."""
    run_id = store.create_run(cast.play.title, cast.play_path, cast.model_dump_json(), {})
    ego, other = cast.ego, cast.others[0]
    superego = cast.role("superego")
    head = None

    def add(parent, kind, text, role, turn, branch=False):
        nonlocal head
        who = {"ego": ego, "other": other, "superego": superego}.get(role) if role else None
        event = store.append(run_id, parent, kind, text, role=role, character=who.name if who else None,
                             scene=1, turn=turn, origin="model" if role else "studio", model="scripted" if role else None,
                             branch=branch)
        head = event.id
        return event

    def turn_events(parent, turn, variant=""):
        line = add(parent, ev.STAGE, f"{other.name} asks question {turn}{variant}: where were you that night?",
                   "other", turn)
        add(line.id, ev.REWRITE_SPEECH, f"What she hears at turn {turn}{variant}.", "superego", turn)
        add(head, ev.DRAFT, f"A draft at turn {turn}{variant}.", "ego", turn)
        critique = add(head, ev.CRITIQUE, f"The critique at turn {turn}{variant}.", "superego", turn)
        return critique, add(critique.id, ev.STAGE, f"{ego.name} answers {turn}{variant}: the garden, the rain.",
                             "ego", turn)

    add(None, ev.SCENE, "Scene 1", None, 0)
    critiques = {}
    for turn in range(1, turns + 1):
        critique, _ = turn_events(head, turn)
        critiques[turn] = critique.id
    main_tip = head
    starts = []
    every = max(1, turns // max(1, branches))
    for b in range(branches):
        turn = 1 + b * every
        alt = add(critiques[turn], ev.STAGE, f"{ego.name} answers {turn} in take {b + 2}: a different night.",
                  "ego", turn, branch=True)
        starts.append(alt.id)
        for extra in range(1, branch_turns + 1):
            turn_events(head, turn + extra, f" (take {b + 2})")
    store.set_head(run_id, main_tip)
    return run_id, starts
