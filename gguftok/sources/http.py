"""A GGUF file behind a URL, read with HTTP range requests in growing blocks until its metadata ends.

>>> src = HttpSource("https://example.org/models/m.gguf", Options())
>>> src.kind, src.name
('https', 'm.gguf')

The first request asks for ``bytes=0-262143`` and learns the file's size from ``Content-Range``; each next
one asks for a block twice as large (up to 4 MiB) from where the last ended, as far as the parser needs,
so a parse reads at most one block past the end of the key/value section, whatever the file's size. All the
requests of a read go over one kept-alive connection (:class:`KeepAliveTransport`), so a block costs one round
trip, not a new TCP and TLS handshake each.

Everything the server says is checked before it is used or allocated: ``Content-Range`` must give exactly the
bytes asked for and the size already known; ``Content-Length`` must agree with it; a body that ends early
is a truncated response; a compressed body is refused. A server that ignores ``Range`` (it answers
``200`` with the whole file) is refused unless ``allow_full_download`` says otherwise, and then the full
response is read only as far as the metadata needs. An answer that is not valid HTTP (a garbage status
line, over 100 headers, more than :data:`MAX_INTERIM` interim ``1xx`` answers, bytes after a body that no
request asked for) is a ``protocol`` error, not a connection failure.

Time: each wait on the network waits at most ``timeout`` seconds, and the whole read (every request of it:
the name lookup, the connect, the TLS handshake, the status line, the headers, the body) ends after
``deadline`` seconds, however the server spreads its bytes: one :class:`Clock` computes, before every wait,
the time left from one monotonic deadline, and the socket waits no longer than that (a per-read timeout
alone restarts on each byte). A read past the deadline is a ``timeout`` error.

Redirects are followed (at most 10; the Hub redirects to a CDN), each ``Location`` checked as the URL was
(its scheme, its port). The caller's ``headers`` go only to the URL's own origin: after a redirect to another
origin none of them goes along, except those the caller names in ``forward_headers`` (never
``Authorization``, ``Cookie`` or ``Proxy-Authorization``); :meth:`HttpSource.headers_for` is that rule.
``https`` never falls back to ``http`` (plain ``http`` is accepted only on this machine's loopback
addresses, for tests and local servers), and a port that is not one (``:99999``, ``:abc``, ``:``) is a
``bad-reference`` error, never the default port.

With a validator (a strong ``ETag`` or ``Last-Modified``), the bytes the parse needed go to the on-disk cache
(:mod:`gguftok.sources.cache`); the next read of the URL asks the server with one ``HEAD`` whether the file
is the same, and if so reads nothing more.
"""

from __future__ import annotations

import contextlib
import http.client
import io
import ipaddress
import re
import select
import socket
import ssl
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ..errors import GGUFError, SourceError
from .base import Options, Progress, Reader, ReadReport, Source
from .cache import CacheEntry, MetadataCache, is_reference_key, url_reference_key

__all__ = ["Clock", "HttpSource", "KeepAliveTransport", "RangeReader", "TransportError", "TransportProtocolError",
           "TransportTimeout", "UrllibTransport", "lookup"]

MAX_REDIRECTS = 10
_CHUNK = 64 << 10
_REDIRECTS = (301, 302, 303, 307, 308)
_CREDENTIALS = frozenset({"authorization", "cookie", "proxy-authorization"})  # never forwarded, even if named
_CONTENT_RANGE = re.compile(r"bytes\s+(\d{1,19})-(\d{1,19})/(\d{1,19}|\*)")
_MAX_SIZE = 1 << 62  # a file size beyond this is no file


class TransportTimeout(Exception):
    """No data within the per-read timeout, or the deadline passed (raised by a transport); ``deadline`` says
    which."""

    def __init__(self, message: str = "timed out", *, deadline: bool = False) -> None:
        super().__init__(message)
        self.deadline = deadline


class TransportError(Exception):
    """The connection failed or was cut (raised by a transport)."""


class TransportProtocolError(TransportError):
    """The server's answer is not valid HTTP: a garbage status line, too many or too long headers, endless
    interim answers, bytes nobody asked for on a kept connection (raised by a transport)."""


# ------------------------------------------------------------------------------------------------ the clock


class DeadlineExceeded(TimeoutError):
    """The deadline of an exchange passed while it waited on the network."""


class Clock:
    """The one rule of time for an exchange: a per-read ``timeout`` and one monotonic ``deadline`` (an instant of
    :func:`time.monotonic`, or ``None``). Every wait on the network (the name lookup, the connect, the TLS
    handshake, each ``recv`` of the status line, headers and body) asks :meth:`wait` first and waits at most
    that, so a server that sends a byte just within each timeout cannot carry the exchange past the deadline.

    >>> c = Clock(30.0, time.monotonic() + 2)
    >>> 1.5 < c.wait()[0] <= 2, c.wait()[1]
    (True, True)
    """

    def __init__(self, timeout: float, deadline: float | None = None) -> None:
        self.timeout = timeout
        self.deadline = deadline

    def wait(self) -> tuple[float, bool]:
        """``(seconds, final)``: how long the next wait may take, and whether that is cut by the deadline (so
        that a time-out then is the deadline's). :class:`DeadlineExceeded` when no time is left."""
        if self.deadline is None:
            return self.timeout, False
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise DeadlineExceeded("the deadline passed")
        return (left, True) if left <= self.timeout else (self.timeout, False)

    def run(self, call: Callable[[float], Any]) -> Any:
        """``call(seconds)`` for one bounded wait; its ``TimeoutError`` is :class:`DeadlineExceeded` if the
        deadline cut it."""
        seconds, final = self.wait()
        try:
            return call(seconds)
        except DeadlineExceeded:
            raise
        except TimeoutError:
            if final:
                raise DeadlineExceeded("the deadline passed") from None
            raise


class _TimedSocket:
    """A connected socket (plain or TLS) whose every send and receive waits at most what its connection's
    :class:`Clock` allows, set just before the call (``socket.settimeout`` alone restarts on each byte).

    It also looks, without waiting, for bytes a kept connection holds that no request asked for
    (:meth:`unasked`)."""

    def __init__(self, sock: socket.socket, owner: Any) -> None:
        self._sock = sock
        self._owner = owner  # the connection: its .clock is the current request's
        self._probing = False
        self._readers = 0  # open readers: the socket closes when the last one does (as socket.makefile's)
        self._closed = False
        self.leftover = b""  # what the reader of the last answer held past its end (see _Reader.close)

    def _timed(self, call: Callable[..., Any], *args: Any) -> Any:
        if self._probing:
            self._sock.settimeout(0.0)
            return call(*args)

        def once(seconds: float) -> Any:
            self._sock.settimeout(seconds)
            return call(*args)

        return self._owner.clock.run(once)

    def recv_into(self, *args: Any) -> int:
        return self._timed(self._sock.recv_into, *args)

    def recv(self, *args: Any) -> bytes:
        return self._timed(self._sock.recv, *args)

    def send(self, *args: Any) -> int:
        return self._timed(self._sock.send, *args)

    def sendall(self, *args: Any) -> None:
        return self._timed(self._sock.sendall, *args)

    def makefile(self, mode: str = "r", buffering: int | None = None, **kwargs: Any) -> Any:
        if mode != "rb":  # http.client asks only for "rb"
            raise ValueError(f"unsupported mode {mode!r}")
        self._readers += 1
        return _Reader(socket.SocketIO(self, "rb"), self)  # type: ignore[arg-type]

    def _decref_socketios(self) -> None:
        self._readers -= 1
        if self._closed and self._readers <= 0:
            self._sock.close()

    def unasked(self) -> bytes | None:
        """Bytes waiting on the idle connection (kept by the last answer's reader or on the socket), ``b""`` if
        none, ``None`` if the server closed it."""
        held, self.leftover = self.leftover, b""
        try:
            readable = select.select([self._sock], [], [], 0)[0]
            pending = self._sock.pending() if isinstance(self._sock, ssl.SSLSocket) else 0
            if not readable and not pending:
                return held
            self._probing = True
            data = self._sock.recv(4096)
        except (BlockingIOError, ssl.SSLWantReadError):  # (a TLS record that holds no data: a session ticket)
            return held
        except (OSError, ValueError):
            return held or None
        finally:
            self._probing = False
        return held + data if data else (held or None)

    def close(self) -> None:
        self._closed = True
        if self._readers <= 0:  # (else the answer being read keeps it open: http.client hands it over so)
            self._sock.close()

    def __getattr__(self, name: str) -> Any:  # setsockopt, fileno, getpeername, ...
        return getattr(self._sock, name)


class _Reader(io.BufferedReader):
    """The buffered reader of one answer: closed, it keeps what it had read past the answer's end (a server's
    junk after a body would be lost with it, and the next answer read from what follows)."""

    def __init__(self, raw: Any, owner: _TimedSocket) -> None:
        super().__init__(raw)
        self._owner = owner

    def close(self) -> None:
        if not self.closed:
            owner = self._owner
            owner._probing = True
            try:
                owner.leftover += self.peek(1)  # what is buffered; else one read that does not wait
            except (OSError, ValueError):
                pass
            finally:
                owner._probing = False
        super().close()


MAX_INTERIM = 20  # interim answers (100 Continue) skipped before the real one; more is a protocol fault


class _HTTPResponse(http.client.HTTPResponse):
    """``http.client``'s response, which skips ``100 Continue`` answers for as long as they come: at most
    :data:`MAX_INTERIM` here (more is an ``HTTPException``, as ``http.client``'s own protocol faults are)."""

    def _read_status(self) -> Any:
        self._statuses = getattr(self, "_statuses", 0) + 1
        if self._statuses > MAX_INTERIM + 1:
            raise http.client.HTTPException(f"more than {MAX_INTERIM} interim (1xx) answers before the answer")
        return super()._read_status()


# ------------------------------------------------------------------------------------------------ transport


class Response:
    """One HTTP response as the range reader sees it: ``status``, ``header(name)``, ``read_some(n)``, ``close()``."""

    status: int

    def header(self, name: str) -> str | None:
        raise NotImplementedError

    def read_some(self, n: int) -> bytes:
        """Up to ``n`` bytes of the body as they arrive (one network read), ``b""`` at its end."""
        raise NotImplementedError

    def close(self) -> None:
        pass


def _transport_error(e: BaseException, *, connected: bool = True) -> Exception:
    """A transport's exception for an error of the socket or of ``http.client``: a time-out (the deadline's or
    the per-read timeout's), a protocol fault (the server's answer is not HTTP), or a failed connection."""
    if isinstance(e, DeadlineExceeded):
        return TransportTimeout("the deadline passed", deadline=True)
    if isinstance(e, TimeoutError):
        return TransportTimeout(str(e) or "timed out")
    if isinstance(e, TransportError):
        return e
    if isinstance(e, http.client.IncompleteRead):
        return TransportError(f"the body ended early ({e!r})")
    if connected and isinstance(e, http.client.HTTPException) and not isinstance(e, ConnectionError):
        if isinstance(e, http.client.BadStatusLine):
            text = f"its status line {e.line[:60]!r} is not HTTP's" if e.line else "its status line is empty"
        elif isinstance(e, http.client.UnknownProtocol):
            text = f"it speaks an unknown protocol {e.version!r}"
        else:  # "got more than 100 headers", "got more than 65536 bytes when reading header line", ...
            text = str(e) or type(e).__name__
        return TransportProtocolError(text)
    return TransportError(str(e) or type(e).__name__)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # the range reader follows redirects itself, deciding what headers go along


class _UrllibResponse(Response):
    def __init__(self, raw: Any) -> None:
        self.raw = raw
        self.status = raw.status if hasattr(raw, "status") and raw.status is not None else raw.code

    def header(self, name: str) -> str | None:
        return self.raw.headers.get(name)

    def read_some(self, n: int) -> bytes:
        try:
            return self.raw.read1(n)
        except (OSError, http.client.HTTPException, ValueError) as e:
            raise _transport_error(e) from None

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.raw.close()


class _ClockedHandler:
    """urllib's handlers of http and https, opening this module's connections (the clock on every wait)."""

    def __init__(self, clock: Clock, context: Callable[[], ssl.SSLContext]) -> None:
        self.clock, self.context = clock, context

    def _connection(self, https: bool) -> Callable[..., http.client.HTTPConnection]:
        def make(host: str, **_: Any) -> http.client.HTTPConnection:  # host: "name:port", as urllib gives it
            conn = (_HTTPSConnection(host, None, timeout=self.clock.timeout, context=self.context())
                    if https else _HTTPConnection(host, None, timeout=self.clock.timeout))
            conn.clock = self.clock
            return conn

        return make


class _ClockedHTTPHandler(_ClockedHandler, urllib.request.HTTPHandler):
    def __init__(self, clock: Clock, context: Callable[[], ssl.SSLContext]) -> None:
        _ClockedHandler.__init__(self, clock, context)
        urllib.request.HTTPHandler.__init__(self)

    def http_open(self, req: Any) -> Any:
        return self.do_open(self._connection(False), req)


class _ClockedHTTPSHandler(_ClockedHandler, urllib.request.HTTPSHandler):
    def __init__(self, clock: Clock, context: Callable[[], ssl.SSLContext]) -> None:
        _ClockedHandler.__init__(self, clock, context)
        urllib.request.HTTPSHandler.__init__(self)

    def https_open(self, req: Any) -> Any:
        return self.do_open(self._connection(True), req)


class UrllibTransport:
    """HTTP(S) with the standard library (``urllib``: proxies from the environment, the system's CA store);
    redirects are returned, not followed. One connection per request (urllib says ``Connection: close``):
    :class:`KeepAliveTransport` uses it only behind a proxy. The connections are this module's, so a
    ``deadline`` holds over the whole exchange here too (the proxy's ``CONNECT`` included)."""

    takes_deadline = True

    def __init__(self) -> None:
        self._context: ssl.SSLContext | None = None

    def _ssl(self) -> ssl.SSLContext:
        if self._context is None:
            self._context = ssl.create_default_context()
        return self._context

    def request(self, method: str, url: str, headers: Mapping[str, str], timeout: float, *,
                deadline: float | None = None) -> Response:
        clock = Clock(timeout, deadline)
        opener = urllib.request.build_opener(_NoRedirect, _ClockedHTTPHandler(clock, self._ssl),
                                             _ClockedHTTPSHandler(clock, self._ssl))
        req = urllib.request.Request(url, method=method, headers=dict(headers))
        try:
            raw = opener.open(req, timeout=timeout)
        except urllib.error.HTTPError as e:  # a 3xx, 4xx or 5xx: a response all the same
            raw = e
        except urllib.error.URLError as e:
            reason = e.reason
            raise _transport_error(reason if isinstance(reason, BaseException) else OSError(str(reason))) from None
        except (OSError, http.client.HTTPException, ValueError) as e:
            raise _transport_error(e) from None
        return _UrllibResponse(raw)

    def close(self) -> None:
        pass


# What a connection the server closed while it sat idle raises on the next request: the request is sent again,
# once, on a new connection (GET and HEAD are idempotent). A new connection that fails is not retried.
_DROPPED = (ConnectionError, ssl.SSLEOFError, ssl.SSLZeroReturnError)
_DRAIN = 64 << 10  # the most bytes of an unread body (an error page) read to keep its connection


class _PooledResponse(Response):
    """A response on a kept connection: closed, it gives the connection back if its body was read to the end
    (or drained, when short), else the connection is closed (the rest of a 200 with the whole file stays unread)."""

    def __init__(self, transport: KeepAliveTransport, key: tuple[Any, ...], conn: http.client.HTTPConnection,
                 raw: http.client.HTTPResponse) -> None:
        self.transport, self.key, self.conn, self.raw = transport, key, conn, raw
        self.status = raw.status
        self._failed = False  # a read failed (a stall, a cut): nothing more is read from this connection

    def header(self, name: str) -> str | None:
        return self.raw.getheader(name)

    def read_some(self, n: int) -> bytes:
        try:
            return self.raw.read1(n)
        except (OSError, http.client.HTTPException, ValueError) as e:
            self._failed = True
            raise _transport_error(e) from None

    def close(self) -> None:
        conn, self.conn = self.conn, None
        if conn is None:
            return
        reusable = False
        try:  # (http.client marks a body read to its exact length closed only on the next read: this one)
            if (not self._failed and not self.raw.isclosed() and self.raw.length is not None
                    and self.raw.length <= _DRAIN):
                self.raw.read()
            reusable = self.raw.isclosed() and not self.raw.will_close
        except (OSError, http.client.HTTPException, ValueError):
            reusable = False
        self.transport.release(self.key, conn, reusable)
        with contextlib.suppress(OSError):
            self.raw.close()


class KeepAliveTransport:
    """HTTP/1.1 with ``http.client``, one connection kept per origin: all the range requests of a load, and the
    ``HEAD`` that checks a cached copy, go over one connection: one TCP and TLS handshake per read instead of
    one per block (two or three round trips each on a real link; ``bench/bench_sources.py --rtt`` models it).
    Redirects are returned, not followed.

    A kept connection the server closed (it said ``Connection: close``, or timed the idle connection out) is
    replaced: an answer saying so opens a new connection for the next request, and a request that finds the
    connection dead is sent again once on a new one. A kept connection that holds bytes no request asked for
    (a server's junk after a body, which the next answer would be read from) is a protocol fault.

    Time: each wait on the network (the name lookup (:func:`lookup`), the connect, the TLS handshake, every
    read of the status line, the headers and the body) is bounded by the request's ``timeout``, and all of
    them together by its ``deadline`` (a :func:`time.monotonic` instant): one :class:`Clock` per request.
    At most :data:`MAX_INTERIM` interim answers are skipped. Certificates are checked against the system's
    store, as ``urllib`` does; behind a proxy (``https_proxy`` and the like, as ``urllib`` reads them) requests
    go through :class:`UrllibTransport`, under the same clock.

    >>> t = KeepAliveTransport()
    >>> t.opened, t.close()
    (0, None)
    """

    takes_deadline = True

    def __init__(self) -> None:
        self._idle: dict[tuple[str, str, int], http.client.HTTPConnection] = {}
        self._context: ssl.SSLContext | None = None
        self._proxied: UrllibTransport | None = None
        self.opened = 0  # connections opened

    def request(self, method: str, url: str, headers: Mapping[str, str], timeout: float, *,
                deadline: float | None = None) -> Response:
        scheme, host, port = origin(url)
        if _proxy_for(scheme, host):
            self._proxied = self._proxied or UrllibTransport()
            return self._proxied.request(method, url, headers, timeout, deadline=deadline)
        parts = urllib.parse.urlsplit(url)
        target = urllib.parse.urlunsplit(("", "", parts.path or "/", parts.query, ""))
        sent = {"User-Agent": _user_agent(), **headers}
        key = (scheme, host, port)
        clock = Clock(timeout, deadline)
        for attempt in range(2):
            conn = self._idle.pop(key, None)
            reused = conn is not None and conn.sock is not None
            if reused:
                assert conn is not None
                junk = conn.sock.unasked()
                if junk is None or (junk and not junk.strip()):  # closed by the server (or blank lines): a new one
                    reused = False
                elif junk:
                    conn.close()
                    raise TransportProtocolError(f"the server sent {len(junk):,} bytes after the end of its answer "
                                                 f"(starting {junk[:24]!r}), which no request asked for: the "
                                                 "next answer on the connection would be read from them")
            if not reused:
                if conn is not None:
                    conn.close()
                conn = self._connection(scheme, host, port, timeout)
            assert conn is not None
            conn.clock = clock
            connected = conn.sock is not None
            try:
                if conn.sock is None:
                    self.opened += 1
                    conn.connect()
                connected = True
                conn.request(method, target, headers=sent)
                raw = conn.getresponse()
            except _DROPPED as e:
                conn.close()
                if reused and attempt == 0:
                    continue  # the server closed the kept connection: once more, on a new one
                raise _transport_error(e) from None
            except (OSError, http.client.HTTPException, ValueError) as e:
                conn.close()
                raise _transport_error(e, connected=connected) from None
            return _PooledResponse(self, key, conn, raw)
        raise AssertionError("unreachable")  # pragma: no cover

    def _connection(self, scheme: str, host: str, port: int, timeout: float) -> http.client.HTTPConnection:
        if scheme == "https":
            if self._context is None:
                self._context = ssl.create_default_context()
            return _HTTPSConnection(host, port, timeout=timeout, context=self._context)
        return _HTTPConnection(host, port, timeout=timeout)

    def release(self, key: tuple[str, str, int], conn: http.client.HTTPConnection, reusable: bool) -> None:
        """Keep ``conn`` for the next request to its origin, or close it."""
        if not reusable or conn.sock is None:
            conn.close()
            return
        old = self._idle.pop(key, None)
        if old is not None:
            old.close()
        self._idle[key] = conn

    def close(self) -> None:
        """Close the kept connections."""
        while self._idle:
            self._idle.popitem()[1].close()


def lookup(host: str, port: int, timeout: float) -> list[tuple[Any, ...]]:
    """``socket.getaddrinfo(host, port)`` for a TCP connection, given up after ``timeout`` seconds.

    The time-outs of ``socket.create_connection`` (and of the HTTP clients built on it) start after the name
    lookup, which a resolver that does not answer (a machine without a network) can hold for tens of seconds.
    The lookup runs in a daemon thread, left to finish on its own if it is too slow; whatever it raises comes
    back here as an ``OSError`` (never a traceback from the thread).

    >>> lookup("127.0.0.1", 80, 1.0)[0][4]
    ('127.0.0.1', 80)
    """
    with contextlib.suppress(ValueError):
        ipaddress.ip_address(host)
        return socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM)  # a numeric address: nothing to look up
    box: dict[str, Any] = {}
    done = threading.Event()

    def work() -> None:
        try:
            box["addresses"] = socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM)
        except OSError as e:
            box["error"] = e
        except UnicodeError as e:  # the IDNA codec refuses the name (a label over 63 characters): not an OSError
            box["error"] = socket.gaierror(socket.EAI_NONAME, f"{host!r} is not a valid host name ({e})")
        except Exception as e:  # anything else the resolver raises: one error here, never a thread's traceback
            box["error"] = OSError(f"the name lookup of {host!r} failed: {type(e).__name__}: {e}")
        finally:
            done.set()

    threading.Thread(target=work, name=f"gguftok lookup {host}", daemon=True).start()
    if not done.wait(timeout):
        raise TimeoutError(f"the name lookup of {host} took longer than {timeout:g} s")
    if "error" in box:
        raise box["error"]
    return box["addresses"]


def _connect(host: str, port: int, clock: Clock) -> socket.socket:
    """``socket.create_connection((host, port))``, the name lookup and each connect bounded by ``clock``."""
    error: OSError | None = None
    for family, kind, proto, _, address in clock.run(lambda s: lookup(host, port, s)):
        sock = socket.socket(family, kind, proto)
        try:
            clock.run(lambda s, sock=sock, address=address: (sock.settimeout(s), sock.connect(address)))
            return sock
        except OSError as e:
            sock.close()
            if isinstance(e, DeadlineExceeded):  # no time left to try another address
                raise
            error = e
    raise error or OSError(f"no address for {host}")


class _Clocked:
    """What this module's connections share: a :class:`Clock` (set per request) over every wait, the socket
    wrapped so that each receive obeys it, :class:`_HTTPResponse`, and a proxy's ``CONNECT`` tunnel."""

    clock: Clock
    response_class = _HTTPResponse

    def _open(self: Any) -> socket.socket:
        if not hasattr(self, "clock"):
            self.clock = Clock(self.timeout if isinstance(self.timeout, (int, float)) else 30.0)
        raw = _connect(self.host, self.port, self.clock)
        raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # as http.client does
        self.sock = _TimedSocket(raw, self)
        if self._tunnel_host:
            self._tunnel()
        return raw


class _HTTPConnection(_Clocked, http.client.HTTPConnection):
    def connect(self) -> None:
        self._open()


class _HTTPSConnection(_Clocked, http.client.HTTPSConnection):
    def __init__(self, host: str, port: int | None, *, timeout: float, context: ssl.SSLContext) -> None:
        super().__init__(host, port, timeout=timeout, context=context)
        self._tls = context

    def connect(self) -> None:
        raw = self._open()
        try:
            def handshake(seconds: float) -> ssl.SSLSocket:
                raw.settimeout(seconds)  # the handshake as a whole waits at most this (CPython's ssl)
                return self._tls.wrap_socket(raw, server_hostname=self._tunnel_host or self.host)

            self.sock = _TimedSocket(self.clock.run(handshake), self)
        except BaseException:
            raw.close()
            self.sock = None
            raise


def _proxy_for(scheme: str, host: str) -> bool:
    """Whether the environment sends requests to ``host`` through a proxy (as ``urllib`` decides)."""
    proxies = urllib.request.getproxies()
    if scheme not in proxies:
        return False
    try:
        return not urllib.request.proxy_bypass(host)
    except OSError:
        return True


def _user_agent() -> str:
    from ..version import __version__

    return f"gguftok/{__version__}"


# ------------------------------------------------------------------------------------------------ helpers


_PORT = re.compile(r"[0-9]{1,5}")


def origin(url: str) -> tuple[str, str, int]:
    """``(scheme, host, port)`` of ``url``, the port made explicit; a port that is not one (``:99999``,
    ``:abc``, ``:-1``, an empty ``:``) is a ``bad-reference`` :class:`SourceError`, never the default port.

    >>> origin("https://Example.org/m.gguf"), origin("http://127.0.0.1:8080/x")[2]
    (('https', 'example.org', 443), 8080)
    """
    p = urllib.parse.urlsplit(url)
    scheme = p.scheme.lower()
    hostport = p.netloc.rpartition("@")[2]
    text = hostport.rpartition("]")[2] if hostport.startswith("[") else hostport
    port = {"http": 80, "https": 443}.get(scheme, 0)
    if ":" in text:
        given = text.rpartition(":")[2]
        if not (_PORT.fullmatch(given) and 0 < int(given) <= 65535):
            raise SourceError(f"the port {given!r} of {_shown_url(url)} is not a port number (1 to 65535)",
                              reason="bad-reference")
        port = int(given)
    return scheme, (p.hostname or "").lower(), port


def is_loopback(host: str) -> bool:
    """Whether ``host`` is this machine: ``localhost``, ``127.0.0.0/8``, ``::1``."""
    if host.lower() in ("localhost", "localhost.localdomain"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_url(url: str, reference: str, *, redirect: bool = False) -> None:
    """An ``https`` URL, or ``http`` to this machine, with a real port; else a :class:`SourceError` saying why
    not (``redirect``: ``url`` is where a server redirects)."""
    try:
        scheme, host, _ = origin(url)
    except SourceError as e:
        raise SourceError(("the server redirects to a bad URL: " if redirect else "") + str(e),
                          reference=reference, reason=e.reason) from None
    if scheme == "https" and host:
        return
    if scheme == "http" and host and is_loopback(host):
        return
    if scheme == "http":
        raise SourceError(f"plain http to {host!r} is refused (anyone on the way could change the bytes): use "
                          "https:// (http:// is accepted only for this machine, e.g. http://127.0.0.1:8000/...)",
                          reference=reference, reason="insecure")
    raise SourceError(f"cannot read {url!r}: only https:// URLs (and http:// on this machine) are read",
                      reference=reference, reason="bad-reference")


def content_range(value: str | None) -> tuple[int, int, int | None] | None:
    """``Content-Range: bytes FIRST-LAST/TOTAL`` as ``(first, last, total or None)``, ``None`` if malformed.

    >>> content_range("bytes 0-99/1000"), content_range("bytes 5-9/*"), content_range("bytes 9-5/10")
    ((0, 99, 1000), (5, 9, None), None)
    """
    m = _CONTENT_RANGE.fullmatch((value or "").strip())
    if not m:
        return None
    first, last = int(m.group(1)), int(m.group(2))
    total = None if m.group(3) == "*" else int(m.group(3))
    if last < first or (total is not None and last >= total) or last >= _MAX_SIZE:
        return None
    return first, last, total


def content_length(value: str | None) -> int | None:
    """A ``Content-Length`` as an int, ``None`` if absent; ``-1`` if it is not a plain decimal number."""
    if value is None:
        return None
    value = value.strip()
    return int(value) if value.isdigit() and len(value) <= 19 else -1


def validator_of(resp: Response) -> str | None:
    """A strong ``ETag``, else ``Last-Modified``, else ``None`` (a weak ETag does not promise the same bytes)."""
    etag = (resp.header("ETag") or "").strip()
    if etag and not etag.startswith("W/"):
        return etag
    return resp.header("Last-Modified") or None


def http_hint(status: int) -> str:
    """What to do about an HTTP error status, for a plain URL."""
    if status in (401, 403):
        return ("the server wants credentials gguftok does not have: use a link that needs none (a public or "
                "signed URL), or pass headers= to gguftok.sources.open_source")
    if status in (404, 410):
        return "check the URL"
    return ""


def _status_message(status: int) -> tuple[str, str]:
    if status in (404, 410):
        return "not found on the server", "not-found"
    if status in (401, 403):
        return "access refused", "forbidden"
    if status == 416:
        return "the server cannot serve the range asked for (the file is empty, or shorter than it said)", "bad-range"
    if status == 429:
        return "too many requests: wait a little and try again", "http-error"
    if status >= 500:
        return "the server failed: try again later", "http-error"
    return "unexpected answer", "http-error"


def _size_text(n: int | None) -> str:
    return "of unknown size" if n is None else f"of {n:,} bytes"


# ------------------------------------------------------------------------------------------------ the source


class HttpSource(Source):
    """A file at an ``https://`` URL (or ``http://`` on loopback), read with range requests.

    ``headers`` are sent with every request to the URL's own origin (its scheme, host and port; or
    ``credentials_origin``'s) and to no other: after a redirect to another origin (a CDN, a mirror) none of them
    goes along, whatever its name (``X-Api-Key`` is a credential as much as ``Authorization``), except those
    ``forward_headers`` names as safe to send anywhere (``forward_headers=("Accept-Language",)``; never
    ``Authorization``, ``Cookie`` or ``Proxy-Authorization``). :meth:`headers_for` is that rule. The reader's
    own headers (``Range``, ``Accept-Encoding``, ``If-Range``) and the transport's ``User-Agent`` go to every
    origin. The Hub source (:mod:`gguftok.sources.hub`) makes one of these from what ``huggingface_hub`` resolved,
    with its ``transport`` (the Hub's session), its credentials, the file's ``size`` and ``validator``, and
    the cache ``keys`` its content is known by.
    """

    def __init__(self, url: str, options: Options, *, reference: str | None = None, kind: str | None = None,
                 headers: Mapping[str, str] | None = None, credentials_origin: str | None = None,
                 transport: Any = None, size: int | None = None, validator: str | None = None,
                 content_keys: list[str] | None = None, store_keys: list[str] | None = None,
                 offline_keys: list[str] | None = None, validate: bool = True,
                 hint: Callable[[int], str] = http_hint, notes: list[str] | None = None,
                 offline: bool | None = None, forward_headers: Iterable[str] = ()) -> None:
        super().__init__(url if reference is None else reference, options)
        self.url = url
        self.kind = kind or origin(url)[0]
        check_url(url, self.reference)
        self.headers = dict(headers or {})
        self.forward_headers = frozenset(name.strip().lower() for name in forward_headers)
        if self.forward_headers & _CREDENTIALS:
            raise ValueError(f"{', '.join(sorted(self.forward_headers & _CREDENTIALS))}: credentials are never "
                             "forwarded to another origin")
        self.credentials_origin = origin(credentials_origin or url)
        self.transport = transport
        self.size = size
        self.validator = validator
        ref_key = url_reference_key(self.reference)  # the URL names the server whose validator a hit trusts
        self.content_keys = list(content_keys or [])  # the bytes are known before any request by these
        self.store_keys = list(store_keys if store_keys is not None else [ref_key])
        self.offline_keys = list(offline_keys if offline_keys is not None else [ref_key])
        self.validate = validate  # whether a kept copy under ref: may be used after a HEAD shows the same validator
        self.hint = hint
        self.notes = list(notes or [])
        self.offline = options.is_offline() if offline is None else offline

    @property
    def name(self) -> str:
        return urllib.parse.unquote(urllib.parse.urlsplit(self.url).path.rstrip("/").rsplit("/", 1)[-1])

    def headers_for(self, url: str) -> dict[str, str]:
        """The caller's headers that go with a request to ``url``: all of them to their own origin, elsewhere
        only those named in ``forward_headers`` (the one rule of where headers go)."""
        if origin(url) == self.credentials_origin:
            return dict(self.headers)
        return {k: v for k, v in self.headers.items() if k.strip().lower() in self.forward_headers}

    def open(self) -> RangeReader:
        return RangeReader(self)


class RangeReader(Reader):
    """One read of an :class:`HttpSource` (see the module's docstring)."""

    def __init__(self, src: HttpSource, owner: Source | None = None) -> None:
        super().__init__(ReadReport(src.reference, src.kind, _shown_url(src.url), notes=list(src.notes)), src.options)
        self.src = src
        self.owner = owner or src
        self.name = src.reference
        self.url = src.url
        self.size: int = src.size if src.size is not None else _MAX_SIZE  # until the first answer says
        self._size_known = src.size is not None
        if self._size_known:
            self._report.size = self.size
        self.validator = src.validator
        self._chunks: list[bytes] = []
        self._buf = b""
        self._stream: Response | None = None
        self._deadline = self._started + self.options.deadline
        self._progress: Progress | None = None
        self._cache = MetadataCache() if self.options.cache else None
        self._entry: CacheEntry | None = None
        self._got_gguf = False
        self._transport: KeepAliveTransport | None = None
        try:
            self._start()
        except BaseException:
            self.close()
            raise

    # ---------------------------------------------------------------------------- the first bytes

    def _start(self) -> None:
        src = self.src
        entry = None
        if self._cache is not None:
            entry = self._cache.get(*src.content_keys)
            if entry is None and src.offline:
                entry = self._cache.get(*src.offline_keys)
        if entry is None and src.offline:
            raise SourceError("offline (--offline, GGUFTOK_OFFLINE or HF_HUB_OFFLINE), and gguftok's cache holds "
                              "no copy of this file's metadata: read it once with the network on"
                              + ("" if self._cache is not None else " and the cache on"),
                              reference=src.reference, reason="offline")
        if entry is None and self._cache is not None and src.validate:
            kept = self._cache.get(*src.offline_keys)
            if kept is not None and kept.validator:
                entry = self._validated(kept)
        if entry is not None:
            self._use(entry)
            return
        self._fetch_to(self.next_end(1))

    def _validated(self, kept: CacheEntry) -> CacheEntry | None:
        """``kept`` if a ``HEAD`` shows the file unchanged (same validator and size), else ``None``."""
        try:
            resp = self._request("HEAD", self.url)
        except SourceError as e:
            if e.reason in ("unreachable", "timeout"):
                raise SourceError(f"{e}; gguftok's cache holds a copy of its metadata: read it with --offline "
                                  "(GGUFTOK_OFFLINE=1)", reference="", reason=e.reason, status=e.status) from None
            if e.status in (405, 501):  # no HEAD here: read the file as if nothing were kept
                return None
            raise
        try:
            same = (validator_of(resp) == kept.validator
                    and content_length(resp.header("Content-Length")) in (kept.size, None))
        finally:
            resp.close()
        return kept if same else None

    def _use(self, entry: CacheEntry) -> None:
        self._entry = entry
        self._buf = entry.data
        self.avail = len(entry.data)
        self.size = entry.size
        self._size_known = True
        self.validator = entry.validator
        self._report.size = entry.size
        self._report.cache = "hit"
        self._report.cache_path = str(entry.path)
        self._report.cache_bytes = len(entry.data)
        if entry.location:
            self._report.location = _shown_url(entry.location)
        self.owner.local_path = str(entry.path)

    # ---------------------------------------------------------------------------- what the parser asks for

    def read_to(self, end: int) -> tuple[Any, int]:
        if end > self.avail and end <= self.size:
            if self._entry is not None:  # the kept copy is shorter than this parse needs: read the file itself
                self._entry = None
                self._buf, self._chunks, self.avail = b"", [], 0
                self._report.cache = self._report.cache_path = None
                self._report.cache_bytes = 0
                self.owner.local_path = None
            limit = self.options.max_metadata
            if end > limit:
                raise SourceError(f"the metadata would need more than {limit:,} bytes (the parse asks for the "
                                  f"bytes up to offset {end:,} of the {self.size:,}): refusing to download that "
                                  "much; if the file is right, raise max_metadata (--max-metadata-bytes)",
                                  reference=self.name, reason="too-large")
            self._fetch_to(min(self.next_end(end), limit))
        return self._buf, self.avail

    def done(self, used: int) -> None:
        src = self.src
        if self._cache is None or not src.store_keys:
            return
        if self._entry is not None:  # known by one key: known by the others too (a commit, the last read)
            entry = self._entry
            keys = [k for k in src.store_keys if k != entry.key]
            if keys:
                with contextlib.suppress(OSError):
                    self._cache.put(keys, entry.data, size=entry.size, location=entry.location,
                                    validator=entry.validator)
            return
        keys = list(src.store_keys)
        if self.validator is None and not src.content_keys:  # nothing says what the bytes are: offline reads only
            keys = [k for k in keys if is_reference_key(k)]
        if not keys:
            return
        try:
            entry = self._cache.put(keys, self._buf[:used], size=self.size, location=self.url,
                                    validator=self.validator)
        except OSError as e:
            self._report.notes.append(f"could not keep the metadata in the cache: {e}")
            return
        self._report.cache = "stored"
        self._report.cache_path = str(entry.path)
        self.owner.local_path = str(entry.path)

    def close(self) -> None:
        if self._stream is not None:
            self._stream.close()
            self._stream = None
        if self._progress is not None:
            self._progress.close()
            self._progress = None
        if self._transport is not None:
            self._transport.close()
            self._transport = None
        self.owner.report = self.report()

    # ---------------------------------------------------------------------------- the network

    def _late(self) -> SourceError:
        return SourceError(f"the read took longer than {self.options.deadline:g} s (its deadline) after "
                           f"{self._report.bytes_read:,} bytes: the server is too slow; raise --deadline to "
                           "wait longer", reference=self.name, reason="timeout")

    def _remaining(self) -> float:
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise self._late()
        return left

    def _timed_out(self, e: TransportTimeout) -> bool:
        """Whether a transport's time-out is the deadline's (a transport that takes no deadline was given the
        time left as its timeout)."""
        if e.deadline:
            return True
        return time.monotonic() >= self._deadline - 0.05

    def _request(self, method: str, url: str, extra: Mapping[str, str] | None = None) -> Response:
        """One request, following redirects; a response of status 2xx (anything else is a SourceError)."""
        src = self.src
        if src.transport is not None:
            transport = src.transport
        else:  # this read's own: closed with it
            transport = self._transport = self._transport or KeepAliveTransport()
        for _ in range(MAX_REDIRECTS + 1):
            check_url(url, src.reference)
            headers = src.headers_for(url)
            headers.update(extra or {})  # the reader's own (Range, Accept-Encoding, If-Range): to every origin
            timeout = min(self.options.timeout, self._remaining())
            self._report.requests += 1
            try:
                if getattr(transport, "takes_deadline", False):  # the deadline holds inside the exchange
                    resp = transport.request(method, url, headers, self.options.timeout, deadline=self._deadline)
                else:  # (a transport of its own, the Hub's session: the deadline bounds only its first wait)
                    resp = transport.request(method, url, headers, timeout)
            except TransportTimeout as e:
                if self._timed_out(e):
                    raise self._late() from None
                raise SourceError(f"no answer from {origin(url)[1]} within {self.options.timeout:g} s (the "
                                  "per-read timeout): the server is slow or unreachable; raise --timeout to wait "
                                  "longer", reference=src.reference, reason="timeout") from None
            except TransportProtocolError as e:
                raise SourceError(f"the answer of {origin(url)[1]} is not valid HTTP: {e}", reference=src.reference,
                                  reason="protocol") from None
            except TransportError as e:
                raise SourceError(f"cannot connect to {origin(url)[1]}: {e} (is the network on? with no network, "
                                  "--offline reads gguftok's cache)", reference=src.reference,
                                  reason="unreachable") from None
            if resp.status in _REDIRECTS:
                location = resp.header("Location")
                resp.close()
                if not location:
                    raise SourceError(f"HTTP {resp.status} redirect without a Location", reference=src.reference,
                                      reason="http-error", status=resp.status)
                target = urllib.parse.urljoin(url, location.strip())
                check_url(target, src.reference, redirect=True)
                if origin(url)[0] == "https" and origin(target)[0] != "https" and not is_loopback(origin(target)[1]):
                    raise SourceError(f"the server redirects from https to {origin(target)[0]}: refused",
                                      reference=src.reference, reason="insecure")
                url = target
                continue
            if resp.status >= 400 or resp.status < 200:
                resp.close()
                what, reason = _status_message(resp.status)
                hint = src.hint(resp.status)
                raise SourceError(f"{what} (HTTP {resp.status}{' from ' + _shown_url(url) if url != src.url else ''})"
                                  + (f": {hint}" if hint else ""), reference=src.reference, reason=reason,
                                  status=resp.status)
            self.url = url  # later blocks go straight to where the redirects led (a CDN's signed URL)
            return resp
        raise SourceError(f"more than {MAX_REDIRECTS} redirects", reference=src.reference,
                          reason="too-many-redirects")

    def _fetch_to(self, target: int) -> None:
        """Receive the bytes ``[avail, target)`` (``target`` is clamped to the size once it is known)."""
        if self._stream is not None:
            self._read_body(self._stream, target - self.avail, f"bytes {self.avail:,}-{target - 1:,}",
                            exact=True, full=True)
            return
        start = self.avail
        stop = min(target, self.size)
        headers = {"Range": f"bytes={start}-{stop - 1}", "Accept-Encoding": "identity"}
        if start > 0 and self.validator and self.validator.startswith('"'):
            headers["If-Range"] = self.validator  # a changed file answers 200 instead of mixing two versions
        resp = self._request("GET", self.url, headers)
        try:
            encoding = (resp.header("Content-Encoding") or "identity").strip().lower()
            if encoding != "identity":
                raise SourceError(f"the server sent the bytes compressed ({encoding}) although asked not to: "
                                  "gguftok reads a file's bytes as they are", reference=self.name,
                                  reason="bad-range", status=resp.status)
            if resp.status == 206:
                self._partial(resp, start, stop)
            elif resp.status == 200:
                self._full(resp, start, stop)
                return  # the response stays open: later blocks come from it
            else:
                raise SourceError(f"unexpected HTTP {resp.status} to a range request", reference=self.name,
                                  reason="http-error", status=resp.status)
        finally:
            if resp is not self._stream:
                resp.close()

    def _partial(self, resp: Response, start: int, stop: int) -> None:
        raw = resp.header("Content-Range")
        parsed = content_range(raw)
        if parsed is None:
            raise SourceError(f"the server's Content-Range {raw!r} is malformed", reference=self.name,
                              reason="bad-range", status=206)
        first, last, total = parsed
        if total is None and not self._size_known:
            raise SourceError("the server does not say the file's size (Content-Range ends with /*), which "
                              "every length in the file is checked against", reference=self.name,
                              reason="bad-range", status=206)
        if total is not None:
            if not self._size_known:
                if total >= _MAX_SIZE:
                    raise SourceError(f"the server claims a file of {total:,} bytes", reference=self.name,
                                      reason="bad-range", status=206)
                self.size, self._size_known = total, True
                self._report.size = total
            elif total != self.size:
                raise SourceError(f"the server's Content-Range {raw!r} says the file has {total:,} bytes, but it "
                                  f"has {self.size:,}" + (" (as the Hub said)" if self.src.kind == "hf" else
                                                          " (as the first answer said)"),
                                  reference=self.name, reason="bad-range", status=206)
        stop = min(stop, self.size)
        if first != start or last > stop - 1:
            raise SourceError(f"asked for bytes {start}-{stop - 1}, the server sent {first}-{last} "
                              f"(Content-Range {raw!r})", reference=self.name, reason="bad-range", status=206)
        n = last - first + 1
        length = content_length(resp.header("Content-Length"))
        if length is not None and length != n:
            raise SourceError(f"the server's Content-Length {resp.header('Content-Length')!r} disagrees with its "
                              f"Content-Range {raw!r}", reference=self.name, reason="bad-range", status=206)
        if start == 0:
            self.validator = self.validator or validator_of(resp)
        self._read_body(resp, n, f"bytes {first:,}-{last:,}", exact=True, full=False,
                        content_type=resp.header("Content-Type"))

    def _full(self, resp: Response, start: int, stop: int) -> None:
        length = content_length(resp.header("Content-Length"))
        if start > 0:
            why = ("the file changed on the server while it was read (If-Range no longer matches)"
                   if self.validator and self.validator.startswith('"') else
                   "the server answered a range request with the whole file, after answering the first with a range")
            raise SourceError(why + ": read it again", reference=self.name, reason="changed", status=200)
        size = f"{length:,} bytes" if length is not None and length >= 0 else "a size it does not say"
        if not self.options.allow_full_download:
            raise SourceError(f"the server ignores range requests: it answered with the whole file ({size}). "
                              "gguftok reads only the metadata and downloads no whole model file unless asked: "
                              "pass --allow-full-download (allow_full_download=True) to read it from its start "
                              "(the read stops where the metadata ends)", reference=self.name,
                              reason="no-range", status=200)
        if length is None or length < 0:
            raise SourceError("the server ignores range requests and does not say the file's size (no "
                              "Content-Length), which every length in the file is checked against",
                              reference=self.name, reason="no-range", status=200)
        if self._size_known and length != self.size:
            raise SourceError(f"the server's Content-Length {length:,} disagrees with the size {self.size:,}",
                              reference=self.name, reason="bad-range", status=200)
        self.size, self._size_known = length, True
        self._report.size = length
        self.validator = self.validator or validator_of(resp)
        self._report.notes.append("the server ignores Range: the full response was read from its start, "
                                  "as far as the metadata goes (allowed)")
        self._stream = resp
        self._read_body(resp, min(stop, length), f"bytes 0-{min(stop, length) - 1:,}", exact=True, full=True,
                        content_type=resp.header("Content-Type"))

    def _read_body(self, resp: Response, n: int, what: str, *, exact: bool, full: bool,
                   content_type: str | None = None) -> None:
        """Receive ``n`` bytes of ``resp`` (never more: the rest of a full response stays unread)."""
        if self._progress is None:
            self._progress = Progress(self.options.progress, f"metadata of {self.src.name}", self.name)
        parts: list[bytes] = []
        got = 0
        while got < n:
            self._remaining()
            try:
                chunk = resp.read_some(min(_CHUNK, n - got))
            except TransportTimeout as e:
                if self._timed_out(e):
                    raise self._late() from None
                raise SourceError(f"the server stopped sending: no data for {self.options.timeout:g} s (the "
                                  f"per-read timeout) after {got:,} of the {n:,} bytes of {what}; raise --timeout "
                                  "to wait longer", reference=self.name, reason="timeout") from None
            except TransportProtocolError as e:
                raise SourceError(f"the body of {what} is not valid HTTP after {got:,} of its {n:,} bytes: {e}",
                                  reference=self.name, reason="protocol") from None
            except TransportError as e:
                raise SourceError(f"the connection broke after {got:,} of the {n:,} bytes of {what} ({e}): "
                                  "try again", reference=self.name, reason="truncated") from None
            if not chunk:
                raise SourceError(f"truncated response: it ended after {got:,} of the {n:,} bytes of {what} "
                                  "(the connection was cut): try again", reference=self.name, reason="truncated")
            if len(chunk) > n - got:  # a transport that gives more than asked: keep only what was asked
                chunk = chunk[:n - got]
            parts.append(chunk)
            got += len(chunk)
            self._report.bytes_read += len(chunk)
            self._progress.update(len(chunk))
            if not self._got_gguf and self.avail == 0 and sum(map(len, parts)) >= 4:
                self._check_magic(b"".join(parts), content_type)
        self._chunks.extend(parts)
        self._buf = b"".join(self._chunks) if len(self._chunks) > 1 else self._chunks[0]
        self._chunks = [self._buf]
        self.avail = len(self._buf)

    def _check_magic(self, head: bytes, content_type: str | None) -> None:
        if head[:4] == b"GGUF":
            self._got_gguf = True
            return
        sent = f"{content_type} " if content_type else ""
        hint = ""
        if head.lstrip()[:1] == b"<" or (content_type or "").startswith("text/"):
            hint = ("; it looks like a web page: use the file's download link (on the Hub, /resolve/ rather than "
                    "/blob/, or hf://owner/repo/file.gguf)")
        raise GGUFError(f"not a GGUF file: the server sent {sent}bytes starting {head[:16]!r}{hint}",
                        source=self.name, offset=0)


def _shown_url(url: str) -> str:
    """A URL without its query (a CDN's signed URL carries a credential there)."""
    p = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit((p.scheme, p.netloc, p.path, "", ""))
