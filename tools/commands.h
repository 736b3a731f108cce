/* commands.h: the parplan commands that live outside parplan.c, one file per
 * system: each command's flag table (flags.h) and its main. */
#ifndef PP_TOOLS_COMMANDS_H
#define PP_TOOLS_COMMANDS_H

#include "flags.h"

extern const command_spec schedule_command, check_schedule_command, gen_pipeline_command, gen_random_command;
int cmd_schedule(int argc, char **argv);
int cmd_check_schedule(int argc, char **argv);
int cmd_gen_pipeline(int argc, char **argv);
int cmd_gen_random(int argc, char **argv);

extern const command_spec cluster_plan_command, cluster_simulate_command, cluster_replan_command;
int cmd_cluster_plan(int argc, char **argv);
int cmd_cluster_simulate(int argc, char **argv);
int cmd_cluster_replan(int argc, char **argv);

extern const command_spec shard_command;
int cmd_shard(int argc, char **argv);

extern const command_spec plan_command;
int cmd_plan(int argc, char **argv);

extern const command_spec gen_model_command;
int cmd_gen_model(int argc, char **argv);

#endif
