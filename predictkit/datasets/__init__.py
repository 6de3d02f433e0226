"""Traces: the Parallel Workloads Archive catalogue, downloads, a local cache, and synthetic workloads."""

from ..workload._synthetic import make_workload
from ._catalogue import list_traces
from ._fetch import fetch_pwa, get_data_home, load_trace

__all__ = ["fetch_pwa", "load_trace", "list_traces", "get_data_home", "make_workload"]
