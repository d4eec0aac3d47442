/* A batch of codec rows made the native core's nodes: cluster/codec.py's Codec.decode, then NativeSpace.to_id, without
   a UOp made for an inner node.

   Its base is the one rows_setup gave (_space_rows.h). A row is (op, dtype, arg, source refs),
   a ref being -1 - i for the base's node i and j >= 0 for row j of the rows read before (`made`, a stream's) and this
   batch's. An inner row is interned from its label, asked of the labeler once a call per distinct (op, dtype, arg) by
   identity (a batch's rows share their fields' objects: the sender wrote them from one label, and pickle keeps that); a
   leaf row is made its UOp (make(op, (), arg, dtype)) and indexed as walk() indexes a leaf: the same ids to_id gives. */
#include "_space.h"
#include "_space_rows.h"
#include "_space_decode.h"
#include <string.h>

/* A call's labels by the identity of (op, dtype, arg): the three objects are held (a reference each) until the call ends,
   so an address is not reused while it is a key (lab_probe and lab_put's table, as the space's). */
struct DecodeLabels { PyObject **key; int32_t *label, *code; int64_t cap, n; };

static void decode_labels_free(struct DecodeLabels *t) {
  if (t->key) for (int64_t i = 0; i < t->cap; i++) if (t->key[3 * i]) for (int k = 0; k < 3; k++) Py_DECREF(t->key[3 * i + k]);
  PyMem_Free(t->key); PyMem_Free(t->label); PyMem_Free(t->code);
}

/* An inner row's label and op code: the space's identity cache (read only: its keys are held by bound UOps, these rows'
   objects are not), this call's, or the labeler (which raises NotNative for a CALL), then kept for the call. 0 or -1. */
static int decode_label(Space *s, struct DecodeLabels *t, PyObject *const key[3], int32_t *label, int32_t *code) {
  int64_t g = lab_probe(s->labels.key, s->labels.cap, key);
  if (s->labels.key[3 * g]) { *label = s->labels.label[g]; *code = s->labels.code[g]; return 0; }
  int64_t j = lab_probe(t->key, t->cap, key);
  if (t->key[3 * j]) { *label = t->label[j]; *code = t->code[j]; return 0; }
  /* the op's code first: an op the core has no code for adds no label */
  PyObject *c = PyDict_GetItemWithError(s->labels.op_codes, key[0]);
  if (!c) { if (!PyErr_Occurred()) PyErr_SetString(PyExc_KeyError, "intern_rows: an op without a code"); return -1; }
  long cv = PyLong_AsLong(c);
  if (cv == -1 && PyErr_Occurred()) return -1;
  PyObject *r = PyObject_CallFunctionObjArgs(s->labels.labeler, key[0], key[1], key[2], NULL);
  if (!r) return -1;
  long v = PyLong_AsLong(r);
  Py_DECREF(r);
  if (v == -1 && PyErr_Occurred()) return -1;
  if (v < 0 || v > INT32_MAX) { PyErr_SetString(PyExc_ValueError, "intern_rows: the labeler gave no label"); return -1; }
  *label = (int32_t)v; *code = (int32_t)cv;
  /* (the labeler may have run anything, but this table is the call's own) */
  if (lab_put(&t->key, &t->label, &t->code, &t->cap, &t->n, key, *label, *code) < 0) return -1;
  for (int k = 0; k < 3; k++) Py_INCREF(key[k]);
  return 0;
}

/* The node of ref r: a base node, one of `made` (the rows read before: a node id, or a UOp where the core took none,
   indexed now, so a row on a CALL raises NotNative there too), or this call's row r - first. -1 on error. */
static int32_t decode_ref(Space *s, PyObject *made, Py_ssize_t first, const int32_t *ids, int64_t row, long r) {
  if (r < 0) {
    struct SpaceRows *rs = s->rows;   /* read again each time: a callback may have set another base up */
    if (-1 - (int64_t)r >= rs->n_base) { PyErr_SetString(PyExc_IndexError, "intern_rows: a ref past the base"); return -1; }
    return rs->base[-1 - r];
  }
  if (r >= first) {
    if (r - first >= row) { PyErr_SetString(PyExc_IndexError, "intern_rows: a ref to a row not read yet"); return -1; }
    return ids[r - first];
  }
  if (r >= PyList_GET_SIZE(made)) { PyErr_SetString(PyExc_IndexError, "intern_rows: a ref past made"); return -1; }
  PyObject *o = PyList_GET_ITEM(made, r);
  if (!PyLong_Check(o)) { int32_t x = walk(s, o, 1); return x < 0 ? -1 : x; }
  long v = PyLong_AsLong(o);
  if (v == -1 && PyErr_Occurred()) return -1;
  if (v < 0 || v >= s->n_nodes) { PyErr_SetString(PyExc_IndexError, "intern_rows: made holds no such node"); return -1; }
  return (int32_t)v;
}

/* The rows of a call, as a list of (op, dtype, arg, refs) tuples or packed (fields, data): read one after another. */
typedef struct { PyObject *seq, *fields; const int32_t *data; Py_ssize_t n, n_data, at; } RowReader;

/* Open `rows` (the number of rows in rd->n). 0, or -1 with TypeError. */
static int rows_open(RowReader *rd, PyObject *rows) {
  if (!PyTuple_Check(rows)) {
    if (!(rd->seq = PySequence_Fast(rows, "intern_rows: rows is a list of (op, dtype, arg, refs)"))) return -1;
    rd->n = PySequence_Fast_GET_SIZE(rd->seq);
    return 0;
  }
  PyObject *data = PyTuple_GET_SIZE(rows) == 2 ? PyTuple_GET_ITEM(rows, 1) : NULL;
  if (!data || !PyList_Check(PyTuple_GET_ITEM(rows, 0)) || !PyBytes_Check(data) || PyBytes_GET_SIZE(data) % 4) {
    PyErr_SetString(PyExc_TypeError, "intern_rows: packed rows are (fields list, int32 bytes)"); return -1;
  }
  rd->fields = PyTuple_GET_ITEM(rows, 0);
  rd->data = (const int32_t *)PyBytes_AS_STRING(data);
  rd->n_data = PyBytes_GET_SIZE(data) / 4;
  for (Py_ssize_t i = 0; i + 1 < rd->n_data; i += 2 + (rd->data[i + 1] > 0 ? rd->data[i + 1] : 0)) rd->n++;   /* checked as read */
  return 0;
}

/* Row i's (op, dtype, arg) (borrowed), its number of sources, and where their refs are: a tuple, or packed int32s. 0 or -1. */
static int rows_next(RowReader *rd, Py_ssize_t i, PyObject *key[3], Py_ssize_t *m, PyObject **refs, const int32_t **packed) {
  if (!rd->fields) {
    PyObject *row = PySequence_Fast_GET_ITEM(rd->seq, i);
    if (!PyTuple_Check(row) || PyTuple_GET_SIZE(row) != 4 || !PyTuple_Check(PyTuple_GET_ITEM(row, 3))) {
      PyErr_SetString(PyExc_TypeError, "intern_rows: a row is (op, dtype, arg, refs tuple)"); return -1;
    }
    for (int k = 0; k < 3; k++) key[k] = PyTuple_GET_ITEM(row, k);
    *refs = PyTuple_GET_ITEM(row, 3);
    *m = PyTuple_GET_SIZE(*refs);
    return 0;
  }
  const int32_t *d = rd->data + rd->at;
  if (rd->at + 2 > rd->n_data || d[1] < 0 || rd->at + 2 + d[1] > rd->n_data || d[0] < 0 || d[0] >= PyList_GET_SIZE(rd->fields)) {
    PyErr_SetString(PyExc_ValueError, "intern_rows: packed rows cut short, or a field past fields"); return -1;
  }
  PyObject *f = PyList_GET_ITEM(rd->fields, d[0]);
  if (!PyTuple_Check(f) || PyTuple_GET_SIZE(f) != 3) { PyErr_SetString(PyExc_TypeError, "intern_rows: a field is (op, dtype, arg)"); return -1; }
  for (int k = 0; k < 3; k++) key[k] = PyTuple_GET_ITEM(f, k);
  *m = d[1];
  *packed = d + 2;
  rd->at += 2 + d[1];
  return 0;
}

/* An inner row's sources as nodes into src (m of them). 0 or -1. */
static int rows_sources(Space *s, PyObject *made, Py_ssize_t first, const int32_t *ids, Py_ssize_t i, PyObject *refs,
                        const int32_t *packed, Py_ssize_t m, int32_t *src) {
  for (Py_ssize_t k = 0; k < m; k++) {
    long r;
    if (packed) r = packed[k];
    else if ((r = PyLong_AsLong(PyTuple_GET_ITEM(refs, k))) == -1 && PyErr_Occurred()) return -1;
    if ((src[k] = decode_ref(s, made, first, ids, i, r)) < 0) return -1;
  }
  return 0;
}

/* A leaf row's node: its UOp (make_uop's hash consing gives the one a node is bound to), indexed as walk does. -1 on error. */
static int32_t rows_leaf(Space *s, PyObject *make, PyObject *empty, PyObject *const key[3]) {
  PyObject *u = PyObject_CallFunctionObjArgs(make, key[0], empty, key[2], key[1], NULL);
  if (!u) return -1;
  int32_t x = walk(s, u, 1);
  Py_DECREF(u);   /* held by its node now (bind) */
  return x < 0 ? -1 : x;
}

/* intern_rows(rows, made, make) -> [node of each row]: each row's native node, in order, made where new (hash consing
 * gives an existing graph's very node), its sources resolved through rows_setup's base or `made`, which is extended with
 * the batch's ids once all are made (an error, NotNative at a CALL among them, extends nothing: the nodes made before it
 * are ordinary nodes no one refers to). make(op, src, arg, dtype) is make_uop, for a leaf's UOp. Iterative, ticked.
 * rows is a list of (op, dtype, arg, refs), or packed rows (fields, data) as rows(..., packed=1) writes them. */
PyObject *Space_intern_rows(Space *s, PyObject *args) {
  PyObject *rows, *made, *make;
  if (!PyArg_ParseTuple(args, "OO!O", &rows, &PyList_Type, &made, &make)) return NULL;
  if (!s->rows) { PyErr_SetString(PyExc_RuntimeError, "rows_setup() first"); return NULL; }
  RowReader rd = {NULL, NULL, NULL, 0, 0, 0};
  if (rows_open(&rd, rows) < 0) return NULL;
  Py_ssize_t n = rd.n, first = PyList_GET_SIZE(made);
  struct DecodeLabels t = {PyMem_Calloc(64 * 3, sizeof(PyObject *)), PyMem_Malloc(64 * sizeof(int32_t)), PyMem_Malloc(64 * sizeof(int32_t)), 64, 0};
  int32_t *ids = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(int32_t)), small[8], *src = small;
  int64_t cap_src = 8;
  PyObject *out = NULL, *empty = PyTuple_New(0);
  if (n > INT32_MAX) { PyErr_SetString(PyExc_OverflowError, "intern_rows: too many rows"); goto done; }
  if (!t.key || !t.label || !t.code || !ids) { PyErr_NoMemory(); goto done; }
  if (!empty) goto done;
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *key[3], *refs = NULL;
    const int32_t *packed = NULL;
    Py_ssize_t m;
    int32_t x, label, code;
    if (rows_next(&rd, i, key, &m, &refs, &packed) < 0) goto done;
    if (m == 0) { if ((x = rows_leaf(s, make, empty, key)) < 0) goto done; }
    else {
      if (m > INT32_MAX) { PyErr_SetString(PyExc_OverflowError, "intern_rows: too many sources"); goto done; }
      if (decode_label(s, &t, key, &label, &code) < 0) goto done;
      if (m > cap_src) {
        int32_t *nb = PyMem_Malloc((size_t)m * sizeof(int32_t));
        if (!nb) { PyErr_NoMemory(); goto done; }
        if (src != small) PyMem_Free(src);
        src = nb; cap_src = m;
      }
      if (rows_sources(s, made, first, ids, i, refs, packed, m, src) < 0) goto done;
      if ((x = intern(s, label, (uint8_t)code, src, (int32_t)m, 1)) < 0) goto done;
    }
    ids[i] = x;
    if (tick(s, 1) < 0) goto done;
  }
  PyObject *got = int_list(ids, (int32_t)n);
  if (!got) goto done;
  Py_ssize_t end = PyList_GET_SIZE(made);
  if (PyList_SetSlice(made, end, end, got) < 0) { Py_DECREF(got); goto done; }
  out = got;
done:
  Py_XDECREF(rd.seq); Py_XDECREF(empty);
  decode_labels_free(&t); PyMem_Free(ids);
  if (src != small) PyMem_Free(src);
  return out;
}
