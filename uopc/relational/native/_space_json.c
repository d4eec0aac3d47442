/* The steps of a report's JSON written from the core's step maps (uopc/cli/reports/stream.py's Items): no tuple, no
 * Python string per step.
 *
 * A step is {"from":S,"to":T,"rule":NAME,"rule_index":K,"node":N,"result":R,"error":null}. Its numbers are written
 * here; its rule's text ("rule":NAME,"rule_index":K,) comes from Python, made once per rule by the report's one JSON
 * encoder (json.dumps), so a rule's name is escaped here exactly as everywhere else. A step key's node and result rows
 * are the report's node table's (Python's, filled in the order the steps name them): step_keys lists the keys not read
 * yet, steps_json writes the steps once they are. */
#include "_space.h"
#include "_space_json.h"

/* A state's steps, as out(i) lists them, each handed to visit(ctx, key, result node, target state). */
typedef int (*StepVisit)(void *ctx, int32_t key, int32_t target);
typedef struct { void *ctx; StepVisit visit; int32_t target; } GroupVisit;

static int group_visit(void *arg, int32_t key) {
  GroupVisit *g = arg;
  return g->visit(g->ctx, key, g->target);
}

static int each_state_step(Space *s, int32_t i, StepVisit visit, void *ctx) {
  int32_t root = s->st_root[i], m;
  if (s->map_off[root] == NO_MAP) return 0;
  const int32_t *steps = state_steps(s, i, &m);
  int in_groups = s->st_out[i] < 0 && grouped(s, root);
  for (int32_t e = 0; e < m; e++) {
    int32_t target = s->state_of[steps[2 * e + 1]];
    GroupVisit g = {ctx, visit, target};
    int rc = in_groups ? group_keys(s, group_at(s, root, e), group_visit, &g) : visit(ctx, steps[2 * e], target);
    if (rc < 0) return -1;
  }
  return 0;
}

/* The arguments both functions share: the states start..end-1, which of them are expanded (a byte each: Python's
 * s.out is not None), the targets kept (0 <= target < limit; limit < 0: every one), the keys' rule indices. */
typedef struct {
  int start, end, limit;
  Py_buffer expanded, rule_of;
} StepRange;

static int range_open(Space *s, StepRange *r, PyObject *expanded, PyObject *rule_of, int writable) {
  if (PyObject_GetBuffer(expanded, &r->expanded, PyBUF_SIMPLE) < 0) return -1;
  if (PyObject_GetBuffer(rule_of, &r->rule_of, PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0)) < 0) { PyBuffer_Release(&r->expanded); return -1; }
  const char *fmt = r->rule_of.format;
  if (r->rule_of.itemsize != 4 || !fmt || (strcmp(fmt, "i") != 0 && strcmp(fmt, "=i") != 0)) {
    PyErr_SetString(PyExc_TypeError, "a key's column is an array of int32 ('i')");
  } else if (r->start < 0 || r->end > s->n_states || r->start > r->end || r->expanded.len != r->end - r->start) {
    PyErr_SetString(PyExc_IndexError, "states out of range, or an expanded flag per state missing");
  } else return 0;
  PyBuffer_Release(&r->expanded); PyBuffer_Release(&r->rule_of);
  return -1;
}

static void range_close(StepRange *r) { PyBuffer_Release(&r->expanded); PyBuffer_Release(&r->rule_of); }

static inline int kept(const StepRange *r, int32_t target) { return r->limit < 0 || (target >= 0 && target < r->limit); }

static int key_ok(const StepRange *r, int32_t key) {
  if (key >= 0 && key < (int64_t)(r->rule_of.len / 4)) return 0;
  PyErr_SetString(PyExc_IndexError, "a step key past the keys' columns");
  return -1;
}

/* ---- step_keys: the keys not read yet, in the order the steps name them */

/* Under graph semantics a key is a redex: where the report's node table has a row for both its node and its result
 * (node_rows: a row per node, -1 for none; every state's graph is in the table before its steps), the key is read here:
 * no row is added, so the order the others are read in is unchanged. */
typedef struct { StepRange *r; PyObject *keys, *states; int32_t state; const int32_t *rows; int32_t *node_of, *result_of; Space *s; } KeysVisit;

static int keys_visit(void *ctx, int32_t key, int32_t target) {
  KeysVisit *v = ctx;
  if (!kept(v->r, target)) return 0;
  if (key_ok(v->r, key) < 0) return -1;
  int32_t *rule_of = v->r->rule_of.buf;
  if (rule_of[key] != -1) return 0;
  SpaceTemplates *t = &v->s->templates;
  if (v->rows && key < t->n_red) {
    int32_t node = v->rows[t->red_node[key]], result = v->rows[t->red_result[key]];
    if (node >= 0 && result >= 0) { rule_of[key] = t->red_rule[key]; v->node_of[key] = node; v->result_of[key] = result; return 0; }
  }
  rule_of[key] = -2;   /* listed: Python reads it next (and writes its rule index here) */
  PyObject *k = PyLong_FromLong(key), *st = PyLong_FromLong(v->state);
  int rc = k && st ? (PyList_Append(v->keys, k) < 0 || PyList_Append(v->states, st) < 0 ? -1 : 0) : -1;
  Py_XDECREF(k); Py_XDECREF(st);
  return rc;
}

/* a writable int32 column of `len` bytes */
static int int_column(PyObject *o, Py_buffer *b, Py_ssize_t len, int writable) {
  if (PyObject_GetBuffer(o, b, PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0)) < 0) return -1;
  if (b->itemsize == 4 && b->format && (strcmp(b->format, "i") == 0 || strcmp(b->format, "=i") == 0) && (len < 0 || b->len == len)) return 0;
  PyBuffer_Release(b);
  PyErr_SetString(PyExc_ValueError, "an int32 column ('i') of the length asked");
  return -1;
}

PyObject *Space_step_keys(Space *s, PyObject *args) {
  StepRange r = {0};
  PyObject *expanded, *rule_of, *node_of, *result_of, *node_rows;
  if (!PyArg_ParseTuple(args, "iiOOOOOi", &r.start, &r.end, &expanded, &rule_of, &node_of, &result_of, &node_rows, &r.limit)) return NULL;
  if (range_open(s, &r, expanded, rule_of, 1) < 0) return NULL;
  Py_buffer cols[3];
  int n_cols = 0, rc = 0;
  PyObject *objs[3] = {node_of, result_of, node_rows};
  for (; rc == 0 && n_cols < (node_rows == Py_None ? 0 : 3); n_cols++)
    if (int_column(objs[n_cols], &cols[n_cols], n_cols < 2 ? r.rule_of.len : (Py_ssize_t)s->n_nodes * 4, n_cols < 2) < 0) { rc = -1; break; }
  int use_rows = rc == 0 && node_rows != Py_None && !s->tree;
  KeysVisit v = {&r, PyList_New(0), PyList_New(0), 0, use_rows ? cols[2].buf : NULL, use_rows ? cols[0].buf : NULL, use_rows ? cols[1].buf : NULL, s};
  if (rc == 0 && !(v.keys && v.states)) rc = -1;
  const char *done = r.expanded.buf;
  for (int32_t i = r.start; rc == 0 && i < r.end; i++) {
    v.state = i;
    if (done[i - r.start]) rc = each_state_step(s, i, keys_visit, &v);
  }
  for (int c = 0; c < n_cols; c++) PyBuffer_Release(&cols[c]);
  range_close(&r);
  if (rc < 0) { Py_XDECREF(v.keys); Py_XDECREF(v.states); return NULL; }
  return Py_BuildValue("NN", v.keys, v.states);
}

/* node_rows(uops, start, rows): rows[node] = k for each uops[k] (k >= start) that is the UOp of a node of the core,
   where rows[node] is -1 (a node's first row): the report's node table's rows by node id. */
PyObject *Space_node_rows(Space *s, PyObject *args) {
  PyObject *uops, *rows;
  Py_ssize_t start;
  if (!PyArg_ParseTuple(args, "O!nO", &PyList_Type, &uops, &start, &rows)) return NULL;
  Py_buffer b;
  if (int_column(rows, &b, (Py_ssize_t)s->n_nodes * 4, 1) < 0) return NULL;
  int32_t *row = b.buf;
  for (Py_ssize_t k = start < 0 ? 0 : start; k < PyList_GET_SIZE(uops); k++) {
    int32_t node = map_get(&s->ptrs, (uint64_t)(uintptr_t)PyList_GET_ITEM(uops, k), -1);
    if (node >= 0 && node < s->n_nodes && row[node] < 0) row[node] = (int32_t)k;
  }
  PyBuffer_Release(&b);
  Py_RETURN_NONE;
}

/* ---- steps_json: the steps' text */

typedef struct { char *buf; int64_t n, cap; } Text;

static int text_room(Text *t, int64_t more) {
  if (t->n + more <= t->cap) return 0;
  int64_t cap = t->cap ? t->cap : 1 << 16;
  while (cap < t->n + more) cap *= 2;
  char *b = PyMem_Realloc(t->buf, (size_t)cap);
  if (!b) { PyErr_NoMemory(); return -1; }
  t->buf = b; t->cap = cap;
  return 0;
}

static inline void put(Text *t, const char *p, size_t n) { memcpy(t->buf + t->n, p, n); t->n += (int64_t)n; }

static inline void put_int(Text *t, int32_t x) {   /* as Python's str(int) */
  char d[12]; int k = 0;
  uint32_t u = x < 0 ? (uint32_t)0 - (uint32_t)x : (uint32_t)x;
  do { d[k++] = (char)('0' + u % 10); u /= 10; } while (u);
  if (x < 0) t->buf[t->n++] = '-';
  while (k) t->buf[t->n++] = d[--k];
}

#define LIT(t, s) put(t, s, sizeof(s) - 1)
#define STEP_FIXED 96   /* a step's text less its rule's: its literals and four numbers, with room */

typedef struct {
  StepRange *r;
  const int32_t *node_of, *result_of;
  const char **rule_text; Py_ssize_t *rule_len; Py_ssize_t n_rules;
  Text text;
  int32_t state, first_target, forked;
  int64_t steps;
} JsonVisit;

static int json_visit(void *ctx, int32_t key, int32_t target) {
  JsonVisit *v = ctx;
  if (!kept(v->r, target)) return 0;
  if (key_ok(v->r, key) < 0) return -1;
  int32_t rule = ((const int32_t *)v->r->rule_of.buf)[key];
  if (rule < 0 || rule >= v->n_rules) { PyErr_SetString(PyExc_RuntimeError, "steps_json: a step key not read (step_keys first)"); return -1; }
  if (text_room(&v->text, STEP_FIXED + v->rule_len[rule]) < 0) return -1;
  Text *t = &v->text;
  if (t->n) t->buf[t->n++] = ',';
  LIT(t, "{\"from\":"); put_int(t, v->state);
  LIT(t, ",\"to\":"); put_int(t, target);
  t->buf[t->n++] = ',';
  put(t, v->rule_text[rule], (size_t)v->rule_len[rule]);
  LIT(t, "\"node\":"); put_int(t, v->node_of[key]);
  LIT(t, ",\"result\":"); put_int(t, v->result_of[key]);
  LIT(t, ",\"error\":null}");
  if (v->steps++ == 0) v->first_target = target;
  else if (target != v->first_target) v->forked = 1;
  return 0;
}

static int column(PyObject *o, Py_buffer *b, Py_ssize_t len) {
  if (PyObject_GetBuffer(o, b, PyBUF_SIMPLE) < 0) return -1;
  if (b->len == len) return 0;
  PyBuffer_Release(b);
  PyErr_SetString(PyExc_ValueError, "steps_json: the keys' columns differ in length");
  return -1;
}

PyObject *Space_steps_json(Space *s, PyObject *args) {
  StepRange r = {0};
  PyObject *expanded, *rule_of, *node_of, *result_of, *rules, *forks;
  long long max_chars;
  if (!PyArg_ParseTuple(args, "iiOOOOO!iLO", &r.start, &r.end, &expanded, &rule_of, &node_of, &result_of, &PyList_Type, &rules,
                        &r.limit, &max_chars, &forks)) return NULL;
  if (forks != Py_None && !PySet_Check(forks)) { PyErr_SetString(PyExc_TypeError, "steps_json: forks is a set or None"); return NULL; }
  Py_ssize_t n_rules = PyList_GET_SIZE(rules);
  for (Py_ssize_t k = 0; k < n_rules; k++)
    if (!PyBytes_Check(PyList_GET_ITEM(rules, k))) { PyErr_SetString(PyExc_TypeError, "steps_json: a rule's text is bytes"); return NULL; }
  if (range_open(s, &r, expanded, rule_of, 0) < 0) return NULL;
  Py_buffer nodes, results;
  if (column(node_of, &nodes, r.rule_of.len) < 0) { range_close(&r); return NULL; }
  if (column(result_of, &results, r.rule_of.len) < 0) { PyBuffer_Release(&nodes); range_close(&r); return NULL; }
  JsonVisit v = {&r, nodes.buf, results.buf, PyMem_Malloc(sizeof(char *) * (size_t)(n_rules + 1)),
                 PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(n_rules + 1)), n_rules, {0}, 0, -1, 0, 0};
  int rc = v.rule_text && v.rule_len ? 0 : (PyErr_NoMemory(), -1);
  for (Py_ssize_t k = 0; rc == 0 && k < n_rules; k++) {   /* (the list is the caller's: read once, not held across calls) */
    v.rule_text[k] = PyBytes_AS_STRING(PyList_GET_ITEM(rules, k));
    v.rule_len[k] = PyBytes_GET_SIZE(PyList_GET_ITEM(rules, k));
  }
  const char *done = r.expanded.buf;
  int32_t i = r.start;
  int64_t steps = 0;
  for (; rc == 0 && i < r.end && (i == r.start || v.text.n < max_chars); i++) {
    if (!done[i - r.start]) continue;
    v.state = i; v.steps = 0; v.forked = 0;
    if ((rc = each_state_step(s, i, json_visit, &v)) < 0) break;
    steps += v.steps;
    if (v.forked && forks != Py_None) {
      PyObject *id = PyLong_FromLong(i);
      rc = id && PySet_Add(forks, id) == 0 ? 0 : -1;
      Py_XDECREF(id);
    }
  }
  PyObject *text = rc < 0 ? NULL : PyUnicode_DecodeUTF8(v.text.buf ? v.text.buf : "", (Py_ssize_t)v.text.n, "surrogatepass");
  PyMem_Free(v.text.buf); PyMem_Free(v.rule_text); PyMem_Free(v.rule_len);
  PyBuffer_Release(&nodes); PyBuffer_Release(&results); range_close(&r);
  if (!text) return NULL;
  return Py_BuildValue("NiL", text, (int)i, (long long)steps);
}

/* step_key_count() -> how many step keys the core has numbered: its redexes, or under tree semantics its positions
   (what the columns step_keys and steps_json read are sized to) */
PyObject *Space_step_key_count(Space *s, PyObject *noargs) {
  return PyLong_FromLongLong(s->tree ? (long long)s->n_keys : (long long)s->templates.n_red);
}
