/* model_cmd.c: `parplan gen model`, a scheduling problem from a StableHLO
 * module (the library's pp_shard_sched_from_file): the flags, the device
 * type and link from --device-type or --cluster (pp_cluster_devices_link),
 * and the problem written. */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "commands.h"
#include "parplan/cluster_mesh.h"
#include "parplan/shard_sched.h"

typedef struct {
    const char *model, *device_type, *cluster, *precision, *out;
    int64_t devices;
    double memory;
} model_flags;

static const flag_spec model_flag_table[] = {
    {"devices", FLAG_INTEGER, offsetof(model_flags, devices), "N", 1, 4096, false, NULL, NULL, true,
     "devices to schedule on, all of one type, every pair joined by one link", NULL},
    FLAG_TEXT_OF("device-type", model_flags, device_type, "NAME",
                 "the devices' type from the catalog (default a100-80gb; a wrong name lists the known ones), "
                 "joined by NVLink 3 (300 GB/s, 5 us)"),
    FLAG_TEXT_OF("cluster", model_flags, cluster, "FILE",
                 "take the type and the link from the first N devices of this cluster (parplan cluster's "
                 "format): they must be of one type; the link is the slowest that joins two of them"),
    {"precision", FLAG_CHOICE, offsetof(model_flags, precision), "P", 0, 0, false, "typed|tf32|bf16", "typed",
     false, "what f32 matrix products run as, as for parplan shard", NULL},
    {"memory", FLAG_BYTES, offsetof(model_flags, memory), "BYTES", 0, 0, false, NULL, NULL, false,
     "memory per device (default: the device type's; 16e9, 16GB, 16GiB)", NULL},
    FLAG_TEXT_OF("out", model_flags, out, "PROBLEM", "write the problem there instead of stdout"),
    FLAG_END,
};

const command_spec gen_model_command = {
    "gen model", "write the scheduling problem of a model's training step", "MODEL.mlir", 1,
    offsetof(model_flags, model),
    "Reads MODEL.mlir (StableHLO text, as parplan shard does) and writes the operator-scheduling problem of one "
    "forward and backward pass on N devices: an op per matrix product (with the element-wise ops it feeds) "
    "and per point where branches meet, timed by the roofline on the device type, and its backward op, twice "
    "as long, on the same device; transfers timed from the tensors' sizes over the link; a forward op's "
    "outputs held in memory until its backward op ends. Times in microseconds, memory in bytes. The branches "
    "of the model stay branches: a mixture-of-experts layer's experts can run on different devices.",
    model_flag_table,
};

static pp_status options_of(const model_flags *f, pp_hw_catalog *cat, pp_cluster **cluster,
                            pp_shard_sched_options *o, pp_error *err)
{
    pp_shard_sched_options_default(o);
    o->devices = (int32_t)f->devices;
    o->catalog = cat;
    o->memory = f->memory;
    pp_status st = pp_shard_precision_parse(f->precision, &o->precision, err);
    if (st == PP_OK && f->cluster && (st = pp_cluster_load(f->cluster, cat, cluster, err)) == PP_OK) {
        if (o->devices > (*cluster)->device_count)
            return pp_error_set(err, PP_EARG, "--devices %d: the cluster %s has %d devices", o->devices,
                                (*cluster)->name, (*cluster)->device_count);
        pp_error why = {0};
        if (pp_cluster_devices_link(*cluster, 0, o->devices, &o->device, &o->link, &why) != PP_OK)
            return pp_error_set(err, why.status, "--cluster: %s", why.message);
    }
    if (st == PP_OK && !f->cluster)
        st = pp_hw_find_type(cat, f->device_type ? f->device_type : "a100-80gb", "--device-type", &o->device, err);
    return st;
}

int cmd_gen_model(int argc, char **argv)
{
    model_flags f = {0};
    int code;
    if (!flags_parse(&gen_model_command, argc, argv, &f, &code))
        return code;
    if (f.device_type && f.cluster)
        return flags_fail(&gen_model_command, "--device-type and --cluster exclude each other: the cluster "
                          "names its devices' type");
    pp_hw_catalog *cat = NULL;
    pp_cluster *cluster = NULL;
    pp_sched_problem *p = NULL;
    pp_shard_sched_options o;
    pp_error err = {0};
    pp_status st = pp_hw_catalog_builtin(&cat, &err);
    if (st == PP_OK)
        st = options_of(&f, cat, &cluster, &o, &err);
    if (st == PP_OK)
        st = pp_shard_sched_from_file(f.model, &o, &p, &err);
    if (st == PP_OK) {
        FILE *out = cli_open_out(f.out, &err);
        st = out ? cli_close_out(out, f.out, pp_sched_write_problem(p, out, &err), &err) : err.status;
    }
    pp_sched_problem_free(p);
    pp_cluster_free(cluster);
    pp_hw_catalog_free(cat);
    return st == PP_OK ? 0 : cli_fail("parplan", &err);
}
