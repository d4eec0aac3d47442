/* A batch of graphs as codec rows, from the native core's nodes: cluster/codec.py's Codec.encode without a UOp walked
 * (_space_rows.h). */
#include "_space.h"
#include "_space_rows.h"
#include <string.h>

#define ROWS_BASE INT32_MIN   /* a stamp: the base's node, known to every stream with its ref -1 - i */

void rows_free(struct SpaceRows *r) {
  if (!r) return;
  Py_CLEAR(r->labels);
  void *arrays[] = {r->base, r->roots, r->stack, r->fidx, r->fstamp};
  for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++) PyMem_Free(arrays[i]);
  for (int k = 0; k < ROWS_STREAMS; k++) { PyMem_Free(r->stamp[k]); PyMem_Free(r->ref[k]); }
  PyMem_Free(r);
}

int64_t rows_bytes(const struct SpaceRows *r) {
  if (!r) return 0;
  int64_t streams = 0;
  for (int k = 0; k < ROWS_STREAMS; k++) streams += r->stamp[k] != NULL;
  return r->cap * 8 * streams + (r->cap_base + r->cap_roots + r->cap_stack + 2 * r->cap_fidx) * 4;
}

/* The per-node arrays of the streams in use cover every node so far; the new ones unknown to each. 0, or -1 with
 * MemoryError. */
static int rows_cover(Space *s, struct SpaceRows *r) {
  if (r->cap >= s->n_nodes) return 0;
  int64_t old = r->cap;
  void **arrays[2 * ROWS_STREAMS];
  size_t elems[2 * ROWS_STREAMS];
  int n = 0;
  for (int k = 0; k < ROWS_STREAMS; k++) if (r->stamp[k]) {
    arrays[n] = (void **)&r->stamp[k]; elems[n++] = 4;
    arrays[n] = (void **)&r->ref[k]; elems[n++] = 4;
  }
  if (grow_parallel(&r->cap, s->cap_nodes, arrays, elems, n) < 0) return -1;
  for (int k = 0; k < ROWS_STREAMS; k++) if (r->stamp[k]) memset(r->stamp[k] + old, 0, (size_t)(r->cap - old) * 4);
  return 0;
}

/* Stream k's arrays, made at its first use (every node unknown to it but the base). 0, or -1 with MemoryError. */
static int rows_open(struct SpaceRows *r, int k) {
  if (r->stamp[k]) return 0;
  size_t n = (size_t)(r->cap ? r->cap : 1);
  r->stamp[k] = PyMem_Calloc(n, 4);
  r->ref[k] = PyMem_Malloc(n * 4);
  if (!r->stamp[k] || !r->ref[k]) { PyMem_Free(r->stamp[k]); PyMem_Free(r->ref[k]); r->stamp[k] = r->ref[k] = NULL; PyErr_NoMemory(); return -1; }
  r->gen[k] = 1;
  for (int64_t i = 0; i < r->n_base; i++) { r->stamp[k][r->base[i]] = ROWS_BASE; r->ref[k][r->base[i]] = (int32_t)(-1 - i); }
  return 0;
}

/* Stream number k of a call, checked, its arrays made. 0, or -1 with an exception. */
static int rows_stream(struct SpaceRows *r, long k, const char *what) {
  if (k < 0 || k >= ROWS_STREAMS) { PyErr_Format(PyExc_ValueError, "%s: a stream from 0 to %d", what, ROWS_STREAMS - 1); return -1; }
  return rows_open(r, (int)k);
}

/* Stream k forgets all but the base: a new stamp (past INT32_MAX calls, the stamps cleared and counted again). */
static void rows_forget(struct SpaceRows *r, int k) {
  if (r->gen[k] == INT32_MAX) {
    for (int64_t i = 0; i < r->cap; i++) if (r->stamp[k][i] != ROWS_BASE) r->stamp[k][i] = 0;
    r->gen[k] = 0;
  }
  r->gen[k]++;
}

static inline int rows_known(const struct SpaceRows *r, int k, int32_t x) {
  int32_t t = r->stamp[k][x];
  return t == r->gen[k] || t == ROWS_BASE;
}

/* rows_setup(base, labels): the base's nodes in Codec.base order (ref -1 - i) and NativeSpace._labels. The same base
 * and labels again change nothing (a shard's Codec and Records share one core); another base forgets both streams. */
PyObject *Space_rows_setup(Space *s, PyObject *args) {
  PyObject *base, *labels;
  if (!PyArg_ParseTuple(args, "OO!", &base, &PyList_Type, &labels)) return NULL;
  struct SpaceRows *r = s->rows;
  if (r && r->busy) { PyErr_SetString(PyExc_RuntimeError, "rows_setup: rows() is running"); return NULL; }
  PyObject *seq = PySequence_Fast(base, "rows_setup: base is a list of nodes");
  if (!seq) return NULL;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  int32_t *ids = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(int32_t));
  if (!ids) { Py_DECREF(seq); PyErr_NoMemory(); return NULL; }
  for (Py_ssize_t i = 0; i < n; i++) {
    long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
    if (v == -1 && PyErr_Occurred()) { Py_DECREF(seq); PyMem_Free(ids); return NULL; }
    if (v < 0 || v >= s->n_nodes) { Py_DECREF(seq); PyMem_Free(ids); PyErr_SetString(PyExc_IndexError, "rows_setup: no such node"); return NULL; }
    ids[i] = (int32_t)v;
  }
  Py_DECREF(seq);
  if (r && r->labels == labels && r->n_base == n && (n == 0 || !memcmp(r->base, ids, (size_t)n * sizeof(int32_t)))) {
    PyMem_Free(ids);
    Py_RETURN_NONE;
  }
  if (!r && !(r = s->rows = PyMem_Calloc(1, sizeof(struct SpaceRows)))) { PyMem_Free(ids); PyErr_NoMemory(); return NULL; }
  if ((!r->stamp[0] && (rows_open(r, 0) < 0 || rows_open(r, 1) < 0)) || rows_cover(s, r) < 0) { PyMem_Free(ids); return NULL; }
  for (int k = 0; k < ROWS_STREAMS; k++) if (r->stamp[k])   /* the old base: unknown */
    for (int64_t i = 0; i < r->n_base; i++) r->stamp[k][r->base[i]] = 0;
  PyMem_Free(r->base);
  r->base = ids; r->n_base = r->cap_base = n;
  for (int k = 0; k < ROWS_STREAMS; k++) if (r->stamp[k]) {
    for (Py_ssize_t i = 0; i < n; i++) { r->stamp[k][ids[i]] = ROWS_BASE; r->ref[k][ids[i]] = (int32_t)(-1 - i); }   /* a node twice in
                                                                                     the base: its last ref, as Codec's dict has it */
    rows_forget(r, k);
  }
  Py_INCREF(labels);
  Py_XSETREF(r->labels, labels);
  Py_RETURN_NONE;
}

/* rows_reset(stream): the stream forgets all but the base (a new epoch of codec.Records, or of a Deltas stream). */
PyObject *Space_rows_reset(Space *s, PyObject *arg) {
  long k = PyLong_AsLong(arg);
  if (k == -1 && PyErr_Occurred()) return NULL;
  if (!s->rows) { PyErr_SetString(PyExc_RuntimeError, "rows_setup() first"); return NULL; }
  if (s->rows->busy) { PyErr_SetString(PyExc_RuntimeError, "rows_reset: rows() is running"); return NULL; }
  if (rows_stream(s->rows, k, "rows_reset") < 0 || rows_cover(s, s->rows) < 0) return NULL;
  rows_forget(s->rows, (int)k);
  Py_RETURN_NONE;
}

/* Node x's row, its sources known: (op, dtype, arg, refs), an inner node's fields from its label, a leaf's from its UOp. */
static PyObject *rows_row(Space *s, struct SpaceRows *r, int k, int32_t x) {
  int32_t n = s->src_n[x], label = s->label[x];
  PyObject *src = PyTuple_New(n);
  if (!src) return NULL;
  for (int32_t i = 0; i < n; i++) {
    PyObject *ref = PyLong_FromLong(r->ref[k][s->srcs[s->src_off[x] + i]]);
    if (!ref) { Py_DECREF(src); return NULL; }
    PyTuple_SET_ITEM(src, i, ref);
  }
  if (label >= 0) {
    PyObject *key = label < PyList_GET_SIZE(r->labels) ? PyList_GET_ITEM(r->labels, label) : NULL;
    if (!key || !PyTuple_Check(key) || PyTuple_GET_SIZE(key) != 3) {
      Py_DECREF(src); PyErr_SetString(PyExc_IndexError, "rows: a node without its label (op, dtype, arg)"); return NULL;
    }
    PyObject *row = PyTuple_Pack(4, PyTuple_GET_ITEM(key, 0), PyTuple_GET_ITEM(key, 1), PyTuple_GET_ITEM(key, 2), src);
    Py_DECREF(src);
    return row;
  }
  PyObject *u = s->obj[x];   /* a leaf came in as a UOp (index), and stays bound to it */
  if (!u) { Py_DECREF(src); PyErr_SetString(PyExc_RuntimeError, "rows: a leaf without its UOp"); return NULL; }
  PyObject *op = PyObject_GetAttr(u, str_op), *dtype = op ? PyObject_GetAttr(u, str_dtype) : NULL, *arg = dtype ? PyObject_GetAttr(u, str_arg) : NULL;
  PyObject *row = arg ? PyTuple_Pack(4, op, dtype, arg, src) : NULL;
  Py_XDECREF(op); Py_XDECREF(dtype); Py_XDECREF(arg); Py_DECREF(src);
  return row;
}


/* A packed batch being written (rows(..., packed=1)): each row as int32s in `data`, [field, number of sources, source
 * refs...], a field being an index into `fields`, a list of (op, dtype, arg): an inner node's label's once a call
 * (`fidx`, stamped with the call's `fgen`), a leaf's its own. */
typedef struct { PyObject *fields; int32_t *data; int64_t n, cap; } Packed;

/* The index in p->fields of node x's (op, dtype, arg), added where new. -1 on error. */
static int32_t packed_field(Space *s, struct SpaceRows *r, Packed *p, int32_t x) {
  int32_t label = s->label[x];
  if (label >= 0 && label < r->cap_fidx && r->fstamp[label] == r->fgen) return r->fidx[label];
  PyObject *key;
  if (label >= 0) {
    key = label < PyList_GET_SIZE(r->labels) ? PyList_GET_ITEM(r->labels, label) : NULL;
    if (!key || !PyTuple_Check(key) || PyTuple_GET_SIZE(key) != 3) {
      PyErr_SetString(PyExc_IndexError, "rows: a node without its label (op, dtype, arg)"); return -1;
    }
    Py_INCREF(key);
  } else {
    PyObject *u = s->obj[x];   /* a leaf came in as a UOp (index), and stays bound to it */
    if (!u) { PyErr_SetString(PyExc_RuntimeError, "rows: a leaf without its UOp"); return -1; }
    PyObject *op = PyObject_GetAttr(u, str_op), *dtype = op ? PyObject_GetAttr(u, str_dtype) : NULL, *arg = dtype ? PyObject_GetAttr(u, str_arg) : NULL;
    key = arg ? PyTuple_Pack(3, op, dtype, arg) : NULL;
    Py_XDECREF(op); Py_XDECREF(dtype); Py_XDECREF(arg);
    if (!key) return -1;
  }
  Py_ssize_t at = PyList_GET_SIZE(p->fields);
  int rc = PyList_Append(p->fields, key);
  Py_DECREF(key);
  if (rc < 0) return -1;
  if (at > INT32_MAX) { PyErr_SetString(PyExc_OverflowError, "rows: too many fields"); return -1; }
  if (label >= 0) {
    if (label >= r->cap_fidx) {
      int64_t old = r->cap_fidx;
      void **const arrays[] = {(void **)&r->fidx, (void **)&r->fstamp};
      const size_t elems[] = {4, 4};
      if (grow_parallel(&r->cap_fidx, (int64_t)label + 1, arrays, elems, 2) < 0) return -1;
      memset(r->fstamp + old, 0, (size_t)(r->cap_fidx - old) * 4);
    }
    r->fstamp[label] = r->fgen; r->fidx[label] = (int32_t)at;
  }
  return (int32_t)at;
}

/* Node x's packed row, its sources known. 0 or -1. */
static int packed_row(Space *s, struct SpaceRows *r, int k, int32_t x, Packed *p) {
  int32_t n = s->src_n[x], f = packed_field(s, r, p, x);
  if (f < 0 || grow((void **)&p->data, &p->cap, p->n + 2 + n, sizeof(int32_t)) < 0) return -1;
  p->data[p->n++] = f; p->data[p->n++] = n;
  for (int32_t i = 0; i < n; i++) p->data[p->n++] = r->ref[k][s->srcs[s->src_off[x] + i]];
  return 0;
}

/* Root x's rows not known to stream k into `rows` (fill_bottom_up's post-order, iterative), numbered from *next. 0 or -1. */
static int rows_walk(Space *s, struct SpaceRows *r, int k, int32_t root, PyObject *rows, Packed *p, int64_t *next) {
  int64_t top = 0;
  if (grow((void **)&r->stack, &r->cap_stack, 64, sizeof(int32_t)) < 0) return -1;
  r->stack[top++] = root;   /* an entry: x, or ~x once x's sources are pushed (ready) */
  while (top) {
    int32_t e = r->stack[--top], x = e >= 0 ? e : ~e;
    if (rows_known(r, k, x)) continue;
    if (e >= 0) {
      int32_t n = s->src_n[x];
      if (grow((void **)&r->stack, &r->cap_stack, top + 1 + n, sizeof(int32_t)) < 0) return -1;
      r->stack[top++] = ~x;
      for (int32_t i = 0; i < n; i++) { int32_t c = s->srcs[s->src_off[x] + i]; if (!rows_known(r, k, c)) r->stack[top++] = c; }
      continue;
    }
    if (*next > INT32_MAX) { PyErr_SetString(PyExc_OverflowError, "rows: a ref past 2**31 - 1"); return -1; }
    if (p) { if (packed_row(s, r, k, x, p) < 0) return -1; }
    else {
      PyObject *row = rows_row(s, r, k, x);
      if (!row) return -1;
      int rc = PyList_Append(rows, row);
      Py_DECREF(row);
      if (rc < 0) return -1;
    }
    r->stamp[k][x] = r->gen[k]; r->ref[k][x] = (int32_t)(*next)++;
    if (tick(s, 1) < 0) return -1;
  }
  return 0;
}

/* rows(roots, stream, first[, packed]) -> (rows, refs): the rows of each root's nodes that stream does not know yet, in
 * Codec.encode's order and form, numbered from first, and each root's ref (None for a root of None or -1). packed: the
 * rows as (fields, data, number of rows) instead (Packed: codec.PackedRows; no tuple a row, one bytes to pickle). A root is a
 * node id, or a UOp (indexed first, as index() does: a CALL raises NotNative there, and nothing is written). Stream 0
 * forgets all but the base after the call; another keeps what it wrote until rows_reset(k), or an error (then it
 * forgets: what it wrote before stays valid to a reader, only not referred to again). */
PyObject *Space_rows(Space *s, PyObject *args) {
  PyObject *roots; int k, packed = 0; long long first;
  if (!PyArg_ParseTuple(args, "OiL|p", &roots, &k, &first, &packed)) return NULL;
  struct SpaceRows *r = s->rows;
  if (!r) { PyErr_SetString(PyExc_RuntimeError, "rows_setup() first"); return NULL; }
  if (first < 0) { PyErr_SetString(PyExc_ValueError, "rows: first is a row number (>= 0)"); return NULL; }
  if (r->busy) { PyErr_SetString(PyExc_RuntimeError, "rows: rows() is running"); return NULL; }
  if (rows_stream(r, k, "rows") < 0) return NULL;
  PyObject *seq = PySequence_Fast(roots, "rows: roots is a list of nodes");
  if (!seq) return NULL;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  PyObject *rows = NULL, *refs = NULL;
  Packed p = {NULL, NULL, 0, 0}, *pp = packed ? &p : NULL;
  r->busy = 1;
  if (grow((void **)&r->roots, &r->cap_roots, n ? n : 1, sizeof(int32_t)) < 0) goto fail;
  for (Py_ssize_t i = 0; i < n; i++) {   /* every root a node before anything is written: a root that fails writes nothing */
    PyObject *o = PySequence_Fast_GET_ITEM(seq, i);
    int32_t x;
    if (o == Py_None) x = -1;
    else if (PyLong_Check(o)) {
      long v = PyLong_AsLong(o);
      if (v == -1 && PyErr_Occurred()) goto fail;
      if (v < -1 || v >= s->n_nodes) { PyErr_SetString(PyExc_IndexError, "rows: no such node"); goto fail; }
      x = (int32_t)v;
    } else if ((x = walk(s, o, 1)) < 0) goto fail;
    r->roots[i] = x;
  }
  if (rows_cover(s, r) < 0 || !(rows = PyList_New(0)) || !(refs = PyList_New(n))) goto fail;
  if (packed) {
    p.fields = rows;
    if (r->fgen == INT32_MAX) { if (r->fstamp) memset(r->fstamp, 0, (size_t)r->cap_fidx * 4); r->fgen = 0; }
    r->fgen++;
  }
  if (k == 0) rows_forget(r, 0);   /* a batch of its own: refs from the base only */
  int64_t next = first;
  for (Py_ssize_t i = 0; i < n; i++) {
    int32_t x = r->roots[i];
    PyObject *ref;
    if (x < 0) { ref = Py_None; Py_INCREF(ref); }
    else {
      if (!rows_known(r, k, x) && rows_walk(s, r, k, x, rows, pp, &next) < 0) { rows_forget(r, k); goto fail; }
      if (!(ref = PyLong_FromLong(r->ref[k][x]))) { rows_forget(r, k); goto fail; }
    }
    PyList_SET_ITEM(refs, i, ref);
  }
  r->busy = 0;
  Py_DECREF(seq);
  if (packed) {
    PyObject *data = PyBytes_FromStringAndSize(p.data ? (const char *)p.data : "", (Py_ssize_t)(p.n * 4));
    PyMem_Free(p.data);
    if (!data) { Py_DECREF(rows); Py_DECREF(refs); return NULL; }
    return Py_BuildValue("(NNL)N", rows, data, (long long)(next - first), refs);
  }
  return Py_BuildValue("NN", rows, refs);
fail:
  r->busy = 0;
  PyMem_Free(p.data);
  Py_DECREF(seq); Py_XDECREF(rows); Py_XDECREF(refs);
  return NULL;
}
