"""Every control of the app, in one table.

The key bindings, the footer, the command palette, the help screen and the docs' table (docs/app.md) are all
read from here, so a control cannot exist in one place and be missing from another.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding


@dataclass(frozen=True)
class Control:
    id: str
    key: str
    action: str
    label: str
    help: str
    group: str
    key_display: str | None = None
    show: bool = True
    priority: bool = False  # before the focused widget's own binding of the key
    changes_stage: bool = False
    """It changes what is on stage for everyone on the run (adds, takes off or replaces lines, or opens the
    dialog that does): in a run another window plays too, its key first says what it will do and waits for
    Enter (studio/tui/screens/shared.py); alone, it acts at once."""

    def binding(self) -> Binding:
        return Binding(
            self.key, self.action, self.label, show=self.show, key_display=self.key_display, id=self.id,
            priority=self.priority,
        )

    @property
    def keys(self) -> str:
        """The keys as a person types them, for the help screen and docs/app.md."""
        if self.key_display:
            return self.key_display
        names = {
            "left_square_bracket": "[",
            "right_square_bracket": "]",
            "less_than_sign": "<",
            "greater_than_sign": ">",
            "question_mark": "?",
            "space": "space",
        }
        return " / ".join(names.get(k, k) for k in self.key.split(","))


RUN = "Run"
LINES = "Lines"
CAST = "Cast and voice"
PANES = "Panes"
APP = "App"
EDITING = "Writing"
FINDING = "Finding"
PEN = "The pen"

# The screen a run is open on.
MAIN: tuple[Control, ...] = (
    Control("step", "s", "step", "Step", "Play one turn: every line up to the protagonist's reply.", RUN,
            changes_stage=True),
    Control(
        "play",
        "p",
        "play",
        "Play",
        "Auto-play to the end of the scene; press again to pause (a line being written is dropped).",
        RUN,
        changes_stage=True,
    ),
    Control(
        "rewind", "r", "rewind", "Rewind", "Go back one turn; the lines after it stay as a take.", RUN,
        changes_stage=True,
    ),
    Control(
        "regenerate",
        "g",
        "regenerate",
        "Regenerate",
        "Write the selected line again as a new take; what followed it stays with the old take.",
        LINES,
        changes_stage=True,
    ),
    Control(
        "continue-line",
        "C",
        "continue_line",
        "Continue",
        "Let the model go on from where the selected line stopped: the longer line is a new take, the old one "
        "stays (c edits a character, so this is C).",
        LINES,
        show=False,
        changes_stage=True,
    ),
    Control(
        "take-previous",
        "left_square_bracket",
        "take(-1)",
        "Prev take",
        "Follow the previous take of the selected line.",
        LINES,
        key_display="[",
        changes_stage=True,
    ),
    Control(
        "take-next",
        "right_square_bracket",
        "take(1)",
        "Next take",
        "Follow the next take of the selected line; on the newest line's last take, write a new one.",
        LINES,
        key_display="]",
        changes_stage=True,
    ),
    Control(
        "diff-takes",
        "d",
        "diff_takes",
        "Diff takes",
        "Compare the selected line with another take of it, side by side or as one text with the changes marked.",
        LINES,
        show=False,
    ),
    Control(
        "edit-line",
        "e",
        "edit_line",
        "Edit",
        "Rewrite the selected line yourself: your text becomes the line and the run branches from it.",
        LINES,
        changes_stage=True,
    ),
    Control(
        "insert-after",
        "a",
        "insert_line(False)",
        "Add line",
        "Write a line of your own after the selected one: a character's speech (with a parenthetical), a "
        "direction, or a scene heading. The lines after it are kept as written, on a new take.",
        PEN,
        show=False,
        changes_stage=True,
    ),
    Control(
        "insert-before",
        "i",
        "insert_line(True)",
        "Insert before",
        "Write a line of your own before the selected one, as a does after it.",
        PEN,
        show=False,
        changes_stage=True,
    ),
    Control(
        "cut-line",
        "X",
        "cut_line",
        "Cut",
        "Take the selected line out of the play: a new take without it, the lines after it kept as written; "
        "the old take stays (u brings it back).",
        PEN,
        show=False,
        changes_stage=True,
    ),
    Control(
        "move-up",
        "alt+up",
        "move_line(-1)",
        "Move up",
        "Move the selected line above the line before it (a new take; the old one stays).",
        PEN,
        key_display="alt+↑",
        show=False,
        changes_stage=True,
    ),
    Control(
        "move-down",
        "alt+down",
        "move_line(1)",
        "Move down",
        "Move the selected line below the line after it (a new take; the old one stays).",
        PEN,
        key_display="alt+↓",
        show=False,
        changes_stage=True,
    ),
    Control(
        "undo",
        "u,ctrl+z",
        "undo",
        "Undo",
        "Undo your last edit, insert, cut, move, rewind, new take or take switch in this window: the stage "
        "shows exactly the take it showed before; nothing is deleted.",
        PEN,
        key_display="u / ctrl+z",
        show=False,
        changes_stage=True,
    ),
    Control(
        "redo",
        "U,ctrl+y",
        "redo",
        "Redo",
        "Do again what u undid last.",
        PEN,
        key_display="U / ctrl+y",
        show=False,
        changes_stage=True,
    ),
    Control(
        "note",
        "n",
        "note",
        "Note",
        "Write a note in the director's pane: the director and the characters hear it next turn. While a "
        "search is highlighted, n goes to the next match instead (Esc ends the search).",
        LINES,
        changes_stage=True,
    ),
    Control(
        "regenerate-directed",
        "G",
        "direct",
        "Direct",
        "Regenerate the selected line with a direction: a short note and a temperature, kept with the take; "
        "or tick its box to continue the line (as C does) with the note.",
        LINES,
        show=False,
        changes_stage=True,
    ),
    Control(
        "take-tree",
        "T",
        "take_tree",
        "Takes",
        "Every branch of the run as a tree: who wrote each take and when; choose one to follow it, name or star it.",
        LINES,
        show=False,
        changes_stage=True,
    ),
    Control(
        "search",
        "slash",
        "search",
        "Search",
        "Search the run's lines (this take, or every take); matches are highlighted.",
        FINDING,
        key_display="/",
        show=False,
    ),
    Control(
        "search-previous",
        "N",
        "search_move(-1)",
        "Prev match",
        "Go to the previous match of the search (n goes to the next).",
        FINDING,
        show=False,
    ),
    Control(
        "jump",
        "colon",
        "jump",
        "Go to",
        "Jump to a scene or a turn: 12 is turn 12, s3 is scene 3, $ is the end.",
        FINDING,
        key_display=":",
        show=False,
    ),
    Control(
        "roles",
        "t",
        "roles",
        "Take over",
        "Take over a role or hand it back to its model; a human role's turn opens an input box.",
        CAST,
        changes_stage=True,
    ),
    Control(
        "strategies",
        "v",
        "strategies",
        "Superego",
        "Switch each of the superego's strategies on or off (in an ensemble, each inner voice's), from the next "
        "step on.",
        CAST,
        changes_stage=True,
    ),
    Control(
        "who-next",
        "w",
        "who_next",
        "Who next",
        "In an ensemble: choose who speaks next from those on stage (the policy's suggestion first), or switch "
        "the policy that decides.",
        CAST,
        show=False,
        changes_stage=True,
    ),
    Control(
        "enter-exit",
        "E",
        "enter_exit",
        "Enter/exit",
        "In an ensemble: send a character on or off stage; the stage shows the entrance or exit.",
        CAST,
        show=False,
        changes_stage=True,
    ),
    Control(
        "view-as",
        "V",
        "view_as",
        "View as",
        "In an ensemble: show the stage through one character's eyes (only what they witnessed); V again shows "
        "everyone.",
        CAST,
        show=False,
    ),
    Control(
        "edit-character",
        "c",
        "edit_character",
        "Edit sheet",
        "Choose a character (the cast pane's first in line) and edit its sheet (prompt, model, traits, moods, "
        "knowledge, goals); validated as you type, saved to characters/.",
        CAST,
        show=False,  # the footer keeps to what fits in 120 columns; ? and the palette list the rest
    ),
    Control(
        "mind",
        "m",
        "mind",
        "Mind",
        "By hand, for the highlighted character with an inner life: set its mood (one its sheet lists), unlock "
        "an item it does not know yet, rewrite its goals, or set a world fact; each is your event, like a note.",
        CAST,
        show=False,
        changes_stage=True,
    ),
    Control(
        "lorebook",
        "b",
        "lorebook",
        "World Info",
        "The highlighted character's World Info: every entry of its card's book and of the lorebooks its sheet "
        "names, to read and edit, or a new book started for one with none; saved to the book's own file, read by new "
        "runs (the mind dialog opens it too).",
        CAST,
        show=False,
    ),
    Control(
        "toggle-stage", "1", "toggle_pane('stage')", "Stage", "Show or hide the stage.", PANES, show=False
    ),
    Control(
        "toggle-backstage",
        "2",
        "toggle_pane('backstage')",
        "Backstage",
        "Show or hide the backstage of the selected line.",
        PANES,
        show=False,
    ),
    Control(
        "toggle-notes",
        "3",
        "toggle_pane('notes')",
        "Notes",
        "Show or hide the director's notes.",
        PANES,
        show=False,
    ),
    Control(
        "toggle-cast",
        "4",
        "toggle_pane('cast')",
        "Cast",
        "Show or hide the character sheets.",
        PANES,
        show=False,
    ),
    Control(
        "toggle-game", "5", "toggle_pane('game')", "Game", "Show or hide the game view (social games).", PANES, show=False
    ),
    Control(
        "backstage-down",
        "ctrl+down",
        "scroll_backstage(1)",
        "Backstage down",
        "Scroll the backstage down without leaving the stage (Tab moves into it, where ↑/↓ and page keys scroll).",
        PANES,
        show=False,
    ),
    Control(
        "backstage-up",
        "ctrl+up",
        "scroll_backstage(-1)",
        "Backstage up",
        "Scroll the backstage up without leaving the stage.",
        PANES,
        show=False,
    ),
    Control(
        "widen-side",
        "less_than_sign",
        "resize(5)",
        "Wider side",
        "Move the divider left: more room for the side panes.",
        PANES,
        key_display="<",
        show=False,
    ),
    Control(
        "narrow-side",
        "greater_than_sign",
        "resize(-5)",
        "Wider stage",
        "Move the divider right: more room for the stage.",
        PANES,
        key_display=">",
        show=False,
    ),
    Control(
        "note-in-editor",
        "ctrl+e",
        "editor_line",
        "$EDITOR",
        "In the note box or your line's box: write it in your $EDITOR instead; saving and quitting sends it.",
        EDITING,
        key_display="ctrl+e",
        show=False,
        priority=True,
    ),
    Control(
        "impersonate",
        "ctrl+g",
        "impersonate",
        "Draft my line",
        "In your line's box: the role's own model drafts the line, streamed into the box, asked exactly as it "
        "would be asked; edit it and press Enter to say it. Esc puts back what the box held; nothing is said "
        "until you send it.",
        EDITING,
        key_display="ctrl+g",
        show=False,
    ),
    Control(
        "edit-play",
        "P",
        "edit_play",
        "Edit play",
        "Edit the play's scene briefs, turns, cast, the superego's timing and the title page; saved in place for new runs.",
        CAST,
        show=False,
    ),
    Control("export", "x", "export", "Export",
            "Export the current take: Fountain, Markdown, Final Draft, or a screenplay or stage-play PDF.", APP,
            show=False),
    Control(
        "critiques",
        "K",
        "critiques",
        "Critiques",
        "Show the critics' verdicts on this run.",
        APP,
        show=False,
    ),
    Control("open", "o", "open", "Open", "Open a play or resume a saved run.", APP, show=False),
    Control("new-run", "R", "new_run", "New run",
            "Start a new run of this run's play, read from its file as saved now; this run stays as it is.", APP,
            show=False),
)

# Everywhere, the picker included.
GLOBAL: tuple[Control, ...] = (
    Control("help", "question_mark,f1", "help", "Help", "Every control and pane, on one screen (F1 opens it too).", APP,
            key_display="?"),
    Control("quit", "q", "quit", "Quit", "Quit (ctrl+q too, from inside a text box); everything committed is kept and "
            "the run resumes later (an editor with changes not saved asks first).", APP, show=False),
    Control("select-all", "ctrl+a", "select_all_box", "Select all", "In any text box, a one-line box too: "
            "select the whole text, so what you type next replaces it.", EDITING, key_display="ctrl+a",
            show=False, priority=True),
)

# Moving on the stage; bound on the stage itself.
STAGE: tuple[Control, ...] = (
    Control("line-up", "up,k", "cursor(-1)", "Up", "Select the line above.", LINES, key_display="↑/k", show=False),
    Control("line-down", "down,j", "cursor(1)", "Down", "Select the line below.", LINES, key_display="↓/j", show=False),
    Control("page-up", "pageup", "page(-1)", "Page up", "Select a page up.", LINES, show=False),
    Control("page-down", "pagedown", "page(1)", "Page down", "Select a page down.", LINES, show=False),
    Control("first-line", "home", "first", "First", "Select the first line.", LINES, show=False),
    Control(
        "last-line", "end", "last", "Last", "Select the newest line and follow the play as it is written.", LINES,
        show=False,
    ),
)

# In every long text box (a prompt, a line being edited, a note, a scene brief).
TEXT: tuple[Control, ...] = (
    Control(
        "external-editor",
        "ctrl+e",
        "external_editor",
        "$EDITOR",
        "Hand the text to your $EDITOR (the app waits, as git does) and take it back when you save and quit.",
        EDITING,
        key_display="ctrl+e",
    ),
    Control("submit-text", "ctrl+s", "submit_text", "Done", "Commit the text in the box.", EDITING,
            key_display="ctrl+s"),
    Control("select-all-text", "ctrl+a", "select_all", "Select all", "Select the whole text: what you type "
            "next replaces it (home goes to the start of the line).", EDITING, key_display="ctrl+a"),
    Control("clear-text", "ctrl+l", "clear_text", "Clear", "Empty the box; ctrl+z brings the text back.", EDITING,
            key_display="ctrl+l"),
)

# The take tree.
TREE: tuple[Control, ...] = (
    Control("follow-take", "enter", "follow", "Follow", "Follow the chosen take: the stage shows it.", LINES),
    Control("diff-take", "d", "diff", "Diff", "Compare the chosen take's first line with the take it forks from, "
            "word by word.", LINES),
    Control("star-take", "asterisk", "star", "Star", "Star the chosen take, or unstar it.", LINES, key_display="*"),
    Control("name-take", "m", "name", "Name", "Name the chosen take ('studio show RUN --take NAME').", LINES),
    Control("hide-take", "h", "hide", "Hide", "Hide the chosen take from the tree and the take counts, or show a "
            "hidden one again; its lines are kept.", LINES),
    Control("show-hidden-takes", "H", "show_hidden", "Hidden", "Show the hidden takes in the tree, or leave them "
            "out again.", LINES),
)

# The picker of plays and runs.
PICKER: tuple[Control, ...] = (
    Control("new-play", "n", "new_play", "New play", "Start a play from nothing: a form, validated as you type.", APP),
    Control("new-character", "c", "new_character", "New character", "Write a new character's sheet.", APP),
    Control("rename-run", "m", "rename_run", "Rename", "Give the highlighted run a name of your own.", APP),
    Control("archive-run", "a", "archive_run", "Archive", "Hide the highlighted run, or bring an archived one back; "
            "nothing is deleted.", APP),
    Control("show-archived", "h", "show_archived", "Archived", "Show or hide the archived runs.", APP),
    Control("lab", "l", "lab", "Lab", "The lab: every experiment in this store, live, and each trial's run.", APP),
    Control("picker-runs", "tab", "to_runs", "Runs", "Go to the first run, or from a run back to the first play.",
            APP, show=False),
    Control("filter-picker", "slash", "filter", "Filter", "Type to keep only the plays and runs whose line has "
            "the text; Esc clears it.", APP, key_display="/"),
    # last: where the footer is narrow, the keys a playwright reaches for daily come first
    Control("delete-run", "d", "delete_run", "Delete", "Delete the highlighted run for good, after a yes: every "
            "take, take name and critique of it; a lab trial's run is kept.", APP),
)

ALL: tuple[Control, ...] = MAIN + STAGE + GLOBAL
ELSEWHERE: tuple[Control, ...] = TEXT + TREE + PICKER


def by_id(control_id: str) -> Control:
    for control in ALL:
        if control.id == control_id:
            return control
    raise KeyError(control_id)
