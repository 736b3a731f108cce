/* part_internal.h: a run of an analysed module's ops as a module of its
 * own (part.c), for a planner that shards parts of a module apart (a
 * pipeline's stages, src/plan). */
#ifndef PP_SHARD_PART_INTERNAL_H
#define PP_SHARD_PART_INTERNAL_H

#include <stdbool.h>
#include "parplan/shard.h"

/* Ops first .. end - 1 of a flat view, renumbered: the values they read
 * from outside the run are the part's inputs (in the order first read),
 * their results follow in order, and the results read after the run or
 * returned by the module are its outputs. Its analysis is the sharder's,
 * as of a file. */
typedef struct {
    pp_arena *arena;
    pp_shard_flat flat;
    pp_shard_nda *nda;
    bool *parameter; /* [input]: an entry argument the whole module's analysis calls a parameter */
} shard_part;

/* The part of ops first .. end - 1 of flat (analysed as nda); PP_ENOMEM,
 * or the analysis's status. Free it with shard_part_free whatever the
 * status. */
pp_status shard_part_build(const pp_shard_flat *flat, const pp_shard_nda *nda, int32_t first, int32_t end,
                           shard_part *out, pp_error *err);
void shard_part_free(shard_part *p);

#endif
