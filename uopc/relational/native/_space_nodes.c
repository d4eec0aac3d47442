/* Nodes and hash consing: a node is a label and its sources' ids, in flat arrays (Space's nodes), found by one
 * open-addressing table of ids (Slot). intern() finds or makes a node; every unit makes its nodes through it. */
#include "_space.h"
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

#define EMPTY_SLOT (-1)

int check_node(Space *s, long id) {
  if (id < 0 || id >= s->n_nodes) { PyErr_SetString(PyExc_IndexError, "no such node"); return -1; }
  return 0;
}

int32_t node_arg(Space *s, PyObject *arg) {
  long id = PyLong_AsLong(arg);
  if ((id == -1 && PyErr_Occurred()) || check_node(s, id) < 0) return -1;
  return (int32_t)id;
}

uint64_t node_hash(int32_t label, const int32_t *src, int32_t n) {
  uint64_t h = mix(0x2545f4914f6cdd1dULL, (uint64_t)(uint32_t)label);
  for (int32_t i = 0; i < n; i++) h = mix(h, (uint64_t)(uint32_t)src[i]);
  return fmix(h);
}

/* The slot of node `id` (label, src): its key held in the slot (Slot). */
static inline Slot slot_of(int32_t id, int32_t label, const int32_t *src, int32_t n) {
  return (Slot){id, label, n > 0 ? src[0] : -1, n > 2 ? SLOT_MORE : n > 1 ? src[1] : -1};
}

/* Slot t holds the node (key's label, src): the key compared in the slot, and past two sources on the node. */
static inline int slot_holds(const Space *s, const Slot *t, const Slot *key, const int32_t *src, int32_t n) {
  if (t->label != key->label || t->a != key->a || t->b != key->b) return 0;
  if (key->b != SLOT_MORE) return 1;
  if (s->src_n[t->id] != n) return 0;
  const int32_t *have = s->srcs + s->src_off[t->id];
  for (int32_t i = 1; i < n; i++) if (have[i] != src[i]) return 0;
  return 1;
}

/* The hash-consing table's memory. It is read at random, one slot a new node: past a few megabytes, 4 KiB pages cost
 * a TLB miss almost every lookup (and a virtual machine's two-level page walk), so on Linux a big table asks for huge
 * pages. Allocated and freed here only (not PyMem): huge pages want 2 MiB alignment. */
#define HUGE_PAGE (2 * 1024 * 1024)
static Slot *table_alloc(int64_t cap) {
  size_t bytes = (size_t)cap * sizeof(Slot);
  void *t = NULL;
  if (bytes < HUGE_PAGE) return malloc(bytes);
  if (posix_memalign(&t, HUGE_PAGE, bytes) != 0) return NULL;
#ifdef MADV_HUGEPAGE
  madvise(t, bytes, MADV_HUGEPAGE);   /* advice only: without huge pages it works the same, slower */
#endif
  return t;
}

#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH_WRITE(p) __builtin_prefetch((p), 1)
#else
#define PREFETCH_WRITE(p) ((void)(p))
#endif
#define INSERT_AHEAD 8   /* slots being loaded at once while nodes are put in the table: misses overlap */

/* The hash of the node in slot t: its key is in the slot, but for a node of more than two sources. */
static inline uint64_t slot_hash(const Space *s, const Slot *t) {
  if (t->b == SLOT_MORE) return node_hash(t->label, s->srcs + s->src_off[t->id], s->src_n[t->id]);
  int32_t src[2] = {t->a, t->b};
  return node_hash(t->label, src, t->a < 0 ? 0 : t->b < 0 ? 1 : 2);
}

/* Put slot `v`, whose hash is h, in table t (`shift`: its slot_home), at the first free slot from its home on. */
static inline void table_put(Slot *t, int64_t cap, int shift, uint64_t h, Slot v) {
  int64_t j = (int64_t)(h >> shift);
  while (t[j].id != EMPTY_SLOT) j = (j + 1) & (cap - 1);
  t[j] = v;
}

/* Put nodes [from, to) into the table, none of them there yet. Their slots are random: each is a cache miss, so the
 * slot of node id + INSERT_AHEAD is prefetched while node id goes in, and the misses overlap. */
static void table_insert(Space *s, int32_t from, int32_t to) {
  uint64_t ring[INSERT_AHEAD];
  for (int32_t id = from; id < to + INSERT_AHEAD; id++) {
    int32_t k = id - INSERT_AHEAD;
    if (k >= from)   /* node k's hash was computed (and its slot prefetched) INSERT_AHEAD nodes ago */
      table_put(s->table, s->cap_table, s->table_shift, ring[k % INSERT_AHEAD], slot_of(k, s->label[k], s->srcs + s->src_off[k], s->src_n[k]));
    if (id < to) {
      uint64_t h = ring[id % INSERT_AHEAD] = node_hash(s->label[id], s->srcs + s->src_off[id], s->src_n[id]);
      PREFETCH_WRITE(s->table + slot_home(s, h));
    }
  }
}

/* The nodes made without a place in the table (intern) go in now, together, before a lookup that could find one. */
static void flush_pending(Space *s) {
  if (s->pending_from >= s->n_nodes) return;
  table_insert(s, s->pending_from, s->n_nodes);
  for (int64_t k = s->src_off[s->pending_from]; k < s->n_srcs; k++) s->nflags[s->srcs[k]] &= (uint8_t)~NF_PENDING;
  s->pending_from = s->n_nodes;
}

/* The table at a new capacity (a power of two, above 4/3 of the nodes: a lookup finds its node within a probe or two
 * of 16-byte slots, most in one cache line, and the core holds 739 bytes a state at 907,200 states of the ADD-bubble, not
 * 813), with every node in it (those pending too).
 * The old table is read in order, and, its slots being in their hashes' order (slot_home), the new one is written
 * nearly in order too: no cache miss a node, as putting them in by id had (7% of the ADD-bubble's time). */
int rehash(Space *s, int64_t cap) {
  Slot *t = table_alloc(cap);
  if (!t) { PyErr_NoMemory(); return -1; }
  int shift = 64;
  for (int64_t c = cap; c > 1; c >>= 1) shift--;
  for (int64_t i = 0; i < cap; i++) t[i].id = EMPTY_SLOT;
  for (int64_t i = 0; i < s->cap_table; i++)
    if (s->table[i].id != EMPTY_SLOT) table_put(t, cap, shift, slot_hash(s, s->table + i), s->table[i]);
  free(s->table);
  s->table = t; s->cap_table = cap; s->table_shift = shift;
  flush_pending(s);
  return 0;
}

/* The node (label, src): found, or made if `make`; -1 if absent (not made) or on error (exception set).
 * A node with a source that no node uses yet cannot exist (a node is made after its sources, and marks them used), so
 * such a node is made without a look at the table: its lookup would be a cache miss, and nearly every node a rewrite
 * makes is such a node (its rewritten source is new too). A node made goes into the table later, with others (pending,
 * up to PENDING_MAX: their slots prefetched eight ahead, the misses overlap), and marks its sources NF_PENDING until
 * then: a lookup whose sources are not all so marked cannot be for one of them, and does not wait for them. */
int32_t intern(Space *s, int32_t label, uint8_t op, const int32_t *src, int32_t n, int make) {
  for (int32_t i = 0; i < n; i++)
    if (!(s->nflags[src[i]] & NF_USED)) return make ? intern_hashed(s, label, op, src, n, make, 0) : -1;   /* fresh: no hash */
  return intern_hashed(s, label, op, src, n, make, node_hash(label, src, n));
}

/* intern() with h = node_hash(label, src, n) (unread for a fresh node). */
int32_t intern_hashed(Space *s, int32_t label, uint8_t op, const int32_t *src, int32_t n, int make, uint64_t h) {
  int fresh = 0, pending = 1;
  for (int32_t i = 0; i < n && !fresh; i++) { fresh = !(s->nflags[src[i]] & NF_USED); pending &= (s->nflags[src[i]] & NF_PENDING) != 0; }
  if (fresh && !make) return -1;
  if (!fresh) {
    if (pending || s->n_nodes - s->pending_from >= PENDING_MAX) flush_pending(s);
    Slot key = slot_of(0, label, src, n);
    int64_t mask = s->cap_table - 1;
    for (int64_t j = slot_home(s, h); s->table[j].id != EMPTY_SLOT; j = (j + 1) & mask)
      if (slot_holds(s, s->table + j, &key, src, n)) return s->table[j].id;
    if (!make) return -1;
  }
  int32_t id = s->n_nodes;
  if (id + 1 > s->cap_nodes) {
    int32_t c = s->cap_nodes, c2;
#define GROW_NODE(f, t) c2 = c; if (grow32((void **)&s->f, &c2, id + 1, sizeof(t)) < 0) return -1;
    GROW_NODE(label, int32_t) GROW_NODE(src_off, int32_t) GROW_NODE(src_n, int32_t) GROW_NODE(map_off, int32_t)
    GROW_NODE(map_n, int32_t) GROW_NODE(state_of, int32_t) GROW_NODE(op, uint8_t) GROW_NODE(nflags, uint8_t) GROW_NODE(obj, PyObject *)
    if (s->reduction.on) { GROW_NODE(reduction.nstamp, int32_t) GROW_NODE(reduction.ninert, int8_t) }   /* the reduction's, made by reduce() */
#undef GROW_NODE
    s->cap_nodes = c2;
  }
  if (s->n_srcs + n > s->cap_srcs) {   /* `src` may point into s->srcs: copy it before growing that array */
    int32_t small[8], *copy = small;
    if (n > 8 && !(copy = PyMem_Malloc((size_t)n * sizeof(int32_t)))) { PyErr_NoMemory(); return -1; }
    memcpy(copy, src, (size_t)n * sizeof(int32_t));
    int rc = grow((void **)&s->srcs, &s->cap_srcs, s->n_srcs + n, sizeof(int32_t));
    if (rc == 0) memcpy(s->srcs + s->n_srcs, copy, (size_t)n * sizeof(int32_t));
    if (copy != small) PyMem_Free(copy);
    if (rc < 0) return -1;
  } else for (int32_t i = 0; i < n; i++) s->srcs[s->n_srcs + i] = src[i];   /* (a loop: a node has few sources, and memcpy was a call) */
  s->label[id] = label; s->op[id] = op; s->nflags[id] = 0;
  s->src_off[id] = (int32_t)s->n_srcs; s->src_n[id] = n;
  for (int32_t i = 0; i < n; i++) s->nflags[s->srcs[s->n_srcs + i]] |= NF_USED | NF_PENDING;
  s->n_srcs += n;
  s->map_off[id] = NO_MAP; s->map_n[id] = 0; s->state_of[id] = -1; s->obj[id] = NULL;
  if (s->reduction.on) { s->reduction.nstamp[id] = 0; s->reduction.ninert[id] = -1; }
  s->n_nodes = id + 1;
  if ((int64_t)s->n_nodes * 4 > s->cap_table * 3 && rehash(s, s->cap_table * 2) < 0) return -1;   /* at most 3/4 full */
  return id;
}
