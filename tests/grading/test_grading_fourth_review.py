"""What a fourth cold review of the grader (issue 36, library A, grader A-) found.

Each test fails on the code the review read (2026-11-29, main at f7ea718)."""
from __future__ import annotations

from nbcourse.grading.execution import worker
from nbcourse.grading.execution.limits import GradingLimits
from nbcourse.grading.execution.report import RunReport
from nbcourse.grading.execution.sandbox import SandboxConfig


def test_a_server_that_cannot_be_replaced_keeps_the_row_already_graded(monkeypatch, capsys):
    """R1: ``after_submission`` starts the next kernel server in ``grade_job``'s
    ``finally``; when building it raised (a full disk, no process left), the exception
    escaped, the report just computed was lost and the worker died.  Now the row keeps
    its report and the next row says what failed."""
    class StandIn:  # a server whose submission left a process behind: replaced after it
        healthy = True

        def wait_ready(self):
            return True

        def channel_intact(self):
            return True

        def sweep_after(self):
            return [4242]

        def kill(self):
            self.healthy = False

    built = []

    class Servers(worker.KernelServers):
        def _new(self):
            built.append(True)
            if len(built) > 1:
                raise OSError(28, "No space left on device")
            return StandIn()

    def graded(path, plan, limits, take, *, scan_source):
        take()
        return RunReport(code_cells=3, probes={"q1": {"value": 1}})

    monkeypatch.setattr(worker, "run_submission", graded)
    config = SandboxConfig("off", limits=GradingLimits.from_options())
    kernels = Servers(config, None, "token")
    reply = RunReport.from_json(worker.grade_job({"path": "x", "plan": {}}, config, kernels,
                                                 scan_source=None))
    assert reply.grader_error == "" and reply.probes == {"q1": {"value": 1}}
    assert kernels.server is None and "No space left on device" in capsys.readouterr().err
    following = RunReport.from_json(worker.grade_job({"path": "y", "plan": {}}, config,
                                                     kernels, scan_source=None))
    assert following.grader_error.startswith("OSError: [Errno 28] No space left on device")
