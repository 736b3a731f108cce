/* modules.c: the plan as modules a user can run: each stage's ops as a
 * StableHLO module of their own (pp_shard_write_stage: the tensors that
 * cross into the stage its arguments, those that leave it its results,
 * each named), sharded on the stage's mesh by the sharder and annotated as
 * `parplan shard --out` annotates (pp_shard_write_plan, which reads its
 * text back and checks every annotation against the layout).
 *
 * The layout written is the sharder's plan of the stage read back from
 * its own text, made here with the stage's mesh and memory (a tight
 * mesh's quarter, as cost.c plans it) and the plan's seed; the stage's
 * figures in the report are those of the search's sharder runs, which
 * may have found another layout of equal or near cost in their time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "parplan/shard_write.h"
#include "plan/plan_internal.h"
#include "shard/write_internal.h"

/* Stage s's layout on its mesh: the sharder's, or all replicated on one
 * device (axes all 0, callocated). */
static pp_status layout(const plan_ctx *X, const plan_mesh *pm, const pp_shard_mesh *mesh,
                        const pp_shard_analysis *a, double seconds, uint8_t **axes, pp_shard_plan_result *r,
                        bool *planned, pp_error *err)
{
    *planned = false;
    *axes = NULL;
    if (pm->devices > 1) {
        pp_error mine = {0};
        if (plan_shard_on(X, a->flat, a->nda, pm, mesh, seconds, r, &mine) == PP_OK) {
            *planned = true;
            return PP_OK;
        }
        /* a mesh the stage cannot be sharded on keeps it replicated */
        if (mine.status != PP_EINPUT)
            return pp_error_set(err, mine.status, "%s", mine.message);
    }
    *axes = calloc((size_t)a->nda->n_names + 1, 1);
    return *axes ? PP_OK : pp_error_set(err, PP_ENOMEM, "out of memory writing a stage's module");
}

static pp_status one_stage(const plan_ctx *X, const plan_candidate *c, int32_t s, double seconds,
                           pp_plan_report *out, pp_error *err)
{
    pp_plan_stage *S = &out->stages[s];
    const plan_mesh *pm = &X->meshes[c->mesh[s]];
    char name[160];
    snprintf(name, sizeof name, "%s_stage%d", X->a.module->name[0] ? X->a.module->name : "plan", s);
    char *bare = NULL, *annotated = NULL;
    size_t bare_size = 0, size = 0;
    pp_status st = pp_shard_write_stage(X->a.flat, X->text, X->text_size, S->first_op, S->ops, name, &bare,
                                        &bare_size, err);
    pp_shard_analysis a = {0};
    char file[200];
    snprintf(file, sizeof file, "%s (stage %d)", X->a.module->file, s);
    if (st == PP_OK)
        st = pp_shard_analysis_parse(file, bare, bare_size, &a, err);
    pp_shard_mesh mesh;
    plan_mesh_to_shard(X, pm, &mesh);
    pp_shard_plan_result r = {0};
    uint8_t *zero = NULL;
    bool planned = false;
    if (st == PP_OK)
        st = layout(X, pm, &mesh, &a, seconds, &zero, &r, &planned, err);
    pp_shard_write_stats stats = {0};
    if (st == PP_OK)
        st = pp_shard_write_plan(a.nda, &mesh, planned ? r.axes : zero, PP_SHARD_FORMAT_GSPMD, bare, bare_size,
                                 &annotated, &size, &stats, err);
    if (st == PP_OK) {
        char *kept = pp_arena_alloc(out->arena, size + 1);
        if (!kept)
            st = pp_error_set(err, PP_ENOMEM, "out of memory writing a stage's module");
        else {
            memcpy(kept, annotated, size + 1);
            S->module_text = kept;
            S->module_size = size;
            S->module_tensors = stats.tensors;
            S->module_annotated = stats.annotated;
        }
    }
    if (planned)
        pp_shard_plan_free(&r);
    free(zero);
    free(annotated);
    free(bare);
    pp_shard_analysis_free(&a);
    return st;
}

pp_status plan_stage_modules(const plan_ctx *X, const plan_candidate *c, pp_plan_report *out, pp_error *err)
{
    int32_t searches = 0;
    for (int32_t s = 0; s < c->P; s++)
        searches += X->meshes[c->mesh[s]].devices > 1;
    pp_deadline until = pp_deadline_within(&X->deadline, plan_share(X, PLAN_SHARE_MODULES));
    pp_status st = PP_OK;
    for (int32_t s = 0; s < c->P && st == PP_OK; s++) {
        double seconds = pp_deadline_left(&until) / (searches > 0 ? searches : 1);
        searches -= X->meshes[c->mesh[s]].devices > 1;
        st = one_stage(X, c, s, seconds > 0.05 ? seconds : 0.05, out, err);
    }
    return st;
}
