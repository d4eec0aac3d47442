/* Python objects kept per node label, asked of Python once per label: an inner node's by its label (op, dtype and arg),
 * for one source count; a leaf's by its leaf number (-2 - label). A node's text (_space_text.h) keeps its pieces so, a
 * report's node table (_space_table.c) its rows' templates. */
#ifndef UOPC_SPACE_LABEL_CACHE_H
#define UOPC_SPACE_LABEL_CACHE_H
#include <Python.h>
#include <stdint.h>
#include <string.h>
#include "_space_tables.h"   /* grow_filled */

typedef struct {
  PyObject **lab; int32_t *lab_n; int64_t cap_lab;   /* by label, for nodes of lab_n sources */
  PyObject **leaf; int64_t cap_leaf;                 /* by leaf number */
} LabelCache;

/* what is kept for a node of `label` with `n` sources (borrowed), or NULL */
static inline PyObject *label_cache_get(const LabelCache *c, int32_t label, int32_t n) {
  if (label >= 0) return label < c->cap_lab && c->lab[label] && c->lab_n[label] == n ? c->lab[label] : NULL;
  int64_t leaf = -2 - (int64_t)label;
  return label <= -2 && leaf < c->cap_leaf ? c->leaf[leaf] : NULL;
}

/* p kept for a node of `label` with `n` sources, its reference taken: 1; 0 where nothing is kept for it (no label, or
   its label kept for another source count: the caller keeps p); -1 on MemoryError (p not taken) */
static inline int label_cache_put(LabelCache *c, int32_t label, int32_t n, PyObject *p) {
  if (label >= 0) {
    if (label < c->cap_lab && c->lab[label]) return 0;
    int64_t cap = c->cap_lab;
    if (grow_filled((void **)&c->lab, &cap, (int64_t)label + 1, sizeof(PyObject *), 0) < 0) return -1;
    int64_t cap_n = c->cap_lab;   /* lab_n follows lab's capacity */
    if (grow_filled((void **)&c->lab_n, &cap_n, cap, sizeof(int32_t), 0) < 0) return -1;
    c->cap_lab = cap;
    c->lab[label] = p; c->lab_n[label] = n;
    return 1;
  }
  if (label == -1) return 0;
  int64_t leaf = -2 - (int64_t)label;
  if (grow_filled((void **)&c->leaf, &c->cap_leaf, leaf + 1, sizeof(PyObject *), 0) < 0) return -1;
  c->leaf[leaf] = p;
  return 1;
}

/* p (a new reference) kept: for its label (label_cache_put), else in *held, a list made on first use that the caller
   drops after its call; p borrowed, or NULL on error (p dropped) */
static inline PyObject *label_cache_keep(LabelCache *c, int32_t label, int32_t n, PyObject *p, PyObject **held) {
  int kept = label_cache_put(c, label, n, p);
  if (kept) { if (kept < 0) Py_DECREF(p); return kept < 0 ? NULL : p; }
  if (!*held && !(*held = PyList_New(0))) { Py_DECREF(p); return NULL; }
  int bad = PyList_Append(*held, p);
  Py_DECREF(p);
  return bad < 0 ? NULL : p;
}

static inline void label_cache_free(LabelCache *c) {
  for (int64_t i = 0; i < c->cap_lab; i++) Py_XDECREF(c->lab[i]);
  for (int64_t i = 0; i < c->cap_leaf; i++) Py_XDECREF(c->leaf[i]);
  PyMem_Free(c->lab); PyMem_Free(c->lab_n); PyMem_Free(c->leaf);
  memset(c, 0, sizeof(*c));
}

#endif
