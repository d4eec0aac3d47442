/* The .uir parser's plain lines in C: uopc/uir.py's _Parser.plain_lines_py, line for line, the same nodes and the same stop.

   A program of 100,000 nodes is almost all lines as to_uir prints a binary node or a scalar PARAM. In Python each costs
   a regular expression, a dozen dict lookups and the node's making (3.3 us); here the line is scanned by hand and the
   node made as uopc/uop.py's make_checked makes it: found in (or put into) the hash-consing table of its (op, dtype,
   arg) in uop._tables, logged in uop._log, uop._collect called when the log passes uop._cache_limit.

   The contract is uir.py's: a line is read here only if _PLAIN_LINE fullmatches it, its refs are defined, its ops and
   dtypes are known and it is well typed; at any other line this stops, having changed nothing for that line, and
   Python reads it (and says what is wrong, with its line and column). A literal operand is looked up in the parser's
   literal memo, and made by the parser's own `literal` (a call to Python) when not there. Every other object is
   reached through configure(), called once by uir.py. Built by setup.py (optional: uir.py falls back to Python). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stdint.h>
#include <string.h>

typedef struct { const char *name; Py_ssize_t len; PyObject *obj; int boolean, i32_only; } Named;

enum { OP, DTYPE, SRC, ARG, SHAPE, BOUNDS, N_SLOTS };
static const char *slot_names[N_SLOTS] = {"op", "dtype", "src", "arg", "shape", "_bounds"};

static PyTypeObject *uop_type, *param_arg_type;
static Py_ssize_t slot_off[N_SLOTS];
static PyObject *param_op, *bool_dtype, *i32_dtype, *globals;   /* globals: uopc.uop's module dict (_tables, _log, ...) */
static PyObject *s_tables, *s_log, *s_limit, *s_collect;
static Named *binary_ops, *dtype_names;
static Py_ssize_t n_binary, n_dtypes;
static int configured;

#define SLOT(o, k) (*(PyObject **)((char *)(o) + slot_off[k]))

static inline int word_char(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }
static inline int is_digit(char c) { return c >= '0' && c <= '9'; }

static Py_ssize_t word_run(const char *p, Py_ssize_t k, Py_ssize_t n) { while (k < n && word_char(p[k])) k++; return k; }

/* The end of the operand at k, as _OPERAND matches it: %name, or -?[A-Za-z0-9_.]+ with an exponent sign after an e;
   -1 if none starts there. */
static Py_ssize_t operand_end(const char *p, Py_ssize_t k, Py_ssize_t n) {
  if (k < n && p[k] == '%') { Py_ssize_t e = word_run(p, k + 1, n); return e > k + 1 ? e : -1; }
  Py_ssize_t j = k < n && p[k] == '-' ? k + 1 : k, e = j;
  while (e < n && (word_char(p[e]) || p[e] == '.')) e++;
  if (e == j) return -1;
  if ((p[e - 1] == 'e' || p[e - 1] == 'E') && e + 1 < n && (p[e] == '+' || p[e] == '-') && is_digit(p[e + 1])) {
    e += 2;
    while (e < n && is_digit(p[e])) e++;
  }
  return e;
}

static int blanks_to_end(const char *p, Py_ssize_t k, Py_ssize_t n) {
  while (k < n && (p[k] == ' ' || p[k] == '\t' || p[k] == '\r')) k++;
  return k == n;
}

static Named *find(Named *table, Py_ssize_t count, const char *p, Py_ssize_t len) {
  for (Py_ssize_t i = 0; i < count; i++)
    if (table[i].len == len && memcmp(table[i].name, p, (size_t)len) == 0) return &table[i];
  return NULL;
}

/* What make_checked finds in uopc.uop, kept from node to node while no Python runs: _log, _cache_limit and the tables of
   binary nodes (arg None) by (op, dtype). Python may rebind _log and _cache_limit (_collect does) or drop a table that
   emptied, so each call into Python (_collect, the parser's literal) forgets them, as does the end of plain_lines. */
typedef struct { PyObject *op, *dtype, *table; } Kept;
#define N_KEPT 32
static struct { PyObject *log; Py_ssize_t cap; int valid, n; Kept tables[N_KEPT]; } kept;

static void forget(void) {
  Py_CLEAR(kept.log);
  for (int k = 0; k < kept.n; k++) Py_DECREF(kept.tables[k].table);
  kept.n = 0; kept.valid = 0;
}

static int remember(void) {
  PyObject *log = PyDict_GetItemWithError(globals, s_log), *limit = PyDict_GetItemWithError(globals, s_limit);
  if (log == NULL || limit == NULL || !PyList_Check(log)) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "_uir: uopc.uop._log or _cache_limit is gone");
    return -1;
  }
  Py_ssize_t cap = PyLong_AsSsize_t(limit);
  if (cap == -1 && PyErr_Occurred()) return -1;
  kept.log = Py_NewRef(log); kept.cap = cap; kept.valid = 1;
  return 0;
}

/* The table of (op, dtype, arg) in uop._tables, made if absent: a new reference, or NULL with an exception set. */
static PyObject *table_of(PyObject *op, PyObject *dtype, PyObject *arg) {
  if (arg == Py_None)
    for (int k = 0; k < kept.n; k++)
      if (kept.tables[k].op == op && kept.tables[k].dtype == dtype) return Py_NewRef(kept.tables[k].table);
  PyObject *tables = PyDict_GetItemWithError(globals, s_tables);
  if (tables == NULL) { if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "_uir: uopc.uop._tables is gone"); return NULL; }
  PyObject *key = PyTuple_Pack(3, op, dtype, arg);
  if (key == NULL) return NULL;
  PyObject *table = PyDict_GetItemWithError(tables, key);
  if (table != NULL) Py_INCREF(table);
  else if (!PyErr_Occurred() && (table = PyDict_New()) != NULL && PyDict_SetItem(tables, key, table) < 0) Py_CLEAR(table);
  Py_DECREF(key);
  if (table != NULL && arg == Py_None && kept.n < N_KEPT) kept.tables[kept.n++] = (Kept){op, dtype, Py_NewRef(table)};
  return table;
}

/* make_checked(op, dtype, src, arg, shape): a new reference, or NULL with an exception set. */
static PyObject *make_checked(PyObject *op, PyObject *dtype, PyObject *src, PyObject *arg, PyObject *shape) {
  if (!kept.valid && remember() < 0) return NULL;
  PyObject *table = table_of(op, dtype, arg);   /* held while the node is made: an allocation may run a collection */
  if (table == NULL) return NULL;
  PyObject *u = PyDict_GetItemWithError(table, src);
  if (u != NULL || PyErr_Occurred()) { Py_DECREF(table); return u ? Py_NewRef(u) : NULL; }
  u = uop_type->tp_alloc(uop_type, 0);   /* object.__new__(UOp): every slot empty */
  if (u == NULL) { Py_DECREF(table); return NULL; }
  SLOT(u, OP) = Py_NewRef(op); SLOT(u, DTYPE) = Py_NewRef(dtype); SLOT(u, SRC) = Py_NewRef(src);
  SLOT(u, ARG) = Py_NewRef(arg); SLOT(u, SHAPE) = Py_NewRef(shape); SLOT(u, BOUNDS) = Py_NewRef(Py_None);
  int stored = PyDict_SetItem(table, src, u);
  Py_DECREF(table);
  if (stored < 0 || PyList_Append(kept.log, u) < 0) { Py_DECREF(u); return NULL; }
  if (PyList_GET_SIZE(kept.log) > kept.cap) {
    forget();   /* _collect rebinds _log and _cache_limit, and drops the tables it empties */
    PyObject *collect = PyDict_GetItemWithError(globals, s_collect);
    PyObject *r = collect ? PyObject_CallNoArgs(collect) : NULL;
    if (r == NULL) { if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "_uir: uopc.uop._collect is gone"); Py_DECREF(u); return NULL; }
    Py_DECREF(r);
  }
  return u;
}

/* The refs this call defined under names as to_uir writes them (%0, %1, ...: no leading zero, below `limit`), by number:
   their nodes, borrowed (refs holds them, and no Python this call runs changes refs). With `fresh` (refs was empty when
   the call began) a name of that form that is not here is in no ref, so neither an operand nor a definition needs to
   look for it in refs; other names always do. */
typedef struct { PyObject **node; Py_ssize_t cap, limit; int fresh; } Mirror;

static Py_ssize_t ref_number(const Mirror *m, const char *p, Py_ssize_t k0, Py_ssize_t k1) {
  Py_ssize_t len = k1 - k0 - 1, v = 0;
  if (len < 1 || len > 9 || (p[k0 + 1] == '0' && len > 1)) return -1;
  for (Py_ssize_t k = k0 + 1; k < k1; k++) { if (!is_digit(p[k])) return -1; v = v * 10 + (p[k] - '0'); }
  return v < m->limit ? v : -1;
}

static PyObject *mirrored(const Mirror *m, Py_ssize_t num) { return num >= 0 && num < m->cap ? m->node[num] : NULL; }

static int mirror(Mirror *m, Py_ssize_t num, PyObject *u) {
  if (num < 0) return 0;
  if (num >= m->cap) {
    Py_ssize_t cap = m->cap ? m->cap : 1024;
    while (cap <= num) cap *= 2;
    if (cap > m->limit) cap = m->limit;
    PyObject **node = PyMem_Realloc(m->node, (size_t)cap * sizeof(PyObject *));
    if (node == NULL) { PyErr_NoMemory(); return -1; }
    memset(node + m->cap, 0, (size_t)(cap - m->cap) * sizeof(PyObject *));
    m->node = node; m->cap = cap;
  }
  m->node[num] = u;
  return 0;
}

/* The node of the %ref p[k0:k1] (borrowed), NULL if it is undefined or on error (*err set). */
static PyObject *ref_node(const Mirror *m, PyObject *refs, const char *p, Py_ssize_t k0, Py_ssize_t k1, int *err) {
  Py_ssize_t num = ref_number(m, p, k0, k1);
  PyObject *x = mirrored(m, num);
  if (x != NULL || (num >= 0 && m->fresh)) return x;
  PyObject *text = PyUnicode_FromStringAndSize(p + k0, k1 - k0);
  if (text == NULL) { *err = 1; return NULL; }
  x = PyDict_GetItemWithError(refs, text);
  Py_DECREF(text);
  if (x == NULL && PyErr_Occurred()) *err = 1;
  return x;
}

/* The literal `text` beside node `like`, as plain_lines_py finds it: the memo's node if it has like's dtype and shape, else
   literal(text, like). A new reference; Py_None when it is in error (stop); NULL with an exception set. */
static PyObject *literal_node(PyObject *literals, PyObject *literal, PyObject *text, PyObject *like) {
  PyObject *x = PyDict_GetItemWithError(literals, text);
  if (x == NULL && PyErr_Occurred()) return NULL;
  if (x != NULL && Py_TYPE(x) == uop_type && SLOT(x, DTYPE) == SLOT(like, DTYPE)) {
    PyObject *a = SLOT(x, SHAPE), *b = SLOT(like, SHAPE);
    int ne = a == b ? 0 : PyObject_RichCompareBool(a, b, Py_NE);
    if (ne < 0) return NULL;
    if (!ne) return Py_NewRef(x);
  }
  forget();   /* Python runs */
  return PyObject_CallFunctionObjArgs(literal, text, like, NULL);
}

/* Where _PLAIN_LINE matches a line: its ref (p[0:ref_end]), and a PARAM's slot and dtype or a binary node's op and operands. */
typedef struct {
  const char *p; Py_ssize_t n, ref_end;
  int is_param;
  Py_ssize_t slot0, slot1, d0, d1;          /* a PARAM's slot digits and dtype name */
  Py_ssize_t a0, a1, b0, b1; Named *op;     /* a binary node's operands and op */
} PlainMatch;

/* `slot=N dtype=D` from p[k], to the end (blanks after) */
static int match_param(PlainMatch *f, Py_ssize_t k) {
  const char *p = f->p;
  Py_ssize_t n = f->n;
  f->slot0 = k; f->slot1 = k;
  while (f->slot1 < n && is_digit(p[f->slot1])) f->slot1++;
  if (f->slot1 == f->slot0 || f->slot1 - f->slot0 > 9 || n - f->slot1 < 7 || memcmp(p + f->slot1, " dtype=", 7) != 0) return 0;
  f->d0 = f->slot1 + 7; f->d1 = word_run(p, f->d0, n);
  return f->d1 != f->d0 && blanks_to_end(p, f->d1, n);
}

/* `op a, b` from p[q], to the end (blanks after), op one of the binary ops */
static int match_binary(PlainMatch *f, Py_ssize_t q) {
  const char *p = f->p;
  Py_ssize_t n = f->n, e = q;
  while (e < n && ((p[e] >= 'a' && p[e] <= 'z') || is_digit(p[e]) || p[e] == '_')) e++;
  if (e == q || e >= n || p[e] != ' ') return 0;
  f->a0 = e + 1;
  if ((f->a1 = operand_end(p, f->a0, n)) < 0 || f->a1 + 2 > n || p[f->a1] != ',' || p[f->a1 + 1] != ' ') return 0;
  f->b0 = f->a1 + 2;
  if ((f->b1 = operand_end(p, f->b0, n)) < 0 || !blanks_to_end(p, f->b1, n)) return 0;
  return (f->op = find(binary_ops, n_binary, p + q, e - q)) != NULL;   /* after the match: a line it fails is no node */
}

/* 1 the line matches _PLAIN_LINE (f filled), 0 not, -1 not a str */
static int match_plain(PyObject *line, PlainMatch *f) {
  if (!PyUnicode_Check(line)) { PyErr_SetString(PyExc_TypeError, "_uir.plain_lines: lines must be str"); return -1; }
  if (!PyUnicode_IS_ASCII(line)) return 0;   /* every character _PLAIN_LINE matches is ASCII */
  const char *p = f->p = (const char *)PyUnicode_DATA(line);
  Py_ssize_t n = f->n = PyUnicode_GET_LENGTH(line);
  if (n < 1 || p[0] != '%') return 0;
  f->ref_end = word_run(p, 1, n);
  if (f->ref_end == 1 || f->ref_end + 3 > n || memcmp(p + f->ref_end, " = ", 3) != 0) return 0;
  Py_ssize_t q = f->ref_end + 3;
  static const char param_head[] = "param : slot=";
  const Py_ssize_t head_len = (Py_ssize_t)sizeof(param_head) - 1;
  f->is_param = n - q >= head_len && memcmp(p + q, param_head, (size_t)head_len) == 0;
  return f->is_param ? match_param(f, q + head_len) : match_binary(f, q);
}

/* The PARAM of a matched line (*u), its place put in params: 1 made, 0 not plain (an unknown dtype), -1 error. */
static int param_node(const PlainMatch *f, Py_ssize_t lineno, PyObject *params, PyObject **u) {
  Named *d = find(dtype_names, n_dtypes, f->p + f->d0, f->d1 - f->d0);
  if (d == NULL) return 0;
  long slot = 0;
  for (Py_ssize_t k = f->slot0; k < f->slot1; k++) slot = slot * 10 + (f->p[k] - '0');
  /* ParamArg(slot, dtype) as tuple.__new__ makes it: the subclass, its four items */
  PyObject *arg = param_arg_type->tp_alloc(param_arg_type, 4), *pyslot = PyLong_FromLong(slot), *empty = PyTuple_New(0);
  if (arg == NULL || pyslot == NULL || empty == NULL) { Py_XDECREF(arg); Py_XDECREF(pyslot); Py_XDECREF(empty); return -1; }
  PyTuple_SET_ITEM(arg, 0, pyslot); PyTuple_SET_ITEM(arg, 1, Py_NewRef(d->obj)); PyTuple_SET_ITEM(arg, 2, Py_NewRef(empty));
  PyTuple_SET_ITEM(arg, 3, Py_NewRef(Py_None));
  *u = make_checked(param_op, d->obj, empty, arg, empty);
  Py_DECREF(arg); Py_DECREF(empty);
  if (*u == NULL) return -1;
  PyObject *where = Py_BuildValue("(nn)", lineno, f->ref_end + 4);   /* the op's column: after "%N = " */
  if (where == NULL) return -1;
  PyObject *got = PyDict_SetDefault(params, *u, where);
  Py_DECREF(where);
  return got == NULL ? -1 : 1;
}

/* The literal p[k0:k1] beside node `like` (literal_node) in *out: 1 made, 0 in error (stop), -1 error. */
static int literal_beside(PyObject *literals, PyObject *literal, const char *p, Py_ssize_t k0, Py_ssize_t k1, PyObject *like, PyObject **out) {
  /* a literal's text is a str only when it is looked up (in the parser's literal memo) */
  PyObject *text = PyUnicode_FromStringAndSize(p + k0, k1 - k0);
  if (text == NULL) return -1;
  PyObject *x = literal_node(literals, literal, text, like);
  Py_DECREF(text);
  if (x == NULL) return -1;
  if (x == Py_None) { Py_DECREF(x); return 0; }
  *out = x;
  return 1;
}

/* A binary line's operands (new references in *x, *y): a ref's node, a literal's made beside the other operand's node.
   1 both, 0 not plain (an undefined ref, two literals, a literal in error), -1 error. */
static int operands(const PlainMatch *f, Mirror *m, PyObject *refs, PyObject *literals, PyObject *literal, PyObject **x, PyObject **y) {
  int a_ref = f->p[f->a0] == '%', b_ref = f->p[f->b0] == '%', err = 0;
  PyObject *bx = a_ref ? ref_node(m, refs, f->p, f->a0, f->a1, &err) : NULL;
  if (err) return -1;
  if (bx == NULL && a_ref) return 0;
  PyObject *by = b_ref ? ref_node(m, refs, f->p, f->b0, f->b1, &err) : NULL;
  if (err) return -1;
  if (bx == NULL) {   /* a literal, then a ref */
    if (by == NULL) return 0;
    *y = Py_NewRef(by);
    return literal_beside(literals, literal, f->p, f->a0, f->a1, *y, x);
  }
  *x = Py_NewRef(bx);
  if (by != NULL) { *y = Py_NewRef(by); return 1; }
  if (b_ref) return 0;
  return literal_beside(literals, literal, f->p, f->b0, f->b1, *x, y);
}

/* The binary node of operands x and y (*u) as make_uop checks it: 1 made, 0 not plain (a type error: Python says why), -1 error. */
static int binary_node(const PlainMatch *f, PyObject *x, PyObject *y, PyObject **u) {
  if (Py_TYPE(x) != uop_type || Py_TYPE(y) != uop_type) return 0;   /* never: refs and literals hold UOps */
  PyObject *dtype = SLOT(x, DTYPE), *shape = SLOT(x, SHAPE);
  if (SLOT(y, DTYPE) != dtype) return 0;
  if (SLOT(y, SHAPE) != shape) {
    int ne = PyObject_RichCompareBool(SLOT(y, SHAPE), shape, Py_NE);
    if (ne != 0) return ne < 0 ? -1 : 0;
  }
  if (f->op->i32_only && dtype != i32_dtype) return 0;   /* make_uop says why */
  PyObject *src = PyTuple_Pack(2, x, y);
  if (src == NULL) return -1;
  *u = make_checked(f->op->obj, f->op->boolean ? bool_dtype : dtype, src, Py_None, shape);
  Py_DECREF(src);
  return *u == NULL ? -1 : 1;
}

static int binary_line(const PlainMatch *f, Mirror *m, PyObject *refs, PyObject *literals, PyObject *literal, PyObject **u) {
  PyObject *x = NULL, *y = NULL;
  int rc = operands(f, m, refs, literals, literal, &x, &y);
  if (rc == 1) rc = binary_node(f, x, y, u);
  Py_XDECREF(x); Py_XDECREF(y);
  return rc;
}

/* node u defined as ref (number num) at lineno: 1, or -1 on error */
static int define(PyObject *ref, Py_ssize_t num, PyObject *u, Py_ssize_t lineno, Mirror *m, PyObject *refs, PyObject *lines_of, PyObject **made) {
  if (PyDict_SetItem(refs, ref, u) < 0 || mirror(m, num, u) < 0) return -1;
  PyObject *no = PyLong_FromSsize_t(lineno);
  if (no == NULL) return -1;
  int app = PyList_Append(lines_of, no);
  Py_DECREF(no);
  if (app < 0) return -1;
  Py_XSETREF(*made, Py_NewRef(u));
  return 1;
}

/* One line: 1 read (node in *made), 0 not plain (stop), -1 error. */
static int plain_line(PyObject *line, Py_ssize_t lineno, Mirror *m, PyObject *refs, PyObject *lines_of, PyObject *params,
                      PyObject *literals, PyObject *literal, PyObject **made) {
  PlainMatch f = {0};
  int rc = match_plain(line, &f);
  if (rc <= 0) return rc;
  /* the line matches _PLAIN_LINE: the same checks as plain_lines_py, in its order */
  PyObject *ref = PyUnicode_FromStringAndSize(f.p, f.ref_end), *u = NULL;
  if (ref == NULL) return -1;
  Py_ssize_t num = ref_number(m, f.p, 0, f.ref_end);
  int dup = mirrored(m, num) != NULL ? 1 : num >= 0 && m->fresh ? 0 : PyDict_Contains(refs, ref);
  if (dup != 0) rc = dup < 0 ? -1 : 0;
  else rc = f.is_param ? param_node(&f, lineno, params, &u) : binary_line(&f, m, refs, literals, literal, &u);
  if (rc == 1) rc = define(ref, num, u, lineno, m, refs, lines_of, made);
  Py_DECREF(ref); Py_XDECREF(u);
  return rc;
}

static PyObject *plain_lines(PyObject *self, PyObject *args) {
  PyObject *lines, *refs, *lines_of, *params, *literals, *literal;
  Py_ssize_t i;
  if (!PyArg_ParseTuple(args, "O!nO!O!O!O!O:plain_lines", &PyList_Type, &lines, &i, &PyDict_Type, &refs, &PyList_Type, &lines_of,
                        &PyDict_Type, &params, &PyDict_Type, &literals, &literal)) return NULL;
  if (!configured) { PyErr_SetString(PyExc_RuntimeError, "_uir.plain_lines: configure() first"); return NULL; }
  if (i < 0) i = 0;
  PyObject *made = NULL, *r = NULL;
  /* to_uir's names count the lines: a bigger number is looked up in refs, and the mirror stays as big as the program */
  Mirror m = {NULL, 0, PyList_GET_SIZE(lines) + 1024, PyDict_GET_SIZE(refs) == 0};
  forget();   /* what a call before this one kept (it forgets at its end; this is for safety) */
  for (Py_ssize_t read = 1; i < PyList_GET_SIZE(lines); i++, read++) {
    /* the budget's bounds and Ctrl-C are signal handlers, which run between bytecodes: here, every 1,024 lines */
    if ((read & 1023) == 0 && PyErr_CheckSignals() < 0) goto done;
    PyObject *line = Py_NewRef(PyList_GET_ITEM(lines, i));   /* held: `literal` runs Python */
    int rc = plain_line(line, i + 1, &m, refs, lines_of, params, literals, literal, &made);
    Py_DECREF(line);
    if (rc < 0) goto done;
    if (rc == 0) break;
  }
  r = Py_BuildValue("(nO)", i, made ? made : Py_None);
done:
  forget();
  PyMem_Free(m.node);
  Py_XDECREF(made);
  return r;
}

static int named_table(PyObject *seq, Named **out, Py_ssize_t *count, int with_flags) {
  PyObject *fast = PySequence_Fast(seq, "_uir.configure: expected a sequence");
  if (fast == NULL) return -1;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
  Named *t = PyMem_Calloc((size_t)(n ? n : 1), sizeof(Named));
  if (t == NULL) { Py_DECREF(fast); PyErr_NoMemory(); return -1; }
  for (Py_ssize_t k = 0; k < n; k++) {
    PyObject *item = PySequence_Fast_GET_ITEM(fast, k), *name;
    int boolean = 0, i32_only = 0;
    if (with_flags ? !PyArg_ParseTuple(item, "UOpp", &name, &t[k].obj, &boolean, &i32_only) : !PyArg_ParseTuple(item, "UO", &name, &t[k].obj)) {
      PyMem_Free(t); Py_DECREF(fast); return -1;
    }
    if ((t[k].name = PyUnicode_AsUTF8AndSize(name, &t[k].len)) == NULL) { PyMem_Free(t); Py_DECREF(fast); return -1; }
    t[k].boolean = boolean; t[k].i32_only = i32_only;
  }
  for (Py_ssize_t k = 0; k < n; k++) { Py_INCREF(t[k].obj); Py_INCREF(PySequence_Fast_GET_ITEM(fast, k)); }   /* names live with their items */
  Py_DECREF(fast);
  *out = t; *count = n;
  return 0;
}

/* configure(UOp, ParamArg, Ops.PARAM, vars(uopc.uop), [(name, op, bool result, i32 only)], [(name, dtype)], BOOL, I32) */
static PyObject *configure(PyObject *self, PyObject *args) {
  PyObject *ut, *pt, *pop, *g, *bins, *dts, *bd, *id;
  if (!PyArg_ParseTuple(args, "O!O!OO!OOOO:configure", &PyType_Type, &ut, &PyType_Type, &pt, &pop, &PyDict_Type, &g, &bins, &dts, &bd, &id))
    return NULL;
  if (configured) Py_RETURN_NONE;   /* once: the objects are the process's */
  if (!PyType_IsSubtype((PyTypeObject *)pt, &PyTuple_Type)) { PyErr_SetString(PyExc_TypeError, "_uir.configure: ParamArg is a tuple"); return NULL; }
  for (int k = 0; k < N_SLOTS; k++) {
    PyObject *d = PyObject_GetAttrString(ut, slot_names[k]);
    if (d == NULL) return NULL;
    int ok = Py_IS_TYPE(d, &PyMemberDescr_Type) && ((PyMemberDescrObject *)d)->d_member->type == T_OBJECT_EX;
    if (ok) slot_off[k] = ((PyMemberDescrObject *)d)->d_member->offset;
    Py_DECREF(d);
    if (!ok) { PyErr_Format(PyExc_TypeError, "_uir.configure: UOp.%s is not a slot", slot_names[k]); return NULL; }
  }
  if (named_table(bins, &binary_ops, &n_binary, 1) < 0 || named_table(dts, &dtype_names, &n_dtypes, 0) < 0) return NULL;
  if ((s_tables = PyUnicode_InternFromString("_tables")) == NULL || (s_log = PyUnicode_InternFromString("_log")) == NULL ||
      (s_limit = PyUnicode_InternFromString("_cache_limit")) == NULL || (s_collect = PyUnicode_InternFromString("_collect")) == NULL)
    return NULL;
  uop_type = (PyTypeObject *)Py_NewRef(ut); param_arg_type = (PyTypeObject *)Py_NewRef(pt);
  param_op = Py_NewRef(pop); globals = Py_NewRef(g); bool_dtype = Py_NewRef(bd); i32_dtype = Py_NewRef(id);
  configured = 1;
  Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
  {"configure", configure, METH_VARARGS, "configure(UOp, ParamArg, Ops.PARAM, vars(uopc.uop), binary ops, dtypes, BOOL, I32)"},
  {"plain_lines", plain_lines, METH_VARARGS,
   "plain_lines(lines, i, refs, lines_of, params, literals, literal) -> (index of the first line not read, last node made | None)"},
  {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_uir", "The .uir parser's plain lines in C (uopc/uir.py).", -1, methods};

PyMODINIT_FUNC PyInit__uir(void) { return PyModule_Create(&module); }
