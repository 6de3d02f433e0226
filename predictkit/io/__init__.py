"""Reading and writing job logs: SWF (Parallel Workloads Archive) and Slurm ``sacct``."""

from ._log import read_log
from ._sacct import read_sacct
from ._swf import read_swf, write_swf

__all__ = ["read_log", "read_swf", "write_swf", "read_sacct"]
