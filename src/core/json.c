/* json.c: loading JSON with jansson and reading typed values out of it, with
 * messages that say where (FILE:LINE:COLUMN for syntax, FILE: PATH for
 * meaning, FILE:LINE:COLUMN: PATH once a reader finds the path again in its
 * text) and what was found instead of what was expected. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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


/* ---------------------------------------------------------------- positions */

/* The locator walks the text of a document jansson has already accepted (or
 * refused: then it stops early, wherever the text ends or goes wrong). */
typedef struct {
    const char *text;
    size_t size;
} doc;

#define NOWHERE SIZE_MAX

static char char_at(const doc *D, size_t p)
{
    return p < D->size ? D->text[p] : '\0';
}

static size_t skip_space(const doc *D, size_t p)
{
    while (p < D->size && D->text[p] && strchr(" \t\r\n", D->text[p]))
        p++;
    return p;
}

/* p is at '"': just past the closing quote. */
static size_t skip_string(const doc *D, size_t p)
{
    for (p++; p < D->size; p++) {
        if (D->text[p] == '\\')
            p++;
        else if (D->text[p] == '"')
            return p + 1;
    }
    return D->size;
}

static size_t skip_value(const doc *D, size_t p)
{
    char c = char_at(D, p);
    if (c == '"')
        return skip_string(D, p);
    if (c != '{' && c != '[') {
        while (p < D->size && D->text[p] && !strchr(",}] \t\r\n", D->text[p]))
            p++;
        return p;
    }
    int depth = 0;
    while (p < D->size) {
        c = D->text[p];
        if (c == '"') {
            p = skip_string(D, p);
            continue;
        }
        if (c == '{' || c == '[')
            depth++;
        else if ((c == '}' || c == ']') && --depth == 0)
            return p + 1;
        p++;
    }
    return D->size;
}

static bool hex4(const doc *D, size_t p, unsigned *out)
{
    *out = 0;
    for (size_t k = p; k < p + 4; k++) {
        char c = char_at(D, k);
        const char *digits = "0123456789abcdef", *d = c ? strchr(digits, c | 0x20) : NULL;
        if (!d)
            return false;
        *out = *out * 16 + (unsigned)(d - digits);
    }
    return true;
}

static int utf8(unsigned u, char out[4])
{
    if (u < 0x80) {
        out[0] = (char)u;
        return 1;
    }
    if (u < 0x800) {
        out[0] = (char)(0xC0 | u >> 6);
        out[1] = (char)(0x80 | (u & 0x3F));
        return 2;
    }
    if (u < 0x10000) {
        out[0] = (char)(0xE0 | u >> 12);
        out[1] = (char)(0x80 | (u >> 6 & 0x3F));
        out[2] = (char)(0x80 | (u & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | u >> 18);
    out[1] = (char)(0x80 | (u >> 12 & 0x3F));
    out[2] = (char)(0x80 | (u >> 6 & 0x3F));
    out[3] = (char)(0x80 | (u & 0x3F));
    return 4;
}

/* *p is just after a backslash: the escaped character in UTF-8 (0 bytes for
 * a bad escape), with *p moved past it. Surrogate pairs make one character,
 * as jansson decodes them. */
static int unescape(const doc *D, size_t *p, char out[4])
{
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    char c = char_at(D, *p);
    const char *k = c ? strchr(from, c) : NULL;
    if (k) {
        (*p)++;
        out[0] = to[k - from];
        return 1;
    }
    unsigned u, low;
    if (c != 'u' || !hex4(D, *p + 1, &u))
        return 0;
    *p += 5;
    if (u >= 0xD800 && u < 0xDC00 && char_at(D, *p) == '\\' && char_at(D, *p + 1) == 'u' &&
        hex4(D, *p + 2, &low) && low >= 0xDC00 && low < 0xE000) {
        u = 0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00);
        *p += 6;
    }
    return utf8(u, out);
}

/* p is at the '"' of a key: how many characters of path the unescaped key
 * matches when path goes on with the key and then ends or a '.' or '['
 * follows; NOWHERE when it does not. */
static size_t key_length(const doc *D, size_t p, const char *path)
{
    size_t n = 0;
    for (p++; p < D->size && D->text[p] != '"';) {
        char piece[4];
        int len = 1;
        piece[0] = D->text[p++];
        if (piece[0] == '\\' && !(len = unescape(D, &p, piece)))
            return NOWHERE;
        for (int k = 0; k < len; k++)
            if (!piece[k] || path[n++] != piece[k])
                return NOWHERE;
    }
    return path[n] == '\0' || path[n] == '.' || path[n] == '[' ? n : NOWHERE;
}

/* p is at '{': the value of the member whose key starts *rest (and *rest
 * moves past the key), or NOWHERE. A key that is a longer part of the path
 * wins ("a.b" over "a" for the path a.b), then the last of equal ones. */
static size_t find_member(const doc *D, size_t p, const char **rest)
{
    size_t best = NOWHERE, best_len = 0;
    for (p = skip_space(D, p + 1); char_at(D, p) == '"'; p = skip_space(D, p + 1)) {
        size_t len = key_length(D, p, *rest);
        p = skip_space(D, skip_string(D, p));
        if (char_at(D, p) != ':')
            break;
        p = skip_space(D, p + 1);
        if (len != NOWHERE && (best == NOWHERE || len >= best_len)) {
            best = p;
            best_len = len;
        }
        p = skip_space(D, skip_value(D, p));
        if (char_at(D, p) != ',')
            break;
    }
    if (best != NOWHERE)
        *rest += best_len;
    return best;
}

/* p is at '[': element `index`, or NOWHERE. */
static size_t find_element(const doc *D, size_t p, long index)
{
    p = skip_space(D, p + 1);
    if (char_at(D, p) == ']' || index < 0)
        return NOWHERE;
    for (long k = 0; k < index; k++) {
        p = skip_space(D, skip_value(D, p));
        if (char_at(D, p) != ',')
            return NOWHERE;
        p = skip_space(D, p + 1);
    }
    return p;
}

/* Offset of the value at path, or of the deepest part of it that exists;
 * *found is how much of path that is. */
static size_t locate(const doc *D, const char *path, size_t *found)
{
    const char *start = path;
    size_t p = skip_space(D, 0), next;
    while (*path) {
        const char *rest = path;
        if (*rest == '[') {
            char *end;
            long index = strtol(rest + 1, &end, 10);
            if (char_at(D, p) != '[' || *end != ']' || end == rest + 1 ||
                (next = find_element(D, p, index)) == NOWHERE)
                break;
            rest = end + 1;
        } else {
            rest += *rest == '.';
            if (char_at(D, p) != '{' || (next = find_member(D, p, &rest)) == NOWHERE)
                break;
        }
        path = rest;
        p = next;
    }
    *found = (size_t)(path - start);
    return p;
}

size_t pp_json_locate(const char *text, size_t size, const char *path, int *line, int *column)
{
    doc D = {text, size};
    size_t found, p = locate(&D, path, &found);
    *line = 1;
    *column = 1;
    for (size_t k = 0; k < p && k < size; k++) {
        unsigned char c = (unsigned char)text[k];
        if (c == '\n') {
            ++*line;
            *column = 1;
        } else if ((c & 0xC0) != 0x80) {
            ++*column;
        }
    }
    return found;
}

pp_status pp_json_relocate(pp_error *err, pp_status st, const char *file, const char *text,
                           size_t size, const char *path)
{
    if (st != PP_EINPUT || !err)
        return st;
    char *message = err->message, place[32];
    size_t n = strlen(file), cap = sizeof err->message;
    if (n + sizeof place + 2 >= cap || strncmp(message, file, n) != 0 ||
        strncmp(message + n, ": ", 2) != 0)
        return st;
    int line, column;
    pp_json_locate(text, size, path, &line, &column);
    size_t k = (size_t)snprintf(place, sizeof place, ":%d:%d", line, column);
    size_t len = strlen(message);
    if (len + k >= cap)
        len = cap - 1 - k;
    memmove(message + n + k, message + n, len - n);
    message[len + k] = '\0';
    memcpy(message + n, place, k);
    return st;
}

/* What is left of a path after the part found: one key or one index, so the
 * error is about something missing from a value that exists. */
static bool one_part(const char *rest)
{
    if (*rest == '[') {
        const char *end = strchr(rest, ']');
        return end && end[1] == '\0';
    }
    rest += *rest == '.';
    return *rest && !strpbrk(rest, ".[");
}

pp_status pp_json_place(pp_error *err, pp_status st, const char *file, const char *text,
                        size_t size)
{
    if (st != PP_EINPUT || !err)
        return st;
    size_t n = strlen(file);
    const char *message = err->message, *start, *end;
    if (strncmp(message, file, n) != 0 || strncmp(message + n, ": ", 2) != 0)
        return st;
    start = message + n + 2;
    if (!(end = strstr(start, ": ")))
        return st;
    char path[sizeof err->message];
    memcpy(path, start, (size_t)(end - start));
    path[end - start] = '\0';
    int line, column;
    size_t found = pp_json_locate(text, size, path, &line, &column);
    if (path[found] && (strpbrk(path, " \t\n") || !one_part(path + found)))
        return st;
    return pp_json_relocate(err, st, file, text, size, path);
}
