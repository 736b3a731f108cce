/* jansson_parse.c: the DOM-parser baseline for bench/iopddl-parse. Parses
 * one IOPDDL file (plain, or gzip through zlib) into a jansson tree and
 * counts its integers, so the table sets our streaming loader against the
 * usual way of reading JSON in C. Built by that script with -ljansson -lz.
 * Prints "SECONDS CPU_SECONDS PEAK_RSS_KB INTEGERS" (see parse_only.c). */
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <zlib.h>

static size_t read_gz(void *buffer, size_t size, void *data)
{
    int n = gzread((gzFile)data, buffer, (unsigned)size);
    return n < 0 ? (size_t)-1 : (size_t)n;
}

static unsigned long long count_integers(const json_t *v)
{
    unsigned long long n = 0;
    size_t i;
    const char *key;
    json_t *child;
    if (json_is_integer(v))
        return 1;
    if (json_is_array(v))
        json_array_foreach(v, i, child) n += count_integers(child);
    else if (json_is_object(v))
        json_object_foreach((json_t *)v, key, child) n += count_integers(child);
    return n;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double cpu_seconds(const struct rusage *u)
{
    return (double)(u->ru_utime.tv_sec + u->ru_stime.tv_sec) +
           1e-6 * (double)(u->ru_utime.tv_usec + u->ru_stime.tv_usec);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: jansson_parse FILE\n");
        return 2;
    }
    double start = now();
    json_error_t error;
    json_t *root;
    size_t len = strlen(argv[1]);
    if (len > 3 && strcmp(argv[1] + len - 3, ".gz") == 0) {
        gzFile gz = gzopen(argv[1], "rb");
        if (!gz) {
            perror(argv[1]);
            return 2;
        }
        gzbuffer(gz, 1 << 20);
        root = json_load_callback(read_gz, gz, 0, &error);
        gzclose(gz);
    } else {
        root = json_load_file(argv[1], 0, &error);
    }
    if (!root) {
        fprintf(stderr, "jansson_parse: %s: line %d: %s\n", argv[1], error.line, error.text);
        return 2;
    }
    double seconds = now() - start;
    unsigned long long integers = count_integers(root);
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    printf("%.6f %.6f %ld %llu\n", seconds, cpu_seconds(&usage), usage.ru_maxrss, integers);
    json_decref(root);
    return 0;
}
