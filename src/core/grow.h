/* grow.h: the one way our arrays grow while things are added to them one at
 * a time (problems, LPs, timelines): capacity doubles, so adding n items
 * costs O(n) copying in all. */
#ifndef PP_CORE_GROW_H
#define PP_CORE_GROW_H

#include <stdbool.h>
#include <stddef.h>

/* Makes *array (elements of `size` bytes, *cap of them) hold at least `need`
 * elements, updating *cap. On failure (false) *array and *cap are as they
 * were. Arrays that always grow together keep one capacity: pass a copy of
 * it for every array but the last. */
bool pp_grow(void **array, int *cap, int need, size_t size);

#endif
