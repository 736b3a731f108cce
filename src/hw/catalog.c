/* catalog.c: the device catalog: the built-in types (data/devices.json,
 * compiled in), users' files that add types or override fields, and lookup by
 * name or alias.
 *
 * The format, one JSON object (data/devices.json is the example):
 *
 *   {
 *     "comment": "any text",
 *     "types": [
 *       {"name": "A100-80GB-SXM", "aliases": ["a100"],
 *        "peak_flops": 312e12, "memory_bandwidth": 2039e9, "memory_bytes": 85899345920,
 *        "efficiency": {"compute": 0.6, "memory": 0.8},
 *        "peaks": {"fp32": 19.5e12, "tf32": 156e12, "bf16": 312e12},
 *        "source": {"peak_flops": "datasheet ...", "memory_bandwidth": "...",
 *                   "memory_bytes": "...", "efficiency": "..."},
 *        "comment": "any text"}
 *     ]
 *   }
 *
 * - "types" is required (may be empty); each names a type ("name", required,
 *   matched ignoring case against names and aliases already known).
 * - A type not yet known is new: "peak_flops" (FLOP/s, dense FP16/BF16 tensor
 *   math with FP32 accumulate), "memory_bandwidth" (bytes/s) and
 *   "memory_bytes" are required, numbers > 0.
 * - A known type gets only the fields the entry sets: a calibration file
 *   that sets only "efficiency" changes nothing else.
 * - "efficiency": "compute" and "memory", each in (0, 1], default 1.0.
 * - "peaks": FLOP/s per math mode, dense: "fp32" (CUDA cores), "tf32",
 *   "bf16" (BF16/FP16 tensor cores, FP32 accumulate), "fp8"; any may be
 *   absent (pp_hw_peak's fallbacks). The auto-sharder prices each op at the
 *   mode its element type runs in; peak_flops stays the cluster planner's.
 * - "kernels": {"sms": 108, "tile": [256, 128], "streaming": 0.88, "fp8": 0.91}:
 *   the streaming multiprocessors and the largest output tile of the
 *   matrix-product kernels (whole numbers >= 1; the cluster planner prices
 *   each product's wave quantisation with them), the fraction of the
 *   memory bandwidth a streaming kernel reaches (in (0, 1]), and the
 *   fraction of the FP8 peak an FP8 product reaches over the fraction of
 *   the BF16 peak a BF16 product of its shape reaches (in (0, 1]; the
 *   cluster planner prices a workload's FP8 products at "peaks"."fp8" times
 *   this, in proportion to the BF16 rate); each optional.
 * - "aliases": more names for the type; an alias may not name another type.
 * - "source" (per figure) and "comment" are text, checked and not kept.
 * - A type may appear once per file; unknown keys are errors.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "core/grow.h"
#include "core/json.h"
#include "hw/devices.h"
#include "hw/hw_internal.h"

typedef struct {
    pp_hw_device_type t; /* t.name points at name */
    double peaks[PP_HW_MATH_MODES]; /* 0: not given */
    char *name;
    char **aliases;
    size_t alias_count;
    int alias_cap;
    bool seen; /* named by the file being read */
} hw_type;

struct pp_hw_catalog {
    hw_type *types;
    size_t count;
    int cap;
};

static void type_free(hw_type *h)
{
    free(h->name);
    for (size_t k = 0; k < h->alias_count; k++)
        free(h->aliases[k]);
    free(h->aliases);
}

void pp_hw_catalog_free(pp_hw_catalog *cat)
{
    if (!cat)
        return;
    for (size_t i = 0; i < cat->count; i++)
        type_free(&cat->types[i]);
    free(cat->types);
    free(cat);
}

static bool type_is(const hw_type *h, const char *name)
{
    if (strcasecmp(h->name, name) == 0)
        return true;
    for (size_t k = 0; k < h->alias_count; k++)
        if (strcasecmp(h->aliases[k], name) == 0)
            return true;
    return false;
}

static hw_type *find_type(const pp_hw_catalog *cat, const char *name)
{
    for (size_t i = 0; i < cat->count; i++)
        if (type_is(&cat->types[i], name))
            return &cat->types[i];
    return NULL;
}

const pp_hw_device_type *pp_hw_find(const pp_hw_catalog *cat, const char *name)
{
    hw_type *h = cat && name ? find_type(cat, name) : NULL;
    return h ? &h->t : NULL;
}

size_t pp_hw_catalog_count(const pp_hw_catalog *cat)
{
    return cat->count;
}

const pp_hw_device_type *pp_hw_catalog_type(const pp_hw_catalog *cat, size_t index)
{
    return index < cat->count ? &cat->types[index].t : NULL;
}

static bool add_alias(hw_type *h, const char *alias)
{
    char *copy = strdup(alias);
    if (!copy || !pp_grow((void **)&h->aliases, &h->alias_cap, (int)h->alias_count + 1, sizeof *h->aliases)) {
        free(copy);
        return false;
    }
    h->aliases[h->alias_count++] = copy;
    return true;
}

/* A new empty type at the end; its name is set, its figures are not. */
static hw_type *append_type(pp_hw_catalog *cat, const char *name)
{
    char *copy = strdup(name);
    if (!copy || !pp_grow((void **)&cat->types, &cat->cap, (int)cat->count + 1, sizeof *cat->types)) {
        free(copy);
        return NULL;
    }
    hw_type *h = &cat->types[cat->count++];
    memset(h, 0, sizeof *h);
    h->name = copy;
    h->t.name = copy;
    h->t.efficiency_compute = 1.0;
    h->t.efficiency_memory = 1.0;
    return h;
}

/* A deep copy, so that a file is applied all or nothing. */
static pp_hw_catalog *catalog_copy(const pp_hw_catalog *cat)
{
    pp_hw_catalog *copy = calloc(1, sizeof *copy);
    for (size_t i = 0; copy && i < cat->count; i++) {
        const hw_type *from = &cat->types[i];
        hw_type *to = append_type(copy, from->name);
        for (size_t k = 0; to && k < from->alias_count; k++)
            if (!add_alias(to, from->aliases[k]))
                to = NULL;
        if (!to) {
            pp_hw_catalog_free(copy);
            return NULL;
        }
        to->t = from->t;
        to->t.name = to->name;
        memcpy(to->peaks, from->peaks, sizeof to->peaks);
    }
    return copy;
}

/* Member `key` of obj, a number > 0 and <= max; left alone when absent and
 * not required. */
static pp_status figure(pp_json_at at, const json_t *obj, const char *key, bool required,
                        double max, double *out, pp_error *err)
{
    if (!required && !json_object_get(obj, key))
        return PP_OK;
    double x = 0;
    pp_status st = pp_json_number(at, obj, key, required, -INFINITY, &x, err);
    if (st)
        return st;
    if (x <= 0 || x > max) {
        char path[300];
        return pp_error_set(err, PP_EINPUT, "%s: %s: must be > 0%s, got %g", at.file,
                            pp_json_path(path, sizeof path, at.path, key, -1),
                            max < INFINITY ? " and <= 1" : "", x);
    }
    *out = x;
    return PP_OK;
}

static pp_status read_efficiency(pp_json_at at, const json_t *obj, hw_type *h, pp_error *err)
{
    json_t *v = json_object_get(obj, "efficiency");
    if (!v)
        return PP_OK;
    static const char *const keys[] = {"compute", "memory", NULL};
    char path[300];
    pp_json_at eat = {at.file, pp_json_path(path, sizeof path, at.path, "efficiency", -1)};
    pp_status st;
    if ((st = pp_json_object(eat, v, keys, err)) ||
        (st = figure(eat, v, "compute", false, 1.0, &h->t.efficiency_compute, err)) ||
        (st = figure(eat, v, "memory", false, 1.0, &h->t.efficiency_memory, err)))
        return st;
    return PP_OK;
}

/* "kernels": {"sms": ..., "tile": [rows, cols], "streaming": ...}. */
static pp_status read_kernels(pp_json_at at, const json_t *obj, hw_type *h, pp_error *err)
{
    json_t *v = json_object_get(obj, "kernels");
    if (!v)
        return PP_OK;
    static const char *const keys[] = {"sms", "tile", "streaming", "fp8", NULL};
    char path[300], tpath[340];
    pp_json_at kat = {at.file, pp_json_path(path, sizeof path, at.path, "kernels", -1)};
    json_t *tile = NULL;
    pp_status st;
    if ((st = pp_json_object(kat, v, keys, err)) ||
        (st = figure(kat, v, "sms", false, INFINITY, &h->t.gemm_sms, err)) ||
        (st = figure(kat, v, "streaming", false, 1.0, &h->t.streaming_efficiency, err)) ||
        (st = figure(kat, v, "fp8", false, 1.0, &h->t.fp8_relative, err)) ||
        (st = pp_json_array(kat, v, "tile", false, &tile, err)))
        return st;
    if (!tile)
        return PP_OK;
    double rows = json_number_value(json_array_get(tile, 0));
    double cols = json_number_value(json_array_get(tile, 1));
    bool whole = h->t.gemm_sms == floor(h->t.gemm_sms) && rows >= 1 && cols >= 1 &&
                 rows == floor(rows) && cols == floor(cols);
    if (json_array_size(tile) != 2 || !whole)
        return pp_error_set(err, PP_EINPUT, "%s: %s: sms and the two tile sides must be whole numbers >= 1",
                            at.file, pp_json_path(tpath, sizeof tpath, kat.path, "tile", -1));
    h->t.gemm_tile_rows = rows;
    h->t.gemm_tile_cols = cols;
    return PP_OK;
}

/* "peaks": {"fp32": ..., "tf32": ..., "bf16": ..., "fp8": ...}, any of them, FLOP/s > 0. */
static pp_status read_peaks(pp_json_at at, const json_t *obj, hw_type *h, pp_error *err)
{
    json_t *v = json_object_get(obj, "peaks");
    if (!v)
        return PP_OK;
    static const char *const keys[] = {"fp32", "tf32", "bf16", "fp8", NULL};
    char path[300];
    pp_json_at pat = {at.file, pp_json_path(path, sizeof path, at.path, "peaks", -1)};
    pp_status st = pp_json_object(pat, v, keys, err);
    for (int m = 0; !st && m < PP_HW_MATH_MODES; m++)
        st = figure(pat, v, pp_hw_math_name((pp_hw_math)m), false, INFINITY, &h->peaks[m], err);
    return st;
}

static pp_status read_source(pp_json_at at, const json_t *obj, pp_error *err)
{
    json_t *v = json_object_get(obj, "source");
    if (!v)
        return PP_OK;
    static const char *const keys[] = {"peak_flops", "memory_bandwidth", "memory_bytes",
                                       "efficiency", "peaks", "kernels", NULL};
    char path[300];
    pp_json_at sat = {at.file, pp_json_path(path, sizeof path, at.path, "source", -1)};
    pp_status st = pp_json_object(sat, v, keys, err);
    for (const char *const *k = keys; !st && *k; k++) {
        const char *text;
        st = pp_json_string(sat, v, *k, false, &text, err);
    }
    return st;
}

static pp_status read_aliases(pp_json_at at, const json_t *obj, pp_hw_catalog *cat, hw_type *h,
                              pp_error *err)
{
    json_t *list = NULL;
    pp_status st = pp_json_array(at, obj, "aliases", false, &list, err);
    char path[300];
    for (size_t k = 0; !st && list && k < json_array_size(list); k++) {
        pp_json_at aat = {at.file, pp_json_path(path, sizeof path, at.path, "aliases", (long)k)};
        const char *alias;
        if ((st = pp_json_as_string(aat, json_array_get(list, k), &alias, err)))
            break;
        const hw_type *other = find_type(cat, alias);
        if (other == h)
            continue;
        if (other || !alias[0])
            return pp_error_set(err, PP_EINPUT, "%s: %s: alias \"%s\" %s", at.file, aat.path,
                                alias, alias[0] ? "already names another type" : "is empty");
        if (!add_alias(h, alias))
            return pp_error_set(err, PP_ENOMEM, "%s: out of memory", at.file);
    }
    return st;
}

/* Adds or updates the type described by obj, the entry at `at`. */
static pp_status read_type(pp_json_at at, const json_t *obj, pp_hw_catalog *cat, pp_error *err)
{
    static const char *const keys[] = {"name", "aliases", "peak_flops", "memory_bandwidth",
                                       "memory_bytes", "efficiency", "peaks", "kernels", "source", "comment",
                                       NULL};
    const char *name = NULL, *comment;
    pp_status st;
    if ((st = pp_json_object(at, obj, keys, err)) ||
        (st = pp_json_string(at, obj, "name", true, &name, err)) ||
        (st = pp_json_string(at, obj, "comment", false, &comment, err)))
        return st;
    if (!name[0])
        return pp_error_set(err, PP_EINPUT, "%s: %s.name: is empty", at.file, at.path);
    hw_type *h = find_type(cat, name);
    bool is_new = !h;
    if (h && h->seen)
        return pp_error_set(err, PP_EINPUT, "%s: %s.name: type \"%s\" appears twice in this file",
                            at.file, at.path, name);
    if (!h && !(h = append_type(cat, name)))
        return pp_error_set(err, PP_ENOMEM, "%s: out of memory", at.file);
    h->seen = true;
    if ((st = figure(at, obj, "peak_flops", is_new, INFINITY, &h->t.peak_flops, err)) ||
        (st = figure(at, obj, "memory_bandwidth", is_new, INFINITY, &h->t.memory_bandwidth,
                     err)) ||
        (st = figure(at, obj, "memory_bytes", is_new, INFINITY, &h->t.memory_bytes, err)) ||
        (st = read_efficiency(at, obj, h, err)) || (st = read_peaks(at, obj, h, err)) ||
        (st = read_kernels(at, obj, h, err)) ||
        (st = read_source(at, obj, err)))
        return st;
    h->t.fp8_flops = h->peaks[PP_HW_FP8];
    return read_aliases(at, obj, cat, h, err);
}

static pp_status read_catalog(const char *file, const json_t *root, pp_hw_catalog *cat,
                              pp_error *err)
{
    static const char *const keys[] = {"comment", "types", NULL};
    pp_json_at top = {file, ""};
    json_t *types = NULL;
    const char *comment;
    pp_status st;
    if ((st = pp_json_object(top, root, keys, err)) ||
        (st = pp_json_string(top, root, "comment", false, &comment, err)) ||
        (st = pp_json_array(top, root, "types", true, &types, err)))
        return st;
    for (size_t i = 0; i < cat->count; i++)
        cat->types[i].seen = false;
    char path[64];
    for (size_t i = 0; !st && i < json_array_size(types); i++) {
        pp_json_at at = {file, pp_json_path(path, sizeof path, "", "types", (long)i)};
        st = read_type(at, json_array_get(types, i), cat, err);
    }
    return st;
}

/* Applies the parsed file `root` to a copy of cat and swaps it in on success. */
static pp_status apply(pp_hw_catalog *cat, const char *file, const json_t *root, pp_error *err)
{
    pp_hw_catalog *next = catalog_copy(cat);
    if (!next)
        return pp_error_set(err, PP_ENOMEM, "%s: out of memory", file);
    pp_status st = read_catalog(file, root, next, err);
    if (!st) {
        pp_hw_catalog old = *cat;
        *cat = *next;
        *next = old;
    }
    pp_hw_catalog_free(next);
    return st;
}

pp_status pp_hw_catalog_add_file(pp_hw_catalog *cat, const char *path, pp_error *err)
{
    json_t *root = NULL;
    pp_status st = pp_json_load_file(path, &root, err);
    if (!st)
        st = apply(cat, path, root, err);
    json_decref(root);
    return st;
}

pp_status pp_hw_catalog_add_buffer(pp_hw_catalog *cat, const char *name, const void *data, size_t size,
                                   pp_error *err)
{
    json_t *root = NULL;
    pp_status st = pp_json_load_buffer(name, data, size, &root, err);
    if (!st)
        st = apply(cat, name, root, err);
    json_decref(root);
    return st;
}

pp_status pp_hw_catalog_builtin(pp_hw_catalog **out, pp_error *err)
{
    static const char name[] = "built-in data/devices.json";
    *out = NULL;
    pp_hw_catalog *cat = calloc(1, sizeof *cat);
    if (!cat)
        return pp_error_set(err, PP_ENOMEM, "%s: out of memory", name);
    json_t *root = NULL;
    pp_status st = pp_json_load_buffer(name, hw_devices_json, hw_devices_json_size, &root, err);
    if (!st)
        st = apply(cat, name, root, err);
    json_decref(root);
    if (st) {
        pp_hw_catalog_free(cat);
        return st;
    }
    *out = cat;
    return PP_OK;
}

const char *pp_hw_math_name(pp_hw_math mode)
{
    static const char *const names[PP_HW_MATH_MODES] = {"fp32", "tf32", "bf16", "fp8"};
    return mode < PP_HW_MATH_MODES ? names[mode] : "?";
}

double pp_hw_catalog_peak(const pp_hw_catalog *cat, const pp_hw_device_type *t, pp_hw_math mode)
{
    const double *peaks = NULL;
    for (size_t i = 0; i < cat->count && !peaks; i++)
        if (&cat->types[i].t == t)
            peaks = cat->types[i].peaks;
    if (!peaks || peaks[mode] > 0)
        return peaks ? peaks[mode] : t->peak_flops;
    switch (mode) {
    case PP_HW_FP8: return pp_hw_catalog_peak(cat, t, PP_HW_BF16);
    case PP_HW_TF32: return peaks[PP_HW_FP32] > 0 ? peaks[PP_HW_FP32] : t->peak_flops;
    default: return t->peak_flops;
    }
}
