"""parplan: plans how deep-learning workloads are split across accelerators.

The C library libparplan, called from Python:
- parplan.iopddl.solve / evaluate: strategy assignment (the IOPDDL contest);
- parplan.schedule / check_schedule / gen.pipeline: operator scheduling;
- parplan.cluster.plan / replan / simulate: heterogeneous training clusters;
- parplan.shard: a StableHLO module's sharding on a device mesh;
- parplan.plan: a module's training step on a cluster (stages, meshes, schedule).
Errors raise parplan.Error subclasses carrying the CLI's message, file and
position. Long calls release the GIL; Ctrl-C stops them."""

from . import _parplan
from . import errors as _errors
from .errors import Error, InputError, InfeasibleError, FileError, ArgumentError
from .sched import schedule, check_schedule, ScheduleResult, CheckReport
from . import iopddl, gen, cluster
from .shard import shard, ShardPlan, partition_spec
from .plan import plan, Plan

_parplan._set_error_factory(_errors._from_status)

__version__ = _parplan.version

__all__ = ["Error", "InputError", "InfeasibleError", "FileError", "ArgumentError", "schedule", "check_schedule",
           "ScheduleResult", "CheckReport", "iopddl", "gen", "cluster", "shard", "ShardPlan",
           "partition_spec", "plan", "Plan", "__version__"]
