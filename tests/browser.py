"""A headless Chromium driven over the DevTools protocol on a pipe (no
driver, no Python dependency): load a page, evaluate JavaScript in it, take a
screenshot. Debian's ``chromium`` package is all it needs.

As a script: ``python tests/browser.py PAGE.html SHOT.png`` screenshots a page.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

CANDIDATES = ("chromium", "chromium-browser", "google-chrome")


def find_chromium() -> str | None:
    for name in CANDIDATES:
        path = shutil.which(name)
        if path:
            return path
    return None


# Set by .ci/run, which installs the external tools: a test that finds one missing fails instead of not running.
REQUIRE_EXTERNAL = "FABRICSIM_REQUIRE_EXTERNAL"


def chromium_or_not_run() -> str:
    """The Chromium a test drives. Without one the test is not run (a skip that says why), unless
    FABRICSIM_REQUIRE_EXTERNAL=1 makes that a failure."""
    import pytest

    exe = find_chromium()
    if exe:
        return exe
    why = "no headless Chromium on the PATH (Debian's `chromium` package, which .ci/run installs)"
    if os.environ.get(REQUIRE_EXTERNAL) == "1":
        pytest.fail(f"{why}, and {REQUIRE_EXTERNAL}=1 requires it")
    pytest.skip(f"not run: {why}")


class Browser:
    """One headless browser with one page; messages on fds 3 (in) and 4 (out)."""

    def __init__(self, executable: str, width: int = 1400, height: int = 1000, timeout: float = 60.0) -> None:
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="fabricsim-chromium-")
        to_browser_r, self._w = os.pipe()
        self._r, from_browser_w = os.pipe()
        args = [executable, "--headless=new", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
                "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--hide-scrollbars",
                f"--user-data-dir={self.profile}", f"--window-size={width},{height}", "about:blank"]

        def wire() -> None:  # in the child: the pipe ends on fds 3 and 4, as the browser expects
            os.dup2(to_browser_r, 3)
            os.dup2(from_browser_w, 4)

        # Popen closes every descriptor not listed after preexec_fn has run: keep 3 and 4.
        keep = tuple(sorted({3, 4, to_browser_r, from_browser_w}))
        self.proc = subprocess.Popen(args, pass_fds=keep, preexec_fn=wire,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._next = 0
        self.events: list[dict[str, Any]] = []
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self.call("Page.enable", session=True)
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}, session=True)

    def _read(self) -> dict[str, Any]:
        deadline = time.monotonic() + self.timeout
        while b"\0" not in self._buffer:
            if time.monotonic() > deadline:
                raise TimeoutError("no answer from the browser")
            chunk = os.read(self._r, 1 << 16)
            if not chunk:
                raise RuntimeError("the browser closed its pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method: str, params: dict[str, Any] | None = None, session: bool = False) -> dict[str, Any]:
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self.session
        os.write(self._w, json.dumps(message).encode() + b"\0")
        while True:
            answer = self._read()
            if answer.get("id") == self._next:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            self.events.append(answer)

    def wait_for(self, event: str) -> dict[str, Any]:
        for i, e in enumerate(self.events):
            if e.get("method") == event:
                return self.events.pop(i)
        while True:
            e = self._read()
            if e.get("method") == event:
                return e
            self.events.append(e)

    def load(self, url: str) -> None:
        self.events.clear()
        self.call("Page.navigate", {"url": url}, session=True)
        self.wait_for("Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True},
                           session=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def screenshot(self, path: Path, full_page: bool = False) -> Path:
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            height = self.evaluate("document.documentElement.scrollHeight")
            width = self.evaluate("document.documentElement.scrollWidth")
            params["clip"] = {"x": 0, "y": 0, "width": width, "height": height, "scale": 1}
            params["captureBeyondViewport"] = True
        data = self.call("Page.captureScreenshot", params, session=True)["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def close(self) -> None:
        try:
            self.call("Browser.close")
        except (RuntimeError, OSError, TimeoutError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._r)
        os.close(self._w)
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


if __name__ == "__main__":
    page, shot = Path(sys.argv[1]).resolve(), Path(sys.argv[2])
    full = "--full" in sys.argv
    exe = find_chromium()
    if exe is None:
        sys.exit("no chromium on the PATH (Debian: apt-get install chromium)")
    with Browser(exe) as b:
        b.load(page.as_uri())
        b.screenshot(shot, full_page=full)
    print(shot)
