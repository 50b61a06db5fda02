"""The loaders on local sources: shipped tables and corpora, path=, NBCOURSE_DATA, the cache.

Downloads and mirrors are tested in test_datasets_download.py. Nothing here reads a
shared data folder: the SMS Spam Collection and Spambase come from the copies shipped
in data/, and 20 Newsgroups from the ``newsgroups_folder`` fixture, which finds or
fetches it as a student's loader does (or from a small generated archive).
"""
from __future__ import annotations

import csv
import gzip
import hashlib
import shutil
from unittest import mock

import numpy as np
import pandas as pd
import pytest

from course_paths import REPO
from datasets_support import (SHIPPED, SMALL_POSTS, SMS_FILE, SPAMBASE_FILE, content_digest,
                              files_under, tar_gz_bytes, zip_bytes)
from nbcourse import datasets
from nbcourse.datasets import _twenty_newsgroups

UNREACHABLE_PROXY = "http://127.0.0.1:9"
#: Weka 3.8's weather.nominal.arff, row by row (PROVENANCE.md lists the same 14 rows).
WEKA_WEATHER_ROWS = """
sunny,hot,high,FALSE,no        sunny,hot,high,TRUE,no         overcast,hot,high,FALSE,yes
rainy,mild,high,FALSE,yes      rainy,cool,normal,FALSE,yes    rainy,cool,normal,TRUE,no
overcast,cool,normal,TRUE,yes  sunny,mild,high,FALSE,no       sunny,cool,normal,FALSE,yes
rainy,mild,normal,FALSE,yes    sunny,mild,normal,TRUE,yes     overcast,mild,high,TRUE,yes
overcast,hot,normal,FALSE,yes  rainy,mild,high,TRUE,no
""".split()


@pytest.fixture(autouse=True)
def isolated_environment(monkeypatch, tmp_path):
    """No test reads the user's cache or NBCOURSE_DATA, and none can reach the internet."""
    for name in ("NBCOURSE_DATA", "NBCOURSE_SHIPPED_DATA", "NBCOURSE_MIRROR", "NBCOURSE_DOWNLOAD_TIMEOUT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NBCOURSE_CACHE", str(tmp_path / "default-cache"))
    for name in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY"):
        monkeypatch.setenv(name, UNREACHABLE_PROXY)
    for name in ("no_proxy", "NO_PROXY"):
        monkeypatch.setenv(name, "")


@pytest.fixture
def without_shipped_corpora(monkeypatch, tmp_path):
    """A data folder with the small tables only, like an install that lost the corpora."""
    folder = tmp_path / "shipped-tables-only"
    folder.mkdir()
    for name in ("weather.csv", "picnic.csv", "sms_mini.tsv"):
        shutil.copy(SHIPPED / name, folder / name)
    monkeypatch.setenv("NBCOURSE_SHIPPED_DATA", str(folder))
    return folder


@pytest.fixture
def small_newsgroups(monkeypatch, tmp_path):
    """A four-post archive in 20 Newsgroups' layout, with its own content digest."""
    monkeypatch.setattr(_twenty_newsgroups, "NEWSGROUPS_CONTENT_SHA256", content_digest(SMALL_POSTS))
    archive = tmp_path / "small" / "20newsgroups" / "20news-bydate.tar.gz"
    archive.parent.mkdir(parents=True)
    archive.write_bytes(tar_gz_bytes(SMALL_POSTS))
    return archive


# -- shipped tables -----------------------------------------------------------------------------

def test_weather_matches_weka_arff_row_by_row():
    expected = [line.lower().split(",") for line in WEKA_WEATHER_ROWS]

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


def test_every_shipped_file_is_documented_with_its_checksum_in_the_data_readme():
    readme = (REPO / "data" / "README.md").read_text(encoding="utf-8")
    shipped = sorted(str(p.relative_to(REPO / "data")) for p in (REPO / "data").rglob("*")
                     if p.is_file() and p.name not in ("README.md", ".gitattributes"))

    assert shipped == ["digits/digits.csv.gz", "picnic.csv", "sms_mini.tsv", "sms_spam/SMSSpamCollection", "sms_spam/readme",
                       "spambase/spambase.DOCUMENTATION", "spambase/spambase.data",
                       "spambase/spambase.names", "weather.csv"]
    for name in shipped:
        assert f"`{name}`" in readme, name
    for corpus_file in ("sms_spam/SMSSpamCollection", "spambase/spambase.data", "digits/digits.csv.gz"):
        assert hashlib.sha256((REPO / "data" / corpus_file).read_bytes()).hexdigest() in readme
    assert "CC BY 4.0" in readme and "https://creativecommons.org/licenses/by/4.0/" in readme


def test_shipped_corpora_are_the_published_files_kept_byte_for_byte():
    assert hashlib.sha256(SMS_FILE.read_bytes()).hexdigest() == datasets.SMS_SPAM_SHA256
    assert hashlib.sha256(SPAMBASE_FILE.read_bytes()).hexdigest() == datasets.SPAMBASE_SHA256
    attributes = (REPO / "data" / ".gitattributes").read_text(encoding="utf-8")
    assert "sms_spam/** -text" in attributes and "spambase/** -text" in attributes
    assert hashlib.sha256((SHIPPED / "digits" / "digits.csv.gz").read_bytes()).hexdigest() == datasets.DIGITS_SHA256
    assert "digits/** -text" in attributes


def test_shipped_data_folder_is_the_checkout_data_folder_unless_overridden(monkeypatch, tmp_path):
    assert datasets.shipped_data_dir() == REPO / "data"

    monkeypatch.setenv("NBCOURSE_SHIPPED_DATA", str(tmp_path))
    (tmp_path / "weather.csv").write_text("outlook,play\nsunny,no\n", encoding="utf-8")
    assert datasets.load_weather().values.tolist() == [["sunny", "no"]]


@pytest.mark.parametrize("problem", ["missing folder", "folder without the tables"])
def test_a_bad_nbcourse_shipped_data_is_an_error_that_names_it(monkeypatch, tmp_path, problem):
    folder = tmp_path / "nowhere" if problem == "missing folder" else tmp_path
    monkeypatch.setenv("NBCOURSE_SHIPPED_DATA", str(folder))
    expected = "is not a folder" if problem == "missing folder" else "has no weather.csv"

    with pytest.raises(FileNotFoundError, match=f"NBCOURSE_SHIPPED_DATA is set to .*{expected}"):
        datasets.load_weather()
    with pytest.raises(FileNotFoundError, match="NBCOURSE_SHIPPED_DATA"):
        datasets.load_sms_spam()


def test_a_bad_nbcourse_data_is_an_error_that_names_it(monkeypatch, tmp_path):
    monkeypatch.setenv("NBCOURSE_DATA", str(tmp_path / "nowhere"))
    with pytest.raises(FileNotFoundError, match="NBCOURSE_DATA is set to .* which is not a folder"):
        datasets.load_spambase()


def test_sms_mini_is_our_own_and_well_formed():
    mini = datasets.load_sms_mini()
    real_messages = {line.split("\t", 1)[1] for line in SMS_FILE.read_text(encoding="utf-8").splitlines()}

    assert list(mini.columns) == ["label", "text"]
    assert 60 <= len(mini) <= 100
    assert mini["label"].value_counts().to_dict() == {"ham": 56, "spam": 24}
    assert mini["text"].is_unique
    assert all(message.strip() == message and message for message in mini["text"])
    assert not set(mini["text"]) & real_messages


# -- SMS Spam Collection and Spambase: local sources ------------------------------------------------

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


def test_both_shipped_corpora_load_with_no_network_and_no_cache(tmp_path):
    cache = tmp_path / "cache"
    assert_is_real_sms(datasets.load_sms_spam(cache_dir=cache))
    assert datasets.load_spambase(cache_dir=cache).shape == (4601, 58)
    assert datasets.fetch_corpus("sms_spam", download=False, cache_dir=cache) == SMS_FILE
    assert datasets.fetch_corpus("spambase", download=False, cache_dir=cache) == SPAMBASE_FILE
    assert files_under(cache) == []


@pytest.mark.parametrize("where", ["file", "folder", "data root", "zip"])
def test_sms_spam_from_an_explicit_path(where, tmp_path):
    if where == "zip":
        path = tmp_path / "smsspamcollection.zip"
        path.write_bytes(zip_bytes({"readme": b"hello", "SMSSpamCollection": SMS_FILE.read_bytes()}))
    else:
        path = {"file": SMS_FILE, "folder": SMS_FILE.parent, "data root": SHIPPED}[where]

    assert_is_real_sms(datasets.load_sms_spam(path, download=False))


def test_nbcourse_data_comes_before_the_shipped_copy_and_the_cache_stays_empty(monkeypatch, tmp_path):
    data = tmp_path / "data"
    (data / "sms_spam").mkdir(parents=True)
    shorter = b"".join(SMS_FILE.read_bytes().splitlines(keepends=True)[:-1])
    (data / "sms_spam" / "SMSSpamCollection").write_bytes(shorter)
    monkeypatch.setenv("NBCOURSE_DATA", str(data))

    with pytest.warns(UserWarning, match="not byte-identical"):
        frame = datasets.load_sms_spam(cache_dir=tmp_path / "cache")
    assert len(frame) == 5573
    assert files_under(tmp_path / "cache") == []


def test_a_damaged_shipped_copy_is_not_used(without_shipped_corpora, tmp_path):
    (without_shipped_corpora / "spambase").mkdir()
    (without_shipped_corpora / "spambase" / "spambase.data").write_bytes(SPAMBASE_FILE.read_bytes()[:-100])

    with pytest.warns(UserWarning, match="damaged"), pytest.raises(datasets.CorpusNotFoundError):
        datasets.load_spambase(download=False, cache_dir=tmp_path / "cache")


def test_a_verified_cached_copy_is_used_when_nothing_is_shipped(without_shipped_corpora, tmp_path):
    cached = tmp_path / "cache" / "sms_spam" / "SMSSpamCollection"
    cached.parent.mkdir(parents=True)
    shutil.copy(SMS_FILE, cached)

    assert_is_real_sms(datasets.load_sms_spam(download=False, cache_dir=tmp_path / "cache"))
    assert datasets.fetch_corpus("sms_spam", download=False, cache_dir=tmp_path / "cache") == cached


def test_sms_spam_nowhere_and_no_download_says_how_to_provide_it(without_shipped_corpora, tmp_path):
    with pytest.raises(datasets.CorpusNotFoundError) as error:
        datasets.load_sms_spam(download=False, cache_dir=tmp_path)
    message = str(error.value)
    for way in ("NBCOURSE_DATA", "NBCOURSE_MIRROR", "sms+spam+collection.zip", datasets.SMS_SPAM_URL,
                "path="):
        assert way in message


def test_sms_spam_missing_path_names_it(tmp_path):
    missing = tmp_path / "no" / "such" / "file"
    with pytest.raises(FileNotFoundError, match=str(missing)):
        datasets.load_sms_spam(missing)
    with pytest.raises(FileNotFoundError, match="contains neither SMSSpamCollection"):
        datasets.load_sms_spam(tmp_path)


@pytest.mark.parametrize("wrong", ["weather.csv", "spambase/spambase.data"])
def test_sms_spam_wrong_text_file_is_rejected_with_the_line(wrong):
    with pytest.raises(ValueError, match=r"not in SMS Spam Collection format: line 1"):
        datasets.load_sms_spam(SHIPPED / wrong)


def test_sms_spam_binary_file_is_rejected(tmp_path):
    binary = tmp_path / "archive.tar.gz"
    binary.write_bytes(tar_gz_bytes(SMALL_POSTS))
    with pytest.raises(ValueError, match="not UTF-8"):
        datasets.load_sms_spam(binary)


def test_sms_spam_copy_with_windows_line_endings_gives_the_same_messages(tmp_path):
    windows_copy = tmp_path / "SMSSpamCollection.txt"
    windows_copy.write_bytes(SMS_FILE.read_bytes().replace(b"\n", b"\r\n"))

    with pytest.warns(UserWarning, match="not byte-identical"):
        frame = datasets.load_sms_spam(windows_copy)
    assert frame.equals(datasets.load_sms_spam(SMS_FILE))


def test_sms_spam_or_mini_gives_the_shipped_real_corpus_and_never_downloads(recwarn):
    frame = datasets.load_sms_spam_or_mini()

    assert_is_real_sms(frame)
    assert frame.attrs["source"] == "SMS Spam Collection v.1"
    assert not [w for w in recwarn if issubclass(w.category, UserWarning)]


def test_sms_spam_or_mini_falls_back_to_the_mini_corpus_with_a_warning(without_shipped_corpora, tmp_path,
                                                                      capsys):
    with pytest.warns(UserWarning, match="80-message mini corpus") as caught:
        frame = datasets.load_sms_spam_or_mini(cache_dir=tmp_path)

    assert frame.equals(datasets.load_sms_mini())
    assert "mini" in frame.attrs["source"]
    assert "NBCOURSE_MIRROR" in str(caught[0].message) and "NBCOURSE_DATA" in str(caught[0].message)
    assert capsys.readouterr().out == ""


def test_sms_spam_or_mini_does_not_hide_a_wrong_explicit_path(tmp_path):
    with pytest.raises(FileNotFoundError):
        datasets.load_sms_spam_or_mini(tmp_path / "missing")


def test_fetch_corpus_names_the_choices():
    with pytest.raises(ValueError, match="'sms_spam', 'spambase', '20newsgroups'"):
        datasets.fetch_corpus("iris")


# -- 20 Newsgroups --------------------------------------------------------------------------------

def published_counts() -> dict[tuple[str, str], tuple[int, int]]:
    rows = (REPO / "tests" / "20newsgroups_counts.tsv").read_text(encoding="ascii").splitlines()[1:]
    return {(split, group): (int(n), int(size))
            for split, group, n, size in (row.split("\t") for row in rows)}


@pytest.mark.parametrize("subset, n_docs", [("train", 11314), ("test", 7532)])
def test_newsgroups_counts_match_the_published_table(newsgroups_folder, subset, n_docs):
    corpus = datasets.load_20newsgroups(subset, path=newsgroups_folder)
    counts = published_counts()

    assert len(corpus) == len(corpus.data) == len(corpus.target) == len(corpus.filenames) == n_docs
    assert corpus.target_names == sorted(corpus.target_names)
    assert len(corpus.target_names) == 20
    assert corpus.target.dtype == np.int64
    for number, group in enumerate(corpus.target_names):
        in_group = [doc for doc, label in zip(corpus.data, corpus.target) if label == number]
        # latin-1 maps each byte to one character, so characters count bytes.
        assert (len(in_group), sum(map(len, in_group))) == counts[(subset, group)]


def test_newsgroups_folder_carries_the_verified_marker(newsgroups_folder):
    marker = (newsgroups_folder / "VERIFIED.json").read_text(encoding="utf-8")
    assert datasets.NEWSGROUPS_CONTENT_SHA256 in marker


def test_newsgroups_matches_sklearn_load_files(newsgroups_folder):
    from sklearn.datasets import load_files

    for subset in ("train", "test"):
        expected = load_files(newsgroups_folder / f"20news-bydate-{subset}", shuffle=False,
                              encoding="latin-1")
        corpus = datasets.load_20newsgroups(subset, path=newsgroups_folder)

        assert corpus.data == expected.data
        assert np.array_equal(corpus.target, expected.target)
        assert corpus.target_names == expected.target_names
        assert corpus.filenames.tolist() == [str(f) for f in expected.filenames]


def test_newsgroups_all_is_train_then_test(newsgroups_folder):
    train = datasets.load_20newsgroups("train", path=newsgroups_folder)
    test = datasets.load_20newsgroups("test", path=newsgroups_folder)
    everything = datasets.load_20newsgroups("all", path=newsgroups_folder)

    assert len(everything) == 18846
    assert everything.data == train.data + test.data
    assert everything.target.tolist() == train.target.tolist() + test.target.tolist()
    assert everything.target_names == train.target_names == test.target_names
    assert repr(everything) == "TextCorpus(18846 documents, 20 classes)"


def test_newsgroups_without_content_lists_the_same_files_and_labels(newsgroups_folder):
    # lesson 07 reads the posts itself (under tracemalloc): the loader must not read them first
    full = datasets.load_20newsgroups("train", path=newsgroups_folder)
    listed = datasets.load_20newsgroups("train", path=newsgroups_folder, load_content=False)
    assert listed.data is None and len(listed) == len(full) == 11314
    assert np.array_equal(listed.filenames, full.filenames)
    assert np.array_equal(listed.target, full.target) and listed.target_names == full.target_names
    with mock.patch("builtins.open", side_effect=AssertionError("a post was read")):
        datasets.load_20newsgroups("test", path=newsgroups_folder, load_content=False)
    with pytest.raises(TypeError, match="load_content"):
        datasets.load_20newsgroups("train", path=newsgroups_folder, load_content="no")


def test_newsgroups_posts_are_read_byte_for_byte(newsgroups_folder):
    everything = datasets.load_20newsgroups("all", path=newsgroups_folder)
    by_file = dict(zip((f.split("20news-bydate-", 1)[1] for f in everything.filenames), everything.data))

    assert sum(any(ord(c) > 127 for c in doc) for doc in everything.data) == 73
    assert "\r\n" in by_file["train/misc.forsale/75882"]
    assert "\r" in by_file["train/comp.sys.mac.hardware/51894"]


def test_newsgroups_from_nbcourse_data_is_extracted_once(monkeypatch, small_newsgroups, tmp_path, capsys):
    monkeypatch.setenv("NBCOURSE_DATA", str(small_newsgroups.parent.parent))
    cache = tmp_path / "cache"

    train = datasets.load_20newsgroups("train", cache_dir=cache, download=False)
    assert "extracting" in capsys.readouterr().err
    test = datasets.load_20newsgroups("test", cache_dir=cache, download=False)

    assert train.data == ["engine\r\n", "orbit \u00e9"] and test.data == ["brakes", "launch"]
    assert train.target_names == ["rec.autos", "sci.space"]
    assert "extracting" not in capsys.readouterr().err
    assert datasets.fetch_corpus("20newsgroups", download=False, cache_dir=cache) == \
        cache / "20newsgroups" / "20news-bydate"


@pytest.mark.parametrize("where", ["archive", "folder with archive", "extracted folder"])
def test_newsgroups_from_an_explicit_path(small_newsgroups, tmp_path, where):
    cache = tmp_path / "cache"
    if where == "extracted folder":
        path = datasets.newsgroups_folder(small_newsgroups, cache_dir=cache)
    else:
        path = small_newsgroups if where == "archive" else small_newsgroups.parent

    corpus = datasets.load_20newsgroups("all", path=path, cache_dir=cache, download=False)

    assert len(corpus) == 4 and corpus.target_names == ["rec.autos", "sci.space"]


def test_newsgroups_bad_subset_names_the_choices(small_newsgroups, tmp_path):
    with pytest.raises(ValueError, match="subset must be 'train', 'test' or 'all', got 'validation'"):
        datasets.load_20newsgroups("validation", path=small_newsgroups, cache_dir=tmp_path)


def test_newsgroups_missing_or_wrong_path(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        datasets.load_20newsgroups(path=tmp_path / "missing.tar.gz", cache_dir=tmp_path)
    with pytest.raises(FileNotFoundError, match="holds neither"):
        datasets.load_20newsgroups(path=tmp_path, cache_dir=tmp_path)
    with pytest.raises(ValueError, match="not a .tar.gz archive"):
        datasets.load_20newsgroups(path=SMS_FILE, cache_dir=tmp_path)


def test_newsgroups_nowhere_and_no_download_names_the_three_ways(tmp_path):
    with pytest.raises(datasets.CorpusNotFoundError, match="download=False") as error:
        datasets.load_20newsgroups(cache_dir=tmp_path, download=False)
    message = str(error.value)
    for way in ("NBCOURSE_DATA", "NBCOURSE_MIRROR", "20news-bydate.tar.gz", datasets.NEWSGROUPS_URL):
        assert way in message


def test_newsgroups_truncated_archive_leaves_the_cache_clean(small_newsgroups, tmp_path):
    truncated = tmp_path / "20news-bydate.tar.gz"
    truncated.write_bytes(small_newsgroups.read_bytes()[:60])
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


# -- handwritten digits (shipped, CC BY 4.0) -----------------------------------------------------

def test_digits_are_the_uci_test_part_and_agree_with_scikit_learn():
    from sklearn.datasets import load_digits as sklearn_digits

    digits = datasets.load_digits()
    assert digits.shape == (1797, 65) and list(digits.columns[:2]) == ["pixel_0_0", "pixel_0_1"]
    assert digits["label"].value_counts().sort_index().tolist() == [178, 182, 177, 183, 181, 182, 181,
                                                                   179, 174, 180]
    theirs = sklearn_digits()
    np.testing.assert_array_equal(digits.drop(columns="label").to_numpy(), theirs.data)
    np.testing.assert_array_equal(digits["label"].to_numpy(), theirs.target)
    readme = (REPO / "data" / "README.md").read_text(encoding="utf-8")
    assert "Alpaydin" in readme and "Kaynak" in readme and datasets.DIGITS_SHA256 in readme


def test_digits_from_nbcourse_data_come_first_and_a_different_copy_warns(monkeypatch, tmp_path):
    folder = tmp_path / "data" / "digits"
    folder.mkdir(parents=True)
    raw = gzip.decompress((SHIPPED / "digits" / "digits.csv.gz").read_bytes()).splitlines()[:20]
    (folder / "digits.csv.gz").write_bytes(gzip.compress(b"\n".join(raw) + b"\n"))
    monkeypatch.setenv("NBCOURSE_DATA", str(tmp_path / "data"))
    with pytest.warns(UserWarning, match="not byte-identical"):
        assert len(datasets.load_digits()) == 20


def test_a_damaged_shipped_digits_file_is_not_used(monkeypatch, tmp_path):
    folder = tmp_path / "shipped"
    (folder / "digits").mkdir(parents=True)
    shutil.copy(SHIPPED / "weather.csv", folder / "weather.csv")
    (folder / "digits" / "digits.csv.gz").write_bytes(gzip.compress(b"0,1\n"))
    monkeypatch.setenv("NBCOURSE_SHIPPED_DATA", str(folder))
    with pytest.warns(UserWarning, match="damaged"), pytest.raises(datasets.CorpusNotFoundError,
                                                                   match="data/digits/digits.csv.gz"):
        datasets.load_digits()


@pytest.mark.parametrize("content, problem", [(b"not gzip", "not the gzipped CSV"),
                                              (gzip.compress(b"1,2,3\n"), "expected 64 pixel counts")])
def test_a_wrong_digits_file_is_rejected_with_a_clear_message(tmp_path, content, problem):
    wrong = tmp_path / "digits.csv.gz"
    wrong.write_bytes(content)
    with pytest.raises(ValueError, match=problem), pytest.warns(UserWarning):
        datasets.load_digits(wrong)
    with pytest.raises(FileNotFoundError, match="is not the digits file"):
        datasets.load_digits(tmp_path / "missing.csv.gz")
