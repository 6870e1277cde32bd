"""Benchmarks that never mislead (issue 26): the bots' identity in the journal (a rerun
with changed bots is refused, or continued on purpose and recorded), SPRT matches that
play until the test decides, and the runner saying what it does with a journal."""

from __future__ import annotations

import importlib
import json
import shlex
import shutil
import sys
from pathlib import Path

import pytest

from bones.cli import main
from bones.match.identity import bot_identity, differences, identities
from bones.match.journal import JournalReader, encode_record
from bones.match.report import format_table, summarize_journal
from bones.match.runner import MatchConfig, MatchError, run_match

HERE = Path(__file__).parent
MISBEHAVE = HERE / "protocol_bots" / "misbehave.py"

PLUGIN = """\
import bones
from bones.plugins import hookimpl


class First(bones.Bot):
    def choose(self, observation, legal_moves):
        return legal_moves[0]


@hookimpl
def register_bots(register):
    register(bones.BotSpec("{bot}", First, "the first legal move"))
"""


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def lines(path) -> list[dict]:
    with open(path) as f:
        return [json.loads(line) for line in f]


def others(path) -> list[dict]:
    """The header and resume lines of a journal."""
    return [e for e in lines(path) if e["type"] != "game"]


def game_count(path) -> int:
    return sum(1 for e in lines(path) if e["type"] == "game")


@pytest.fixture
def plugin_dir(tmp_path, monkeypatch, fresh_registry):
    """A folder, made the current one, holding a plugin module of its own name."""
    name = f"idplug_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{name}.py").write_text(PLUGIN.format(bot="idbot"))
    monkeypatch.chdir(tmp_path)
    yield tmp_path, name
    sys.modules.pop(name, None)
    if str(tmp_path) in sys.path:
        sys.path.remove(str(tmp_path))


# -- identity -------------------------------------------------------------------------


def test_identity_of_builtin_and_command_bots(tmp_path):
    from bones import __version__

    greedy = bot_identity("greedy")
    assert greedy["dist"] == "bones" and greedy["version"] == __version__
    assert greedy["plugin"] == "bones.plugins.builtin_bots" and greedy["options"] == {"seed": 0}
    script = tmp_path / "bot.py"
    script.write_text("print('hi')\n")
    spec = "cmd:" + shlex.join([sys.executable, "-u", str(script), "--depth", "3"])
    ident = bot_identity(spec)
    assert set(ident["files"]) == {f"program {sys.executable}", f"script {script}"}
    assert all(isinstance(v, str) and len(v) == 64 for v in ident["files"].values())
    # a program found through PATH, and one that is not there at all
    assert bot_identity("cmd:sh -c true")["files"] == {
        "program sh": identities(["cmd:sh"])[0]["files"]["program sh"]
    }
    assert bot_identity("cmd:./no-such-bot")["files"] == {"program ./no-such-bot": None}
    script.write_text("print('changed')\n")
    assert differences([ident], [bot_identity(spec)], [spec]) == [
        f"bot {spec!r}: script {script} changed (sha256 "
        f"{ident['files'][f'script {script}'][:12]} -> "
        f"{bot_identity(spec)['files'][f'script {script}'][:12]})"
    ]


def test_differences_name_each_change():
    old = {"plugin": "p", "dist": "my-bots", "version": "0.0.1", "files": {}, "options": {"a": 1}}
    new = {**old, "version": "0.0.2", "options": {"a": 2, "b": "x"}}
    assert differences([old, old], [new, new], ["mybot", "mybot"]) == [
        "bot 'mybot': plugin my-bots 0.0.1 -> 0.0.2; option a 1 -> 2; option b (none) -> x"
    ]
    assert differences([old], [dict(old)], ["mybot"]) == []


def test_changed_plugin_module_is_refused_then_continued_on_purpose(plugin_dir, capsys):
    folder, name = plugin_dir
    journal = str(folder / "m.jsonl")
    # the plugin is found in the current folder, as python -m would find it
    args = ["match", "idbot", "greedy", "--plugin", name, "--games", "4", "--journal", journal]
    args += ["--seed", "1"]
    code, first, err = run(capsys, *args, "--jobs", "1")
    assert code == 0, err
    header = others(journal)[0]
    assert header["bots"][0]["files"] == {
        f"module {name}": header["bots"][0]["files"][f"module {name}"]
    }
    assert header["python"] == ".".join(map(str, sys.version_info[:3]))
    code, again, err = run(capsys, *args, "--jobs", "1")  # the same bots: the same result
    assert code == 0 and again == first
    assert "4 games played; the match is complete: nothing to play" in err

    (folder / f"{name}.py").write_text(PLUGIN.format(bot="idbot") + "# version 2\n")
    size = (folder / "m.jsonl").stat().st_size
    code, out, err = run(capsys, *args, "--games", "8", "--jobs", "1")
    assert code == 2 and out == ""
    assert f"bot 'idbot': module {name} changed (sha256 " in err
    assert "--journal NEW" in err and "--allow-changed-bots" in err
    assert (folder / "m.jsonl").stat().st_size == size  # nothing played, nothing written

    code, out, err = run(capsys, *args, "--games", "8", "--jobs", "1", "--allow-changed-bots")
    assert code == 0, err
    assert "continuing with changed bots" in err and "Games: 8 of 8" in out
    changed = f"Bots changed during the match (--allow-changed-bots): bot 'idbot': module {name}"
    assert changed in out
    resume = others(journal)[-1]
    assert resume["type"] == "resume" and resume["changed"][0].startswith("bot 'idbot': module")
    assert game_count(journal) == 8
    # the journal now holds the new identity: the same command goes on without the flag
    code, out2, err = run(capsys, *args, "--games", "8", "--jobs", "1")
    assert code == 0 and "nothing to play" in err and out2 == out
    assert summarize_journal(journal)["bot_changes"] == resume["changed"]


def test_an_isolated_plugin_bot_has_an_identity_the_runner_never_imports(plugin_dir, capsys):
    """Under --isolate the runner does not import a --plugin module: its bot's identity
    is the module's file, found without importing it, and the options the bot's hello
    describes; the same as the identity the plugin's code gives in process, and a
    changed module is refused on rerun."""
    folder, name = plugin_dir
    journal = str(folder / "iso.jsonl")
    args = ["match", "idbot:seed=3", "greedy", "--plugin", name, "--games", "2", "--jobs", "1"]
    args += ["--seed", "1"]
    code, _, err = run(capsys, *args, "--isolate", "--journal", journal)
    assert code == 0, err
    assert name not in sys.modules  # the runner found the file, never ran it
    isolated = others(journal)[0]["bots"][0]
    digest = isolated["files"][f"module {name}"]
    assert isolated == {
        "bot": "idbot", "plugin": name, "dist": None, "version": None,
        "files": {f"module {name}": digest}, "options": {"seed": 3},
    }  # fmt: skip
    assert len(digest) == 64
    (folder / f"{name}.py").write_text(PLUGIN.format(bot="idbot") + "# version 2\n")
    code, out, err = run(capsys, *args, "--isolate", "--journal", journal, "--games", "4")
    assert code == 2 and out == ""
    assert f"bot 'idbot:seed=3': module {name} changed (sha256 {digest[:12]} -> " in err
    assert game_count(journal) == 2 and name not in sys.modules
    # the plugin's code in process (imported there) gives the same identity
    code, _, err = run(capsys, *args, "--isolate", "--journal", str(folder / "iso2.jsonl"))
    assert code == 0, err
    isolated = others(folder / "iso2.jsonl")[0]["bots"][0]
    assert isolated["files"][f"module {name}"] != digest
    code, _, err = run(capsys, *args, "--journal", str(folder / "in.jsonl"))
    assert code == 0, err
    assert others(folder / "in.jsonl")[0]["bots"][0] == isolated


def _dist(site: Path, version: str) -> None:
    for old in site.glob("my_bots-*.dist-info"):
        shutil.rmtree(old)
    info = site / f"my_bots-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: my-bots\nVersion: {version}\n")
    (info / "entry_points.txt").write_text("[bones]\nmybots = idt_mybots\n")
    importlib.invalidate_caches()


def test_a_new_plugin_version_is_refused(
    tmp_path, monkeypatch, fresh_registry, capsys, plugin_autoload
):
    site = tmp_path / "site"
    site.mkdir()
    (site / "idt_mybots.py").write_text(PLUGIN.format(bot="mybot"))
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.delitem(sys.modules, "idt_mybots", raising=False)
    _dist(site, "0.0.1")
    fresh_registry.reset()
    journal = str(tmp_path / "m.jsonl")
    args = ["match", "mybot", "greedy", "--games", "4", "--journal", journal, "--jobs", "1"]
    args += ["--seed", "1"]
    try:
        code, first, err = run(capsys, *args)
        assert code == 0, err
        assert others(journal)[0]["bots"][0]["version"] == "0.0.1"
        _dist(site, "0.0.2")  # reinstalled, its code unchanged
        fresh_registry.reset()
        code, out, err = run(capsys, *args)
        assert code == 2 and out == ""
        assert "bot 'mybot': plugin my-bots 0.0.1 -> 0.0.2" in err
        code, out, err = run(capsys, *args, "--allow-changed-bots")  # complete: nothing to play
        assert code == 0 and "continuing with changed bots" in err and "nothing to play" in err
        assert others(journal)[-1]["type"] == "match"  # the journal is left as it is
    finally:
        sys.modules.pop("idt_mybots", None)


def test_changed_command_script_is_refused(tmp_path):
    bot = tmp_path / "bot.py"
    shutil.copy(MISBEHAVE, bot)
    mode = tmp_path / "mode"
    mode.write_text("good")
    spec = "cmd:" + shlex.join([sys.executable, str(bot), str(mode)])
    config = MatchConfig(bots=(spec, "random"), games=2, seed=1)
    path = tmp_path / "m.jsonl"
    run_match(config, path, jobs=1, progress=False)
    mode.write_text("good")  # an argument that is not the script: not part of the bot
    run_match(config, path, jobs=1, progress=False)
    bot.write_text(bot.read_text() + "\n# a change\n")
    with pytest.raises(MatchError, match=rf"bot '{spec}': script {bot} changed \(sha256 "):
        run_match(config, path, jobs=1, progress=False)


def test_a_journal_without_identity_is_continued_with_a_warning(tmp_path, capsys):
    journal = tmp_path / "m.jsonl"
    args = ["match", "greedy", "random", "--journal", str(journal), "--jobs", "1", "--seed", "1"]
    assert run(capsys, *args, "--games", "2")[0] == 0
    # the header as a bones that kept no identity wrote it; the game records are left
    # byte for byte as the runner signed them (their MACs hold)
    header, *games = journal.read_text().splitlines(keepends=True)
    entry = json.loads(header)
    for key in ("bots", "python"):
        del entry[key]
    journal.write_text(encode_record(entry) + "\n" + "".join(games))
    code, out, err = run(capsys, *args, "--games", "4")
    assert code == 0 and "Games: 4 of 4" in out
    assert "which did not record what its bots were: its 2 games are taken as played by" in err
    assert others(journal)[-1]["bots"] == identities(["greedy", "random"])
    code, _, err = run(capsys, *args, "--games", "4")
    assert code == 0 and "warning" not in err


def test_a_bad_identity_in_a_journal_is_a_one_line_error(tmp_path, capsys):
    journal = tmp_path / "m.jsonl"
    args = ["match", "greedy", "random", "--journal", str(journal), "--jobs", "1", "--games", "2"]
    args += ["--seed", "1"]
    assert run(capsys, *args)[0] == 0
    entries = lines(journal)
    entries[0]["bots"] = ["greedy"]
    journal.write_text("".join(json.dumps(e) + "\n" for e in entries))
    code, _, err = run(capsys, *args)
    assert code == 2 and "line 1: field 'bots' must be the identity of each of the 2 bots" in err


# -- SPRT until it decides ------------------------------------------------------------


def test_sprt_without_games_plays_until_it_decides(tmp_path, capsys):
    journal = str(tmp_path / "s.jsonl")
    code, out, err = run(
        capsys, "match", "--sprt", "elo0=0", "elo1=20", "greedy", "random", "--journal", journal,
        "--jobs", "1", "--json", "--seed", "1",
    )  # fmt: skip
    assert code == 0, err
    data = json.loads(out)
    assert data["config"]["games"] is None and data["scheduled"] == 1_000_000
    assert data["sprt"]["decision"] == "H1" and data["sprt"]["llr"] >= data["sprt"]["upper"]
    assert data["counted"] > 100  # past the old default of 100 games
    text = format_table(data)
    assert "(SPRT: until it decides, at most 1,000,000, the safety maximum" in text
    assert "-> H1 accepted (elo >= 20)" in text


def test_sprt_added_to_a_finished_journal(tmp_path, capsys):
    journal = str(tmp_path / "m.jsonl")
    base = ["match", "greedy", "random", "--journal", journal, "--jobs", "1", "--seed", "1"]
    assert run(capsys, *base, "--games", "400")[0] == 0
    # decided by the games already played: nothing is played, the SPRT line is shown
    code, out, err = run(capsys, *base, "--games", "20000", "--sprt", "elo0=0", "elo1=20")
    assert code == 0, err
    assert game_count(journal) == 400 and "the SPRT decided (H1): nothing to play" in err
    assert "H1 accepted (elo >= 20)" in out and "at most 20,000, --games" in out
    assert others(journal)[-1]["config"]["sprt"]["elo1"] == 20  # the journal says so
    # undecided on the games played: it goes on until it decides
    journal2 = str(tmp_path / "m2.jsonl")
    base2 = ["match", "greedy", "random", "--journal", journal2, "--jobs", "1", "--seed", "1"]
    assert run(capsys, *base2, "--games", "10")[0] == 0
    code, out, err = run(capsys, *base2, "--sprt", "elo0=0", "elo1=20", "--json")
    assert code == 0, err
    assert "resuming" in err and "10 games played; until the SPRT decides" in err
    data = json.loads(out)
    assert data["sprt"]["decision"] == "H1" and data["counted"] > 10


def test_sprt_at_its_cap_says_undecided(tmp_path, capsys):
    journal = str(tmp_path / "m.jsonl")
    code, out, err = run(
        capsys, "match", "greedy", "random", "--sprt", "elo0=0", "elo1=5", "--games", "4",
        "--journal", journal, "--jobs", "1", "--json", "--seed", "1",
    )  # fmt: skip
    assert code == 0, err
    data = json.loads(out)
    assert data["sprt"]["decision"] == "undecided"
    text = format_table(data)
    assert "-> undecided after 2 deal pairs: the cap of 4 games is reached" in text


def test_a_match_without_sprt_needs_games():
    with pytest.raises(MatchError, match="a match without --sprt needs --games N"):
        run_match(MatchConfig(bots=("greedy", "random"), games=None), "/nonexistent/x.jsonl")


# -- what the runner says -------------------------------------------------------------


def test_rerun_says_it_resumes(tmp_path, capsys):
    journal = str(tmp_path / "m.jsonl")
    args = ["match", "greedy", "random", "--journal", journal, "--jobs", "1", "--seed", "1"]
    code, _, err = run(capsys, *args, "--games", "2")
    assert code == 0 and err == ""  # a new journal: nothing to say
    code, _, err = run(capsys, *args, "--games", "4")
    assert code == 0 and err == f"bones: resuming {journal}: 2 games played, 2 to play\n"


def test_incomplete_deal_pairs_are_labelled(tmp_path):
    path = tmp_path / "m.jsonl"
    run_match(MatchConfig(bots=("greedy", "random"), games=6, seed=1), path, jobs=1, progress=False)
    # the last game goes, its deal pair is incomplete; the other lines are kept byte for
    # byte (each game record's MAC is of its line as the runner wrote it)
    kept = path.read_text().splitlines(keepends=True)[:-1]
    path.write_text("".join(kept))
    text = format_table(summarize_journal(path))
    assert "(95%, 3 deal pairs, 1 of them incomplete)" in text
    assert "(2 complete deal pairs)" in text


def test_interrupted_names_the_journal():
    summary = {
        "config": {"bots": ["a", "b"], "format": "head-to-head"},
        "counted": 0,
        "bots": [],
        "interrupted": True,
        "journal": "my match.jsonl",
    }
    text = format_table(summary)
    assert "Interrupted: bones match --resume --journal 'my match.jsonl' continues" in text


def test_plugin_not_found_gives_a_hint(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "match", "greedy", "random", "--plugin", "idt_nosuch")
    assert code == 2
    assert "--plugin takes a module importable from sys.path or the current folder" in err
    code, _, err = run(capsys, "match", "greedy", "random", "--plugin", "dir/idt_nosuch.py")
    assert code == 2 and "--plugin takes a module name, not a file: --plugin idt_nosuch" in err


def test_reader_keeps_versions(tmp_path):
    path = tmp_path / "m.jsonl"
    run_match(MatchConfig(bots=("greedy", "random"), games=2, seed=1), path, jobs=1, progress=False)
    reader = JournalReader(path)
    try:
        assert reader.versions["python"] == ".".join(map(str, sys.version_info[:3]))
        assert reader.identity == identities(["greedy", "random"])
    finally:
        reader.close()


def test_progress_without_a_total():
    import io

    from bones.match.progress import Progress

    stream = io.StringIO()
    bar = Progress(None, stream=stream, enabled=True, interval=0.0)
    bar.update(0)
    bar.update(12, "LLR 1.20 (-2.94, 2.94)")
    bar.close()
    last = stream.getvalue().split("\r\x1b[2K")[-1]
    assert last.startswith("12 games  ") and "games/s  LLR 1.20" in last and "ETA" not in last


def test_a_change_anywhere_in_a_plugin_package_is_seen(tmp_path, monkeypatch, fresh_registry):
    package = tmp_path / "idt_pkgbots"
    package.mkdir()
    (package / "__init__.py").write_text(
        PLUGIN.format(bot="pkgbot").replace(
            "import bones\n", "import bones\nfrom . import helper\n"
        )
    )
    (package / "helper.py").write_text("DEPTH = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    config = MatchConfig(bots=("pkgbot", "greedy"), games=2, seed=1, plugins=("idt_pkgbots",))
    path = tmp_path / "m.jsonl"
    try:
        run_match(config, path, jobs=1, progress=False)
        assert list(others(path)[0]["bots"][0]["files"]) == ["package idt_pkgbots"]
        (package / "helper.py").write_text("DEPTH = 2\n")  # not the plugin's own module
        with pytest.raises(MatchError, match=r"bot 'pkgbot': package idt_pkgbots changed"):
            run_match(config, path, jobs=1, progress=False)
    finally:
        for name in ("idt_pkgbots", "idt_pkgbots.helper"):
            sys.modules.pop(name, None)
