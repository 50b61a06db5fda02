"""The loaders: shipped tables, real corpora from every source, and downloads that go wrong.

Downloads are tested against a web server on 127.0.0.1 run in a thread. Real files come
from the shared data folder (``$NBCOURSE_DATA``, by default ``../shared/data``
next to the checkout) and are never copied into the project.
"""
from __future__ import annotations

import csv
import hashlib
import http.server
import io
import os
import tarfile
import threading
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from conftest import SHARED_DATA
from nbcourse import datasets

REPO = Path(__file__).resolve().parents[1]
SHARED = SHARED_DATA  # tests/conftest.py: $NBCOURSE_DATA, by default ../shared/data
SMS_FILE = SHARED / "sms_spam" / "SMSSpamCollection"
NEWS_ARCHIVE = SHARED / "20newsgroups" / "20news-bydate.tar.gz"
UNREACHABLE = "http://127.0.0.1:9/nothing-listens-here"


@pytest.fixture(autouse=True)
def isolated_environment(monkeypatch, tmp_path):
    """No test reads the user's cache or NBCOURSE_DATA, and none can reach the internet."""
    monkeypatch.delenv("NBCOURSE_DATA", raising=False)
    monkeypatch.delenv("NBCOURSE_SHIPPED_DATA", raising=False)
    monkeypatch.setenv("NBCOURSE_CACHE", str(tmp_path / "default-cache"))
    monkeypatch.setattr(datasets, "SMS_SPAM_URL", UNREACHABLE + "/sms.zip")
    monkeypatch.setattr(datasets, "NEWSGROUPS_URL", UNREACHABLE + "/20news.tar.gz")


@pytest.fixture(scope="session")
def news_cache(tmp_path_factory):
    """20 Newsgroups extracted once per session (test_text.py uses the same folder)."""
    cache = tmp_path_factory.getbasetemp() / "nbcourse-20news-cache"
    datasets.load_20newsgroups("test", path=NEWS_ARCHIVE, cache_dir=cache, download=False)
    return cache


@pytest.fixture(scope="session")
def news_folder(news_cache):
    return news_cache / "20newsgroups" / "20news-bydate"


def files_under(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


# -- a small web server -------------------------------------------------------------------------

class Server:
    """Serves ``routes[path] = (status, body, extra_headers)`` and counts requests."""

    def __init__(self):
        self.routes: dict[str, tuple[int, bytes, dict]] = {}
        self.requests: list[str] = []
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                server.requests.append(self.path)
                status, body, headers = server.routes.get(self.path, (404, b"not found", {}))
                self.send_response(status)
                headers = {"Content-Length": str(len(body)), **headers}
                for key, value in headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                       daemon=True)

    def serve(self, path: str, body: bytes, status: int = 200, **headers) -> str:
        self.routes[path] = (status, body, headers)
        return self.url + path


@pytest.fixture
def server():
    web = Server()
    web.thread.start()
    try:
        yield web
    finally:
        web.httpd.shutdown()
        web.httpd.server_close()
        web.thread.join(timeout=5)


def zip_bytes(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return buffer.getvalue()


def tar_gz_bytes(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, content in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(content)
            archive.addfile(info, io.BytesIO(content))
    return buffer.getvalue()


# -- shipped tables -----------------------------------------------------------------------------

def test_weather_matches_weka_arff_row_by_row():
    arff = (SHARED / "weather" / "weather.nominal.arff").read_text(encoding="ascii")
    data_lines = arff.split("@data", 1)[1].split()
    expected = [line.lower().split(",") for line in data_lines]

    weather = datasets.load_weather()

    assert list(weather.columns) == ["outlook", "temperature", "humidity", "windy", "play"]
    assert weather.values.tolist() == expected
    assert len(weather) == 14
    assert weather["play"].value_counts().to_dict() == {"yes": 9, "no": 5}
    assert set(weather["windy"]) == {"true", "false"}
    assert all(isinstance(value, str) for value in weather.to_numpy().ravel())


def test_picnic_is_mitchells_enjoysport_table():
    picnic = datasets.load_picnic()

    assert list(picnic.columns) == ["sky", "temp", "humid", "wind", "water", "forecast", "enjoy"]
    assert picnic.values.tolist() == [
        ["sunny", "warm", "normal", "strong", "warm", "same", "yes"],
        ["sunny", "warm", "high", "strong", "warm", "same", "yes"],
        ["rainy", "cold", "high", "strong", "warm", "change", "no"],
        ["sunny", "warm", "high", "strong", "cool", "change", "yes"],
    ]
    assert all(isinstance(value, str) for value in picnic.to_numpy().ravel())


def test_every_shipped_file_is_documented_in_the_data_readme():
    readme = (REPO / "data" / "README.md").read_text(encoding="utf-8")
    shipped = [p.name for p in (REPO / "data").iterdir() if p.is_file() and p.name != "README.md"]

    assert sorted(shipped) == ["picnic.csv", "sms_mini.tsv", "weather.csv"]
    for name in shipped:
        assert f"`{name}`" in readme


def test_shipped_data_folder_is_the_checkout_data_folder_unless_overridden(monkeypatch, tmp_path):
    assert datasets.shipped_data_dir() == REPO / "data"

    monkeypatch.setenv("NBCOURSE_SHIPPED_DATA", str(tmp_path))
    (tmp_path / "weather.csv").write_text("outlook,play\nsunny,no\n", encoding="utf-8")
    assert datasets.load_weather().values.tolist() == [["sunny", "no"]]


def test_sms_mini_is_our_own_and_well_formed():
    mini = datasets.load_sms_mini()
    real_messages = {line.split("\t", 1)[1] for line in SMS_FILE.read_text(encoding="utf-8").splitlines()}

    assert list(mini.columns) == ["label", "text"]
    assert 60 <= len(mini) <= 100
    assert mini["label"].value_counts().to_dict() == {"ham": 56, "spam": 24}
    assert mini["text"].is_unique
    assert all(message.strip() == message and message for message in mini["text"])
    assert not set(mini["text"]) & real_messages


# -- SMS Spam Collection: local sources ---------------------------------------------------------

def assert_is_real_sms(frame: pd.DataFrame):
    assert list(frame.columns) == ["label", "text"]
    assert frame.shape == (5574, 2)
    assert frame["label"].value_counts().to_dict() == {"ham": 4827, "spam": 747}
    assert frame["text"].iloc[0].startswith("Go until jurong point, crazy..")


def test_sms_spam_agrees_with_an_independent_reader():
    expected = pd.read_csv(SMS_FILE, sep="\t", header=None, names=["label", "text"],
                           quoting=csv.QUOTE_NONE, dtype=str, keep_default_na=False)

    frame = datasets.load_sms_spam(SMS_FILE, download=False)

    assert_is_real_sms(frame)
    assert frame["label"].tolist() == expected["label"].tolist()
    assert frame["text"].tolist() == expected["text"].tolist()


@pytest.mark.parametrize("where", ["file", "folder", "shared root", "zip"])
def test_sms_spam_from_an_explicit_path(where, tmp_path):
    if where == "zip":
        path = tmp_path / "smsspamcollection.zip"
        path.write_bytes(zip_bytes({"readme": b"hello", "SMSSpamCollection": SMS_FILE.read_bytes()}))
    else:
        path = {"file": SMS_FILE, "folder": SMS_FILE.parent, "shared root": SHARED}[where]

    assert_is_real_sms(datasets.load_sms_spam(path, download=False))


def test_sms_spam_from_nbcourse_data_and_the_cache_stays_empty(monkeypatch, tmp_path):
    monkeypatch.setenv("NBCOURSE_DATA", str(SHARED))

    assert_is_real_sms(datasets.load_sms_spam(cache_dir=tmp_path / "cache"))
    assert files_under(tmp_path / "cache") == []


def test_sms_spam_nowhere_and_no_download_says_how_to_provide_it(tmp_path):
    with pytest.raises(datasets.CorpusNotFoundError, match="NBCOURSE_DATA") as error:
        datasets.load_sms_spam(download=False, cache_dir=tmp_path)
    assert "path=" in str(error.value)


def test_sms_spam_missing_path_names_it(tmp_path):
    missing = tmp_path / "no" / "such" / "file"
    with pytest.raises(FileNotFoundError, match=str(missing)):
        datasets.load_sms_spam(missing)
    with pytest.raises(FileNotFoundError, match="contains neither SMSSpamCollection"):
        datasets.load_sms_spam(tmp_path)


@pytest.mark.parametrize("wrong", ["weather/weather.nominal.arff", "spambase/spambase.data"])
def test_sms_spam_wrong_text_file_is_rejected_with_the_line(wrong):
    with pytest.raises(ValueError, match=r"not in SMS Spam Collection format: line 1"):
        datasets.load_sms_spam(SHARED / wrong)


def test_sms_spam_binary_file_is_rejected():
    with pytest.raises(ValueError, match="not UTF-8"):
        datasets.load_sms_spam(NEWS_ARCHIVE)


def test_sms_spam_copy_with_windows_line_endings_gives_the_same_messages(tmp_path):
    windows_copy = tmp_path / "SMSSpamCollection.txt"
    windows_copy.write_bytes(SMS_FILE.read_bytes().replace(b"\n", b"\r\n"))

    with pytest.warns(UserWarning, match="not byte-identical"):
        frame = datasets.load_sms_spam(windows_copy)
    assert frame.equals(datasets.load_sms_spam(SMS_FILE))


def test_sms_spam_modified_local_copy_loads_with_a_warning(tmp_path):
    shorter = tmp_path / "SMSSpamCollection"
    shorter.write_bytes(b"".join(SMS_FILE.read_bytes().splitlines(keepends=True)[:-1]))

    with pytest.warns(UserWarning, match="not byte-identical"):
        frame = datasets.load_sms_spam(shorter)
    assert len(frame) == 5573


def test_offline_loader_prefers_the_real_corpus_and_never_downloads(monkeypatch, capsys, server):
    monkeypatch.setattr(datasets, "SMS_SPAM_URL", server.url + "/sms.zip")
    monkeypatch.setenv("NBCOURSE_DATA", str(SHARED))

    frame = datasets.load_sms_spam_offline()

    assert_is_real_sms(frame)
    assert frame.attrs["source"] == "SMS Spam Collection v.1"
    assert capsys.readouterr().out == ""
    assert server.requests == []


def test_offline_loader_falls_back_to_the_mini_corpus_and_says_so(monkeypatch, capsys, server, tmp_path):
    monkeypatch.setattr(datasets, "SMS_SPAM_URL", server.url + "/sms.zip")

    frame = datasets.load_sms_spam_offline(cache_dir=tmp_path)

    assert frame.equals(datasets.load_sms_mini())
    assert "mini" in frame.attrs["source"]
    printed = capsys.readouterr().out
    assert "80-message mini corpus" in printed and "NBCOURSE_DATA" in printed
    assert server.requests == []


def test_offline_loader_does_not_hide_a_wrong_explicit_path(tmp_path):
    with pytest.raises(FileNotFoundError):
        datasets.load_sms_spam_offline(tmp_path / "missing")


# -- SMS Spam Collection: downloads -------------------------------------------------------------

def test_sms_download_verifies_caches_and_is_reused(monkeypatch, server, tmp_path, capsys):
    url = server.serve("/sms.zip", zip_bytes({"SMSSpamCollection": SMS_FILE.read_bytes(),
                                               "readme": b"readme"}))
    monkeypatch.setattr(datasets, "SMS_SPAM_URL", url)
    cache = tmp_path / "cache"

    assert_is_real_sms(datasets.load_sms_spam(cache_dir=cache))

    assert files_under(cache) == [cache / "sms_spam" / "SMSSpamCollection"]
    assert hashlib.sha256((cache / "sms_spam" / "SMSSpamCollection").read_bytes()).hexdigest() \
        == datasets.SMS_SPAM_SHA256
    assert "downloading sms.zip" in capsys.readouterr().err
    assert_is_real_sms(datasets.load_sms_spam(cache_dir=cache))
    assert server.requests == ["/sms.zip"]


def test_sms_download_over_a_file_url(monkeypatch, tmp_path):
    archive = tmp_path / "sms.zip"
    archive.write_bytes(zip_bytes({"SMSSpamCollection": SMS_FILE.read_bytes()}))
    monkeypatch.setattr(datasets, "SMS_SPAM_URL", archive.as_uri())

    assert_is_real_sms(datasets.load_sms_spam(cache_dir=tmp_path / "cache"))


def test_sms_download_with_wrong_checksum_leaves_the_cache_clean(monkeypatch, server, tmp_path):
    tampered = SMS_FILE.read_bytes().replace(b"Go until jurong", b"Go until jurung", 1)
    url = server.serve("/sms.zip", zip_bytes({"SMSSpamCollection": tampered}))
    monkeypatch.setattr(datasets, "SMS_SPAM_URL", url)
    cache = tmp_path / "cache"

    with pytest.raises(datasets.ChecksumError) as error:
        datasets.load_sms_spam(cache_dir=cache)

    message = str(error.value)
    assert url in message
    assert datasets.SMS_SPAM_SHA256 in message
    assert hashlib.sha256(tampered).hexdigest() in message
    assert "NBCOURSE_DATA" in message and "path=" in message
    assert files_under(cache) == []
    assert not list(cache.rglob(".download-*"))


@pytest.mark.parametrize("status", [404, 500])
def test_sms_download_server_error_is_clear(monkeypatch, server, tmp_path, status):
    url = server.serve("/sms.zip", b"oops", status=status)
    monkeypatch.setattr(datasets, "SMS_SPAM_URL", url)

    with pytest.raises(datasets.DownloadError, match=f"HTTP {status}") as error:
        datasets.load_sms_spam(cache_dir=tmp_path)
    assert url in str(error.value) and "NBCOURSE_DATA" in str(error.value)
    assert files_under(tmp_path) == []


def test_sms_download_cut_short_is_an_error(monkeypatch, server, tmp_path):
    body = zip_bytes({"SMSSpamCollection": SMS_FILE.read_bytes()})
    url = server.serve("/sms.zip", body[:1000], **{"Content-Length": str(len(body))})
    monkeypatch.setattr(datasets, "SMS_SPAM_URL", url)

    with pytest.raises(datasets.DownloadError, match="could not download|stopped after"):
        datasets.load_sms_spam(cache_dir=tmp_path)
    assert files_under(tmp_path) == []


def test_sms_download_of_something_that_is_not_a_zip(monkeypatch, server, tmp_path):
    monkeypatch.setattr(datasets, "SMS_SPAM_URL", server.serve("/sms.zip", b"<html>moved</html>"))

    with pytest.raises(datasets.DownloadError, match="did not deliver the expected zip"):
        datasets.load_sms_spam(cache_dir=tmp_path)
    assert files_under(tmp_path) == []


def test_sms_damaged_cache_is_replaced_by_a_fresh_download(monkeypatch, server, tmp_path):
    cached = tmp_path / "sms_spam" / "SMSSpamCollection"
    cached.parent.mkdir(parents=True)
    cached.write_bytes(SMS_FILE.read_bytes()[:5000])
    with pytest.raises(datasets.ChecksumError, match="cached file"):
        datasets.load_sms_spam(cache_dir=tmp_path, download=False)

    url = server.serve("/sms.zip", zip_bytes({"SMSSpamCollection": SMS_FILE.read_bytes()}))
    monkeypatch.setattr(datasets, "SMS_SPAM_URL", url)
    with pytest.warns(UserWarning, match="damaged"):
        assert_is_real_sms(datasets.load_sms_spam(cache_dir=tmp_path))
    assert cached.read_bytes() == SMS_FILE.read_bytes()


# -- 20 Newsgroups ------------------------------------------------------------------------------

def published_counts() -> dict[tuple[str, str], tuple[int, int]]:
    rows = (SHARED / "20newsgroups" / "COUNTS.tsv").read_text(encoding="ascii").splitlines()[1:]
    return {(split, group): (int(n), int(size))
            for split, group, n, size in (row.split("\t") for row in rows)}


@pytest.mark.parametrize("subset, n_docs", [("train", 11314), ("test", 7532)])
def test_newsgroups_counts_match_the_published_table(news_cache, subset, n_docs):
    corpus = datasets.load_20newsgroups(subset, cache_dir=news_cache, download=False)
    counts = published_counts()

    assert len(corpus) == len(corpus.data) == len(corpus.target) == len(corpus.filenames) == n_docs
    assert corpus.target_names == sorted(corpus.target_names)
    assert len(corpus.target_names) == 20
    assert corpus.target.dtype == np.int64
    for number, group in enumerate(corpus.target_names):
        in_group = [doc for doc, label in zip(corpus.data, corpus.target) if label == number]
        # latin-1 maps each byte to one character, so characters count bytes.
        assert (len(in_group), sum(map(len, in_group))) == counts[(subset, group)]


def test_newsgroups_matches_sklearn_load_files(news_folder, news_cache):
    from sklearn.datasets import load_files

    for subset in ("train", "test"):
        expected = load_files(news_folder / f"20news-bydate-{subset}", shuffle=False, encoding="latin-1")
        corpus = datasets.load_20newsgroups(subset, cache_dir=news_cache)

        assert corpus.data == expected.data
        assert np.array_equal(corpus.target, expected.target)
        assert corpus.target_names == expected.target_names
        assert corpus.filenames.tolist() == [str(f) for f in expected.filenames]


def test_newsgroups_all_is_train_then_test(news_cache):
    train = datasets.load_20newsgroups("train", cache_dir=news_cache)
    test = datasets.load_20newsgroups("test", cache_dir=news_cache)
    everything = datasets.load_20newsgroups("all", cache_dir=news_cache)

    assert len(everything) == 18846
    assert everything.data == train.data + test.data
    assert everything.target.tolist() == train.target.tolist() + test.target.tolist()
    assert everything.target_names == train.target_names == test.target_names
    assert repr(everything) == "TextCorpus(18846 documents, 20 classes)"


def test_newsgroups_posts_are_read_byte_for_byte(news_cache):
    everything = datasets.load_20newsgroups("all", cache_dir=news_cache)
    by_file = dict(zip((f.split("20news-bydate-", 1)[1] for f in everything.filenames), everything.data))

    assert sum(any(ord(c) > 127 for c in doc) for doc in everything.data) == 73
    assert "\r\n" in by_file["train/misc.forsale/75882"]
    assert "\r" in by_file["train/comp.sys.mac.hardware/51894"]


def test_newsgroups_from_nbcourse_data_reuses_the_extracted_cache(monkeypatch, news_cache, capsys):
    monkeypatch.setenv("NBCOURSE_DATA", str(SHARED))

    corpus = datasets.load_20newsgroups("test", cache_dir=news_cache, download=False)

    assert len(corpus) == 7532
    assert "extracting" not in capsys.readouterr().err


@pytest.mark.parametrize("where", ["extracted folder", "folder with archive"])
def test_newsgroups_from_an_explicit_folder(news_folder, news_cache, where):
    path = news_folder if where == "extracted folder" else NEWS_ARCHIVE.parent
    corpus = datasets.load_20newsgroups("test", path=path, cache_dir=news_cache, download=False)

    assert len(corpus) == 7532
    assert corpus.target_names[0] == "alt.atheism"


def test_newsgroups_bad_subset_names_the_choices(news_cache):
    with pytest.raises(ValueError, match="subset must be 'train', 'test' or 'all', got 'validation'"):
        datasets.load_20newsgroups("validation", cache_dir=news_cache)


def test_newsgroups_missing_or_wrong_path(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        datasets.load_20newsgroups(path=tmp_path / "missing.tar.gz", cache_dir=tmp_path)
    with pytest.raises(FileNotFoundError, match="holds neither"):
        datasets.load_20newsgroups(path=tmp_path, cache_dir=tmp_path)
    with pytest.raises(ValueError, match="not a .tar.gz archive"):
        datasets.load_20newsgroups(path=SMS_FILE, cache_dir=tmp_path)


def test_newsgroups_nowhere_and_no_download(tmp_path):
    with pytest.raises(datasets.CorpusNotFoundError, match="download=False"):
        datasets.load_20newsgroups(cache_dir=tmp_path, download=False)


def test_newsgroups_truncated_archive_leaves_the_cache_clean(tmp_path):
    truncated = tmp_path / "20news-bydate.tar.gz"
    truncated.write_bytes(NEWS_ARCHIVE.read_bytes()[:2_000_000])
    cache = tmp_path / "cache"

    with pytest.raises(ValueError, match="not a readable .tar.gz archive"):
        datasets.load_20newsgroups(path=truncated, cache_dir=cache)
    assert files_under(cache) == []


def test_newsgroups_hostile_archive_writes_nothing_outside_and_fails_its_checksum(tmp_path):
    archive = tmp_path / "evil.tar.gz"
    archive.write_bytes(tar_gz_bytes({
        "../escaped.txt": b"x",
        "/tmp/absolute.txt": b"x",
        "20news-bydate-train/../../escaped2.txt": b"x",
        "20news-bydate-train/../escaped3.txt": b"x",
        "20news-bydate-train/alt.atheism/1": b"hello",
        "20news-bydate-test/alt.atheism/2": b"world",
    }))
    cache = tmp_path / "cache"

    with pytest.raises(datasets.ChecksumError, match="2 posts"):
        datasets.load_20newsgroups(path=archive, cache_dir=cache)
    assert files_under(cache) == []
    assert not (tmp_path / "escaped.txt").exists() and not (tmp_path / "escaped2.txt").exists()


def test_newsgroups_download_verifies_then_caches(monkeypatch, server, tmp_path):
    # A three-post stand-in keeps this fast; the session fixture already checks the
    # real archive against the published content digest.
    posts = {"20news-bydate-train/rec.autos/101": b"engine\r\n",
             "20news-bydate-train/sci.space/7": b"orbit \xe9",
             "20news-bydate-test/rec.autos/102": b"brakes"}
    listing = "".join(f"{hashlib.sha256(posts[name]).hexdigest()}  {name}\n" for name in sorted(posts))
    monkeypatch.setattr(datasets, "NEWSGROUPS_CONTENT_SHA256", hashlib.sha256(listing.encode()).hexdigest())
    url = server.serve("/20news-bydate.tar.gz", tar_gz_bytes(posts))
    monkeypatch.setattr(datasets, "NEWSGROUPS_URL", url)
    cache = tmp_path / "cache"

    train = datasets.load_20newsgroups("train", cache_dir=cache)

    assert train.data == ["engine\r\n", "orbit \u00e9"]
    assert train.target.tolist() == [0, 1] and train.target_names == ["rec.autos", "sci.space"]
    folder = cache / "20newsgroups" / "20news-bydate"
    assert sorted(p.name for p in folder.iterdir()) == ["20news-bydate-test", "20news-bydate-train",
                                                       "VERIFIED.json"]
    assert sorted(p.name for p in folder.parent.iterdir()) == ["20news-bydate"]
    assert datasets.load_20newsgroups("test", cache_dir=cache).data == ["brakes"]
    assert server.requests == ["/20news-bydate.tar.gz"]


def test_newsgroups_download_with_wrong_content_leaves_the_cache_clean(monkeypatch, server, tmp_path):
    url = server.serve("/20news-bydate.tar.gz", tar_gz_bytes({
        "20news-bydate-train/alt.atheism/1": b"not the real corpus",
        "20news-bydate-test/alt.atheism/2": b"neither is this",
    }))
    monkeypatch.setattr(datasets, "NEWSGROUPS_URL", url)
    cache = tmp_path / "cache"

    with pytest.raises(datasets.ChecksumError) as error:
        datasets.load_20newsgroups(cache_dir=cache)

    message = str(error.value)
    assert url in message and datasets.NEWSGROUPS_CONTENT_SHA256 in message
    assert "actual   sha256" in message and "NBCOURSE_DATA" in message
    assert files_under(cache) == []
    assert not (cache / "20newsgroups" / "20news-bydate").exists()


def test_newsgroups_download_server_error(monkeypatch, server, tmp_path):
    url = server.serve("/20news-bydate.tar.gz", b"down for maintenance", status=503)
    monkeypatch.setattr(datasets, "NEWSGROUPS_URL", url)

    with pytest.raises(datasets.DownloadError, match="HTTP 503") as error:
        datasets.load_20newsgroups(cache_dir=tmp_path)
    assert url in str(error.value)
    assert files_under(tmp_path) == []


def test_newsgroups_download_of_a_web_page_instead_of_the_archive(monkeypatch, server, tmp_path):
    url = server.serve("/20news-bydate.tar.gz", b"<html>please log in</html>")
    monkeypatch.setattr(datasets, "NEWSGROUPS_URL", url)

    with pytest.raises(datasets.DownloadError, match="did not deliver a readable archive"):
        datasets.load_20newsgroups(cache_dir=tmp_path)
    assert files_under(tmp_path) == []

