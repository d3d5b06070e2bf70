"""The critique view of a run: every stored critique in a table, the chosen one read in full, and a new
critique asked for without leaving the app.

The critic's call runs in an async worker, so the screen keeps answering while a slow model reads;
the critique is stored with the run by `studio.critic.critique_run`, exactly as `studio critique`
stores it, and the table is re-read from the store afterwards. An invalid reply shows as invalid,
with the critic's error and its replies, never as scores.
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, DataTable, Input, Label, Static

from studio.critic import CRITERIA, DEFAULT_CRITIC_MODEL, Critique, stored_critiques


class CritiqueScreen(ModalScreen[None]):
    """`CritiqueScreen(store, run_id)`, or `CritiqueScreen(engine)` for the run an engine holds."""

    DEFAULT_CSS = """
    CritiqueScreen {
        align: center middle;
        background: $background 60%;
    }
    CritiqueScreen #critique-dialog {
        width: 110;
        max-width: 98%;
        height: 90%;
        border: round $accent;
        background: $surface;
        padding: 0 1;
    }
    CritiqueScreen #critique-title {
        text-style: bold;
        margin-bottom: 1;
    }
    CritiqueScreen #critique-table {
        height: auto;
        max-height: 10;
    }
    CritiqueScreen #critique-detail-scroll {
        height: 1fr;
        margin-top: 1;
        border-top: solid $panel;
    }
    CritiqueScreen #critique-controls {
        height: auto;
        margin-top: 1;
    }
    CritiqueScreen #critique-model {
        width: 1fr;
    }
    CritiqueScreen #critique-status {
        color: $text-muted;
        height: auto;
    }
    """

    BINDINGS = [
        Binding("escape", "close", "Close"),
        Binding("c", "critique", "Critique now"),
    ]

    def __init__(self, source: Any, run_id: int | None = None, *, model: str | None = None, gateway: Any = None):
        super().__init__()
        if run_id is None:  # an engine: its store, its run, its gateway
            self.store = source.store
            self.run_id = source.run_id
            gateway = gateway if gateway is not None else getattr(source, "gateway", None)
            cast = getattr(source, "cast", None)
        else:
            self.store = source
            self.run_id = run_id
            cast = None
        self.gateway = gateway if hasattr(gateway, "complete") else None
        if model is None and cast is not None and not cast.ego.human:
            model = cast.ego.model  # the run's own model is the likeliest critic the playwright has
        self.model = model or DEFAULT_CRITIC_MODEL
        self.critiques: list[Critique] = []
        self.busy = False

    def compose(self) -> ComposeResult:
        info = self.store.run(self.run_id)
        with Vertical(id="critique-dialog"):
            yield Label(f"Critiques of run {self.run_id} · {info.title}", id="critique-title")
            yield DataTable(id="critique-table", cursor_type="row", zebra_stripes=True)
            with VerticalScroll(id="critique-detail-scroll"):
                yield Static(id="critique-detail")
            with Horizontal(id="critique-controls"):
                yield Input(self.model, placeholder="the critic's model", id="critique-model")
                yield Button("Critique now", variant="primary", id="critique-go")
                yield Button("Close", id="critique-close")
            yield Label("c critiques the current take again; Esc closes.", id="critique-status")

    def on_mount(self) -> None:
        table = self.query_one("#critique-table", DataTable)
        # criteria names on two lines: one line each would push the last past a 120-column dialog
        table.header_height = 2
        labels = [Text(label.replace(" ", "\n", 1)) for label, _ in CRITERIA.values()]
        table.add_columns("#", "when", "critic", *labels, "take")
        self.reload()
        table.focus()

    # -- the table ---------------------------------------------------------------------------

    def reload(self, select: int | None = None) -> None:
        """Re-read the critiques from the store; select the one with id `select`, else the newest."""
        self.critiques = stored_critiques(self.store, self.run_id)
        table = self.query_one("#critique-table", DataTable)
        table.clear()
        for c in self.critiques:
            when = datetime.fromtimestamp(c.created).strftime("%Y-%m-%d %H:%M") if c.created else ""
            scores = [f"{c.score(k)}/10" if c.valid else Text("invalid", style="red") for k in CRITERIA]
            table.add_row(str(c.id), when, c.model, *scores, f"to event {c.head}", key=str(c.id))
        if self.critiques:
            index = next((i for i, c in enumerate(self.critiques) if c.id == select), len(self.critiques) - 1)
            table.move_cursor(row=index)
            self.show(self.critiques[index])
        else:
            self.query_one("#critique-detail", Static).update(
                Text("No critiques yet. Press c (or Critique now) to have the critic read this run.", style="dim")
            )

    @on(DataTable.RowHighlighted, "#critique-table")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        if 0 <= event.cursor_row < len(self.critiques):
            self.show(self.critiques[event.cursor_row])

    def show(self, c: Critique) -> None:
        text = Text()
        text.append(f"{c.label}", style="bold")
        text.append(f" · critic {c.model} · {c.attempts} attempt{'s' if c.attempts != 1 else ''}", style="dim")
        if not c.finished:
            text.append(" · the run was unfinished", style="dim")
        if c.valid and c.criteria:
            for key, (label, _) in CRITERIA.items():
                item = c.criteria[key]
                text.append(f"\n\n{label} {item['score']}/10\n", style="bold")
                text.append(str(item["interpretation"]))
            if c.summary:
                text.append("\n\n")
                text.append(c.summary, style="italic")
        else:
            text.append("\n\nThe critic's reply was invalid, so no scores were given.\n", style="red")
            text.append(c.error or "")
            for i, reply in enumerate(c.replies, 1):
                text.append(f"\n\nReply {i}:\n", style="bold")
                text.append(reply if reply.strip() else "(empty)")
        self.query_one("#critique-detail", Static).update(text)

    # -- asking the critic -------------------------------------------------------------------

    @on(Button.Pressed, "#critique-go")
    @on(Input.Submitted, "#critique-model")
    def action_critique(self) -> None:
        if self.busy:
            self.notify("The critic is still reading.", severity="warning")
            return
        model = self.query_one("#critique-model", Input).value.strip() or DEFAULT_CRITIC_MODEL
        self.busy = True
        self.query_one("#critique-go", Button).disabled = True
        self.query_one("#critique-status", Label).update(f"The critic ({model}) is reading the current take…")
        self._critique(model)

    @work(exclusive=True, group="critique", exit_on_error=False)
    async def _critique(self, model: str) -> None:
        from studio.critic import CriticError, critique_run
        from studio.llm import ModelError, check_model

        status = self.query_one("#critique-status", Label)
        try:
            # Routing a hosted model's name may import litellm: seconds the screen must not freeze for.
            problem = await asyncio.to_thread(check_model, model)
            if problem:
                raise CriticError(problem)
            critique = await critique_run(self.store, self.run_id, model=model, gateway=self.gateway)
        except (CriticError, ModelError) as exc:
            status.update(f"No critique: {exc}")
            self.notify(str(exc), severity="error", title="The critic")
        else:
            self.reload(select=critique.id)
            if critique.valid:
                status.update(f"Critique {critique.id} stored with the run. c asks again; Esc closes.")
            else:
                status.update(f"The critic's reply was invalid after {critique.attempts} attempts; stored as invalid.")
        finally:
            self.busy = False
            self.query_one("#critique-go", Button).disabled = False

    @on(Button.Pressed, "#critique-close")
    def action_close(self) -> None:
        self.dismiss(None)
