/* nda_util.c: what every stage of the named-dimension analysis uses: the
 * union-find over dimension names and allocation in the analysis' arena. */
#include "core/core_internal.h"
#include "shard/nda_internal.h"

int32_t shard_uf_find(int32_t *parent, int32_t x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

void shard_uf_union(int32_t *parent, int32_t a, int32_t b)
{
    a = shard_uf_find(parent, a);
    b = shard_uf_find(parent, b);
    if (a < b)
        parent[b] = a;
    else if (b < a)
        parent[a] = b;
}

void *shard_nda_alloc(pp_shard_nda *nda, size_t count, size_t size, pp_error *err)
{
    void *p = pp_arena_calloc(nda->arena, count ? count : 1, size);
    if (!p)
        pp_error_set(err, PP_ENOMEM, "out of memory in the named-dimension analysis");
    return p;
}
