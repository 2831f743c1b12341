#!/usr/bin/env python3
"""Time to the first row on screen: a command started in a fresh tmux pane of 160x48, the pane
read back as fast as tmux answers until MARKER shows. Prints one time in seconds per run.

usage: first_frame.py RUNS MARKER COMMAND...

The time includes tmux starting its server and the pane (the harness floor: measure it with a
command that prints MARKER at once, e.g. `cat FILE`); resolution is one capture-pane call (a few
milliseconds)."""

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
        subprocess.run(tmux + ["kill-server"], capture_output=True)


def main() -> None:
    runs, marker, command = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    for run in range(runs):
        print(f"{once(run, marker, command):.4f}", flush=True)


if __name__ == "__main__":
    main()
