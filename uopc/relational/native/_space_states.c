/* The states as Python reads them: their columns, a state's steps (listed, found by key, or counted). */
#include "_space.h"
#include <structmember.h>

int check_state(Space *s, int i) {
  if (i < 0 || i >= s->n_states) { PyErr_SetString(PyExc_IndexError, "no such state"); return -1; }
  return 0;
}

/* ---- take(): the new states as Python objects, made here */

/* ---- take(): the new states as Python objects, made here */

/* The offset of `name`, an object slot (__slots__) of `type`'s instances, found in its MRO's own dicts (a subclass may
 * cover a slot with a property: NativeState's graph, redex and out). -1 with TypeError where it is none. */
static Py_ssize_t slot_offset(PyTypeObject *type, const char *name) {
  PyObject *mro = type->tp_mro;
  for (Py_ssize_t i = 0; mro && i < PyTuple_GET_SIZE(mro); i++) {
    PyObject *dict = ((PyTypeObject *)PyTuple_GET_ITEM(mro, i))->tp_dict, *d = dict ? PyDict_GetItemString(dict, name) : NULL;
    if (!d || !Py_IS_TYPE(d, &PyMemberDescr_Type)) continue;
    PyMemberDef *m = ((PyMemberDescrObject *)d)->d_member;
    if (m->type == T_OBJECT_EX && !(m->flags & READONLY) && m->offset + (Py_ssize_t)sizeof(PyObject *) <= type->tp_basicsize) return m->offset;
  }
  PyErr_Format(PyExc_TypeError, "%s.%s is not an object slot", type->tp_name, name);
  return -1;
}

/* Slot `off` of o set to v (a new reference, taken; NULL: an error before, nothing set). 0, or -1 where v is NULL. */
static int set_slot(PyObject *o, Py_ssize_t off, PyObject *v) {
  if (!v) return -1;
  PyObject **p = (PyObject **)((char *)o + off), *old = *p;
  *p = v;
  Py_XDECREF(old);
  return 0;
}

static PyObject *new_ref(PyObject *o) { Py_INCREF(o); return o; }

/* The class take() makes objects of, the offsets of the slots it sets, and what it sets that Python reads later. */
enum { SL_ID, SL_NODE, SL_SPACE, SL_DEPTH, SL_PARENT, SL_REDEX, SL_ERROR, SL_NORMAL, SL_OUT, SL_STEPPER, SL_N };
static const char *const STATE_SLOTS[SL_N] = {"id", "_node", "_space", "depth", "parent", "redex", "error", "normal", "out", "_stepper"};
typedef struct { PyTypeObject *state; PyObject *unread, *expanded, *space, *stepper; Py_ssize_t at[SL_N]; } Makers;

/* States start.. as new objects of k->state appended to `states`, fields as NativeState's docstring says (drive.py), then
 * each one's parent. 0, or -1 on error. */
static int make_states(Space *s, const Makers *k, PyObject *states) {
  Py_ssize_t start = PyList_GET_SIZE(states);
  const Py_ssize_t *f = k->at;
  for (int32_t i = (int32_t)start; i < s->n_states; i++) {
    PyObject *o = k->state->tp_alloc(k->state, 0);
    if (!o) return -1;
    int bad = set_slot(o, f[SL_ID], PyLong_FromLong(i)) < 0 || set_slot(o, f[SL_NODE], PyLong_FromLong(s->st_root[i])) < 0 ||
              set_slot(o, f[SL_SPACE], new_ref(k->space)) < 0 || set_slot(o, f[SL_DEPTH], PyLong_FromLong(s->st_depth[i])) < 0 ||
              set_slot(o, f[SL_PARENT], new_ref(Py_None)) < 0 || set_slot(o, f[SL_REDEX], new_ref(k->unread)) < 0 ||
              set_slot(o, f[SL_ERROR], new_ref(Py_None)) < 0 || set_slot(o, f[SL_NORMAL], new_ref(Py_None)) < 0 ||
              set_slot(o, f[SL_OUT], new_ref(Py_None)) < 0 || set_slot(o, f[SL_STEPPER], new_ref(k->stepper)) < 0 || PyList_Append(states, o) < 0;
    Py_DECREF(o);
    if (bad) return -1;
  }
  for (int32_t i = (int32_t)start; i < s->n_states; i++) {   /* a parent may be made after its child (depth first: moved) */
    int32_t p = s->st_parent[i];
    if (p >= 0 && set_slot(PyList_GET_ITEM(states, i), f[SL_PARENT], new_ref(PyList_GET_ITEM(states, p))) < 0) return -1;
  }
  return 0;
}

/* What changes() would report, applied to the states (drive.py's _take), where no state was moved: each expanded state's
 * out (k->expanded: NativeState.out makes its NativeOut on first read), normal flag, and its place in `normals` and
 * `reduced`. 1 if applied (the events are then consumed), 0 if a move is among them (nothing applied: changes() reports
 * them), -1 on error. */
static int apply_events(Space *s, const Makers *k, PyObject *states, PyObject *normals, PyObject *reduced) {
  for (int64_t e = 1; e < s->n_events; e += 2) if (s->events[e] == EV_MOVED || s->events[e] == EV_MOVED_AGAIN) return 0;
  for (int64_t e = 0; e < s->n_events; e += 2) {
    int32_t ev = s->events[e + 1];
    PyObject *obj = PyList_GET_ITEM(states, s->events[e]);
    if (set_slot(obj, k->at[SL_OUT], new_ref(k->expanded)) < 0) return -1;
    if ((ev & EV_REDUCED) && PySet_Add(reduced, obj) < 0) return -1;
    ev &= ~EV_REDUCED;
    if (ev == EV_AGAIN) continue;
    if (set_slot(obj, k->at[SL_NORMAL], PyBool_FromLong(ev == EV_NORMAL)) < 0) return -1;
    if (ev == EV_NORMAL && PyList_Append(normals, obj) < 0) return -1;
  }
  s->n_events = 0;
  return 1;
}

/* take(states, (state class, unread, expanded, space, stepper, normals, reduced)) -> whether every change was applied:
 * the states made since `states` ended appended to it, and what happened to states since the last call applied (else a
 * state was moved, and changes() reports it all). drive.py's _take in C: a state cost 1.5 us of Python, 0.65 us made
 * by a list comprehension. */
PyObject *Space_take(Space *s, PyObject *args) {
  PyObject *states, *normals, *reduced;
  Makers k;
  if (!PyArg_ParseTuple(args, "O!(O!OOOOO!O!)", &PyList_Type, &states, &PyType_Type, &k.state, &k.unread, &k.expanded, &k.space, &k.stepper,
                        &PyList_Type, &normals, &PySet_Type, &reduced)) return NULL;
  if (PyList_GET_SIZE(states) > s->n_states) { PyErr_SetString(PyExc_ValueError, "take: more states than the core's"); return NULL; }
  for (int f = 0; f < SL_N; f++) if ((k.at[f] = slot_offset(k.state, STATE_SLOTS[f])) < 0) return NULL;
  if (make_states(s, &k, states) < 0) return NULL;
  int rc = apply_events(s, &k, states, normals, reduced);
  return rc < 0 ? NULL : PyBool_FromLong(rc);
}

/* step_key(i) -> the core's key of the step that reached state i (its redex; under tree semantics a position), -1 for
 * the program: what NativeState.redex reads on first read. */
PyObject *Space_step_key(Space *s, PyObject *arg) {
  long i = PyLong_AsLong(arg);
  if (i == -1 && PyErr_Occurred()) return NULL;
  if (check_state(s, (int)i) < 0) return NULL;
  return PyLong_FromLong(s->st_redex[i]);
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

