/* version.c: the library's own version, fixed when the library is built, so
 * a program can compare it with the PP_VERSION it was compiled against. */
#include "parplan/version.h"

const char *pp_version(void) { return PP_VERSION; }
