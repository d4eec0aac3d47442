/* A report's node table kept by the core's node ids (_space_table.c; uopc/cli/reports/stream.py's NativeNodeTable). */
#ifndef UOPC_SPACE_TABLE_H
#define UOPC_SPACE_TABLE_H
#include <Python.h>
#include <stdint.h>
#include "_space_json.h"   /* Text */

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

/* the text a call of states_json or steps_json is written into before it is handed to Python (text_write): one buffer
   kept with the table, not a new one per call (a new megabyte's pages cost the kernel as much as writing them). Needs
   table_setup(). */
Text *table_out(Space *s);

/* A step key as steps_json writes it, read once (a key repeats: five_params' 8.7 million steps name 811,967): its rule
   and its node's and result's rows as text, N,"result":R (30 characters at the most; len 0: not read). One record, not
   three arrays: one random read per step. */
typedef struct { int32_t rule; uint8_t len; char text[35]; } TableKey;

/* the table's records of the step keys 0..n-1 (grown to n where fewer, the new ones not read), or NULL with an
   exception. Needs table_setup(). */
TableKey *table_keys(Space *s, int64_t n);

#define TABLE_CUT_NODES 4096   /* rows added between two questions to the cut (exploration.py's CUT_NODES) */

#endif
