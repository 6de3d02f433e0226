"""Reading and writing job logs: SWF (Parallel Workloads Archive), Slurm ``sacct``, and
Batsim's JSON workloads; Slurm's queue (``squeue``) and a batch script's ``#SBATCH``
requests."""

from ._batsim import read_batsim, write_batsim
from ._log import read_log
from ._sacct import read_sacct
from ._sbatch import read_sbatch_script
from ._squeue import read_squeue
from ._swf import read_swf, write_swf

__all__ = ["read_log", "read_swf", "write_swf", "read_sacct", "write_batsim", "read_batsim",
           "read_squeue", "read_sbatch_script"]
