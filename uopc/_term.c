/* The let form of a graph in C: uopc/term.py's _Memo._let (and _plain, for a graph that shares nothing), the same texts.

   A report prints every state's graph (488,511 of them for five_params): in Python the walk over each graph's nodes, the
   use counts and the text cost two and a half times the search. The walk, the names and the texts are uopc/_letform.c's
   (the explorer's native core runs the same over its node ids); here uopc's nodes are read for it: by identity (uopc's
   nodes are hash-consed, and term.py calls this for them only) through a pointer table, their pieces from the memo's
   ``parts`` (made by Python once per node), a subterm's tree text from its ``plain``. Built by setup.py (optional:
   term.py falls back to its Python walk). */
#include "_letform.h"

#include <string.h>

/* node -> its index in the walk: open addressing on the node's address (index + 1, 0 empty), kept between calls and
   emptied entry by entry (zeroing 16,000 entries a call cost more than the walk) */
typedef struct {
  int32_t *slot; int64_t slots;
  int64_t *where; int64_t cap_where;   /* each index's slot */
} Table;

typedef struct {
  LetWalk walk;
  Table table;
  PyObject *parts, *make, *plain;   /* this call's: node -> pieces, pieces of a node without, node -> tree text */
  long long chars;                  /* characters of tree text this call kept */
} Term;

static Term kept;        /* the arrays of the last call, for the next */
static int kept_busy;    /* a call is using them (make() runs Python: a nested call gets its own) */

static inline uint64_t mix_ptr(LetNode x) {
  uint64_t h = (uint64_t)(uintptr_t)x;
  h ^= h >> 33; h *= 0xff51afd7ed558ccdULL; h ^= h >> 33;
  return h;
}

/* twice the slots, each index put back where it probes to */
static int table_grow(Term *t) {
  Table *tb = &t->table;
  int64_t slots = tb->slots ? 2 * tb->slots : 1024;
  int32_t *slot = PyMem_Calloc((size_t)slots, sizeof(int32_t));
  if (!slot) { PyErr_NoMemory(); return -1; }
  PyMem_Free(tb->slot);
  tb->slot = slot; tb->slots = slots;
  for (int32_t i = 0; i < t->walk.n; i++) {
    uint64_t mask = (uint64_t)slots - 1, h = mix_ptr(t->walk.node[i]) & mask;
    while (slot[h]) h = (h + 1) & mask;
    slot[h] = i + 1;
    tb->where[i] = (int64_t)h;
  }
  return 0;
}

static int32_t term_local(void *ctx, LetNode x, int32_t fresh) {
  Term *t = ctx;
  Table *tb = &t->table;
  if (2 * (int64_t)(fresh + 1) > tb->slots && table_grow(t) < 0) return -1;   /* at most half full */
  uint64_t mask = (uint64_t)tb->slots - 1, h = mix_ptr(x) & mask;
  while (tb->slot[h]) {
    int32_t i = tb->slot[h] - 1;
    if (t->walk.node[i] == x) return i;
    h = (h + 1) & mask;
  }
  if (fresh == tb->cap_where) {
    int64_t cap = tb->cap_where ? 2 * tb->cap_where : 256;
    int64_t *where = PyMem_Realloc(tb->where, (size_t)cap * sizeof(int64_t));
    if (!where) { PyErr_NoMemory(); return -1; }
    tb->where = where; tb->cap_where = cap;
  }
  tb->slot[h] = fresh + 1;
  tb->where[fresh] = (int64_t)h;
  return fresh;
}

/* x's pieces from parts, made with make(x) (and put there) for a node without */
static PyObject *term_pieces(void *ctx, LetNode x) {
  Term *t = ctx;
  PyObject *node = (PyObject *)x, *p = PyDict_GetItemWithError(t->parts, node);
  if (!p) {
    if (PyErr_Occurred()) return NULL;
    PyObject *made = PyObject_CallOneArg(t->make, node);
    if (!made) return NULL;
    int bad = PyDict_SetItem(t->parts, node, made);
    Py_DECREF(made);
    if (bad < 0) return NULL;
    p = PyDict_GetItemWithError(t->parts, node);   /* the dict's reference, held while this call runs */
    if (!p) { if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "let_text: parts lost a node"); return NULL; }
  }
  if (!PyUnicode_Check(p) && !PyList_Check(p)) { PyErr_SetString(PyExc_TypeError, "let_text: pieces must be a str or a list"); return NULL; }
  return p;
}

/* a source among a node's pieces is the node itself */
static LetNode term_source(void *ctx, LetNode x, PyObject *piece) { return (LetNode)piece; }

static PyObject *term_plain(void *ctx, LetNode x) { return PyDict_GetItemWithError(((Term *)ctx)->plain, (PyObject *)x); }

/* every tree text made goes into plain, the root's too (term.py's _plain keeps it) */
static int term_keep(void *ctx, LetNode x, PyObject *text, int is_root) {
  Term *t = ctx;
  t->chars += PyUnicode_GET_LENGTH(text);
  return PyDict_SetItem(t->plain, (PyObject *)x, text);
}

static void term_done(Term *t) {
  if (t->table.slot) for (int32_t i = 0; i < t->walk.n; i++) t->table.slot[t->table.where[i]] = 0;   /* empty again */
  letform_reset(&t->walk);
  if (t != &kept) { letform_free(&t->walk); PyMem_Free(t->table.slot); PyMem_Free(t->table.where); }
  else kept_busy = 0;
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
  Term own = {0}, *t = kept_busy ? &own : &kept;
  kept_busy = 1;
  t->parts = parts; t->make = make; t->plain = plain; t->chars = 0;
  LetNodes g = {t, term_local, term_pieces, term_source, term_plain, term_keep};
  PyObject *result = NULL;
  int walked = letform_walk(&t->walk, &g, (LetNode)root, max_nodes);
  if (walked == LETFORM_TOO_MANY) result = Py_NewRef(Py_None);
  else if (walked == LETFORM_DONE) {
    PyObject *text = letform_text(&t->walk, &g, names);
    if (text) result = Py_BuildValue("NL", text, t->chars);
  }
  term_done(t);
  return result;
}

static PyMethodDef methods[] = {
  {"let_text", let_text, METH_VARARGS, "let_text(root, parts, make, plain, names, max_nodes) -> (text, new plain chars) | None"},
  {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_term", "The let form of a graph in C (uopc/term.py).", -1, methods};

PyMODINIT_FUNC PyInit__term(void) { return PyModule_Create(&module); }
