"""What makes a bot itself, kept in the journal: a rerun with other bots is refused.

A journal's games were played by the bots it names; a spec (``mybot``, ``cmd:./bot``)
names a bot only together with what stands behind it.  The *identity* of a bot is
what bones can see of that:

* a bot registered by a plugin: the plugin's name, the distribution and version it was
  installed from (``importlib.metadata``; the built-in bots: bones and its version), the
  sha256 of the code of the plugin's module and of the module that defines the bot's
  factory -- the module's file, or for a module of a package every Python file of the
  package -- (not for the built-ins: bones' version stands for them), and the bot's
  options as resolved from the spec (the defaults filled in: a plugin that changes a
  default changes the bot);
* an external bot (``cmd:COMMAND LINE``): the sha256 of its program (the command's first
  word, found through ``PATH`` as the system would run it) and, when the program is an
  interpreter (``python``, ``node``, ``bash``, ...), of its script (the first argument
  that is not an option, when it is a file).

What a bot imports beyond those files, and the data files it reads, are not seen (see
docs/matches.md).  :func:`identities` computes them for a match's bots (in the runner,
after its plugins are loaded); :func:`differences` says, one phrase per change, how
two differ.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sys
from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import Any

__all__ = ["bot_identity", "differences", "file_sha256", "identities"]

#: Programs that run a script named by an argument: the script is hashed too.
_INTERPRETERS = re.compile(
    r"(python|pypy|node|nodejs|deno|bun|ruby|perl|php|bash|sh|dash|zsh|ksh|fish|lua|luajit|"
    r"julia|Rscript|java|dotnet|mono|guile|racket|sbcl|ocaml|swipl)[0-9.]*(\.exe)?",
    re.IGNORECASE,
)


def file_sha256(path: str) -> str | None:
    """The sha256 (hex) of the file at ``path``; ``None`` if it cannot be read."""
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
    except OSError:
        return None
    return digest.hexdigest()


def _plain(value: Any) -> Any:
    """A value as JSON keeps it: an option's default that JSON cannot hold is its repr."""
    try:
        return json.loads(json.dumps(value, sort_keys=True))
    except (TypeError, ValueError):
        return repr(value)


def _module_of(obj: object) -> ModuleType | None:
    if isinstance(obj, ModuleType):
        return obj
    name = getattr(obj, "__module__", None) or getattr(type(obj), "__module__", None)
    return sys.modules.get(name) if isinstance(name, str) else None


def _dist_of_module(module: ModuleType) -> tuple[str, str] | None:
    """The installed distribution that holds the top-level package of ``module``."""
    from importlib.metadata import PackageNotFoundError, packages_distributions, version

    top = module.__name__.partition(".")[0]
    try:
        names = packages_distributions().get(top) or []
    except Exception:  # noqa: BLE001  (a broken site folder: no distribution)
        return None
    for name in names:
        try:
            return name, version(name)
        except PackageNotFoundError:
            continue
    return None


def _package_sha256(paths: Sequence[str]) -> str | None:
    """One sha256 over the Python files of a package's folders (each file's path in the
    package and its own sha256, in order); ``None`` if one cannot be read."""
    digest = hashlib.sha256()
    for root in paths:
        found = []
        for folder, dirs, names in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith("."))
            found += [os.path.join(folder, n) for n in names if n.endswith((".py", ".pyi"))]
        for path in sorted(found):
            one = file_sha256(path)
            if one is None:
                return None
            digest.update(f"{os.path.relpath(path, root)}\0{one}\n".encode())
    return digest.hexdigest()


def _source(module: ModuleType) -> tuple[str, str | None] | None:
    """What stands for a module's code: ``("package TOP", sha256 of every Python file of
    its top-level package)`` for a module of a package (a bot's code is often spread over
    it), ``("module NAME", sha256 of its file)`` for a lone module; ``None`` for bones'
    own modules (its version stands for them) and modules without a file."""
    name = module.__name__
    top = name.partition(".")[0]
    if top == "bones":
        return None
    package = sys.modules.get(top)
    paths = getattr(package, "__path__", None) if package is not None else None
    if paths:
        return f"package {top}", _package_sha256([str(p) for p in paths])
    path = getattr(module, "__file__", None)
    if not isinstance(path, str):
        return None
    return f"module {name}", file_sha256(path)


def _plugin_identity(spec: str) -> dict[str, Any]:
    from .. import __version__
    from ..bot import _resolve_spec
    from ..plugins.manager import BUILTIN_PLUGINS, get_plugin_manager

    bspec, options = _resolve_spec(spec, None)
    out: dict[str, Any] = {"bot": bspec.name, "plugin": bspec.plugin}
    files: dict[str, str | None] = {}
    if bspec.plugin in BUILTIN_PLUGINS:
        out["dist"], out["version"] = "bones", __version__
    else:
        pm = get_plugin_manager()
        plugin = pm.get_plugin(bspec.plugin)
        module = _module_of(plugin) if plugin is not None else None
        dist = pm.distinfo(plugin) if plugin is not None else None
        if dist is None and module is not None:
            dist = _dist_of_module(module)
        out["dist"], out["version"] = dist if dist is not None else (None, None)
        factory = _module_of(bspec.factory)
        for mod in (module, factory):
            source = _source(mod) if mod is not None else None
            if source is not None:
                files[source[0]] = source[1]
    out["files"] = files
    out["options"] = {k: _plain(v) for k, v in sorted(options.items())}
    return out


def _command_identity(command: Sequence[str]) -> dict[str, Any]:
    program = command[0]
    found = shutil.which(program)
    files: dict[str, str | None] = {
        f"program {program}": file_sha256(found) if found is not None else None
    }
    real = os.path.basename(os.path.realpath(found)) if found is not None else ""
    if _INTERPRETERS.fullmatch(os.path.basename(program)) or _INTERPRETERS.fullmatch(real):
        for arg in command[1:]:
            if arg in ("-m", "-c", "-e", "--eval"):  # a module or inline code: no script file
                break
            if arg.startswith("-"):
                continue
            if os.path.isfile(arg):
                files[f"script {arg}"] = file_sha256(arg)
            break
    return {"command": list(command), "files": files}


def bot_identity(spec: str) -> dict[str, Any]:
    """The identity of the bot of ``spec`` (its plugin loaded): a JSON-ready dict."""
    from ..bot import command_of

    command = command_of(spec)
    if command is not None:
        return _command_identity(command)
    return _plugin_identity(spec)


def identities(bots: Sequence[str]) -> list[dict[str, Any]]:
    """The identity of each bot of a match, in the order of its bots."""
    cache: dict[str, dict[str, Any]] = {}
    for spec in bots:
        if spec not in cache:
            cache[spec] = bot_identity(spec)
    return [cache[spec] for spec in bots]


def _short(digest: Any) -> str:
    return digest[:12] if isinstance(digest, str) else "missing"


def _show(value: Any) -> str:
    return json.dumps(value) if not isinstance(value, str) else value


def _one(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """How the identity ``new`` differs from ``old``, one phrase per change."""
    out: list[str] = []
    if old.get("plugin") != new.get("plugin"):
        out.append(f"registered by plugin {old.get('plugin')!r} -> {new.get('plugin')!r}")
    before = (old.get("dist"), old.get("version"))
    after = (new.get("dist"), new.get("version"))
    if before != after:
        if before[0] == after[0]:
            out.append(f"plugin {after[0]} {before[1]} -> {after[1]}")
        else:
            a = " ".join(str(x) for x in before if x) or "no distribution"
            b = " ".join(str(x) for x in after if x) or "no distribution"
            out.append(f"plugin {a} -> {b}")
    if old.get("command") != new.get("command"):
        out.append(f"command {old.get('command')} -> {new.get('command')}")
    files_a = _mapping(old.get("files"))
    files_b = _mapping(new.get("files"))
    for key in sorted(set(files_a) | set(files_b)):
        was, now = files_a.get(key), files_b.get(key)
        if was == now:
            continue
        if key not in files_a:
            out.append(f"{key} is new (sha256 {_short(now)})")
        elif key not in files_b:
            out.append(f"{key} is gone")
        else:
            out.append(f"{key} changed (sha256 {_short(was)} -> {_short(now)})")
    opts_a = _mapping(old.get("options"))
    opts_b = _mapping(new.get("options"))
    for key in sorted(set(opts_a) | set(opts_b)):
        if opts_a.get(key, _GONE) != opts_b.get(key, _GONE):
            was_text = _show(opts_a[key]) if key in opts_a else "(none)"
            now_text = _show(opts_b[key]) if key in opts_b else "(none)"
            out.append(f"option {key} {was_text} -> {now_text}")
    if not out and dict(old) != dict(new):
        out.append("its identity record differs")
    return out


_GONE = object()


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def differences(
    old: Sequence[Mapping[str, Any]], new: Sequence[Mapping[str, Any]], bots: Sequence[str]
) -> list[str]:
    """One line per bot of ``bots`` whose identity ``new`` differs from ``old`` (the
    journal's): ``"bot 'mybot': plugin my-bots 0.0.1 -> 0.0.2"``; empty: the same bots."""
    out: list[str] = []
    seen: set[str] = set()
    for spec, a, b in zip(bots, old, new, strict=False):
        if spec in seen:
            continue
        seen.add(spec)
        changes = _one(a, b)
        if changes:
            out.append(f"bot {spec!r}: {'; '.join(changes)}")
    return out
