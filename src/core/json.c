/* json.c: loading JSON with jansson and reading typed values out of it, with
 * messages that say where (FILE:LINE:COLUMN for syntax, FILE: PATH for
 * meaning) and what was found instead of what was expected. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "core/json.h"

/* Jansson counts columns from 1 but says 0 before the first character of a
 * line; editors take 1 there. */
static pp_status syntax_error(const char *name, const json_error_t *e, pp_error *err)
{
    pp_status status = json_error_code(e) == json_error_out_of_memory ? PP_ENOMEM : PP_EINPUT;
    if (e->line <= 0)
        return pp_error_set(err, status, "%s: %s", name, e->text);
    return pp_error_set(err, status, "%s:%d:%d: %s", name, e->line, e->column > 0 ? e->column : 1,
                        e->text);
}

pp_status pp_json_load_file(const char *path, json_t **out, pp_error *err)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return pp_error_set(err, PP_EIO, "%s: %s", path, strerror(errno));
    json_error_t e;
    json_t *root = json_loadf(f, JSON_REJECT_DUPLICATES, &e);
    int read_errno = errno;
    bool failed_read = ferror(f);
    fclose(f);
    if (failed_read) {
        json_decref(root);
        return pp_error_set(err, PP_EIO, "%s: read error: %s", path, strerror(read_errno));
    }
    if (!root)
        return syntax_error(path, &e, err);
    *out = root;
    return PP_OK;
}

pp_status pp_json_load_buffer(const char *name, const void *data, size_t size, json_t **out,
                              pp_error *err)
{
    json_error_t e;
    *out = json_loadb(data, size, JSON_REJECT_DUPLICATES, &e);
    return *out ? PP_OK : syntax_error(name, &e, err);
}

char *pp_json_path(char *buf, size_t size, const char *parent, const char *key, long index)
{
    int n = snprintf(buf, size, "%s%s%s", parent, parent[0] && key[0] ? "." : "", key);
    if (index >= 0 && n >= 0 && (size_t)n < size)
        snprintf(buf + n, size - (size_t)n, "[%ld]", index);
    return buf;
}

/* "FILE: PATH" or just "FILE" at the root. */
static const char *where(pp_json_at at, char *buf, size_t size)
{
    snprintf(buf, size, "%s%s%s", at.file, at.path[0] ? ": " : "", at.path);
    return buf;
}

/* A short picture of a value for "got ..." in messages. */
static const char *describe(const json_t *v, char *buf, size_t size)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_TRUE: return "true";
    case JSON_FALSE: return "false";
    case JSON_NULL: return "null";
    case JSON_INTEGER:
        snprintf(buf, size, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        return buf;
    case JSON_REAL:
        snprintf(buf, size, "%.17g", json_real_value(v));
        return buf;
    case JSON_STRING:
        break;
    }
    const char *s = json_string_value(v);
    size_t len = strlen(s), shown = len > 40 ? 40 : len, n = 0;
    buf[n++] = '"';
    for (size_t k = 0; k < shown && n + 5 < size; k++)
        buf[n++] = (unsigned char)s[k] < 0x20 ? '?' : s[k];
    snprintf(buf + n, size - n, "%s\"", shown < len ? "..." : "");
    return buf;
}

static pp_status type_error(pp_json_at at, const json_t *v, const char *expected, pp_error *err)
{
    char place[300], got[64];
    return pp_error_set(err, PP_EINPUT, "%s: expected %s, got %s", where(at, place, sizeof place),
                        expected, describe(v, got, sizeof got));
}

pp_status pp_json_object(pp_json_at at, const json_t *value, const char *const *allowed,
                         pp_error *err)
{
    if (!json_is_object(value))
        return type_error(at, value, "an object", err);
    const char *key;
    json_t *item;
    json_object_foreach((json_t *)value, key, item) {
        bool known = false;
        for (const char *const *a = allowed; *a && !known; a++)
            known = strcmp(*a, key) == 0;
        if (known)
            continue;
        char list[200] = "", place[300];
        for (const char *const *a = allowed; *a; a++) {
            size_t n = strlen(list);
            snprintf(list + n, sizeof list - n, "%s%s", a == allowed ? "" : ", ", *a);
        }
        pp_json_at child = {at.file, pp_json_path(place, sizeof place, at.path, key, -1)};
        char text[340];
        return pp_error_set(err, PP_EINPUT, "%s: unknown key (allowed: %s)",
                            where(child, text, sizeof text), list);
    }
    return PP_OK;
}

pp_status pp_json_as_string(pp_json_at at, const json_t *value, const char **out, pp_error *err)
{
    if (!json_is_string(value))
        return type_error(at, value, "a string", err);
    *out = json_string_value(value);
    return PP_OK;
}

pp_status pp_json_as_number(pp_json_at at, const json_t *value, double min, double *out,
                            pp_error *err)
{
    char expected[64];
    if (min == -INFINITY)
        snprintf(expected, sizeof expected, "a finite number");
    else
        snprintf(expected, sizeof expected, "a number >= %g", min);
    double x = json_is_number(value) ? json_number_value(value) : NAN;
    if (!isfinite(x) || x < min)
        return type_error(at, value, expected, err);
    *out = x;
    return PP_OK;
}

/* Member `key` of obj into *v (NULL when absent), with at->path moved to it. */
static pp_status member(pp_json_at *at, char *buf, size_t size, const json_t *obj,
                        const char *key, bool required, json_t **v, pp_error *err)
{
    at->path = pp_json_path(buf, size, at->path, key, -1);
    *v = json_object_get(obj, key);
    if (*v || !required)
        return PP_OK;
    char place[340];
    return pp_error_set(err, PP_EINPUT, "%s: missing (it is required)", where(*at, place, sizeof place));
}

pp_status pp_json_string(pp_json_at at, const json_t *obj, const char *key, bool required,
                         const char **out, pp_error *err)
{
    char buf[300];
    json_t *v;
    pp_status st = member(&at, buf, sizeof buf, obj, key, required, &v, err);
    return st || !v ? st : pp_json_as_string(at, v, out, err);
}

pp_status pp_json_number(pp_json_at at, const json_t *obj, const char *key, bool required,
                         double min, double *out, pp_error *err)
{
    char buf[300];
    json_t *v;
    pp_status st = member(&at, buf, sizeof buf, obj, key, required, &v, err);
    return st || !v ? st : pp_json_as_number(at, v, min, out, err);
}

pp_status pp_json_array(pp_json_at at, const json_t *obj, const char *key, bool required,
                        json_t **out, pp_error *err)
{
    char buf[300];
    json_t *v;
    pp_status st = member(&at, buf, sizeof buf, obj, key, required, &v, err);
    if (st || !v)
        return st;
    if (!json_is_array(v))
        return type_error(at, v, "an array", err);
    *out = v;
    return PP_OK;
}
