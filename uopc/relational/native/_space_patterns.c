/* The rules' compiled patterns, matched whole on the core's nodes (_space_patterns.h), and the signatures of the
 * rules left to Python. */
#include "_space.h"
#include <string.h>

/* ---- signatures: may some rule match a node with this op and these sources' ops? */

int may_match(Space *s, int32_t id) {
  if (s->patterns.may_cb == Py_None) return 0;   /* every rule's pattern is compiled */
  int32_t n = s->src_n[id];
  const int32_t *src = s->srcs + s->src_off[id];
  uint64_t key = (uint64_t)s->op[id] | ((uint64_t)(n > 4 ? 255 : n) << 8);
  if (n <= 4) for (int32_t i = 0; i < n; i++) key |= (uint64_t)s->op[src[i]] << (16 + 8 * i);
  else key |= (uint64_t)(uint32_t)n << 32;
  key += 1;   /* 0 marks an empty slot */
  int32_t known = map_get(&s->patterns.sigs, key, -1);
  if (known >= 0) return known;
  PyObject *ops;
  if (n <= 4) {
    if (!(ops = PyTuple_New(n))) return -1;
    for (int32_t i = 0; i < n; i++) PyTuple_SET_ITEM(ops, i, PyLong_FromLong(s->op[src[i]]));
  } else { ops = Py_None; Py_INCREF(ops); }
  PyObject *r = PyObject_CallFunction(s->patterns.may_cb, "iiN", (int)s->op[id], (int)n, ops);
  if (!r) return -1;
  int v = PyObject_IsTrue(r);
  Py_DECREF(r);
  if (v < 0) return -1;
  if (map_put(&s->patterns.sigs, key, v) < 0) return -1;
  return v;
}

/* ---- compiled patterns: does some rule's pattern match a node, whole (UPat.match, as a yes or no)? */

/* Does node x pass dtype-and-arg check c? 1 or 0, -1 on error. Python answers once per label: an inner node's
 * label is its (op, dtype, arg), and a leaf's label is its own. */
static int pat_check(Space *s, int32_t c, int32_t x) {
  int32_t label = s->label[x];
  uint64_t key = (((uint64_t)(uint32_t)c << 32) | (uint32_t)label) + 1;   /* 0 marks an empty slot */
  int32_t known = map_get(&s->patterns.checked, key, -1);
  if (known >= 0) return known;
  PyObject *r = PyObject_CallFunction(s->patterns.check_cb, "iii", (int)c, (int)label, (int)x);   /* may make x's UOp: arrays move */
  if (!r) return -1;
  long v = PyLong_AsLong(r);   /* 0 cannot, 1 may pass, 2 may pass but the comparison raised (Python makes a stuck step) */
  Py_DECREF(r);
  if ((v == -1 && PyErr_Occurred()) || map_put(&s->patterns.checked, key, (int32_t)v) < 0) return -1;
  return (int)v;
}

static inline int op_fits(const PatNode *p, uint8_t op) { return (p->ops[op >> 3] >> (op & 7)) & 1; }

/* Do the ops of sources `src` fit pattern nodes `kids`? A cheap look one level down before a deeper search: most
 * nodes of a chain fail there (the first source of `(x + 0) + y` is a + whose second source is no CONST). */
static int kids_ops_fit(Space *s, const int32_t *kids, const int32_t *src, int32_t n) {
  for (int32_t i = 0; i < n; i++) if (!op_fits(s->patterns.pat + kids[i], s->op[src[i]])) return 0;
  return 1;
}

/* Can the last of the n pairs in `goals` and all the others be matched at once, the names in `bind` (slot -> node,
 * or -1) bound alike? 1 or 0, -1 on error. Depth first with backtracking, as UPat.match joins its sources: each call
 * takes one pair, so the recursion is as deep as the rule has pattern nodes (patterns.py's MAX_NODES), whatever the
 * graph. On return goals[0 .. n) and `bind` are as they were: the caller's other orders start from them. */
static int pat_solve(Space *s, PatGoal *goals, int32_t n, int32_t *bind) {
  if (n == 0) return 1;
  PatGoal g = goals[n - 1];
  const PatNode *p = s->patterns.pat + g.pat;   /* patterns are set once: this pointer stays valid */
  int32_t x = g.node;
  if (!op_fits(p, s->op[x])) return 0;
  if (p->check >= 0) {
    int c = pat_check(s, p->check, x);
    if (c <= 0) return c;
  }
  int bound_here = 0;
  if (p->slot >= 0) {
    if (bind[p->slot] >= 0 && bind[p->slot] != x) return 0;   /* a repeated name: the same node (hash consed: the same id) */
    if (bind[p->slot] < 0) { bind[p->slot] = x; bound_here = 1; }
  }
  int r = 0;
  if (p->n_src < 0) r = pat_solve(s, goals, n - 1, bind);
  else if (s->src_n[x] == p->n_src || (p->any_len && s->src_n[x] > p->n_src)) {
    for (int32_t k = 0; k < p->n_orders && r == 0; k++) {
      const int32_t *kids = s->patterns.pat_kids + p->kids + (int64_t)k * p->n_src;
      const int32_t *src = s->srcs + s->src_off[x];   /* read again each order: a check may have moved it */
      if (!kids_ops_fit(s, kids, src, p->n_src)) continue;
      /* pushed last first: the first source is matched first, as UPat.match joins them (and where a chain fails) */
      for (int32_t i = 0; i < p->n_src; i++) goals[n - 2 + p->n_src - i] = (PatGoal){kids[i], src[i]};
      r = pat_solve(s, goals, n - 1 + p->n_src, bind);
    }
  }
  goals[n - 1] = g;
  if (bound_here) bind[p->slot] = -1;
  return r;
}

/* Do the nodes at rule's quick-test paths below x have the ops they need? (A chain's node fails here, in a few loads,
 * rather than a few calls into pat_solve: on a chain under a pattern three levels deep that search was a third of the
 * core's time.) */
static int paths_fit(Space *s, int32_t rule, int32_t x) {
  for (int32_t e = s->patterns.rule_paths[rule]; e < s->patterns.rule_paths[rule + 1]; e++) {
    const PatPath *q = s->patterns.paths + e;
    int32_t y = x;
    for (int32_t d = 0; d < q->len; d++) {
      if (s->src_n[y] <= q->path[d]) return 0;   /* the pattern names that source: the node must have it */
      y = s->srcs[s->src_off[y] + q->path[d]];
    }
    if (!op_fits(s->patterns.pat + q->pat, s->op[y])) return 0;
  }
  return 1;
}

/* Every match of the n pairs in `goals` at once, as pat_solve finds the first, in UPat.match's order: each one's
 * bindings (`slots` of them) appended to the templates' scratch after `table`. 0, or -1 on error; *unsure set where a
 * check raised in Python (there UPat.match raises: a stuck step, Python's to make). */
static int pat_all(Space *s, PatGoal *goals, int32_t n, int32_t *bind, int32_t slots, int32_t table, int *unsure) {
  SpaceTemplates *t = &s->templates;
  if (n == 0) {
    if (grow((void **)&t->sol, &t->cap_sol, t->n_sol + 1 + slots, sizeof(int32_t)) < 0) return -1;
    t->sol[t->n_sol++] = table;
    memcpy(t->sol + t->n_sol, bind, (size_t)slots * sizeof(int32_t));
    t->n_sol += slots;
    return 0;
  }
  PatGoal g = goals[n - 1];
  const PatNode *p = s->patterns.pat + g.pat;
  int32_t x = g.node;
  if (!op_fits(p, s->op[x])) return 0;
  if (p->check >= 0) {
    int c = pat_check(s, p->check, x);
    if (c <= 0) return c;
    if (c == 2) *unsure = 1;
  }
  int bound_here = 0;
  if (p->slot >= 0) {
    if (bind[p->slot] >= 0 && bind[p->slot] != x) return 0;
    if (bind[p->slot] < 0) { bind[p->slot] = x; bound_here = 1; }
  }
  int r = 0;
  if (p->n_src < 0) r = pat_all(s, goals, n - 1, bind, slots, table, unsure);
  else if (s->src_n[x] == p->n_src || (p->any_len && s->src_n[x] > p->n_src)) {
    for (int32_t k = 0; k < p->n_orders && r == 0; k++) {
      const int32_t *kids = s->patterns.pat_kids + p->kids + (int64_t)k * p->n_src;
      const int32_t *src = s->srcs + s->src_off[x];
      if (!kids_ops_fit(s, kids, src, p->n_src)) continue;
      for (int32_t i = 0; i < p->n_src; i++) goals[n - 2 + p->n_src - i] = (PatGoal){kids[i], src[i]};
      r = pat_all(s, goals, n - 1 + p->n_src, bind, slots, table, unsure);
    }
  }
  goals[n - 1] = g;
  if (bound_here) bind[p->slot] = -1;
  return r;
}

int pattern_each(Space *s, int32_t rule, int32_t x, int *unsure) {
  if (!paths_fit(s, rule, x)) return 0;
  for (int32_t j = 0; j < s->patterns.rule_slots[rule]; j++) s->patterns.bind[j] = -1;
  s->patterns.goals[0] = (PatGoal){s->patterns.rule_root[rule], x};
  return pat_all(s, s->patterns.goals, 1, s->patterns.bind, s->patterns.rule_slots[rule], rule, unsure);
}

/* Does some compiled rule's pattern match node x? 1 or 0, -1 on error. */
static int pattern_matches(Space *s, int32_t x) {
  int32_t op = s->op[x];
  for (int32_t k = s->patterns.op_first[op]; k < s->patterns.op_first[op + 1]; k++) {
    int32_t rule = s->patterns.op_rules[k];
    if (!paths_fit(s, rule, x)) continue;
    for (int32_t j = 0; j < s->patterns.rule_slots[rule]; j++) s->patterns.bind[j] = -1;
    s->patterns.goals[0] = (PatGoal){s->patterns.rule_root[rule], x};
    int r = pat_solve(s, s->patterns.goals, 1, s->patterns.bind);
    if (r != 0) return r;
  }
  return 0;
}

/* May some rule match node x: a compiled pattern matches it whole, or a rule left to Python by its signature? */
int asks_python(Space *s, int32_t x) {
  int m = may_match(s, x);
  return m != 0 ? m : pattern_matches(s, x);
}

/* Node k of a rule's pattern from patterns.py's tuple (ops or None, check, slot, n_src, any_len, orders), its kids' ids
 * offset by `base` (the rule's first node) and appended at pat_kids[*n_kids]; 0, or -1 with an exception set. The
 * pattern must be a tree whose kids come after their parent (`parent`: per node, the one whose source it is, or -1):
 * then a match holds each pattern node at most once in its goals, and the matcher's scratch is large enough. */
static int read_pat_node(Space *s, PyObject *t, int32_t k, PatNode *p, int32_t base, int32_t n_nodes, int32_t *parent,
                         int64_t *n_kids, int64_t *cap_kids) {
  PyObject *ops, *orders;
  int check, slot, n_src, any_len;
  if (!PyArg_ParseTuple(t, "OiiiiO!", &ops, &check, &slot, &n_src, &any_len, &PyTuple_Type, &orders)) return -1;
  memset(p->ops, ops == Py_None ? 0xff : 0, sizeof(p->ops));
  if (ops != Py_None) {
    if (!PyTuple_Check(ops)) { PyErr_SetString(PyExc_TypeError, "a pattern node's ops: a tuple of op codes, or None"); return -1; }
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(ops); k++) {
      long op = PyLong_AsLong(PyTuple_GET_ITEM(ops, k));
      if (op < 0 || op > 255) { if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "an op code is a byte"); return -1; }
      p->ops[op >> 3] |= (uint8_t)(1u << (op & 7));
    }
  }
  if (slot >= n_nodes || n_src >= n_nodes || (n_src < 0 && PyTuple_GET_SIZE(orders))) {
    PyErr_SetString(PyExc_ValueError, "a pattern node's slot, sources or orders are out of range"); return -1;
  }
  p->check = check < 0 ? -1 : check; p->slot = slot < 0 ? -1 : slot; p->n_src = n_src < 0 ? -1 : n_src; p->any_len = any_len != 0;
  p->n_orders = (int32_t)PyTuple_GET_SIZE(orders); p->kids = (int32_t)*n_kids;
  if (n_src > 0 && grow((void **)&s->patterns.pat_kids, cap_kids, *n_kids + (int64_t)p->n_orders * n_src, sizeof(int32_t)) < 0) return -1;
  for (int32_t o = 0; o < p->n_orders; o++) {
    PyObject *order = PyTuple_GET_ITEM(orders, o);
    if (!PyTuple_Check(order) || PyTuple_GET_SIZE(order) != n_src) { PyErr_SetString(PyExc_ValueError, "an order names each source once"); return -1; }
    for (int32_t i = 0; i < n_src; i++) {
      long kid = PyLong_AsLong(PyTuple_GET_ITEM(order, i));
      if (kid <= k || kid >= n_nodes || (parent[kid] >= 0 && parent[kid] != k)) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a pattern's sources are later nodes, each of one parent");
        return -1;
      }
      parent[kid] = k;
      s->patterns.pat_kids[(*n_kids)++] = base + (int32_t)kid;
    }
  }
  return 0;
}

static int op_any(const PatNode *p) {
  for (int i = 0; i < 32; i++) if (p->ops[i] != 0xff) return 0;
  return 1;
}

/* Each rule's quick tests (PatPath): the pattern nodes below its root, reached through nodes whose sources have one
 * order (a tuple: source i is the node's i-th), PATH_MAX_LEN levels down at most, that name ops. Breadth first. */
static int make_paths(Space *s, int32_t n_rules) {
  int64_t n = 0, cap = 0;
  PyMem_Free(s->patterns.paths); PyMem_Free(s->patterns.rule_paths);
  s->patterns.paths = NULL;
  if (!(s->patterns.rule_paths = PyMem_Malloc((size_t)(n_rules + 1) * sizeof(int32_t)))) { PyErr_NoMemory(); return -1; }
  PatPath queue[64];   /* per rule: the nodes to look below, as paths (a tree of at most MAX_NODES = 64 nodes) */
  for (int32_t r = 0; r < n_rules; r++) {
    s->patterns.rule_paths[r] = (int32_t)n;
    int32_t head = 0, tail = 0;
    queue[tail++] = (PatPath){s->patterns.rule_root[r], 0, {0}};
    while (head < tail) {
      PatPath q = queue[head++];
      const PatNode *p = s->patterns.pat + q.pat;
      if (p->n_orders != 1 || p->n_src <= 0 || q.len == PATH_MAX_LEN) continue;
      for (int32_t i = 0; i < p->n_src; i++) {
        PatPath kid = q;
        kid.pat = s->patterns.pat_kids[p->kids + i]; kid.path[kid.len++] = i;
        if (!op_any(s->patterns.pat + kid.pat)) {
          if (grow((void **)&s->patterns.paths, &cap, n + 1, sizeof(PatPath)) < 0) return -1;
          s->patterns.paths[n++] = kid;
        }
        if (tail < 64) queue[tail++] = kid;
      }
    }
  }
  s->patterns.rule_paths[n_rules] = (int32_t)n;
  return 0;
}

/* patterns(tables, check): the rules' compiled patterns (patterns.py), each a tuple of pattern nodes, its root first;
 * check(check, label, node) -> 1 / 0 answers their dtype and arg constraints. Once, before any node is made: every
 * node's redexes are then found with them (and with `may` for the rules not among them). */
PyObject *Space_patterns(Space *s, PyObject *args) {
  PyObject *tables, *cb;
  if (!PyArg_ParseTuple(args, "O!O", &PyTuple_Type, &tables, &cb)) return NULL;
  if (s->n_nodes || s->patterns.n_rules) { PyErr_SetString(PyExc_RuntimeError, "patterns are set once, before the first node"); return NULL; }
  Py_ssize_t n_rules = PyTuple_GET_SIZE(tables), n_pat = 0;
  for (Py_ssize_t r = 0; r < n_rules; r++) {
    PyObject *t = PyTuple_GET_ITEM(tables, r);
    if (!PyTuple_Check(t) || !PyTuple_GET_SIZE(t)) { PyErr_SetString(PyExc_TypeError, "a rule's pattern: a tuple of its nodes"); return NULL; }
    n_pat += PyTuple_GET_SIZE(t);
  }
  if (n_pat > INT32_MAX / 2) { PyErr_SetString(PyExc_ValueError, "too many pattern nodes"); return NULL; }
  int64_t n_kids = 0, cap_kids = 0;
  int32_t *parent = NULL, base = 0, max_nodes = 0, at = 0;
  PyMem_Free(s->patterns.pat); PyMem_Free(s->patterns.pat_kids); PyMem_Free(s->patterns.rule_root); PyMem_Free(s->patterns.rule_slots);   /* a call that failed */
  PyMem_Free(s->patterns.op_rules); PyMem_Free(s->patterns.goals); PyMem_Free(s->patterns.bind);
  s->patterns.pat_kids = NULL; s->patterns.goals = NULL; s->patterns.bind = NULL;
  s->patterns.pat = PyMem_Calloc((size_t)(n_pat ? n_pat : 1), sizeof(PatNode));
  s->patterns.rule_root = PyMem_Malloc((size_t)(n_rules ? n_rules : 1) * sizeof(int32_t));
  s->patterns.rule_slots = PyMem_Malloc((size_t)(n_rules ? n_rules : 1) * sizeof(int32_t));
  s->patterns.op_rules = PyMem_Malloc((size_t)(n_rules ? n_rules : 1) * 256 * sizeof(int32_t));
  parent = PyMem_Malloc((size_t)(n_pat ? n_pat : 1) * sizeof(int32_t));
  if (!s->patterns.pat || !s->patterns.rule_root || !s->patterns.rule_slots || !s->patterns.op_rules || !parent) goto no_memory;
  for (Py_ssize_t r = 0; r < n_rules; r++) {
    PyObject *t = PyTuple_GET_ITEM(tables, r);
    int32_t nodes = (int32_t)PyTuple_GET_SIZE(t), slots = 0;
    for (int32_t k = 0; k < nodes; k++) parent[k] = -1;
    for (int32_t k = 0; k < nodes; k++) {
      if (read_pat_node(s, PyTuple_GET_ITEM(t, k), k, s->patterns.pat + base + k, base, nodes, parent, &n_kids, &cap_kids) < 0) goto fail;
      if (s->patterns.pat[base + k].slot >= slots) slots = s->patterns.pat[base + k].slot + 1;
    }
    s->patterns.rule_root[r] = base; s->patterns.rule_slots[r] = slots;
    if (nodes > max_nodes) max_nodes = nodes;
    base += nodes;
  }
  s->patterns.goals = PyMem_Malloc((size_t)(max_nodes + 1) * sizeof(PatGoal));
  s->patterns.bind = PyMem_Malloc((size_t)(max_nodes + 1) * sizeof(int32_t));
  if (!s->patterns.goals || !s->patterns.bind) goto no_memory;
  if (make_paths(s, (int32_t)n_rules) < 0) goto fail;
  /* each op's rules, in rule order: a rule is under every op its root may have (the last step: until it is done, no
   * rule is under any op, and a failed call leaves none) */
  for (int op = 0; op < 256; op++) {
    s->patterns.op_first[op] = at;
    for (Py_ssize_t r = 0; r < n_rules; r++) {
      if (op_fits(s->patterns.pat + s->patterns.rule_root[r], (uint8_t)op)) s->patterns.op_rules[at++] = (int32_t)r;
    }
  }
  s->patterns.op_first[256] = at;
  PyMem_Free(parent);
  s->patterns.n_pat = (int32_t)n_pat; s->patterns.n_rules = (int32_t)n_rules;
  Py_INCREF(cb);
  Py_XSETREF(s->patterns.check_cb, cb);
  Py_RETURN_NONE;
no_memory:
  PyErr_NoMemory();
fail:   /* op_first stays all 0 (no rule under any op) until a call succeeds; the arrays are freed by the next call or dealloc */
  PyMem_Free(parent);
  return NULL;
}

/* asks(node) -> whether the core would ask Python for the node's own redexes: a compiled pattern matches it, or its
 * signature lets a rule left to Python match it (the differential tests hold this against UPat.match). */
PyObject *Space_asks(Space *s, PyObject *arg) {
  int32_t id = node_arg(s, arg);
  if (id < 0) return NULL;
  int m = asks_python(s, id);
  if (m < 0) return NULL;
  return PyBool_FromLong(m);
}

void patterns_free(SpacePatterns *p) {
  void *arrays[] = {p->pat, p->pat_kids, p->rule_root, p->rule_slots, p->op_rules, p->goals, p->bind, p->paths, p->rule_paths};
  for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++) PyMem_Free(arrays[i]);
  map_free(&p->sigs); map_free(&p->checked);
}
