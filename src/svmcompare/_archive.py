"""Bounded reading of a model file's zip archive, before anything in it is trusted.

A model file is a zip archive whose members are all stored uncompressed
(``save_model`` writes them so).  Reading one therefore never needs more
memory than the file's own size: a member that declares a decompressed size
other than its stored size (a zip bomb, or a file not written by
``save_model``) is refused from the archive's directory, before a byte of it
is inflated.  Only regular files are read (not FIFOs or devices such as
``/dev/zero``), and the whole file is read once into memory, so the checks
and the load see the same bytes even if the file changes meanwhile.

Every ``.npy`` member's header is checked against its size (a plain numeric
or boolean dtype, a shape whose bytes fill the member exactly), so that no
array can claim more memory than the file holds.
"""

from __future__ import annotations

import io
import math
import os
import re
import stat
import zipfile
from pathlib import Path

import numpy as np

ZIP_MAGIC = b"PK\x03\x04"
# Members a model file may hold: skops' schema and arrays (named by the
# writer's object ids), and the scoring part read by ``load_predictor``.
_MEMBER = re.compile(r"schema\.json|[0-9]{1,24}\.npy|svmcompare-predictor\.json"
                     r"|svmcompare-predictor/[A-Za-z_][A-Za-z0-9_]{0,63}\.npy")
_MAX_MEMBERS = 100_000
_NPY_HEADER_MAX = 10_000  # bytes; numpy's own limit for a trusted header
_PLAIN_FLAGS = 0x8 | 0x800  # a data descriptor, UTF-8 names


def read_regular_file(path):
    """The bytes of ``path``, which must be a regular file (not a FIFO, device
    or folder); a file that does not start as a zip archive is refused after
    its first bytes."""
    path = Path(path)
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise FileNotFoundError(f"No model file at {path}.") from None
    except IsADirectoryError:
        raise ValueError(f"{path} is not a regular file (a folder).") from None
    info = os.fstat(fd)
    if stat.S_ISDIR(info.st_mode) or not stat.S_ISREG(info.st_mode):
        os.close(fd)
        kind = "a folder" if stat.S_ISDIR(info.st_mode) else "a device, FIFO or socket"
        raise ValueError(f"{path} is not a regular file ({kind}); model files are regular "
                         "files.")
    with os.fdopen(fd, "rb") as handle:
        head = handle.read(len(ZIP_MAGIC))
        if head != ZIP_MAGIC:
            raise ValueError(f"{path} is not an svmcompare model file (not a zip archive).")
        # At most the size fstat reported: a file growing meanwhile is not followed.
        return head + handle.read(max(info.st_size - len(head), 0))


class Archive:
    """The checked members of a model file: ``names``, ``read(name)``."""

    def __init__(self, data, source):
        self.source = source
        self.data = data
        try:
            self._zip = zipfile.ZipFile(io.BytesIO(data))
            infos = self._zip.infolist()
        except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError,
                NotImplementedError, OSError) as exc:
            raise ValueError(f"{source} is not an svmcompare model file ({exc}).") from None
        if len(infos) > _MAX_MEMBERS:
            raise ValueError(f"{source} has {len(infos)} members; a model file has far fewer.")
        self.names = set()
        for info in infos:
            self._check_member(info)
        # (shape, dtype) of every array member, checked against its bytes.
        self.arrays = {name: check_npy(self.read(name), f"{source}: {name}")
                       for name in self.names if name.endswith(".npy")}

    def _check_member(self, info):
        name = info.filename
        if not _MEMBER.fullmatch(name):
            raise ValueError(f"{self.source} holds a member {name[:80]!r} that no svmcompare "
                             "model file has; refusing to read it.")
        if name in self.names:
            raise ValueError(f"{self.source} holds the member {name!r} twice.")
        if info.compress_type != zipfile.ZIP_STORED or info.file_size != info.compress_size:
            raise ValueError(
                f"{self.source}: member {name!r} is compressed ({info.compress_size:,} bytes "
                f"that expand to {info.file_size:,}); svmcompare model files store members "
                "uncompressed, so this file was not written by save_model.")
        if info.flag_bits & ~_PLAIN_FLAGS:
            raise ValueError(f"{self.source}: member {name!r} uses zip features (flags "
                             f"{info.flag_bits:#x}: encryption, patches, strong encryption) "
                             "that no model file uses.")
        self.names.add(name)

    def read(self, name):
        """A member's bytes (its CRC checked)."""
        try:
            return self._zip.read(name)
        except Exception as exc:  # zipfile raises many types on damaged data
            raise ValueError(f"{self.source}: member {name!r} is damaged "
                             f"({type(exc).__name__}: {str(exc)[:160]}).") from None


def check_npy(data, where):
    """Refuse a ``.npy`` member whose header is malformed, whose dtype is not a
    plain number or boolean type, or whose shape does not fill its bytes;
    return its (shape, dtype)."""
    stream = io.BytesIO(data)
    try:
        version = np.lib.format.read_magic(stream)
        reader = {(1, 0): np.lib.format.read_array_header_1_0,
                  (2, 0): np.lib.format.read_array_header_2_0}.get(version)
        if reader is None:
            raise ValueError(f"unknown .npy version {version}")
        shape, fortran_order, dtype = reader(stream, max_header_size=_NPY_HEADER_MAX)
    except Exception as exc:  # numpy's header parser raises many types on junk
        raise ValueError(f"{where}: not a valid array ({type(exc).__name__}: "
                         f"{str(exc)[:200]}).") from None
    if dtype.hasobject or dtype.fields is not None or dtype.subdtype is not None \
            or dtype.kind not in "biuf":
        raise ValueError(f"{where}: arrays in model files hold numbers; got dtype {dtype}.")
    if not all(isinstance(n, int) and n >= 0 for n in shape):
        raise ValueError(f"{where}: invalid array shape {shape}.")
    expected = math.prod(shape) * dtype.itemsize
    if expected != len(data) - stream.tell():
        raise ValueError(f"{where}: the array header claims shape {shape} ({expected:,} bytes) "
                         f"but the member holds {len(data) - stream.tell():,}.")
    return shape, dtype


def read_npy(data, where):
    """A checked ``.npy`` member as an array (no pickles)."""
    check_npy(data, where)
    return np.load(io.BytesIO(data), allow_pickle=False)
