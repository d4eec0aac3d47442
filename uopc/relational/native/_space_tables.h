/* The native core's building blocks, used by every unit of it (uopc/relational/native/_space*.c): arrays that grow,
 * a hash map from 64-bit keys to 32-bit values, and the hash mixers the tables index by. Defined in _space_tables.c;
 * what is hot (a lookup, a growth that is not needed) is inline here. */
#ifndef UOPC_SPACE_TABLES_H
#define UOPC_SPACE_TABLES_H
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>


/* A hash map from nonzero 64-bit keys to 32-bit values: open addressing, power-of-two capacity, at most half full. */
typedef struct { uint64_t *key; int32_t *val; int64_t cap, n; } U64Map;

/* A finalizer (murmur3's fmix64): every input bit reaches the low bits the tables index by. */
static inline uint64_t fmix(uint64_t h) {
  h ^= h >> 33; h *= 0xff51afd7ed558ccdULL; h ^= h >> 33; h *= 0xc4ceb9fe1a85ec53ULL; h ^= h >> 33;
  return h;
}

static inline uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdULL;
}

static inline int32_t map_get(const U64Map *m, uint64_t key, int32_t absent) {
  if (!m->cap) return absent;
  int64_t mask = m->cap - 1, j = (int64_t)(fmix(key) & (uint64_t)mask);
  for (; m->key[j]; j = (j + 1) & mask) if (m->key[j] == key) return m->val[j];
  return absent;
}

int map_put(U64Map *m, uint64_t key, int32_t val);   /* add a key that is not in the map: 0, or -1 (MemoryError) */
void map_free(U64Map *m);

/* An array `*p` of `*cap` elements of `elem` bytes, grown (doubling, from 64) to hold `need`: 0, or -1 with MemoryError. */
int grow_to(void **p, int64_t *cap, int64_t need, size_t elem);
static inline int grow(void **p, int64_t *cap, int64_t need, size_t elem) { return need <= *cap ? 0 : grow_to(p, cap, need, elem); }
/* grow, the new part filled with the byte `fill` (0: zeroed; 0xff: every int32 -1) */
static inline int grow_filled(void **p, int64_t *cap, int64_t need, size_t elem, int fill) {
  int64_t old = *cap;
  if (grow(p, cap, need, elem) < 0) return -1;
  if (*cap > old) memset((char *)*p + old * elem, fill, (size_t)(*cap - old) * elem);
  return 0;
}
int grow32(void **p, int32_t *cap, int64_t need, size_t elem);   /* the same with an int32 capacity (MemoryError past INT32_MAX) */
/* Parallel arrays sharing one capacity, each grown to hold `need` (a new key, group or fingerprint: the growth is rare). */
int grow_parallel_to(int64_t *cap, int64_t need, void **const arrays[], const size_t elems[], int n);
static inline int grow_parallel(int64_t *cap, int64_t need, void **const arrays[], const size_t elems[], int n) {
  return need <= *cap ? 0 : grow_parallel_to(cap, need, arrays, elems, n);
}
static inline int push_int(int32_t **a, int64_t *n, int64_t *cap, int32_t v) {   /* append v: 0, or -1 */
  if (grow((void **)a, cap, *n + 1, sizeof(int32_t)) < 0) return -1;
  (*a)[(*n)++] = v;
  return 0;
}
PyObject *int_list(const int32_t *v, int32_t n);                 /* a C array as a list of ints, or NULL */

#endif
