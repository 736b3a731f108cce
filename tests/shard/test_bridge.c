/* test_bridge.c: the IOPDDL bridge (src/shard/bridge.c, bridge_write.c)
 * against the cost model it is built from: the written problem read back
 * with pp_iopddl_load prices the unsharded solution and random solutions at
 * the cost model's runtime of their layouts (in picoseconds, within
 * rounding) with the layout's peak memory as peak usage; the MLP's strategy
 * counts by hand; the contest's solver improves the chess model; problems
 * of another model or mesh and out-of-range strategies are refused. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fixture.h"
#include "parplan/shard_bridge.h"
#include "hw/hw_internal.h"
#include "hw/net_internal.h"
#include "shard/bridge_internal.h"

#define SHARED PP_SOURCE_DIR "/examples/shard/"
#define CHESS SHARED "searchless_chess_9m.mlir"

static const pp_hw_device_type *a100;

static pp_shard_mesh mesh_of(const char *text)
{
    return mesh_on(text, a100, pp_shard_default_link());
}

static pp_shard_bridge *build(const analysed *A, const pp_shard_mesh *mesh, double memory)
{
    pp_shard_bridge *b = NULL;
    pp_error err = {0};
    if (pp_shard_bridge_build(A->flat, A->nda, mesh, memory, &b, &err) != PP_OK)
        fprintf(stderr, "%s\n", err.message);
    CHECK(b != NULL);
    return b;
}

/* Writes the problem to a temporary file and reads it back; *bytes is the file's size. */
static pp_iopddl_problem *round_trip(const pp_shard_bridge *b, const char *name, long *bytes)
{
    char path[] = "/tmp/pp_test_bridge_XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    CHECK(f != NULL);
    if (!f)
        return NULL;
    pp_error err = {0};
    CHECK(pp_shard_bridge_write(b, name, f, &err) == PP_OK);
    *bytes = ftell(f);
    fclose(f);
    pp_iopddl_problem *p = NULL;
    if (pp_iopddl_load(path, &p, &err) != PP_OK)
        fprintf(stderr, "%s\n", err.message);
    CHECK(p != NULL);
    CHECK(p == NULL || strcmp(p->name, name) == 0);
    remove(path);
    return p;
}

/* The cost model's figures for the layout of solution s. */
static bool model_cost(const analysed *A, const pp_shard_mesh *mesh, const pp_shard_bridge *b, const uint32_t *s,
                       pp_shard_cost *c)
{
    uint8_t *axes = malloc((size_t)A->nda->n_names + 1);
    pp_error err = {0};
    pp_status st = axes ? pp_shard_bridge_layout(b, s, axes, &err) : PP_ENOMEM;
    if (st == PP_OK)
        st = pp_shard_cost_eval_layout(A->flat, A->nda, mesh, axes, c, &err);
    if (st != PP_OK)
        fprintf(stderr, "%s\n", err.message);
    CHECK(st == PP_OK);
    free(axes);
    return st == PP_OK;
}

static bool has_multi_result_op(const analysed *A)
{
    for (int32_t i = 0; i < A->flat->n_ops; i++) {
        const pp_shard_flat_op *fo = &A->flat->ops[i];
        if (A->m->funcs[fo->func].ops[fo->op].n_results > 1)
            return true;
    }
    return false;
}

/* IOPDDL's objective and peak usage of s against the cost model of its
 * layout: costs within half a picosecond per term (plus the doubles'
 * summation error), peak within a byte per node (usages are rounded up). */
static void check_solution(const analysed *A, const pp_shard_mesh *mesh, const pp_shard_bridge *b,
                           const pp_iopddl_problem *p, const uint32_t *s, bool exact_peak)
{
    pp_iopddl_evaluation ev;
    pp_error err = {0};
    pp_shard_cost c;
    CHECK(pp_iopddl_evaluate(p, s, &ev, &err) == PP_OK);
    if (!model_cost(A, mesh, b, s, &c))
        return;
    double ps = c.runtime * 1e12, slack = 0.5 * (p->node_count + p->edge_count) + 1e-9 * ps;
    if (fabs((double)ev.cost - ps) > slack) {
        fprintf(stderr, "IOPDDL cost %.1f ps, cost model %.1f ps\n", (double)ev.cost, ps);
        check_failures++;
    }
    double peak = (double)ev.peak_usage;
    CHECK(peak >= c.peak_memory - 1e-6 * c.peak_memory);
    if (exact_peak && fabs(peak - c.peak_memory) > p->node_count) {
        fprintf(stderr, "IOPDDL peak %.0f bytes, cost model %.0f bytes\n", peak, c.peak_memory);
        check_failures++;
    }
}

static void check_model(const char *path, const char *mesh_text, double memory, int randoms)
{
    analysed A;
    if (!open_model(&A, path))
        return;
    pp_shard_mesh mesh = mesh_of(mesh_text);
    pp_shard_bridge *b = build(&A, &mesh, memory);
    long bytes = 0;
    pp_iopddl_problem *p = b ? round_trip(b, "model", &bytes) : NULL;
    uint32_t *s = calloc((size_t)A.flat->n_inputs + (size_t)A.flat->n_ops + 1, sizeof *s);
    if (p && s) {
        pp_error err = {0};
        CHECK(pp_shard_bridge_check(b, p, &err) == PP_OK);
        CHECK_EQ_INT(p->node_count, A.flat->n_inputs + A.flat->n_ops);
        CHECK_EQ_INT(p->usage_limit, (int64_t)memory);
        bool exact = !has_multi_result_op(&A);
        check_solution(&A, &mesh, b, p, s, exact);
        pp_rng rng;
        pp_rng_seed(&rng, 8, 0);
        for (int r = 0; r < randoms; r++) {
            for (uint32_t n = 0; n < p->node_count; n++)
                s[n] = pp_rng_below(&rng, pp_iopddl_strategy_count(p, n));
            check_solution(&A, &mesh, b, p, s, exact);
        }
    }
    free(s);
    pp_iopddl_free(p);
    pp_shard_bridge_free(b);
    release(&A);
}

/* Strategies by hand, b=2,m=4: a rank-2 tensor has 2 candidate iclasses,
 * (2+1)^2 = 9 strategies (all valid: 256, 32, 64, 16 are divisible by 8); a
 * dot adds its contracted iclass, 4^2 = 16; the scalar constant has 1. */
static void test_mlp_counts(void)
{
    analysed A;
    if (!open_model(&A, PP_DATA_DIR "/mlp.mlir"))
        return;
    pp_shard_mesh mesh = mesh_of("b=2,m=4");
    pp_shard_bridge *b = build(&A, &mesh, 80e9);
    if (b) {
        const pp_iopddl_problem *p = pp_shard_bridge_problem(b);
        const uint32_t want[] = {9, 9, 9, 16, 1, 9, 9, 16}; /* x w1 w2 | y zero zeros z w */
        CHECK_EQ_INT(p->node_count, 8);
        for (uint32_t n = 0; n < 8 && n < p->node_count; n++)
            CHECK_EQ_INT(pp_iopddl_strategy_count(p, n), want[n]);
        /* y lives from op 0 to z (op 3), w from op 4 to the end, arguments throughout */
        CHECK_EQ_INT(p->interval_start[3], 0);
        CHECK_EQ_INT(p->interval_end[3], 4);
        CHECK_EQ_INT(p->interval_start[7], 4);
        CHECK_EQ_INT(p->interval_end[7], 6);
        CHECK_EQ_INT(p->interval_end[0], 6);
        int32_t ic[PP_SHARD_MAX_AXES];
        pp_error err = {0};
        CHECK(pp_shard_bridge_strategy(b, 3, 0, ic, &err) == PP_OK);
        CHECK(ic[0] == -1 && ic[1] == -1);
        CHECK(pp_shard_bridge_strategy(b, 3, 16, ic, &err) == PP_EINPUT);
        /* x unsharded: 256*32 f32 */
        CHECK_EQ_INT(p->node_usage[p->strategy_start[0]], 256 * 32 * 4);
        /* x's strategy 1 is m on its rows (later axes are enumerated first):
         * into an unsharded y it is all-gathered over m, 4 devices of a
         * 64x32 f32 block each; row-major, x's strategies slowest. */
        CHECK(pp_shard_bridge_strategy(b, 0, 1, ic, &err) == PP_OK);
        CHECK(ic[0] == -1 && ic[1] == A.nda->iclass[A.nda->tensors[0].first]);
        CHECK_EQ_INT(p->node_usage[p->strategy_start[0] + 1], 64 * 32 * 4);
        uint32_t e = 0;
        while (e < p->edge_count && !(p->edge_nodes[2 * e] == 0 && p->edge_nodes[2 * e + 1] == 3))
            e++;
        CHECK(e < p->edge_count);
        if (e < p->edge_count)
            CHECK_EQ_INT(p->edge_cost[p->edge_cost_start[e] + 1 * 16 + 0],
                         llround(pp_hw_allgather_time(pp_shard_default_link(), 4, 4 * 64 * 32 * 4) * 1e12));
        uint32_t s[8] = {0, 0, 0, 0, 1, 0, 0, 0};
        uint8_t axes[256];
        CHECK(A.nda->n_names <= 256);
        pp_error_clear(&err);
        CHECK(pp_shard_bridge_layout(b, s, axes, &err) == PP_EINPUT);
        CHECK(strstr(err.message, "node 4: strategy 1 out of range") != NULL);
    }
    pp_shard_bridge_free(b);
    release(&A);
}

/* A problem built for another model, or the same model on another mesh. */
static void test_mismatch(void)
{
    analysed mlp, att;
    if (!open_model(&mlp, PP_DATA_DIR "/mlp.mlir"))
        return;
    if (!open_model(&att, PP_DATA_DIR "/attention.mlir")) {
        release(&mlp);
        return;
    }
    pp_shard_mesh m24 = mesh_of("b=2,m=4"), m34 = mesh_of("b=3,m=4"), m42 = mesh_of("b=4,m=2");
    pp_shard_bridge *b = build(&mlp, &m24, 80e9), *other = build(&att, &m24, 80e9), *b34 = build(&mlp, &m34, 80e9);
    pp_shard_bridge *b42 = build(&mlp, &m42, 80e9), *small = build(&mlp, &m24, 1e9);
    long bytes;
    pp_iopddl_problem *p = b ? round_trip(b, "mlp", &bytes) : NULL;
    pp_error err = {0};
    if (p && other && b34) {
        CHECK(pp_shard_bridge_check(other, p, &err) == PP_EINPUT);
        CHECK(strstr(err.message, "'mlp' has 8 nodes") != NULL);
        pp_error_clear(&err);
        CHECK(pp_shard_bridge_check(b34, p, &err) == PP_EINPUT);
        CHECK(strstr(err.message, "the strategy count of node 0 is 9, this model and mesh give 3") != NULL);
        /* the same shape on the mesh turned round, another memory limit, an edited cost */
        pp_error_clear(&err);
        CHECK(pp_iopddl_strategy_count(pp_shard_bridge_problem(b42), 0) == pp_iopddl_strategy_count(p, 0));
        CHECK(pp_shard_bridge_check(b42, p, &err) == PP_EINPUT);
        CHECK(strstr(err.message, "(counted over all") != NULL);
        pp_error_clear(&err);
        CHECK(pp_shard_bridge_check(small, p, &err) == PP_EINPUT);
        CHECK(strstr(err.message, "the usage limit (bytes per device) is 80000000000, this model and mesh give "
                                  "1000000000") != NULL);
        pp_error_clear(&err);
        p->node_cost[5] += 1;
        CHECK(pp_shard_bridge_check(b, p, &err) == PP_EINPUT);
        CHECK(strstr(err.message, "the cost of strategy 5 (counted over all nodes) is") != NULL);
    }
    pp_shard_bridge_free(b42);
    pp_shard_bridge_free(small);
    pp_iopddl_free(p);
    pp_shard_bridge_free(b);
    pp_shard_bridge_free(other);
    pp_shard_bridge_free(b34);
    release(&mlp);
    release(&att);
}

/* Solves the bridge's problem briefly; the layout of the answer must be
 * faster than no sharding (base) and fit `memory`, and the solver's cost
 * must be the cost model's runtime. */
static void solve(const analysed *A, const pp_shard_mesh *mesh, const pp_shard_bridge *b, double memory,
                  const pp_shard_cost *base, const char *label)
{
    const pp_iopddl_problem *p = pp_shard_bridge_problem(b);
    pp_iopddl_options o;
    pp_iopddl_options_default(&o);
    o.time_limit = 1.5;
    o.threads = 2;
    o.seed = 8;
    pp_iopddl_result r;
    memset(&r, 0, sizeof r);
    pp_error err = {0};
    pp_status st = pp_iopddl_solve(p, &o, &r, &err);
    CHECK(st == PP_OK && r.feasible);
    pp_shard_cost best;
    if (st == PP_OK && model_cost(A, mesh, b, r.strategies, &best)) {
        CHECK(best.runtime < base->runtime);
        CHECK(best.peak_memory <= memory);
        CHECK(fabs((double)r.cost - best.runtime * 1e12) <= 0.5 * (p->node_count + p->edge_count) + 1e-9 * r.cost);
        fprintf(stderr,
                "chess %s: iopddl (%.1f s, 2 threads) %.4g s (unsharded %.4g s), peak %.4g MB "
                "(unsharded %.4g MB, limit %.4g MB), best found at %.3f s\n",
                label, o.time_limit, best.runtime, base->runtime, best.peak_memory / 1e6, base->peak_memory / 1e6,
                memory / 1e6, r.time_best);
    }
    pp_iopddl_result_free(&r);
}

/* The contest's solver on the chess problem beats no sharding and fits the
 * A100's memory, and half the unsharded peak, which no sharding exceeds. */
static void test_chess_solve(void)
{
    analysed A;
    if (!open_model(&A, CHESS))
        return;
    pp_shard_mesh mesh = mesh_of("b=3,m=4");
    double t0 = pp_now();
    pp_shard_bridge *b = build(&A, &mesh, a100->memory_bytes);
    double t_build = pp_now() - t0;
    long bytes = 0;
    pp_iopddl_problem *p = b ? round_trip(b, "chess", &bytes) : NULL;
    uint32_t *zero = calloc((size_t)A.flat->n_inputs + (size_t)A.flat->n_ops, sizeof *zero);
    pp_shard_cost base, comb;
    pp_shard_state s = {0};
    pp_error err = {0};
    if (p && zero && model_cost(&A, &mesh, b, zero, &base)) {
        fprintf(stderr, "chess b=3,m=4: %u nodes, %u edges, %ld bytes of JSON, built in %.3f s\n", p->node_count,
                p->edge_count, bytes, t_build);
        CHECK(pp_shard_baseline_combined(A.nda, &mesh, &s, &err) == PP_OK);
        CHECK(pp_shard_cost_eval(A.flat, A.nda, &mesh, &s, &comb, &err) == PP_OK);
        pp_shard_state_free(&s);
        fprintf(stderr, "chess b=3,m=4: combined baseline %.4g s, peak %.4g MB\n", comb.runtime,
                comb.peak_memory / 1e6);
        solve(&A, &mesh, b, a100->memory_bytes, &base, "A100 memory");
        pp_shard_bridge *tight = build(&A, &mesh, base.peak_memory / 2);
        if (tight)
            solve(&A, &mesh, tight, base.peak_memory / 2, &base, "half the unsharded peak");
        pp_shard_bridge_free(tight);
    }
    free(zero);
    pp_iopddl_free(p);
    pp_shard_bridge_free(b);
    release(&A);
}

int main(void)
{
    pp_hw_catalog *cat = NULL;
    pp_error err = {0};
    CHECK(pp_hw_catalog_builtin(&cat, &err) == PP_OK);
    a100 = cat ? pp_hw_find(cat, "a100-80gb") : NULL;
    CHECK(a100 != NULL);
    if (a100) {
        test_mlp_counts();
        test_mismatch();
        check_model(PP_DATA_DIR "/mlp.mlir", "b=2,m=4", 80e9, 50);
        check_model(PP_DATA_DIR "/attention.mlir", "b=2,m=4", 80e9, 50);
        check_model(CHESS, "b=3,m=4", a100->memory_bytes, 50);
        check_model(CHESS, "b=2,m=4", a100->memory_bytes, 10);
        test_chess_solve();
    }
    pp_hw_catalog_free(cat);
    return CHECK_DONE();
}
