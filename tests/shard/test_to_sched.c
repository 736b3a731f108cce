/* test_to_sched.c: the scheduling problem of a StableHLO module
 * (pp_shard_to_sched) on the bundled MoE layer: its four experts come out as
 * branches with no path between them, forward and backward; a product's time
 * is the roofline's, worked out here from the datasheet's figures, its
 * backward twice that, a transfer the link's latency plus bytes over
 * bandwidth, the activations held from forward to backward on one device;
 * the forward ops add up to the sharder's unsharded compute time. Scheduled
 * on 1, 2, 4 and 8 devices, every schedule passes the checker, keeps each
 * backward op with its forward op, and on 4 devices takes under half the
 * 1-device makespan with the experts on several devices, which the SVG
 * shows. Bad input is refused with the file or the field named. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "hw/hw_internal.h"
#include "sched_solved.h"
#include "parplan/shard_sched.h"
#include "shard/shard_internal.h"

#define MOE PP_SOURCE_DIR "/examples/shard/moe-tiny.mlir"

static pp_hw_catalog *catalog;

static pp_shard_sched_options options(int devices)
{
    pp_shard_sched_options o;
    pp_shard_sched_options_default(&o);
    o.devices = devices;
    o.device = pp_hw_find(catalog, "a100");
    o.catalog = catalog;
    return o;
}

static pp_sched_problem *moe(int devices)
{
    pp_shard_sched_options o = options(devices);
    pp_sched_problem *p = NULL;
    pp_error err = {0};
    if (pp_shard_sched_from_file(MOE, &o, &p, &err) != PP_OK) {
        fprintf(stderr, "%s\n", err.message);
        check_failures++;
    }
    return p;
}

/* The expert (1..4) an op belongs to by the shard reader's label of its
 * first result, "%3@expert#2": call path 2, the second expert; 0 for none. */
static int expert_of(const pp_sched_problem *p, int op)
{
    const char *at = strstr(p->op_name[op], "@expert#");
    return at ? atoi(at + strlen("@expert#")) : 0;
}

/* reach[a * n + b]: a path leads from op a to op b. */
static unsigned char *reachability(const pp_sched_problem *p)
{
    int n = p->op_count;
    unsigned char *reach = calloc((size_t)n * n, 1);
    for (int k = n - 1; k >= 0; k--) {
        int a = p->topo_order[k];
        for (int j = p->succ_start[a]; j < p->succ_start[a + 1]; j++) {
            int b = p->dep_to[p->succ_dep[j]];
            reach[a * n + b] = 1;
            for (int c = 0; c < n; c++)
                reach[a * n + c] |= reach[b * n + c];
        }
    }
    return reach;
}

static bool forward(const pp_sched_problem *p, int op) { return p->op_name[op][0] == 'F'; }

static void experts_are_branches(void)
{
    pp_sched_problem *p = moe(4);
    if (!p)
        return;
    int n = p->op_count, per_expert[5] = {0};
    CHECK_EQ_INT(n, 32);
    for (int i = 0; i < n; i++)
        per_expert[expert_of(p, i)]++;
    for (int e = 1; e <= 4; e++)
        CHECK_EQ_INT(per_expert[e], 4); /* two products, forward and backward */
    unsigned char *reach = reachability(p);
    int paths = 0, within = 0;
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) {
            int ea = expert_of(p, a), eb = expert_of(p, b);
            if (!ea || !eb || !reach[a * n + b] || forward(p, a) != forward(p, b))
                continue;
            paths += ea != eb;
            within += ea == eb;
        }
    CHECK_EQ_INT(paths, 0);
    CHECK_EQ_INT(within, 8); /* each expert's first product before its second, and back */
    free(reach);
    pp_sched_problem_free(p);
}

/* The second product of an expert, (256 x 1024) x (1024 x 512) in f32, on
 * an A100 (FP32 19.5e12 FLOP/s, 2039e9 bytes/s): compute-bound. */
static void roofline_times(void)
{
    pp_sched_problem *p = moe(4);
    if (!p)
        return;
    int f = pp_sched_find_op(p, "F2 dot_general %3@expert#1");
    int b = pp_sched_find_op(p, "B2 dot_general %3@expert#1");
    int first = pp_sched_find_op(p, "F1 dot_general %0@expert#1");
    CHECK(f >= 0 && b >= 0 && first >= 0);
    if (f < 0 || b < 0 || first < 0)
        return;
    double flops = 2.0 * 256 * 1024 * 512, bytes = 4.0 * (256 * 1024 + 1024 * 512 + 256 * 512);
    double micros = fmax(flops / 19.5e12, bytes / 2039e9) * 1e6;
    CHECK(fabs(micros - 13.7659208) < 1e-6);
    CHECK(p->time_unit && strcmp(p->time_unit, "us") == 0); /* the pictures' axes say so */
    CHECK(fabs(p->duration[f] - micros) < 1e-9 * micros);
    CHECK(fabs(p->duration[b] - 2 * micros) < 1e-9 * micros);
    /* The first product's ReLU output (256 x 1024 f32) goes to the second:
     * NVLink's 5 us plus 1 MiB at 300e9 bytes/s; it is also the first
     * product's activation, held until its backward op ends, there. */
    double mib = 1024.0 * 1024, comm = (5e-6 + mib / 300e9) * 1e6;
    bool found = false;
    for (int e = 0; e < p->dep_count; e++)
        if (p->dep_from[e] == first && p->dep_to[e] == f) {
            found = true;
            CHECK(fabs(p->dep_comm[e] - comm) < 1e-9 * comm);
        }
    CHECK(found);
    int back = pp_sched_find_op(p, "B1 dot_general %0@expert#1");
    CHECK(back >= 0 && p->adjust[first] == mib && p->adjust[back] == -mib);
    CHECK(back >= 0 && p->group[back] == first && p->group[first] == first);
    CHECK(p->weight[first] == 4.0 * (256 * 512 + 512 * 1024)); /* the input and W1 */
    CHECK_EQ_INT(p->device_count, 4);
    CHECK(p->capacity[0] == 85899345920.0);
    pp_sched_problem_free(p);
}

/* The forward ops' times add up to the sharder's own unsharded compute time. */
static void forward_sums_to_cost_model(void)
{
    pp_sched_problem *p = moe(1);
    pp_shard_module *m = NULL;
    pp_shard_flat *flat = NULL;
    pp_shard_nda *nda = NULL;
    pp_error err = {0};
    pp_shard_mesh mesh;
    CHECK_EQ_INT(pp_shard_module_load(MOE, &m, &err), PP_OK);
    CHECK_EQ_INT(pp_shard_module_flatten(m, 0, &flat, &err), PP_OK);
    CHECK_EQ_INT(pp_shard_nda_run(flat, &nda, &err), PP_OK);
    CHECK_EQ_INT(pp_shard_mesh_parse("x=1", pp_hw_find(catalog, "a100"), pp_shard_default_link(), &mesh, &err),
                 PP_OK);
    pp_shard_mesh_set_peaks(&mesh, catalog);
    pp_shard_state none = {0};
    pp_shard_cost cost;
    CHECK_EQ_INT(pp_shard_cost_eval(flat, nda, &mesh, &none, &cost, &err), PP_OK);
    double sum = 0;
    for (int i = 0; p && i < p->op_count; i++)
        sum += forward(p, i) ? p->duration[i] : 0;
    CHECK(p && fabs(sum - cost.compute_time * 1e6) < 1e-9 * sum);
    pp_shard_nda_free(nda);
    pp_shard_flat_free(flat);
    pp_shard_module_free(m);
    pp_sched_problem_free(p);
}

/* Schedules, checks, and returns the makespan; the schedule is kept. */
static double schedule(const pp_sched_problem *p, pp_sched_schedule **keep)
{
    pp_sched_options o;
    pp_sched_options_default(&o);
    o.threads = 1;
    o.time_limit = 1;
    return solve_checked(p, &o, keep);
}

/* Device rows on which the SVG draws "forward expert" boxes, as a bit set. */
static unsigned svg_expert_rows(const pp_sched_problem *p, const pp_sched_schedule *s)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    pp_error err = {0};
    CHECK_EQ_INT(pp_sched_write_svg(p, s, f, &err), PP_OK);
    fclose(f);
    unsigned rows = 0;
    for (const char *at = text; (at = strstr(at, "<title>forward expert on d")); at++)
        rows |= 1u << atoi(at + strlen("<title>forward expert on d"));
    free(text);
    return rows;
}

static void experts_in_parallel(void)
{
    double one = NAN;
    int counts[] = {1, 2, 4, 8};
    for (int k = 0; k < 4; k++) {
        pp_sched_problem *p = moe(counts[k]);
        pp_sched_schedule *s = NULL;
        double makespan = p ? schedule(p, &s) : NAN;
        if (!s) {
            pp_sched_problem_free(p);
            continue;
        }
        unsigned used = 0;
        for (int i = 0; i < p->op_count; i++)
            if (expert_of(p, i))
                used |= 1u << s->device[i];
        CHECK_EQ_INT(svg_expert_rows(p, s), used);
        if (counts[k] == 1)
            one = makespan;
        else
            CHECK(makespan < one);
        if (counts[k] == 4) {
            CHECK(makespan < 0.5 * one);
            CHECK(__builtin_popcount(used) >= 3);
        }
        pp_sched_schedule_free(s);
        pp_sched_problem_free(p);
    }
}

static void bad_input(void)
{
    pp_shard_sched_options o = options(4);
    pp_sched_problem *p = NULL;
    pp_error err = {0};
    CHECK_EQ_INT(pp_shard_sched_from_file(PP_DATA_DIR "/no-such.mlir", &o, &p, &err), PP_EIO);
    CHECK(strstr(err.message, "no-such.mlir") != NULL);
    CHECK(p == NULL);
    o.devices = 0;
    err = (pp_error){0};
    CHECK_EQ_INT(pp_shard_sched_from_file(MOE, &o, &p, &err), PP_EARG);
    CHECK(strstr(err.message, "devices: 0") != NULL);
    o = options(2);
    o.device = NULL;
    err = (pp_error){0};
    CHECK_EQ_INT(pp_shard_sched_from_file(MOE, &o, &p, &err), PP_EARG);
    CHECK(strstr(err.message, "device type") != NULL);
    o = options(2);
    o.link.bandwidth = 0;
    err = (pp_error){0};
    CHECK_EQ_INT(pp_shard_sched_from_file(MOE, &o, &p, &err), PP_EARG);
    CHECK(strstr(err.message, "link: bandwidth 0 bytes/s") != NULL);
}

int main(void)
{
    pp_error err = {0};
    if (pp_hw_catalog_builtin(&catalog, &err) != PP_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    experts_are_branches();
    roofline_times();
    forward_sums_to_cost_model();
    experts_in_parallel();
    bad_input();
    pp_hw_catalog_free(catalog);
    return CHECK_DONE();
}
