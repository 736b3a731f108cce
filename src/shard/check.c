/* check.c: the sharder's independent checker: the written module read back
 * (issue 15). Every annotation the writer put in (the entry's signature,
 * the constraints after ops, in every copy of a function) is found again
 * through the module's own reader and flattening, decoded into mesh axes
 * per dimension, and compared with the plan's layout for the tensor it
 * stands at. The decoding is its own: a GSPMD string's axes come from its
 * device order, not from the writer's rule, so a wrong tile order or a
 * constraint at the wrong op is caught. Also the helpers the writer and
 * this check share on the inserted ops. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "shard/shard_internal.h"
#include "shard/write_internal.h"

#define MAX_TILES 64

void shard_write_prefix(const pp_shard_module *m, char *buf, size_t size)
{
    for (int k = 0;; k++) {
        if (k == 0)
            snprintf(buf, size, "ppw_");
        else
            snprintf(buf, size, "ppw%d_", k);
        size_t n = strlen(buf);
        bool taken = false;
        for (int32_t f = 0; f < m->n_funcs && !taken; f++)
            for (int32_t v = 0; v < m->funcs[f].n_values && !taken; v++)
                taken = strncmp(m->funcs[f].values[v].name, buf, n) == 0;
        if (!taken)
            return;
    }
}

bool shard_is_constraint(const pp_shard_op *op)
{
    if (op->n_operands != 1 || op->n_results != 1)
        return false;
    if (strcmp(op->name, "sdy.sharding_constraint") == 0)
        return true;
    if (strcmp(op->name, "stablehlo.custom_call") != 0 || !op->attrs)
        return false;
    const char *a = op->attrs;
    while (isspace((unsigned char)*a))
        a++;
    return strncmp(a, "@Sharding", 9) == 0 && !(isalnum((unsigned char)a[9]) || a[9] == '_');
}

typedef struct {
    const pp_shard_nda *nda;
    const pp_shard_mesh *mesh;
    const uint8_t *axes;
    pp_shard_format format;
    const pp_shard_module *m; /* the written module */
    const pp_shard_flat *flat;
    pp_shard_write_stats *stats;
    pp_error *err;
} checker;

static bool fail(checker *C, int line, int col, const char *what, const char *why)
{
    pp_error_set(C->err, PP_EINPUT, "%s, as written:%d:%d: %s: %s", C->m->file, line, col, what, why);
    return false;
}

/* ---- decoding GSPMD strings ---- */

static bool read_ints(const char **p, int64_t *v, int32_t max, int32_t *n)
{
    *n = 0;
    for (;;) {
        while (**p == ' ')
            (*p)++;
        if (!isdigit((unsigned char)**p) || *n == max)
            return false;
        v[(*n)++] = strtoll(*p, (char **)p, 10);
        while (**p == ' ')
            (*p)++;
        if (**p != ',')
            return true;
        (*p)++;
    }
}

/* Mesh axes whose coordinate is not 0 on device id `dev` (row-major, the last axis fastest). */
static uint8_t moved_axes(const pp_shard_mesh *mesh, int64_t dev)
{
    uint8_t bits = 0;
    for (int32_t a = mesh->n_axes - 1; a >= 0; a--) {
        if (dev % mesh->sizes[a])
            bits |= (uint8_t)(1u << a);
        dev /= mesh->sizes[a];
    }
    return bits;
}

/* "{replicated}" or "{devices=[T0,...]D0,D1,...( last_tile_dim_replicate)}"
 * into axes per dimension: the axes that move when one steps along a
 * dimension's tiles from tile 0. */
static bool decode_gspmd(const pp_shard_mesh *mesh, const char *s, int32_t rank, uint8_t *dim_axes, char *why,
                         size_t size)
{
    memset(dim_axes, 0, (size_t)rank);
    if (strcmp(s, "{replicated}") == 0)
        return true;
    int64_t tiles[MAX_TILES];
    int32_t n_tiles = 0, n_devices = 0;
    const char *p = s;
    int64_t devices_n = pp_shard_mesh_devices(mesh);
    int64_t *devices = malloc(((size_t)devices_n + 1) * sizeof *devices);
    bool ok = devices && strncmp(p, "{devices=[", 10) == 0;
    p += ok ? 10 : 0;
    ok = ok && read_ints(&p, tiles, MAX_TILES, &n_tiles) && *p++ == ']' &&
         read_ints(&p, devices, (int32_t)devices_n, &n_devices);
    bool replicate = ok && strncmp(p, "last_tile_dim_replicate", 23) == 0; /* read_ints ate the blank */
    p += replicate ? 23 : 0;
    ok = ok && strcmp(p, "}") == 0 && n_tiles == rank + replicate && n_devices == devices_n;
    int64_t stride = 1;
    for (int32_t d = n_tiles - 1; ok && d >= 0; d--) {
        for (int64_t t = 1; d < rank && t < tiles[d] && t * stride < n_devices; t++)
            dim_axes[d] |= moved_axes(mesh, devices[t * stride]);
        ok = d >= rank || shard_axes_devices(mesh, dim_axes[d]) == tiles[d];
        stride *= tiles[d];
    }
    ok = ok && stride == n_devices;
    free(devices);
    if (!ok)
        snprintf(why, size, "'%s' is not a sharding over this mesh's %lld devices", s, (long long)devices_n);
    return ok;
}

/* ---- decoding Shardy's dimension lists ---- */

static int32_t axis_named(const pp_shard_mesh *mesh, const char *s, size_t n)
{
    for (int32_t a = 0; a < mesh->n_axes; a++)
        if (strlen(mesh->names[a]) == n && memcmp(mesh->names[a], s, n) == 0)
            return a;
    return -1;
}

/* "[{"b"}, {}]" (the first '[' in s) into axes per dimension. */
static bool decode_sdy(const pp_shard_mesh *mesh, const char *s, int32_t rank, uint8_t *dim_axes, char *why,
                       size_t size)
{
    const char *p = s ? strchr(s, '[') : NULL;
    int32_t d = 0;
    memset(dim_axes, 0, (size_t)rank);
    bool ok = p != NULL;
    for (p = p ? p + 1 : p; ok && *p != ']'; d++) {
        while (*p == ' ' || *p == ',')
            p++;
        ok = *p++ == '{' && d < rank;
        while (ok && *p != '}') {
            while (*p == ' ' || *p == ',')
                p++;
            const char *q = *p == '"' ? strchr(p + 1, '"') : NULL;
            int32_t a = q ? axis_named(mesh, p + 1, (size_t)(q - p - 1)) : -1;
            ok = a >= 0;
            if (ok)
                dim_axes[d] |= (uint8_t)(1u << a);
            p = ok ? q + 1 : p;
            while (ok && *p == ' ')
                p++;
        }
        p += ok;
        while (ok && *p == ' ')
            p++;
    }
    ok = ok && d == rank;
    if (!ok)
        snprintf(why, size, "'%.200s' is not a Shardy sharding of a rank-%d tensor over this mesh", s ? s : "",
                 (int)rank);
    return ok;
}

/* The annotation `text` (a GSPMD string or a text holding a Shardy list)
 * against the plan's layout of tensor occurrence t. */
static bool check_tensor(checker *C, const char *text, int32_t t, int line, int col, const char *what)
{
    const pp_shard_nda_tensor *T = &C->nda->tensors[t];
    uint8_t got[MAX_TILES];
    char why[400];
    if (T->rank > MAX_TILES - 1)
        return fail(C, line, col, what, "rank too large to check");
    if (!text)
        return fail(C, line, col, what, "no sharding written");
    bool ok = C->format == PP_SHARD_FORMAT_SDY ? decode_sdy(C->mesh, text, T->rank, got, why, sizeof why)
                                               : decode_gspmd(C->mesh, text, T->rank, got, why, sizeof why);
    if (!ok)
        return fail(C, line, col, what, why);
    for (int32_t d = 0; d < T->rank; d++)
        if (got[d] != C->axes[T->first + d]) {
            snprintf(why, sizeof why, "dimension %d is sharded over axes 0x%x where the plan has 0x%x", (int)d,
                     got[d], C->axes[T->first + d]);
            return fail(C, line, col, what, why);
        }
    C->stats->annotated++;
    return true;
}

/* The sharding an entry parameter carries, in the format's text. */
static const char *param_sharding(const checker *C, const pp_shard_param *p)
{
    if (C->format == PP_SHARD_FORMAT_GSPMD)
        return p->sharding;
    return p->attrs ? strstr(p->attrs, "sdy.sharding") : NULL;
}

static bool check_signature(checker *C)
{
    const pp_shard_func *f = &C->m->funcs[C->m->entry];
    const pp_shard_flat *planned = C->nda->flat;
    if (f->n_args != planned->n_inputs || f->n_results != planned->n_outputs)
        return fail(C, f->line, f->col, f->name, "the entry's signature differs from the planned module's");
    for (int32_t k = 0; k < f->n_args; k++)
        if (f->args[k].type.rank >= 0) {
            C->stats->tensors++;
            if (!check_tensor(C, param_sharding(C, &f->args[k]), k, f->line, f->col, f->values[k].name))
                return false;
        }
    for (int32_t k = 0; k < f->n_results; k++)
        if (f->results[k].type.rank >= 0) {
            C->stats->tensors++;
            if (!check_tensor(C, param_sharding(C, &f->results[k]), C->nda->out_use + k, f->line, f->col, "a result"))
                return false;
        }
    return true;
}

/* An op the writer inserted: a constraint on a value it renamed. */
static bool inserted(const checker *C, int32_t i, const char *prefix)
{
    const pp_shard_op *op = pp_shard_flat_op_of(C->flat, i);
    if (!shard_is_constraint(op))
        return false;
    const pp_shard_flat_value *v = &C->flat->values[C->flat->ops[i].operands[0]];
    return strncmp(C->m->funcs[v->func].values[v->value].name, prefix, strlen(prefix)) == 0;
}

/* The text after "mhlo.sharding = \"" up to its closing quote, in a malloc'd copy. */
static char *gspmd_attr(const char *attrs)
{
    const char *p = attrs ? strstr(attrs, "mhlo.sharding") : NULL;
    p = p ? strchr(p, '"') : NULL;
    const char *q = p ? strchr(p + 1, '"') : NULL;
    if (!q)
        return NULL;
    char *s = malloc((size_t)(q - p));
    if (s) {
        memcpy(s, p + 1, (size_t)(q - p - 1));
        s[q - p - 1] = '\0';
    }
    return s;
}

/* Constraint i of the written module on result `result` of planned_op. */
static bool check_constraint(checker *C, int32_t i, int32_t planned_op)
{
    const pp_shard_op *op = pp_shard_flat_op_of(C->flat, i);
    if (planned_op < 0)
        return fail(C, op->line, op->col, op->name, "a constraint before any op");
    const pp_shard_flat *planned = C->nda->flat;
    int32_t result = C->flat->values[C->flat->ops[i].operands[0]].index;
    if (result >= pp_shard_flat_op_of(planned, planned_op)->n_results)
        return fail(C, op->line, op->col, op->name, "a constraint on a result the op does not have");
    int32_t v = planned->ops[planned_op].results[result];
    char label[200];
    pp_shard_value_label(planned, v, label, sizeof label);
    if (C->format == PP_SHARD_FORMAT_SDY)
        return check_tensor(C, op->attrs, v, op->line, op->col, label);
    char *s = gspmd_attr(op->attrs);
    bool ok = check_tensor(C, s, v, op->line, op->col, label);
    free(s);
    return ok;
}

/* The written module's flat ops are the planned ones, in order, with the
 * inserted constraints between them. */
static bool check_ops(checker *C)
{
    const pp_shard_flat *planned = C->nda->flat;
    char prefix[16];
    shard_write_prefix(planned->module, prefix, sizeof prefix);
    for (int32_t v = planned->n_inputs; v < planned->n_values; v++)
        C->stats->tensors += planned->values[v].type.rank >= 0;
    int32_t j = 0, last = -1;
    for (int32_t i = 0; i < C->flat->n_ops; i++) {
        const pp_shard_op *op = pp_shard_flat_op_of(C->flat, i);
        if (inserted(C, i, prefix)) {
            if (C->flat->values[C->flat->ops[i].operands[0]].op != last)
                return fail(C, op->line, op->col, op->name, "a constraint not right after the op it constrains");
            if (!check_constraint(C, i, j - 1))
                return false;
            continue;
        }
        last = i;
        if (j >= planned->n_ops || strcmp(op->name, pp_shard_flat_op_of(planned, j)->name) != 0)
            return fail(C, op->line, op->col, op->name, "the written module's ops do not follow the planned module's");
        j++;
    }
    if (j != planned->n_ops)
        return fail(C, 1, 1, "the written module", "has fewer ops than the planned module");
    return true;
}

pp_status pp_shard_write_check(const pp_shard_nda *nda, const pp_shard_mesh *mesh, const uint8_t *axes,
                               pp_shard_format format, const char *text, size_t size, pp_shard_write_stats *stats,
                               pp_error *err)
{
    pp_shard_module *m = NULL;
    pp_shard_flat *flat = NULL;
    pp_shard_write_stats found = {0};
    pp_status st = pp_shard_module_parse(nda->flat->module->file, text, size, &m, err);
    if (st == PP_OK)
        st = pp_shard_module_flatten(m, 0, &flat, err);
    if (st == PP_OK) {
        checker C = {nda, mesh, axes, format, m, flat, &found, err};
        if (!(check_signature(&C) && check_ops(&C)))
            st = PP_EINPUT;
    }
    if (stats)
        *stats = found;
    pp_shard_flat_free(flat);
    pp_shard_module_free(m);
    return st;
}
