/* test_messages.c: messages that quote input stay text, and limits are
 * refused with words (issue 32, item 11): a mesh axis named in Greek is
 * quoted whole, never half a UTF-8 character; a global batch of 2^30
 * micro-batches is refused as more than the simulator counts, not as
 * memory that ran out at a 12 MB peak. */
#include <stdlib.h>
#include <string.h>
#include "cli_run.h"

/* True when text is valid UTF-8 (RFC 3629's shapes; overlongs aside). */
static bool valid_utf8(const char *text)
{
    const unsigned char *p = (const unsigned char *)text;
    while (*p) {
        size_t n = *p < 0x80 ? 0 : *p >= 0xf0 ? 3 : *p >= 0xe0 ? 2 : *p >= 0xc0 ? 1 : 9;
        if (n == 9)
            return false;
        for (size_t k = 1; k <= n; k++)
            if ((p[k] & 0xc0) != 0x80)
                return false;
        p += n + 1;
    }
    return true;
}

static void says_text(const char *command, int code, const char *needle)
{
    char said[16384];
    int got = run_all(command, said, sizeof said);
    CHECK_EQ_INT(got, code);
    if (!strstr(said, needle) || !valid_utf8(said)) {
        fprintf(stderr, "%s\n  said: %s  expected, as valid UTF-8: %s\n", command, said, needle);
        check_failures++;
    }
}

int main(void)
{
    char command[2048];
    snprintf(command, sizeof command, "%s shard %s/examples/shard/moe-tiny.mlir --mesh \xce\xb4=4", PP_CLI,
             PP_SOURCE_DIR);
    says_text(command, 2, "axis name '\xce\xb4' has '\xce\xb4' (letters, digits, '_' only)");
    snprintf(command, sizeof command, "%s shard %s/examples/shard/moe-tiny.mlir --mesh b\xe2\x82\xac=4", PP_CLI,
             PP_SOURCE_DIR);
    says_text(command, 2, "has '\xe2\x82\xac'");

    char workload[] = "/tmp/pp_messages_XXXXXX";
    int fd = mkstemp(workload);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f)
        return 1;
    fprintf(f, "{\"name\": \"huge batch\", \"transformer\": {\"layers\": 24, \"hidden\": 2304, \"heads\": 24, "
               "\"sequence\": 2048, \"vocabulary\": 51200, \"global_batch\": 1073741824}, \"recompute\": true}\n");
    fclose(f);
    snprintf(command, sizeof command, "%s cluster plan %s/examples/cluster/dgx-a100-8.json %s --timeout 5 --quiet",
             PP_CLI, PP_SOURCE_DIR, workload);
    says_text(command, 2, "more than the simulator counts (2^31 - 1)");
    snprintf(command, sizeof command,
             "%s cluster simulate %s/examples/cluster/dgx-a100-8.json %s %s/tests/cluster/data/plan-shorthand.json",
             PP_CLI, PP_SOURCE_DIR, workload, PP_SOURCE_DIR);
    says_text(command, 2, "more than the simulator counts (2^31 - 1)");
    remove(workload);
    return CHECK_DONE();
}
