/* Analyses over the explored states' steps, for cycles.py, analyses/order.py and paths (_space_cycles.c). */
#ifndef UOPC_SPACE_CYCLES_H
#define UOPC_SPACE_CYCLES_H
#include <Python.h>


typedef struct Space Space;

PyObject *Space_cycles(Space *s, PyObject *args);            /* (steps between made states, closed or every cyclic components) */
PyObject *Space_last_reaching(Space *s, PyObject *args);     /* per state, the last index of a path reaching it */
PyObject *Space_bfs(Space *s, PyObject *args);               /* per state, its breadth-first parent from a start */

#endif
