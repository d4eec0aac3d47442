/* The states as Python reads them: their columns, a state's steps (listed, found by key, or counted). */
#include "_space.h"

int check_state(Space *s, int i) {
  if (i < 0 || i >= s->n_states) { PyErr_SetString(PyExc_IndexError, "no such state"); return -1; }
  return 0;
}

/* states(start, end): (root, parent, depth, redex, normal, reduced) lists of the states start to end - 1. */
PyObject *Space_states(Space *s, PyObject *args) {
  int start, end;
  if (!PyArg_ParseTuple(args, "ii", &start, &end)) return NULL;
  if (start < 0) start = 0;
  if (end > s->n_states) end = s->n_states;
  int32_t n = end > start ? end - start : 0;
  PyObject *lists[6];
  const int32_t *cols[4] = {s->st_root, s->st_parent, s->st_depth, s->st_redex};
  for (int c = 0; c < 6; c++) {
    if (!(lists[c] = PyList_New(n))) { for (int d = 0; d < c; d++) Py_DECREF(lists[d]); return NULL; }
    for (int32_t k = 0; k < n; k++)
      PyList_SET_ITEM(lists[c], k, PyLong_FromLong(c < 4 ? cols[c][start + k] : c == 4 ? s->st_normal[start + k] : s->st_out[start + k] >= 0));
  }
  return Py_BuildValue("NNNNNN", lists[0], lists[1], lists[2], lists[3], lists[4], lists[5]);
}

/* out(i)'s list and the graph of the group being listed: each key of a group becomes a (key, graph, its state) tuple. */
typedef struct { Space *s; PyObject *out; int32_t h; } OutVisit;

static int out_append(void *arg, int32_t key) {
  OutVisit *v = arg;
  PyObject *t = Py_BuildValue("iii", (int)key, (int)v->h, (int)v->s->state_of[v->h]);
  if (!t) return -1;
  int rc = PyList_Append(v->out, t);
  Py_DECREF(t);
  return rc;
}

/* out(i): [(key, result node, target state or -1)] for the steps out of state i's graph: its map, its persistent set,
 * or every key of its grouped steps (in group order, as GroupedSteps iterates). */
PyObject *Space_out(Space *s, PyObject *args) {
  int i;
  if (!PyArg_ParseTuple(args, "i", &i) || check_state(s, i) < 0) return NULL;
  int32_t root = s->st_root[i], m;
  if (s->map_off[root] == NO_MAP) Py_RETURN_NONE;
  const int32_t *steps = state_steps(s, i, &m);
  OutVisit v = {s, PyList_New(0), -1};
  if (!v.out) return NULL;
  for (int32_t e = 0; e < m; e++) {
    v.h = steps[2 * e + 1];
    int rc = s->st_out[i] < 0 && grouped(s, root) ? group_keys(s, group_at(s, root, e), out_append, &v) : out_append(&v, steps[2 * e]);
    if (rc < 0) { Py_DECREF(v.out); return NULL; }
  }
  return v.out;
}

/* step_to(i, key): the step of state i keyed `key` (a redex id) without listing the others: out(i)'s search in C. */
typedef struct { int32_t want, found; } FindVisit;

static int find_visit(void *arg, int32_t key) {
  FindVisit *v = arg;
  if (key != v->want) return 0;
  v->found = 1;
  return 1;   /* stops group_keys */
}

PyObject *Space_step_to(Space *s, PyObject *args) {
  int i, key;
  if (!PyArg_ParseTuple(args, "ii", &i, &key) || check_state(s, i) < 0) return NULL;
  int32_t root = s->st_root[i], m;
  if (s->map_off[root] == NO_MAP) Py_RETURN_NONE;
  const int32_t *steps = state_steps(s, i, &m);
  int in_groups = s->st_out[i] < 0 && grouped(s, root);
  for (int32_t e = 0; e < m; e++) {
    int found = steps[2 * e] == key;
    if (in_groups) {
      FindVisit v = {key, 0};
      if (group_keys(s, group_at(s, root, e), find_visit, &v) < 0) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "step_to: a group's keys could not be listed");
        return NULL;
      }
      found = v.found;
    }
    if (found) { int32_t h = steps[2 * e + 1]; return Py_BuildValue("ii", (int)h, (int)s->state_of[h]); }
  }
  Py_RETURN_NONE;
}

/* n_steps(i) -> len(out(i)) without listing them (a grouped graph's steps are counted per group). */
PyObject *Space_n_steps(Space *s, PyObject *args) {
  int i;
  if (!PyArg_ParseTuple(args, "i", &i) || check_state(s, i) < 0) return NULL;
  int32_t m;
  if (s->map_off[s->st_root[i]] == NO_MAP) return PyLong_FromLong(0);
  state_steps(s, i, &m);
  int64_t n = 0;
  for (int32_t e = 0; e < m; e++) n += entry_steps(s, i, e);
  return PyLong_FromLongLong(n);
}

PyObject *Space_state_of(Space *s, PyObject *args) {
  int id;
  if (!PyArg_ParseTuple(args, "i", &id)) return NULL;
  return PyLong_FromLong(id >= 0 && id < s->n_nodes ? s->state_of[id] : -1);
}

