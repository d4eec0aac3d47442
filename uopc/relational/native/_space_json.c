/* A report's states and steps as JSON written from the core (uopc/cli/reports/stream.py's Items): no tuple, no
 * Python string per state or step.
 *
 * A state is {"id":I,"depth":D,"parent":P,"rule":NAME,"graph":G,"node":N,"result":R,"normal":B,"error":null}, a step
 * {"from":S,"to":T,"rule":NAME,"rule_index":K,"node":N,"result":R,"error":null}. Their numbers are written here; a
 * rule's text comes from Python, made once per rule by the report's one JSON encoder (json.dumps), so a rule's name is
 * escaped here exactly as everywhere else. Graphs and nodes are rows of the report's node table, kept here by node id
 * (_space_table.c): states_json adds each state's rows as it writes it, steps_json each step key's as it first writes
 * it, so the rows come in the order Python's writer named them. */
#include "_space.h"
#include "_space_json.h"
#include "_space_table.h"

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

/* The arguments both functions share: the states start..end-1 (those expanded: st_done, Python's s.out is not None,
 * have steps), the targets kept (0 <= target < limit; limit < 0: every one), the keys' rule indices. */
typedef struct {
  int start, end, limit;
  Py_buffer rule_of;
} StepRange;

static int range_open(Space *s, StepRange *r, PyObject *rule_of, int writable) {
  if (PyObject_GetBuffer(rule_of, &r->rule_of, PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0)) < 0) return -1;
  const char *fmt = r->rule_of.format;
  if (r->rule_of.itemsize != 4 || !fmt || (strcmp(fmt, "i") != 0 && strcmp(fmt, "=i") != 0)) {
    PyErr_SetString(PyExc_TypeError, "a key's column is an array of int32 ('i')");
  } else if (r->start < 0 || r->end > s->n_states || r->start > r->end) {
    PyErr_SetString(PyExc_IndexError, "states out of range");
  } else return 0;
  PyBuffer_Release(&r->rule_of);
  return -1;
}

static void range_close(StepRange *r) { PyBuffer_Release(&r->rule_of); }

static inline int kept(const StepRange *r, int32_t target) { return r->limit < 0 || (target >= 0 && target < r->limit); }

static int key_ok(const StepRange *r, int32_t key) {
  if (key >= 0 && key < (int64_t)(r->rule_of.len / 4)) return 0;
  PyErr_SetString(PyExc_IndexError, "a step key past the keys' columns");
  return -1;
}

/* ---- a step key's redex */

/* the redex a step key stands for: itself, or under tree semantics (a position) the one at its end */
static int32_t key_redex(const Space *s, int32_t key) {
  if (!s->tree) return key;
  while (s->key_idx[key] >= 0) key = s->key_inner[key];
  return s->key_inner[key];
}

static int redex_ok(const Space *s, int32_t r) {
  if (r >= 0 && r < s->templates.n_red) return 0;
  PyErr_SetString(PyExc_IndexError, "a step key's redex past the core's");
  return -1;
}

/* ---- states_json: the states' text */

/* the bytes a call's text is given to begin with: its max_chars and a little (a state's steps go past it), at most 64 MB */
static int64_t first_room(long long max_chars) {
  if (max_chars <= 0) return 4096;
  return max_chars > (1LL << 26) ? 1LL << 26 : max_chars + (max_chars >> 4) + 4096;
}

#define CUT_STATES 64   /* states written between two questions to the cut */

/* cut(): 1 (stop), 0, or -1 on error */
static int ask_cut(PyObject *cut) {
  PyObject *r = PyObject_CallNoArgs(cut);
  int stop = r ? PyObject_IsTrue(r) : -1;
  Py_XDECREF(r);
  return stop;
}

/* state i's rows, its step's redex `red` (or -1: none) named: rows[0..2] = graph, node, result, added where new in
   the order Python's writer added them (the result, the graph, the node); 0, -1 on error, -2 once cut() stopped */
static int state_rows(Space *s, int32_t i, int32_t red, PyObject *cut, int64_t rows[3]) {
  rows[1] = rows[2] = -1;
  if (red < 0) return (rows[0] = table_add(s, s->st_root[i], cut)) < 0 ? (int)rows[0] : 0;
  if ((rows[2] = table_add(s, s->templates.red_result[red], cut)) < 0) return (int)rows[2];
  if ((rows[0] = table_add(s, s->st_root[i], cut)) < 0) return (int)rows[0];
  if ((rows[1] = table_add(s, s->templates.red_node[red], cut)) < 0) return (int)rows[1];
  return 0;
}

/* state i's JSON (with its step's rule text `name`, or NULL for none), room made for it */
static void write_state(Space *s, Text *t, int32_t i, PyObject *name, const int64_t rows[3]) {
  static const char *normal[] = {"null", "false", "true"};
  if (t->n) t->buf[t->n++] = ',';
  LIT(t, "{\"id\":"); put_int(t, i);
  LIT(t, ",\"depth\":"); put_int(t, s->st_depth[i]);
  if (!name) LIT(t, ",\"parent\":null,\"rule\":null,\"graph\":");
  else {
    LIT(t, ",\"parent\":");
    if (s->st_parent[i] < 0) LIT(t, "null"); else put_int(t, s->st_parent[i]);
    LIT(t, ",\"rule\":");
    put(t, PyBytes_AS_STRING(name), (size_t)PyBytes_GET_SIZE(name));
    LIT(t, ",\"graph\":");
  }
  put_int(t, rows[0]);
  if (!name) LIT(t, ",\"node\":null,\"result\":null,\"normal\":");
  else { LIT(t, ",\"node\":"); put_int(t, rows[1]); LIT(t, ",\"result\":"); put_int(t, rows[2]); LIT(t, ",\"normal\":"); }
  const char *b = normal[s->st_normal[i] < 0 ? 0 : 1 + (s->st_normal[i] > 0)];
  put(t, b, strlen(b));
  LIT(t, ",\"error\":null}");
}

PyObject *Space_states_json(Space *s, PyObject *args) {
  int start, end;
  PyObject *rules, *seen_obj, *cut;
  long long max_chars;
  if (!PyArg_ParseTuple(args, "iiO!OOL", &start, &end, &PyList_Type, &rules, &seen_obj, &cut, &max_chars)) return NULL;
  if (start < 0 || end > s->n_states || start > end) { PyErr_SetString(PyExc_IndexError, "states_json: states out of range"); return NULL; }
  Py_ssize_t n_rules = PyList_GET_SIZE(rules);
  for (Py_ssize_t k = 0; k < n_rules; k++)
    if (!PyBytes_Check(PyList_GET_ITEM(rules, k))) { PyErr_SetString(PyExc_TypeError, "states_json: a rule's text is bytes"); return NULL; }
  if (!space_table(s)) return NULL;
  Py_buffer seen;
  if (PyObject_GetBuffer(seen_obj, &seen, PyBUF_WRITABLE) < 0) return NULL;
  if (seen.len != n_rules) { PyBuffer_Release(&seen); PyErr_SetString(PyExc_ValueError, "states_json: a seen flag per rule"); return NULL; }
  Text t;
  if (text_open(&t, first_room(max_chars)) < 0) { PyBuffer_Release(&seen); return NULL; }
  int rc = 0;
  int32_t i = start;
  for (; i < end && (i == start || t.n < max_chars); i++) {
    if ((i - start) % CUT_STATES == 0 && cut != Py_None && (rc = ask_cut(cut)) != 0) { rc = rc < 0 ? -1 : -2; break; }
    int32_t key = s->st_redex[i], red = key < 0 ? -1 : key_redex(s, key), rule = -1;
    if (key >= 0 && (rc = redex_ok(s, red)) < 0) break;
    if (key >= 0 && ((rule = s->templates.red_rule[red]) < 0 || rule >= n_rules)) {
      PyErr_SetString(PyExc_IndexError, "states_json: a rule past the rules' texts");
      rc = -1;
      break;
    }
    int64_t rows[3] = {-1, -1, -1};
    if ((rc = state_rows(s, i, red, cut, rows)) < 0) break;
    PyObject *name = key >= 0 ? PyList_GET_ITEM(rules, rule) : NULL;
    if ((rc = text_room(&t, 200 + (name ? PyBytes_GET_SIZE(name) : 0))) < 0) break;
    write_state(s, &t, i, name, rows);
    if (key >= 0) ((char *)seen.buf)[rule] = 1;
  }
  PyBuffer_Release(&seen);
  PyObject *text = rc == -1 ? NULL : text_bytes(&t);   /* -2: cut short, the states before i written */
  text_drop(&t);
  if (!text) return NULL;
  return Py_BuildValue("NiO", text, (int)i, rc == -2 ? Py_True : Py_False);
}

/* ---- steps_json: the steps' text */

#define STEP_FIXED 96   /* a step's text less its rule's and its key's rows: its head (32), target and literals, with room */

typedef struct {
  StepRange *r;
  Space *s;
  PyObject *cut;
  const char **rule_text; Py_ssize_t *rule_len; Py_ssize_t n_rules;
  Text text;
  int32_t state, first_target, forked, cut_short;
  int64_t steps;
  char head[32]; int32_t head_len;   /* the state's steps' common start, {"from":S,"to": */
} JsonVisit;

/* a step key not read yet (rule_of[key] == -1) read: its rule, and its node's and result's rows in the node table
   (_space_table.c: added where new, node then result, as Python's writer named them, and kept as the key's text);
   -1 on error or a cut (cut_short) */
static int read_key(JsonVisit *v, int32_t key, int32_t *rule_of) {
  Space *s = v->s;
  int32_t red = key_redex(s, key);
  if (redex_ok(s, red) < 0) return -1;
  int64_t node = table_add(s, s->templates.red_node[red], v->cut);
  int64_t result = node < 0 ? node : table_add(s, s->templates.red_result[red], v->cut);
  if (result < 0) { v->cut_short = result == -2; return -1; }
  if (table_key_read(s, key, node, result) < 0) return -1;
  rule_of[key] = s->templates.red_rule[red];
  return 0;
}

static int json_visit(void *ctx, int32_t key, int32_t target) {
  JsonVisit *v = ctx;
  if (!kept(v->r, target)) return 0;
  if (key_ok(v->r, key) < 0) return -1;
  int32_t *rule_of = v->r->rule_of.buf;
  if (rule_of[key] == -1 && read_key(v, key, rule_of) < 0) return -1;
  int32_t rule = rule_of[key];
  if (rule < 0 || rule >= v->n_rules) { PyErr_SetString(PyExc_IndexError, "steps_json: a rule past the rules' texts"); return -1; }
  int32_t rows_len;
  const char *rows = table_key_text(v->s, key, &rows_len);
  if (!rows || text_room(&v->text, STEP_FIXED + v->rule_len[rule] + rows_len) < 0) return -1;
  Text *t = &v->text;
  if (t->n) t->buf[t->n++] = ',';
  memcpy(t->buf + t->n, v->head, sizeof(v->head));   /* {"from":S,"to": (a fixed size copied, its length kept) */
  t->n += v->head_len;
  put_int(t, target);
  t->buf[t->n++] = ',';
  put(t, v->rule_text[rule], (size_t)v->rule_len[rule]);
  LIT(t, "\"node\":"); put(t, rows, (size_t)rows_len); LIT(t, ",\"error\":null}");
  if (v->steps++ == 0) v->first_target = target;
  else if (target != v->first_target) v->forked = 1;
  return 0;
}

PyObject *Space_steps_json(Space *s, PyObject *args) {
  StepRange r = {0};
  PyObject *rule_of, *rules, *forks, *cut;
  long long max_chars;
  if (!PyArg_ParseTuple(args, "iiOO!iLOO", &r.start, &r.end, &rule_of, &PyList_Type, &rules,
                        &r.limit, &max_chars, &forks, &cut)) return NULL;
  Py_ssize_t n_rules = PyList_GET_SIZE(rules);
  for (Py_ssize_t k = 0; k < n_rules; k++)
    if (!PyBytes_Check(PyList_GET_ITEM(rules, k))) { PyErr_SetString(PyExc_TypeError, "steps_json: a rule's text is bytes"); return NULL; }
  if (!space_table(s) || range_open(s, &r, rule_of, 1) < 0) return NULL;
  Py_buffer fork = {0};   /* a flag per state: its steps reach two states or more */
  if (forks != Py_None && PyObject_GetBuffer(forks, &fork, PyBUF_WRITABLE) < 0) { range_close(&r); return NULL; }
  if (forks != Py_None && fork.len < r.end) {
    PyBuffer_Release(&fork); range_close(&r);
    PyErr_SetString(PyExc_ValueError, "steps_json: a fork flag per state");
    return NULL;
  }
  JsonVisit v = {&r, s, cut, PyMem_Malloc(sizeof(char *) * (size_t)(n_rules + 1)),
                 PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(n_rules + 1)), n_rules, {0}, 0, -1, 0, 0, 0};
  int rc = v.rule_text && v.rule_len ? text_open(&v.text, first_room(max_chars)) : (PyErr_NoMemory(), -1);
  for (Py_ssize_t k = 0; rc == 0 && k < n_rules; k++) {   /* (the list is the caller's: read once, not held across calls) */
    v.rule_text[k] = PyBytes_AS_STRING(PyList_GET_ITEM(rules, k));
    v.rule_len[k] = PyBytes_GET_SIZE(PyList_GET_ITEM(rules, k));
  }
  int32_t i = r.start;
  int64_t steps = 0;
  for (; rc == 0 && i < r.end && (i == r.start || v.text.n < max_chars); i++) {
    if (!s->st_done[i]) continue;
    int64_t before = v.text.n;
    v.state = i; v.steps = 0; v.forked = 0;
    Text head = {v.head, 0, sizeof(v.head), NULL};
    LIT(&head, "{\"from\":"); put_int(&head, i); LIT(&head, ",\"to\":");
    v.head_len = (int32_t)head.n;
    if ((rc = each_state_step(s, i, json_visit, &v)) < 0) {
      if (v.cut_short) { v.text.n = before; rc = 0; }   /* a key's rows cut: the steps end before this state */
      break;
    }
    steps += v.steps;
    if (v.forked && fork.buf) ((char *)fork.buf)[i] = 1;
  }
  PyObject *text = rc < 0 ? NULL : text_bytes(&v.text);
  text_drop(&v.text); PyMem_Free(v.rule_text); PyMem_Free(v.rule_len);
  if (fork.buf) PyBuffer_Release(&fork);
  range_close(&r);
  if (!text) return NULL;
  return Py_BuildValue("NiLO", text, (int)i, (long long)steps, v.cut_short ? Py_True : Py_False);
}

/* step_key_count() -> how many step keys the core has numbered: its redexes, or under tree semantics its positions
   (what the column steps_json reads is sized to) */
PyObject *Space_step_key_count(Space *s, PyObject *noargs) {
  return PyLong_FromLongLong(s->tree ? (long long)s->n_keys : (long long)s->templates.n_red);
}

/* depths(n, forks) -> [[depth, states, normal forms, forks, first id, last id], ...] by depth, over states 0..n-1 (a
   page's summary, stream.py's chunks_summary); forks: a flag per state, its steps reach two states or more */
PyObject *Space_depths(Space *s, PyObject *args) {
  int n;
  Py_buffer forks;
  if (!PyArg_ParseTuple(args, "iy*", &n, &forks)) return NULL;
  if (n < 0 || n > s->n_states || forks.len < n) {
    PyBuffer_Release(&forks);
    PyErr_SetString(PyExc_IndexError, "depths: states out of range, or a fork flag per state missing");
    return NULL;
  }
  int32_t deepest = -1;
  for (int32_t i = 0; i < n; i++) if (s->st_depth[i] > deepest) deepest = s->st_depth[i];
  int64_t *rows = PyMem_Calloc((size_t)(deepest + 1) * 5 + 1, sizeof(int64_t));   /* per depth: the five counts */
  if (!rows) { PyBuffer_Release(&forks); return PyErr_NoMemory(); }
  PyObject *out = NULL;
  const char *fork = forks.buf;
  for (int32_t i = 0; i < n; i++) {
    int64_t *r = rows + 5 * (int64_t)s->st_depth[i];
    if (!r[0]) r[3] = i;
    r[0]++; r[1] += s->st_normal[i] > 0; r[2] += fork[i] != 0; r[4] = i;
  }
  if (!(out = PyList_New(0))) goto done;
  for (int32_t d = 0; d <= deepest; d++) {
    int64_t *r = rows + 5 * (int64_t)d;
    if (!r[0]) continue;
    PyObject *row = Py_BuildValue("[iLLLLL]", (int)d, r[0], r[1], r[2], r[3], r[4]);
    if (!row || PyList_Append(out, row) < 0) { Py_XDECREF(row); Py_CLEAR(out); goto done; }
    Py_DECREF(row);
  }
done:
  PyMem_Free(rows);
  PyBuffer_Release(&forks);
  return out;
}
