"""The take tree: every branch of a run, who wrote each take and when; choose one to follow it.

Each node is a stretch of a take between two forks, labelled with where it starts (scene, turn), its
first line, who wrote it (a model, a directed model, you) and when, how many lines it holds, and the
name and star the playwright gave it. The take the run follows now is marked and opened.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from rich.style import Style
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Input, Label, Tree
from textual.widgets.tree import TreeNode

from studio.store.takes import TakeMark
from studio.tui.controls import TREE
from studio.tui.finding import Branch, author, describe
from studio.tui.screens.modal import Dialog


NAME_WIDTH = 24
"""The most of a take's name a row of the tree shows; the whole name is in the name box (m)."""


def when_written(created: float) -> str:
    return datetime.fromtimestamp(created).strftime("%d %b %H:%M")


def branch_label(branch: Branch, mark: TakeMark | None) -> Text:
    line = branch.first_line or branch.start
    text = Text()
    text.append("▶ " if branch.current else "  ", style="bold green")
    if mark is not None and mark.starred:
        text.append("★ ", style="bold yellow")
    if mark is not None and mark.hidden:
        text.append("hidden ", style="dim italic")
    if mark is not None and mark.name:
        # a name may be 60 characters: shortened here, so the count after it stays in the row
        name = mark.name if len(mark.name) <= NAME_WIDTH else mark.name[:NAME_WIDTH - 1].rstrip() + "…"
        text.append(f"“{name}” ", style="bold")
    # the count, the author and the time first: a long first line is what the dialog cuts
    when = when_written(line.created)
    count = f"{branch.lines} line" + ("" if branch.lines == 1 else "s")
    text.append(f"{count} · {author(line)} · {when} · ", style="dim")
    text.append(describe(branch))
    return text


class TakeTree(Tree[Branch]):
    """The tree whose rows end in `…` where the dialog is too narrow for them, instead of being cut off
    mid-word at its edge (at 80 columns a take's first line rarely fits)."""

    def render_label(self, node: TreeNode[Branch], base_style: Style, style: Style) -> Text:
        label = super().render_label(node, base_style, style)
        depth, parent = 0, node.parent
        while parent is not None:
            depth, parent = depth + 1, parent.parent
        room = self.scrollable_content_region.width - depth * max(2, self.guide_depth)
        if room > 1 and label.cell_len > room:
            label.truncate(room, overflow="ellipsis")
        return label


class TakeTreeScreen(Dialog):
    """Returns ("follow", event id) to follow a take; names and stars are saved from here directly.

    ▶ marks the stretches of the take the run follows now."""

    DEFAULT_CSS = """
    #take-tree { height: 1fr; }
    #take-name { display: none; }
    #take-name.-open { display: block; }
    """
    BINDINGS = [control.binding() for control in TREE]

    def __init__(self, roots: list[Branch], marks: dict[int, TakeMark], store: Any, run_id: int | None = None) -> None:
        super().__init__()
        self._run_id = run_id
        self._roots = roots
        self._marks = marks
        self._store = store
        self._naming: Any = None
        self._show_hidden = False

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="take-tree-dialog"):
            yield Label("Takes · every branch of the run", classes="dialog-title")
            # the root shown, so the take on stage has a guide like every take beside it
            tree = TakeTree(Text("the run", style="bold"), id="take-tree")
            tree.show_root = True
            tree.guide_depth = 2
            yield tree
            yield Input(placeholder="a name for this take (Enter saves, empty clears, Esc cancels)", id="take-name")
            yield Label("Enter follows the take · d compares it with the take it forks from · * stars it · m names it · "
                        "h hides it (or shows it again) · H shows hidden takes · Esc closes.", classes="dialog-help")

    def on_mount(self) -> None:
        dialog = self.query_one("#take-tree-dialog")
        dialog.styles.width = "96%"
        dialog.styles.max_width = "96%"
        dialog.styles.height = "90%"
        self._build()
        self.query_one("#take-tree", Tree).focus()

    def _hidden(self, branch: Branch) -> bool:
        mark = self._marks.get(branch.start.id)
        return mark is not None and mark.hidden

    def _build(self, keep: int | None = None) -> None:
        """The tree afresh: hidden takes (and the forks under them) are left out unless H shows them."""
        tree = self.query_one("#take-tree", Tree)
        tree.clear()
        wanted = None

        def split(branches: list[Branch]) -> tuple[Branch | None, list[Branch]]:
            """A fork's takes: the one the run follows (or the first) reads on at the same level; the
            others of that moment hang under it, beside the take they are alternatives to."""
            shown = [b for b in branches if self._show_hidden or not self._hidden(b)]
            following = next((b for b in shown if b.current), shown[0]) if shown else None
            return following, [b for b in shown if b is not following]

        first, others = split(self._roots)
        stack: list[tuple[Any, Branch, list[Branch]]] = [(tree.root, first, others)] if first is not None else []
        # iteratively: a run can fork a thousand levels deep
        while stack:
            parent, branch, alternatives = stack.pop()
            node = parent.add(branch_label(branch, self._marks.get(branch.start.id)), data=branch,
                              expand=True, allow_expand=bool(alternatives))
            if (keep is None and branch.current) or (keep is not None and branch.start.id == keep):
                wanted = node
            following, others = split(branch.children)
            if following is not None:
                stack.append((parent, following, others))
            for alternative in reversed(alternatives):
                stack.append((node, alternative, []))
        tree.root.expand()
        if wanted is not None:
            tree.move_cursor(wanted)
            # a node's line is known once the tree has laid its lines out: until then the cursor stays
            # on the root, so it is moved again then
            self.call_after_refresh(tree.move_cursor, wanted)

    def action_hide(self) -> None:
        """Hide the chosen take, or show a hidden one again; the take on stage is never hidden."""
        from studio.store.takes import hide_take

        branch = self._branch()
        if branch is None:
            return
        hidden = not self._hidden(branch)
        if hidden and branch.current:
            self.notify("This take is on stage: follow another take first, then hide this one.", severity="warning")
            return
        self._marks[branch.start.id] = hide_take(self._store, branch.start.id, hidden)
        if hidden:
            hint = "H shows hidden takes" if not self._show_hidden else "h on it shows it again"
            self.notify(f"Take hidden from the tree and the take counts; its lines are kept ({hint}).")
        else:
            self.notify("Take shown again.")
        self._build(keep=branch.start.id if not hidden or self._show_hidden else None)

    def action_show_hidden(self) -> None:
        self._show_hidden = not self._show_hidden
        if self._show_hidden and not any(m.hidden for m in self._marks.values()):
            self.notify("No take of this run is hidden.")
        branch = self._branch()
        self._build(keep=branch.start.id if branch is not None else None)

    def _branch(self) -> Branch | None:
        node = self.query_one("#take-tree", Tree).cursor_node
        return node.data if node is not None else None

    def action_diff(self) -> None:
        branch = self._branch()
        if branch is not None:
            self.dismiss(("diff", (branch.first_line or branch.start).id))

    def action_follow(self) -> None:
        branch = self._branch()
        if branch is not None:
            self.dismiss(("follow", branch.start.id))

    @on(Tree.NodeSelected, "#take-tree")
    def _selected(self, event: Tree.NodeSelected) -> None:
        event.stop()
        self.action_follow()

    def _relabel(self) -> None:
        node = self.query_one("#take-tree", Tree).cursor_node
        if node is not None and node.data is not None:
            node.set_label(branch_label(node.data, self._marks.get(node.data.start.id)))

    def action_star(self) -> None:
        from studio.store.takes import star_take

        branch = self._branch()
        if branch is None:
            return
        self._marks[branch.start.id] = star_take(self._store, branch.start.id)
        self._relabel()

    def action_name(self) -> None:
        branch = self._branch()
        if branch is None:
            return
        box = self.query_one("#take-name", Input)
        mark = self._marks.get(branch.start.id)
        box.value = mark.name or "" if mark else ""
        box.add_class("-open")
        self._naming = branch
        box.focus()

    @on(Input.Submitted, "#take-name")
    def _named(self, event: Input.Submitted) -> None:
        from studio.store import StoreError
        from studio.store.takes import name_take

        branch = self._naming
        if branch is None:
            return
        try:
            self._marks[branch.start.id] = name_take(self._store, branch.start.id, event.value)
        except StoreError as exc:
            self.notify(str(exc), severity="error")
            return
        self._close_naming()
        self._relabel()
        name = self._marks[branch.start.id].name
        run = self._run_id if self._run_id is not None else "RUN"
        self.notify(f"Named “{name}”: 'studio show {run} --take \"{name}\"' prints it." if name else "Name cleared.")

    def _close_naming(self) -> None:
        self._naming = None
        box = self.query_one("#take-name", Input)
        box.remove_class("-open")
        self.query_one("#take-tree", Tree).focus()

    def action_dismiss_none(self) -> None:
        if self._naming is not None:
            self._close_naming()
            return
        self.dismiss(None)
