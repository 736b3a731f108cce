/* parplan: every public header at once, for programs that use several
 * systems (`#include <parplan/parplan.h>`). What each promises to keep is in
 * version.h. */
#ifndef PARPLAN_PARPLAN_H
#define PARPLAN_PARPLAN_H

#include "parplan/version.h"
#include "parplan/core.h"
#include "parplan/iopddl.h"
#include "parplan/sched.h"
#include "parplan/timeline.h"
#include "parplan/hw.h"
#include "parplan/hw_net.h"
#include "parplan/cluster.h"
#include "parplan/shard.h"
#include "parplan/shard_bridge.h"
#include "parplan/shard_plan.h"
#include "parplan/shard_report.h"
#include "parplan/plan.h"
#include "parplan/shard_write.h"
#include "parplan/shard_sched.h"

#endif
