/* test_catalog.c: the built-in device catalog holds the five types with the
 * figures data/devices.json cites, aliases find them, a user's file adds
 * types or overrides only what it sets, and malformed files are refused with
 * the file and the JSON path in the message, leaving the catalog as it was. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <jansson.h>
#include "check.h"
#include "hw/hw_internal.h"

#define GIB 1073741824.0

static void check_type(const pp_hw_catalog *cat, const char *name, double flops, double bw,
                       double bytes)
{
    const pp_hw_device_type *t = pp_hw_find(cat, name);
    CHECK(t != NULL);
    if (!t)
        return;
    CHECK(strcmp(t->name, name) == 0);
    CHECK(t->peak_flops == flops);
    CHECK(t->memory_bandwidth == bw);
    CHECK(t->memory_bytes == bytes);
    CHECK(t->efficiency_compute == 1.0);
    CHECK(t->efficiency_memory == 1.0);
}

static pp_hw_catalog *builtin(void)
{
    pp_hw_catalog *cat = NULL;
    pp_error err = {0};
    CHECK_EQ_INT(pp_hw_catalog_builtin(&cat, &err), PP_OK);
    if (err.status)
        fprintf(stderr, "%s\n", err.message);
    return cat;
}

/* The figures of the datasheets cited in data/devices.json. */
static void test_builtin(void)
{
    pp_hw_catalog *cat = builtin();
    if (!cat)
        return;
    CHECK_EQ_INT(pp_hw_catalog_count(cat), 5);
    check_type(cat, "A100-80GB-SXM", 312e12, 2039e9, 80 * GIB);
    check_type(cat, "H100-SXM", 989.4e12, 3.35e12, 80 * GIB);
    check_type(cat, "V100-32GB-SXM2", 125e12, 900e9, 32 * GIB);
    check_type(cat, "RTX-4090D", 147.09e12, 1008e9, 24 * GIB);
    check_type(cat, "L20", 119.5e12, 864e9, 48 * GIB);
    CHECK(pp_hw_catalog_type(cat, 5) == NULL);
    pp_hw_catalog_free(cat);
}

static void test_aliases(void)
{
    pp_hw_catalog *cat = builtin();
    if (!cat)
        return;
    const pp_hw_device_type *a100 = pp_hw_find(cat, "A100-80GB-SXM");
    CHECK(a100 != NULL);
    CHECK(pp_hw_find(cat, "a100") == a100);
    CHECK(pp_hw_find(cat, "a100-80gb-sxm") == a100);
    CHECK(pp_hw_find(cat, "A100-SXM4-80GB") == a100);
    CHECK(pp_hw_find(cat, "h100") == pp_hw_find(cat, "H100-SXM"));
    CHECK(pp_hw_find(cat, "V100") == pp_hw_find(cat, "V100-32GB-SXM2"));
    CHECK(pp_hw_find(cat, "4090D") == pp_hw_find(cat, "RTX-4090D"));
    CHECK(pp_hw_find(cat, "l20") == pp_hw_find(cat, "L20"));
    CHECK(pp_hw_find(cat, "a10") == NULL);
    CHECK(pp_hw_find(cat, "") == NULL);
    CHECK(pp_hw_find(cat, NULL) == NULL);
    pp_hw_catalog_free(cat);
}

/* Every figure of the shipped file names its source; the peak's source
 * gives its address (the others may refer back to it). */
static void test_sources(void)
{
    json_error_t jerr;
    json_t *root = json_load_file(PP_SOURCE_DIR "/data/devices.json", 0, &jerr);
    CHECK(root != NULL);
    json_t *types = json_object_get(root, "types");
    CHECK_EQ_INT(json_array_size(types), 5);
    static const char *const figures[] = {"peak_flops", "memory_bandwidth", "memory_bytes"};
    for (size_t i = 0; i < json_array_size(types); i++) {
        json_t *source = json_object_get(json_array_get(types, i), "source");
        for (size_t k = 0; k < 3; k++) {
            const char *text = json_string_value(json_object_get(source, figures[k]));
            CHECK(text && strlen(text) > 20);
            if (k == 0)
                CHECK(text && strstr(text, "https://"));
        }
    }
    json_decref(root);
}

static char temp_path[64];

static const char *write_file(const char *text)
{
    strcpy(temp_path, "/tmp/pp_hw_catalog_XXXXXX");
    int fd = mkstemp(temp_path);
    CHECK(fd >= 0);
    size_t len = strlen(text);
    CHECK(write(fd, text, len) == (ssize_t)len);
    close(fd);
    return temp_path;
}

static pp_status add_text(pp_hw_catalog *cat, const char *text, pp_error *err)
{
    const char *path = write_file(text);
    pp_status st = pp_hw_catalog_add_file(cat, path, err);
    unlink(path);
    return st;
}

static void test_calibration(void)
{
    pp_hw_catalog *cat = builtin();
    if (!cat)
        return;
    pp_error err = {0};
    CHECK_EQ_INT(add_text(cat, "{\"comment\": \"measured\", \"types\": [{\"name\": \"a100\","
                               " \"efficiency\": {\"compute\": 0.5}},"
                               " {\"name\": \"L20\", \"memory_bytes\": 1e9,"
                               " \"source\": {\"memory_bytes\": \"my card\"}}]}",
                          &err),
                 PP_OK);
    const pp_hw_device_type *a100 = pp_hw_find(cat, "A100-80GB-SXM");
    CHECK(a100->efficiency_compute == 0.5);
    CHECK(a100->efficiency_memory == 1.0);
    CHECK(a100->peak_flops == 312e12);
    CHECK(a100->memory_bandwidth == 2039e9);
    CHECK(a100->memory_bytes == 80 * GIB);
    const pp_hw_device_type *l20 = pp_hw_find(cat, "L20");
    CHECK(l20->memory_bytes == 1e9);
    CHECK(l20->peak_flops == 119.5e12);
    CHECK(l20->efficiency_compute == 1.0);
    check_type(cat, "H100-SXM", 989.4e12, 3.35e12, 80 * GIB);
    CHECK_EQ_INT(pp_hw_catalog_count(cat), 5);

    /* The shipped file applied again changes nothing but what it sets. */
    CHECK_EQ_INT(pp_hw_catalog_add_file(cat, PP_SOURCE_DIR "/data/devices.json", &err), PP_OK);
    CHECK(pp_hw_find(cat, "L20")->memory_bytes == 48 * GIB);
    CHECK(pp_hw_find(cat, "a100")->efficiency_compute == 1.0);
    CHECK_EQ_INT(pp_hw_catalog_count(cat), 5);
    pp_hw_catalog_free(cat);
}

/* The bundled A100 calibration's kernels' figures. */
static void test_kernels(void)
{
    pp_hw_catalog *cat = builtin();
    if (!cat)
        return;
    pp_error err = {0};
    const char *path = PP_SOURCE_DIR "/examples/cluster/calibration-a100.json";
    CHECK_EQ_INT(pp_hw_catalog_add_file(cat, path, &err), PP_OK);
    const pp_hw_device_type *a100 = pp_hw_find(cat, "a100");
    CHECK(a100->gemm_sms == 108 && a100->gemm_tile_rows == 256 && a100->gemm_tile_cols == 128);
    CHECK(a100->streaming_efficiency == 0.88);
    CHECK(pp_hw_find(cat, "H100-SXM")->gemm_sms == 0);
    pp_hw_catalog_free(cat);
}

static void test_new_type(void)
{
    pp_hw_catalog *cat = builtin();
    if (!cat)
        return;
    pp_error err = {0};
    CHECK_EQ_INT(add_text(cat, "{\"types\": [{\"name\": \"MyGPU\", \"aliases\": [\"mine\", \"MyGPU\"],"
                               " \"peak_flops\": 1e12, \"memory_bandwidth\": 1e11,"
                               " \"memory_bytes\": 1e9, \"efficiency\": {\"memory\": 0.25}}]}",
                          &err),
                 PP_OK);
    CHECK_EQ_INT(pp_hw_catalog_count(cat), 6);
    const pp_hw_device_type *t = pp_hw_find(cat, "MINE");
    CHECK(t != NULL && t == pp_hw_find(cat, "mygpu"));
    if (t) {
        CHECK(strcmp(t->name, "MyGPU") == 0);
        CHECK(t->peak_flops == 1e12 && t->memory_bandwidth == 1e11 && t->memory_bytes == 1e9);
        CHECK(t->efficiency_compute == 1.0 && t->efficiency_memory == 0.25);
    }
    pp_hw_catalog_free(cat);
}

/* The file is refused with PP_EINPUT, the message names the file and holds
 * `where`, and the catalog is as it was (the first entry of each file is a
 * valid change that must not stick). */
static void refused(const char *entry, const char *where)
{
    pp_hw_catalog *cat = builtin();
    if (!cat)
        return;
    char text[600];
    snprintf(text, sizeof text,
             "{\"types\": [{\"name\": \"v100\", \"efficiency\": {\"compute\": 0.3}}, %s]}", entry);
    pp_error err = {0};
    CHECK_EQ_INT(add_text(cat, text, &err), PP_EINPUT);
    CHECK(strstr(err.message, temp_path) != NULL);
    CHECK(strstr(err.message, where) != NULL);
    if (!strstr(err.message, where))
        fprintf(stderr, "message: %s (expected %s)\n", err.message, where);
    CHECK(pp_hw_find(cat, "v100")->efficiency_compute == 1.0);
    CHECK_EQ_INT(pp_hw_catalog_count(cat), 5);
    pp_hw_catalog_free(cat);
}

static void test_malformed(void)
{
    refused("{\"name\": \"a100\", \"peak_flop\": 1e12}", "types[1].peak_flop: unknown key");
    refused("{\"name\": \"a100\", \"memory_bandwidth\": -1e12}",
            "types[1].memory_bandwidth: must be > 0");
    refused("{\"name\": \"a100\", \"memory_bytes\": 0}", "types[1].memory_bytes: must be > 0");
    refused("{\"name\": \"a100\", \"peak_flops\": \"312e12\"}", "types[1].peak_flops: expected");
    refused("{\"name\": \"a100\", \"efficiency\": {\"compute\": 1.5}}",
            "types[1].efficiency.compute: must be > 0 and <= 1");
    refused("{\"name\": \"a100\", \"efficiency\": {\"memory\": 0}}",
            "types[1].efficiency.memory: must be > 0");
    refused("{\"name\": \"a100\", \"efficiency\": {\"mem\": 0.5}}",
            "types[1].efficiency.mem: unknown key");
    refused("{\"name\": \"a100\", \"kernels\": {\"tile\": [128]}}",
            "types[1].kernels.tile: sms and the two tile sides must be whole numbers >= 1");
    refused("{\"name\": \"a100\", \"kernels\": {\"sms\": 108, \"tile\": [128.5, 64]}}",
            "types[1].kernels.tile: sms and the two tile sides");
    refused("{\"name\": \"a100\", \"kernels\": {\"sms\": 107.5, \"tile\": [128, 64]}}",
            "types[1].kernels.tile: sms and the two tile sides");
    refused("{\"name\": \"a100\", \"kernels\": {\"streaming\": 1.5}}",
            "types[1].kernels.streaming: must be > 0 and <= 1");
    refused("{\"name\": \"a100\", \"kernels\": {\"fp8\": 0}}",
            "types[1].kernels.fp8: must be > 0 and <= 1");
    refused("{\"name\": \"a100\", \"kernels\": {\"smx\": 1}}",
            "types[1].kernels.smx: unknown key");
    refused("{\"name\": \"a100\", \"source\": {\"peak_flops\": 3}}",
            "types[1].source.peak_flops: expected a string");
    refused("{\"name\": \"new\", \"peak_flops\": 1, \"memory_bandwidth\": 1}",
            "types[1].memory_bytes: missing");
    refused("{\"peak_flops\": 1}", "types[1].name: missing");
    refused("{\"name\": \"x\", \"peak_flops\": 1, \"memory_bandwidth\": 1, \"memory_bytes\": 1,"
            " \"aliases\": [\"h100\"]}",
            "types[1].aliases[0]: alias \"h100\" already names another type");
    refused("{\"name\": \"V100-32GB-SXM2\"}", "types[1].name: type \"V100-32GB-SXM2\" appears twice");
    refused("3", "types[1]: expected an object");

    pp_hw_catalog *cat = builtin();
    if (!cat)
        return;
    pp_error err = {0};
    CHECK_EQ_INT(add_text(cat, "{\"types\": [{\"name\": \"a100\",}]}", &err), PP_EINPUT);
    CHECK(strstr(err.message, temp_path) != NULL);
    CHECK(strstr(err.message, ":1:") != NULL);
    pp_error_clear(&err);
    CHECK_EQ_INT(add_text(cat, "{\"devices\": []}", &err), PP_EINPUT);
    CHECK(strstr(err.message, "devices: unknown key") != NULL);
    pp_error_clear(&err);
    CHECK_EQ_INT(pp_hw_catalog_add_file(cat, "/nonexistent/devices.json", &err), PP_EIO);
    CHECK(strstr(err.message, "/nonexistent/devices.json") != NULL);
    CHECK_EQ_INT(pp_hw_catalog_count(cat), 5);
    pp_hw_catalog_free(cat);
}

int main(void)
{
    test_builtin();
    test_aliases();
    test_sources();
    test_calibration();
    test_kernels();
    test_new_type();
    test_malformed();
    return CHECK_DONE();
}
