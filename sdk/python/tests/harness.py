"""Starts the shared live-server harness (sdk/testserver/start.ts) and logs users in through the
real login and consent pages."""

from __future__ import annotations

import json
import os
import re
import subprocess
import threading
from pathlib import Path
from typing import Any

import httpx

REPO_ROOT = Path(__file__).resolve().parents[3]


class Harness:
    """A running Slipway; ``info`` is the harness's JSON line (see sdk/testserver/README.md)."""

    def __init__(self, *args: str) -> None:
        node = os.environ.get("SLIPWAY_NODE") or str(REPO_ROOT / "node_modules" / ".bin" / "node")
        self._process = subprocess.Popen(
            [node, "sdk/testserver/start.ts", *args],
            cwd=REPO_ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self._stderr: list[str] = []
        threading.Thread(target=self._drain, daemon=True).start()
        assert self._process.stdout is not None
        line = self._process.stdout.readline()
        if not line:
            self._process.wait(timeout=30)
            raise RuntimeError("the test server did not start:\n" + "".join(self._stderr[-50:]))
        self.info: dict[str, Any] = json.loads(line)
        self._lock = threading.Lock()
        self.base_url: str = self.info["base_url"]
        self.issuer: str = self.info["issuer"]

    def _drain(self) -> None:
        assert self._process.stderr is not None
        for line in self._process.stderr:
            self._stderr.append(line)

    def command(self, line: str) -> dict[str, Any]:
        """Sends a harness command (``database stop`` / ``database start``) and returns its answer."""
        assert self._process.stdin is not None and self._process.stdout is not None
        with self._lock:
            self._process.stdin.write(line + "\n")
            self._process.stdin.flush()
            answer: dict[str, Any] = json.loads(self._process.stdout.readline())
        return answer

    def stop(self) -> None:
        # Closing stdin asks the harness to stop the server and database and remove its files.
        assert self._process.stdin is not None
        self._process.stdin.close()
        try:
            self._process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self._process.terminate()
            self._process.wait(timeout=10)


_FORM_ACTION = re.compile(r'<form method="post" action="([^"]+)"')


def log_in(authorization_url: str, email: str, password: str, redirect_uri: str) -> str:
    """Drives the authorization server's pages as a browser would (cookies, redirects, the sign-in
    form, then the consent form's Allow) and returns the redirect to ``redirect_uri`` with the code."""
    with httpx.Client(follow_redirects=False, timeout=30) as browser:
        url = authorization_url
        for _ in range(20):
            response = browser.get(url)
            if response.is_redirect:
                url = str(response.url.join(response.headers["location"]))
                if url.startswith(redirect_uri):
                    return url
                continue
            assert response.status_code == 200, f"{url}: {response.status_code} {response.text[:300]}"
            page = response.text
            actions = _FORM_ACTION.findall(page)
            assert actions, f"no form on {url}: {page[:300]}"
            action = str(response.url.join(actions[0]))
            if 'name="password"' in page:
                posted = browser.post(action, data={"email": email, "password": password})
            else:
                assert ">Allow</button>" in page, f"expected the consent page at {url}"
                posted = browser.post(action, data={"decision": "allow"})
            assert posted.is_redirect, f"{action}: {posted.status_code} {posted.text[:300]}"
            url = str(posted.url.join(posted.headers["location"]))
            if url.startswith(redirect_uri):
                return url
        raise AssertionError("the login did not reach the redirect URI within 20 steps")


def accept_invitation(invitation_url: str, password: str) -> None:
    """Accepts an invitation on its page as a browser would: opens the link (its form's CSRF cookie and
    field), then presses Accept with the password (a newcomer's chosen one, or the inviter's first one)."""
    with httpx.Client(follow_redirects=False, timeout=30) as browser:
        page = browser.get(invitation_url)
        assert page.status_code == 200, f"{invitation_url}: {page.status_code}"
        csrf = re.search(r'name="_csrf" value="([^"]+)"', page.text)
        assert csrf, "no form on the invitation page"
        token = httpx.URL(invitation_url).params["token"]
        action = str(page.url.join("/dashboard/invitation"))
        accepted = browser.post(action, data={"token": token, "_csrf": csrf.group(1), "decision": "accept", "password": password})
        assert accepted.status_code == 303, f"accepting: {accepted.status_code} {accepted.text[:300]}"
