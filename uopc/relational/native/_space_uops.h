/* UOps in and out of the core (_space_uops.c): a UOp's node, found or made with every node below it (index, lookup),
 * and a node's UOp, made where it has none (materialize). Identity tables: a UOp's address to its node (Space.ptrs), an
 * inner node's (op, dtype, arg) by identity to its label and op code (here). */
#ifndef UOPC_SPACE_UOPS_H
#define UOPC_SPACE_UOPS_H
#include "_space_tables.h"


typedef struct Space Space;

typedef struct SpaceLabels {
  PyObject *labeler;        /* labeler(op, dtype, arg) -> label of an inner node; raises for a node the core does not handle */
  PyObject *label_finder;   /* label_finder(op, dtype, arg) -> its label, or -1 if it has none (makes none) */
  PyObject *op_codes;       /* {Ops member: its code} */
  PyObject **key; int32_t *label, *code; int64_t cap, n;   /* (op, dtype, arg) by identity -> label and op code */
  int32_t n_leaves;
} SpaceLabels;

extern PyObject *str_src, *str_op, *str_dtype, *str_arg;   /* a UOp's attributes' names, interned by uops_init */
int uops_init(void);

/* The node of UOp u, made with every node below it that is new if `make`, else only found (-1 if it does not exist);
 * each node found or made is bound to its UOp. -2 on error. */
int32_t walk(Space *s, PyObject *u, int make);
/* Tables keyed by the identity of an (op, dtype, arg) triple, a label and an op code a key: the slot of key (where it
 * is, or the empty slot where it would go), and a key put (absent) in such a table, grown to stay at most half full. */
int64_t lab_probe(PyObject *const *keys, int64_t cap, PyObject *const key[3]);
int64_t lab_put(PyObject ***keys, int32_t **labels, int32_t **codes, int64_t *cap, int64_t *n, PyObject *const key[3],
                int32_t label, int32_t code);
int labels_init(SpaceLabels *l);
void labels_free(SpaceLabels *l);
PyObject *Space_index(Space *s, PyObject *u);
PyObject *Space_lookup(Space *s, PyObject *u);
PyObject *Space_materialize(Space *s, PyObject *args);

#endif
