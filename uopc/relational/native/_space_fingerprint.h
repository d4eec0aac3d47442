/* Fingerprints of the core's graphs, in C (_space_fingerprint.c): space/fingerprint.py's Fingerprints.of, BLAKE2b
 * (_blake2b.h) of a node's fields followed by its sources' fingerprints, 16 bytes, each node's computed once. */
#ifndef UOPC_SPACE_FINGERPRINT_H
#define UOPC_SPACE_FINGERPRINT_H
#include <Python.h>
#include <stdint.h>


typedef struct Space Space;

typedef struct SpaceFingerprints {
  PyObject *cb;         /* fields(node) -> bytes: node_fields of the node's UOp, asked once per label */
  PyObject **inner, **leaf; int64_t cap_inner, cap_leaf;   /* the fields bytes by label (inner >= 0; leaf -2 - k), or NULL */
  uint8_t *fp, *done; int64_t cap;   /* per node: its 16 bytes, and 1 once they are computed (grown to cap_nodes on use) */
} SpaceFingerprints;

int fp_of(Space *s, int32_t root, uint8_t *out);   /* node root's 16 bytes into out (fingerprint_setup() made): 0, or -1 */
int64_t fingerprints_bytes(const SpaceFingerprints *f);
void fingerprints_free(SpaceFingerprints *f);
PyObject *Space_fingerprint_setup(Space *s, PyObject *cb);
PyObject *Space_fingerprint(Space *s, PyObject *arg);
PyObject *Space_fingerprints(Space *s, PyObject *arg);

#endif
