/* commands.h: the parplan commands that live outside parplan.c, one file per
 * system, and their usage texts. */
#ifndef PP_TOOLS_COMMANDS_H
#define PP_TOOLS_COMMANDS_H

extern const char schedule_usage[], check_schedule_usage[], gen_usage[];
int cmd_schedule(int argc, char **argv);
int cmd_check_schedule(int argc, char **argv);
int cmd_gen(int argc, char **argv);

extern const char cluster_usage[];
int cmd_cluster(int argc, char **argv);

extern const char shard_usage[];
int cmd_shard(int argc, char **argv);

#endif
