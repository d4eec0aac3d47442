/* Constant folds, bounds and guards on the core's nodes (_space_folds.h): uopc/alu.py's exec_alu (ints and bools, and the
 * f32 ops whose double arithmetic is C's bit for bit) and uopc/bounds.py's bounds, exactly (int64 with every overflow
 * checked: past it, Python), and the guards' programs. */
#include "_space.h"
#include <math.h>
#include <string.h>

enum { B_UNKNOWN = 0, B_INT = 1, B_FLOAT = 2, B_FCONST = 3, B_PYTHON = 4 };   /* a node's bounds: known ints, (-inf, inf), ... */
/* a program's opcodes (folds.py's OPCODES) */
enum { P_LIT = 0, P_VALUE, P_DTYPE, P_ISCONST, P_LO, P_HI,
       P_ADD = 10, P_SUB, P_MUL, P_FDIV, P_FMOD, P_LT, P_LE, P_EQ, P_NE, P_GT, P_GE, P_AND, P_OR, P_NOT, P_WRAP };
#define PROG_MAX 64   /* pairs in one program: its stack never grows past it */
#define I32_MIN (-2147483648LL)
#define I32_MAX 2147483647LL

static int64_t wrap_i32(int64_t v) { return (int64_t)(int32_t)(uint32_t)(uint64_t)v; }   /* truncate(dtypes.i32, v) */

/* Python's // and % (floor), for b != 0 and not (INT64_MIN, -1). */
static int64_t floor_div(int64_t a, int64_t b) { int64_t q = a / b; return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q; }
static int64_t floor_mod(int64_t a, int64_t b) { int64_t r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }

static PyObject *host(Space *s) { return s->templates.fill_cb; }   /* templates.py's RuleTemplates */

/* The per-node arrays hold node x: 0, or -1 on error (new nodes' bounds unknown). */
static int need_nodes(SpaceFolds *f, int32_t x) {
  if (x < f->cap_nodes) return 0;
  int64_t old = f->cap_nodes;
  void **const arrays[] = {(void **)&f->lo, (void **)&f->hi, (void **)&f->bst};
  const size_t elems[] = {sizeof(int64_t), sizeof(int64_t), 1};
  if (grow_parallel(&f->cap_nodes, (int64_t)x + 1, arrays, elems, 3) < 0) return -1;
  memset(f->bst + old, B_UNKNOWN, (size_t)(f->cap_nodes - old));
  return 0;
}

/* Node x's dtype code and whether it is a scalar, from its type (asked of Python once per type): 0, or -1 on error. */
static int dtype_of(Space *s, int32_t x, int *dt, int *scalar) {
  SpaceFolds *f = &s->templates.folds;
  int32_t ty = template_type_of(s, x);
  if (ty < 0) return -1;
  if (ty >= f->cap_types || !f->tdt[ty]) {
    int64_t old = f->cap_types;
    void **const arrays[] = {(void **)&f->tdt, (void **)&f->tscalar};
    const size_t elems[] = {1, 1};
    if (grow_parallel(&f->cap_types, (int64_t)ty + 1, arrays, elems, 2) < 0) return -1;
    memset(f->tdt + old, 0, (size_t)(f->cap_types - old));
    int d, sc;
    PyObject *r = PyObject_CallMethod(host(s), "type_info", "i", (int)ty);
    if (!r) return -1;
    int ok = PyArg_ParseTuple(r, "ip", &d, &sc);
    Py_DECREF(r);
    if (!ok) return -1;
    if (d < DT_BOOL || d > DT_OTHER) { PyErr_SetString(PyExc_ValueError, "a dtype code is 0 to 3"); return -1; }
    f->tdt[ty] = (int8_t)(d + 1); f->tscalar[ty] = (int8_t)sc;
  }
  *dt = f->tdt[ty] - 1; *scalar = f->tscalar[ty];
  return 0;
}

static void set_bounds(SpaceFolds *f, int32_t x, int st, int64_t lo, int64_t hi) { f->bst[x] = (uint8_t)st; f->lo[x] = lo; f->hi[x] = hi; }

static void full(SpaceFolds *f, int32_t x, int dt) {   /* _FULL[dtype] */
  if (dt == DT_I32) set_bounds(f, x, B_INT, I32_MIN, I32_MAX);
  else if (dt == DT_BOOL) set_bounds(f, x, B_INT, 0, 1);
  else set_bounds(f, x, dt == DT_F32 ? B_FLOAT : B_PYTHON, 0, 0);
}

static int is_op(const SpaceFolds *f, int32_t op, int oc) { return f->code_of[oc] == op; }

/* A constant's bounds: its value (int or bool); an f32 constant's is B_FCONST, its double's bits in lo (B_PYTHON
 * where Python gives none). Asked of Python once. 0, or -1. */
static int const_bounds(Space *s, int32_t x) {
  PyObject *r = PyObject_CallMethod(host(s), "value", "i", (int)x);
  if (!r) return -1;
  SpaceFolds *f = &s->templates.folds;
  if (r == Py_None) { set_bounds(f, x, B_PYTHON, 0, 0); Py_DECREF(r); return 0; }
  if (PyFloat_Check(r)) {
    double d = PyFloat_AS_DOUBLE(r);
    int64_t bits;
    memcpy(&bits, &d, sizeof bits);
    set_bounds(f, x, B_FCONST, bits, 0);
    Py_DECREF(r);
    return 0;
  }
  long long v = PyLong_AsLongLong(r);
  Py_DECREF(r);
  if (v == -1 && PyErr_Occurred()) return -1;
  set_bounds(f, x, B_INT, v, v);
  return 0;
}

/* The bounds of a binary op on int bounds (a0, a1), (b0, b1): _binary_bounds. 1 set, 0 full range, -1 Python (overflow). */
static int binary_bounds(const SpaceFolds *f, int32_t op, int64_t a0, int64_t a1, int64_t b0, int64_t b1, int64_t *lo, int64_t *hi) {
  if (is_op(f, op, OC_ADD)) return __builtin_add_overflow(a0, b0, lo) || __builtin_add_overflow(a1, b1, hi) ? -1 : 1;
  if (is_op(f, op, OC_MUL)) {
    int64_t p[4];
    if (__builtin_mul_overflow(a0, b0, &p[0]) || __builtin_mul_overflow(a0, b1, &p[1]) || __builtin_mul_overflow(a1, b0, &p[2]) ||
        __builtin_mul_overflow(a1, b1, &p[3])) return -1;
    *lo = *hi = p[0];
    for (int i = 1; i < 4; i++) { if (p[i] < *lo) *lo = p[i]; if (p[i] > *hi) *hi = p[i]; }
    return 1;
  }
  if (is_op(f, op, OC_MAX)) { *lo = a0 > b0 ? a0 : b0; *hi = a1 > b1 ? a1 : b1; return 1; }
  if (is_op(f, op, OC_FLOORDIV) && b0 == b1 && b0 > 0) { *lo = floor_div(a0, b0); *hi = floor_div(a1, b0); return 1; }
  if (is_op(f, op, OC_FLOORMOD) && b0 == b1 && b0 > 0) {
    if (0 <= a0 && a1 < b0) { *lo = a0; *hi = a1; } else { *lo = 0; *hi = b0 - 1; }
    return 1;
  }
  if (is_op(f, op, OC_CMPLT)) {
    if (a1 < b0) *lo = *hi = 1;
    else if (a0 >= b1) *lo = *hi = 0;
    else { *lo = 0; *hi = 1; }
    return 1;
  }
  if (is_op(f, op, OC_CMPNE)) {
    if (a1 < b0 || b1 < a0) *lo = *hi = 1;
    else if (a0 == a1 && a1 == b0 && b0 == b1) *lo = *hi = 0;
    else { *lo = 0; *hi = 1; }
    return 1;
  }
  return 0;
}

/* Node y's bounds from its sources' (known): _bounds, for a scalar int or bool node of an ALU op or RANGE. 0, or -1. */
static int node_bounds(Space *s, int32_t y, int dt) {
  SpaceFolds *f = &s->templates.folds;
  int32_t op = s->op[y], n = s->src_n[y];
  const int32_t *src = s->srcs + s->src_off[y];
  int64_t lo = 0, hi = 0;
  int st = B_INT;
  for (int32_t i = 0; i < n; i++) if (f->bst[src[i]] == B_PYTHON) { set_bounds(f, y, B_PYTHON, 0, 0); return 0; }
  if (is_op(f, op, OC_RANGE)) {
    if (f->bst[src[0]] != B_INT || f->hi[src[0]] == INT64_MIN) st = B_PYTHON;
    else { lo = 0; hi = f->hi[src[0]] - 1 > 0 ? f->hi[src[0]] - 1 : 0; }
  } else if (is_op(f, op, OC_CAST)) {
    int cdt, csc;
    int32_t c = src[0];
    if (dtype_of(s, c, &cdt, &csc) < 0) return -1;   /* (may call Python: read the arrays again) */
    src = s->srcs + s->src_off[y];
    if (cdt != DT_BOOL) { full(f, y, dt); return 0; }
    else if (f->bst[c] != B_INT) st = B_PYTHON;
    else if (f->bst[src[0]] != B_INT) st = B_PYTHON;
    else { lo = f->lo[c]; hi = f->hi[c]; }
  } else if (is_op(f, op, OC_WHERE) && n == 3) {
    int32_t c = src[0], a = src[1], b = src[2];
    if (f->bst[c] != B_INT || f->bst[a] != B_INT || f->bst[b] != B_INT) st = B_PYTHON;
    else if (f->lo[c]) { lo = f->lo[a]; hi = f->hi[a]; }
    else if (!f->hi[c]) { lo = f->lo[b]; hi = f->hi[b]; }
    else { lo = f->lo[a] < f->lo[b] ? f->lo[a] : f->lo[b]; hi = f->hi[a] > f->hi[b] ? f->hi[a] : f->hi[b]; }
  } else if (n != 2) { full(f, y, dt); return 0; }
  else {
    int ba = f->bst[src[0]], bb = f->bst[src[1]];
    if (ba == B_FLOAT && bb == B_FLOAT && (is_op(f, op, OC_CMPLT) || is_op(f, op, OC_CMPNE))) { lo = 0; hi = 1; }   /* (-inf, inf) both */
    else if (ba != B_INT || bb != B_INT) st = B_PYTHON;
    else {
      int r = binary_bounds(f, op, f->lo[src[0]], f->hi[src[0]], f->lo[src[1]], f->hi[src[1]], &lo, &hi);
      if (r < 0) st = B_PYTHON;
      else if (r == 0) { full(f, y, dt); return 0; }
    }
  }
  if (st == B_INT && dt == DT_I32 && (lo < I32_MIN || hi > I32_MAX)) { full(f, y, dt); return 0; }   /* might wrap: give up */
  set_bounds(f, y, st, lo, hi);
  return 0;
}

/* Node x's bounds computed (f->bst[x] set), with those below it they need: bounds(), iteratively. 0, or -1 on error. */
static int bounds_of(Space *s, int32_t x) {
  SpaceFolds *f = &s->templates.folds;
  if (need_nodes(f, x) < 0) return -1;   /* a node's sources have smaller ids */
  if (f->bst[x]) return 0;
  int64_t top = 0;
  if (grow((void **)&f->stack, &f->cap_stack, 1, sizeof(int32_t)) < 0) return -1;
  f->stack[top++] = x;
  while (top) {
    int32_t y = f->stack[top - 1];
    if (f->bst[y]) { top--; continue; }
    int32_t op = s->op[y];
    if (is_op(f, op, OC_CONST) && s->src_n[y] == 0) { if (const_bounds(s, y) < 0) return -1; top--; continue; }
    int dt, sc;
    if (dtype_of(s, y, &dt, &sc) < 0) return -1;
    int needs = sc && (dt == DT_BOOL || dt == DT_I32) && (f->alu[op] || is_op(f, op, OC_RANGE));
    if (!needs) {
      if (is_op(f, op, OC_RANGE)) set_bounds(f, y, B_PYTHON, 0, 0);   /* bounds.py reads its source's, not computed */
      else full(f, y, dt);
      top--; continue;
    }
    int32_t n = s->src_n[y];
    if (grow((void **)&f->stack, &f->cap_stack, top + n, sizeof(int32_t)) < 0) return -1;
    int64_t before = top;
    for (int32_t i = 0; i < n; i++) { int32_t c = s->srcs[s->src_off[y] + i]; if (!f->bst[c]) f->stack[top++] = c; }
    if (top > before) continue;
    top--;
    if (node_bounds(s, y, dt) < 0) return -1;
    if (tick(s, 1) < 0) return -1;
  }
  return 0;
}

/* Python's answer `r` to const() (a new reference, or NULL): (node, type id); the node's type set, and the node kept under
 * `key` in m. The node, or -1 on error. */
static int32_t keep_const(Space *s, U64Map *m, uint64_t key, PyObject *r) {
  if (!r) return -1;
  int node, ty;
  int ok = PyArg_ParseTuple(r, "ii", &node, &ty);
  Py_DECREF(r);
  if (!ok || template_set_type(s, node, ty) < 0 || map_put(m, key, node) < 0) return -1;
  return node;
}

/* The constant node of `v` in dtype dt (made by Python once per value: make_const), or FOLD_PYTHON where `v` is no value
 * of it; -1 on error. */
static int32_t const_node(Space *s, int dt, int64_t v) {
  SpaceFolds *f = &s->templates.folds;
  if ((dt == DT_BOOL && (v < 0 || v > 1)) || (dt != DT_BOOL && (v < I32_MIN || v > I32_MAX)) || dt == DT_OTHER) return FOLD_PYTHON;
  uint64_t key = (((uint64_t)dt << 32) | (uint32_t)(int32_t)v) + 1;
  int32_t h = map_get(&f->consts, key, -1);
  if (h >= 0) return h;
  return keep_const(s, &f->consts, key, PyObject_CallMethod(host(s), "const", "iL", dt, (long long)v));   /* may make a node */
}

/* The f32 constant of `v` (an f32 value, not NaN: alu.py makes every NaN its one math.nan), made by Python once per
 * value (by its bits: -0.0 is not 0.0); -1 on error. */
static int32_t fconst_node(Space *s, double v) {
  SpaceFolds *f = &s->templates.folds;
  uint64_t key;
  memcpy(&key, &v, sizeof key);
  key += 1;   /* (all ones is a NaN, never made) */
  int32_t h = map_get(&f->fconsts, key, -1);
  if (h >= 0) return h;
  return keep_const(s, &f->fconsts, key, PyObject_CallMethod(host(s), "const", "id", DT_F32, v));
}

static double f32_round(double v) { return (double)(float)v; }   /* dtype.py's f32_round: struct's (float) cast, inf past FLT_MAX */

static double fvalue(const SpaceFolds *f, int32_t c) {   /* a constant's value as a double: an f32's, or an int's */
  if (f->bst[c] == B_INT) return (double)f->lo[c];
  double d;
  memcpy(&d, &f->lo[c], sizeof d);
  return d;
}

/* exec_alu where a source or the result is an f32: the ops whose double arithmetic is C's, bit for bit (operands rounded
 * to f32 where alu.py rounds them, the result rounded; f32 + and * are exact through doubles). Node x's sources c[0..n)
 * are constants. A NaN result, //, % and the unary ops (libm's or Python's math): Python. A node, FOLD_NO_RESULT or
 * FOLD_PYTHON; -1 on error. */
static int32_t fold_float(Space *s, int32_t x, int dt, const int32_t *c, int32_t n) {
  SpaceFolds *f = &s->templates.folds;
  int32_t op = s->op[x];
  double r;
  if (n == 1 && is_op(f, op, OC_CAST)) {
    double v = fvalue(f, c[0]);
    if (f->bst[c[0]] == B_INT) { if (dt != DT_F32) return FOLD_PYTHON; r = v; }   /* an int to f32: float(v) */
    else if (dt == DT_BOOL) return const_node(s, DT_BOOL, v != 0.0);   /* bool(nan) is True, as nan != 0 */
    else if (dt == DT_I32) {   /* C truncates toward zero; not finite or out of range: undefined, no rewrite */
      if (!isfinite(v) || trunc(v) < (double)I32_MIN || trunc(v) >= -(double)I32_MIN) return FOLD_NO_RESULT;
      return const_node(s, DT_I32, (int64_t)trunc(v));
    } else r = v;
  } else if (n == 2 && (is_op(f, op, OC_CMPLT) || is_op(f, op, OC_CMPNE))) {   /* as the constants hold them: no rounding */
    double a = fvalue(f, c[0]), b = fvalue(f, c[1]);
    return dt == DT_BOOL ? const_node(s, DT_BOOL, is_op(f, op, OC_CMPLT) ? a < b : a != b) : FOLD_PYTHON;
  } else if (n == 2 && dt == DT_F32) {
    double a = f32_round(fvalue(f, c[0])), b = f32_round(fvalue(f, c[1]));
    if (is_op(f, op, OC_ADD)) r = a + b;
    else if (is_op(f, op, OC_MUL)) r = a * b;
    else if (is_op(f, op, OC_MAX)) {   /* IEEE maximum (alu.py's _max): NaN if either, +0.0 above -0.0 */
      if (isnan(a) || isnan(b)) return FOLD_PYTHON;
      r = a == b ? (signbit(a) ? b : a) : b > a ? b : a;
    } else return FOLD_PYTHON;
  } else if (n == 3 && dt == DT_F32 && is_op(f, op, OC_WHERE)) r = fvalue(f, c[0]) != 0.0 ? f32_round(fvalue(f, c[1])) : f32_round(fvalue(f, c[2]));
  else return FOLD_PYTHON;
  if (dt != DT_F32) return FOLD_PYTHON;
  r = f32_round(r);   /* truncate */
  return isnan(r) ? FOLD_PYTHON : fconst_node(s, r);
}

/* exec_alu(op, dtype, values) for int and bool values (binary ops as exec_binary): 1 with *r, 0 undefined (no
 * rewrite), FOLD_PYTHON where C does not compute it (a unary op's float). */
static int exec_int(const SpaceFolds *f, int32_t op, int dt, const int64_t *v, int32_t n, int64_t *r) {
  if (n == 2) {
    int64_t a = v[0], b = v[1];
    if (is_op(f, op, OC_CMPLT)) { *r = a < b; return 1; }   /* exec_binary returns the comparison as it is */
    if (is_op(f, op, OC_CMPNE)) { *r = a != b; return 1; }
    if (is_op(f, op, OC_ADD)) *r = a + b;   /* |a|, |b| < 2**31: no overflow */
    else if (is_op(f, op, OC_MUL)) *r = a * b;
    else if (is_op(f, op, OC_MAX)) *r = b > a ? b : a;
    else if (is_op(f, op, OC_FLOORDIV)) { if (b == 0 || (a == I32_MIN && b == -1)) return 0; *r = floor_div(a, b); }
    else if (is_op(f, op, OC_FLOORMOD)) { if (b == 0) return 0; *r = floor_mod(a, b); }
    else return 0;
  } else if (n == 3 && is_op(f, op, OC_WHERE)) *r = v[0] ? v[1] : v[2];
  else if (n == 1 && is_op(f, op, OC_CAST)) *r = v[0];
  else return FOLD_PYTHON;
  *r = dt == DT_I32 ? wrap_i32(*r) : *r != 0;   /* truncate */
  return 1;
}

/* Fold: node x's value from its constant sources (_fold). */
static int32_t fold_alu(Space *s, int32_t x) {
  SpaceFolds *f = &s->templates.folds;
  int32_t n = s->src_n[x];
  int64_t v[3];
  for (int32_t i = 0; i < n; i++) if (!is_op(f, s->op[s->srcs[s->src_off[x] + i]], OC_CONST)) return FOLD_NO_RESULT;
  int dt, sc, floats = 0;
  int32_t c[3];
  if (dtype_of(s, x, &dt, &sc) < 0) return -1;
  if (n > 3 || !sc || dt == DT_OTHER) return FOLD_PYTHON;
  for (int32_t i = 0; i < n; i++) {
    c[i] = s->srcs[s->src_off[x] + i];
    if (bounds_of(s, c[i]) < 0) return -1;
    if (f->bst[c[i]] != B_INT && f->bst[c[i]] != B_FCONST) return FOLD_PYTHON;
    floats |= f->bst[c[i]] == B_FCONST;
    v[i] = f->lo[c[i]];
  }
  if (floats || dt == DT_F32) return fold_float(s, x, dt, c, n);
  int64_t r;
  int k = exec_int(f, s->op[x], dt, v, n, &r);
  return k == 1 ? const_node(s, dt, r) : k == 0 ? FOLD_NO_RESULT : FOLD_PYTHON;
}

/* Pinned: the scalar int or bool node x as the constant its bounds pin it to (_const_bounds). */
static int32_t fold_pinned(Space *s, int32_t x) {
  SpaceFolds *f = &s->templates.folds;
  int dt, sc;
  if (dtype_of(s, x, &dt, &sc) < 0) return -1;
  if (!sc || dt == DT_F32) return FOLD_NO_RESULT;
  if (dt == DT_OTHER) return FOLD_PYTHON;
  if (bounds_of(s, x) < 0) return -1;
  if (f->bst[x] != B_INT) return FOLD_PYTHON;
  if (f->lo[x] != f->hi[x]) return FOLD_NO_RESULT;
  return const_node(s, dt, dt == DT_I32 ? wrap_i32(f->lo[x]) : f->lo[x] != 0);
}

int32_t fold_result(Space *s, int32_t k, const int32_t *slots) {
  SpaceFolds *f = &s->templates.folds;
  int32_t x = slots[f->slot[k]];
  return f->kind[k] == FOLD_ALU ? fold_alu(s, x) : fold_pinned(s, x);
}

/* A read of bound node x (P_VALUE, P_DTYPE, P_ISCONST, P_LO, P_HI) into *v: 1, 0 where not computed here, -1 on error. */
static int read_node(Space *s, int64_t code, int32_t x, int64_t *v) {
  SpaceFolds *f = &s->templates.folds;
  int dt, sc;
  if (code == P_DTYPE) { if (dtype_of(s, x, &dt, &sc) < 0) return -1; *v = dt; return 1; }
  if (code == P_ISCONST) { *v = is_op(f, s->op[x], OC_CONST); return 1; }
  if (code == P_VALUE && !is_op(f, s->op[x], OC_CONST)) return 0;
  if (bounds_of(s, x) < 0) return -1;
  if (f->bst[x] != B_INT) return 0;
  *v = code == P_HI ? f->hi[x] : f->lo[x];
  return 1;
}

/* A binary opcode on (a, oa) and (b, ob) (o*: computed here): its value into *r, and whether it is computed here.
 * `and` and `or` do not look at b where a decides (Python's short circuit). */
static int binary_op(int64_t code, int64_t a, int64_t b, int oa, int ob, int64_t *r) {
  int o = oa && ob;
  *r = 0;
  switch (code) {
    case P_AND: *r = a ? b : a; return oa && (!a || ob);
    case P_OR: *r = a ? a : b; return oa && (a || ob);
    case P_ADD: return o && !__builtin_add_overflow(a, b, r);
    case P_SUB: return o && !__builtin_sub_overflow(a, b, r);
    case P_MUL: return o && !__builtin_mul_overflow(a, b, r);
    case P_FDIV: case P_FMOD:   /* Python raises ZeroDivisionError: a stuck step, Python's */
      if (!o || b == 0 || (a == INT64_MIN && b == -1)) return 0;
      *r = code == P_FDIV ? floor_div(a, b) : floor_mod(a, b);
      return 1;
    case P_LT: *r = a < b; return o;
    case P_LE: *r = a <= b; return o;
    case P_EQ: *r = a == b; return o;
    case P_NE: *r = a != b; return o;
    case P_GT: *r = a > b; return o;
    default: *r = a >= b; return o;   /* P_GE (read_prog let no other opcode in) */
  }
}

/* Run program `at` (n pairs) on the match `slots`: 1 with *out, 0 where its value is not computed here (Python), -1 on
 * error. A value that is not computed here (a float's, an overflow's, a division by zero's) makes the program's not,
 * except where `and` and `or` do not look at it. */
static int run(Space *s, int32_t at, int32_t n, const int32_t *slots, int64_t *out) {
  SpaceFolds *f = &s->templates.folds;
  int64_t v[PROG_MAX];
  uint8_t ok[PROG_MAX];
  int top = 0;
  for (int32_t i = 0; i < n; i++) {
    int64_t code = f->prog[2 * (at + i)], arg = f->prog[2 * (at + i) + 1];
    if (code == P_LIT) { v[top] = arg; ok[top++] = 1; continue; }
    if (code < P_ADD) {
      int r = read_node(s, code, slots[arg], &v[top]);
      if (r < 0) return -1;
      ok[top++] = (uint8_t)r;
      continue;
    }
    if (code == P_NOT || code == P_WRAP) { v[top - 1] = code == P_NOT ? !v[top - 1] : wrap_i32(v[top - 1]); continue; }
    top -= 2;
    ok[top] = (uint8_t)binary_op(code, v[top], v[top + 1], ok[top], ok[top + 1], &v[top]);
    top++;
  }
  *out = v[0];
  return ok[0];
}

int guard_choose(Space *s, int32_t k, int32_t *slots, int32_t n_slots) {
  SpaceFolds *f = &s->templates.folds;
  int64_t g;
  int r = run(s, f->guard_at[k], f->guard_n[k], slots, &g);
  if (r <= 0) return r < 0 ? -1 : FOLD_PYTHON;
  if (!g) return 0;
  for (int32_t j = 0; j < f->n_consts[k]; j++) {
    int32_t q = FOLD_MAX_CONSTS * k + j, like = f->const_like[q];
    int64_t v;
    int dt = -1 - like, sc = 1;
    if ((r = run(s, f->const_at[q], f->const_n[q], slots, &v)) <= 0) return r < 0 ? -1 : FOLD_PYTHON;
    if (like >= 0 && dtype_of(s, slots[like], &dt, &sc) < 0) return -1;
    if (!sc) return FOLD_PYTHON;   /* const_like broadcasts to a shape: Python */
    int32_t h = const_node(s, dt, v);
    if (h < 0) return h == FOLD_PYTHON ? FOLD_PYTHON : -1;
    slots[n_slots + j] = h;
  }
  return 1;
}

/* Read a program (a tuple of (opcode, operand) pairs) into prog: its start, or -1 with an exception set. */
static int32_t read_prog(SpaceFolds *f, PyObject *p, int32_t n_slots, int32_t *n) {
  if (!PyTuple_Check(p) || PyTuple_GET_SIZE(p) > PROG_MAX || PyTuple_GET_SIZE(p) == 0) {
    PyErr_SetString(PyExc_ValueError, "a program: a tuple of 1 to 64 (opcode, operand) pairs"); return -1;
  }
  *n = (int32_t)PyTuple_GET_SIZE(p);
  if (grow((void **)&f->prog, &f->cap_prog, 2 * (f->n_prog + *n), sizeof(int64_t)) < 0) return -1;
  int32_t at = (int32_t)f->n_prog, depth = 0;
  for (int32_t i = 0; i < *n; i++) {
    long long code, arg;
    if (!PyArg_ParseTuple(PyTuple_GET_ITEM(p, i), "LL", &code, &arg)) return -1;
    int reads = code >= P_LIT && code < P_ADD, unary = code == P_NOT || code == P_WRAP;
    if ((code > P_HI && code < P_ADD) || code < P_LIT || code > P_WRAP || (reads && code != P_LIT && (arg < 0 || arg >= n_slots))) {
      PyErr_SetString(PyExc_ValueError, "a program's opcode or slot"); return -1;
    }
    depth += reads ? 1 : unary ? 0 : -1;
    if (depth < 1) { PyErr_SetString(PyExc_ValueError, "a program takes more values than it has"); return -1; }
    f->prog[2 * (at + i)] = code; f->prog[2 * (at + i) + 1] = arg;
  }
  if (depth != 1) { PyErr_SetString(PyExc_ValueError, "a program leaves one value"); return -1; }
  f->n_prog += *n;
  return at;
}

int folds_read(Space *s, int32_t k, int32_t n_tables, PyObject *form) {
  SpaceFolds *f = &s->templates.folds;
  if (!f->kind) {
    size_t n = (size_t)(n_tables ? n_tables : 1);
    f->kind = PyMem_Calloc(n, 1); f->slot = PyMem_Calloc(n, sizeof(int32_t));
    f->guard_at = PyMem_Calloc(n, sizeof(int32_t)); f->guard_n = PyMem_Calloc(n, sizeof(int32_t)); f->n_consts = PyMem_Calloc(n, sizeof(int32_t));
    f->const_like = PyMem_Calloc(n * FOLD_MAX_CONSTS, sizeof(int32_t)); f->const_at = PyMem_Calloc(n * FOLD_MAX_CONSTS, sizeof(int32_t));
    f->const_n = PyMem_Calloc(n * FOLD_MAX_CONSTS, sizeof(int32_t));
    if (!f->kind || !f->slot || !f->guard_at || !f->guard_n || !f->n_consts || !f->const_like || !f->const_at || !f->const_n) { PyErr_NoMemory(); return -1; }
  }
  if (form == Py_None) return 0;
  int kind, slot;
  PyObject *guard, *consts;
  if (!PyArg_ParseTuple(form, "iiOO!", &kind, &slot, &guard, &PyTuple_Type, &consts)) return -1;
  int32_t n_slots = s->patterns.rule_slots[k];
  if (kind < FOLD_ALU || kind > FOLD_REBUILD || ((kind != FOLD_GUARDED) && (slot < 0 || slot >= n_slots)) ||
      PyTuple_GET_SIZE(consts) > FOLD_MAX_CONSTS) {
    PyErr_SetString(PyExc_ValueError, "a fold's kind, slot or constants"); return -1;
  }
  f->kind[k] = (int8_t)kind; f->slot[k] = slot; f->on = 1;
  if (kind != FOLD_GUARDED && kind != FOLD_REBUILD) return 0;
  if ((f->guard_at[k] = read_prog(f, guard, n_slots, &f->guard_n[k])) < 0) return -1;
  f->n_consts[k] = (int32_t)PyTuple_GET_SIZE(consts);
  for (int32_t j = 0; j < f->n_consts[k]; j++) {
    int like;
    PyObject *p;
    int32_t q = FOLD_MAX_CONSTS * k + j;
    if (!PyArg_ParseTuple(PyTuple_GET_ITEM(consts, j), "iO", &like, &p)) return -1;
    if (like >= n_slots || like < -1 - DT_F32) { PyErr_SetString(PyExc_ValueError, "a constant's like: a slot or -1 - dtype code"); return -1; }
    f->const_like[q] = like;
    if ((f->const_at[q] = read_prog(f, p, n_slots, &f->const_n[q])) < 0) return -1;
  }
  return 0;
}

int folds_codes(Space *s, PyObject *codes) {
  SpaceFolds *f = &s->templates.folds;
  PyObject *ops, *alu;
  if (!PyArg_ParseTuple(codes, "O!O!", &PyTuple_Type, &ops, &PyTuple_Type, &alu) || PyTuple_GET_SIZE(ops) != OC_N) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "the folds' op codes");
    return -1;
  }
  for (int i = 0; i < OC_N; i++) f->code_of[i] = (int32_t)PyLong_AsLong(PyTuple_GET_ITEM(ops, i));
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(alu); i++) {
    long c = PyLong_AsLong(PyTuple_GET_ITEM(alu, i));
    if (c < 0 || c > 255) { if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "an op code is a byte"); return -1; }
    f->alu[c] = 1;
  }
  return PyErr_Occurred() ? -1 : 0;
}

void folds_free(SpaceFolds *f) {
  void *arrays[] = {f->kind, f->slot, f->guard_at, f->guard_n, f->n_consts, f->const_like, f->const_at, f->const_n, f->prog, f->lo, f->hi,
                    f->bst, f->tdt, f->tscalar, f->stack};
  for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++) PyMem_Free(arrays[i]);
  map_free(&f->consts);
  map_free(&f->fconsts);
}
