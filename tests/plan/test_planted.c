/* test_planted.c: plans whose best is known.
 *  - A chain of 8 equal blocks on 4 equal devices: by symmetry the best
 *    plan splits the blocks evenly over stages that all run the same
 *    mesh; the plan found is such a split, no slower than any other even
 *    split with any mesh the simulator judges.
 *  - 6 small blocks and one huge one on 4 devices, memory set so that the
 *    huge block's training state fits on no single device: the plan must
 *    shard it (a stage of its own on two or more devices) while the rest
 *    pipelines ahead of it.
 *  - The stage DP is exact: on both, its best sum + (M - 1) max equals a
 *    brute force over every cut, mesh and replica count.
 * Every plan passes the independent check, agrees with the simulator
 * within 2% and beats the baselines that apply. The operator scheduler's
 * order of the chain's pipeline (backward split into B and W) is checked
 * by its checker, lies within its bound and beats 1F1B's; the plan takes
 * it, and the simulator, running that order, finds the step strictly
 * under 1F1B's and within 2% of the formula's. */
#include "fixture.h"
#include "plan/plan_internal.h"

/* The least DP objective over every plan of R replicas: each cut set,
 * each mesh per stage within the replica's devices, memory checked. */
static double brute(const plan_ctx *X, int32_t R, int32_t cut_mask, int32_t P, int32_t *mesh, int32_t s,
                    const int32_t *cuts, double best)
{
    if (s == P) {
        int32_t used[8] = {0};
        double sum = 0, most = 0;
        int32_t M = (int32_t)(X->n_micro / R);
        for (int32_t k = 0; k < P; k++) {
            used[X->meshes[mesh[k]].type] += X->meshes[mesh[k]].devices;
            plan_stage_cost c;
            plan_stage_cost_of(X, cuts[k], cuts[k + 1], mesh[k], &c);
            for (int32_t u = cuts[k]; u < cuts[k + 1]; u++)
                if (!X->cost_ok[(size_t)X->units[u].kind * (size_t)X->n_meshes + (size_t)mesh[k]])
                    return best;
            int32_t in_flight = P - k < M ? P - k : M;
            if (plan_stage_memory(&c, in_flight) > plan_capacity(X, X->meshes[mesh[k]].type))
                return best;
            double t = c.forward + c.backward + c.sync / M;
            sum += t;
            most = fmax(most, t);
        }
        for (int32_t t = 0; t < X->n_types; t++)
            if (used[t] > X->types[t].count / R)
                return best;
        return fmin(best, sum + (M - 1) * most);
    }
    for (int32_t k = 0; k < X->n_meshes; k++) {
        mesh[s] = k;
        best = brute(X, R, cut_mask, P, mesh, s + 1, cuts, best);
    }
    return best;
}

static void check_exact(const plan_ctx *X)
{
    plan_candidate *cands = malloc(4096 * sizeof *cands);
    int32_t n = plan_search(X, true, NULL, cands, 4096);
    CHECK(n > 0 && n < 4096);
    for (int32_t R = 1; R <= X->n_micro; R++) {
        bool divides = X->n_micro % R == 0;
        for (int32_t t = 0; t < X->n_types; t++)
            divides &= X->types[t].count % R == 0;
        if (!divides)
            continue;
        double dp = INFINITY, best = INFINITY;
        for (int32_t k = 0; k < n; k++)
            if (cands[k].R == R)
                dp = fmin(dp, cands[k].objective);
        int32_t L = X->n_units;
        int32_t *cuts = malloc(((size_t)L + 1) * sizeof *cuts), *mesh = malloc((size_t)L * sizeof *mesh);
        for (int32_t mask = 0; mask < 1 << (L - 1); mask++) {
            int32_t P = 0;
            cuts[0] = 0;
            for (int32_t u = 1; u < L; u++)
                if (mask & (1 << (u - 1)))
                    cuts[++P] = u;
            cuts[++P] = L;
            if (P <= 4)
                best = brute(X, R, mask, P, mesh, 0, cuts, best);
        }
        free(cuts);
        free(mesh);
        if (!(fabs(dp - best) <= 1e-12 * best) && !(isinf(dp) && isinf(best))) {
            fprintf(stderr, "R %d: the DP's best is %.9g, brute force %.9g\n", R, dp, best);
            check_failures++;
        }
    }
    free(cands);
}

static void chain(void)
{
    size_t ms, cs;
    char *module = chain_module(8, 64, 1024, 4096, 0, &ms), *cluster = one_node("a100", 4, 12.9e9, 15e-6, &cs);
    pp_plan_request req = request(module, ms, cluster, cs);
    req.time_limit = 60; /* the scheduler's 5% of it: 2 s or more, or it is not run */
    pp_plan_report r;
    pp_error err = {0};
    CHECK(pp_plan(&req, &r, &err) == PP_OK);
    if (r.n_stages > 0) {
        check_plan("chain", &r, &req);
        /* the scheduler's order of the same pipeline, B and W split: within
         * its bound, and no longer than 1F1B's, which it may reorder. Here
         * (4 equal stages, 8 micro-batches) its W's fill 1F1B's bubbles, so
         * the plan takes it: the simulator runs that order, finds it
         * strictly faster than 1F1B's, and the formula in that order (the
         * scheduler's step) agrees with it within 2% (check_plan) */
        CHECK(isfinite(r.scheduled_time) && r.scheduled_bound <= r.scheduled_time * (1 + 1e-9));
        CHECK(r.scheduled_time <= r.model_1f1b * (1 + 1e-9));
        CHECK(r.pipeline_time <= r.model_1f1b);
        CHECK(strcmp(r.schedule, "scheduled F/B/W") == 0 && r.model_time == r.scheduled_time);
        CHECK(r.step_time < r.step_1f1b * (1 - 1e-3));
        /* each stage's order is stated, 3 M ops, and not 1F1B's: some W
         * waits past the op after its B */
        bool deferred = false;
        for (int32_t s = 0; s < r.n_stages; s++) {
            int ops = 0;
            const char *prev = NULL;
            for (const char *t = r.stages[s].order; t && *t; t += strcspn(t, " "), t += *t == ' ') {
                ops++;
                if (*t == 'W' && !(prev && prev[0] == 'B' && atoi(prev + 1) == atoi(t + 1)))
                    deferred = true;
                prev = t;
            }
            CHECK(ops == 3 * r.microbatches);
        }
        CHECK(deferred);
        CHECK(r.n_units == 8 && r.why_one_stage == NULL);
        for (int32_t s = 1; s < r.n_stages; s++) {
            CHECK(r.stages[s].units == r.stages[0].units);
            CHECK(r.stages[s].devices == r.stages[0].devices && r.stages[s].n_axes == r.stages[0].n_axes);
            CHECK(memcmp(r.stages[s].axes, r.stages[0].axes, sizeof r.stages[0].axes) == 0);
        }
        /* no even split on any one mesh is faster by the judge */
        plan_ctx X;
        CHECK(plan_prepare(&X, &req, &err) == PP_OK);
        for (int32_t P = 1; P <= 8; P *= 2)
            for (int32_t k = 0; k < X.n_meshes; k++)
                for (int32_t R = 1; R * P * X.meshes[k].devices <= 4; R *= 2) {
                    if (R * P * X.meshes[k].devices != 4 || X.n_micro % R != 0)
                        continue;
                    plan_candidate c;
                    CHECK(plan_candidate_make(&X, R, P, &c));
                    for (int32_t s = 0; s <= P; s++)
                        c.cut[s] = s * 8 / P;
                    for (int32_t s = 0; s < P; s++)
                        c.mesh[s] = k;
                    double t, peak[4];
                    if (plan_judge(&X, &c, NULL, &t, peak, NULL, &err) == PP_OK && peak[0] <= plan_capacity(&X, 0))
                        CHECK(r.step_time <= t * (1 + 1e-12));
                }
        check_exact(&X);
        plan_release(&X);
    } else
        fprintf(stderr, "chain: %s\n", err.message);
    pp_plan_report_free(&r);
    free(module);
    free(cluster);
}

static void huge(void)
{
    size_t ms, cs;
    char *module = chain_module(6, 64, 1024, 1024, 65536, &ms), *cluster = one_node("a100", 4, 12.9e9, 15e-6, &cs);
    pp_plan_request req = request(module, ms, cluster, cs);
    req.memory = 1.5e9;
    pp_plan_report r;
    pp_error err = {0};
    CHECK(pp_plan(&req, &r, &err) == PP_OK);
    plan_ctx X;
    CHECK(plan_prepare(&X, &req, &err) == PP_OK);
    /* the premise: on one device the huge block's state alone is too much */
    int32_t huge_kind = X.units[X.n_units - 1].kind, one = 0;
    while (X.meshes[one].devices != 1)
        one++;
    CHECK(X.n_units == 7 && huge_kind != X.units[0].kind);
    /* kinds are numbered densely, though no ops come before the first
     * block: each has its unit, which cost.c prices */
    CHECK(X.n_kinds == 2 && huge_kind == 1);
    CHECK(X.cost[(size_t)huge_kind * (size_t)X.n_meshes + (size_t)one].state > req.memory);
    if (r.n_stages > 0) {
        check_plan("huge", &r, &req);
        const pp_plan_stage *last = &r.stages[r.n_stages - 1];
        CHECK(r.n_stages >= 2);
        CHECK(last->first_unit == 6 && last->units == 1 && last->devices >= 2);
        /* the huge layer's module is written sharded, its weights split over the mesh */
        CHECK(last->module_text && strstr(last->module_text, "{devices=["));
        CHECK(r.fits);
    } else
        fprintf(stderr, "huge: %s\n", err.message);
    check_exact(&X);
    plan_release(&X);
    pp_plan_report_free(&r);
    free(module);
    free(cluster);
}

int main(void)
{
    chain();
    huge();
    return CHECK_DONE();
}
