/* test_gen_model.c: `parplan gen model` as a user meets it. Its help comes
 * from the flag table; the MoE layer's problem, scheduled on 4 devices by
 * `parplan schedule --svg`, passes `parplan check-schedule`, and the SVG
 * draws forward expert ops on more than one device; --cluster takes the
 * type and the slowest link of the devices it names. A missing file, an
 * unknown --device-type, --devices 0, a cluster of mixed types or too few
 * devices, and --device-type with --cluster exit 2 with the reason. */
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "cli_run.h"

#define MOE PP_SOURCE_DIR "/examples/shard/moe-tiny.mlir"
#define CLUSTERS PP_SOURCE_DIR "/examples/cluster"

static char dir[] = "/tmp/parplan-gen-model-XXXXXX";

static void help(void)
{
    char command[512];
    snprintf(command, sizeof command, "%s help gen model", PP_CLI);
    expect(command, 0, "usage: parplan gen model MODEL.mlir --devices N");
}

/* Device rows holding "forward expert" boxes in the SVG at path, as bits. */
static unsigned expert_rows(const char *path)
{
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    if (!f)
        return 0;
    unsigned rows = 0;
    char line[1024];
    const char *tag = "<title>forward expert on d";
    while (fgets(line, sizeof line, f))
        for (const char *at = line; (at = strstr(at, tag)); at++)
            rows |= 1u << atoi(at + strlen(tag));
    fclose(f);
    return rows;
}

static void scheduled_and_checked(void)
{
    char command[2048];
    snprintf(command, sizeof command, "%s gen model %s --devices 4 --device-type h100 --out %s/p.json", PP_CLI,
             MOE, dir);
    expect(command, 0, NULL);
    snprintf(command, sizeof command,
             "%s schedule %s/p.json --timeout 2 --threads 1 --out %s/s.json --svg %s/s.svg --quiet", PP_CLI, dir,
             dir, dir);
    expect(command, 0, NULL);
    snprintf(command, sizeof command, "%s check-schedule %s/p.json %s/s.json", PP_CLI, dir, dir);
    expect(command, 0, NULL);
    char svg[300];
    snprintf(svg, sizeof svg, "%s/s.svg", dir);
    CHECK(__builtin_popcount(expert_rows(svg)) >= 2);
}

/* dgx-a100-16: nodes of 8 A100s, NVLink inside, InfiniBand between: the
 * first 8 devices stay on NVLink, the first 16 cross two nodes' NICs. */
static double longest_comm(int devices)
{
    char command[2048], path[300];
    snprintf(path, sizeof path, "%s/c%d.json", dir, devices);
    snprintf(command, sizeof command, "%s gen model %s --devices %d --cluster %s/dgx-a100-16.json --out %s", PP_CLI,
             MOE, devices, CLUSTERS, path);
    expect(command, 0, NULL);
    json_error_t jerr;
    json_t *p = json_load_file(path, 0, &jerr);
    double comm = 0;
    json_t *dep;
    size_t k;
    json_array_foreach(json_object_get(p, "deps"), k, dep)
        if (json_number_value(json_object_get(dep, "comm")) > comm)
            comm = json_number_value(json_object_get(dep, "comm"));
    CHECK_EQ_INT(json_array_size(json_object_get(p, "devices")), devices);
    json_decref(p);
    return comm;
}

static void from_cluster(void)
{
    double inside = longest_comm(8), across = longest_comm(16);
    CHECK(inside > 0 && across > 2 * inside);
}

static void refused(void)
{
    char command[2048];
    snprintf(command, sizeof command, "%s gen model %s/none.mlir --devices 2", PP_CLI, dir);
    expect(command, 2, "none.mlir: No such file or directory");
    snprintf(command, sizeof command, "%s gen model %s --devices 2 --device-type tpu9", PP_CLI, MOE);
    expect(command, 2, "--device-type tpu9: no such device type (known: A100-80GB-SXM");
    snprintf(command, sizeof command, "%s gen model %s --devices 0", PP_CLI, MOE);
    expect(command, 2, "--devices 0: allowed: a whole number from 1 to 4096");
    snprintf(command, sizeof command, "%s gen model %s --devices 8 --cluster %s/hetero-v100-8.json", PP_CLI, MOE,
             CLUSTERS);
    expect(command, 2, "device 4 is a V100-32GB-SXM2, device 0 a RTX-4090D");
    snprintf(command, sizeof command, "%s gen model %s --devices 65 --cluster %s/dgx-a100-8.json", PP_CLI, MOE,
             CLUSTERS);
    expect(command, 2, "--devices 65: the cluster dgx-a100-8 has 64 devices");
    snprintf(command, sizeof command, "%s gen model %s --devices 2 --device-type a100 --cluster %s/dgx-a100-8.json",
             PP_CLI, MOE, CLUSTERS);
    expect(command, 2, "--device-type and --cluster exclude each other");
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    help();
    scheduled_and_checked();
    from_cluster();
    refused();
    char command[300];
    snprintf(command, sizeof command, "rm -rf %s", dir);
    CHECK_EQ_INT(system(command), 0);
    return CHECK_DONE();
}
