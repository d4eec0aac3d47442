/* A state's text from the native core's own nodes: uopc.term.show(uop, limit) of the node's UOp, with no UOp made.

   Included by _space.c (it reads the Space's node table). The walk is uopc/_letform.c's, the one uopc/_term.c runs over
   UOps, here over node ids: the distinct nodes sources first, left to right; each inner node used more than once named
   (let names in order, from Python's let_names); a subterm with no named node in it written as its tree text, each
   kept once by node id (context-free, so any state reuses it); past `limit` distinct nodes, or a text past `limit`
   characters, the first `limit` characters of the tree form and an ellipsis. A node's pieces (term.node_parts: a
   leaf's text, or strings and source indices) come from Python once per label (an inner node's op, dtype and arg) and
   per leaf: far fewer than nodes. */
#include "../../_letform.h"
#include "_space_label_cache.h"

#define TEXT_MAX_CHARS 50000000LL   /* kept tree texts past this many characters: dropped, made again (term.py's _Memo.MAX_CHARS) */

struct SpaceText {
  PyObject *cb;        /* pieces(node) -> str | list of str and source indices */
  PyObject *names;     /* the let names in order (a list of str) */
  PyObject *ellipsis;
  LabelCache pieces;   /* a node's pieces by its label */
  PyObject **plain; int64_t cap_plain; long long chars;   /* a node's tree text (a subterm that names nothing), once made */
  int32_t *stamp, *loc; int64_t cap_node; int32_t gen;    /* per node: the call that last gave it an index in the walk, and which */
  LetWalk walk;
  int busy;
};

static void text_free(struct SpaceText *t) {
  if (!t) return;
  Py_CLEAR(t->cb); Py_CLEAR(t->names); Py_CLEAR(t->ellipsis);
  label_cache_free(&t->pieces);
  for (int64_t i = 0; i < t->cap_plain; i++) Py_XDECREF(t->plain[i]);
  letform_reset(&t->walk);
  letform_free(&t->walk);
  void *arrays[] = {t->plain, t->stamp, t->loc};
  for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++) PyMem_Free(arrays[i]);
  PyMem_Free(t);
}

/* text_setup(pieces, names): what text() asks Python for a node's pieces, and the let names (as many as a text may name). */
static PyObject *Space_text_setup(Space *s, PyObject *args) {
  PyObject *cb, *names;
  if (!PyArg_ParseTuple(args, "OO!", &cb, &PyList_Type, &names)) return NULL;
  for (Py_ssize_t k = 0; k < PyList_GET_SIZE(names); k++)
    if (!PyUnicode_Check(PyList_GET_ITEM(names, k))) { PyErr_SetString(PyExc_TypeError, "text_setup: a name is a str"); return NULL; }
  if (s->text && s->text->busy) { PyErr_SetString(PyExc_RuntimeError, "text_setup: text() is running"); return NULL; }
  text_free(s->text);
  if (!(s->text = PyMem_Calloc(1, sizeof(struct SpaceText)))) return PyErr_NoMemory();
  if (!(s->text->ellipsis = PyUnicode_FromString("\xe2\x80\xa6"))) { text_free(s->text); s->text = NULL; return NULL; }
  s->text->cb = Py_NewRef(cb);
  s->text->names = Py_NewRef(names);
  Py_RETURN_NONE;
}

/* node x's pieces (borrowed: kept by the cache, or by `held` for a node of a label's other source count); NULL on error */
static PyObject *text_pieces(Space *s, struct SpaceText *t, int32_t x, PyObject **held) {
  int32_t label = s->label[x], n = s->src_n[x];
  PyObject *p = label_cache_get(&t->pieces, label, n);
  if (p) return p;
  p = PyObject_CallFunction(t->cb, "i", x);
  if (!p) return NULL;
  if (PyList_Check(p)) {
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(p); k++) {
      PyObject *c = PyList_GET_ITEM(p, k);
      if (PyUnicode_Check(c)) continue;
      long j = PyLong_Check(c) ? PyLong_AsLong(c) : -1;
      if (j < 0 || j >= n) {
        Py_DECREF(p);
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "text: a piece is a str or a source index");
        return NULL;
      }
    }
  } else if (!PyUnicode_Check(p)) { Py_DECREF(p); PyErr_SetString(PyExc_TypeError, "text: pieces are a str or a list"); return NULL; }
  return label_cache_keep(&t->pieces, label, n, p, held);
}

/* How the let form's walk reads the core's nodes (uopc/_letform.h): a node is its id. */
typedef struct { Space *s; struct SpaceText *t; PyObject **held; } SpaceNodes;

static int32_t space_local(void *ctx, LetNode x, int32_t fresh) {
  struct SpaceText *t = ((SpaceNodes *)ctx)->t;
  if (t->stamp[x] == t->gen) return t->loc[x];
  t->stamp[x] = t->gen; t->loc[x] = fresh;
  return fresh;
}

static PyObject *space_pieces(void *ctx, LetNode x) {
  SpaceNodes *c = ctx;
  return text_pieces(c->s, c->t, (int32_t)x, c->held);
}

/* the source at index `piece` of node x's sources */
static LetNode space_source(void *ctx, LetNode x, PyObject *piece) {
  Space *s = ((SpaceNodes *)ctx)->s;
  return s->srcs[s->src_off[x] + PyLong_AsLong(piece)];
}

static PyObject *space_plain(void *ctx, LetNode x) {
  struct SpaceText *t = ((SpaceNodes *)ctx)->t;
  return x < t->cap_plain ? t->plain[x] : NULL;
}

/* a subterm's tree text, kept by node id; the root's is not (a state's graph is seldom another's subterm) */
static int space_keep(void *ctx, LetNode x, PyObject *text, int is_root) {
  struct SpaceText *t = ((SpaceNodes *)ctx)->t;
  if (is_root) return 0;
  t->plain[x] = Py_NewRef(text);
  t->chars += PyUnicode_GET_LENGTH(text);
  return 0;
}

/* the per-node arrays sized to the core's nodes, a new call's stamp, and the kept texts bounded */
static int text_prepare(Space *s, struct SpaceText *t) {
  if (t->chars > TEXT_MAX_CHARS) {   /* bounded: the kept tree texts go (none is borrowed between calls) */
    for (int64_t i = 0; i < t->cap_plain; i++) Py_CLEAR(t->plain[i]);
    t->chars = 0;
  }
  if (grow_filled((void **)&t->plain, &t->cap_plain, s->n_nodes, sizeof(PyObject *), 0) < 0) return -1;
  int64_t cap = t->cap_node;
  if (grow_filled((void **)&t->stamp, &cap, s->n_nodes, sizeof(int32_t), 0) < 0) return -1;
  cap = t->cap_node;
  if (grow_filled((void **)&t->loc, &cap, s->n_nodes, sizeof(int32_t), 0) < 0) return -1;
  t->cap_node = cap;
  if (++t->gen == INT32_MAX) { memset(t->stamp, 0, (size_t)t->cap_node * sizeof(int32_t)); t->gen = 1; }
  return 0;
}

/* the text of root, as show(uop, limit) (limit < 0: none) */
static PyObject *text_of(Space *s, struct SpaceText *t, int32_t root, Py_ssize_t limit, PyObject **held) {
  if (text_prepare(s, t) < 0) return NULL;
  /* a subterm that shares nothing, made before: its tree text (term.py's memo answers so too) */
  if (t->plain[root] && (limit < 0 || PyUnicode_GET_LENGTH(t->plain[root]) <= limit)) return Py_NewRef(t->plain[root]);
  SpaceNodes nodes = {s, t, held};
  LetNodes g = {&nodes, space_local, space_pieces, space_source, space_plain, space_keep};
  letform_reset(&t->walk);
  int walked = letform_walk(&t->walk, &g, root, limit);   /* past limit nodes: more nodes than characters */
  PyObject *text = walked == LETFORM_DONE ? letform_text(&t->walk, &g, t->names) : NULL;
  letform_reset(&t->walk);
  if (walked == LETFORM_TOO_MANY || (text && limit >= 0 && PyUnicode_GET_LENGTH(text) > limit)) {   /* the tree's prefix, as show */
    Py_XDECREF(text);
    text = letform_prefix(&t->walk, &g, root, limit, t->ellipsis);
  }
  return text;
}

/* text(node, limit=None) -> uopc.term.show of the node's UOp (a label of at most limit characters); node: an id, or a
   UOp bound to one (None if it is not) */
static PyObject *Space_text(Space *s, PyObject *args) {
  PyObject *which, *lim = Py_None;
  if (!PyArg_ParseTuple(args, "O|O", &which, &lim)) return NULL;
  struct SpaceText *t = s->text;
  if (!t) { PyErr_SetString(PyExc_RuntimeError, "text: text_setup() first"); return NULL; }
  long root;
  if (PyLong_Check(which)) {
    root = PyLong_AsLong(which);
    if (root == -1 && PyErr_Occurred()) return NULL;
  } else if ((root = map_get(&s->ptrs, (uint64_t)(uintptr_t)which, -1)) < 0) Py_RETURN_NONE;
  if (root < 0 || root >= s->n_nodes) { PyErr_SetString(PyExc_IndexError, "no such node"); return NULL; }
  Py_ssize_t limit = -1;
  if (lim != Py_None && ((limit = PyLong_AsSsize_t(lim)) < 0)) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "text: limit >= 0");
    return NULL;
  }
  if (t->busy) { PyErr_SetString(PyExc_RuntimeError, "text: called from its own pieces()"); return NULL; }
  t->busy = 1;
  PyObject *held = NULL;
  PyObject *r = text_of(s, t, (int32_t)root, limit, &held);
  t->busy = 0;
  Py_XDECREF(held);
  return r;
}
