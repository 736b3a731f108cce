/* actions.c: the action space of paper 004 section 4.2, color x resolution
 * x mesh axis, with two reductions of the paper:
 * - repeated layers (section 4.4): colors that correspond across the copies
 *   of a layer group are one action, mirrored to every copy, and so are
 *   their corresponding compatibility sets (section 3.6), which share one
 *   bit of the resolution;
 * - actions touching fewer than min_dims dimension names are dropped.
 * A group with k classes of sets has 2^k resolutions when k <= 4; beyond,
 * all-0, all-1 and each single class flipped from either (2 + 2k), because
 * 2^k actions would swamp the search while layers are mostly alike. */
#include <stdlib.h>
#include <string.h>
#include "shard/cost_internal.h"
#include "shard/nda_internal.h"
#include "shard/action_space.h"

enum { FULL_RESOLUTIONS_UP_TO = 4 };

typedef struct {
    const pp_shard_nda *nda;
    const pp_shard_mesh *mesh;
    int32_t min_dims;
    int32_t *color_group; /* per color, its group's root color */
    int32_t *set_class;   /* per set, its class's root set */
    shard_action_space *space;
    int32_t cap;
    uint8_t *scratch;     /* a layout for validity checks */
    pp_error *err;
} builder;

static void union_mapped(int32_t *parent, const int32_t *map, int32_t copies, int32_t width)
{
    for (int32_t c = 1; c < copies; c++)
        for (int32_t j = 0; j < width; j++)
            if (map[j] >= 0 && map[c * width + j] >= 0)
                shard_uf_union(parent, map[j], map[c * width + j]);
}

static bool group_colors_and_sets(builder *B)
{
    const pp_shard_nda *nda = B->nda;
    B->color_group = malloc(sizeof *B->color_group * (size_t)(nda->n_colors + 1));
    B->set_class = malloc(sizeof *B->set_class * (size_t)(nda->n_sets + 1));
    if (!B->color_group || !B->set_class)
        return false;
    for (int32_t c = 0; c < nda->n_colors; c++)
        B->color_group[c] = c;
    for (int32_t s = 0; s < nda->n_sets; s++)
        B->set_class[s] = s;
    for (int32_t g = 0; g < nda->n_layer_groups; g++) {
        const pp_shard_nda_layers *L = &nda->layer_groups[g];
        union_mapped(B->color_group, L->color_map, L->copies, L->n_copy_colors);
        union_mapped(B->set_class, L->set_map, L->copies, L->n_copy_sets);
    }
    for (int32_t c = 0; c < nda->n_colors; c++)
        B->color_group[c] = shard_uf_find(B->color_group, c);
    for (int32_t s = 0; s < nda->n_sets; s++)
        B->set_class[s] = shard_uf_find(B->set_class, s);
    return true;
}

/* The names a group shards with resolution bits: per tensor and color of
 * the group, the dimension pp_shard_nda_sharded_dim picks. */
static int32_t collect_names(const builder *B, int32_t root, const uint8_t *bits, int32_t *names)
{
    const pp_shard_nda *nda = B->nda;
    int32_t n = 0;
    for (int32_t t = 0; t < nda->n_tensors; t++) {
        const pp_shard_nda_tensor *T = &nda->tensors[t];
        for (int32_t d = 0; d < T->rank; d++) {
            int32_t c = nda->color[T->first + d];
            if (B->color_group[c] != root)
                continue;
            bool seen = false;
            for (int32_t e = 0; e < d; e++)
                seen |= nda->color[T->first + e] == c;
            int32_t s = seen ? -1 : pp_shard_nda_sharded_dim(nda, c, bits, t);
            if (s >= 0)
                names[n++] = T->first + s;
        }
    }
    return n;
}

static bool push_action(builder *B, const shard_action *a)
{
    shard_action_space *S = B->space;
    if (S->n == B->cap) {
        int32_t cap = B->cap ? 2 * B->cap : 64;
        shard_action *grown = pp_arena_alloc(S->arena, sizeof *grown * (size_t)cap);
        if (!grown)
            return false;
        if (S->n)
            memcpy(grown, S->actions, sizeof *grown * (size_t)S->n);
        S->actions = grown;
        B->cap = cap;
    }
    S->actions[S->n++] = *a;
    return true;
}

/* One resolution of the group: its names once, then one action per mesh
 * axis on which it is valid alone. */
static bool add_resolution(builder *B, int32_t root, int32_t n_colors, const uint8_t *bits, int32_t *names)
{
    int32_t n = collect_names(B, root, bits, names);
    if (n < B->min_dims || n == 0)
        return true;
    int32_t *kept = pp_arena_alloc(B->space->arena, sizeof *kept * (size_t)n);
    uint8_t *kept_bits = pp_arena_calloc(B->space->arena, (size_t)B->nda->n_sets + 1, 1);
    if (!kept || !kept_bits)
        return false;
    memcpy(kept, names, sizeof *kept * (size_t)n);
    if (bits)
        memcpy(kept_bits, bits, (size_t)B->nda->n_sets);
    for (int32_t a = 0; a < B->mesh->n_axes; a++) {
        if (B->mesh->sizes[a] <= 1)
            continue;
        shard_action act = {root, n_colors, a, kept_bits, n, kept};
        memset(B->scratch, 0, (size_t)B->nda->n_names);
        if (shard_action_apply(B->nda, B->mesh, &act, B->scratch) && !push_action(B, &act))
            return false;
    }
    return true;
}

/* The set classes of a group, in order of first appearance. */
static int32_t group_classes(const builder *B, int32_t root, int32_t *classes)
{
    int32_t k = 0;
    for (int32_t s = 0; s < B->nda->n_sets; s++) {
        if (B->color_group[B->nda->sets[s].color] != root)
            continue;
        int32_t cl = B->set_class[s], j = 0;
        while (j < k && classes[j] != cl)
            j++;
        if (j == k)
            classes[k++] = cl;
    }
    return k;
}

/* Resolution r of a group with k classes, as one bit per class. */
static int32_t resolution_count(int32_t k)
{
    return k <= FULL_RESOLUTIONS_UP_TO ? 1 << k : 2 + 2 * k;
}

static bool class_bit(int32_t k, int32_t r, int32_t j)
{
    if (k <= FULL_RESOLUTIONS_UP_TO)
        return (r >> j) & 1;
    if (r < 2)
        return r == 1;
    r -= 2;
    bool base = r >= k; /* flips of all-0, then flips of all-1 */
    return (r % k == j) ? !base : base;
}

static bool add_group(builder *B, int32_t root, int32_t *names, int32_t *classes, uint8_t *bits)
{
    int32_t n_colors = 0;
    for (int32_t c = 0; c < B->nda->n_colors; c++)
        n_colors += B->color_group[c] == root;
    int32_t k = group_classes(B, root, classes);
    for (int32_t r = 0; r < resolution_count(k); r++) {
        memset(bits, 0, (size_t)B->nda->n_sets + 1);
        for (int32_t s = 0; s < B->nda->n_sets; s++)
            for (int32_t j = 0; j < k; j++)
                if (B->set_class[s] == classes[j] && B->color_group[B->nda->sets[s].color] == root)
                    bits[s] = class_bit(k, r, j);
        if (!add_resolution(B, root, n_colors, bits, names))
            return false;
    }
    return true;
}

pp_status shard_actions_build(const pp_shard_nda *nda, const pp_shard_mesh *mesh, int32_t min_dims,
                              shard_action_space *out, pp_error *err)
{
    memset(out, 0, sizeof *out);
    builder B = {nda, mesh, min_dims, NULL, NULL, out, 0, NULL, err};
    out->arena = pp_arena_new(0);
    int32_t *names = malloc(sizeof *names * (size_t)(nda->n_names + 1));
    int32_t *classes = malloc(sizeof *classes * (size_t)(nda->n_sets + 1));
    uint8_t *bits = malloc((size_t)nda->n_sets + 1);
    B.scratch = malloc((size_t)nda->n_names + 1);
    bool ok = out->arena && names && classes && bits && B.scratch && group_colors_and_sets(&B);
    for (int32_t c = 0; ok && c < nda->n_colors; c++)
        if (B.color_group[c] == c && nda->colors[c].size > 1)
            ok = add_group(&B, c, names, classes, bits);
    free(names);
    free(classes);
    free(bits);
    free(B.scratch);
    free(B.color_group);
    free(B.set_class);
    if (!ok) {
        shard_actions_free(out);
        return pp_error_set(err, PP_ENOMEM, "sharding actions: out of memory");
    }
    return PP_OK;
}

void shard_actions_free(shard_action_space *space)
{
    pp_arena_free(space->arena);
    memset(space, 0, sizeof *space);
}

bool shard_action_apply(const pp_shard_nda *nda, const pp_shard_mesh *mesh, const shard_action *a, uint8_t *axes)
{
    uint8_t bit = (uint8_t)(1u << a->axis);
    int32_t set = 0, d;
    while (set < a->n_names && !(axes[a->names[set]] & bit))
        axes[a->names[set++]] |= bit;
    bool ok = set == a->n_names;
    for (int32_t k = 0; ok && k < a->n_names; k++)
        ok = shard_tensor_fit(nda, mesh, axes, nda->name_tensor[a->names[k]], &d) == SHARD_FITS;
    if (!ok)
        while (set-- > 0) /* each bit set here was clear before */
            axes[a->names[set]] &= (uint8_t)~bit;
    return ok;
}
