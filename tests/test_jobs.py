import numpy as np
import pandas as pd
import pytest
from hypothesis import given, strategies as st

from predictkit.exceptions import InvalidParameterError, JobTableError
from predictkit.jobs import (SWF_COLUMNS, as_job_table, clean_jobs, describe_cleaning,
                             empty_jobs, estimate_modes, job_width, known_time, requested_width,
                             summarize, validate_jobs, with_times)
from tracedata import TRACE_NAMES, load_trace


def small():
    return as_job_table({
        "job_id": [1, 2, 3],
        "submit_time": [0.0, 10.0, 20.0],
        "wait_time": [5.0, 0.0, np.nan],
        "run_time": [100.0, 50.0, 10.0],
        "n_procs": [4.0, 2.0, 1.0],
        "req_time": [200.0, 50.0, 100.0],
        "user_id": [1.0, 2.0, 1.0],
    })


def test_as_job_table_orders_columns_and_fixes_dtypes():
    jobs = small()
    assert tuple(jobs.columns) == SWF_COLUMNS
    assert jobs["job_id"].dtype == np.int64
    assert all(jobs[c].dtype == np.float64 for c in SWF_COLUMNS[1:])
    assert np.isnan(jobs["group_id"]).all()
    assert tuple(empty_jobs().columns) == SWF_COLUMNS


def test_as_job_table_names_a_non_numeric_column():
    with pytest.raises(JobTableError, match="'user_id' is not numeric"):
        as_job_table({"job_id": [1], "user_id": ["alice"]})


def test_validate_names_missing_columns():
    with pytest.raises(JobTableError, match="lacks required column.*req_time.*user_id"):
        validate_jobs(small().drop(columns=["req_time", "user_id"]),
                      required=("req_time", "user_id"))
    with pytest.raises(JobTableError, match="DataFrame"):
        validate_jobs(np.zeros((3, 18)))


@pytest.mark.parametrize("column, value, message", [
    ("run_time", -5.0, "'run_time' has negative values"),
    ("n_procs", 0.0, "'n_procs' has values <= 0"),
    ("wait_time", -1.0, "'wait_time' has negative values"),
])
def test_validate_reports_impossible_values_with_row_and_job(column, value, message):
    jobs = small()
    jobs.loc[1, column] = value
    with pytest.raises(JobTableError, match=message) as info:
        validate_jobs(jobs)
    assert "first at row 1, job_id 2" in str(info.value)
    validate_jobs(jobs, check_values=False)


def test_validate_required_means_complete_and_sorted_means_sorted():
    jobs = small()
    with pytest.raises(JobTableError, match="'wait_time' has missing values"):
        validate_jobs(jobs, required=("wait_time",))
    validate_jobs(jobs, present=("wait_time",))
    jobs.loc[2, "submit_time"] = 5.0
    with pytest.raises(JobTableError, match="not sorted"):
        validate_jobs(jobs, sorted_by="submit_time")


def test_times_and_known_time():
    jobs = with_times(small())
    np.testing.assert_array_equal(jobs["start_time"], [5.0, 10.0, np.nan])
    np.testing.assert_array_equal(jobs["end_time"], [105.0, 60.0, np.nan])
    np.testing.assert_array_equal(known_time(small(), "end"), [105.0, 60.0, np.nan])
    np.testing.assert_array_equal(known_time(small(), "start"), [5.0, 10.0, np.nan])


def test_known_time_assuming_no_wait_takes_a_missing_wait_as_zero():
    jobs = small()
    run = jobs["run_time"].to_numpy(dtype=float)
    with pytest.raises(JobTableError, match="no known time|unknown"):
        known_time(jobs.assign(run_time=run * 0 + 7.0), y=run * 0 + 7.0)
    assumed = known_time(jobs, y=run * 0 + 7.0, assume_no_wait=True)
    expected = jobs["submit_time"] + jobs["wait_time"].fillna(0.0) + 7.0
    np.testing.assert_array_equal(assumed, expected.to_numpy(dtype=float))


@pytest.mark.parametrize("column", ["start_time", "end_time"])
@pytest.mark.parametrize("convert, hint", [
    (lambda s: pd.to_datetime(s, unit="s"), r"datetime64\[.*\] values, not numbers of seconds "
                                            r"\(convert with \(t - t0\)"),
    (lambda s: pd.to_timedelta(s, unit="s"), r"timedelta64\[.*\] values, not numbers of seconds "
                                             r"\(convert with .dt.total_seconds\(\)\)"),
])
def test_start_and_end_times_of_dates_or_durations_are_refused_everywhere_read(column, convert,
                                                                               hint):
    # float64 would read them as micro- or nanoseconds: a history from another epoch
    jobs = with_times(small())
    jobs[column] = convert(jobs[column].fillna(0.0))
    message = rf"^job table: column '{column}' holds {hint}"
    with pytest.raises(JobTableError, match=message):
        validate_jobs(jobs, columns=(column,))
    validate_jobs(jobs)  # carried, not read: a reader of it checks it
    with pytest.raises(JobTableError, match=message):
        known_time(jobs, "end" if column == "end_time" else "start")
    if column == "start_time":  # read to compute end_time
        with pytest.raises(JobTableError, match=message):
            with_times(small().assign(start_time=jobs[column]))


def test_clean_jobs_reports_every_rule():
    jobs = small()
    jobs.loc[0, "submit_time"] = np.nan
    jobs.loc[1, "run_time"] = np.nan
    jobs.loc[1, "n_procs"] = np.nan
    out, report = clean_jobs(jobs, return_report=True)
    assert list(out["job_id"]) == [3]
    assert list(report["removed"]) == [1, 1, 0]
    assert out.attrs["cleaning"][-1]["remaining"] == 1
    out = clean_jobs(jobs, require_request=True)
    assert out.attrs["cleaning"][-1] == {"rule": "req_time unknown or not positive",
                                         "removed": 0, "remaining": 1}



def test_derived_tables_do_not_share_mutable_attrs_with_their_input():
    jobs = small()
    jobs.attrs = {"header": ["; MaxProcs: 8"], "note": ["first"], "max_procs": 8}
    for out in (clean_jobs(jobs), as_job_table(jobs), as_job_table({"job_id": [1]},
                                                                      attrs=jobs.attrs)):
        out.attrs["header"].append("; Note: added")
        out.attrs["note"].append("added")
    assert jobs.attrs == {"header": ["; MaxProcs: 8"], "note": ["first"], "max_procs": 8}

def test_clean_jobs_on_thunder_removes_its_unknown_submit_times():
    jobs = load_trace("LLNL-Thunder-2007-1.1-cln")
    out = clean_jobs(jobs)
    report = {r["rule"]: r["removed"] for r in out.attrs["cleaning"]}
    assert report["submit_time unknown"] == 1190
    assert len(out) == len(jobs) - sum(report.values())


@pytest.mark.parametrize("name", TRACE_NAMES)
def test_summary_matches_plain_pandas(name):
    jobs = load_trace(name)
    got = summarize(jobs)
    frame = jobs.copy()
    assert got["n_jobs"] == frame.shape[0]
    submit = frame["submit_time"].dropna()
    assert got["span_days"] == pytest.approx((submit.max() - submit.min()) / 86400)
    assert got["n_users"] == frame["user_id"].dropna().unique().size
    assert got["n_groups"] == frame["group_id"].dropna().unique().size
    assert got["mean_run_time"] == pytest.approx(frame["run_time"].mean())
    # a job cancelled before it ran (status 5, a wait, no runtime) has no accuracy
    never_ran = (frame["status"] == 5) & frame["wait_time"].notna() & ~(frame["run_time"] > 0)
    both = frame[(frame["req_time"] > 0) & frame["run_time"].notna() & ~never_ran]
    r = both["run_time"] / both["req_time"]
    if len(r):
        assert got["accuracy_mean"] == pytest.approx(r.clip(upper=1).mean())
        assert got["accuracy_median"] == pytest.approx(r.median())
        assert got["frac_accuracy_below_0_2"] == pytest.approx((r < 0.2).mean())
        assert got["frac_at_request"] == pytest.approx((both["run_time"] >= both["req_time"]).mean())
    else:
        assert np.isnan(got["accuracy_mean"])
    counts = frame["req_time"].dropna().value_counts().sort_values(ascending=False)
    assert got["n_estimates"] == len(counts)
    if len(counts):
        share = counts.cumsum() / counts.sum()
        assert got["modes_for_50pct"] == int((share < 0.5 - 1e-12).sum()) + 1
        assert got["modes_for_90pct"] == int((share < 0.9 - 1e-12).sum()) + 1
    header = jobs.attrs.get("max_procs")
    expected_procs = header if header is not None else frame["n_procs"].max()
    assert got["machine_procs"] == expected_procs


def test_summary_of_kth_matches_tsafrir_table1():
    # Tsafrir et al. (2005), Table 1: KTH has 28,490 jobs and K = 271 modes.
    got = summarize(load_trace("KTH-SP2-1996-2.1-cln"))
    assert got["n_estimates"] == 271
    assert got["first_submit_utc"].startswith("1996-09-30")


def test_summary_of_empty_table():
    got = summarize(empty_jobs())
    assert got["n_jobs"] == 0 and np.isnan(got["span_days"]) and got["n_estimates"] == 0


def test_estimate_modes_are_sorted_by_popularity():
    modes = estimate_modes(as_job_table({"req_time": [60, 60, 120, 60, 120, 30]}))
    assert list(modes["estimate"]) == [60, 120, 30]
    assert modes["cum_percent"].iloc[-1] == pytest.approx(100)


@pytest.mark.parametrize("column, values, message", [
    ("user_id", ["1", "bob", "carol"],
     r"job table: column 'user_id' is not numeric \(2 row\(s\) hold something else; "
     r"first at row 1, job_id 2: 'bob'\)"),
    ("run_time", [1.0, np.inf, 3.0],
     r"job table: column 'run_time' holds infinite values \(1 row\(s\); first at row 1, job_id 2\)"),
    ("req_time", [-np.inf, 1.0, 1.0], "column 'req_time' holds infinite values"),
    ("n_procs", [1.0, 1.0, 1e20],
     r"column 'n_procs' holds values of 2\*\*53 or more in magnitude, which float64 cannot hold "
     r"exactly \(1 row\(s\); first at row 2, job_id 3\)"),
    ("job_id", np.array([1, 2**62, 3], dtype=np.int64), "column 'job_id' holds values of 2\\*\\*53"),
    ("submit_time", pd.to_datetime(["2020-01-01", "2020-01-02", "2020-01-03"]),
     "column 'submit_time' holds datetime64.* values, not numbers of seconds"),
    ("req_time", np.array([1 + 1j, 2, 3]), r"column 'req_time' holds complex128 values, not "
                                           r"numbers of seconds$"),
    ("group_id", ["physics", "chemistry", "physics"],
     r"column 'group_id' is not numeric \(3 row\(s\) hold something else; first at row 0, "
     r"job_id 1: 'physics'\) \(number the names first, e.g. with pandas.factorize\)$"),
])
def test_validate_names_a_column_that_is_not_a_usable_number(column, values, message):
    jobs = small()
    jobs[column] = values
    with pytest.raises(JobTableError, match=message):
        validate_jobs(jobs, check_values=False)


def test_a_bad_row_of_a_table_without_job_id_is_named_by_its_position_alone():
    jobs = small().drop(columns="job_id")
    jobs.loc[1, "run_time"] = -5.0
    with pytest.raises(JobTableError, match=r"column 'run_time' has negative values \(1 row\(s\); "
                                            r"first at row 1\)$"):
        validate_jobs(jobs)


def test_validate_accepts_numbers_in_any_numeric_dtype():
    jobs = small()
    jobs["user_id"] = pd.array([1, None, 3], dtype="Int64")
    jobs["group_id"] = np.array([1, 2, 3], dtype=object)
    jobs["status"] = [True, False, True]
    jobs["note"] = ["text", "is", "fine outside SWF columns"]
    assert validate_jobs(jobs) is jobs


@given(st.lists(st.one_of(st.integers(-2**63, 2**63 - 1).map(float),
                          st.floats(allow_nan=True, allow_infinity=True)), min_size=1, max_size=8),
       st.sampled_from(SWF_COLUMNS[1:]))
def test_validate_raises_job_table_error_or_nothing(values, column):
    jobs = as_job_table({"job_id": range(1, len(values) + 1)})
    jobs[column] = values
    array = np.asarray(values, dtype=float)
    expected_bad = np.isinf(array) | (np.abs(array) >= 2**53)
    if expected_bad.any():
        with pytest.raises(JobTableError, match=f"first at row {int(np.argmax(expected_bad))},"):
            validate_jobs(jobs, check_values=False)
    else:
        validate_jobs(jobs, check_values=False)


def _outcome(check):
    try:
        check()
    except JobTableError as error:
        return str(error)
    return None


_BAD = {"good": None, "missing": np.nan, "negative": -5.0, "zero": 0.0, "infinite": np.inf, "fraction": 2.5,
        "text": "x"}


@given(columns=st.lists(st.sampled_from(["job_id", "submit_time", "wait_time", "run_time",
                                         "n_procs", "req_time", "user_id"]), unique=True),
       bad_column=st.sampled_from(["submit_time", "wait_time", "n_procs", "req_time", "user_id"]),
       bad=st.sampled_from(sorted(_BAD)), repeat=st.sampled_from([None, "user_id", "n_procs"]),
       check_values=st.booleans())
def test_validate_columns_checks_those_columns_as_a_copy_of_them_would_be(
        columns, bad_column, bad, repeat, check_values):
    jobs = small().astype({bad_column: object})
    if _BAD[bad] is not None:
        jobs.loc[1, bad_column] = _BAD[bad]
    if repeat is not None:
        jobs = pd.concat([jobs, jobs[[repeat]]], axis=1)
    rules = dict(required=("submit_time",), whole=("n_procs",), check_values=check_values)
    # the copy keeps job_id (unchecked unless named) to name a bad row, as the table does
    read = list(dict.fromkeys([*columns, "submit_time", "n_procs"]))
    named = jobs[read].assign(job_id=jobs["job_id"].iloc[:, 0] if repeat == "job_id"
                              else jobs["job_id"])
    expected = _outcome(lambda: validate_jobs(named, columns=read, **rules))
    assert _outcome(lambda: validate_jobs(jobs, columns=columns, **rules)) == expected
    alone = _outcome(lambda: validate_jobs(jobs[read], **rules))
    assert (expected is None) == (alone is None)
    refused = {"infinite", "text"} | ({"missing"} if bad_column == "submit_time" else set())
    if check_values:
        refused |= {"wait_time": {"negative"}, "req_time": {"negative"},
                    "n_procs": {"negative", "zero", "fraction"}}.get(bad_column, set())
    if bad_column in read and repeat not in read:
        assert (expected is not None and repr(bad_column) in expected) == (bad in refused)


@pytest.mark.parametrize("column", ["run_time", "req_time", "wait_time"])
def test_summary_refuses_negative_values_that_would_bias_a_mean(column):
    jobs = small()
    jobs.loc[[1, 2], column] = [-5.0, -7.0]
    with pytest.raises(JobTableError,
                       match=rf"summary: column '{column}' has 2 negative value\(s\) "
                             r"\(first at row 1, job_id 2\)"):
        summarize(jobs)


def test_summary_names_a_text_column():
    jobs = small()
    jobs["user_id"] = ["alice", "bob", "alice"]
    with pytest.raises(JobTableError, match=r"summary: column 'user_id' is not numeric .*'alice'"):
        summarize(jobs)


def test_summary_refuses_a_start_date_pandas_cannot_represent():
    jobs = small()
    jobs.attrs["unix_start_time"] = 2**52
    with pytest.raises(JobTableError, match="first submit time .* is not a date"):
        summarize(jobs)


def test_clean_jobs_keeps_reading_zero_width_jobs_and_reports_them():
    # LPC-EGEE: jobs that never ran have 0 processors; the reader keeps them, cleaning drops them.
    jobs = small()
    jobs.loc[0, "n_procs"] = 0.0
    out = clean_jobs(jobs)
    assert list(out["job_id"]) == [2, 3]
    assert out.attrs["cleaning"][2] == {"rule": "size unknown or not positive", "removed": 1,
                                        "remaining": 2}


def _old_simulable_jobs(jobs, need_requests):
    """The simulation filter as it was before cleaning had one home (the reference)."""
    width = jobs["n_procs"].to_numpy(dtype=float)
    if "req_procs" in jobs.columns:
        width = np.where(np.isnan(width), jobs["req_procs"].to_numpy(dtype=float), width)
    drop = (jobs["run_time"].isna() | jobs["submit_time"].isna() | (jobs["run_time"] < 0)
            | (jobs["submit_time"] < 0)).to_numpy() | ~(width > 0)
    drop |= jobs["req_time"].to_numpy(dtype=float) == 0  # a request of no time, refused since
    if need_requests:
        drop |= ~(jobs["req_time"].to_numpy(dtype=float) > 0)
    kept = jobs.loc[~drop].sort_values("submit_time", kind="stable").reset_index(drop=True)
    kept["n_procs"] = kept["n_procs"].fillna(kept["req_procs"])
    return kept


maybe = st.one_of(st.just(np.nan), st.floats(-5, 50, allow_nan=False))


@given(st.lists(st.tuples(maybe, maybe, maybe, maybe, maybe), min_size=1, max_size=30),
       st.booleans())
def test_clean_jobs_for_simulation_keeps_the_jobs_the_simulation_filter_kept(rows, requests):
    jobs = as_job_table({"submit_time": [r[0] for r in rows], "run_time": [r[1] for r in rows],
                         "n_procs": [r[2] for r in rows], "req_procs": [r[3] for r in rows],
                         "req_time": [r[4] for r in rows]})
    out = clean_jobs(jobs, for_simulation=True, require_request=requests)
    pd.testing.assert_frame_equal(out, _old_simulable_jobs(jobs, requests), check_like=False)
    report = out.attrs["cleaning"]
    assert sum(r["removed"] for r in report) == len(jobs) - len(out)
    assert [r["rule"] for r in report][3:5] == ["submit_time negative", "req_time 0"]
    assert (report[-1]["rule"] == "req_time unknown or not positive") == requests
    assert list(out["submit_time"]) == sorted(out["submit_time"])


def test_describe_cleaning_names_every_rule_that_removed_jobs():
    jobs = small()
    jobs.loc[0, "submit_time"] = -3.0
    jobs.loc[1, "n_procs"] = np.nan
    out = clean_jobs(jobs, for_simulation=True)
    assert describe_cleaning(out) == ("1 job with size unknown or not positive, "
                                      "1 job with submit_time negative")
    assert describe_cleaning(out.attrs["cleaning"]) == describe_cleaning(out)
    assert describe_cleaning(clean_jobs(small())) == ""


def test_job_width_is_the_allocation_and_requested_width_the_request():
    jobs = as_job_table({"n_procs": [4.0, np.nan, 8.0, np.nan, 2.0],
                         "req_procs": [6.0, 3.0, np.nan, np.nan, 0.0]})
    np.testing.assert_array_equal(job_width(jobs), [4.0, 3.0, 8.0, np.nan, 2.0])
    np.testing.assert_array_equal(requested_width(jobs), [6.0, 3.0, 8.0, np.nan, 2.0])
    only_requests = jobs.drop(columns=["n_procs"])
    np.testing.assert_array_equal(job_width(only_requests), [6.0, 3.0, np.nan, np.nan, 0.0])
    with pytest.raises(JobTableError, match="lacks both 'n_procs' and 'req_procs'"):
        job_width(jobs.drop(columns=["n_procs", "req_procs"]))


@pytest.mark.parametrize("target", ["foo", None, ["end"]])
def test_known_time_names_a_target_it_does_not_know(target):
    jobs = pd.DataFrame({"submit_time": [0.0], "wait_time": [1.0], "run_time": [2.0]})
    with pytest.raises(InvalidParameterError, match=r"^The 'target' parameter of known_time "
                       r"must be 'end' or 'start'\. Got .* instead\.$"):
        known_time(jobs, target)


def test_known_time_with_targets_is_the_replay_clock():
    jobs = small()
    runtimes = np.array([90.0, np.nan, 10.0])
    with pytest.raises(JobTableError, match="1 job\\(s\\) with a known target have no end_time"):
        known_time(jobs, "end", y=runtimes)
    runtimes[2] = np.nan
    np.testing.assert_array_equal(known_time(jobs, "end", y=runtimes), [95.0, np.nan, np.nan])
    with pytest.raises(JobTableError, match="lacks wait_time"):
        known_time(jobs.drop(columns=["wait_time"]), "start")


def test_peak_busy_procs_frees_before_it_takes_at_one_instant():
    from predictkit._summary import peak_busy_procs

    jobs = pd.DataFrame({"submit_time": [0.0, 0.0, 50.0, 60.0, 70.0],
                         "wait_time": [0.0, 100.0, 10.0, np.nan, 0.0],
                         "run_time": [100.0, 10.0, 100.0, 500.0, 10.0],
                         "n_procs": [4.0, 8.0, 2.0, 64.0, 1.0], "req_time": np.nan})
    # job 0 ends at 100 when job 1 starts; job 2 (60-160) overlaps both; job 3 has no wait
    assert peak_busy_procs(jobs) == (10.0, 100.0)
    assert summarize(jobs)["peak_busy_procs"] == 10.0
    assert np.isnan(peak_busy_procs(jobs.drop(columns="wait_time"))[0])
    # a job of a sacct log still running holds its width from its start to the log's
    # last event; a job of unknown runtime otherwise, or pending, holds nothing
    states = ["COMPLETED", "COMPLETED", "COMPLETED", "RUNNING", "COMPLETED"]
    sacct = jobs.assign(wait_time=[0.0, 100.0, 10.0, 5.0, 0.0],
                        run_time=[100.0, 10.0, 100.0, np.nan, 10.0], slurm_state=states)
    assert peak_busy_procs(sacct) == (74.0, 100.0)
    for other in ("PENDING", "FAILED", "", "running (resized)"):
        changed = sacct.assign(slurm_state=states[:3] + [other, "COMPLETED"])
        if other == "PENDING":
            changed.loc[3, "wait_time"] = np.nan
        holds = other.startswith("running")
        assert peak_busy_procs(changed) == ((74.0, 100.0) if holds else (10.0, 100.0))


def test_the_machine_assumed_and_a_log_busier_than_it():
    from predictkit._summary import busier_than_machine, machine_size

    # two 8-wide jobs overlap: 16 processors busy at once
    jobs = pd.DataFrame({"job_id": [1, 2], "submit_time": [0.0, 10.0], "wait_time": [0.0, 0.0],
                         "run_time": [100.0, 100.0], "n_procs": [np.nan, 8.0],
                         "req_procs": [8.0, 8.0], "req_time": [200.0, 200.0]})
    jobs.attrs["max_procs"] = float("nan")  # an unknown size is no size
    # the widest job, by req_procs where n_procs is unknown
    assert machine_size(jobs) == (8.0, False)
    assert machine_size(jobs, 12) == (12.0, True)
    assert busier_than_machine(jobs, option="-P").startswith(
        "the log keeps up to 16 processors busy at once, more than the 8 processors of its "
        "widest job")
    assert busier_than_machine(jobs, option="-P").endswith("give its size (-P)")
    assert "(as given)" in busier_than_machine(jobs, 12)
    jobs.attrs["max_procs"] = 10
    assert machine_size(jobs) == (10.0, True)
    assert "(from the log's header or as given)" in busier_than_machine(jobs)
    assert busier_than_machine(jobs, 16) is None


def test_describe_cleaning_reads_each_form_of_the_report_and_refuses_others():
    jobs = small()
    jobs.loc[0, "submit_time"] = np.nan
    cleaned, report = clean_jobs(jobs, return_report=True)
    expected = "1 job with submit_time unknown"
    assert describe_cleaning(cleaned) == expected
    assert describe_cleaning(report) == expected
    assert describe_cleaning(cleaned.attrs["cleaning"]) == expected
    for wrong in (None, "report", [1, 2]):
        with pytest.raises(InvalidParameterError, match=r"^The 'jobs' parameter of "
                                                        r"describe_cleaning must be a table"):
            describe_cleaning(wrong)


@pytest.mark.parametrize("flag", ["require_request", "for_simulation", "return_report"])
def test_clean_jobs_flags_are_true_or_false(flag):
    with pytest.raises(InvalidParameterError, match=rf"'{flag}' parameter of clean_jobs"):
        clean_jobs(small(), **{flag: "no"})


def test_known_time_reads_its_columns_through_the_one_check():
    jobs = small()
    durations = jobs.assign(wait_time=pd.to_timedelta(jobs["wait_time"], unit="s"))
    with pytest.raises(JobTableError, match=r"^job table: column 'wait_time' holds timedelta64"
                                            r".* values, not numbers of seconds \(convert with "
                                            r"\.dt\.total_seconds\(\)\)"):
        known_time(durations, "end")
    with pytest.raises(JobTableError, match=r"column 'wait_time' is not numeric \(1 row\(s\) "
                                            r"hold something else; first at row 1, job_id 2"):
        known_time(jobs.astype({"wait_time": object}).assign(wait_time=[5.0, "n/a", 1.0]))
    with pytest.raises(JobTableError, match=r"^known_time needs a job table \(DataFrame\) with "
                                            r"submit_time$"):
        known_time(jobs.drop(columns="submit_time"))
    with pytest.raises(JobTableError, match=r"^known_time: y must have one value per job \(3\)"):
        known_time(jobs, "end", y=[1.0, 2.0])
    with pytest.raises(JobTableError, match=r"^known_time: y is a Series whose index differs"):
        known_time(jobs, "end", y=pd.Series([100.0, 50.0, 10.0]).iloc[::-1])
    with pytest.raises(JobTableError, match=r"^job table lacks run_time, needed for end_time"):
        known_time(jobs.drop(columns="run_time"), "end")


@pytest.mark.parametrize("column, values", [
    ("run_time", pd.to_timedelta([5, 6, 7], unit="s")),
    ("submit_time", pd.to_datetime([0, 1, 2], unit="s")),
])
def test_as_job_table_refuses_dates_and_durations_rather_than_counting_microseconds(column,
                                                                                   values):
    with pytest.raises(JobTableError, match=rf"^job table: column '{column}' holds "
                                            r"(datetime|timedelta)64"):
        as_job_table({"submit_time": [0.0, 1.0, 2.0], column: values})


def test_job_width_names_a_width_that_is_no_number():
    jobs = small().astype({"n_procs": object})
    jobs.loc[1, "n_procs"] = "many"
    with pytest.raises(JobTableError, match=r"column 'n_procs' is not numeric .*first at row 1, "
                                            r"job_id 2: 'many'"):
        job_width(jobs)


def test_as_job_table_refuses_a_column_named_twice():
    frame = pd.DataFrame([[0.0, 1.0, 2.0]], columns=["submit_time", "site", "site"])
    with pytest.raises(JobTableError, match=r"^job table has column 'site' 2 times"):
        as_job_table(frame)


def test_one_column_name_alone_is_one_column():
    jobs = small()
    assert validate_jobs(jobs, required="submit_time", present="run_time") is jobs
    with pytest.raises(JobTableError, match=r"lacks required column\(s\) queue_time \("):
        validate_jobs(jobs, required="queue_time")


def test_numbers_held_as_objects_or_text_come_out_of_cleaning_as_numbers():
    from predictkit.jobs import summarize

    jobs = pd.DataFrame({"job_id": [1, 2, 3], "submit_time": [0, 10, 20],
                         "run_time": ["100", "50", "20"], "n_procs": [4, 2, 1],
                         "req_time": pd.Series([200.0, pd.NA, "30"], dtype=object)})
    before = jobs.copy()
    kept = clean_jobs(jobs, for_simulation=True, require_request=True)
    assert kept["run_time"].dtype == kept["req_time"].dtype == np.float64
    assert kept["run_time"].tolist() == [100.0, 20.0] and kept["req_time"].tolist() == [200.0, 30.0]
    assert describe_cleaning(kept) == "1 job with req_time unknown or not positive"
    assert summarize(jobs)["n_jobs"] == 3
    pd.testing.assert_frame_equal(jobs, before)  # the caller's table is left as it was


def test_an_array_without_column_names_is_no_job_table():
    with pytest.raises(JobTableError, match="got ndarray .*name the columns"):
        as_job_table(np.array([[77, 0, 5], [99, 10, 3]]))


def test_rows_where_keeps_the_index_and_copies_the_attrs():
    from predictkit._table import rows_where

    jobs = pd.DataFrame({"submit_time": [0.0, 1.0, 2.0]}, index=[5, 6, 7])
    jobs.attrs = {"header": ["; MaxProcs: 8"]}
    kept = rows_where(jobs, np.array([True, False, True]))
    assert list(kept.index) == [5, 7] and kept.attrs == jobs.attrs
    kept.attrs["header"].append("; changed")
    assert jobs.attrs["header"] == ["; MaxProcs: 8"]
    assert rows_where(jobs, np.ones(3, dtype=bool)) is jobs
