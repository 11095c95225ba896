"""Issue 20, item 8: a render process never outlives its parent, nor burns the CPU past a render's time limit
when its parent cannot stop it; and the render processes a process keeps (a pool, and a spare started when a
render runs late) serve threads at once and replace a stopped child without a wait.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import pytest
from conftest import REPO

from gguftok import ChatTemplateError
from gguftok.chat import ChatTemplate
from gguftok.chat import worker as render_process

pytestmark = pytest.mark.skipif(not render_process.available() or not sys.platform.startswith("linux"),
                                reason="render processes, and /proc, on Linux")

# A parent that starts its render process, writes the child's pid, then renders the urlize (16 s of one
# C-level call in the child) with the time limit given
PARENT = """
import glob, sys
from gguftok.chat import ChatTemplate
ChatTemplate("{{ 1 }}").render([])
(pid,) = [p for f in glob.glob("/proc/self/task/*/children") for p in open(f).read().split()]
open(sys.argv[1] + ".tmp", "w").write(str(pid))
import os; os.replace(sys.argv[1] + ".tmp", sys.argv[1])
ChatTemplate("{{ ('x ' * 1999999) | urlize | length }}", timeout=float(sys.argv[2])).render([])
"""


def state(pid: int) -> str | None:
    """The process's state letter (R, S, Z...), or None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return None


def alive(pid: int) -> bool:
    return state(pid) not in (None, "Z", "X")


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def started_at(pid: int) -> float:
    """When the process started, in seconds since boot (CLOCK_BOOTTIME)."""
    with open(f"/proc/{pid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[19]) / os.sysconf("SC_CLK_TCK")


def start_parent(tmp_path, timeout: float) -> tuple[subprocess.Popen, int]:
    pidfile = tmp_path / "child.pid"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    parent = subprocess.Popen([sys.executable, "-c", PARENT, str(pidfile), str(timeout)], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not pidfile.exists():
        assert parent.poll() is None and time.monotonic() < deadline, "the parent did not start its child"
        time.sleep(0.05)
    child = int(pidfile.read_text())
    while cpu_seconds(child) < 0.3:  # the child is inside the long render
        assert alive(child) and time.monotonic() < deadline
        time.sleep(0.05)
    return parent, child


def wait_gone(pid: int, seconds: float) -> float | None:
    """Seconds until ``pid`` is gone (or a zombie), or None if it still runs after ``seconds``."""
    start = time.monotonic()
    while time.monotonic() - start < seconds:
        if not alive(pid):
            return time.monotonic() - start
        time.sleep(0.02)
    return None


def test_the_child_dies_with_its_parent_even_inside_one_long_call(tmp_path):
    """Was: after kill -9 of the parent, the child went on with urlize for 28.5 s."""
    parent, child = start_parent(tmp_path, timeout=60)
    try:
        parent.kill()
        parent.wait()
        took = wait_gone(child, 2.0)
        assert took is not None, f"the render process {child} still runs 2 s after its parent was killed"
    finally:
        if alive(child):
            os.kill(child, signal.SIGKILL)


def test_the_kernel_stops_a_render_past_its_cpu_budget_when_the_parent_cannot(tmp_path):
    """The parent is stopped (SIGSTOP), so it cannot kill its child on time: the CPU limit of the render
    (time limit + GRACE + CPU_MARGIN, in CPU seconds) does."""
    timeout = 0.2
    parent, child = start_parent(tmp_path, timeout=timeout)
    try:
        parent.send_signal(signal.SIGSTOP)
        budget = timeout + render_process.GRACE + getattr(render_process, "CPU_MARGIN", 1.0)
        start = time.monotonic()
        while alive(child) and time.monotonic() - start < 30:
            used = cpu_seconds(child)
            time.sleep(0.05)
        assert not alive(child), f"the render process still runs after {used:.1f} s of CPU"
        assert used <= budget + 1.5, used  # rounded up to a whole second, and the last tick
    finally:
        parent.kill()
        parent.wait()
        if alive(child):
            os.kill(child, signal.SIGKILL)


def test_a_child_started_from_a_thread_outlives_the_thread():
    """The parent-death signal is tied to the thread that started the child: children are started from a
    thread that lives as long as the process, so a request's thread ending kills nothing."""
    pool = render_process.RenderPool(1)
    try:
        out = []
        t = threading.Thread(target=lambda: out.append(pool.render(
            ChatTemplate("{{ 7 }}")._compiled, {}, timeout=5, max_chars=10**7, max_memory=1 << 26, runs=None)))
        t.start()
        t.join()
        assert out == [("7", None)]
        (pid,) = pool.pids()
        time.sleep(0.3)
        assert alive(pid)
        assert pool.render(ChatTemplate("{{ 8 }}")._compiled, {}, timeout=5, max_chars=10**7, max_memory=1 << 26,
                           runs=None) == ("8", None) and pool.pids() == [pid]
    finally:
        pool.stop()


def test_threads_render_in_several_processes_at_once():
    pool = render_process.RenderPool(3)
    compiled = ChatTemplate("{% for i in range(20000) %}{% endfor %}{{ messages | length }}")._compiled
    try:
        results = []

        def work():
            for _ in range(3):
                results.append(pool.render(compiled, {"messages": [1, 2]}, timeout=10, max_chars=10**7,
                                           max_memory=1 << 26, runs=None)[0])

        threads = [threading.Thread(target=work) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert results == ["2"] * 9
        assert 1 <= len(pool.pids()) <= 3
    finally:
        pool.stop()


def test_a_stopped_render_is_replaced_by_a_spare_already_running():
    """The spare starts when the render passes its time limit, during GRACE: the next render does not wait for a
    process to start."""
    pool = render_process.RenderPool(1)
    slow = ChatTemplate("{{ ('x ' * 1999999) | urlize | length }}", "slow", timeout=0.3)
    fast = ChatTemplate("{{ 1 }}")._compiled
    limits = {"timeout": 5, "max_chars": 10**7, "max_memory": 1 << 26, "runs": None}
    try:
        pool.render(fast, {}, **limits)
        (first,) = pool.pids()
        with pytest.raises(ChatTemplateError, match="time limit"):
            pool.render(slow._compiled, {}, timeout=0.3, max_chars=10**7, max_memory=1 << 28, runs=None)
        stopped = time.clock_gettime(time.CLOCK_BOOTTIME)
        assert pool.render(fast, {}, **limits) == ("1", None)
        (second,) = pool.pids()
        assert second != first and not alive(first)
        assert started_at(second) < stopped  # it was up before the slow render was stopped
    finally:
        pool.stop()
