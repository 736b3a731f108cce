/* load.c: reads a scheduling problem from our JSON format, reporting every
 * mistake with the file, the line and column and the JSON path
 * (FILE:12:20: ops[5].device: ...; the position found again from the path in
 * the text, core/json.h), then validates the whole with
 * pp_sched_problem_finish.
 *
 * The problem format, one JSON object:
 *
 *   {
 *     "name": "tiny", "comment": "any text",
 *     "devices": [ {"name": "gpu0", "memory": 10}, {"name": "gpu1"} ],
 *     "channels": [ {"from": "gpu0", "to": "gpu1"} ],
 *     "ops": [ {"name": "a", "kind": "forward", "duration": 1, "weight": 0, "adjust": 1,
 *               "device": "gpu0"},
 *              {"name": "b", "duration": 2, "devices": ["gpu0", "gpu1"]} ],
 *     "deps": [ {"from": "a", "to": "b", "comm": 0.5} ]
 *   }
 *
 * - Top level: "devices" and "ops" are required; "channels" and "deps" are
 *   optional; "name" and "comment" are optional text, checked and not kept;
 *   "time_unit" (optional text, such as "us") says what one unit of the
 *   durations and comm times is, and labels the pictures' time axes.
 * - devices (at least one): "name" (text, required, unique among devices);
 *   "memory" (number >= 0): the device's capacity; absent means unlimited.
 * - channels: absent means a channel for every ordered pair of distinct
 *   devices. Present, it lists exactly the channels there are: at least one,
 *   "from" and "to" (required) name two different devices, each ordered pair
 *   at most once. An empty list is refused, since the format cannot say "no
 *   channel at all".
 * - ops (may be empty): "name" (text, required, unique among ops); "kind"
 *   (text, default "op"; colours the pictures); "duration" (number >= 0,
 *   required); "weight" (number >= 0, default 0): memory the op holds on its
 *   device for the whole schedule; "adjust" (finite number of any sign,
 *   default 0): the change of its device's memory level when the op ends.
 *   "device" names the one device the op must run on; "devices" lists the
 *   devices it may run on (at least one, each once); not both; neither means
 *   any device. "with" names an earlier op this one must share a device
 *   with (a backward op and the forward op whose activations it frees);
 *   both must allow the same devices.
 * - deps (optional, may be empty): "from" and "to" (required) name two
 *   different ops, "to" runs after "from" ends; "comm" (number >= 0, default
 *   0) is the length of the transfer when they run on different devices.
 *   Each ordered pair at most once.
 *
 * Numbers are JSON numbers (integers or reals; not strings, not null). A key
 * not listed here is an error (a typo such as "duraton" would otherwise be
 * ignored), and so is a key repeated within one object. Then the problem as a
 * whole is checked (pp_sched_problem_finish): no cycle; every op's weight
 * fits one of its devices; the weights of ops forced onto one device fit its
 * memory; two ops with a dependency between them can be placed on the same
 * device or on two joined by a channel. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "core/json.h"
#include "sched/load.h"

enum { PATH_SIZE = 96 };

typedef struct {
    const char *file;
    pp_sched_problem *p;
    json_t *device_index;  /* name -> device index: jansson's hash table */
    json_t *op_index;      /* name -> op index */
    json_t *pair_index;    /* "from>to" by index -> position in its list */
    int *device_mark;      /* per device: 1 + the op whose "devices" listed it */
    pp_error *err;
} loader;

static const char *const root_keys[] = {"name", "comment", "time_unit", "devices", "channels", "ops", "deps",
                                        NULL};
static const char *const device_keys[] = {"name", "memory", NULL};
static const char *const pair_keys[] = {"from", "to", NULL};
static const char *const op_keys[] = {"name", "kind", "duration", "weight", "adjust",
                                      "device", "devices", "with", NULL};
static const char *const dep_keys[] = {"from", "to", "comm", NULL};

static pp_status out_of_memory(const loader *L)
{
    return pp_error_set(L->err, PP_ENOMEM, "%s: out of memory", L->file);
}

static int lookup(const json_t *index, const char *name)
{
    json_t *v = json_object_get(index, name);
    return v ? (int)json_integer_value(v) : -1;
}

/* Records name -> i, unless the name is taken. `list` names the array the
 * entries come from, for the message. */
static pp_status add_name(const loader *L, json_t *index, const char *name, int i,
                          pp_json_at at, const char *list)
{
    int before = lookup(index, name);
    if (before >= 0)
        return pp_error_set(L->err, PP_EINPUT, "%s: %s.name: \"%s\" is already the name of %s[%d]",
                            L->file, at.path, name, list, before);
    if (json_object_set_new(index, name, json_integer(i)) != 0)
        return out_of_memory(L);
    return PP_OK;
}

/* Member `key` of the object at `at`, a string naming an entry of `index`. */
static pp_status read_ref(const loader *L, pp_json_at at, const json_t *obj, const char *key,
                          const json_t *index, const char *what, int *out)
{
    const char *name = NULL;
    pp_status st = pp_json_string(at, obj, key, true, &name, L->err);
    if (st)
        return st;
    if ((*out = lookup(index, name)) < 0)
        return pp_error_set(L->err, PP_EINPUT, "%s: %s.%s: unknown %s \"%s\"", L->file, at.path,
                            key, what, name);
    return PP_OK;
}

/* An ordered pair of devices (channels) or ops (deps) is listed once. */
static pp_status add_pair(const loader *L, pp_json_at at, const char *list, const char *what,
                          char **names, int from, int to, long position)
{
    char key[32];
    snprintf(key, sizeof key, "%d>%d", from, to);
    int before = lookup(L->pair_index, key);
    if (before >= 0)
        return pp_error_set(L->err, PP_EINPUT, "%s: %s: the %s \"%s\" -> \"%s\" is already %s[%d]",
                            L->file, at.path, what, names[from], names[to], list, before);
    if (json_object_set_new(L->pair_index, key, json_integer(position)) != 0)
        return out_of_memory(L);
    return PP_OK;
}

static pp_status read_devices(loader *L, const json_t *root)
{
    pp_json_at top = {L->file, ""};
    json_t *list = NULL, *v;
    pp_status st = pp_json_array(top, root, "devices", true, &list, L->err);
    if (st)
        return st;
    if (json_array_size(list) == 0)
        return pp_error_set(L->err, PP_EINPUT, "%s: devices: the list is empty, a problem needs a device",
                            L->file);
    size_t i;
    json_array_foreach(list, i, v) {
        char path[PATH_SIZE];
        pp_json_at at = {L->file, pp_json_path(path, sizeof path, "", "devices", (long)i)};
        const char *name = NULL;
        double memory = INFINITY;
        if ((st = pp_json_object(at, v, device_keys, L->err)) ||
            (st = pp_json_string(at, v, "name", true, &name, L->err)) ||
            (st = pp_json_number(at, v, "memory", false, 0, &memory, L->err)))
            return st;
        int d = pp_sched_add_device(L->p, name, memory);
        if (d < 0)
            return out_of_memory(L);
        if ((st = add_name(L, L->device_index, name, d, at, "devices")))
            return st;
    }
    return PP_OK;
}

static pp_status read_channels(loader *L, const json_t *root)
{
    pp_json_at top = {L->file, ""};
    json_t *list = NULL, *v;
    pp_status st = pp_json_array(top, root, "channels", false, &list, L->err);
    if (st || !list)
        return st;
    if (json_array_size(list) == 0)
        return pp_error_set(L->err, PP_EINPUT,
                            "%s: channels: the list is empty (leave it out for a channel between "
                            "every two devices)", L->file);
    json_object_clear(L->pair_index);
    size_t i;
    json_array_foreach(list, i, v) {
        char path[PATH_SIZE];
        pp_json_at at = {L->file, pp_json_path(path, sizeof path, "", "channels", (long)i)};
        int from = -1, to = -1;
        if ((st = pp_json_object(at, v, pair_keys, L->err)) ||
            (st = read_ref(L, at, v, "from", L->device_index, "device", &from)) ||
            (st = read_ref(L, at, v, "to", L->device_index, "device", &to)))
            return st;
        if (from == to)
            return pp_error_set(L->err, PP_EINPUT, "%s: %s: a channel from device \"%s\" to itself",
                                L->file, at.path, L->p->device_name[from]);
        if ((st = add_pair(L, at, "channels", "channel", L->p->device_name, from, to, (long)i)))
            return st;
        pp_sched_add_channel(L->p, from, to);
    }
    return PP_OK;
}

/* "devices": a non-empty list of distinct device names. */
static pp_status read_device_set(loader *L, pp_json_at at, const json_t *obj, int op)
{
    json_t *list = NULL, *v;
    pp_status st = pp_json_array(at, obj, "devices", true, &list, L->err);
    if (st)
        return st;
    if (json_array_size(list) == 0)
        return pp_error_set(L->err, PP_EINPUT,
                            "%s: %s.devices: the list is empty (leave it out to allow every device)",
                            L->file, at.path);
    size_t i;
    json_array_foreach(list, i, v) {
        char path[PATH_SIZE];
        pp_json_at item = {L->file, pp_json_path(path, sizeof path, at.path, "devices", (long)i)};
        const char *name = NULL;
        if ((st = pp_json_as_string(item, v, &name, L->err)))
            return st;
        int d = lookup(L->device_index, name);
        if (d < 0)
            return pp_error_set(L->err, PP_EINPUT, "%s: %s: unknown device \"%s\"", L->file,
                                item.path, name);
        if (L->device_mark[d] == op + 1)
            return pp_error_set(L->err, PP_EINPUT, "%s: %s: device \"%s\" is listed twice", L->file,
                                item.path, name);
        L->device_mark[d] = op + 1;
        pp_sched_allow(L->p, op, d);
    }
    return PP_OK;
}

static pp_status read_placement(loader *L, pp_json_at at, const json_t *obj, int op)
{
    bool one = json_object_get(obj, "device") != NULL, set = json_object_get(obj, "devices") != NULL;
    if (one && set)
        return pp_error_set(L->err, PP_EINPUT, "%s: %s: give \"device\" or \"devices\", not both",
                            L->file, at.path);
    if (set)
        return read_device_set(L, at, obj, op);
    if (!one)
        return PP_OK;
    int d = -1;
    pp_status st = read_ref(L, at, obj, "device", L->device_index, "device", &d);
    if (st == PP_OK)
        pp_sched_allow(L->p, op, d);
    return st;
}

static pp_status read_op(loader *L, pp_json_at at, const json_t *v)
{
    const char *name = NULL, *kind = "op";
    double duration = 0, weight = 0, adjust = 0;
    pp_status st;
    if ((st = pp_json_object(at, v, op_keys, L->err)) ||
        (st = pp_json_string(at, v, "name", true, &name, L->err)) ||
        (st = pp_json_string(at, v, "kind", false, &kind, L->err)) ||
        (st = pp_json_number(at, v, "duration", true, 0, &duration, L->err)) ||
        (st = pp_json_number(at, v, "weight", false, 0, &weight, L->err)) ||
        (st = pp_json_number(at, v, "adjust", false, -INFINITY, &adjust, L->err)))
        return st;
    int op = pp_sched_add_op(L->p, name, kind, duration, weight, adjust);
    if (op < 0)
        return out_of_memory(L);
    if ((st = add_name(L, L->op_index, name, op, at, "ops")))
        return st;
    if (json_object_get(v, "with")) {
        int with = -1;
        if ((st = read_ref(L, at, v, "with", L->op_index, "op", &with)))
            return st;
        pp_sched_colocate(L->p, with, op);
    }
    return read_placement(L, at, v, op);
}

static pp_status read_ops(loader *L, const json_t *root)
{
    pp_json_at top = {L->file, ""};
    json_t *list = NULL, *v;
    pp_status st = pp_json_array(top, root, "ops", true, &list, L->err);
    if (st)
        return st;
    L->device_mark = calloc((size_t)L->p->device_count, sizeof(int));
    if (!L->device_mark)
        return out_of_memory(L);
    size_t i;
    json_array_foreach(list, i, v) {
        char path[PATH_SIZE];
        pp_json_at at = {L->file, pp_json_path(path, sizeof path, "", "ops", (long)i)};
        if ((st = read_op(L, at, v)))
            return st;
    }
    return PP_OK;
}

static pp_status read_deps(loader *L, const json_t *root)
{
    pp_json_at top = {L->file, ""};
    json_t *list = NULL, *v;
    pp_status st = pp_json_array(top, root, "deps", false, &list, L->err);
    if (st || !list)
        return st;
    json_object_clear(L->pair_index);
    size_t i;
    json_array_foreach(list, i, v) {
        char path[PATH_SIZE];
        pp_json_at at = {L->file, pp_json_path(path, sizeof path, "", "deps", (long)i)};
        int from = -1, to = -1;
        double comm = 0;
        if ((st = pp_json_object(at, v, dep_keys, L->err)) ||
            (st = read_ref(L, at, v, "from", L->op_index, "op", &from)) ||
            (st = read_ref(L, at, v, "to", L->op_index, "op", &to)) ||
            (st = pp_json_number(at, v, "comm", false, 0, &comm, L->err)))
            return st;
        if (from == to)
            return pp_error_set(L->err, PP_EINPUT, "%s: %s: op \"%s\" depends on itself", L->file,
                                at.path, L->p->op_name[from]);
        if ((st = add_pair(L, at, "deps", "dependency", L->p->op_name, from, to, (long)i)))
            return st;
        if (pp_sched_add_dep(L->p, from, to, comm) < 0)
            return out_of_memory(L);
    }
    return PP_OK;
}

static pp_status read_time_unit(loader *L, const json_t *root)
{
    pp_json_at top = {L->file, ""};
    const char *unit = NULL;
    pp_status st = pp_json_string(top, root, "time_unit", false, &unit, L->err);
    if (st == PP_OK && unit && !pp_sched_set_time_unit(L->p, unit))
        st = pp_error_set(L->err, PP_ENOMEM, "%s: out of memory", L->file);
    return st;
}

static pp_status read_problem(loader *L, const json_t *root)
{
    pp_json_at top = {L->file, ""};
    const char *text;
    pp_status st;
    if ((st = pp_json_object(top, root, root_keys, L->err)) ||
        (st = pp_json_string(top, root, "name", false, &text, L->err)) ||
        (st = pp_json_string(top, root, "comment", false, &text, L->err)) ||
        (st = read_time_unit(L, root)) || (st = read_devices(L, root)) || (st = read_channels(L, root)) ||
        (st = read_ops(L, root)) || (st = read_deps(L, root)))
        return st;
    return pp_sched_problem_finish(L->p, L->file, L->err);
}

/* Takes the parsed document (NULL when parsing failed) and frees it. */
static pp_status load_document(const char *file, json_t *root, pp_status parsed,
                               pp_sched_problem **out, pp_error *err)
{
    *out = NULL;
    if (parsed)
        return parsed;
    loader L = {.file = file, .err = err};
    L.p = pp_sched_problem_new();
    L.device_index = json_object();
    L.op_index = json_object();
    L.pair_index = json_object();
    pp_status st = L.p && L.device_index && L.op_index && L.pair_index ? read_problem(&L, root)
                                                                         : out_of_memory(&L);
    json_decref(L.device_index);
    json_decref(L.op_index);
    json_decref(L.pair_index);
    json_decref(root);
    free(L.device_mark);
    if (st)
        pp_sched_problem_free(L.p);
    else
        *out = L.p;
    return st;
}

pp_status pp_sched_load(const char *path, pp_sched_problem **out, pp_error *err)
{
    char *text = NULL;
    size_t size = 0;
    *out = NULL;
    pp_status st = pp_read_text_file(path, &text, &size, err);
    if (!st)
        st = pp_sched_load_buffer(path, text, size, out, err);
    free(text);
    return st;
}

pp_status pp_sched_load_buffer(const char *name, const void *data, size_t size,
                               pp_sched_problem **out, pp_error *err)
{
    json_t *root = NULL;
    pp_status parsed = pp_json_load_buffer(name, data, size, &root, err);
    pp_status st = load_document(name, root, parsed, out, err);
    return pp_json_place(err, st, name, data, size);
}
