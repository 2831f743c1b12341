#!/usr/bin/env python3
"""Time to the first row on screen: a command started in a fresh tmux pane of 160x48, the pane
read back as fast as tmux answers until MARKER shows. Prints one time in seconds per run.

usage: first_frame.py RUNS MARKER COMMAND...

The time includes tmux starting its server and the pane (the harness floor: measure it with a
command that prints MARKER at once, e.g. `cat FILE`); resolution is one capture-pane call (a few
milliseconds). Each run starts once the last one's tmux server and pane processes have exited."""

import os
import subprocess
import sys
import time


def once(run: int, marker: str, command: list[str]) -> float:
    # A server of its own each run: a new session on a server being killed fails.
    socket = f"perftriage-bench-{os.getpid()}-{run}"
    tmux = ["tmux", "-L", socket]
    # `sleep` keeps the pane (and what it drew) after a command that exits at once.
    shell = " ".join(f"'{word}'" for word in command) + "; sleep 30"
    started = time.perf_counter()
    subprocess.run(tmux + ["new-session", "-d", "-x", "160", "-y", "48", shell], check=True)
    try:
        while True:
            screen = subprocess.run(tmux + ["capture-pane", "-p"], capture_output=True, text=True).stdout
            if marker in screen:
                return time.perf_counter() - started
            if time.perf_counter() - started > 60:
                raise SystemExit(f"no {marker!r} on the screen after 60 s:\n{screen}")
    finally:
        # Found after the clock stopped: asking tmux takes a few milliseconds.
        asked = subprocess.run(tmux + ["display", "-p", "#{pid} #{pane_pid}"], capture_output=True, text=True)
        server, pane = (asked.stdout.split() + ["", ""])[:2]
        processes = [int(server)] + tree(int(pane)) if pane else []
        subprocess.run(tmux + ["kill-server"], capture_output=True)
        gone(processes)


def tree(pid: int) -> list[int]:
    """`pid` and its descendants, as /proc has them now."""
    children = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
    return [pid] + [p for child in children for p in tree(int(child))]


def gone(pids: list[int]) -> None:
    """Until each of `pids` has exited (at most 10 s): the next run starts on a machine the last
    one has left, as the floor's `cat` does (a board takes some 10 ms to exit after the hang-up)."""
    deadline = time.perf_counter() + 10
    while any(os.path.exists(f"/proc/{pid}") for pid in pids) and time.perf_counter() < deadline:
        time.sleep(0.001)


def main() -> None:
    runs, marker, command = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    for run in range(runs):
        print(f"{once(run, marker, command):.4f}", flush=True)


if __name__ == "__main__":
    main()
