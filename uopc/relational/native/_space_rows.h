/* A batch of graphs as codec rows, from the native core's nodes: cluster/codec.py's Codec.encode without a UOp walked.

   _space_rows.c writes them from the Space's node table, _space_decode.c reads them back. A row is a node the receiver
   does not know yet, written sources first: (op, dtype, arg, its sources' refs), a ref being -1 - i for the base's node
   i (the program's nodes, Codec.base) and first + j for row j of the batch or stream. The order is uop.py's
   fill_bottom_up, entry for entry: a stack of (node, ready) where a node's unknown sources are pushed in order after it,
   so the last source is written first, and an entry met again once its node is written is passed over. What a stream
   knows is a stamp and a ref per node: stream 0 (a batch of its own) forgets all but the base at each call, streams 1
   to ROWS_STREAMS - 1 (a shard's level records, codec.Records; its batches to each other shard, codec.Deltas) until
   rows_reset(k). A stream's arrays are made at its first use. A base node's stamp is ROWS_BASE in each, never outdated
   by a new stamp. */
#ifndef UOPC_SPACE_ROWS_H
#define UOPC_SPACE_ROWS_H
#include <Python.h>
#include <stdint.h>


typedef struct Space Space;

#define ROWS_STREAMS 32   /* stream 0, the records' and a shard's deltas to 30 others */

struct SpaceRows {
  PyObject *labels;                    /* NativeSpace._labels: an inner node's (op, dtype, arg) by label */
  int32_t *base; int64_t n_base, cap_base;   /* the base's nodes in order */
  int32_t *stamp[ROWS_STREAMS], *ref[ROWS_STREAMS]; int32_t gen[ROWS_STREAMS]; int64_t cap;   /* per node, per stream (NULL:
                                      not used yet): known if stamp == gen (or ROWS_BASE), as ref */
  int32_t *roots, *stack; int64_t cap_roots, cap_stack;      /* a call's roots as nodes (-1: none), and the walk's entries */
  int32_t *fidx, *fstamp; int64_t cap_fidx; int32_t fgen;   /* a packed call's field of each label (stamped fgen) */
  int busy;
};

void rows_free(struct SpaceRows *r);
int64_t rows_bytes(const struct SpaceRows *r);
PyObject *Space_rows_setup(Space *s, PyObject *args);
PyObject *Space_rows_reset(Space *s, PyObject *arg);
PyObject *Space_rows(Space *s, PyObject *args);

#endif
