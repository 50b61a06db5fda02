"""The batch's answer, on a Dask cluster, to which second readings a run is to make.

Locally a grading worker sends the batch the run's ordinary readings, and the batch
answers which follow-through and swap readings can change a mark
(``scheduling.Rows.second_readings``); ``workers.Worker.grade(ask=...)`` carries the
question and the answer, and only those readings are made.  On Dask the same
``Worker.grade`` runs on a Dask worker, and the ``ask`` it is given (``asker``) takes
the question to the batch's process and brings the answer back, mid-task:

- the question goes out as an event (distributed's ``Worker.log_event``) on the topic
  named after the batch's client, to which that client is subscribed (``Answers``; the
  scheduler forgets such a topic's events once its client is gone): JSON text, the only
  thing the client reads of it (its client unpickles nothing, see ``cluster``);
- the answer goes back with ``Client.run`` to that one worker (``deliver``), into the
  mailbox the waiting run opened for it; a mailbox nobody waits at takes nothing.

Each job is sent with a ticket, the topic and a secret of its own (in the task's
arguments, beside the job).
Both messages carry an HMAC of their text made with it (``seal``) and name the job and
the run's mailbox, so a message about one job neither answers nor influences another:
a worker can speak only for the jobs it was given.  Only the keys of readings travel
back; no expected value leaves the batch.  A run waits for its answer at most one
probe's time (``GradingLimits.cell_timeout``, counted from the question), and if none
comes (the client gone, a message lost) its ``ask`` returns None: every second reading,
exactly as local grading does when a run cannot be judged, with the rest of the
submission's time left to make them.  The wait counts against the submission's total time,
as the local question's does: a notebook that has used nearly all of it may be left
without time for its second readings, whichever way it is graded.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import queue
import secrets
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Callable

_MAILBOXES: dict[str, queue.Queue] = {}
_MAILBOXES_LOCK = threading.Lock()


def _mailboxes(token: str, job_id: int) -> str:
    """How the names of the mailboxes of job ``job_id`` of batch ``token`` begin."""
    return f"nbcourse-asks-{token}-{job_id}-"


def new_secret() -> str:
    return secrets.token_hex(16)


def _mac(secret: str, text: str) -> str:
    return hmac.new(secret.encode(), text.encode(), hashlib.sha256).hexdigest()


def seal(secret: str, payload: dict) -> str:
    """``payload`` as JSON text, with the HMAC of that text made with ``secret``."""
    text = json.dumps(payload)
    return json.dumps({"text": text, "mac": _mac(secret, text)})


def unseal(sealed, secret_of: Callable[[int], str | None]) -> dict | None:
    """The payload ``seal`` wrapped, if it names a job (an int ``id``) whose secret
    (``secret_of(id)``) made its HMAC; None for anything else."""
    try:
        outer = json.loads(sealed)
        text, mac = outer["text"], outer["mac"]
        payload = json.loads(text)
        job_id = payload["id"]
        secret = secret_of(job_id) if type(job_id) is int else None
        if secret is None or not isinstance(mac, str) or \
                not hmac.compare_digest(mac, _mac(secret, text)):
            return None
    except (ValueError, TypeError, KeyError, IndexError, RecursionError):
        return None
    return payload


def _keys(answer: dict):
    """The keys of an answer, or None (every second reading) for any other shape."""
    keys = answer.get("follow_through")
    if isinstance(keys, list) and all(isinstance(key, str) for key in keys):
        return keys
    return None


def asker(worker, token: str, job_id: int, ticket: dict, seconds: float):
    """``Worker.grade``'s ``ask`` for job ``job_id`` (its ``ticket`` from ``Answers``), run
    in a task of the Dask ``worker``: the batch's answer, or None if it has not come
    ``seconds`` after the question was sent (a grader's own bound, so that a lost answer
    leaves the run its time for every second reading)."""
    secret = ticket["secret"]

    def own(job: int) -> str | None:
        return secret if job == job_id else None

    def ask(interim: dict):
        mailbox = _mailboxes(token, job_id) + secrets.token_hex(8)
        box: queue.Queue = queue.Queue()
        with _MAILBOXES_LOCK:
            _MAILBOXES[mailbox] = box
        try:
            try:
                worker.log_event(ticket["topic"], seal(secret, {
                    "id": job_id, "mailbox": mailbox, "address": worker.address,
                    "interim": interim}))
            except Exception:  # noqa: BLE001 - not sent (not JSON, worker closing): ask nothing
                return None
            until = time.monotonic() + seconds
            while (left := until - time.monotonic()) > 0:
                try:
                    answer = unseal(box.get(timeout=left), own)
                except queue.Empty:
                    break
                if answer is not None and answer.get("mailbox") == mailbox:
                    return _keys(answer)
            return None
        finally:
            with _MAILBOXES_LOCK:
                _MAILBOXES.pop(mailbox, None)
    return ask


def deliver(mailbox: str, text: str) -> None:
    """Run on a Dask worker by the batch (``Client.run``): hand ``text`` to the run
    waiting at ``mailbox``, if one is."""
    with _MAILBOXES_LOCK:
        box = _MAILBOXES.get(mailbox)
    if box is not None:
        box.put(text)


class Answers:
    """The batch's side: each question of a job it sent and has not finished is answered
    with ``decide`` (``Rows.second_readings``: the one rule local grading uses)."""

    def __init__(self, client, token: str, decide: Callable[[dict], list | None]):
        self.client, self.token, self.decide = client, token, decide
        self.topic = client.id  # the scheduler forgets its events once the client is gone
        self._secrets: dict[int, str] = {}
        self._lock = threading.Lock()
        # answered off the client's event loop: scoring and Client.run take a moment
        self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="nbcourse-asks")
        client.subscribe_topic(self.topic, self._heard)

    def ticket(self, job_id: int) -> dict:
        """What job ``job_id``, about to be sent, needs to ask: the topic and a new secret."""
        secret = new_secret()
        with self._lock:
            self._secrets[job_id] = secret
        return {"topic": self.topic, "secret": secret}

    def forget(self, job_id: int) -> None:
        """Job ``job_id`` has its row: no question about it is answered any more."""
        with self._lock:
            self._secrets.pop(job_id, None)

    def _secret_of(self, job_id: int) -> str | None:
        with self._lock:
            return self._secrets.get(job_id)

    def _heard(self, event) -> None:
        if isinstance(event, (tuple, list)) and len(event) == 2:
            try:
                self._pool.submit(self._answer, event[1])
            except RuntimeError:  # closed: the batch has every row
                pass

    def _answer(self, sealed) -> None:
        question = unseal(sealed, self._secret_of)
        if question is None:
            return
        job_id, mailbox = question["id"], question.get("mailbox")
        address, interim = question.get("address"), question.get("interim")
        secret = self._secret_of(job_id)
        if secret is None or not isinstance(address, str) or not isinstance(interim, dict) \
                or not (isinstance(mailbox, str)
                        and mailbox.startswith(_mailboxes(self.token, job_id))):
            return
        answer = seal(secret, {"id": job_id, "mailbox": mailbox,
                               "follow_through": self.decide(interim)})
        try:
            self.client.run(deliver, mailbox, answer, workers=[address])
        except Exception:  # noqa: BLE001 - the worker gone: its run waits, then makes all
            pass

    def close(self) -> None:
        try:
            self.client.unsubscribe_topic(self.topic)
        except Exception:  # noqa: BLE001 - a client already gone hears nothing more
            pass
        self._pool.shutdown(wait=True, cancel_futures=True)
