"""The oracle worker: llama.cpp's tokenizer behind a pipe, run by the oracle environment's Python.

It imports only the standard library and ``llama_cpp`` (llama-cpp-python 0.3.36), so it runs without
gguftok installed. :class:`gguftok.conformance.oracle.Oracle` starts it as a child process; when llama.cpp
aborts or crashes on an input, only this process dies, and the parent records "the reference crashed".

Protocol: one JSON object per line on stdin, one JSON reply per line on a private copy of stdout (native
code that prints is sent to stderr). Bytes travel as base64. Requests:
  {"op": "load", "path": P}                                  -> {"n_vocab": N, "vocab_type": T}
  {"op": "tokenize", "text": B64, "add_special": b, "parse_special": b, "isolate": b}  -> {"ids": [...]}
     with "isolate", the call runs in a forked child: if llama.cpp aborts there, the reply is
     {"crash": "SIGABRT"} and this process, with its loaded vocabulary, lives on
  {"op": "detokenize", "ids": [...], "remove_special": b, "unparse_special": b}   -> {"text": B64}
  {"op": "pieces", "ids": [...] or null, "special": b}         -> {"pieces": [B64, ...]}
  {"op": "facts"}    -> special ids, add_* flags, end-of-generation ids, every token's attributes
  {"op": "chat", "template": T, "messages": [[role, content], ...], "add_ass": b}
     -> {"text": B64}, or {"text": null} when llama_chat_apply_template does not recognize the template
"""

import base64
import ctypes
import json
import os
import sys

import llama_cpp as L

SPECIAL_GETTERS = ["bos", "eos", "eot", "sep", "nl", "pad", "mask",
                   "fim_pre", "fim_suf", "fim_mid", "fim_pad", "fim_rep", "fim_sep"]


@L.llama_log_callback
def _quiet(level, text, user_data):
    pass


class Worker:
    def __init__(self):
        self.model = None
        self.vocab = None
        self.n_vocab = 0

    def load(self, path):
        if self.model:
            L.llama_model_free(self.model)
            self.model = None
        params = L.llama_model_default_params()
        params.vocab_only = True
        self.model = L.llama_model_load_from_file(path.encode(), params)
        if not self.model:
            raise RuntimeError(f"llama.cpp could not load {path}")
        self.vocab = L.llama_model_get_vocab(self.model)
        self.n_vocab = L.llama_vocab_n_tokens(self.vocab)
        return {"n_vocab": self.n_vocab, "vocab_type": L.llama_vocab_type(self.vocab)}

    def tokenize(self, text, add_special, parse_special):
        raw = base64.b64decode(text)
        n_max = len(raw) + 16
        while True:
            buf = (L.llama_token * n_max)()
            n = L.llama_tokenize(self.vocab, raw, len(raw), buf, n_max, add_special, parse_special)
            if n >= 0:
                return {"ids": buf[:n]}
            if -n <= n_max:
                raise RuntimeError(f"llama_tokenize returned {n} with room for {n_max}")
            n_max = -n

    def detokenize(self, ids, remove_special, unparse_special):
        arr = (L.llama_token * max(1, len(ids)))(*ids)
        size = 64 + 32 * len(ids)
        while True:
            buf = ctypes.create_string_buffer(size)
            n = L.llama_detokenize(self.vocab, arr, len(ids), buf, size, remove_special, unparse_special)
            if n >= 0:
                return {"text": base64.b64encode(buf.raw[:n]).decode()}
            if -n <= size:
                raise RuntimeError(f"llama_detokenize returned {n} with room for {size}")
            size = -n

    def piece(self, token, special):
        size = 64
        while True:
            buf = ctypes.create_string_buffer(size)
            n = L.llama_token_to_piece(self.vocab, token, buf, size, 0, special)
            if n >= 0:
                return buf.raw[:n]
            size = -n

    def pieces(self, ids, special):
        ids = range(self.n_vocab) if ids is None else ids
        return {"pieces": [base64.b64encode(self.piece(i, special)).decode() for i in ids]}

    def facts(self):
        v = self.vocab
        out = {"n_vocab": self.n_vocab, "vocab_type": L.llama_vocab_type(v)}
        for name in SPECIAL_GETTERS:
            out[name] = getattr(L, f"llama_vocab_{name}")(v)
        out["add_bos"] = bool(L.llama_vocab_get_add_bos(v))
        out["add_eos"] = bool(L.llama_vocab_get_add_eos(v))
        out["add_sep"] = bool(L.llama_vocab_get_add_sep(v))
        out["eog"] = [i for i in range(self.n_vocab) if L.llama_vocab_is_eog(v, i)]
        out["attrs"] = [L.llama_vocab_get_attr(v, i) for i in range(self.n_vocab)]
        return out


def chat(template, messages, add_ass):
    """``llama_chat_apply_template``: llama.cpp's built-in renderers, picked by looking at the template."""
    msgs = (L.llama_chat_message * max(1, len(messages)))()
    keep = []  # the encoded strings must outlive the call
    for i, (role, content) in enumerate(messages):
        keep += [role.encode(), content.encode()]
        msgs[i].role, msgs[i].content = keep[-2], keep[-1]
    tmpl = template.encode()
    size = 256 + 2 * sum(len(x) for x in keep)
    while True:
        buf = ctypes.create_string_buffer(size)
        n = L.llama_chat_apply_template(tmpl, msgs, len(messages), add_ass, buf, size)
        if n < 0:
            return {"text": None}
        if n <= size:
            return {"text": base64.b64encode(buf.raw[:n]).decode()}
        size = n


def isolated(fn, *args):
    """Run ``fn(*args)`` in a forked child; its reply, or {"crash": signal name} if it died."""
    import signal

    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: answer through the pipe and leave without cleanup
        os.close(r)
        try:
            data = json.dumps(fn(*args)).encode()
        except Exception as e:
            data = json.dumps({"error": f"{type(e).__name__}: {e}"}).encode()
        with os.fdopen(w, "wb") as f:
            f.write(data)
        os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        data = f.read()
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return {"crash": signal.Signals(os.WTERMSIG(status)).name}
    if os.WEXITSTATUS(status) != 0 or not data:
        return {"crash": f"exit {os.WEXITSTATUS(status)}"}
    return json.loads(data)


def main():
    # Replies go to a private copy of stdout; anything native code prints lands on stderr instead.
    reply_fd = os.dup(1)
    os.dup2(2, 1)
    replies = os.fdopen(reply_fd, "w", buffering=1)
    L.llama_log_set(_quiet, ctypes.c_void_p(0))
    L.llama_backend_init()
    worker = Worker()
    for line in sys.stdin:
        req = json.loads(line)
        op = req.pop("op")
        try:
            if op == "load":
                res = worker.load(req["path"])
            elif op == "tokenize":
                args = (req["text"], req["add_special"], req["parse_special"])
                res = isolated(worker.tokenize, *args) if req.get("isolate") else worker.tokenize(*args)
            elif op == "detokenize":
                res = worker.detokenize(req["ids"], req["remove_special"], req["unparse_special"])
            elif op == "pieces":
                res = worker.pieces(req.get("ids"), req["special"])
            elif op == "facts":
                res = worker.facts()
            elif op == "chat":
                res = chat(req["template"], req["messages"], req["add_ass"])
            else:
                res = {"error": f"unknown op {op!r}"}
        except Exception as e:  # a Python-side failure; native aborts end the process instead
            res = {"error": f"{type(e).__name__}: {e}"}
        replies.write(json.dumps(res) + "\n")


if __name__ == "__main__":
    main()
