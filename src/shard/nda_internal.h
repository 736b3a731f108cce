/* nda_internal.h: what the named-dimension analysis files share: the
 * union-find over dimension names and the arena (nda_util.c), and the
 * stages analysis.c runs in turn: names and colors (nda.c), conflicts and
 * compatibility sets (conflicts.c), repeated layers (layers.c). */
#ifndef PP_SHARD_NDA_INTERNAL_H
#define PP_SHARD_NDA_INTERNAL_H

#include <stdbool.h>
#include "parplan/shard.h"

int32_t shard_uf_find(int32_t *parent, int32_t x);
void shard_uf_union(int32_t *parent, int32_t a, int32_t b);

/* Allocation in the analysis' arena that reports out of memory. */
void *shard_nda_alloc(pp_shard_nda *nda, size_t count, size_t size, pp_error *err);

/* Fills tensors, names, the map, iclasses and colors (nda.c). */
bool shard_nda_names(pp_shard_nda *nda, pp_error *err);

/* Fills conflicts and sets (conflicts.c). */
bool shard_nda_conflicts(pp_shard_nda *nda, pp_error *err);

/* The conflict between iclasses a and b, or -1. */
int32_t shard_nda_conflict_of(const pp_shard_nda *nda, int32_t a, int32_t b);

/* Fills layer_groups (layers.c). */
bool shard_nda_layers(pp_shard_nda *nda, pp_error *err);

#endif
