/* solution.c: the answer line "[s0, s1, ...]", read and written. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "parplan/iopddl.h"
#include "iopddl/problem_io.h"

size_t pp_iopddl_format_solution(const uint32_t *s, uint32_t n, char *buf)
{
    char *p = buf;
    *p++ = '[';
    for (uint32_t i = 0; i < n; i++)
        p += sprintf(p, i ? ", %u" : "%u", s[i]);
    *p++ = ']';
    *p = '\0';
    return (size_t)(p - buf);
}

static const char *skip_space(const char *p)
{
    while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')
        p++;
    return p;
}

/* text ends with a '\0' at text[size] (pp_read_text_file's, or the copy's):
 * the scan stops at it, and a '\0' before it is data after the answer. */
static pp_status parse(const char *path, const char *text, size_t size, const pp_iopddl_problem *prob,
                       uint32_t **out, pp_error *err)
{
    uint32_t n = prob->node_count;
    uint32_t *s = malloc(((size_t)n + 1) * sizeof *s);
    if (!s)
        return pp_error_set(err, PP_ENOMEM, "%s: out of memory", path);
    const char *p = skip_space(text);
    const char *why = NULL;
    uint32_t count = 0;
    char range[128];
    if (*p++ != '[') {
        why = "expected '['";
        p--;
    }
    p = skip_space(p);
    if (!why && *p == ']') {
        p++;
    } else {
        while (!why) {
            if (*p < '0' || *p > '9') {
                why = "expected a strategy index (a non-negative integer)";
                break;
            }
            uint64_t v = 0;
            while (*p >= '0' && *p <= '9' && v <= UINT32_MAX)
                v = v * 10 + (uint64_t)(*p++ - '0');
            if (count >= n) {
                why = "more entries than the problem has nodes";
                break;
            }
            if (v >= pp_iopddl_strategy_count(prob, count)) {
                snprintf(range, sizeof range, "strategy %s%llu is out of range: node %u has %u strategies (0 to %u)",
                         v > UINT32_MAX ? "over " : "", (unsigned long long)(v > UINT32_MAX ? UINT32_MAX : v), count,
                         pp_iopddl_strategy_count(prob, count), pp_iopddl_strategy_count(prob, count) - 1);
                why = range;
                break;
            }
            s[count++] = (uint32_t)v;
            p = skip_space(p);
            if (*p == ']') {
                p++;
                break;
            }
            if (*p++ != ',') {
                p--;
                why = "expected ',' or ']'";
            }
            p = skip_space(p);
        }
    }
    if (!why && (size_t)(skip_space(p) - text) != size) {
        p = skip_space(p);
        why = "unexpected data after ']'";
    }
    if (!why && count != n)
        why = "fewer entries than the problem has nodes";
    pp_status status = PP_OK;
    if (why) {
        status = pp_error_set(err, PP_EINPUT, "%s: byte %zu: %s (entry %u; the problem has %u nodes)",
                              path, (size_t)(p - text), why, count, n);
        free(s);
        s = NULL;
    }
    *out = s;
    return status;
}

pp_status pp_iopddl_parse_solution(const char *name, const char *text, size_t size, const pp_iopddl_problem *prob,
                                   uint32_t **out, pp_error *err)
{
    *out = NULL;
    char *copy = malloc(size + 1);
    if (!copy)
        return pp_error_set(err, PP_ENOMEM, "%s: out of memory", name);
    if (size)
        memcpy(copy, text, size);
    copy[size] = '\0';
    pp_status status = parse(name, copy, size, prob, out, err);
    free(copy);
    return status;
}

pp_status pp_iopddl_load_solution(const char *path, const pp_iopddl_problem *prob,
                                  uint32_t **out, pp_error *err)
{
    *out = NULL;
    size_t size;
    char *text;
    pp_status read = pp_read_text_file(path, &text, &size, err);
    if (read != PP_OK)
        return read;
    pp_status status = parse(path, text, size, prob, out, err);
    free(text);
    return status;
}
