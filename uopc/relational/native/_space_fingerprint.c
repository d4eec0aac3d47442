/* Fingerprints of the core's graphs (space/fingerprint.py's, in C; _space_fingerprint.h). */
#include "_space.h"
#include "_space_fingerprint.h"
#include "_blake2b.h"   /* BLAKE2b (RFC 7693) */
#include <string.h>

/* fingerprint_setup(fields): fields(node) -> the bytes space/fingerprint.py's node_fields gives of its UOp. */
PyObject *Space_fingerprint_setup(Space *s, PyObject *cb) {
  if (!PyCallable_Check(cb)) { PyErr_SetString(PyExc_TypeError, "fingerprint_setup: fields must be callable"); return NULL; }
  if (!s->fingerprints && !(s->fingerprints = PyMem_Calloc(1, sizeof(SpaceFingerprints)))) return PyErr_NoMemory();
  Py_INCREF(cb);
  Py_XSETREF(s->fingerprints->cb, cb);
  Py_RETURN_NONE;
}

/* The fields bytes of node x (borrowed), asked of Python once per label: a label stands for one (op, dtype, arg), or one
 * leaf. NULL on error. */
static PyObject *fp_fields(Space *s, int32_t x) {
  int32_t label = s->label[x];
  PyObject ***tab = label >= 0 ? &s->fingerprints->inner : &s->fingerprints->leaf;
  int64_t *cap = label >= 0 ? &s->fingerprints->cap_inner : &s->fingerprints->cap_leaf, k = label >= 0 ? label : -2 - (int64_t)label;
  if (k < *cap && (*tab)[k]) return (*tab)[k];
  PyObject *r = PyObject_CallFunction(s->fingerprints->cb, "i", (int)x);   /* may make UOps (materialize), not nodes */
  if (!r) return NULL;
  if (!PyBytes_Check(r)) { Py_DECREF(r); PyErr_SetString(PyExc_TypeError, "fingerprint: fields(node) must return bytes"); return NULL; }
  int64_t old = *cap;
  if (k >= old) {
    if (grow((void **)tab, cap, k + 1, sizeof(PyObject *)) < 0) { Py_DECREF(r); return NULL; }
    memset(*tab + old, 0, (size_t)(*cap - old) * sizeof(PyObject *));
  }
  (*tab)[k] = r;   /* kept: freed with the space */
  return r;
}

/* The 16 bytes of node `root` into `out`: BLAKE2b of its fields followed by its sources' fingerprints, each node's
 * computed once and kept (post-order, iterative: any depth). 0, or -1 on error. */
int fp_of(Space *s, int32_t root, uint8_t *out) {
  if (s->fingerprints->cap < s->n_nodes) {   /* room for every node so far (fresh ones not computed) */
    int64_t old = s->fingerprints->cap;
    void **const arrays[] = {(void **)&s->fingerprints->fp, (void **)&s->fingerprints->done};
    const size_t elems[] = {16, 1};
    if (grow_parallel(&s->fingerprints->cap, s->cap_nodes, arrays, elems, 2) < 0) return -1;
    memset(s->fingerprints->done + old, 0, (size_t)(s->fingerprints->cap - old));
  }
  int rc = 0;
  if (!s->fingerprints->done[root]) {
    int32_t *stack = NULL; int64_t cap = 0, top = 0;
    if (grow((void **)&stack, &cap, 64, sizeof(int32_t)) < 0) return -1;
    stack[top++] = root;
    while (top) {
      int32_t x = stack[top - 1], n = s->src_n[x];
      if (s->fingerprints->done[x]) { top--; continue; }
      int64_t before = top;
      if (grow((void **)&stack, &cap, top + n, sizeof(int32_t)) < 0) { rc = -1; break; }
      for (int32_t i = 0; i < n; i++) { int32_t c = s->srcs[s->src_off[x] + i]; if (!s->fingerprints->done[c]) stack[top++] = c; }
      if (top > before) continue;
      top--;
      PyObject *f = fp_fields(s, x);
      if (!f) { rc = -1; break; }
      Blake2b b;
      b2_init(&b, 16);
      b2_update(&b, (const uint8_t *)PyBytes_AS_STRING(f), (size_t)PyBytes_GET_SIZE(f));
      for (int32_t i = 0; i < n; i++) b2_update(&b, s->fingerprints->fp + 16 * (int64_t)s->srcs[s->src_off[x] + i], 16);
      b2_final(&b, s->fingerprints->fp + 16 * (int64_t)x);
      s->fingerprints->done[x] = 1;
      if ((rc = tick(s, 1)) < 0) break;
    }
    PyMem_Free(stack);
  }
  if (rc == 0) memcpy(out, s->fingerprints->fp + 16 * (int64_t)root, 16);
  return rc;
}

/* The node id of a Python int, checked; -1 with an exception set. */
static int32_t fp_node(Space *s, PyObject *arg) {
  long id = PyLong_AsLong(arg);
  if (id == -1 && PyErr_Occurred()) return -1;
  if (!s->fingerprints) { PyErr_SetString(PyExc_RuntimeError, "fingerprint_setup() first"); return -1; }
  if (check_node(s, id) < 0) return -1;
  return (int32_t)id;
}

/* fingerprint(node) -> space/fingerprint.py's Fingerprints().of of the node's UOp: 16 bytes. */
PyObject *Space_fingerprint(Space *s, PyObject *arg) {
  uint8_t d[16];
  int32_t id = fp_node(s, arg);
  if (id < 0 || fp_of(s, id, d) < 0) return NULL;
  return PyBytes_FromStringAndSize((const char *)d, 16);
}

/* fingerprints(nodes) -> [fingerprint(node) for node in nodes], in one call. */
PyObject *Space_fingerprints(Space *s, PyObject *arg) {
  PyObject *seq = PySequence_Fast(arg, "fingerprints: a list of nodes");
  if (!seq) return NULL;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  PyObject *out = PyList_New(n);
  for (Py_ssize_t k = 0; k < n && out; k++) {
    uint8_t d[16];
    int32_t id = fp_node(s, PySequence_Fast_GET_ITEM(seq, k));
    PyObject *b = id < 0 || fp_of(s, id, d) < 0 ? NULL : PyBytes_FromStringAndSize((const char *)d, 16);
    if (!b) Py_CLEAR(out);
    else PyList_SET_ITEM(out, k, b);
  }
  Py_DECREF(seq);
  return out;
}

int64_t fingerprints_bytes(const SpaceFingerprints *f) {
  return f ? f->cap * 17 + (f->cap_inner + f->cap_leaf) * (int64_t)sizeof(PyObject *) : 0;
}

void fingerprints_free(SpaceFingerprints *f) {
  if (!f) return;
  Py_CLEAR(f->cb);
  for (int64_t i = 0; i < f->cap_inner; i++) Py_XDECREF(f->inner[i]);
  for (int64_t i = 0; i < f->cap_leaf; i++) Py_XDECREF(f->leaf[i]);
  PyMem_Free(f->inner); PyMem_Free(f->leaf); PyMem_Free(f->fp); PyMem_Free(f->done);
  PyMem_Free(f);
}
