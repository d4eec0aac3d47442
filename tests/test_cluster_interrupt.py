"""A Ctrl-C, or ``--max-memory`` passed by a worker, in the middle of a cluster run's level: the command prints what the
finished levels found, marked incomplete, before its supervisor's bound (``uopc_launch.HARD``), however long the level
would still run (uopc/relational/cluster/coordinator.py's ``_stop``: the workers leave their level)."""
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SLOW_AFTER = 200   # rule calls (one per ADD node made): the first two levels make fewer, so past them the third one runs
HELD = 1 << 30     # bytes a worker's rule takes (and keeps) past SLOW_AFTER calls, in the memory case: over its bound
BOUND = {"interrupt": ("--timeout", "300", 130, r"an interrupt \(SIGINT\)"), "terminate": ("--timeout", "300", 143, r"an interrupt \(SIGTERM\)"),
         "group-terminate": ("--timeout", "300", 143, r"an interrupt \(SIGTERM\)"), "memory": ("--max-memory", "1000M", 3, r"--max-memory 1000 MiB")}
SIGNAL = {"interrupt": signal.SIGINT, "terminate": signal.SIGTERM, "group-terminate": signal.SIGTERM}


def write_sum(tmp_path: Path, n: int = 12) -> int:
  """``tmp_path / "sum.uir"``: (p0 + 0) + ... + (p{n-1} + 0), 2^n states under x + 0; n."""
  rows = [f"%{2 * i} = param : slot={i} dtype=i32\n%{2 * i + 1} = add %{2 * i}, 0" for i in range(n)]
  rows += [f"%{2 * n + k - 1} = add %{1 if k == 1 else 2 * n + k - 2}, %{2 * k + 1}" for k in range(1, n)]
  (tmp_path / "sum.uir").write_text("\n".join(rows) + "\n")
  return n


@pytest.mark.parametrize("workers", [1, pytest.param(2, marks=pytest.mark.slow)])   # (two workers' records are whole: main passed)
@pytest.mark.parametrize("bound", ["interrupt", "terminate", "group-terminate", "memory"])
def test_a_bound_mid_level_prints_the_finished_levels_marked_incomplete_in_time(tmp_path, workers, bound):
  # (p0 + 0) + ... + (p11 + 0) under x + 0: 4,096 states, a DAG (no cycle: no report builds every state here). Past
  # SLOW_AFTER calls each rule call takes 0.1 s, so the level running has over 20 s left when the SIGINT comes: a run
  # that waits for its level is stopped from outside 8 s after it, and what it found is lost. Each call is a byte in
  # `calls`, so the SIGINT follows the run, not a sleep a busy machine may not fill. The memory case: the worker's rule
  # takes HELD bytes at its first slow call instead; only the supervisor sees a worker's memory mid-level (a child
  # process), and its word comes while the coordinator waits shielded (uopc/cli/budget.py's _look reads it).
  n = write_sum(tmp_path)
  calls = tmp_path / "calls"
  (tmp_path / "rules.py").write_text(textwrap.dedent(f"""\
    import os, time
    from uopc import Ops, PatternMatcher, UPat
    held = []
    def slow(x, y):   # every ADD node: a state's sums are its own nodes, each a call
      with open({str(calls)!r}, "a") as f: f.write(".")
      if os.path.getsize({str(calls)!r}) > {SLOW_AFTER}:
        while {bound == "memory"} and len(held) < {HELD >> 26}: held.append(b"x" * (1 << 26))   # (written: resident; in 64 MB
                                              # pieces, so the stop lands between them: one long C call is out of its reach)
        time.sleep(0.1)
      return x if y.op is Ops.CONST and y.arg == 0 else None
    rules = PatternMatcher([(UPat.var("x") + UPat.var("y"), slow)])
    """))
  p = subprocess.Popen([sys.executable, "-m", "uopc", "explore", "normal-forms", str(tmp_path / "sum.uir"), "--no-reduce", "--rules",
                        f"{tmp_path / 'rules.py'}:rules", "--cluster", f"local:{workers}", "--samples", "0", *BOUND[bound][:2]],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, start_new_session=True)
  try:
    deadline = time.monotonic() + 120
    while (not calls.exists() or calls.stat().st_size <= SLOW_AFTER) and p.poll() is None and time.monotonic() < deadline: time.sleep(0.05)
    if bound == "group-terminate": os.killpg(p.pid, SIGNAL[bound])   # (`timeout`, a job runner: Ray's processes are not in it)
    elif bound in SIGNAL: p.send_signal(SIGNAL[bound])
    out, err = p.communicate(timeout=120)
  finally:
    if p.poll() is None: p.kill()
  explored = re.search(r"explored (\d+) states, \d+ edges: incomplete: stopped by " + BOUND[bound][3], out)
  assert p.returncode == BOUND[bound][2] and explored is not None and int(explored[1]) >= 1 + n, (out, err)
  assert "stopped from outside" not in err and "Traceback" not in err and "received" not in err, err   # (Ray's SIGTERM dump)


SIGTERM_WHILE_RAY_STARTS = """
import os, signal, sys, time
got = []
signal.signal(signal.SIGTERM, lambda s, f: got.append(s))
import ray._private.node, ray._private.worker
def term_then(f):   # a SIGTERM to this process, then Ray's own step
  def run(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGTERM); time.sleep(0.2)
    return f(*args, **kwargs)
  return run
def then_term(f):   # Ray's own step, then a SIGTERM (the core worker's failure handler is in place by then)
  def run(*args, **kwargs):
    out = f(*args, **kwargs); os.kill(os.getpid(), signal.SIGTERM); time.sleep(0.2)
    return out
  return run
if sys.argv[1] == "node": ray._private.node.Node.__init__ = term_then(ray._private.node.Node.__init__)
else: ray._private.worker.connect = then_term(ray._private.worker.connect)
from uopc.relational.cluster.session import open_session
n, release = open_session("local:1")
os.kill(os.getpid(), signal.SIGTERM); time.sleep(0.2)   # and one once Ray is up
print("handled", got, flush=True)
release()
"""


@pytest.mark.parametrize("when", ["node", "connect"])
def test_a_sigterm_while_ray_starts_or_after_is_the_callers(when):
  # ray.init sets SIGTERM handlers of its own: in Python a sys.exit(15) (exit 15, no word, while Ray's processes start),
  # and in C, as its core worker starts, one that dumps a stack and aborts (exit 134 in the middle of a run); the
  # caller's handler must see every SIGTERM, before, during and after (uopc/relational/cluster/session.py)
  p = subprocess.run([sys.executable, "-c", SIGTERM_WHILE_RAY_STARTS, when], capture_output=True, text=True, cwd=ROOT, timeout=120)
  assert (p.returncode, p.stdout) == (0, "handled [15, 15]\n"), (p.stdout, p.stderr[-2000:])


def test_a_cluster_killed_from_outside_mid_run_is_one_line_and_exit_3(tmp_path):
  # the head's processes (gcs_server, raylet) and the worker killed mid-run (`ray stop`, the OOM killer): no worker can
  # start again, no record be read. Ray's driver retried for a minute, then aborted the command (exit 1, Ray's lines on
  # stderr); now it ends with one line, the count, and the code of a worker that could not be replaced
  write_sum(tmp_path)
  calls = tmp_path / "calls"
  (tmp_path / "rules.py").write_text(textwrap.dedent(f"""\
    import os, signal
    from uopc import Ops, PatternMatcher, UPat
    def stat(pid):   # (command name, parent) of a process
      with open(f"/proc/{{pid}}/stat") as f: head, _, rest = f.read().rpartition(")")
      return head.partition("(")[2], int(rest.split()[1])
    killed = []
    def kill_head():   # a Ray worker's parent is its raylet (once: an orphan's is the command's); the gcs_server its sibling
      if killed or stat(raylet := os.getppid())[0] != "raylet": return   # (the command calls the rule too)
      killed.append(raylet)
      driver = stat(raylet)[1]
      gcs = [int(p) for p in os.listdir("/proc") if p.isdigit() and stat(p) == ("gcs_server", driver)]
      for pid in (*gcs, raylet, os.getpid()): os.kill(pid, signal.SIGKILL)   # (the worker too: without its head it would go on)
    def rule(x, y):
      with open({str(calls)!r}, "a") as f: f.write(".")
      if os.path.getsize({str(calls)!r}) > {SLOW_AFTER}: kill_head()
      return x if y.op is Ops.CONST and y.arg == 0 else None
    rules = PatternMatcher([(UPat.var("x") + UPat.var("y"), rule)])
    """))
  p = subprocess.run([sys.executable, "-m", "uopc", "explore", "normal-forms", str(tmp_path / "sum.uir"), "--no-reduce", "--rules",
                      f"{tmp_path / 'rules.py'}:rules", "--cluster", "local:1", "--samples", "0"],
                     capture_output=True, text=True, cwd=ROOT, timeout=120)
  last = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ""
  assert p.returncode == 3 and re.fullmatch(r"uopc: --cluster: the Ray cluster this run started ended under it \(gcs_server and raylet "
                                            r"gone: killed from outside\?\); the [\d,]+ states its finished levels found were held "
                                            r"there and are lost", last), (p.returncode, p.stderr[-3000:])


def test_a_bounded_cluster_run_lists_its_states_however_slowly_they_are_read(tmp_path):
  # a cluster's states come once its run has ended; listing them is writing the output, which no bound cuts. It was the
  # search's phase: past --max-memory (seen by the supervisor, in a worker), a reader slower than the supervisor's 8 s
  # (or 600,000 states to list) saw the command stopped from outside, its output lost
  write_sum(tmp_path)
  (tmp_path / "rules.py").write_text(textwrap.dedent(f"""\
    from uopc import Ops, PatternMatcher, UPat
    calls, held = [0], []
    def rule(x, y):   # past 2,500 calls (levels of 794 states, 183 kB listed) the worker takes HELD bytes, in 64 MB pieces
      calls[0] += 1
      while calls[0] > 2500 and len(held) < {HELD >> 26}: held.append(b"x" * (1 << 26))
      return x if y.op is Ops.CONST and y.arg == 0 else None
    rules = PatternMatcher([(UPat.var("x") + UPat.var("y"), rule)])
    """))
  p = subprocess.Popen([sys.executable, "-m", "uopc", "explore", "reachable", str(tmp_path / "sum.uir"), "--rules",
                        f"{tmp_path / 'rules.py'}:rules", "--cluster", "local:1", "--max-memory", "1000M"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
  try:
    time.sleep(20)   # not read: the listing (over 200 kB) fills the pipe and waits, past the supervisor's 8 s after the bound
    out, err = p.communicate(timeout=120)
  finally:
    if p.poll() is None: p.kill()
  states = re.search(r"^(\d+) states, \d+ edges, .*incomplete: stopped by --max-memory 1000 MiB", out, re.M)
  assert p.returncode == 3 and states is not None and int(states[1]) > 500, (out[-2000:], err)
  assert len(re.findall(r"^#\d+ ", out, re.M)) == int(states[1]) and "stopped from outside" not in err, err
