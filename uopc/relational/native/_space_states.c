/* The states as Python reads them: their columns, a state's steps (listed, found by key, or counted). */
#include "_space.h"
#include <structmember.h>

int check_state(Space *s, int i) {
  if (i < 0 || i >= s->n_states) { PyErr_SetString(PyExc_IndexError, "no such state"); return -1; }
  return 0;
}

/* ---- take(): the new states as Python objects, made here */

/* The offset of `name`, an object slot (__slots__) of `type`'s instances: -1 with TypeError where it is none. */
static Py_ssize_t slot_offset(PyTypeObject *type, const char *name) {
  PyObject *d = PyObject_GetAttrString((PyObject *)type, name);
  if (!d) return -1;
  Py_ssize_t off = -1;
  if (Py_IS_TYPE(d, &PyMemberDescr_Type)) {
    PyMemberDef *m = ((PyMemberDescrObject *)d)->d_member;
    if (m->type == T_OBJECT_EX && !(m->flags & READONLY) && m->offset + (Py_ssize_t)sizeof(PyObject *) <= type->tp_basicsize) off = m->offset;
  }
  Py_DECREF(d);
  if (off < 0) PyErr_Format(PyExc_TypeError, "%s.%s is not an object slot", type->tp_name, name);
  return off;
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

/* The classes take() makes objects of, with the offsets of the slots it sets. */
enum { SL_ID, SL_NODE, SL_SPACE, SL_DEPTH, SL_PARENT, SL_KEY, SL_ERROR, SL_NORMAL, SL_OUT, SL_STEPPER, SL_STATE_N };
static const char *const STATE_SLOTS[SL_STATE_N] = {"id", "_node", "_space", "depth", "parent", "_key", "error", "normal", "out", "_stepper"};
typedef struct { PyTypeObject *state, *out; Py_ssize_t st[SL_STATE_N], out_space, out_state; } Makers;

static int makers_of(Makers *k, PyTypeObject *state, PyTypeObject *out) {
  k->state = state; k->out = out;
  for (int f = 0; f < SL_STATE_N; f++) if ((k->st[f] = slot_offset(state, STATE_SLOTS[f])) < 0) return -1;
  if ((k->out_space = slot_offset(out, "space")) < 0 || (k->out_state = slot_offset(out, "state")) < 0) return -1;
  return 0;
}

/* State i's out: a new NativeOut(space, i), set on `obj`. 0, or -1 on error. */
static int make_out(const Makers *k, PyObject *obj, PyObject *space, int32_t i) {
  PyObject *o = k->out->tp_alloc(k->out, 0);
  if (!o) return -1;
  if (set_slot(o, k->out_space, new_ref(space)) < 0 || set_slot(o, k->out_state, PyLong_FromLong(i)) < 0) { Py_DECREF(o); return -1; }
  return set_slot(obj, k->st[SL_OUT], o);
}

/* States start.. as new objects of k->state appended to `states`, as NativeState(i, node, space, depth, parent, key) makes
 * them (drive.py), then each one's parent. 0, or -1 on error. */
static int make_states(Space *s, const Makers *k, PyObject *states, PyObject *space, PyObject *stepper) {
  Py_ssize_t start = PyList_GET_SIZE(states);
  for (int32_t i = (int32_t)start; i < s->n_states; i++) {
    PyObject *o = k->state->tp_alloc(k->state, 0);
    if (!o) return -1;
    const Py_ssize_t *f = k->st;
    int bad = set_slot(o, f[SL_ID], PyLong_FromLong(i)) < 0 || set_slot(o, f[SL_NODE], PyLong_FromLong(s->st_root[i])) < 0 ||
              set_slot(o, f[SL_SPACE], new_ref(space)) < 0 || set_slot(o, f[SL_DEPTH], PyLong_FromLong(s->st_depth[i])) < 0 ||
              set_slot(o, f[SL_PARENT], new_ref(Py_None)) < 0 || set_slot(o, f[SL_KEY], PyLong_FromLong(s->st_redex[i])) < 0 ||
              set_slot(o, f[SL_ERROR], new_ref(Py_None)) < 0 || set_slot(o, f[SL_NORMAL], new_ref(Py_None)) < 0 ||
              set_slot(o, f[SL_OUT], new_ref(Py_None)) < 0 || set_slot(o, f[SL_STEPPER], new_ref(stepper)) < 0 || PyList_Append(states, o) < 0;
    Py_DECREF(o);
    if (bad) return -1;
  }
  for (int32_t i = (int32_t)start; i < s->n_states; i++) {   /* a parent may be made after its child (depth first: moved) */
    int32_t p = s->st_parent[i];
    if (p >= 0 && set_slot(PyList_GET_ITEM(states, i), k->st[SL_PARENT], new_ref(PyList_GET_ITEM(states, p))) < 0) return -1;
  }
  return 0;
}

/* What changes() would report, applied to the states (drive.py's _take), where no state was moved: each expanded state's
 * out, normal flag, and its place in `normals` and `reduced`. 1 if applied (the events are then consumed), 0 if a move
 * is among them (nothing applied: changes() reports them), -1 on error. */
static int apply_events(Space *s, const Makers *k, PyObject *states, PyObject *space, PyObject *normals, PyObject *reduced) {
  for (int64_t e = 1; e < s->n_events; e += 2) if (s->events[e] == EV_MOVED || s->events[e] == EV_MOVED_AGAIN) return 0;
  for (int64_t e = 0; e < s->n_events; e += 2) {
    int32_t i = s->events[e], ev = s->events[e + 1];
    PyObject *obj = PyList_GET_ITEM(states, i);
    if (make_out(k, obj, space, i) < 0) return -1;
    if ((ev & EV_REDUCED) && PySet_Add(reduced, obj) < 0) return -1;
    ev &= ~EV_REDUCED;
    if (ev == EV_AGAIN) continue;
    if (set_slot(obj, k->st[SL_NORMAL], PyBool_FromLong(ev == EV_NORMAL)) < 0) return -1;
    if (ev == EV_NORMAL && PyList_Append(normals, obj) < 0) return -1;
  }
  s->n_events = 0;
  return 1;
}

/* take(states, (state class, out class, space, stepper, normals, reduced)) -> whether every change was applied: the
 * states made since `states` ended appended to it, and what happened to states since the last call applied (else, a
 * state was moved: changes() reports it all). drive.py's _take, in C: a state cost 1.5 us of Python. */
PyObject *Space_take(Space *s, PyObject *args) {
  PyObject *states, *space, *stepper, *normals, *reduced;
  PyTypeObject *state_cls, *out_cls;
  Makers k;
  if (!PyArg_ParseTuple(args, "O!(O!O!OOO!O!)", &PyList_Type, &states, &PyType_Type, &state_cls, &PyType_Type, &out_cls, &space, &stepper,
                        &PyList_Type, &normals, &PySet_Type, &reduced)) return NULL;
  if (PyList_GET_SIZE(states) > s->n_states) { PyErr_SetString(PyExc_ValueError, "take: more states than the core's"); return NULL; }
  for (int64_t e = 0; e < s->n_events; e += 2)
    if (s->events[e] >= s->n_states) { PyErr_SetString(PyExc_SystemError, "take: an event of no state"); return NULL; }
  if (makers_of(&k, state_cls, out_cls) < 0 || make_states(s, &k, states, space, stepper) < 0) return NULL;
  int rc = apply_events(s, &k, states, space, normals, reduced);
  return rc < 0 ? NULL : PyBool_FromLong(rc);
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

