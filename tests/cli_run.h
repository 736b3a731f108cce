/* cli_run.h: running the parplan binary from a test: the exit status and
 * what it said, and a check that both are as expected. */
#ifndef PP_TESTS_CLI_RUN_H
#define PP_TESTS_CLI_RUN_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include "check.h"

/* Runs a shell command, returns its exit status and the first line of what
 * it wrote (stdout and stderr together). */
static inline int run(const char *command, char *first_line, size_t size)
{
    char full[2400];
    snprintf(full, sizeof full, "%s 2>&1", command);
    FILE *f = popen(full, "r");
    if (!f)
        return -1;
    first_line[0] = 0;
    char line[1024];
    bool seen = false;
    while (fgets(line, sizeof line, f))
        if (!seen) {
            snprintf(first_line, size, "%s", line);
            seen = true;
        }
    int status = pclose(f);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* As run, but keeps all it wrote (up to size), not the first line. */
static inline int run_all(const char *command, char *said, size_t size)
{
    char full[2400];
    snprintf(full, sizeof full, "%s 2>&1", command);
    FILE *f = popen(full, "r");
    if (!f)
        return -1;
    size_t n = fread(said, 1, size - 1, f);
    said[n] = 0;
    char rest[4096];
    while (fread(rest, 1, sizeof rest, f) > 0)
        ;
    int status = pclose(f);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The command exits with code and says needle somewhere (NULL: anything). */
static inline void expect_said(const char *command, int code, const char *needle)
{
    static char said[16384];
    int got = run_all(command, said, sizeof said);
    if (got != code || (needle && !strstr(said, needle))) {
        fprintf(stderr, "%s\n  exit %d (expected %d), said: %s  expected to contain: %s\n", command, got, code,
                said, needle ? needle : "-");
        check_failures++;
    }
}

static inline void expect(const char *command, int code, const char *needle)
{
    char out[1024];
    int got = run(command, out, sizeof out);
    if (got != code || (needle && !strstr(out, needle))) {
        fprintf(stderr, "%s\n  exit %d (expected %d), said: %s  expected to contain: %s\n", command, got, code,
                out, needle ? needle : "-");
        check_failures++;
    }
}

#endif
