/** Listeners that are not A2A at all: a plain web server, and a socket that never answers. */
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createH2Server, type Http2Server } from 'node:http2';
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

/**
 * Reads each HTTP request to its end, counts it, then destroys the connection without a byte
 * of answer: the agent got the request and may have acted on it, the client sees a reset.
 */
export function dropAfterRequestServer(): HttpServer & { requests: string[] } {
  const requests: string[] = [];
  const server = createHttpServer((req) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      requests.push(`${req.method ?? ''} ${req.url ?? ''} ${body.slice(0, 200)}`);
      req.socket.destroy();
    });
  });
  return Object.assign(server, { requests });
}

/**
 * The same over HTTP/2 (plaintext, what a gRPC client speaks): reads each stream's first
 * message frame, counts it, then destroys the whole session without answering.
 */
export function dropAfterGrpcRequestServer(): Http2Server & { requests: string[] } {
  const requests: string[] = [];
  const server = createH2Server();
  server.on('stream', (stream, headers) => {
    stream.once('data', () => {
      requests.push(String(headers[':path'] ?? ''));
      stream.session?.destroy();
    });
  });
  server.on('sessionError', () => {});
  return Object.assign(server, { requests });
}

/**
 * Reads each HTTP request to its end, counts it, then answers 200 with a body no client can
 * use: `chunk` a chunked body whose chunk size is not hex, `text` a plain-text body. An agent
 * that acted on the request and then broke its answer: a client must not replay it.
 */
export function brokenAnswerServer(mode: 'chunk' | 'text'): HttpServer & { requests: string[] } {
  const requests: string[] = [];
  const server = createHttpServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      requests.push(`${req.method ?? ''} ${req.url ?? ''} ${body.slice(0, 200)}`);
      if (mode === 'text') {
        res.writeHead(200, { 'content-type': 'text/plain' }).end('message received\n');
        return;
      }
      req.socket.end(
        'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\nZZ\r\n{}\r\n0\r\n\r\n',
      );
    });
  });
  return Object.assign(server, { requests });
}
