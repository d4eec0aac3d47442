/* States and the search (stream.py's Exploration._drive, breadth or depth first): start() and expand(), and what
 * changed for the Python side (changes(), frontier(), cut_states()). */
#include "_space.h"

static int add_state(Space *s, int32_t root, int32_t parent, int32_t depth, int32_t redex) {
  int32_t i = s->n_states;
  if (i + 1 > s->cap_states) {
    int32_t c = s->cap_states, c2;
#define GROW_STATE(f, t) c2 = c; if (grow32((void **)&s->f, &c2, i + 1, sizeof(t)) < 0) return -1;
    GROW_STATE(st_root, int32_t) GROW_STATE(st_parent, int32_t) GROW_STATE(st_depth, int32_t) GROW_STATE(st_redex, int32_t)
    GROW_STATE(st_normal, int8_t) GROW_STATE(st_out, int32_t) GROW_STATE(st_done, int8_t) GROW_STATE(st_cut, int8_t)
#undef GROW_STATE
    s->cap_states = c2;
  }
  s->st_root[i] = root; s->st_parent[i] = parent; s->st_depth[i] = depth; s->st_redex[i] = redex; s->st_normal[i] = -1; s->st_out[i] = -1;
  s->st_done[i] = 0; s->st_cut[i] = 0;
  s->state_of[root] = i;
  s->n_states = i + 1;
  return 0;
}

/* start(root, dfs=False): state 0 is the graph of node root; the search is breadth first, or depth first. */
PyObject *Space_start(Space *s, PyObject *args) {
  int root, dfs = 0;
  if (!PyArg_ParseTuple(args, "i|p", &root, &dfs)) return NULL;
  if (s->n_states) { PyErr_SetString(PyExc_RuntimeError, "the search has started already"); return NULL; }
  if (check_node(s, root) < 0) return NULL;
  if (add_state(s, root, -1, 0, -1) < 0) return NULL;
  s->dfs = dfs; s->cur = -1;
  if (dfs && push_int(&s->stack, &s->n_stack, &s->cap_stack, 0) < 0) return NULL;
  Py_RETURN_NONE;
}

/* An event for changes(): state i's `ev` (EV_*). 0, or -1 on error. */
static int log_event(Space *s, int32_t i, int32_t ev) {
  if (grow((void **)&s->events, &s->cap_events, s->n_events + 2, sizeof(int32_t)) < 0) return -1;
  s->events[s->n_events++] = i; s->events[s->n_events++] = ev;
  return 0;
}

/* State i is at max_depth and a successor was not made. */
static void mark_cut(Space *s, int32_t i) { if (!s->st_cut[i]) { s->st_cut[i] = 1; s->n_cut++; } }

/* State i's expansion is over: logged. `normal` (0 or 1) becomes its flag where it has none yet; a second expansion (depth
 * first) keeps the one it has (EV_AGAIN), except that max_states (normal 0) makes it not normal, as stream.py does. */
static int finish_state(Space *s, int32_t i, int normal) {
  int ev = EV_AGAIN;
  if (s->st_normal[i] < 0 || normal == 0) ev = s->st_normal[i] = (int8_t)(normal != 0);   /* max_states: not normal */
  s->st_done[i] = 1;
  return log_event(s, i, ev | (s->st_out[i] >= 0 ? EV_REDUCED : 0));
}

/* The map of state i's graph and, reducing, its persistent set, before its first step is followed: 0, -1 error, -2 bail. */
static int begin_state(Space *s, int32_t i) {
  int32_t root = s->st_root[i];
  int rc = map_of(s, root);
  if (rc < 0) return rc;
  s->st_out[i] = -1;   /* depth first expands a state again: its persistent set, if any, is chosen again */
  if (s->reduction.on && s->map_n[root] > 0) {
    rc = persistent_set(s, i);
    if (rc < 0) return rc;
  }
  return 0;
}

/* Breadth first (stream.py's _admit with order="bfs"): up to `count` states from next_expand on. */
static int expand_bfs(Space *s, long long count, long long max_states, long long max_depth, long long until) {
  for (long long k = 0; k < count; k++) {
    if (s->next_expand >= s->n_states) return ST_DONE;
    int32_t i = s->next_expand, m, depth = s->st_depth[i];
    if (s->entry == 0) {
      int rc = begin_state(s, i);
      if (rc == -1) return -1;
      if (rc == -2) return ST_BAIL;
    }
    const int32_t *steps = state_steps(s, i, &m);
    for (int32_t e = s->entry; e < m; e++) {
      int32_t h = steps[2 * e + 1];
      if (s->state_of[h] >= 0) continue;
      if (depth >= max_depth) { mark_cut(s, i); continue; }
      if (s->n_states >= max_states) {
        s->next_expand = i + 1; s->entry = 0;
        return finish_state(s, i, 0) < 0 ? -1 : ST_MAX_STATES;
      }
      if (add_state(s, h, i, depth + 1, steps[2 * e]) < 0) return -1;
      if (s->n_states >= until && e + 1 < m) { s->entry = e + 1; return ST_MORE; }
    }
    s->entry = 0;
    s->next_expand = i + 1;
    if (finish_state(s, i, m == 0) < 0 || tick(s, m + 1) < 0) return -1;
    if (s->n_states >= until) break;
  }
  return s->next_expand >= s->n_states ? ST_DONE : ST_MORE;
}

/* The next state on the stack that was not expanded (depth first skips those pushed twice), or -1. */
static int32_t pop_unexpanded(Space *s) {
  while (s->n_stack) {
    int32_t i = s->stack[--s->n_stack];
    if (!s->st_done[i]) return i;
  }
  return -1;
}

/* Depth first (stream.py's _admit with order="dfs"): a state's successors not seen before are pushed, the first on top; a
 * state seen before at a greater depth takes this shorter path (parent, depth, step), and if max_depth had cut it, it
 * is expanded again from its new depth. */
static int expand_dfs(Space *s, long long count, long long max_states, long long max_depth, long long until) {
  for (long long k = 0; k < count; k++) {
    int32_t i = s->cur, m;
    if (i < 0) {
      if ((i = pop_unexpanded(s)) < 0) return ST_DONE;
      s->cur = i; s->entry = 0; s->n_fresh = 0;
    }
    if (s->entry == 0) {
      int rc = begin_state(s, i);
      if (rc == -1) return -1;
      if (rc == -2) return ST_BAIL;   /* cur stays: the Python search expands it first (frontier()) */
    }
    const int32_t *steps = state_steps(s, i, &m);
    int32_t depth = s->st_depth[i];
    for (int32_t e = s->entry; e < m; e++) {
      int32_t h = steps[2 * e + 1], t = s->state_of[h];
      if (t >= 0) {
        if (s->st_depth[t] > depth + 1) {
          s->st_parent[t] = i; s->st_depth[t] = depth + 1; s->st_redex[t] = steps[2 * e];
          int again = s->st_cut[t];
          if (again) { s->st_cut[t] = 0; s->n_cut--; s->st_done[t] = 0; }
          if (log_event(s, t, again ? EV_MOVED_AGAIN : EV_MOVED) < 0) return -1;
          if (again && push_int(&s->fresh, &s->n_fresh, &s->cap_fresh, t) < 0) return -1;
        }
        continue;
      }
      if (depth >= max_depth) { mark_cut(s, i); continue; }
      if (s->n_states >= max_states) {
        s->cur = -1; s->entry = 0;
        return finish_state(s, i, 0) < 0 ? -1 : ST_MAX_STATES;
      }
      if (add_state(s, h, i, depth + 1, steps[2 * e]) < 0 || push_int(&s->fresh, &s->n_fresh, &s->cap_fresh, s->n_states - 1) < 0) return -1;
      if (s->n_states >= until && e + 1 < m) { s->entry = e + 1; return ST_MORE; }
    }
    if (grow((void **)&s->stack, &s->cap_stack, s->n_stack + s->n_fresh, sizeof(int32_t)) < 0) return -1;
    for (int64_t f = s->n_fresh - 1; f >= 0; f--) s->stack[s->n_stack++] = s->fresh[f];   /* the first successor on top */
    s->cur = -1; s->entry = 0; s->n_fresh = 0;
    if (finish_state(s, i, m == 0) < 0 || tick(s, m + 1) < 0) return -1;
    if (s->n_states >= until) break;
  }
  while (s->n_stack && s->st_done[s->stack[s->n_stack - 1]]) s->n_stack--;
  return s->n_stack ? ST_MORE : ST_DONE;
}

/* expand(count, max_states, max_depth, until): expand up to `count` states in the search's order, stopping early
 * (mid-state, to go on there) once there are `until` states: a stream takes only what it asks for. Returns ST_DONE
 * (nothing left to expand), ST_MORE, ST_MAX_STATES (a new state was needed past max_states: the state being expanded
 * keeps its map and is not normal), or ST_BAIL (the state to expand next was not expanded: the Python explorer goes
 * on from frontier()). What happened to which states is in changes(). */
PyObject *Space_expand(Space *s, PyObject *args) {
  long long count, max_states, max_depth, until;
  if (!PyArg_ParseTuple(args, "LLLL", &count, &max_states, &max_depth, &until)) return NULL;
  if (!s->n_states) { PyErr_SetString(PyExc_RuntimeError, "start() first"); return NULL; }
  int rc = (s->dfs ? expand_dfs : expand_bfs)(s, count, max_states, max_depth, until);
  return rc < 0 ? NULL : PyLong_FromLong(rc);
}

/* changes() -> (states, events, moves): what happened since the last call, in order: per event its state and EV_* code,
 * and per EV_MOVED or EV_MOVED_AGAIN event, the state's (parent, depth, step key) as they are now. */
PyObject *Space_changes(Space *s, PyObject *noargs) {
  int64_t n = s->n_events / 2;
  PyObject *ids = PyList_New(n), *evs = PyList_New(n), *moves = PyList_New(0);
  if (!ids || !evs || !moves) goto fail;
  for (int64_t k = 0; k < n; k++) {
    int32_t i = s->events[2 * k], ev = s->events[2 * k + 1];
    PyObject *a = PyLong_FromLong(i), *b = PyLong_FromLong(ev);
    if (!a || !b) { Py_XDECREF(a); Py_XDECREF(b); goto fail; }
    PyList_SET_ITEM(ids, k, a); PyList_SET_ITEM(evs, k, b);
    if (ev == EV_MOVED || ev == EV_MOVED_AGAIN) {
      PyObject *t = Py_BuildValue("iii", (int)s->st_parent[i], (int)s->st_depth[i], (int)s->st_redex[i]);
      if (!t) goto fail;
      int bad = PyList_Append(moves, t);
      Py_DECREF(t);
      if (bad < 0) goto fail;
    }
  }
  s->n_events = 0;
  return Py_BuildValue("NNN", ids, evs, moves);
fail:
  Py_XDECREF(ids); Py_XDECREF(evs); Py_XDECREF(moves);
  return NULL;
}

/* frontier() -> the states the Python search goes on from after ST_BAIL, in its frontier's order: breadth first, those
 * not expanded yet; depth first, the stack from its bottom, the state that stopped the core on top. */
PyObject *Space_frontier(Space *s, PyObject *noargs) {
  PyObject *out = PyList_New(0);
  if (!out) return NULL;
  int64_t from = s->dfs ? 0 : s->next_expand, to = s->dfs ? s->n_stack : s->n_states;
  for (int64_t k = from; k <= to; k++) {
    int32_t i = k < to ? (s->dfs ? s->stack[k] : (int32_t)k) : s->dfs ? s->cur : -1;
    if (i < 0) continue;
    PyObject *v = PyLong_FromLong(i);
    if (!v || PyList_Append(out, v) < 0) { Py_XDECREF(v); Py_DECREF(out); return NULL; }
    Py_DECREF(v);
  }
  return out;
}

/* cut_states() -> the states at max_depth with a successor that was not made (stream.py's `cut`), in id order. */
PyObject *Space_cut_states(Space *s, PyObject *noargs) {
  PyObject *out = PyList_New(0);
  if (!out) return NULL;
  for (int32_t i = 0; i < s->n_states; i++) if (s->st_cut[i]) {
    PyObject *v = PyLong_FromLong(i);
    if (!v || PyList_Append(out, v) < 0) { Py_XDECREF(v); Py_DECREF(out); return NULL; }
    Py_DECREF(v);
  }
  return out;
}

