"""Drawn inputs through the guarded surfaces: keys in addresses of every shape, addresses of any text,
a person's answers to the island's rules, names given to `show --as`. A few dozen examples each."""

from __future__ import annotations

import re
from urllib.parse import quote

from hypothesis import HealthCheck, given, settings, strategies as st

from test_social_parts import fresh

BOUNDED = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                           HealthCheck.too_slow])
RAW = re.compile(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")

secret = st.text(st.characters(whitelist_categories=("Lu", "Ll", "Nd")), min_size=10, max_size=30)
field_name = st.sampled_from(["key", "api_key", "apikey", "code", "token", "access_token", "sig", "X-Auth", "password"])


@BOUNDED
@given(secret, field_name, st.booleans(), st.sampled_from(["query", "fragment", "userinfo"]),
       st.sampled_from(["", "See ", "failed at "]), st.sampled_from(["", ": refused", " (503)"]))
def test_no_key_in_an_address_survives_the_masker(value, name, encoded, where, before, after):
    from studio.clean import redact_url_credentials, shown_value

    spelled = "".join(f"%{ord(c):02X}" if i == 1 else c for i, c in enumerate(name)) if encoded else name
    if where == "query":
        address = f"http://host:8080/v1?model=x&{spelled}={quote(value)}"
    elif where == "fragment":
        address = f"https://host/v1#{spelled}={value}"
    else:
        address = f"http://reader:{value}@host/v1"
    text = before + address + after
    masked = redact_url_credentials(text)
    assert value not in masked and "host" in masked
    assert value not in shown_value(text)


@BOUNDED
@given(st.text(max_size=60))
def test_an_address_is_either_sound_or_refused_without_echoing_controls(tail):
    from urllib.parse import urlsplit

    from studio.clean import address_problem

    address = "http://127.0.0.1:8080/" + tail
    problem = address_problem(address)
    if problem is None:
        assert not RAW.search(address) and not any(c.isspace() for c in address)
        assert urlsplit(address).hostname
    else:
        assert not RAW.search(problem)


@BOUNDED
@given(st.text(max_size=80))
def test_a_persons_answer_is_taken_or_refused_and_never_lost(text):
    from studio.engine.forms.base import Step
    from studio.engine.forms.social import reading
    from studio.engine.forms.social.state import CHOICE
    from studio.store import events as ev

    state = fresh()
    role = state.cast.role(state.key("Amara Osei"))
    state.humans = {role.key}
    state.problem = "the answer before could not be used"  # already asked again once: a model would lose the turn
    reply = reading.read(state, Step(CHOICE, "act", role.key, 1, 1), role, text)
    if reply.kind == CHOICE:
        assert reply.data["invalid"] and "pass" in reply.data["invalid"]
    else:
        assert reply.kind == ev.DIRECTION and "forced" not in reply.data and "refused" not in reply.data
        assert reply.data["reply"] == text


@BOUNDED
@given(st.text(max_size=80))
def test_a_models_second_unusable_action_is_said_to_be_lost(text):
    from studio.engine.forms.base import Step
    from studio.engine.forms.social import reading
    from studio.engine.forms.social.state import CHOICE

    state = fresh()
    role = state.cast.role(state.key("Amara Osei"))
    state.problem = "the answer before could not be used"
    reply = reading.read(state, Step(CHOICE, "act", role.key, 1, 1), role, text)
    if "forced" in reply.data:
        assert "loses the turn" in reply.text and reply.data["refused"] == text and "reply" not in reply.data
    else:
        assert reply.data["reply"] == text


@settings(max_examples=15, deadline=None)
@given(st.text(st.sampled_from(" \t\u00a0\u2003"), max_size=4))
def test_show_as_a_blank_name_is_refused(blank):
    import pytest

    from studio.engine.lens import seat_named
    from studio.model.errors import InputError

    cast = fresh().cast
    with pytest.raises(InputError) as refused:
        seat_named(cast, blank)
    assert "use one of" in str(refused.value)
