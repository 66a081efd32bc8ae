/** Listeners that are not A2A at all: a plain web server, and a socket that never answers. */
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';

export function plainHttpServer(): HttpServer {
  return createHttpServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>It works!</body></html>\n');
  });
}

/** Accepts connections and never writes a byte (sockets are destroyed on close()). */
export function hangingServer(): TcpServer & { sockets: Set<Socket> } {
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  const close = server.close.bind(server);
  server.close = (cb?: (err?: Error) => void) => {
    for (const s of sockets) s.destroy();
    return close(cb);
  };
  return Object.assign(server, { sockets });
}

/**
 * HTTP/2 garbage on what should be an HTTP/1 port: whatever the client sends, the answer is an
 * HTTP/2 server preface (an empty SETTINGS frame) followed by bytes that are no protocol at all.
 */
export function h2GarbageServer(): TcpServer & { sockets: Set<Socket> } {
  const settings = Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0]);
  const garbage = Buffer.alloc(4096, 0xfe);
  const server = hangingServer();
  server.on('connection', (socket: Socket) => {
    socket.once('data', () => {
      socket.write(Buffer.concat([settings, garbage]));
    });
  });
  return server;
}
