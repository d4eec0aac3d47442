"""Render a kernel DAG (see ``uopc.backend.lower``) as one C function.

The function is ``static int NAME(const T *p<slot>, ..., T *out)``: every PARAM is a
pointer to its row-major data (a scalar PARAM to one element), ``out`` receives the
result in row-major order, and the return value is 0, or 1 after a runtime error
(``uopc_failed``, see ``uopc.backend.runtime``).

Lowering, node by node in topological order:

- a scalar is a ``const`` local (constants are inlined as literals);
- an array is a contiguous row-major buffer, so an elementwise op is one flat loop;
  RESHAPE and INDEX with leading indices are pointer aliases (no copy); EXPAND, PERMUTE
  and SHRINK are strided copies (nested loops over the output, the input offset is
  affine in the loop counters); REDUCE folds the last k dims left to right starting
  from the first element, like ``_eval_movement``; STACK concatenates;
- INDEX checks every index against its dimension at run time.

Program text and values reach the C source only through ``uopc.backend.emit`` (names,
literals, the slot numbers); everything else here is the backend's own fixed text.

>>> from uopc.uop import UOp
>>> k = render_kernel(UOp.param(0) * 3 + 1, "k0")
>>> print(k.code)
static int k0(const int32_t *p0, int32_t *out) {
  const int32_t v1 = uopc_mul_i32(p0[0], 3);
  const int32_t v2 = uopc_add_i32(v1, 1);
  out[0] = v2;
  return uopc_failed;
}
"""
from __future__ import annotations

from typing import NamedTuple

from uopc.dtype import DType, dtypes
from uopc.ops import BINARY, MOVEMENT, UNARY, Ops
from uopc.uop import Shape, UOp, prod

from uopc.backend.emit import ident, literal, number
from uopc.backend.errors import RenderError
from uopc.backend.lower import kernel_params

CTYPE = {dtypes.bool: "uint8_t", dtypes.i32: "int32_t", dtypes.f32: "float"}
SUFFIX = {dtypes.bool: "bool", dtypes.i32: "i32", dtypes.f32: "f32"}
TAG = {dtypes.bool: "b", dtypes.i32: "i", dtypes.f32: "f"}   # the runtime's dtype letter
STATIC_ELEMS = 1024   # arrays larger than this live in static storage, not on the stack


class Kernel(NamedTuple):
  """A rendered kernel: its C function and the types of its arguments and result."""
  name: str
  params: tuple[UOp, ...]   # the PARAM nodes, by slot: the function's arguments in order
  dtype: DType
  shape: Shape
  code: str


def contiguous_strides(shape: Shape) -> list[int]:
  """Row-major strides.

  >>> contiguous_strides((2, 3, 4))
  [12, 4, 1]
  """
  out, acc = [], 1
  for d in reversed(shape): out.append(acc); acc *= d
  return out[::-1]


def view_of(u: UOp) -> tuple[int, list[int]]:
  """EXPAND/PERMUTE/SHRINK as (offset, per-output-dim strides) into the source's buffer.

  >>> from uopc.uop import UOp
  >>> view_of(UOp.param(0, shape=(2, 3)).permute((1, 0)))
  (0, [1, 3])
  """
  ishape = u.src[0].shape
  st = contiguous_strides(ishape)
  if u.op is Ops.EXPAND: return 0, [0 if i == 1 else s for i, s in zip(ishape, st)]
  if u.op is Ops.PERMUTE: return 0, [st[a] for a in u.arg]
  return sum(b * s for (b, _), s in zip(u.arg, st)), st   # SHRINK


class _Writer:
  """Emits the statements of one kernel; ``expr[u]`` is the C expression of node ``u``."""

  def __init__(self) -> None:
    self.lines: list[str] = []
    self.expr: dict[UOp, str] = {}
    self.count = 0

  def name(self) -> str:
    self.count += 1
    return f"v{self.count}"

  def emit(self, line: str) -> None: self.lines.append("  " + line)

  def elem(self, u: UOp, i: str) -> str:
    """Element ``i`` of ``u``'s buffer (a scalar is its own only element)."""
    return self.expr[u] if u.shape == () else f"{self.expr[u]}[{i}]"

  def scalar(self, u: UOp, value: str) -> None:
    self.expr[u] = v = self.name()
    self.emit(f"const {CTYPE[u.dtype]} {v} = {value};")

  def alias(self, u: UOp, pointer: str) -> None:
    self.expr[u] = v = self.name()
    self.emit(f"const {CTYPE[u.dtype]} *{v} = {pointer};")

  def array(self, u: UOp) -> str:
    """Declare a buffer for ``u`` (at least one element: C has no empty arrays)."""
    self.expr[u] = v = self.name()
    n = max(1, prod(u.shape))
    self.emit(f"{'static ' if n > STATIC_ELEMS else ''}{CTYPE[u.dtype]} {v}[{n}];")
    return v

  # ---- one method per kind of node
  def node(self, u: UOp) -> None:
    if u.op is Ops.CONST: self.expr[u] = literal(u.arg, u.dtype)
    elif u.op is Ops.PARAM: self.expr[u] = param_name(u) + ("[0]" if u.shape == () else "")
    elif u.op in BINARY or u.op in UNARY or u.op in (Ops.WHERE, Ops.CAST): self.alu(u)
    elif u.op is Ops.STACK: self.stack(u)
    elif u.op is Ops.INDEX: self.index(u)
    elif u.op is Ops.RESHAPE: self.reshape(u)
    elif u.op in MOVEMENT: self.movement(u)
    elif u.op is Ops.REDUCE: self.reduce(u)
    else: raise RenderError(f"the C backend cannot lower {u.op.name} here")

  def alu(self, u: UOp) -> None:
    if u.shape == (): return self.scalar(u, alu_expr(u, [self.expr[s] for s in u.src]))
    v, n = self.array(u), prod(u.shape)
    self.emit(f"for (long i = 0; i < {n}; i++) {v}[i] = {alu_expr(u, [self.elem(s, 'i') for s in u.src])};")

  def stack(self, u: UOp) -> None:
    elems = u.src
    if all(e.op is Ops.CONST for e in elems):   # constant data: one static table
      self.expr[u] = v = self.name()
      self.emit(f"static const {CTYPE[u.dtype]} {v}[{len(elems)}] = {{{', '.join(self.expr[e] for e in elems)}}};")
      return
    v, m = self.array(u), prod(elems[0].shape)
    for k, e in enumerate(elems):
      if e.shape == (): self.emit(f"{v}[{k}] = {self.expr[e]};")
      elif m: self.emit(f"memcpy({v} + {k * m}, {self.expr[e]}, {m} * sizeof({CTYPE[u.dtype]}));")

  def index(self, u: UOp) -> None:
    base, idx = u.src[0], u.src[1:]
    if not idx: self.expr[u] = self.expr[base]; return
    dims = base.shape
    offset, const_off = [], 0
    for axis, i in enumerate(idx):
      stride = prod(dims[axis + 1:])
      if i.op is Ops.CONST and 0 <= i.arg < dims[axis]: const_off += i.arg * stride   # in bounds: no check needed
      else: offset.append(f"uopc_index({self.expr[i]}, {dims[axis]}, {axis}) * {stride}")
    if const_off or not offset: offset.append(str(const_off))
    off = " + ".join(offset)
    if u.shape == (): self.scalar(u, f"{self.expr[base]}[{off}]")
    else: self.alias(u, f"{self.expr[base]} + {off}" if off != "0" else self.expr[base])

  def reshape(self, u: UOp) -> None:
    src = u.src[0]
    if src.shape == u.shape or (src.shape != () and u.shape != ()): self.expr[u] = self.expr[src]   # same buffer
    elif src.shape == ():   # a scalar becomes a one-element buffer
      self.expr[u] = v = self.name()
      self.emit(f"const {CTYPE[u.dtype]} {v}[1] = {{{self.expr[src]}}};")
    else: self.scalar(u, f"{self.expr[src]}[0]")

  def movement(self, u: UOp) -> None:
    src = u.src[0]
    if u.shape == (): self.expr[u] = self.expr[src]; return   # a movement op of a scalar is the scalar
    offset, strides = view_of(u)
    if offset == 0 and strides == contiguous_strides(u.shape) and prod(u.shape) == prod(src.shape):
      self.expr[u] = self.expr[src]; return   # the identity view: share the buffer
    v = self.array(u)
    if prod(u.shape) == 0: return
    loops = [(k, d, s) for k, (d, s) in enumerate(zip(u.shape, strides)) if d != 1]
    at = " + ".join([str(offset)] * bool(offset) + [f"i{k} * {s}" for k, _, s in loops if s]) or "0"
    head = " ".join(f"for (long i{k} = 0; i{k} < {d}; i{k}++)" for k, d, _ in loops)
    self.emit(f"{{ long o = 0; {head} {v}[o++] = {self.elem(src, at)}; }}")

  def reduce(self, u: UOp) -> None:
    src, (rop, k) = u.src[0], u.arg
    inner, n_out = prod(src.shape[len(src.shape) - k:]), prod(u.shape)
    if inner == 0 and n_out:
      raise RenderError(f"REDUCE over an empty axis of {src.shape} has no value (no first element to start from)")
    fn = f"uopc_{rop.name.lower()}_{SUFFIX[u.dtype]}"
    t, s = CTYPE[u.dtype], self.expr[src]
    if u.shape == ():
      self.expr[u] = v = self.name()
      self.emit(f"{t} {v} = {s}[0];")
      if inner > 1: self.emit(f"for (long j = 1; j < {inner}; j++) {v} = {fn}({v}, {s}[j]);")
      return
    v = self.array(u)
    self.emit(f"for (long o = 0; o < {n_out}; o++) {{ {t} acc = {s}[o * {inner}]; "
              f"for (long j = 1; j < {inner}; j++) acc = {fn}(acc, {s}[o * {inner} + j]); {v}[o] = acc; }}")


def alu_expr(u: UOp, args: list[str]) -> str:
  """The C expression of an ALU node ``u`` applied to operand expressions ``args``.

  >>> from uopc.uop import UOp
  >>> alu_expr(UOp.param(0, dtypes.f32).cast(dtypes.i32), ["x"]), alu_expr(UOp.param(0) // 3, ["x", "3"])
  ('uopc_cast_f32_i32(x)', 'uopc_floordiv_i32(x, 3)')
  """
  op = u.op
  if op is Ops.WHERE: return f"({args[0]} ? {args[1]} : {args[2]})"
  if op is Ops.CMPLT: return f"(uint8_t)({args[0]} < {args[1]})"
  if op is Ops.CMPNE: return f"(uint8_t)({args[0]} != {args[1]})"
  if op is Ops.CAST: return f"uopc_cast_{SUFFIX[u.src[0].dtype]}_{SUFFIX[u.dtype]}({args[0]})"
  return f"uopc_{op.name.lower()}_{SUFFIX[u.dtype]}({', '.join(args)})"


def param_name(p: UOp) -> str:
  """The C name of a PARAM's pointer argument: ``p`` and its slot."""
  return "p" + number(p.arg.slot)


def render_kernel(u: UOp, name: str) -> Kernel:
  """``u`` (a CALL-free kernel DAG, see ``prepare``) as the C function ``name`` (made an identifier by ``ident``)."""
  name = ident(name)
  params = kernel_params(u)
  w = _Writer()
  for n in u.toposort(): w.node(n)
  if u.shape == (): w.emit(f"out[0] = {w.expr[u]};")
  elif prod(u.shape): w.emit(f"memcpy(out, {w.expr[u]}, {prod(u.shape)} * sizeof({CTYPE[u.dtype]}));")
  args = [f"const {CTYPE[p.dtype]} *{param_name(p)}" for p in params] + [f"{CTYPE[u.dtype]} *out"]
  code = "\n".join([f"static int {name}({', '.join(args)}) {{", *w.lines, "  return uopc_failed;", "}"])
  return Kernel(name, tuple(params), u.dtype, u.shape, code)
