#!/usr/bin/env python3
"""A client of the MCP Skills extension in its final form (`io.modelcontextprotocol/skills`),
written from the specification's text alone, in plain Python over stdio. It checks a server
against the spec and prints a JSON report.

    final_form_client.py [--era auto|modern|legacy] [--max-pages N] [--timeout S] -- COMMAND...

It starts COMMAND, opens the session (`server/discover` for the 2026-07-28 revision, an
`initialize` handshake for older ones; `auto` probes with `server/discover` and falls back as the
stdio transport's backward-compatibility rules say), checks the extension's declaration, pages
through `skills/list`, calls `skills/get` for every entry, reads every file of every manifest
and verifies its size and digest, compares each SKILL.md's frontmatter with its entry's, checks
that each URI ends in the skill's name, probes the `-32602` answers the spec requires and, with
`directoryRead`, walks each skill's directories.

Exit status: 0 when the server follows the spec, 1 on any violation, 2 when it cannot be run.
Same-named skills are not violations: the report lists them with the names that tell them apart.
"""

import argparse
import base64
import hashlib
import json
import os
import queue
import re
import subprocess
import sys
import threading
import time
import unicodedata
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import skill_frontmatter  # noqa: E402

EXTENSION = "io.modelcontextprotocol/skills"
MODERN = "2026-07-28"
LEGACY = "2025-11-25"
INVALID_PARAMS = -32602
MODERN_ERRORS = {-32020, -32021, -32022}
MAX_FILES, MAX_BYTES = 512, 16 * 1024 * 1024
DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")
CLIENT_INFO = {"name": "final-form-python-client", "version": "1.0.0"}


class RpcError(Exception):
    def __init__(self, error):
        super().__init__(error.get("message"))
        self.code, self.message, self.data = error.get("code"), error.get("message"), error.get("data")


class Timeout(Exception):
    pass


class Connection:
    """A child process spoken to with newline-delimited JSON-RPC."""

    def __init__(self, command, timeout):
        self.timeout = timeout
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.lines = queue.Queue()
        self.next_id = 0
        self.modern = False
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def notify(self, method, params=None):
        self._send({"jsonrpc": "2.0", "method": method, **({"params": params} if params is not None else {})})

    def request(self, method, params=None, meta_version=None, timeout=None):
        """The result of one request; RpcError for an error answer."""
        self.next_id += 1
        params = dict(params or {})
        version = meta_version or (MODERN if self.modern else None)
        if version is not None:
            params["_meta"] = {
                "io.modelcontextprotocol/protocolVersion": version,
                "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
                "io.modelcontextprotocol/clientCapabilities": {},
            }
        request_id = self.next_id
        self._send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise Timeout(f"no answer to {method} within {timeout or self.timeout} s")
            try:
                line = self.lines.get(timeout=remaining)
            except queue.Empty:
                continue
            if line is None:
                raise ConnectionError(f"the server closed its output during {method}")
            message = json.loads(line)
            if "method" in message:
                if "id" in message:  # a request from the server: this client offers nothing
                    self._send({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "not supported"}})
                continue
            if message.get("id") != request_id:
                continue
            if "error" in message:
                raise RpcError(message["error"])
            return message["result"]

    def _send(self, message):
        self.process.stdin.write(json.dumps(message).encode("utf-8") + b"\n")
        self.process.stdin.flush()

    def close(self):
        try:
            self.process.stdin.close()
            self.process.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()


class Checker:
    def __init__(self, connection, max_pages):
        self.connection = connection
        self.max_pages = max_pages
        self.violations = []
        self.report = {"violations": self.violations}

    def violation(self, where, message):
        self.violations.append({"where": where, "message": message})

    # -- session -------------------------------------------------------------------------------

    def open(self, era):
        if era in ("modern", "auto"):
            try:
                result = self.connection.request("server/discover", meta_version=MODERN, timeout=5 if era == "auto" else None)
                self.connection.modern = True
                self.check_complete("server/discover", result, cacheable=True)
                if MODERN not in result.get("supportedVersions", []):
                    self.violation("server/discover", f"supportedVersions lacks {MODERN}")
                self.report["era"], self.report["protocolVersion"] = "modern", MODERN
                return result.get("capabilities")
            except RpcError as error:
                if era == "modern" or error.code in MODERN_ERRORS:
                    raise
            except Timeout:
                if era == "modern":
                    raise
        result = self.connection.request(
            "initialize", {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": CLIENT_INFO}
        )
        self.connection.notify("notifications/initialized")
        self.report["era"], self.report["protocolVersion"] = "legacy", result.get("protocolVersion")
        return result.get("capabilities")

    def check_complete(self, method, result, cacheable):
        """On the 2026-07-28 revision every result says it is complete, and cacheable ones carry
        their caching hints."""
        if not self.connection.modern:
            return
        if result.get("resultType") != "complete":
            self.violation(method, 'the result lacks resultType "complete"')
        if cacheable:
            ttl = result.get("ttlMs")
            if not isinstance(ttl, int) or isinstance(ttl, bool) or ttl < 0:
                self.violation(method, "the result lacks an integer ttlMs >= 0")
            if result.get("cacheScope") not in ("public", "private"):
                self.violation(method, 'the result lacks cacheScope "public" or "private"')

    def check_declaration(self, capabilities):
        extensions = (capabilities or {}).get("extensions")
        settings = extensions.get(EXTENSION) if isinstance(extensions, dict) else None
        if not isinstance(settings, dict):
            self.violation("capabilities", f"the server does not declare {EXTENSION}")
            return None
        if "resources" not in capabilities:
            self.violation("capabilities", "the extension is declared without the resources capability")
        directory_read = settings.get("directoryRead", False)
        if not isinstance(directory_read, bool):
            self.violation("capabilities", "directoryRead is not a boolean")
        self.report["declared"] = settings
        return directory_read is True

    # -- entries -------------------------------------------------------------------------------

    def list_skills(self):
        entries, seen, cursors, cursor, pages = [], set(), set(), None, 0
        while True:
            if pages == self.max_pages:
                self.violation("skills/list", f"still paging after {pages} pages")
                break
            result = self.connection.request("skills/list", {"cursor": cursor} if cursor is not None else {})
            pages += 1
            self.check_complete("skills/list", result, cacheable=True)
            skills = result.get("skills")
            if not isinstance(skills, list):
                self.violation("skills/list", "the result has no skills list")
                break
            for entry in skills:
                uri = entry.get("uri") if isinstance(entry, dict) else None
                if self.check_entry(f"skills/list entry {uri}", entry):
                    if uri in seen:
                        self.violation(f"skills/list entry {uri}", "listed twice")
                    else:
                        seen.add(uri)
                        entries.append(entry)
            cursor = result.get("nextCursor")
            if cursor is None:
                break
            if not isinstance(cursor, str) or cursor in cursors:
                self.violation("skills/list", f"nextCursor {cursor!r} is not a new string")
                break
            cursors.add(cursor)
        self.report["pages"] = pages
        return entries

    def check_entry(self, where, entry):
        """Whether the entry may be loaded; its violations otherwise."""
        before = len(self.violations)
        if not isinstance(entry, dict):
            self.violation(where, "the entry is not an object")
            return False
        uri, frontmatter, resources = entry.get("uri"), entry.get("frontmatter"), entry.get("resources")
        if not isinstance(uri, str) or not uri.endswith("/SKILL.md") or re.search(r"[\s\x00-\x1f\x7f]", uri):
            self.violation(where, "uri is not the URI of a SKILL.md")
            return False
        if not isinstance(frontmatter, dict) or not isinstance(frontmatter.get("name"), str) or not isinstance(
            frontmatter.get("description"), str
        ):
            self.violation(where, "frontmatter is not an object with string name and description")
            return False
        name = frontmatter["name"]
        segment = urllib.parse.unquote(uri[: -len("/SKILL.md")].rsplit("/", 1)[-1])
        if unicodedata.normalize("NFKC", segment) != unicodedata.normalize("NFKC", name):
            self.violation(where, f"the last segment of the uri is {segment!r}, not the name {name!r}")
        if not valid_name(name):
            self.violation(where, f"the name {name!r} breaks the Agent Skills naming rules")
        if resources == "dynamic":
            return len(self.violations) == before
        if not isinstance(resources, list):
            self.violation(where, 'resources is neither a list nor "dynamic"')
            return False
        root = uri[: -len("SKILL.md")]
        listed, total = set(), 0
        for file in resources:
            if not isinstance(file, dict) or not isinstance(file.get("uri"), str):
                self.violation(where, "a manifest entry has no uri")
                continue
            file_uri, digest, size = file["uri"], file.get("digest"), file.get("size")
            if file_uri in listed:
                self.violation(where, f"{file_uri} is listed twice")
            listed.add(file_uri)
            inside = file_uri[len(root) :] if file_uri.startswith(root) else None
            if not inside or any(part in ("", ".", "..") for part in urllib.parse.unquote(inside).split("/")):
                self.violation(where, f"{file_uri} is not a file inside the skill")
            if not isinstance(digest, str) or not DIGEST.match(digest):
                self.violation(where, f"{file_uri} has no sha256:<64 lowercase hex> digest")
            if not isinstance(size, int) or isinstance(size, bool) or size < 0:
                self.violation(where, f"{file_uri} has no size")
            else:
                total += size
        if uri not in listed:
            self.violation(where, "the manifest does not list the SKILL.md")
        if len(resources) > MAX_FILES or total > MAX_BYTES:
            self.violation(where, f"the skill is over the limits ({len(resources)} files, {total} bytes)")
        return len(self.violations) == before

    # -- content -------------------------------------------------------------------------------

    def read(self, uri):
        """The raw bytes of a resource, or None after a violation."""
        try:
            result = self.connection.request("resources/read", {"uri": uri})
        except RpcError as error:
            self.violation(uri, f"resources/read failed: {error.message} (code {error.code})")
            return None
        self.check_complete("resources/read", result, cacheable=True)
        parts = [part for part in result.get("contents", []) if isinstance(part, dict) and part.get("uri") == uri]
        if len(parts) != 1:
            self.violation(uri, f"resources/read returned {len(parts)} contents for the uri, not 1")
            return None
        part = parts[0]
        if isinstance(part.get("text"), str):
            return part["text"].encode("utf-8")
        try:
            return base64.b64decode(part.get("blob", ""), validate=True)
        except (ValueError, TypeError):
            self.violation(uri, "the blob is not base64")
            return None

    def verify_skill(self, entry):
        summary = {"uri": entry["uri"], "name": entry["frontmatter"]["name"], "files": 0, "verified": 0}
        files = entry["resources"] if isinstance(entry["resources"], list) else [{"uri": entry["uri"]}]
        for file in files:
            data = self.read(file["uri"])
            summary["files"] += 1
            if data is None:
                continue
            if "digest" in file:
                if len(data) != file["size"]:
                    self.violation(file["uri"], f"{len(data)} bytes, the manifest says {file['size']}")
                    continue
                actual = "sha256:" + hashlib.sha256(data).hexdigest()
                if actual != file["digest"]:
                    self.violation(file["uri"], f"digest {actual}, the manifest says {file['digest']}")
                    continue
                summary["verified"] += 1
            if file["uri"] == entry["uri"]:
                try:
                    fetched = skill_frontmatter.load(data.decode("utf-8"))
                except (UnicodeDecodeError, skill_frontmatter.FrontmatterError) as error:
                    self.violation(entry["uri"], f"the SKILL.md has no readable frontmatter: {error}")
                    continue
                field = skill_frontmatter.first_difference(entry["frontmatter"], fetched)
                if field is not None:
                    self.violation(entry["uri"], f"the SKILL.md frontmatter differs from the entry in {field!r}")
        return summary

    def check_get(self, entry):
        try:
            result = self.connection.request("skills/get", {"uri": entry["uri"]})
        except RpcError as error:
            self.violation(entry["uri"], f"skills/get failed: {error.message} (code {error.code})")
            return
        self.check_complete("skills/get", result, cacheable=True)
        if "nextCursor" in result:
            self.violation(entry["uri"], "the skills/get result carries a cursor")
        if result.get("skill") != entry:
            self.violation(entry["uri"], "skills/get returned another entry than skills/list")

    def expect_invalid_params(self, method, uri, why):
        try:
            self.connection.request(method, {"uri": uri})
        except RpcError as error:
            # Before 2026-07-28 the base protocol answered an unknown resource with -32002.
            legacy_not_found = method == "resources/read" and error.code == -32002 and not self.connection.modern
            if error.code == INVALID_PARAMS or legacy_not_found:
                return
            self.violation(uri, f"{method} of {why} answered code {error.code}, not {INVALID_PARAMS}")
            return
        self.violation(uri, f"{method} of {why} succeeded; it must fail with {INVALID_PARAMS}")

    def probe_errors(self, entries):
        self.expect_invalid_params("skills/get", "skill://no-such-skill-4a1f/SKILL.md", "an unknown skill")
        self.expect_invalid_params("resources/read", "skill://no-such-skill-4a1f/SKILL.md", "an unknown resource")
        for entry in entries[:1]:
            self.expect_invalid_params("skills/get", entry["uri"][: -len("/SKILL.md")], "a skill root")
            others = [f["uri"] for f in entry["resources"] if f["uri"] != entry["uri"]] if isinstance(entry["resources"], list) else []
            if others:
                self.expect_invalid_params("skills/get", others[0], "a supporting file")
        if self.connection.modern:
            try:
                self.connection.request("skills/list", {}, meta_version="1900-01-01")
                self.violation("skills/list", "an unsupported protocol version was accepted")
            except RpcError as error:
                supported = (error.data or {}).get("supported") if isinstance(error.data, dict) else None
                if error.code != -32022 or not isinstance(supported, list):
                    self.violation("skills/list", f"an unsupported version answered code {error.code} without data.supported")

    def walk_directories(self, entry):
        """Every manifest file must be reachable by reading directories from the skill root."""
        if not isinstance(entry["resources"], list):
            return
        root = entry["uri"][: -len("/SKILL.md")]
        manifest = {file["uri"] for file in entry["resources"]}
        found, pending, reads = set(), [root], 0
        while pending and reads < 1000:
            directory = pending.pop()
            cursor, cursors = None, set()
            while True:
                reads += 1
                try:
                    result = self.connection.request("resources/directory/read", {"uri": directory, **({"cursor": cursor} if cursor else {})})
                except RpcError as error:
                    self.violation(directory, f"resources/directory/read failed: {error.message} (code {error.code})")
                    break
                self.check_complete("resources/directory/read", result, cacheable=False)
                for child in result.get("resources", []):
                    child_uri = child.get("uri", "")
                    if not child_uri.startswith(directory + "/") or "/" in child_uri[len(directory) + 1 :]:
                        self.violation(directory, f"the child {child_uri} is not directly inside the directory")
                    elif child.get("mimeType") == "inode/directory":
                        pending.append(child_uri)
                    elif child_uri not in manifest:
                        self.violation(directory, f"the child {child_uri} is not in the skill's manifest")
                    else:
                        found.add(child_uri)
                cursor = result.get("nextCursor")
                if cursor is None or cursor in cursors:
                    break
                cursors.add(cursor)
        for missing in sorted(manifest - found):
            self.violation(missing, "the file is in the manifest but not in its directory's listing")
        self.expect_invalid_params("resources/directory/read", entry["uri"], "a file")

    # -- the whole check -----------------------------------------------------------------------

    def run(self, era):
        directory_read = self.check_declaration(self.open(era))
        if directory_read is None:
            return
        entries = self.list_skills()
        names = disambiguate(entries)
        skills = []
        for entry, display in zip(entries, names):
            self.check_get(entry)
            summary = self.verify_skill(entry)
            summary["displayName"] = display
            skills.append(summary)
            if directory_read:
                self.walk_directories(entry)
        self.probe_errors(entries)
        self.report["skills"] = skills
        by_name = {}
        for entry, display in zip(entries, names):
            by_name.setdefault(entry["frontmatter"]["name"], []).append(display)
        self.report["collisions"] = {name: shown for name, shown in by_name.items() if len(shown) > 1}


def valid_name(name):
    """The Agent Skills naming rules: 1-64 lowercase letters, digits and single inner hyphens."""
    name = unicodedata.normalize("NFKC", name)
    if not 1 <= len(name) <= 64 or name.startswith("-") or name.endswith("-") or "--" in name:
        return False
    return all(c == "-" or (c.isalnum() and not c.isupper()) for c in name)


def disambiguate(entries):
    """A display name per entry: the name when no other entry has it, else the shortest tail of
    the skill path no other same-named entry ends with, else the whole URI."""
    paths = [e["uri"].split("://", 1)[-1][: -len("/SKILL.md")].split("/") for e in entries]
    names = []
    for index, entry in enumerate(entries):
        same = [j for j, other in enumerate(entries) if j != index and other["frontmatter"]["name"] == entry["frontmatter"]["name"]]
        if not same:
            names.append(entry["frontmatter"]["name"])
            continue
        own = paths[index]
        for length in range(2, len(own) + 1):
            if all(paths[j][-length:] != own[-length:] for j in same):
                names.append("/".join(own[-length:]))
                break
        else:
            names.append(entry["uri"])
    return names


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--era", choices=["auto", "modern", "legacy"], default="auto")
    parser.add_argument("--max-pages", type=int, default=1000)
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds to wait for each answer")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the server's command line, after --")
    options = parser.parse_args()
    command = options.command[1:] if options.command[:1] == ["--"] else options.command
    if not command:
        parser.error("give the server's command line after --")
    try:
        connection = Connection(command, options.timeout)
    except OSError as error:
        print(json.dumps({"error": f"cannot start {command[0]}: {error}"}), flush=True)
        return 2
    checker = Checker(connection, options.max_pages)
    checker.report["server"] = command
    try:
        checker.run(options.era)
    except (RpcError, Timeout, ConnectionError, ValueError) as error:
        checker.violation("session", f"{type(error).__name__}: {error}")
    finally:
        connection.close()
    checker.report["ok"] = not checker.violations
    print(json.dumps(checker.report, indent=2, sort_keys=True), flush=True)
    return 0 if checker.report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
