"""A TCP forwarder that holds every byte DELAY seconds in each direction (a round trip gains twice
DELAY): the bench's stand-in for `tc netem delay`, which this kernel lacks. Bounded buffering, so
the sender's rate (tc tbf on the veth pair) still decides the throughput.

    python3 delay_proxy.py LISTEN_HOST LISTEN_PORT TARGET_HOST TARGET_PORT DELAY_SECONDS
"""
import asyncio
import sys

LH, LP, TH, TP, DELAY = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), float(sys.argv[5])


async def pipe(reader, writer):
    loop = asyncio.get_running_loop()
    queue = asyncio.Queue(maxsize=256)

    async def send():
        while True:
            due, data = await queue.get()
            wait = due - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            if data is None:
                try:
                    writer.write_eof()
                except OSError:
                    pass
                return
            writer.write(data)
            await writer.drain()

    sender = asyncio.create_task(send())
    try:
        while data := await reader.read(65536):
            await queue.put((loop.time() + DELAY, data))
    except OSError:
        pass
    finally:
        await queue.put((loop.time() + DELAY, None))
        try:
            await sender
        except OSError:
            pass


async def handle(client_reader, client_writer):
    try:
        server_reader, server_writer = await asyncio.open_connection(TH, TP)
    except OSError:
        client_writer.close()
        return
    await asyncio.gather(
        pipe(client_reader, server_writer), pipe(server_reader, client_writer),
        return_exceptions=True)
    for w in (client_writer, server_writer):
        w.close()


async def main():
    server = await asyncio.start_server(handle, LH, LP, backlog=256)
    print("ready", flush=True)
    async with server:
        await server.serve_forever()


asyncio.run(main())
