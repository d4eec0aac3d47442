/* The reduction: a state's persistent set (reduction.py's IslandReduction.persistent, step for step), followed instead
 * of all its steps once reduce() turned it on (_space_reduction.h). */
#include "_space.h"
#include <string.h>

/* Is the step (redex r, island h) of a group whose redexes are stamped `g` closed: h's map has no r and only
 * the group's redexes? 1, 0, or <0 (error, bail) from making h's map. */
static int closed(Space *s, int32_t r, int32_t h, int32_t g) {
  int rc = map_of(s, h);
  if (rc < 0) return rc;
  int32_t off = s->map_off[h], n = s->map_n[h];
  for (int32_t e = 0; e < n; e++) {
    int32_t r2 = s->maps[off + 2 * e];
    if (r2 == r || s->reduction.pstamp[r2] != g) return 0;
  }
  return 1;
}

/* Is node u inert (reduction.py: IslandReduction.forms.inert)? 1, 0, or -1 on error. Asked once per node of an op
 * some rule may match: Python reads the rules' patterns against what u's sources can become. */
static int node_inert(Space *s, int32_t u) {
  if (s->reduction.inert[s->op[u]]) return 1;
  if (s->reduction.ninert[u] >= 0) return s->reduction.ninert[u];
  int32_t label = s->label[u];
  if (!s->reduction.inert_cb || (label >= 0 && label < s->reduction.cap_never && s->reduction.lab_never[label])) return 0;
  PyObject *r = PyObject_CallFunction(s->reduction.inert_cb, "iii", (int)u, (int)label, (int)s->src_n[u]);   /* may make UOps */
  if (!r) return -1;
  long v = PyLong_AsLong(r);
  Py_DECREF(r);
  if (v == -1 && PyErr_Occurred()) return -1;
  if (v == 2 && label >= 0) {
    int64_t cap = s->reduction.cap_never;
    if (grow((void **)&s->reduction.lab_never, &s->reduction.cap_never, (int64_t)label + 1, sizeof(uint8_t)) < 0) return -1;
    memset(s->reduction.lab_never + cap, 0, (size_t)(s->reduction.cap_never - cap));
    s->reduction.lab_never[label] = 1;
  }
  s->reduction.ninert[u] = v == 1;
  return v == 1;
}

/* A persistent set's scratch: the islands, per island its group (the index of the last island merged into it), the
 * groups in reduction._groups' order, one group's redexes, and the walk's stack. */
typedef struct {
  int32_t *isl, *grp, *order, *list, *stack;
  int64_t n_isl, cap_isl, n_order, cap_order, n_list, cap_list, top, cap_stack;
} Islands;

static void islands_free(Islands *w) {
  PyMem_Free(w->isl); PyMem_Free(w->grp); PyMem_Free(w->order); PyMem_Free(w->list); PyMem_Free(w->stack);
}

/* The islands below `root`: non-inert nodes with a redex below, reached through inert nodes, depth first, left to
 * right. 0, or -1 on error. */
static int find_islands(Space *s, int32_t root, Islands *w) {
  int32_t seen = ++s->reduction.ngen;
  if (push_int(&w->stack, &w->top, &w->cap_stack, root) < 0) return -1;
  while (w->top) {
    int32_t u = w->stack[--w->top];
    if (s->reduction.nstamp[u] == seen) continue;
    s->reduction.nstamp[u] = seen;
    int in = node_inert(s, u);
    if (in < 0) return -1;
    if (in) {
      for (int32_t k = s->src_n[u] - 1; k >= 0; k--)
        if (push_int(&w->stack, &w->top, &w->cap_stack, s->srcs[s->src_off[u] + k]) < 0) return -1;
    } else if (s->map_n[u] > 0 && push_int(&w->isl, &w->n_isl, &w->cap_isl, u) < 0) return -1;
  }
  return 0;
}

/* Does node x's map have a redex stamped g? */
static int shares_redex(Space *s, int32_t x, int32_t g) {
  const int32_t *m = s->maps + s->map_off[x];
  for (int32_t e = 0; e < s->map_n[x]; e++) if (s->reduction.pstamp[m[2 * e]] == g) return 1;
  return 0;
}

/* Island k joins the groups of the islands before it: each earlier group that shares a redex with it (or with a group
 * merged into it so far) is merged into its group, k, in reduction._groups' order. 0, or -1 on error. */
static int merge_island(Space *s, Islands *w, int64_t k) {
  int32_t g = ++s->reduction.pgen, x = w->isl[k];
  stamp_pairs(s->reduction.pstamp, NULL, s->maps + s->map_off[x], s->map_n[x], g);
  int64_t kept = 0;
  for (int64_t q = 0; q < w->n_order; q++) {   /* each earlier group, against the keys merged so far */
    int32_t gid = w->order[q], hit = 0;
    for (int64_t j = 0; j < k && !hit; j++) if (w->grp[j] == gid) hit = shares_redex(s, w->isl[j], g);
    if (!hit) { w->order[kept++] = gid; continue; }
    for (int64_t j = 0; j < k; j++) if (w->grp[j] == gid) {
      w->grp[j] = (int32_t)k;
      stamp_pairs(s->reduction.pstamp, NULL, s->maps + s->map_off[w->isl[j]], s->map_n[w->isl[j]], g);
    }
  }
  w->n_order = kept;
  w->grp[k] = (int32_t)k;
  return push_int(&w->order, &w->n_order, &w->cap_order, (int32_t)k);
}

/* The groups: islands that share a redex, merged in reduction._groups' order. 0, or -1 on error. */
static int group_islands(Space *s, Islands *w) {
  if (!(w->grp = PyMem_Malloc((size_t)w->n_isl * sizeof(int32_t)))) { PyErr_NoMemory(); return -1; }
  for (int64_t k = 0; k < w->n_isl; k++) if (merge_island(s, w, k) < 0) return -1;
  return 0;
}

/* Group gid's redexes into w->list, in order, each once (stamped g). 0, or -1 on error. */
static int group_redexes(Space *s, Islands *w, int32_t gid, int32_t g) {
  w->n_list = 0;
  for (int64_t j = 0; j < w->n_isl; j++) if (w->grp[j] == gid) {
    int32_t x = w->isl[j];
    for (int32_t e = 0; e < s->map_n[x]; e++) {
      int32_t r = s->maps[s->map_off[x] + 2 * e];
      if (s->reduction.pstamp[r] != g) { s->reduction.pstamp[r] = g; if (push_int(&w->list, &w->n_list, &w->cap_list, r) < 0) return -1; }
    }
  }
  return 0;
}

/* Is every step of group gid's islands closed (its redexes stamped g)? 1, 0, or <0 (error, bail). */
static int group_closed(Space *s, const Islands *w, int32_t gid, int32_t g) {
  for (int64_t j = 0; j < w->n_isl; j++) if (w->grp[j] == gid) {
    int32_t x = w->isl[j];
    for (int32_t e = 0; e < s->map_n[x]; e++) {
      int32_t r = s->maps[s->map_off[x] + 2 * e], h = s->maps[s->map_off[x] + 2 * e + 1];
      int c = closed(s, r, h, g);   /* may make maps (and call Python): offsets are read again each time */
      if (c <= 0) return c;
    }
  }
  return 1;
}

#define PROVISO_FAILS 2   /* choose_group: a step leads to an expanded state */

/* A closed group's redexes (w->list) as state i's persistent set, where every one is a step of the whole graph too and
 * no step leads to an expanded state (the cycle proviso): 1 (st_out[i] set), 0 (not all steps of the graph: as
 * reduction.py, the next closed group may do), PROVISO_FAILS (every step is explored), -1 on error. */
static int choose_group(Space *s, int32_t i, const Islands *w) {
  SpaceReduction *r = &s->reduction;
  int32_t root = s->st_root[i], g2 = ++r->pgen;
  stamp_pairs(r->pstamp, r->pstamp_val, s->maps + s->map_off[root], s->map_n[root], g2);
  for (int64_t e = 0; e < w->n_list; e++) if (r->pstamp[w->list[e]] != g2) return 0;
  for (int64_t e = 0; e < w->n_list; e++) {
    int32_t t = s->state_of[r->pstamp_val[w->list[e]]];
    if (t >= 0 && s->st_done[t]) return PROVISO_FAILS;
  }
  int64_t at = r->n_chosen;
  if (at > INT32_MAX - 1 - 2 * w->n_list) { PyErr_SetString(PyExc_MemoryError, "native explorer: too many reduced states"); return -1; }
  if (push_int(&r->chosen, &r->n_chosen, &r->cap_chosen, (int32_t)w->n_list) < 0) return -1;
  for (int64_t e = 0; e < w->n_list; e++)
    if (push_int(&r->chosen, &r->n_chosen, &r->cap_chosen, w->list[e]) < 0 ||
        push_int(&r->chosen, &r->n_chosen, &r->cap_chosen, r->pstamp_val[w->list[e]]) < 0) return -1;
  s->st_out[i] = (int32_t)at;
  return 1;
}

/* The first group, in order, that is closed and can be chosen: 1 (st_out[i] set), 0 (every step), <0 (error, bail). */
static int choose_among(Space *s, int32_t i, Islands *w) {
  for (int64_t q = 0; q < w->n_order; q++) {
    int32_t gid = w->order[q], g = ++s->reduction.pgen;
    if (group_redexes(s, w, gid, g) < 0) return -1;
    int c = group_closed(s, w, gid, g);
    if (c < 0) return c;
    if (!c) continue;
    if ((c = choose_group(s, i, w)) != 0) return c == PROVISO_FAILS ? 0 : c;
  }
  return 0;
}

/* The persistent set of state i (its root's map made, not empty) into `chosen`: 1 (st_out[i] set), 0 (explore
 * every step), -1 error, -2 bail. */
static int persistent(Space *s, int32_t i) {
  int32_t root = s->st_root[i];
  if (map_get(&s->reduction.keep_full, (uint64_t)root + 1, 0)) return 0;
  int root_inert = node_inert(s, root);
  if (root_inert <= 0) return root_inert;
  Islands w = {0};
  int result = find_islands(s, root, &w);
  if (result == 0 && w.n_isl >= 2) result = group_islands(s, &w);
  if (result == 0 && w.n_order >= 2) result = choose_among(s, i, &w);
  islands_free(&w);
  return result;
}

#define MAX_POSITIONS 4096   /* tree semantics: positions looked at per state for its islands (reduction.py's _MAX_POSITIONS) */

/* Tree semantics (reduction.py's _persistent_tree): the steps inside the first island by position (depth first, left
 * to right, through inert nodes), where the root is inert and there are two islands or more. 1 (st_out[i] set), 0
 * (every step), -1 error. An island is a position: hash consing cannot merge two, and steps at disjoint ones commute. */
static int persistent_tree(Space *s, int32_t i) {
  int32_t root = s->st_root[i];
  if (map_get(&s->reduction.keep_full, (uint64_t)root + 1, 0)) return 0;
  int root_inert = node_inert(s, root);
  if (root_inert <= 0) return root_inert;
  int32_t *stack = NULL, *up_index = NULL, *up_parent = NULL, *first = NULL;   /* (node, position) pairs; positions */
  int64_t top = 0, cap = 0, n_up = 0, cap_up = 0, cap_up2 = 0, n_first = 0, cap_first = 0;
  int32_t islands = 0, first_at = -1, walked = 0;
  int result = 0;
  if (grow((void **)&stack, &cap, 64, sizeof(int32_t)) < 0) { result = -1; goto done; }
  stack[top++] = root; stack[top++] = -1;
  for (int32_t it = 0; it < MAX_POSITIONS; it++) {   /* a DAG shared through inert nodes can have too many positions */
    if (!top) { walked = 1; break; }
    int32_t at = stack[--top], u = stack[--top], in = node_inert(s, u);
    if (in < 0) { result = -1; goto done; }
    if (!in) {
      if (s->map_n[u] > 0 && islands++ == 0) first_at = at;
      continue;
    }
    int32_t n = s->src_n[u];
    if (grow((void **)&stack, &cap, top + 2 * (int64_t)n, sizeof(int32_t)) < 0 || grow((void **)&up_index, &cap_up, n_up + n, sizeof(int32_t)) < 0 ||
        grow((void **)&up_parent, &cap_up2, n_up + n, sizeof(int32_t)) < 0) { result = -1; goto done; }
    for (int32_t k = n - 1; k >= 0; k--) {   /* the first source on top */
      up_index[n_up] = k; up_parent[n_up] = at;
      stack[top++] = s->srcs[s->src_off[u] + k]; stack[top++] = (int32_t)n_up++;
    }
  }
  if (!walked || islands < 2) goto done;
  for (int32_t p = first_at; p >= 0; p = up_parent[p])   /* the first island's position, from the root down (reversed) */
    if (push_int(&first, &n_first, &cap_first, up_index[p]) < 0) { result = -1; goto done; }
  int32_t off = s->map_off[root], m = s->map_n[root];
  int64_t at = s->reduction.n_chosen;
  if (push_int(&s->reduction.chosen, &s->reduction.n_chosen, &s->reduction.cap_chosen, 0) < 0) { result = -1; goto done; }
  for (int32_t e = 0; e < m; e++) {   /* the root's steps at a position inside it, in order */
    int32_t k = s->maps[off + 2 * e], inside = 1;
    for (int64_t d = n_first - 1; d >= 0 && inside; d--) {
      inside = s->key_idx[k] == first[d];
      k = s->key_inner[k];
    }
    if (!inside) continue;
    int32_t t = s->state_of[s->maps[off + 2 * e + 1]];
    if (t >= 0 && s->st_done[t]) { s->reduction.n_chosen = at; goto done; }   /* the cycle proviso fails: every step is explored */
    if (push_int(&s->reduction.chosen, &s->reduction.n_chosen, &s->reduction.cap_chosen, s->maps[off + 2 * e]) < 0 ||
        push_int(&s->reduction.chosen, &s->reduction.n_chosen, &s->reduction.cap_chosen, s->maps[off + 2 * e + 1]) < 0) { result = -1; goto done; }
  }
  if (s->reduction.n_chosen > INT32_MAX) { PyErr_SetString(PyExc_MemoryError, "native explorer: too many reduced states"); result = -1; goto done; }
  if (s->reduction.n_chosen == at + 1) { s->reduction.n_chosen = at; goto done; }   /* (each island's steps are among the root's: not reached) */
  s->reduction.chosen[at] = (int32_t)((s->reduction.n_chosen - at - 1) / 2);
  s->st_out[i] = (int32_t)at;
  result = 1;
done:
  PyMem_Free(stack); PyMem_Free(up_index); PyMem_Free(up_parent); PyMem_Free(first);
  return result;
}

/* reduce(inert ops, keep_full nodes, inert): explore persistent sets from now on (before the search starts); a node
 * of an op not in `inert ops` is inert if inert(node, label, its number of sources) says so. */
PyObject *Space_reduce(Space *s, PyObject *args) {
  PyObject *ops, *keep, *cb;
  if (!PyArg_ParseTuple(args, "O!O!O", &PyTuple_Type, &ops, &PyTuple_Type, &keep, &cb)) return NULL;
  if (s->n_states) { PyErr_SetString(PyExc_RuntimeError, "the search has started already"); return NULL; }
  memset(s->reduction.inert, 0, sizeof(s->reduction.inert));
  for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(ops); k++) {
    long op = PyLong_AsLong(PyTuple_GET_ITEM(ops, k));
    if (op < 0 || op > 255) { if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "an op code is a byte"); return NULL; }
    s->reduction.inert[op] = 1;
  }
  for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(keep); k++) {
    long id = PyLong_AsLong(PyTuple_GET_ITEM(keep, k));
    if ((id == -1 && PyErr_Occurred()) || check_node(s, id) < 0) return NULL;
    if (!map_get(&s->reduction.keep_full, (uint64_t)id + 1, 0) && map_put(&s->reduction.keep_full, (uint64_t)id + 1, 1) < 0) return NULL;
  }
  Py_INCREF(cb);
  Py_XSETREF(s->reduction.inert_cb, cb);
  /* the per-node arrays only a reduction reads, for the nodes so far (intern makes them for new ones from now on) */
  int64_t cap = s->cap_nodes ? s->cap_nodes : 1;
  PyMem_Free(s->reduction.nstamp); PyMem_Free(s->reduction.ninert);
  s->reduction.nstamp = PyMem_Calloc((size_t)cap, sizeof(int32_t));
  s->reduction.ninert = PyMem_Malloc((size_t)cap);
  if (!s->reduction.nstamp || !s->reduction.ninert) { PyErr_NoMemory(); return NULL; }
  memset(s->reduction.ninert, -1, (size_t)cap);
  s->reduction.on = 1;
  Py_RETURN_NONE;
}

int persistent_set(Space *s, int32_t i) { return s->tree ? persistent_tree(s, i) : persistent(s, i); }

void reduction_free(SpaceReduction *r) {
  void *arrays[] = {r->ninert, r->lab_never, r->chosen, r->nstamp, r->pstamp, r->pstamp_val};
  for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++) PyMem_Free(arrays[i]);
  map_free(&r->keep_full);
}
