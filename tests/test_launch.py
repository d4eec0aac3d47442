"""``uopc_launch``: the console script's supervisor stops what a signal handler cannot, and start-up is quiet.

Every command here runs as the console script does (``python -m uopc`` goes through the same
``uopc_launch.main``), in a subprocess; assertions are on exit codes, on what the command said,
and on the command's own clock against generous margins, never on the suite's time.
"""
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import uopc_launch

ROOT = Path(__file__).resolve().parent.parent
FIVE = ROOT / "examples" / "five_params.uir"
SLACK = 10.0   # seconds a loaded machine may add to the supervisor's HARD
RULES = """\
import ctypes, os, subprocess, sys, threading, time
from uopc import Ops, PatternMatcher, UPat
def started():
  path = os.environ.get("UOPC_TEST_STARTED")
  if path and not os.path.exists(path): open(path, "w").close()
def in_c(x):                       # one C call that holds the GIL: no handler runs until it returns
  started()
  sum(range(10 ** 12))
def catch_all(x):                  # a retry loop that swallows every exception, BoundHit too
  started()
  while True:
    try:
      while True: pass
    except BaseException: pass
def thread(x):                     # a thread that never ends: the interpreter would wait for it at exit
  threading.Thread(target=lambda: time.sleep(3600)).start()
  return None
def big_child(x):                  # a child process holding 600 MB, which the command's own RSS does not show
  started()
  subprocess.Popen([sys.executable, "-c", "import os, time; p = os.getppid(); b = bytearray(600 << 20); b[::4096] = b'x' * len(b[::4096]); "
                    "[time.sleep(0.1) for _ in iter(lambda: os.getppid() == p, False)]"])   # it ends with the command
  time.sleep(60)
def orphan(x):                     # a process a rule starts and never waits for: it would outlive the command
  child = subprocess.Popen(["sleep", "600"])
  with open(os.environ["UOPC_TEST_CHILD"], "w") as f: f.write(str(child.pid))
  return None
def spike(x):                      # 1 GB taken and given back inside one bytecode, then a wait a tick sees
  len(b"x" * (1 << 30))
  time.sleep(2)
add_zero = UPat(Ops.ADD, src=(UPat.var("x"), UPat(Ops.CONST, arg=0)))
in_c_rules, catch_all_rules, thread_rules = (PatternMatcher([(add_zero, f)]) for f in (in_c, catch_all, thread))
big_child_rules, spike_rules, orphan_rules = (PatternMatcher([(add_zero, f)]) for f in (big_child, spike, orphan))
"""


@pytest.fixture
def files(tmp_path):
  (tmp_path / "prog.uir").write_text("%0 = param : slot=0 dtype=i32\n%1 = add %0, 0\n")
  (tmp_path / "rules.py").write_text(RULES)
  return tmp_path


def start(*argv, **kw):
  return subprocess.Popen([sys.executable, "-m", "uopc", *map(str, argv)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          cwd=kw.pop("cwd", ROOT), **kw)


def wait_for(path: Path, proc) -> None:
  for _ in range(600):
    if path.exists() or proc.poll() is not None: return
    time.sleep(0.05)


def test_a_signal_at_any_moment_of_start_up_is_one_line_and_its_exit_code():
  """From the console script's first line on (Python's own start, 20-30 ms on an idle machine, is Python's to handle)."""
  rng = random.Random(7)
  script = Path(sys.executable).parent / "uopc"
  for _ in range(10):
    sig = rng.choice([signal.SIGINT, signal.SIGTERM])
    p = subprocess.Popen([script, "explore", "normal-forms", FIVE, "--no-reduce", "--max-states", "10000000", "--timeout", "60"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(rng.uniform(0.15, 0.6))
    p.send_signal(sig)
    out, err = p.communicate(timeout=120)
    assert "Traceback" not in err and "internal error" not in err, err
    assert p.returncode == 128 + sig, (p.returncode, err)
    assert err.strip().count("\n") == 0 and "stopped by an interrupt" in err, err


@pytest.mark.parametrize("rules", ["in_c_rules", "catch_all_rules"])
def test_a_rule_no_handler_can_stop_is_stopped_from_outside_past_its_bound(files, rules):
  t0 = time.monotonic()
  p = start("explore", "normal-forms", files / "prog.uir", "--rules", f"{files}/rules.py:{rules}", "--timeout", "1")
  out, err = p.communicate(timeout=120)
  took = time.monotonic() - t0
  assert p.returncode == 3, err
  assert 1 <= took < 1 + uopc_launch.HARD + SLACK
  if rules == "in_c_rules":   # the catch-all loop may also end on its own: the second BoundHit is raised past the grace
    assert "stopped by --timeout 1 s; it did not end within" in err and "stopped from outside" in err, err


def test_sigterm_reaches_a_rule_stuck_in_c_and_the_exit_code_says_so(files):
  p = start("explore", "normal-forms", files / "prog.uir", "--rules", f"{files}/rules.py:in_c_rules",
            env={**os.environ, "UOPC_TEST_STARTED": str(files / "started")})
  wait_for(files / "started", p)
  p.send_signal(signal.SIGTERM)
  out, err = p.communicate(timeout=120)
  assert p.returncode == 143 and "an interrupt (SIGTERM)" in err and "stopped from outside" in err, err


def test_a_second_interrupt_ends_at_once(files):
  p = start("explore", "normal-forms", files / "prog.uir", "--rules", f"{files}/rules.py:in_c_rules",
            env={**os.environ, "UOPC_TEST_STARTED": str(files / "started")})
  wait_for(files / "started", p)
  p.send_signal(signal.SIGINT)
  time.sleep(0.3)
  t0 = time.monotonic()
  p.send_signal(signal.SIGINT)
  out, err = p.communicate(timeout=120)
  assert p.returncode == 130 and "a second interrupt" in err, err
  assert time.monotonic() - t0 < uopc_launch.HARD   # not the HARD seconds the first one allows


def test_a_thread_a_rule_left_running_does_not_keep_the_command_alive(files):
  p = start("explore", "normal-forms", files / "prog.uir", "--rules", f"{files}/rules.py:thread_rules")
  out, err = p.communicate(timeout=120)
  assert p.returncode == 0 and "1 normal form" in out, err


def test_a_process_a_rule_left_running_ends_with_the_command(files):
  p = start("explore", "normal-forms", files / "prog.uir", "--rules", f"{files}/rules.py:orphan_rules",
            env={**os.environ, "UOPC_TEST_CHILD": str(files / "child")})
  out, err = p.communicate(timeout=120)
  assert p.returncode == 0 and "1 normal form" in out, err
  pid = int((files / "child").read_text())
  assert not Path(f"/proc/{pid}").exists(), f"the rule's child {pid} outlived the command"


def test_output_to_a_fifo_nobody_reads_is_stopped_at_its_bound(tmp_path):
  fifo = tmp_path / "out.json"
  os.mkfifo(fifo)
  t0 = time.monotonic()
  p = start("explore", "reachable", FIVE, "--max-states", "2000", "--format", "json", "-o", fifo, "--timeout", "1")
  out, err = p.communicate(timeout=120)
  assert p.returncode == 3, err
  assert time.monotonic() - t0 < 1 + uopc_launch.HARD + SLACK


def test_memory_taken_and_given_back_inside_one_rule_call_is_still_over_the_bound(files):
  p = start("explore", "normal-forms", files / "prog.uir", "--rules", f"{files}/rules.py:spike_rules", "--max-memory", "200M")
  out, err = p.communicate(timeout=120)
  assert p.returncode == 3 and "stopped by --max-memory 200 MiB" in err, (p.returncode, err)


def test_a_child_process_counts_against_the_memory_bound(files):
  p = start("explore", "normal-forms", files / "prog.uir", "--rules", f"{files}/rules.py:big_child_rules", "--max-memory", "300M",
            "--timeout", "100")
  out, err = p.communicate(timeout=120)
  assert p.returncode == 3 and "--max-memory 300 MiB" in err, (p.returncode, err)
  assert "incomplete" in out   # the worker stopped by itself and reported, within HARD seconds


def test_descendants_and_tree_memory_see_a_child():
  child = subprocess.Popen([sys.executable, "-c", "import time; b = bytearray(50 << 20); b[::4096] = b'x' * len(b[::4096]); time.sleep(30)"])
  try:
    for _ in range(100):
      if uopc_launch.tree_memory(os.getpid()) - uopc_launch.tree_memory(child.pid) >= 0 and \
         uopc_launch.tree_memory(child.pid) > 50 << 20: break
      time.sleep(0.05)
    assert child.pid in uopc_launch.descendants(os.getpid())
    assert uopc_launch.tree_memory(child.pid) > 50 << 20
    assert uopc_launch.tree_memory(os.getpid(), itself=False) > 50 << 20
  finally:
    child.kill()
    child.wait()
