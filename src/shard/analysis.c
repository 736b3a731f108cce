/* analysis.c: the named-dimension analysis run in its stages, each in its
 * own file: names, rules and colors (nda.c), then conflicts and
 * compatibility sets (conflicts.c), then repeated layers (layers.c). The
 * driver lives apart so that no stage calls back into the one that calls it. */
#include "core/core_internal.h"
#include "shard/nda_internal.h"
#include "shard/shard_internal.h"

pp_status pp_shard_nda_run(const pp_shard_flat *flat, pp_shard_nda **out, pp_error *err)
{
    *out = NULL;
    pp_arena *arena = pp_arena_new(1 << 16);
    pp_shard_nda *nda = arena ? pp_arena_calloc(arena, 1, sizeof *nda) : NULL;
    if (!nda) {
        pp_arena_free(arena);
        return pp_error_set(err, PP_ENOMEM, "out of memory in the named-dimension analysis");
    }
    nda->arena = arena;
    nda->flat = flat;
    bool ok = shard_nda_names(nda, err) && shard_nda_conflicts(nda, err) && shard_nda_layers(nda, err);
    if (!ok) {
        pp_arena_free(arena);
        return err->status != PP_OK ? err->status : pp_error_set(err, PP_ENOMEM, "out of memory");
    }
    *out = nda;
    return PP_OK;
}

void pp_shard_nda_free(pp_shard_nda *nda)
{
    if (nda)
        pp_arena_free(nda->arena);
}
