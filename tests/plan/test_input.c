/* test_input.c: what pp_plan and `parplan plan` do with input that does
 * not plan as it stands: a module with no repeated layers is one stage and
 * says why; a cluster too small for the model's memory is PP_INFEASIBLE
 * (exit 1) with each short device's need and capacity; a device type the
 * catalog lacks is refused naming it; a batch that is not a multiple of
 * the module's is refused; a module that holds its backward pass gets no
 * second one, and is one stage saying why; so are the training steps of
 * bench/shard-gen-transformer --train, jax's and torch's shapes. --out DIR writes the report, a Chrome trace and an
 * SVG of the simulated step. */
#include <unistd.h>
#include "cli_run.h"
#include "core/timeline_internal.h"
#include "fixture.h"
#include "transformer.h"

#define MOE PP_SOURCE_DIR "/examples/shard/moe-tiny.mlir"
#define CHESS PP_SOURCE_DIR "/examples/shard/searchless_chess_9m.mlir"
#define CLUSTERS PP_SOURCE_DIR "/examples/cluster/"

static void no_layers(void)
{
    pp_plan_request req = file_request(MOE, PP_SOURCE_DIR "/examples/cluster/dgx-a100-4.json", 20);
    pp_plan_report r;
    pp_error err = {0};
    CHECK(pp_plan(&req, &r, &err) == PP_OK);
    CHECK(r.n_units == 1 && r.n_stages == 1);
    CHECK(r.why_one_stage && strstr(r.why_one_stage, "no repeated layers"));
    if (r.n_stages > 0)
        check_plan("moe-tiny", &r, &req);
    CHECK(r.timeline && pp_timeline_box_count(r.timeline) > 0);
    pp_plan_report_free(&r);
    /* --out DIR: the report and the simulated step, a trace that loads and an SVG */
    char dir[] = "/tmp/pp_plan_outXXXXXX", cmd[2048];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(cmd, sizeof cmd, "%s plan %s --cluster %s --timeout 20 --out %s/o >/dev/null 2>&1 && python3 -c "
             "'import json,sys; d=sys.argv[1]; p=json.load(open(d+\"/plan.json\")); t=json.load(open(d+\"/step.trace.json\"));"
             " s=open(d+\"/step.svg\").read(); print(\"ok\" if p[\"stages\"] and t[\"traceEvents\"] and \"<svg\" in s else \"bad\")' %s/o",
             PP_CLI, MOE, PP_SOURCE_DIR "/examples/cluster/dgx-a100-4.json", dir, dir);
    expect(cmd, 0, "ok");
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
}

/* The same blocks as a forward pass and as a training step, on one device
 * (no gradient sync, so a stage's backward is the added one alone): the
 * forward gets a backward, the training step none. */
static void backward(void)
{
    size_t fs, ts, cs;
    char *fwd = chain_module(4, 64, 256, 1024, 0, &fs), *train = train_module(4, 64, 256, 1024, &ts),
         *cluster = one_node("a100", 1, 12.9e9, 15e-6, &cs);
    pp_plan_request req = request(fwd, fs, cluster, cs);
    pp_plan_report r;
    pp_error err = {0};
    CHECK(pp_plan(&req, &r, &err) == PP_OK);
    CHECK(!r.holds_backward && r.n_units == 4 && r.why_one_stage == NULL);
    CHECK(r.n_stages == 1 && r.stages[0].backward > r.stages[0].forward);
    if (r.n_stages > 0)
        check_plan("forward", &r, &req);
    pp_plan_report_free(&r);
    req = request(train, ts, cluster, cs);
    req.module_name = "train.mlir";
    CHECK(pp_plan(&req, &r, &err) == PP_OK);
    CHECK(r.holds_backward && r.n_units == 1);
    CHECK(r.why_one_stage && strstr(r.why_one_stage, "8 of its 12 parameters"));
    CHECK(r.n_stages == 1 && r.stages[0].backward == 0 && r.stages[0].forward > 0);
    if (r.n_stages > 0)
        check_plan("training step", &r, &req);
    pp_plan_report_free(&r);
    free(fwd);
    free(train);
    free(cluster);
}

/* A training step as bench/shard-gen-transformer --train writes it (the
 * forward, the backward's two products per matmul, an SGD update returning
 * the new weights), jax's and torch's shapes: told apart as holding its
 * backward, one stage, none added. Nothing here asks how good the layout
 * is, and the sharder searches a training step until its share of the
 * limit runs out: a short limit (at 20 s, this case was 20 of the test's
 * 48 s). */
static void train_steps(void)
{
    const char *styles[] = {"--arch gpt --style jax", "--arch bert --style torch"};
    for (int k = 0; k < 2; k++) {
        char args[256];
        snprintf(args, sizeof args, "--layers 4 --hidden 256 --heads 4 --seq 128 --batch 4 --vocab 1000 --train %s",
                 styles[k]);
        size_t size;
        char *text = transformer_text(args, &size);
        CHECK(text != NULL);
        if (!text)
            return;
        pp_plan_request req = text_request("train.mlir", text, size, CLUSTERS "dgx-a100-4.json", 4);
        req.threads = 1;
        pp_plan_report r;
        pp_error err = {0};
        CHECK(pp_plan(&req, &r, &err) == PP_OK);
        CHECK(r.holds_backward && r.n_units == 1 && r.why_one_stage && strstr(r.why_one_stage, "backward"));
        if (r.n_stages > 0) {
            check_plan(styles[k], &r, &req);
            /* on one device the backward is the gradient sync inside the mesh alone: none */
            CHECK(r.n_stages == 1 && (r.stages[0].devices > 1 || r.stages[0].backward == 0));
        } else
            fprintf(stderr, "train step (%s): %s\n", styles[k], err.message);
        pp_plan_report_free(&r);
        free(text);
    }
}

static void too_small(void)
{
    size_t cs;
    char *cluster = one_node("a100", 2, 12.9e9, 15e-6, &cs);
    char path[] = "/tmp/pp_plan_clusterXXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0 && write(fd, cluster, cs) == (ssize_t)cs);
    close(fd);
    pp_plan_request req = file_request(CHESS, path, 20);
    req.memory = 100e6;
    pp_plan_report r;
    pp_error err = {0};
    CHECK(pp_plan(&req, &r, &err) == PP_INFEASIBLE);
    CHECK(strstr(err.message, "does not fit") != NULL);
    CHECK(!r.fits && r.n_stages >= 1);
    int short_devices = 0;
    for (int32_t d = 0; d < r.n_devices; d++)
        short_devices += r.peak_memory[d] > r.capacity[d];
    CHECK(short_devices >= 1);
    pp_plan_report_free(&r);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s plan %s --cluster %s --memory 100MB --timeout 20", PP_CLI, CHESS, path);
    expect(cmd, 1, "plan:");
    snprintf(cmd, sizeof cmd, "%s plan %s --cluster %s --memory 100MB --timeout 20 2>&1 | grep -c 'short by'", PP_CLI,
             CHESS, path);
    expect(cmd, 0, "2");
    unlink(path);
    free(cluster);
}

/* A small chain on two devices of `device`, batch `batch` (0: default):
 * pp_plan's status must be `status` and its message hold `needle`. */
static void refused(const char *device, int64_t batch, pp_status status, const char *needle)
{
    size_t ms, cs;
    char *module = chain_module(2, 8, 64, 64, 0, &ms), *cluster = one_node(device, 2, 12.9e9, 15e-6, &cs);
    pp_plan_request req = request(module, ms, cluster, cs);
    req.batch = batch;
    pp_plan_report r;
    pp_error err = {0};
    CHECK(pp_plan(&req, &r, &err) == status);
    if (!strstr(err.message, needle)) {
        fprintf(stderr, "expected \"%s\" in: %s\n", needle, err.message);
        check_failures++;
    }
    pp_plan_report_free(&r);
    free(module);
    free(cluster);
}

static void unknown_type(void)
{
    refused("H999", 0, PP_EINPUT, "H999");
}

static void bad_batch(void)
{
    refused("a100", 12, PP_EARG, "batch 12");
    expect(PP_CLI " plan " CHESS, 2, "--cluster");
}

int main(void)
{
    backward();
    train_steps();
    no_layers();
    too_small();
    unknown_type();
    bad_batch();
    return CHECK_DONE();
}
