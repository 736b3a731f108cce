/* options_internal.h: what the systems' request checks (request.c in each
 * floor) share of core/options.c beyond the ranges of the public options.h. */
#ifndef PP_CORE_OPTIONS_INTERNAL_H
#define PP_CORE_OPTIONS_INTERNAL_H

#include "parplan/options.h"

/* The options every solving request has: timeout, then threads. */
pp_status pp_option_check_solver(double timeout, int64_t threads, pp_error *err);

/* PP_EARG "NAME VALUE: allowed: a|b|c" unless value is one of the words
 * in choices ("a|b|c", as the CLI's help lists them). */
pp_status pp_option_check_choice(const char *name, const char *value, const char *choices, pp_error *err);

#endif
