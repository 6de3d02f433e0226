"""Batsim JSON workloads: read back, schema, byte stability and clean errors."""

import io
import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from predictkit.datasets import make_workload
from predictkit.exceptions import ConfigError, JobTableError, OutputError, SWFFormatError
from predictkit.io import read_batsim, write_batsim
from predictkit.jobs import as_job_table, clean_jobs
from tracedata import TRACE_NAMES, load_trace

SCHEMA = json.loads((Path(__file__).with_name("batsim_workload.schema.json")).read_text())

_TYPES = {"object": dict, "array": list, "string": str, "number": (int, float),
          "integer": int}


def check_schema(value, schema, where="$"):
    """The subset of JSON Schema the Batsim schema uses (type, required, properties,
    additionalProperties, items, minimum, exclusiveMinimum, maximum, enum, const,
    anyOf); raises AssertionError naming the place."""
    if "anyOf" in schema:
        failures = []
        for option in schema["anyOf"]:
            try:
                check_schema(value, option, where)
                break
            except AssertionError as exc:
                failures.append(str(exc))
        else:
            raise AssertionError(f"{where}: matches no option: {'; '.join(failures)}")
    if "const" in schema:
        assert value == schema["const"] and not isinstance(value, bool), \
            f"{where}: {value!r} != {schema['const']!r}"
    if "enum" in schema:
        assert value in schema["enum"], f"{where}: {value!r} not in {schema['enum']}"
    if "type" in schema:
        names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        ok = any(isinstance(value, _TYPES[n]) and not isinstance(value, bool) for n in names)
        assert ok, f"{where}: {value!r} is not of type {names}"
    if "minimum" in schema:
        assert value >= schema["minimum"], f"{where}: {value!r} < {schema['minimum']}"
    if "exclusiveMinimum" in schema:
        assert value > schema["exclusiveMinimum"], \
            f"{where}: {value!r} <= {schema['exclusiveMinimum']}"
    if "maximum" in schema:
        assert value <= schema["maximum"], f"{where}: {value!r} > {schema['maximum']}"
    if isinstance(value, dict):
        for key in schema.get("required", []):
            assert key in value, f"{where}: missing {key!r}"
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for key, item in value.items():
            if key in props:
                check_schema(item, props[key], f"{where}.{key}")
            elif extra is False:
                raise AssertionError(f"{where}: unexpected member {key!r}")
            elif isinstance(extra, dict):
                check_schema(item, extra, f"{where}.{key}")
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            check_schema(item, schema["items"], f"{where}[{i}]")


def test_the_schema_checker_rejects_what_batsim_rejects():
    good = {"nb_res": 4, "jobs": [{"id": 1, "subtime": 0, "walltime": 10, "res": 2,
                                   "profile": "p"}],
            "profiles": {"p": {"type": "delay", "delay": 5}}}
    check_schema(good, SCHEMA)
    for broken in ({**good, "nb_res": 0}, {k: v for k, v in good.items() if k != "jobs"},
                   {**good, "profiles": {"p": {"type": "parallel", "delay": 5}}},
                   {**good, "jobs": [{"id": 1, "subtime": 0, "res": 2.5, "profile": "p"}]},
                   {**good, "profiles": {"p": {"type": "delay", "delay": 0}}},
                   {**good, "jobs": [{**good["jobs"][0], "walltime": 0}]},
                   {**good, "jobs": [{**good["jobs"][0], "id": 2 ** 31}]}):
        with pytest.raises(AssertionError):
            check_schema(broken, SCHEMA)


def test_a_synthetic_workload_follows_the_schema_and_reads_back(tmp_path):
    jobs = make_workload(2000, machine_procs=256, random_state=0)
    path = write_batsim(jobs, tmp_path / "w.json")
    data = json.loads(path.read_text())
    check_schema(data, SCHEMA)
    assert data["nb_res"] == 256
    assert {job["profile"] for job in data["jobs"]} <= set(data["profiles"])
    back = read_batsim(path)
    for column in ("job_id", "submit_time", "run_time", "n_procs", "req_time"):
        np.testing.assert_array_equal(back[column].to_numpy(), jobs[column].to_numpy())
    assert back.attrs["max_procs"] == 256


def test_equal_tables_give_equal_bytes_and_unknown_requests_become_minus_one(tmp_path):
    jobs = make_workload(300, random_state=3)
    jobs.loc[5, "req_time"] = np.nan
    a = write_batsim(jobs, tmp_path / "a.json").read_bytes()
    b = write_batsim(jobs.copy(), tmp_path / "b.json").read_bytes()
    assert a == b
    assert json.loads(a)["jobs"][5]["walltime"] == -1
    assert np.isnan(read_batsim(tmp_path / "a.json")["req_time"].iloc[5])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10**7), st.floats(0, 1e6, allow_nan=False,
                                                        exclude_min=True),
                          st.integers(1, 64), st.one_of(st.none(), st.integers(1, 10**6))),
                min_size=1, max_size=30))
def test_any_valid_table_reads_back(tmp_path_factory, rows):
    frame = as_job_table({
        "submit_time": sorted(r[0] for r in rows), "run_time": [r[1] for r in rows],
        "n_procs": [r[2] for r in rows],
        "req_time": [np.nan if r[3] is None else r[3] for r in rows]}, attrs={"max_procs": 64})
    past = int((frame["run_time"] > frame["req_time"]).sum())
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        path = write_batsim(frame, tmp_path_factory.mktemp("b") / "w.json")
    assert len(said) == (past > 0)
    check_schema(json.loads(path.read_text()), SCHEMA)
    back = read_batsim(path)
    for column in ("submit_time", "run_time", "n_procs", "req_time"):
        np.testing.assert_array_equal(back[column].to_numpy(), frame[column].to_numpy())


@pytest.mark.parametrize(("change", "message"), [
    ({"run_time": np.nan}, r"'run_time' has missing values.*job_id 3"),
    ({"n_procs": 500.0}, r"'n_procs' exceeds the machine's 128 resources.*job_id 3"),
    ({"n_procs": 2.5}, r"'n_procs' must be a whole number"),
    ({"submit_time": -5.0}, r"'submit_time' must be known, finite and >= 0"),
    ({"req_time": np.inf}, r"'req_time' holds infinite values"),
])
def test_bad_values_are_one_clear_error_and_nothing_is_written(tmp_path, change, message):
    jobs = make_workload(10, random_state=0)
    for column, value in change.items():
        jobs[column] = jobs[column].astype(float)
        jobs.loc[2, column] = value
    target = tmp_path / "w.json"
    target.write_text("old")
    with pytest.raises(JobTableError, match=message):
        write_batsim(jobs, target)
    assert target.read_text() == "old"


def test_a_table_without_widths_is_refused(tmp_path):
    jobs = pd.DataFrame({"job_id": [1.0], "submit_time": [0.0], "run_time": [1.0]})
    with pytest.raises(JobTableError, match="neither n_procs nor req_procs"):
        write_batsim(jobs, tmp_path / "w.json")


def test_a_folder_as_output_is_an_output_error(tmp_path):
    with pytest.raises(OutputError):
        write_batsim(make_workload(10, random_state=0), tmp_path)


JOB = ('{{"nb_res": 2, "jobs": [{{"id": 1, "subtime": {subtime}, "walltime": 60, "res": 1, '
       '"profile": "d"}}], "profiles": {{"d": {{"type": "delay", "delay": 30}}}}}}')


def _job(old, new):
    """The one-job workload with ``old`` replaced by ``new``."""
    return JOB.format(subtime="0").replace(old, new)


@pytest.mark.parametrize(("text", "message"), [
    ("{not json", r"not JSON"),
    ('{"jobs": []}', r"needs the members nb_res, jobs and profiles"),
    ('{"nb_res": 2, "jobs": [{"id": 1, "subtime": 0, "res": 1, "profile": "x"}], '
     '"profiles": {}}', r"profile 'x' is not among the file's profiles"),
    (_job('"type": "delay", "delay": 30', '"type": "parallel_homogeneous", "cpu": 1'),
     r"job 0 \(id 1\): profile 'd' is of type 'parallel_homogeneous'; only delay profiles"),
    (_job('"type": "delay", "delay": 30', '"type": "delay"'),
     r"job 0 \(id 1\): profile 'd' is a delay profile without its delay$"),
    ('{"nb_res": 2, "nb_res": 4, "jobs": [], "profiles": {}}',
     r"the member 'nb_res' is given twice in one object"),
    (_job('"res": 1', '"res": 1, "res": 2'), r"the member 'res' is given twice"),
    ('{"nb_res": 2, "jobs": [{"id": 1, "res": 1, "profile": "x"}], "profiles": {}}',
     r"job 0 lacks subtime"),
    ('{"nb_res": 2, "jobs": {"id": 1}, "profiles": {}}', r"jobs must be a list"),
    ('{"nb_res": 2, "jobs": [7], "profiles": {}}', r"job 0 is not an object"),
    ('{"nb_res": "two", "jobs": [], "profiles": {}}', r"nb_res 'two' is not a number"),
    ('{"nb_res": 0, "jobs": [], "profiles": {}}', r"nb_res 0.0 must be a whole number >= 1"),
    (JOB.format(subtime='"soon"'), r"job 0 \(id 1\): subtime 'soon' is not a number"),
    (JOB.format(subtime="NaN"), r"job 0 \(id 1\): subtime nan must be a finite number"),
    (JOB.format(subtime="-5"), r"job 0 \(id 1\): subtime -5.0 must be a finite number >= 0"),
    (_job('"res": 1', '"res": 1.5'),
     r"job 0 \(id 1\): res 1.5 must be a whole number >= 1"),
    (_job('"walltime": 60', '"walltime": -7'),
     r"job 0 \(id 1\): walltime -7.0 must be a finite number > 0 or -1 \(unknown\)"),
    (_job('"delay": 30', '"delay": Infinity'),
     r"job 0 \(id 1\): delay of profile 'd' inf must be a finite number"),
    (_job('"delay": 30', '"delay": 0'),
     r"job 0 \(id 1\): delay of profile 'd' 0.0 must be a finite number > 0"),
    (_job('"walltime": 60', '"walltime": 0'),
     r"job 0 \(id 1\): walltime 0.0 must be a finite number > 0 or -1"),
    (_job('"res": 1', '"res": 3'),
     r"job 0 \(id 1\): res 3 exceeds the machine's nb_res 2"),
    (_job('"res": 1', '"res": 1.0'),
     r"job 0 \(id 1\): res 1.0 must be an integer from 1 to 2\*\*31 - 1 \(Batsim reads it"),
    (_job('"nb_res": 2', '"nb_res": 2.0'), r"nb_res 2.0 must be an integer from 1 to 2\*\*31"),
    (_job('"nb_res": 2', f'"nb_res": {2 ** 31}'), r"nb_res 2147483648 must be an integer"),
    (_job('"id": 1', f'"id": {2 ** 63}'),
     r"id 9223372036854775808 is too large for a job table"),
    (_job('"id": 1', f'"id": {2 ** 53 + 1}'),
     r"id 9007199254740993 is too large for a job table"),
    ("[" * 100_000 + "]" * 100_000, r"nested too deeply"),
])
def test_reading_a_broken_file_names_it(tmp_path, text, message):
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(SWFFormatError, match=message) as info:
        read_batsim(path)
    assert str(path) in str(info.value)


def test_a_gz_name_is_gzip_and_reads_back(tmp_path):
    import gzip

    jobs = make_workload(200, machine_procs=16, random_state=3)
    plain, packed = tmp_path / "w.json", tmp_path / "w.json.gz"
    write_batsim(jobs, plain)
    write_batsim(jobs, packed)
    assert packed.read_bytes()[:2] == b"\x1f\x8b"
    assert gzip.decompress(packed.read_bytes()) == plain.read_bytes()
    pd.testing.assert_frame_equal(read_batsim(packed), read_batsim(plain))
    with open(plain, "rb") as stream:
        pd.testing.assert_frame_equal(read_batsim(stream), read_batsim(plain), check_like=True)


def test_a_repeated_job_id_is_refused_naming_it_and_its_rows(tmp_path):
    jobs = make_workload(10, random_state=0)
    jobs["job_id"] = [1, 2, 3, 3, 4, 2, 5, 6, 7, 2]
    target = tmp_path / "w.json"
    with pytest.raises(JobTableError, match=r"^cannot write Batsim JSON: job_id 2 is given to 3 "
                                            r"jobs \(rows 1, 5, 9\); Batsim needs a unique id"):
        write_batsim(jobs, target)
    assert not target.exists()


@pytest.mark.parametrize("machine_procs", [0, -4, "100", 12.5, True])
def test_a_machine_size_that_is_not_a_whole_number_of_at_least_one_is_refused(tmp_path,
                                                                              machine_procs):
    target = tmp_path / "w.json"
    with pytest.raises(ConfigError, match=r"'machine_procs' parameter of write_batsim must be a "
                                          r"whole number in the range \[1, "):
        write_batsim(make_workload(10, random_state=0), target, machine_procs=machine_procs)
    assert not target.exists()


@pytest.mark.parametrize("max_procs", [0, "abc"])
def test_a_header_machine_size_that_is_not_a_whole_number_is_refused(tmp_path, max_procs):
    jobs = make_workload(10, random_state=0)
    jobs.attrs["max_procs"] = max_procs
    with pytest.raises(JobTableError, match=r"attrs\['max_procs'\] = .* is not a whole number"):
        write_batsim(jobs, tmp_path / "w.json")
    json.loads(write_batsim(jobs, tmp_path / "w.json", machine_procs=128).read_text())


@pytest.mark.parametrize(("job_id", "expected"), [("42", 42), ("0", 0)])
def test_a_text_id_of_digits_is_read_as_that_number(tmp_path, job_id, expected):
    path = tmp_path / "w.json"
    path.write_text(JOB.format(subtime=0).replace('"id": 1', f'"id": "{job_id}"'))
    assert read_batsim(path)["job_id"].tolist() == [expected]


@pytest.mark.parametrize("job_id", ["job-1", "007", "1.5", " 1"])
def test_a_text_id_that_is_no_job_number_says_what_is_expected(tmp_path, job_id):
    path = tmp_path / "w.json"
    path.write_text(JOB.format(subtime=0).replace('"id": 1', f'"id": "{job_id}"'))
    with pytest.raises(SWFFormatError, match=r"id .* is not a job number: Batsim allows any "
                                             r"text as id, but a job table needs a whole number"):
        read_batsim(path)


def test_reading_two_jobs_with_the_same_id_is_an_error(tmp_path):
    job = '{"id": ID, "subtime": 0, "res": 1, "profile": "d"}'
    path = tmp_path / "w.json"
    path.write_text('{"nb_res": 2, "jobs": [%s, %s], "profiles": {"d": {"type": "delay", '
                    '"delay": 30}}}' % (job.replace("ID", "7"), job.replace("ID", '"7"')))
    with pytest.raises(SWFFormatError, match="jobs 0 and 1 have the same id 7"):
        read_batsim(path)


def test_a_zero_runtime_is_refused_unless_a_minimum_delay_is_given(tmp_path):
    jobs = make_workload(20, random_state=0)
    jobs["run_time"] = jobs["run_time"].astype(float)
    jobs.loc[[3, 7], "run_time"] = 0.0
    target = tmp_path / "w.json"
    with pytest.raises(JobTableError, match=r"'run_time' is 0, and Batsim refuses a delay of 0: "
                       r"pass min_delay.*\(2 row\(s\); first at row 3, job_id 4"):
        write_batsim(jobs, target)
    assert not target.exists()
    data = json.loads(write_batsim(jobs, target, min_delay=1).read_text())
    check_schema(data, SCHEMA)
    assert [data["jobs"][i]["profile"] for i in (3, 7)] == ["delay_1", "delay_1"]
    assert data["profiles"]["delay_1"] == {"type": "delay", "delay": 1}
    back = read_batsim(target)
    assert back["run_time"].iloc[[3, 7]].tolist() == [1.0, 1.0]
    np.testing.assert_array_equal(back["run_time"].drop(index=[3, 7]),
                                  np.maximum(jobs["run_time"].drop(index=[3, 7]), 1.0))
    with pytest.raises(ConfigError, match="min_delay"):
        write_batsim(jobs, target, min_delay=0)
    # a minimum delay above a raised job's request would have Batsim kill it: refused
    before = target.read_bytes()
    with pytest.raises(JobTableError, match=r"'req_time' is below min_delay 1000000000, which "
                       r"would make Batsim kill the job before its delay.*\(20 row\(s\); first "
                       r"at row 0, job_id 1"):
        write_batsim(jobs, target, min_delay=1e9)
    assert target.read_bytes() == before
    # raised to its request, a job ends at its delay (Batsim counts it killed, as one that
    # ran to its request): written, and no warning
    jobs.loc[3, "req_time"] = 5.0
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        data = json.loads(write_batsim(jobs, target, min_delay=5).read_text())
    assert data["jobs"][3]["walltime"] == 5 and data["profiles"]["delay_5"]["delay"] == 5


def test_a_job_that_ran_past_its_request_is_written_as_it_ran_and_warned_about(tmp_path):
    jobs = make_workload(20, random_state=0)
    jobs["run_time"] = jobs["run_time"].astype(float)
    jobs.loc[[4, 9], "run_time"] = jobs.loc[[4, 9], "req_time"] + 600
    with pytest.warns(UserWarning, match=r"^2 job\(s\) ran longer than their request \(first "
                      r"at row 4, job_id 5\): their delay exceeds their walltime, so Batsim "
                      "kills them at the walltime$"):
        write_batsim(jobs, tmp_path / "w.json")
    back = read_batsim(tmp_path / "w.json")
    np.testing.assert_array_equal(back["run_time"], jobs["run_time"])


def test_an_empty_workload_is_refused_on_reading(tmp_path):
    path = tmp_path / "w.json"
    path.write_text('{"nb_res": 4, "jobs": [], "profiles": {}}')
    with pytest.raises(SWFFormatError, match="no jobs: the workload's jobs list is empty"):
        read_batsim(path)


def test_a_request_of_zero_is_refused_and_unknown_is_minus_one(tmp_path):
    jobs = make_workload(20, random_state=0)
    jobs["req_time"] = jobs["req_time"].astype(float)
    jobs.loc[5, "req_time"] = 0.0
    with pytest.raises(JobTableError, match=r"'req_time' must be finite and > 0 \(Batsim "
                       r"refuses a walltime of 0 or less\), or unknown.*job_id 6"):
        write_batsim(jobs, tmp_path / "w.json")


def test_ids_beyond_32_bits_are_written_as_text_and_read_back(tmp_path):
    jobs = make_workload(5, random_state=0)
    jobs["job_id"] = [1, 2**31 - 1, 2**31, 2**40, 2**53 - 1]
    data = json.loads(write_batsim(jobs, tmp_path / "w.json").read_text())
    check_schema(data, SCHEMA)
    assert [job["id"] for job in data["jobs"]] == [1, 2**31 - 1, str(2**31), str(2**40),
                                                   str(2**53 - 1)]
    assert read_batsim(tmp_path / "w.json")["job_id"].tolist() == jobs["job_id"].tolist()


def test_a_log_with_several_notes_gets_one_text_description(tmp_path):
    jobs = make_workload(5, random_state=0)
    jobs.attrs["note"] = ["first note", "second note"]
    data = json.loads(write_batsim(jobs, tmp_path / "w.json").read_text())
    assert data["description"] == "first note\nsecond note"


@pytest.mark.parametrize("name", TRACE_NAMES)
def test_every_archive_log_writes_a_workload_batsim_accepts(tmp_path, name):
    jobs = clean_jobs(load_trace(name, 20_000), for_simulation=True)
    zero = int((jobs["run_time"] == 0).sum())
    target = tmp_path / "w.json"
    if zero:
        with pytest.raises(JobTableError, match=rf"'run_time' is 0.*\({zero} row\(s\)"):
            write_batsim(jobs, target)
    past = int((jobs["run_time"] > jobs["req_time"]).sum())
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        data = json.loads(write_batsim(jobs, target, min_delay=1).read_text())
    assert [str(w.message).split(" job(s)")[0] for w in said] == ([f"{past:,}"] if past else [])
    check_schema(data, SCHEMA)
    assert len(data["jobs"]) == len(jobs)
    back = read_batsim(target)
    np.testing.assert_array_equal(back["run_time"], np.maximum(jobs["run_time"], 1.0))


@pytest.mark.parametrize(("job", "nb_res", "message"), [
    ('"id": 1e19', "8", r"id 1e\+19 is too large for a job table"),
    ('"id": 9007199254740993.0', "8", r"id 9007199254740992.0 is too large"),
    ('"id": "42\\n"', "8", r"is not a job number"),
    ('"subtime": 9007199254740993', "8", r"subtime 9007199254740993 is too large"),
    ('"subtime": ' + "9" * 400, "8", r"subtime 9{20}\.\.\. is too large"),
    ("", "1" * 5000, r"^<buffer>: not a Batsim workload \(Exceeds the limit"),
])
def test_numbers_a_job_table_cannot_hold_exactly_are_refused(job, nb_res, message):
    fields = {"id": "1", "subtime": "0"}
    if job:
        name, value = job.split(": ", 1)
        fields[name.strip('"')] = value
    text = ('{"nb_res": %s, "jobs": [{"id": %s, "subtime": %s, "res": 1, "walltime": 100, '
            '"profile": "p"}], "profiles": {"p": {"type": "delay", "delay": 10}}}'
            % (nb_res, fields["id"], fields["subtime"]))
    with pytest.raises(SWFFormatError, match=message) as info:
        read_batsim(io.BytesIO(text.encode()))
    assert "\n" not in str(info.value)


def test_a_table_batsim_would_refuse_is_refused_before_writing(tmp_path):
    jobs = make_workload(20, random_state=0)
    target = tmp_path / "w.json"
    with pytest.raises(JobTableError, match=r"column 'job_id' must be a whole number \(Batsim's "
                                            r"ids are\) \(20 row\(s\); first at row 0"):
        write_batsim(jobs.assign(job_id=jobs["job_id"] + 0.5), target)
    with pytest.raises(ConfigError, match=r"'description' parameter of write_batsim must be"):
        write_batsim(jobs, target, description=np.nan)
    assert not target.exists()
    # a column it never writes may hold anything
    dated = jobs.assign(start_time=pd.to_datetime(jobs["submit_time"], unit="s"))
    write_batsim(dated, target)
    assert len(read_batsim(target)) == 20


def test_a_table_without_jobs_is_refused_as_read_batsim_would_refuse_it(tmp_path):
    from predictkit.datasets import make_workload

    with pytest.raises(JobTableError, match=r"^cannot write Batsim JSON: the job table has no "
                                            r"jobs"):
        write_batsim(make_workload(5, random_state=0).iloc[:0], tmp_path / "e.json")
    assert not (tmp_path / "e.json").exists()


def test_a_machine_batsim_cannot_read_is_refused_on_writing(tmp_path):
    from predictkit.exceptions import InvalidParameterError

    jobs = make_workload(20, machine_procs=8, random_state=0)
    with pytest.raises(InvalidParameterError, match=r"range \[1, 2147483647\]"):
        write_batsim(jobs, tmp_path / "big.json", machine_procs=2**31)
    assert not (tmp_path / "big.json").exists()
    jobs.attrs["max_procs"] = 2**31  # the header's size is held to the same bound
    with pytest.raises(JobTableError, match=r"attrs\['max_procs'\] = 2147483648 is not "
                       r"a whole number from 1 to 2\*\*31 - 1 \(Batsim reads nb_res as a 32-bit"):
        write_batsim(jobs, tmp_path / "big.json")
    del jobs.attrs["max_procs"]  # nor is a job that wide, when the machine is the widest job
    jobs["n_procs"] = jobs["n_procs"].astype(float)
    jobs.loc[4, "n_procs"] = 2.0**31
    with pytest.raises(JobTableError, match=r"'n_procs' is 2\*\*31 or more.*first at row 4, "
                       r"job_id 5: 2147483648\)"):
        write_batsim(jobs, tmp_path / "big.json")
    assert not (tmp_path / "big.json").exists()
    jobs.loc[4, "n_procs"] = 2.0**31 - 1
    write_batsim(jobs, tmp_path / "edge.json")
    assert read_batsim(tmp_path / "edge.json").attrs["max_procs"] == 2**31 - 1
