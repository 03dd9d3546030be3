"""A loopback stand-in for the model APIs the three agents call (standard library only).

``evals.agents`` runs the real Claude Code, Codex CLI and OpenCode, and no model service is
reachable from a test machine, so each agent is pointed at this server on 127.0.0.1. It
speaks just enough of three wire formats for one agent turn and records every request body,
which is what the suite asserts on:

- Anthropic Messages, ``POST .../messages`` (SSE when ``stream``): Claude Code;
- OpenAI Responses, ``POST .../responses`` (SSE): Codex CLI;
- OpenAI-compatible Chat Completions, ``POST .../chat/completions``: OpenCode.

The scripted "model": when a request offers our ``recall`` tool and the conversation has not
called one of our tools yet, answer with one call of it (``{"query": QUERY}``); when Claude
Code offers ``WaitForMcpServers`` instead (our server still connecting), call that first, as
a model would; when it lists our tools only by name as deferred tools (Claude Code 2.1 loads
MCP schemas on demand) or says our server is still connecting (its ToolSearch then waits
for it), call ``ToolSearch`` for ``recall`` first; otherwise answer with the text ``FINAL``.
Title generators and probes offer no tools and get ``FINAL`` too.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

QUERY = "Redis maxmemory-policy"
FINAL = "MOCK-FINAL-ANSWER: the eviction policy allkeys-lru explains the logouts."
WAIT_TOOL = "WaitForMcpServers"  # Claude Code: MCP servers still connecting
SEARCH_TOOL = "ToolSearch"  # Claude Code: MCP tools deferred, named in the prompt, loaded by it
DEFERRED = "mcp__reasongraph__recall"


def tool_names(body: dict[str, Any]) -> list[str]:
    """Every tool a request offers, as ``namespace/name`` for a Responses namespace."""
    out: list[str] = []

    def walk(tools: Any, prefix: str) -> None:
        for t in tools if isinstance(tools, list) else []:
            if not isinstance(t, dict):
                continue
            fn = t.get("function")
            if isinstance(fn, dict) and isinstance(fn.get("name"), str):
                out.append(prefix + fn["name"])
            elif isinstance(t.get("tools"), list):
                walk(t["tools"], prefix + str(t.get("name")) + "/")
            elif isinstance(t.get("name"), str):
                out.append(prefix + t["name"])

    walk(body.get("tools"), "")
    return out


def called_tools(body: dict[str, Any]) -> list[str]:
    """The tools the assistant already called in the conversation a request carries."""
    out: list[str] = []
    for m in body.get("messages") or []:  # Anthropic and Chat Completions
        if not isinstance(m, dict) or m.get("role") != "assistant":
            continue
        if isinstance(m.get("content"), list):
            out += [str(b.get("name")) for b in m["content"]
                    if isinstance(b, dict) and b.get("type") == "tool_use"]
        out += [str((c.get("function") or {}).get("name")) for c in m.get("tool_calls") or []
                if isinstance(c, dict)]
    for item in body.get("input") or []:  # Responses
        if isinstance(item, dict) and str(item.get("type", "")).endswith("call"):
            out.append(str(item.get("namespace") or "") + "/" + str(item.get("name")))
    return out


def tool_results(body: dict[str, Any]) -> list[str]:
    """The text of every tool result a request carries (all three formats), as JSON."""
    out: list[str] = []
    for m in body.get("messages") or []:
        if not isinstance(m, dict):
            continue
        if m.get("role") == "tool":
            out.append(json.dumps(m.get("content")))
        if isinstance(m.get("content"), list):
            out += [json.dumps(b.get("content")) for b in m["content"]
                    if isinstance(b, dict) and b.get("type") == "tool_result"]
    for item in body.get("input") or []:
        if isinstance(item, dict) and str(item.get("type", "")).endswith("call_output"):
            out.append(json.dumps(item.get("output")))
    return out


def decide(body: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
    """The scripted model: (tool to call, its arguments), or (None, {}) for ``FINAL``."""
    called = called_tools(body)
    if any("reasongraph" in c for c in called):
        return None, {}
    names = tool_names(body)
    ours = [n for n in names if "reasongraph" in n and n.endswith("recall")]
    if ours:
        return ours[0], {"query": QUERY}
    if SEARCH_TOOL not in called and (deferred(body) or connecting(body)):
        return SEARCH_TOOL, {"query": f"select:{DEFERRED}"}
    if WAIT_TOOL in names and WAIT_TOOL not in called:
        return WAIT_TOOL, {"servers": ["reasongraph"]}
    return None, {}


def deferred(body: dict[str, Any]) -> bool:
    """Our recall is named as a deferred tool (in the prompt, schema not loaded yet)."""
    return SEARCH_TOOL in tool_names(body) and DEFERRED in json.dumps(body)


def connecting(body: dict[str, Any]) -> bool:
    """Claude Code says our server is still connecting; its ToolSearch waits for it."""
    text = json.dumps(body)
    i = text.find("MCP servers are still connecting")
    return SEARCH_TOOL in tool_names(body) and i >= 0 and "reasongraph" in text[i:i + 400]


class MockModel:
    """The server, on a free loopback port, in a daemon thread; ``requests`` holds every
    recorded ``{"path", "body"}`` in arrival order. Use as a context manager."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._http = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._http.daemon_threads = True
        self.port = self._http.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> MockModel:
        threading.Thread(target=self._http.serve_forever, name="mock-model", daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._http.shutdown()
        self._http.server_close()

    def record(self, path: str, body: Any) -> int:
        with self._lock:
            self.requests.append({"path": path, "body": body, "t": time.time()})
            return next(self._ids)


def _handler(mock: MockModel) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:  # quiet
            pass

        def send_json(self, obj: Any, code: int = 200) -> None:
            data = json.dumps(obj).encode()
            self.send_response(code)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def send_sse(self, events: list[tuple[str | None, Any]]) -> None:
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("connection", "close")
            self.end_headers()
            for name, data in events:
                head = f"event: {name}\n" if name else ""
                text = data if isinstance(data, str) else json.dumps(data)
                self.wfile.write(f"{head}data: {text}\n\n".encode())
            self.wfile.flush()
            self.close_connection = True

        def do_GET(self) -> None:  # noqa: N802 (model lists)
            mock.record(self.path, None)
            models = [{"id": m, "object": "model", "type": "model", "display_name": m,
                       "created": 0, "owned_by": "mock"}
                      for m in ("mock-model", "claude-sonnet-4-5", "gpt-5")]
            self.send_json({"object": "list", "data": models})

        def do_POST(self) -> None:  # noqa: N802
            raw = self.rfile.read(int(self.headers.get("content-length") or 0))
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {}
            n = mock.record(self.path, body)
            path = self.path.split("?")[0].rstrip("/")
            if path.endswith("/count_tokens"):
                return self.send_json({"input_tokens": 42})
            if not isinstance(body, dict):
                return self.send_json({"error": {"message": "not an object"}}, 400)
            tool, args = decide(body)
            if path.endswith("/messages"):
                return self.anthropic(body, tool, args, n)
            if path.endswith("/responses"):
                return self.openai_responses(body, tool, args, n)
            if path.endswith("/chat/completions"):
                return self.chat(body, tool, args, n)
            self.send_json({"error": {"message": "mock: no such route"}}, 404)

        def anthropic(self, body: dict[str, Any], tool: str | None, args: dict[str, Any],
                      n: int) -> None:
            usage = {"input_tokens": 10, "output_tokens": 5}
            if tool:
                block: dict[str, Any] = {"type": "tool_use", "id": f"toolu_{n}", "name": tool,
                                         "input": args}
                delta = {"type": "input_json_delta", "partial_json": json.dumps(args)}
            else:
                block = {"type": "text", "text": FINAL}
                delta = {"type": "text_delta", "text": FINAL}
            stop = "tool_use" if tool else "end_turn"
            message = {"id": f"msg_{n}", "type": "message", "role": "assistant",
                       "model": body.get("model", "mock-model"), "stop_sequence": None}
            if not body.get("stream"):
                return self.send_json({**message, "content": [block], "stop_reason": stop,
                                       "usage": usage})
            start = {**block, "input": {}} if tool else {**block, "text": ""}
            self.send_sse([
                ("message_start", {"type": "message_start", "message": {
                    **message, "content": [], "stop_reason": None, "usage": usage}}),
                ("content_block_start", {"type": "content_block_start", "index": 0,
                                         "content_block": start}),
                ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                         "delta": delta}),
                ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                ("message_delta", {"type": "message_delta", "usage": {"output_tokens": 5},
                                   "delta": {"stop_reason": stop, "stop_sequence": None}}),
                ("message_stop", {"type": "message_stop"}),
            ])

        def openai_responses(self, body: dict[str, Any], tool: str | None, args: dict[str, Any],
                      n: int) -> None:
            if tool:
                namespace, _, name = tool.rpartition("/")
                item: dict[str, Any] = {"type": "function_call", "id": f"fc_{n}",
                                        "call_id": f"call_{n}", "name": name,
                                        "arguments": json.dumps(args), "status": "completed"}
                if namespace:
                    item["namespace"] = namespace
            else:
                item = {"type": "message", "id": f"msg_{n}", "role": "assistant",
                        "status": "completed",
                        "content": [{"type": "output_text", "text": FINAL, "annotations": []}]}
            usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
                     "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0},
                     "total_tokens": 15}
            base = {"id": f"resp_{n}", "object": "response", "created_at": int(time.time()),
                    "model": body.get("model", "mock-model")}
            done = {**base, "status": "completed", "output": [item], "usage": usage}
            if body.get("stream") is False:
                return self.send_json(done)
            self.send_sse([
                ("response.created", {"type": "response.created", "sequence_number": 0,
                                      "response": {**base, "status": "in_progress",
                                                   "output": []}}),
                ("response.output_item.added", {"type": "response.output_item.added",
                                                "sequence_number": 1, "output_index": 0,
                                                "item": {**item, "status": "in_progress"}}),
                ("response.output_item.done", {"type": "response.output_item.done",
                                               "sequence_number": 2, "output_index": 0,
                                               "item": item}),
                ("response.completed", {"type": "response.completed", "sequence_number": 3,
                                        "response": done}),
            ])

        def chat(self, body: dict[str, Any], tool: str | None, args: dict[str, Any],
                 n: int) -> None:
            head = {"id": f"chatcmpl-{n}", "created": 0, "model": body.get("model", "mock")}
            usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
            if tool:
                call = {"id": f"call_{n}", "type": "function",
                        "function": {"name": tool, "arguments": json.dumps(args)}}
                message: dict[str, Any] = {"role": "assistant", "content": None,
                                           "tool_calls": [call]}
                delta: dict[str, Any] = {"role": "assistant", "tool_calls": [{**call, "index": 0}]}
            else:
                message = delta = {"role": "assistant", "content": FINAL}
            finish = "tool_calls" if tool else "stop"
            if not body.get("stream"):
                return self.send_json({**head, "object": "chat.completion", "usage": usage,
                                       "choices": [{"index": 0, "message": message,
                                                    "finish_reason": finish}]})

            def chunk(d: dict[str, Any], fin: str | None, **extra: Any) -> dict[str, Any]:
                return {**head, "object": "chat.completion.chunk", **extra,
                        "choices": [{"index": 0, "delta": d, "finish_reason": fin}]}

            self.send_sse([(None, chunk(delta, None)), (None, chunk({}, finish, usage=usage)),
                           (None, "[DONE]")])

    return Handler
