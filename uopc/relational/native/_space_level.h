/* A cluster worker's stepping in C (_space_level.c): successors() of one graph, and expand_level(), a shard's whole
 * level in one call, with the table of fingerprints made candidates it keeps between levels (struct SpaceLevel). */
#ifndef UOPC_SPACE_LEVEL_H
#define UOPC_SPACE_LEVEL_H
#include <Python.h>


typedef struct Space Space;
struct SpaceLevel;

void level_free(struct SpaceLevel *lv);
PyObject *Space_successors(Space *s, PyObject *arg);
PyObject *Space_expand_level(Space *s, PyObject *args);
PyObject *Space_forget_candidates(Space *s, PyObject *noargs);

#endif
