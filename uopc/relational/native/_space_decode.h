/* A batch of codec rows made the native core's nodes (_space_decode.c): cluster/codec.py's Codec.decode, then
 * NativeSpace.to_id, the reverse of _space_rows.h's rows. */
#ifndef UOPC_SPACE_DECODE_H
#define UOPC_SPACE_DECODE_H
#include <Python.h>


typedef struct Space Space;

PyObject *Space_intern_rows(Space *s, PyObject *args);   /* intern_rows(rows, made, make) -> [node of each row] */

#endif
