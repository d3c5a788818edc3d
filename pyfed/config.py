"""Option defaults from a configuration file: a ``[tool.pyfed]`` table of ``pyproject.toml``, or
a ``pyfed.toml``, found from the current directory upwards.

The search stops at the first directory that has a ``pyfed.toml`` (its top-level keys, or its
``[tool.pyfed]`` table) or a ``pyproject.toml`` (its ``[tool.pyfed]`` table, possibly absent: a
project root ends the search, as for other tools). The keys of the table are options of
``pyfed check`` (the main job); a sub-table ``[tool.pyfed.<command>]`` holds another command's
(``[tool.pyfed.search]``). Keys are the long option names without dashes (``junit-xml`` or
``junit_xml``, ``max-memory``, ``quick``); ``-k`` is ``k``. Example::

    [tool.pyfed]
    quick = true
    seed = 3
    junit-xml = "reports/pyfed.xml"

Values are checked as the command line checks them (a number option given ``"x"`` is an error
naming the file and the key); an unknown key, or a key that is not an option of the command, is an
error (exit 2). Options given on the command line win over the file.
"""

from __future__ import annotations

import os
from pathlib import Path

from .errors import InputError

__all__ = ["find_config", "load_table", "defaults_for"]

#: Option keys that are not options (the command's positional arguments).
_NOT_CONFIGURABLE = {"path", "help"}


def find_config(start=None) -> Path | None:
    """The configuration file that applies in ``start`` (default: the current directory): the
    first ``pyfed.toml`` or ``pyproject.toml`` met from there upwards, or None."""
    here = Path(start or os.getcwd()).resolve()
    for d in (here, *here.parents):
        for name in ("pyfed.toml", "pyproject.toml"):
            if (d / name).is_file():
                return d / name
    return None


def load_table(path: Path) -> dict:
    """The pyfed table of ``path``: ``[tool.pyfed]`` (or, in ``pyfed.toml``, its top level when it
    has no ``[tool.pyfed]``); {} when there is none. InputError for a file that is not TOML."""
    import tomllib

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(str(path), f"cannot read the configuration: {getattr(exc, 'strerror', None) or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(str(path), f"not valid TOML: {exc}") from None
    table = (data.get("tool") or {}).get("pyfed")
    if table is None and path.name == "pyfed.toml":
        table = data
    if table is not None and not isinstance(table, dict):
        raise InputError(str(path), "[tool.pyfed] must be a table")
    return dict(table or {})


def defaults_for(command: str, parser, start=None) -> tuple[dict, Path | None]:
    """``({dest: value}, file)``: the defaults the configuration file gives the options of
    ``command`` (whose argparse sub-parser is ``parser``). Values of options that take an argument
    are returned as text, so argparse converts and checks them as it does typed ones; flags must be
    TOML booleans. InputError (naming the file and the key) for an unknown key or a bad value."""
    path = find_config(start)
    if path is None:
        return {}, None
    table = load_table(path)
    if command != "check":
        table = table.get(command) or {}
    else:
        table = {k: v for k, v in table.items() if not isinstance(v, dict)}
    if not isinstance(table, dict):
        raise InputError(str(path), f"[tool.pyfed.{command}] must be a table")
    options = {}
    for action in parser._actions:          # argparse's documented-enough registry of options
        if action.dest in _NOT_CONFIGURABLE or not action.option_strings:
            continue
        for opt in action.option_strings:
            options[opt.lstrip("-").replace("-", "_")] = action
    out = {}
    where = f"[tool.pyfed{'' if command == 'check' else '.' + command}]"
    for key, value in table.items():
        action = options.get(str(key).replace("-", "_"))
        if action is None:
            known = sorted({a.option_strings[-1].lstrip("-") for a in options.values()})
            raise InputError(f"{path}: {where}", f"unknown key {key!r}: not an option of `pyfed {command}` "
                                                  f"(known: {', '.join(known)})")
        if action.nargs == 0:                # a flag (store_true)
            if not isinstance(value, bool):
                raise InputError(f"{path}: {where}", f"{key} must be true or false, got {value!r}")
            out[action.dest] = value
        elif isinstance(value, (dict, list)):
            raise InputError(f"{path}: {where}", f"{key} must be a single value, got {value!r}")
        elif isinstance(value, bool):
            raise InputError(f"{path}: {where}", f"{key} takes a value, not {str(value).lower()}")
        else:
            text = str(value)
            try:
                converted = action.type(text) if callable(action.type) else text
            except (TypeError, ValueError, ArithmeticError) as exc:
                raise InputError(f"{path}: {where}", f"{key}: invalid value {value!r} ({exc})") from None
            if action.choices is not None and converted not in action.choices:
                raise InputError(f"{path}: {where}", f"{key}: {value!r} is not one of "
                                                      f"{', '.join(map(str, action.choices))}")
            out[action.dest] = converted
    return out, path
