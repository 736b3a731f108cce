/* flags.h: the one flag parser of the command-line tools. Each command
 * declares its operands and flags in a table (type, range, default, help
 * text); parsing, the usage line and `parplan help COMMAND` all read that
 * table, so what the help says cannot drift from what is accepted. Every
 * mistake gets one line naming the flag, the value and what is allowed. */
#ifndef PP_TOOLS_FLAGS_H
#define PP_TOOLS_FLAGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "parplan/options.h"

typedef enum {
    FLAG_SWITCH,  /* bool; takes no value */
    FLAG_TEXT,    /* const char * */
    FLAG_TEXT2,   /* const char *[2]: a flag followed by two values */
    FLAG_NUMBER,  /* double, finite, within the range */
    FLAG_INTEGER, /* int64_t within the range */
    FLAG_CHOICE,  /* const char *: one of the words in choices, "a|b|c" */
    FLAG_BYTES,   /* double > 0, with an optional unit: 16e9, 16GB, 16GiB (pp_bytes_parse) */
} flag_type;

typedef struct {
    const char *name;    /* without the leading "--" */
    flag_type type;
    size_t offset;       /* of the value in the command's flag struct */
    const char *metavar; /* what the value is called in the help: S, N, FILE */
    double min, max;     /* numbers and integers: the allowed range */
    bool above_min;      /* the range excludes min itself */
    const char *choices; /* FLAG_CHOICE: "makespan|span" */
    const char *fallback; /* the default, written as a user would type it; NULL: none */
    bool required;
    const char *help;
    const pp_option_range *range; /* the library's range of an option Python takes too (it then
                                     stands for min, max and above_min): one validation */
} flag_spec;

typedef struct {
    const char *name;        /* "schedule", "cluster plan" */
    const char *summary;     /* one line for the list of commands */
    const char *operands;    /* as the usage shows them: "PROBLEM SCHEDULE" */
    int operand_count;       /* exactly this many */
    size_t operands_offset;  /* of a const char *[operand_count] in the flag struct */
    const char *about;       /* what the command does */
    const flag_spec *flags;  /* ends with an entry whose name is NULL */
} command_spec;

/* Fills the flag struct `out` from the table's defaults, then from argv
 * ("--name value" or "--name=value"; a value may start with '-'). Returns
 * true when the command should run; otherwise the command is over with
 * *exit_code: 2 after printing "parplan COMMAND: what was wrong" on stderr,
 * or 0 after printing the help that --help or -h asked for. */
bool flags_parse(const command_spec *c, int argc, char **argv, void *out, int *exit_code);

/* "parplan COMMAND: message" on stderr, for the checks a table cannot state
 * (flags that exclude each other); returns 2. */
int flags_fail(const command_spec *c, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* The usage line after prefix: "parplan NAME OPERANDS [--flag V] ...",
 * wrapped under its first operand. */
void flags_print_usage(const command_spec *c, const char *prefix, FILE *f);
/* The usage line, what the command does, and every flag with its help. */
void flags_print_help(const command_spec *c, FILE *f);

/* Flags every solving command spells and bounds the same way. */
/* An option whose range is the library's (flag_spec.range). */
#define FLAG_OPTION(name, kind, type, field, metavar, range, fallback, help)                                      \
    {name, kind, offsetof(type, field), metavar, 0, 0, false, NULL, fallback, false, help, &range}
#define FLAG_TIMEOUT(type, field, fallback, help)                                                                 \
    {"timeout", FLAG_NUMBER, offsetof(type, field), "S", 0, 0, false, NULL, fallback, false, help,                \
     &pp_option_timeout}
#define FLAG_THREADS(type, field)                                                                                 \
    {"threads", FLAG_INTEGER, offsetof(type, field), "N", 0, 0, false, NULL, NULL, false,                         \
     "workers (default, or 0: one per core)", &pp_option_threads}
#define FLAG_SEED(type, field)                                                                                    \
    {"seed", FLAG_INTEGER, offsetof(type, field), "K", 0, 0, false, NULL, "1", false,                             \
     "random seed (64 bits; a negative one is its two's complement); the same seed, threads and rounds give "    \
     "the same answer", &pp_option_seed}
#define FLAG_ROUNDS(type, field, help)                                                                            \
    {"rounds", FLAG_INTEGER, offsetof(type, field), "R", 0, 0, false, NULL, NULL, false, help, &pp_option_rounds}
#define FLAG_MEMORY(type, field, help)                                                                            \
    {"memory", FLAG_BYTES, offsetof(type, field), "BYTES", 0, 0, false, NULL, NULL, false, help, &pp_option_memory}
#define FLAG_SWITCH_OF(name, type, field, help)                                                                   \
    {name, FLAG_SWITCH, offsetof(type, field), NULL, 0, 0, false, NULL, NULL, false, help, NULL}
#define FLAG_TEXT_OF(name, type, field, metavar, help)                                                            \
    {name, FLAG_TEXT, offsetof(type, field), metavar, 0, 0, false, NULL, NULL, false, help, NULL}
#define FLAG_END {0}

#endif
