"""Building a large fabric as a user sees it: the build's stages on a terminal
(and nowhere else), and Ctrl-C in the middle of a build stopping it at once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from conftest import default_sigint_in_children, spawn_cli

# The 8-ary 4-tree (4,096 HCAs) builds in about a second; the 32-ary 3-tree
# (32,768 HCAs, 3,072 switches) in 14 s, most of it checking its channel
# dependencies, which took 7.7 s to notice a Ctrl-C.
TREE_4096 = '[ib.topology]\nkind = "fat_tree"\narity = 8\nlevels = 4\n[ib.routing]\nalgorithm = "ftree"\n'
TREE_32768 = '[ib.topology]\nkind = "fat_tree"\narity = 32\nlevels = 3\n[ib.routing]\nalgorithm = "ftree"\n'
SHORT = ["--set", "run.max_observations=2000", "--set", "run.warmup_observations=100",
         "--set", "run.min_observations=0"]


def test_a_build_shows_its_stages_on_a_terminal_and_nowhere_else(tmp_path):
    tree = tmp_path / "tree.toml"
    tree.write_text(TREE_4096)
    argv = [sys.executable, "-m", "fabricsim", "run", str(tree), *SHORT]
    # stderr a terminal: the stages, each overwriting the line before.
    leader, follower = os.openpty()
    with default_sigint_in_children():
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=follower)
    os.close(follower)
    seen = b""
    while True:
        try:
            chunk = os.read(leader, 1 << 16)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        seen += chunk
    os.close(leader)
    stdout, _ = proc.communicate(timeout=120)
    assert proc.returncode == 0, seen
    text = seen.decode()
    for stage in ("building: forwarding tables", "building: a cycle of channel dependencies", "building: switches"):
        assert stage in text, text
    assert b"building" not in stdout
    # stderr a pipe (a script, a test's capture): nothing of the build.
    piped = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert piped.returncode == 0, piped.stderr
    assert "building" not in piped.stderr and "building" not in piped.stdout


def test_ctrl_c_during_a_large_build_stops_it_within_a_second(tmp_path):
    tree = tmp_path / "tree.toml"
    tree.write_text(TREE_32768)
    proc = spawn_cli("run", str(tree), "--set", "run.memory_budget_mb=4096")
    time.sleep(2.5)  # the interpreter is up, and the build seconds from its end
    assert proc.poll() is None, proc.communicate()
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=60)
    took = time.monotonic() - sent
    _, stderr = proc.communicate()
    assert proc.returncode == 130, stderr
    assert took < 1.0, f"{took:.2f} s after Ctrl-C"
    assert "Traceback" not in stderr

