/* test_models.c: real models planned, each checked for what a user would
 * ask of its plan. The bundled chess model on the bundled clusters, one of
 * one device type (dgx-a100-4: 32 A100s) and one of two (hetero-v100-16:
 * 8 RTX 4090D and 8 V100): each plan passes the independent check, its
 * step time is the simulator's and the search's own within 2%, no
 * baseline that applies is faster, and it is ready within its time limit
 * (+10%). With the shared models present, the same for ResNet-50 on the
 * hetero cluster (skipped by name when absent). GPT-3 2.7B's shape
 * (bench/plan-gpt) on 32 A100s: the joint plan beats both the sharder
 * alone and pipeline only. The CLI's --json carries the report (on the
 * bundled tiny MoE: the chess model's plan on that cluster is plan_one's
 * above, and the JSON's fields do not depend on the model; 1 s of the
 * command's 7 at load 5). Its checks are of the plans' worth, run in the
 * plain build; the sanitizer build leaves it out (tests/CMakeLists.txt),
 * its lines being run there by the other plan tests. */
#include <unistd.h>
#include "cli_run.h"
#include "fixture.h"
#include "transformer.h"

#define CHESS PP_SOURCE_DIR "/examples/shard/searchless_chess_9m.mlir"
#define MOE_TINY PP_SOURCE_DIR "/examples/shard/moe-tiny.mlir"
#define CLUSTERS PP_SOURCE_DIR "/examples/cluster/"
#define SHARED PP_SOURCE_DIR "/../shared/models/stablehlo/"

static void plan_one(const char *module, const char *cluster)
{
    pp_plan_request req = file_request(module, cluster, 30);
    req.threads = 0;
    pp_plan_report r;
    pp_error err = {0};
    double start = pp_now();
    pp_status st = pp_plan(&req, &r, &err);
    if (st != PP_OK) {
        fprintf(stderr, "%s on %s: %s\n", module, cluster, err.message);
        check_failures++;
    } else {
        char what[512];
        snprintf(what, sizeof what, "%s on %s", module, cluster);
        check_plan(what, &r, &req);
        CHECK(!r.holds_backward); /* every bundled and shared model is a forward pass */
        /* on two device types Megatron's uniform plan says why it does not apply */
        const pp_plan_baseline *m = &r.baselines[PP_PLAN_MEGATRON];
        CHECK(strstr(cluster, "hetero") ? !m->applies && strstr(m->why, "one device type") : m->applies);
        check_in_time(what, pp_now() - start, &req);
    }
    pp_plan_report_free(&r);
}

/* GPT-3 2.7B's shape as bench/plan-gpt writes it (32 layers, width 2560,
 * 32 heads, a sequence of 1024), on 32 A100s: the joint plan pipelines, and
 * beats the sharder alone and pipeline only, both of which fit. */
static void deep_gpt(void)
{
    size_t size;
    char *text = transformer_text("--layers 32 --hidden 2560 --heads 32 --seq 1024 --batch 1 --arch gpt --style jax "
                                  "--vocab 50257", &size);
    CHECK(text != NULL);
    if (!text)
        return;
    pp_plan_request req = text_request("gpt3-2.7b.mlir", text, size, CLUSTERS "dgx-a100-4.json", 60);
    pp_plan_report r;
    pp_error err = {0};
    CHECK(pp_plan(&req, &r, &err) == PP_OK);
    if (r.n_stages > 0) {
        check_plan("gpt3-2.7b on dgx-a100-4", &r, &req);
        CHECK(r.n_stages >= 2);
        for (int k = PP_PLAN_SHARDER_ALONE; k <= PP_PLAN_PIPELINE_ONLY; k++)
            CHECK(r.baselines[k].applies && r.step_time < r.baselines[k].step_time);
    } else
        fprintf(stderr, "gpt3-2.7b: %s\n", err.message);
    pp_plan_report_free(&r);
    free(text);
}

int main(void)
{
    deep_gpt();
    plan_one(CHESS, CLUSTERS "dgx-a100-4.json");
    plan_one(CHESS, CLUSTERS "hetero-v100-16.json");
    /* The shared folder's chess model is the bundled file (the same bytes),
     * planned on this cluster above. */
    const char *shared[] = {"jax_resnet_50.mlir"};
    for (size_t k = 0; k < sizeof shared / sizeof *shared; k++) {
        char path[1024];
        snprintf(path, sizeof path, "%s%s", SHARED, shared[k]);
        if (access(path, R_OK) != 0) {
            fprintf(stderr, "skipped: %s (absent)\n", path);
            continue;
        }
        plan_one(path, CLUSTERS "hetero-v100-16.json");
    }
    expect(PP_CLI " plan " MOE_TINY " --cluster " CLUSTERS "dgx-a100-4.json --timeout 20 --json | "
           "python3 -c 'import json,sys; d=json.load(sys.stdin); "
           "print(\"ok\" if d[\"step_time\"] > 0 and len(d[\"stages\"]) >= 1 and len(d[\"baselines\"]) == 4 else \"bad\")'",
           0, "ok");
    return CHECK_DONE();
}
