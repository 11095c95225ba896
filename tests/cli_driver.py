"""Many ``gguftok`` command lines in one child process: :func:`run_many`.

A child ``python -m gguftok`` spends most of its time (0.2 to 0.3 s of CPU) starting the interpreter
and importing gguftok before it looks at its arguments, so a test of how a command line is parsed, checked
or refused pays that once per case. :func:`run_many` starts one child for a list of cases, which calls
:func:`gguftok.cli.main` for each as ``python -m gguftok`` does (``sys.exit(main())``: an exit status, the
message of a string :class:`SystemExit`, the traceback of an exception that escapes), each case with
standard output and error of its own (text streams of the child's own encodings, errors and buffering, on
bytes) and an empty standard input; it answers a :class:`subprocess.CompletedProcess` per case, so the
checks of a case are the checks of its own run.

The child is a real process of the caller's choosing (``preexec_fn``: a memory limit) under one timeout for
all the cases, so a case that would read ``/dev/zero`` whole or wait on a FIFO still fails the test instead
of filling the memory or hanging. It is for cases whose check is the exit status and the output only: what
is about the process itself (its standard input, a deadline, a signal, the exit of the real entry point)
runs ``python -m gguftok`` of its own.
"""

from __future__ import annotations

import base64
import io
import json
import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def run_many(cases: Sequence[Sequence[str]], *, timeout: float = 60,
             preexec_fn: Callable[[], None] | None = None) -> list[subprocess.CompletedProcess]:
    """``gguftok ARGV`` for each ARGV of ``cases``, in one child process (in the repository, as
    ``python -m gguftok`` is run there): the exit status, stdout and stderr (bytes) of each."""
    cases = [[str(a) for a in argv] for argv in cases]
    child = subprocess.run([sys.executable, str(Path(__file__).resolve())], input=json.dumps(cases).encode(),
                           capture_output=True, cwd=REPO, timeout=timeout, preexec_fn=preexec_fn)
    if child.returncode != 0:
        raise RuntimeError(f"the driver of {len(cases)} gguftok command lines failed (exit status "
                           f"{child.returncode}): {child.stderr.decode('utf-8', 'replace')[-2000:]}")
    answers = json.loads(child.stdout)
    assert len(answers) == len(cases), (len(answers), len(cases))
    return [subprocess.CompletedProcess(["gguftok", *argv], a["status"], base64.b64decode(a["stdout"]),
                                        base64.b64decode(a["stderr"])) for argv, a in zip(cases, answers, strict=True)]


def _stream_like(real: io.TextIOWrapper) -> io.TextIOWrapper:
    """A text stream on bytes that encodes, and buffers, as the process's own ``real`` one does."""
    return io.TextIOWrapper(io.BytesIO(), encoding=real.encoding, errors=real.errors,
                            line_buffering=real.line_buffering, write_through=real.write_through)


def _exit_status(main: Callable[[list[str]], int], argv: list[str]) -> int:
    """What ``sys.exit(main(argv))`` leaves as the exit status of a process, with what the interpreter would
    print on its standard error: the message of a non-integer SystemExit, the traceback of an exception."""
    import traceback

    try:
        code = main(argv)
    except SystemExit as e:
        code = e.code
    except BaseException:  # the interpreter prints it and exits with 1
        traceback.print_exc()
        return 1
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def _serve() -> None:
    """The child: the cases (a JSON list of argument lists) on standard input, the answers on standard output."""
    sys.path[0] = os.getcwd()  # as ``python -m gguftok`` in the repository: its own gguftok, first
    cases = json.loads(sys.stdin.buffer.read())
    from gguftok.cli import main

    real_in, real_out, real_err = sys.stdin, sys.stdout, sys.stderr
    answers = []
    for argv in cases:
        out, err = _stream_like(real_out), _stream_like(real_err)
        sys.stdin = io.TextIOWrapper(io.BytesIO(), encoding=real_in.encoding, errors=real_in.errors)
        sys.stdout, sys.stderr = out, err
        try:
            status = _exit_status(main, argv)
            out.flush()
            err.flush()
        finally:
            sys.stdin, sys.stdout, sys.stderr = real_in, real_out, real_err
        answers.append({"status": status, "stdout": base64.b64encode(out.buffer.getvalue()).decode(),
                        "stderr": base64.b64encode(err.buffer.getvalue()).decode()})
    real_out.buffer.write(json.dumps(answers).encode())
    real_out.buffer.flush()


if __name__ == "__main__":
    _serve()
