"""A GGUF file on the Hugging Face Hub, ``hf://owner/repo/file.gguf[@revision]``, read without downloading it.

>>> src = HubSource("hf://Qwen/Qwen2.5-0.5B-Instruct-GGUF/qwen2.5-0.5b-instruct-q4_k_m.gguf@main", Options())
>>> src.repo_id, src.path, src.revision, src.repo_type
('Qwen/Qwen2.5-0.5B-Instruct-GGUF', 'qwen2.5-0.5b-instruct-q4_k_m.gguf', 'main', None)

The revision (a branch, a tag or a commit) goes after the file or, as in ``huggingface_hub``'s file system,
after the repository: ``hf://owner/repo@v1.0/file.gguf``; a revision holding ``/`` is written with ``%2F``
(``refs%2Fpr%2F3``). ``hf://datasets/owner/repo/...`` and ``hf://spaces/...`` name other kinds of repository.

``huggingface_hub`` (the ``hub`` extra: ``pip install 'gguftok[hub]'``) resolves the file, as its own
downloads do: its endpoint (``HF_ENDPOINT``), its token (``HF_TOKEN``, or the one ``hf auth login`` keeps),
its HTTP session (proxies, certificates, ``set_client_factory``) and its ``HEAD`` of
``{endpoint}/{repo}/resolve/{revision}/{file}``, which gives the commit, the file's size and its sha256
(``X-Linked-Etag``) and, for a large file, the CDN address it redirects to. The metadata is then read from
there with range requests by :mod:`gguftok.sources.http`'s own transport (the environment's proxies and
certificates, ``SSL_CERT_FILE``), so that ``timeout`` and ``deadline`` hold over every byte of the exchange
however the CDN spreads them (a session's read time-out restarts on each byte); the token goes only to the
Hub itself, never to the CDN.

The bytes read are kept in the cache under the file's sha256 as the endpoint claimed it, so a second load asks
the Hub only for the ``HEAD``; a reference at a commit (40 hex digits) never changes and is read from the cache
without asking. Every key names the endpoint (:func:`gguftok.sources.cache.content_key` and the others): the
sha256 is the endpoint's word, which the bytes cannot be checked against (the file's start alone is read), so
a hit trusts that endpoint's claim for the bytes read then, and a mirror at ``HF_ENDPOINT`` never serves (nor
is served) what another endpoint's claim kept.
"""

from __future__ import annotations

import inspect
import os
import re
import urllib.parse
from typing import Any

from ..errors import SourceError
from .base import Options, Source
from .cache import MetadataCache, commit_key, content_key, hub_reference_key
from .http import (
    HttpSource,
    RangeReader,
    _proxy_for,
    lookup,
    origin,
)

__all__ = ["HubSource", "parse_hf_reference"]

_REPO_TYPES = {"datasets": "dataset", "spaces": "space"}
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,95}")
_COMMIT = re.compile(r"[0-9a-f]{40}")
_USAGE = "expected hf://owner/repo/path/file.gguf, optionally with @revision after the file or the repository"


def parse_hf_reference(ref: str) -> tuple[str | None, str, str, str | None]:
    """``(repo_type, repo_id, path in the repository, revision or None)`` of an ``hf://`` reference.

    >>> parse_hf_reference("hf://datasets/me/data@refs%2Fpr%2F3/dir/m.gguf")
    ('dataset', 'me/data', 'dir/m.gguf', 'refs/pr/3')
    >>> parse_hf_reference("hf://me/models/m.gguf@0123456789abcdef0123456789abcdef01234567")[3]
    '0123456789abcdef0123456789abcdef01234567'
    """
    if not ref.startswith("hf://"):
        raise SourceError(_USAGE, reference=ref, reason="bad-reference")
    parts = ref[len("hf://"):].split("/")
    repo_type = None
    if parts and parts[0] in _REPO_TYPES:
        repo_type = _REPO_TYPES[parts.pop(0)]
    revision = None
    if len(parts) >= 2 and "@" in parts[1]:
        parts[1], revision = parts[1].split("@", 1)
    elif parts and "@" in parts[-1]:
        parts[-1], revision = parts[-1].rsplit("@", 1)
    if len(parts) < 3 or not all(parts) or revision == "":
        raise SourceError(_USAGE, reference=ref, reason="bad-reference")
    owner, name, path = parts[0], parts[1], parts[2:]
    if not (_NAME.fullmatch(owner) and _NAME.fullmatch(name)) or any(p in (".", "..") for p in path):
        raise SourceError(f"{owner}/{name}/{'/'.join(path)} is not a repository and a file in it: {_USAGE}",
                          reference=ref, reason="bad-reference")
    if revision is not None:
        revision = urllib.parse.unquote(revision)
    return repo_type, f"{owner}/{name}", "/".join(path), revision


def _hub() -> Any:
    try:
        import huggingface_hub
        import huggingface_hub.constants
        import huggingface_hub.utils  # (its submodules load lazily)
    except ImportError:
        raise SourceError("reading from the Hugging Face Hub needs huggingface_hub: pip install 'gguftok[hub]' "
                          "(or pip install huggingface_hub)", reason="missing-extra") from None
    return huggingface_hub


class HubSource(Source):
    """A file of a Hub repository (see the module's docstring)."""

    kind = "hf"

    def __init__(self, reference: str, options: Options) -> None:
        super().__init__(reference, options)
        self.repo_type, self.repo_id, self.path, self.revision = parse_hf_reference(reference)

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1]

    def endpoint(self) -> str:
        """``$HF_ENDPOINT`` as it is now (``huggingface_hub`` reads it once, when imported), else its default."""
        hf = _hub()
        return (os.environ.get("HF_ENDPOINT") or hf.constants.ENDPOINT).rstrip("/")

    def open(self) -> RangeReader:
        hf = _hub()
        opts = self.options
        endpoint = self.endpoint()
        revision = self.revision or "main"
        url = hf.hf_hub_url(self.repo_id, self.path, repo_type=self.repo_type, revision=revision, endpoint=endpoint)
        at_commit = ([commit_key(endpoint, self.repo_type, self.repo_id, revision, self.path)]
                     if _COMMIT.fullmatch(revision) else [])
        last_read = [hub_reference_key(endpoint, self.repo_type, self.repo_id, revision, self.path)]
        offline = opts.is_offline("HF_HUB_OFFLINE") or bool(getattr(hf.constants, "HF_HUB_OFFLINE", False))
        notes = [f"{self.repo_id} at {revision} on {endpoint}"]
        if opts.cache and (at_commit or offline):
            kept = MetadataCache().get(*at_commit, *(last_read if offline else []))
            if kept is not None:  # a commit never changes; offline, the last read is what there is
                if offline and not at_commit:
                    notes.append("offline: the copy kept at the last read")
                inner = HttpSource(kept.location or url, opts, reference=self.reference, kind="hf",
                                   content_keys=[kept.key], store_keys=[], validate=False, notes=notes)
                return RangeReader(inner, owner=self)
        if offline:
            raise SourceError("offline (HF_HUB_OFFLINE, GGUFTOK_OFFLINE or --offline), and gguftok's cache holds no "
                              "copy of this file's metadata: read it once with the network on",
                              reference=self.reference, reason="offline")
        meta = self._resolve(hf, url, endpoint, revision)
        etag = (meta.etag or "").strip('"') or None
        commit = getattr(meta, "commit_hash", None)
        if commit and commit != revision:
            notes.append(f"revision {revision} is commit {commit}")
        content = [content_key(endpoint, etag)] if etag else []  # the endpoint's claim: scoped to it
        at_resolved = [commit_key(endpoint, self.repo_type, self.repo_id, commit, self.path)] if commit else []
        store = content + at_resolved + at_commit + last_read
        headers = hf.utils.build_hf_headers(library_name="gguftok", library_version=_version())
        headers["Accept-Encoding"] = "identity"
        inner = HttpSource(meta.location or url, opts, reference=self.reference, kind="hf", headers=headers,
                           credentials_origin=endpoint,
                           size=meta.size, content_keys=content, store_keys=store, offline_keys=last_read,
                           validate=False, hint=lambda status: _login_hint(status, endpoint, self.repo_id),
                           notes=notes, offline=False)
        reader = RangeReader(inner, owner=self)
        reader._report.requests += 1  # the HEAD that resolved the file
        return reader

    def _resolve(self, hf: Any, url: str, endpoint: str, revision: str) -> Any:
        """``huggingface_hub.get_hf_file_metadata`` of the file, its errors made :class:`SourceError`."""
        errors = getattr(hf, "errors", hf.utils)
        kwargs: dict[str, Any] = {"timeout": self.options.timeout}
        if "endpoint" in inspect.signature(hf.get_hf_file_metadata).parameters:
            kwargs["endpoint"] = endpoint
        repo = f"{self.repo_id}" + (f" ({self.repo_type})" if self.repo_type else "")
        login = ("log in with `hf auth login` (formerly `huggingface-cli login`) or set HF_TOKEN to a token "
                 "that may read it")

        def fail(message: str, reason: str, status: int | None = None) -> SourceError:
            return SourceError(message, reference=self.reference, reason=reason, status=status)

        def caught(*names: str) -> tuple[type[BaseException], ...]:
            return tuple(c for c in (getattr(errors, n, None) for n in names) if isinstance(c, type))

        host, port = urllib.parse.urlsplit(endpoint).hostname, urllib.parse.urlsplit(endpoint).port
        if host and not _proxied(endpoint):  # the session's time-out starts after the name lookup: bound it too
            try:
                lookup(host, port or 443, self.options.timeout)
            except TimeoutError:
                raise fail(f"no answer from {endpoint} within {self.options.timeout:g} s (the per-read timeout: "
                           "looking its name up): raise --timeout to wait longer, or check the network",
                           "timeout") from None
            except OSError as e:
                raise fail(f"cannot reach {endpoint}: {e} (is the network on? HF_ENDPOINT names the Hub or a "
                           "mirror)", "unreachable") from None
        try:
            return hf.get_hf_file_metadata(url, **kwargs)
        except caught("GatedRepoError") as e:
            raise fail(f"{repo} is a gated repository: accept its conditions on {endpoint}/{self.repo_id}, then "
                       f"{login}", "forbidden", _status(e)) from None
        except caught("RevisionNotFoundError") as e:
            raise fail(f"{repo} has no revision {revision!r}: use a branch, a tag or a commit of it",
                       "not-found", _status(e)) from None
        except caught("RemoteEntryNotFoundError", "EntryNotFoundError") as e:
            raise fail(f"{repo} has no file {self.path!r} at revision {revision!r}: check the path (the files are "
                       f"listed on {endpoint}/{self.repo_id}/tree/{urllib.parse.quote(revision, safe='')})",
                       "not-found", _status(e)) from None
        except caught("RepositoryNotFoundError") as e:
            raise fail(f"no repository {repo} on {endpoint}, or it is private and this request is not logged in: "
                       f"check the name, or {login}", "not-found", _status(e)) from None
        except caught("DisabledRepoError") as e:
            raise fail(f"access to {repo} is disabled on the Hub", "forbidden", _status(e)) from None
        except caught("OfflineModeIsEnabled"):
            raise fail("HF_HUB_OFFLINE is set and gguftok's cache holds no copy of this file's metadata: unset it "
                       "to read the file once", "offline") from None
        except caught("HfHubHTTPError") as e:
            status = _status(e)
            hint = _login_hint(status or 0, endpoint, self.repo_id)
            raise fail(f"the Hub answered HTTP {status}" + (f": {hint}" if hint else ""),
                       "forbidden" if status in (401, 403) else "http-error", status) from None
        except Exception as e:  # the session's own errors: httpx2's, or requests' with huggingface_hub 0.x
            name = type(e).__name__
            if "Timeout" in name or isinstance(e, TimeoutError):
                raise fail(f"no answer from {endpoint} within {self.options.timeout:g} s (the per-read timeout): "
                           "raise --timeout to wait longer, or check the network", "timeout") from None
            if isinstance(e, OSError) or any(k in name for k in ("Connect", "Network", "Protocol", "Transport",
                                                                 "Proxy", "SSL")):
                raise fail(f"cannot reach {endpoint}: {e} (is the network on? HF_ENDPOINT names the Hub or a "
                           "mirror)", "unreachable") from None
            raise


def _proxied(url: str) -> bool:
    scheme, host, _ = origin(url)
    return _proxy_for(scheme, host)


def _version() -> str:
    from ..version import __version__

    return __version__


def _status(e: BaseException) -> int | None:
    response = getattr(e, "response", None)
    return getattr(response, "status_code", None)


def _login_hint(status: int, endpoint: str, repo_id: str) -> str:
    if status in (401, 403):
        return ("no permission: log in with `hf auth login` (formerly `huggingface-cli login`) or set HF_TOKEN; "
                f"a gated model also needs its conditions accepted on {endpoint}/{repo_id}")
    if status in (404, 410):
        return "the file is gone from where the Hub sent us: try again (the Hub's address may have expired)"
    return ""


