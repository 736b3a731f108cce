/* explain.c: the text of `parplan shard MODEL.mlir --explain`: what the
 * named-dimension analysis found, written for a person choosing shardings:
 * colors, conflicts, compatibility sets with what each resolution shards
 * and the resharding it implies, repeated-layer groups. */
#include "parplan/shard.h"
#include "shard/shard_internal.h"
#include <inttypes.h>
#include <stdlib.h>

#define MAX_LISTED 8

static const char *op_name(const pp_shard_flat *flat, int32_t i)
{
    return pp_shard_flat_op_of(flat, i)->name;
}

/* "%a", "%c in stablehlo.divide -> %d", "%z in return". */
static void write_tensor(const pp_shard_nda *nda, int32_t t, FILE *out)
{
    const pp_shard_flat *flat = nda->flat;
    const pp_shard_nda_tensor *T = &nda->tensors[t];
    char a[160], b[160];
    pp_shard_value_label(flat, T->value, a, sizeof a);
    if (T->op < 0)
        fprintf(out, "%s", a);
    else if (T->op >= flat->n_ops)
        fprintf(out, "%s in return #%d", a, (int)T->operand);
    else if (flat->ops[T->op].results)
        fprintf(out, "%s in %s -> %s", a, op_name(flat, T->op),
                pp_shard_value_label(flat, flat->ops[T->op].results[0], b, sizeof b));
    else
        fprintf(out, "%s in %s", a, op_name(flat, T->op));
}

static void write_colors(const pp_shard_nda *nda, FILE *out)
{
    char buf[160];
    fprintf(out, "colors (dimensions sharded together): %d\n", (int)nda->n_colors);
    int32_t *listed = calloc((size_t)nda->n_colors + 1, sizeof *listed);
    for (int32_t c = 0; c < nda->n_colors; c++) {
        const pp_shard_nda_color *C = &nda->colors[c];
        fprintf(out, "  color %d: size %" PRId64 ", %d names, %d tensors (%d with it twice), %d conflicts:", (int)c,
                C->size, (int)C->n_names, (int)C->n_values, (int)C->n_twice, (int)C->n_conflicts);
        for (int32_t v = C->first_value; listed && v >= 0 && v < nda->flat->n_values && listed[c] < MAX_LISTED; v++)
            for (int32_t d = 0; d < nda->tensors[v].rank; d++)
                if (nda->color[nda->tensors[v].first + d] == c) {
                    fprintf(out, " %s[%d]", pp_shard_value_label(nda->flat, v, buf, sizeof buf), (int)d);
                    listed[c]++;
                    break;
                }
        if (C->n_values > MAX_LISTED)
            fprintf(out, " ... (+%d)", (int)(C->n_values - MAX_LISTED));
        fputc('\n', out);
    }
    free(listed);
}

static void write_conflicts(const pp_shard_nda *nda, FILE *out)
{
    fprintf(out, "conflicts (one color twice on a tensor): %d\n", (int)nda->n_conflicts);
    for (int32_t k = 0; k < nda->n_conflicts; k++) {
        const pp_shard_nda_conflict *c = &nda->conflicts[k];
        fprintf(out, "  conflict %d (color %d, set %d): dims %d / %d of ", (int)k, (int)c->color, (int)c->set,
                (int)c->dim_a, (int)c->dim_b);
        write_tensor(nda, c->tensor, out);
        fputc('\n', out);
    }
}

/* Uses whose definition is sharded on the color while the use is not
 * (an all_gather), or on another dimension (an all_to_all). */
static void count_resharding(const pp_shard_nda *nda, int32_t color, const uint8_t *bits, int *gathers, int *a2a)
{
    *gathers = *a2a = 0;
    for (int32_t t = nda->flat->n_values; t < nda->n_tensors; t++) {
        int32_t du = pp_shard_nda_sharded_dim(nda, color, bits, t);
        int32_t dd = pp_shard_nda_sharded_dim(nda, color, bits, nda->tensors[t].value);
        *gathers += dd >= 0 && du < 0;
        *a2a += dd >= 0 && du >= 0 && du != dd;
    }
}

static void write_resolution(const pp_shard_nda *nda, int32_t s, uint8_t *bits, FILE *out)
{
    const pp_shard_nda_set *S = &nda->sets[s];
    int gathers, a2a;
    char buf[160];
    count_resharding(nda, S->color, bits, &gathers, &a2a);
    fprintf(out, "    resolution %d: %d all_gather, %d all_to_all at uses of the color (other sets at 0); shards",
            (int)bits[s], gathers, a2a);
    for (int32_t k = 0; k < S->n_conflicts && k < MAX_LISTED; k++) {
        const pp_shard_nda_conflict *c = &nda->conflicts[S->conflicts[k]];
        if (c->tensor < nda->flat->n_values)
            fprintf(out, " %s[%d]", pp_shard_value_label(nda->flat, c->tensor, buf, sizeof buf),
                    (int)(bits[s] ? c->dim_b : c->dim_a));
    }
    fputc('\n', out);
}

static void write_sets(const pp_shard_nda *nda, FILE *out)
{
    fprintf(out, "compatibility sets (resolved together): %d\n", (int)nda->n_sets);
    uint8_t *bits = calloc((size_t)nda->n_sets + 1, 1);
    for (int32_t s = 0; bits && s < nda->n_sets; s++) {
        const pp_shard_nda_set *S = &nda->sets[s];
        fprintf(out, "  set %d (color %d, %d conflicts%s):", (int)s, (int)S->color, (int)S->n_conflicts,
                S->consistent ? "" : ", not consistently orientable");
        for (int32_t k = 0; k < S->n_conflicts; k++)
            fprintf(out, " %d", (int)S->conflicts[k]);
        fputc('\n', out);
        for (uint8_t r = 0; r < 2; r++) {
            bits[s] = r;
            write_resolution(nda, s, bits, out);
        }
        bits[s] = 0;
    }
    free(bits);
}

static void write_layers(const pp_shard_nda *nda, FILE *out)
{
    char buf[160];
    fprintf(out, "repeated-layer groups: %d\n", (int)nda->n_layer_groups);
    for (int32_t g = 0; g < nda->n_layer_groups; g++) {
        const pp_shard_nda_layers *G = &nda->layer_groups[g];
        fprintf(out, "  group %d: %d layers of %d ops, starting at ops", (int)g, (int)G->copies, (int)G->length);
        for (int32_t c = 0; c < G->copies; c++)
            fprintf(out, " %d", (int)G->starts[c]);
        fprintf(out, "\n    per layer: %d colors, %d compatibility sets, %d arguments", (int)G->n_copy_colors,
                (int)G->n_copy_sets, (int)G->n_copy_args);
        for (int32_t c = 0; c < G->copies && G->n_copy_sets; c++) {
            fprintf(out, "\n    layer %d sets:", (int)c);
            for (int32_t k = 0; k < G->n_copy_sets; k++)
                fprintf(out, " %d", (int)G->set_map[(size_t)c * (size_t)G->n_copy_sets + (size_t)k]);
        }
        for (int32_t c = 0; c < G->copies && G->n_copy_args; c++) {
            fprintf(out, "\n    layer %d arguments:", (int)c);
            for (int32_t k = 0; k < G->n_copy_args && k < MAX_LISTED; k++)
                fprintf(out, " %s",
                        pp_shard_value_label(nda->flat, G->arg_map[(size_t)c * (size_t)G->n_copy_args + (size_t)k],
                                             buf, sizeof buf));
            if (G->n_copy_args > MAX_LISTED)
                fprintf(out, " ...");
        }
        fputc('\n', out);
    }
}

/* The entry's arguments by role (roles.c's rule): counts, and the
 * activations and token ids by name (the parameters are the rest). */
static void write_roles(const pp_shard_nda *nda, FILE *out)
{
    const pp_shard_flat *flat = nda->flat;
    const pp_shard_func *entry = &flat->module->funcs[flat->module->entry];
    int32_t count[3] = {0, 0, 0};
    for (int32_t k = 0; k < flat->n_inputs; k++)
        count[pp_shard_arg_role(nda, k)]++;
    fprintf(out, "arguments by role (integer or boolean: token ids; floating with a dimension of the batch color: "
                 "activation; other floating: parameter): %d parameters, %d activations, %d token ids\n",
            (int)count[0], (int)count[1], (int)count[2]);
    for (int r = PP_SHARD_ROLE_ACTIVATION; r <= PP_SHARD_ROLE_TOKENS; r++) {
        if (count[r] == 0)
            continue;
        fprintf(out, "  %s:", pp_shard_role_name((pp_shard_role)r));
        for (int32_t k = 0, shown = 0; k < flat->n_inputs; k++)
            if ((int)pp_shard_arg_role(nda, k) == r && shown++ < 16)
                fprintf(out, " %%%s", entry->values[k].name);
        fprintf(out, count[r] > 16 ? " ...\n" : "\n");
    }
}

void pp_shard_write_explain(const pp_shard_nda *nda, FILE *out)
{
    const pp_shard_module *m = nda->flat->module;
    fprintf(out, "%s: module @%s, %d ops and %d values after inlining, %d dimension names (%d after the op rules)\n",
            m->file, m->name, (int)nda->flat->n_ops, (int)nda->flat->n_values, (int)nda->n_names,
            (int)nda->n_iclasses);
    write_colors(nda, out);
    write_conflicts(nda, out);
    write_sets(nda, out);
    write_layers(nda, out);
    write_roles(nda, out);
}
