/* The let form of a graph in C: uopc/term.py's _Memo._let (and _plain, for a graph that shares nothing), the same texts.

   A report prints every state's graph (488,511 of them for five_params): in Python the walk over each graph's nodes, the
   use counts and the text cost two and a half times the search. Here the walk and the counts are flat arrays and a
   pointer table, the texts joins of the pieces Python made once per node (``parts``, kept by the memo), and a subterm's
   text is reused from ``plain`` as in Python. Nodes are told apart by identity: uopc's nodes are hash-consed, and
   term.py calls this for them only. Built by setup.py (optional: term.py falls back to its Python walk). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

typedef struct {
  PyObject **node;    /* borrowed: the memo's ``parts`` holds every node and its pieces while a call runs */
  PyObject **pieces;  /* a str (a leaf) or a list of str and nodes; NULL until the node is walked */
  PyObject **text;    /* new references: the node's text without names (plain), where made or found */
  int32_t *uses, *name;
  uint8_t *naming, *needed;
  int32_t n, cap;
  int32_t *slot; int64_t slots;   /* open addressing on the node's address: index + 1, 0 empty */
  int64_t *where;   /* each entry's slot, to empty the table for the next call */
  int scratch;      /* the module's arrays, kept between calls (zeroing 16,000 entries a call cost more than the walk) */
} Walk;

static Walk kept;        /* the arrays a call borrows, sized for the largest max_nodes so far */
static int kept_busy;    /* a call is using them (make() runs Python: a nested call gets its own) */

static void walk_arrays_free(Walk *w) {
  PyMem_Free(w->node); PyMem_Free(w->pieces); PyMem_Free(w->text); PyMem_Free(w->uses); PyMem_Free(w->name);
  PyMem_Free(w->naming); PyMem_Free(w->needed); PyMem_Free(w->slot); PyMem_Free(w->where);
}

static void walk_free(Walk *w) {
  if (w->text) for (int32_t i = 0; i < w->n; i++) Py_XDECREF(w->text[i]);
  if (!w->scratch) { walk_arrays_free(w); return; }
  if (w->slot) for (int32_t i = 0; i < w->n; i++) w->slot[w->where[i]] = 0;   /* empty again, entry by entry */
  w->n = 0;
  kept = *w;
  kept_busy = 0;
}

static inline uint64_t mix_ptr(const void *p) {
  uint64_t h = (uint64_t)(uintptr_t)p;
  h ^= h >> 33; h *= 0xff51afd7ed558ccdULL; h ^= h >> 33;
  return h;
}

/* The index of node x, added (unwalked, no uses) if new; -1 on memory failure. */
static int32_t index_of(Walk *w, PyObject *x) {
  uint64_t mask = (uint64_t)w->slots - 1, h = mix_ptr(x) & mask;
  while (w->slot[h]) {
    int32_t i = w->slot[h] - 1;
    if (w->node[i] == x) return i;
    h = (h + 1) & mask;
  }
  if (w->n == w->cap) { PyErr_SetString(PyExc_RuntimeError, "_term: table full"); return -1; }
  int32_t i = w->n++;
  w->node[i] = x; w->pieces[i] = NULL; w->text[i] = NULL; w->uses[i] = 0; w->name[i] = -1; w->naming[i] = 0; w->needed[i] = 0;
  w->slot[h] = i + 1;
  w->where[i] = (int64_t)h;
  return i;
}

static int walk_init(Walk *w, int32_t cap) {
  if (!kept_busy && kept.cap >= cap) {   /* the kept arrays: their table is empty (walk_free emptied it) */
    *w = kept;
    w->n = 0;
    kept_busy = 1;
    return 0;
  }
  memset(w, 0, sizeof *w);
  w->cap = cap;
  w->slots = 1;
  while (w->slots < 2 * (int64_t)cap) w->slots <<= 1;
  w->node = PyMem_Calloc(cap, sizeof(PyObject *)); w->pieces = PyMem_Calloc(cap, sizeof(PyObject *));
  w->text = PyMem_Calloc(cap, sizeof(PyObject *)); w->uses = PyMem_Calloc(cap, sizeof(int32_t));
  w->name = PyMem_Calloc(cap, sizeof(int32_t)); w->naming = PyMem_Calloc(cap, 1); w->needed = PyMem_Calloc(cap, 1);
  w->slot = PyMem_Calloc(w->slots, sizeof(int32_t)); w->where = PyMem_Calloc(cap, sizeof(int64_t));
  if (!w->node || !w->pieces || !w->text || !w->uses || !w->name || !w->naming || !w->needed || !w->slot || !w->where) {
    walk_arrays_free(w);
    memset(w, 0, sizeof *w);
    PyErr_NoMemory();
    return -1;
  }
  if (!kept_busy) {   /* these become the kept arrays (the smaller ones before go) */
    walk_arrays_free(&kept);
    kept = *w;
    w->scratch = kept.scratch = 1;
    kept_busy = 1;
  }
  return 0;
}

/* A growable stack of (pointer, flag). */
typedef struct { PyObject **item; uint8_t *flag; Py_ssize_t n, cap; } Stack;

static int push(Stack *s, PyObject *x, uint8_t flag) {
  if (s->n == s->cap) {
    Py_ssize_t cap = s->cap ? 2 * s->cap : 64;
    PyObject **item = PyMem_Realloc(s->item, cap * sizeof(PyObject *));
    if (!item) { PyErr_NoMemory(); return -1; }
    s->item = item;
    uint8_t *flag_ = PyMem_Realloc(s->flag, cap);
    if (!flag_) { PyErr_NoMemory(); return -1; }
    s->flag = flag_;
    s->cap = cap;
  }
  s->item[s->n] = x; s->flag[s->n] = flag; s->n++;
  return 0;
}

static void stack_free(Stack *s) { PyMem_Free(s->item); PyMem_Free(s->flag); }

/* x's text into `out` (a list of str), as _Memo._inline writes it: a named node as its name (x itself too unless top), a
   subterm that names nothing as its plain text where there is one, else piece by piece. */
static int inline_text(Walk *w, int32_t xi, int top, PyObject *names, PyObject *plain, PyObject *out, Stack *st) {
  st->n = 0;
  if (push(st, w->node[xi], 0) < 0) return -1;
  while (st->n) {
    PyObject *item = st->item[--st->n];
    if (PyUnicode_Check(item)) { if (PyList_Append(out, item) < 0) return -1; continue; }
    int32_t i = index_of(w, item);
    if (i < 0) return -1;
    if (w->name[i] >= 0 && !(top && i == xi)) { if (PyList_Append(out, PyList_GET_ITEM(names, w->name[i])) < 0) return -1; continue; }
    if (!w->naming[i]) {
      PyObject *t = w->text[i] ? w->text[i] : PyDict_GetItemWithError(plain, item);
      if (t) { if (PyList_Append(out, t) < 0) return -1; continue; }
      if (PyErr_Occurred()) return -1;
    }
    PyObject *p = w->pieces[i];
    if (PyUnicode_Check(p)) { if (PyList_Append(out, p) < 0) return -1; continue; }
    for (Py_ssize_t k = PyList_GET_SIZE(p) - 1; k >= 0; k--) if (push(st, PyList_GET_ITEM(p, k), 0) < 0) return -1;
  }
  return 0;
}

static PyObject *join(PyObject *parts) {
  static PyObject *empty = NULL;
  if (!empty && !(empty = PyUnicode_FromString(""))) return NULL;
  return PyUnicode_Join(empty, parts);
}

/* let_text(root, parts, make, plain, names, max_nodes) -> (text, new plain characters) or None past max_nodes distinct nodes.
   parts: node -> its pieces (filled here with make(node) for a node without); plain: node -> its text where it shares
   nothing (filled here, for the nodes the root's text needed); names: the let names in order (at least max_nodes). */
static PyObject *let_text(PyObject *self, PyObject *args) {
  PyObject *root, *parts, *make, *plain, *names;
  int max_nodes;
  if (!PyArg_ParseTuple(args, "OO!OO!O!i", &root, &PyDict_Type, &parts, &make, &PyDict_Type, &plain, &PyList_Type, &names, &max_nodes))
    return NULL;
  if (max_nodes < 1 || PyList_GET_SIZE(names) < max_nodes) { PyErr_SetString(PyExc_ValueError, "let_text: too few names"); return NULL; }
  Walk w;
  Stack st = {0}, order_st = {0};
  PyObject *result = NULL, *out = NULL;
  int32_t *order = NULL, n_order = 0;
  long long chars = 0;
  /* every node the walk mentions (walked, or a source of one walked) has an entry: at most max_nodes walked, each
     with its sources; a node's pieces list is at most that node's own pieces */
  int32_t cap = 8 * max_nodes + 64;
  if (walk_init(&w, cap) < 0) goto done;
  if (!(order = PyMem_Malloc(sizeof(int32_t) * (max_nodes + 1)))) { PyErr_NoMemory(); goto done; }
  /* the walk: distinct nodes, sources first, left to right (let_form's order), and how often each is used */
  int32_t walked = 0;
  if (push(&st, root, 0) < 0) goto done;
  while (st.n) {
    PyObject *x = st.item[st.n - 1];
    uint8_t ready = st.flag[--st.n];
    int32_t i = index_of(&w, x);
    if (i < 0) goto done;
    if (ready) { order[n_order++] = i; continue; }
    if (w.pieces[i]) continue;   /* seen */
    if (walked >= max_nodes) { result = Py_NewRef(Py_None); goto done; }
    walked++;
    PyObject *p = PyDict_GetItemWithError(parts, x);
    if (!p) {
      if (PyErr_Occurred()) goto done;
      PyObject *made = PyObject_CallOneArg(make, x);
      if (!made) goto done;
      int bad = PyDict_SetItem(parts, x, made);
      Py_DECREF(made);
      if (bad < 0) goto done;
      p = PyDict_GetItemWithError(parts, x);   /* the dict's reference, held while this call runs */
      if (!p) { if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "let_text: parts lost a node"); goto done; }
    }
    if (!PyUnicode_Check(p) && !PyList_Check(p)) { PyErr_SetString(PyExc_TypeError, "let_text: pieces must be a str or a list"); goto done; }
    w.pieces[i] = p;
    if (push(&st, x, 1) < 0) goto done;
    if (PyUnicode_Check(p)) continue;
    Py_ssize_t m = PyList_GET_SIZE(p);
    if (w.n + m > w.cap) { result = Py_NewRef(Py_None); goto done; }   /* more sources than the table holds: Python's walk */
    for (Py_ssize_t k = 0; k < m; k++) {
      PyObject *c = PyList_GET_ITEM(p, k);
      if (PyUnicode_Check(c)) continue;
      int32_t ci = index_of(&w, c);
      if (ci < 0) goto done;
      w.uses[ci]++;
    }
    for (Py_ssize_t k = m - 1; k >= 0; k--) {
      PyObject *c = PyList_GET_ITEM(p, k);
      if (!PyUnicode_Check(c) && push(&st, c, 0) < 0) goto done;
    }
  }
  /* names: in order, each inner node used more than once */
  int32_t n_named = 0;
  for (int32_t k = 0; k < n_order; k++) {
    int32_t i = order[k];
    if (w.uses[i] > 1 && !PyUnicode_Check(w.pieces[i])) w.name[i] = n_named++;
  }
  int32_t ri = index_of(&w, root);
  if (ri < 0) goto done;
  if (!n_named) {   /* nothing shared: the tree text, each subterm's remembered (_Memo._plain) */
    w.needed[ri] = 1;
    for (int32_t k = n_order - 1; k >= 0; k--) {   /* users before sources: what the root's text needs */
      int32_t i = order[k];
      if (!w.needed[i] || PyUnicode_Check(w.pieces[i])) continue;
      PyObject *t = PyDict_GetItemWithError(plain, w.node[i]);
      if (t) { w.text[i] = Py_NewRef(t); continue; }
      if (PyErr_Occurred()) goto done;
      PyObject *p = w.pieces[i];
      for (Py_ssize_t j = 0; j < PyList_GET_SIZE(p); j++) {
        PyObject *c = PyList_GET_ITEM(p, j);
        if (PyUnicode_Check(c)) continue;
        int32_t ci = index_of(&w, c);
        if (ci < 0) goto done;
        w.needed[ci] = 1;
      }
    }
    for (int32_t k = 0; k < n_order; k++) {   /* sources before users: each needed text from its sources' */
      int32_t i = order[k];
      if (!w.needed[i] || w.text[i]) continue;
      PyObject *p = w.pieces[i];
      if (PyUnicode_Check(p)) { w.text[i] = Py_NewRef(p); continue; }
      PyObject *bits = PyList_New(PyList_GET_SIZE(p));
      if (!bits) goto done;
      for (Py_ssize_t j = 0; j < PyList_GET_SIZE(p); j++) {
        PyObject *c = PyList_GET_ITEM(p, j);
        PyObject *t = c;
        if (!PyUnicode_Check(c)) {
          int32_t ci = index_of(&w, c);
          if (ci < 0) { Py_DECREF(bits); goto done; }
          t = w.text[ci];
        }
        PyList_SET_ITEM(bits, j, Py_NewRef(t));
      }
      PyObject *t = join(bits);
      Py_DECREF(bits);
      if (!t) goto done;
      w.text[i] = t;
      if (PyDict_SetItem(plain, w.node[i], t) < 0) goto done;
      chars += PyUnicode_GET_LENGTH(t);
    }
    result = Py_BuildValue("OL", w.text[ri], chars);
    goto done;
  }
  /* the subterms with a named node in them are written piece by piece; the others may be plain texts */
  for (int32_t k = 0; k < n_order; k++) {
    int32_t i = order[k];
    if (w.name[i] >= 0) { w.naming[i] = 1; continue; }
    PyObject *p = w.pieces[i];
    if (PyUnicode_Check(p)) continue;
    for (Py_ssize_t j = 0; j < PyList_GET_SIZE(p) && !w.naming[i]; j++) {
      PyObject *c = PyList_GET_ITEM(p, j);
      if (PyUnicode_Check(c)) continue;
      int32_t ci = index_of(&w, c);
      if (ci < 0) goto done;
      if (w.naming[ci]) w.naming[i] = 1;
    }
  }
  if (!(out = PyList_New(0))) goto done;
  static PyObject *let_s = NULL, *eq_s = NULL, *comma_s = NULL, *in_s = NULL;
  if (!let_s && !(let_s = PyUnicode_FromString("let "))) goto done;
  if (!eq_s && !(eq_s = PyUnicode_FromString(" = "))) goto done;
  if (!comma_s && !(comma_s = PyUnicode_FromString(", "))) goto done;
  if (!in_s && !(in_s = PyUnicode_FromString(" in "))) goto done;
  if (PyList_Append(out, let_s) < 0) goto done;
  int first = 1;
  for (int32_t k = 0; k < n_order; k++) {
    int32_t i = order[k];
    if (w.name[i] < 0) continue;
    if (!first && PyList_Append(out, comma_s) < 0) goto done;
    first = 0;
    if (PyList_Append(out, PyList_GET_ITEM(names, w.name[i])) < 0 || PyList_Append(out, eq_s) < 0) goto done;
    if (inline_text(&w, i, 1, names, plain, out, &order_st) < 0) goto done;
  }
  if (PyList_Append(out, in_s) < 0) goto done;
  if (inline_text(&w, ri, 0, names, plain, out, &order_st) < 0) goto done;
  PyObject *text = join(out);
  if (!text) goto done;
  result = Py_BuildValue("NL", text, chars);
done:
  Py_XDECREF(out);
  PyMem_Free(order);
  stack_free(&st); stack_free(&order_st);
  walk_free(&w);
  return result;
}

static PyMethodDef methods[] = {
  {"let_text", let_text, METH_VARARGS, "let_text(root, parts, make, plain, names, max_nodes) -> (text, new plain chars) | None"},
  {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_term", "The let form of a graph in C (uopc/term.py).", -1, methods};

PyMODINIT_FUNC PyInit__term(void) { return PyModule_Create(&module); }
