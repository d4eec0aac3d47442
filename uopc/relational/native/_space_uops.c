/* UOps in and out of the core (_space_uops.h): identity tables, walk() and materialize(). */
#include "_space.h"
#include <string.h>

static int32_t ptr_find(Space *s, PyObject *u) { return map_get(&s->ptrs, (uint64_t)(uintptr_t)u, -1); }

/* Node `id` is the UOp `u` from now on (a new reference is kept). */
static int bind(Space *s, int32_t id, PyObject *u) {
  if (s->obj[id]) return 0;
  if (map_put(&s->ptrs, (uint64_t)(uintptr_t)u, id) < 0) return -1;
  Py_INCREF(u);
  s->obj[id] = u;
  return 0;
}

static uint64_t label_hash(PyObject *const key[3]) {
  return fmix(mix(mix((uint64_t)(uintptr_t)key[0], (uint64_t)(uintptr_t)key[1]), (uint64_t)(uintptr_t)key[2]));
}

/* The label and op code of an inner node's (op, dtype, arg), cached by identity: the UOps holding them are kept
 * (bind), so an address is never reused while the space lives. */
/* Tables keyed by the identity of an (op, dtype, arg) triple, a label and an op code a key (label_of's, and
 * _space_decode.h's a call's): open addressing, power of two, label_hash. The slot of key: where it is, or the empty
 * slot where it would go. */
int64_t lab_probe(PyObject *const *keys, int64_t cap, PyObject *const key[3]) {
  int64_t mask = cap - 1, j = (int64_t)(label_hash(key) & (uint64_t)mask);
  while (keys[3 * j] && !(keys[3 * j] == key[0] && keys[3 * j + 1] == key[1] && keys[3 * j + 2] == key[2])) j = (j + 1) & mask;
  return j;
}

/* Put key (absent) in such a table, grown to stay at most half full; its slot, or -1 (MemoryError). */
int64_t lab_put(PyObject ***keys, int32_t **labels, int32_t **codes, int64_t *cap, int64_t *n, PyObject *const key[3],
                       int32_t label, int32_t code) {
  if ((*n + 1) * 2 > *cap) {
    int64_t c = *cap * 2;
    PyObject **k = PyMem_Calloc((size_t)c * 3, sizeof(PyObject *));
    int32_t *lv = PyMem_Malloc((size_t)c * sizeof(int32_t)), *lo = PyMem_Malloc((size_t)c * sizeof(int32_t));
    if (!k || !lv || !lo) { PyMem_Free(k); PyMem_Free(lv); PyMem_Free(lo); PyErr_NoMemory(); return -1; }
    for (int64_t i = 0; i < *cap; i++) if ((*keys)[3 * i]) {
      int64_t t = lab_probe(k, c, *keys + 3 * i);
      memcpy(k + 3 * t, *keys + 3 * i, 3 * sizeof(PyObject *)); lv[t] = (*labels)[i]; lo[t] = (*codes)[i];
    }
    PyMem_Free(*keys); PyMem_Free(*labels); PyMem_Free(*codes);
    *keys = k; *labels = lv; *codes = lo; *cap = c;
  }
  int64_t j = lab_probe(*keys, *cap, key);
  memcpy(*keys + 3 * j, key, 3 * sizeof(PyObject *));
  (*labels)[j] = label; (*codes)[j] = code; (*n)++;
  return j;
}

static int label_of(Space *s, PyObject *op, PyObject *dtype, PyObject *arg, int32_t *label, int32_t *code, int make) {
  PyObject *const key[3] = {op, dtype, arg};
  int64_t j = lab_probe(s->labels.key, s->labels.cap, key);
  if (s->labels.key[3 * j]) { *label = s->labels.label[j]; *code = s->labels.code[j]; return 0; }
  PyObject *r = PyObject_CallFunctionObjArgs(make ? s->labels.labeler : s->labels.label_finder, op, dtype, arg, NULL);
  if (!r) return -1;
  long v = PyLong_AsLong(r);
  Py_DECREF(r);
  if (v == -1 && PyErr_Occurred()) return -1;
  if (v < 0) { *label = -1; *code = 0; return 0; }   /* finding only: no node was ever made with this (op, dtype, arg) */
  PyObject *c = PyDict_GetItemWithError(s->labels.op_codes, op);
  if (!c) { if (!PyErr_Occurred()) PyErr_SetString(PyExc_KeyError, "an op without a code"); return -1; }
  *label = (int32_t)v; *code = (int32_t)PyLong_AsLong(c);
  if (!make) return 0;   /* not cached: the UOp holding these objects may not be kept, and a freed address is reused */
  return lab_put(&s->labels.key, &s->labels.label, &s->labels.code, &s->labels.cap, &s->labels.n, key, *label, *code) < 0 ? -1 : 0;
}

PyObject *str_src, *str_op, *str_dtype, *str_arg;

int uops_init(void) {
  return (str_src = PyUnicode_InternFromString("src")) && (str_op = PyUnicode_InternFromString("op")) &&
         (str_dtype = PyUnicode_InternFromString("dtype")) && (str_arg = PyUnicode_InternFromString("arg")) ? 0 : -1;
}

/* The node of UOp u, made with every node below it that is new if `make` (post-order, iterative); else only
 * found (-1 if it does not exist). Either way each node found or made is bound to its UOp. -2 on error. */
int32_t walk(Space *s, PyObject *u, int make) {
  int32_t found = ptr_find(s, u);
  if (found >= 0) return found;
  PyObject **stack = NULL; int64_t cap = 0, top = 0;
  int32_t small[8], *buf = small; int64_t cap_buf = 8;
  if (grow((void **)&stack, &cap, 64, sizeof(PyObject *)) < 0) return -2;
  stack[top++] = u;   /* borrowed: each node is held by its user's src tuple, the root by the caller */
  int ok = 1, absent = 0;
  while (top && ok) {
    PyObject *x = stack[top - 1];
    if (ptr_find(s, x) >= 0) { top--; continue; }
    PyObject *src = PyObject_GetAttr(x, str_src);
    if (!src) { ok = 0; break; }
    if (!PyTuple_Check(src)) { Py_DECREF(src); PyErr_SetString(PyExc_TypeError, "a UOp's src must be a tuple"); ok = 0; break; }
    Py_ssize_t n = PyTuple_GET_SIZE(src);
    int64_t before = top;
    if (grow((void **)&stack, &cap, top + n, sizeof(PyObject *)) < 0) { Py_DECREF(src); ok = 0; break; }
    for (Py_ssize_t i = 0; i < n; i++) if (ptr_find(s, PyTuple_GET_ITEM(src, i)) < 0) stack[top++] = PyTuple_GET_ITEM(src, i);
    if (top > before) { Py_DECREF(src); continue; }
    top--;
    int32_t label, code;
    PyObject *op = PyObject_GetAttr(x, str_op);
    if (!op) { Py_DECREF(src); ok = 0; break; }
    if (n == 0 && !make) { Py_DECREF(op); Py_DECREF(src); absent = 1; break; }   /* a leaf never seen */
    if (n == 0) {   /* a leaf: a label of its own (negative: apart from inner nodes' labels) */
      PyObject *c = PyDict_GetItemWithError(s->labels.op_codes, op);
      if (!c) { if (!PyErr_Occurred()) PyErr_SetString(PyExc_KeyError, "an op without a code"); Py_DECREF(op); Py_DECREF(src); ok = 0; break; }
      label = -2 - s->labels.n_leaves++; code = (int32_t)PyLong_AsLong(c);
    } else {
      PyObject *dtype = PyObject_GetAttr(x, str_dtype), *arg = dtype ? PyObject_GetAttr(x, str_arg) : NULL;
      int rc = arg ? label_of(s, op, dtype, arg, &label, &code, make) : -1;
      Py_XDECREF(dtype); Py_XDECREF(arg);
      if (rc < 0) { Py_DECREF(op); Py_DECREF(src); ok = 0; break; }
      if (label < 0) { Py_DECREF(op); Py_DECREF(src); absent = 1; break; }
    }
    Py_DECREF(op);
    if (n > cap_buf) {
      int32_t *nb = PyMem_Malloc((size_t)n * sizeof(int32_t));
      if (!nb) { Py_DECREF(src); PyErr_NoMemory(); ok = 0; break; }
      if (buf != small) PyMem_Free(buf);
      buf = nb; cap_buf = n;
    }
    for (Py_ssize_t i = 0; i < n; i++) buf[i] = ptr_find(s, PyTuple_GET_ITEM(src, i));
    Py_DECREF(src);
    int32_t id = intern(s, label, (uint8_t)code, buf, (int32_t)n, make);
    if (id < 0 && !make && !PyErr_Occurred()) { absent = 1; break; }
    if (id < 0 || bind(s, id, x) < 0) { ok = 0; break; }
  }
  PyMem_Free(stack);
  if (buf != small) PyMem_Free(buf);
  return !ok ? -2 : absent ? -1 : ptr_find(s, u);
}

/* index(u) -> the node of UOp u, made with every node below it that is new. */
PyObject *Space_index(Space *s, PyObject *u) {
  int32_t id = walk(s, u, 1);
  return id == -2 ? NULL : PyLong_FromLong(id);
}

/* lookup(u) -> the node of UOp u if it exists, else -1: nothing is made. */
PyObject *Space_lookup(Space *s, PyObject *u) {
  int32_t id = walk(s, u, 0);
  return id == -2 ? NULL : PyLong_FromLong(id);
}

/* materialize(id, make, labels) -> the node's UOp: made, with every node below it that has none, by
 * make(op, src, arg, dtype) from labels[label] = (op, dtype, arg) (post-order, iterative), and bound. */
PyObject *Space_materialize(Space *s, PyObject *args) {
  int root; PyObject *make, *labels;
  if (!PyArg_ParseTuple(args, "iOO!", &root, &make, &PyList_Type, &labels)) return NULL;
  if (check_node(s, root) < 0) return NULL;
  if (s->obj[root]) { Py_INCREF(s->obj[root]); return s->obj[root]; }   /* made already: the usual case */
  int32_t *stack = NULL; int64_t cap = 0, top = 0;
  if (grow((void **)&stack, &cap, 64, sizeof(int32_t)) < 0) return NULL;
  stack[top++] = root;
  int ok = 1;
  while (top && ok) {
    int32_t x = stack[top - 1];
    if (s->obj[x]) { top--; continue; }
    int32_t n = s->src_n[x];
    int64_t before = top;
    if (grow((void **)&stack, &cap, top + n, sizeof(int32_t)) < 0) { ok = 0; break; }
    for (int32_t i = 0; i < n; i++) { int32_t c = s->srcs[s->src_off[x] + i]; if (!s->obj[c]) stack[top++] = c; }
    if (top > before) continue;
    top--;
    int32_t label = s->label[x];
    if (label < 0 || label >= PyList_GET_SIZE(labels)) { PyErr_SetString(PyExc_IndexError, "a node without its label"); ok = 0; break; }
    PyObject *key = PyList_GET_ITEM(labels, label), *src = PyTuple_New(n);   /* key: (op, dtype, arg) */
    if (!src) { ok = 0; break; }
    for (int32_t i = 0; i < n; i++) { PyObject *c = s->obj[s->srcs[s->src_off[x] + i]]; Py_INCREF(c); PyTuple_SET_ITEM(src, i, c); }
    PyObject *u = PyObject_CallFunctionObjArgs(make, PyTuple_GET_ITEM(key, 0), src, PyTuple_GET_ITEM(key, 2), PyTuple_GET_ITEM(key, 1), NULL);
    Py_DECREF(src);
    if (!u || bind(s, x, u) < 0) ok = 0;
    Py_XDECREF(u);
  }
  PyMem_Free(stack);
  if (!ok) return NULL;
  Py_INCREF(s->obj[root]);
  return s->obj[root];
}

/* The identity table, empty (64 slots). 0, or -1 with MemoryError. */
int labels_init(SpaceLabels *l) {
  l->cap = 64;
  l->key = PyMem_Calloc((size_t)l->cap * 3, sizeof(PyObject *));
  l->label = PyMem_Malloc((size_t)l->cap * sizeof(int32_t));
  l->code = PyMem_Malloc((size_t)l->cap * sizeof(int32_t));
  if (!l->key || !l->label || !l->code) { PyErr_NoMemory(); return -1; }
  return 0;
}

void labels_free(SpaceLabels *l) { PyMem_Free(l->key); PyMem_Free(l->label); PyMem_Free(l->code); }
