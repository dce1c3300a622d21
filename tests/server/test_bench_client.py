"""The load bench's HTTP client (``bench/server_load.py`` ``Http``), against a scripted server on loopback:
the figures of docs/server.md's page-load runs rest on it counting what a browser would (its cookie sent
back, a 304 with no body, a chunked body read to its end, a connection the server closed reopened)."""

from __future__ import annotations

import asyncio

from bench.server_load import Http

ANSWERS = [
    b'HTTP/1.1 200 OK\r\nSet-Cookie: device=abc; Path=/; HttpOnly\r\nETag: "t1"\r\n'
    b"Content-Length: 5\r\n\r\nhello",
    b'HTTP/1.1 304 Not Modified\r\nETag: "t1"\r\n\r\n',
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=y\r\nde\r\n0\r\n\r\n",
    b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok",
    b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
]


def test_cookies_a_304_a_chunked_body_and_a_closed_connection() -> None:
    async def scenario() -> None:
        asked: list[bytes] = []
        connections = [0]
        answers = iter(ANSWERS)

        async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            connections[0] += 1
            while not reader.at_eof():
                try:
                    asked.append(await reader.readuntil(b"\r\n\r\n"))
                except asyncio.IncompleteReadError:
                    break
                answer = next(answers)
                writer.write(answer)
                await writer.drain()
                if b"Connection: close" in answer:
                    break
            writer.close()

        server = await asyncio.start_server(serve, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        http = Http(f"http://127.0.0.1:{port}")
        try:
            status, headers = await http.get("/")
            assert (status, headers["etag"], http.cookies) == (200, '"t1"', {"device": "abc"})
            assert (await http.get("/", {"If-None-Match": '"t1"'}))[0] == 304
            assert (await http.get("/games/g1"))[0] == 200  # chunked: read to its last chunk
            assert (await http.get("/"))[0] == 200  # then the server closes the connection
            assert (await http.get("/"))[0] == 200  # on a new one
        finally:
            http.close()
            server.close()
        assert connections[0] == 2
        assert b'If-None-Match: "t1"' in asked[1] and all(b"Cookie: device=abc" in a for a in asked[1:])

    asyncio.run(scenario())
