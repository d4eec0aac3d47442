/* Analyses over the explored states' steps: closed components (cycles), the last state of a path that reaches each
 * state, and breadth-first parents (_space_cycles.h). */
#include "_space.h"
#include "_space_cycles.h"

/* Tarjan's search over the states, iterative: per state its index and low link (index -1: not visited yet) and whether
 * it is on the stack (2: in the component being closed); the stack, the work stack of (state, next entry) pairs, and
 * the closed components found. */
typedef struct { int32_t *index, *low, *stack, *work; int8_t *on; int32_t counter, top; PyObject *found; int every; } Tarjan;

/* The expanded states' steps to made states (Exploration.edges' edges), a group's keys each. */
static long long made_steps(Space *s) {
  long long steps = 0;
  for (int32_t i = 0; i < s->n_states; i++) {
    int32_t m;
    if (!s->st_done[i]) continue;
    const int32_t *st = state_steps(s, i, &m);
    for (int32_t e = 0; e < m; e++) if (s->state_of[st[2 * e + 1]] >= 0) steps += entry_steps(s, i, e);
  }
  return steps;
}

/* Whether state v has a step to itself (a component of one state that is a cycle: the explorer makes none, as a rule
 * returning its node is no step, but a cycle finder must not rely on that). */
static int self_step(Space *s, int32_t v) {
  int32_t m = 0;
  const int32_t *st = s->st_done[v] ? state_steps(s, v, &m) : NULL;
  for (int32_t e = 0; e < m; e++) if (s->state_of[st[2 * e + 1]] == v) return 1;
  return 0;
}

/* v is a component's root: its component, the stack from v up, comes off the stack, and is kept where it has more than
 * one state and no step leaves it (t->every: where it has a cycle at all, closed or not). 0, or -1 on error. */
static int pop_component(Space *s, Tarjan *t, int32_t v) {
  int32_t start = t->top;
  do start--; while (t->stack[start] != v);
  int closed = t->top - start > 1 || (t->every && self_step(s, v));
  for (int32_t k = start; k < t->top; k++) t->on[t->stack[k]] = 2;   /* 2: in the component being closed */
  for (int32_t k = start; k < t->top && closed && !t->every; k++) {
    int32_t u = t->stack[k], mu = 0;
    const int32_t *su = s->st_done[u] ? state_steps(s, u, &mu) : NULL;
    for (int32_t f = 0; f < mu && closed; f++) { int32_t w = s->state_of[su[2 * f + 1]]; if (w >= 0 && t->on[w] != 2) closed = 0; }
  }
  if (closed) {
    PyObject *comp = PyList_New(t->top - start);
    if (!comp) return -1;
    for (int32_t k = start; k < t->top; k++) PyList_SET_ITEM(comp, k - start, PyLong_FromLong(t->stack[k]));
    int bad = PyList_Append(t->found, comp);
    Py_DECREF(comp);
    if (bad < 0) return -1;
  }
  for (int32_t k = start; k < t->top; k++) t->on[t->stack[k]] = 0;
  t->top = start;
  return 0;
}

/* Tarjan's search from state root (not visited yet). 0, or -1 on error. */
static int strong_from(Space *s, Tarjan *t, int32_t root) {
  int32_t *index = t->index, *low = t->low, *work = t->work, wtop = 1;
  work[0] = root; work[1] = 0;
  while (wtop) {
    int32_t v = work[2 * (wtop - 1)], e = work[2 * (wtop - 1) + 1];
    if (e == 0 && index[v] < 0) { index[v] = low[v] = t->counter++; t->stack[t->top++] = v; t->on[v] = 1; }
    int32_t m = 0;
    const int32_t *st = s->st_done[v] ? state_steps(s, v, &m) : NULL;
    while (e < m && s->state_of[st[2 * e + 1]] < 0) e++;   /* a step to a graph the bound left unmade */
    if (e < m) {
      int32_t w = s->state_of[st[2 * e + 1]];
      work[2 * (wtop - 1) + 1] = e + 1;
      if (index[w] < 0) { work[2 * wtop] = w; work[2 * wtop + 1] = 0; wtop++; }
      else if (t->on[w] && index[w] < low[v]) low[v] = index[w];
      if (tick(s, 1) < 0) return -1;
      continue;
    }
    wtop--;
    if (low[v] == index[v] && pop_component(s, t, v) < 0) return -1;
    if (wtop) { int32_t u = work[2 * (wtop - 1)]; if (low[v] < low[u]) low[u] = low[v]; }
  }
  return 0;
}

/* cycles(every=False) -> (steps between made states, [closed components]): the strongly connected components of more
   than one state that no step leaves (Tarjan, iterative), over the expanded states' steps to made states
   (Exploration.edges' edges). cycles.py keeps those whose states were all expanded fully; the report counts the steps.
   every: every component with a cycle instead, closed or not (cycles.py's loops: an order can go round it forever); the
   count is the same either way (drive.cycles answers one from the other). */
PyObject *Space_cycles(Space *s, PyObject *args) {
  int every = 0;
  if (!PyArg_ParseTuple(args, "|p", &every)) return NULL;
  int32_t n = s->n_states;
  Tarjan t = {PyMem_Malloc(sizeof(int32_t) * (n + 1)), PyMem_Malloc(sizeof(int32_t) * (n + 1)), PyMem_Malloc(sizeof(int32_t) * (n + 1)),
              PyMem_Malloc(sizeof(int32_t) * 2 * (n + 1)), PyMem_Calloc(n + 1, 1), 0, 0, PyList_New(0), every};
  PyObject *out = NULL;
  if (!t.index || !t.low || !t.stack || !t.work || !t.on || !t.found) { PyErr_NoMemory(); goto end; }
  for (int32_t i = 0; i < n; i++) t.index[i] = -1;
  long long steps = made_steps(s);
  for (int32_t root = 0; root < n; root++) if (t.index[root] < 0 && strong_from(s, &t, root) < 0) goto end;
  out = Py_BuildValue("LN", steps, t.found);
  t.found = NULL;
end:
  PyMem_Free(t.index); PyMem_Free(t.low); PyMem_Free(t.stack); PyMem_Free(t.work); PyMem_Free(t.on);
  Py_XDECREF(t.found);
  return out;
}

/* The made state a step of an expanded state reaches, or -1 (a graph the bound left unmade). */
static inline int32_t step_target(Space *s, const int32_t *st, int32_t e) {
  int32_t t = s->state_of[st[2 * e + 1]];
  return t < s->n_states ? t : -1;
}

/* last_reaching(path) -> per state, the index of the last state of `path` (state ids) from which it is reachable over
   the explored steps, or -1: searches from the path's end back, each state labelled by the first search that finds it
   (analyses/order.py's forks; Exploration.successor_ids's steps, so the same labels as its Python search). */
PyObject *Space_last_reaching(Space *s, PyObject *args) {
  PyObject *path;
  if (!PyArg_ParseTuple(args, "O!", &PyTuple_Type, &path)) return NULL;
  int32_t n = s->n_states, top = 0;
  int32_t *label = PyMem_Malloc(sizeof(int32_t) * (n + 1)), *todo = PyMem_Malloc(sizeof(int32_t) * (n + 1));
  PyObject *out = NULL;
  if (!label || !todo) { PyErr_NoMemory(); goto end; }
  for (int32_t i = 0; i < n; i++) label[i] = -1;
  for (Py_ssize_t k = PyTuple_GET_SIZE(path) - 1; k >= 0; k--) {
    long start = PyLong_AsLong(PyTuple_GET_ITEM(path, k));
    if (start == -1 && PyErr_Occurred()) goto end;
    if (start < 0 || start >= n) { PyErr_SetString(PyExc_IndexError, "no such state"); goto end; }
    if (label[start] >= 0) continue;
    label[start] = (int32_t)k;
    todo[top++] = (int32_t)start;
    while (top) {
      int32_t v = todo[--top], m = 0;
      const int32_t *st = s->st_done[v] ? state_steps(s, v, &m) : NULL;
      for (int32_t e = 0; e < m; e++) {
        int32_t t = step_target(s, st, e);
        if (t >= 0 && label[t] < 0) { label[t] = (int32_t)k; todo[top++] = t; }
      }
      if (tick(s, m + 1) < 0) goto end;
    }
  }
  out = int_list(label, n);
end:
  PyMem_Free(label); PyMem_Free(todo);
  return out;
}

/* bfs(start, targets) -> per state, the state it was first reached from in a breadth-first search from `start` over the
   explored steps in order (-1: not reached, or the start), stopping once every state of `targets` is reached. */
PyObject *Space_bfs(Space *s, PyObject *args) {
  int start;
  PyObject *targets;
  if (!PyArg_ParseTuple(args, "iO!", &start, &PyTuple_Type, &targets) || check_state(s, start) < 0) return NULL;
  int32_t n = s->n_states, head = 0, tail = 0;
  int32_t *parent = PyMem_Malloc(sizeof(int32_t) * (n + 1)), *queue = PyMem_Malloc(sizeof(int32_t) * (n + 1));
  uint8_t *seen = PyMem_Calloc(n + 1, 1), *wanted = PyMem_Calloc(n + 1, 1);
  PyObject *out = NULL;
  Py_ssize_t left = 0;
  if (!parent || !queue || !seen || !wanted) { PyErr_NoMemory(); goto end; }
  for (int32_t i = 0; i < n; i++) parent[i] = -1;
  for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(targets); k++) {
    long t = PyLong_AsLong(PyTuple_GET_ITEM(targets, k));
    if (t == -1 && PyErr_Occurred()) goto end;
    if (t < 0 || t >= n) { PyErr_SetString(PyExc_IndexError, "no such state"); goto end; }
    if (!wanted[t] && t != start) { wanted[t] = 1; left++; }
  }
  seen[start] = 1;
  queue[tail++] = start;
  while (head < tail && left) {
    int32_t v = queue[head++], m = 0;
    const int32_t *st = s->st_done[v] ? state_steps(s, v, &m) : NULL;
    for (int32_t e = 0; e < m; e++) {
      int32_t t = step_target(s, st, e);
      if (t < 0 || seen[t]) continue;
      seen[t] = 1; parent[t] = v; queue[tail++] = t;
      if (wanted[t]) left--;
    }
    if (tick(s, m + 1) < 0) goto end;
  }
  out = int_list(parent, n);
end:
  PyMem_Free(parent); PyMem_Free(queue); PyMem_Free(seen); PyMem_Free(wanted);
  return out;
}

