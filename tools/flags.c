/* flags.c: the table-driven flag parser and the help printed from the same
 * tables (see flags.h). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "flags.h"

enum { WRAP = 100, HELP_COLUMN = 22 };

static void *field(void *out, const flag_spec *s)
{
    return (char *)out + s->offset;
}

int flags_fail(const command_spec *c, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    fprintf(stderr, "parplan %s: ", c->name);
    vfprintf(stderr, format, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    return 2;
}

/* The range a number or integer flag takes: the library's, or the table's. */
static pp_option_range range_of(const flag_spec *s)
{
    if (s->range)
        return *s->range;
    return (pp_option_range){s->name, s->min, s->max, s->above_min, s->type == FLAG_INTEGER, NULL};
}

static bool is_choice(const flag_spec *s, const char *value)
{
    size_t n = strlen(value);
    for (const char *p = s->choices;; p++) {
        size_t len = strcspn(p, "|");
        if (len == n && strncmp(p, value, n) == 0)
            return true;
        p += len;
        if (!*p)
            return false;
    }
}

/* A whole number as the flag's range allows it; a seed's range reaches
 * past int64_t, and such a value is kept as its two's complement. */
static bool parse_whole(const char *text, const pp_option_range *r, int64_t *out)
{
    int64_t v;
    if (cli_parse_int64(text, &v))
        return pp_option_allows(r, (double)v) && (*out = v, true);
    char *end;
    errno = 0;
    unsigned long long u = strtoull(text, &end, 10);
    if (r->max < 18446744073709551615.0 || errno || end == text || *end || text[strspn(text, " ")] == '-')
        return false;
    *out = (int64_t)u;
    return true;
}

/* Stores one value; on a mistake, says what is allowed into why. */
static bool store(const flag_spec *s, const char *value, void *out, char *why, size_t size)
{
    double number;
    int64_t whole;
    pp_option_range range = range_of(s);
    switch (s->type) {
    case FLAG_SWITCH:
        *(bool *)field(out, s) = true;
        return true;
    case FLAG_TEXT:
        *(const char **)field(out, s) = value;
        return true;
    case FLAG_TEXT2:
        return false; /* stored by the caller, which holds both values */
    case FLAG_CHOICE:
        if (is_choice(s, value)) {
            *(const char **)field(out, s) = value;
            return true;
        }
        snprintf(why, size, "allowed: %s", s->choices);
        return false;
    case FLAG_BYTES:
        if (pp_bytes_parse(value, (double *)field(out, s)))
            return true;
        break;
    case FLAG_NUMBER:
        if (cli_parse_double(value, &number) && pp_option_allows(&range, number)) {
            *(double *)field(out, s) = number;
            return true;
        }
        break;
    case FLAG_INTEGER:
        if (parse_whole(value, &range, &whole)) {
            *(int64_t *)field(out, s) = whole;
            return true;
        }
        break;
    }
    char allowed[160];
    pp_option_range_text(&range, allowed, sizeof allowed);
    snprintf(why, size, "allowed: %s", allowed);
    return false;
}

static const flag_spec *find_flag(const command_spec *c, const char *name, size_t len)
{
    for (const flag_spec *s = c->flags; s && s->name; s++)
        if (strlen(s->name) == len && strncmp(s->name, name, len) == 0)
            return s;
    return NULL;
}

/* Edits (insert, delete, replace) between two short words, capped at 3. */
static int distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > 40 || m > 40)
        return 3;
    int row[41];
    for (size_t j = 0; j <= m; j++)
        row[j] = (int)j;
    for (size_t i = 1; i <= n; i++) {
        int diagonal = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= m; j++) {
            int above = row[j];
            int best = diagonal + (a[i - 1] != b[j - 1]);
            if (row[j] + 1 < best)
                best = row[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diagonal = above;
        }
    }
    return row[m] < 3 ? row[m] : 3;
}

static int unknown_flag(const command_spec *c, const char *arg)
{
    const char *name = arg + strspn(arg, "-");
    char bare[48];
    size_t len = strcspn(name, "=");
    snprintf(bare, sizeof bare, "%.*s", (int)pp_utf8_prefix(name, len < sizeof bare ? len : sizeof bare - 1), name);
    const flag_spec *nearest = NULL;
    int best = 3;
    for (const flag_spec *s = c->flags; s && s->name; s++) {
        int d = distance(bare, s->name);
        if (d < best) {
            best = d;
            nearest = s;
        }
    }
    if (nearest)
        return flags_fail(c, "unknown flag %s; did you mean --%s? (parplan help %s lists the flags)", arg,
                          nearest->name, c->name);
    return flags_fail(c, "unknown flag %s (parplan help %s lists the flags)", arg, c->name);
}

static int bad_value(const command_spec *c, const flag_spec *s, const char *value, const char *why)
{
    return flags_fail(c, "--%s %s: %s", s->name, value, why);
}

static int apply_defaults(const command_spec *c, void *out)
{
    char why[192];
    for (const flag_spec *s = c->flags; s && s->name; s++)
        if (s->fallback && !store(s, s->fallback, out, why, sizeof why))
            return flags_fail(c, "the default of --%s, '%s', is not allowed (%s): a bug in parplan", s->name,
                              s->fallback, why);
    return 0;
}

/* One "--name[=value]" at argv[*i], taking its values from what follows. */
static int parse_flag(const command_spec *c, int argc, char **argv, int *i, void *out, bool *seen)
{
    const char *arg = argv[*i];
    const char *name = arg + 2;
    const char *equals = strchr(name, '=');
    size_t len = equals ? (size_t)(equals - name) : strlen(name);
    const flag_spec *s = arg[1] == '-' ? find_flag(c, name, len) : NULL;
    if (!s)
        return unknown_flag(c, arg);
    size_t k = (size_t)(s - c->flags);
    if (seen[k])
        return flags_fail(c, "--%s is given twice", s->name);
    seen[k] = true;
    if (s->type == FLAG_SWITCH) {
        if (equals)
            return flags_fail(c, "--%s takes no value (it was given '%s')", s->name, equals + 1);
        store(s, NULL, out, NULL, 0);
        return 0;
    }
    int wanted = s->type == FLAG_TEXT2 ? 2 : 1;
    if (equals && wanted == 2)
        return flags_fail(c, "--%s takes two values, written after it: --%s %s", s->name, s->name, s->metavar);
    const char *value = equals ? equals + 1 : NULL;
    if (!equals) {
        if (*i + wanted >= argc)
            return flags_fail(c, "--%s needs %s %s", s->name, wanted == 2 ? "two values:" : "a value:", s->metavar);
        value = argv[++*i];
    }
    if (wanted == 2) {
        const char **pair = field(out, s);
        pair[0] = value;
        pair[1] = argv[++*i];
        return 0;
    }
    char why[192];
    return store(s, value, out, why, sizeof why) ? 0 : bad_value(c, s, value, why);
}

static int check_counts(const command_spec *c, int operands, const bool *seen)
{
    if (operands < c->operand_count)
        return flags_fail(c, "missing %s (usage: parplan %s %s ...; parplan help %s)", c->operands, c->name,
                          c->operands, c->name);
    for (const flag_spec *s = c->flags; s && s->name; s++)
        if (s->required && !seen[s - c->flags])
            return flags_fail(c, "missing --%s %s (%s)", s->name, s->metavar, s->help);
    return 0;
}

static bool asks_for_help(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return true;
    return false;
}

static int parse_all(const command_spec *c, int argc, char **argv, void *out, bool *seen)
{
    const char **operands = (const char **)((char *)out + c->operands_offset);
    int n = 0, code = apply_defaults(c, out);
    for (int i = 0; code == 0 && i < argc; i++) {
        if (argv[i][0] == '-' && argv[i][1] != '\0')
            code = parse_flag(c, argc, argv, &i, out, seen);
        else if (n < c->operand_count)
            operands[n++] = argv[i];
        else
            code = flags_fail(c, "unexpected argument '%s': %s takes %s%s", argv[i], c->name,
                              c->operand_count ? "only " : "no operands", c->operand_count ? c->operands : "");
    }
    return code ? code : check_counts(c, n, seen);
}

bool flags_parse(const command_spec *c, int argc, char **argv, void *out, int *exit_code)
{
    if (asks_for_help(argc, argv)) {
        flags_print_help(c, stdout);
        *exit_code = 0;
        return false;
    }
    size_t count = 0;
    while (c->flags && c->flags[count].name)
        count++;
    bool *seen = calloc(count + 1, sizeof *seen);
    *exit_code = seen ? parse_all(c, argc, argv, out, seen) : flags_fail(c, "out of memory");
    free(seen);
    return *exit_code == 0;
}

/* Prints one word (which may hold spaces) at the cursor `at`, starting a
 * new line at `column` when it would pass WRAP. */
static void print_word(FILE *f, const char *word, int *at, int column)
{
    int len = (int)strlen(word);
    if (*at > column && *at + 1 + len > WRAP) {
        fprintf(f, "\n%*s", column, "");
        *at = column;
    } else if (*at > column) {
        fputc(' ', f);
        (*at)++;
    }
    fputs(word, f);
    *at += len;
}

/* Prints text word by word from the cursor `at`, wrapping to `column`; a
 * '\n' in text starts a new line there. */
static void print_wrapped(FILE *f, const char *text, int at, int column)
{
    char word[256];
    for (const char *p = text; *p;) {
        if (*p == '\n') {
            fprintf(f, "\n%*s", column, "");
            at = column;
            p++;
            continue;
        }
        size_t len = strcspn(p, " \n");
        snprintf(word, sizeof word, "%.*s", (int)len, p);
        print_word(f, word, &at, column);
        p += len;
        p += strspn(p, " ");
    }
    fputc('\n', f);
}

void flags_print_usage(const command_spec *c, const char *prefix, FILE *f)
{
    int column = fprintf(f, "%sparplan %s ", prefix, c->name), at = column;
    if (c->operand_count)
        print_word(f, c->operands, &at, column);
    for (const flag_spec *s = c->flags; s && s->name; s++) {
        const char *open = s->required ? "" : "[", *close = s->required ? "" : "]";
        char word[128];
        if (s->type == FLAG_SWITCH)
            snprintf(word, sizeof word, "%s--%s%s", open, s->name, close);
        else
            snprintf(word, sizeof word, "%s--%s %s%s", open, s->name, s->metavar, close);
        print_word(f, word, &at, column);
    }
    fputc('\n', f);
}

static void print_flag(const flag_spec *s, FILE *f)
{
    char head[64];
    if (s->type == FLAG_SWITCH)
        snprintf(head, sizeof head, "  --%s", s->name);
    else
        snprintf(head, sizeof head, "  --%s %s", s->name, s->metavar);
    int at = fprintf(f, "%s", head);
    if (at + 2 > HELP_COLUMN)
        fprintf(f, "\n%*s", HELP_COLUMN, "");
    else
        fprintf(f, "%*s", HELP_COLUMN - at, "");
    char text[1024], choices[256] = "";
    if (s->type == FLAG_CHOICE)
        snprintf(choices, sizeof choices, "one of %s", s->choices);
    if (s->fallback)
        snprintf(text, sizeof text, "%s (%s%sdefault %s)", s->help, choices, *choices ? "; " : "", s->fallback);
    else if (*choices)
        snprintf(text, sizeof text, "%s (%s)", s->help, choices);
    else
        snprintf(text, sizeof text, "%s", s->help);
    print_wrapped(f, text, HELP_COLUMN, HELP_COLUMN);
}

void flags_print_help(const command_spec *c, FILE *f)
{
    flags_print_usage(c, "usage: ", f);
    fprintf(f, "  ");
    print_wrapped(f, c->about, 2, 2);
    for (const flag_spec *s = c->flags; s && s->name; s++)
        print_flag(s, f);
}
