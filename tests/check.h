/* check.h: the tests' assertions: print where and what, count failures;
 * stop a test case whose later checks depend on a failed one; mark a test
 * skipped (ctest's SKIP_RETURN_CODE) when an input from outside the
 * repository is absent. */
#ifndef PP_TESTS_CHECK_H
#define PP_TESTS_CHECK_H

#include <stdbool.h>
#include <stdio.h>

static int check_failures;
static bool check_skipped;

#define CHECK(cond)                                                              \
    do {                                                                         \
        if (!(cond)) {                                                           \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            check_failures++;                                                    \
        }                                                                        \
    } while (0)

/* A check the rest of the test case stands on (a load, a run whose output
 * it reads): failed, the case (a void function) returns at once rather
 * than go on with what the failure left NULL. */
#define REQUIRE(cond)                                                            \
    do {                                                                         \
        if (!(cond)) {                                                           \
            fprintf(stderr, "%s:%d: check failed, test case stopped: %s\n", __FILE__, __LINE__, #cond); \
            check_failures++;                                                    \
            return;                                                              \
        }                                                                        \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                       \
    do {                                                                         \
        long long a_ = (long long)(a), b_ = (long long)(b);                      \
        if (a_ != b_) {                                                          \
            fprintf(stderr, "%s:%d: %s == %lld, expected %s == %lld\n", __FILE__, __LINE__, #a, a_, #b, b_); \
            check_failures++;                                                    \
        }                                                                        \
    } while (0)

/* ctest's SKIP_RETURN_CODE for every test (tests/CMakeLists.txt). */
#define CHECK_SKIP_CODE 77

/* Whether an input from outside the repository (the public contest
 * instances in ../shared, or -DPP_SHARED_DIR) is there; when it is not, one
 * line names it and the test ends as skipped, after its other checks. */
static inline bool check_have(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f) {
        fclose(f);
        return true;
    }
    printf("skipped: %s is absent (../shared beside the clone, or cmake -DPP_SHARED_DIR=DIR)\n", path);
    check_skipped = true;
    return false;
}

/* A random-property test's rounds. The plain build runs them all and holds
 * the counts they must reach (how many problems the presolve shrank, how
 * many limits bound); the sanitizer build (tests/CMakeLists.txt defines
 * PP_TEST_ROUND_SHARE there) runs one in PP_TEST_ROUND_SHARE of them, the
 * first ones, with every check of each round but the counts scaled down:
 * memory errors and undefined behaviour show on the code paths, which a
 * share of the rounds takes, and repeating the plain build's counting under
 * the sanitizers was most of their run (BENCHMARKS.md, "Test time"). */
#ifndef PP_TEST_ROUND_SHARE
#define PP_TEST_ROUND_SHARE 1
#endif
#define CHECK_ROUNDS(n) ((n) / PP_TEST_ROUND_SHARE > 0 ? (n) / PP_TEST_ROUND_SHARE : 1)
#define CHECK_AT_LEAST(count, least) CHECK((count) >= ((least) + PP_TEST_ROUND_SHARE - 1) / PP_TEST_ROUND_SHARE)

/* A command's time limit where the test asks for what it must do within
 * it: the sanitizer build (PP_TEST_TIME_SCALE there) runs the same code
 * several times slower, so it gives the limit that many times over and
 * holds the command to the same contract: within it, with its answer. */
#ifndef PP_TEST_TIME_SCALE
#define PP_TEST_TIME_SCALE 1
#endif

#define CHECK_DONE()                                                             \
    (check_failures ? (fprintf(stderr, "%d check(s) failed\n", check_failures), 1) \
                    : check_skipped ? CHECK_SKIP_CODE : 0)

#endif
