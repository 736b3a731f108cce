/* keyed.c: an index sorted by a number it carries, ties by the index, so
 * that sorting ops by their start (or groups by their head) gives the same
 * order on every run whatever qsort does with equal keys. The scheduler's
 * searches, its coarsening and the plan's reading of a schedule share it. */
#include "core/core_internal.h"

int pp_by_key_then_index(const void *a, const void *b)
{
    const pp_keyed *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}
