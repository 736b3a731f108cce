/* write_internal.h: what the module writer's files share (write.c: the
 * signature, write_plan.c: every op's tensor, check.c: the written
 * module read back): a growable string and how renamed values are named. */
#ifndef PP_SHARD_WRITE_INTERNAL_H
#define PP_SHARD_WRITE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include "parplan/shard_write.h"

/* A growable string. A failed allocation sticks and is reported once, at the end. */
typedef struct {
    char *s;
    size_t n;
    int cap;
    bool failed;
} shard_sbuf;

void shard_sb_add(shard_sbuf *b, const char *s, size_t n);
void shard_sb_str(shard_sbuf *b, const char *s);
void shard_sb_int(shard_sbuf *b, long long v);
/* Hands the string over (NUL-terminated), or frees it and reports the failed allocation. */
pp_status shard_sb_take(shard_sbuf *b, char **out, pp_error *err);

/* The prefix the writer gives an op's own result when a sharding constraint
 * takes over its name ("%0" becomes "%ppw_0"): "ppw_", or "ppw1_", "ppw2_"...
 * the first that no value name of the module starts with, so the renamed
 * values collide with none and the checker tells the inserted constraints
 * from any the input had. */
void shard_write_prefix(const pp_shard_module *m, char *buf, size_t size);

/* A constraint op as the writer inserts it: stablehlo.custom_call @Sharding
 * (GSPMD) or sdy.sharding_constraint (Shardy), one operand, one result. */
bool shard_is_constraint(const pp_shard_op *op);

#endif
