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

/* step key `key` read: its node's and result's rows kept as its text, N,"result":R (table_key_text): 0, or -1 on
   MemoryError. Needs table_setup(). */
int table_key_read(Space *s, int32_t key, int64_t node, int64_t result);
/* the text table_key_read kept for a key read (its `len` characters, valid until the next table_key_read), or NULL
   with RuntimeError for a key not read into this table */
const char *table_key_text(Space *s, int32_t key, int32_t *len);

#define TABLE_TAIL_MAX 64      /* a step key's text at the most: 10 characters and two numbers */
#define TABLE_CUT_NODES 4096   /* rows added between two questions to the cut (exploration.py's CUT_NODES) */

#endif
