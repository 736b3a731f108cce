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

/* The same for arrays that reach hundreds of MB (a reader's values): doubles
 * *cap (from `initial`) once, in size_t. From 2 MB on the size in bytes is a
 * whole number of huge pages less glibc's 32 bytes of mapping overhead: the
 * mapping is then a whole number of huge pages, which Linux places (and
 * realloc's mremap moves) on huge page boundaries, so every page of it can
 * be huge once advised, which this does (pp_advise_huge_pages). */
bool pp_grow_large(void **array, size_t *cap, size_t initial, size_t size);

#endif
