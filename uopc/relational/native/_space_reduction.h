/* The reduction (reduction.py's IslandReduction): a state's persistent set, step for step as reduction.py chooses it,
 * followed instead of every step once reduce() turned it on (_space_reduction.c). */
#ifndef UOPC_SPACE_REDUCTION_H
#define UOPC_SPACE_REDUCTION_H
#include "_space_tables.h"


typedef struct Space Space;

typedef struct SpaceReduction {
  int on;                       /* reduce() was called: persistent sets are followed */
  uint8_t inert[256];           /* ops no rule's pattern can match: their nodes are inert */
  PyObject *inert_cb;           /* inert(node, label, sources) -> 1 / 0, for a node of another op (forms.py's Forms.inert); 2: 0,
                                   and so for every node of this label (a head some pattern matches whatever the sources) */
  int8_t *ninert;               /* per node: -1 not asked yet, else what inert_cb said */
  uint8_t *lab_never; int64_t cap_never;   /* per label: 1 if inert_cb said 2 for a node of it */
  U64Map keep_full;             /* node + 1 -> 1: graphs always expanded fully */
  int32_t *chosen; int64_t n_chosen, cap_chosen;   /* [count, redex, node, redex, node, ...] per reduced state */
  int32_t *nstamp; int32_t ngen;   /* per node: the walk that last saw it */
  int32_t *pstamp, *pstamp_val; int32_t pgen;   /* per redex, as the core's stamps (sized with them): a persistent set's */
} SpaceReduction;

/* The persistent set of state i (its root's map made, not empty) into `chosen`: 1 (st_out[i] set), 0 (explore every
 * step), -1 error, -2 bail. */
int persistent_set(Space *s, int32_t i);
void reduction_free(SpaceReduction *r);
PyObject *Space_reduce(Space *s, PyObject *args);

#endif
