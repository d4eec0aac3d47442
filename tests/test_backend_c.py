"""The C backend: ALU semantics against exec_alu, lowering of every op, output format, CLI, toolchain."""
from __future__ import annotations

import contextlib
import io
import itertools
import math
import os
import random
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from uopc.alu import exec_alu
from uopc.cli.main import main
from uopc.dtype import dtypes, truncate
from uopc.evaluate import bind_params, run, to_python
from uopc.ops import Ops
from uopc.uop import UOp

from uopc.backend import Batch, CompileError, CRuntimeError, RenderError, program_source, run_c
from uopc.backend import toolchain
from uopc.backend.values import same_value

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
I32 = [0, 1, -1, 2, -2, 3, -3, 7, -7, 2**31 - 1, -2**31, 2**31 - 2, -2**31 + 1, 2**30, 65536, 46341]
F32 = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, math.inf, -math.inf, math.nan, 3.4028234663852886e38, 1.401298464324817e-45,
       1.1754943508222875e-38, 1e30, 16777217.0, 2147483648.0, -2147483648.0, 2147483520.0, -2147483904.0, 0.1, 128.0, -149.5]
VALUES = {dtypes.i32: I32, dtypes.f32: [truncate(dtypes.f32, v) for v in F32], dtypes.bool: [False, True]}


@pytest.fixture(autouse=True, scope="module")
def _cache_dir(tmp_path_factory):
  """Compiled programs go to a fresh cache directory, not the user's."""
  with pytest.MonkeyPatch.context() as mp:
    mp.setenv("UOPC_CACHE_DIR", str(tmp_path_factory.mktemp("uopc-cache")))
    yield


def uopc(*argv: str, stdin: str | None = None) -> tuple[int, str, str]:
  """Run the ``uopc`` command line in-process: (exit code, stdout, stderr)."""
  out, err = io.StringIO(), io.StringIO()
  old_stdin = sys.stdin
  if stdin is not None: sys.stdin = io.TextIOWrapper(io.BytesIO(stdin.encode()))
  try:
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err): code = main(list(argv))
  finally: sys.stdin = old_stdin
  return code, out.getvalue(), err.getvalue()


# ---- the ALU, op by op, against exec_alu (the reference semantics)

def _expect(op: Ops, dtype, vals: list):
  return exec_alu(op, dtype, vals)


def test_every_alu_op_matches_exec_alu_bit_for_bit():
  """All pairs of edge values for every binary op and dtype, every unary op, every cast, WHERE."""
  batch, cases = Batch(), []
  for op in (Ops.ADD, Ops.MUL, Ops.MAX, Ops.CMPLT, Ops.CMPNE, Ops.FLOORDIV, Ops.FLOORMOD):
    for d in ((dtypes.i32,) if op in (Ops.FLOORDIV, Ops.FLOORMOD) else dtypes.all):
      k = batch.add(UOp(op, (UOp.param(0, d), UOp.param(1, d))))
      rdt = dtypes.bool if op in (Ops.CMPLT, Ops.CMPNE) else d
      cases += [(k, (a, b), _expect(op, rdt, [a, b])) for a, b in itertools.product(VALUES[d], repeat=2)]
  rng = random.Random(7)
  randoms = VALUES[dtypes.f32] + [truncate(dtypes.f32, struct.unpack("<f", struct.pack("<I", rng.getrandbits(32)))[0]) for _ in range(3000)]
  randoms += [truncate(dtypes.f32, rng.uniform(-200, 200)) for _ in range(2000)]
  for op in (Ops.RECIP, Ops.EXP2, Ops.LOG2, Ops.SQRT, Ops.SIN):
    k = batch.add(UOp(op, (UOp.param(0, dtypes.f32),)))
    cases += [(k, (a,), _expect(op, dtypes.f32, [a])) for a in randoms]
  for src, dst in itertools.product(dtypes.all, repeat=2):
    k = batch.add(UOp.param(0, src).cast(dst))
    vals = VALUES[src] + (randoms if src is dtypes.f32 else [rng.randint(-2**31, 2**31 - 1) for _ in range(500)] if src is dtypes.i32 else [])
    cases += [(k, (a,), _expect(Ops.CAST, dst, [a])) for a in vals]
  for d in dtypes.all:
    k = batch.add(UOp.param(0, dtypes.bool).where(UOp.param(1, d), UOp.param(2, d)))
    cases += [(k, (c, a, b), _expect(Ops.WHERE, d, [c, a, b])) for c in (False, True) for a in VALUES[d][:5] for b in VALUES[d][-5:]]
  outs = batch.run([(k, dict(enumerate(args))) for k, args, _ in cases])
  bad = [(batch.kernels[k].code.splitlines()[1], args, want, o) for (k, args, want), o in zip(cases, outs)
         if (want is None) != (not o.ok) or (want is not None and not same_value(o.value, want))]
  assert not bad, f"{len(bad)} of {len(cases)} disagree, e.g. {bad[:5]}"
  assert len(cases) > 10_000


def test_runtime_errors_name_the_trap():
  p0, p1 = UOp.param(0), UOp.param(1)
  with pytest.raises(CRuntimeError, match=r"division by zero: 7 // 0"): run_c(p0 // p1, {0: 7, 1: 0})
  with pytest.raises(CRuntimeError, match=r"modulo by zero"): run_c(p0 % p1, {0: 7, 1: 0})
  with pytest.raises(CRuntimeError, match=r"overflow: -2147483648 // -1"): run_c(p0 // p1, {0: -2**31, 1: -1})
  assert run_c(p0 % p1, {0: -2**31, 1: -1}) == 0   # fine in Python, UB in C: the runtime special-cases it
  with pytest.raises(CRuntimeError, match=r"cast of nan to i32"): run_c(UOp.param(0, dtypes.f32).cast(dtypes.i32), {0: math.nan})
  with pytest.raises(CRuntimeError, match=r"cast of 2147483648.0 to i32 is undefined"): run_c(UOp.param(0, dtypes.f32).cast(dtypes.i32), {0: 2.0**31})
  assert run_c(UOp.param(0, dtypes.f32).cast(dtypes.i32), {0: -2.0**31}) == -2**31
  assert run_c(UOp.param(0, dtypes.f32).cast(dtypes.i32), {0: -7.9}) == -7   # truncation toward zero


# ---- lowering of shapes, movement ops, calls

def _both(prog: UOp, values: dict | None = None, simplify: bool = True):
  want = to_python(run(bind_params(prog, values or {})))
  got = run_c(prog, values, simplify=simplify)
  assert same_value(got, want), (got, want)
  return got


def test_chapter_programs():
  a, b = UOp.stack(1, 2, 3), UOp.stack(10, 20, 30)
  assert _both(a * b + a) == [11, 42, 93]
  assert _both((a < UOp.stack(2, 2, 2)).where(a, b)) == [1, 20, 30]
  assert _both(UOp.stack(a, b).index(1).index(2)) == 30
  r = UOp.stack(1.0, 2.0, 3.0)
  movement = (UOp.stack(r, r) * UOp.const(2.0).broadcast((2, 3))).permute((1, 0)).reduce(Ops.ADD, 1)
  assert _both(movement) == [4.0, 8.0, 12.0]
  p0 = UOp.param(0)
  sq = (p0 * p0).call(p0, name="sq")
  g = (sq * 2).call(p0 + 1, name="g")
  assert _both(g.call(5, name="f"), simplify=False) == 72   # the chapter's scoping example: not 98


def test_movement_ops_on_params():
  p = UOp.param(0, dtypes.f32, (2, 3))
  vals = {0: [[1.0, -2.0, 3.5], [-0.0, math.inf, 6.0]]}
  assert _both(p.permute((1, 0)), vals) == [[1.0, -0.0], [-2.0, math.inf], [3.5, 6.0]]
  assert _both(p.shrink(((1, 2), (0, 2))), vals) == [[-0.0, math.inf]]
  assert _both(p.reshape((3, 2)), vals) == [[1.0, -2.0], [3.5, -0.0], [math.inf, 6.0]]
  assert _both(p.reshape((2, 1, 3)).expand((2, 2, 3)).reduce(Ops.MAX, 2), vals) == [3.5, math.inf]
  assert _both(p.reduce(Ops.ADD, 2), vals) == math.inf
  assert _both(p.reduce(Ops.MUL, 1), vals) == [-7.0, math.nan]
  i = UOp.param(1)
  assert _both(p.index(i), {**vals, 1: 1}) == [-0.0, math.inf, 6.0]
  assert _both(p.index(1, i), {**vals, 1: 2}) == 6.0


def test_index_out_of_bounds_is_a_runtime_error():
  p = UOp.param(0, dtypes.i32, (3,))
  prog = p.index(UOp.param(1))
  for bad in (3, -1, 2**31 - 1, -2**31):
    with pytest.raises(CRuntimeError, match=f"index {bad} out of bounds for axis 0 of size 3"): run_c(prog, {0: [1, 2, 3], 1: bad})
  with pytest.raises(CRuntimeError, match="index 5 out of bounds"): run_c(UOp.stack(1, 2, 3).index(5), simplify=False)


def test_edge_values_survive_the_round_trip():
  p = UOp.param(0, dtypes.f32, (len(F32),))
  vals = [truncate(dtypes.f32, v) for v in F32]
  assert same_value(run_c(p, {0: vals}), vals)
  q = UOp.param(0, dtypes.i32, (len(I32),))
  assert run_c(q, {0: I32}) == I32
  assert run_c(UOp.param(0), {0: 2**32 + 5}) == 5   # wraps like bind_params does
  assert run_c(UOp.param(0, dtypes.bool, (2,)), {0: [True, False]}) == [True, False]


def test_accepted_negative_zero_shows_in_the_committed_program():
  """simplify(x + 0.0) is x: at x = -0.0 the committed program differs from run() (the chapter accepts it)."""
  prog = UOp.param(0, dtypes.f32) + 0.0
  assert repr(run_c(prog, {0: -0.0})) == "-0.0"
  assert repr(run_c(prog, {0: -0.0}, simplify=False)) == "0.0"
  assert repr(to_python(run(bind_params(prog, {0: -0.0})))) == "0.0"


def test_range_is_rejected_clearly():
  with pytest.raises(RenderError, match="RANGE outside a loop"): program_source(UOp(Ops.RANGE, (UOp.const(4),)) + 1)


def test_deep_graph_does_not_recurse():
  u = UOp.param(0)
  for i in range(3000): u = u * 3 + i   # simplify keeps a chain; so does the renderer
  assert run_c(u, {0: 1}, simplify=False) == to_python(run(bind_params(u, {0: 1})))


def test_large_vector():
  n = 1000
  a, b = UOp.stack(*range(n)), UOp.stack(*range(0, 2 * n, 2))
  assert run_c(a * b + a)[:3] == [0, 3, 10]


# ---- readable output of the standalone program: Python's repr

def test_standalone_program_prints_like_repr(tmp_path):
  rng = random.Random(3)
  vals = [math.ldexp(s, e) for e in range(-149, 128) for s in (1.0, -1.0)]
  vals += [struct.unpack("<f", struct.pack("<I", rng.getrandbits(32)))[0] for _ in range(5000)]
  vals = [truncate(dtypes.f32, v) for v in vals + F32]
  src, _ = program_source(UOp.param(0, dtypes.f32, (len(vals),)))
  with toolchain.built(src) as exe:
    out = subprocess.run([str(exe)], input=" ".join(map(repr, vals)), capture_output=True, text=True)
  assert out.returncode == 0 and out.stdout == repr(vals) + "\n"
  src, _ = program_source(UOp.param(0, dtypes.bool, (2, 2)).cast(dtypes.i32) * UOp.param(1, dtypes.i32).broadcast((2, 2)))
  with toolchain.built(src) as exe:
    args = [str(exe), "True", "0", "false", "1", "-3"]
    assert subprocess.run(args, capture_output=True, text=True).stdout == "[[-3, 0], [0, -3]]\n"
    bad = subprocess.run([str(exe), "maybe"], capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr == "bad input: expected a bool, got maybe\n"
    extra = subprocess.run(args + ["9"], capture_output=True, text=True)
    assert extra.returncode == 2 and "1 more value" in extra.stderr and extra.stdout == ""
    piped = subprocess.run([str(exe)], input="1 1 1 1\n2\n", capture_output=True, text=True)
    assert piped.stdout == "[[2, 2], [2, 2]]\n"


def test_standalone_runtime_error(tmp_path):
  src, _ = program_source(UOp.const(1) // UOp.param(0))
  with toolchain.built(src) as exe:
    proc = subprocess.run([str(exe), "0"], capture_output=True, text=True)
  assert (proc.returncode, proc.stdout, proc.stderr) == (1, "", "runtime error: division by zero: 1 // 0\n")


def test_emitted_c_compiles_without_warnings(tmp_path):
  src, _ = program_source(UOp.param(0, dtypes.f32, (2, 3)).permute((1, 0)).reduce(Ops.ADD, 1).cast(dtypes.i32) // 2)
  (tmp_path / "p.c").write_text(src)
  cc = toolchain.find_cc()
  proc = subprocess.run([*cc, *toolchain.FLAGS, "-Wall", "-Wextra", "-pedantic", "-Werror", "-o", str(tmp_path / "p"),
                         str(tmp_path / "p.c"), "-lm"], capture_output=True, text=True)
  assert proc.returncode == 0, proc.stderr


# ---- toolchain: cache, compiler selection, no leftovers

@pytest.fixture
def private_tmp(tmp_path, monkeypatch) -> Path:
  """A temporary directory of this test's own, so that leftovers are ours to see."""
  d = tmp_path / "tmp"
  d.mkdir()
  monkeypatch.setattr(tempfile, "tempdir", str(d))
  return d


def test_cache_and_no_temporary_files(tmp_path, monkeypatch, private_tmp):
  monkeypatch.setenv("UOPC_CACHE_DIR", str(tmp_path / "c"))
  calls = []
  real = toolchain.compile_to
  monkeypatch.setattr(toolchain, "compile_to", lambda *a, **k: (calls.append(1), real(*a, **k))[1])
  prog = UOp.param(0) * 41 + 1
  assert run_c(prog, {0: 1}) == 42 and run_c(prog, {0: 2}) == 83
  assert len(calls) == 1   # the second run reuses the cached binary
  assert [p.name.startswith(".") for p in (tmp_path / "c").iterdir()] == [False]
  assert run_c(prog, {0: 1}, cache=False) == 42 and len(calls) == 2
  assert list(private_tmp.iterdir()) == []


def test_a_cache_dir_that_is_a_file_means_no_cache(tmp_path, monkeypatch, private_tmp):
  (tmp_path / "file").write_text("not a directory")
  monkeypatch.setenv("UOPC_CACHE_DIR", str(tmp_path / "file"))
  assert run_c(UOp.param(0) * 41 + 2, {0: 1}) == 43   # built in a temporary directory, as without a cache
  assert (tmp_path / "file").read_text() == "not a directory" and list(private_tmp.iterdir()) == []


def test_compiler_selection_and_failure(tmp_path, monkeypatch, private_tmp):
  monkeypatch.setenv("CC", "no-such-compiler-xyz")
  with pytest.raises(CompileError, match="not an executable"): toolchain.find_cc()
  fake = tmp_path / "fakecc"
  fake.write_text("#!/bin/sh\necho 'prog.c:1:1: error: this compiler refuses everything' >&2\nexit 1\n")
  fake.chmod(0o755)
  monkeypatch.setenv("CC", str(fake))
  with pytest.raises(CompileError, match="the C compiler failed .exit 1.: prog.c:1:1: error: this compiler refuses"):
    run_c(UOp.param(0) + 12345, {0: 1})
  assert list(private_tmp.iterdir()) == []
  assert not [p for p in Path(os.environ["UOPC_CACHE_DIR"]).iterdir() if toolchain.PARTIAL_NAME.fullmatch(p.name)]
  monkeypatch.delenv("CC")
  assert toolchain.find_cc()[0] in ("cc", "gcc")


# ---- the command line

def test_cli_run_backend_c_matches_python(tmp_path):
  for args in (["examples/vector.uir"], ["examples/affine.uir", "--param", "0=5"]):
    path = str(EXAMPLES / Path(args[0]).name)
    py = uopc("run", path, *args[1:])
    c = uopc("run", "--backend", "c", path, *args[1:])
    assert c == py and c[0] == 0
  assert uopc("run", "--backend", "c", str(EXAMPLES / "vector.uir"))[1] == "[11, 42, 93]\n"


def test_cli_errors(tmp_path):
  div = tmp_path / "div.uir"
  div.write_text("%0 = param : slot=0 dtype=i32\n%1 = floordiv 7, %0\n")
  assert uopc("run", "--backend", "c", str(div), "--param", "0=0") == (1, "", f"{div}: runtime error: division by zero: 7 // 0\n")
  assert uopc("run", "--backend", "c", str(div), "--param", "0=-2") == (0, "-4\n", "")
  idx = tmp_path / "idx.uir"
  idx.write_text("%0 = stack 1, 2, 3\n%1 = param : slot=0 dtype=i32\n%2 = index %0, %1\n")
  code, out, err = uopc("run", "--backend", "c", str(idx), "--param", "0=3")
  assert (code, out) == (1, "") and err == f"{idx}: runtime error: index 3 out of bounds for axis 0 of size 3\n"
  code, _, err = uopc("run", "--backend", "c", str(div))
  assert code == 2 and "PARAM slot 0 (i32) is not bound" in err
  code, _, err = uopc("run", "--backend", "c", str(div), "--param", "0=1.5")
  assert code == 2 and err.count("\n") == 1
  bad = tmp_path / "bad.uir"
  bad.write_text("%0 = frobnicate 1\n")
  code, _, err = uopc("run", "--backend", "c", str(bad))
  assert code == 2 and err.startswith(f"{bad}:1:") and err.count("\n") == 1
  rng = tmp_path / "range.uir"
  rng.write_text("%0 = range 4\n%1 = add %0, 1\n")
  code, _, err = uopc("run", "--backend", "c", str(rng))
  assert code == 1 and "RANGE outside a loop" in err and err.count("\n") == 1
  assert uopc("run", "--backend", "c", "-", stdin="%0 = add 2, 3\n")[:2] == (0, "5\n")


def test_cli_compiler_failure(tmp_path, monkeypatch):
  monkeypatch.setenv("CC", "false")
  code, out, err = uopc("run", "--backend", "c", str(EXAMPLES / "affine.uir"), "--param", "0=77")
  assert (code, out) == (1, "") and "the C compiler failed" in err and err.count("\n") == 1


def test_cli_emit_c(tmp_path):
  code, out, _ = uopc("emit-c", str(EXAMPLES / "affine.uir"))
  assert code == 0 and "uopc_mul_i32(p0[0], 3)" in out and "int main(int argc, char **argv)" in out
  raw = uopc("emit-c", "--no-simplify", str(EXAMPLES / "affine.uir"))[1]
  assert "uopc_add_i32(p0[0], 2)" in raw
  dest = tmp_path / "affine.c"
  assert uopc("emit-c", str(EXAMPLES / "affine.uir"), "-o", str(dest)) == (0, "", "")
  assert dest.read_text() == out
  exe = tmp_path / "affine"
  toolchain.compile_to(out, exe)
  assert subprocess.run([str(exe), "5"], capture_output=True, text=True).stdout == "26\n"
