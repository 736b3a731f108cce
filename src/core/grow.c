/* grow.c: pp_grow and pp_grow_large, the doubling growth of realloc'd
 * arrays (see grow.h). */
#include <stdlib.h>
#include "core/grow.h"
#include "core/stream.h"

bool pp_grow(void **array, int *cap, int need, size_t size)
{
    if (need <= *cap)
        return true;
    int n = *cap ? *cap * 2 : 16;
    while (n < need)
        n *= 2;
    void *q = realloc(*array, (size_t)n * size);
    if (!q)
        return false;
    *array = q;
    *cap = n;
    return true;
}

bool pp_grow_large(void **array, size_t *cap, size_t initial, size_t size)
{
    const size_t huge = (size_t)2 << 20;
    size_t n = *cap ? *cap * 2 : initial;
    if (n * size >= huge)
        n = ((n * size + huge - 1) / huge * huge - 32) / size;
    void *q = realloc(*array, n * size);
    if (!q)
        return false;
    pp_advise_huge_pages(q, n * size);
    *array = q;
    *cap = n;
    return true;
}
