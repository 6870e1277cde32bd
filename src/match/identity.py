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

* a bot of a ``--plugin`` module under ``--isolate``, which the runner does not know (it
  never imports those modules: only the bots' own processes do): the sha256 of each
  ``--plugin`` module's code as the runner finds it without importing it
  (:func:`importlib.util.find_spec` on ``sys.path``, then the current folder, as the
  bots' processes import it; a module of a package: every Python file of the package),
  the distribution that holds it, and the bot's options as far as the runner knows
  them: those given in the spec, the others' defaults from the bot's hello (its
  handshake).

What a bot imports beyond those files, and the data files it reads, are not seen (see
docs/matches.md).  :func:`identities` computes them for a match's bots (in the runner,
after its plugins are loaded and the bots' handshakes); :func:`differences` says, one
phrase per change, how two differ.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sys
from collections.abc import Mapping, Sequence
from importlib.machinery import ModuleSpec
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
    return _dist_of_top(module.__name__.partition(".")[0])


def _dist_of_top(top: str) -> tuple[str, str] | None:
    """The installed distribution that holds the top-level module or package ``top``
    (read from the installed metadata: nothing is imported)."""
    from importlib.metadata import PackageNotFoundError, packages_distributions, version

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


def _find_top(top: str) -> ModuleSpec | None:
    """Where the top-level module ``top`` would be imported from, found without importing
    it: on ``sys.path`` (:func:`importlib.util.find_spec`), else in the current folder,
    as a ``--plugin`` module is imported (:mod:`bones.plugins.manager`)."""
    import importlib.machinery
    import importlib.util

    try:
        found = importlib.util.find_spec(top)
    except (ImportError, ValueError):  # in sys.modules without a spec; a broken finder
        found = None
    if found is None:
        found = importlib.machinery.PathFinder.find_spec(top, [os.getcwd()])
    return found


def _unimported_source(name: str) -> tuple[str, str | None]:
    """What stands for the code of the module ``name``, read from its files without
    importing it, keyed as :func:`_source` keys an imported one: ``("package TOP", sha256
    of every Python file of the package)`` for a module of a package, ``("module NAME",
    sha256 of its file)`` for a lone module; the digest is ``None`` when it is not found
    or cannot be read."""
    top = name.partition(".")[0]
    found = _find_top(top)
    if found is not None and found.submodule_search_locations:
        return f"package {top}", _package_sha256([str(p) for p in found.submodule_search_locations])
    if top != name:  # a module of a package that is not found
        return f"package {top}", None
    origin = found.origin if found is not None and found.has_location else None
    return f"module {name}", file_sha256(origin) if origin else None


def _hello_default(description: Any) -> tuple[bool, Any]:
    """An option's default from a hello's description of it (:meth:`Option.to_dict`)."""
    if isinstance(description, Mapping) and "default" in description:
        return True, description["default"]
    return False, None


def _isolated_identity(spec: str, plugins: Sequence[str], hello: Any) -> dict[str, Any]:
    """The identity of a bot that only its own process knows (a ``--plugin`` module's
    bot under ``--isolate``): no module of the plugin is imported here."""
    from ..bot import _parse

    name, given = _parse(spec)
    author = getattr(hello, "author", "")  # a served spec's hello: the bot's plugin
    plugin = author if isinstance(author, str) and author else None
    out: dict[str, Any] = {"bot": name, "plugin": plugin}
    dist = None
    if plugin is not None and plugin in plugins:  # a --plugin module: no distribution's
        dist = _dist_of_top(plugin.partition(".")[0])  # entry point; the one holding it
    out["dist"], out["version"] = dist if dist is not None else (None, None)
    files: dict[str, str | None] = {}
    for module in plugins:  # every bot process imports each of them: each is its code
        key, digest = _unimported_source(module)
        files[key] = digest
    out["files"] = files
    options: dict[str, Any] = {}
    described = getattr(hello, "options", None)
    if isinstance(described, Mapping):
        for key, description in described.items():
            known, default = _hello_default(description)
            if known and isinstance(key, str):
                options[key] = default
    for key, (value, text) in given.items():
        default = options.get(key)
        if isinstance(default, float) and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)  # as the bot's process fits it to the option (bot._coerce)
        elif isinstance(default, str) and not isinstance(value, str):
            value = text
        options[key] = value
    out["options"] = {k: _plain(v) for k, v in sorted(options.items())}
    return out


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


def bot_identity(spec: str, isolated: Sequence[str] = (), hello: Any = None) -> dict[str, Any]:
    """The identity of the bot of ``spec`` (its plugin loaded): a JSON-ready dict.
    ``isolated``: the ``--plugin`` modules that only the bots' own processes import
    (``--isolate``); a bot the runner does not know is then taken to be one of theirs,
    with ``hello`` (its handshake's :class:`~bones.protocol.client.BotInfo`) for its
    options' defaults.  :class:`~bones.OptionError` for a bot not known at all."""
    from ..bot import _parse, bot_spec, command_of
    from ..errors import OptionError

    command = command_of(spec)
    if command is not None:
        return _command_identity(command)
    if isolated:
        try:
            bot_spec(_parse(spec)[0])
        except OptionError:  # not the runner's: a bot of an isolated --plugin module
            return _isolated_identity(spec, isolated, hello)
    return _plugin_identity(spec)


def identities(
    bots: Sequence[str], isolated: Sequence[str] = (), hellos: Mapping[str, Any] | None = None
) -> list[dict[str, Any]]:
    """The identity of each bot of a match, in the order of its bots (``isolated`` and
    ``hellos``, by spec: as :func:`bot_identity` takes them)."""
    cache: dict[str, dict[str, Any]] = {}
    for spec in bots:
        if spec not in cache:
            cache[spec] = bot_identity(spec, isolated, (hellos or {}).get(spec))
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
