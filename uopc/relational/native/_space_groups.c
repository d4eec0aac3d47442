/* Grouped steps: a map past map_limit entries, as step.py's Stepper._make_grouped makes it (_space_groups.h). */
#include "_space.h"
#include <string.h>

/* A new group node: (left, right, first key, source index, size); its id, or NO_GROUP on error. */
static int32_t group_node(Space *s, int32_t left, int32_t right, int32_t first, int32_t index, int64_t size) {
  if (s->groups.n >= INT32_MAX) { PyErr_SetString(PyExc_MemoryError, "native explorer: too many step groups"); return NO_GROUP; }
  void **const arrays[] = {(void **)&s->groups.left, (void **)&s->groups.right, (void **)&s->groups.first, (void **)&s->groups.index, (void **)&s->groups.size};
  const size_t elems[] = {sizeof(int32_t), sizeof(int32_t), sizeof(int32_t), sizeof(int32_t), sizeof(int64_t)};
  if (grow_parallel(&s->groups.cap, s->groups.n + 1, arrays, elems, 5) < 0) return NO_GROUP;
  int32_t id = (int32_t)s->groups.n++;
  s->groups.left[id] = left; s->groups.right[id] = right; s->groups.first[id] = first; s->groups.index[id] = index; s->groups.size[id] = size;
  return id;
}

/* The group `g` followed by `more` (step.py's _join): `more` where g is NO_GROUP; NO_GROUP on error. */
static int32_t group_join(Space *s, int32_t g, int32_t more) {
  if (g == NO_GROUP) return more;
  return group_node(s, g, more, group_first(s, g), -1, group_size(s, g) + group_size(s, more));
}

/* Tree semantics: the key `k` at source `index`, one level up (At(index, k)): made once. -1 on error. */
static int32_t wrap_key(Space *s, int32_t index, int32_t k) {
  uint64_t at = (((uint64_t)(uint32_t)index << 32) | (uint32_t)k) + 1;
  int32_t w = map_get(&s->groups.wrapped, at, -1);
  if (w >= 0) return w;
  if ((w = new_key(s, index, k)) < 0 || map_put(&s->groups.wrapped, at, w) < 0) return -1;
  return w;
}

/* Tree semantics: group g of a node's source `index`, seen from the node (step.py's _under): a key becomes its At, a
 * larger group is wrapped once (its keys read one level up as they are listed). NO_GROUP on error. */
static int32_t group_under(Space *s, int32_t index, int32_t g) {
  if (g < 0) { int32_t k = wrap_key(s, index, -g - 1); return k < 0 ? NO_GROUP : -k - 1; }
  int32_t first = wrap_key(s, index, s->groups.first[g]);
  return first < 0 ? NO_GROUP : group_node(s, g, NO_GROUP, first, index, s->groups.size[g]);
}

/* Each key of group g, in order, to `visit` (iterative: a chain's groups nest as deep as it is long). Under tree
 * semantics a key below _Under nodes is read one level up per node, innermost first (step.py's _keys). 0, or -1. */
int group_keys(Space *s, int32_t g, int (*visit)(void *, int32_t), void *arg) {
  int32_t *stack = NULL, *up_index = NULL, *up_parent = NULL;   /* (group, path) pairs; the paths' nodes (index, outer node) */
  int64_t top = 0, cap = 0, n_up = 0, cap_up = 0, cap_up2 = 0;
  int rc = grow((void **)&stack, &cap, 64, sizeof(int32_t));
  if (rc == 0) { stack[top++] = g; stack[top++] = -1; }
  while (top && rc == 0) {
    int32_t path = stack[--top], h = stack[--top];
    if (h < 0) {
      int32_t k = -h - 1;
      for (int32_t p = path; p >= 0 && k >= 0; p = up_parent[p]) k = wrap_key(s, up_index[p], k);
      rc = k < 0 ? -1 : visit(arg, k);
    } else if (s->groups.index[h] >= 0) {   /* an _Under: its group, one more level on the path */
      if (grow((void **)&up_index, &cap_up, n_up + 1, sizeof(int32_t)) < 0 || grow((void **)&up_parent, &cap_up2, n_up + 1, sizeof(int32_t)) < 0
          || grow((void **)&stack, &cap, top + 2, sizeof(int32_t)) < 0) { rc = -1; break; }
      up_index[n_up] = s->groups.index[h]; up_parent[n_up] = path;
      stack[top++] = s->groups.left[h]; stack[top++] = (int32_t)n_up++;
    } else {
      if (grow((void **)&stack, &cap, top + 4, sizeof(int32_t)) < 0) { rc = -1; break; }
      stack[top++] = s->groups.right[h]; stack[top++] = path; stack[top++] = s->groups.left[h]; stack[top++] = path;
    }
  }
  PyMem_Free(stack); PyMem_Free(up_index); PyMem_Free(up_parent);
  return rc;
}

/* The groups being made: per graph made, its node and group, in the order the steps first make it; `at` finds a node's. */
typedef struct { int32_t *node, *group; int64_t n, cap; U64Map at; } Groups;

static int groups_add(Space *s, Groups *o, int32_t node, int32_t g) {
  int32_t k = map_get(&o->at, (uint64_t)node + 1, -1);
  if (k >= 0) return (o->group[k] = group_join(s, o->group[k], g)) == NO_GROUP ? -1 : 0;
  void **const arrays[] = {(void **)&o->node, (void **)&o->group};
  const size_t elems[] = {sizeof(int32_t), sizeof(int32_t)};
  if (grow_parallel(&o->cap, o->n + 1, arrays, elems, 2) < 0) return -1;
  o->node[o->n] = node; o->group[o->n] = g;
  return map_put(&o->at, (uint64_t)node + 1, (int32_t)o->n++);
}

/* x's map, from its own `local` redexes (in the pool from `start`) and the sources at `live` (n_live of them: under graph
 * semantics their maps small and sharing no redex, or one grouped; under tree semantics every source with steps), as its
 * steps grouped by the graph they make: each made once, whatever number of keys make it. 0, -1 on error, -2 to bail (more
 * graphs than map_limit: step.py enumerates them lazily). */
int make_grouped(Space *s, int32_t x, int64_t start, int64_t local, const int32_t *live, int32_t n_live) {
  Groups o = {0};
  int32_t n = s->src_n[x], buf_small[8], *buf = buf_small;
  int rc = 0;
  if (n > 8 && !(buf = PyMem_Malloc((size_t)n * sizeof(int32_t)))) { PyErr_NoMemory(); return -1; }
  for (int64_t e = 0; e < local && rc == 0; e++) rc = groups_add(s, &o, s->maps[start + 2 * e + 1], -s->maps[start + 2 * e] - 1);
  for (int32_t q = 0; q < n_live && rc == 0; q++) {
    int32_t j = live[q], sj = s->srcs[s->src_off[x] + j], from_groups = grouped(s, sj);
    for (int32_t e = 0; e < s->map_n[sj] && rc == 0; e++) {   /* offsets, not pointers: interning may move every array */
      int32_t c = s->maps[s->map_off[sj] + 2 * e + 1], g = from_groups ? group_at(s, sj, e) : -s->maps[s->map_off[sj] + 2 * e] - 1;
      if (s->tree && (g = group_under(s, j, g)) == NO_GROUP) { rc = -1; break; }
      memcpy(buf, s->srcs + s->src_off[x], (size_t)n * sizeof(int32_t));
      buf[j] = c;
      int32_t h = intern(s, s->label[x], s->op[x], buf, n, 1);
      rc = h < 0 || template_inherit(s, h, x) < 0 ? -1 : groups_add(s, &o, h, g);
    }
  }
  if (rc == 0 && o.n > s->map_limit) rc = -2;
  if (rc == 0 && start + 3 * o.n > INT32_MAX) { PyErr_SetString(PyExc_MemoryError, "native explorer: step maps past 2^31 entries"); rc = -1; }
  if (rc == 0 && grow((void **)&s->maps, &s->cap_maps, start + 3 * o.n, sizeof(int32_t)) < 0) rc = -1;
  if (rc == 0) {   /* the pairs over the own redexes (read above), then the groups */
    for (int64_t k = 0; k < o.n; k++) {
      s->maps[start + 2 * k] = group_first(s, o.group[k]); s->maps[start + 2 * k + 1] = o.node[k];
      s->maps[start + 2 * o.n + k] = o.group[k];
    }
    s->n_maps = start + 3 * o.n;
    s->map_off[x] = (int32_t)start; s->map_n[x] = (int32_t)o.n;
    s->nflags[x] |= NF_GROUPED;
  }
  if (buf != buf_small) PyMem_Free(buf);
  PyMem_Free(o.node); PyMem_Free(o.group); map_free(&o.at);
  return rc;
}

/* Every step out of node x's map, in order (its entries, or every key of its grouped steps group by group, as out()
 * lists a state's): visit(arg, key), with *h set to the graph the step makes first. 0, or what a visit gave (< 0). */
int each_step(Space *s, int32_t x, int (*visit)(void *, int32_t), void *arg, int32_t *h) {
  int is_grouped = grouped(s, x);
  for (int32_t e = 0; e < s->map_n[x]; e++) {   /* offsets read again each entry: group_keys may make keys */
    *h = s->maps[s->map_off[x] + 2 * (int64_t)e + 1];
    int rc = is_grouped ? group_keys(s, group_at(s, x, e), visit, arg) : visit(arg, s->maps[s->map_off[x] + 2 * (int64_t)e]);
    if (rc < 0) return rc;
  }
  return 0;
}

void groups_free(StepGroups *g) {
  PyMem_Free(g->left); PyMem_Free(g->right); PyMem_Free(g->first); PyMem_Free(g->index); PyMem_Free(g->size);
  map_free(&g->wrapped);
}
