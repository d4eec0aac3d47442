/* A report's node table kept by the core's node ids (_space_table.c; uopc/cli/reports/stream.py's NativeNodeTable). */
#ifndef UOPC_SPACE_TABLE_H
#define UOPC_SPACE_TABLE_H
#include <Python.h>
#include <stdint.h>

typedef struct Space Space;
struct SpaceTable;

/* node x's row, added with its sources' (sources first, in the order of its pieces, each once) where new: the row, -1 on
   error (exception set), -2 once `cut` (a callable, or NULL) said True, asked every TABLE_CUT_NODES rows added (the rows
   added so far stay: each is whole, sources first). Needs table_setup(). */
int64_t table_add(Space *s, int32_t x, PyObject *cut);
/* the report's node table of `s`, or NULL with RuntimeError (table_setup() not called) */
struct SpaceTable *space_table(Space *s);
void table_free(struct SpaceTable *t);
int table_traverse(struct SpaceTable *t, visitproc visit, void *arg);
void table_clear(struct SpaceTable *t);
int64_t table_bytes(const struct SpaceTable *t);

PyObject *Space_table_setup(Space *s, PyObject *args);
PyObject *Space_table_row(Space *s, PyObject *args);
PyObject *Space_table_rows(Space *s, PyObject *args);
PyObject *Space_table_size(Space *s, PyObject *noargs);

#define TABLE_CUT_NODES 4096   /* rows added between two questions to the cut (exploration.py's CUT_NODES) */

#endif
