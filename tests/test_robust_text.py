"""Model text is stored without terminal control; Retry-After is read where litellm keeps it."""

from __future__ import annotations

import pytest

from studio.clean import clean_model_text
from studio.llm.faults import retry_after


@pytest.mark.parametrize("raw, kept", [
    ("Hello\x1b]0;owned\x07 there", "Hello there"),
    ("\x1b[2Jcleared", "cleared"),
    ("\x1b[?1049hmoved\x1b[?1049l", "moved"),
    ("\x1b]8;;http://evil.example\x1b\\click\x1b]8;;\x1b\\", "click"),
    ("\x1b[31mred\x1b[0m", "red"),
    ("bell\x07 and\x00 nul\x9b2J", "bell and nul"),
    ("line one\r\nline two\n\tindented", "line one\nline two\n\tindented"),
    ("a next\x85line", "a next\nline"),  # NEL is a line break, kept as one
    ("plain [bold]markup[/] stays text, é ✓", "plain [bold]markup[/] stays text, é ✓"),
])
def test_control_sequences_are_removed_and_text_kept(raw, kept):
    assert clean_model_text(raw) == kept
    assert "\x1b" not in clean_model_text(raw)


class _Fault(Exception):
    def __init__(self, litellm_headers=None, response_headers=None):
        self.litellm_response_headers = litellm_headers
        if response_headers is not None:
            self.response = type("R", (), {"headers": response_headers})()


@pytest.mark.parametrize("exc, seconds", [
    (_Fault({"retry-after": "30"}), 30.0),
    (_Fault(None, {"retry-after": "7"}), 7.0),
    (_Fault({"retry-after": "soon"}), 0.0),
    (_Fault(), 0.0),
])
def test_retry_after_is_read_from_litellm_headers(exc, seconds):
    assert retry_after(exc) == seconds


@pytest.mark.parametrize("raw, shown", [
    ("check http://user:sk-KEY123@host:8000/v1 now", "check http://***@host:8000/v1 now"),
    ("https://KEYONLY@api.example/v1", "https://***@api.example/v1"),
    ("http://127.0.0.1:8000/v1 has no credentials", "http://127.0.0.1:8000/v1 has no credentials"),
])
def test_credentials_in_addresses_are_redacted(raw, shown):
    from studio.clean import redact_url_credentials
    from studio.llm.faults import scrub

    assert redact_url_credentials(raw) == shown
    assert "KEY" not in scrub(raw)


def test_an_escape_cut_by_a_piece_boundary_is_removed_live_too():
    from studio.clean import StreamCleaner, clean_model_text

    nasty = "\x1b]0;pwned\x07Hello \x1b[2J\x1b[?1049hthere \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\.\x1b[31mred\x1b[0m"
    for size in range(1, 12):
        cleaner = StreamCleaner()
        shown = "".join(cleaner.feed(nasty[i : i + size]) for i in range(0, len(nasty), size)) + cleaner.flush()
        assert shown == clean_model_text(nasty) == "Hello there link.red", size


def test_a_character_written_as_utf8_misread_as_latin1_is_read_again_as_it_was():
    """The embedded model wrote "I don’t want any" as "I donâ\x80\x99T want any" (the web's garbling of an
    apostrophe, which it learnt): the cleaner took the two C1 controls out and the stage printed "donâT".
    Such a run is read again as the character it spells, whole and piece by piece alike; Latin-1 letters
    that spell nothing of the kind stay as written, and what a run reads as is cleaned like any text."""
    from studio.clean import StreamCleaner

    garbled = "I don\u00e2\x80\x99t want any. That\u00e2\x80\x94no. caf\u00e9, na\u00efve, \u00c3\u00a9, \u00e2\x80"
    fixed = "I don\u2019t want any. That\u2014no. caf\u00e9, na\u00efve, \u00c3\u00a9, \u00e2"
    assert clean_model_text(garbled) == fixed
    for size in range(1, 8):
        cleaner = StreamCleaner()
        shown = "".join(cleaner.feed(garbled[i : i + size]) for i in range(0, len(garbled), size)) + cleaner.flush()
        assert shown == fixed, size
    # a run that reads as a control is a control: it goes, as it did before
    assert clean_model_text("red\u00c2\x9b31mtext") == clean_model_text("red\x9b31mtext") == "redtext"
