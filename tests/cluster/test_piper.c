/* test_piper.c: Piper profiles as workloads: both profiles shipped in
 * examples/piper (bert32a100, gnmt) checked against an
 * independent reading of the same JSON, a hand-made three-node graph with a
 * skip edge worked by hand, and malformed graphs refused with their place
 * (a cycle, an unknown endpoint, a negative number, an edge twice, a sync
 * map naming a missing edge). */
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "check.h"
#include "parplan/cluster.h"
#include "cluster/workload_internal.h"
#include "hw/hw_internal.h"

#define SHARED_PIPER PP_SOURCE_DIR "/examples/piper"

static int close_to(double got, double want)
{
    return fabs(got - want) <= 1e-12 * fabs(want);
}

static double a100_rate(const pp_hw_catalog *cat)
{
    const pp_hw_device_type *t = pp_hw_find(cat, "A100-80GB-SXM");
    return t ? t->peak_flops * t->efficiency_compute : NAN;
}

/* Sum of the degree-1 "vanilla" timePerSample over the nodes, and the
 * node count, read with jansson directly. */
static double vanilla_time(const char *path, int *nodes)
{
    json_error_t e;
    json_t *root = json_load_file(path, 0, &e);
    json_t *list = json_object_get(root, "nodes");
    double sum = 0;
    *nodes = (int)json_array_size(list);
    for (size_t i = 0; i < json_array_size(list); i++) {
        json_t *options = json_object_get(json_object_get(json_array_get(list, i), "TMPCs"), "1");
        for (size_t k = 0; k < json_array_size(options); k++) {
            json_t *o = json_array_get(options, k);
            if (strcmp(json_string_value(json_object_get(o, "id")), "vanilla") == 0)
                sum += json_number_value(json_object_get(o, "timePerSample"));
        }
    }
    json_decref(root);
    return sum;
}

static void test_shared(const pp_hw_catalog *cat, const char *path, int layers, int tp,
                        int64_t batch)
{
    pp_cluster_workload *w = NULL;
    pp_error err = {0};
    CHECK_EQ_INT(pp_cluster_workload_load(path, cat, &w, &err), PP_OK);
    if (!w) {
        fprintf(stderr, "%s\n", err.message);
        return;
    }
    int nodes = 0;
    double time = vanilla_time(path, &nodes);
    CHECK_EQ_INT(nodes, layers);
    CHECK_EQ_INT(w->layer_count, layers);
    CHECK_EQ_INT(w->tp_divisor, tp);
    CHECK_EQ_INT(w->global_batch, batch);
    CHECK(!w->recompute);
    double flops = 0;
    for (int k = 0; k < w->layer_count; k++) {
        const pp_cluster_layer *l = &w->layers[k];
        CHECK(close_to(l->backward_flops, 2 * l->forward_flops) || l->forward_flops == 0);
        CHECK(l->recompute_flops >= 0 && l->output_bytes >= 0);
        flops += l->forward_flops + l->backward_flops;
    }
    CHECK(w->layers[w->layer_count - 1].output_bytes == 0);
    CHECK(close_to(flops, time * a100_rate(cat)));
    pp_cluster_workload_free(w);
}

/* Nodes listed 2, 0, 1; edges 0 -> 2 (10 bytes), 2 -> 1 (20) and the skip
 * edge 0 -> 1 (5). Order 0, 2, 1; the cut after node 0 carries 10 + 5, the
 * one after node 2 carries 20 + 5. */
static void test_skip_edge(const pp_hw_catalog *cat)
{
    pp_cluster_workload *w = NULL;
    pp_error err = {0};
    CHECK_EQ_INT(pp_cluster_workload_load(PP_DATA_DIR "/workload-piper-skip.json", cat, &w, &err),
                 PP_OK);
    if (!w) {
        fprintf(stderr, "%s\n", err.message);
        return;
    }
    double rate = a100_rate(cat);
    CHECK_EQ_INT(w->layer_count, 3);
    CHECK(strcmp(w->name, "workload-piper-skip.json") == 0);
    CHECK(strcmp(w->layers[0].name, "first") == 0);
    CHECK(strcmp(w->layers[1].name, "mid") == 0);
    CHECK(strcmp(w->layers[2].name, "node1") == 0);
    CHECK(w->layers[0].output_bytes == 15);
    CHECK(w->layers[1].output_bytes == 25);
    CHECK(w->layers[2].output_bytes == 0);
    /* node 0: 0.003 s vanilla, 0.00375 s with recomputation */
    const pp_cluster_layer *l = &w->layers[0];
    CHECK(close_to(l->forward_flops, 0.001 * rate));
    CHECK(close_to(l->backward_flops, 0.002 * rate));
    CHECK(close_to(l->recompute_flops, 0.00075 * rate));
    CHECK(l->gradient_bytes == 1000 && l->state_bytes == 2000);
    CHECK(l->activation_bytes == 100 && l->checkpoint_bytes == 10);
    CHECK(l->weight_bytes == 0 && l->traffic_bytes == 0);
    /* degree 2's syncTimeFw is 7 per incoming edge, syncTimeBw 3 per outgoing */
    CHECK(l->tp_forward_bytes == 0 && l->tp_backward_bytes == 6);
    CHECK(w->layers[1].tp_forward_bytes == 7 && w->layers[1].tp_backward_bytes == 3);
    CHECK(w->layers[2].tp_forward_bytes == 14 && w->layers[2].tp_backward_bytes == 0);
    /* node 2 (position 1): 0.006 s */
    CHECK(close_to(w->layers[1].forward_flops, 0.002 * rate));
    CHECK(w->layers[1].state_bytes == 6000);
    CHECK_EQ_INT(w->tp_divisor, 2);
    CHECK_EQ_INT(w->global_batch, 8);
    pp_cluster_workload_free(w);
}

static void expect_error(const pp_hw_catalog *cat, const char *file, pp_status status,
                         const char *a, const char *b)
{
    pp_cluster_workload *w = NULL;
    pp_error err = {0};
    CHECK_EQ_INT(pp_cluster_workload_load(file, cat, &w, &err), status);
    CHECK(w == NULL);
    CHECK(strstr(err.message, file) != NULL);
    CHECK(strstr(err.message, a) != NULL);
    CHECK(!b || strstr(err.message, b) != NULL);
    if (!strstr(err.message, a) || (b && !strstr(err.message, b)))
        fprintf(stderr, "message: %s\n", err.message);
}

static void test_errors(const pp_hw_catalog *cat)
{
    expect_error(cat, PP_DATA_DIR "/workload-piper-cycle.json", PP_EINPUT,
                 "workload-piper-cycle.json:194:11: edges: a cycle",
                 "through node");
    expect_error(cat, PP_DATA_DIR "/workload-piper-unknown.json", PP_EINPUT,
                 "workload-piper-unknown.json:112:14: edges[1].destId",
                 "no node has id 7");
    expect_error(cat, PP_DATA_DIR "/workload-piper-negative.json", PP_EINPUT,
                 "workload-piper-negative.json:57:23: nodes[1].TMPCs.1[0].memoryUsageA", ">= 0");
    expect_error(cat, PP_DATA_DIR "/workload-piper-duplicate.json", PP_EINPUT,
                 "workload-piper-duplicate.json:98:3: edges[1]",
                 "also edges[0]");
    expect_error(cat, PP_DATA_DIR "/workload-piper-sync.json", PP_EINPUT,
                 "workload-piper-sync.json:41:21: nodes[0].TMPCs.2[0].syncTimeFw", "there is no edge 1 -> 0");
    /* Without the profiling device FLOPs cannot be priced. */
    expect_error(NULL, PP_DATA_DIR "/workload-piper-skip.json", PP_EARG, "A100-80GB-SXM", NULL);
}

int main(void)
{
    pp_hw_catalog *cat = NULL;
    pp_error err = {0};
    CHECK_EQ_INT(pp_hw_catalog_builtin(&cat, &err), PP_OK);
    if (!cat)
        return CHECK_DONE();
    test_shared(cat, SHARED_PIPER "/bert32a100.json", 37, 8, 1920);
    test_shared(cat, SHARED_PIPER "/gnmt.json", 78, 1, 256);
    test_skip_edge(cat);
    test_errors(cat);
    pp_hw_catalog_free(cat);
    return CHECK_DONE();
}
