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

/* state i's JSON (with its step's rule text `name`, or NULL for none), after a comma if `comma`, room made for it */
static void write_state(Space *s, Text *t, int32_t i, PyObject *name, const int64_t rows[3], int comma) {
  static const char *normal[] = {"null", "false", "true"};
  if (comma) t->buf[t->n++] = ',';
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
  int start, end, comma;
  PyObject *rules, *seen_obj, *cut, *write;
  long long max_chars;
  if (!PyArg_ParseTuple(args, "iiO!OOLOp", &start, &end, &PyList_Type, &rules, &seen_obj, &cut, &max_chars, &write, &comma)) return NULL;
  if (start < 0 || end > s->n_states || start > end) { PyErr_SetString(PyExc_IndexError, "states_json: states out of range"); return NULL; }
  Py_ssize_t n_rules = PyList_GET_SIZE(rules);
  for (Py_ssize_t k = 0; k < n_rules; k++)
    if (!PyBytes_Check(PyList_GET_ITEM(rules, k))) { PyErr_SetString(PyExc_TypeError, "states_json: a rule's text is bytes"); return NULL; }
  Text *t = table_out(s);
  if (!t) return NULL;
  Py_buffer seen;
  if (PyObject_GetBuffer(seen_obj, &seen, PyBUF_WRITABLE) < 0) return NULL;
  if (seen.len != n_rules) { PyBuffer_Release(&seen); PyErr_SetString(PyExc_ValueError, "states_json: a seen flag per rule"); return NULL; }
  int rc = 0;
  int32_t i = start;
  t->n = 0;
  for (; i < end && (i == start || t->n < max_chars); i++) {
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
    if ((rc = text_room(t, 200 + (name ? PyBytes_GET_SIZE(name) : 0))) < 0) break;
    write_state(s, t, i, name, rows, comma || i > start);
    if (key >= 0) ((char *)seen.buf)[rule] = 1;
  }
  PyBuffer_Release(&seen);
  if (rc == -1 || text_write(t, write) < 0) { t->n = 0; return NULL; }   /* -2: cut short, the states before i written */
  return Py_BuildValue("iO", (int)i, rc == -2 ? Py_True : Py_False);
}

/* ---- steps_json: the steps' text */

/* a rule's text as a step writes it, "rule":NAME,"rule_index":K,"node":, copied RULE_SLOT bytes at once where it fits
   (a fixed size: no call to memcpy per step) */
#define RULE_SLOT 64
typedef struct { char text[RULE_SLOT]; const char *long_text; int32_t len, long_len; } RuleSlot;

typedef struct {
  Space *s;
  PyObject *cut;
  TableKey *keys; int64_t n_keys;
  RuleSlot *rules; int32_t n_rules;
  Text *text;   /* the table's (table_out) */
  int64_t room;   /* a step's text at the most, with the slack of its fixed-size copies */
  int32_t limit, first_target, forked, cut_short, comma;
  int64_t steps;
  char head[32]; int32_t head_len;   /* the state's steps' common start, {"from":S,"to": */
} JsonVisit;

/* a step key not read yet (its record's len 0) read: its rule, and its node's and result's rows in the node table
   (_space_table.c: added where new, node then result, as Python's writer named them), kept as its record's text
   N,"result":R; -1 on error or a cut (cut_short) */
static int read_key(JsonVisit *v, int32_t key, TableKey *k) {
  Space *s = v->s;
  int32_t red = key_redex(s, key);
  if (redex_ok(s, red) < 0) return -1;
  int64_t node = table_add(s, s->templates.red_node[red], v->cut);
  int64_t result = node < 0 ? node : table_add(s, s->templates.red_result[red], v->cut);
  if (result < 0) { v->cut_short = result == -2; return -1; }
  if ((k->rule = s->templates.red_rule[red]) < 0 || k->rule >= v->n_rules) {
    PyErr_SetString(PyExc_IndexError, "steps_json: a rule past the rules' texts");
    return -1;
  }
  Text t = {k->text, 0, sizeof(k->text)};
  put_int(&t, node); LIT(&t, ",\"result\":"); put_int(&t, result);   /* (30 characters at the most: rows < 2**31) */
  k->len = (uint8_t)t.n;
  return 0;
}

/* a step's text after its comma, at p: the end. Every piece is a local (a store through char * could change what a
   pointer points to: fields read after one are read again), the pieces of fixed size copied whole, their lengths kept */
static inline char *step_text(char *p, const char *head, int32_t head_len, int32_t target, const RuleSlot *rule,
                              const TableKey *k) {
  memcpy(p, head, 32);
  p = int_text(p + head_len, target);
  *p++ = ',';
  if (rule->long_text) {
    memcpy(p, rule->long_text, (size_t)rule->long_len);
    memcpy(p + rule->long_len, "\"node\":", 7);
    p += rule->long_len + 7;
  } else {
    memcpy(p, rule->text, RULE_SLOT);
    p += rule->len;
  }
  memcpy(p, k->text, 32);   /* (k->len <= 30) */
  p += k->len;
  memcpy(p, ",\"error\":null}", 14);
  return p + 14;
}

/* step key `key`'s record, read where it was not: NULL on error or a cut (cut_short) */
static inline const TableKey *key_record(JsonVisit *v, int32_t key) {
  if (key < 0 || key >= v->n_keys) { PyErr_SetString(PyExc_IndexError, "steps_json: a step key past the core's"); return NULL; }
  TableKey *k = &v->keys[key];
  return k->len || read_key(v, key, k) == 0 ? k : NULL;
}

/* one step of a group, key `key` to state `target`: its text, after a comma but the first's */
static int json_step(JsonVisit *v, int32_t key, int32_t target) {
  if (v->limit >= 0 && (target < 0 || target >= v->limit)) return 0;   /* a target a bound left unmade */
  const TableKey *k = key_record(v, key);
  Text *t = v->text;
  if (!k || text_room(t, v->room) < 0) return -1;
  char *p = t->buf + t->n;
  *p = ',';
  p += v->comma;
  t->n = step_text(p, v->head, v->head_len, target, &v->rules[k->rule], k) - t->buf;
  v->comma = 1;
  if (v->steps++ == 0) v->first_target = target;
  else if (target != v->first_target) v->forked = 1;
  return 0;
}

typedef struct { JsonVisit *v; int32_t target; } GroupVisit;

static int group_visit(void *arg, int32_t key) {
  GroupVisit *g = arg;
  return json_step(g->v, key, g->target);
}

#define AHEAD 4   /* steps ahead whose target and key record are fetched early (random reads into big arrays) */

/* state i's steps, as out(i) lists them. Its m steps (not grouped) are written as json_step would, room made for them
   all at once and what the loop changes kept in locals (8.7 million steps: a few instructions each count) */
static int json_state(JsonVisit *v, int32_t i) {
  Space *s = v->s;
  int32_t root = s->st_root[i], m;
  if (s->map_off[root] == NO_MAP) return 0;
  const int32_t *steps = state_steps(s, i, &m), *state_of = s->state_of;
  if (s->st_out[i] < 0 && grouped(s, root)) {
    for (int32_t e = 0; e < m; e++) {
      GroupVisit g = {v, state_of[steps[2 * e + 1]]};
      if (group_keys(s, group_at(s, root, e), group_visit, &g) < 0) return -1;
    }
    return 0;
  }
  Text *t = v->text;
  if (text_room(t, (int64_t)m * v->room) < 0) return -1;
  const RuleSlot *rules = v->rules;
  const TableKey *keys = v->keys;
  const char *head = v->head;
  int32_t head_len = v->head_len, limit = v->limit, comma = v->comma, first = -1, forked = 0, n = 0;
  char *p = t->buf + t->n;
  for (int32_t e = 0; e < m; e++) {
    if (e + AHEAD < m) {
      __builtin_prefetch(&state_of[steps[2 * (e + AHEAD) + 1]]);
      __builtin_prefetch(&keys[steps[2 * (e + AHEAD)]]);
    }
    int32_t target = state_of[steps[2 * e + 1]];
    if (limit >= 0 && (target < 0 || target >= limit)) continue;   /* a target a bound left unmade */
    const TableKey *k = key_record(v, steps[2 * e]);
    if (!k) return -1;
    *p = ',';
    p = step_text(p + comma, head, head_len, target, &rules[k->rule], k);
    comma = 1;
    forked |= n++ && target != first;
    if (n == 1) first = target;
  }
  t->n = p - t->buf;
  v->comma = comma; v->steps = n; v->first_target = first; v->forked = forked;
  return 0;
}

/* the rules' texts (bytes, "rule":NAME,"rule_index":K,) as slots; the room a step's text takes at the most */
static RuleSlot *rule_slots(PyObject *rules, int64_t *room) {
  Py_ssize_t n = PyList_GET_SIZE(rules);
  RuleSlot *slots = PyMem_Calloc((size_t)n + 1, sizeof(RuleSlot));
  if (!slots) { PyErr_NoMemory(); return NULL; }
  int64_t longest = RULE_SLOT;
  for (Py_ssize_t k = 0; k < n; k++) {
    PyObject *b = PyList_GET_ITEM(rules, k);
    if (!PyBytes_Check(b)) { PyMem_Free(slots); PyErr_SetString(PyExc_TypeError, "steps_json: a rule's text is bytes"); return NULL; }
    Py_ssize_t len = PyBytes_GET_SIZE(b);
    if (len + 7 <= RULE_SLOT) {
      memcpy(slots[k].text, PyBytes_AS_STRING(b), (size_t)len);
      memcpy(slots[k].text + len, "\"node\":", 7);
      slots[k].len = (int32_t)len + 7;
    } else {   /* (the list is the caller's: read in this call only) */
      slots[k].long_text = PyBytes_AS_STRING(b);
      slots[k].long_len = (int32_t)len;
      if (len + 7 > longest) longest = len + 7;
    }
  }
  *room = 32 + 21 + longest + 32 + 16;   /* head, target and comma, rule, key, the rest */
  return slots;
}

PyObject *Space_steps_json(Space *s, PyObject *args) {
  int start, end, limit, comma;
  PyObject *rules, *forks, *cut, *write;
  long long max_chars;
  if (!PyArg_ParseTuple(args, "iiO!iLOOOp", &start, &end, &PyList_Type, &rules, &limit, &max_chars, &forks, &cut, &write, &comma))
    return NULL;
  if (start < 0 || end > s->n_states || start > end) { PyErr_SetString(PyExc_IndexError, "steps_json: states out of range"); return NULL; }
  Text *t = table_out(s);
  int64_t n_keys = s->tree ? (int64_t)s->n_keys : (int64_t)s->templates.n_red;   /* redexes, or under tree semantics positions */
  TableKey *keys = t ? table_keys(s, n_keys) : NULL;
  if (!keys) return NULL;
  Py_buffer fork = {0};   /* a flag per state: its steps reach two states or more */
  if (forks != Py_None && PyObject_GetBuffer(forks, &fork, PyBUF_WRITABLE) < 0) return NULL;
  if (forks != Py_None && fork.len < end) {
    PyBuffer_Release(&fork);
    PyErr_SetString(PyExc_ValueError, "steps_json: a fork flag per state");
    return NULL;
  }
  JsonVisit v = {s, cut, keys, n_keys, NULL, (int32_t)PyList_GET_SIZE(rules), t, 0, limit, -1, 0, 0, comma, 0};
  int rc = (v.rules = rule_slots(rules, &v.room)) ? 0 : -1;
  int32_t i = start;
  int64_t steps = 0;
  t->n = 0;
  for (; rc == 0 && i < end && (i == start || t->n < max_chars); i++) {
    if (!s->st_done[i]) continue;
    int64_t before = t->n;
    int32_t comma_before = v.comma;
    v.steps = 0; v.forked = 0;
    Text head = {v.head, 0, sizeof(v.head)};
    LIT(&head, "{\"from\":"); put_int(&head, i); LIT(&head, ",\"to\":");
    v.head_len = (int32_t)head.n;
    if ((rc = json_state(&v, i)) < 0) {
      if (v.cut_short) { t->n = before; v.comma = comma_before; rc = 0; }   /* a key's rows cut: the steps end before this state */
      break;
    }
    steps += v.steps;
    if (v.forked && fork.buf) ((char *)fork.buf)[i] = 1;
  }
  PyMem_Free(v.rules);
  if (fork.buf) PyBuffer_Release(&fork);
  if (rc < 0 || text_write(t, write) < 0) { t->n = 0; return NULL; }
  return Py_BuildValue("iLO", (int)i, (long long)steps, v.cut_short ? Py_True : Py_False);
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
