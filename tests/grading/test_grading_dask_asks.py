"""The round trip that tells a Dask worker which second readings to make (``dask_asks``):
only the job's own messages count, only keys travel back, and without an answer a run
makes every second reading, as local grading does when it cannot judge a run."""
from __future__ import annotations

import json

from nbcourse.grading import dask_asks
from nbcourse.grading.dask_asks import Answers, asker, seal, unseal


class FakeClient:
    """What ``Answers`` uses of a Dask client: the topic's handler, and ``run``."""

    id = "Client-1"

    def __init__(self):
        self.handlers, self.runs = {}, []

    def subscribe_topic(self, topic, handler):
        self.handlers[topic] = handler

    def unsubscribe_topic(self, topic):
        self.handlers.pop(topic, None)

    def run(self, function, *args, workers=None):
        self.runs.append((args, workers))
        return function(*args)


class FakeWorker:
    """What ``asker`` uses of a Dask worker: its address, and ``log_event``."""
    address = "tls://10.0.0.7:4000"

    def __init__(self, heard=None):
        self.events, self.heard = [], heard

    def log_event(self, topic, message):
        self.events.append((topic, message))
        if self.heard is not None:
            self.heard((0.0, message))


def test_a_sealed_message_opens_only_with_its_own_jobs_secret():
    sealed = seal("s3", {"id": 3, "x": [1]})
    assert unseal(sealed, {3: "s3"}.get) == {"id": 3, "x": [1]}
    assert unseal(sealed, {3: "other"}.get) is None
    assert unseal(sealed, {}.get) is None
    outer = json.loads(sealed)
    tampered = json.dumps({"text": outer["text"].replace("1", "2"), "mac": outer["mac"]})
    assert unseal(tampered, {3: "s3"}.get) is None
    # True equals 1 in Python: a job is named by an int and nothing else
    assert unseal(seal("s1", {"id": True}), {1: "s1"}.get) is None
    for garbage in ("not json", "[]", '{"text": 1, "mac": "x"}', '{"text": "[]", "mac": "x"}',
                    json.dumps({"text": json.dumps({"id": 3}), "mac": 7}), None, 12,
                    json.dumps({"text": json.dumps({"id": 3}), "mac": "\u00e9"})):
        assert unseal(garbage, {3: "s3"}.get) is None, garbage


def test_the_batch_answers_a_run_with_the_rule_local_grading_uses():
    client, decided = FakeClient(), []
    answers = Answers(client, "tok", lambda interim: decided.append(interim) or ["q4/swap"])
    ticket = answers.ticket(5)
    secret = ticket["secret"]
    assert ticket["topic"] == client.id  # its events go when the client goes
    worker = FakeWorker(heard=client.handlers[client.id])
    try:
        ask = asker(worker, "tok", 5, ticket, seconds=60)
        assert ask({"kernel": "ok", "probes": {}}) == ["q4/swap"]
    finally:
        answers.close()
    assert decided == [{"kernel": "ok", "probes": {}}]  # the run's ordinary readings
    ((mailbox, sent), workers), = client.runs
    assert workers == [worker.address] and mailbox.startswith("nbcourse-asks-tok-5-")
    assert set(unseal(sent, {5: secret}.get)) == {"id", "mailbox", "follow_through"}
    assert client.id not in client.handlers  # closed: it hears nothing more


def test_a_question_that_is_not_its_jobs_own_is_not_answered():
    client = FakeClient()
    answers = Answers(client, "tok", lambda interim: ["q2"])
    mine, other = answers.ticket(1)["secret"], answers.ticket(2)["secret"]
    heard = client.handlers[client.id]
    question = {"id": 2, "mailbox": "nbcourse-asks-tok-2-ab", "address": "tls://w:1",
                "interim": {}}
    try:
        heard((0.0, seal(mine, question)))  # job 2, sealed with job 1's secret
        heard((0.0, seal(other, dict(question, mailbox="nbcourse-asks-tok-1-ab"))))
        heard((0.0, seal(other, dict(question, interim=["not", "a", "report"]))))
        heard((0.0, "garbage"))
        heard("not an event")
        heard((0.0, {"action": "retry", "count": 1}))  # the scheduler's own, on that topic
        answers.forget(2)  # its row is written
        heard((0.0, seal(other, question)))
    finally:
        answers.close()
    assert client.runs == []


def test_without_an_answer_every_second_reading_is_made():
    ask = asker(FakeWorker(), "tok", 4, {"topic": "t", "secret": "s"}, seconds=0.05)
    assert ask({"kernel": "ok"}) is None
    assert dask_asks._MAILBOXES == {}  # the run's mailbox is closed with it
    # a question that cannot be sent (readings that are not JSON): every reading too
    assert asker(FakeWorker(), "tok", 4, {"topic": "t", "secret": "s"}, 60)({"x": {1j}}) is None


def test_the_wait_for_an_answer_starts_when_the_question_is_sent():
    """A run asks after its ordinary readings, which can take most of its time: the
    answer's bound (review 7) counts from the question, so an answer that comes within it
    is taken however long the readings took."""
    import threading
    import time

    secret, worker = "s", FakeWorker()

    def heard(event):  # the batch answers a little later, from another thread
        mailbox = json.loads(json.loads(event[1])["text"])["mailbox"]
        answer = seal(secret, {"id": 4, "mailbox": mailbox, "follow_through": ["q2"]})
        threading.Timer(0.1, dask_asks.deliver, args=(mailbox, answer)).start()

    worker.heard = heard
    ask = asker(worker, "tok", 4, {"topic": "t", "secret": secret}, seconds=0.5)
    time.sleep(0.6)  # the ordinary readings took longer than the bound itself
    assert ask({"kernel": "ok"}) == ["q2"]


def test_a_forged_answer_is_passed_over_for_the_batchs_own():
    secret, worker = "s", FakeWorker()

    def heard(event):  # a forged answer arrives first, then the batch's own
        mailbox = json.loads(json.loads(event[1])["text"])["mailbox"]
        dask_asks.deliver(mailbox, seal("guessed", {"id": 4, "mailbox": mailbox,
                                                    "follow_through": []}))
        dask_asks.deliver(mailbox, seal(secret, {"id": 4, "mailbox": "elsewhere",
                                                 "follow_through": []}))
        dask_asks.deliver(mailbox, seal(secret, {"id": 4, "mailbox": mailbox,
                                                 "follow_through": ["q3"]}))

    worker.heard = heard
    ticket = {"topic": "t", "secret": secret}
    assert asker(worker, "tok", 4, ticket, seconds=60)({"kernel": "ok"}) == ["q3"]
    dask_asks.deliver("nobody-waits-here", "text")  # taken by no one, kept by no one
    assert dask_asks._MAILBOXES == {}


def test_the_client_is_closed_when_the_cluster_fails_before_any_job(monkeypatch):
    """``grade_on_cluster`` closes its client (and what it started) even when the
    scheduler cannot say who its workers are, before any job is sent."""
    from types import SimpleNamespace

    from nbcourse.grading import cluster
    from nbcourse.grading.execution.limits import GradingLimits

    class Unreachable(FakeClient):
        scheduler = SimpleNamespace(address="tls://10.0.0.1:8786")

        def scheduler_info(self):
            raise OSError("the scheduler went away")

    closed = []
    monkeypatch.setattr(cluster, "connect",
                        lambda *args: (Unreachable(), lambda: closed.append(True), "tls"))
    monkeypatch.setattr(cluster, "_clean_up", lambda client, token, warnings: 0)
    rows = SimpleNamespace(submissions=[], second_readings=lambda interim: None)
    try:
        cluster.grade_on_cluster("tls://10.0.0.1:8786", rows, {}, GradingLimits(), "bwrap")
    except OSError as error:
        assert "went away" in str(error)
    else:
        raise AssertionError("the scheduler's error was swallowed")
    assert closed == [True]
