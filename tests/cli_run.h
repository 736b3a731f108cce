/* cli_run.h: running the parplan binary from a test: the exit status and
 * what it said, and a check that both are as expected. */
#ifndef PP_TESTS_CLI_RUN_H
#define PP_TESTS_CLI_RUN_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include "check.h"

/* Runs a shell command, returns its exit status and what it wrote (stdout
 * and stderr together, up to size). */
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

/* The same, keeping the first line of what it wrote. */
static inline int run(const char *command, char *first_line, size_t size)
{
    static char said[65536];
    int status = run_all(command, said, sizeof said);
    snprintf(first_line, size, "%.*s", (int)strcspn(said, "\n") + (said[strcspn(said, "\n")] == '\n'), said);
    return status;
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
