#!/usr/bin/env python3
"""The Claude Messages API for the regress suite, as the real one
answers: a request that is not streamed gets nothing at all until the
answer is whole, then the whole answer at once; one with "stream": true
gets the status and headers at once, then server-sent events as the
reply is made (Messages streaming).

It is test equipment, never part of sandcastle.  Its shapes are the
API's own reference's (platform.claude.com: Messages, Errors, Stop
reasons, Rate limits) and its SDKs' (anthropic-sdk-python's types:
Message, Usage, TextBlock, StopReason, OutputConfigParam):

  POST /v1/messages      checked as the API checks it, where that is
                         cheap: the x-api-key and anthropic-version
                         headers, a JSON body with model, max_tokens and
                         messages, output_config.format of type
                         json_schema with a schema, output_config.effort
                         one of the API's; else 401 authentication_error
                         or 400 invalid_request_error
  GET /v1/models/<id>    the model, for a capability's check
  anything else          404 not_found_error

Every answer has a request-id header, and an error's body is
{"type": "error", "error": {"type", "message"}, "request_id"}.

The scenario is JSON, read again for every request:
  {"answers": {"<prompt>": ANSWER, ...}, "default": ANSWER}
The answer is the one under the request's last user message, its
content as a string, else the default: a test gives each job its own
prompt and so its own answer.  An ANSWER may have:
  delay        seconds before a byte of the answer is sent
  status       200 (the default) or an error status; an error's type and
               message are the API's for it unless "type" and "message"
               say otherwise
  retry_after  its retry-after header, in seconds (a 429 has 30 unless
               it is null)
  body         the exact text of the body instead, as a proxy in front
               of the API might answer (with "content_type")
  text         a reply's text (default {"tag": "x"})
  stop_reason  a reply's, as JSON: a string, null, or "missing" for none
               at all (default "end_turn")
  citations    true: the text block carries a citations list, not null
  chunked      true: the body is sent chunked, not with Content-Length

A streamed request ("stream": true) with status 200 is answered at once
with the headers (text/event-stream, chunked) and message_start, then
a ping every `ping` seconds (0, the default: none) until `delay` has
passed, then the text as text_delta events, message_delta with the
stop_reason and the usage, and message_stop.  An error status is
answered as above, before any event.  An ANSWER may also have:
  stream_error  an error type ("overloaded_error"): after the first
                text delta, an error event of that type, and the stream
                ends, as the API sends one mid-stream

and shapes at the stream's edges, each as the official SDKs read it
(sandcastle-box(8), claude):
  delta_units   n: the text's deltas of n UTF-16 units each, not of 4
                characters, so that a character beyond U+FFFF may be
                split between its halves, each escaped alone
  line_end      every line's end: "\r\n" or "\r" (default "\n")
  last_blank    false: message_stop without the blank line after it
  event_suffix  added to each content_block_delta's event name ("\u0000x")
  thinking      {"thinking", "signature"}: a thinking block first, its
                signature given whole in content_block_start; with
                signature_deltas, a list, each sent as a signature_delta
  after_stop    an error type: an error event after message_stop

The request's log, one JSON line each as testserver.py's LoggedHandler
writes it (method, path, headers, body, conn) with when it came (at,
seconds of the epoch), lets a test count the POSTs and time them.
"""

import argparse
import json
import sys
import time
import uuid

from testserver import LoggedHandler, TestServer, add_host_flags, serve

# The documented statuses, each with its error type and a message of the
# kind the API writes.
ERRORS = {
    400: ("invalid_request_error", "messages: at least one message is required"),
    401: ("authentication_error", "invalid x-api-key"),
    402: ("billing_error", "Your credit balance is too low to access the Anthropic API."),
    403: ("permission_error", "Your API key does not have permission to use the specified resource."),
    404: ("not_found_error", "Not found"),
    409: ("conflict_error", "The resource is being changed by another request."),
    413: ("request_too_large", "Request exceeds the maximum allowed number of bytes."),
    429: ("rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit"),
    500: ("api_error", "Internal server error"),
    504: ("timeout_error", "Request timed out"),
    529: ("overloaded_error", "Overloaded"),
}
EFFORTS = ("low", "medium", "high", "xhigh", "max")


def request_id():
    return "req_" + uuid.uuid4().hex[:24]


def error_body(rid, etype, message):
    return {"type": "error", "error": {"type": etype, "message": message},
            "request_id": rid}


def invalid(body):
    """Why the Messages API would refuse the body with a 400, or None."""
    if not isinstance(body, dict):
        return "body: Input should be an object"
    if not isinstance(body.get("model"), str):
        return "model: Field required"
    mt = body.get("max_tokens")
    if not isinstance(mt, int) or isinstance(mt, bool) or mt < 1:
        return "max_tokens: Field required"
    msgs = body.get("messages")
    if not isinstance(msgs, list) or not msgs:
        return "messages: at least one message is required"
    for i, m in enumerate(msgs):
        if not isinstance(m, dict) or m.get("role") not in ("user", "assistant") \
                or "content" not in m:
            return "messages.%d: role and content are required" % i
    oc = body.get("output_config")
    if oc is None:
        return None
    if not isinstance(oc, dict):
        return "output_config: Input should be an object"
    fmt = oc.get("format")
    if fmt is not None and (not isinstance(fmt, dict) or fmt.get("type") != "json_schema"
                            or not isinstance(fmt.get("schema"), dict)):
        return "output_config.format: a json_schema with a schema is required"
    if "effort" in oc and oc["effort"] is not None and oc["effort"] not in EFFORTS:
        return "output_config.effort: Input should be %s" % ", ".join(
            "'%s'" % e for e in EFFORTS)
    return None


def prompt_of(body):
    """The last user message's content, when it is a string."""
    try:
        users = [m for m in body["messages"] if m.get("role") == "user"]
        c = users[-1]["content"]
        return c if isinstance(c, str) else None
    except (KeyError, IndexError, TypeError, AttributeError):
        return None


def sse(name, data, a=None, blank=True):
    a = a or {}
    end = a.get("line_end", "\n").encode()
    return b"event: %s%sdata: %s%s%s" % (name.encode(), end, json.dumps(data).encode(),
                                         end, end if blank else b"")


def deltas(text, a):
    """The text in pieces of 4 characters, as the model writes it, or of
    delta_units UTF-16 units, a surrogate pair's halves apart."""
    n = a.get("delta_units")
    if not n:
        return [text[i:i + 4] for i in range(0, len(text), 4)] or [""]
    b = text.encode("utf-16-le", "surrogatepass")
    return [b[i:i + 2 * n].decode("utf-16-le", "surrogatepass")
            for i in range(0, len(b), 2 * n)] or [""]


def error_event(etype, a):
    msg = {e[0]: e[1] for e in ERRORS.values()}.get(etype, "Error")
    return sse("error", {"type": "error", "error": {"type": etype, "message": msg}}, a)


def message(body, a):
    """A Message as the API sends it today, every field present."""
    block = {"type": "text", "text": a.get("text", '{"tag": "x"}'), "citations": None}
    if a.get("citations"):
        block["citations"] = [{
            "type": "char_location", "cited_text": "tag this", "document_index": 0,
            "document_title": None, "start_char_index": 0, "end_char_index": 8}]
    stop = a.get("stop_reason", "end_turn")
    content = [block]
    if a.get("thinking"):
        content.insert(0, dict(a["thinking"], type="thinking"))
    if stop == "tool_use":
        content.append({"type": "tool_use", "id": "toolu_" + uuid.uuid4().hex[:24],
                        "name": "lookup", "input": {}})
    m = {
        "id": "msg_" + uuid.uuid4().hex[:24],
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "claude-test-1"),
        "content": content,
        "stop_reason": stop,
        "stop_sequence": "###" if stop == "stop_sequence" else None,
        "usage": {
            "input_tokens": 3,
            "output_tokens": 2,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "cache_creation": {"ephemeral_5m_input_tokens": 0,
                               "ephemeral_1h_input_tokens": 0},
            "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
            "service_tier": "standard",
        },
    }
    if stop == "missing":
        del m["stop_reason"]
    return m


class Handler(LoggedHandler):
    server_version = "fakeapi"

    def read_body(self):
        if self.headers.get("transfer-encoding", "").lower() == "chunked":
            out = b""
            while True:
                n = int(self.rfile.readline().split(b";")[0], 16)
                if n == 0:
                    self.rfile.readline()
                    return out
                out += self.rfile.read(n)
                self.rfile.readline()
        n = int(self.headers.get("content-length") or 0)
        return self.rfile.read(n) if n else b""

    def scenario(self):
        try:
            with open(self.server.opts.scenario) as f:
                return json.load(f)
        except (OSError, ValueError):
            return {}

    def send(self, status, payload, a, rid, ctype="application/json"):
        """The whole answer, after the answer's delay and not a byte before."""
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        time.sleep(a.get("delay", 0))
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("request-id", rid)
        ra = a.get("retry_after", 30 if status == 429 else None)
        if ra is not None:
            self.send_header("retry-after", str(ra))
        if a.get("chunked"):
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            half = len(data) // 2
            for part in (data[:half], data[half:]):
                if part:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
            self.wfile.write(b"0\r\n\r\n")
        else:
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        self.wfile.flush()

    def chunk(self, data):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def stream(self, m, a, rid):
        """The Message m as the API streams it, whole after the delay."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("request-id", rid)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        start = dict(m, content=[], stop_reason=None, stop_sequence=None,
                     usage=dict(m["usage"], output_tokens=1))
        self.chunk(sse("message_start", {"type": "message_start", "message": start}, a))
        end, ping = time.time() + a.get("delay", 0), a.get("ping", 0)
        while time.time() < end:
            time.sleep(max(0, min(ping, end - time.time()) if ping else end - time.time()))
            if ping and time.time() < end:
                self.chunk(sse("ping", {"type": "ping"}, a))
        for i, block in enumerate(m["content"]):
            if self.stream_block(i, block, a):
                return
        self.chunk(sse("message_delta", {
            "type": "message_delta",
            "delta": {"stop_reason": m.get("stop_reason"),
                      "stop_sequence": m["stop_sequence"]},
            "usage": {"output_tokens": m["usage"]["output_tokens"]}}, a))
        self.chunk(sse("message_stop", {"type": "message_stop"}, a,
                       a.get("last_blank", True)))
        if a.get("after_stop"):
            self.chunk(error_event(a["after_stop"], a))
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def pieces(self, block, a):
        """content_block_start's block, and the deltas of the rest."""
        if block["type"] == "text":
            first = dict(block, text="")
            if block.get("citations") is not None:
                first["citations"] = []
            return first, [{"type": "text_delta", "text": t}
                           for t in deltas(block["text"], a)]
        if block["type"] == "thinking":
            return dict(block, thinking=""), [
                {"type": "thinking_delta", "thinking": t}
                for t in deltas(block["thinking"], a)] + [
                {"type": "signature_delta", "signature": s}
                for s in a.get("signature_deltas", [])]
        return dict(block, input={}), [{"type": "input_json_delta",
                                        "partial_json": json.dumps(block["input"])}]

    def stream_block(self, i, block, a):
        """Block i's events; True when an error event ended the stream."""
        first, pieces = self.pieces(block, a)
        self.chunk(sse("content_block_start", {"type": "content_block_start",
                                               "index": i, "content_block": first}, a))
        name = "content_block_delta" + a.get("event_suffix", "")
        for d in pieces:
            self.chunk(sse(name, {"type": "content_block_delta", "index": i, "delta": d}, a))
            if a.get("stream_error") and block["type"] == "text":
                self.chunk(error_event(a["stream_error"], a))
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()
                return True
        self.chunk(sse("content_block_stop", {"type": "content_block_stop", "index": i}, a))
        return False

    def refuse(self, status, message, rid):
        etype = ERRORS[status][0]
        self.send(status, error_body(rid, etype, message), {}, rid)

    def handle_any(self):
        body = self.read_body()
        self.record(body, at=time.time())
        self.close_connection = True
        rid = request_id()
        path = self.path.split("?", 1)[0]
        try:
            if not self.headers.get("x-api-key"):
                self.refuse(401, "x-api-key header is required", rid)
            elif not self.headers.get("anthropic-version"):
                self.refuse(400, "anthropic-version: header is required", rid)
            elif self.command == "GET" and path.startswith("/v1/models/"):
                self.send(200, {"type": "model", "id": path[len("/v1/models/"):],
                                "display_name": "Claude Test",
                                "created_at": "2025-01-01T00:00:00Z"}, {}, rid)
            elif self.command != "POST" or path != "/v1/messages":
                self.refuse(404, "Not found", rid)
            else:
                self.messages(body, rid)
        except OSError:
            pass

    def messages(self, raw, rid):
        try:
            body = json.loads(raw)
        except ValueError:
            self.refuse(400, "There was an issue with the format of your request: "
                        "the body is not JSON", rid)
            return
        why = invalid(body)
        if why is not None:
            self.refuse(400, why, rid)
            return
        sc = self.scenario()
        a = sc.get("answers", {}).get(prompt_of(body), sc.get("default", {}))
        status = a.get("status", 200)
        if "body" in a:
            self.send(status, a["body"].encode(), a, rid,
                      a.get("content_type", "text/html"))
        elif status == 200 and body.get("stream") is True:
            self.stream(message(body, a), a, rid)
        elif status == 200:
            self.send(200, message(body, a), a, rid)
        else:
            etype, msg = ERRORS.get(status, ("api_error", "Internal server error"))
            self.send(status, error_body(rid, a.get("type", etype),
                                         a.get("message", msg)), a, rid)

    do_GET = handle_any
    do_POST = handle_any


def main():
    p = argparse.ArgumentParser()
    add_host_flags(p)
    p.add_argument("--scenario", required=True)
    opts = p.parse_args()
    return serve(TestServer(opts, Handler))


if __name__ == "__main__":
    sys.exit(main())
