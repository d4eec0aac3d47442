"""``uopc_launch``: the console script's supervisor stops what a signal handler cannot, and start-up is quiet.

Every command here runs as the console script does (``python -m uopc`` goes through the same
``uopc_launch.main``), in a subprocess; assertions are on exit codes, on what the command said,
and on the command's own clock against generous margins, never on the suite's time.
"""
import json
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
def started():                    # the first rule call says so, with the process it runs in
  path = os.environ.get("UOPC_TEST_STARTED")
  if path and not os.path.exists(path):
    with open(path + ".tmp", "w") as f: f.write(str(os.getpid()))
    os.replace(path + ".tmp", path)
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
def slow(x):                       # an infinite space, slowly
  started()
  time.sleep(0.01)
  return x + 1
add_zero = UPat(Ops.ADD, src=(UPat.var("x"), UPat(Ops.CONST, arg=0)))
slow_rules = PatternMatcher([(UPat(Ops.ADD, name="x"), slow)])
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
  """From the moment the supervisor is up (``uopc_launch.ready``: SIGINT and SIGTERM blocked, the first thing the console
  script's import of it does) on; before that is Python's own start, Python's to handle. A signal sent earlier lands
  while Python imports its site (a ``KeyboardInterrupt`` traceback, or a process killed by SIGTERM): on a loaded
  machine, anywhere in the first few hundred milliseconds."""
  rng = random.Random(7)
  script = Path(sys.executable).parent / "uopc"
  for _ in range(10):
    sig = rng.choice([signal.SIGINT, signal.SIGTERM])
    p = subprocess.Popen([script, "explore", "normal-forms", FIVE, "--no-reduce", "--max-states", "10000000", "--timeout", "60"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    while not uopc_launch.ready(p.pid) and p.poll() is None: time.sleep(0.001)
    time.sleep(rng.uniform(0, 0.4))   # somewhere in the worker's start: the fork, the imports, the budget, the search
    p.send_signal(sig)
    out, err = p.communicate(timeout=120)
    assert "Traceback" not in err and "internal error" not in err, err
    assert p.returncode == 128 + sig, (p.returncode, err)
    assert err.strip().count("\n") == 0 and "stopped by an interrupt" in err, err


def test_an_interrupt_once_the_work_was_done_is_still_its_code_and_one_line():
  """An interrupt that cut nothing (it came in the report, the write, or a grace the work finished within) was recorded
  and dropped: exit 0, nothing said, as a SIGTERM at a random moment of a loaded machine's run once got. A finding and
  bad input keep their codes."""
  from uopc.cli.budget import Budget
  from uopc.cli.main import _stopped_code
  b = Budget(timeout=None, max_memory=None)
  b.signum = signal.SIGTERM
  b.hit("interrupted")
  assert not b.cut and (_stopped_code(b, 1), _stopped_code(b, 2)) == (1, 2)
  assert _stopped_code(b, 0) == 143


def _pending(pid: int, sig: int) -> bool:
  """Whether ``sig`` waits in process ``pid`` (blocked: ``/proc/PID/status``)."""
  try:
    with open(f"/proc/{pid}/status") as f: fields = dict(line.split(":", 1) for line in f)
  except OSError: return False
  return any(int(fields[k], 16) >> (sig - 1) & 1 for k in ("SigPnd", "ShdPnd"))


def test_an_interrupt_during_the_write_of_a_whole_output_is_its_code_and_one_line(tmp_path):
  """The window on purpose: the output is complete and its write waits for a reader (eight times a pipe's size) with
  the signals blocked; the SIGTERM reaches the worker there (the test waits until it is pending), then the whole output
  is read. Before, the command then exited 0 and said nothing."""
  p = _big_output(tmp_path, "--timeout", "600")
  _writing(p)
  p.send_signal(signal.SIGTERM)
  while p.poll() is None and not any(_pending(k, signal.SIGTERM) for k in uopc_launch.descendants(p.pid)): time.sleep(0.01)
  out, err = p.communicate(timeout=120)
  assert json.loads(out)["complete"] is True and len(out) > 1 << 19   # whole: the interrupt cut nothing
  assert p.returncode == 143, (p.returncode, err)
  assert err.decode().startswith("uopc: stopped by an interrupt (SIGTERM) once the work was done;") and err.count(b"\n") == 1, err


SUPERVISE = """\
import os, signal, sys, uopc_launch
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM, signal.SIGCHLD})
read_end, write_end = os.pipe()
pid = os.fork()
if pid == 0:   # a worker that ends (0) before an interrupt sent to the supervisor reaches it
  if sys.argv[1] == "before": os.kill(os.getppid(), signal.SIGTERM)
  os._exit(0)
os.close(write_end)
os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)   # it has ended
supervisor = uopc_launch.Supervisor(pid, read_end)
code = supervisor.run()
if sys.argv[1] == "after": os.kill(os.getpid(), signal.SIGTERM)   # after the supervisor's last wait, before it exits
supervisor.exit(code)
"""


@pytest.mark.parametrize("when", ["before", "after"])
def test_an_interrupt_to_the_supervisor_of_a_worker_that_ended_is_still_its_code_and_one_line(when):
  """The windows past the worker's end, on purpose: the SIGTERM waits in the supervisor while its worker has already
  ended with 0, taken by its last wait (``before``) or only after it (``after``). Before, exit 0 and nothing said."""
  r = subprocess.run([sys.executable, "-c", SUPERVISE, when], capture_output=True, text=True, cwd=ROOT, timeout=120)
  assert (r.returncode, r.stderr) == (143, "uopc: stopped by an interrupt (SIGTERM) as the command ended; its work was done "
                                           "and its output written\n")


def test_ready_is_what_proc_says_of_the_signals_blocked():
  assert not uopc_launch.ready(os.getpid())   # pytest blocks none
  old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
  try: assert uopc_launch.ready(os.getpid())
  finally: signal.pthread_sigmask(signal.SIG_SETMASK, old)
  assert not uopc_launch.ready(2 ** 22 + 1)   # no such process


@pytest.mark.parametrize("rules", ["in_c_rules", "catch_all_rules"])
def test_a_rule_no_handler_can_stop_is_stopped_from_outside_past_its_bound(files, rules):
  t0 = time.monotonic()
  p = start("explore", "normal-forms", files / "prog.uir", "--rules", f"{files}/rules.py:{rules}", "--timeout", "1")
  out, err = p.communicate(timeout=120)
  took = time.monotonic() - t0
  assert p.returncode == 3, err
  assert 1 <= took < 1 + uopc_launch.HARD + SLACK
  if rules == "in_c_rules":   # the catch-all loop may also end on its own: the second BoundHit is raised past the grace
    assert "stopped by --timeout 1 s during the search; it did not end within" in err and "stopped from outside" in err, err


def test_a_rules_file_stuck_at_import_is_stopped_on_the_start_ups_own_clock(files):
  (files / "stuck.py").write_text("sum(range(10 ** 12))   # one C call: no handler runs until it returns\n")
  p = start("explore", "normal-forms", files / "prog.uir", "--rules", f"{files}/stuck.py:rules", "--timeout", "1")
  out, err = p.communicate(timeout=120)
  assert p.returncode == 3 and "stopped by --timeout 1 s during the start-up; it did not end within" in err, err


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


def _writing(p) -> None:
  """Wait until ``p``'s output has begun (its JSON is written in one piece, in the ``write`` phase)."""
  import select
  while not select.select([p.stdout], [], [], 0.05)[0] and p.poll() is None: pass


def _big_output(tmp_path, *bounds):
  """A command whose search ends at once (one state: ``fold`` rewrites nothing) and whose JSON is about 540 KB (the
  program's 20,000 nodes): eight times what a pipe holds, whatever the machine's speed."""
  rows = ["%0 = param : slot=0 dtype=i32"] + [f"%{i} = add %{i - 1}, %0" for i in range(1, 20_000)]
  (tmp_path / "chain.uir").write_text("\n".join(rows) + "\n")
  return subprocess.Popen([sys.executable, "-m", "uopc", "explore", "reachable", tmp_path / "chain.uir", "--rules", "fold", "--format",
                           "json", *bounds], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)


@pytest.mark.parametrize("reader", ["paused", "steady"])
def test_a_reader_that_reads_slowly_gets_the_whole_output(tmp_path, reader):
  """The output is written however slowly it is read: no time bound cuts the ``write`` phase. The reader waits (or reads
  4 KiB a tenth of a second) until the supervisor's deadline for the bound has passed for sure (it falls at most
  ``--timeout`` + ``HARD`` seconds after the output begins), then reads the rest. Before, the worker was stopped from
  outside there, and the JSON cut at 64 KiB."""
  p = _big_output(tmp_path, "--timeout", "1")
  _writing(p)
  head, until = b"", time.monotonic() + 1 + uopc_launch.HARD + 2
  while time.monotonic() < until:
    time.sleep(0.1)
    if reader == "steady": head += os.read(p.stdout.fileno(), 4096)
  out, err = p.communicate(timeout=120)
  data = json.loads(head + out)   # whole, however it was read
  assert p.returncode in (0, 3) and "stopped from outside" not in err.decode(), err
  assert (p.returncode == 3) == (data["complete"] is False)
  # the whole program's 20,000 nodes, unless the bound fell before the write (a loaded machine's slow search, at load 11
  # before the first state): then the search or the report was cut, and the output says so
  assert (data["states"] and len(head + out) > 1 << 19) or data["complete"] is False


def test_output_nobody_reads_is_ended_by_an_interrupt_and_the_line_names_the_write(tmp_path):
  """Nothing but an interrupt ends a write: the worker, blocked in it with its signals blocked, is stopped from outside."""
  p = _big_output(tmp_path, "--timeout", "600")
  _writing(p)
  p.send_signal(signal.SIGTERM)
  err = p.stderr.read().decode()
  p.wait(timeout=120)
  assert p.returncode == 143 and "stopped by an interrupt (SIGTERM) during the write; it did not end within" in err, err
  assert "(output nobody reads)" in err


@pytest.mark.parametrize("where", ["full", "closed"])
def test_output_that_cannot_be_written_is_one_line_and_bad_input(where):
  """stdout on a full disk (``/dev/full``), or closed (``>&-``): one line and exit 2, never a traceback."""
  with open(os.devnull if where == "closed" else "/dev/full", "w") as sink:
    r = subprocess.run([sys.executable, "-m", "uopc", "run", "examples/vector.uir"], stdout=sink, stderr=subprocess.PIPE, text=True,
                       cwd=ROOT, timeout=120, preexec_fn=(lambda: os.close(1)) if where == "closed" else None)
  why = "stdout is closed" if where == "closed" else "No space left on device"
  assert (r.returncode, r.stderr) == (2, f"uopc: cannot write the output: {why}\n")


def test_a_big_output_to_a_full_disk_is_one_line(tmp_path):
  with open("/dev/full", "w") as sink:
    r = subprocess.run([sys.executable, "-m", "uopc", "explore", "reachable", FIVE, "--max-states", "500", "--format", "json"],
                       stdout=sink, stderr=subprocess.PIPE, text=True, cwd=ROOT, timeout=120)
  assert (r.returncode, r.stderr) == (2, "uopc: cannot write the output: No space left on device\n")


def _alive(pid: int) -> bool:
  try:
    with open(f"/proc/{pid}/stat") as f: return f.read().rpartition(")")[2].split()[0] != "Z"
  except OSError: return False


def _kill_the_supervisor(files, rules: str, *extra):
  """Start a command whose rules say when they run, SIGKILL its supervisor then; the worker's pid, its output, its stderr
  (read to their end: the worker and what it started have closed them)."""
  env = {**os.environ, "UOPC_TEST_STARTED": str(files / "started")}
  p = start("explore", "reachable", files / "prog.uir", "--rules", f"{files}/rules.py:{rules}", "--max-states", "1000000",
            "--max-depth", "100000", "--timeout", "600", "--format", "json", *extra, env=env)
  wait_for(files / "started", p)
  worker = int((files / "started").read_text())
  p.kill()
  out, err = p.communicate(timeout=120)
  for _ in range(2400):   # the worker's parent, init, reaps it
    if not _alive(worker): break
    time.sleep(0.05)
  return worker, out, err


def test_a_worker_whose_supervisor_was_killed_writes_what_it_has_and_says_why(files):
  """The kernel's SIGTERM (PR_SET_PDEATHSIG) ends it without grace; before, it took it for an interrupt like any other,
  with the grace and the report's second (16 s in all on a loaded machine)."""
  worker, out, err = _kill_the_supervisor(files, "slow_rules")
  data = json.loads(out)
  assert not _alive(worker) and data["complete"] is False and data["bound"] == "interrupted" and data["states"], err
  assert "stopped by the end of its supervisor (SIGTERM)" in err


def test_a_worker_stuck_in_c_whose_supervisor_was_killed_is_stopped_by_its_guardian(files):
  """No handler runs in the worker: its guardian stops it ``ORPHAN`` seconds after the supervisor's end (before, it ran on)."""
  (files / "started").unlink(missing_ok=True)
  worker, out, err = _kill_the_supervisor(files, "in_c_rules")
  assert not _alive(worker) and out == "", err


def test_a_cluster_whose_command_lost_its_supervisor_leaves_no_process(files):
  """A shard stuck in a rule's C call: the worker, winding up, waits for it for ever (before, it and all of Ray's processes
  ran on; two of Ray's agents outlived even a worker that ended). Its guardian stops the worker's whole tree."""
  env = {**os.environ, "UOPC_TEST_STARTED": str(files / "started")}
  p = start("explore", "reachable", files / "prog.uir", "--rules", f"{files}/rules.py:in_c_rules", "--timeout", "600", "--format", "json",
            "--cluster", "local:2", env=env)
  tree: set[int] = set()
  while p.poll() is None and not (files / "started").exists():   # a shard runs the rule
    tree |= set(uopc_launch.descendants(p.pid))
    time.sleep(0.05)
  tree |= set(uopc_launch.descendants(p.pid))
  children = tree - set(k for c in tree for k in uopc_launch.descendants(c))
  worker = max(children, key=lambda k: len(uopc_launch.descendants(k)))   # (not its guardian: Ray is the worker's)
  p.kill()
  while _alive(worker): tree |= set(uopc_launch.descendants(worker))   # what it starts until it ends
  p.communicate(timeout=120)
  for _ in range(1200):
    left = [k for k in tree if _alive(k)]
    if not left: break
    time.sleep(0.05)
  assert not left, [_cmdline(k) for k in left]


def _cmdline(pid: int) -> str:
  try:
    with open(f"/proc/{pid}/cmdline", "rb") as f: return f.read().replace(b"\0", b" ").decode(errors="replace")
  except OSError: return ""


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
