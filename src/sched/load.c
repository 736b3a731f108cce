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
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "core/json.h"
#include "sched/load.h"
#include "sched/sched_internal.h"

enum { PATH_SIZE = 96 };

typedef struct {
    const char *file;
    pp_sched_problem *p;
    sc_index device_index;  /* name -> device index */
    sc_index op_index;      /* name -> op index */
    sc_index pair_index;    /* (from, to) -> position in its list */
    int *device_mark;       /* per device: 1 + the op whose "devices" listed it */
    const pp_stop_flag *stop;
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

/* Records name -> i, unless the name is taken; `name` is the problem's own
 * copy, which the index keeps. `list` names the array the entries come
 * from, for the message. */
static pp_status add_name(const loader *L, sc_index *index, const char *name, int i,
                          pp_json_at at, const char *list)
{
    int before = sc_index_name(index, name);
    if (before >= 0)
        return pp_error_set(L->err, PP_EINPUT, "%s: %s.name: \"%s\" is already the name of %s[%d]",
                            L->file, at.path, name, list, before);
    if (!sc_index_add(index, name, 0, 0, i))
        return out_of_memory(L);
    return PP_OK;
}

/* Member `key` of the object at `at`, a string naming an entry of `index`. */
static pp_status read_ref(const loader *L, pp_json_at at, const json_t *obj, const char *key,
                          const sc_index *index, const char *what, int *out)
{
    const char *name = NULL;
    pp_status st = pp_json_string(at, obj, key, true, &name, L->err);
    if (st)
        return st;
    if ((*out = sc_index_name(index, name)) < 0)
        return pp_error_set(L->err, PP_EINPUT, "%s: %s.%s: unknown %s \"%s\"", L->file, at.path,
                            key, what, name);
    return PP_OK;
}

/* An ordered pair of devices (channels) or ops (deps) is listed once. */
static pp_status add_pair(loader *L, pp_json_at at, const char *list, const char *what,
                          char **names, int from, int to, long position)
{
    int before = sc_index_pair(&L->pair_index, from, to);
    if (before >= 0)
        return pp_error_set(L->err, PP_EINPUT, "%s: %s: the %s \"%s\" -> \"%s\" is already %s[%d]",
                            L->file, at.path, what, names[from], names[to], list, before);
    if (!sc_index_add(&L->pair_index, NULL, from, to, (int)position))
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
        if ((st = add_name(L, &L->device_index, L->p->device_name[d], d, at, "devices")))
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
    sc_index_clear(&L->pair_index);
    size_t i;
    json_array_foreach(list, i, v) {
        char path[PATH_SIZE];
        pp_json_at at = {L->file, pp_json_path(path, sizeof path, "", "channels", (long)i)};
        int from = -1, to = -1;
        if ((st = pp_json_object(at, v, pair_keys, L->err)) ||
            (st = read_ref(L, at, v, "from", &L->device_index, "device", &from)) ||
            (st = read_ref(L, at, v, "to", &L->device_index, "device", &to)))
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
        int d = sc_index_name(&L->device_index, name);
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
    pp_status st = read_ref(L, at, obj, "device", &L->device_index, "device", &d);
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
    if ((st = add_name(L, &L->op_index, L->p->op_name[op], op, at, "ops")))
        return st;
    if (json_object_get(v, "with")) {
        int with = -1;
        if ((st = read_ref(L, at, v, "with", &L->op_index, "op", &with)))
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
        if (sc_stop_before(list, i, L->stop))
            return pp_json_stopped(L->file, L->err);
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
    sc_index_clear(&L->pair_index);
    size_t i;
    json_array_foreach(list, i, v) {
        char path[PATH_SIZE];
        pp_json_at at = {L->file, pp_json_path(path, sizeof path, "", "deps", (long)i)};
        int from = -1, to = -1;
        double comm = 0;
        if (sc_stop_before(list, i, L->stop))
            return pp_json_stopped(L->file, L->err);
        if ((st = pp_json_object(at, v, dep_keys, L->err)) ||
            (st = read_ref(L, at, v, "from", &L->op_index, "op", &from)) ||
            (st = read_ref(L, at, v, "to", &L->op_index, "op", &to)) ||
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
    if (pp_stop_raised(L->stop))
        return pp_json_stopped(L->file, L->err);
    return pp_sched_problem_finish(L->p, L->file, L->err);
}

/* Takes the parsed document (NULL when parsing failed) and frees it. */
static pp_status load_document(const char *file, json_t *root, pp_status parsed, const pp_stop_flag *stop,
                               pp_sched_problem **out, pp_error *err)
{
    *out = NULL;
    if (parsed)
        return parsed;
    loader L = {.file = file, .stop = stop, .err = err};
    L.p = pp_sched_problem_new();
    pp_status st = L.p ? read_problem(&L, root) : out_of_memory(&L);
    sc_index_free(&L.device_index);
    sc_index_free(&L.op_index);
    sc_index_free(&L.pair_index);
    json_decref(root);
    free(L.device_mark);
    if (st)
        pp_sched_problem_free(L.p);
    else
        *out = L.p;
    return st;
}

pp_status sc_load_stop(const pp_source *s, const pp_stop_flag *stop, pp_sched_problem **out, pp_error *err)
{
    if (!s->path)
        return sc_load_buffer_stop(s->name, s->text, s->size, stop, out, err);
    char *text = NULL;
    size_t size = 0;
    *out = NULL;
    pp_status st = pp_read_text_file(s->path, &text, &size, err);
    if (!st)
        st = sc_load_buffer_stop(s->path, text, size, stop, out, err);
    free(text);
    return st;
}

pp_status sc_load_buffer_stop(const char *name, const void *data, size_t size, const pp_stop_flag *stop,
                              pp_sched_problem **out, pp_error *err)
{
    json_t *root = NULL;
    pp_status parsed = pp_json_load_buffer_stop(name, data, size, stop, &root, err);
    pp_status st = load_document(name, root, parsed, stop, out, err);
    return pp_json_place(err, st, name, data, size);
}

pp_status pp_sched_load(const char *path, pp_sched_problem **out, pp_error *err)
{
    pp_source s = {.path = path};
    return sc_load_stop(&s, NULL, out, err);
}

pp_status pp_sched_load_buffer(const char *name, const void *data, size_t size,
                               pp_sched_problem **out, pp_error *err)
{
    return sc_load_buffer_stop(name, data, size, NULL, out, err);
}

/* Ops or deps read between looks at the stop flag: 4,096 of them are about
 * 0.6 MB of text, 10 ms at most on a loaded machine. */
enum { PER_STOP_CHECK = 4096 };

bool sc_stop_before(json_t *list, size_t i, const pp_stop_flag *stop)
{
    if (i > 0)
        json_array_set(list, i - 1, json_null());
    return i % PER_STOP_CHECK == 0 && pp_stop_raised(stop);
}

/* ------------------------------------------------------------ the index */

static uint64_t name_hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3u;
    return h;
}

static uint64_t pair_hash(int from, int to)
{
    uint64_t h = ((uint64_t)(uint32_t)from << 32 | (uint32_t)to) * 0x9e3779b97f4a7c15u;
    return h ^ h >> 29;
}

/* The slot of the key (a name, or else the pair), or the empty one where it
 * would go. */
static sc_index_entry *find(const sc_index *m, uint64_t hash, const char *name, int from, int to)
{
    for (size_t i = hash & m->mask;; i = (i + 1) & m->mask) {
        sc_index_entry *e = &m->slots[i];
        if (e->value < 0 || (e->hash == hash && (name ? e->name && strcmp(e->name, name) == 0
                                                      : !e->name && e->from == from && e->to == to)))
            return e;
    }
}

static bool reserve(sc_index *m, size_t count)
{
    size_t size = m->slots ? m->mask + 1 : 0;
    if (2 * count <= size)
        return true;
    size_t grown = size ? 2 * size : 64;
    sc_index_entry *slots = malloc(grown * sizeof *slots), *old = m->slots;
    if (!slots)
        return false;
    for (size_t i = 0; i < grown; i++)
        slots[i].value = -1;
    m->slots = slots;
    m->mask = grown - 1;
    for (size_t i = 0; i < size; i++)
        if (old[i].value >= 0)
            *find(m, old[i].hash, old[i].name, old[i].from, old[i].to) = old[i];
    free(old);
    return true;
}

void sc_index_clear(sc_index *m)
{
    for (size_t i = 0; m->slots && i <= m->mask; i++)
        m->slots[i].value = -1;
    m->count = 0;
}

int sc_index_name(const sc_index *m, const char *name)
{
    return m->slots ? find(m, name_hash(name), name, 0, 0)->value : -1;
}

int sc_index_pair(const sc_index *m, int from, int to)
{
    return m->slots ? find(m, pair_hash(from, to), NULL, from, to)->value : -1;
}

void sc_index_free(sc_index *m)
{
    free(m->slots);
    m->slots = NULL;
    m->count = 0;
}

bool sc_index_add(sc_index *m, const char *name, int from, int to, int value)
{
    if (!reserve(m, m->count + 1))
        return false;
    uint64_t hash = name ? name_hash(name) : pair_hash(from, to);
    *find(m, hash, name, from, to) = (sc_index_entry){hash, name, from, to, value};
    m->count++;
    return true;
}
