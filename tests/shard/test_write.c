/* test_write.c: the sharded-module writer (src/shard/write.c): GSPMD and
 * Shardy texts of single tensors worked by hand; the MLP and attention of
 * paper 004 with hand-written layouts in both formats, the whole output
 * compared with the input whose signature line is replaced by the expected
 * one, then read back; a signature with every awkward piece of syntax
 * (a location glued to a type among them);
 * errors with their positions; the module's mhlo.num_partitions replaced,
 * added to its dictionary or in a new one; the chess model under the
 * Megatron baseline written in both formats and read back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "parplan/shard.h"
#include "parplan/shard_write.h"
#include "shard/write_internal.h"
#include "shard/shard_internal.h"

#define CHESS PP_SOURCE_DIR "/examples/shard/searchless_chess_9m.mlir"

static const pp_hw_device_type dev = {"test", 1e11, 1e11, 1e9, 1.0, 1.0, 0, 0, 0, 0, 0, 0};

#define PARTS "mhlo.num_partitions = 8 : i32"
#define MESH_DECL "  sdy.mesh @mesh = <[\"b\"=2, \"m\"=4]>\n"
#define REP_B "\"{devices=[2,1,4]0,1,2,3,4,5,6,7 last_tile_dim_replicate}\""
#define REP_M1 "\"{devices=[1,4,2]0,4,1,5,2,6,3,7 last_tile_dim_replicate}\""
#define REP_M0 "\"{devices=[4,1,2]0,4,1,5,2,6,3,7 last_tile_dim_replicate}\""

typedef struct {
    char *text;
    size_t size;
    pp_shard_module *m;
    pp_shard_flat *flat;
    pp_shard_nda *nda;
    uint8_t *axes;
} model;

/* The file's text (core's reader), or NULL and a failed check. */
static char *read_text(const char *path, size_t *size)
{
    char *text = NULL;
    pp_error err = {0};
    CHECK(pp_read_text_file(path, &text, size, &err) == PP_OK);
    return text;
}

static bool open_text(model *M, const char *name, char *text, size_t size)
{
    pp_error err = {0};
    memset(M, 0, sizeof *M);
    M->text = text;
    M->size = size;
    pp_status st = text ? pp_shard_module_parse(name, text, size, &M->m, &err) : PP_EIO;
    if (st == PP_OK)
        st = pp_shard_module_flatten(M->m, 0, &M->flat, &err);
    if (st == PP_OK)
        st = pp_shard_nda_run(M->flat, &M->nda, &err);
    if (st != PP_OK)
        fprintf(stderr, "%s: %s\n", name, err.message);
    CHECK(st == PP_OK);
    if (st == PP_OK)
        M->axes = calloc((size_t)M->nda->n_names, 1);
    return st == PP_OK;
}

static bool open_file(model *M, const char *path, const char *name)
{
    size_t size = 0;
    char *text = read_text(path, &size);
    return open_text(M, name, text, size);
}

static void release(model *M)
{
    pp_shard_nda_free(M->nda);
    pp_shard_flat_free(M->flat);
    pp_shard_module_free(M->m);
    free(M->text);
    free(M->axes);
}

static void set_dim(model *M, int32_t tensor, int32_t dim, uint8_t bits)
{
    M->axes[M->nda->tensors[tensor].first + dim] = bits;
}

static pp_shard_mesh mesh_of(const char *text)
{
    pp_shard_mesh m;
    pp_error err = {0};
    memset(&m, 0, sizeof m);
    CHECK(pp_shard_mesh_parse(text, &dev, pp_shard_default_link(), &m, &err) == PP_OK);
    return m;
}

static char *write(const model *M, const char *mesh_text, pp_shard_format format)
{
    pp_shard_mesh mesh = mesh_of(mesh_text);
    pp_error err = {0};
    char *out = NULL;
    size_t size = 0;
    pp_status st = pp_shard_write_module(M->nda, &mesh, M->axes, format, M->text, M->size, &out, &size, &err);
    if (st != PP_OK)
        fprintf(stderr, "write: %s\n", err.message);
    CHECK(st == PP_OK);
    CHECK(st != PP_OK || size == strlen(out));
    return out;
}

/* text with line `line` (1-based) replaced by repl, or deleted when repl is NULL. */
static char *with_line(const char *text, int line, const char *repl)
{
    size_t n = strlen(text), r = repl ? strlen(repl) : 0;
    char *out = malloc(n + r + 2);
    const char *p = text;
    for (int l = 1; l < line && p; l++)
        p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL;
    if (!p) {
        strcpy(out, "(no such line)");
        return out;
    }
    const char *end = strchr(p, '\n');
    size_t head = (size_t)(p - text);
    memcpy(out, text, head);
    out[head] = '\0';
    if (repl) {
        strcat(out, repl);
        strcat(out, end ? "\n" : "");
    }
    strcat(out, end ? end + 1 : "");
    return out;
}

static char *line_of(const char *text, int line)
{
    const char *p = text;
    for (int l = 1; l < line && p; l++)
        p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL;
    size_t len = p ? strcspn(p, "\n") : 0;
    char *out = malloc(len + 1);
    memcpy(out, p ? p : "", len);
    out[len] = '\0';
    return out;
}

/* in with its module line and its line `line` replaced: what out should be. */
static void check_replaced(const char *in, const char *out, int module_line, const char *module, int line,
                           const char *expected)
{
    char *head = with_line(in, module_line, module);
    char *want = with_line(head, line, expected);
    free(head);
    if (!out || strcmp(out, want) != 0)
        fprintf(stderr, "got:\n%s\nexpected:\n%s\n", out ? out : "(null)", want);
    CHECK(out && strcmp(out, want) == 0);
    free(want);
}

static void check_text(const pp_shard_mesh *mesh, pp_shard_format format, const uint8_t *dims, int32_t rank,
                       const char *expected)
{
    char *s = NULL;
    pp_error err = {0};
    CHECK(pp_shard_sharding_text(mesh, format, dims, rank, &s, &err) == PP_OK);
    if (!s || strcmp(s, expected) != 0)
        fprintf(stderr, "sharding text: got %s, expected %s\n", s ? s : "(null)", expected);
    CHECK(s && strcmp(s, expected) == 0);
    free(s);
}

/* Hand-worked device orders: device id = b*4 + m on b=2,m=4; tiles row-major. */
static void test_texts(void)
{
    pp_shard_mesh mesh = mesh_of("b=2,m=4");
    const uint8_t B = 1, Mx = 2;
    check_text(&mesh, PP_SHARD_FORMAT_GSPMD, (uint8_t[]){Mx, B}, 2, "{devices=[4,2]0,4,1,5,2,6,3,7}");
    check_text(&mesh, PP_SHARD_FORMAT_GSPMD, (uint8_t[]){B, 0}, 2,
               "{devices=[2,1,4]0,1,2,3,4,5,6,7 last_tile_dim_replicate}");
    check_text(&mesh, PP_SHARD_FORMAT_GSPMD, (uint8_t[]){0, Mx}, 2,
               "{devices=[1,4,2]0,4,1,5,2,6,3,7 last_tile_dim_replicate}");
    check_text(&mesh, PP_SHARD_FORMAT_GSPMD, (uint8_t[]){B, Mx}, 2, "{devices=[2,4]0,1,2,3,4,5,6,7}");
    check_text(&mesh, PP_SHARD_FORMAT_GSPMD, (uint8_t[]){B | Mx, 0}, 2, "{devices=[8,1]0,1,2,3,4,5,6,7}");
    check_text(&mesh, PP_SHARD_FORMAT_GSPMD, (uint8_t[]){0, 0}, 2, "{replicated}");
    check_text(&mesh, PP_SHARD_FORMAT_GSPMD, NULL, 0, "{replicated}");
    check_text(&mesh, PP_SHARD_FORMAT_SDY, (uint8_t[]){Mx, B}, 2, "#sdy.sharding<@mesh, [{\"m\"}, {\"b\"}]>");
    check_text(&mesh, PP_SHARD_FORMAT_SDY, (uint8_t[]){0, B | Mx}, 2, "#sdy.sharding<@mesh, [{}, {\"b\", \"m\"}]>");
    check_text(&mesh, PP_SHARD_FORMAT_SDY, (uint8_t[]){0, 0}, 2, "#sdy.sharding<@mesh, [{}, {}]>");
    check_text(&mesh, PP_SHARD_FORMAT_SDY, NULL, 0, "#sdy.sharding<@mesh, []>");
    /* a=2,b=2,c=2 (id = 4a + 2b + c): c on dim 0, a on dim 1, b replicated:
     * tile (i, j, r) holds c=i, a=j, b=r -> 4j + 2r + i. */
    pp_shard_mesh cube = mesh_of("a=2,b=2,c=2");
    check_text(&cube, PP_SHARD_FORMAT_GSPMD, (uint8_t[]){4, 1}, 2,
               "{devices=[2,2,2]0,2,4,6,1,3,5,7 last_tile_dim_replicate}");
    /* an axis of size 1 shards nothing */
    pp_shard_mesh one = mesh_of("x=1,y=2");
    check_text(&one, PP_SHARD_FORMAT_GSPMD, (uint8_t[]){1}, 1, "{replicated}");
    check_text(&one, PP_SHARD_FORMAT_GSPMD, (uint8_t[]){2}, 1, "{devices=[2]0,1}");
    char *s = NULL;
    pp_error err = {0};
    CHECK(pp_shard_sdy_mesh_text(&mesh, &s, &err) == PP_OK);
    CHECK(s && strcmp(s, "sdy.mesh @mesh = <[\"b\"=2, \"m\"=4]>") == 0);
    free(s);
    CHECK(pp_shard_sharding_text(&mesh, PP_SHARD_FORMAT_GSPMD, (uint8_t[]){B, B}, 2, &s, &err) == PP_EINPUT);
    CHECK(strstr(err.message, "'b' shards two dimensions") != NULL);
    pp_error_clear(&err);
    CHECK(pp_shard_sharding_text(&mesh, PP_SHARD_FORMAT_SDY, (uint8_t[]){4}, 1, &s, &err) == PP_EARG);
    CHECK(s == NULL);
    pp_shard_format f;
    CHECK(pp_shard_format_parse("sdy", &f, &err) == PP_OK && f == PP_SHARD_FORMAT_SDY);
    CHECK(pp_shard_format_parse("gspmd", &f, &err) == PP_OK && f == PP_SHARD_FORMAT_GSPMD);
    CHECK(pp_shard_format_parse("xla", &f, &err) == PP_EARG);
}

static void check_same_ops(const pp_shard_module *a, const pp_shard_module *b)
{
    CHECK_EQ_INT(a->n_funcs, b->n_funcs);
    for (int32_t i = 0; i < a->n_funcs && i < b->n_funcs; i++) {
        CHECK_EQ_INT(a->funcs[i].n_ops, b->funcs[i].n_ops);
        CHECK_EQ_INT(a->funcs[i].n_body_ops, b->funcs[i].n_body_ops);
    }
}

static void check_str(const char *got, const char *want)
{
    if (!got || strcmp(got, want) != 0)
        fprintf(stderr, "got %s, expected %s\n", got ? got : "(null)", want);
    CHECK(got && strcmp(got, want) == 0);
}

/* Reads `out` back: the entry's parameters carry `want` (mhlo.sharding
 * strings, whole attribute dictionaries, or texts the dictionaries hold),
 * the ops are those of the original. */
typedef enum { SHARDING, ATTRS, ATTRS_HOLD } read_back_mode;

static void check_read_back(const model *M, const char *out, const char *const *want, read_back_mode mode)
{
    pp_shard_module *back = NULL;
    pp_error err = {0};
    pp_status st = pp_shard_module_parse("back.mlir", out, strlen(out), &back, &err);
    if (st != PP_OK)
        fprintf(stderr, "read back: %s\n", err.message);
    CHECK(st == PP_OK);
    if (st != PP_OK)
        return;
    const pp_shard_func *f = &back->funcs[back->entry];
    const pp_shard_func *g = &M->m->funcs[M->m->entry];
    CHECK_EQ_INT(f->n_args, g->n_args);
    CHECK_EQ_INT(f->n_results, g->n_results);
    for (int32_t k = 0; k < f->n_args + f->n_results && want[k]; k++) {
        const pp_shard_param *p = k < f->n_args ? &f->args[k] : &f->results[k - f->n_args];
        if (mode == ATTRS_HOLD) {
            CHECK(p->attrs && strstr(p->attrs, want[k]) && !strstr(p->attrs, "mhlo.sharding"));
            CHECK(p->sharding == NULL);
        } else {
            check_str(mode == ATTRS ? p->attrs : p->sharding, want[k]);
        }
    }
    check_same_ops(M->m, back);
    pp_shard_module_free(back);
}

static void test_mlp(void)
{
    model M;
    if (!open_file(&M, PP_DATA_DIR "/mlp.mlir", "mlp.mlir"))
        return release(&M);
    set_dim(&M, 0, 0, 1); /* x: batch on b */
    set_dim(&M, 1, 1, 2); /* w1: hidden on m */
    set_dim(&M, 2, 0, 2); /* w2: hidden on m */
    set_dim(&M, M.nda->out_use, 0, 1);
    char *out = write(&M, "b=2,m=4", PP_SHARD_FORMAT_GSPMD);
    check_replaced(M.text, out, 2, "module @mlp attributes {" PARTS "} {", 3,
                   "  func.func public @main(%x: tensor<256x32xf32> {mhlo.sharding = " REP_B "}, "
                   "%w1: tensor<32x64xf32> {mhlo.sharding = " REP_M1 "}, "
                   "%w2: tensor<64x16xf32> {mhlo.sharding = " REP_M0 "}) "
                   "-> (tensor<256x16xf32> {jax.result_info = \"\", mhlo.sharding = " REP_B "}) {");
    const char *const want[] = {
        "{devices=[2,1,4]0,1,2,3,4,5,6,7 last_tile_dim_replicate}",
        "{devices=[1,4,2]0,4,1,5,2,6,3,7 last_tile_dim_replicate}",
        "{devices=[4,1,2]0,4,1,5,2,6,3,7 last_tile_dim_replicate}",
        "{devices=[2,1,4]0,1,2,3,4,5,6,7 last_tile_dim_replicate}",
    };
    if (out)
        check_read_back(&M, out, want, SHARDING);
    free(out);
    out = write(&M, "b=2,m=4", PP_SHARD_FORMAT_SDY);
    check_replaced(M.text, out, 2, "module @mlp attributes {" PARTS "} {", 3,
                   MESH_DECL "  func.func public @main("
                   "%x: tensor<256x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"b\"}, {}]>}, "
                   "%w1: tensor<32x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {\"m\"}]>}, "
                   "%w2: tensor<64x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"m\"}, {}]>}) "
                   "-> (tensor<256x16xf32> {jax.result_info = \"\", sdy.sharding = #sdy.sharding<@mesh, [{\"b\"}, {}]>}) {");
    const char *const want_sdy[] = {
        "{sdy.sharding = #sdy.sharding<@mesh, [{\"b\"}, {}]>}",
        "{sdy.sharding = #sdy.sharding<@mesh, [{}, {\"m\"}]>}",
        "{sdy.sharding = #sdy.sharding<@mesh, [{\"m\"}, {}]>}",
        "{jax.result_info = \"\", sdy.sharding = #sdy.sharding<@mesh, [{\"b\"}, {}]>}",
    };
    if (out)
        check_read_back(&M, out, want_sdy, ATTRS);
    free(out);
    release(&M);
}

static void test_attention(void)
{
    model M;
    if (!open_file(&M, PP_DATA_DIR "/attention.mlir", "attention.mlir"))
        return release(&M);
    set_dim(&M, 0, 0, 3); /* x: sequence on b and m */
    set_dim(&M, 1, 1, 2); /* wq, wv: heads on m; wk replicated */
    set_dim(&M, 3, 1, 2);
    set_dim(&M, M.nda->out_use, 0, 1);
    set_dim(&M, M.nda->out_use, 1, 2);
    char *out = write(&M, "b=2,m=4", PP_SHARD_FORMAT_GSPMD);
    check_replaced(M.text, out, 3, "module @attention attributes {" PARTS "} {", 4,
                   "  func.func public @main(%x: tensor<128x64xf32> {mhlo.sharding = \"{devices=[8,1]0,1,2,3,4,5,6,7}\"}, "
                   "%wq: tensor<64x32xf32> {mhlo.sharding = " REP_M1 "}, "
                   "%wk: tensor<64x32xf32> {mhlo.sharding = \"{replicated}\"}, "
                   "%wv: tensor<64x48xf32> {mhlo.sharding = " REP_M1 "}) "
                   "-> (tensor<128x48xf32> {mhlo.sharding = \"{devices=[2,4]0,1,2,3,4,5,6,7}\"}) {");
    const char *const want[] = {
        "{devices=[8,1]0,1,2,3,4,5,6,7}",
        "{devices=[1,4,2]0,4,1,5,2,6,3,7 last_tile_dim_replicate}",
        "{replicated}",
        "{devices=[1,4,2]0,4,1,5,2,6,3,7 last_tile_dim_replicate}",
        "{devices=[2,4]0,1,2,3,4,5,6,7}",
    };
    if (out)
        check_read_back(&M, out, want, SHARDING);
    free(out);
    out = write(&M, "b=2,m=4", PP_SHARD_FORMAT_SDY);
    check_replaced(M.text, out, 3, "module @attention attributes {" PARTS "} {", 4,
                   MESH_DECL "  func.func public @main("
                   "%x: tensor<128x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"b\", \"m\"}, {}]>}, "
                   "%wq: tensor<64x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {\"m\"}]>}, "
                   "%wk: tensor<64x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, "
                   "%wv: tensor<64x48xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {\"m\"}]>}) "
                   "-> (tensor<128x48xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"b\"}, {\"m\"}]>}) {");
    const char *const want_sdy[] = {
        "{sdy.sharding = #sdy.sharding<@mesh, [{\"b\", \"m\"}, {}]>}",
        "{sdy.sharding = #sdy.sharding<@mesh, [{}, {\"m\"}]>}",
        "{sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}",
        "{sdy.sharding = #sdy.sharding<@mesh, [{}, {\"m\"}]>}",
        "{sdy.sharding = #sdy.sharding<@mesh, [{\"b\"}, {\"m\"}]>}",
    };
    if (out)
        check_read_back(&M, out, want_sdy, ATTRS);
    free(out);
    release(&M);
}

/* A signature over several lines with comments, locations, a string with an
 * escaped quote and brackets in it, a type with an encoding, an empty
 * dictionary, an existing sharding, a key sorting after the new one, a
 * result without a dictionary, and a private function before the entry. */
static const char tricky[] =
    "// func.func @main( in a comment\n"
    "module @tricky {\n"
    "  func.func private @helper(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {\n"
    "    return %arg0 : tensor<4x8xf32>\n"
    "  }\n"
    "  func.func @main(\n"
    "      %arg0: tensor<4x8xf32> {jax.arg_info = \"a\\\"}{,\", mhlo.layout_mode = \"default\"} loc(\"x\":1:2), // first\n"
    "      %arg1: tensor<8x8xf32, #enc> {tf.aliasing_output = 0 : i32},\n"
    "      %arg2: tensor<f32> {},\n"
    "      %arg3: tensor<8xf32> {mhlo.sharding = \"{devices=[2]0,1}\", zz.other = #foo<{\"a\" = [1, 2], b = #x<y<z>>}>}\n"
    "    ) -> (tensor<4x8xf32> {jax.result_info = \"[0]\"}, tensor<8xf32>) {\n"
    "    %0 = call @helper(%arg0) : (tensor<4x8xf32>) -> tensor<4x8xf32>\n"
    "    return %0, %arg3 : tensor<4x8xf32>, tensor<8xf32>\n"
    "  }\n"
    "}\n";

static const char tricky_gspmd[] =
    "  func.func @main(\n"
    "      %arg0: tensor<4x8xf32> {jax.arg_info = \"a\\\"}{,\", mhlo.layout_mode = \"default\", mhlo.sharding = \"{devices=[2,4]0,1,2,3,4,5,6,7}\"} loc(\"x\":1:2), // first\n"
    "      %arg1: tensor<8x8xf32, #enc> {mhlo.sharding = " REP_M1 ", tf.aliasing_output = 0 : i32},\n"
    "      %arg2: tensor<f32> {mhlo.sharding = \"{replicated}\"},\n"
    "      %arg3: tensor<8xf32> {mhlo.sharding = \"{devices=[4,2]0,4,1,5,2,6,3,7 last_tile_dim_replicate}\", zz.other = #foo<{\"a\" = [1, 2], b = #x<y<z>>}>}\n"
    "    ) -> (tensor<4x8xf32> {jax.result_info = \"[0]\", mhlo.sharding = " REP_B "}, tensor<8xf32> {mhlo.sharding = \"{replicated}\"}) {";

static const char tricky_sdy[] =
    MESH_DECL
    "  func.func @main(\n"
    "      %arg0: tensor<4x8xf32> {jax.arg_info = \"a\\\"}{,\", mhlo.layout_mode = \"default\", sdy.sharding = #sdy.sharding<@mesh, [{\"b\"}, {\"m\"}]>} loc(\"x\":1:2), // first\n"
    "      %arg1: tensor<8x8xf32, #enc> {sdy.sharding = #sdy.sharding<@mesh, [{}, {\"m\"}]>, tf.aliasing_output = 0 : i32},\n"
    "      %arg2: tensor<f32> {sdy.sharding = #sdy.sharding<@mesh, []>},\n"
    "      %arg3: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"m\"}]>, zz.other = #foo<{\"a\" = [1, 2], b = #x<y<z>>}>}\n"
    "    ) -> (tensor<4x8xf32> {jax.result_info = \"[0]\", sdy.sharding = #sdy.sharding<@mesh, [{\"b\"}, {}]>}, tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}) {";

/* text with its lines first..last replaced by repl (a line or several, without the last newline). */
static char *with_lines(const char *text, int first, int last, const char *repl)
{
    char *a = with_line(text, first, repl);
    int added = 0;
    for (const char *p = repl; *p; p++)
        added += *p == '\n';
    for (int k = first; k < last; k++) {
        char *b = with_line(a, first + added + 1, NULL);
        free(a);
        a = b;
    }
    return a;
}

/* The tricky module with its signature (lines 6 to 11) replaced by sig and the partition count on its module. */
static char *tricky_want(const char *text, int first, int last, const char *sig)
{
    char *lines = with_lines(text, first, last, sig);
    char *want = with_line(lines, 2, "module @tricky attributes {" PARTS "} {");
    free(lines);
    return want;
}

static char *replaced(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    CHECK(at != NULL);
    size_t n = strlen(text), head = at ? (size_t)(at - text) : n;
    char *out = malloc(n + strlen(to) + 1);
    memcpy(out, text, head);
    strcpy(out + head, to);
    strcat(out, at ? at + strlen(from) : "");
    return out;
}

/* The tricky module with a bounds encoding (nested '<>') in a type, read,
 * written under the layout of M and read back in both formats. */
static void test_nested_type(const model *M)
{
    const char *bounds = "tensor<8x8xf32, #stablehlo.bounds<?, ?>>";
    model B;
    char *text = replaced(tricky, "tensor<8x8xf32, #enc>", bounds);
    if (!open_text(&B, "bounds.mlir", text, strlen(text)))
        return release(&B);
    CHECK_EQ_INT(B.nda->n_names, M->nda->n_names);
    if (B.nda->n_names == M->nda->n_names)
        memcpy(B.axes, M->axes, (size_t)M->nda->n_names);
    for (int sdy = 0; sdy < 2; sdy++) {
        char *out = write(&B, "b=2,m=4", sdy ? PP_SHARD_FORMAT_SDY : PP_SHARD_FORMAT_GSPMD);
        char *want = tricky_want(tricky, 6, 11, sdy ? tricky_sdy : tricky_gspmd);
        char *want_bounds = replaced(want, "tensor<8x8xf32, #enc>", bounds);
        CHECK(out && strcmp(out, want_bounds) == 0);
        const char *const back[] = {sdy ? "#sdy.sharding<@mesh, [{}, {\"m\"}]>" : REP_M1, NULL};
        pp_shard_module *m = NULL;
        pp_error err = {0};
        CHECK(out && pp_shard_module_parse("back.mlir", out, strlen(out), &m, &err) == PP_OK);
        const pp_shard_param *p = m ? &m->funcs[m->entry].args[1] : NULL;
        CHECK(p && p->type.rank == 2 && p->type.dims[1] == 8 && p->attrs && strstr(p->attrs, back[0]));
        pp_shard_module_free(m);
        free(out);
        free(want_bounds);
        free(want);
    }
    release(&B);
}

/* A location glued to an argument's type without a dictionary
 * ("tensor<f32>loc(...)", two tokens to MLIR): the sharding goes between
 * them, where MLIR's grammar puts the dictionary, and the text reads back. */
static void test_glued_loc(const model *M)
{
    const char *from = "%arg2: tensor<f32> {},", *to = "%arg2: tensor<f32>loc(\"z\":3:4),";
    model B;
    char *text = replaced(tricky, from, to);
    if (!open_text(&B, "glued.mlir", text, strlen(text)))
        return release(&B);
    if (B.nda->n_names == M->nda->n_names)
        memcpy(B.axes, M->axes, (size_t)M->nda->n_names);
    for (int sdy = 0; sdy < 2; sdy++) {
        char *out = write(&B, "b=2,m=4", sdy ? PP_SHARD_FORMAT_SDY : PP_SHARD_FORMAT_GSPMD);
        char *want = tricky_want(tricky, 6, 11, sdy ? tricky_sdy : tricky_gspmd);
        const char *entry = sdy ? "{sdy.sharding = #sdy.sharding<@mesh, []>}" : "{mhlo.sharding = \"{replicated}\"}";
        char was[200], now[200];
        snprintf(was, sizeof was, "%%arg2: tensor<f32> %s,", entry);
        snprintf(now, sizeof now, "%%arg2: tensor<f32> %sloc(\"z\":3:4),", entry);
        char *want_glued = replaced(want, was, now);
        CHECK(out && strcmp(out, want_glued) == 0);
        pp_shard_module *m = NULL;
        pp_error err = {0};
        CHECK(out && pp_shard_module_parse("back.mlir", out, strlen(out), &m, &err) == PP_OK);
        pp_shard_module_free(m);
        free(out);
        free(want_glued);
        free(want);
    }
    release(&B);
}

static void test_tricky(void)
{
    model M;
    char *text = strdup(tricky);
    if (!open_text(&M, "tricky.mlir", text, strlen(text)))
        return release(&M);
    set_dim(&M, 0, 0, 1);
    set_dim(&M, 0, 1, 2);
    set_dim(&M, 1, 1, 2);
    set_dim(&M, 3, 0, 2);
    set_dim(&M, M.nda->out_use, 0, 1);
    char *out = write(&M, "b=2,m=4", PP_SHARD_FORMAT_GSPMD);
    char *want = tricky_want(tricky, 6, 11, tricky_gspmd);
    if (!out || strcmp(out, want) != 0)
        fprintf(stderr, "got:\n%s\nexpected:\n%s\n", out ? out : "(null)", want);
    CHECK(out && strcmp(out, want) == 0);
    const char *const back[] = {
        "{devices=[2,4]0,1,2,3,4,5,6,7}",
        "{devices=[1,4,2]0,4,1,5,2,6,3,7 last_tile_dim_replicate}",
        "{replicated}",
        "{devices=[4,2]0,4,1,5,2,6,3,7 last_tile_dim_replicate}",
        "{devices=[2,1,4]0,1,2,3,4,5,6,7 last_tile_dim_replicate}",
        "{replicated}",
    };
    if (out)
        check_read_back(&M, out, back, SHARDING);
    free(out);
    free(want);
    out = write(&M, "b=2,m=4", PP_SHARD_FORMAT_SDY);
    want = tricky_want(tricky, 6, 11, tricky_sdy);
    if (!out || strcmp(out, want) != 0)
        fprintf(stderr, "got:\n%s\nexpected:\n%s\n", out ? out : "(null)", want);
    CHECK(out && strcmp(out, want) == 0);
    free(out);
    free(want);
    test_nested_type(&M);
    test_glued_loc(&M);
    release(&M);
}

/* Writes with text (not the one M was read from) and checks the error. */
static void check_error(const model *M, const char *text, pp_status status, const char *prefix, const char *why)
{
    pp_shard_mesh mesh = mesh_of("b=2,m=4");
    pp_error err = {0};
    char *out = (char *)"untouched";
    size_t size = 1;
    pp_status st = pp_shard_write_module(M->nda, &mesh, M->axes, PP_SHARD_FORMAT_GSPMD, text, strlen(text), &out,
                                         &size, &err);
    CHECK_EQ_INT(st, status);
    CHECK(out == NULL && size == 0);
    if (strncmp(err.message, prefix, strlen(prefix)) != 0 || !strstr(err.message, why))
        fprintf(stderr, "error: got '%s', expected '%s...%s'\n", err.message, prefix, why);
    CHECK(strncmp(err.message, prefix, strlen(prefix)) == 0);
    CHECK(strstr(err.message, why) != NULL);
}

/* The reader refuses text with the same message the writer gave for it. */
static void check_read_error(const char *text, const char *prefix, const char *why)
{
    pp_shard_module *m = NULL;
    pp_error err = {0};
    CHECK_EQ_INT(pp_shard_module_parse("mlp.mlir", text, strlen(text), &m, &err), PP_EINPUT);
    CHECK(m == NULL);
    CHECK(strncmp(err.message, prefix, strlen(prefix)) == 0 && strstr(err.message, why) != NULL);
}

static void test_errors(void)
{
    model M;
    if (!open_file(&M, PP_DATA_DIR "/mlp.mlir", "mlp.mlir"))
        return release(&M);
    /* line 3 is "  func.func public @main(%x: tensor<256x32xf32>, %w1: ...": the
     * writer reads the types with the reader's grammar, so it reports the
     * broken one as the reader does, at the element type's column */
    char *bad = replaced(M.text, "%w2: tensor<64x16xf32>", "%w2: tensor<64x16xf32)");
    char *col = line_of(bad, 3);
    char want[64];
    snprintf(want, sizeof want, "mlp.mlir:3:%d:", (int)(strstr(strstr(col, "%w2"), "f32)") - col) + 1);
    check_error(&M, bad, PP_EINPUT, want, "unknown element type 'f32)");
    check_read_error(bad, want, "unknown element type 'f32)");
    free(col);
    free(bad);
    bad = replaced(M.text, ", %w2: tensor<64x16xf32>", "");
    check_error(&M, bad, PP_EINPUT, "mlp.mlir:3:", "2 arguments where the entry function @main has 3");
    free(bad);
    bad = replaced(M.text, "jax.result_info = \"\"", "jax.result_info = \"");
    check_error(&M, bad, PP_EINPUT, "mlp.mlir:3:", "unterminated string");
    free(bad);
    bad = replaced(M.text, "(%x: tensor", "(x: tensor");
    check_error(&M, bad, PP_EINPUT, "mlp.mlir:3:26:", "expected an argument");
    free(bad);
    bad = replaced(M.text, "// Paper", "// A longer first line\n// Paper");
    check_error(&M, bad, PP_EINPUT, "mlp.mlir:3:3:", "expected the entry function @main here");
    free(bad);
    bad = replaced(M.text, "module @mlp {", "module @mlp attributes {a = [1} {");
    check_error(&M, bad, PP_EINPUT, "mlp.mlir:2:31:", "unbalanced '}': the bracket at 2:29 is not closed");
    check_read_error(bad, "mlp.mlir:2:31:", "unbalanced '}': the bracket at 2:29 is not closed");
    free(bad);
    bad = replaced(M.text, "module @mlp {", "module @mlp attributes [] {");
    check_error(&M, bad, PP_EINPUT, "mlp.mlir:2:24:", "expected '{' after the module's attributes");
    free(bad);
    set_dim(&M, 0, 0, 1);
    set_dim(&M, 0, 1, 1);
    check_error(&M, M.text, PP_EINPUT, "mlp.mlir:3:30:", "mesh axis 'b' shards two dimensions of one tensor");
    set_dim(&M, 0, 1, 4);
    check_error(&M, M.text, PP_EARG, "mlp.mlir:3:30:", "beyond the mesh's 2 axes");
    release(&M);
}

/* The partition count on a module with one function of one argument,
 * written on a mesh of 6 devices: the module line of each input, with the
 * whole output known by hand. */
#define ONE_FUNC                                                                                       \
    "  func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n    return %a : tensor<4xf32>\n  }\n}\n"
#define ONE_FUNC_OUT                                                                                   \
    "  func.func @main(%a: tensor<4xf32> {mhlo.sharding = \"{devices=[6]0,1,2,3,4,5}\"}) "          \
    "-> (tensor<4xf32> {mhlo.sharding = \"{devices=[6]0,1,2,3,4,5}\"}) {\n"                          \
    "    return %a : tensor<4xf32>\n  }\n}\n"

static const struct {
    const char *in, *out;
} PARTITIONS[] = {
    /* present: the value replaced, num_replicas left alone */
    {"module @p attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {\n",
     "module @p attributes {mhlo.num_partitions = 6 : i32, mhlo.num_replicas = 1 : i32} {\n"},
    {"module @p attributes {jax.x = 1, mhlo.num_partitions = 8 : i64} {\n",
     "module @p attributes {jax.x = 1, mhlo.num_partitions = 6 : i32} {\n"},
    /* absent from an existing dictionary: in sorted key position */
    {"module @p attributes {jax.uses_shape_polymorphism = false, mhlo.num_replicas = 1 : i32} {\n",
     "module @p attributes {jax.uses_shape_polymorphism = false, mhlo.num_partitions = 6 : i32, mhlo.num_replicas = 1 : i32} {\n"},
    {"module @p attributes {jax.x = \"}\"} {\n", "module @p attributes {jax.x = \"}\", mhlo.num_partitions = 6 : i32} {\n"},
    {"module @p attributes {} {\n", "module @p attributes {mhlo.num_partitions = 6 : i32} {\n"},
    /* no dictionary: an attributes clause after the name */
    {"module @p {\n", "module @p attributes {mhlo.num_partitions = 6 : i32} {\n"},
    {"module {\n", "module attributes {mhlo.num_partitions = 6 : i32} {\n"},
    {"#loc = loc(\"module\")\n// module @q {\nmodule @\"p q\"  {\n",
     "#loc = loc(\"module\")\n// module @q {\nmodule @\"p q\" attributes {mhlo.num_partitions = 6 : i32}  {\n"},
};

static void test_partitions(void)
{
    for (size_t k = 0; k < sizeof PARTITIONS / sizeof PARTITIONS[0]; k++) {
        size_t n = strlen(PARTITIONS[k].in) + sizeof ONE_FUNC;
        char *text = malloc(n), *want = malloc(strlen(PARTITIONS[k].out) + sizeof ONE_FUNC_OUT);
        snprintf(text, n, "%s%s", PARTITIONS[k].in, ONE_FUNC);
        sprintf(want, "%s%s", PARTITIONS[k].out, ONE_FUNC_OUT);
        model M;
        if (open_text(&M, "p.mlir", text, strlen(text))) {
            set_dim(&M, 0, 0, 3);
            set_dim(&M, M.nda->out_use, 0, 3);
            char *out = write(&M, "a=2,b=3", PP_SHARD_FORMAT_GSPMD);
            if (!out || strcmp(out, want) != 0)
                fprintf(stderr, "case %zu: got:\n%s\nexpected:\n%s\n", k, out ? out : "(null)", want);
            CHECK(out && strcmp(out, want) == 0);
            free(out);
        }
        release(&M);
        free(want);
    }
    /* functions at the top level: no module to carry the count, the text is left so */
    const char *bare = "func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n  return %a : tensor<4xf32>\n}\n";
    model M;
    if (open_text(&M, "bare.mlir", strdup(bare), strlen(bare))) {
        char *out = write(&M, "a=2,b=3", PP_SHARD_FORMAT_GSPMD);
        check_str(out, "func.func @main(%a: tensor<4xf32> {mhlo.sharding = \"{replicated}\"}) "
                       "-> (tensor<4xf32> {mhlo.sharding = \"{replicated}\"}) {\n  return %a : tensor<4xf32>\n}\n");
        free(out);
    }
    release(&M);
}

static int64_t count_sharded(const pp_shard_func *f)
{
    int64_t n = 0;
    for (int32_t k = 0; k < f->n_args; k++)
        n += f->args[k].sharding && strcmp(f->args[k].sharding, "{replicated}") != 0;
    return n;
}

/* The expected texts of every entry parameter of M under its layout. */
static char **expected_texts(const model *M, const pp_shard_mesh *mesh, pp_shard_format format)
{
    const pp_shard_func *f = &M->m->funcs[M->m->entry];
    int32_t n = f->n_args + f->n_results;
    char **texts = calloc((size_t)n + 1, sizeof *texts);
    for (int32_t k = 0; k < n; k++) {
        const pp_shard_nda_tensor *t = &M->nda->tensors[k < f->n_args ? k : M->nda->out_use + k - f->n_args];
        char *s = NULL;
        pp_error err = {0};
        CHECK(pp_shard_sharding_text(mesh, format, M->axes + t->first, t->rank, &s, &err) == PP_OK);
        texts[k] = s;
        if (format == PP_SHARD_FORMAT_SDY && s) {
            size_t len = strlen(s) + 32;
            texts[k] = malloc(len);
            snprintf(texts[k], len, "sdy.sharding = %s", s);
            free(s);
        }
    }
    return texts;
}

static void free_texts(char **texts)
{
    for (int32_t k = 0; texts[k]; k++)
        free(texts[k]);
    free(texts);
}

/* The chess module's attribute dictionary holds mhlo.num_partitions = 1. */
#define CHESS_MODULE                                                                                   \
    "module @jit_predict_sequence attributes {jax.uses_shape_polymorphism = false, " PARTS ", "         \
    "mhlo.num_replicas = 1 : i32} {"

static void test_chess(void)
{
    model M;
    if (!open_file(&M, CHESS, "chess.mlir"))
        return release(&M);
    pp_shard_mesh mesh = mesh_of("b=2,m=4");
    pp_shard_state state;
    pp_error err = {0};
    CHECK(pp_shard_baseline_megatron(M.nda, &mesh, &state, &err) == PP_OK);
    CHECK(pp_shard_state_layout(M.nda, &mesh, &state, M.axes, &err) == PP_OK);
    pp_shard_state_free(&state);
    char *out = write(&M, "b=2,m=4", PP_SHARD_FORMAT_GSPMD);
    char *sig = out ? line_of(out, 2) : NULL;
    if (sig)
        check_replaced(M.text, out, 1, CHESS_MODULE, 2, sig);
    char **want = expected_texts(&M, &mesh, PP_SHARD_FORMAT_GSPMD);
    if (out)
        check_read_back(&M, out, (const char *const *)want, SHARDING);
    free_texts(want);
    pp_shard_module *back = NULL;
    if (out && pp_shard_module_parse("back.mlir", out, strlen(out), &back, &err) == PP_OK) {
        CHECK(count_sharded(&back->funcs[back->entry]) > 0);
        pp_shard_module_free(back);
    }
    free(sig);
    free(out);
    out = write(&M, "b=2,m=4", PP_SHARD_FORMAT_SDY);
    char *decl = out ? line_of(out, 2) : NULL;
    CHECK(decl && strcmp(decl, "  sdy.mesh @mesh = <[\"b\"=2, \"m\"=4]>") == 0);
    char *bare = out ? with_line(out, 2, NULL) : NULL;
    sig = bare ? line_of(bare, 2) : NULL;
    if (sig)
        check_replaced(M.text, bare, 1, CHESS_MODULE, 2, sig);
    want = expected_texts(&M, &mesh, PP_SHARD_FORMAT_SDY);
    if (out)
        check_read_back(&M, out, (const char *const *)want, ATTRS_HOLD);
    free_texts(want);
    free(sig);
    free(bare);
    free(decl);
    free(out);
    release(&M);
}

/* A parameter with both formats' keys: the written one is replaced, the
 * other cut with its separator, wherever the two stand. */
static void test_both_keys(void)
{
    static const char in[] =
        "module @m {\n"
        "  func.func public @main(%x: tensor<4x8xf32> {jax.a = 1, mhlo.sharding = \"{replicated}\", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, "
        "%y: tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>, mhlo.sharding = \"{replicated}\", z = 2}) -> tensor<4x8xf32> {\n"
        "    %0 = stablehlo.add %x, %y : tensor<4x8xf32>\n"
        "    return %0 : tensor<4x8xf32>\n"
        "  }\n"
        "}\n";
    model M;
    if (!open_text(&M, "both.mlir", strdup(in), strlen(in)))
        return;
    set_dim(&M, 0, 0, 1);
    set_dim(&M, 1, 1, 1);
    char *out = write(&M, "b=2", PP_SHARD_FORMAT_GSPMD);
    char *line = out ? line_of(out, 2) : NULL;
    check_str(line, "  func.func public @main(%x: tensor<4x8xf32> {jax.a = 1, mhlo.sharding = \"{devices=[2,1]0,1}\"}, "
                    "%y: tensor<4x8xf32> {mhlo.sharding = \"{devices=[1,2]0,1}\", z = 2}) -> (tensor<4x8xf32> "
                    "{mhlo.sharding = \"{replicated}\"}) {");
    free(line);
    free(out);
    out = write(&M, "b=2", PP_SHARD_FORMAT_SDY);
    line = out ? line_of(out, 3) : NULL;
    check_str(line, "  func.func public @main(%x: tensor<4x8xf32> {jax.a = 1, sdy.sharding = #sdy.sharding<@mesh, [{\"b\"}, {}]>}, "
                    "%y: tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {\"b\"}]>, z = 2}) -> (tensor<4x8xf32> "
                    "{sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) {");
    free(line);
    free(out);
    release(&M);
}

int main(void)
{
    test_both_keys();
    test_texts();
    test_mlp();
    test_attention();
    test_tricky();
    test_errors();
    test_partitions();
    test_chess();
    return CHECK_DONE();
}
