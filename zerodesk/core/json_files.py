"""ZeroDesk's JSON files read defensively: a regular file of at most 16 MiB, strict, finite, shallow JSON.

Every failure is one PlanError naming what the file is and where ('catalog /x.json is not UTF-8 text').
"""

from __future__ import annotations

import gc
import json
import math
import os
import re
import stat
from contextlib import contextmanager
from typing import Any, Iterator


from .errors import PlanError, explain, os_reason
from .record import validation_error
from .text import shorten

MAX_FILE_BYTES = 16 * 2**20  # plans, configs and catalogs are kilobytes; a bigger file is not one of ours
MAX_NUMBER_DIGITS = 40  # far above any count or byte size we accept (10^15), far below Python's 4300-digit limit


class _NumberTooLarge(ValueError):
    pass


def _json_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_NUMBER_DIGITS:
        raise _NumberTooLarge(f"a number with {len(text.lstrip('-')):,} digits")
    return int(text)


def _json_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NumberTooLarge(f"the number {shorten(text)}")
    return value


def _json_constant(name: str) -> float:
    raise _NumberTooLarge(f"{name}, which is not a JSON number")


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def parse_json(text: str, source: str) -> Any:
    """JSON text to data; anything that is not plain, finite, reasonably nested JSON text is one PlanError naming the
    source (a lone surrogate escape such as \\ud800 is no character: refused as not text, not misread as depth)."""
    data = _parse_json(text, source)
    if _SURROGATE_ESCAPE.search(text):  # rare: only then look for one that pairs with nothing
        try:
            json.dumps(data, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise PlanError(f"{source} holds a lone surrogate escape (such as \\ud800), "
                            "which is not a character") from None
    return data


_LONG_RUN = b"0" * (MAX_NUMBER_DIGITS + 1)
_ASCII_DIGITS_AS_ZERO = bytes.maketrans(b"123456789", b"000000000")


def _has_long_digit_run(text: str) -> bool:
    """Whether MAX_NUMBER_DIGITS + 1 ASCII digits follow one another anywhere (in a string, too: then only the
    slower check below runs). A translate and a substring search on the UTF-8 bytes, fast in C, unlike a regex
    trying every digit or str.translate with a table (20 ms on the glossary's Russian text): UTF-8 writes every
    other character in bytes of 0x80 and above, so the runs of digit bytes are the runs of digits."""
    if len(text) <= MAX_NUMBER_DIGITS:
        return False
    return _LONG_RUN in text.encode("utf-8", "surrogatepass").translate(_ASCII_DIGITS_AS_ZERO)


def plain_json(text: str) -> bool:
    """Whether nothing in text needs parse_json's careful reading: no digit run too long for a number we accept, no
    surrogate escape. Such text may be validated straight from JSON (see all_finite for what that still misses)."""
    return not _has_long_digit_run(text) and not _SURROGATE_ESCAPE.search(text)


def all_finite(data: Any) -> bool:
    """Whether no float in data is infinite or NaN (JSON has neither; a validator reading JSON itself lets them into
    free-form data such as a config dict)."""
    if isinstance(data, float):
        return math.isfinite(data)
    if isinstance(data, dict):
        return all(all_finite(v) for v in data.values())
    if isinstance(data, (list, tuple)):
        return all(all_finite(v) for v in data)
    return True


def _parse_json(text: str, source: str) -> Any:
    # Whole numbers are checked one by one (_json_int) only where a run of digits is too long somewhere: a call
    # per number would cost seconds on a plan with a million tensor dimensions.
    ints = {"parse_int": _json_int} if _has_long_digit_run(text) else {}
    try:
        with no_collector_pauses():
            return json.loads(text, parse_float=_json_float, parse_constant=_json_constant, **ints)
    except json.JSONDecodeError as exc:
        raise PlanError(f"{source} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except _NumberTooLarge as exc:
        raise PlanError(f"{source} holds {exc}; numbers must be finite and at most {MAX_NUMBER_DIGITS} digits") from None
    except RecursionError:
        raise PlanError(f"{source} nests its JSON too deeply to be a ZeroDesk file") from None
    except (ValueError, OverflowError, MemoryError) as exc:  # whatever else the decoder refuses
        raise PlanError(f"{source} is not valid JSON ({shorten(str(exc))})") from None


def read_file(path: str | os.PathLike, what: str) -> bytes:
    """The bytes of a regular file of at most MAX_FILE_BYTES; every failure is one PlanError naming what and where.

    Opened without blocking (a FIFO must not hang us) and checked to be a regular file before reading, so
    devices such as /dev/zero, sockets and directories are refused rather than read."""
    where = shorten(os.fspath(path), 200)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
                     | getattr(os, "O_BINARY", 0))
    except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the name
        raise PlanError(f"cannot read {what} {where}: {os_reason(exc)}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise PlanError(f"{what} {where} is not a regular file")
        if info.st_size > MAX_FILE_BYTES:
            raise PlanError(f"{what} {where} is {info.st_size / 2**20:,.0f} MiB; "
                            f"a ZeroDesk file is at most {MAX_FILE_BYTES // 2**20} MiB")
        chunks, size = [], 0
        while size <= MAX_FILE_BYTES:  # st_size can lie (procfs, a file still growing)
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > MAX_FILE_BYTES:
            raise PlanError(f"{what} {where} is larger than {MAX_FILE_BYTES // 2**20} MiB")
        return b"".join(chunks)
    except OSError as exc:
        raise PlanError(f"cannot read {what} {where}: {os_reason(exc)}") from None
    finally:
        os.close(fd)


def decode_text(data: bytes, source: str) -> str:
    """File bytes (UTF-8, an optional BOM) to text; PlanError otherwise."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise PlanError(f"{source} is not UTF-8 text") from None


def decode_json(data: bytes, source: str) -> Any:
    """File bytes (UTF-8, an optional BOM) to JSON data; PlanError otherwise."""
    return parse_json(decode_text(data, source), source)


@contextmanager
def no_collector_pauses() -> Iterator[None]:
    """Hold Python's cycle collector off while a file's JSON becomes objects: a plan with a million tensors makes
    millions of lists and tuples, none in a cycle, and the collector would walk them again and again (twice the
    parse's own time). It runs as usual afterwards."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def read_json(path: str | os.PathLike, what: str) -> Any:
    """Read a UTF-8 JSON file; every failure is one PlanError naming what it is and where ('catalog /x.json')."""
    return decode_json(read_file(path, what), f"{what} {shorten(os.fspath(path), 200)}")


def read_model(path: str | os.PathLike, what: str, model: Any) -> Any:
    """read_json, then validate as `model`; a problem is one PlanError naming what and where ('glossary /x.json: ...')."""
    data = read_json(path, what)
    try:
        return model.model_validate(data)
    except validation_error() as exc:
        raise PlanError(f"{what} {path}: {explain(exc)}") from None


def _finite(data: Any) -> Any:
    if isinstance(data, float):
        return data if math.isfinite(data) else None
    if isinstance(data, dict):
        return {k: _finite(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [_finite(v) for v in data]
    return data


def json_text(data: Any, indent: int | None = 2) -> str:
    """What every --json prints: strict JSON, whatever the data holds (a non-finite float is null, never Infinity or
    NaN, which JSON does not have)."""
    return json.dumps(_finite(data), indent=indent, allow_nan=False)


def require_bool(value: Any, what: str) -> bool:
    """A JSON true/false, nothing else: the string "false" or the number 0 is an error, not a truth value."""
    if not isinstance(value, bool):
        raise PlanError(f"{what} must be true or false, not {shorten(json.dumps(value), 40)}")
    return value

