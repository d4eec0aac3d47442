/* Grouped steps (step.py's GroupedSteps): a map past map_limit entries holds one (first key, graph) pair per graph its
 * steps make, then each pair's group (_space_groups.c). A group is a key, -(key + 1), or an index into these arrays:
 * the concatenation of two groups (step.py's _Cat; index -1), or under tree semantics a group's keys one source down,
 * at source `index` (step.py's _Under: `left` is the group, its keys read as At(index, key)). */
#ifndef UOPC_SPACE_GROUPS_H
#define UOPC_SPACE_GROUPS_H
#include "_space_tables.h"


typedef struct Space Space;

#define NO_GROUP INT32_MIN   /* make_grouped: no group yet (a group id is a cat's index, or -(key + 1) for one key) */

typedef struct StepGroups {
  int32_t *left, *right, *first, *index; int64_t *size; int64_t n, cap;
  U64Map wrapped;   /* tree semantics: (source index, key) -> the key one level up, made once (wrap_key) */
} StepGroups;

/* x's map, from its own `local` redexes (in the pool from `start`) and the sources at `live`, as its steps grouped by the
 * graph they make. 0, -1 on error, -2 to bail (more graphs than map_limit). */
int make_grouped(Space *s, int32_t x, int64_t start, int64_t local, const int32_t *live, int32_t n_live);
/* Each key of group g, in order, to `visit` (a visit's nonzero return stops the listing and is returned). 0, or -1. */
int group_keys(Space *s, int32_t g, int (*visit)(void *, int32_t), void *arg);
/* Every step out of node x's map, in order: visit(arg, key), with *h set to the graph the step makes first. */
int each_step(Space *s, int32_t x, int (*visit)(void *, int32_t), void *arg, int32_t *h);
void groups_free(StepGroups *g);

#endif
