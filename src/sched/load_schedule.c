/* load_schedule.c: reads a schedule for a given problem from JSON; a
 * mistake in a value is reported as FILE:LINE:COL: PATH: reason (the
 * position found again from the path in the text, core/json.h).
 *
 * The schedule format, one JSON object:
 *
 *   {
 *     "makespan": 3.5,
 *     "ops": [ {"name": "a", "device": "gpu0", "start": 0, "end": 1},
 *              {"name": "b", "device": "gpu1", "start": 1.5, "end": 3.5} ],
 *     "transfers": [ {"from": "a", "to": "b", "start": 1, "end": 1.5} ]
 *   }
 *
 * - "ops" (required): where and when each op runs. "name" names an op of the
 *   problem, "device" a device; "start" and "end" are finite numbers; all
 *   four are required, and an op is listed at most once. An op that is not
 *   listed is no reading error: it stays unplaced (device -1, times NAN) and
 *   the checker reports it. pp_sched_write_schedule lists them in the
 *   problem's op order, leaving out unplaced ones.
 * - "transfers" (optional): one per dependency whose ops run on different
 *   devices. "from" and "to" name the ops of a dependency of the problem,
 *   "start" and "end" (finite numbers) are when the transfer runs on the
 *   channel; all four required, each dependency at most once. A dependency
 *   with no transfer listed has none (NAN).
 * - "makespan" (optional): a number; kept as stated_makespan, and the checker
 *   refuses a schedule whose latest end differs from it.
 * - "period" (optional): a number > 0, the period of a cyclic schedule (the
 *   iteration repeated every period; pp_sched_check_cyclic); kept as period.
 *
 * Whether the times make a valid schedule is the checker's matter
 * (pp_sched_check), not the reader's: this only refuses text that does not
 * describe a schedule of this problem. Unknown keys are errors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "core/json.h"
#include "sched/load.h"
#include "sched/sched_internal.h"

enum { PATH_SIZE = 96 };

typedef struct {
    const char *file;
    const pp_sched_problem *p;
    pp_sched_schedule *s;
    sc_index op_index;     /* name -> op index */
    sc_index device_index; /* name -> device index */
    int *op_at;            /* per op: 1 + its position in "ops", 0 while unlisted */
    int *transfer_at;      /* per dependency: 1 + its position in "transfers" */
    const pp_stop_flag *stop;
    pp_error *err;
} loader;

static const char *const root_keys[] = {"makespan", "period", "ops", "transfers", NULL};
static const char *const op_keys[] = {"name", "device", "start", "end", NULL};
static const char *const transfer_keys[] = {"from", "to", "start", "end", NULL};

static pp_status out_of_memory(const loader *L)
{
    return pp_error_set(L->err, PP_ENOMEM, "%s: out of memory", L->file);
}

static bool index_names(sc_index *index, char **names, int count)
{
    for (int i = 0; i < count; i++)
        if (!sc_index_add(index, names[i], 0, 0, i))
            return false;
    return true;
}

static pp_status read_ref(const loader *L, pp_json_at at, const json_t *obj, const char *key,
                          const sc_index *index, const char *what, int *out)
{
    const char *name = NULL;
    pp_status st = pp_json_string(at, obj, key, true, &name, L->err);
    if (st)
        return st;
    if ((*out = sc_index_name(index, name)) < 0)
        return pp_error_set(L->err, PP_EINPUT, "%s: %s.%s: the problem has no %s \"%s\"", L->file,
                            at.path, key, what, name);
    return PP_OK;
}

static pp_status read_interval(const loader *L, pp_json_at at, const json_t *obj, double *start,
                               double *end)
{
    pp_status st = pp_json_number(at, obj, "start", true, -INFINITY, start, L->err);
    return st ? st : pp_json_number(at, obj, "end", true, -INFINITY, end, L->err);
}

static pp_status read_op(loader *L, pp_json_at at, const json_t *v, long position)
{
    int op = -1, d = -1;
    double start, end;
    pp_status st;
    if ((st = pp_json_object(at, v, op_keys, L->err)) ||
        (st = read_ref(L, at, v, "name", &L->op_index, "op", &op)) ||
        (st = read_ref(L, at, v, "device", &L->device_index, "device", &d)) ||
        (st = read_interval(L, at, v, &start, &end)))
        return st;
    if (L->op_at[op])
        return pp_error_set(L->err, PP_EINPUT, "%s: %s: op \"%s\" is already placed by ops[%d]",
                            L->file, at.path, L->p->op_name[op], L->op_at[op] - 1);
    L->op_at[op] = (int)position + 1;
    L->s->device[op] = d;
    L->s->start[op] = start;
    L->s->end[op] = end;
    return PP_OK;
}

/* The dependency from -> to that has no transfer yet; a problem built by
 * hand may hold the same pair twice, so each listing takes the next one. */
static pp_status find_dep(const loader *L, pp_json_at at, int from, int to, int *out)
{
    const pp_sched_problem *p = L->p;
    int taken = -1;
    for (int k = p->succ_start[from]; k < p->succ_start[from + 1]; k++) {
        int e = p->succ_dep[k];
        if (p->dep_to[e] != to)
            continue;
        if (!L->transfer_at[e]) {
            *out = e;
            return PP_OK;
        }
        taken = e;
    }
    if (taken >= 0)
        return pp_error_set(L->err, PP_EINPUT, "%s: %s: the transfer \"%s\" -> \"%s\" is already "
                            "given by transfers[%d]", L->file, at.path, p->op_name[from],
                            p->op_name[to], L->transfer_at[taken] - 1);
    return pp_error_set(L->err, PP_EINPUT, "%s: %s: \"%s\" -> \"%s\" is not a dependency of the "
                        "problem", L->file, at.path, p->op_name[from], p->op_name[to]);
}

static pp_status read_transfer(loader *L, pp_json_at at, const json_t *v, long position)
{
    int from = -1, to = -1, e = -1;
    double start, end;
    pp_status st;
    if ((st = pp_json_object(at, v, transfer_keys, L->err)) ||
        (st = read_ref(L, at, v, "from", &L->op_index, "op", &from)) ||
        (st = read_ref(L, at, v, "to", &L->op_index, "op", &to)) ||
        (st = read_interval(L, at, v, &start, &end)) || (st = find_dep(L, at, from, to, &e)))
        return st;
    L->transfer_at[e] = (int)position + 1;
    L->s->transfer_start[e] = start;
    L->s->transfer_end[e] = end;
    return PP_OK;
}

static pp_status read_list(loader *L, const json_t *root, const char *key, bool required,
                           pp_status (*read)(loader *, pp_json_at, const json_t *, long))
{
    pp_json_at top = {L->file, ""};
    json_t *list = NULL, *v;
    pp_status st = pp_json_array(top, root, key, required, &list, L->err);
    if (st || !list)
        return st;
    size_t i;
    json_array_foreach(list, i, v) {
        char path[PATH_SIZE];
        pp_json_at at = {L->file, pp_json_path(path, sizeof path, "", key, (long)i)};
        if (sc_stop_before(list, i, L->stop))
            return pp_json_stopped(L->file, L->err);
        if ((st = read(L, at, v, (long)i)))
            return st;
    }
    return PP_OK;
}

static pp_status read_schedule(loader *L, const json_t *root)
{
    pp_json_at top = {L->file, ""};
    double makespan = NAN, period = NAN;
    pp_status st;
    for (int i = 0; i < L->p->op_count; i++) {
        L->s->device[i] = -1;
        L->s->start[i] = L->s->end[i] = NAN;
    }
    if ((st = pp_json_object(top, root, root_keys, L->err)) ||
        (st = pp_json_number(top, root, "makespan", false, -INFINITY, &makespan, L->err)) ||
        (st = pp_json_number(top, root, "period", false, 1e-300, &period, L->err)) ||
        (st = read_list(L, root, "ops", true, read_op)) ||
        (st = read_list(L, root, "transfers", false, read_transfer)))
        return st;
    L->s->stated_makespan = makespan;
    L->s->period = period;
    return PP_OK;
}

static pp_status unfinished(const char *file, const pp_sched_problem *p, pp_error *err)
{
    if (p->builder)
        return pp_error_set(err, PP_EARG, "%s: the problem is not finished (pp_sched_problem_finish)", file);
    return PP_OK;
}

/* Reads the parsed document as a schedule of p, and frees it. */
static pp_status load_document(const char *file, json_t *root, const pp_sched_problem *p,
                               const pp_stop_flag *stop, pp_sched_schedule **out, pp_error *err)
{
    loader L = {.file = file, .p = p, .stop = stop, .err = err};
    L.s = pp_sched_schedule_new(p);
    bool indexed = index_names(&L.op_index, p->op_name, p->op_count) &&
                   index_names(&L.device_index, p->device_name, p->device_count);
    L.op_at = calloc((size_t)p->op_count + 1, sizeof(int));
    L.transfer_at = calloc((size_t)p->dep_count + 1, sizeof(int));
    pp_status st;
    if (L.s && indexed && L.op_at && L.transfer_at)
        st = read_schedule(&L, root);
    else
        st = out_of_memory(&L);
    json_decref(root);
    sc_index_free(&L.op_index);
    sc_index_free(&L.device_index);
    free(L.op_at);
    free(L.transfer_at);
    if (st)
        pp_sched_schedule_free(L.s);
    else
        *out = L.s;
    return st;
}

pp_status sc_load_schedule_stop(const pp_source *s, const pp_sched_problem *p, const pp_stop_flag *stop,
                                pp_sched_schedule **out, pp_error *err)
{
    if (!s->path)
        return sc_load_schedule_buffer_stop(s->name, s->text, s->size, p, stop, out, err);
    char *text = NULL;
    size_t size = 0;
    *out = NULL;
    pp_status st = unfinished(s->path, p, err);
    if (!st)
        st = pp_read_text_file(s->path, &text, &size, err);
    if (!st)
        st = sc_load_schedule_buffer_stop(s->path, text, size, p, stop, out, err);
    free(text);
    return st;
}

pp_status sc_load_schedule_buffer_stop(const char *name, const void *data, size_t size,
                                       const pp_sched_problem *p, const pp_stop_flag *stop,
                                       pp_sched_schedule **out, pp_error *err)
{
    *out = NULL;
    json_t *root = NULL;
    pp_status st;
    if ((st = unfinished(name, p, err)) ||
        (st = pp_json_load_buffer_stop(name, data, size, stop, &root, err)))
        return st;
    st = load_document(name, root, p, stop, out, err);
    return pp_json_place(err, st, name, data, size);
}

pp_status pp_sched_load_schedule(const char *path, const pp_sched_problem *p,
                                 pp_sched_schedule **out, pp_error *err)
{
    pp_source s = {.path = path};
    return sc_load_schedule_stop(&s, p, NULL, out, err);
}

pp_status pp_sched_load_schedule_buffer(const char *name, const void *data, size_t size,
                                        const pp_sched_problem *p, pp_sched_schedule **out,
                                        pp_error *err)
{
    return sc_load_schedule_buffer_stop(name, data, size, p, NULL, out, err);
}
