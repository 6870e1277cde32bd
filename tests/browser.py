"""A headless Chromium driven over the Chrome DevTools Protocol, for the page tests.

``Browser.start()`` runs the system's ``chromium`` (Debian's package; ``.ci/run``
installs it) with a private profile and a debugging port, and talks to one page through
websocket-client.  Console errors and uncaught exceptions are collected in ``errors``.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
import urllib.request
from typing import Any

BROWSERS = ("chromium", "chromium-browser", "google-chrome")


def find_browser() -> str | None:
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    def __init__(self, proc: subprocess.Popen[bytes], profile: str, ws: Any) -> None:
        self.proc = proc
        self.profile = profile
        self.ws = ws
        self.next_id = 0
        self.errors: list[str] = []
        self.events: list[dict[str, Any]] = []

    @classmethod
    def start(cls, width: int = 1000, height: int = 900) -> Browser:
        import websocket  # websocket-client, a test extra

        exe = find_browser()
        if exe is None:
            raise RuntimeError("no chromium on PATH")
        profile = tempfile.mkdtemp(prefix="bones-chromium-")
        log = open(os.path.join(profile, "stderr.log"), "wb")  # noqa: SIM115  (closed below)
        proc = subprocess.Popen(
            [
                exe,
                "--headless",
                "--no-sandbox",  # root in CI containers
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--no-first-run",
                "--remote-debugging-port=0",
                f"--user-data-dir={profile}",
                f"--window-size={width},{height}",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=log,
        )
        log.close()  # the child holds its own copy
        try:
            port = _devtools_port(proc, profile)
            pages = _get_json(f"http://127.0.0.1:{port}/json/list")
            url = next(p["webSocketDebuggerUrl"] for p in pages if p.get("type") == "page")
            ws = websocket.create_connection(url, timeout=30, suppress_origin=True)
        except BaseException:
            proc.kill()
            proc.wait()
            shutil.rmtree(profile, ignore_errors=True)
            raise
        browser = cls(proc, profile, ws)
        for domain in ("Page", "Runtime", "Log"):
            browser.call(f"{domain}.enable")
        browser.call(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=False,
        )
        return browser

    def close(self) -> None:
        try:
            self.ws.close()
        finally:
            self.proc.kill()
            self.proc.wait()
            shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _note(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        params = message.get("params", {})
        self.events.append(message)
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            args = [str(a.get("value", a.get("description", ""))) for a in params.get("args", [])]
            self.errors.append("console: " + " ".join(args))
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            text = details.get("exception", {}).get("description") or details.get("text")
            self.errors.append(f"exception: {text}")
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            self.errors.append("log: " + params["entry"].get("text", ""))

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        self.next_id += 1
        mine = self.next_id
        self.ws.send(json.dumps({"id": mine, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.recv())
            if message.get("id") == mine:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            self._note(message)

    def wait_for(self, method: str, timeout: float = 30.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        for i, message in enumerate(self.events):
            if message.get("method") == method:
                del self.events[i]
                return message
        while time.monotonic() < deadline:
            message = json.loads(self.ws.recv())
            if message.get("method") == method:
                self._note(message)
                self.events.remove(message)
                return message
            self._note(message)
        raise TimeoutError(f"no {method} within {timeout} s")

    def open(self, path: str, fragment: str = "") -> None:
        self.events.clear()
        url = "file://" + os.path.abspath(path) + (f"#{fragment}" if fragment else "")
        self.call("Page.navigate", url=url)
        self.wait_for("Page.loadEventFired")

    def eval(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for_eval(self, expression: str, timeout: float = 10.0) -> None:
        """Until ``expression`` is true in the page (after a click or a hash change the
        page answers in an event of its own)."""
        deadline = time.monotonic() + timeout
        while not self.eval(expression):
            if time.monotonic() > deadline:
                where = self.eval("location.href + ' (step ' + document.body.dataset.step + ')'")
                raise TimeoutError(f"{expression} still false after {timeout} s at {where}")
            time.sleep(0.02)

    def key(self, key: str, code: int) -> None:
        for kind in ("keyDown", "keyUp"):
            self.call(
                "Input.dispatchKeyEvent",
                type=kind,
                key=key,
                code=key,
                windowsVirtualKeyCode=code,
                nativeVirtualKeyCode=code,
            )

    def click(self, selector: str) -> None:
        self.eval(f"document.querySelector({json.dumps(selector)}).click()")

    def resize(self, width: int, height: int) -> None:
        self.call(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=False,
        )

    def screenshot(self, path: str) -> str:
        data = self.call("Page.captureScreenshot", format="png", captureBeyondViewport=True)
        with open(path, "wb") as f:
            f.write(base64.b64decode(data["data"]))
        return path


def _devtools_port(proc: subprocess.Popen[bytes], profile: str, timeout: float = 30.0) -> int:
    """Chromium writes the port it chose to DevToolsActivePort in its profile."""
    marker = os.path.join(profile, "DevToolsActivePort")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            with open(os.path.join(profile, "stderr.log"), "rb") as f:
                err = f.read().decode(errors="replace")
            raise RuntimeError(f"chromium exited with {proc.returncode}: {err[-500:]}")
        try:
            with open(marker) as f:
                first = f.readline().strip()
            if re.fullmatch(r"\d+", first):
                return int(first)
        except OSError:
            pass
        time.sleep(0.05)
    raise TimeoutError("chromium did not open its debugging port")


def _get_json(url: str, timeout: float = 10.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                return json.load(response)
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
