/* error.c: pp_error, the one place a status value gets its message. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "parplan/core.h"
#include "parplan/options.h"

pp_status pp_error_set(pp_error *err, pp_status status, const char *fmt, ...)
{
    if (!err || err->status != PP_OK)
        return err ? err->status : status;
    err->status = status;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    /* A message cut to fit ends on a whole character. */
    if (n >= (int)sizeof err->message)
        err->message[pp_utf8_prefix(err->message, strlen(err->message))] = '\0';
    return status;
}

void pp_error_clear(pp_error *err)
{
    err->status = PP_OK;
    err->message[0] = '\0';
}

const char *pp_status_name(pp_status status)
{
    switch (status) {
    case PP_OK: return "ok";
    case PP_INFEASIBLE: return "infeasible";
    case PP_EINPUT: return "input error";
    case PP_EIO: return "i/o error";
    case PP_ENOMEM: return "out of memory";
    case PP_EARG: return "invalid argument";
    }
    return "unknown status";
}
