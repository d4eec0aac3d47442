/* The let form's walk in C, for any caller's nodes (uopc/_letform.h says how they are read). Compiled into uopc._term and
   the explorer's native core: one walk, one naming, one text for both. The walk asks the caller for each node's pieces
   and its sources' nodes once; the passes after it read the sources' indices it kept (kid), not the caller. */
#include "_letform.h"

#include <string.h>

/* grow the arrays kept by index to hold one more entry */
static int grow_entries(LetWalk *w) {
  int32_t cap = w->cap ? 2 * w->cap : 256;
  void **arrays[] = {(void **)&w->node, (void **)&w->pieces, (void **)&w->text, (void **)&w->kid_off,
                     (void **)&w->kid_n, (void **)&w->uses, (void **)&w->name, (void **)&w->order, (void **)&w->naming, (void **)&w->needed};
  size_t sizes[] = {sizeof(LetNode), sizeof(PyObject *), sizeof(PyObject *), sizeof(int64_t), sizeof(int32_t), sizeof(int32_t),
                    sizeof(int32_t), sizeof(int32_t), 1, 1};
  for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
    void *q = PyMem_Realloc(*arrays[k], (size_t)cap * sizes[k]);
    if (!q) { PyErr_NoMemory(); return -1; }
    *arrays[k] = q;
  }
  w->cap = cap;
  return 0;
}

/* x's index in this walk, a new entry (unwalked, unused, unnamed) if it has none; -1 on error */
static int32_t local(LetWalk *w, const LetNodes *g, LetNode x) {
  if (w->n == w->cap && grow_entries(w) < 0) return -1;
  int32_t i = g->local(g->ctx, x, w->n);
  if (i != w->n) return i;
  w->n++;
  w->node[i] = x; w->pieces[i] = NULL; w->text[i] = NULL; w->uses[i] = 0; w->name[i] = -1; w->naming[i] = 0; w->needed[i] = 0;
  return i;
}

static int push(LetWalk *w, PyObject *s, LetNode node, uint8_t flag) {
  if (w->n_stack == w->cap_stack) {
    int64_t cap = w->cap_stack ? 2 * w->cap_stack : 256;
    LetItem *st = PyMem_Realloc(w->stack, (size_t)cap * sizeof(LetItem));
    if (!st) { PyErr_NoMemory(); return -1; }
    w->stack = st;
    uint8_t *fl = PyMem_Realloc(w->flag, (size_t)cap);
    if (!fl) { PyErr_NoMemory(); return -1; }
    w->flag = fl;
    w->cap_stack = cap;
  }
  w->stack[w->n_stack].s = s; w->stack[w->n_stack].node = node; w->flag[w->n_stack] = flag; w->n_stack++;
  return 0;
}

static int push_kid(LetWalk *w, int32_t ci) {
  if (w->n_kid == w->cap_kid) {
    int64_t cap = w->cap_kid ? 2 * w->cap_kid : 1024;
    int32_t *kid = PyMem_Realloc(w->kid, (size_t)cap * sizeof(int32_t));
    if (!kid) { PyErr_NoMemory(); return -1; }
    w->kid = kid; w->cap_kid = cap;
  }
  w->kid[w->n_kid++] = ci;
  return 0;
}

/* walked node i's pieces, last first (so they pop in order): each str as itself, each source as its index */
static int push_pieces(LetWalk *w, int32_t i) {
  PyObject *p = w->pieces[i];
  const int32_t *kid = w->kid + w->kid_off[i];
  int32_t r = w->kid_n[i];
  for (Py_ssize_t k = PyList_GET_SIZE(p) - 1; k >= 0; k--) {
    PyObject *c = PyList_GET_ITEM(p, k);
    if (PyUnicode_Check(c) ? push(w, c, 0, 0) : push(w, NULL, kid[--r], 0)) return -1;
  }
  return 0;
}

static PyObject *join(PyObject *parts) {
  static PyObject *empty = NULL;
  if (!empty && !(empty = PyUnicode_FromString(""))) return NULL;
  return PyUnicode_Join(empty, parts);
}

void letform_reset(LetWalk *w) {
  for (int32_t i = 0; i < w->n; i++) Py_CLEAR(w->text[i]);
  w->n = w->n_order = 0;
  w->n_kid = w->n_stack = 0;
}

void letform_free(LetWalk *w) {
  PyMem_Free(w->node); PyMem_Free(w->pieces); PyMem_Free(w->text); PyMem_Free(w->uses); PyMem_Free(w->name);
  PyMem_Free(w->order); PyMem_Free(w->naming); PyMem_Free(w->needed); PyMem_Free(w->kid_off); PyMem_Free(w->kid_n); PyMem_Free(w->kid);
  PyMem_Free(w->stack); PyMem_Free(w->flag);
  memset(w, 0, sizeof *w);
}

/* node i walked: its pieces, its sources' indices (kid) and uses, and them pushed to walk next, left to right */
static int walk_node(LetWalk *w, const LetNodes *g, int32_t i) {
  LetNode x = w->node[i];
  PyObject *p = g->pieces(g->ctx, x);
  if (!p) return -1;
  w->pieces[i] = p;
  w->kid_off[i] = w->n_kid;
  w->kid_n[i] = 0;
  if (push(w, NULL, i, 1) < 0) return -1;   /* its place in the order, after its sources */
  if (PyUnicode_Check(p)) return 0;
  for (Py_ssize_t k = 0; k < PyList_GET_SIZE(p); k++) {
    PyObject *c = PyList_GET_ITEM(p, k);
    if (PyUnicode_Check(c)) continue;
    int32_t ci = local(w, g, g->source(g->ctx, x, c));
    if (ci < 0 || push_kid(w, ci) < 0) return -1;
    w->uses[ci]++;
  }
  w->kid_n[i] = (int32_t)(w->n_kid - w->kid_off[i]);
  for (int64_t j = w->n_kid - 1; j >= w->kid_off[i]; j--) if (push(w, NULL, w->kid[j], 0) < 0) return -1;
  return 0;
}

int letform_walk(LetWalk *w, const LetNodes *g, LetNode root, int64_t max_nodes) {
  int64_t walked = 0;
  w->n_stack = 0;
  int32_t ri = local(w, g, root);
  if (ri < 0 || push(w, NULL, ri, 0) < 0) return -1;
  while (w->n_stack) {
    int32_t i = (int32_t)w->stack[--w->n_stack].node;
    if (w->flag[w->n_stack]) { w->order[w->n_order++] = i; continue; }
    if (w->pieces[i]) continue;   /* walked */
    if (max_nodes >= 0 && walked >= max_nodes) return LETFORM_TOO_MANY;
    walked++;
    if (walk_node(w, g, i) < 0) return -1;
  }
  return LETFORM_DONE;
}

/* each inner node used more than once gets the next name, in the walk's order; how many */
static int32_t name_shared(LetWalk *w) {
  int32_t n_named = 0;
  for (int32_t k = 0; k < w->n_order; k++) {
    int32_t i = w->order[k];
    if (w->uses[i] > 1 && !PyUnicode_Check(w->pieces[i])) w->name[i] = n_named++;
  }
  return n_named;
}

/* needed: the root and, users before sources, each source of a needed node that has no kept text (term.py's _plain
   reads the kept texts and makes the others) */
static int mark_needed(LetWalk *w, const LetNodes *g) {
  w->needed[0] = 1;
  for (int32_t k = w->n_order - 1; k >= 0; k--) {
    int32_t i = w->order[k];
    if (!w->needed[i] || PyUnicode_Check(w->pieces[i])) continue;
    PyObject *t = g->plain(g->ctx, w->node[i]);
    if (t) { w->text[i] = Py_NewRef(t); continue; }
    if (PyErr_Occurred()) return -1;
    for (int64_t j = w->kid_off[i], end = j + w->kid_n[i]; j < end; j++) w->needed[w->kid[j]] = 1;
  }
  return 0;
}

/* node i's tree text, from its pieces and its sources' texts (made before it) */
static PyObject *joined_text(LetWalk *w, int32_t i) {
  PyObject *p = w->pieces[i];
  const int32_t *kid = w->kid + w->kid_off[i];
  PyObject *bits = PyList_New(PyList_GET_SIZE(p));
  if (!bits) return NULL;
  for (Py_ssize_t j = 0; j < PyList_GET_SIZE(p); j++) {
    PyObject *c = PyList_GET_ITEM(p, j);
    PyList_SET_ITEM(bits, j, Py_NewRef(PyUnicode_Check(c) ? c : w->text[*kid++]));
  }
  PyObject *t = join(bits);
  Py_DECREF(bits);
  return t;
}

/* the root's text when nothing is shared: its tree text, each subterm's kept text where there is one, the others made
   (sources before users) and kept */
static PyObject *plain_text(LetWalk *w, const LetNodes *g) {
  if (mark_needed(w, g) < 0) return NULL;
  for (int32_t k = 0; k < w->n_order; k++) {
    int32_t i = w->order[k];
    if (!w->needed[i] || w->text[i]) continue;
    PyObject *p = w->pieces[i];
    if (PyUnicode_Check(p)) { w->text[i] = Py_NewRef(p); continue; }
    if (!(w->text[i] = joined_text(w, i))) return NULL;
    if (g->keep(g->ctx, w->node[i], w->text[i], i == 0) < 0) return NULL;
  }
  return Py_NewRef(w->text[0]);
}

/* naming: the nodes with a named node in them (the named ones too), written piece by piece; the others may be kept texts */
static void mark_naming(LetWalk *w) {
  for (int32_t k = 0; k < w->n_order; k++) {
    int32_t i = w->order[k];
    if (w->name[i] >= 0) { w->naming[i] = 1; continue; }
    for (int64_t j = w->kid_off[i], end = j + w->kid_n[i]; j < end && !w->naming[i]; j++) w->naming[i] = w->naming[w->kid[j]];
  }
}

/* node i's text into out (a list of str), as term.py's _Memo._inline writes it: a named node as its name (node i itself
   too unless top), a node that names nothing as its kept text where there is one, else piece by piece */
static int inline_text(LetWalk *w, const LetNodes *g, int32_t xi, int top, PyObject *names, PyObject *out) {
  w->n_stack = 0;
  if (push(w, NULL, xi, 0) < 0) return -1;
  while (w->n_stack) {
    LetItem it = w->stack[--w->n_stack];
    if (it.s) { if (PyList_Append(out, it.s) < 0) return -1; continue; }
    int32_t i = (int32_t)it.node;
    PyObject *t = NULL;
    if (w->name[i] >= 0 && !(top && i == xi)) t = PyList_GET_ITEM(names, w->name[i]);
    else if (!w->naming[i] && !(t = w->text[i]) && !(t = g->plain(g->ctx, w->node[i])) && PyErr_Occurred()) return -1;
    if (!t && PyUnicode_Check(w->pieces[i])) t = w->pieces[i];
    if (t) { if (PyList_Append(out, t) < 0) return -1; continue; }
    if (push_pieces(w, i) < 0) return -1;
  }
  return 0;
}

/* `let a = ..., b = ... in root`: each named node's text in order, then the root's */
static PyObject *named_text(LetWalk *w, const LetNodes *g, PyObject *names) {
  static PyObject *let_s = NULL, *eq_s = NULL, *comma_s = NULL, *in_s = NULL;
  if (!let_s && !(let_s = PyUnicode_FromString("let "))) return NULL;
  if (!eq_s && !(eq_s = PyUnicode_FromString(" = "))) return NULL;
  if (!comma_s && !(comma_s = PyUnicode_FromString(", "))) return NULL;
  if (!in_s && !(in_s = PyUnicode_FromString(" in "))) return NULL;
  mark_naming(w);
  PyObject *out = PyList_New(0), *text = NULL;
  if (!out) return NULL;
  int ok = PyList_Append(out, let_s) == 0;
  for (int32_t k = 0, first = 1; k < w->n_order && ok; k++) {
    int32_t i = w->order[k];
    if (w->name[i] < 0) continue;
    ok = (first || PyList_Append(out, comma_s) == 0) && PyList_Append(out, PyList_GET_ITEM(names, w->name[i])) == 0
         && PyList_Append(out, eq_s) == 0 && inline_text(w, g, i, 1, names, out) == 0;
    first = 0;
  }
  if (ok && PyList_Append(out, in_s) == 0 && inline_text(w, g, 0, 0, names, out) == 0) text = join(out);
  Py_DECREF(out);
  return text;
}

PyObject *letform_text(LetWalk *w, const LetNodes *g, PyObject *names) {
  int32_t n_named = name_shared(w);
  if (n_named > PyList_GET_SIZE(names)) { PyErr_SetString(PyExc_ValueError, "let form: too few let names"); return NULL; }
  return n_named ? named_text(w, g, names) : plain_text(w, g);
}

/* the first `limit` characters of the text in `out` and the ellipsis */
static PyObject *cut(PyObject *out, Py_ssize_t limit, PyObject *ellipsis) {
  PyObject *all = join(out);
  if (!all) return NULL;
  PyObject *head = PyUnicode_Substring(all, 0, limit);
  Py_DECREF(all);
  if (!head) return NULL;
  PyObject *r = PyUnicode_Concat(head, ellipsis);
  Py_DECREF(head);
  return r;
}

/* node x's pieces p, last first, each source as its node (letform_prefix's items: nodes, not walked) */
static int push_source_nodes(LetWalk *w, const LetNodes *g, LetNode x, PyObject *p) {
  for (Py_ssize_t k = PyList_GET_SIZE(p) - 1; k >= 0; k--) {
    PyObject *c = PyList_GET_ITEM(p, k);
    if (PyUnicode_Check(c) ? push(w, c, 0, 0) : push(w, NULL, g->source(g->ctx, x, c), 0)) return -1;
  }
  return 0;
}

PyObject *letform_prefix(LetWalk *w, const LetNodes *g, LetNode root, Py_ssize_t limit, PyObject *ellipsis) {
  PyObject *out = PyList_New(0);
  if (!out) return NULL;
  Py_ssize_t size = 0;
  w->n_stack = 0;
  if (push(w, NULL, root, 0) < 0) goto fail;
  while (w->n_stack) {
    LetItem it = w->stack[--w->n_stack];
    PyObject *piece = it.s;
    if (!piece && !(piece = g->plain(g->ctx, it.node))) {   /* a subterm's tree text, where one was kept */
      if (PyErr_Occurred()) goto fail;
      PyObject *p = g->pieces(g->ctx, it.node);
      if (!p) goto fail;
      if (PyList_Check(p)) {
        if (push_source_nodes(w, g, it.node, p) < 0) goto fail;
        continue;
      }
      piece = p;
    }
    if (PyList_Append(out, piece) < 0) goto fail;
    size += PyUnicode_GET_LENGTH(piece);
    if (size > limit) {
      PyObject *r = cut(out, limit, ellipsis);
      Py_DECREF(out);
      return r;
    }
  }
  PyObject *all = join(out);
  Py_DECREF(out);
  return all;
fail:
  Py_DECREF(out);
  return NULL;
}
