/* stack.h: the software stacks by name and the plans each can run
 * (stack.c). */
#ifndef PP_CLUSTER_STACK_H
#define PP_CLUSTER_STACK_H

#include <stddef.h>
#include "parplan/cluster.h"

/* "megatron-lm", "megatron-deepspeed", "torchtitan"; NULL past the list. */
const char *pp_cluster_stack_name(pp_cluster_stack s);
/* The stack of that name; false when there is none. */
bool pp_cluster_stack_parse(const char *name, pp_cluster_stack *out);

/* Whether p's stack can run it (the pipeline schedules, optimizer
 * sharding and gradient reduction its engine has; stack.c gives each
 * rule's source); when not, why, into why (size bytes). */
bool pp_cluster_stack_runs(const pp_cluster_plan *p, char *why, size_t size);

#endif
