#!/usr/bin/env python3
"""The comparison server of the `serve_load` benchmark: the files of a skills tree served as
resources by the official Python MCP SDK (`pip install mcp`; MCPServer, formerly FastMCP) over
streamable HTTP, as a Python host would serve them without the Skills extension.

    python_resources_server.py ROOT PORT

Every regular file of every skill below ROOT (a directory holding SKILL.md, one or two levels
down) is a resource at skill://<skill>/<path>, read from disk on every request (as
`skills serve` reads through its skills), text when it is UTF-8 and bytes otherwise. The SDK's
defaults otherwise: sessions, SSE answers; logging at WARNING so that it costs nothing.
"""

import mimetypes
import os
import sys

from mcp.server.mcpserver import MCPServer


def skills(root):
    for top in sorted(os.listdir(root)):
        first = os.path.join(root, top)
        if os.path.isfile(os.path.join(first, "SKILL.md")):
            yield top, first
        elif os.path.isdir(first):
            for name in sorted(os.listdir(first)):
                second = os.path.join(first, name)
                if os.path.isfile(os.path.join(second, "SKILL.md")):
                    yield name, second


def reader(path):
    def read():
        with open(path, "rb") as file:
            data = file.read()
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return data

    return read


def main():
    root, port = sys.argv[1], int(sys.argv[2])
    server = MCPServer("python-resources-bench", log_level="WARNING")
    count = 0
    for name, directory in skills(root):
        for parent, _, files in os.walk(directory):
            for file in sorted(files):
                path = os.path.join(parent, file)
                relative = os.path.relpath(path, directory).replace(os.sep, "/")
                mime = "text/markdown" if file.endswith(".md") else mimetypes.guess_type(file)[0]
                server.resource(
                    f"skill://{name}/{relative}",
                    name=f"{name}/{relative}",
                    mime_type=mime or "application/octet-stream",
                )(reader(path))
                count += 1
    print(f"python_resources_server: {count} resources on 127.0.0.1:{port}", file=sys.stderr, flush=True)
    server.run("streamable-http", host="127.0.0.1", port=port)


if __name__ == "__main__":
    main()
