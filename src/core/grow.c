/* grow.c: pp_grow, the doubling growth of realloc'd arrays (see grow.h). */
#include <stdlib.h>
#include "core/grow.h"

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
