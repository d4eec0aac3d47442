"""Whole C files: the runtime, kernels, a descriptor per kernel, and a ``main``.

Two kinds of file:

- a **standalone program** (``uopc emit-c``, ``uopc run --backend c``): one kernel;
  ``./prog [--raw] [VALUE ...]`` takes the PARAM values (slot order, row-major, from
  argv or else stdin) and prints the result as ``uopc run`` would (or, with ``--raw``,
  as ``ok`` and bit-exact tokens). Exit 0, 1 runtime error, 2 bad input;
- a **batch** (tests, ``check-rules``): many kernels; stdin holds queries ``K VALUE ...``
  and every query prints one ``ok ...``/``err ...`` line, so one compilation serves
  thousands of runs.

Each kernel gets a one-line trampoline with a uniform signature and a descriptor (its
PARAM and result types and sizes); one generic runner, ``uopc_run``, reads, calls and
prints for all of them, which keeps a batch of thousands of kernels quick to compile.

>>> from uopc.uop import UOp
>>> from uopc.backend.c import render_kernel
>>> print(descriptor_source(render_kernel(UOp.param(0) + 1, "k0")))
static int k0_call(void *const *a, void *out) { return k0((const int32_t *)a[0], (int32_t *)out); }
static const long k0_sizes[] = {1}, k0_shape[] = {0};
static const uopc_desc k0_desc = {k0_call, 1, "i", k0_sizes, 'i', 0, k0_shape, 1};
"""
from __future__ import annotations

from uopc.uop import prod

from uopc.backend.c import CTYPE, TAG, Kernel
from uopc.backend.runtime import PRELUDE

_RUNNER = r"""
/* ---- the generic runner: read a kernel's PARAMs, call it, print its result */
typedef struct {
  int (*call)(void *const *args, void *out);
  int nparams;
  const char *types;    /* per PARAM: its dtype letter (b, i, f) */
  const long *sizes;    /* per PARAM: its element count */
  char otype;
  int rank;
  const long *shape;
  long nout;
} uopc_desc;

static size_t uopc_elem_size(char t) { return t == 'f' ? sizeof(float) : t == 'i' ? sizeof(int32_t) : sizeof(uint8_t); }

static int uopc_read(char t, void *dst, long n) {
  return t == 'f' ? uopc_read_f32((float *)dst, n) : t == 'i' ? uopc_read_i32((int32_t *)dst, n) : uopc_read_bool((uint8_t *)dst, n);
}

static int uopc_run(const uopc_desc *d, int mode) {
  void **args = (void **)calloc((size_t)d->nparams + 1, sizeof(void *));
  void *out = calloc((size_t)(d->nout ? d->nout : 1), uopc_elem_size(d->otype));
  int k, ok = args != NULL && out != NULL, rc;
  for (k = 0; ok && k < d->nparams; k++) {
    ok = (args[k] = calloc((size_t)(d->sizes[k] ? d->sizes[k] : 1), uopc_elem_size(d->types[k]))) != NULL;
    if (!ok) fprintf(stderr, "out of memory\n");
    else ok = uopc_read(d->types[k], args[k], d->sizes[k]);
  }
  if (!ok) rc = 2;
  else if (!uopc_inputs_done()) rc = 2;
  else {
    uopc_failed = 0;
    if (d->call(args, out)) rc = uopc_report(mode);
    else { uopc_print(out, d->otype, d->shape, d->rank, d->nout, mode); rc = 0; }
  }
  for (k = 0; args && k < d->nparams; k++) free(args[k]);
  free(args);
  free(out);
  return rc;
}
"""


def descriptor_source(k: Kernel) -> str:
  """The trampoline and descriptor of kernel ``k`` (``NAME_desc``)."""
  args = [f"({'const ' + CTYPE[p.dtype]} *)a[{i}]" for i, p in enumerate(k.params)] + [f"({CTYPE[k.dtype]} *)out"]
  sizes = ", ".join(str(prod(p.shape)) for p in k.params) or "0"
  shape = ", ".join(map(str, k.shape)) or "0"
  types = "".join(TAG[p.dtype] for p in k.params)
  return "\n".join([
    f"static int {k.name}_call(void *const *a, void *out) {{ {'' if k.params else '(void)a; '}return {k.name}({', '.join(args)}); }}",
    f"static const long {k.name}_sizes[] = {{{sizes}}}, {k.name}_shape[] = {{{shape}}};",
    f"static const uopc_desc {k.name}_desc = {{{k.name}_call, {len(k.params)}, \"{types}\", {k.name}_sizes, "
    f"'{TAG[k.dtype]}', {len(k.shape)}, {k.name}_shape, {prod(k.shape)}}};"])


_STANDALONE_MAIN = """
int main(int argc, char **argv) {
  int mode = UOPC_READABLE, first = 1;
  if (argc > 1 && strcmp(argv[1], "--raw") == 0) { mode = UOPC_RAW; first = 2; }
  if (argc > first) { uopc_args = argv + first; uopc_nargs = argc - first; }
  return uopc_run(&%s_desc, mode);
}
"""


def standalone_source(k: Kernel, header: str = "") -> str:
  """A complete C program running kernel ``k`` once (``header``: a comment to put on top)."""
  return "\n".join([header + PRELUDE, _RUNNER, k.code, descriptor_source(k), _STANDALONE_MAIN % k.name])


_BATCH_MAIN = """
int main(void) {
  long k;
  while (scanf("%%ld", &k) == 1) {
    if (k < 0 || k >= %d) { fprintf(stderr, "bad input: no kernel %%ld\\n", k); return 2; }
    if (uopc_run(uopc_kernels[k], UOPC_RAW) == 2) return 2;
  }
  return 0;
}
"""


def batch_source(kernels: list[Kernel]) -> str:
  """A C program answering queries ``K VALUE ...`` on stdin, one output line each."""
  parts = [PRELUDE, _RUNNER]
  for k in kernels: parts += [k.code, descriptor_source(k)]
  parts.append(f"static const uopc_desc *const uopc_kernels[] = {{{', '.join(f'&{k.name}_desc' for k in kernels)}}};")
  parts.append(_BATCH_MAIN % len(kernels))
  return "\n".join(parts)
