/* Rules as data (_space_templates.h): a template rule's redexes made on the core's nodes, no Python call per redex,
 * exactly as step.py's Stepper._match makes them: the rules in order, each one's matches in UPat.match's order, a result
 * that is the node itself or that the same rule gave already dropped. Where anything is not that simple (a rule left to
 * Python may match, a match's rule is no template, a check that raised, a result of another type, a template Python
 * could not make for these types), Python finds the node's redexes, all of them, as before. */
#include "_space.h"
#include <string.h>

int32_t redex_new(Space *s, int32_t node, int32_t rule, int32_t result) {
  SpaceTemplates *t = &s->templates;
  if (t->n_red >= INT32_MAX) { PyErr_SetString(PyExc_MemoryError, "native explorer: too many redexes"); return -1; }
  void **const arrays[] = {(void **)&t->red_node, (void **)&t->red_rule, (void **)&t->red_result};
  const size_t elems[] = {sizeof(int32_t), sizeof(int32_t), sizeof(int32_t)};
  if (grow_parallel(&t->cap_red, t->n_red + 1, arrays, elems, 3) < 0) return -1;
  t->red_node[t->n_red] = node; t->red_rule[t->n_red] = rule; t->red_result[t->n_red] = result;
  return (int32_t)t->n_red++;
}

/* The per-node type array holds node x: 0, or -1 on error. New entries are 0 (unknown). */
static int need_type(SpaceTemplates *t, int32_t x) {
  if (x < t->cap_ntype) return 0;
  int64_t old = t->cap_ntype;
  if (grow((void **)&t->ntype, &t->cap_ntype, (int64_t)x + 1, sizeof(int32_t)) < 0) return -1;
  memset(t->ntype + old, 0, (size_t)(t->cap_ntype - old) * sizeof(int32_t));
  return 0;
}

int template_inherit(Space *s, int32_t h, int32_t x) {
  SpaceTemplates *t = &s->templates;
  if (!t->on || x >= t->cap_ntype || !t->ntype[x]) return 0;
  if (need_type(t, h) < 0) return -1;
  if (!t->ntype[h]) t->ntype[h] = t->ntype[x];
  return 0;
}

/* Node x's type id, asked of Python where not known (a node of the program, or of a result Python made): -1 on error. */
int32_t template_type_of(Space *s, int32_t x) {
  SpaceTemplates *t = &s->templates;
  if (need_type(t, x) < 0) return -1;
  if (t->ntype[x]) return t->ntype[x] - 1;
  PyObject *r = PyObject_CallFunction(t->type_cb, "i", (int)x);   /* may make UOps: node arrays move */
  if (!r) return -1;
  long v = PyLong_AsLong(r);
  Py_DECREF(r);
  if (v == -1 && PyErr_Occurred()) return -1;
  if (v < 0 || v >= INT32_MAX) { PyErr_SetString(PyExc_ValueError, "a type id is a non-negative int32"); return -1; }
  t->ntype[x] = (int32_t)v + 1;
  return (int32_t)v;
}

int template_set_type(Space *s, int32_t x, int32_t type) {
  SpaceTemplates *t = &s->templates;
  if (type < 0 || need_type(t, x) < 0) { if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a type id is a non-negative int32"); return -1; }
  t->ntype[x] = type + 1;
  return 0;
}

/* Read fill()'s answer into a new entry: its index, or -1 (Python) / -2 (no result); -3 on error. */
static int32_t read_entry(SpaceTemplates *t, PyObject *r, int32_t n_params) {
  if (r == Py_None) return -1;
  if (PyLong_Check(r)) return -2;
  PyObject *steps;
  int result, rtype;
  if (!PyArg_ParseTuple(r, "iiO!", &result, &rtype, &PyTuple_Type, &steps)) return -3;
  Py_ssize_t n = PyTuple_GET_SIZE(steps);
  if (result >= n || result < -n_params) { PyErr_SetString(PyExc_ValueError, "a template's result is a step or an argument"); return -3; }
  void **const arrays[] = {(void **)&t->ent_result, (void **)&t->ent_type, (void **)&t->ent_first, (void **)&t->ent_n};
  const size_t elems[] = {sizeof(int32_t), sizeof(int32_t), sizeof(int32_t), sizeof(int32_t)};
  if (grow_parallel(&t->cap_ent, t->n_ent + 1, arrays, elems, 4) < 0) return -3;
  if (grow((void **)&t->steps, &t->cap_steps, t->n_steps + n, sizeof(TplStep)) < 0) return -3;
  if (t->n_steps + n > INT32_MAX || t->n_ent >= INT32_MAX - 4) { PyErr_SetString(PyExc_MemoryError, "too many template steps"); return -3; }
  for (Py_ssize_t k = 0; k < n; k++) {
    PyObject *refs;
    TplStep st;
    if (!PyArg_ParseTuple(PyTuple_GET_ITEM(steps, k), "iiiiO!", &st.fixed, &st.label, &st.op, &st.type, &PyTuple_Type, &refs)) return -3;
    st.n_src = (int32_t)PyTuple_GET_SIZE(refs); st.refs = (int32_t)t->n_refs;
    if (st.op < 0 || st.op > 255 || st.type < 0) { PyErr_SetString(PyExc_ValueError, "a template step's op is a byte, its type an id"); return -3; }
    if (grow((void **)&t->refs, &t->cap_refs, t->n_refs + st.n_src, sizeof(int32_t)) < 0) return -3;
    for (int32_t i = 0; i < st.n_src; i++) {
      long ref = PyLong_AsLong(PyTuple_GET_ITEM(refs, i));
      if (ref >= k || ref < -n_params) { if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a step's source is an earlier step or an argument"); return -3; }
      t->refs[t->n_refs++] = (int32_t)ref;
    }
    t->steps[t->n_steps + k] = st;
  }
  t->ent_result[t->n_ent] = result; t->ent_type[t->n_ent] = rtype;
  t->ent_first[t->n_ent] = (int32_t)t->n_steps; t->ent_n[t->n_ent] = (int32_t)n;
  t->n_steps += n;
  return (int32_t)t->n_ent++;
}

/* The entry of table k's template for the arguments bound in `slots`: its index, -1 (Python), -2 (no result); -3 on error. */
static int32_t entry_for(Space *s, int32_t k, const int32_t *slots) {
  SpaceTemplates *t = &s->templates;
  int32_t np = t->n_params[k], types[TPL_MAX_PARAMS];
  uint64_t key = (uint64_t)k;
  for (int32_t j = 0; j < np; j++) {
    int32_t ty = template_type_of(s, slots[t->param_slot[TPL_MAX_PARAMS * k + j]]);
    if (ty < 0) return -3;
    if (ty >= TPL_MAX_TYPES) return -1;
    types[j] = ty;
    key |= (uint64_t)ty << (12 + 12 * j);
  }
  key += 1;   /* 0 marks an empty slot */
  int32_t e = map_get(&t->entries, key, INT32_MIN);
  if (e != INT32_MIN) return e;
  PyObject *tys = PyTuple_New(np);
  if (!tys) return -3;
  for (int32_t j = 0; j < np; j++) PyTuple_SET_ITEM(tys, j, PyLong_FromLong(types[j]));
  PyObject *r = PyObject_CallMethod(t->fill_cb, "fill", "iN", (int)k, tys);   /* may make nodes (a constant): arrays move */
  if (!r) return -3;
  e = read_entry(t, r, np);
  Py_DECREF(r);
  if (e == -3 || map_put(&t->entries, key, e) < 0) return -3;
  return e;
}

/* Entry e's result over the arguments bound in `slots` (table k's): a node, made where new; -1 on error. */
static int32_t build(Space *s, int32_t k, int32_t e, const int32_t *slots) {
  SpaceTemplates *t = &s->templates;
  int32_t n = t->ent_n[e], first = t->ent_first[e], args[TPL_MAX_PARAMS], buf[8];
  for (int32_t j = 0; j < t->n_params[k]; j++) args[j] = slots[t->param_slot[TPL_MAX_PARAMS * k + j]];
  if (grow((void **)&t->made, &t->cap_made, n ? n : 1, sizeof(int32_t)) < 0) return -1;
  for (int32_t i = 0; i < n; i++) {
    const TplStep *st = t->steps + first + i;
    int32_t h;
    if (st->fixed >= 0) h = st->fixed;
    else {
      int32_t *src = st->n_src <= 8 ? buf : PyMem_Malloc((size_t)st->n_src * sizeof(int32_t));
      if (!src) { PyErr_NoMemory(); return -1; }
      for (int32_t j = 0; j < st->n_src; j++) {
        int32_t ref = t->refs[st->refs + j];
        src[j] = ref >= 0 ? t->made[ref] : args[-1 - ref];
      }
      h = intern(s, st->label, (uint8_t)st->op, src, st->n_src, 1);
      if (src != buf) PyMem_Free(src);
      if (h < 0) return -1;
    }
    if (need_type(t, h) < 0) return -1;
    if (!t->ntype[h]) t->ntype[h] = st->type + 1;
    t->made[i] = h;
  }
  int32_t r = t->ent_result[e];
  return r >= 0 ? t->made[r] : args[-1 - r];
}

/* Table k's Rebuild on the match `slots`: the bound node over the bound sources, with its type; -1 on error. */
static int32_t build_rebuild(Space *s, int32_t k, const int32_t *slots) {
  SpaceTemplates *t = &s->templates;
  int32_t u = slots[t->folds.slot[k]], n = t->n_params[k], src[TPL_MAX_PARAMS];
  for (int32_t j = 0; j < n; j++) src[j] = slots[t->param_slot[TPL_MAX_PARAMS * k + j]];
  int32_t h = intern(s, s->label[u], s->op[u], src, n, 1);
  return h < 0 || template_inherit(s, h, u) < 0 ? -1 : h;
}

/* Plan what match `at` of node x makes (_space_templates.h's plan, at plan[3 * m]): 0, TPL_PYTHON, or -1 on error. */
static int plan_match(Space *s, int64_t at, int64_t m, int32_t xtype) {
  SpaceTemplates *t = &s->templates;
  int32_t k = t->sol[at], ns = s->patterns.rule_slots[k], *slots = t->sol + at + 1, *plan = t->plan + 3 * m;
  int kind = t->folds.on ? t->folds.kind[k] : FOLD_NONE;
  if (kind == FOLD_ALU || kind == FOLD_PINNED) {
    int32_t h = fold_result(s, k, slots);
    if (h == -1) return -1;
    if (h == FOLD_PYTHON) return TPL_PYTHON;
    if (h >= 0) { int32_t ty = template_type_of(s, h); if (ty < 0) return -1; if (ty != xtype) return TPL_PYTHON; }   /* Python's stuck step */
    plan[0] = -1; plan[1] = h; plan[2] = -1;
    return 0;
  }
  if (kind == FOLD_REBUILD) {   /* the guard here; the node is made with the others (build_rebuild) */
    int c = guard_choose(s, k, slots, ns);
    if (c == -1) return -1;
    if (c == FOLD_PYTHON) return TPL_PYTHON;
    int32_t u = slots[t->folds.slot[k]];
    if (s->label[u] < 0) return TPL_PYTHON;   /* a leaf: no sources to replace */
    if (c) { int32_t ty = template_type_of(s, u); if (ty < 0) return -1; if (ty != xtype) return TPL_PYTHON; }
    plan[0] = -2; plan[1] = c ? k : -2; plan[2] = -1;
    return 0;
  }
  plan[0] = k; plan[2] = -1;
  if (kind == FOLD_GUARDED) {   /* the match's slots, then the constants the guard's choice makes */
    int64_t off = 0;   /* (xs is scratch for this node's matches: each match's slots from m * width) */
    int32_t width = ns + FOLD_MAX_CONSTS;
    off = m * width;
    if (grow((void **)&t->xs, &t->cap_xs, off + width, sizeof(int32_t)) < 0) return -1;
    memcpy(t->xs + off, t->sol + at + 1, (size_t)ns * sizeof(int32_t));
    int c = guard_choose(s, k, t->xs + off, ns);
    if (c == -1) return -1;
    if (c == FOLD_PYTHON) return TPL_PYTHON;
    if (!c && t->n_params[t->n_tables + k] < 0) { plan[1] = -2; return 0; }   /* no `orelse`: no rewrite */
    if (!c) plan[0] = t->n_tables + k;
    plan[2] = (int32_t)off;
    slots = t->xs + off;
  }
  int32_t e = entry_for(s, plan[0], slots);
  if (e == -3) return -1;
  if (e == -1) return TPL_PYTHON;
  if (e >= 0 && t->ent_type[e] != xtype) return TPL_PYTHON;   /* Python makes the stuck step */
  plan[1] = e;
  return 0;
}

int64_t template_redexes(Space *s, int32_t x) {
  SpaceTemplates *t = &s->templates;
  if (!t->on) { int m = asks_python(s, x); return m < 0 ? -1 : m ? TPL_PYTHON : 0; }
  int m = may_match(s, x);
  if (m) return m < 0 ? -1 : TPL_PYTHON;
  int32_t op = s->op[x];
  int unsure = 0;
  t->n_sol = 0;
  for (int32_t q = s->patterns.op_first[op]; q < s->patterns.op_first[op + 1]; q++) {
    int32_t k = s->patterns.op_rules[q];
    int64_t before = t->n_sol;
    if (pattern_each(s, k, x, &unsure) < 0) return -1;
    int here = t->n_params[k] >= 0 || (t->folds.on && t->folds.kind[k] != FOLD_NONE);
    if (unsure || (t->n_sol > before && !here)) return TPL_PYTHON;
  }
  if (t->n_sol == 0) return 0;
  /* every match's template or fold and result type first (Python may be asked): nothing is made unless all of them hold */
  int32_t xtype = template_type_of(s, x);
  if (xtype < 0) return -1;
  int64_t n_match = 0;
  for (int64_t at = 0; at < t->n_sol; at += 1 + s->patterns.rule_slots[t->sol[at]], n_match++) {
    if (grow((void **)&t->plan, &t->cap_plan, 3 * (n_match + 1), sizeof(int32_t)) < 0) return -1;
    int r = plan_match(s, at, n_match, xtype);
    if (r) return r;
  }
  t->n_found = 0;
  int64_t i = 0;
  for (int64_t at = 0; at < t->n_sol; at += 1 + s->patterns.rule_slots[t->sol[at]], i++) {
    int32_t k = t->sol[at], tab = t->plan[3 * i], e = t->plan[3 * i + 1], off = t->plan[3 * i + 2], h;
    if (tab == -2) h = e < 0 ? e : build_rebuild(s, k, t->sol + at + 1);
    else if (tab < 0) h = e;   /* a fold's result */
    else if (e == -2) continue;   /* the function returned None */
    else if ((h = build(s, tab, e, off >= 0 ? t->xs + off : t->sol + at + 1)) < 0) return -1;
    if (h == -1) return -1;
    if (h < 0 || h == x) continue;   /* no rewrite, or the node itself: no step */
    int32_t rule = t->rule_index[k], dup = 0;
    for (int64_t f = 0; f < t->n_found && !dup; f++) dup = t->red_rule[t->found[f]] == rule && t->red_result[t->found[f]] == h;
    if (dup) continue;   /* other bindings, the same result: one edge */
    int32_t r = redex_new(s, x, rule, h);
    if (r < 0 || push_int(&t->found, &t->n_found, &t->cap_found, r) < 0) return -1;
  }
  return t->n_found;
}

/* Table k's template arguments' slots (a tuple, or None: no template) into n_params[k] and param_slot. 0, or -1. */
static int read_slots(int32_t *np, int32_t *ps, Py_ssize_t k, PyObject *slots, int32_t n_slots) {
  np[k] = -1;
  if (slots == Py_None || !PyTuple_Check(slots) || PyTuple_GET_SIZE(slots) > TPL_MAX_PARAMS) return 0;
  np[k] = (int32_t)PyTuple_GET_SIZE(slots);
  for (int32_t j = 0; j < np[k]; j++) {
    long v = PyLong_AsLong(PyTuple_GET_ITEM(slots, j));
    if (v < 0 || v >= n_slots) { if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "an argument's slot is the pattern's or a constant's"); return -1; }
    ps[TPL_MAX_PARAMS * k + j] = (int32_t)v;
  }
  return 0;
}

/* templates(rules, type, host, codes): per compiled table (patterns.py's order), (rule index, the slots of its template's
 * arguments or None for a rule left to its function[, its `orelse` template's slots or None, its fold's form or None]);
 * type(node) -> type id; host: templates.py's RuleTemplates (fill(table, type ids) -> a template's steps, and the folds'
 * questions); codes: the op codes the folds read (folds.py). Once, before the first node, after patterns(). */
PyObject *Space_templates(Space *s, PyObject *args) {
  PyObject *rules, *type_cb, *fill_cb, *codes = NULL;
  SpaceTemplates *t = &s->templates;
  if (!PyArg_ParseTuple(args, "O!OO|O", &PyTuple_Type, &rules, &type_cb, &fill_cb, &codes)) return NULL;
  Py_ssize_t n = PyTuple_GET_SIZE(rules);
  if (s->n_nodes || t->n_tables || n != s->patterns.n_rules) {
    PyErr_SetString(PyExc_RuntimeError, "templates are set once, after patterns() and before the first node, one per table"); return NULL;
  }
  if (codes && codes != Py_None && folds_codes(s, codes) < 0) return NULL;
  size_t m = (size_t)(n ? 2 * n : 1);   /* table n + k: table k's `orelse` */
  int32_t *ri = PyMem_Malloc(m * sizeof(int32_t)), *np = PyMem_Malloc(m * sizeof(int32_t));
  int32_t *ps = PyMem_Malloc(m * TPL_MAX_PARAMS * sizeof(int32_t));
  if (!ri || !np || !ps) { PyMem_Free(ri); PyMem_Free(np); PyMem_Free(ps); return PyErr_NoMemory(); }
  int any = 0;
  for (Py_ssize_t k = 0; k < n; k++) {
    PyObject *slots, *orelse = Py_None, *form = Py_None;
    int rule;
    if (!PyArg_ParseTuple(PyTuple_GET_ITEM(rules, k), "iO|OO", &rule, &slots, &orelse, &form)) goto fail;
    ri[k] = ri[n + k] = rule; np[k] = np[n + k] = -1;
    if (k >= TPL_MAX_RULES) continue;   /* (an entry's key holds a table in 12 bits) */
    if (orelse != Py_None && n + k >= TPL_MAX_RULES) continue;
    int32_t width = s->patterns.rule_slots[k] + (form == Py_None ? 0 : FOLD_MAX_CONSTS);
    if (read_slots(np, ps, k, slots, width) < 0 || read_slots(np, ps, n + k, orelse, s->patterns.rule_slots[k]) < 0) goto fail;
    if (folds_read(s, (int32_t)k, (int32_t)n, form) < 0) goto fail;
    if ((t->folds.kind[k] == FOLD_GUARDED && np[k] < 0) || (t->folds.kind[k] == FOLD_REBUILD && np[k] < 1)) { PyErr_SetString(PyExc_ValueError, "a guarded form's `then` is a template"); goto fail; }
    any |= np[k] >= 0 || t->folds.kind[k] != FOLD_NONE;
  }
  if (t->folds.on && !codes) { PyErr_SetString(PyExc_ValueError, "folds need the op codes"); goto fail; }
  t->rule_index = ri; t->n_params = np; t->param_slot = ps; t->n_tables = (int32_t)n; t->on = any;
  Py_INCREF(type_cb); Py_INCREF(fill_cb);
  t->type_cb = type_cb; t->fill_cb = fill_cb;
  Py_RETURN_NONE;
fail:
  PyMem_Free(ri); PyMem_Free(np); PyMem_Free(ps);
  return NULL;
}

/* redex(k) -> (node, rule index, result node) of redex k. */
PyObject *Space_redex(Space *s, PyObject *arg) {
  long k = PyLong_AsLong(arg);
  if (k == -1 && PyErr_Occurred()) return NULL;
  SpaceTemplates *t = &s->templates;
  if (k < 0 || k >= t->n_red) { PyErr_SetString(PyExc_IndexError, "no such redex"); return NULL; }
  return Py_BuildValue("iii", (int)t->red_node[k], (int)t->red_rule[k], (int)t->red_result[k]);
}

PyObject *Space_redex_rows(Space *s, PyObject *args) {
  long long a, b;
  if (!PyArg_ParseTuple(args, "LL", &a, &b)) return NULL;
  SpaceTemplates *t = &s->templates;
  if (a < 0 || b > t->n_red || a > b) { PyErr_SetString(PyExc_IndexError, "redex rows out of range"); return NULL; }
  PyObject *out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)((b - a) * 3 * (long long)sizeof(int32_t)));
  if (!out) return NULL;
  int32_t *w = (int32_t *)PyBytes_AS_STRING(out);
  for (long long k = a; k < b; k++) { *w++ = t->red_node[k]; *w++ = t->red_result[k]; *w++ = t->red_rule[k]; }
  return out;
}

PyObject *Space_get_n_redexes(Space *s, void *closure) {
  (void)closure;
  return PyLong_FromLongLong((long long)s->templates.n_red);
}

void templates_free(SpaceTemplates *t) {
  void *arrays[] = {t->rule_index, t->n_params, t->param_slot, t->ent_result, t->ent_type, t->ent_first, t->ent_n, t->steps, t->refs,
                    t->ntype, t->red_node, t->red_rule, t->red_result, t->sol, t->found, t->made, t->plan, t->xs};
  for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++) PyMem_Free(arrays[i]);
  map_free(&t->entries);
  folds_free(&t->folds);
}
