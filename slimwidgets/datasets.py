"""Data sets: an embedded default that needs no download, and the paper's eight.

``load_demo()`` binarizes scikit-learn's bundled Wisconsin diagnostic breast
cancer data (shipped inside scikit-learn, so no network). The paper's
processed data sets are read from a local folder: ``folder=`` or the
``SLIMWIDGETS_DATA`` environment variable.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = [
    "load_demo",
    "load_paper_dataset",
    "PAPER_DATASETS",
    "RULES_ATTR",
    "load",
    "cache_dir",
    "DatasetDownloadError",
    "SHA256",
]

#: The key of ``DataFrame.attrs`` that tells ``fit`` whether to turn the frame's columns into
#: rules (``slimwidgets.core.rules.needs_rules``); the paper's tables carry False, so fits on
#: them take the columns as the paper did (raw numbers) unless given ``rules=True``.
RULES_ATTR = "slimwidgets.rules"

PAPER_DATASETS = (
    "adult",
    "bankruptcy",
    "breastcancer",
    "haberman",
    "heart",
    "mammo",
    "mushroom",
    "spambase",
)

# The label column of each processed file, and what a 1 in it means. In
# breastcancer_processed.csv the column is named "Benign" but 1 marks the
# malignant tumours (see the data's provenance notes).
_POSITIVE_NAME = {
    "adult": "Over50K",
    "bankruptcy": "NotBankrupt",
    "breastcancer": "Malignant",
    "haberman": "AliveAfter5Yrs",
    "heart": "Disease",
    "mammo": "Malignant",
    "mushroom": "Poisonous",
    "spambase": "Spam",
}


def load_demo(n_features: int = 10) -> tuple[pd.DataFrame, pd.Series]:
    """scikit-learn's breast cancer data, binarized into readable threshold rules.

    Each of the first ``n_features`` "mean ..." measurements becomes a 0/1
    column ``"<measurement> >= <median>"``. ``y`` is a boolean Series named
    ``"malignant"`` (True = malignant).

    Examples
    --------
    >>> X, y = load_demo()
    >>> X.shape, y.name
    ((569, 10), 'malignant')
    """
    from sklearn.datasets import load_breast_cancer

    raw = load_breast_cancer(as_frame=True)
    frame = raw.frame
    columns = [c for c in raw.feature_names if c.startswith("mean ")][:n_features]
    X = pd.DataFrame(index=frame.index)
    for c in columns:
        cut = float(np.round(frame[c].median(), 3 if frame[c].median() < 1 else 1))
        X[f"{c.removeprefix('mean ')} >= {cut:g}"] = (frame[c] >= cut).astype(np.int8)
    y = pd.Series(raw.target == 0, name="malignant")  # sklearn codes malignant as 0
    return X, y


def _default_folder() -> Path:
    env = os.environ.get("SLIMWIDGETS_DATA")
    if env:
        return Path(env)
    raise FileNotFoundError(
        "no data folder: pass folder= or set SLIMWIDGETS_DATA to the folder holding "
        "<name>_processed.csv"
    )


def load_paper_dataset(
    name: str, folder: str | os.PathLike | None = None
) -> tuple[pd.DataFrame, pd.Series]:
    """One of the paper's processed data sets as ``(X, y)``; ``y`` is 0/1, named for class 1.

    ``X.attrs[RULES_ATTR]`` is False: ``fit`` takes its columns as the paper did (raw numbers,
    such as breastcancer's 1-10 scales); ``rules=True`` gives a points table by variable.

    The files use old-Mac CR line endings, which are normalized here.
    """
    if name not in PAPER_DATASETS:
        raise ValueError(f"unknown data set {name!r}; choose from {PAPER_DATASETS}")
    path = Path(folder) if folder is not None else _default_folder()
    path = path / f"{name}_processed.csv"
    if not path.is_file():
        raise FileNotFoundError(f"{path} does not exist")
    return _parse(path.read_text(), name)


# -- load(): local folder, user cache, or a verified download --------------------------------------
#: Where the processed files come from: the authors' slim-python repository, pinned to one commit.
SOURCE_COMMIT = "204c7db64cad0b139e748b299fea672bca9bc81e"
SOURCE_URL = (
    "https://raw.githubusercontent.com/ustunb/slim-python/{commit}/data/{name}_processed.csv"
)

#: sha256 of each ``<name>_processed.csv`` (the bytes as published, CR line endings included).
SHA256 = {
    "adult": "1a47b7ebd52b8448b67ca3508d646e5fc82f7cb67a04bf28c8c67685c71cf663",
    "bankruptcy": "cb9ddb6be7d1c154a1dbb9a6dbe2e9ca46a3d466aafe572cab05520cc22892ba",
    "breastcancer": "944c3e7f2bf2d309c81c5479163967d8a1798b2603e0a594cbf414f10e6564dc",
    "haberman": "71d50e8bb58869457399c12f52471cc4cf8e6b1d6838d7a2045eb789f83598e3",
    "heart": "aff46cdcde5631a0383295ca9943ce8999c69549e067b7fed6dc7dfcd2b71f86",
    "mammo": "8af13ed72bc1977484938f97d20b5ca2d8f972b0dae266853447cc632248c879",
    "mushroom": "72c9237d3b6f256d8613eee46d5e53693e93b5d40001fbeac076c60c5b170eec",
    "spambase": "37583092f8eb4648ecb6f0e9713f66a0bc8bce7382edd6406e99ecc41e30e508",
}


class DatasetDownloadError(OSError):
    """A paper data set is not available locally and could not be downloaded
    (or failed its checksum)."""


def cache_dir() -> Path:
    """Where downloaded data sets are kept: ``$SLIMWIDGETS_CACHE``, else the user cache folder
    (``$XDG_CACHE_HOME/slimwidgets`` or ``~/.cache/slimwidgets``; ``%LOCALAPPDATA%`` on Windows)."""
    env = os.environ.get("SLIMWIDGETS_CACHE")
    if env:
        return Path(env)
    if os.name == "nt" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"]) / "slimwidgets" / "Cache"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "slimwidgets"


def _sha256(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


def _fetch(url: str, timeout: float) -> bytes:
    """Download ``url`` (tests replace this function; they never touch the network)."""
    import urllib.request

    with urllib.request.urlopen(url, timeout=timeout) as response:  # noqa: S310 - fixed https URL
        return response.read()


def _parse(text: str, name: str) -> tuple[pd.DataFrame, pd.Series]:
    frame = pd.read_csv(io.StringIO(text.replace("\r\n", "\n").replace("\r", "\n")))
    y = frame.iloc[:, 0].astype(int).rename(_POSITIVE_NAME[name])
    X = frame.iloc[:, 1:]
    X.attrs[RULES_ATTR] = False  # the paper's processed features, taken as they are
    return X, y


def load(
    name: str,
    *,
    folder: str | os.PathLike | None = None,
    download: bool = True,
    timeout: float = 30.0,
) -> tuple[pd.DataFrame, pd.Series]:
    """One of the paper's eight processed data sets as ``(X, y)``, from wherever it is.

    Looked for, in order:

    1. ``folder``, or the folder in the ``SLIMWIDGETS_DATA`` environment
       variable (if either is set, the file must be there: a wrong folder is
       an error, not a silent download);
    2. the user cache (:func:`cache_dir`), checked against its sha256;
    3. the authors' public repository (``ustunb/slim-python``, pinned commit
       :data:`SOURCE_COMMIT`), downloaded once, verified against
       :data:`SHA256` and saved in the cache. ``download=False`` forbids it.

    ``y`` is 0/1 and named for class 1 (in breastcancer, 1 is malignant). ``X`` carries
    ``attrs[RULES_ATTR] = False``, as :func:`load_paper_dataset` says.

    Raises
    ------
    ValueError : unknown name.
    FileNotFoundError : the given/env folder lacks the file.
    DatasetDownloadError : not cached and the download failed (offline?) or
        the bytes did not match the checksum; the message says what to do.

    Examples
    --------
    >>> X, y = load("bankruptcy")  # doctest: +SKIP
    >>> X.shape, y.name            # doctest: +SKIP
    ((250, 6), 'NotBankrupt')
    """
    if name not in PAPER_DATASETS:
        raise ValueError(f"unknown data set {name!r}; choose from {PAPER_DATASETS}")
    filename = f"{name}_processed.csv"
    local = (
        Path(folder)
        if folder is not None
        else (Path(os.environ["SLIMWIDGETS_DATA"]) if os.environ.get("SLIMWIDGETS_DATA") else None)
    )
    if local is not None:
        path = local / filename
        if not path.is_file():
            origin = "folder=" if folder is not None else "SLIMWIDGETS_DATA"
            raise FileNotFoundError(
                f"{path} does not exist ({origin} points to {local}); fix the folder or unset it "
                "to download"
            )
        return _parse(path.read_bytes().decode("utf-8"), name)
    cached = cache_dir() / filename
    if cached.is_file():
        raw = cached.read_bytes()
        if _sha256(raw) == SHA256[name]:
            return _parse(raw.decode("utf-8"), name)
        cached.unlink()  # corrupt or partial: fetch again
    if not download:
        raise DatasetDownloadError(
            f"{name} is not in the cache ({cached}) and download=False; set SLIMWIDGETS_DATA to "
            f"a folder holding {filename}"
        )
    url = SOURCE_URL.format(commit=SOURCE_COMMIT, name=name)
    try:
        raw = _fetch(url, timeout)
    except OSError as exc:  # URLError, timeouts, DNS failures, refused connections
        raise DatasetDownloadError(
            f"could not download {name} from {url} ({exc}). If this machine is offline, copy "
            f"{filename} into a folder and set SLIMWIDGETS_DATA to it, or into {cached.parent}"
        ) from exc
    digest = _sha256(raw)
    if digest != SHA256[name]:
        raise DatasetDownloadError(
            f"the download of {name} from {url} has sha256 {digest}, expected {SHA256[name]}; "
            "nothing was saved"
        )
    cached.parent.mkdir(parents=True, exist_ok=True)
    tmp = cached.with_suffix(f".tmp{os.getpid()}")
    tmp.write_bytes(raw)
    os.replace(tmp, cached)
    return _parse(raw.decode("utf-8"), name)
