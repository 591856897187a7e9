"""Counting on a real Slurm (the ``slurm`` fixture below: munged, slurmctld and slurmd on this machine):
``hf-bpe count --executor slurm`` waits for its jobs and leaves the same counts directory as datatrove's local
executor, which trains as ``tokenizers`` does; with ``wait=false`` it says what it submitted and what to run next;
every file of a run stays under the output (none in the submitting machine's temporary directory); a failed
task, a missing partition and a missing sbatch are named in one line.

Every test on the cluster is marked slow: the first installs Slurm if need be and starts its daemons (some 15 s
each then, most of it Python starting in each job).
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from tokenizers import pre_tokenizers

import hf_bpe.counting.counting
from hf_bpe.counting.counts_dir import iter_counts
from hf_bpe.counting.datatrove import count_with_datatrove
from hf_bpe.models.bpe.training import train_from_counts
from hf_bpe.reference.trainers import bpe_tokenizer, bpe_trainer

REPO = Path(__file__).resolve().parents[2]
#: The environment of the local executor's runs, for comparison.
LOCAL = {**os.environ, "PYTHONPATH": str(REPO)}

# The cluster: munged, slurmctld and slurmd of Debian's slurm-wlm, each with its own configuration, key, sockets,
# ports and state in a temporary directory (nothing of the machine's own /etc/slurm or /etc/munge is used or
# changed; the client commands find this cluster through SLURM_CONF). scripts/install_slurm.sh installs Slurm
# where it is missing (Debian's apt, as root), as on CI's fresh machines.

#: The node's name in slurm.conf; slurmd is told it with -N, so it need not be the machine's host name.
NODE = "hfbpe"
PARTITION = "debug"
DAEMONS = ("munged", "slurmctld", "slurmd")


@dataclass(frozen=True)
class Slurm:
    """A running cluster: its slurm.conf (export it as SLURM_CONF) and its partition."""

    conf: Path
    partition: str
    directory: Path

    @property
    def environment(self) -> dict[str, str]:
        """This process's environment with the cluster's slurm.conf, for the client commands (sbatch, squeue)."""
        return {**os.environ, "SLURM_CONF": str(self.conf)}


def _die_with_parent() -> None:
    """In a daemon about to start: be sent SIGTERM when the test process dies, even killed, so none outlives it."""
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def _free_ports(count: int) -> list[int]:
    sockets = [socket.socket() for _ in range(count)]
    try:
        for each in sockets:
            each.bind(("127.0.0.1", 0))
        return [each.getsockname()[1] for each in sockets]
    finally:
        for each in sockets:
            each.close()


#: Where Debian puts the daemons, should PATH lack the sbin directories.
SEARCH_PATH = os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/sbin", "/usr/bin"])


def _program(name: str) -> str:
    found = shutil.which(name, path=SEARCH_PATH)
    assert found, f"{name} is not installed, though scripts/install_slurm.sh ran"
    return found


def _ensure_installed() -> None:
    if all(shutil.which(name, path=SEARCH_PATH) for name in ("slurmctld", "slurmd", "sbatch", "squeue", "munged")):
        return
    done = subprocess.run(["bash", str(REPO / "scripts" / "install_slurm.sh")], capture_output=True, text=True)
    assert done.returncode == 0, f"scripts/install_slurm.sh failed:\n{done.stderr}"


def _slurm_conf(directory: Path, munge_socket: Path) -> str:
    controller_port, node_port = _free_ports(2)
    cpus = len(os.sched_getaffinity(0))
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**20
    host = socket.gethostname().split(".")[0]  # slurmctld runs only where SlurmctldHost names this machine
    return f"""\
ClusterName=hfbpe-test
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={controller_port}
SlurmdPort={node_port}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={munge_socket}
StateSaveLocation={directory / "state"}
SlurmdSpoolDir={directory / "spool" / "%n"}
SlurmctldPidFile={directory / "slurmctld.pid"}
SlurmdPidFile={directory / "slurmd.pid"}
SlurmctldLogFile={directory / "slurmctld.log"}
SlurmdLogFile={directory / "slurmd.log"}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
SlurmctldTimeout=30
SlurmdTimeout=30
MinJobAge=300
NodeName={NODE} NodeAddr=127.0.0.1 NodeHostname={host} CPUs={cpus} RealMemory={memory} State=UNKNOWN
PartitionName={PARTITION} Nodes={NODE} Default=YES MaxTime=INFINITE State=UP
"""


def _wait_for_idle_node(environment: dict[str, str], directory: Path, processes: dict[str, subprocess.Popen]) -> None:
    deadline = time.monotonic() + 60
    state = ""
    while time.monotonic() < deadline:
        for name, process in processes.items():
            if process.poll() is not None:
                raise RuntimeError(f"{name} exited with status {process.returncode}: {_log_tail(directory, name)}")
        done = subprocess.run(
            ["sinfo", "--noheader", "--nodes", NODE, "--format", "%T"], capture_output=True, text=True, env=environment
        )
        state = done.stdout.strip() or done.stderr.strip()
        if state == "idle":
            return
        time.sleep(0.5)
    raise RuntimeError(f"node {NODE} not idle after 60 s (sinfo: {state!r}): {_log_tail(directory, 'slurmd')}")


def _log_tail(directory: Path, name: str) -> str:
    log = directory / f"{name}.log"
    return "\n".join(log.read_text(errors="replace").splitlines()[-15:]) if log.exists() else f"no {log}"


def _stop(processes: dict[str, subprocess.Popen]) -> None:
    for name in reversed(list(processes)):  # slurmd, then slurmctld, then munged
        process = processes[name]
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@pytest.fixture(scope="session")
def slurm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Slurm]:
    """munged, slurmctld and slurmd on this machine, one idle node; every daemon stopped at the end."""
    _ensure_installed()
    directory = tmp_path_factory.mktemp("slurm")
    directory.chmod(0o700)  # munged refuses a key or socket in a directory others may write to
    for name in ("state", "spool", "munge"):
        (directory / name).mkdir(mode=0o700)
    key = directory / "munge" / "munge.key"
    key.write_bytes(secrets.token_bytes(128))
    key.chmod(0o600)
    munge_socket = directory / "munge" / "munge.socket"
    conf = directory / "slurm.conf"
    conf.write_text(_slurm_conf(directory, munge_socket), encoding="utf-8")
    cluster = Slurm(conf=conf, partition=PARTITION, directory=directory)
    environment = cluster.environment
    commands = {
        "munged": [
            _program("munged"), "--foreground", "--force", f"--socket={munge_socket}", f"--key-file={key}",
            f"--pid-file={directory / 'munge' / 'munged.pid'}", f"--log-file={directory / 'munged.log'}",
            f"--seed-file={directory / 'munge' / 'munged.seed'}",
        ],
        "slurmctld": [_program("slurmctld"), "-D", "-i", "-f", str(conf)],
        "slurmd": [_program("slurmd"), "-D", "-N", NODE, "-f", str(conf)],
    }  # fmt: skip
    processes: dict[str, subprocess.Popen] = {}
    try:
        for name in DAEMONS:
            with open(directory / f"{name}.out", "wb") as out:
                processes[name] = subprocess.Popen(
                    commands[name], stdout=out, stderr=subprocess.STDOUT, env=environment,
                    preexec_fn=_die_with_parent,
                )  # fmt: skip
            if name == "munged":
                _wait_for_path(munge_socket, processes[name], directory)
        _wait_for_idle_node(environment, directory, processes)
        yield cluster
    finally:
        _stop(processes)


def _wait_for_path(path: Path, process: subprocess.Popen, directory: Path) -> None:
    deadline = time.monotonic() + 20
    while not path.exists():
        if process.poll() is not None or time.monotonic() > deadline:
            out = (directory / "munged.out").read_text(errors="replace")
            raise RuntimeError(f"munged did not start: {out} {_log_tail(directory, 'munged')}")
        time.sleep(0.1)


LINES = [
    "first line\r\n",
    "lone\rcarriage return\n",
    "   indented   with trailing spaces   \r\n",
    "日本語のテキスト、改行なし。\n",
    "\n",
    "the cat sat on the mat; the dog sat on the log\n",
    "ends without newline",
]


@pytest.fixture
def corpus(tmp_path: Path) -> list[Path]:
    first = tmp_path / "first.txt"
    second = tmp_path / "second.txt"
    first.write_bytes("".join(LINES * 9).encode("utf-8"))
    second.write_bytes("".join(reversed(LINES * 4)).encode("utf-8") + b"\r\n\r")
    return [first, second]


def files_of(directory: Path) -> dict[str, bytes]:
    """Every file under a directory, by relative path, with its bytes."""
    return {str(path.relative_to(directory)): path.read_bytes() for path in directory.rglob("*") if path.is_file()}


def reference_training(files: list[Path], vocab_size: int) -> tuple[dict[str, int], list[tuple[str, str]]]:
    tokenizer = bpe_tokenizer(pre_tokenizer=pre_tokenizers.ByteLevel(add_prefix_space=False))
    tokenizer.train([str(path) for path in files], bpe_trainer(vocab_size=vocab_size))
    saved = json.loads(tokenizer.to_str())["model"]
    return saved["vocab"], [tuple(merge) for merge in saved["merges"]]


def hf_bpe_count(*args: str | Path, environment: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hf_bpe.cli", "count", *map(str, args), "--engine", "datatrove", "--buckets", "4"],
        capture_output=True,
        text=True,
        timeout=300,
        env=environment,
    )


def client_environment(slurm, tmp_path: Path) -> dict[str, str]:
    """The user's shell: this cluster's slurm.conf, a temporary directory of its own (to see what lands there),
    and a PATH without the virtual environment's bin (the jobs must find datatrove's launcher all the same)."""
    local_tmp = tmp_path / "local-tmp"
    local_tmp.mkdir(exist_ok=True)
    path = [entry for entry in os.environ["PATH"].split(os.pathsep) if entry != os.path.dirname(sys.executable)]
    return {
        **slurm.environment,
        "TMPDIR": str(local_tmp),
        "PATH": os.pathsep.join(path),
        "PYTHONPATH": str(REPO),
    }


def slurm_options(slurm, *extra: str) -> list[str]:
    options = [f"partition={slurm.partition}", "time=00:10:00", "mem_per_cpu_gb=1", *extra]
    return [part for option in options for part in ("--executor-option", option)]


def wait_until_gone(slurm, job_ids: list[str], seconds: float = 240) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        done = subprocess.run(
            ["squeue", "--noheader", f"--jobs={','.join(job_ids)}"],
            capture_output=True,
            text=True,
            env=slurm.environment,
        )
        if done.returncode == 0 and not done.stdout.strip():
            return
        time.sleep(1)
    pytest.fail(f"Slurm jobs {job_ids} still queued after {seconds} s")


def queue(slurm) -> str:
    return subprocess.run(["squeue", "--noheader"], capture_output=True, text=True, env=slurm.environment).stdout


@pytest.mark.slow
def test_slurm_waits_and_leaves_the_local_executors_counts(slurm, corpus, tmp_path):
    environment = client_environment(slurm, tmp_path)
    done = hf_bpe_count(*corpus, "-o", tmp_path / "slurm", "--executor", "slurm", *slurm_options(slurm),
                        "--tasks", "2", environment=environment)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert re.fullmatch(
        r"waiting for Slurm jobs \d+ \(counting, 2 tasks\), \d+ \(summing, 2 tasks\), \d+ \(manifest, 1 task\) "
        r"\(Ctrl-C cancels them\)\n",
        done.stderr,
    ), done.stderr
    assert re.fullmatch(r"\d+ distinct pre-tokens, \d+ in all, [\d.]+ s, written to .*slurm\n", done.stdout)
    assert queue(slurm) == ""  # it returned once every job had left the queue
    assert list((tmp_path / "local-tmp").iterdir()) == []
    local = hf_bpe_count(*corpus, "-o", tmp_path / "local", "--tasks", "2", environment=LOCAL)
    assert local.returncode == 0, local.stderr
    slurm_files = files_of(tmp_path / "slurm")
    assert sorted(slurm_files) == ["bucket-00000.jsonl", "bucket-00001.jsonl", "bucket-00002.jsonl",
                                   "bucket-00003.jsonl", "manifest.json"]  # fmt: skip
    assert slurm_files == files_of(tmp_path / "local")
    result = train_from_counts(dict(iter_counts(tmp_path / "slurm")), vocab_size=300)
    vocab, merges = reference_training(corpus, 300)
    assert (result.vocab, result.merges) == (vocab, merges)
    assert len(merges) > 20


@pytest.mark.slow
def test_slurm_without_waiting_says_what_next_and_keeps_its_files_under_the_output(slurm, corpus, tmp_path):
    environment = client_environment(slurm, tmp_path)
    output = tmp_path / "counts"
    done = hf_bpe_count(*corpus, "-o", output, "--executor", "slurm", *slurm_options(slurm, "wait=false"),
                        "--tasks", "3", environment=environment)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    capped = (
        "hf-bpe: warning: tasks=3: 2 counting tasks run, one per byte range of the input (2 ranges of at least "
        "262144 bytes; a compressed file is one), and 3 summing tasks, one per bucket (buckets=4)\n"
    )
    assert done.stderr.startswith(capped), done.stderr
    first = re.match(
        r"submitted Slurm jobs (\d+) \(counting, 2 tasks\), (\d+) \(summing, 3 tasks\), (\d+) \(manifest, 1 task\), "
        r"each after the one before: the last writes (\S+) when every task completed\.\n",
        done.stderr[len(capped) :],
    )
    assert first, done.stderr
    job_ids = list(first.groups()[:3])
    assert Path(first.group(4)) == output / "manifest.json"
    assert done.stderr[len(capped) + first.end() :] == (
        f"follow them with:  squeue --jobs {','.join(job_ids)}\n"
        f"when they have left the queue:  hf-bpe train --from-counts {output} --output DIR ...\n"
        f"(a counts directory without manifest.json is refused: see {output / 'datatrove-logs'} for the failed "
        "task's logs)\n"
    )
    assert job_ids[2] in queue(slurm)  # three jobs one after another, each starting Python: far from done
    wait_until_gone(slurm, job_ids)
    assert list((tmp_path / "local-tmp").iterdir()) == []
    counted = files_of(output)
    logs = {name: data for name, data in counted.items() if name.startswith("datatrove-logs/")}
    counts = {name: data for name, data in counted.items() if name not in logs}
    local = hf_bpe_count(*corpus, "-o", tmp_path / "local", environment=LOCAL)
    assert local.returncode == 0, local.stderr
    assert counts == files_of(tmp_path / "local")
    # The job scripts, datatrove's and Slurm's logs: all under the output; the tasks' TMPDIR too.
    for stage in ("counting", "summing", "manifest"):
        script = logs[f"datatrove-logs/{stage}/launch_script.slurm"].decode()
        assert f"TMPDIR={output / 'datatrove-logs' / 'tmp'} srun" in script
        assert str(tmp_path / "local-tmp") not in script
        assert any(name.startswith(f"datatrove-logs/{stage}/slurm_logs/") for name in logs)
        assert any(name.startswith(f"datatrove-logs/{stage}/completions/") for name in logs)


@pytest.mark.slow
def test_a_failed_slurm_task_is_named_and_the_jobs_after_it_never_run(slurm, tmp_path):
    good = tmp_path / "good.txt"
    bad = tmp_path / "bad.txt"
    good.write_text("fine\n", encoding="utf-8")
    bad.write_bytes(b"ok\nstill ok\n\xff broken\n")
    environment = client_environment(slurm, tmp_path)
    output = tmp_path / "counts"
    done = hf_bpe_count(good, bad, "-o", output, "--executor", "slurm", *slurm_options(slurm), "--tasks", "2",
                        environment=environment)  # fmt: skip
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    error = done.stderr.splitlines()[-1]
    assert re.fullmatch(
        r"hf-bpe: error: datatrove counting stage \(Slurm job \d+\): tasks \[1\] did not complete "
        rf"\(ValueError: {re.escape(str(bad))}:3: invalid UTF-8 at byte offset 12.*\); "
        rf"logs in {re.escape(str(output / 'datatrove-logs' / 'counting'))}",
        error,
    ), error
    assert not (output / "manifest.json").exists()
    assert queue(slurm) == ""  # the summing and manifest jobs were cancelled, not left pending
    assert list((output / "datatrove-logs" / "counting" / "slurm_logs").glob("*.out"))


@pytest.mark.slow
def test_slurm_python_api_with_many_shards(slurm, corpus, tmp_path, monkeypatch):
    """In-process, as a script would call it: many byte ranges over three tasks, the counts of datatrove's local
    executor."""
    monkeypatch.setattr(hf_bpe.counting.counting, "SHARD_BYTES", 64)
    monkeypatch.setenv("SLURM_CONF", str(slurm.conf))
    options = {"partition": slurm.partition, "time": "00:10:00", "mem_per_cpu_gb": 1}
    manifest = count_with_datatrove(corpus, tmp_path / "slurm", tasks=3, buckets=3, executor="slurm",
                                    executor_options=options)  # fmt: skip
    assert manifest == tmp_path / "slurm" / "manifest.json"
    count_with_datatrove(corpus, tmp_path / "local", tasks=3, buckets=3)
    assert files_of(tmp_path / "slurm") == files_of(tmp_path / "local")


@pytest.mark.slow
def test_a_partition_the_cluster_lacks_is_named_before_anything_is_written(slurm, corpus, tmp_path):
    environment = client_environment(slurm, tmp_path)
    done = hf_bpe_count(*corpus, "-o", tmp_path / "counts", "--executor", "slurm", "--executor-option",
                        "partition=gpu", "--executor-option", "time=01:00:00", environment=environment)  # fmt: skip
    assert done.returncode == 1
    assert done.stderr == (
        f"hf-bpe: error: partition='gpu': the Slurm cluster has no such partition; sinfo lists {slurm.partition}: "
        "--executor-option partition=NAME\n"
    )
    assert not (tmp_path / "counts").exists()


def test_without_sbatch_it_says_where_to_run(corpus, tmp_path):
    environment = {**os.environ, "PATH": str(tmp_path / "empty"), "PYTHONPATH": str(REPO)}
    done = hf_bpe_count(*corpus, "-o", tmp_path / "counts", "--executor", "slurm", "--executor-option",
                        "partition=cpu", "--executor-option", "time=01:00:00", environment=environment)  # fmt: skip
    assert done.returncode == 1
    assert done.stderr == (
        "hf-bpe: error: the Slurm executor submits and follows jobs with sbatch, squeue and scancel; sbatch is not "
        "on PATH: run hf-bpe count on a machine of the Slurm cluster (a login node), with Slurm's commands on PATH\n"
    )
    assert not (tmp_path / "counts").exists()


@pytest.mark.parametrize(
    ("option", "message"),
    [
        pytest.param(
            "wait=1",
            "executor option wait=1: true (wait for the Slurm jobs) or false (submit and return)",
            id="not-a-boolean",
        ),
    ],
)
def test_a_bad_wait_option_is_named(corpus, tmp_path, option, message):
    done = hf_bpe_count(*corpus, "-o", tmp_path / "counts", "--executor", "slurm", "--executor-option",
                        "partition=cpu", "--executor-option", "time=01:00:00", "--executor-option", option,
                        environment=LOCAL)  # fmt: skip
    assert done.returncode == 1
    assert done.stderr == f"hf-bpe: error: {message}\n"


def test_wait_is_the_slurm_executors_option_only(corpus, tmp_path):
    with pytest.raises(ValueError, match=r"only the Slurm executor can return before its tasks finish, not 'local'"):
        count_with_datatrove(corpus, tmp_path / "counts", executor_options={"wait": False})


@pytest.mark.slow
def test_a_job_sbatch_refuses_is_named_with_sbatchs_message_and_its_script(slurm, corpus, tmp_path):
    environment = client_environment(slurm, tmp_path)
    output = tmp_path / "counts"
    options = ["--executor-option", f"partition={slurm.partition}", "--executor-option", "time=soon"]
    done = hf_bpe_count(*corpus, "-o", output, "--executor", "slurm", *options, environment=environment)
    assert done.returncode == 1
    script = output / "datatrove-logs" / "counting" / "launch_script.slurm"
    assert done.stderr == (
        "hf-bpe: error: sbatch refused job 'hf-bpe-count' (sbatch: error: Invalid --time specification); "
        f"its script: {script}\n"
    )
    assert "#SBATCH --time=soon" in script.read_text(encoding="utf-8")
    assert queue(slurm) == ""
    assert not (output / "manifest.json").exists()
