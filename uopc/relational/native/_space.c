/* The explorer's hot core in C: the Python type, Space, over the units _space.h names (docs/native.md). */
#include "_space.h"
#include "_space_cycles.h"
#include "_space_decode.h"
#include "_space_fingerprint.h"
#include "_space_json.h"
#include "_space_level.h"
#include "_space_rows.h"
#include "_space_table.h"
#include <stdlib.h>
#include <string.h>

static PyObject *Space_get_progress(Space *s, void *closure) {
  (void)closure;
  return Py_BuildValue("iii", (int)s->n_states, (int)s->next_expand, (int)s->n_cut);
}

static PyObject *Space_get_counts(Space *s, void *closure) {
  (void)closure;
  return Py_BuildValue("{s:i,s:L,s:i,s:i,s:i,s:L,s:L}", "nodes", (int)s->n_nodes, "bound", (long long)s->ptrs.n, "states", (int)s->n_states,
                       "expanded", (int)s->next_expand, "cut", (int)s->n_cut, "map_entries", (long long)(s->n_maps / 2),
                       "bytes", (long long)(s->cap_nodes * (6 * 4 + 2 + 8 + (s->reduction.on ? 5 : 0)) +
                                            (s->ptrs.cap + s->patterns.sigs.cap + s->reduction.keep_full.cap + s->patterns.checked.cap) * 12 +
                                            s->cap_srcs * 4 + s->cap_table * (int64_t)sizeof(Slot) + s->cap_maps * 4 + s->cap_states * (5 * 4 + 3) +
                                            (s->cap_stack + s->cap_fresh + s->cap_events + 2 * s->cap_keys) * 4 + s->groups.cap * 24 + s->groups.wrapped.cap * 12 +
                                            s->cap_stamp * 16 + s->reduction.cap_chosen * 4 + s->reduction.cap_never + s->labels.cap * (3 * 8 + 4 + 4) +
                                            s->templates.cap_red * 12 + s->templates.cap_ntype * 4 + s->templates.folds.cap_nodes * 17 +
                                            fingerprints_bytes(s->fingerprints) + rows_bytes(s->rows) + table_bytes(s->table_json)));
}

/* ---- the type */

static int Space_init(Space *s, PyObject *args, PyObject *kw) {
  static char *names[] = {"match", "may", "labeler", "label_finder", "op_codes", "map_limit", "tree", NULL};
  PyObject *match, *may, *labeler, *finder, *op_codes; int limit, tree = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOOO!i|p", names, &match, &may, &labeler, &finder, &PyDict_Type, &op_codes, &limit, &tree))
    return -1;
  if (s->table) { PyErr_SetString(PyExc_RuntimeError, "a Space is made once"); return -1; }
  Py_INCREF(match); Py_INCREF(may); Py_INCREF(labeler); Py_INCREF(finder); Py_INCREF(op_codes);
  s->match_cb = match; s->patterns.may_cb = may; s->labels.labeler = labeler; s->labels.label_finder = finder; s->labels.op_codes = op_codes;
  s->map_limit = limit; s->tree = tree; s->cur = -1;
  if (labels_init(&s->labels) < 0) return -1;
  if (rehash(s, 1024) < 0) return -1;
  return 0;
}

/* The UOps in obj are not visited: they hold no reference back to a Space, so no cycle goes through them,
 * and visiting a graph's every node on every collection would cost what the core saves. */
#include "_space_text.h"   /* text(node, limit): a state's text from these nodes */

static int Space_traverse(Space *s, visitproc visit, void *arg) {
  if (s->text) Py_VISIT(s->text->cb);
  if (s->rows) Py_VISIT(s->rows->labels);
  if (s->fingerprints) Py_VISIT(s->fingerprints->cb);
  if (table_traverse(s->table_json, visit, arg)) return -1;
  Py_VISIT(s->match_cb); Py_VISIT(s->patterns.may_cb); Py_VISIT(s->labels.labeler); Py_VISIT(s->labels.label_finder); Py_VISIT(s->labels.op_codes);
  Py_VISIT(s->reduction.inert_cb); Py_VISIT(s->patterns.check_cb); Py_VISIT(s->templates.type_cb); Py_VISIT(s->templates.fill_cb);
  return 0;
}
static int Space_clear(Space *s) {
  if (s->text) Py_CLEAR(s->text->cb);
  if (s->rows) Py_CLEAR(s->rows->labels);
  if (s->fingerprints) Py_CLEAR(s->fingerprints->cb);
  table_clear(s->table_json);
  Py_CLEAR(s->match_cb); Py_CLEAR(s->patterns.may_cb); Py_CLEAR(s->labels.labeler); Py_CLEAR(s->labels.label_finder); Py_CLEAR(s->labels.op_codes);
  Py_CLEAR(s->reduction.inert_cb); Py_CLEAR(s->patterns.check_cb); Py_CLEAR(s->templates.type_cb); Py_CLEAR(s->templates.fill_cb);
  return 0;
}

static void Space_dealloc(Space *s) {
  PyObject_GC_UnTrack(s);
  Space_clear(s);
  text_free(s->text);
  table_free(s->table_json);
  level_free(s->level);
  for (int32_t i = 0; i < s->n_nodes; i++) Py_XDECREF(s->obj[i]);
  fingerprints_free(s->fingerprints);
  void *arrays[] = {s->label, s->src_off, s->src_n, s->map_off, s->map_n, s->state_of, s->op, s->nflags, s->srcs, s->maps, s->stamp, s->stamp_val,
                    s->st_root, s->st_parent, s->st_depth, s->st_redex, s->st_normal, s->obj, s->st_out, s->key_idx, s->key_inner, s->st_done, s->st_cut,
                    s->stack, s->fresh, s->events};
  for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++) PyMem_Free(arrays[i]);
  map_free(&s->ptrs);
  labels_free(&s->labels); patterns_free(&s->patterns); templates_free(&s->templates); groups_free(&s->groups); reduction_free(&s->reduction);
  free(s->table);
  rows_free(s->rows);
  Py_TYPE(s)->tp_free((PyObject *)s);
}

static PyMethodDef Space_methods[] = {
  {"index", (PyCFunction)Space_index, METH_O, "index(u) -> the node of UOp u (made, with those below it, where new)."},
  {"lookup", (PyCFunction)Space_lookup, METH_O, "lookup(u) -> the node of UOp u if it exists, else -1 (makes none)."},
  {"text_setup", (PyCFunction)Space_text_setup, METH_VARARGS, "text_setup(pieces(node) -> str | [str | source index], let names): for text()."},
  {"text", (PyCFunction)Space_text, METH_VARARGS, "text(node or its UOp, limit=None) -> uopc.term.show of its UOp, made from the nodes (None: a UOp of none)."},
  {"materialize", (PyCFunction)Space_materialize, METH_VARARGS, "materialize(id, make, labels) -> the node's UOp, made where new."},
  {"prepare", (PyCFunction)Space_prepare, METH_O, "prepare(id) -> True once the step maps of id's graph exist, False if the core stops there."},
  {"successors", (PyCFunction)Space_successors, METH_O, "successors(id) -> (step keys, graphs) of every step out of id's graph, in Stepper.successors' order; None if the core stops there."},
  {"fingerprint_setup", (PyCFunction)Space_fingerprint_setup, METH_O, "fingerprint_setup(fields(node) -> bytes): for fingerprint(), fields asked once per label."},
  {"fingerprint", (PyCFunction)Space_fingerprint, METH_O, "fingerprint(id) -> space/fingerprint.py's 16 bytes of id's graph (BLAKE2b), computed in C."},
  {"fingerprints", (PyCFunction)Space_fingerprints, METH_O, "fingerprints(ids) -> [fingerprint(id) for id in ids]."},
  {"expand_level", (PyCFunction)Space_expand_level, METH_VARARGS, "expand_level(nodes, shards, keyed=False) -> a cluster worker's level: steps, fingerprints, candidates (_space_level.c)."},
  {"forget_candidates", (PyCFunction)Space_forget_candidates, METH_NOARGS, "forget_candidates(): expand_level's table of candidates made empties."},
  {"asks", (PyCFunction)Space_asks, METH_O, "asks(id) -> whether the core would ask Python for node id's own redexes."},
  {"patterns", (PyCFunction)Space_patterns, METH_VARARGS, "patterns(tables, check(check, label, node)): the rules' compiled patterns (patterns.py), before the first node."},
  {"templates", (PyCFunction)Space_templates, METH_VARARGS, "templates(rules, type(node), host[, codes]): template rules and rules as data applied in the core (templates.py, folds.py), after patterns()."},
  {"redex", (PyCFunction)Space_redex, METH_O, "redex(k) -> (node, rule index, result node) of redex k."},
  {"redex_rows", (PyCFunction)Space_redex_rows, METH_VARARGS, "redex_rows(a, b) -> bytes: int32 (node, result node, rule index) of redexes a..b-1."},
  {"reduce", (PyCFunction)Space_reduce, METH_VARARGS, "reduce(inert op codes, keep_full nodes, inert(node, label, sources)): explore persistent sets (docs/reduction.md)."},
  {"start", (PyCFunction)Space_start, METH_VARARGS, "start(root, dfs=False): state 0 is the graph of node root; breadth or depth first."},
  {"expand", (PyCFunction)Space_expand, METH_VARARGS, "expand(count, max_states, max_depth, until) -> ST_DONE, ST_MORE, ST_MAX_STATES or ST_BAIL."},
  {"changes", (PyCFunction)Space_changes, METH_NOARGS, "changes() -> (states, EV_* events, moves): what happened to states since the last call."},
  {"frontier", (PyCFunction)Space_frontier, METH_NOARGS, "frontier() -> the states the Python search goes on from, in its frontier's order."},
  {"cut_states", (PyCFunction)Space_cut_states, METH_NOARGS, "cut_states() -> the states max_depth cut a successor of."},
  {"key", (PyCFunction)Space_key, METH_O, "key(k) -> (source index, inner key) or (-1, redex): a tree semantics step key."},
  {"take", (PyCFunction)Space_take, METH_VARARGS, "take(states, (state class, unread, expanded, space, stepper, normals, reduced)) -> whether every change was applied (the new states appended)."},
  {"step_key", (PyCFunction)Space_step_key, METH_O, "step_key(i) -> the key of the step that reached state i, -1 for the program."},
  {"out", (PyCFunction)Space_out, METH_VARARGS, "out(i) -> [(redex, result node, target state or -1)], or None if unexpanded."},
  {"states_json", (PyCFunction)Space_states_json, METH_VARARGS, "states_json(start, end, rules, seen, cut, max_chars, write, comma) -> (next, cut short): states as JSON to write, their rows added (_space_json.c)."},
  {"depths", (PyCFunction)Space_depths, METH_VARARGS, "depths(n, forks) -> [[depth, states, normal forms, forks, first id, last id], ...] of states 0..n-1 (_space_json.c)."},
  {"table_setup", (PyCFunction)Space_table_setup, METH_VARARGS, "table_setup(template(node) -> tuple of bytes): a new node table for a report (_space_table.c)."},
  {"table_row", (PyCFunction)Space_table_row, METH_VARARGS, "table_row(node, cut) -> the node's row, added with its sources' where new; -1: cut (_space_table.c)."},
  {"table_rows", (PyCFunction)Space_table_rows, METH_VARARGS, "table_rows(start, end) -> the rows' texts, comma-separated (_space_table.c)."},
  {"table_size", (PyCFunction)Space_table_size, METH_NOARGS, "table_size() -> the node table's rows (_space_table.c)."},
  {"steps_json", (PyCFunction)Space_steps_json, METH_VARARGS, "steps_json(start, end, rules, limit, max_chars, forks, cut, write, comma) -> (next, steps, cut short): steps as JSON to write, new keys' rows added (_space_json.c)."},
  {"step_to", (PyCFunction)Space_step_to, METH_VARARGS, "step_to(i, key) -> (result node, target state or -1) of state i's step keyed key, or None."},
  {"n_steps", (PyCFunction)Space_n_steps, METH_VARARGS, "n_steps(i) -> len(out(i)), counted without listing the steps."},
  {"state_of", (PyCFunction)Space_state_of, METH_VARARGS, "state_of(node) -> the state whose graph it is, or -1."},
  {"cycles", (PyCFunction)Space_cycles, METH_VARARGS, "cycles(every=False) -> (steps between made states, closed components of more than one state; every: each component with a cycle, steps 0)."},
  {"last_reaching", (PyCFunction)Space_last_reaching, METH_VARARGS, "last_reaching(path) -> per state, the last path index reaching it, or -1."},
  {"bfs", (PyCFunction)Space_bfs, METH_VARARGS, "bfs(start, targets) -> per state, its breadth-first parent from start, or -1."},
  {"rows_setup", (PyCFunction)Space_rows_setup, METH_VARARGS, "rows_setup(base nodes, labels): for rows(), the program's nodes in Codec.base order (ref -1 - i)."},
  {"rows", (PyCFunction)Space_rows, METH_VARARGS, "rows(roots, stream, first) -> (rows, refs): Codec.encode's rows of the roots' nodes the stream does not know yet."},
  {"rows_reset", (PyCFunction)Space_rows_reset, METH_O, "rows_reset(stream): the stream forgets all but the base (stream 1: a new epoch)."},
  {"intern_rows", (PyCFunction)Space_intern_rows, METH_VARARGS, "intern_rows(rows, made, make) -> each codec row's node, made where new; made extended with them."},
  {NULL, NULL, 0, NULL},
};

static PyGetSetDef Space_getset[] = {
  {"progress", (getter)Space_get_progress, NULL, "(states, states expanded, whether max_depth cut a step)", NULL},
  {"n_redexes", (getter)Space_get_n_redexes, NULL, "redexes numbered so far (made here or by Python)", NULL},
  {"counts", (getter)Space_get_counts, NULL, "nodes, nodes bound to a UOp, states, expanded, cut, map entries, bytes held", NULL},
  {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject SpaceType = {
  PyVarObject_HEAD_INIT(NULL, 0)
  .tp_name = "uopc.relational.native._space.Space",
  .tp_doc = "Nodes, step maps and a breadth- or depth-first search, in flat arrays (see docs/native.md).",
  .tp_basicsize = sizeof(Space),
  .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
  .tp_new = PyType_GenericNew,
  .tp_init = (initproc)Space_init,
  .tp_dealloc = (destructor)Space_dealloc,
  .tp_traverse = (traverseproc)Space_traverse,
  .tp_clear = (inquiry)Space_clear,
  .tp_methods = Space_methods,
  .tp_getset = Space_getset,
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_space", "The explorer's hot core in C (docs/native.md).", -1, NULL};

PyMODINIT_FUNC PyInit__space(void) {
  if (PyType_Ready(&SpaceType) < 0) return NULL;
  if (uops_init() < 0) return NULL;
  PyObject *m = PyModule_Create(&module);
  if (!m) return NULL;
  Py_INCREF(&SpaceType);
  if (PyModule_AddObject(m, "Space", (PyObject *)&SpaceType) < 0) { Py_DECREF(&SpaceType); Py_DECREF(m); return NULL; }
  static const struct { const char *name; int value; } constants[] = {
    {"ST_DONE", ST_DONE}, {"ST_MORE", ST_MORE}, {"ST_MAX_STATES", ST_MAX_STATES}, {"ST_BAIL", ST_BAIL},
    {"EV_NOT_NORMAL", EV_NOT_NORMAL}, {"EV_NORMAL", EV_NORMAL}, {"EV_AGAIN", EV_AGAIN}, {"EV_MOVED", EV_MOVED},
    {"EV_MOVED_AGAIN", EV_MOVED_AGAIN}, {"EV_REDUCED", EV_REDUCED},
  };
  for (size_t k = 0; k < sizeof(constants) / sizeof(constants[0]); k++)
    if (PyModule_AddIntConstant(m, constants[k].name, constants[k].value) < 0) { Py_DECREF(m); return NULL; }
  return m;
}
