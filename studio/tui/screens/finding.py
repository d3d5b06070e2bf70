"""`/` and `:`: search the run's lines and jump to a scene or a turn.

Both dialogs answer as you type (how many matches, where a jump lands), and hand their choice back
to the main screen, which moves the stage; neither touches the run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from collections.abc import Callable

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Checkbox, Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from studio.tui.finding import Jump, describe_hit, parse_jump, pattern
from studio.tui.screens.modal import Dialog

MAX_SHOWN = 200  # results listed in the dialog; n/N still walk through all of them


def _full_width(screen: Any, dialog: Any) -> None:
    """A bar across the bottom of the screen, the stage above it still in view."""
    screen.styles.align = ("center", "bottom")
    dialog.styles.width = "100%"
    dialog.styles.max_width = "100%"
    dialog.styles.max_height = "60%"


@dataclass(frozen=True)
class SearchChoice:
    query: str
    all_takes: bool
    hits: list[Any]  # events, oldest first
    chosen: int  # index into hits


class SearchScreen(Dialog):
    """Type to search; Enter goes to the highlighted match; ctrl+t searches every take."""

    DEFAULT_CSS = """
    #search-results { height: auto; max-height: 14; }
    """
    BINDINGS = [
        Binding("ctrl+t", "toggle_all", "Every take", id="search-all-takes", priority=True),
        Binding("down", "results(1)", show=False),
        Binding("up", "results(-1)", show=False),
    ]

    def __init__(self, run: Callable[[str, bool], list[Any]], query: str = "", all_takes: bool = False,
                 take_of: Callable[[list[Any]], Callable[[Any], str]] | None = None) -> None:
        super().__init__()
        self._run = run
        self._take_of = take_of  # given every take's hits, a namer of the take each is in
        self._query = query
        self._all = all_takes
        self.hits: list[Any] = []

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="search-dialog"):
            yield Label("Search the run's lines", classes="dialog-title")
            yield Input(self._query, placeholder="words to find (not case-sensitive)", id="search-input")
            yield Checkbox("Every take, not only this one (ctrl+t)", self._all, id="search-all")
            yield Static(id="search-count")
            yield OptionList(id="search-results")
            yield Label("Enter goes to the match; then n and N move between matches, Esc ends the search.",
                        classes="dialog-help")

    def on_mount(self) -> None:
        _full_width(self, self.query_one("#search-dialog"))
        self.query_one("#search-input", Input).focus()
        self._refresh()
        self.call_after_refresh(self._fit)

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit)

    def _fit(self) -> None:
        """The matches take the rows the box, the switch and the help line leave, so the help line is never
        cut off: at 80x24 three fifths of the screen held the rest and no room for a single match. A short
        terminal gives the bar more of the screen, enough for five matches."""
        dialog = self.query_one("#search-dialog")
        results = self.query_one("#search-results", OptionList)
        fixed = dialog.styles.gutter.height + sum(
            w.outer_size.height + w.styles.margin.height for w in dialog.children if w is not results and w.display)
        height = self.size.height
        bar = min(height, max(int(height * 0.6), fixed + 2 + 5))  # 2: the list's own border
        dialog.styles.max_height = bar
        results.styles.max_height = max(3, min(14, bar - fixed))

    @on(Input.Changed, "#search-input")
    @on(Checkbox.Changed, "#search-all")
    def _refresh(self) -> None:
        query = self.query_one("#search-input", Input).value
        all_takes = self.query_one("#search-all", Checkbox).value
        self.hits = self._run(query, all_takes) if query.strip() else []
        found = pattern(query)
        listing = self.query_one("#search-results", OptionList)
        listing.clear_options()
        shown = self.hits[:MAX_SHOWN]
        name = self._take_of(shown) if all_takes and self._take_of is not None and shown else None
        for index, event in enumerate(shown):
            listing.add_option(Option(describe_hit(event, found, name(event) if name else None), id=str(index)))
        if self.hits:
            listing.highlighted = 0
        where = "in every take" if all_takes else "in this take"
        if not query.strip():
            count = Text("Type to search.", style="dim")
        elif not self.hits:
            count = Text(f"No line {where} contains that.", style="yellow")
        else:
            more = f" (the first {MAX_SHOWN} listed)" if len(self.hits) > MAX_SHOWN else ""
            count = Text(f"{len(self.hits)} {'line' if len(self.hits) == 1 else 'lines'} {where}{more}")
        self.query_one("#search-count", Static).update(count)

    def action_toggle_all(self) -> None:
        box = self.query_one("#search-all", Checkbox)
        box.value = not box.value

    def action_results(self, delta: int) -> None:
        listing = self.query_one("#search-results", OptionList)
        if listing.option_count:
            current = listing.highlighted or 0
            listing.highlighted = max(0, min(listing.option_count - 1, current + delta))

    def _choose(self, index: int) -> None:
        if not self.hits:
            self.notify("Nothing matches; change the words or search every take (ctrl+t).", severity="warning")
            return
        self.dismiss(
            SearchChoice(
                self.query_one("#search-input", Input).value.strip(),
                self.query_one("#search-all", Checkbox).value,
                self.hits,
                index,
            )
        )

    @on(Input.Submitted, "#search-input")
    def _submit(self) -> None:
        listing = self.query_one("#search-results", OptionList)
        self._choose(listing.highlighted or 0)

    @on(OptionList.OptionSelected, "#search-results")
    def _picked(self, event: OptionList.OptionSelected) -> None:
        self._choose(int(event.option.id or 0))


class JumpScreen(Dialog):
    """`:` then a turn (12), a scene (s3), the start (^) or the end ($); says where it lands as you type."""

    DEFAULT_CSS = """
    #jump-where { text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def __init__(self, preview: Callable[[Jump], str | None]) -> None:
        super().__init__()
        self._preview = preview

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="jump-dialog"):
            yield Input(placeholder="12: turn 12 · s3: scene 3 · ^: the start · $: the end", id="jump-input")
            yield Static(id="jump-where")

    def on_mount(self) -> None:
        _full_width(self, self.query_one("#jump-dialog"))
        self.query_one("#jump-input", Input).focus()

    def _where(self) -> tuple[Jump | None, str]:
        text = self.query_one("#jump-input", Input).value
        if not text.strip():
            return None, ""
        jump = parse_jump(text)
        if jump is None:
            return None, "Write a turn (12), a scene (s3), ^ for the start or $ for the end."
        landing = self._preview(jump)
        if landing is None:
            what = f"scene {jump.scene}" if jump.scene is not None else f"turn {jump.turn}"
            return None, f"This take has no {what} yet."
        return jump, landing

    @on(Input.Changed, "#jump-input")
    def _changed(self) -> None:
        jump, said = self._where()
        where = self.query_one("#jump-where", Static)
        # the whole landing line, cut by the width the bar has (with an ellipsis), not at a fixed count
        where.update(Text(said, style="" if jump is not None else "yellow"))

    @on(Input.Submitted, "#jump-input")
    def _submit(self) -> None:
        jump, said = self._where()
        if jump is None:
            self.notify(said or "Type where to go.", severity="warning")
            return
        self.dismiss(jump)
