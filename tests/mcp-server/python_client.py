"""The Python MCP SDK's client drives mcp-server over Streamable HTTP.

Usage: python3 python_client.py MCP_URL (the bearer token in MCP_TOKEN)

Connects with the token, calls search_api, describe_api and one execute program (given on stdin),
and prints one JSON object: the tool names, the search result names, the described signature and
the program's structured result. Works with the SDK's 1.x and 2.x client spellings.
"""

import asyncio
import json
import os
import sys

from mcp import ClientSession

try:  # 2.x
    from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

    def connect(url, token):
        client = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
        return streamable_http_client(url, http_client=client)

except ImportError:  # 1.x
    from mcp.client.streamable_http import streamablehttp_client

    def connect(url, token):
        return streamablehttp_client(url, headers={"Authorization": f"Bearer {token}"})


def structured(result):
    """The structured content (2.x: structured_content, 1.x: structuredContent)."""
    return getattr(result, "structured_content", None) or getattr(result, "structuredContent")


def is_error(result):
    return bool(getattr(result, "is_error", None) or getattr(result, "isError", None))


async def main(url, token, program):
    async with connect(url, token) as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = await session.list_tools()
            found = await session.call_tool("search_api", {"query": "sum"})
            described = await session.call_tool("describe_api", {"name": "ev.get_sum"})
            ran = await session.call_tool("execute", {"source": program})
            print(json.dumps({
                "tools": sorted(tool.name for tool in tools.tools),
                "found": [r["name"] for r in structured(found)["results"]],
                "signature": structured(described)["signature"],
                "isError": is_error(ran),
                "result": structured(ran),
                "text": [c.text for c in ran.content if c.type == "text"],
            }))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], os.environ["MCP_TOKEN"], sys.stdin.read()))
