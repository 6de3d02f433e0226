"""Traces: the Parallel Workloads Archive catalogue, downloads, a local cache, and synthetic workloads."""

from ..workload._synthetic import make_workload
from ._catalogue import list_traces
from ._fetch import fetch_pwa, find_trace, get_data_home, load_trace, trace_folders

__all__ = ["fetch_pwa", "load_trace", "find_trace", "trace_folders", "list_traces",
           "get_data_home", "make_workload"]
