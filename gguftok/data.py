"""Fetch llama.cpp's 19 reference vocabularies, pinned and checksummed.

The vocabularies (``ggml-vocab-*.gguf``) and llama.cpp's own tokenizer test cases (``.inp`` / ``.out``) ship
in ``vendor/llama.cpp/models/`` of the llama-cpp-python 0.3.36 source distribution on PyPI. They are
third-party files, so the repository never holds them: this module downloads that sdist with pip (no
build), checks its sha256 against the value pinned below, and extracts the files into ``data/vocab/``,
checking each one against ``data/manifest.json``. The sdist is cached outside the repository, so a second
run downloads nothing.

>>> import gguftok.data as d
>>> d.SDIST_REQUIREMENT
'llama-cpp-python==0.3.36'

From the shell: ``python -m gguftok.data fetch`` (what ``make vocab`` runs), ``python -m gguftok.data
sdist-path`` (prints the checked sdist's path, downloading it if needed).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import stat
import subprocess
import sys
import tarfile
from pathlib import Path

from .errors import DataError

SDIST_REQUIREMENT = "llama-cpp-python==0.3.36"
SDIST_NAME = "llama_cpp_python-0.3.36.tar.gz"
SDIST_SHA256 = "832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e"
SDIST_MODELS = "llama_cpp_python-0.3.36/vendor/llama.cpp/models/"

REPO_DATA = Path(__file__).resolve().parent.parent / "data"
MANIFEST = REPO_DATA / "manifest.json"


def cache_dir() -> Path:
    """Where the sdist is kept between runs: ``$GGUFTOK_CACHE``, else ``~/.cache/gguftok``."""
    env = os.environ.get("GGUFTOK_CACHE")
    if env:
        return Path(env)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "gguftok"


def vocab_dir() -> Path:
    """Where the vocabularies are extracted: ``$GGUFTOK_VOCAB_DIR``, else ``data/vocab`` of the repository."""
    env = os.environ.get("GGUFTOK_VOCAB_DIR")
    return Path(env) if env else REPO_DATA / "vocab"


def load_manifest(path: Path = MANIFEST) -> dict[str, dict[str, object]]:
    """The committed list of vocabulary files: ``{name: {"size": int, "sha256": str}}``."""
    try:
        with open(path, encoding="utf-8") as f:
            manifest = json.load(f)
    except FileNotFoundError:
        raise DataError(f"the manifest {path} is missing; run gguftok from a checkout of the repository") from None
    return manifest["files"]


def sha256_of(path: Path) -> str:
    """The file's sha256; a path that is no regular file (a FIFO would block, a device never end) is refused."""
    if not stat.S_ISREG(os.stat(path).st_mode):
        raise DataError(f"{path} is not a regular file: remove it, and run the fetch again")
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def sdist_path(log=print) -> Path:
    """The pinned sdist in the cache, downloaded with pip if absent; its sha256 is always checked."""
    cache = cache_dir()
    path = cache / SDIST_NAME
    if not path.exists():
        cache.mkdir(parents=True, exist_ok=True)
        log(f"downloading {SDIST_REQUIREMENT} (source distribution, about 77 MB) into {cache} ...")
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
               "--disable-pip-version-check", "--dest", str(cache), SDIST_REQUIREMENT]
        proc = subprocess.run(cmd, stdout=sys.stderr, stderr=subprocess.PIPE, text=True)
        if proc.returncode != 0 or not path.exists():
            tail = "\n".join(proc.stderr.strip().splitlines()[-5:])
            raise DataError(f"could not download {SDIST_REQUIREMENT} with pip (is PyPI reachable?):\n{tail}")
    digest = sha256_of(path)
    if digest != SDIST_SHA256:
        path.unlink()
        raise DataError(f"{path} has sha256 {digest}, but {SDIST_REQUIREMENT} is pinned to {SDIST_SHA256}; "
                        "the file was removed, run the fetch again to download it anew")
    return path


def missing_or_wrong(dest: Path, manifest: dict[str, dict[str, object]], deep: bool = True) -> list[str]:
    """The manifest's files that are absent from ``dest`` or differ (size, and sha256 if ``deep``)."""
    bad = []
    for name, info in manifest.items():
        p = dest / name
        if not p.is_file() or p.stat().st_size != info["size"] or (deep and sha256_of(p) != info["sha256"]):
            bad.append(name)
    return bad


def fetch(dest: Path | None = None, log=print) -> Path:
    """Make ``dest`` (default :func:`vocab_dir`) hold every file of the manifest, verified; return it."""
    dest = vocab_dir() if dest is None else Path(dest)
    manifest = load_manifest()
    todo = missing_or_wrong(dest, manifest)
    if not todo:
        log(f"vocabularies: all {len(manifest)} files in {dest} match the manifest")
        return dest
    sdist = sdist_path(log)
    dest.mkdir(parents=True, exist_ok=True)
    wanted = {SDIST_MODELS + name: name for name in todo}
    with tarfile.open(sdist, "r:gz") as tar:
        for member in tar:
            name = wanted.pop(member.name, None)
            if name is None or not member.isfile():
                continue
            data = tar.extractfile(member).read()  # at most a few MB each: sizes are in the manifest
            info = manifest[name]
            digest = hashlib.sha256(data).hexdigest()
            if len(data) != info["size"] or digest != info["sha256"]:
                raise DataError(f"{name} in {sdist} has {len(data)} bytes and sha256 {digest}; "
                                f"the manifest expects {info['size']} bytes and {info['sha256']}")
            tmp = dest / (name + ".part")
            tmp.write_bytes(data)
            tmp.replace(dest / name)
            log(f"  {name:40s} {len(data):>10,d} bytes  ok")
    if wanted:
        raise DataError(f"{sdist} lacks {sorted(wanted.values())}, which the manifest lists")
    log(f"vocabularies: {len(todo)} files extracted into {dest}, all {len(manifest)} verified")
    return dest


def write_manifest(path: Path = MANIFEST) -> None:
    """Maintainers only: list the sdist's vocabulary files with their sizes and sha256 in ``path``."""
    files = {}
    with tarfile.open(sdist_path(), "r:gz") as tar:
        for member in tar:
            name = member.name.removeprefix(SDIST_MODELS)
            if member.isfile() and member.name.startswith(SDIST_MODELS) and name.startswith("ggml-vocab-"):
                data = tar.extractfile(member).read()
                files[name] = {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    doc = {"source": SDIST_REQUIREMENT, "sdist": SDIST_NAME, "sdist_sha256": SDIST_SHA256,
           "files": dict(sorted(files.items()))}
    path.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")


# The course's own data (committed, unlike the vocabularies): what the notebooks and the checks read besides the
# vocabularies, listed with sizes and sha256 in data/course.json, so that `gguftok doctor` can name a missing one.
COURSE_FOLDERS = ("corpus", "synthetic", "golden")


def course_manifest_path() -> Path:
    return REPO_DATA / "course.json"


def course_files_on_disk(root: Path | None = None) -> dict[str, dict[str, object]]:
    """``{folder/name: {"size", "sha256"}}`` of every file of :data:`COURSE_FOLDERS` under ``root`` (default
    ``data/``), their READMEs left out."""
    root = REPO_DATA if root is None else root
    files = {}
    for folder in COURSE_FOLDERS:
        for p in sorted((root / folder).glob("*")):
            if p.is_file() and p.name != "README.md":
                files[f"{folder}/{p.name}"] = {"size": p.stat().st_size, "sha256": sha256_of(p)}
    return files


def load_course_manifest() -> dict[str, dict[str, object]]:
    """The committed list of the course's data files (see :data:`COURSE_FOLDERS`)."""
    return load_manifest(course_manifest_path())


def write_course_manifest() -> None:
    """Maintainers: list the files of :data:`COURSE_FOLDERS` in ``data/course.json`` (after ``make golden``)."""
    doc = {"files": course_files_on_disk()}
    course_manifest_path().write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gguftok.data", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p_fetch = sub.add_parser("fetch", help="download (once), verify and extract the vocabularies")
    p_fetch.add_argument("--dest", type=Path, default=None, help="target folder (default: data/vocab)")
    sub.add_parser("sdist-path", help="print the path of the verified sdist, downloading it if needed")
    sub.add_parser("write-manifest", help="maintainers: regenerate data/manifest.json from the sdist")
    sub.add_parser("write-course-manifest", help="maintainers: regenerate data/course.json from data/")
    args = parser.parse_args(argv)
    try:
        if args.command == "fetch":
            fetch(args.dest)
        elif args.command == "sdist-path":
            print(sdist_path(log=lambda msg: print(msg, file=sys.stderr)))
        elif args.command == "write-manifest":
            write_manifest()
        else:
            write_course_manifest()
    except DataError as e:
        print(f"gguftok.data: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
