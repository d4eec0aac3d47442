/* BLAKE2b (RFC 7693), unkeyed, incremental: the digest space/fingerprint.py takes of a node (hashlib.blake2b with
 * digest_size 16). Here so that _space.c fingerprints its own nodes without a call into hashlib per node
 * (Space.fingerprint, docs/native.md). Checked against hashlib by tests/test_relational_native_successors.py. */
#ifndef UOPC_BLAKE2B_H
#define UOPC_BLAKE2B_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct { uint64_t h[8], t; uint8_t buf[128]; size_t n, outlen; } Blake2b;

static const uint64_t b2_iv[8] = {
  0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL, 0xa54ff53a5f1d36f1ULL,
  0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL, 0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL};

static const uint8_t b2_sigma[12][16] = {
  {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
  {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4}, {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
  {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13}, {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
  {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11}, {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
  {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5}, {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
  {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3}};

static inline uint64_t b2_rotr(uint64_t x, int n) { return (x >> n) | (x << (64 - n)); }

static inline uint64_t b2_load(const uint8_t *p) {   /* little endian on any host */
  uint64_t v = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  memcpy(&v, p, 8);   /* (one load, not eight) */
#else
  for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
#endif
  return v;
}

#define B2_G(a, b, c, d, x, y) do { \
  v[a] += v[b] + (x); v[d] = b2_rotr(v[d] ^ v[a], 32); v[c] += v[d]; v[b] = b2_rotr(v[b] ^ v[c], 24); \
  v[a] += v[b] + (y); v[d] = b2_rotr(v[d] ^ v[a], 16); v[c] += v[d]; v[b] = b2_rotr(v[b] ^ v[c], 63); } while (0)

static void b2_compress(Blake2b *c, int last) {
  uint64_t v[16], m[16];
  for (int i = 0; i < 8; i++) { v[i] = c->h[i]; v[i + 8] = b2_iv[i]; }
  v[12] ^= c->t;   /* the byte counter's high word stays 0: a node's bytes are far below 2^64 */
  if (last) v[14] = ~v[14];
  for (int i = 0; i < 16; i++) m[i] = b2_load(c->buf + 8 * i);
  /* unrolled: each round's message indices become constants, and m stays out of a table lookup (1.5x a digest) */
#pragma GCC unroll 12
  for (int r = 0; r < 12; r++) {
    const uint8_t *s = b2_sigma[r];
    B2_G(0, 4, 8, 12, m[s[0]], m[s[1]]); B2_G(1, 5, 9, 13, m[s[2]], m[s[3]]);
    B2_G(2, 6, 10, 14, m[s[4]], m[s[5]]); B2_G(3, 7, 11, 15, m[s[6]], m[s[7]]);
    B2_G(0, 5, 10, 15, m[s[8]], m[s[9]]); B2_G(1, 6, 11, 12, m[s[10]], m[s[11]]);
    B2_G(2, 7, 8, 13, m[s[12]], m[s[13]]); B2_G(3, 4, 9, 14, m[s[14]], m[s[15]]);
  }
  for (int i = 0; i < 8; i++) c->h[i] ^= v[i] ^ v[i + 8];
}
#undef B2_G

/* An unkeyed digest of `outlen` bytes (1 to 64). */
static void b2_init(Blake2b *c, size_t outlen) {
  for (int i = 0; i < 8; i++) c->h[i] = b2_iv[i];
  c->h[0] ^= 0x01010000ULL ^ (uint64_t)outlen;   /* the parameter block: depth 1, fanout 1, no key */
  c->t = 0; c->n = 0; c->outlen = outlen;
}

static void b2_update(Blake2b *c, const uint8_t *p, size_t len) {
  while (len) {
    if (c->n == 128) { c->t += 128; b2_compress(c, 0); c->n = 0; }   /* only once more bytes come: the last block is final */
    size_t k = 128 - c->n < len ? 128 - c->n : len;
    memcpy(c->buf + c->n, p, k);
    c->n += k; p += k; len -= k;
  }
}

static void b2_final(Blake2b *c, uint8_t *out) {
  c->t += c->n;
  memset(c->buf + c->n, 0, 128 - c->n);
  b2_compress(c, 1);
  for (size_t i = 0; i < c->outlen; i++) out[i] = (uint8_t)(c->h[i / 8] >> (8 * (i % 8)));
}
#endif
