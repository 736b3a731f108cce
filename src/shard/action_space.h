/* action_space.h: the search's action space (actions.c), shared with the
 * MCTS in search.c. An action shards a group of colors (one color, or the
 * colors that correspond across the copies of a repeated layer, section
 * 4.4) over one mesh axis with one resolution of their compatibility sets;
 * it is stored as the list of dimension names it shards. */
#ifndef PP_SHARD_ACTION_SPACE_H
#define PP_SHARD_ACTION_SPACE_H

#include <stdbool.h>
#include "parplan/shard.h"

typedef struct {
    int32_t color;    /* the group's first color */
    int32_t n_colors; /* colors in the group */
    int32_t axis;
    const uint8_t *bits; /* one byte per compatibility set */
    int32_t n_names;
    int32_t *names;   /* the dimension names it shards */
} shard_action;

typedef struct {
    pp_arena *arena;
    int32_t n;
    shard_action *actions;
} shard_action_space;

/* Every action touching at least min_dims names that is valid alone. */
pp_status shard_actions_build(const pp_shard_nda *nda, const pp_shard_mesh *mesh, int32_t min_dims,
                              shard_action_space *out, pp_error *err);
void shard_actions_free(shard_action_space *space);

/* Adds action a to layout `axes` (per name), refusing (false, layout
 * unchanged) when a name already has the axis, the axis would land on two
 * dimensions of one tensor, or a dimension would not divide. */
bool shard_action_apply(const pp_shard_nda *nda, const pp_shard_mesh *mesh, const shard_action *a, uint8_t *axes);

#endif
