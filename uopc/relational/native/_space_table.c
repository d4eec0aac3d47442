/* A report's node table kept by the core's node ids: each distinct node once, sources first, its row's JSON text made
 * here (uopc/cli/reports/exploration.py's NodeTable, the same rows in the same order, for a search the core ran whole).
 *
 * A row is a leaf's text ("p0") or the node's pieces, strings and its sources' rows (["add(",0,", ",1,")"]). Its text
 * comes from a template Python makes once per label (an inner node's op, dtype and arg, for one source count) and per
 * leaf: the row's JSON around its sources, as bytes the report's one encoder made (json.dumps), so a piece is escaped
 * here exactly as everywhere else; only row numbers are written in C. A node's UOp is never made. */
#include "_space.h"
#include "_space_json.h"
#include "_space_table.h"
#include "_space_label_cache.h"

struct SpaceTable {
  PyObject *cb;                                              /* template(node) -> tuple of bytes (see table_setup) */
  LabelCache templates;                                      /* a node's template by its label */
  int32_t *row_of; int64_t cap_row_of;                       /* per node: its row, or -1 */
  Text text;                                                 /* the rows' texts, one after another */
  int64_t *row_end; int64_t n_rows, cap_rows;                /* where each row's text ends */
  int32_t *stack; int64_t n_stack, cap_stack;                /* the walk: (node, its next source) pairs */
  TableKey *keys; int64_t n_keys;                            /* the step keys (table_keys) */
  Text out;                                                  /* table_out */
  int busy;
};

struct SpaceTable *space_table(Space *s) {
  if (!s->table_json) PyErr_SetString(PyExc_RuntimeError, "the node table is not set up (table_setup)");
  return s->table_json;
}

void table_free(struct SpaceTable *t) {
  if (!t) return;
  table_clear(t);
  label_cache_free(&t->templates);
  void *arrays[] = {t->row_of, t->text.buf, t->row_end, t->stack, t->keys, t->out.buf};
  for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++) PyMem_Free(arrays[i]);
  PyMem_Free(t);
}

int table_traverse(struct SpaceTable *t, visitproc visit, void *arg) { if (t) Py_VISIT(t->cb); return 0; }
void table_clear(struct SpaceTable *t) { if (t) Py_CLEAR(t->cb); }
int64_t table_bytes(const struct SpaceTable *t) {
  return t ? t->templates.cap_lab * 12 + t->templates.cap_leaf * 8 + t->cap_row_of * 4 + t->text.cap + t->cap_rows * 8 + t->cap_stack * 4 +
             t->n_keys * (int64_t)sizeof(TableKey) + t->out.cap : 0;
}

/* table_setup(template): a new, empty table. template(node) -> the node's row as a tuple of bytes: its text before
   its first source's row, between each two, after its last (a leaf: its whole text, one item). */
PyObject *Space_table_setup(Space *s, PyObject *args) {
  PyObject *cb;
  if (!PyArg_ParseTuple(args, "O", &cb)) return NULL;
  if (s->table_json && s->table_json->busy) { PyErr_SetString(PyExc_RuntimeError, "table_setup: the table is in use"); return NULL; }
  table_free(s->table_json);
  if (!(s->table_json = PyMem_Calloc(1, sizeof(struct SpaceTable)))) return PyErr_NoMemory();
  s->table_json->cb = Py_NewRef(cb);
  Py_RETURN_NONE;
}

/* node x's template (borrowed: kept by the cache, or by `held` for a label's other source count); NULL on error */
static PyObject *template_of(Space *s, struct SpaceTable *t, int32_t x, PyObject **held) {
  int32_t label = s->label[x], n = s->src_n[x];
  PyObject *p = label_cache_get(&t->templates, label, n);
  if (p) return p;
  if (!(p = PyObject_CallFunction(t->cb, "i", x))) return NULL;
  int ok = PyTuple_Check(p) && PyTuple_GET_SIZE(p) >= 1 && PyTuple_GET_SIZE(p) - 1 <= n;
  for (Py_ssize_t k = 0; ok && k < PyTuple_GET_SIZE(p); k++) ok = PyBytes_Check(PyTuple_GET_ITEM(p, k));
  if (!ok) { Py_DECREF(p); PyErr_SetString(PyExc_TypeError, "table: a template is a tuple of bytes, one more than the sources it names"); return NULL; }
  return label_cache_keep(&t->templates, label, n, p, held);
}

/* node x's row written: its template around its sources' rows (each has one by now) */
static int write_row(Space *s, struct SpaceTable *t, int32_t x, PyObject *tpl) {
  Py_ssize_t parts = PyTuple_GET_SIZE(tpl);
  int64_t need = 12 * parts;
  for (Py_ssize_t k = 0; k < parts; k++) need += PyBytes_GET_SIZE(PyTuple_GET_ITEM(tpl, k));
  if (text_room(&t->text, need) < 0) return -1;
  if (grow((void **)&t->row_end, &t->cap_rows, t->n_rows + 1, sizeof(int64_t)) < 0) return -1;
  const int32_t *src = s->srcs + s->src_off[x];
  for (Py_ssize_t k = 0; k < parts; k++) {
    PyObject *b = PyTuple_GET_ITEM(tpl, k);
    if (k) put_int(&t->text, t->row_of[src[k - 1]]);
    put(&t->text, PyBytes_AS_STRING(b), (size_t)PyBytes_GET_SIZE(b));
  }
  t->row_of[x] = (int32_t)t->n_rows;
  t->row_end[t->n_rows++] = t->text.n;
  return 0;
}

int64_t table_add(Space *s, int32_t x, PyObject *cut) {
  struct SpaceTable *t = space_table(s);
  if (!t) return -1;
  if (x < 0 || x >= s->n_nodes) { PyErr_SetString(PyExc_IndexError, "table: no such node"); return -1; }
  if (grow_filled((void **)&t->row_of, &t->cap_row_of, s->n_nodes, sizeof(int32_t), 0xff) < 0) return -1;
  if (t->row_of[x] >= 0) return t->row_of[x];
  if (t->n_rows >= INT32_MAX) { PyErr_SetString(PyExc_OverflowError, "table: past 2**31 rows"); return -1; }
  PyObject *held = NULL;
  int64_t added = 0, rc = 0;
  t->busy = 1;
  t->n_stack = 0;
  if (push_int(&t->stack, &t->n_stack, &t->cap_stack, x) < 0 || push_int(&t->stack, &t->n_stack, &t->cap_stack, 0) < 0) rc = -1;
  while (rc == 0 && t->n_stack) {   /* iterative: a graph may be a chain of a million nodes */
    int32_t y = t->stack[t->n_stack - 2], k = t->stack[t->n_stack - 1];
    PyObject *tpl = template_of(s, t, y, &held);
    if (!tpl) { rc = -1; break; }
    if (k < PyTuple_GET_SIZE(tpl) - 1) {   /* its next source, where new */
      t->stack[t->n_stack - 1] = k + 1;
      int32_t c = s->srcs[s->src_off[y] + k];
      if (t->row_of[c] < 0 && (push_int(&t->stack, &t->n_stack, &t->cap_stack, c) < 0 || push_int(&t->stack, &t->n_stack, &t->cap_stack, 0) < 0)) rc = -1;
      continue;
    }
    t->n_stack -= 2;
    if (write_row(s, t, y, tpl) < 0) { rc = -1; break; }
    if (++added % TABLE_CUT_NODES == 0 && cut && cut != Py_None) {
      PyObject *r = PyObject_CallNoArgs(cut);
      int stop = r ? PyObject_IsTrue(r) : -1;
      Py_XDECREF(r);
      if (stop) { rc = stop < 0 ? -1 : -2; break; }
    }
  }
  t->busy = 0;
  Py_XDECREF(held);
  return rc < 0 ? rc : t->row_of[x];
}

/* table_row(node, cut) -> its row (added where new), or -1 once cut() said True while it was added */
PyObject *Space_table_row(Space *s, PyObject *args) {
  int node; PyObject *cut;
  if (!PyArg_ParseTuple(args, "iO", &node, &cut)) return NULL;
  int64_t row = table_add(s, node, cut);
  if (row == -1) return NULL;
  return PyLong_FromLongLong(row < 0 ? -1 : row);
}

/* table_rows(start, end) -> the texts of rows start..end-1, comma-separated (bytes) */
PyObject *Space_table_rows(Space *s, PyObject *args) {
  long long start, end;
  struct SpaceTable *t = space_table(s);
  if (!t || !PyArg_ParseTuple(args, "LL", &start, &end)) return NULL;
  if (start < 0) start = 0;
  if (end > t->n_rows) end = t->n_rows;
  if (start >= end) return PyBytes_FromStringAndSize("", 0);
  Text out = {0};
  int64_t from = start ? t->row_end[start - 1] : 0;
  if (text_room(&out, t->row_end[end - 1] - from + (end - start)) < 0) return NULL;
  for (long long r = start; r < end; r++) {
    int64_t a = r ? t->row_end[r - 1] : 0;
    if (r > start) out.buf[out.n++] = ',';
    put(&out, t->text.buf + a, (size_t)(t->row_end[r] - a));
  }
  return text_bytes(&out);
}

/* table_size() -> the rows so far */
PyObject *Space_table_size(Space *s, PyObject *noargs) {
  (void)noargs;
  struct SpaceTable *t = space_table(s);
  return t ? PyLong_FromLongLong(t->n_rows) : NULL;
}

Text *table_out(Space *s) {
  struct SpaceTable *t = space_table(s);
  return t ? &t->out : NULL;
}

TableKey *table_keys(Space *s, int64_t n) {
  struct SpaceTable *t = space_table(s);
  if (!t || n <= t->n_keys) return t ? t->keys : NULL;
  /* (calloc's pages untouched until a key is read: five_params' 811,967 keys, read as the steps name them) */
  TableKey *keys = t->keys ? PyMem_Realloc(t->keys, (size_t)n * sizeof(TableKey)) : PyMem_Calloc((size_t)n, sizeof(TableKey));
  if (!keys) { PyErr_NoMemory(); return NULL; }
  if (t->keys) memset(keys + t->n_keys, 0, (size_t)(n - t->n_keys) * sizeof(TableKey));
  t->keys = keys;
  t->n_keys = n;
  return keys;
}
