"""Downloads for real: a web server on 127.0.0.1, started and stopped by each test.

It serves the three files a classroom mirror holds, under the names ``NBCOURSE_MIRROR``
asks for: ``sms+spam+collection.zip`` and ``spambase.zip`` built from the corpora shipped
in data/ (so the real checksums apply), and ``20news-bydate.tar.gz`` as a four-post
archive in the real layout whose own content digest is given to the loader.
"""
from __future__ import annotations

import dataclasses
import hashlib
import shutil
import time

import nbformat
import pytest
from nbclient import NotebookClient

from datasets_support import (NEWS_ARCHIVE, SHIPPED, SMALL_POSTS, SMS_FILE, SMS_ZIP, SPAMBASE_FILE,
                              SPAMBASE_ZIP, Server, SilentServer, content_digest, files_under,
                              tar_gz_bytes, uci_sms_zip, uci_spambase_zip, zip_bytes)
from nbcourse import datasets
from nbcourse.datasets import _sms_spam, _twenty_newsgroups

REFUSED = "http://127.0.0.1:9"  # nothing listens on the discard port: connections fail at once


@pytest.fixture(autouse=True)
def isolated_environment(monkeypatch, tmp_path):
    """An empty cache, no NBCOURSE_DATA, no shipped corpora, and no way to the internet."""
    for name in ("NBCOURSE_DATA", "NBCOURSE_MIRROR", "NBCOURSE_DOWNLOAD_TIMEOUT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NBCOURSE_CACHE", str(tmp_path / "cache"))
    for name in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY"):
        monkeypatch.setenv(name, REFUSED)
    for name in ("no_proxy", "NO_PROXY"):
        monkeypatch.setenv(name, "127.0.0.1,localhost")
    tables = tmp_path / "shipped-tables-only"
    tables.mkdir()
    for name in ("weather.csv", "picnic.csv", "sms_mini.tsv"):
        shutil.copy(SHIPPED / name, tables / name)
    monkeypatch.setenv("NBCOURSE_SHIPPED_DATA", str(tables))
    monkeypatch.setattr(_twenty_newsgroups, "NEWSGROUPS_CONTENT_SHA256", content_digest(SMALL_POSTS))


@pytest.fixture
def server():
    web = Server().start()
    yield web
    web.stop()


@pytest.fixture
def mirror(server, monkeypatch):
    """The local server as the classroom mirror, serving the three files."""
    server.serve("/" + SMS_ZIP, uci_sms_zip())
    server.serve("/" + SPAMBASE_ZIP, uci_spambase_zip())
    server.serve("/" + NEWS_ARCHIVE, tar_gz_bytes(SMALL_POSTS))
    monkeypatch.setenv("NBCOURSE_MIRROR", server.url + "/")
    return server


def load(corpus: str):
    """Load ``corpus`` the way a lesson does, and reduce it to something comparable."""
    if corpus == "sms_spam":
        frame = datasets.load_sms_spam()
        return frame.shape, frame["label"].value_counts().to_dict()
    if corpus == "spambase":
        frame = datasets.load_spambase()
        return frame.shape, frame["label"].value_counts().to_dict()
    news = datasets.load_20newsgroups("all")
    return news.data, news.target.tolist(), news.target_names


EXPECTED = {
    "sms_spam": ((5574, 2), {"ham": 4827, "spam": 747}),
    "spambase": ((4601, 58), {"ham": 2788, "spam": 1813}),
    "20newsgroups": (["engine\r\n", "orbit \u00e9", "brakes", "launch"], [0, 1, 0, 1],
                     ["rec.autos", "sci.space"]),
}
FILE_NAME = {"sms_spam": SMS_ZIP, "spambase": SPAMBASE_ZIP, "20newsgroups": NEWS_ARCHIVE}
CACHED = {"sms_spam": "sms_spam/SMSSpamCollection", "spambase": "spambase/spambase.data",
          "20newsgroups": "20newsgroups/20news-bydate/VERIFIED.json"}
CORPORA = list(EXPECTED)


# -- where a download comes from ---------------------------------------------------------------

def test_a_mirror_serves_each_file_under_the_last_segment_of_its_original_url(monkeypatch):
    assert datasets.source_url(datasets.SMS_SPAM_URL) == datasets.SMS_SPAM_URL
    monkeypatch.setenv("NBCOURSE_MIRROR", "https://course.example.org/data/")
    assert [datasets.source_url(url) for url in (datasets.SMS_SPAM_URL, datasets.SPAMBASE_URL,
                                                 datasets.NEWSGROUPS_URL)] == [
        "https://course.example.org/data/sms+spam+collection.zip",
        "https://course.example.org/data/spambase.zip",
        "https://course.example.org/data/20news-bydate.tar.gz"]


@pytest.mark.parametrize("value", ["ftp://course.example.org/data", "course.example.org/data", "/srv/data"])
def test_a_mirror_that_is_not_a_url_is_an_error_that_names_it(monkeypatch, value):
    monkeypatch.setenv("NBCOURSE_MIRROR", value)
    with pytest.raises(ValueError, match="NBCOURSE_MIRROR is set to .* not an http://, https:// or file://"):
        datasets.load_spambase()


@pytest.mark.parametrize("value", ["soon", "0", "-3", "inf"])
def test_a_bad_download_timeout_is_an_error(monkeypatch, value):
    monkeypatch.setenv("NBCOURSE_DOWNLOAD_TIMEOUT", value)
    with pytest.raises(ValueError, match="NBCOURSE_DOWNLOAD_TIMEOUT must be a positive number"):
        datasets.load_spambase()


# -- a good download, then the cache ----------------------------------------------------------

@pytest.mark.parametrize("corpus", CORPORA)
def test_good_download_through_the_mirror_is_verified_cached_and_then_used_offline(
        mirror, monkeypatch, tmp_path, capsys, corpus):
    assert load(corpus) == EXPECTED[corpus]

    assert mirror.requests == ["/" + FILE_NAME[corpus]]
    assert f"downloading {FILE_NAME[corpus]}" in capsys.readouterr().err
    cache = tmp_path / "cache"
    assert (cache / CACHED[corpus]).is_file()
    assert not list(cache.rglob(".download-*")) and not list(cache.rglob(".extract-*"))
    if corpus != "20newsgroups":
        assert files_under(cache) == [cache / CACHED[corpus]]
        shipped = SMS_FILE if corpus == "sms_spam" else SPAMBASE_FILE
        assert (cache / CACHED[corpus]).read_bytes() == shipped.read_bytes()

    mirror.stop()  # the second call must not need the network at all
    monkeypatch.setenv("NBCOURSE_MIRROR", REFUSED)
    assert load(corpus) == EXPECTED[corpus]
    assert mirror.requests == ["/" + FILE_NAME[corpus]]


def test_without_a_mirror_the_original_host_is_asked(server, monkeypatch, tmp_path):
    path = "/static/public/228/" + SMS_ZIP
    monkeypatch.setattr(_sms_spam, "SMS_SPAM", dataclasses.replace(_sms_spam.SMS_SPAM, url=server.url + path))
    server.serve(path, uci_sms_zip())

    assert load("sms_spam") == EXPECTED["sms_spam"]
    assert server.requests == [path]


def test_a_mirror_can_be_a_folder(monkeypatch, tmp_path):
    folder = tmp_path / "mirror folder"
    folder.mkdir()
    (folder / SMS_ZIP).write_bytes(uci_sms_zip())
    (folder / NEWS_ARCHIVE).write_bytes(tar_gz_bytes(SMALL_POSTS))
    monkeypatch.setenv("NBCOURSE_MIRROR", folder.as_uri())

    assert load("sms_spam") == EXPECTED["sms_spam"]
    assert load("20newsgroups") == EXPECTED["20newsgroups"]
    with pytest.raises(datasets.DownloadError, match="spambase.zip"):
        datasets.load_spambase()


def test_a_damaged_cached_copy_is_replaced_by_a_fresh_download(mirror, tmp_path):
    cached = tmp_path / "cache" / "sms_spam" / "SMSSpamCollection"
    cached.parent.mkdir(parents=True)
    cached.write_bytes(SMS_FILE.read_bytes()[:5000])

    with pytest.warns(UserWarning, match="damaged"):
        assert load("sms_spam") == EXPECTED["sms_spam"]
    assert cached.read_bytes() == SMS_FILE.read_bytes()
    assert mirror.requests == ["/" + SMS_ZIP]


# -- downloads that go wrong: nothing is cached, and the message says what to do ----------------

def assert_nothing_cached(tmp_path):
    assert files_under(tmp_path / "cache") == []


def assert_names_the_three_ways(message: str, corpus: str):
    assert "NBCOURSE_DATA" in message and "NBCOURSE_MIRROR" in message
    assert FILE_NAME[corpus] in message


@pytest.mark.parametrize("corpus", CORPORA)
def test_a_truncated_download_is_an_error(mirror, tmp_path, corpus):
    body = mirror.routes["/" + FILE_NAME[corpus]][1]
    mirror.serve("/" + FILE_NAME[corpus], body[: len(body) // 2], **{"Content-Length": str(len(body))})

    with pytest.raises(datasets.DownloadError, match="stopped after|IncompleteRead") as error:
        load(corpus)
    assert mirror.url in str(error.value)
    assert_names_the_three_ways(str(error.value), corpus)
    assert_nothing_cached(tmp_path)


@pytest.mark.parametrize("corpus", CORPORA)
def test_a_download_cut_short_without_a_length_is_not_trusted(mirror, tmp_path, corpus):
    body = mirror.routes["/" + FILE_NAME[corpus]][1]
    mirror.serve("/" + FILE_NAME[corpus], body[: len(body) // 2])

    with pytest.raises(datasets.DownloadError, match="did not deliver"):
        load(corpus)
    assert_nothing_cached(tmp_path)


@pytest.mark.parametrize("corpus", ["sms_spam", "spambase"])
def test_a_download_with_the_wrong_checksum_is_rejected_and_nothing_is_cached(mirror, tmp_path, corpus):
    inner = SMS_FILE if corpus == "sms_spam" else SPAMBASE_FILE
    tampered = inner.read_bytes().replace(b"\n", b"\r\n", 1)
    mirror.serve("/" + FILE_NAME[corpus], zip_bytes({inner.name: tampered}))

    with pytest.raises(datasets.ChecksumError) as error:
        load(corpus)

    message = str(error.value)
    expected = datasets.SMS_SPAM_SHA256 if corpus == "sms_spam" else datasets.SPAMBASE_SHA256
    assert mirror.url in message and expected in message
    assert hashlib.sha256(tampered).hexdigest() in message
    assert_names_the_three_ways(message, corpus)
    assert_nothing_cached(tmp_path)


def test_newsgroups_with_the_wrong_content_is_rejected_and_nothing_is_cached(mirror, tmp_path):
    mirror.serve("/" + NEWS_ARCHIVE, tar_gz_bytes({**SMALL_POSTS, "20news-bydate-test/rec.autos/102": b"brakes!"}))

    with pytest.raises(datasets.ChecksumError) as error:
        load("20newsgroups")
    message = str(error.value)
    assert _twenty_newsgroups.NEWSGROUPS_CONTENT_SHA256 in message and "actual   sha256" in message
    assert mirror.url in message
    assert_nothing_cached(tmp_path)
    assert not (tmp_path / "cache" / "20newsgroups" / "20news-bydate").exists()


@pytest.mark.parametrize("corpus", CORPORA)
@pytest.mark.parametrize("status", [404, 503])
def test_a_server_error_is_clear(mirror, tmp_path, corpus, status):
    if status == 404:
        del mirror.routes["/" + FILE_NAME[corpus]]
    else:
        mirror.serve("/" + FILE_NAME[corpus], b"down for maintenance", status=status)

    with pytest.raises(datasets.DownloadError, match=f"HTTP {status}") as error:
        load(corpus)
    assert f"{mirror.url}/{FILE_NAME[corpus]}" in str(error.value)
    assert_names_the_three_ways(str(error.value), corpus)
    assert_nothing_cached(tmp_path)


@pytest.mark.parametrize("corpus", ["sms_spam", "20newsgroups"])
def test_a_web_page_instead_of_the_archive_is_rejected(mirror, tmp_path, corpus):
    mirror.serve("/" + FILE_NAME[corpus], b"<html>please log in</html>")

    with pytest.raises(datasets.DownloadError, match="did not deliver"):
        load(corpus)
    assert_nothing_cached(tmp_path)


def test_a_server_that_never_answers_times_out_with_a_clear_message(monkeypatch, tmp_path):
    silent = SilentServer()
    monkeypatch.setenv("NBCOURSE_MIRROR", silent.url)
    monkeypatch.setenv("NBCOURSE_DOWNLOAD_TIMEOUT", "0.5")
    started = time.monotonic()
    try:
        with pytest.raises(datasets.DownloadError) as error:
            load("20newsgroups")
    finally:
        silent.stop()

    assert time.monotonic() - started < 10
    message = str(error.value)
    assert f"{silent.url}/{NEWS_ARCHIVE}" in message
    assert "did not answer within 0.5 s" in message and "NBCOURSE_DOWNLOAD_TIMEOUT" in message
    assert_names_the_three_ways(message, "20newsgroups")
    assert_nothing_cached(tmp_path)


def test_offline_without_any_copy_each_loader_says_how_to_provide_its_corpus(monkeypatch):
    monkeypatch.setenv("NBCOURSE_MIRROR", REFUSED)
    for corpus in CORPORA:
        with pytest.raises(datasets.DownloadError) as error:
            load(corpus)
        assert_names_the_three_ways(str(error.value), corpus)


def test_in_jupyter_a_missing_corpus_shows_its_message_not_a_traceback(monkeypatch, tmp_path):
    monkeypatch.setenv("NBCOURSE_MIRROR", REFUSED)
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("from nbcourse import datasets\ndatasets.load_spambase()"),
        nbformat.v4.new_code_cell("datasets.load_20newsgroups(download=False)"),
    ])
    NotebookClient(notebook, timeout=60, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()

    for cell, name in zip(notebook.cells, ("DownloadError", "CorpusNotFoundError")):
        [error] = [o for o in cell.outputs if o.output_type == "error"]
        assert error.ename == name
        shown = "\n".join(error.traceback)
        assert shown.startswith(f"{name}: ") and "NBCOURSE_MIRROR" in shown
        assert "Traceback" not in shown and "File " not in shown and "urllib" not in shown
