/* write.c: writes a problem (the format of load.c) and a schedule (the format
 * of load_schedule.c) as JSON. Each list entry is one line, dumped by
 * jansson; the frame around the lists is fixed text. Integral numbers are
 * written as integers, others with 15 significant digits when those give the
 * number back exactly, else 17 (for the whole line): a written file always
 * loads back to the same numbers. Defaults are left out. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sched/sched_internal.h"
#include <jansson.h>

typedef struct {
    FILE *f;
    int digits;            /* for the line being built */
    bool out_of_memory;
    bool dump_failed;
    const char *bad_text;  /* a name that is not UTF-8, so not JSON */
    bool first;            /* no entry yet in the current list */
} writer;

static json_t *number(writer *w, double x)
{
    if (x == floor(x) && fabs(x) < 0x1p53)
        return json_integer((json_int_t)x);
    char text[32];
    snprintf(text, sizeof text, "%.15g", x);
    if (strtod(text, NULL) != x)
        w->digits = 17;
    return json_real(x);
}

/* jansson refuses text that is not UTF-8, and says so only by NULL, as for
 * a failed allocation; the unchecked variant tells the two apart. */
static json_t *text(writer *w, const char *s)
{
    json_t *v = json_string(s);
    if (v)
        return v;
    json_t *raw = json_string_nocheck(s);
    if (raw && !w->bad_text)
        w->bad_text = s;
    json_decref(raw);
    return NULL;
}

static void set(writer *w, json_t *obj, const char *key, json_t *value)
{
    if (!value && w->bad_text)
        return;
    if (json_object_set_new(obj, key, value) != 0)
        w->out_of_memory = true;
}

static json_t *entry(writer *w)
{
    w->digits = 15;
    json_t *obj = json_object();
    if (!obj)
        w->out_of_memory = true;
    return obj;
}

static void dump(writer *w, const json_t *value)
{
    size_t flags = JSON_REAL_PRECISION(w->digits) | JSON_ENCODE_ANY;
    if (value && json_dumpf(value, w->f, flags) != 0)
        w->dump_failed = true;
}

static void list_begin(writer *w, const char *key, bool first_key)
{
    fprintf(w->f, "%s\n  \"%s\": [", first_key ? "" : ",", key);
    w->first = true;
}

/* Writes and frees one entry of the open list. */
static void list_add(writer *w, json_t *obj)
{
    fputs(w->first ? "\n    " : ",\n    ", w->f);
    w->first = false;
    dump(w, obj);
    json_decref(obj);
}

static void list_end(writer *w)
{
    fputs(w->first ? "]" : "\n  ]", w->f);
}

static pp_status finish(writer *w, const char *what, pp_error *err)
{
    fputs("\n}\n", w->f);
    int flushed = fflush(w->f);
    int saved = errno;
    if (w->bad_text)
        return pp_error_set(err, PP_EARG, "writing the %s: the name \"%s\" is not UTF-8 text",
                            what, w->bad_text);
    if (w->out_of_memory)
        return pp_error_set(err, PP_ENOMEM, "writing the %s: out of memory", what);
    if (flushed != 0 || ferror(w->f) || w->dump_failed)
        return pp_error_set(err, PP_EIO, "writing the %s: %s", what,
                            flushed != 0 ? strerror(saved) : "write error");
    return PP_OK;
}

/* Every ordered pair of distinct devices, the format's default. */
static bool all_channels(const pp_sched_problem *p)
{
    for (int a = 0; a < p->device_count; a++)
        for (int c = 0; c < p->device_count; c++)
            if (pp_sched_has_channel(p, a, c) != (a != c))
                return false;
    return true;
}

static void write_devices(writer *w, const pp_sched_problem *p)
{
    list_begin(w, "devices", true);
    for (int d = 0; d < p->device_count; d++) {
        json_t *obj = entry(w);
        set(w, obj, "name", text(w, p->device_name[d]));
        if (isfinite(p->capacity[d]))
            set(w, obj, "memory", number(w, p->capacity[d]));
        list_add(w, obj);
    }
    list_end(w);
}

static void write_channels(writer *w, const pp_sched_problem *p)
{
    list_begin(w, "channels", false);
    for (int a = 0; a < p->device_count; a++)
        for (int c = 0; c < p->device_count; c++) {
            if (!pp_sched_has_channel(p, a, c))
                continue;
            json_t *obj = entry(w);
            set(w, obj, "from", text(w, p->device_name[a]));
            set(w, obj, "to", text(w, p->device_name[c]));
            list_add(w, obj);
        }
    list_end(w);
}

static void write_placement(writer *w, json_t *obj, const pp_sched_problem *p, int i)
{
    int a = p->allowed_start[i], z = p->allowed_start[i + 1];
    if (z - a == 1) {
        set(w, obj, "device", text(w, p->device_name[p->allowed_device[a]]));
        return;
    }
    if (z == a)
        return;
    json_t *list = json_array();
    for (int k = a; k < z && list; k++)
        if (json_array_append_new(list, text(w, p->device_name[p->allowed_device[k]])) != 0 &&
            !w->bad_text)
            w->out_of_memory = true;
    set(w, obj, "devices", list);
}

static void write_ops(writer *w, const pp_sched_problem *p)
{
    list_begin(w, "ops", false);
    for (int i = 0; i < p->op_count; i++) {
        json_t *obj = entry(w);
        set(w, obj, "name", text(w, p->op_name[i]));
        if (strcmp(p->op_kind[i], "op") != 0)
            set(w, obj, "kind", text(w, p->op_kind[i]));
        set(w, obj, "duration", number(w, p->duration[i]));
        if (p->weight[i] != 0)
            set(w, obj, "weight", number(w, p->weight[i]));
        if (p->adjust[i] != 0)
            set(w, obj, "adjust", number(w, p->adjust[i]));
        if (p->group[i] != i)
            set(w, obj, "with", text(w, p->op_name[p->group[i]]));
        write_placement(w, obj, p, i);
        list_add(w, obj);
    }
    list_end(w);
}

static void write_deps(writer *w, const pp_sched_problem *p)
{
    list_begin(w, "deps", false);
    for (int e = 0; e < p->dep_count; e++) {
        json_t *obj = entry(w);
        set(w, obj, "from", text(w, p->op_name[p->dep_from[e]]));
        set(w, obj, "to", text(w, p->op_name[p->dep_to[e]]));
        if (p->dep_comm[e] != 0)
            set(w, obj, "comm", number(w, p->dep_comm[e]));
        list_add(w, obj);
    }
    list_end(w);
}

pp_status pp_sched_write_problem(const pp_sched_problem *p, FILE *f, pp_error *err)
{
    if (p->builder)
        return pp_error_set(err, PP_EARG, "writing the problem: it is not finished (pp_sched_problem_finish)");
    bool every_pair = all_channels(p);
    if (!every_pair && p->device_count > 1) {
        bool any = false;
        for (int k = 0; k < p->device_count * p->device_count; k++)
            any |= p->channel[k] != 0;
        if (!any)
            return pp_error_set(err, PP_EARG,
                                "writing the problem: it has no channel, which the format cannot say");
    }
    writer w = {.f = f};
    fputs("{", f);
    if (p->time_unit) {
        fputs("\n  \"time_unit\": ", f);
        json_t *unit = text(&w, p->time_unit);
        dump(&w, unit);
        json_decref(unit);
        fputs(",", f);
    }
    write_devices(&w, p);
    if (!every_pair)
        write_channels(&w, p);
    write_ops(&w, p);
    if (p->dep_count > 0)
        write_deps(&w, p);
    return finish(&w, "problem", err);
}

static bool placed(const pp_sched_problem *p, const pp_sched_schedule *s, int i)
{
    return s->device[i] >= 0 && s->device[i] < p->device_count && isfinite(s->start[i]) &&
           isfinite(s->end[i]);
}

static void write_makespan(writer *w, const pp_sched_problem *p, const pp_sched_schedule *s)
{
    double makespan = 0;
    for (int i = 0; i < p->op_count; i++)
        if (placed(p, s, i) && s->end[i] > makespan)
            makespan = s->end[i];
    w->digits = 15;
    json_t *v = number(w, makespan);
    if (!v)
        w->out_of_memory = true;
    fputs("\n  \"makespan\": ", w->f);
    dump(w, v);
    json_decref(v);
    if (isfinite(s->period)) {
        json_t *period = number(w, s->period);
        if (!period)
            w->out_of_memory = true;
        fputs(",\n  \"period\": ", w->f);
        dump(w, period);
        json_decref(period);
    }
}

static void write_placements(writer *w, const pp_sched_problem *p, const pp_sched_schedule *s)
{
    list_begin(w, "ops", false);
    for (int i = 0; i < p->op_count; i++) {
        if (!placed(p, s, i))
            continue;
        json_t *obj = entry(w);
        set(w, obj, "name", text(w, p->op_name[i]));
        set(w, obj, "device", text(w, p->device_name[s->device[i]]));
        set(w, obj, "start", number(w, s->start[i]));
        set(w, obj, "end", number(w, s->end[i]));
        list_add(w, obj);
    }
    list_end(w);
}

static void write_transfers(writer *w, const pp_sched_problem *p, const pp_sched_schedule *s)
{
    list_begin(w, "transfers", false);
    for (int e = 0; e < p->dep_count; e++) {
        if (!isfinite(s->transfer_start[e]) || !isfinite(s->transfer_end[e]))
            continue;
        json_t *obj = entry(w);
        set(w, obj, "from", text(w, p->op_name[p->dep_from[e]]));
        set(w, obj, "to", text(w, p->op_name[p->dep_to[e]]));
        set(w, obj, "start", number(w, s->transfer_start[e]));
        set(w, obj, "end", number(w, s->transfer_end[e]));
        list_add(w, obj);
    }
    list_end(w);
}

pp_status pp_sched_write_schedule(const pp_sched_problem *p, const pp_sched_schedule *s,
                                  FILE *f, pp_error *err)
{
    if (s->op_count != p->op_count || s->dep_count != p->dep_count)
        return pp_error_set(err, PP_EARG, "writing the schedule: it has %d ops and %d dependencies, "
                            "the problem %d and %d", s->op_count, s->dep_count, p->op_count,
                            p->dep_count);
    writer w = {.f = f};
    fputs("{", f);
    write_makespan(&w, p, s);
    write_placements(&w, p, s);
    write_transfers(&w, p, s);
    return finish(&w, "schedule", err);
}
