/* replay.c: runs fuzz targets without libFuzzer. A main() that hands every
 * file named on the command line (folders: every file in them) to
 * LLVMFuzzerTestOneInput once, so the corpus is a regression test in the
 * normal build, sanitizers included when the build has them. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 1;
    }
    size_t cap = 1 << 16, size = 0;
    uint8_t *data = malloc(cap);
    size_t n;
    while (data && (n = fread(data + size, 1, cap - size, f)) > 0) {
        size += n;
        if (size == cap) {
            uint8_t *grown = realloc(data, cap *= 2);
            if (!grown)
                free(data);
            data = grown;
        }
    }
    fclose(f);
    if (!data) {
        fprintf(stderr, "%s: out of memory\n", path);
        return 1;
    }
    LLVMFuzzerTestOneInput(data, size);
    free(data);
    return 0;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Files of a folder in name order, so a failure reproduces in the same run order. */
static int run_dir(const char *dir, int *files)
{
    DIR *d = opendir(dir);
    if (!d) {
        perror(dir);
        return 1;
    }
    char **names = NULL;
    size_t count = 0, cap = 0;
    struct dirent *e;
    int failures = 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        if (count == cap) {
            char **grown = realloc(names, (cap = cap ? cap * 2 : 64) * sizeof *names);
            if (!grown) {
                failures++;
                break;
            }
            names = grown;
        }
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        if (!(names[count] = malloc(len))) {
            failures++;
            break;
        }
        snprintf(names[count++], len, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    qsort(names, count, sizeof *names, compare_names);
    for (size_t k = 0; k < count; k++) {
        struct stat st;
        if (stat(names[k], &st) == 0 && S_ISREG(st.st_mode)) {
            failures += run_file(names[k]);
            (*files)++;
        }
        free(names[k]);
    }
    free(names);
    return failures;
}

int main(int argc, char **argv)
{
    int failures = 0, files = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            perror(argv[i]);
            failures++;
        } else if (S_ISDIR(st.st_mode)) {
            failures += run_dir(argv[i], &files);
        } else {
            failures += run_file(argv[i]);
            files++;
        }
    }
    printf("replayed %d file(s), %d could not be read\n", files, failures);
    return failures || files == 0 ? 1 : 0;
}
