"""Which models this machine can use right now, and the exact option for each (`studio models`).

A new user meets the embedded model first; this is where they find a better one. Nothing here reads
a key's value (only whether its variable is set), nothing imports litellm, and each server probed
gets one second: the servers are asked at once, on threads, and whatever has not answered when its
second is up is reported as silent. Within that second a server that lists models is also asked one
tiny question held to a one-field JSON schema, so the survey can say how the lab's structured replies
will be asked of it (see studio.llm.structured_replies.STRUCTURED): a schema it holds, JSON mode, or words.
"""

from __future__ import annotations

import base64
import json
import os
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any

from studio import usage
from studio.clean import address_problem, joined_address, one_line, redact_url_credentials, url_credentials

PROBE_SECONDS = 1.0
OLLAMA_DEFAULT = "http://localhost:11434"

# provider, the variable its key is read from, a model worth trying first (priced in litellm's map)
PROVIDERS: tuple[tuple[str, str, str], ...] = (
    ("OpenAI", "OPENAI_API_KEY", "openai/gpt-4o-mini"),
    ("Anthropic", "ANTHROPIC_API_KEY", "anthropic/claude-haiku-4-5"),
    ("Google Gemini", "GEMINI_API_KEY", "gemini/gemini-2.5-flash"),
    ("Mistral", "MISTRAL_API_KEY", "mistral/mistral-small-latest"),
    ("DeepSeek", "DEEPSEEK_API_KEY", "deepseek/deepseek-chat"),
    ("Groq", "GROQ_API_KEY", "groq/openai/gpt-oss-20b"),
    ("xAI", "XAI_API_KEY", "xai/grok-4.3"),
    ("Together AI", "TOGETHERAI_API_KEY", "together_ai/meta-llama/Llama-3-8b-chat-hf"),
    ("OpenRouter", "OPENROUTER_API_KEY", "openrouter/openai/gpt-4o-mini"),
)


@dataclass
class Server:
    label: str
    url: str
    prefix: str  # how the studio names its models: ollama_chat/NAME, openai/NAME
    chat: str = "/chat/completions"  # its OpenAI-compatible chat path, from `url`
    answered: bool = False
    models: list[str] = field(default_factory=list)
    problem: str = ""
    structured: str | None = None  # how it held a one-field schema: "schema", "json", "words"; None: not known
    structured_note: str = ""


def _headers(url: str, **more: str) -> tuple[str, dict[str, str]]:
    """The address without its `user:password@` part, and the headers for it: that part travels as the
    Basic credentials it stands for (urllib cannot send it inside the address)."""
    bare, userinfo = url_credentials(url)
    headers = {"Accept": "application/json", **more}
    if userinfo is not None:
        headers["Authorization"] = "Basic " + base64.b64encode(userinfo.encode()).decode()
    return bare, headers


def _get_json(url: str, timeout: float) -> Any:
    url, headers = _headers(url)
    request = urllib.request.Request(url, headers=headers)
    with urllib.request.urlopen(request, timeout=timeout) as reply:  # noqa: S310 (a URL the user named)
        return json.loads(reply.read(2_000_000).decode("utf-8", "replace"))


PROBE_SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}


def _post_json(url: str, body: dict[str, Any], timeout: float) -> Any:
    url, headers = _headers(url, **{"Content-Type": "application/json"})
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST", headers=headers)
    with urllib.request.urlopen(request, timeout=timeout) as reply:  # noqa: S310 (a URL the user named)
        return json.loads(reply.read(200_000).decode("utf-8", "replace"))


def _held(server: Server, deadline: float) -> None:
    """Ask the server's first model for `{"ok": true}`, first with a JSON schema, then in JSON mode with the
    schema beside it (as llama.cpp's servers read it): the first whose reply is that object is how the
    studio will ask it; a refusal of both is "words". Whatever the remaining time does not allow is left
    unknown, never guessed."""
    url = joined_address(server.url, server.chat)
    formats = (("schema", {"type": "json_schema", "json_schema": {"name": "probe", "schema": PROBE_SCHEMA}}),
               ("json", {"type": "json_object", "schema": PROBE_SCHEMA}))
    for way, response_format in formats:
        left = deadline - time.monotonic()
        if left <= 0.05:
            server.structured_note = f"not checked within {PROBE_SECONDS:g} s"
            return
        body = {"model": server.models[0], "max_tokens": 12, "temperature": 0, "response_format": response_format,
                "messages": [{"role": "user", "content": 'Reply with the JSON object {"ok": true}.'}]}
        try:
            reply = _post_json(url, body, left)
            content = reply["choices"][0]["message"]["content"]
            if isinstance(json.loads(content), dict):
                server.structured = way
                return
        except urllib.error.HTTPError:
            continue  # refused: the next way
        except (urllib.error.URLError, OSError) as exc:
            timed_out = isinstance(getattr(exc, "reason", exc), TimeoutError) or isinstance(exc, TimeoutError)
            server.structured_note = f"not checked within {PROBE_SECONDS:g} s" if timed_out else "did not answer"
            return
        except (ValueError, TypeError, KeyError, IndexError, AttributeError):
            continue  # answered, but not with the object: this way does not hold it
    server.structured = "words"


def _ask(server: Server, path: str, read: Any, deadline: float | None = None) -> None:
    try:
        server.models = read(_get_json(joined_address(server.url, path), PROBE_SECONDS))
        server.answered = True
        if server.models and deadline is not None:
            _held(server, deadline)
    except urllib.error.HTTPError as exc:
        server.problem = f"answered {exc.code} to {path}"
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        if isinstance(reason, TimeoutError):  # the socket's own second can end just before the probe's does
            server.problem = f"no answer within {PROBE_SECONDS:g} s"
        else:
            server.problem = "nothing is listening" if "refused" in str(reason).lower() else f"no answer ({redact_url_credentials(one_line(reason))})"
    except (ValueError, TypeError, KeyError, AttributeError):
        server.problem = f"answered {path}, but not with a model list"


def _ollama_models(data: Any) -> list[str]:
    return sorted(str(m["name"]) for m in data.get("models", []) if m.get("name"))


def _openai_models(data: Any) -> list[str]:
    return sorted(str(m["id"]) for m in data.get("data", []) if m.get("id"))


def probe(servers: list[tuple[Server, str, Any]]) -> None:
    """Ask every server at once; after PROBE_SECONDS, one that has not answered is silent."""
    threads = []
    deadline = time.monotonic() + PROBE_SECONDS
    for server, path, read in servers:
        thread = threading.Thread(target=_ask, args=(server, path, read, deadline), daemon=True)
        thread.start()
        threads.append((server, thread))
    for server, thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
        if thread.is_alive():
            server.problem = f"no answer within {PROBE_SECONDS:g} s"


def survey() -> dict[str, Any]:
    """Everything `studio models` reports, as data (printed as text, or as JSON with --json)."""
    from studio.llm.local import gguf_path
    from studio.llm.errors import ModelError

    try:
        gguf_path()
        embedded = {"installed": True, "note": "SmolLM2-135M-Instruct, in-process, offline; a tiny model"}
    except ModelError as exc:
        embedded = {"installed": False, "note": str(exc)}
    builtins = [
        {"model": "local/smollm2", "use": "--model local/smollm2", **embedded},
        {"model": "scripted", "use": "--model scripted", "installed": True,
         "note": "deterministic and offline, for tests and demos: every line says it is scripted"},
    ]
    providers = []
    for name, variable, model in PROVIDERS:
        present = bool(os.environ.get(variable, "").strip())
        providers.append({"provider": name, "variable": variable, "key_set": present, "model": model,
                          "use": f"--model {model}", "prices": _prices(model)})
    ollama = Server("Ollama", os.environ.get("OLLAMA_API_BASE", "").strip() or OLLAMA_DEFAULT, "ollama_chat/",
                    chat="/v1/chat/completions")
    wanted: list[tuple[Server, str, Any]] = [(ollama, "/api/tags", _ollama_models)]
    base = os.environ.get("STUDIO_API_BASE", "").strip()
    compatible = Server("STUDIO_API_BASE", base, "openai/") if base else None
    if compatible and (problem := address_problem(base)):
        compatible.problem = f"{problem}; set it to the server's base address, e.g. http://localhost:8080/v1"
    elif compatible:
        wanted.append((compatible, "/models", _openai_models))
    probe(wanted)
    servers = []
    for server in (ollama, compatible):
        if server is None:
            continue
        servers.append({
            "server": server.label, "url": redact_url_credentials(server.url), "answered": server.answered, "problem": server.problem,
            "structured": server.structured, "structured_note": server.structured_note,
            "models": [{"model": server.prefix + m, "use": f"--model {server.prefix}{m}"} for m in server.models],
        })
    return {"builtin": builtins, "providers": providers, "servers": servers, "studio_api_base": bool(base)}


def _prices(model: str) -> str:
    price = usage.prices(model)
    if price is None:
        return "price unknown"
    return f"${price[0] * 1e6:.2f} in, ${price[1] * 1e6:.2f} out per million tokens"
