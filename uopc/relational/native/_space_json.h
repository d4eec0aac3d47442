/* A report's steps as JSON text from the core's step maps (_space_json.c; uopc/cli/reports/stream.py reads them). */
#ifndef UOPC_SPACE_JSON_H
#define UOPC_SPACE_JSON_H
#include <Python.h>

typedef struct Space Space;
/* step_keys(start, end, expanded, rule_of, node_of, result_of, node_rows, limit) -> (keys, states): the step keys of
   states start..end-1 not read yet (rule_of[key] == -1, marked -2 here), each once, in the order the steps name them,
   and the state that names it first; a redex whose node and result have rows in node_rows (or None) read here */
PyObject *Space_step_keys(Space *s, PyObject *args);
/* steps_json(start, end, expanded, rule_of, node_of, result_of, rules, limit, max_chars, forks) -> (text, next state,
   steps): the steps of states start.. as JSON, comma-separated, up to the state where the text passes max_chars */
PyObject *Space_steps_json(Space *s, PyObject *args);
/* step_key_count() -> the step keys numbered so far: redexes, or under tree semantics positions */
PyObject *Space_step_key_count(Space *s, PyObject *noargs);
/* node_rows(uops, start, rows): the report's node table's rows by node id, from its UOps */
PyObject *Space_node_rows(Space *s, PyObject *args);

#endif
